//! Input checks shared by the kernels: finiteness, symmetry, shapes.

use nalgebra::{Dim, Matrix, RawStorage};

use crate::Error;

/// Largest accepted |Xᵢⱼ − Xⱼᵢ| relative to max |Xᵢⱼ| for a "symmetric" matrix.
const SYMMETRY_TOLERANCE: f64 = 1e-10;

/// `Err(NonFinite)` unless every entry of `x` is finite.
pub(crate) fn finite<R: Dim, C: Dim, S: RawStorage<f64, R, C>>(
    x: &Matrix<f64, R, C, S>,
    what: &'static str,
) -> Result<(), Error> {
    if x.iter().all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(Error::NonFinite { what })
    }
}

/// `Err(NotSymmetric)` unless the square matrix `x` is symmetric up to rounding.
pub(crate) fn symmetric<D: Dim, S: RawStorage<f64, D, D>>(
    x: &Matrix<f64, D, D, S>,
    what: &'static str,
) -> Result<(), Error> {
    let scale = x.iter().fold(0.0_f64, |acc, v| acc.max(v.abs()));
    let n = x.nrows();
    for j in 0..n {
        for i in j + 1..n {
            if (x[(i, j)] - x[(j, i)]).abs() > SYMMETRY_TOLERANCE * scale {
                return Err(Error::NotSymmetric { what });
            }
        }
    }
    Ok(())
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
