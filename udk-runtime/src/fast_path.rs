//! The tests that decide whether the fundamental equation evaluated in closed form by
//! generated code may be returned: the positive definite path of [`crate::fundamental`]
//! (Udwadia & Kalaba 1993, eq 17, through M = U D Uᵀ and the Delassus matrix
//! G = A M⁻¹ Aᵀ = V E Vᵀ, both square-root-free Cholesky factorizations) written out as
//! straight-line code over the terms' own zeros, with no test at run time. The generated code
//! returns its answer only where these tests pass, and otherwise hands M, Q, A and b to
//! [`crate::acceleration`], which takes every other path (singular M, redundant or
//! inconsistent constraints, overflow) and reports every error.
//!
//! The tests are those of the kernel's fast path, or stricter:
//! - every pivot dₖ of M is above 1e-8 times Mₖₖ > 0, the kernel's test that M is positive
//!   definite;
//! - every pivot eₖ of G is above 1e-6 (or the square of [`Options::tolerance`] when larger)
//!   times Gₖₖ > 0, the kernel's rank test;
//! - q̈ is finite;
//! - the residual r = A q̈ − b satisfies |rᵢ| ≤ ½ τ cᵢ ‖q̈‖_∞ in every row, cᵢ = maxⱼ |Aᵢⱼ| and
//!   τ = [`Options::residual_tolerance`]. This bounds the kernel's a-posteriori measure ρ
//!   (the normwise backward error of [`Options::residual_tolerance`], on the rows
//!   equilibrated by powers of two sᵢ, sᵢcᵢ ∈ [1, 2)) by τ: each sᵢ|rᵢ| < τ‖q̈‖, and ρ's scale
//!   is at least ‖q̈‖ when A ≠ 0 (a zero row passes only with rᵢ = 0, so A = 0 passes only
//!   with ρ = 0).

use crate::cholesky::accepts_pivot;
use crate::projection::{fast_tolerance, FACTOR_TOLERANCE};
use crate::validate::max_magnitude;
use crate::Options;

/// Whether the closed-form answer of generated code stands (see the [module docs](self)):
/// `acceleration` is q̈ (n entries), `residual` A q̈ − b (m), `row_scales` maxⱼ |Aᵢⱼ| for each
/// row of A (m), `mass_pivots` the pairs (dₖ, Mₖₖ) of M = U D Uᵀ (n) and `delassus_pivots` the
/// pairs (eₖ, Gₖₖ) of A M⁻¹ Aᵀ = V E Vᵀ (m). `false` sends the caller to
/// [`crate::acceleration`]. Slices of unequal lengths give `false`.
///
/// # Example
/// A point mass held on the line y = x: M = I, Q = (0, −g), A = (1, −1), b = 0.
/// ```
/// use udk_runtime::{fast_path, Options};
///
/// let g = 9.81;
/// let qdd = [-g / 2.0, -g / 2.0]; // M⁻¹Q projected on the line
/// let residual = [qdd[0] - qdd[1]];
/// let mass_pivots = [(1.0, 1.0), (1.0, 1.0)];
/// let delassus_pivots = [(2.0, 2.0)];
/// let options = Options::default();
/// assert!(fast_path::holds(&qdd, &residual, &[1.0], &mass_pivots, &delassus_pivots, &options));
/// // A rank-deficient G (its pivot 0) sends the caller to the kernel.
/// assert!(!fast_path::holds(&qdd, &residual, &[1.0], &mass_pivots, &[(0.0, 2.0)], &options));
/// ```
pub fn holds(
    acceleration: &[f64],
    residual: &[f64],
    row_scales: &[f64],
    mass_pivots: &[(f64, f64)],
    delassus_pivots: &[(f64, f64)],
    options: &Options,
) -> bool {
    if residual.len() != row_scales.len()
        || residual.len() != delassus_pivots.len()
        || acceleration.len() != mass_pivots.len()
        || options.validate().is_err()
    {
        return false;
    }
    let pivots_hold = |pivots: &[(f64, f64)], tolerance: f64| {
        (pivots.iter()).all(|&(pivot, diagonal)| accepts_pivot(pivot, diagonal, tolerance))
    };
    if !(pivots_hold(mass_pivots, FACTOR_TOLERANCE)
        && pivots_hold(delassus_pivots, fast_tolerance(options))
        && acceleration.iter().all(|v| v.is_finite()))
    {
        return false;
    }
    let bound = 0.5 * options.residual_tolerance * max_magnitude(acceleration);
    (residual.iter().zip(row_scales)).all(|(r, c)| r.abs() <= bound * c)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MASS: [(f64, f64); 2] = [(1.0, 1.0), (0.5, 1.0)];
    const DELASSUS: [(f64, f64); 1] = [(2.0, 2.0)];

    fn holds_with(acceleration: &[f64], residual: f64, row_scale: f64) -> bool {
        let options = Options::default();
        holds(
            acceleration,
            &[residual],
            &[row_scale],
            &MASS,
            &DELASSUS,
            &options,
        )
    }

    #[test]
    fn each_test_refuses_on_its_own() {
        assert!(holds_with(&[3.0, -4.0], 1e-12, 2.0));
        // The residual bound ½ τ cᵢ ‖q̈‖ = ½ · 1e-6 · 2 · 4 = 4e-6, on either side.
        assert!(holds_with(&[3.0, -4.0], 3.9e-6, 2.0));
        assert!(!holds_with(&[3.0, -4.0], 4.1e-6, 2.0));
        // A zero row passes only with a zero residual.
        assert!(holds_with(&[3.0, -4.0], 0.0, 0.0));
        assert!(!holds_with(&[3.0, -4.0], 1e-300, 0.0));
        assert!(!holds_with(&[f64::NAN, -4.0], 0.0, 2.0));
        assert!(!holds_with(&[f64::INFINITY, -4.0], 0.0, 2.0));
        let options = Options::default();
        let (q, r, c) = (&[3.0, -4.0], &[0.0], &[2.0]);
        // M: a pivot at the threshold 1e-8 Mₖₖ, a NaN pivot, a zero diagonal.
        for mass in [
            [(1.0, 1.0), (1e-8, 1.0)],
            [(1.0, 1.0), (f64::NAN, 1.0)],
            [(1.0, 0.0), (1.0, 1.0)],
        ] {
            assert!(!holds(q, r, c, &mass, &DELASSUS, &options), "{mass:?}");
        }
        // G: a pivot at the fast-path threshold 1e-6 Gₖₖ, and above the square of a larger
        // rank tolerance only when that is given.
        assert!(!holds(q, r, c, &MASS, &[(2e-6, 2.0)], &options));
        assert!(holds(q, r, c, &MASS, &[(2e-5, 2.0)], &options));
        let strict = Options {
            tolerance: Some(1e-2),
            ..Options::default()
        };
        assert!(!holds(q, r, c, &MASS, &[(2e-5, 2.0)], &strict));
        // Slices of unequal lengths, and invalid options.
        assert!(!holds(&[3.0], r, c, &MASS, &DELASSUS, &options));
        let invalid = Options {
            residual_tolerance: f64::NAN,
            ..Options::default()
        };
        assert!(!holds(q, r, c, &MASS, &DELASSUS, &invalid));
    }
}
