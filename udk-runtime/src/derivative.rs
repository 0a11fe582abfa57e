//! The linear algebra of the exact derivative of the constrained motion (see
//! [`crate::jacobian`] for the method and its sources): the metric M = L D Lᵀ factored once
//! per state, B = D^-½ L⁻¹ Aᵀ with unit columns, and (Bᵀ)⁺ by the kernels' SVD, so that
//!
//! dv/dx = −L⁻ᵀD^-½ (J̃ + (Bᵀ)⁺ (S J_g − Bᵀ J̃)),  J̃ = D^-½ L⁻¹ J_r,
//!
//! which is −M⁻¹(J_r + AᵀK⁺(J_g − AM⁻¹J_r)) with K = A M⁻¹ Aᵀ, without forming K⁺. Without
//! constraints (m = 0) this is −M⁻¹J_r, and the blocks ∂/∂q, ∂/∂q̇, ∂/∂u are multiplied by
//! one M⁻¹ formed from the factor (or solved row-wise where M⁻¹'s diagonal blocks are small).
//! Generic over nalgebra dimensions: no heap allocation for fixed sizes.

use nalgebra::allocator::Allocator;
use nalgebra::{DefaultAllocator, Dim, OMatrix, OVector, U1};

use crate::allocator::KernelAllocator;
use crate::cholesky::Cholesky;
use crate::pinv::{ranked_pinv, Tolerance};
use crate::projection::FAST_PATH_PIVOT;
use crate::{validate, Error, Options};

/// What a rank change is reported on.
const CONSTRAINT_MATRIX: &str = "constraint matrix A";
/// What a non-finite J_r is reported as.
const RESIDUAL_JACOBIAN: &str = "∂r (residual Jacobian)";
/// What a non-finite derivative is reported as.
const OVERFLOW: &str = "derivative of the motion (overflow)";

/// The constraint side of the derivative at one state, for n coordinates (`N`) and m
/// constraints (`R`).
pub(crate) struct Projector<N: Dim, R: Dim>
where
    DefaultAllocator: KernelAllocator<N, R>,
{
    factor: Cholesky<N>,
    /// D^-½, n entries.
    root_inverse_pivots: OVector<f64, N>,
    /// B with columns scaled to unit norm, n × m.
    b: OMatrix<f64, N, R>,
    /// The column scales S (1/‖column‖ of D^-½ L⁻¹ Aᵀ, 1 for a zero column), m entries.
    scale: OVector<f64, R>,
    /// (Bᵀ)⁺, n × m.
    pinv_t: OMatrix<f64, N, R>,
    /// Relative tolerance of the range test of [`Projector::derivative`].
    consistency: f64,
}

