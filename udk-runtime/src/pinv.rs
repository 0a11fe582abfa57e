//! The Moore–Penrose inverse and the numerical rank, through nalgebra's SVD (and a symmetric
//! eigendecomposition for symmetric matrices).
//!
//! The functions are generic over nalgebra dimensions: they take `SMatrix` (fixed size, no
//! heap allocation) and `DMatrix` (dynamic size) alike.

use nalgebra::allocator::Allocator;
use nalgebra::{
    DefaultAllocator, Dim, DimDiff, DimMin, DimMinimum, DimSub, OMatrix, SymmetricEigen, SVD, U1,
};

use crate::{validate, Error};

/// Iteration cap of the SVD and eigen solvers; reached only on pathological input.
const MAX_ITERATIONS: usize = 10_000;

/// How singular values (or eigenvalues) are declared zero.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Tolerance {
    /// σ ≤ t.
    Absolute(f64),
    /// σ ≤ t·σ_max.
    Relative(f64),
    /// σ ≤ max(rows, cols)·ε·σ_max.
    Default,
}

impl Tolerance {
    fn absolute(tolerance: Option<f64>) -> Self {
        tolerance.map_or(Self::Default, Self::Absolute)
    }

    /// The kernels' relative tolerance ([`Options::tolerance`](crate::Options::tolerance)).
    pub(crate) fn relative(tolerance: Option<f64>) -> Self {
        tolerance.map_or(Self::Default, Self::Relative)
    }

    /// The absolute cutoff for a rows × cols matrix whose largest singular value is `largest`.
    fn cutoff(self, rows: usize, cols: usize, largest: f64) -> Result<f64, Error> {
        let (t, scale) = match self {
            Self::Absolute(t) => (t, 1.0),
            Self::Relative(t) => (t, largest),
            Self::Default => (rows.max(cols) as f64 * f64::EPSILON, largest),
        };
        if t.is_finite() && t >= 0.0 {
            Ok(t * scale)
        } else {
            Err(Error::InvalidOption {
                what: "pseudoinverse tolerance must be finite and non-negative",
            })
        }
    }
}

/// A singular value decomposition of a finite matrix with both singular-vector sets.
fn svd<R: DimMin<C>, C: Dim>(a: &OMatrix<f64, R, C>) -> Result<SVD<f64, R, C>, Error>
where
    DimMinimum<R, C>: DimSub<U1>,
    DefaultAllocator: Allocator<R, C>
        + Allocator<C>
        + Allocator<R>
        + Allocator<DimDiff<DimMinimum<R, C>, U1>>
        + Allocator<DimMinimum<R, C>, C>
        + Allocator<R, DimMinimum<R, C>>
        + Allocator<DimMinimum<R, C>>,
{
    validate::finite(a, "matrix")?;
    SVD::try_new(a.clone(), true, true, 5.0 * f64::EPSILON, MAX_ITERATIONS)
        .ok_or(Error::NoConvergence { what: "SVD" })
}

/// Moore–Penrose inverse A⁺ of an r × c matrix A (Penrose 1955; the "MP inverse" of every
/// paper in `../shared/papers`), as the c × r matrix V Σ⁺ Uᵀ.
///
/// Singular values σ ≤ `tolerance` (absolute) count as zero. `None` uses
/// max(r, c)·ε·σ_max. Works for `SMatrix` (no allocation) and `DMatrix`; an empty matrix
/// gives the empty (or zero) transpose-shaped matrix.
///
/// # Errors
/// `NonFinite` for NaN/∞ entries, `InvalidOption` for a negative or non-finite tolerance,
/// `NoConvergence` if the SVD fails to converge.
pub fn pinv<R: DimMin<C>, C: Dim>(
    a: &OMatrix<f64, R, C>,
    tolerance: Option<f64>,
) -> Result<OMatrix<f64, C, R>, Error>
where
    DimMinimum<R, C>: DimSub<U1>,
    DefaultAllocator: Allocator<R, C>
        + Allocator<C, R>
        + Allocator<C>
        + Allocator<R>
        + Allocator<DimDiff<DimMinimum<R, C>, U1>>
        + Allocator<DimMinimum<R, C>, C>
        + Allocator<R, DimMinimum<R, C>>
        + Allocator<DimMinimum<R, C>>,
{
    pinv_and_rank(a, Tolerance::absolute(tolerance)).map(|(p, _)| p)
}

/// A⁺ and the numerical rank of A from one SVD.
pub(crate) fn pinv_and_rank<R: DimMin<C>, C: Dim>(
    a: &OMatrix<f64, R, C>,
    tolerance: Tolerance,
) -> Result<(OMatrix<f64, C, R>, usize), Error>
where
    DimMinimum<R, C>: DimSub<U1>,
    DefaultAllocator: Allocator<R, C>
        + Allocator<C, R>
        + Allocator<C>
        + Allocator<R>
        + Allocator<DimDiff<DimMinimum<R, C>, U1>>
        + Allocator<DimMinimum<R, C>, C>
        + Allocator<R, DimMinimum<R, C>>
        + Allocator<DimMinimum<R, C>>,
{
    let (r, c) = a.shape_generic();
    if a.nrows() == 0 || a.ncols() == 0 {
        validate::finite(a, "matrix")?;
        return Ok((OMatrix::zeros_generic(c, r), 0));
    }
    let svd = svd(a)?;
    let largest = svd.singular_values.max();
    let eps = tolerance.cutoff(a.nrows(), a.ncols(), largest)?;
    let rank = svd.rank(eps);
    let p = svd
        .pseudo_inverse(eps)
        .map_err(|_| Error::NoConvergence { what: "SVD" })?;
    Ok((p, rank))
}

