//! Input checks shared by the kernels: finiteness, symmetry, shapes.

use nalgebra::allocator::Allocator;
use nalgebra::{DefaultAllocator, Dim, Matrix, OMatrix, RawStorage};

use crate::allocator::KernelAllocator;
use crate::{Error, LagrangianView, Options};

/// Largest accepted |Xᵢⱼ − Xⱼᵢ| relative to max |Xᵢⱼ| for a "symmetric" matrix.
const SYMMETRY_TOLERANCE: f64 = 1e-10;

/// Exponent bits of an f64; all ones exactly for ±∞ and NaN.
const EXPONENT: u64 = 0x7ff0_0000_0000_0000;

/// max |xᵢ| of finite entries (0 for none). A plain comparison (the entries are finite, so
/// the NaN handling of `f64::max` is not needed): one `maxsd` per entry.
#[inline]
pub(crate) fn max_magnitude(x: &[f64]) -> f64 {
    x.iter()
        .fold(0.0, |m, v| if v.abs() > m { v.abs() } else { m })
}

/// `Err(NonFinite)` unless every entry of `x` is finite. Branch-free over the exponent bits,
/// so that the check vectorizes: adding the lowest exponent bit to the exponent field
/// carries into the sign bit exactly when the field is all ones (±∞, NaN), so one AND, one
/// add and one OR per entry (64-bit lanes, which SSE2 has; it has no 64-bit compare).
#[inline]
pub(crate) fn finite<R: Dim, C: Dim>(
    x: &OMatrix<f64, R, C>,
    what: &'static str,
) -> Result<(), Error>
where
    DefaultAllocator: Allocator<R, C>,
{
    const EXPONENT_ONE: u64 = 1 << 52;
    let carries = x.as_slice().iter().fold(0_u64, |acc, v| {
        acc | ((v.to_bits() & EXPONENT) + EXPONENT_ONE)
    });
    if carries >> 63 == 0 {
        Ok(())
    } else {
        Err(Error::NonFinite { what })
    }
}

