//! Worked examples of Udwadia 2016, "Constrained motion of Hamiltonian systems", section 4.

mod common;

use common::{assert_close, EXAMPLE_TOLERANCE};
use nalgebra::{
    matrix, vector, DMatrix, DVector, Matrix2, Matrix3, Matrix4, SMatrix, Vector2, Vector3, Vector4,
};
use udk_runtime::hamiltonian::{
    momentum_rate, momentum_rate_and_constraint_force, momentum_rate_and_constraint_force_dyn,
};
use udk_runtime::{Error, Options};

/// Checks ṗ from the fixed and dynamic kernels and the constraint force Q^C = ṗ + H_q.
fn check<const N: usize, const M: usize>(
    h_q: &SMatrix<f64, N, 1>,
    h_pp: &SMatrix<f64, N, N>,
    a_p: &SMatrix<f64, M, N>,
    b_p: &SMatrix<f64, M, 1>,
    expected: &SMatrix<f64, N, 1>,
    what: &str,
) {
    let options = Options::default();
    let (p_dot, qc) = momentum_rate_and_constraint_force(h_q, h_pp, a_p, b_p, &options).unwrap();
    assert_close(&p_dot, expected, EXAMPLE_TOLERANCE, what);
    assert_close(&qc, &(expected + h_q), 1e-9, "constraint force ṗ + H_q");
    let (p_dot_dyn, _) = momentum_rate_and_constraint_force_dyn(
        &DVector::from_column_slice(h_q.as_slice()),
        &DMatrix::from_column_slice(N, N, h_pp.as_slice()),
        &DMatrix::from_column_slice(M, N, a_p.as_slice()),
        &DVector::from_column_slice(b_p.as_slice()),
        &options,
    )
    .unwrap();
    assert_close(
        &p_dot_dyn,
        &DVector::from_column_slice(expected.as_slice()),
        EXAMPLE_TOLERANCE,
        what,
    );
}

#[test]
fn spherical_pendulum_eq_42() {
    // (m, g, L, direction of q, p before projection onto q⊥)
    let cases = [
        (1.0, 9.81, 1.0, [0.3, -0.4, 0.8], [0.2, 0.5, -0.1]),
        (2.5, 9.81, 0.7, [0.0, 0.0, 1.0], [1.0, -2.0, 0.0]),
        (0.4, 1.62, 3.0, [-0.6, 0.2, -0.3], [0.0, 0.3, 0.9]),
    ];
    for (m, g, l, dir, p) in cases {
        let q = Vector3::from_column_slice(&dir).normalize() * l;
        let p = Vector3::from_column_slice(&p);
        let p = p - q * (q.dot(&p) / (l * l)); // constraint qᵀp = 0, eq 40
        let h_q = Vector3::new(0.0, 0.0, -m * g); // H = pᵀp/2m − mgz, eq 37
        let h_pp = Matrix3::identity() / m;
        let a_p = q.transpose(); // eq 41
        let b_p = vector![-p.dot(&p) / m];
        let expected =
            Vector3::new(0.0, 0.0, m * g) - (m / (l * l)) * (p.dot(&p) / (m * m) + g * q[2]) * q;
        check(
            &h_q,
            &h_pp,
            &a_p,
            &b_p,
            &expected,
            "spherical pendulum, eq 42",
        );
    }
}

#[test]
fn nonholonomic_particle_eq_46() {
    let cases: [(f64, [f64; 3], [f64; 3]); 3] = [
        (1.0, [0.3, -1.0, 0.5], [0.2, 0.0, 0.7]),
        (3.0, [2.0, 0.1, -1.3], [-1.5, 0.0, 0.4]),
        (0.5, [0.0, 0.0, 0.9], [4.0, 0.0, -2.0]),
    ];
    for (m, q, p) in cases {
        let z = q[2];
        let mut p = Vector3::from_column_slice(&p);
        p[1] = z * z * p[0]; // constraint z²p_x − p_y = 0, eq 44
        let h_q = Vector3::zeros(); // H = pᵀp/2m, eq 43
        let h_pp = Matrix3::identity() / m;
        let a_p = matrix![z * z, -1.0, 0.0]; // eq 45
        let b_p = vector![-2.0 * z * p[0] * p[2] / m];
        let expected =
            -2.0 * z * p[0] * p[2] / (m * (1.0 + z.powi(4))) * Vector3::new(z * z, -1.0, 0.0);
        check(
            &h_q,
            &h_pp,
            &a_p,
            &b_p,
            &expected,
            "nonholonomic particle, eq 46",
        );
    }
}