impl<N: Dim, R: Dim> Projector<N, R>
where
    DefaultAllocator: KernelAllocator<N, R>,
{
    /// The projector of the metric `factor` (M or the augmented M̃) and the constraints `a`
    /// (m × n).
    ///
    /// # Errors
    /// `RankChange` when a kept singular value of B lies at or below √τ·σ_max, τ the rank
    /// tolerance of `options` (the rank of A is numerically ambiguous); `NoConvergence` from
    /// the SVD.
    pub(crate) fn new(
        factor: Cholesky<N>,
        a: &OMatrix<f64, R, N>,
        options: &Options,
    ) -> Result<Self, Error> {
        let root_inverse_pivots = factor.inverse_pivots().map(f64::sqrt);
        let mut b = a.transpose();
        factor.solve_factor_mut(&mut b);
        let (_, r) = b.shape_generic();
        let mut scale = OVector::<f64, R>::repeat_generic(r, U1, 1.0);
        for (mut column, s) in b.column_iter_mut().zip(scale.iter_mut()) {
            column.component_mul_assign(&root_inverse_pivots);
            let norm = column.norm();
            if norm > 0.0 {
                column.unscale_mut(norm);
                *s = 1.0 / norm;
            }
        }
        let tau = options.rank_tolerance();
        let pinv_t = match full_row_rank(&b, tau) {
            Some(pinv_t) => pinv_t,
            None if b.iter().all(|v| *v == 0.0) => b.clone(),
            None => {
                let ranked = ranked_pinv(&b.transpose(), Tolerance::Relative(tau))?;
                if ranked.rank > 0 && ranked.weakest <= tau.sqrt() {
                    return Err(Error::RankChange {
                        what: CONSTRAINT_MATRIX,
                    });
                }
                ranked.pinv
            }
        };
        Ok(Self {
            factor,
            root_inverse_pivots,
            b,
            scale,
            pinv_t,
            consistency: options.consistency_tolerance,
        })
    }

    /// The multipliers λ (m entries) with Aᵀλ = `force`, which must lie in range(Aᵀ):
    /// λ = S ((Bᵀ)⁺)ᵀ D^-½ L⁻¹ force.
    pub(crate) fn multipliers(&self, force: &OVector<f64, N>) -> OVector<f64, R> {
        let mut whitened = force.clone();
        self.factor.solve_factor_vector_mut(&mut whitened);
        whitened.component_mul_assign(&self.root_inverse_pivots);
        self.pinv_t.tr_mul(&whitened).component_mul(&self.scale)
    }

    /// Overwrites the block of columns `j` (J_r, n × c) with dv/dx = −M⁻¹(J_r + AᵀK⁺(J_g −
    /// AM⁻¹J_r)), J_g (`j_g`) m × c. In place: the blocks are large (n × n for ∂/∂q of an
    /// n-joint robot). With m = 0 the derivative is −L⁻ᵀD⁻¹L⁻¹J_r, one pass over the
    /// rows that skips the zeros of L.
    ///
    /// # Errors
    /// `RankChange` when S J_g − BᵀJ̃ has a part off range(Bᵀ) above the consistency
    /// tolerance relative to its terms (the rank of A changes at this state); `NonFinite`
    /// when J_r or J_g is not finite or the derivative overflows.
    pub(crate) fn derivative_mut<C: Dim>(
        &self,
        j: &mut OMatrix<f64, N, C>,
        j_g: &OMatrix<f64, R, C>,
    ) -> Result<(), Error>
    where
        DefaultAllocator: Allocator<N, C> + Allocator<C, N> + Allocator<R, C>,
    {
        validate::finite(j, RESIDUAL_JACOBIAN)?;
        validate::finite(j_g, "∂g (residual Jacobian)")?;
        if j_g.nrows() == 0 {
            self.factor.solve_scaled_mut(j, -1.0);
        } else {
            // J̃ = D^-½ L⁻¹ J_r, then −L⁻ᵀ D^-½ (J̃ + (Bᵀ)⁺ (S J_g − Bᵀ J̃)).
            self.factor.solve_factor_mut(j);
            for mut column in j.column_iter_mut() {
                column.component_mul_assign(&self.root_inverse_pivots);
            }
            let mut scaled_g = j_g.clone();
            for mut column in scaled_g.column_iter_mut() {
                column.component_mul_assign(&self.scale);
            }
            let projected = self.b.tr_mul(j);
            let target = scaled_g - &projected;
            let step = &self.pinv_t * &target;
            let off_range = (&target - self.b.tr_mul(&step)).norm();
            if off_range > self.consistency * (target.norm() + projected.norm()) {
                return Err(Error::RankChange {
                    what: CONSTRAINT_MATRIX,
                });
            }
            *j += step;
            let negative_root = -&self.root_inverse_pivots;
            for mut column in j.column_iter_mut() {
                column.component_mul_assign(&negative_root);
            }
            self.factor.solve_factor_transpose_mut(j);
        }
        validate::finite(j, OVERFLOW)
    }

    /// [`Projector::derivative_mut`] of the three blocks (J_r, J_g) = (`q`, `g_q`),
    /// (`qd`, `g_qd`), (`u`, `g_u`) of ∂/∂q, ∂/∂q̇ and ∂/∂u (n × c₁, n × c₂, n × c₃ and
    /// m × c₁, m × c₂, m × c₃). With m = 0 the three −M⁻¹J_r are formed together
    /// ([`Cholesky::solve_scaled_blocks_mut`]: M⁻¹ once, then its products with the
    /// columns, unless M⁻¹'s diagonal blocks are small); with constraints block by block.
    ///
    /// # Errors
    /// As [`Projector::derivative_mut`].
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn derivatives_mut<C1: Dim, C2: Dim, C3: Dim>(
        &self,
        q: &mut OMatrix<f64, N, C1>,
        g_q: &OMatrix<f64, R, C1>,
        qd: &mut OMatrix<f64, N, C2>,
        g_qd: &OMatrix<f64, R, C2>,
        u: &mut OMatrix<f64, N, C3>,
        g_u: &OMatrix<f64, R, C3>,
    ) -> Result<(), Error>
    where
        DefaultAllocator: Allocator<N, C1>
            + Allocator<C1, N>
            + Allocator<R, C1>
            + Allocator<N, C2>
            + Allocator<C2, N>
            + Allocator<R, C2>
            + Allocator<N, C3>
            + Allocator<C3, N>
            + Allocator<R, C3>,
    {
        if g_q.nrows() > 0 {
            self.derivative_mut(q, g_q)?;
            self.derivative_mut(qd, g_qd)?;
            return self.derivative_mut(u, g_u);
        }
        validate::finite(q, RESIDUAL_JACOBIAN)?;
        validate::finite(qd, RESIDUAL_JACOBIAN)?;
        validate::finite(u, RESIDUAL_JACOBIAN)?;
        self.factor.solve_scaled_blocks_mut(q, qd, u, -1.0);
        validate::finite(q, OVERFLOW)?;
        validate::finite(qd, OVERFLOW)?;
        validate::finite(u, OVERFLOW)
    }
}

/// (Bᵀ)⁺ = B (BᵀB)⁻¹ when B (n × m, unit columns) clearly has full column rank, without an
/// SVD: the Gram matrix G = BᵀB factors (pivot ratios above the kernels' fast-path
/// threshold) and its eigenvalues are provably outside the ambiguous band,
/// λ_min/λ_max ≥ 1/(m ‖G⁻¹‖_F) > τ (λ_max ≤ trace G = m, λ_min ≥ 1/‖G⁻¹‖_F), i.e.
/// σ_min/σ_max > √τ for the singular values of B. `None` otherwise (and for m = 0 no work is
/// needed: the empty matrix is returned).
fn full_row_rank<N: Dim, R: Dim>(b: &OMatrix<f64, N, R>, tau: f64) -> Option<OMatrix<f64, N, R>>
where
    DefaultAllocator: KernelAllocator<N, R>,
{
    let m = b.ncols();
    if m == 0 {
        return Some(b.clone());
    }
    let gram = b.tr_mul(b);
    let factor = Cholesky::new(gram, FAST_PATH_PIVOT.max(tau * tau))?;
    let (_, r) = b.shape_generic();
    let mut inverse = OMatrix::<f64, R, R>::identity_generic(r, r);
    factor.solve_scaled_mut(&mut inverse, 1.0);
    let bound = 1.0 / (m as f64 * inverse.norm());
    (bound > tau).then(|| b * inverse)
}
