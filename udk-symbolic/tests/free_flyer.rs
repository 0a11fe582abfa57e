//! URDF robots on a floating base against Pinocchio 4.1 with `JointModelFreeFlyer`
//! (tests/fixtures/free_flyer.json, from tests/fixtures/make_free_flyer.py): the symbolic
//! articulated-body algorithm with a 6-DoF root (`aba`), the composite-rigid-body mass matrix
//! (`crba`) and recursive Newton–Euler (`rnea`) to 1e-10 relative, at random states of
//! Solo12, A1, ANYmal C, the Iris drone, the Hector quadrotor (one link: a free rigid body)
//! and Talos reduced (32 joints; read from `UDK_EXAMPLE_ROBOT_DATA`, skipped with a printed
//! reason when it is unset, as it is not redistributable).

use std::path::PathBuf;
use udk_symbolic::derive::tree::free_flyer::free_flyer;
use udk_symbolic::expr::{Pool, Symbol};
use udk_symbolic::urdf::{read, UrdfSource};

const TOLERANCE: f64 = 1e-10;

fn fixture() -> serde_json::Value {
    let text = include_str!("../../tests/fixtures/free_flyer.json");
    serde_json::from_str(text).expect("the fixture is JSON")
}

fn numbers(value: &serde_json::Value) -> Vec<f64> {
    (value.as_array().expect("an array").iter())
        .map(|x| x.as_f64().expect("a number"))
        .collect()
}

/// The URDF of fixture `key`: vendored under robots/example-robot-data, or for Talos under
/// `UDK_EXAMPLE_ROBOT_DATA` (`None` when that is unset).
fn locate(relative: &str, vendored: bool) -> Option<PathBuf> {
    let root = if vendored {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../robots/example-robot-data")
    } else {
        PathBuf::from(std::env::var_os("UDK_EXAMPLE_ROBOT_DATA")?)
    };
    Some(root.join(relative))
}

/// |got − expected| ≤ TOLERANCE · max(1, max |expected|), entry by entry.
fn assert_close(got: &[f64], expected: &[f64], what: &str) {
    assert_eq!(got.len(), expected.len(), "{what}: length");
    let scale = expected.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
    for (k, (g, e)) in got.iter().zip(expected).enumerate() {
        assert!(
            (g - e).abs() <= TOLERANCE * scale,
            "{what}[{k}]: {g} vs Pinocchio {e} (scale {scale})"
        );
    }
}

