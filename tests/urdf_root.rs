//! A URDF root on the model's own pose (`root` in a model file's `urdf` table,
//! `urdf_root(..)` in the macro): the UR5 on a cart (a prismatic coordinate x) and on a
//! turntable (a revolute coordinate ψ through a `let` definition), against Pinocchio 4.1 with
//! the same root joint added (`buildModelFromUrdf(path, JointModelPX() / JointModelRZ())`,
//! tests/fixtures/urdf_root.json from tests/fixtures/make_urdf_root.py); the macro and the model
//! file build the same model.

use std::path::Path;
use udk::lagrangian;
use udk::nalgebra::{DVector, SVector};

mod fixture_support;
use fixture_support::{assert_close, numbers};

/// The cart of tests/fixtures/cart_ur5.toml, by the macro.
#[lagrangian(
    urdf = "robots/ur5_robot.urdf",
    urdf_root(position = vec3(x, 0.0, 0.0)),
    coordinates(x),
    inputs(f),
    lagrangian = 0.5 * m_cart * dot(x).powi(2),
    forces(f),
    outputs(tool = link_position("tool0"))
)]
struct CartUr5 {
    m_cart: f64,
}

/// The turntable of tests/fixtures/turntable_ur5.toml, by the macro.
#[lagrangian(
    urdf = "robots/ur5_robot.urdf",
    urdf_root(rotation = table),
    coordinates(psi),
    inputs(torque),
    let table = rot_z(psi),
    lagrangian = 0.5 * i_table * dot(psi).powi(2),
    forces(torque)
)]
struct TurntableUr5 {
    i_table: f64,
}

type Q = SVector<f64, 7>;

/// The fixture's states of `key`, each checked by `check(q, v, tau, aba, crba rows)`.
fn each_state(key: &str, mut check: impl FnMut(&[f64], &[f64], &[f64], &[f64], Vec<f64>)) {
    let fixture: serde_json::Value =
        serde_json::from_str(include_str!("fixtures/urdf_root.json")).expect("JSON");
    let entry = &fixture["robots"][key];
    let states = entry["states"].as_array().expect("states");
    assert_eq!(states.len(), 3);
    for state in states {
        let crba: Vec<f64> = (state["crba"].as_array().expect("rows").iter())
            .flat_map(numbers)
            .collect();
        check(
            &numbers(&state["q"]),
            &numbers(&state["v"]),
            &numbers(&state["tau"]),
            &numbers(&state["aba"]),
            crba,
        );
    }
}

#[test]
fn a_ur5_on_a_cart_matches_pinocchio_in_the_macro_and_the_model_file() {
    assert_eq!(
        CartUr5::COORDINATE_NAMES,
        [
            "x",
            "shoulder_pan_joint",
            "shoulder_lift_joint",
            "elbow_joint",
            "wrist_1_joint",
            "wrist_2_joint",
            "wrist_3_joint"
        ]
    );
    let cart = CartUr5 { m_cart: 10.0 };
    let mut model =
        udk::Model::from_file(Path::new("tests/fixtures/cart_ur5.toml")).expect("the model file");
    assert_eq!(model.inputs()[0], "f");
    each_state("cart", |q, v, tau, aba, crba| {
        let (qs, vs) = (Q::from_column_slice(q), Q::from_column_slice(v));
        let u = SVector::<f64, 7>::from_column_slice(tau);
        let qdd = cart.acceleration(&qs, &vs, &u, 0.0).expect("q̈");
        assert_close(qdd.as_slice(), aba, 1e-10, "macro q̈");
        let m = cart.mass_matrix(&qs, 0.0);
        assert_close(m.transpose().as_slice(), &crba, 1e-10, "macro M");
        model.set_inputs(tau).expect("u");
        let (qd, vd) = (DVector::from_column_slice(q), DVector::from_column_slice(v));
        let from_file = model.acceleration(&qd, &vd, 0.0).expect("q̈");
        assert_close(from_file.as_slice(), aba, 1e-10, "model file q̈");
        // The same DAG: the JIT and the macro's code agree to rounding.
        assert_close(from_file.as_slice(), qdd.as_slice(), 1e-12, "file vs macro");
        // The tool moves with the cart: x shifts it along the world x axis alone.
        let mut shifted = qs;
        shifted[0] += 0.25;
        let moved = cart.tool(&shifted, &vs, &u, 0.0) - cart.tool(&qs, &vs, &u, 0.0);
        assert_close(moved.as_slice(), &[0.25, 0.0, 0.0], 1e-14, "tool");
    });
}

#[test]
fn a_ur5_on_a_turntable_matches_pinocchio_in_the_macro_and_the_model_file() {
    let table = TurntableUr5 { i_table: 0.5 };
    let mut model = udk::Model::from_file(Path::new("tests/fixtures/turntable_ur5.toml"))
        .expect("the model file");
    each_state("turntable", |q, v, tau, aba, crba| {
        let (qs, vs) = (Q::from_column_slice(q), Q::from_column_slice(v));
        let u = SVector::<f64, 7>::from_column_slice(tau);
        let qdd = table.acceleration(&qs, &vs, &u, 0.0).expect("q̈");
        assert_close(qdd.as_slice(), aba, 1e-10, "macro q̈");
        let m = table.mass_matrix(&qs, 0.0);
        assert_close(m.transpose().as_slice(), &crba, 1e-10, "macro M");
        model.set_inputs(tau).expect("u");
        let (qd, vd) = (DVector::from_column_slice(q), DVector::from_column_slice(v));
        let from_file = model.acceleration(&qd, &vd, 0.0).expect("q̈");
        assert_close(from_file.as_slice(), aba, 1e-10, "model file q̈");
    });
}