/// `Err(NotSymmetric)` unless the square, finite matrix `x` is symmetric up to rounding:
/// max |Xᵢⱼ − Xⱼᵢ| ≤ 1e-10·max_{i ≥ j} |Xᵢⱼ|.
#[inline]
pub(crate) fn symmetric<D: Dim>(x: &OMatrix<f64, D, D>, what: &'static str) -> Result<(), Error>
where
    DefaultAllocator: Allocator<D, D>,
{
    // Inputs are finite (checked first), so plain comparisons replace NaN-aware max.
    let n = x.nrows();
    let s = x.as_slice();
    let mut scale = 0.0_f64;
    let mut asymmetry = 0.0_f64;
    for j in 0..n {
        let d = s[j + j * n].abs();
        if d > scale {
            scale = d;
        }
        for i in j + 1..n {
            let lower = s[i + j * n];
            let difference = (lower - s[j + i * n]).abs();
            if difference > asymmetry {
                asymmetry = difference;
            }
            if lower.abs() > scale {
                scale = lower.abs();
            }
        }
    }
    if asymmetry <= SYMMETRY_TOLERANCE * scale {
        Ok(())
    } else {
        Err(Error::NotSymmetric { what })
    }
}

/// Whether every off-diagonal entry of the square matrix `x` is exactly zero (±0). In
/// column-major order the n off-diagonal entries between two diagonal entries are
/// contiguous, so the test is a branch-free, vectorizable fold over each run of them.
#[inline]
pub(crate) fn diagonal<D: Dim>(x: &OMatrix<f64, D, D>) -> bool
where
    DefaultAllocator: Allocator<D, D>,
{
    let n = x.nrows();
    let s = x.as_slice();
    // Entries k·(n + 1) are the diagonal; shifting out the sign bit maps ±0 to 0. A full
    // matrix fails at the first gap.
    s.get(1..).unwrap_or_default().chunks(n + 1).all(|gap| {
        gap[..gap.len().min(n)]
            .iter()
            .fold(0_u64, |acc, v| acc | (v.to_bits() << 1))
            == 0
    })
}

/// `Err(DimensionMismatch)` unless `x` has shape `expected`.
pub(crate) fn shape<R: Dim, C: Dim, S: RawStorage<f64, R, C>>(
    x: &Matrix<f64, R, C, S>,
    expected: (usize, usize),
    what: &'static str,
) -> Result<(), Error> {
    if x.shape() == expected {
        Ok(())
    } else {
        Err(Error::DimensionMismatch {
            what,
            expected,
            found: x.shape(),
        })
    }
}

/// Checks the inputs of the Lagrangian kernels (M q̈ = Q + Qᶜ, A q̈ = b), in this order:
/// shapes (n = Q.len(), m = b.len(); always right for fixed sizes), `options`, finiteness
/// of M, symmetry of M, finiteness of Q, A, b and C. Returns whether M is diagonal
/// ([`diagonal`]; then trivially symmetric, and the symmetry scan is skipped).
pub(crate) fn lagrangian_inputs<N: Dim, R: Dim>(
    terms: LagrangianView<'_, N, R>,
    options: &Options,
) -> Result<bool, Error>
where
    DefaultAllocator: KernelAllocator<N, R>,
{
    let mass_matrix = terms.mass_matrix;
    let n = terms.generalized_force.len();
    shape(mass_matrix, (n, n), "mass matrix M")?;
    shape(
        terms.constraint_matrix,
        (terms.constraint_rhs.len(), n),
        "constraint matrix A",
    )?;
    if let Some(c) = terms.nonideal_force {
        shape(c, (n, 1), "non-ideal force C")?;
    }
    options.validate()?;
    // A diagonal M (off-diagonal entries exactly zero, hence finite) is symmetric, and
    // finite when its diagonal is.
    let is_diagonal = diagonal(mass_matrix);
    if is_diagonal {
        finite(&mass_matrix.diagonal(), "mass matrix M")?;
    } else {
        finite(mass_matrix, "mass matrix M")?;
        symmetric(mass_matrix, "mass matrix M")?;
    }
    finite(terms.generalized_force, "generalized force Q")?;
    finite(terms.constraint_matrix, "constraint matrix A")?;
    finite(terms.constraint_rhs, "constraint vector b")?;
    if let Some(c) = terms.nonideal_force {
        finite(c, "non-ideal force C")?;
    }
    Ok(is_diagonal)
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{DMatrix, Matrix3};

    #[test]
    fn max_magnitude_is_the_largest_absolute_value() {
        assert_eq!(max_magnitude(&[]), 0.0);
        assert_eq!(max_magnitude(&[-0.0]), 0.0);
        assert_eq!(max_magnitude(&[1.5, -3.25, 2.0, 5e-324]), 3.25);
        assert_eq!(max_magnitude(&[-f64::MAX, 1e300]), f64::MAX);
        assert_eq!(max_magnitude(&[1e-310, -2e-310]), 2e-310);
    }

    #[test]
    fn finite_rejects_exactly_infinities_and_nans() {
        let edges = [
            0.0,
            -0.0,
            5e-324,
            -f64::MIN_POSITIVE,
            f64::MAX,
            -f64::MAX,
            1.0,
        ];
        assert!(finite(&DMatrix::from_column_slice(7, 1, &edges), "x").is_ok());
        assert!(finite(&DMatrix::<f64>::zeros(0, 3), "x").is_ok());
        for bad in [f64::INFINITY, f64::NEG_INFINITY, f64::NAN, -f64::NAN] {
            for at in 0..edges.len() {
                let mut x = DMatrix::from_column_slice(7, 1, &edges);
                x[at] = bad;
                assert!(
                    matches!(finite(&x, "x"), Err(Error::NonFinite { what: "x" })),
                    "{bad} at {at}"
                );
            }
        }
    }

    #[test]
    fn diagonal_means_every_off_diagonal_entry_is_zero() {
        let mut x = Matrix3::from_diagonal(&nalgebra::Vector3::new(1.0, 0.0, -2.0));
        x[(2, 0)] = -0.0;
        assert!(diagonal(&x));
        for (i, j) in [(1, 0), (0, 1), (2, 1), (1, 2), (0, 2), (2, 0)] {
            let mut y = x;
            y[(i, j)] = 1e-300;
            assert!(!diagonal(&y), "entry ({i}, {j})");
        }
        assert!(diagonal(&DMatrix::<f64>::zeros(0, 0)));
        assert!(diagonal(&DMatrix::from_element(1, 1, 5.0)));
        assert!(!diagonal(&DMatrix::from_element(2, 2, 5.0)));
    }
}
