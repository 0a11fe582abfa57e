//! The UR5 circle: the servo torques against computed torque from Pinocchio
//! (`tests/fixtures/make_ur5_circle.py`), and the path error once converged.

#[allow(dead_code)]
#[path = "../../examples/ur5_circle.rs"]
mod example;

use example::Ur5Circle;
use serde_json::Value;
use udk::nalgebra::SVector;
use udk::runtime::servo::{servo_loop, Convergence};
use udk::runtime::simulate::{simulate_lagrangian, OutputTimes, SimulationOptions};
use udk::runtime::Options;

fn vector(v: &Value) -> SVector<f64, 6> {
    let values: Vec<f64> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    SVector::from_column_slice(&values)
}

#[test]
fn the_servo_torques_are_computed_torque() {
    let fixture: Value = serde_json::from_str(include_str!("../fixtures/ur5_circle.json")).unwrap();
    let centre = fixture["centre"].as_array().unwrap();
    let arm = Ur5Circle::EXAMPLE;
    assert_eq!(
        [arm.cx, arm.cy, arm.cz],
        [0, 1, 2].map(|i| centre[i].as_f64().unwrap())
    );
    let gains = Convergence::TaskSpace {
        stiffness: fixture["parameters"]["kp"].as_f64().unwrap(),
        damping: fixture["parameters"]["kd"].as_f64().unwrap(),
    };
    for state in fixture["states"].as_array().unwrap() {
        let (q, qd, t) = (
            vector(&state["q"]),
            vector(&state["qd"]),
            state["t"].as_f64().unwrap(),
        );
        for (law, key) in [
            (Convergence::None, "tau_feedforward"),
            (gains, "tau_feedback"),
        ] {
            let control = arm.servo_control(&q, &qd, t, law).unwrap();
            let expected = vector(&state[key]);
            let error = (control.input - expected).amax();
            eprintln!(
                "{key}: max |τ − τ_ct| = {error:.1e} (|τ| = {:.1})",
                expected.amax()
            );
            assert!(error < 1e-9 * expected.amax().max(1.0), "{key}: {error:e}");
            assert!(control.realized(1e-9));
        }
    }
}

#[test]
fn the_tool_stays_on_the_circle_once_converged() {
    let arm = Ur5Circle::EXAMPLE;
    let (q0, qd0) = (SVector::from(Ur5Circle::START), SVector::zeros());
    let closed = servo_loop(&arm, Ur5Circle::GAINS, Options::default());
    let options = SimulationOptions {
        output: OutputTimes::Every(0.05),
        ..SimulationOptions::default()
    };
    let run = simulate_lagrangian(&closed, &q0, &qd0, 0.0, 3.0, &options).unwrap();
    let errors = run.outputs.column("path_error").unwrap();
    let converged = (run.samples.iter().zip(&errors))
        .filter(|(s, _)| s.t >= 2.0)
        .map(|(_, e)| *e)
        .fold(0.0, f64::max);
    let start = errors.iter().copied().fold(0.0, f64::max);
    eprintln!("path error: max {start:.2e} m over the run, {converged:.2e} m for t ≥ 2 s");
    assert!(converged < 1e-9, "{converged:e}");
}
