//! Udwadia & Wanichanon 2013, section 4: rotational motion of a rigid body in quaternions,
//! M = 4EᵀJE of rank 3 with the unit-norm constraint; and the constraint force of eq 3.28.

mod common;

use common::{assert_close, EXAMPLE_TOLERANCE};
use nalgebra::{DMatrix, Matrix3, Matrix3x4, Matrix4, SMatrix, Vector3, Vector4};
use udk_runtime::{
    acceleration, acceleration_and_constraint_force, mass_constraint_rank, reference_acceleration,
    LagrangianView, Options, Weighting,
};

/// E(u) of eq 4.2.
fn e_matrix(u: &Vector4<f64>) -> Matrix3x4<f64> {
    Matrix3x4::new(
        -u[1], u[0], u[3], -u[2], //
        -u[2], -u[3], u[0], u[1], //
        -u[3], u[2], -u[1], u[0],
    )
}

/// Skew-symmetric matrix ω̃ with ω̃x = ω × x.
fn skew(w: &Vector3<f64>) -> Matrix3<f64> {
    Matrix3::new(0.0, -w[2], w[1], w[2], 0.0, -w[0], -w[1], w[0], 0.0)
}

struct Body {
    j: Vector3<f64>,
    u: Vector4<f64>,
    u_dot: Vector4<f64>,
    torque: Vector3<f64>,
}

/// Bodies at unit-norm states (u̇ ⊥ u, as the constraint uᵀu = 1 requires).
fn bodies() -> Vec<Body> {
    let raw = [
        (
            [1.0, 2.0, 3.0],
            [0.9, 0.1, -0.3, 0.2],
            [0.3, -0.2, 0.5, 0.1],
            [0.1, -0.4, 0.2],
        ),
        (
            [0.2, 0.5, 0.6],
            [0.1, 0.7, 0.5, -0.5],
            [-1.0, 0.4, 0.0, 2.0],
            [0.0, 0.0, 0.0],
        ),
        (
            [5.0, 5.0, 9.0],
            [0.5, 0.5, 0.5, 0.5],
            [2.0, -1.0, 0.3, 0.7],
            [3.0, 1.0, -2.0],
        ),
        (
            [1.5, 0.8, 1.1],
            [-0.2, 0.3, 0.9, 0.1],
            [0.05, 0.1, -0.02, 0.3],
            [-0.5, 0.25, 1.0],
        ),
    ];
    raw.iter()
        .map(|(j, u, ud, t)| {
            let u = Vector4::from_column_slice(u).normalize();
            let ud = Vector4::from_column_slice(ud);
            let u_dot = ud - u * u.dot(&ud);
            Body {
                j: Vector3::from_column_slice(j),
                u,
                u_dot,
                torque: Vector3::from_column_slice(t),
            }
        })
        .collect()
}

/// (M, Q, A, b) of eqs 4.3–4.4 and the unit-norm constraint.
fn system(
    body: &Body,
) -> (
    Matrix4<f64>,
    Vector4<f64>,
    SMatrix<f64, 1, 4>,
    SMatrix<f64, 1, 1>,
) {
    let j = Matrix3::from_diagonal(&body.j);
    let e = e_matrix(&body.u);
    let e_dot = e_matrix(&body.u_dot);
    let m = 4.0 * e.transpose() * j * e;
    let q = -8.0 * e_dot.transpose() * j * e * body.u_dot + 2.0 * e.transpose() * body.torque;
    let a = body.u.transpose();
    let b = SMatrix::<f64, 1, 1>::new(-body.u_dot.dot(&body.u_dot));
    (m, q, a, b)
}

/// Eq 4.6 with N(ω) = ωᵀω.
fn closed_form(body: &Body) -> Vector4<f64> {
    let j = Matrix3::from_diagonal(&body.j);
    let j_inv = Matrix3::from_diagonal(&body.j.map(|x| 1.0 / x));
    let e = e_matrix(&body.u);
    let w = 2.0 * e * body.u_dot;
    -0.5 * e.transpose() * j_inv * skew(&w) * j * w - 0.25 * w.dot(&w) * body.u
        + 0.5 * e.transpose() * j_inv * body.torque
}

#[test]
fn mass_matrix_has_rank_three_and_m_hat_rank_four() {
    for body in bodies() {
        let (m, _, a, _) = system(&body);
        let options = Options::default();
        assert_eq!(udk_runtime::rank(&m, None).unwrap(), 3);
        assert_eq!(mass_constraint_rank(&m, &a, &options).unwrap(), 4);
    }
}

