//! Inputs of extreme magnitude (issue 13, "Reliability"): the kernels equilibrate the rows of
//! A q̈ = b and scale M, Q, C by a power of two before forming any product, so that the answer
//! is right or a typed error, never `Ok` with a wrong answer.
//!
//! The Cartesian pendulum: m = 1, g = 9.81, l = 2, coordinates (x, y), M = m I₂,
//! Q = (0, −m g), A = [2x, 2y], b = −2(ẋ² + ẏ²). At rest (q̇ = 0) the acceleration is the
//! component of gravity perpendicular to the rod: q̈ = a − (a·u) u, u = q/|q|, a = (0, −g).

mod common;

use common::{assert_close, EXAMPLE_TOLERANCE};
use nalgebra::{matrix, vector, DMatrix, DVector, Matrix2, SMatrix, Vector2};
use udk_runtime::hamiltonian::{momentum_rate, momentum_rate_dyn};
use udk_runtime::{
    acceleration, acceleration_and_constraint_force, acceleration_dyn, constraint_force,
    reference_acceleration, Error, LagrangianView, Options,
};

const G: f64 = 9.81;

/// (M, Q, A, b) of the pendulum of mass `mass` at rest at (x, y).
fn pendulum(
    mass: f64,
    x: f64,
    y: f64,
) -> (
    Matrix2<f64>,
    Vector2<f64>,
    SMatrix<f64, 1, 2>,
    SMatrix<f64, 1, 1>,
) {
    (
        Matrix2::identity() * mass,
        vector![0.0, -mass * G],
        matrix![2.0 * x, 2.0 * y],
        vector![0.0],
    )
}

/// The closed form at rest: gravity minus its component along the rod. (The direction u
/// is computed from (x, y)/max(|x|, |y|), so that |q| itself neither overflows nor
/// underflows.)
fn at_rest(x: f64, y: f64) -> Vector2<f64> {
    let u = (Vector2::new(x, y) / x.abs().max(y.abs())).normalize();
    let a = vector![0.0, -G];
    a - u * a.dot(&u)
}

#[test]
fn pendulum_at_1e200_is_right() {
    // Issue 13: before row equilibration this returned Ok([0, −9.81]).
    let (m, q, a, b) = pendulum(1.0, 1e200, 1e200);
    let qdd = acceleration(LagrangianView::new(&m, &q, &a, &b), &Options::default()).unwrap();
    assert_close(&qdd, &vector![4.905, -4.905], 1e-15, "q̈ at 1e200");
    // The constraint force is m q̈ − Q = (4.905, 4.905): the rod's tension at rest.
    let qc = constraint_force(LagrangianView::new(&m, &q, &a, &b), &Options::default()).unwrap();
    assert_close(&qc, &vector![4.905, 4.905], 1e-15, "Qᶜ at 1e200");
    // The dynamic twin and the eq 2.15 reference agree.
    let dynamic = acceleration_dyn(
        LagrangianView::new(
            &DMatrix::from_column_slice(2, 2, m.as_slice()),
            &DVector::from_column_slice(q.as_slice()),
            &DMatrix::from_column_slice(1, 2, a.as_slice()),
            &DVector::from_column_slice(b.as_slice()),
        ),
        &Options::default(),
    )
    .unwrap();
    assert_eq!(dynamic.as_slice(), qdd.as_slice());
    let reference =
        reference_acceleration(LagrangianView::new(&m, &q, &a, &b), &Options::default()).unwrap();
    assert_close(&reference.acceleration, &qdd, 1e-14, "eq 2.15 at 1e200");
}

#[test]
fn pendulum_at_every_scale_matches_the_closed_form() {
    // 1e-200 underflowed A M⁻¹ Aᵀ to 0 and gave InconsistentConstraints; 1e154 overflowed it.
    for scale in [1e-300, 1e-200, 1e-160, 1e-3, 1.0, 1e3, 1e160, 1e200, 1e300] {
        let (x, y) = (0.6 * scale, -0.8 * scale);
        let (m, q, a, b) = pendulum(1.0, x, y);
        let qdd = acceleration(LagrangianView::new(&m, &q, &a, &b), &Options::default())
            .unwrap_or_else(|e| panic!("scale {scale:e}: {e}"));
        assert_close(&qdd, &at_rest(x, y), 1e-14, &format!("scale {scale:e}"));
    }
}

