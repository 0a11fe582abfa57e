//! Worked examples of Udwadia & Phohomsiri 2006 (singular mass matrices), section 5.

mod common;

use common::{assert_close, EXAMPLE_TOLERANCE};
use nalgebra::{matrix, vector, Matrix2, Matrix3, SMatrix, SVector, Vector2, Vector3};
use udk_runtime::{
    acceleration, acceleration_and_constraint_force, acceleration_dyn, mass_constraint_rank,
    reference_acceleration, Error, FreeCoordinates, LagrangianView, Options, Weighting,
};

/// Checks the fast kernel, the dynamic kernel and the eq 2.15 reference against `expected`,
/// and the constraint force against M q̈ − Q.
fn check_unique<const N: usize, const M: usize>(
    m: &SMatrix<f64, N, N>,
    q: &SVector<f64, N>,
    a: &SMatrix<f64, M, N>,
    b: &SVector<f64, M>,
    expected: &SVector<f64, N>,
    what: &str,
) {
    let options = Options::default();
    let (qdd, qc) =
        acceleration_and_constraint_force(LagrangianView::new(m, q, a, b), &options).unwrap();
    assert_close(&qdd, expected, EXAMPLE_TOLERANCE, what);
    assert_close(&qc, &(m * expected - q), 1e-9, "constraint force M q̈ − Q");
    let dynamic = acceleration_dyn(
        LagrangianView::new(
            &nalgebra::DMatrix::from_column_slice(N, N, m.as_slice()),
            &nalgebra::DVector::from_column_slice(q.as_slice()),
            &nalgebra::DMatrix::from_column_slice(M, N, a.as_slice()),
            &nalgebra::DVector::from_column_slice(b.as_slice()),
        ),
        &options,
    )
    .unwrap();
    assert_close(
        &dynamic,
        &nalgebra::DVector::from_column_slice(expected.as_slice()),
        EXAMPLE_TOLERANCE,
        what,
    );
    let reference = reference_acceleration(LagrangianView::new(m, q, a, b), &options).unwrap();
    assert!(reference.is_unique(), "{what}: eq 2.15 says not unique");
    assert_close(&reference.acceleration, expected, EXAMPLE_TOLERANCE, what);
    assert_eq!(mass_constraint_rank(m, a, &options).unwrap(), N);
}

/// (m, R, I_c, α, g) parameter sets for the wheel.
const WHEELS: [(f64, f64, f64, f64, f64); 4] = [
    (1.0, 0.5, 0.125, 0.3, 9.81),
    (2.5, 0.2, 0.05, 1.2, 9.81),
    (0.3, 1.5, 0.4, 0.05, 1.62),
    (10.0, 0.35, 0.6125, 0.9, 9.81),
];

#[test]
fn wheel_on_incline_eq_5_17() {
    for (mass, r, ic, alpha, g) in WHEELS {
        let inertia = mass * r * r + ic;
        let m = Matrix2::new(inertia, 0.0, 0.0, 0.0); // eq 5.6
        let q = Vector2::new(0.0, mass * g); // eq 5.7
        let a = matrix![-r * alpha.sin(), 1.0]; // eq 5.10
        let b = vector![0.0]; // eq 5.11
        let s = alpha.sin();
        let expected = Vector2::new(mass * g * r * s, mass * g * r * r * s * s) / inertia;
        check_unique(&m, &q, &a, &b, &expected, "wheel on incline, eq 5.17");
    }
}

#[test]
fn wheel_result_does_not_depend_on_alpha_or_g() {
    let (mass, r, ic, alpha, g) = WHEELS[1];
    let inertia = mass * r * r + ic;
    let m = Matrix2::new(inertia, 0.0, 0.0, 0.0);
    let q = Vector2::new(0.0, mass * g);
    let a = matrix![-r * alpha.sin(), 1.0];
    let b = vector![0.0];
    let s = alpha.sin();
    let expected = Vector2::new(mass * g * r * s, mass * g * r * r * s * s) / inertia;
    for (gauge, weighting) in [
        (0.1, Weighting::Identity),
        (7.0, Weighting::Diagonal(vec![3.0])),
        (-2.0, Weighting::Matrix(nalgebra::dmatrix![0.25])),
    ] {
        let options = Options {
            alpha: gauge,
            weighting,
            ..Options::default()
        };
        let qdd = acceleration(LagrangianView::new(&m, &q, &a, &b), &options).unwrap();
        assert_close(&qdd, &expected, EXAMPLE_TOLERANCE, "wheel, gauge (α, G)");
    }
}

