//! The URDF front end on the hand-written robots of `tests/urdf/`: the tree it reads, and M and
//! Q of the expanded spec against the double pendulum's closed form and, for the branched
//! tree, against M = Σ m Jᵥᵀ Jᵥ + J_ωᵀ (R I Rᵀ) J_ω from finite differences of the kinematics.

use super::read::{apply, compose};
use super::*;
use crate::expr::Symbol;
use crate::spec::{Name, NamedExpression};
use crate::tree::{RigidBodyTree, Transform, TreeJoint};
use crate::{derive, Equations};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/urdf");

fn spec_of(source: UrdfSource) -> ModelSpec {
    ModelSpec {
        name: "Robot".to_owned(),
        urdf: Some(source),
        ..ModelSpec::default()
    }
}

fn expanded(spec: &mut ModelSpec) {
    expand(spec, Path::new(DIR)).unwrap_or_else(|e| panic!("{e}"));
}

/// M (row-major) and Q of `spec` at (q, q̇, u).
pub(super) fn m_and_q(spec: &ModelSpec, q: &[f64], v: &[f64], u: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let d = derive(spec).unwrap_or_else(|e| panic!("{e}"));
    let Equations::Lagrangian(eq) = &d.equations else {
        panic!("a Lagrangian model")
    };
    let values = |s: Symbol| match s {
        Symbol::Coordinate(i) => q[i],
        Symbol::Velocity(i) => v[i],
        Symbol::Input(i) => u[i],
        _ => 0.0,
    };
    (
        d.pool.eval_all(&eq.mass_matrix.entries, &values),
        d.pool.eval_all(&eq.generalized_force, &values),
    )
}

fn close(found: &[f64], expected: &[f64], tol: f64, what: &str) {
    assert_eq!(found.len(), expected.len(), "{what}");
    for (k, (a, b)) in found.iter().zip(expected).enumerate() {
        assert!(
            (a - b).abs() <= tol * (1.0 + b.abs()),
            "{what}[{k}]: {a} vs {b}\n{found:?}\n{expected:?}"
        );
    }
}

#[test]
fn double_pendulum_matches_its_closed_form() {
    let mut spec = spec_of(UrdfSource {
        joint_damping: true,
        ..UrdfSource::new("double_pendulum.urdf")
    });
    expanded(&mut spec);
    assert_eq!(spec.coordinate_names, ["shoulder", "elbow"]);
    let inputs: Vec<String> = spec.inputs.iter().map(Name::as_string).collect();
    assert_eq!(inputs, ["tau_shoulder", "tau_elbow"]);
    let (m1, c1, i1, l1) = (1.5, 0.4, 0.13, 1.0);
    let (m2, c2, i2) = (0.9, 0.35, 0.05);
    let g = 9.81;
    for (q, v, u) in [
        ([0.3, -0.7], [1.1, -0.4], [0.5, -0.2]),
        ([2.0, 1.2], [-0.3, 2.0], [0.0, 1.0]),
    ] {
        let (m, f) = m_and_q(&spec, &q, &v, &u);
        let c = q[1].cos();
        let m12 = i2 + m2 * (c2 * c2 + l1 * c2 * c);
        let expected_m = [
            i1 + m1 * c1 * c1 + i2 + m2 * (l1 * l1 + c2 * c2 + 2.0 * l1 * c2 * c),
            m12,
            m12,
            i2 + m2 * c2 * c2,
        ];
        close(&m, &expected_m, 1e-13, "M");
        // Rotation about +y by q turns (0, 0, −c) to (−c sin q, 0, −c cos q).
        let h = m2 * l1 * c2 * q[1].sin();
        let s12 = (q[0] + q[1]).sin();
        let expected_q = [
            -g * ((m1 * c1 + m2 * l1) * q[0].sin() + m2 * c2 * s12)
                + h * (2.0 * v[0] * v[1] + v[1] * v[1])
                + u[0]
                - 0.3 * v[0],
            -g * m2 * c2 * s12 - h * v[0] * v[0] + u[1] - 0.2 * v[1],
        ];
        close(&f, &expected_q, 1e-13, "Q");
    }
}

