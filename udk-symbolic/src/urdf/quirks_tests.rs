//! What real URDF files do that the hand-written ones do not (each case found in
//! example-robot-data): zero-mass links with a rotational inertia (Bolt's feet), textures
//! without a file (iCub), rounded or slightly indefinite tensors (iCub, TIAGo), mimic tags
//! naming no joint (Alex), an empty `<robot>` (ur3.urdf). The double pendulum of `tests/urdf/`
//! is edited to show each.

use super::*;

const PENDULUM: &str = include_str!("../../../tests/urdf/double_pendulum.urdf");

fn source(inertia: InertiaCheck, mimic: bool) -> UrdfSource {
    UrdfSource {
        mimic,
        inertia,
        ..UrdfSource::new("pendulum.urdf")
    }
}

/// The pendulum with `from` replaced by `to` (which must occur).
fn edited(from: &str, to: &str) -> String {
    assert!(PENDULUM.contains(from), "{from}");
    PENDULUM.replacen(from, to, 1)
}

/// The spec of the robot in `text`, expanded.
fn expanded(text: &str, source: &UrdfSource) -> ModelSpec {
    let robot = read(text, source).unwrap_or_else(|e| panic!("{e}"));
    let mut spec = ModelSpec {
        name: "Pendulum".to_owned(),
        urdf: Some(source.clone()),
        ..ModelSpec::default()
    };
    expand_robot(&mut spec, robot, source).unwrap_or_else(|e| panic!("{e}"));
    spec
}

