//! Exact derivatives of the constrained motion: the Jacobian of the Udwadia–Kalaba
//! acceleration q̈(q, q̇, u, t) with respect to q, q̇ and the inputs u, and of the constrained
//! Hamilton equations (q̇, ṗ)(q, p, t) with respect to q and p.
//!
//! # Method
//! Generated code supplies the Jacobians of two residuals, with the acceleration v and the
//! multipliers λ held fixed (so that no n × n × n tensor ∂M/∂q is ever formed):
//!
//! - r(x; v, λ) = M v − Q − C − Aᵀλ (n entries), and
//! - g(x; v) = A v − b (m entries),
//!
//! each differentiated with respect to x = q, q̇ or u ([`ResidualJacobians`]). At the motion,
//! r = 0 and g = 0 with v = q̈ and Aᵀλ = Qᶜ − C, the ideal part of the constraint force.
//! Differentiating both (the implicit function theorem on the KKT system M v − Aᵀλ = Q + C,
//! A v = b) gives, for positive definite M and K = A M⁻¹ Aᵀ:
//!
//! dq̈/dx = −M⁻¹ (J_r + Aᵀ K⁺ (J_g − A M⁻¹ J_r)),  J_r = ∂r/∂x, J_g = ∂g/∂x.
//!
//! With A of full row rank K⁺ = K⁻¹ and this is the derivative of the KKT solution. With
//! redundant constraints at constant rank (Golub & Pereyra 1973, Theorem 4.3: the
//! pseudoinverse is differentiable exactly where the rank is locally constant) it still holds:
//! - the left null vectors w of A (wᵀA = 0, wᵀb = 0 on a consistent model) can be chosen
//!   differentiable, and differentiating wᵀ(A q̈ − b) = 0 gives wᵀJ_g = −ẇᵀ(A q̈ − b) = 0, so
//!   K dλ = A M⁻¹ J_r − J_g is solvable and K⁺ gives one solution;
//! - λ is then unique only up to null(Aᵀ); changing it by w changes J_r by −(∂Aᵀ/∂x)w =
//!   Aᵀ(∂w/∂x), which lies in range(Aᵀ) and is removed again by the projection
//!   (I − AᵀK⁺AM⁻¹)Aᵀ = Aᵀ(I − K⁺K) = 0, so dq̈/dx does not depend on the choice (the terms
//!   of d(K⁺) outside range(K) lie in null(Aᵀ) and drop out).
//!
//! A singular M goes through the augmented mass matrix M̃ = M + α²AᵀGA and force
//! Q̃ = Q + α²AᵀGb (Udwadia & Wanichanon 2013, eqs 3.8, 3.18), as [`crate::acceleration`]
//! does: r̃ = M̃v − Q̃ − C − Aᵀλ = r + α²AᵀG g, so at g = 0 its Jacobian is
//! J_r̃ = J_r + α²AᵀG J_g, and the formula applies with M̃ and J_r̃ (same λ, since
//! M̃q̈ − Q̃ = M q̈ − Q on A q̈ = b). The added term needs no computing: any J_r + Aᵀy gives
//! the same derivative, because −M̃⁻¹(Aᵀy − AᵀK̃⁺AM̃⁻¹Aᵀy) = −M̃⁻¹Aᵀ(I − K̃⁺K̃)y = 0
//! (I − K̃⁺K̃ projects onto null(K̃) = null(Aᵀ)); so its sign does not matter either. Here G
//! is the identity on the row-equilibrated A (rows scaled by powers of two to
//! max |Aᵢⱼ| ∈ [1, 2)) and α = [`Options::alpha`]; the derivative, like q̈ (ibid.,
//! Remark 1), depends on neither.
//!
//! The products are formed as in the kernels' rank-revealing path: with M = L D Lᵀ and
//! B = D^-½ L⁻¹ Aᵀ, columns scaled to unit norm by S⁻¹, dq̈/dx = −L⁻ᵀD^-½ (J̃ + (Bᵀ)⁺ (S J_g −
//! Bᵀ J̃)) with J̃ = D^-½ L⁻¹ J_r, so K⁺ is never formed and the rank decision is the
//! kernels' (singular values of B at or below τ·σ_max are zero, τ = [`Options::tolerance`]).
//!
//! # Where the derivative does not exist
//! [`Error::RankChange`] instead of a number when
//! - a kept singular value of B lies at or below √τ·σ_max (default 1e-5): the rank of A is
//!   numerically ambiguous;
//! - S J_g − BᵀJ̃ has a part off range(Bᵀ) above [`Options::consistency_tolerance`] relative
//!   to its terms: the rank of A changes at this state (the null vectors of A are not
//!   differentiable, e.g. two constraints that become parallel);
//! - M is singular and the augmented M̃ is numerically singular too (rank [M; A] about to
//!   drop below n).
//!
//! The Hamiltonian twin ([`state_jacobian`]) is the same computation with metric H_pp, the
//! unconstrained rate −H_q, r = H_pp(w + H_q) − A_pᵀμ and g = A_p w − b_p (Udwadia 2016,
//! eq 36, written as M ṗ = Q + Aᵀμ with M = H_pp, Q = −H_pp H_q).

