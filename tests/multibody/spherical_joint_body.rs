//! The rigid body on a spherical joint: the ZYX form against sympy.physics.mechanics, the
//! angular acceleration against Euler's equations about the pivot, and the ZYX and quaternion
//! forms against each other.

use crate::{assert_close, fixture, numbers};
use udk::nalgebra::{Matrix3, SVector, Vector3};
use udk::runtime::simulate::{simulate_lagrangian, OutputTimes, SimulationOptions};

#[allow(dead_code)]
#[path = "../../examples/spherical_joint_body.rs"]
mod model;

use model::{quaternion_state, BodyQuaternion, BodyZyx};

/// Ω̇ from Euler's equations about the pivot O: I_O Ω̇ = τ − Ω × I_O Ω, with
/// I_O = I_G + m(|c|² 1 − c cᵀ) and τ = c × Rᵀ(0, 0, −m g), all in body axes.
fn euler_equations(
    body: &BodyZyx,
    orientation_z_row: Vector3<f64>,
    omega: Vector3<f64>,
) -> Vector3<f64> {
    let c = Vector3::new(body.cx, body.cy, body.cz);
    let inertia = Matrix3::new(
        body.i11, body.i12, body.i13, body.i12, body.i22, body.i23, body.i13, body.i23, body.i33,
    ) + body.m * (c.norm_squared() * Matrix3::identity() - c * c.transpose());
    // Rᵀ e_z is the third row of R; gravity is −m g e_z.
    let torque = c.cross(&(-body.m * body.g * orientation_z_row));
    inertia
        .lu()
        .solve(&(torque - omega.cross(&(inertia * omega))))
        .unwrap()
}

#[test]
fn zyx_accelerations_match_sympy_mechanics_to_1e_12() {
    let reference = fixture("spherical_body");
    let body = BodyZyx::EXAMPLE;
    let parameters = &reference["parameters"];
    assert_eq!(numbers(&parameters["c"]), [body.cx, body.cy, body.cz]);
    for state in reference["states"].as_array().unwrap() {
        let q = SVector::<f64, 3>::from_vec(numbers(&state["q"]));
        let qd = SVector::<f64, 3>::from_vec(numbers(&state["qd"]));
        let qdd = body.acceleration(&q, &qd, 0.0).unwrap();
        assert_close(qdd.as_slice(), &numbers(&state["qdd"]), 1e-12);
        let omega = body.body_rate(&q, &qd, 0.0);
        assert_close(omega.as_slice(), &numbers(&state["omega"]), 1e-13);
    }
}

#[test]
fn quaternion_angular_acceleration_matches_euler_equations_to_1e_10() {
    let reference = fixture("spherical_body");
    let body = BodyQuaternion::EXAMPLE;
    for state in reference["states"].as_array().unwrap() {
        let angles = Vector3::from_vec(numbers(&state["q"]));
        let rates = Vector3::from_vec(numbers(&state["qd"]));
        let (e, e_rate) = quaternion_state(&angles, &rates);
        assert!(body.position_residual(&e, 0.0).norm() < 1e-15);
        assert!(body.velocity_residual(&e, &e_rate, 0.0).norm() < 1e-14);
        let e_acceleration = body.acceleration(&e, &e_rate, 0.0).unwrap();
        // Ω = 2 G(e) ė, so Ω̇ = 2 G(e) ë (G(ė) ė = 0), with the rows of G below.
        let g = |e: &SVector<f64, 4>| {
            udk::nalgebra::Matrix3x4::new(
                -e[1], e[0], e[3], -e[2], -e[2], -e[3], e[0], e[1], -e[3], e[2], -e[1], e[0],
            )
        };
        let omega = 2.0 * g(&e) * e_rate;
        let omega_dot = 2.0 * g(&e) * e_acceleration;
        assert_close(omega.as_slice(), &numbers(&state["omega"]), 1e-12);
        let axis_z = body.axis_z(&e, &e_rate, 0.0);
        let euler = euler_equations(&BodyZyx::EXAMPLE, third_row_of(axis_z, &body, &e), omega);
        assert_close(omega_dot.as_slice(), euler.as_slice(), 1e-10);
        assert_close(omega_dot.as_slice(), &numbers(&state["omega_dot"]), 1e-10);
    }
}

