//! The a-posteriori check that every kernel applies to its answer before returning it: the
//! residual of the constraints A x = b (A q̈ = b, or A_p ṗ = b_p) relative to the size of the
//! terms whose rounding enters it (a normwise backward error, Higham, *Accuracy and
//! Stability of Numerical Algorithms*, 2nd ed., §7.1, in the ∞-norm).
//!
//! ρ = ‖A x − b‖_∞ / (‖A‖_∞ (‖x‖_∞ + ‖a‖_∞) + ‖b‖_∞), a being the unconstrained rate
//! (M⁻¹(Q + C), or −H_q), whose product with A is subtracted from b on the way. A right
//! answer has ρ of the order of the unit roundoff times the conditioning of the projection;
//! an answer spoiled by overflow, underflow or a wrong rank decision has ρ of order 1.

use nalgebra::allocator::Allocator;
use nalgebra::{DefaultAllocator, Dim, OMatrix, OVector};

use crate::validate::max_magnitude;
use crate::{Error, Options};

/// ρ for the m × n matrix A, the m-vector b, the answer x and ‖a‖_∞ = `unconstrained`.
/// 0 when the scale is 0 (then A x − b = 0 exactly); NaN when x overflowed.
#[inline]
pub(crate) fn relative_residual<N: Dim, R: Dim>(
    constraint_matrix: &OMatrix<f64, R, N>,
    constraint_rhs: &OVector<f64, R>,
    x: &OVector<f64, N>,
    unconstrained: f64,
) -> f64
where
    DefaultAllocator: Allocator<R, N> + Allocator<R> + Allocator<N>,
{
    let m = constraint_rhs.len();
    if m == 0 {
        return 0.0;
    }
    // A x − b and the row sums of |A| (‖A‖_∞ = ‖|A| 1‖_∞) in one pass over the columns.
    let mut residual = constraint_rhs.map(|v| -v);
    let mut row_sums = constraint_rhs.map(|_| 0.0);
    let columns = constraint_matrix.as_slice().chunks_exact(m);
    for (column, xj) in columns.zip(x.iter()) {
        let rows = residual.as_mut_slice().iter_mut();
        for ((r, sum), aij) in rows.zip(row_sums.as_mut_slice().iter_mut()).zip(column) {
            *r += aij * xj;
            *sum += aij.abs();
        }
    }
    let residual = max_magnitude(residual.as_slice());
    let a_norm = max_magnitude(row_sums.as_slice());
    let scale = a_norm * (max_magnitude(x.as_slice()) + unconstrained)
        + max_magnitude(constraint_rhs.as_slice());
    if scale == 0.0 {
        residual
    } else {
        residual / scale
    }
}

/// `Err(ResidualTooLarge)` unless ρ = `residual` (from [`relative_residual`]) is at most
/// [`Options::residual_tolerance`] (a NaN ρ fails).
#[inline]
pub(crate) fn check(residual: f64, options: &Options) -> Result<(), Error> {
    if residual <= options.residual_tolerance {
        Ok(())
    } else {
        Err(Error::ResidualTooLarge {
            residual,
            tolerance: options.residual_tolerance,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{matrix, vector};

    #[test]
    fn relative_residual_of_the_overflowed_pendulum() {
        // The answer of issue 13 before the fix: q̈ = (0, −9.81) at q = (1e200, 1e200).
        let a = matrix![2e200, 2e200];
        let b = vector![0.0];
        let wrong = vector![0.0, -9.81];
        let rho = relative_residual(&a, &b, &wrong, 9.81);
        // |A q̈| = 2e200·9.81, ‖A‖_∞ = 4e200, ‖q̈‖ + ‖a‖ = 2·9.81.
        assert!((rho - 0.25).abs() < 1e-15, "{rho}");
        assert_eq!(
            check(rho, &Options::default()),
            Err(Error::ResidualTooLarge {
                residual: rho,
                tolerance: Options::default().residual_tolerance
            })
        );
        let right = vector![4.905, -4.905];
        assert_eq!(relative_residual(&a, &b, &right, 9.81), 0.0);
        assert_eq!(check(0.0, &Options::default()), Ok(()));
    }

    #[test]
    fn zero_scale_and_overflow() {
        let zero = matrix![0.0, 0.0];
        assert_eq!(
            relative_residual(&zero, &vector![0.0], &vector![1.0, 2.0], 0.0),
            0.0
        );
        // b ≠ 0 with A = 0: ρ = ‖b‖ / ‖b‖ = 1, far above any tolerance.
        assert_eq!(
            relative_residual(&zero, &vector![3.0], &vector![0.0, 0.0], 0.0),
            1.0
        );
        let overflowed = vector![f64::INFINITY, 0.0];
        let rho = relative_residual(&matrix![1.0, 1.0], &vector![1.0], &overflowed, 0.0);
        assert!(rho.is_nan());
        assert!(matches!(
            check(rho, &Options::default()),
            Err(Error::ResidualTooLarge { .. })
        ));
    }
}