#[test]
fn a_zero_mass_link_keeps_its_rotational_inertia() {
    // The lower link with m = 0: only its iyy = 0.05 about the elbow's y axis remains, so
    // M = [[i1 + m1 c1² + 0.05, 0.05], [0.05, 0.05]] at every q. Dropping the tensor (as udk
    // did for Bolt's feet) leaves M₂₂ = 0.
    let text = edited(r#"<mass value="0.9"/>"#, r#"<mass value="0"/>"#);
    let strict = source(InertiaCheck::Strict, false);
    let robot = read(&text, &strict).unwrap();
    let lower = robot.tree.bodies[1].inertia.expect("the tensor is kept");
    assert_eq!(lower.mass, 0.0);
    assert_eq!(lower.inertia[1][1], 0.05);
    let spec = expanded(&text, &strict);
    assert!(spec.warnings.is_empty(), "{:?}", spec.warnings);
    let (m1, c1, i1) = (1.5, 0.4, 0.13);
    for q in [[0.3, -0.7], [2.0, 1.2]] {
        let (m, _) = super::tests::m_and_q(&spec, &q, &[0.0; 2], &[0.0; 2]);
        let top = i1 + m1 * c1 * c1 + 0.05;
        let expected = [top, 0.05, 0.05, 0.05];
        for (a, b) in m.iter().zip(expected) {
            assert!((a - b).abs() < 1e-14, "{m:?} vs {expected:?}");
        }
    }
    // Zero mass and a zero tensor: no inertia at all.
    let empty = edited(
        r#"<mass value="0.9"/>
      <inertia ixx="0.1" ixy="0" ixz="0" iyy="0.05" iyz="0" izz="0.01"/>"#,
        r#"<mass value="0"/>
      <inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/>"#,
    );
    assert!(read(&empty, &strict).unwrap().tree.bodies[1]
        .inertia
        .is_none());
}

#[test]
fn what_udk_ignores_cannot_refuse_a_file() {
    // iCub's `<texture/>` has no filename, which urdf-rs alone refuses.
    let text = edited(
        "<link name=\"tip\"/>",
        "<link name=\"tip\"><visual><geometry><box size=\"1 1 1\"/></geometry>\
         <material name=\"metal\"><texture/><color rgba=\"0 0 0 1\"/></material></visual></link>",
    );
    let strict = source(InertiaCheck::Strict, false);
    assert_eq!(
        read(&text, &strict).unwrap().tree,
        read(PENDULUM, &strict).unwrap().tree
    );
}

#[test]
fn a_tensor_indefinite_within_rounding_is_kept_with_a_warning() {
    // The lower body's scale is its largest entry about the elbow, ixx + m c² = 0.21025 kg·m²;
    // izz = −1e-9 is 4.8e-9 of it, within the tolerance 1e-6: kept as written, as Pinocchio
    // keeps it.
    let text = edited(
        r#"iyy="0.05" iyz="0" izz="0.01""#,
        r#"iyy="0.05" iyz="0" izz="-1e-9""#,
    );
    let strict = source(InertiaCheck::Strict, false);
    let robot = read(&text, &strict).unwrap();
    assert_eq!(robot.tree.bodies[1].inertia.unwrap().inertia[2][2], -1e-9);
    let [warning] = robot.warnings.as_slice() else {
        panic!("{:?}", robot.warnings)
    };
    assert!(
        warning.starts_with(r#"pendulum.urdf:13: <link name="lower">: the inertia tensor has the eigenvalue -1e-9 kg·m², below 0 by 4.8e-9 of its body's scale 2.1025e-1 kg·m²"#),
        "{warning}"
    );
}

#[test]
fn a_really_indefinite_tensor_is_an_error_or_repaired_on_request() {
    let text = edited(
        r#"iyy="0.05" iyz="0" izz="0.01""#,
        r#"iyy="0.05" iyz="0" izz="-0.01""#,
    );
    let error = read(&text, &source(InertiaCheck::Strict, false)).unwrap_err();
    assert!(
        error.starts_with(
            r#"pendulum.urdf:13: <link name="lower">: the inertia tensor (ixx, ixy, ixz, iyy, iyz, izz) = (0.1, 0, 0, 0.05, 0, -0.01) is not positive semidefinite: its smallest eigenvalue is -1e-2 kg·m²"#
        ) && error.contains(r#"`inertia = "repair"`"#),
        "{error}"
    );
    let repair = source(InertiaCheck::Repair, false);
    let robot = read(&text, &repair).unwrap();
    // The nearest semidefinite tensor sets the eigenvalue −0.01 to 0: a change of 0.01.
    let tensor = robot.tree.bodies[1].inertia.unwrap().inertia;
    assert_eq!(tensor, [[0.1, 0.0, 0.0], [0.0, 0.05, 0.0], [0.0, 0.0, 0.0]]);
    let [warning] = robot.warnings.as_slice() else {
        panic!("{:?}", robot.warnings)
    };
    assert!(
        warning.contains(
            "repaired to the nearest positive semidefinite tensor, which differs by 1e-2 kg·m²"
        ),
        "{warning}"
    );
}

#[test]
fn a_mimic_of_no_joint_is_ignored_without_mimic_and_an_error_with_it() {
    let text = edited(
        r#"<dynamics damping="0.2"/>"#,
        r#"<dynamics damping="0.2"/><mimic joint="index_q1" multiplier="1.05"/>"#,
    );
    let robot = read(&text, &source(InertiaCheck::Strict, false)).unwrap();
    assert!(robot.joints[1].mimic.is_none());
    assert_eq!(
        robot.warnings,
        [
            r#"pendulum.urdf:28: <joint name="elbow">: the mimicked joint `index_q1` is not a revolute, continuous or prismatic joint of the model; ignored, since `mimic` is off"#
        ]
    );
    let error = read(&text, &source(InertiaCheck::Strict, true)).unwrap_err();
    assert_eq!(
        error,
        r#"pendulum.urdf:28: <joint name="elbow">: the mimicked joint `index_q1` is not a revolute, continuous or prismatic joint of the model"#
    );
}

#[test]
fn an_empty_robot_is_an_error_that_says_so() {
    // As example-robot-data's ur3.urdf: no name either, which urdf-rs alone would report.
    let error = read(
        "<?xml version=\"1.0\"?>\n<robot xmlns:xacro=\"http://wiki.ros.org/xacro\">\n  \
         <!-- nothing -->\n</robot>\n",
        &source(InertiaCheck::Strict, false),
    )
    .unwrap_err();
    assert_eq!(
        error,
        "pendulum.urdf: the file has no links; a URDF robot needs at least its root link"
    );
}

#[test]
fn joints_that_move_only_massless_links_are_named_with_the_links() {
    // romeo.urdf's fingers: here the elbow, once the lower link has no <inertial>.
    let text = edited(
        r#"<inertial>
      <origin xyz="0 0 -0.35"/>
      <mass value="0.9"/>
      <inertia ixx="0.1" ixy="0" ixz="0" iyy="0.05" iyz="0" izz="0.01"/>
    </inertial>"#,
        "",
    );
    let robot = read(&text, &source(InertiaCheck::Strict, false)).unwrap();
    assert_eq!(
        robot.warnings,
        [
            "pendulum.urdf: the joint `elbow` moves only links with no mass or inertia (`lower`, \
          `tip`), so its row and column of M are 0 and its acceleration is never determined"
        ]
    );
}