/// Two particles on an incline, eqs 47–66: (m₁, m₂, L, α, g, φ, v₁, v₂), where the rod
/// r₁ − r₂ points along φ and vᵢ are the speeds perpendicular to it (the positions
/// themselves do not enter M, A or b).
const INCLINE: [[f64; 8]; 3] = [
    [1.0, 2.0, 1.5, 0.3, 9.81, 0.7, 0.5, -1.2],
    [3.0, 0.5, 0.8, 0.9, 9.81, 2.5, 2.0, 0.3],
    [0.7, 0.7, 2.0, 0.1, 1.62, -1.1, -0.4, -0.9],
];

#[test]
fn two_particles_with_dependent_constraints_eqs_59_to_66() {
    for [m1, m2, l, alpha, g, phi, v1, v2] in INCLINE {
        let (dx, dy) = (l * phi.cos(), l * phi.sin()); // (x₁ − x₂, y₁ − y₂), eq 49
        let normal = Vector2::new(-phi.sin(), phi.cos());
        let (px1, py1) = (m1 * v1 * normal[0], m1 * v1 * normal[1]); // eq 50
        let (px2, py2) = (m2 * v2 * normal[0], m2 * v2 * normal[1]); // eq 51
        let p1s = px1 * px1 + py1 * py1;
        let p2s = px2 * px2 + py2 * py2;
        let p12 = px1 * px2 + py1 * py2;
        let h_q = g * alpha.sin() * Vector4::new(0.0, m1, 0.0, m2); // eq 47
        let h_pp = Matrix4::from_diagonal(&Vector4::new(1.0 / m1, 1.0 / m1, 1.0 / m2, 1.0 / m2));
        let (a1, b1, a2, b2) = (dx / m1, dy / m1, dx / m2, dy / m2); // eq 56
        let a_p = matrix![
            a1, b1, -a2, -b2;
            a1, b1, 0.0, 0.0;
            0.0, 0.0, a2, b2
        ]; // eq 55
        let b_p = vector![
            -(px1 / m1 - px2 / m2).powi(2) - (py1 / m1 - py2 / m2).powi(2), // eq 52
            p12 / (m1 * m2) - p1s / (m1 * m1),                              // eq 53
            p2s / (m2 * m2) - p12 / (m1 * m2)                               // eq 54
        ];
        let f1 = m1 * p12 - m2 * p1s + m1 * m1 * m2 * g * dy * alpha.sin(); // eq 65
        let f2 = m1 * p2s - m2 * p12 + m1 * m2 * m2 * g * dy * alpha.sin(); // eq 66
        let expected = -h_q + Vector4::new(dx * f1, dy * f1, dx * f2, dy * f2) / (m1 * m2 * l * l);
        check(&h_q, &h_pp, &a_p, &b_p, &expected, "two particles, eq 64");
    }
}

#[test]
fn two_particles_eq_59_pseudoinverse() {
    // Eq 59: (A_p H_pp⁻¹ A_pᵀ)⁺ in closed form, through pinv_symmetric.
    let (m1, m2, l, phi): (f64, f64, f64, f64) = (1.3, 0.6, 1.7, 0.4);
    let (dx, dy) = (l * phi.cos(), l * phi.sin());
    let (a1, b1, a2, b2) = (dx / m1, dy / m1, dx / m2, dy / m2);
    let a_p = matrix![a1, b1, -a2, -b2; a1, b1, 0.0, 0.0; 0.0, 0.0, a2, b2];
    let h_pp_inv = Matrix4::from_diagonal(&Vector4::new(m1, m1, m2, m2));
    let s = a_p * h_pp_inv * a_p.transpose();
    let expected = matrix![
        m1 + m2, 2.0 * m1 - m2, m1 - 2.0 * m2;
        2.0 * m1 - m2, 4.0 * m1 + m2, 2.0 * (m1 + m2);
        m1 - 2.0 * m2, 2.0 * (m1 + m2), m1 + 4.0 * m2
    ] / (9.0 * l * l);
    let s_pinv = udk_runtime::pinv_symmetric(&s, None).unwrap();
    assert_close(&s_pinv, &expected, EXAMPLE_TOLERANCE, "eq 59");
    assert_close(
        &udk_runtime::pinv(&s, None).unwrap(),
        &expected,
        EXAMPLE_TOLERANCE,
        "eq 59 (SVD)",
    );
}