use nalgebra::{Const, SMatrix, SVector};

use crate::cholesky::Cholesky;
use crate::pinv::{ranked_pinv, Tolerance};
use crate::projection::FACTOR_TOLERANCE;
use crate::system::HamiltonianTerms;
use crate::{scaling, Error, LagrangianView, Options};

/// q̈ and its exact first derivatives at one state (q, q̇, u, t), for n = `N` coordinates and
/// k = `K` inputs (k = 0 for a model without inputs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AccelerationJacobian<const N: usize, const K: usize> {
    /// The constrained acceleration q̈, n entries (as `acceleration` returns it).
    pub acceleration: SVector<f64, N>,
    /// ∂q̈/∂q, n × n: entry (i, j) is ∂q̈ᵢ/∂qⱼ.
    pub wrt_q: SMatrix<f64, N, N>,
    /// ∂q̈/∂q̇, n × n.
    pub wrt_qd: SMatrix<f64, N, N>,
    /// ∂q̈/∂u, n × k.
    pub wrt_u: SMatrix<f64, N, K>,
}

/// The Jacobians of the residuals r = M v − Q − C − Aᵀλ (n entries) and g = A v − b
/// (m entries) of a Lagrangian model with n = `N` coordinates, m = `M` constraints and
/// k = `K` inputs, at (q, q̇, u, t) with the acceleration v and the multipliers λ held fixed,
/// as generated models compute them (`residual_jacobians`). Entry (i, j) of each block is
/// ∂(residual i)/∂(variable j); units are those of M v (force) per unit of the variable for
/// r, of b for g.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ResidualJacobians<const N: usize, const M: usize, const K: usize> {
    /// ∂r/∂q, n × n.
    pub r_q: SMatrix<f64, N, N>,
    /// ∂r/∂q̇, n × n.
    pub r_qd: SMatrix<f64, N, N>,
    /// ∂r/∂u, n × k.
    pub r_u: SMatrix<f64, N, K>,
    /// ∂g/∂q, m × n.
    pub g_q: SMatrix<f64, M, N>,
    /// ∂g/∂q̇, m × n.
    pub g_qd: SMatrix<f64, M, N>,
    /// ∂g/∂u, m × k (zero: A and b do not depend on u).
    pub g_u: SMatrix<f64, M, K>,
}

/// The Jacobians a Hamiltonian model with n = `N` coordinates and momenta and m = `M`
/// constraints supplies for [`state_jacobian`], at (q, p, t) with the momentum rate w and the
/// multipliers μ held fixed: ∂H_p/∂q, and the Jacobians of r = H_pp (w + H_q) − A_pᵀμ
/// (n entries) and g = A_p w − b_p (m entries).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HamiltonianResidualJacobians<const N: usize, const M: usize> {
    /// ∂H_p/∂q = ∂q̇/∂q, n × n.
    pub h_p_q: SMatrix<f64, N, N>,
    /// ∂r/∂q, n × n.
    pub r_q: SMatrix<f64, N, N>,
    /// ∂r/∂p, n × n.
    pub r_p: SMatrix<f64, N, N>,
    /// ∂g/∂q, m × n.
    pub g_q: SMatrix<f64, M, N>,
    /// ∂g/∂p, m × n.
    pub g_p: SMatrix<f64, M, N>,
}