#[test]
fn zero_mass_particle_is_not_unique_eq_5_23() {
    for (mass, r, ic, alpha, g) in WHEELS {
        let inertia = mass * r * r + ic;
        let m = Matrix3::from_diagonal(&Vector3::new(inertia, 0.0, 0.0)); // eq 5.18
        let q = Vector3::new(0.0, mass * g, 0.0); // eq 5.20
        let a = matrix![-r * alpha.sin(), 1.0, 0.0]; // eq 5.19
        let b = vector![0.0];
        let options = Options::default();
        // The particle's x is the free coordinate (it has no mass and no constraint).
        assert_eq!(
            acceleration(LagrangianView::new(&m, &q, &a, &b), &options),
            Err(Error::NonUniqueAcceleration {
                rank: 2,
                n: 3,
                free: FreeCoordinates::new(vec![2])
            })
        );
        assert_eq!(mass_constraint_rank(&m, &a, &options).unwrap(), 2);
        let reference =
            reference_acceleration(LagrangianView::new(&m, &q, &a, &b), &options).unwrap();
        assert!(!reference.is_unique());
        assert_eq!((reference.rank, reference.n), (2, 3));
        let s = alpha.sin();
        // Eq 5.23 with η = 0: the minimum-norm solution.
        let expected = Vector3::new(mass * g * r * s, mass * g * r * r * s * s, 0.0) / inertia;
        assert_close(
            &reference.acceleration,
            &expected,
            EXAMPLE_TOLERANCE,
            "eq 5.23, η = 0",
        );
    }
}

/// (m₁, m₂, k₁, k₂, x₁, q₂) parameter sets (x₁, q₂: spring extensions).
const SPRINGS: [(f64, f64, f64, f64, f64, f64); 4] = [
    (1.0, 2.0, 10.0, 20.0, 0.1, -0.05),
    (3.0, 0.5, 4.0, 1.5, -0.3, 0.2),
    (0.2, 7.0, 100.0, 30.0, 0.01, 0.02),
    (5.0, 5.0, 1.0, 1.0, 1.0, -0.4),
];

/// Eq 5.33 with m₁, m₂ as given.
fn spring_mass_matrix(m1: f64, m2: f64) -> Matrix3<f64> {
    Matrix3::new(m1, 0.0, 0.0, 0.0, m2, m2, 0.0, m2, m2)
}

#[test]
fn two_masses_case_5_1_eq_5_39() {
    for (m1, m2, k1, k2, x1, q2) in SPRINGS {
        let m = spring_mass_matrix(m1, m2);
        let q = Vector3::new(-k1 * x1, 0.0, -k2 * q2); // eq 5.34
        let a = matrix![1.0, -1.0, 0.0]; // eq 5.35
        let b = vector![0.0];
        let first = (-k1 * x1 + k2 * q2) / m1;
        let expected = Vector3::new(first, first, -first - k2 * q2 / m2);
        check_unique(&m, &q, &a, &b, &expected, "case 5.1, eq 5.39");
    }
}

#[test]
fn two_masses_case_5_2_eq_5_47() {
    for (_, m2, k1, k2, x1, q2) in SPRINGS {
        let m = spring_mass_matrix(0.0, m2);
        let q = Vector3::new(-k1 * x1, 0.0, -k2 * q2);
        let a = matrix![1.0, -1.0, 0.0; k1, 0.0, -k2]; // eq 5.42
        let b = vector![0.0, 0.0];
        let d = m2 * (k1 + k2).powi(2);
        let expected = Vector3::new(
            -k1 * k2 * k2 * (x1 + q2),
            -k1 * k2 * k2 * (x1 + q2),
            -k1 * k1 * k2 * (x1 + q2),
        ) / d;
        check_unique(&m, &q, &a, &b, &expected, "case 5.2, eq 5.47");
    }
}

#[test]
fn two_masses_case_5_3_eq_5_56() {
    for (m1, _, k1, k2, x1, q2) in SPRINGS {
        let m = spring_mass_matrix(m1, 0.0);
        let q = Vector3::new(-k1 * x1, 0.0, -k2 * q2);
        let a = matrix![1.0, -1.0, 0.0; 0.0, 0.0, k2]; // eq 5.51
        let b = vector![0.0, 0.0];
        let expected = Vector3::new(-k1 * x1 / m1, -k1 * x1 / m1, 0.0);
        check_unique(&m, &q, &a, &b, &expected, "case 5.3, eq 5.56");
    }
}

#[test]
fn two_masses_case_5_2_without_extra_constraint_is_not_unique() {
    // m₁ = 0 and only the connection constraint: 𝓜 of eq 5.38 loses rank.
    let (_, m2, k1, k2, x1, q2) = SPRINGS[0];
    let m = spring_mass_matrix(0.0, m2);
    let q = Vector3::new(-k1 * x1, 0.0, -k2 * q2);
    let a = matrix![1.0, -1.0, 0.0];
    let b = vector![0.0];
    // The null vector (1, 1, −1) moves all three coordinates.
    assert_eq!(
        acceleration(LagrangianView::new(&m, &q, &a, &b), &Options::default()),
        Err(Error::NonUniqueAcceleration {
            rank: 2,
            n: 3,
            free: FreeCoordinates::new(vec![0, 1, 2])
        })
    );
}