#[test]
fn branched_tree_merges_the_fixed_bracket() {
    let text = std::fs::read_to_string(format!("{DIR}/branched.urdf")).unwrap();
    let robot = read(&text, &UrdfSource::new("branched.urdf")).unwrap();
    let names: Vec<&str> = robot.joints.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["turn", "arm-joint", "slide"]);
    let tree = &robot.tree;
    let parents: Vec<_> = tree.bodies.iter().map(|b| b.parent).collect();
    assert_eq!(parents, [None, Some(0), Some(0)]);
    assert!(matches!(
        tree.bodies[2].joint,
        TreeJoint::Prismatic { coordinate: 2, .. }
    ));
    let TreeJoint::Revolute { axis, .. } = tree.bodies[1].joint else {
        panic!("a revolute arm")
    };
    close(&axis, &[0.0, 0.6, 0.8], 1e-15, "unit axis");
    // Table 2 kg with its centre at (0.1, 0, 0.05); bracket 0.5 kg at (0.2, 0.1 + 0.2 turned
    // by a quarter turn about z, 0.1) = (0.0, 0.1, 0.1)... in the table frame: the bracket
    // frame is at (0.2, 0, 0.1) turned by π/2 about z, so its (0, 0.2, 0) is (−0.2, 0, 0).
    let inertia = tree.bodies[0].inertia.unwrap();
    assert_eq!(inertia.mass, 2.5);
    close(
        &inertia.com,
        &[(0.2 + 0.5 * 0.0) / 2.5, 0.0, (0.1 + 0.05) / 2.5],
        1e-15,
        "com",
    );
    assert_eq!(robot.joints[2].mimic, Some((0, 0.1, 0.05)));
    // The arm's origin has the bracket's composed in: (0.2, 0, 0.1) plus (0, 0.1, 0) turned
    // by the bracket's exact quarter turn about z.
    close(
        &tree.bodies[1].origin.translation,
        &[0.1, 0.0, 0.1],
        0.0,
        "arm origin",
    );
    let slider = &tree.bodies[2].origin;
    assert_eq!(
        slider.rotation,
        [[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    );
}

/// World transforms of every body of `tree` at `q`.
fn kinematics(tree: &RigidBodyTree, q: &[f64]) -> Vec<Transform> {
    let mut frames: Vec<Transform> = Vec::new();
    for body in &tree.bodies {
        let parent = body.parent.map_or(Transform::IDENTITY, |p| frames[p]);
        let motion = match body.joint {
            TreeJoint::Revolute { coordinate, axis } => Transform {
                rotation: rodrigues(axis, q[coordinate]),
                translation: [0.0; 3],
            },
            TreeJoint::Prismatic { coordinate, axis } => Transform {
                rotation: Transform::IDENTITY.rotation,
                translation: axis.map(|a| a * q[coordinate]),
            },
        };
        frames.push(compose(&compose(&parent, &body.origin), &motion));
    }
    frames
}

fn rodrigues(a: [f64; 3], angle: f64) -> [[f64; 3]; 3] {
    let (s, c) = angle.sin_cos();
    let k = [[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]];
    [0, 1, 2].map(|i| {
        [0, 1, 2].map(|j| {
            let identity = if i == j { c } else { 0.0 };
            identity + s * k[i][j] + (1.0 - c) * a[i] * a[j]
        })
    })
}

/// M and the gravity force at `q` from central differences of the kinematics.
fn numeric_m_and_gravity(tree: &RigidBodyTree, q: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let n = q.len();
    let h = 1e-6;
    let shifted = |k: usize, d: f64| {
        let mut q = q.to_vec();
        q[k] += d;
        kinematics(tree, &q)
    };
    let frames = kinematics(tree, q);
    let mut m = vec![0.0; n * n];
    let mut gravity = vec![0.0; n];
    for (b, body) in tree.bodies.iter().enumerate() {
        let Some(inertia) = body.inertia else {
            continue;
        };
        // Columns k: ∂p_com/∂q_k and ω_k with [ω_k]× = (∂R/∂q_k) Rᵀ.
        let columns: Vec<([f64; 3], [f64; 3])> = (0..n)
            .map(|k| {
                let (plus, minus) = (shifted(k, h), shifted(k, -h));
                let (p1, p0) = (apply(&plus[b], inertia.com), apply(&minus[b], inertia.com));
                let jv = [0, 1, 2].map(|i| (p1[i] - p0[i]) / (2.0 * h));
                let r = &frames[b].rotation;
                let dr = |i: usize, j: usize| {
                    (plus[b].rotation[i][j] - minus[b].rotation[i][j]) / (2.0 * h)
                };
                let w = |i: usize, j: usize| (0..3).map(|l| dr(i, l) * r[j][l]).sum::<f64>();
                (jv, [w(2, 1), w(0, 2), w(1, 0)])
            })
            .collect();
        let r = &frames[b].rotation;
        let world_inertia: Vec<Vec<f64>> = (0..3)
            .map(|i| {
                (0..3)
                    .map(|j| {
                        (0..3)
                            .flat_map(|k| (0..3).map(move |l| (k, l)))
                            .map(|(k, l)| r[i][k] * inertia.inertia[k][l] * r[j][l])
                            .sum()
                    })
                    .collect()
            })
            .collect();
        for (i, (vi, wi)) in columns.iter().enumerate() {
            gravity[i] += inertia.mass * (0..3).map(|a| tree.gravity[a] * vi[a]).sum::<f64>();
            for (j, (vj, wj)) in columns.iter().enumerate() {
                let translation: f64 = (0..3).map(|a| vi[a] * vj[a]).sum();
                let rotation: f64 = (0..3)
                    .flat_map(|a| (0..3).map(move |c| (a, c)))
                    .map(|(a, c)| wi[a] * world_inertia[a][c] * wj[c])
                    .sum();
                m[i * n + j] += inertia.mass * translation + rotation;
            }
        }
    }
    (m, gravity)
}

#[test]
fn branched_tree_mass_matrix_and_gravity_match_finite_differences() {
    let mut spec = spec_of(UrdfSource {
        gravity: Some([0.5, -1.0, -9.0]),
        ..UrdfSource::new("branched.urdf")
    });
    expanded(&mut spec);
    assert_eq!(spec.coordinate_names, ["turn", "arm-joint", "slide"]);
    assert_eq!(spec.coordinates[1].as_string(), "arm_joint");
    let tree = spec.tree.clone().unwrap();
    assert_eq!(tree.gravity, [0.5, -1.0, -9.0]);
    for q in [[0.3, -0.7, 0.1], [2.0, 1.2, -0.15], [-1.0, 0.4, 0.05]] {
        let (m, f) = m_and_q(&spec, &q, &[0.0; 3], &[0.0; 3]);
        let (expected_m, gravity) = numeric_m_and_gravity(&tree, &q);
        close(&m, &expected_m, 1e-8, "M");
        close(&f, &gravity, 1e-8, "Q at rest");
    }
}

#[test]
fn mimic_joints_become_constraints_only_when_asked() {
    let mut plain = spec_of(UrdfSource::new("branched.urdf"));
    expanded(&mut plain);
    assert!(plain.holonomic.is_empty());
    let mut mimic = spec_of(UrdfSource {
        mimic: true,
        ..UrdfSource::new("branched.urdf")
    });
    expanded(&mut mimic);
    assert_eq!(mimic.holonomic.len(), 1);
    assert_eq!(mimic.holonomic[0].to_string(), "slide - 0.1 * turn - 0.05");
}

#[test]
fn link_functions_give_the_link_frames() {
    let mut spec = spec_of(UrdfSource::new("branched.urdf"));
    spec.outputs = vec![
        NamedExpression {
            name: "bracket_point".parse().unwrap(),
            value: r#"link_position("bracket") + link_rotation("bracket") * vec3(0.0, 1.0, 0.0)"#
                .parse()
                .unwrap(),
        },
        NamedExpression {
            name: "base".parse().unwrap(),
            value: r#"link_position("world")"#.parse().unwrap(),
        },
    ];
    expanded(&mut spec);
    let d = derive(&spec).unwrap_or_else(|e| panic!("{e}"));
    let q = [0.7, 0.0, 0.0];
    let values = |s: Symbol| match s {
        Symbol::Coordinate(i) => q[i],
        _ => 0.0,
    };
    let point = d.pool.eval_all(d.outputs[0].value.components(), &values);
    // The bracket sits at (0.2, 0, 0.1) + (0, 0, 0.5) turned by q about z, with its y axis
    // along the table's −x: (0, 1, 0) in it is (−1, 0, 0) in the table frame.
    let (s, c) = q[0].sin_cos();
    let expected = [0.2 * c - 1.0 * c, 0.2 * s - 1.0 * s, 0.6];
    close(&point, &expected, 1e-15, "bracket point");
    let base = d.pool.eval_all(d.outputs[1].value.components(), &values);
    close(&base, &[0.0; 3], 0.0, "root link");
}

fn error_of(spec: &mut ModelSpec) -> String {
    match expand(spec, Path::new(DIR)) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn an_unknown_link_is_an_error_with_the_nearest_name() {
    let mut spec = spec_of(UrdfSource::new("branched.urdf"));
    spec.holonomic = vec![r#"link_position("brackt").x()"#.parse().unwrap()];
    let message = error_of(&mut spec);
    assert!(message.contains("unknown link `brackt`"), "{message}");
    assert!(message.contains("did you mean `bracket`?"), "{message}");
    let mut spec = spec_of(UrdfSource::new("branched.urdf"));
    spec.holonomic = vec!["link_rotation(turn).x()".parse().unwrap()];
    assert!(error_of(&mut spec).contains("takes one link name, as a string literal"));
}

#[test]
fn a_hamiltonian_and_a_wrong_count_of_forces_are_errors() {
    let mut spec = spec_of(UrdfSource::new("branched.urdf"));
    spec.coordinates = vec!["x".parse().unwrap()];
    spec.forces = vec!["1.0".parse().unwrap(), "2.0".parse().unwrap()];
    spec.hamiltonian = Some("0.5 * p_x.powi(2)".parse().unwrap());
    let message = error_of(&mut spec);
    assert!(
        message.contains("is Lagrangian: `hamiltonian` cannot be set"),
        "{message}"
    );
    assert!(
        message.contains("the model's own 1, then (optionally) the file's 3 movable joints")
            && message.contains("found 2"),
        "{message}"
    );
}

/// The branched tree on a root the model turns by its own ψ and lifts by its own z, through
/// a `let` definition; a definition that uses a link comes after the links' frames.
#[test]
fn a_root_on_the_models_own_pose_places_every_link() {
    let mut spec = spec_of(UrdfSource {
        root: Some(super::UrdfRoot {
            position: Some("lift".parse().unwrap()),
            rotation: Some("rot_z(psi)".parse().unwrap()),
        }),
        ..UrdfSource::new("branched.urdf")
    });
    spec.coordinates = vec!["psi".parse().unwrap(), "z".parse().unwrap()];
    spec.lagrangian = Some(
        "0.5 * dot(z).powi(2) + 0.5 * dot(psi).powi(2)"
            .parse()
            .unwrap(),
    );
    spec.definitions = vec![
        NamedExpression {
            name: "reach".parse().unwrap(),
            value: r#"link_position("bracket") + link_rotation("bracket") * vec3(0.0, 1.0, 0.0) - lift"#
                .parse()
                .unwrap(),
        },
        NamedExpression {
            name: "lift".parse().unwrap(),
            value: "vec3(0.0, 0.0, z)".parse().unwrap(),
        },
    ];
    spec.outputs = vec![
        NamedExpression {
            name: "bracket".parse().unwrap(),
            value: "reach".parse().unwrap(),
        },
        NamedExpression {
            name: "base".parse().unwrap(),
            value: r#"link_position("world")"#.parse().unwrap(),
        },
    ];
    expanded(&mut spec);
    assert!(
        spec.tree.is_none(),
        "the tree's recursions take the root fixed"
    );
    let names: Vec<String> = spec.coordinates.iter().map(Name::as_string).collect();
    assert_eq!(names[..2], ["psi", "z"]);
    assert_eq!(spec.coordinate_names[2..], ["turn", "arm-joint", "slide"]);
    let d = derive(&spec).unwrap_or_else(|e| panic!("{e}"));
    let (psi, z, turn) = (0.4, 1.5, 0.7);
    let q = [psi, z, turn, 0.0, 0.0];
    let values = |s: Symbol| match s {
        Symbol::Coordinate(i) => q[i],
        _ => 0.0,
    };
    // As in `link_functions_give_the_link_frames`, turned by ψ more about z, and lifted.
    let point = d.pool.eval_all(d.outputs[0].value.components(), &values);
    let (s, c) = (psi + turn).sin_cos();
    close(&point, &[0.2 * c - c, 0.2 * s - s, 0.6], 1e-15, "bracket");
    let base = d.pool.eval_all(d.outputs[1].value.components(), &values);
    close(&base, &[0.0, 0.0, z], 0.0, "root link");
}

#[test]
fn a_root_that_uses_a_link_is_an_error() {
    let mut spec = spec_of(UrdfSource {
        root: Some(super::UrdfRoot {
            position: Some(r#"link_position("bracket")"#.parse().unwrap()),
            rotation: None,
        }),
        ..UrdfSource::new("branched.urdf")
    });
    spec.coordinates = vec!["x".parse().unwrap()];
    spec.lagrangian = Some("0.5 * dot(x).powi(2)".parse().unwrap());
    let message = error_of(&mut spec);
    assert!(message.contains("`link_position`"), "{message}");
}

/// The error of `read` on the double pendulum with `from` replaced by `to`.
fn read_error(from: &str, to: &str) -> String {
    let text = std::fs::read_to_string(format!("{DIR}/double_pendulum.urdf")).unwrap();
    assert!(text.contains(from), "{from}");
    match read(
        &text.replacen(from, to, 1),
        &UrdfSource::new("pendulum.urdf"),
    ) {
        Ok(_) => panic!("expected an error for {to}"),
        Err(e) => e,
    }
}

#[test]
fn bad_urdfs_are_errors_naming_the_element_and_line() {
    let cases = [
        (
            r#"<parent link="upper"/>"#,
            r#"<parent link="uper"/>"#,
            r#"pendulum.urdf:28: <joint name="elbow">: the parent link `uper` is not defined"#,
        ),
        (
            r#"<axis xyz="0 1 0"/>"#,
            r#"<axis xyz="0 0 0"/>"#,
            r#"pendulum.urdf:21: <joint name="shoulder">: the axis [0.0, 0.0, 0.0] is zero"#,
        ),
        (
            r#"ixx="0.1" ixy="0""#,
            r#"ixx="0.1" ixy="0.5""#,
            r#"pendulum.urdf:13: <link name="lower">: the inertia tensor (ixx, ixy, ixz, iyy, iyz, izz) = (0.1, 0.5, 0, 0.05, 0, 0.01) is not positive semidefinite"#,
        ),
        (
            r#"type="revolute""#,
            r#"type="floating""#,
            r#"pendulum.urdf:21: <joint name="shoulder">: floating joints are not supported yet"#,
        ),
        (
            r#"<child link="upper"/>"#,
            r#"<child link="base"/>"#,
            r#"pendulum.urdf:5: <link name="base">: the link is not reachable from the root link `upper`"#,
        ),
        (
            r#"<parent link="base"/>"#,
            r#"<parent link="upper"/>"#,
            r#"pendulum.urdf:6: <link name="upper">: the link is not reachable from the root link `base`"#,
        ),
        (
            r#"<child link="tip"/>"#,
            r#"<child link="lower"/>"#,
            r#"pendulum.urdf:35: <joint name="tip_joint">: link `lower` is already the child of joint `elbow`"#,
        ),
        (
            r#"<link name="tip"/>"#,
            r#"<link name="tip"/><link name="extra"/>"#,
            "pendulum.urdf: several root links (`base`, `extra`)",
        ),
        (
            "</robot>",
            "</robt>",
            "pendulum.urdf:40:7: not well-formed XML: Unexpected closing tag: robt != robot",
        ),
        (
            r#"<mass value="1.5"/>"#,
            r#"<mass value="heavy"/>"#,
            r#"pendulum.urdf:6: <link name="upper">: not a valid URDF element: "#,
        ),
    ];
    for (from, to, expected) in cases {
        let message = read_error(from, to);
        assert!(message.starts_with(expected), "{to}: {message}");
    }
}

#[test]
fn a_missing_file_is_an_error_at_the_source() {
    let mut spec = spec_of(UrdfSource::new("no_such_robot.urdf"));
    let message = error_of(&mut spec);
    assert!(
        message.starts_with("no_such_robot.urdf: cannot read the URDF file"),
        "{message}"
    );
}

#[test]
fn more_joints_than_the_limit_is_an_error() {
    let links: String = (0..=MAX_JOINTS + 1)
        .map(|k| format!("<link name=\"l{k}\"/>"))
        .collect();
    let joints: String = (0..=MAX_JOINTS)
        .map(|k| {
            format!(
                "<joint name=\"j{k}\" type=\"continuous\"><parent link=\"l{k}\"/>\
                 <child link=\"l{}\"/><axis xyz=\"0 0 1\"/></joint>",
                k + 1
            )
        })
        .collect();
    let text = format!("<robot name=\"long\">{links}{joints}</robot>");
    let message = read(&text, &UrdfSource::new("long.urdf")).unwrap_err();
    assert_eq!(
        message,
        format!(
            "long.urdf: {} movable joints; udk derives robots of at most {MAX_JOINTS}",
            MAX_JOINTS + 1
        )
    );
}

/// An rpy angle that writes π/2 to 13 or more significant digits is the quarter turn (exact 0
/// and ±1 in the frame, as TIAGo Pro's 1.5707963267949 and 1.57079632679489 mean), while
/// 1.5708 and the UR5's 1.57079632679 are read as written.
#[test]
#[allow(
    clippy::approx_constant,
    reason = "the literals are the files' approximations of π/2 and π, which is the point"
)]
fn quarter_turns_written_to_thirteen_digits_are_exact() {
    let rotation = |rpy: [f64; 3]| {
        super::read::pose(&urdf_rs::Pose {
            xyz: urdf_rs::Vec3([0.0; 3]),
            rpy: urdf_rs::Vec3(rpy),
        })
        .rotation
    };
    for angle in [
        1.5707963267949,
        1.57079632679489,
        -1.5707963267949,
        3.14159265358979,
    ] {
        let r = rotation([angle, 0.0, 0.0]);
        assert!(
            r.as_flattened()
                .iter()
                .all(|x| [0.0, 1.0, -1.0].contains(x)),
            "{angle}: {r:?}"
        );
    }
    for angle in [1.5708, 1.57079632679] {
        let r = rotation([angle, 0.0, 0.0]);
        assert_eq!(r[1][1], angle.cos(), "{angle}");
        assert_eq!(r[2][1], angle.sin(), "{angle}");
    }
}