/// The state derivative (q̇, ṗ) of a constrained Hamiltonian system with n = `N` coordinates
/// and momenta, and its exact Jacobian ∂(q̇, ṗ)/∂(q, p) in four n × n blocks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StateJacobian<const N: usize> {
    /// q̇ = H_p, n entries.
    pub velocity: SVector<f64, N>,
    /// ṗ = −H_q + Fᶜ, n entries (as `state_derivative` returns it).
    pub momentum_rate: SVector<f64, N>,
    /// ∂q̇/∂q = ∂H_p/∂q, n × n.
    pub velocity_wrt_q: SMatrix<f64, N, N>,
    /// ∂q̇/∂p = H_pp, n × n.
    pub velocity_wrt_p: SMatrix<f64, N, N>,
    /// ∂ṗ/∂q, n × n.
    pub momentum_rate_wrt_q: SMatrix<f64, N, N>,
    /// ∂ṗ/∂p, n × n.
    pub momentum_rate_wrt_p: SMatrix<f64, N, N>,
}

/// The constraint side of the derivative, factored once per state (see the module docs):
/// the metric M = L D Lᵀ, B = D^-½ L⁻¹ Aᵀ with unit columns, their scales S and (Bᵀ)⁺.
struct Projector<const N: usize, const M: usize> {
    factor: Cholesky<Const<N>>,
    /// D^-½, n entries.
    root_inverse_pivots: SVector<f64, N>,
    /// B with columns scaled to unit norm, n × m.
    b: SMatrix<f64, N, M>,
    /// The column scales S (1/‖column‖ of D^-½ L⁻¹ Aᵀ, 1 for a zero column), m entries.
    scale: SVector<f64, M>,
    /// (Bᵀ)⁺, n × m.
    pinv_t: SMatrix<f64, N, M>,
    /// Relative tolerance of the range test of [`Projector::derivative`].
    consistency: f64,
}

impl<const N: usize, const M: usize> Projector<N, M> {
    /// The projector of the metric `factor` and the constraints `a` (m × n).
    ///
    /// # Errors
    /// `RankChange` when a kept singular value of B lies at or below √τ·σ_max;
    /// `NoConvergence` from the SVD.
    fn new(
        factor: Cholesky<Const<N>>,
        a: &SMatrix<f64, M, N>,
        options: &Options,
    ) -> Result<Self, Error> {
        let root_inverse_pivots = factor.inverse_pivots().map(f64::sqrt);
        let mut b = a.transpose();
        factor.solve_unit_lower_mut(&mut b);
        let mut scale = SVector::<f64, M>::repeat(1.0);
        for (mut column, s) in b.column_iter_mut().zip(scale.iter_mut()) {
            column.component_mul_assign(&root_inverse_pivots);
            let norm = column.norm();
            if norm > 0.0 {
                column.unscale_mut(norm);
                *s = 1.0 / norm;
            }
        }
        let mut pinv_t = SMatrix::<f64, N, M>::zeros();
        if M > 0 && b.iter().any(|v| *v != 0.0) {
            let tau = options.rank_tolerance();
            let ranked = ranked_pinv(&b.transpose(), Tolerance::Relative(tau))?;
            if ranked.rank > 0 && ranked.weakest <= tau.sqrt() {
                return Err(Error::RankChange {
                    what: "constraint matrix A",
                });
            }
            pinv_t = ranked.pinv;
        }
        Ok(Self {
            factor,
            root_inverse_pivots,
            b,
            scale,
            pinv_t,
            consistency: options.consistency_tolerance,
        })
    }

    /// D^-½ L⁻¹ x.
    fn whiten<const C: usize>(&self, mut x: SMatrix<f64, N, C>) -> SMatrix<f64, N, C> {
        self.factor.solve_unit_lower_mut(&mut x);
        for mut column in x.column_iter_mut() {
            column.component_mul_assign(&self.root_inverse_pivots);
        }
        x
    }

    /// The multipliers λ (m entries) with Aᵀλ = `force`, which must lie in range(Aᵀ):
    /// λ = S (Bᵀ)⁺ᵀ D^-½ L⁻¹ force.
    fn multipliers(&self, force: &SVector<f64, N>) -> SVector<f64, M> {
        self.pinv_t
            .tr_mul(&self.whiten(*force))
            .component_mul(&self.scale)
    }