/// Compares robot `key` with Pinocchio at every state of the fixture.
fn compare(key: &str, relative: &str, vendored: bool) {
    let Some(path) = locate(relative, vendored) else {
        println!("skipped {key}: UDK_EXAMPLE_ROBOT_DATA is not set (its URDF is not vendored)");
        return;
    };
    let fixture = fixture();
    let entry = &fixture["robots"][key];
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let source = UrdfSource {
        floating_base: true,
        ..UrdfSource::new(relative)
    };
    let robot = read(&text, &source).unwrap_or_else(|e| panic!("{e}"));
    let mut pool = Pool::new();
    let dynamics = free_flyer(&mut pool, &robot.tree, robot.base_inertia.as_ref())
        .unwrap_or_else(|e| panic!("{e}"));
    // udk's joint j is Pinocchio's joint `order[j]`.
    let pinocchio: Vec<&str> = (entry["joints"].as_array().expect("joints").iter())
        .map(|x| x.as_str().expect("a name"))
        .collect();
    let order: Vec<usize> = (robot.joints.iter())
        .map(|j| {
            (pinocchio.iter().position(|p| *p == j.name))
                .unwrap_or_else(|| panic!("{key}: joint {} not in the fixture", j.name))
        })
        .collect();
    let n = order.len();
    assert_eq!(n, pinocchio.len(), "{key}: joint count");
    // An entry of v (6 + n) in udk's order from Pinocchio's.
    let velocity = |values: &[f64]| -> Vec<f64> {
        let mut out = values[..6].to_vec();
        out.extend(order.iter().map(|&p| values[6 + p]));
        out
    };
    for (s, state) in entry["states"]
        .as_array()
        .expect("states")
        .iter()
        .enumerate()
    {
        let (q, v, tau, a) = (
            numbers(&state["q"]),
            velocity(&numbers(&state["v"])),
            numbers(&state["tau"]),
            velocity(&numbers(&state["a"])),
        );
        let mut coordinates = q[..7].to_vec();
        coordinates.extend(order.iter().map(|&p| q[7 + p]));
        let tau: Vec<f64> = order.iter().map(|&p| tau[p]).collect();
        let values = |symbol: Symbol| match symbol {
            Symbol::Coordinate(k) => coordinates[k],
            Symbol::Velocity(k) => v[k],
            Symbol::Acceleration(k) => a[k],
            Symbol::Input(j) => tau[j],
            _ => 0.0,
        };
        let what = |name: &str| format!("{key}, state {s}, {name}");
        let rnea = pool.eval_all(&dynamics.inverse_dynamics, &values);
        assert_close(&rnea, &velocity(&numbers(&state["rnea"])), &what("rnea"));
        let mass = pool.eval_all(&dynamics.mass_matrix.entries, &values);
        let rows: Vec<Vec<f64>> = (state["crba"].as_array().expect("rows").iter())
            .map(|row| velocity(&numbers(row)))
            .collect();
        let rows = velocity_rows(&rows, &order);
        assert_close(&mass, &rows.concat(), &what("crba"));
        let aba = pool.eval_all(&dynamics.acceleration, &values);
        assert_close(&aba, &velocity(&numbers(&state["aba"])), &what("aba"));
    }
}

/// The rows of a Pinocchio matrix (columns already in udk's order) in udk's order.
fn velocity_rows(rows: &[Vec<f64>], order: &[usize]) -> Vec<Vec<f64>> {
    let mut out = rows[..6].to_vec();
    out.extend(order.iter().map(|&p| rows[6 + p].clone()));
    out
}

#[test]
fn solo12_matches_pinocchio() {
    compare("solo12", "solo_description/robots/solo12.urdf", true);
}

#[test]
fn a1_matches_pinocchio() {
    compare("a1", "a1_description/urdf/a1.urdf", true);
}

#[test]
fn anymal_c_matches_pinocchio() {
    compare(
        "anymal_c",
        "anymal_c_simple_description/urdf/anymal.urdf",
        true,
    );
}

#[test]
fn iris_matches_pinocchio() {
    compare("iris", "iris_description/robots/iris.urdf", true);
}

#[test]
fn hector_quadrotor_is_a_free_body_as_in_pinocchio() {
    compare(
        "hector",
        "hector_description/robots/quadrotor_base.urdf",
        true,
    );
}

#[test]
fn talos_reduced_matches_pinocchio() {
    compare(
        "talos_reduced",
        "talos_data/robots/talos_reduced.urdf",
        false,
    );
}

/// A URDF whose root is attached to `world` by a floating joint.
const FLOATING_JOINT: &str = r#"<robot name="drone">
  <link name="world"/>
  <joint name="free" type="floating">
    <parent link="world"/>
    <child link="body"/>
  </joint>
  <link name="body">
    <inertial>
      <mass value="1.0"/>
      <inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.2"/>
    </inertial>
  </link>
</robot>"#;

#[test]
fn a_floating_base_on_a_floating_joint_is_refused() {
    let source = UrdfSource {
        floating_base: true,
        ..UrdfSource::new("drone.urdf")
    };
    let error = read(FLOATING_JOINT, &source).expect_err("two free bases");
    assert!(
        error.contains("drone.urdf:3")
            && error.contains("already has a floating joint")
            && error.contains("`world`"),
        "{error}"
    );
}

