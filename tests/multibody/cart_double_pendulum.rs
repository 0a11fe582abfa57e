//! The cart with a double pendulum and an input force against sympy.physics.mechanics, and
//! under control laws.

use crate::{assert_close, fixture, numbers};
use udk::nalgebra::{SVector, Vector1, Vector3};
use udk::runtime::simulate::{simulate_lagrangian, OutputTimes, SimulationOptions};
use udk::runtime::ControlledLagrangianSystem;

#[allow(dead_code)]
#[path = "../../examples/cart_double_pendulum.rs"]
mod model;

use model::{drive_to_one, CartDoublePendulum};

#[test]
fn accelerations_under_inputs_match_sympy_mechanics_to_1e_12() {
    let reference = fixture("cart_double_pendulum");
    let model = CartDoublePendulum::EXAMPLE;
    assert_eq!(CartDoublePendulum::INPUT_NAMES, ["u"]);
    for state in reference["states"].as_array().unwrap() {
        let q = SVector::<f64, 3>::from_vec(numbers(&state["q"]));
        let qd = SVector::<f64, 3>::from_vec(numbers(&state["qd"]));
        let u = Vector1::new(state["u"].as_f64().unwrap());
        let qdd = model.acceleration(&q, &qd, &u, 0.0).unwrap();
        assert_close(qdd.as_slice(), &numbers(&state["qdd"]), 1e-12);
        // The input enters Q linearly, on the cart only: Q(u) − Q(0) = (u, 0, 0).
        let zero = Vector1::zeros();
        let dq = model.generalized_forces(&q, &qd, &u, 0.0)
            - model.generalized_forces(&q, &qd, &zero, 0.0);
        assert_close(dq.as_slice(), &[u[0], 0.0, 0.0], 1e-14);
    }
}

#[test]
fn a_damping_force_only_removes_energy_and_a_pd_force_moves_the_cart() {
    let model = CartDoublePendulum::EXAMPLE;
    let (q0, qd0) = (Vector3::new(0.0, 0.8, -0.5), Vector3::new(0.5, 0.0, 1.0));
    let options = SimulationOptions {
        rtol: 1e-11,
        atol: 1e-11,
        output: OutputTimes::Every(0.05),
        ..SimulationOptions::default()
    };
    // u = −2 ẋ: the power u ẋ ≤ 0, so the energy never grows.
    let damped = model.closed_loop(|_, _, qd: &SVector<f64, 3>| Vector1::new(-2.0 * qd[0]));
    let run = simulate_lagrangian(&damped, &q0, &qd0, 0.0, 5.0, &options).unwrap();
    let energies: Vec<f64> = run.samples.iter().map(|s| s.energy).collect();
    assert!(
        energies.windows(2).all(|w| w[1] <= w[0] + 1e-9),
        "{energies:?}"
    );
    assert!(energies.last().unwrap() < &(energies[0] - 0.1));
    // The PD law brings the cart near x = 1 m in 10 s.
    let driven = model.closed_loop(drive_to_one);
    let run = simulate_lagrangian(&driven, &q0, &qd0, 0.0, 10.0, &options).unwrap();
    let last = run.samples.last().unwrap();
    assert!((last.q[0] - 1.0).abs() < 0.2, "x(10 s) = {}", last.q[0]);
}

#[test]
fn upright_linearization_matches_sympy_mechanics_to_1e_12() {
    use udk::runtime::linearize::{linearize, LinearizationOptions, OperatingPoint};
    let reference = &fixture("cart_double_pendulum")["upright"];
    let point = OperatingPoint {
        q: Vector3::new(0.0, std::f64::consts::PI, std::f64::consts::PI),
        qd: Vector3::zeros(),
        u: Vector1::zeros(),
        t: 0.0,
    };
    let model = CartDoublePendulum::EXAMPLE;
    let options = LinearizationOptions::default();
    let linear = linearize(&model, &point, &Default::default(), &options).unwrap();
    assert_eq!(linear.coordinates.independent, vec![0, 1, 2]);
    for (i, row) in reference["a"].as_array().unwrap().iter().enumerate() {
        let found: Vec<f64> = linear.a.row(i).iter().copied().collect();
        assert_close(&found, &numbers(row), 1e-12);
    }
    let b: Vec<f64> = reference["b"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| numbers(r)[0])
        .collect();
    assert_close(linear.b.as_slice(), &b, 1e-12);
}
