//! Input checks shared by the kernels: finiteness, symmetry, shapes.

use nalgebra::allocator::Allocator;
use nalgebra::{DefaultAllocator, Dim, Matrix, OMatrix, OVector, RawStorage};

use crate::{Error, KernelAllocator, Options};

/// Largest accepted |Xᵢⱼ − Xⱼᵢ| relative to max |Xᵢⱼ| for a "symmetric" matrix.
const SYMMETRY_TOLERANCE: f64 = 1e-10;

/// Exponent bits of an f64; all ones exactly for ±∞ and NaN.
const EXPONENT: u64 = 0x7ff0_0000_0000_0000;

/// `Err(NonFinite)` unless every entry of `x` is finite. Branch-free over the exponent bits,
/// so that the check vectorizes.
#[inline]
pub(crate) fn finite<R: Dim, C: Dim>(
    x: &OMatrix<f64, R, C>,
    what: &'static str,
) -> Result<(), Error>
where
    DefaultAllocator: Allocator<R, C>,
{
    let non_finite = x.as_slice().iter().fold(0_u64, |acc, v| {
        acc | u64::from(v.to_bits() & EXPONENT == EXPONENT)
    });
    if non_finite == 0 {
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
/// of M, symmetry of M, finiteness of Q, A, b and C.
pub(crate) fn lagrangian_inputs<N: Dim, R: Dim>(
    mass_matrix: &OMatrix<f64, N, N>,
    generalized_force: &OVector<f64, N>,
    constraint_matrix: &OMatrix<f64, R, N>,
    constraint_rhs: &OVector<f64, R>,
    nonideal_force: Option<&OVector<f64, N>>,
    options: &Options,
) -> Result<(), Error>
where
    DefaultAllocator: KernelAllocator<N, R>,
{
    let n = generalized_force.len();
    shape(mass_matrix, (n, n), "mass matrix M")?;
    shape(
        constraint_matrix,
        (constraint_rhs.len(), n),
        "constraint matrix A",
    )?;
    if let Some(c) = nonideal_force {
        shape(c, (n, 1), "non-ideal force C")?;
    }
    options.validate()?;
    finite(mass_matrix, "mass matrix M")?;
    symmetric(mass_matrix, "mass matrix M")?;
    finite(generalized_force, "generalized force Q")?;
    finite(constraint_matrix, "constraint matrix A")?;
    finite(constraint_rhs, "constraint vector b")?;
    if let Some(c) = nonideal_force {
        finite(c, "non-ideal force C")?;
    }
    Ok(())
}
