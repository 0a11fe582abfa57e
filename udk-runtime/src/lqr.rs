//! The continuous-time linear-quadratic regulator: for ẋ = A x + B u and the cost
//! ∫ (xᵀ Q x + uᵀ R u) dt, the gain K of the optimal law u = −K x.
//!
//! # Method
//! K = R⁻¹ Bᵀ P, where P is the stabilizing solution of the algebraic Riccati equation
//! Aᵀ P + P A − P B R⁻¹ Bᵀ P + Q = 0. P comes from the stable invariant subspace of the
//! Hamiltonian matrix H = [[A, −G], [−Q, −Aᵀ]] (G = B R⁻¹ Bᵀ), found by the matrix sign
//! function: Z ← (c Z + (c Z)⁻¹)/2 from Z = H, with the determinant scaling
//! c = |det Z|^(−1/2n), until Z stops changing; then W = sign(H) gives P from the
//! overdetermined, consistent system [W₁₂; W₂₂ + I] P = −[W₁₁ + I; W₂₁] (Roberts 1980,
//! "Linear model reduction and solution of the algebraic Riccati equation by use of the sign
//! function", Int. J. Control 32; Gardiner & Laub 1986, Int. J. Control 44; scaling by Byers
//! 1987, Linear Algebra Appl. 85). The answer is checked: P must satisfy the Riccati equation
//! to a relative residual of 1e-8 and A − B K must be stable.

use crate::Error;
use nalgebra::{Complex, DMatrix};

/// The gain and cost of [`lqr`].
#[derive(Clone, Debug, PartialEq)]
pub struct Lqr {
    /// K, k × n: the optimal law is u = −K x.
    pub gain: DMatrix<f64>,
    /// P, n × n, symmetric positive semidefinite: the optimal cost from x₀ is x₀ᵀ P x₀.
    pub cost: DMatrix<f64>,
    /// The n eigenvalues of A − B K (1/s), sorted by real part then imaginary part; all have
    /// negative real parts.
    pub closed_loop_eigenvalues: Vec<Complex<f64>>,
}

/// At most this many sign-function iterations (they converge quadratically; tens suffice).
const MAX_ITERATIONS: usize = 100;

/// The LQR gain for ẋ = A x + B u (A n × n, B n × k) and the weights Q (n × n, symmetric
/// positive semidefinite, units of the cost per x²) and R (k × k, symmetric positive
/// definite), by the matrix sign function of the module documentation.
///
/// # Errors
/// `DimensionMismatch` for inconsistent shapes; `NonFinite` for a non-finite entry;
/// `NotSymmetric` for an asymmetric Q or R; `NotPositiveDefinite` for R;
/// `NoConvergence` when there is no stabilizing solution ((A, B) not stabilizable, or a mode
/// on the imaginary axis that Q does not see) or the iteration does not converge.
pub fn lqr(
    a: &DMatrix<f64>,
    b: &DMatrix<f64>,
    q: &DMatrix<f64>,
    r: &DMatrix<f64>,
) -> Result<Lqr, Error> {
    let (n, k) = (a.nrows(), b.ncols());
    for (what, found, expected) in [
        ("A", a.shape(), (n, n)),
        ("B", b.shape(), (n, k)),
        ("Q", q.shape(), (n, n)),
        ("R", r.shape(), (k, k)),
    ] {
        if found != expected {
            return Err(Error::DimensionMismatch {
                what,
                expected,
                found,
            });
        }
    }
    for (what, m) in [("A", a), ("B", b), ("Q", q), ("R", r)] {
        if !m.iter().all(|x| x.is_finite()) {
            return Err(Error::NonFinite { what });
        }
    }
    for (what, m) in [("Q", q), ("R", r)] {
        if (m - m.transpose()).amax() > 1e-10 * m.amax() {
            return Err(Error::NotSymmetric { what });
        }
    }
    let r_cholesky = r
        .clone()
        .cholesky()
        .ok_or(Error::NotPositiveDefinite { what: "R" })?;
    let g = b * r_cholesky.solve(&b.transpose());
    let mut hamiltonian = DMatrix::zeros(2 * n, 2 * n);
    hamiltonian.view_mut((0, 0), (n, n)).copy_from(a);
    hamiltonian.view_mut((0, n), (n, n)).copy_from(&-&g);
    hamiltonian.view_mut((n, 0), (n, n)).copy_from(&-q);
    hamiltonian
        .view_mut((n, n), (n, n))
        .copy_from(&-a.transpose());
    let sign = matrix_sign(hamiltonian)?;

    let identity = DMatrix::<f64>::identity(n, n);
    let mut lhs = DMatrix::zeros(2 * n, n);
    lhs.rows_mut(0, n).copy_from(&sign.view((0, n), (n, n)));
    lhs.rows_mut(n, n)
        .copy_from(&(sign.view((n, n), (n, n)) + &identity));
    let mut rhs = DMatrix::zeros(2 * n, n);
    rhs.rows_mut(0, n)
        .copy_from(&-(sign.view((0, 0), (n, n)) + &identity));
    rhs.rows_mut(n, n).copy_from(&-sign.view((n, 0), (n, n)));
    let no_solution = Error::NoConvergence {
        what: "Riccati equation (no stabilizing solution)",
    };
    let cutoff = 1e-12 * lhs.amax();
    let p = lhs
        .svd(true, true)
        .solve(&rhs, cutoff)
        .map_err(|_| no_solution.clone())?;
    let p = (&p + p.transpose()) * 0.5;

    let residual = a.transpose() * &p + &p * a - &p * &g * &p + q;
    let scale = q.amax() + 2.0 * a.amax() * p.amax() + g.amax() * p.amax().powi(2);
    let (largest, bound) = (residual.amax(), 1e-8 * scale.max(f64::MIN_POSITIVE));
    if largest.is_nan() || largest > bound {
        return Err(no_solution);
    }
    let gain = r_cholesky.solve(&(b.transpose() * &p));
    let closed_loop = a - b * &gain;
    let closed_loop_eigenvalues = crate::linearize::sorted_eigenvalues(&closed_loop)?;
    if closed_loop_eigenvalues
        .iter()
        .any(|e| e.re.is_nan() || e.re >= 0.0)
    {
        return Err(no_solution);
    }
    Ok(Lqr {
        gain,
        cost: p,
        closed_loop_eigenvalues,
    })
}