    /// dv/dx = −M⁻¹(J_r + AᵀK⁺(J_g − AM⁻¹J_r)) for one block of columns x.
    ///
    /// # Errors
    /// `RankChange` when S J_g − BᵀJ̃ is off the range of Bᵀ (the rank of A changes here).
    fn derivative<const C: usize>(
        &self,
        j_r: SMatrix<f64, N, C>,
        j_g: &SMatrix<f64, M, C>,
    ) -> Result<SMatrix<f64, N, C>, Error> {
        let whitened = self.whiten(j_r);
        let mut scaled_g = *j_g;
        for mut column in scaled_g.column_iter_mut() {
            column.component_mul_assign(&self.scale);
        }
        let projected = self.b.tr_mul(&whitened);
        let target = scaled_g - projected;
        let step = self.pinv_t * target;
        let off_range = (target - self.b.tr_mul(&step)).norm();
        if off_range > self.consistency * (scaled_g.norm() + projected.norm()) {
            return Err(Error::RankChange {
                what: "constraint matrix A",
            });
        }
        let mut x = -(whitened + step);
        for mut column in x.column_iter_mut() {
            column.component_mul_assign(&self.root_inverse_pivots);
        }
        self.factor.solve_unit_upper_mut(&mut x);
        Ok(x)
    }
}

/// `Err(NonFinite)` unless every entry of `x` is finite.
fn finite<const R: usize, const C: usize>(
    x: &SMatrix<f64, R, C>,
    what: &'static str,
) -> Result<(), Error> {
    if x.iter().all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(Error::NonFinite { what })
    }
}

/// q̈ and its exact Jacobians ∂q̈/∂q, ∂q̈/∂q̇ (n × n) and ∂q̈/∂u (n × k) of the system whose
/// terms (M, Q, A, b, C) at the state are `terms`, with `options`, by the method of the
/// [module docs](self). `residual_jacobians(q̈, λ)` returns the [`ResidualJacobians`] at
/// v = q̈ and the given multipliers λ (m entries); generated models pass their
/// `residual_jacobians`.
///
/// `acceleration` is exactly what [`crate::acceleration`] returns for `terms`.
///
/// Sources: Udwadia & Kalaba 1993, eq 17; Udwadia & Wanichanon 2013, eqs 3.8, 3.18 (singular
/// M); Golub & Pereyra 1973, Theorem 4.3 (the pseudoinverse at constant rank).
///
/// # Errors
/// Those of [`crate::acceleration`]; `RankChange` where the rank of A or [M; A] changes or is
/// numerically ambiguous (the derivative does not exist there); `NonFinite` when a Jacobian
/// block or a derivative is not finite.
pub fn acceleration_jacobian<const N: usize, const M: usize, const K: usize>(
    terms: LagrangianView<'_, Const<N>, Const<M>>,
    options: &Options,
    residual_jacobians: impl FnOnce(&SVector<f64, N>, &SVector<f64, M>) -> ResidualJacobians<N, M, K>,
) -> Result<AccelerationJacobian<N, K>, Error> {
    let acceleration = crate::acceleration(terms, options)?;
    let a = terms.constraint_matrix;
    // M, or M̃ = M + Aᵀ diag(α² sᵢ²) A with sᵢ the equilibration of row i when M is singular.
    let factor = match Cholesky::new(*terms.mass_matrix, FACTOR_TOLERANCE) {
        Some(factor) => factor,
        None => {
            let alpha2 = options.alpha * options.alpha;
            let weights = SVector::<f64, M>::from_fn(|i, _| {
                let s = scaling::unit_scale(a.row(i).amax());
                alpha2 * s * s
            });
            let mut scaled = *a;
            for mut column in scaled.column_iter_mut() {
                column.component_mul_assign(&weights);
            }
            let augmented = terms.mass_matrix + a.tr_mul(&scaled);
            Cholesky::new(augmented, FACTOR_TOLERANCE).ok_or(Error::RankChange {
                what: "[M; A] (the augmented mass matrix M + α²AᵀGA)",
            })?
        }
    };
    let projector = Projector::new(factor, a, options)?;
    let mut ideal_force = terms.mass_matrix * acceleration - terms.generalized_force;
    if let Some(c) = terms.nonideal_force {
        ideal_force -= c;
    }
    let lambda = projector.multipliers(&ideal_force);
    let j = residual_jacobians(&acceleration, &lambda);
    finite(&j.r_q, "∂r/∂q")?;
    finite(&j.r_qd, "∂r/∂q̇")?;
    finite(&j.r_u, "∂r/∂u")?;
    finite(&j.g_q, "∂g/∂q")?;
    finite(&j.g_qd, "∂g/∂q̇")?;
    finite(&j.g_u, "∂g/∂u")?;
    let wrt_q = projector.derivative(j.r_q, &j.g_q)?;
    let wrt_qd = projector.derivative(j.r_qd, &j.g_qd)?;
    let wrt_u = projector.derivative(j.r_u, &j.g_u)?;
    finite(&wrt_q, "∂q̈/∂q (overflow)")?;
    finite(&wrt_qd, "∂q̈/∂q̇ (overflow)")?;
    finite(&wrt_u, "∂q̈/∂u (overflow)")?;
    Ok(AccelerationJacobian {
        acceleration,
        wrt_q,
        wrt_qd,
        wrt_u,
    })
}

