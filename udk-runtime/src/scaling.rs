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
//! - Metric scaling: M, Q and C (or H_pp) are multiplied by the power of two that brings
//!   max |Mᵢⱼ| into [1, 2). M q̈ = Q + Qᶜ is homogeneous in (M, Q, Qᶜ), so q̈ is unchanged
//!   and Qᶜ is divided back by the same factor.
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
fn unit_exponent(magnitude: f64) -> i32 {
    if magnitude == 0.0 {
        return 0;
    }
    // The biased exponent e (0 for subnormals): magnitude ∈ [2^(e − 1023), 2^(e − 1022)).
    let biased = (magnitude.to_bits() >> 52) as i32;
    (BIAS - biased).clamp(1 - BIAS, BIAS)
}

/// 2ᵏ for k ∈ [−1022, 1023], exactly.
fn power_of_two(k: i32) -> f64 {
    f64::from_bits(((k + BIAS) as u64) << 52)
}

/// The power of two 2ᵏ with 2ᵏ·`magnitude` ∈ [1, 2) (k as [`unit_exponent`]); 1 for 0.
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
pub(crate) fn equilibrate_rows<N: Dim, R: Dim>(
    constraint_matrix: &OMatrix<f64, R, N>,
    constraint_rhs: &OVector<f64, R>,
) -> Result<Constraints<N, R>, Error>
where
    DefaultAllocator: Allocator<R, N> + Allocator<R>,
{
    let (r, _) = constraint_matrix.shape_generic();
    let mut row_max = OVector::<f64, R>::zeros_generic(r, U1);
    for column in constraint_matrix.column_iter() {
        for (largest, v) in row_max.iter_mut().zip(column.iter()) {
            *largest = largest.max(v.abs());
        }
    }
    let scale = row_max.map(unit_scale);
    let mut a = constraint_matrix.clone();
    for mut column in a.column_iter_mut() {
        column.component_mul_assign(&scale);
    }
    let b = constraint_rhs.component_mul(&scale);
    validate::finite(&b, "constraint vector b after row equilibration (overflow)")?;
    Ok((a, b))
}

/// The even power of two 4ʲ that brings max |Xᵢⱼ| of the finite matrix `x` into [1/2, 2)
/// (1 for a zero matrix); with `diagonal`, only the diagonal is read (the off-diagonal
/// entries being zero). Even, so that the square roots of the scaled pivots (the
/// rank-revealing path of the projection forms D^½) are scaled exactly too.
pub(crate) fn metric_scale<D: Dim>(x: &OMatrix<f64, D, D>, diagonal: bool) -> f64
where
    DefaultAllocator: Allocator<D, D> + Allocator<D>,
{
    let k = unit_exponent(if diagonal {
        x.diagonal().amax()
    } else {
        x.amax()
    });
    // Rounds odd k down (toward −∞), staying within [−1022, 1022].
    power_of_two(k & !1)
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
    fn metric_scale_is_an_even_power_of_two() {
        let m = matrix![3.0, 1.0; 1.0, 2.0];
        assert_eq!(metric_scale(&m, false), 0.25); // 3 ∈ [2, 4): 2⁻¹ rounded to 4⁻¹
        assert_eq!(metric_scale(&m, true), 0.25);
        assert_eq!(metric_scale(&(m * 0.0), false), 1.0);
        for magnitude in [1e-300, 3e-300, 0.3, 1.0, 7.0, 1e300, 3e300] {
            let s = metric_scale(&(m * magnitude), false);
            let exponent = s.log2();
            assert!(
                exponent.fract() == 0.0 && exponent % 2.0 == 0.0,
                "{magnitude:e}: {s:e}"
            );
            let scaled = s * 3.0 * magnitude;
            assert!((0.5..2.0).contains(&scaled), "{magnitude:e} → {scaled}");
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
