//! The Moore–Penrose inverse and the numerical rank, through a one-sided Jacobi singular
//! value decomposition.
//!
//! The functions are generic over nalgebra dimensions: they take `SMatrix` (fixed size, no
//! heap allocation) and `DMatrix` (dynamic size) alike.
//!
//! Why not nalgebra's `SVD`: with nalgebra 0.35 it loses accuracy on rank-deficient input
//! (U Σ Vᵀ misses A by up to 50 % for products X·Y of random 12 × r and r × 10 factors,
//! and in dimforge/nalgebra issue #1172), which is exactly the redundant-constraint input
//! this crate must handle. One-sided Jacobi (Hestenes) orthogonalizes the columns of A by
//! plane rotations; it is backward stable with high relative accuracy and needs no
//! bidiagonalization, so it also works for every fixed size including zero.

use nalgebra::allocator::Allocator;
use nalgebra::{DefaultAllocator, Dim, OMatrix, OVector, U1};

use crate::allocator::KernelAllocator;
use crate::{validate, Error};

/// Sweep cap of the Jacobi iteration; convergence is quadratic and takes ~6–10 sweeps.
const MAX_SWEEPS: usize = 100;

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

/// (U Σ, V) of a one-sided Jacobi SVD.
type JacobiSvd<R, C> = (OMatrix<f64, R, C>, OMatrix<f64, C, C>);

/// One-sided Jacobi on a tall matrix (rows ≥ cols): returns (U Σ, V) with A V = U Σ,
/// the columns of U Σ mutually orthogonal and V orthogonal.
fn jacobi<R: Dim, C: Dim>(a: &OMatrix<f64, R, C>) -> Result<JacobiSvd<R, C>, Error>
where
    DefaultAllocator: Allocator<R, C> + Allocator<C, C>,
{
    let (_, c) = a.shape_generic();
    let n = a.ncols();
    // Columns are orthogonal enough when |γ| ≤ √rows·ε·√(αβ) (LAPACK's criterion), and a
    // column of norm ≤ ε‖A‖_F is numerically zero and not rotated any more.
    let orthogonality = (a.nrows() as f64).sqrt() * f64::EPSILON;
    let negligible = (f64::EPSILON * a.norm()).powi(2);
    let mut w = a.clone();
    let mut v = OMatrix::identity_generic(c, c);
    for _ in 0..MAX_SWEEPS {
        let mut rotated = false;
        for p in 0..n {
            for q in p + 1..n {
                let alpha = w.column(p).norm_squared();
                let beta = w.column(q).norm_squared();
                let gamma = w.column(p).dot(&w.column(q));
                if alpha.min(beta) <= negligible
                    || gamma.abs() <= orthogonality * (alpha * beta).sqrt()
                {
                    continue;
                }
                rotated = true;
                let zeta = (beta - alpha) / (2.0 * gamma);
                let t = zeta.signum() / (zeta.abs() + zeta.hypot(1.0));
                let cos = 1.0 / t.hypot(1.0);
                let sin = cos * t;
                rotate(&mut w, p, q, cos, sin);
                rotate(&mut v, p, q, cos, sin);
            }
        }
        if !rotated {
            return Ok((w, v));
        }
    }
    Err(Error::NoConvergence { what: "Jacobi SVD" })
}

/// Columns (p, q) ← (c·p − s·q, s·p + c·q).
fn rotate<R: Dim, C: Dim>(x: &mut OMatrix<f64, R, C>, p: usize, q: usize, cos: f64, sin: f64)
where
    DefaultAllocator: Allocator<R, C>,
{
    for i in 0..x.nrows() {
        let (xp, xq) = (x[(i, p)], x[(i, q)]);
        x[(i, p)] = cos * xp - sin * xq;
        x[(i, q)] = sin * xp + cos * xq;
    }
}

/// A pseudoinverse with what its rank decision saw.
pub(crate) struct RankedPinv<C: Dim, R: Dim>
where
    DefaultAllocator: Allocator<C, R>,
{
    /// A⁺ (columns × rows of A).
    pub(crate) pinv: OMatrix<f64, C, R>,
    /// The numerical rank: singular values above the cutoff.
    pub(crate) rank: usize,
    /// σ_min/σ_max over the singular values kept (1 when none is kept): how close the
    /// smallest kept singular value came to the cutoff.
    pub(crate) weakest: f64,
}

/// A⁺ = Σ_{σⱼ > cutoff} vⱼ (σⱼuⱼ)ᵀ / σⱼ², the rank and the weakest kept σ, for a tall
/// finite matrix.
fn pinv_and_rank_tall<R: Dim, C: Dim>(
    a: &OMatrix<f64, R, C>,
    tolerance: Tolerance,
) -> Result<RankedPinv<C, R>, Error>
where
    DefaultAllocator: Allocator<R, C> + Allocator<C, R> + Allocator<C, C> + Allocator<C>,
{
    let (w, v) = jacobi(a)?;
    let (r, c) = a.shape_generic();
    let sigma2 = OVector::<f64, C>::from_fn_generic(c, U1, |j, _| w.column(j).norm_squared());
    let largest = sigma2.max().sqrt();
    let cutoff = tolerance.cutoff(a.nrows(), a.ncols(), largest)?;
    let mut p = OMatrix::zeros_generic(c, r);
    let mut rank = 0;
    let mut weakest: f64 = 1.0;
    for (j, s2) in sigma2.iter().enumerate() {
        if s2.sqrt() > cutoff {
            rank += 1;
            weakest = weakest.min(s2.sqrt() / largest);
            p.ger(1.0 / s2, &v.column(j), &w.column(j), 1.0);
        }
    }
    Ok(RankedPinv {
        pinv: p,
        rank,
        weakest,
    })
}