/// The third row of R (= Rᵀ e_z) from the model's outputs: R's columns are the body axes, so
/// the third row is the z components of the three axes.
fn third_row_of(axis_z: Vector3<f64>, body: &BodyQuaternion, e: &SVector<f64, 4>) -> Vector3<f64> {
    let zero = SVector::<f64, 4>::zeros();
    let axis_x = body.axis_x(e, &zero, 0.0);
    let axis_y = axis_z.cross(&axis_x);
    Vector3::new(axis_x.z, axis_y.z, axis_z.z)
}

#[test]
fn both_forms_give_the_same_motion_for_3_s() {
    let (angles, rates) = (Vector3::new(0.2, 0.5, -0.3), Vector3::new(0.0, 1.0, 4.0));
    let (e, e_rate) = quaternion_state(&angles, &rates);
    let options = SimulationOptions {
        rtol: 1e-12,
        atol: 1e-12,
        output: OutputTimes::Every(0.5),
        ..SimulationOptions::default()
    };
    let zyx = simulate_lagrangian(&BodyZyx::EXAMPLE, &angles, &rates, 0.0, 3.0, &options).unwrap();
    let quaternion =
        simulate_lagrangian(&BodyQuaternion::EXAMPLE, &e, &e_rate, 0.0, 3.0, &options).unwrap();
    assert_eq!(zyx.samples.len(), 7);
    for (a, b) in zyx.samples.iter().zip(&quaternion.samples) {
        assert_eq!(a.t, b.t);
        let axes_a = [
            BodyZyx::EXAMPLE.axis_x(&a.q, &a.v, 0.0),
            BodyZyx::EXAMPLE.axis_z(&a.q, &a.v, 0.0),
        ];
        let axes_b = [
            BodyQuaternion::EXAMPLE.axis_x(&b.q, &b.v, 0.0),
            BodyQuaternion::EXAMPLE.axis_z(&b.q, &b.v, 0.0),
        ];
        for (x, y) in axes_a.iter().zip(&axes_b) {
            assert!((x - y).norm() < 1e-8, "t = {}: {x} vs {y}", a.t);
        }
        let rate_a = BodyZyx::EXAMPLE.body_rate(&a.q, &a.v, 0.0);
        let rate_b = BodyQuaternion::EXAMPLE.body_rate(&b.q, &b.v, 0.0);
        assert!(
            (rate_a - rate_b).norm() < 1e-8,
            "t = {}: {rate_a} vs {rate_b}",
            a.t
        );
    }
}

#[test]
fn gimbal_lock_names_the_dependent_angles_and_suggests_euler_parameters() {
    // At θ = π/2 the axes of ψ and φ line up: their columns of M are dependent, and M is
    // singular with no constraint to restore the rank.
    let angles = Vector3::new(0.3, std::f64::consts::FRAC_PI_2, -0.2);
    let error = BodyZyx::EXAMPLE
        .acceleration(&angles, &Vector3::new(0.1, 0.0, 0.2), 0.0)
        .unwrap_err();
    match &error {
        udk::Error::NonUniqueAcceleration {
            rank: 2,
            n: 3,
            free,
        } => {
            assert_eq!(free.indices(), [0, 2]);
            assert_eq!(free.names(), ["psi", "phi"]);
        }
        other => panic!("expected a non-unique acceleration, got {other:?}"),
    }
    let message = error.to_string();
    assert!(message.contains("free coordinates: psi, phi;"), "{message}");
    assert!(message.contains("gimbal lock") && message.contains("quat_to_rot"));
    // Away from the singularity the acceleration is unique.
    let away = Vector3::new(0.3, 1.2, -0.2);
    assert!(BodyZyx::EXAMPLE
        .acceleration(&away, &Vector3::zeros(), 0.0)
        .is_ok());
}