#[test]
fn quaternion_acceleration_eq_4_6() {
    for body in bodies() {
        let (m, q, a, b) = system(&body);
        let expected = closed_form(&body);
        let options = Options::default();
        let qdd = acceleration(LagrangianView::new(&m, &q, &a, &b), &options).unwrap();
        assert_close(
            &qdd,
            &expected,
            EXAMPLE_TOLERANCE,
            "eq 4.6 (augmented kernel)",
        );
        let reference =
            reference_acceleration(LagrangianView::new(&m, &q, &a, &b), &options).unwrap();
        assert!(reference.is_unique());
        assert_close(
            &reference.acceleration,
            &expected,
            EXAMPLE_TOLERANCE,
            "eq 4.6 (eq 2.15)",
        );
    }
}

#[test]
fn constraint_force_eq_3_28_with_z_alpha2_b_for_every_gauge() {
    // Qᶜ_{AᵀG, α²b} (eq 3.28) must equal M q̈ − Q (eq 3.37) whatever α and G > 0.
    for body in bodies() {
        let (m, q, a, b) = system(&body);
        let expected_qdd = closed_form(&body);
        let expected_qc = m * expected_qdd - q;
        for (alpha, weighting) in [
            (1.0, Weighting::Identity),
            (0.3, Weighting::Diagonal(vec![2.5])),
            (4.0, Weighting::Matrix(DMatrix::from_element(1, 1, 0.7))),
        ] {
            let options = Options {
                alpha,
                weighting,
                ..Options::default()
            };
            let (qdd, qc) =
                acceleration_and_constraint_force(LagrangianView::new(&m, &q, &a, &b), &options)
                    .unwrap();
            assert_close(
                &qdd,
                &expected_qdd,
                EXAMPLE_TOLERANCE,
                "q̈ independent of (α, G)",
            );
            assert_close(&qc, &expected_qc, EXAMPLE_TOLERANCE, "eq 3.28 = M q̈ − Q");
            // Qᶜ is ideal: no work under virtual displacements w ⊥ u.
            let w = Vector4::new(1.0, -2.0, 0.5, 3.0);
            let w = w - body.u * body.u.dot(&w);
            assert!(w.dot(&qc).abs() <= 1e-10 * w.norm() * qc.norm().max(1.0));
        }
    }
}

/// The state (u, u̇) at which an earlier kernel returned a wrong acceleration without an
/// error (rank-3 M, J = diag(1, 2, 3), no torque); the Cholesky rewrite fixed it.
fn former_failure_state() -> (Vector4<f64>, Vector4<f64>) {
    let u = Vector4::new(
        -0.9328921165952696,
        0.0012820278827981918,
        -0.3601536389400631,
        7.330581009928293e-5,
    );
    let u_dot = Vector4::new(
        0.36015556698747037,
        0.005554964126438415,
        -0.9328789107312411,
        -0.0077322417856056066,
    );
    (u, u_dot)
}

fn former_failure_body(u: Vector4<f64>, u_dot: Vector4<f64>) -> Body {
    Body {
        j: Vector3::new(1.0, 2.0, 3.0),
        u,
        u_dot,
        torque: Vector3::zeros(),
    }
}

/// Regression, on the constraint manifold: eq 4.6 assumes |u| = 1, and the reported u has
/// |u|² − 1 ≈ −6·10⁻⁹, which moves the exact solution of its (M, Q, A, b) 1.24·10⁻⁸ (relative)
/// away from eq 4.6. So u is normalized and u̇ made orthogonal to it first (as in
/// [`bodies`]), a change of ~3·10⁻⁹.
#[test]
fn quaternion_acceleration_eq_4_6_at_former_failure_state() {
    let (u, u_dot) = former_failure_state();
    let u = u.normalize();
    let body = former_failure_body(u, u_dot - u * u.dot(&u_dot));
    let expected = closed_form(&body);
    // The closed form itself, to the digits quoted with the report of the failure.
    assert_close(
        &expected,
        &Vector4::new(0.93293, 0.0085855, 0.36027, -0.009955),
        1e-4,
        "eq 4.6 closed form",
    );
    let (m, q, a, b) = system(&body);
    let qdd = acceleration(LagrangianView::new(&m, &q, &a, &b), &Options::default()).unwrap();
    assert_close(
        &qdd,
        &expected,
        EXAMPLE_TOLERANCE,
        "eq 4.6 (augmented kernel)",
    );
}

/// Regression, at the reported bits themselves: the exact solution of their (M, Q, A, b),
/// from the system [M Aᵀ; A 0] [ü; −λ] = [Q; b] solved in 50-digit arithmetic (mpmath).
#[test]
fn quaternion_acceleration_at_former_failure_state_as_reported() {
    let (u, u_dot) = former_failure_state();
    let (m, q, a, b) = system(&former_failure_body(u, u_dot));
    let qdd = acceleration(LagrangianView::new(&m, &q, &a, &b), &Options::default()).unwrap();
    let exact = Vector4::new(
        0.9329303364443571,
        0.0085854519595112,
        0.36027030274740907,
        -0.009955001068661696,
    );
    assert_close(
        &qdd,
        &exact,
        EXAMPLE_TOLERANCE,
        "exact solution at the reported state",
    );
}