#[test]
fn a_robot_with_no_mass_anywhere_is_refused() {
    let text = r#"<robot name="ghost"><link name="nothing"/></robot>"#;
    let source = UrdfSource {
        floating_base: true,
        ..UrdfSource::new("ghost.urdf")
    };
    let robot = read(text, &source).expect("a URDF");
    let mut pool = Pool::new();
    let error =
        free_flyer(&mut pool, &robot.tree, robot.base_inertia.as_ref()).expect_err("no mass");
    assert_eq!(
        error,
        udk_symbolic::derive::tree::TreeError::Massless {
            body: "base".to_owned()
        }
    );
}

#[test]
fn a_model_file_with_a_floating_base_says_where_it_is_supported() {
    let source: UrdfSource =
        toml::from_str::<toml::Table>("urdf = { path = \"solo12.urdf\", floating_base = true }")
            .expect("TOML")["urdf"]
            .clone()
            .try_into()
            .expect("a URDF source");
    assert!(source.floating_base);
    let mut spec = udk_symbolic::ModelSpec {
        name: "Solo".into(),
        urdf: Some(source),
        ..udk_symbolic::ModelSpec::default()
    };
    let errors =
        udk_symbolic::urdf::expand(&mut spec, std::path::Path::new(".")).expect_err("not expanded");
    assert!(
        errors.0[0].message.contains("floating_base = true")
            && errors.0[0].message.contains("FreeFlyerModel::from_file"),
        "{}",
        errors.0[0].message
    );
}

/// The macro's generator (`#[lagrangian(urdf = .., floating_base = true)]`) on a URDF whose
/// root already floats: the same refusal, at the `urdf` span.
#[test]
fn the_macro_refuses_a_floating_base_on_a_floating_joint() {
    let spec = udk_symbolic::ModelSpec {
        name: "DoubleBase".into(),
        urdf: Some(UrdfSource {
            floating_base: true,
            ..UrdfSource::new("udk-macros/tests/ui/urdf_floating_joint.urdf")
        }),
        ..udk_symbolic::ModelSpec::default()
    };
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let errors = udk_symbolic::codegen::free_flyer::generate_free_flyer(&spec, &root)
        .err()
        .expect("two free bases");
    let message = &errors.0[0].message;
    assert!(
        message.contains("already has a floating joint") && message.contains("free_flight"),
        "{message}"
    );
}

/// The macro's generator writes the fundamental equation's fast path out in
/// `contact_dynamics` for Solo12's four feet, and leaves it out past its operation budget
/// (24 points held, 72 rows: the Delassus matrix and its factorization grow as the cube of the
/// rows, 62 208 updates for the factorization alone, so that the path is not even built), where
/// `contact_dynamics` hands the terms to the kernel alone.
#[test]
fn the_fast_path_of_held_points_is_generated_within_its_budget() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let generate = |points: usize| {
        let feet = ["FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"];
        let outputs: Vec<String> = (0..points)
            .map(|k| {
                format!(
                    "{{ name = \"P{k}\", value = 'link_position(\"{}\")' }}",
                    feet[k % 4]
                )
            })
            .collect();
        let text = format!(
            "name = \"Solo\"\noutputs = [{}]\nurdf = {{ path = \"robots/example-robot-data/\
             solo_description/robots/solo12.urdf\", floating_base = true }}\n",
            outputs.join(", ")
        );
        let spec: udk_symbolic::ModelSpec = toml::from_str(&text).expect("a model");
        let code = udk_symbolic::codegen::free_flyer::generate_free_flyer(&spec, &root);
        code.expect("generated").tokens.to_string()
    };
    let four = generate(4);
    assert!(four.contains("fn contact_dynamics") && four.contains("fast_path :: holds"));
    let many = generate(24);
    assert!(many.contains("fn contact_dynamics") && !many.contains("fast_path :: holds"));
    assert!(many.contains("udk_runtime :: acceleration"));
}