#[test]
fn tiny_and_huge_masses_with_huge_and_tiny_constraints() {
    // q̈ does not depend on the mass at rest; the products m⁻¹·A·Aᵀ span 1e-900 … 1e900.
    for mass in [1e-300, 1e-200, 1.0, 1e200, 1e300] {
        for scale in [1e-200, 1.0, 1e200] {
            let (x, y) = (0.6 * scale, -0.8 * scale);
            let (m, q, a, b) = pendulum(mass, x, y);
            let what = format!("mass {mass:e}, scale {scale:e}");
            let (qdd, qc) = acceleration_and_constraint_force(
                LagrangianView::new(&m, &q, &a, &b),
                &Options::default(),
            )
            .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_close(&qdd, &at_rest(x, y), 1e-14, &what);
            // Tension along the rod: Qᶜ/m = q̈ − Q/m = q̈ − (0, −g) (divided by m, so that the
            // test's own norms do not overflow).
            assert_close(&(qc / mass), &(qdd - vector![0.0, -G]), 1e-14, &what);
        }
    }
}

#[test]
fn subnormal_mass_is_scaled_not_inverted() {
    // 1/5e-321 overflows; the metric scaling makes M of unit size first.
    let mass = 5e-321;
    let m = Matrix2::identity() * mass;
    let q = vector![0.0, -mass * 2.0];
    let (x, y) = (0.6, -0.8);
    let a = matrix![2.0 * x, 2.0 * y];
    let qdd = acceleration(
        LagrangianView::new(&m, &q, &a, &vector![0.0]),
        &Options::default(),
    )
    .unwrap();
    // The force is subnormal too (mass·2 is exact), so the closed form is that of g = 2.
    let u = vector![x, y];
    let expected = vector![0.0, -2.0] - u * (-2.0 * y);
    assert_close(&qdd, &expected, 1e-12, "subnormal mass");
}

#[test]
fn singular_mass_paths_at_extreme_scales() {
    // The wheel of Udwadia & Phohomsiri 2006, eqs 5.6–5.17: M = diag(mR² + I_c, 0), with the
    // rolling constraint scaled by 1e±200; the answer (eq 5.17) does not depend on the scale.
    let (mass, r, i_c, alpha) = (2.0, 0.3, 0.09, 0.4_f64);
    let m = matrix![mass * r * r + i_c, 0.0; 0.0, 0.0];
    let q = vector![0.0, mass * G];
    let s = alpha.sin();
    let expected = vector![mass * G * r * s, mass * G * r * r * s * s] / (mass * r * r + i_c);
    for scale in [1e-200, 1.0, 1e200] {
        let a = matrix![-r * s, 1.0] * scale;
        let qdd = acceleration(
            LagrangianView::new(&m, &q, &a, &vector![0.0]),
            &Options::default(),
        )
        .unwrap_or_else(|e| panic!("scale {scale:e}: {e}"));
        assert_close(
            &qdd,
            &expected,
            EXAMPLE_TOLERANCE,
            &format!("scale {scale:e}"),
        );
    }
}