#[test]
fn two_particles_with_inconsistent_b_is_an_error() {
    let [m1, m2, l, alpha, g, phi, v1, v2] = INCLINE[0];
    let (dx, dy) = (l * phi.cos(), l * phi.sin());
    let (a1, b1, a2, b2) = (dx / m1, dy / m1, dx / m2, dy / m2);
    let a_p = matrix![a1, b1, -a2, -b2; a1, b1, 0.0, 0.0; 0.0, 0.0, a2, b2];
    let h_q = g * alpha.sin() * Vector4::new(0.0, m1, 0.0, m2);
    let h_pp = Matrix4::from_diagonal(&Vector4::new(1.0 / m1, 1.0 / m1, 1.0 / m2, 1.0 / m2));
    // Row 1 = row 2 − row 3 but b₁ ≠ b₂ − b₃.
    let b_p = vector![v1, v2, 0.0];
    assert!(matches!(
        momentum_rate(&h_q, &h_pp, &a_p, &b_p, &Options::default()),
        Err(Error::InconsistentConstraints { .. })
    ));
}

/// Double pendulum (eqs 67–76): (m₁, m₂, l₁, l₂, g, α, ω, t, θ₁, θ₂, p₂).
const PENDULA: [[f64; 11]; 3] = [
    [1.0, 2.0, 1.0, 0.5, 9.81, 0.5, 2.0, 0.3, 0.4, -0.2, 0.8],
    [0.3, 0.9, 2.0, 1.2, 9.81, -1.5, 0.7, 4.1, 2.0, 1.0, -1.3],
    [5.0, 1.0, 0.6, 0.6, 1.62, 2.0, 10.0, 0.05, -0.7, 0.9, 0.2],
];

#[test]
fn double_pendulum_eqs_73_to_76() {
    for [m1, m2, l1, l2, g, alpha, omega, t, th1, th2, p2] in PENDULA {
        let s = (omega * t).sin();
        let p1 = alpha * p2 * s; // the constraint p₁ = α p₂ sin ωt
        let th12 = th1 - th2;
        let c = th12.cos();
        let delta = m1 + m2 * th12.sin().powi(2);
        // H_pp⁻¹ is the matrix of eq 68.
        let h_pp_inv = Matrix2::new(
            (m1 + m2) * l1 * l1,
            m2 * l1 * l2 * c,
            m2 * l1 * l2 * c,
            m2 * l2 * l2,
        );
        let h_pp = Matrix2::new(
            m2 * l2 * l2,
            -m2 * l1 * l2 * c,
            -m2 * l1 * l2 * c,
            (m1 + m2) * l1 * l1,
        ) / (m2 * l1 * l1 * l2 * l2 * delta);
        assert_close(
            &(h_pp * h_pp_inv),
            &Matrix2::identity(),
            1e-12,
            "H_pp of eq 67",
        );
        let kinetic = 0.5
            * ((m1 + m2) * l1 * l1 * p2 * p2 + m2 * l2 * l2 * p1 * p1
                - 2.0 * m2 * l1 * l2 * p1 * p2 * c)
            / (m2 * l1 * l1 * l2 * l2 * delta);
        let sigma = (m2 * l1 * l2 * kinetic * (2.0 * th12).sin() - p1 * p2 * th12.sin())
            / (l1 * l2 * delta); // eq 71
        let free = Vector2::new(
            sigma - (m1 + m2) * l1 * g * th1.sin(),
            -sigma - m2 * l2 * g * th2.sin(),
        ); // eq 70: −H_θ
        let h_q = -free;
        let a_p = matrix![1.0, -alpha * s]; // eq 72
        let b_p = vector![omega * alpha * (omega * t).cos() * p2];
        let gamma1 = (m1 + m2) * l1 * l1 - 2.0 * alpha * m2 * l1 * l2 * c * s
            + alpha * alpha * m2 * l2 * l2 * s * s; // eq 75
        let gamma2 = alpha * omega * p2 * (omega * t).cos() - (1.0 + alpha * s) * sigma
            + (m1 + m2) * l1 * g * th1.sin()
            - alpha * s * m2 * l2 * g * th2.sin(); // eq 76
        let expected = free
            + gamma2 / gamma1
                * Vector2::new(
                    (m1 + m2) * l1 * l1 - alpha * m2 * l1 * l2 * c * s,
                    m2 * l1 * l2 * c - alpha * m2 * l2 * l2 * s,
                ); // eq 74
        check(&h_q, &h_pp, &a_p, &b_p, &expected, "double pendulum, eq 74");
    }
}

#[test]
fn singular_h_pp_is_rejected() {
    let h_pp = Matrix2::new(1.0, 1.0, 1.0, 1.0);
    let result = momentum_rate(
        &Vector2::zeros(),
        &h_pp,
        &matrix![1.0, 0.0],
        &vector![0.0],
        &Options::default(),
    );
    assert_eq!(result, Err(Error::NotPositiveDefinite { what: "H_pp" }));
}
