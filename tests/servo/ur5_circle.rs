//! The UR5 circle: the servo torques against computed torque from Pinocchio
//! (`tests/fixtures/make_ur5_circle.py`), and the path error once converged.

#[allow(dead_code)]
#[path = "../../examples/ur5_circle.rs"]
pub(crate) mod example;

use example::Ur5Circle;
use serde_json::Value;
use udk::nalgebra::{SMatrix, SVector};
use udk::runtime::servo::{control_by_inverse_dynamics, servo_loop, Convergence};
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

#[test]
fn the_determined_path_agrees_with_the_general_one_on_the_arm() {
    use udk::nalgebra::{DMatrix, DVector};
    use udk::runtime::servo::{control_dyn, GenericServoTerms};
    // servo_control takes the path by inverse dynamics on this arm (no M); the general one
    // forms and factors M. The bench's state: off the circle, moving.
    let arm = Ur5Circle::EXAMPLE;
    let q = SVector::<f64, 6>::from([0.32, -1.18, 1.63, -1.87, -1.52, 0.21]);
    let qd = SVector::<f64, 6>::from([0.1, -0.2, 0.3, 0.05, -0.1, 0.2]);
    let terms = arm.servo_terms(&q, &qd, 0.3);
    // The same terms with an idle seventh input: B is 6 × 7, which takes the general path.
    let dynamic = |v: &[f64]| DVector::from_column_slice(v);
    let mut input_matrix = DMatrix::zeros(6, 7);
    input_matrix
        .columns_mut(0, 6)
        .copy_from(&terms.input_matrix);
    let wide = GenericServoTerms {
        mass_matrix: DMatrix::from_column_slice(6, 6, terms.mass_matrix.as_slice()),
        generalized_force: dynamic(terms.generalized_force.as_slice()),
        nonideal_force: None,
        input_matrix,
        constraint_matrix: DMatrix::from_column_slice(6, 6, terms.constraint_matrix.as_slice()),
        constraint_rhs: dynamic(terms.constraint_rhs.as_slice()),
        position_residual: dynamic(terms.position_residual.as_slice()),
        velocity_residual: dynamic(terms.velocity_residual.as_slice()),
    };
    for law in [
        Convergence::None,
        Convergence::Paper { p: 0.25 },
        Ur5Circle::GAINS,
    ] {
        let fast = arm.servo_control(&q, &qd, 0.3, law).unwrap();
        let general = control_dyn(&wide, 0, law, &Options::default()).unwrap();
        let scale = general.input.amax();
        assert!(general.input[6].abs() < 1e-12 * scale);
        let error = (fast.input - general.input.rows(0, 6)).amax();
        eprintln!("{law:?}: max |u − u_general| = {error:.1e} (|u| = {scale:.1})");
        assert!(error < 1e-12 * scale, "{law:?}: {error:e}");
        let error = (fast.acceleration - &general.acceleration).amax();
        assert!(
            error < 1e-12 * general.acceleration.amax(),
            "{law:?}: {error:e}"
        );
    }
}

#[test]
fn the_inverse_dynamics_is_the_mass_matrix_times_the_acceleration_less_the_bias() {
    // servo_inverse_dynamics (recursive Newton–Euler) against M q̈ − Q₀ of servo_terms (M by
    // the composite-rigid-body algorithm), and servo_task against the rows of servo_terms.
    let arm = Ur5Circle::EXAMPLE;
    let q = SVector::<f64, 6>::from([0.32, -1.18, 1.63, -1.87, -1.52, 0.21]);
    let qd = SVector::<f64, 6>::from([0.1, -0.2, 0.3, 0.05, -0.1, 0.2]);
    let terms = arm.servo_terms(&q, &qd, 0.3);
    let task = arm.servo_task(&q, &qd, 0.3);
    assert_eq!(task.constraint_matrix, terms.constraint_matrix);
    assert_eq!(task.constraint_rhs, terms.constraint_rhs);
    assert_eq!(task.position_residual, terms.position_residual);
    assert_eq!(task.velocity_residual, terms.velocity_residual);
    assert_eq!(terms.input_matrix, SMatrix::<f64, 6, 6>::identity());
    for qdd in [
        SVector::zeros(),
        SVector::<f64, 6>::from([1.5, -2.0, 0.7, 3.0, -0.4, 9.0]),
    ] {
        let found = arm.servo_inverse_dynamics(&q, &qd, &qdd, 0.3);
        let expected = terms.mass_matrix * qdd - terms.generalized_force;
        let error = (found - expected).amax();
        assert!(error < 1e-12 * expected.amax(), "{error:e}");
    }
    // servo_control is that path: the same numbers.
    let by_inverse_dynamics = control_by_inverse_dynamics::<6, 6, 6>(
        &task,
        |qdd| arm.servo_inverse_dynamics(&q, &qd, qdd, 0.3),
        Ur5Circle::GAINS,
        &Options::default(),
    );
    let control = arm.servo_control(&q, &qd, 0.3, Ur5Circle::GAINS);
    assert_eq!(by_inverse_dynamics, control.map(Some));
}
