//! Baumgarte's stabilization of A q̈ = b (or A_p ṗ = b_p): see [`super::Baumgarte`].

use super::Baumgarte;
use crate::allocator::KernelAllocator;
use crate::Error;
use nalgebra::allocator::Allocator;
use nalgebra::{DefaultAllocator, Dim, OMatrix, OVector};
use std::borrow::Borrow;

/// The Baumgarte correction c (m entries) with b̃ = b + c: cᵢ = −2α rᵢ − β² fᵢ on the first
/// `num_holonomic` rows, cᵢ = −γ rᵢ on the others.
///
/// `f` is the holonomic residual aligned with the m rows (zero on the other rows) and `r` the
/// velocity-level residual of each row: ḟ on a holonomic row, φ on the others.
fn correction<R: Dim>(
    num_holonomic: usize,
    f: &OVector<f64, R>,
    r: &OVector<f64, R>,
    gains: &Baumgarte,
) -> OVector<f64, R>
where
    DefaultAllocator: Allocator<R>,
{
    let stiffness = gains.beta * gains.beta;
    let mut c = r.clone();
    for (i, ci) in c.iter_mut().enumerate() {
        *ci = if i < num_holonomic {
            -2.0 * gains.alpha * r[i] - stiffness * f[i]
        } else {
            -gains.gamma * r[i]
        };
    }
    c
}

/// `solve(b̃)`: the acceleration (or ṗ) of A q̈ = b̃ by a kernel `solve`, with b̃ the right-hand
/// side b (m entries) of the m × n constraint matrix A stabilized as [`Baumgarte`] says, or b
/// itself when `gains` is `None` or m = 0. `residuals` gives (f, r) of [`correction`]; it is
/// called only when there is something to stabilize.
///
/// With functionally dependent constraints (A of rank < m, e.g. the two particles on an incline
/// of Udwadia 2016, eqs 49–66) b lies in range(A) but the correction c need not: b + c is then
/// inconsistent and the kernel rejects it. The kernel's answer depends only on the part of its
/// right-hand side in range(A) (the Moore–Penrose inverse of A M⁻¹ Aᵀ, whose range is
/// range(A), drops the rest), so on that error the correction is projected onto range(A) and the
/// kernel called again with b + A A⁺ c. That has the same component outside range(A) as the
/// physical b, so the consistency check still judges b alone: a truly inconsistent b still
/// fails. With A of full row rank, range(A) = ℝᵐ and the retry never happens (no extra cost).
///
/// # Errors
/// The kernel's error; a failed pseudoinverse of A.
pub(crate) fn solve_stabilized<R: Dim, C: Dim, T, V: Borrow<OVector<f64, R>>>(
    gains: Option<&Baumgarte>,
    num_holonomic: usize,
    constraint_matrix: &OMatrix<f64, R, C>,
    rhs: &OVector<f64, R>,
    residuals: impl FnOnce() -> (V, V),
    solve: impl Fn(&OVector<f64, R>) -> Result<T, Error>,
) -> Result<T, Error>
where
    DefaultAllocator: KernelAllocator<C, R>,
{
    let Some(gains) = gains.filter(|_| !rhs.is_empty()) else {
        return solve(rhs);
    };
    let (f, r) = residuals();
    let c = correction(num_holonomic, f.borrow(), r.borrow(), gains);
    match solve(&(rhs + &c)) {
        Err(Error::InconsistentConstraints { .. }) => {
            let in_range = constraint_matrix * (crate::pinv(constraint_matrix, None)? * c);
            solve(&(rhs + in_range))
        }
        result => result,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Matrix2x1, Vector1, Vector2, Vector3};

    #[test]
    fn holonomic_rows_get_alpha_and_beta_the_others_gamma() {
        let gains = Baumgarte {
            alpha: 2.0,
            beta: 3.0,
            gamma: 7.0,
        };
        let f = Vector3::new(0.5, 0.25, 0.0);
        let r = Vector3::new(0.1, 0.2, 0.3);
        let c = correction(2, &f, &r, &gains);
        let expected = Vector3::new(-4.0 * 0.1 - 9.0 * 0.5, -4.0 * 0.2 - 9.0 * 0.25, -7.0 * 0.3);
        assert!((c - expected).norm() < 1e-15, "{c} vs {expected}");
    }

    /// The particle x with the dependent constraints x = 0 and 2x = 0 (A = [1; 2]): a drift
    /// f = (0.1, 0.3) that does not respect the dependence gives a correction outside range(A);
    /// only its projection (0.7/5)·(1, 2)·(−β²) reaches the kernel. An inconsistent b fails.
    #[test]
    fn a_correction_outside_range_a_is_projected_and_b_is_still_checked() {
        let gains = Baumgarte {
            alpha: 0.0,
            beta: 1.0,
            gamma: 0.0,
        };
        let a = Matrix2x1::new(1.0, 2.0);
        let kernel = |b: &Vector2<f64>| {
            let x = b.dot(&a.column(0)) / 5.0;
            let residual = (a * Vector1::new(x) - b).norm();
            match residual < 1e-12 {
                true => Ok(x),
                false => Err(Error::InconsistentConstraints { residual }),
            }
        };
        let residuals = || (Vector2::new(0.1, 0.3), Vector2::zeros());
        let x = solve_stabilized(Some(&gains), 2, &a, &Vector2::zeros(), residuals, kernel);
        assert!((x.unwrap() + 0.7 / 5.0).abs() < 1e-15);
        let inconsistent = Vector2::new(1.0, 0.0);
        let x = solve_stabilized(Some(&gains), 2, &a, &inconsistent, residuals, kernel);
        assert!(matches!(x, Err(Error::InconsistentConstraints { .. })));
        let x = solve_stabilized(None, 2, &a, &inconsistent, residuals, kernel);
        assert!(matches!(x, Err(Error::InconsistentConstraints { .. })));
    }
}
