//! The constraint projection shared by the Lagrangian and Hamiltonian kernels:
//! x = a + K⁻¹Aᵀ(A K⁻¹ Aᵀ)⁺(b − A a), evaluated through a Cholesky factor of K.
//!
//! With K = M this is the fundamental equation (Udwadia & Kalaba 1993, eq 17, rewritten by
//! X⁺ = Xᵀ(XXᵀ)⁺ so that no matrix square root appears); with K = H_pp and a = −H_q it is
//! the constrained Hamilton equation (Udwadia 2016, eq 36).

use nalgebra::{DefaultAllocator, Dim, OMatrix, OVector};

use crate::cholesky::SemidefiniteCholesky;
use crate::{Error, KernelAllocator, Options};

/// Relative pivot threshold below which K (the mass matrix, the augmented mass matrix or
/// H_pp) is treated as singular. Conservative on purpose: a rejected K falls through to the
/// augmented or SVD-based paths, which stay exact.
pub(crate) const FACTOR_TOLERANCE: f64 = 1e-8;

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
/// Cholesky factor (`k` must be full rank).
///
/// λ solves (A K⁻¹ Aᵀ) λ = b − A a. When A has full row rank this is a plain Cholesky
/// solve (the fast path). Redundant rows are detected by the relative pivot test of
/// [`SemidefiniteCholesky`] and receive λᵢ = 0; since Aᵀλ is the same for every solution
/// λ of a consistent system, K⁻¹Aᵀλ equals K⁻¹Aᵀ(A K⁻¹ Aᵀ)⁺(b − A a) exactly.
/// Inconsistent constraints are reported, never returned as a least-squares answer.
pub(crate) fn project<N: Dim, R: Dim>(
    k: &SemidefiniteCholesky<N>,
    a: OVector<f64, N>,
    constraint_matrix: &OMatrix<f64, R, N>,
    constraint_rhs: &OVector<f64, R>,
    options: &Options,
) -> Result<Projection<N>, Error>
where
    DefaultAllocator: KernelAllocator<N, R>,
{
    // W = L⁻¹Aᵀ, so A K⁻¹ Aᵀ = Wᵀ W.
    let mut w = constraint_matrix.transpose();
    k.solve_lower_mut(&mut w);
    let s = w.tr_mul(&w);
    let e = constraint_rhs - constraint_matrix * &a;
    let lambda = SemidefiniteCholesky::new(s, options.pivot_tolerance()).solve(&e);
    let mut correction = &w * &lambda;
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
    let force = constraint_matrix.tr_mul(&lambda);
    Ok(Projection {
        acceleration,
        correction,
        force,
    })
}
