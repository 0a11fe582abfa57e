//! Section 8.2: the swarm's constraints (eq 61) as servo constraints, the control the paper's
//! Fᶜ (eq 64), and ‖β‖ falling under the convergence term of eq 72 (Figure 8).

#[allow(dead_code)]
#[path = "../../examples/swarm_robots.rs"]
mod example;

use example::{SwarmOfFiveRobots, SwarmServo};
use udk::nalgebra::SVector;
use udk::runtime::servo::{servo_loop, Convergence};
use udk::runtime::simulate::{simulate_lagrangian, OutputTimes, SimulationOptions};
use udk::runtime::Options;

/// The start of the example: five robots at rest, off eq 61.
fn start() -> SVector<f64, 10> {
    SVector::from_column_slice(&[0.0, 0.0, 3.0, 1.0, -2.0, 2.5, 1.5, -3.0, -1.0, -1.5])
}

#[test]
fn the_control_is_eq_64() {
    let (servo, physical) = (SwarmServo { m: 2.0 }, SwarmOfFiveRobots { m: 2.0 });
    let q = start();
    for qd in [
        SVector::zeros(),
        SVector::from_column_slice(&[0.2, -0.1, 0.0, 0.3, -0.4, 0.1, 0.2, 0.2, -0.3, 0.0]),
    ] {
        let control = servo
            .servo_control(&q, &qd, 0.0, Convergence::None)
            .unwrap();
        // F_i = 0 and A_i = I: Fᶜ = m φ with φ the constrained acceleration of eq 63, which
        // `tests/papers/review.rs` checks for the physically constrained swarm.
        let expected = physical.acceleration(&q, &qd, 0.0).unwrap() * 2.0;
        assert!((control.input - expected).norm() < 1e-12 * expected.norm().max(1.0));
        assert!(control.realized(1e-12));
    }
}

#[test]
fn beta_falls_as_in_figure_8() {
    let swarm = SwarmServo { m: 2.0 };
    let p = 0.25;
    let closed = servo_loop(&swarm, Convergence::Paper { p }, Options::default());
    let options = SimulationOptions {
        output: OutputTimes::Every(0.25),
        ..SimulationOptions::default()
    };
    let run =
        simulate_lagrangian(&closed, &start(), &SVector::zeros(), 0.0, 3.0, &options).unwrap();
    let beta = |s: &udk::runtime::simulate::Sample<10>| {
        swarm.servo_terms(&s.q, &s.v, s.t).velocity_residual
    };
    let beta0 = beta(&run.samples[0]);
    for sample in &run.samples {
        // A = I and eq 72 give β̇ = −β/P: β(t) = β(0) e^(−t/P), every component.
        let expected = beta0 * (-sample.t / p).exp();
        assert!(
            (beta(sample) - expected).norm() < 1e-7 * beta0.norm(),
            "t = {}",
            sample.t
        );
    }
    let last = beta(run.samples.last().unwrap()).norm();
    eprintln!("‖β(0)‖ = {:.3}, ‖β(3 s)‖ = {last:.2e}", beta0.norm());
    assert!(beta0.norm() > 1.0 && last < 0.01);
}