#[test]
fn hamiltonian_pendulum_at_extreme_scales() {
    // H = |p|²/(2m) + m g y: H_q = (0, m g), H_pp = I/m, and the constraint
    // d/dt(x² + y²) = 2 q·p/m = 0 gives A_p = 2 q/m, b_p = −2|p|²/m² = 0 at rest. ṗ = m q̈.
    for scale in [1e-200, 1.0, 1e200] {
        let (x, y) = (0.6 * scale, -0.8 * scale);
        let mass = 2.0;
        let h_q = vector![0.0, mass * G];
        let h_pp = Matrix2::identity() / mass;
        let a_p = matrix![2.0 * x / mass, 2.0 * y / mass];
        let p_dot = momentum_rate(&h_q, &h_pp, &a_p, &vector![0.0], &Options::default())
            .unwrap_or_else(|e| panic!("scale {scale:e}: {e}"));
        assert_close(
            &p_dot,
            &(at_rest(x, y) * mass),
            1e-14,
            &format!("scale {scale:e}"),
        );
    }
    // H_pp of size 1e-300 (a huge mass): (H_pp)⁻¹ overflowed before the metric scaling.
    let p_dot = momentum_rate_dyn(
        &DVector::from_vec(vec![0.0, 1e300 * G]),
        &(DMatrix::identity(2, 2) * 1e-300),
        &DMatrix::from_row_slice(1, 2, &[1.2e-300, -1.6e-300]),
        &DVector::zeros(1),
        &Options::default(),
    )
    .unwrap();
    let expected = at_rest(0.6, -0.8);
    assert_close(
        &(p_dot / 1e300),
        &DVector::from_column_slice(expected.as_slice()),
        1e-14,
        "H_pp 1e-300",
    );
}

#[test]
fn indefinite_mass_matrix_with_tiny_diagonal_is_still_rejected() {
    // The metric scaling reads the diagonal only (it bounds |Mᵢⱼ| for M ⪰ 0); here the
    // off-diagonal entries overflow once scaled, and M is indefinite (|M₀₁| > √(M₀₀ M₁₁)).
    for off_diagonal in [1.0, 1e10, 1e300] {
        let m = matrix![1e-300, off_diagonal; off_diagonal, 1e-300];
        let q = vector![0.0, -G];
        assert_eq!(
            acceleration(
                LagrangianView::new(&m, &q, &matrix![1.0, 0.0], &vector![0.0]),
                &Options::default()
            ),
            Err(Error::NotPositiveSemidefinite {
                what: "mass matrix M"
            }),
            "off-diagonal {off_diagonal:e}"
        );
    }
}

#[test]
fn unrepresentable_answers_are_non_finite_errors() {
    // |b| / |A| = 1e300 / 1e-300: every solution of A q̈ = b is beyond the f64 range.
    let (m, q, _, _) = pendulum(1.0, 0.6, -0.8);
    assert!(matches!(
        acceleration(
            LagrangianView::new(&m, &q, &matrix![1e-300, 0.0], &vector![1e300]),
            &Options::default()
        ),
        Err(Error::NonFinite { .. })
    ));
    // A force of 1e300 on a mass of 1e-300, not fully constrained.
    let m = Matrix2::identity() * 1e-300;
    assert!(matches!(
        acceleration(
            LagrangianView::new(
                &m,
                &vector![1e300, 1e300],
                &matrix![1.0, 0.0],
                &vector![0.0]
            ),
            &Options::default()
        ),
        Err(Error::NonFinite { .. })
    ));
}

#[test]
fn residual_tolerance_zero_rejects_rounding_and_is_validated() {
    // With ρ ≤ 0 required, a pendulum at a generic angle (whose answer carries rounding) is
    // rejected by the a-posteriori check; a negative tolerance is an invalid option.
    let (m, q, a, b) = pendulum(1.0, 0.3, -1.1);
    let exact = Options {
        residual_tolerance: 0.0,
        ..Options::default()
    };
    let result = acceleration(LagrangianView::new(&m, &q, &a, &b), &exact);
    match result {
        Err(Error::ResidualTooLarge {
            residual,
            tolerance,
        }) => {
            assert_eq!(tolerance, 0.0);
            assert!(residual > 0.0 && residual < 1e-15, "{residual:e}");
        }
        other => panic!("expected ResidualTooLarge, got {other:?}"),
    }
    let negative = Options {
        residual_tolerance: -1.0,
        ..Options::default()
    };
    assert!(matches!(
        acceleration(LagrangianView::new(&m, &q, &a, &b), &negative),
        Err(Error::InvalidOption { .. })
    ));
}