/// (q̇, ṗ) of a constrained Hamiltonian system and their exact Jacobian ∂(q̇, ṗ)/∂(q, p),
/// from its `terms` at the state, with `options`. `residual_jacobians(ṗ, μ)` returns the
/// [`HamiltonianResidualJacobians`] at w = ṗ and the given multipliers μ (m entries);
/// generated models pass their `residual_jacobians`.
///
/// ṗ = −H_q + H_pp⁻¹A_pᵀ(A_p H_pp⁻¹ A_pᵀ)⁺(b_p + A_p H_q) (Udwadia 2016, eq 36) is the
/// fundamental equation with mass matrix H_pp and unconstrained rate −H_q, so ∂ṗ/∂x follows
/// as in the [module docs](self); ∂q̇/∂q = ∂H_p/∂q and ∂q̇/∂p = H_pp.
///
/// # Errors
/// Those of [`crate::hamiltonian::momentum_rate`]; `RankChange` where the rank of A_p
/// changes or is numerically ambiguous; `NonFinite` when a Jacobian is not finite.
pub fn state_jacobian<const N: usize, const M: usize>(
    terms: &HamiltonianTerms<N, M>,
    options: &Options,
    residual_jacobians: impl FnOnce(
        &SVector<f64, N>,
        &SVector<f64, M>,
    ) -> HamiltonianResidualJacobians<N, M>,
) -> Result<StateJacobian<N>, Error> {
    let momentum_rate = crate::hamiltonian::momentum_rate(
        &terms.h_q,
        &terms.h_pp,
        &terms.a_p,
        &terms.b_p,
        options,
    )?;
    let factor = Cholesky::new(terms.h_pp, FACTOR_TOLERANCE)
        .ok_or(Error::NotPositiveDefinite { what: "H_pp" })?;
    let projector = Projector::new(factor, &terms.a_p, options)?;
    let mu = projector.multipliers(&(terms.h_pp * (momentum_rate + terms.h_q)));
    let j = residual_jacobians(&momentum_rate, &mu);
    finite(&j.h_p_q, "∂H_p/∂q")?;
    finite(&j.r_q, "∂r/∂q")?;
    finite(&j.r_p, "∂r/∂p")?;
    finite(&j.g_q, "∂g/∂q")?;
    finite(&j.g_p, "∂g/∂p")?;
    let momentum_rate_wrt_q = projector.derivative(j.r_q, &j.g_q)?;
    let momentum_rate_wrt_p = projector.derivative(j.r_p, &j.g_p)?;
    finite(&momentum_rate_wrt_q, "∂ṗ/∂q (overflow)")?;
    finite(&momentum_rate_wrt_p, "∂ṗ/∂p (overflow)")?;
    Ok(StateJacobian {
        velocity: terms.h_p,
        momentum_rate,
        velocity_wrt_q: j.h_p_q,
        velocity_wrt_p: terms.h_pp,
        momentum_rate_wrt_q,
        momentum_rate_wrt_p,
    })
}
