//! Section 8.3 of the review paper: the flexible-joint arm under the servo constraint
//! q̇⁽²⁾ + q̇⁽⁴⁾ = 0, driven from β(0) = 0.9 by eq 72.

#[allow(dead_code)]
#[path = "../../examples/flexible_joint_manipulator.rs"]
pub(crate) mod example;

use example::{FlexibleJointMotorServo, FlexibleJointServo, PAPER_GAIN};
use udk::nalgebra::{Matrix2, RowVector2, Vector2, Vector4};
use udk::runtime::servo::{servo_loop, Convergence};
use udk::runtime::simulate::{simulate_lagrangian, OutputTimes, SimulationOptions};
use udk::runtime::Options;

/// Eq 72 written out from the paper's D, C, G and K (eqs 66–68, with m₂ in c₁₁): the link
/// torques u = Fᶜ − D Aᵀ(AAᵀ)⁻¹P⁻¹β with Fᶜ = D^½(A D^-½)⁺(b − A D⁻¹ f) (eq 71) =
/// Aᵀ(A D⁻¹ Aᵀ)⁻¹(b − A D⁻¹ f), b = 0, A = [1 1],
/// f = −C q̇₁ − G − K(q₁ − q₂) the link forces without input (q₁ the links, q₂ the motors).
fn eq_72(q: &Vector4<f64>, qd: &Vector4<f64>, p: f64) -> Vector2<f64> {
    let (m1, m2, l1, lc1, lc2, i1, i2, k, g) = (1.0, 1.0, 1.0, 0.5, 0.5, 1.0, 1.0, 1.0, 9.81);
    let (q2, q4, qd2, qd4) = (q[1], q[3], qd[1], qd[3]);
    let d11 = m2 * (l1 * l1 + lc2 * lc2 + 2.0 * l1 * lc2 * q4.cos()) + m1 * lc1 * lc1 + i1 + i2;
    let d12 = m2 * (lc2 * lc2 + l1 * lc2 * q4.cos()) + i2;
    let d22 = m2 * lc2 * lc2 + i2;
    let d = Matrix2::new(d11, d12, d12, d22);
    let h = m2 * l1 * lc2 * q4.sin();
    let c = Matrix2::new(-h * qd4, -h * (qd2 + qd4), h * qd2, 0.0);
    let gravity = Vector2::new(
        (m1 * lc1 + m2 * l1) * g * q2.sin() + m2 * lc2 * g * (q2 + q4).sin(),
        m2 * lc2 * g * (q2 + q4).sin(),
    );
    let links = Vector2::new(q2, q4);
    let motors = Vector2::new(q[0], q[2]);
    let f = -c * Vector2::new(qd2, qd4) - gravity - k * (links - motors);
    let a = RowVector2::new(1.0, 1.0);
    let d_inv = d.try_inverse().unwrap();
    let fc = a.transpose() * ((a * d_inv * a.transpose())[0].recip() * (-(a * d_inv * f)[0]));
    let beta = qd2 + qd4;
    fc - d * a.transpose() * ((a * a.transpose())[0].recip() * beta / p)
}

#[test]
fn the_servo_input_is_eq_72() {
    let arm = FlexibleJointServo::EXAMPLE;
    let states = [
        (Vector4::zeros(), Vector4::new(0.0, 1.0, 0.0, -0.1)),
        (
            Vector4::new(0.3, -0.2, 0.7, 1.1),
            Vector4::new(0.5, -0.4, 2.0, 0.9),
        ),
        (
            Vector4::new(-1.0, 2.0, 0.1, -0.6),
            Vector4::new(0.0, 0.3, -1.0, -0.3),
        ),
    ];
    for (q, qd) in states {
        let control = arm
            .servo_control(&q, &qd, 0.0, Convergence::Paper { p: PAPER_GAIN })
            .unwrap();
        let expected = eq_72(&q, &qd, PAPER_GAIN);
        let error = (control.input - expected).norm();
        eprintln!(
            "u = {:?}, eq 72 = {:?}, |Δ| = {error:.1e}",
            control.input.as_slice(),
            expected.as_slice()
        );
        assert!(error <= 1e-12 * expected.norm().max(1.0), "{error:e}");
        assert!(control.realized(1e-12));
        // B u is the servo force: on the links, nothing on the motors.
        let force = Vector4::new(0.0, control.input[0], 0.0, control.input[1]);
        assert!((force - control.servo_force).norm() <= 1e-12 * force.norm().max(1.0));
        // β̇ = −β/P under it.
        let qdd = arm.acceleration(&q, &qd, &control.input, 0.0).unwrap();
        let beta = qd[1] + qd[3];
        assert!((qdd[1] + qdd[3] + beta / PAPER_GAIN).abs() < 1e-12);
    }
}

#[test]
fn beta_falls_below_0_01_by_2_s_as_in_figure_10() {
    let arm = FlexibleJointServo::EXAMPLE;
    let (q0, qd0) = (Vector4::zeros(), Vector4::new(0.0, 1.0, 0.0, -0.1));
    let closed = servo_loop(
        &arm,
        Convergence::Paper { p: PAPER_GAIN },
        Options::default(),
    );
    let options = SimulationOptions {
        output: OutputTimes::Every(0.1),
        ..SimulationOptions::default()
    };
    let run = simulate_lagrangian(&closed, &q0, &qd0, 0.0, 2.0, &options).unwrap();
    let beta = run.outputs.column("beta").unwrap();
    for (sample, beta) in run.samples.iter().zip(&beta) {
        // β(t) = 0.9 e^(−t/P): eq 72 makes β̇ = −β/P exactly.
        let expected = 0.9 * (-sample.t / PAPER_GAIN).exp();
        assert!(
            (beta - expected).abs() < 1e-8,
            "t = {}: {beta} against {expected}",
            sample.t
        );
    }
    let last = *beta.last().unwrap();
    eprintln!("β(2 s) = {last:.3e}");
    assert!(last.abs() < 0.01);
}

#[test]
fn the_motor_torques_cannot_realize_it_and_say_so() {
    let arm = FlexibleJointMotorServo::EXAMPLE;
    let (q, qd) = (Vector4::zeros(), Vector4::new(0.0, 1.0, 0.0, -0.1));
    let control = arm
        .servo_control(&q, &qd, 0.0, Convergence::Paper { p: PAPER_GAIN })
        .unwrap();
    // A motor torque moves no link at this instant: the least-squares input is zero, the whole
    // servo force is unrealized, and the task acceleration is missed by β/P (plus the drift).
    assert!(control.input.norm() < 1e-12, "{}", control.input);
    assert!(!control.realized(1e-6));
    assert!((control.unrealized_force - control.servo_force).norm() < 1e-12);
    assert!(
        control.task_residual[0].abs() > 0.1,
        "{}",
        control.task_residual
    );
    assert!(control
        .input
        .iter()
        .chain(&control.unrealized_force)
        .all(|x| x.is_finite()));
}
