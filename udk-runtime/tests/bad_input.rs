//! Bad input gives a typed error, never a panic or a NaN.

use nalgebra::{dmatrix, dvector, matrix, vector, DMatrix, DVector, Matrix2, SMatrix, Vector2};
use udk_runtime::hamiltonian::momentum_rate_dyn;
use udk_runtime::{
    acceleration, acceleration_dyn, reference_acceleration_dyn, Error, LagrangianView, Options,
    Weighting,
};

fn system() -> (
    Matrix2<f64>,
    Vector2<f64>,
    SMatrix<f64, 1, 2>,
    SMatrix<f64, 1, 1>,
) {
    (
        Matrix2::new(2.0, 0.3, 0.3, 1.0),
        Vector2::new(1.0, -9.81),
        matrix![1.0, 1.0],
        vector![0.5],
    )
}

#[test]
fn non_finite_inputs() {
    let (m, q, a, b) = system();
    let o = Options::default();
    let mut bad_m = m;
    bad_m[(0, 1)] = f64::NAN;
    bad_m[(1, 0)] = f64::NAN;
    assert_eq!(
        acceleration(LagrangianView::new(&bad_m, &q, &a, &b), &o),
        Err(Error::NonFinite {
            what: "mass matrix M"
        })
    );
    assert_eq!(
        acceleration(
            LagrangianView::new(&m, &Vector2::new(f64::INFINITY, 0.0), &a, &b),
            &o
        ),
        Err(Error::NonFinite {
            what: "generalized force Q"
        })
    );
    assert_eq!(
        acceleration(LagrangianView::new(&m, &q, &matrix![f64::NAN, 1.0], &b), &o),
        Err(Error::NonFinite {
            what: "constraint matrix A"
        })
    );
    assert_eq!(
        acceleration(
            LagrangianView::new(&m, &q, &a, &vector![f64::NEG_INFINITY]),
            &o
        ),
        Err(Error::NonFinite {
            what: "constraint vector b"
        })
    );
    assert_eq!(
        acceleration(
            LagrangianView::new(&m, &q, &a, &b).with_nonideal_force(&Vector2::new(0.0, f64::NAN)),
            &o
        ),
        Err(Error::NonFinite {
            what: "non-ideal force C"
        })
    );
}

#[test]
fn overflow_is_reported_not_returned() {
    let m = Matrix2::new(1e-300, 0.0, 0.0, 1e-300);
    let q = Vector2::new(1e300, 1e300);
    let a = SMatrix::<f64, 0, 2>::zeros();
    let b = SMatrix::<f64, 0, 1>::zeros();
    assert!(matches!(
        acceleration(LagrangianView::new(&m, &q, &a, &b), &Options::default()),
        Err(Error::NonFinite { .. })
    ));
}

#[test]
fn asymmetric_and_indefinite_mass_matrices() {
    let (_, q, a, b) = system();
    let o = Options::default();
    assert_eq!(
        acceleration(
            LagrangianView::new(&Matrix2::new(2.0, 0.3, 0.0, 1.0), &q, &a, &b),
            &o
        ),
        Err(Error::NotSymmetric {
            what: "mass matrix M"
        })
    );
    // M + AᵀA = diag(1, 3) would be positive definite: M itself must still be rejected.
    let indefinite = Matrix2::new(1.0, 0.0, 0.0, -1.0);
    assert_eq!(
        acceleration(
            LagrangianView::new(&indefinite, &q, &matrix![0.0, 2.0], &b),
            &o
        ),
        Err(Error::NotPositiveSemidefinite {
            what: "mass matrix M"
        })
    );
}

#[test]
fn inconsistent_constraints_are_an_error() {
    let (m, q, _, _) = system();
    // The same row twice with different right-hand sides.
    let a = matrix![1.0, 1.0; 1.0, 1.0];
    let b = vector![0.5, 0.7];
    let result = acceleration(LagrangianView::new(&m, &q, &a, &b), &Options::default());
    assert!(matches!(result, Err(Error::InconsistentConstraints { residual }) if residual > 0.1));
    // Consistent duplicate rows are fine.
    let b = vector![0.5, 0.5];
    let single = acceleration(
        LagrangianView::new(&m, &q, &matrix![1.0, 1.0], &vector![0.5]),
        &Options::default(),
    );
    assert_eq!(
        acceleration(LagrangianView::new(&m, &q, &a, &b), &Options::default())
            .map(|x| (x - single.unwrap()).norm() < 1e-14),
        Ok(true)
    );
    // Singular M, reference path too.
    let m = dmatrix![1.0, 0.0; 0.0, 0.0];
    assert!(matches!(
        reference_acceleration_dyn(
            LagrangianView::new(
                &m,
                &dvector![0.0, 1.0],
                &dmatrix![0.0, 1.0; 0.0, 2.0],
                &dvector![1.0, 1.0]
            ),
            &Options::default()
        ),
        Err(Error::InconsistentConstraints { .. })
    ));
    // More constraints than coordinates.
    assert!(matches!(
        acceleration(
            LagrangianView::new(
                &Matrix2::identity(),
                &Vector2::zeros(),
                &matrix![1.0, 0.0; 0.0, 1.0; 1.0, 1.0],
                &vector![1.0, 1.0, 3.0]
            ),
            &Options::default()
        ),
        Err(Error::InconsistentConstraints { .. })
    ));
}