/// A⁺ and the numerical rank of A from one SVD (of A or Aᵀ, whichever is tall). The bound
/// is the kernels' storage with n = c columns and m = r rows; the public [`pinv`] and
/// [`rank`] spell it out because a crate-private trait cannot bound a public function.
pub(crate) fn pinv_and_rank<R: Dim, C: Dim>(
    a: &OMatrix<f64, R, C>,
    tolerance: Tolerance,
) -> Result<(OMatrix<f64, C, R>, usize), Error>
where
    DefaultAllocator: KernelAllocator<C, R>,
{
    ranked_pinv(a, tolerance).map(|p| (p.pinv, p.rank))
}

/// [`pinv_and_rank`] with the weakest kept singular value ([`RankedPinv`]).
pub(crate) fn ranked_pinv<R: Dim, C: Dim>(
    a: &OMatrix<f64, R, C>,
    tolerance: Tolerance,
) -> Result<RankedPinv<C, R>, Error>
where
    DefaultAllocator: KernelAllocator<C, R>,
{
    validate::finite(a, "matrix")?;
    if a.nrows() >= a.ncols() {
        pinv_and_rank_tall(a, tolerance)
    } else {
        let p = pinv_and_rank_tall(&a.transpose(), tolerance)?;
        Ok(RankedPinv {
            pinv: p.pinv.transpose(),
            rank: p.rank,
            weakest: p.weakest,
        })
    }
}

/// Moore–Penrose inverse A⁺ of an r × c matrix A (Penrose 1955; the "MP inverse" of every
/// paper in `../shared/papers`): the c × r matrix V Σ⁺ Uᵀ of a singular value
/// decomposition A = U Σ Vᵀ.
///
/// Singular values σ ≤ `tolerance` (absolute) count as zero; `None` uses max(r, c)·ε·σ_max.
/// Works for `SMatrix` (no allocation) and `DMatrix`; an empty matrix gives the empty
/// transpose-shaped matrix.
///
/// # Errors
/// `NonFinite` for NaN/∞ entries, `InvalidOption` for a negative or non-finite tolerance,
/// `NoConvergence` if the Jacobi iteration does not converge (not observed in practice).
pub fn pinv<R: Dim, C: Dim>(
    a: &OMatrix<f64, R, C>,
    tolerance: Option<f64>,
) -> Result<OMatrix<f64, C, R>, Error>
where
    DefaultAllocator: Allocator<R, C>
        + Allocator<C, R>
        + Allocator<C, C>
        + Allocator<R, R>
        + Allocator<C>
        + Allocator<R>,
{
    pinv_and_rank(a, Tolerance::absolute(tolerance)).map(|(p, _)| p)
}

/// Numerical rank of A: the number of singular values above `tolerance` (absolute;
/// `None` uses max(r, c)·ε·σ_max, as [`pinv`]).
///
/// # Errors
/// As [`pinv`].
pub fn rank<R: Dim, C: Dim>(a: &OMatrix<f64, R, C>, tolerance: Option<f64>) -> Result<usize, Error>
where
    DefaultAllocator: Allocator<R, C>
        + Allocator<C, R>
        + Allocator<C, C>
        + Allocator<R, R>
        + Allocator<C>
        + Allocator<R>,
{
    pinv_and_rank(a, Tolerance::absolute(tolerance)).map(|(_, r)| r)
}

/// Moore–Penrose inverse of a symmetric n × n matrix S, returned exactly symmetric; the
/// tolerance is as in [`pinv`]. This is the pseudoinverse (A M⁻¹ Aᵀ)⁺ of the fundamental
/// equation (Udwadia & Kalaba 1993, eq 17 with X⁺ = Xᵀ(XXᵀ)⁺) and (A_p H_pp⁻¹ A_pᵀ)⁺ of
/// Udwadia 2016, eq 36.
///
/// # Errors
/// `NonFinite`, `NotSymmetric`, `InvalidOption` (bad tolerance), `NoConvergence`.
pub fn pinv_symmetric<D: Dim>(
    s: &OMatrix<f64, D, D>,
    tolerance: Option<f64>,
) -> Result<OMatrix<f64, D, D>, Error>
where
    DefaultAllocator: Allocator<D, D> + Allocator<D>,
{
    validate::finite(s, "symmetric matrix")?;
    validate::symmetric(s, "symmetric matrix")?;
    let p = pinv(s, tolerance)?;
    Ok((&p + p.transpose()) * 0.5)
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
