//! Udwadia & Wanichanon 2013, section 4: the quaternion rigid body, eq 4.6, whose mass matrix
//! M = 4EᵀJE has rank 3.

use crate::{assert_close, samples};
use udk::nalgebra::{Matrix3, Matrix3x4, Vector3, Vector4};

#[allow(dead_code)]
#[path = "../../examples/quaternion_rigid_body.rs"]
mod quaternion_rigid_body;

use quaternion_rigid_body::QuaternionRigidBody;

/// E(u) of eq 4.2.
fn e_matrix(u: &Vector4<f64>) -> Matrix3x4<f64> {
    Matrix3x4::new(
        -u[1], u[0], u[3], -u[2], //
        -u[2], -u[3], u[0], u[1], //
        -u[3], u[2], -u[1], u[0],
    )
}

#[test]
fn quaternion_body_matches_eq_4_6() {
    for seed in 0..8 {
        let s = samples(seed, 14, -1.0, 1.0);
        let body = QuaternionRigidBody {
            j1: 1.5 + s[0],
            j2: 2.5 + s[1],
            j3: 3.5 + s[2],
            tau1: s[3],
            tau2: s[4],
            tau3: s[5],
        };
        // A unit quaternion and a velocity tangent to the unit sphere.
        let u = Vector4::new(s[6], s[7], s[8], s[9]).normalize();
        let w = Vector4::new(s[10], s[11], s[12], s[13]);
        let ud = w - u * u.dot(&w);
        let e = e_matrix(&u);
        let j = Matrix3::from_diagonal(&Vector3::new(body.j1, body.j2, body.j3));
        let j_inv = j.try_inverse().unwrap();
        let torque = Vector3::new(body.tau1, body.tau2, body.tau3);
        let omega = 2.0 * e * ud;
        let expected = -0.5 * e.transpose() * j_inv * omega.cross(&(j * omega))
            - 0.25 * omega.norm_squared() * u
            + 0.5 * e.transpose() * j_inv * torque;
        let udd = body.acceleration(&u, &ud, 0.0).unwrap();
        assert_close(udd.as_slice(), expected.as_slice());
        // M = 4EᵀJE (eq 4.3) has rank 3.
        let mass = 4.0 * e.transpose() * j * e;
        assert_close(body.mass_matrix(&u, 0.0).as_slice(), mass.as_slice());
        assert_eq!(body.mass_matrix(&u, 0.0).rank(1e-9), 3);
        // Qᶜ = M ü − Q with Q = −8ĖᵀJEu̇ + 2EᵀΓ_B (eqs 4.3, 4.4).
        let e_dot = e_matrix(&ud);
        let q = -8.0 * e_dot.transpose() * j * e * ud + 2.0 * e.transpose() * torque;
        let force = mass * expected - q;
        assert_close(
            body.constraint_force(&u, &ud, 0.0).unwrap().as_slice(),
            force.as_slice(),
        );
    }
}