/// sign(H) of a matrix with no eigenvalue on the imaginary axis, by the scaled Newton
/// iteration Z ← (c Z + (c Z)⁻¹)/2, c = |det Z|^(−1/size), stopped when the relative change
/// in the max norm is below 1e-13 (or stalls after it is below 1e-8).
fn matrix_sign(mut z: DMatrix<f64>) -> Result<DMatrix<f64>, Error> {
    let size = z.nrows() as f64;
    let failed = Error::NoConvergence {
        what: "matrix sign iteration of the Riccati equation (an eigenvalue on the imaginary axis)",
    };
    let mut previous_change = f64::INFINITY;
    for _ in 0..MAX_ITERATIONS {
        let lu = z.clone().lu();
        let log_det: f64 = lu.u().diagonal().iter().map(|d| d.abs().ln()).sum();
        let inverse = lu.try_inverse().ok_or(failed.clone())?;
        let c = (-log_det / size).exp();
        if !c.is_finite() {
            return Err(failed);
        }
        let next = (&z * c + inverse / c) * 0.5;
        let change = (&next - &z).amax() / next.amax();
        z = next;
        if !z.iter().all(|x| x.is_finite()) {
            return Err(failed);
        }
        if change < 1e-13 || (change < 1e-8 && change >= previous_change) {
            return Ok(z);
        }
        previous_change = change;
    }
    Err(failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matrix(rows: usize, cols: usize, entries: &[f64]) -> DMatrix<f64> {
        DMatrix::from_row_slice(rows, cols, entries)
    }

    #[test]
    fn scalar_gain_is_the_closed_form() {
        // 2 a p − p² b²/r + q = 0: p = r (a + √(a² + b² q/r)) / b², K = b p / r.
        let (a, b, q, r): (f64, f64, f64, f64) = (0.7, 1.3, 2.0, 0.5);
        let p = r * (a + (a * a + b * b * q / r).sqrt()) / (b * b);
        let one = |x: f64| matrix(1, 1, &[x]);
        let result = lqr(&one(a), &one(b), &one(q), &one(r)).unwrap();
        assert!((result.cost[(0, 0)] - p).abs() < 1e-12 * p);
        assert!((result.gain[(0, 0)] - b * p / r).abs() < 1e-12 * p);
    }

    #[test]
    fn double_integrator_gain_is_one_and_root_three() {
        // P = [[√3, 1], [1, √3]], K = [1, √3] for Q = I, R = 1.
        let a = matrix(2, 2, &[0.0, 1.0, 0.0, 0.0]);
        let b = matrix(2, 1, &[0.0, 1.0]);
        let result = lqr(&a, &b, &DMatrix::identity(2, 2), &matrix(1, 1, &[1.0])).unwrap();
        let root3 = 3f64.sqrt();
        assert!((&result.cost - matrix(2, 2, &[root3, 1.0, 1.0, root3])).amax() < 1e-12);
        assert!((&result.gain - matrix(1, 2, &[1.0, root3])).amax() < 1e-12);
        assert!(result.closed_loop_eigenvalues.iter().all(|e| e.re < 0.0));
    }

    #[test]
    fn an_unstabilizable_pair_and_bad_weights_are_refused() {
        let a = DMatrix::identity(2, 2);
        let b = matrix(2, 1, &[1.0, 0.0]);
        let (q, r) = (DMatrix::identity(2, 2), matrix(1, 1, &[1.0]));
        let error = lqr(&a, &b, &q, &r).unwrap_err();
        assert!(matches!(error, Error::NoConvergence { .. }), "{error}");
        let error = lqr(&a, &b, &q, &matrix(1, 1, &[0.0])).unwrap_err();
        assert!(
            matches!(error, Error::NotPositiveDefinite { .. }),
            "{error}"
        );
        let error = lqr(&a, &b, &matrix(1, 1, &[1.0]), &r).unwrap_err();
        assert!(matches!(error, Error::DimensionMismatch { .. }), "{error}");
    }
}
