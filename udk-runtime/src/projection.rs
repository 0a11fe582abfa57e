//! The constraint projection shared by the Lagrangian and Hamiltonian kernels:
//! x = a + K⁻¹Aᵀ(A K⁻¹ Aᵀ)⁺(b − A a), evaluated through a Cholesky factor K = L Lᵀ.
//!
//! With K = M this is the fundamental equation (Udwadia & Kalaba 1993, eq 17, rewritten by
//! X⁺ = Xᵀ(XXᵀ)⁺ so that no matrix square root appears); with K = H_pp and a = −H_q it is
//! the constrained Hamilton equation (Udwadia 2016, eq 36).
//!
//! With W = L⁻¹Aᵀ (n × m), A K⁻¹ Aᵀ = WᵀW and K⁻¹Aᵀ(AK⁻¹Aᵀ)⁺e = L⁻ᵀ W(WᵀW)⁺e = L⁻ᵀ(Wᵀ)⁺e.
//! - Fast path (A of full row rank, well separated): y = W (WᵀW)⁻¹ e by a Cholesky
//!   factorization of WᵀW = A K⁻¹ Aᵀ whose pivot ratios all exceed [`FAST_PATH_PIVOT`].
//! - General path (redundant or nearly redundant constraints): y = (Wᵀ)⁺ e, the
//!   pseudoinverse by SVD after scaling the rows of Wᵀ to unit norm (which leaves the
//!   solution of a consistent system unchanged and makes the rank test unit-free).
//!
//! Then x = a + L⁻ᵀy and the constraint force is Aᵀλ = L y. Allocation-free for fixed sizes.

use nalgebra::{DefaultAllocator, Dim, OMatrix, OVector};

use crate::cholesky::Cholesky;
use crate::pinv::{pinv_and_rank, Tolerance};
use crate::{Error, KernelAllocator, Options};

/// Relative pivot threshold below which K (the mass matrix, the augmented mass matrix or
/// H_pp) is treated as singular. Conservative on purpose: a rejected K falls through to the
/// augmented or SVD-based paths, which stay exact.
pub(crate) const FACTOR_TOLERANCE: f64 = 1e-8;

/// Smallest pivot ratio sin²θ of A K⁻¹ Aᵀ accepted on the fast path: rows within
/// θ ≈ 10⁻³ rad of the span of the others take the SVD path, whose rank test is accurate to
/// ε·cond(A M^-½) instead of ε·cond(A M^-½)².
pub(crate) const FAST_PATH_PIVOT: f64 = 1e-6;

/// Two n-vectors: (acceleration or momentum rate, constraint force).
pub(crate) type VectorPair<N> = (OVector<f64, N>, OVector<f64, N>);

/// Result of [`project`]; all n-vectors.
pub(crate) struct Projection<N: Dim>
where
    DefaultAllocator: nalgebra::allocator::Allocator<N>,
{
    /// x = a + K⁻¹Aᵀλ.
    pub(crate) acceleration: OVector<f64, N>,
    /// K⁻¹Aᵀλ, the change caused by the constraints.
    pub(crate) correction: OVector<f64, N>,
    /// Aᵀλ, the ideal constraint force acting on the system whose "mass" is K.
    pub(crate) force: OVector<f64, N>,
}

/// Applies the constraints A x = b to the unconstrained `a`, with the metric K given by its
/// Cholesky factor. Inconsistent constraints are reported, never returned as a
/// least-squares answer.
pub(crate) fn project<N: Dim, R: Dim>(
    k: &Cholesky<N>,
    a: OVector<f64, N>,
    constraint_matrix: &OMatrix<f64, R, N>,
    constraint_rhs: &OVector<f64, R>,
    options: &Options,
) -> Result<Projection<N>, Error>
where
    DefaultAllocator: KernelAllocator<N, R>,
{
    let mut w = constraint_matrix.transpose();
    k.solve_lower_mut(&mut w);
    let e = constraint_rhs - constraint_matrix * &a;
    let fast_tolerance = FAST_PATH_PIVOT.max(options.rank_tolerance().powi(2));
    let y = match Cholesky::new(w.tr_mul(&w), fast_tolerance) {
        Some(s) => &w * s.solve(&e),
        None => redundant(&w, &e, options)?,
    };
    let mut correction = y.clone();
    k.solve_upper_mut(&mut correction);
    // Scale of the terms whose rounding enters A x − b.
    let scale = constraint_matrix.norm() * (a.norm() + correction.norm()) + constraint_rhs.norm();
    let acceleration = a + &correction;
    if !acceleration.iter().all(|v| v.is_finite()) {
        return Err(Error::NonFinite {
            what: "constrained acceleration (overflow)",
        });
    }
    let residual = (constraint_matrix * &acceleration - constraint_rhs).norm();
    if residual > options.consistency_tolerance * scale {
        return Err(Error::InconsistentConstraints { residual });
    }
    let force = k.mul_lower(&y);
    Ok(Projection {
        acceleration,
        correction,
        force,
    })
}

/// y = (Wᵀ)⁺e with the rows of Wᵀ (one per constraint) scaled to unit norm.
fn redundant<N: Dim, R: Dim>(
    w: &OMatrix<f64, N, R>,
    e: &OVector<f64, R>,
    options: &Options,
) -> Result<OVector<f64, N>, Error>
where
    DefaultAllocator: KernelAllocator<N, R>,
{
    let mut wt = w.transpose();
    let mut e = e.clone();
    for i in 0..wt.nrows() {
        let norm = wt.row(i).norm();
        if norm > 0.0 {
            wt.row_mut(i).unscale_mut(norm);
            e[i] /= norm;
        }
    }
    let (wt_pinv, _) = pinv_and_rank(&wt, Tolerance::Relative(options.rank_tolerance()))?;
    Ok(wt_pinv * e)
}
