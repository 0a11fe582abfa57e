//! Exact power-of-two scaling of the kernel inputs, applied before any product is formed, so
//! that A M⁻¹ Aᵀ, Aᵀ G A and M⁻¹ Q neither overflow nor underflow for inputs of any
//! magnitude (issue 13: the Cartesian pendulum at q = (1e200, 1e200)).
//!
//! - Row equilibration: every row of A x = b is multiplied by the power of two 2ᵏ that brings
//!   its largest |Aᵢⱼ| into [1, 2) (Higham, *Accuracy and Stability of Numerical
//!   Algorithms*, 2nd ed., §7.3). The scaled system S A x = S b has the same solutions, so
//!   the constrained motion does not change (Udwadia & Kalaba 1993: q̈ depends only on the
//!   constraint set); the pivot and rank tests of the kernels are ratios that a diagonal
//!   scaling leaves unchanged.
//! - Metric scaling: when the largest diagonal entry of M (which bounds every |Mᵢⱼ| of a
//!   positive semidefinite M) lies outside [2⁻⁶⁴, 2⁶⁴], M, Q and C (or H_pp) are multiplied
//!   by the power of four that brings it into [1/2, 2). M q̈ = Q + Qᶜ is
//!   homogeneous in (M, Q, Qᶜ), so q̈ is unchanged and Qᶜ is divided back by the same
//!   factor.
//!
//! Multiplying by a power of two is exact in binary floating point unless the product leaves
//! the normal range, so on inputs of ordinary size the kernels return bit for bit what they
//! returned without the scaling.

use nalgebra::allocator::Allocator;
use nalgebra::{DefaultAllocator, Dim, OMatrix, OVector, U1};

use crate::{validate, Error};

/// Exponent bias of an f64.
const BIAS: i32 = 1023;

/// The exponent k with 2ᵏ·`magnitude` ∈ [1, 2), clamped to the normal exponents
/// [−1022, 1023]; 0 for 0. `magnitude` must be finite and ≥ 0.
#[inline]
fn unit_exponent(magnitude: f64) -> i32 {
    if magnitude == 0.0 {
        return 0;
    }
    // The biased exponent e (0 for subnormals): magnitude ∈ [2^(e − 1023), 2^(e − 1022)).
    let biased = (magnitude.to_bits() >> 52) as i32;
    (BIAS - biased).clamp(1 - BIAS, BIAS)
}

/// 2ᵏ for k ∈ [−1022, 1023], exactly.
#[inline]
fn power_of_two(k: i32) -> f64 {
    f64::from_bits(((k + BIAS) as u64) << 52)
}

/// The power of two 2ᵏ with 2ᵏ·`magnitude` ∈ [1, 2) (k as [`unit_exponent`]); 1 for 0.
#[inline]
pub(crate) fn unit_scale(magnitude: f64) -> f64 {
    power_of_two(unit_exponent(magnitude))
}

/// The constraints (A, b) of A x = b, m × n and m.
pub(crate) type Constraints<N, R> = (OMatrix<f64, R, N>, OVector<f64, R>);

/// (S A, S b) with S = diag(2^kᵢ) and max_j |2^kᵢ Aᵢⱼ| ∈ [1, 2) for every nonzero row i
/// (zero rows are left as they are). A is m × n, b an m-vector, both finite.
///
/// # Errors
/// `NonFinite` when a scaled bᵢ overflows: then |bᵢ| / max_j |Aᵢⱼ| > 1.7e308, and every
/// solution of A x = b has an entry beyond the f64 range.
#[inline]
pub(crate) fn equilibrate_rows<N: Dim, R: Dim>(
    constraint_matrix: &OMatrix<f64, R, N>,
    constraint_rhs: &OVector<f64, R>,
) -> Result<Constraints<N, R>, Error>
where
    DefaultAllocator: Allocator<R, N> + Allocator<R>,
{
    let m = constraint_rhs.len();
    if m == 0 {
        return Ok((constraint_matrix.clone(), constraint_rhs.clone()));
    }
    // Row maxima of |Aᵢⱼ|, accumulated column by column over the column-major storage (the
    // entries are finite: a plain comparison).
    let (r, _) = constraint_matrix.shape_generic();
    let mut row_max = OVector::<f64, R>::zeros_generic(r, U1);
    for column in constraint_matrix.as_slice().chunks_exact(m) {
        for (largest, v) in row_max.as_mut_slice().iter_mut().zip(column) {
            if v.abs() > *largest {
                *largest = v.abs();
            }
        }
    }
    let scale = row_max.map(unit_scale);
    let mut a = constraint_matrix.clone();
    for column in a.as_mut_slice().chunks_exact_mut(m) {
        for (v, s) in column.iter_mut().zip(scale.as_slice()) {
            *v *= s;
        }
    }
    let b = constraint_rhs.component_mul(&scale);
    validate::finite(&b, "constraint vector b after row equilibration (overflow)")?;
    Ok((a, b))
}