/// Numerical rank of A: the number of singular values above `tolerance` (absolute;
/// `None` uses max(r, c)·ε·σ_max, as [`pinv`]).
///
/// # Errors
/// As [`pinv`].
pub fn rank<R: DimMin<C>, C: Dim>(
    a: &OMatrix<f64, R, C>,
    tolerance: Option<f64>,
) -> Result<usize, Error>
where
    DimMinimum<R, C>: DimSub<U1>,
    DefaultAllocator: Allocator<R, C>
        + Allocator<C>
        + Allocator<R>
        + Allocator<DimDiff<DimMinimum<R, C>, U1>>
        + Allocator<DimMinimum<R, C>, C>
        + Allocator<R, DimMinimum<R, C>>
        + Allocator<DimMinimum<R, C>>,
{
    if a.nrows() == 0 || a.ncols() == 0 {
        validate::finite(a, "matrix")?;
        return Ok(0);
    }
    let svd = svd(a)?;
    let largest = svd.singular_values.max();
    let eps = Tolerance::absolute(tolerance).cutoff(a.nrows(), a.ncols(), largest)?;
    Ok(svd.rank(eps))
}

/// Moore–Penrose inverse of a symmetric n × n matrix S through its eigendecomposition
/// S = V Λ Vᵀ: S⁺ = V Λ⁺ Vᵀ, with eigenvalues |λ| ≤ `tolerance` (absolute; `None`:
/// n·ε·max|λ|) treated as zero. This is the pseudoinverse (A M⁻¹ Aᵀ)⁺ of the fundamental
/// equation (Udwadia & Kalaba 1993, eq 17 with X⁺ = Xᵀ(XXᵀ)⁺) and (A_p H_pp⁻¹ A_pᵀ)⁺ of
/// Udwadia 2016, eq 36.
///
/// # Errors
/// `NonFinite`, `NotSymmetric`, `InvalidOption` (bad tolerance), `NoConvergence`.
pub fn pinv_symmetric<D: DimSub<U1>>(
    s: &OMatrix<f64, D, D>,
    tolerance: Option<f64>,
) -> Result<OMatrix<f64, D, D>, Error>
where
    DefaultAllocator: Allocator<D, D> + Allocator<D> + Allocator<DimDiff<D, U1>>,
{
    validate::finite(s, "symmetric matrix")?;
    validate::symmetric(s, "symmetric matrix")?;
    let eigen = SymmetricEigen::try_new(s.clone(), f64::EPSILON, MAX_ITERATIONS).ok_or(
        Error::NoConvergence {
            what: "symmetric eigendecomposition",
        },
    )?;
    let largest = eigen.eigenvalues.amax();
    let eps = Tolerance::absolute(tolerance).cutoff(s.nrows(), s.ncols(), largest)?;
    let inverted = eigen
        .eigenvalues
        .map(|l| if l.abs() > eps { 1.0 / l } else { 0.0 });
    let v = &eigen.eigenvectors;
    Ok(v * OMatrix::from_diagonal(&inverted) * v.transpose())
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{dmatrix, matrix, DMatrix};

    #[test]
    fn pinv_of_row_vector_matches_closed_form() {
        // Udwadia & Phohomsiri 2006, eq 5.37: [1 −1 0]⁺ = ½ [1 −1 0]ᵀ.
        let a = matrix![1.0, -1.0, 0.0];
        let p = pinv(&a, None).unwrap();
        assert!((p - matrix![0.5; -0.5; 0.0]).norm() < 1e-15);
    }

    #[test]
    fn pinv_of_full_row_rank_matches_eq_5_44() {
        let (k1, k2) = (3.0, 5.0);
        let a = dmatrix![1.0, -1.0, 0.0; k1, 0.0, -k2];
        let d = k1 * k1 + 2.0 * k2 * k2;
        let expected = dmatrix![k2 * k2, k1; -(k1 * k1 + k2 * k2), k1; k1 * k2, -2.0 * k2] / d;
        assert!((pinv(&a, None).unwrap() - expected).norm() < 1e-14);
    }

    #[test]
    fn rank_counts_independent_rows() {
        let a = dmatrix![1.0, 2.0; 2.0, 4.0; 0.0, 0.0];
        assert_eq!(rank(&a, None).unwrap(), 1);
        assert_eq!(rank(&DMatrix::<f64>::zeros(0, 3), None).unwrap(), 0);
    }

    #[test]
    fn explicit_tolerance_drops_small_singular_values() {
        let a = matrix![1.0, 0.0; 0.0, 1e-6];
        assert_eq!(rank(&a, Some(1e-5)).unwrap(), 1);
        assert!((pinv(&a, Some(1e-5)).unwrap() - matrix![1.0, 0.0; 0.0, 0.0]).norm() < 1e-15);
        assert!(matches!(
            pinv(&a, Some(-1.0)),
            Err(Error::InvalidOption { .. })
        ));
    }

    #[test]
    fn symmetric_pinv_of_rank_one_matrix() {
        let s = matrix![1.0, 1.0; 1.0, 1.0];
        let p = pinv_symmetric(&s, None).unwrap();
        assert!((p - matrix![0.25, 0.25; 0.25, 0.25]).norm() < 1e-15);
        assert!(matches!(
            pinv_symmetric(&matrix![1.0, 2.0; 0.0, 1.0], None),
            Err(Error::NotSymmetric { .. })
        ));
    }

    #[test]
    fn non_finite_input_is_an_error() {
        let a = dmatrix![1.0, f64::NAN];
        assert!(matches!(pinv(&a, None), Err(Error::NonFinite { .. })));
    }
}