#[test]
fn dimension_mismatch_for_dynamic_inputs() {
    let o = Options::default();
    let m = DMatrix::identity(3, 3);
    let q = DVector::zeros(2);
    assert_eq!(
        acceleration_dyn(
            LagrangianView::new(&m, &q, &DMatrix::zeros(1, 2), &DVector::zeros(1)),
            &o
        ),
        Err(Error::DimensionMismatch {
            what: "mass matrix M",
            expected: (2, 2),
            found: (3, 3)
        })
    );
    assert!(matches!(
        acceleration_dyn(
            LagrangianView::new(
                &DMatrix::identity(2, 2),
                &q,
                &DMatrix::zeros(2, 2),
                &DVector::zeros(1)
            ),
            &o
        ),
        Err(Error::DimensionMismatch {
            what: "constraint matrix A",
            ..
        })
    ));
    assert!(matches!(
        acceleration_dyn(
            LagrangianView::new(
                &DMatrix::identity(2, 2),
                &q,
                &DMatrix::zeros(1, 2),
                &DVector::zeros(1)
            )
            .with_nonideal_force(&DVector::zeros(3)),
            &o
        ),
        Err(Error::DimensionMismatch {
            what: "non-ideal force C",
            ..
        })
    ));
    assert!(matches!(
        momentum_rate_dyn(
            &q,
            &DMatrix::identity(2, 2),
            &DMatrix::zeros(1, 3),
            &DVector::zeros(1),
            &o
        ),
        Err(Error::DimensionMismatch { what: "A_p", .. })
    ));
}

#[test]
fn invalid_options() {
    // Singular M forces the augmented path, where α and G are read.
    let m = Matrix2::new(1.0, 0.0, 0.0, 0.0);
    let (_, q, a, b) = system();
    let bad = [
        Options {
            alpha: 0.0,
            ..Options::default()
        },
        Options {
            alpha: f64::NAN,
            ..Options::default()
        },
        Options {
            tolerance: Some(-1.0),
            ..Options::default()
        },
        Options {
            consistency_tolerance: f64::INFINITY,
            ..Options::default()
        },
    ];
    for o in bad {
        assert!(matches!(
            acceleration(LagrangianView::new(&m, &q, &a, &b), &o),
            Err(Error::InvalidOption { .. })
        ));
    }
    let g_cases = [
        (Weighting::Diagonal(vec![1.0, 2.0]), "size"),
        (Weighting::Diagonal(vec![-1.0]), "negative"),
        (Weighting::Matrix(dmatrix![0.0]), "singular"),
        (Weighting::Matrix(dmatrix![1.0, 0.0; 0.0, 1.0]), "size"),
    ];
    for (weighting, why) in g_cases {
        let o = Options {
            weighting,
            ..Options::default()
        };
        let result = acceleration(LagrangianView::new(&m, &q, &a, &b), &o);
        assert!(
            matches!(
                result,
                Err(Error::NotPositiveDefinite { .. } | Error::DimensionMismatch { .. })
            ),
            "{why}: {result:?}"
        );
    }
}

#[test]
fn no_constraints_gives_unconstrained_acceleration() {
    let (m, q, _, _) = system();
    let a = SMatrix::<f64, 0, 2>::zeros();
    let b = SMatrix::<f64, 0, 1>::zeros();
    let (qdd, qc) = udk_runtime::acceleration_and_constraint_force(
        LagrangianView::new(&m, &q, &a, &b),
        &Options::default(),
    )
    .unwrap();
    assert!((m * qdd - q).norm() < 1e-14);
    assert_eq!(qc, Vector2::zeros());
    // Singular M without constraints is not unique.
    assert_eq!(
        acceleration(
            LagrangianView::new(&Matrix2::new(1.0, 0.0, 0.0, 0.0), &q, &a, &b),
            &Options::default()
        ),
        Err(Error::NonUniqueAcceleration {
            rank: 1,
            n: 2,
            free: udk_runtime::FreeCoordinates::new(vec![1])
        })
    );
}