/// Exponents of max Mᵢᵢ within which M, Q and C are left as they are: then M⁻¹ and
/// M + α²AᵀGA (A equilibrated) are far from the f64 range limits, and a power-of-two scaling,
/// being exact, would change nothing but the gauge of the augmented mass matrix.
const METRIC_RANGE: i32 = 64;

/// `Some(4ʲ)`, the even power of two that brings the largest diagonal entry of the finite,
/// symmetric matrix `x` into [1/2, 2), when that entry lies outside [2⁻⁶⁴, 2⁶⁴]; `None` (no
/// scaling needed) inside it or for a zero diagonal. The diagonal bounds every |Xᵢⱼ| when X
/// is positive semidefinite; for an indefinite X, an off-diagonal entry that overflows once
/// scaled only makes the factorization fail, and the kernel reports
/// `NotPositiveSemidefinite` as it must. Even, so that the square roots of the scaled pivots
/// (the rank-revealing path of the projection forms D^½) are scaled exactly too.
#[inline]
pub(crate) fn metric_scale<D: Dim>(x: &OMatrix<f64, D, D>) -> Option<f64>
where
    DefaultAllocator: Allocator<D, D> + Allocator<D>,
{
    let largest = validate::max_magnitude(x.diagonal().as_slice());
    let k = unit_exponent(largest);
    // Rounds odd k down (toward −∞), staying within [−1022, 1022].
    (k.abs() > METRIC_RANGE).then(|| power_of_two(k & !1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{matrix, vector};

    #[test]
    fn unit_scale_is_the_power_of_two_into_one_two() {
        for (magnitude, expected) in [
            (1.0, 1.0),
            (1.5, 1.0),
            (2.0, 0.5),
            (0.75, 2.0),
            (1e200, 2f64.powi(-664)),
            (f64::MAX, 2f64.powi(-1022)),
            (f64::MIN_POSITIVE, 2f64.powi(1022)),
            (0.0, 1.0),
        ] {
            assert_eq!(unit_scale(magnitude), expected, "{magnitude:e}");
        }
        for magnitude in [1e200, 3e-200, 7.0, 0.1] {
            let scaled = unit_scale(magnitude) * magnitude;
            assert!((1.0..2.0).contains(&scaled), "{magnitude:e} → {scaled}");
        }
        // Subnormal: clamped to 2^1023, exact, and far from underflow.
        assert_eq!(unit_scale(5e-324) * 5e-324, 2f64.powi(-51));
    }

    #[test]
    fn metric_scale_is_an_even_power_of_two_outside_the_safe_range() {
        let m = matrix![3.0, 1.0; 1.0, 2.0];
        for magnitude in [0.0, 1e-19, 1.0, 1e19] {
            assert_eq!(metric_scale(&(m * magnitude)), None, "{magnitude:e}");
        }
        for magnitude in [1e-300, 3e-300, 1e-20, 1e20, 1e300, 3e300] {
            let s = metric_scale(&(m * magnitude)).unwrap();
            let exponent = s.log2();
            assert!(
                exponent.fract() == 0.0 && exponent % 2.0 == 0.0,
                "{magnitude:e}: {s:e}"
            );
            let scaled = s * 3.0 * magnitude;
            assert!((0.5..2.0).contains(&scaled), "{magnitude:e} → {scaled}");
            // Only the diagonal is read.
            let d = matrix![3.0 * magnitude, 0.0; 0.0, magnitude];
            assert_eq!(metric_scale(&d), Some(s));
        }
    }

    #[test]
    fn rows_are_scaled_exactly_and_zero_rows_kept() {
        let a = matrix![2e200, -4e200; 0.0, 0.0; 3.0, 1e-300];
        let b = vector![1e200, 5.0, 6.0];
        let (sa, sb) = equilibrate_rows(&a, &b).unwrap();
        let s0 = 2f64.powi(-666); // 4e200 ∈ [2^666, 2^667)
        assert_eq!(
            sa,
            matrix![2e200 * s0, -4e200 * s0; 0.0, 0.0; 1.5, 0.5e-300]
        );
        assert_eq!(sb, vector![1e200 * s0, 5.0, 3.0]);
        // |b| / max|A| beyond the f64 range.
        assert!(matches!(
            equilibrate_rows(&matrix![1e-300], &vector![1e300]),
            Err(Error::NonFinite { .. })
        ));
    }
}
