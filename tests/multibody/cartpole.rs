//! The cart-pole of `examples/cartpole_lqr.rs`: its upright linearization is the textbook one,
//! and the LQR designed from it balances the pole.

use crate::assert_close;
use udk::nalgebra::Vector2;
use udk::runtime::simulate::{simulate_lagrangian, OutputTimes, SimulationOptions};
use udk::runtime::ControlledLagrangianSystem;

#[allow(dead_code)]
#[path = "../../examples/cartpole_lqr.rs"]
mod model;

use model::{state_feedback, CartPole};

#[test]
fn upright_linearization_is_the_textbook_a_and_b() {
    let model = CartPole::EXAMPLE;
    let linear = model.upright().unwrap();
    let (big, m, l, g) = (model.mc, model.m, model.l, model.g);
    #[rustfmt::skip]
    let expected_a = [
        0.0, 0.0, 1.0, 0.0,
        0.0, 0.0, 0.0, 1.0,
        0.0, -m * g / big, 0.0, 0.0,
        0.0, (big + m) * g / (big * l), 0.0, 0.0,
    ];
    let a: Vec<f64> = (0..16).map(|k| linear.a[(k / 4, k % 4)]).collect();
    assert_close(&a, &expected_a, 1e-14);
    assert_close(
        linear.b.as_slice(),
        &[0.0, 0.0, 1.0 / big, -1.0 / (big * l)],
        1e-14,
    );
    // ±√((M + m) g / (M l)) and a double zero.
    let pole = ((big + m) * g / (big * l)).sqrt();
    let re: Vec<f64> = linear.eigenvalues.iter().map(|e| e.re).collect();
    assert_close(&re, &[-pole, 0.0, 0.0, pole], 1e-12);
}

#[test]
fn the_lqr_closed_loop_balances_the_pole_from_a_0_2_rad_lean() {
    let model = CartPole::EXAMPLE;
    let design = model.balancing_gain().unwrap();
    assert!(design.closed_loop_eigenvalues.iter().all(|e| e.re < -0.1));
    let controlled = model.closed_loop(state_feedback(design.gain));
    let options = SimulationOptions {
        output: OutputTimes::Every(0.1),
        ..SimulationOptions::default()
    };
    let (q0, qd0) = (Vector2::new(0.0, 0.2), Vector2::zeros());
    let run = simulate_lagrangian(&controlled, &q0, &qd0, 0.0, 10.0, &options).unwrap();
    // The lean never grows past its start, and after 10 s the state is upright rest.
    assert!(run.samples.iter().all(|s| s.q[1].abs() <= 0.2 + 1e-12));
    let last = run.samples.last().unwrap();
    let size = last.q.amax().max(last.v.amax());
    assert!(size < 1e-3, "state at 10 s: q = {}, q̇ = {}", last.q, last.v);
}
