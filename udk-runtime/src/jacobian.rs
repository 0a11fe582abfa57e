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

use nalgebra::{
    Const, DMatrix, DVector, DefaultAllocator, Dim, Dyn, OMatrix, OVector, SMatrix, SVector,
};

use crate::allocator::KernelAllocator;
use crate::cholesky::Cholesky;
use crate::derivative::Projector;
use crate::projection::FACTOR_TOLERANCE;
use crate::system::HamiltonianTerms;
use crate::{fundamental, scaling, validate, Error, LagrangianView, Options};

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

/// [`AccelerationJacobian`] for dynamic sizes (n coordinates, k inputs): what
/// [`acceleration_jacobian_dyn`] returns.
#[derive(Clone, Debug, PartialEq)]
pub struct AccelerationJacobianDyn {
    /// q̈, n entries.
    pub acceleration: DVector<f64>,
    /// ∂q̈/∂q, n × n.
    pub wrt_q: DMatrix<f64>,
    /// ∂q̈/∂q̇, n × n.
    pub wrt_qd: DMatrix<f64>,
    /// ∂q̈/∂u, n × k.
    pub wrt_u: DMatrix<f64>,
}

/// [`ResidualJacobians`] for dynamic sizes: the blocks a run-time model (a tape) supplies to
/// [`acceleration_jacobian_dyn`], with the same shapes (n × n, n × n, n × k, m × n, m × n,
/// m × k).
#[derive(Clone, Debug, PartialEq)]
pub struct ResidualJacobiansDyn {
    /// ∂r/∂q, n × n.
    pub r_q: DMatrix<f64>,
    /// ∂r/∂q̇, n × n.
    pub r_qd: DMatrix<f64>,
    /// ∂r/∂u, n × k.
    pub r_u: DMatrix<f64>,
    /// ∂g/∂q, m × n.
    pub g_q: DMatrix<f64>,
    /// ∂g/∂q̇, m × n.
    pub g_qd: DMatrix<f64>,
    /// ∂g/∂u, m × k.
    pub g_u: DMatrix<f64>,
}

/// [`HamiltonianResidualJacobians`] for dynamic sizes (shapes n × n for ∂H_p/∂q, ∂r/∂q,
/// ∂r/∂p; m × n for ∂g/∂q, ∂g/∂p), for [`state_jacobian_dyn`].
#[derive(Clone, Debug, PartialEq)]
pub struct HamiltonianResidualJacobiansDyn {
    /// ∂H_p/∂q, n × n.
    pub h_p_q: DMatrix<f64>,
    /// ∂r/∂q, n × n.
    pub r_q: DMatrix<f64>,
    /// ∂r/∂p, n × n.
    pub r_p: DMatrix<f64>,
    /// ∂g/∂q, m × n.
    pub g_q: DMatrix<f64>,
    /// ∂g/∂p, m × n.
    pub g_p: DMatrix<f64>,
}

/// [`StateJacobian`] for dynamic sizes: what [`state_jacobian_dyn`] returns.
#[derive(Clone, Debug, PartialEq)]
pub struct StateJacobianDyn {
    /// q̇ = H_p, n entries.
    pub velocity: DVector<f64>,
    /// ṗ, n entries.
    pub momentum_rate: DVector<f64>,
    /// ∂q̇/∂q, n × n.
    pub velocity_wrt_q: DMatrix<f64>,
    /// ∂q̇/∂p = H_pp, n × n.
    pub velocity_wrt_p: DMatrix<f64>,
    /// ∂ṗ/∂q, n × n.
    pub momentum_rate_wrt_q: DMatrix<f64>,
    /// ∂ṗ/∂p, n × n.
    pub momentum_rate_wrt_p: DMatrix<f64>,
}

/// q̈, the projector of the state and the multipliers λ (Aᵀλ = M q̈ − Q − C) of a Lagrangian
/// system: the part of the derivative that does not need the residual Jacobians.
type Setup<N, R> = (OVector<f64, N>, Projector<N, R>, OVector<f64, R>);

/// [`Setup`] of the terms (M, Q, A, b, C), any sizes: q̈ by the kernels' own path, then the
/// metric M (positive definite; factored once, by that path when it took the Cholesky
/// route) or M̃ = M + Aᵀ diag(α²sᵢ²) A (singular M; sᵢ the power of
/// two that equilibrates row i, i.e. G = I on the equilibrated rows, as the kernels use).
fn lagrangian_setup<N: Dim, R: Dim>(
    terms: LagrangianView<'_, N, R>,
    options: &Options,
) -> Result<Setup<N, R>, Error>
where
    DefaultAllocator: KernelAllocator<N, R>,
{
    let ((acceleration, _), factor) = fundamental::solve_factored(terms, options, false)?;
    let a = terms.constraint_matrix;
    let factor = match factor.or_else(|| Cholesky::new(terms.mass_matrix.clone(), FACTOR_TOLERANCE))
    {
        Some(factor) => factor,
        None => {
            let alpha2 = options.alpha * options.alpha;
            let mut weighted = a.clone();
            for mut row in weighted.row_iter_mut() {
                let s = scaling::unit_scale(row.amax());
                row *= alpha2 * s * s;
            }
            let augmented = terms.mass_matrix + a.tr_mul(&weighted);
            Cholesky::new(augmented, FACTOR_TOLERANCE).ok_or(Error::RankChange {
                what: "[M; A] (the augmented mass matrix M + α²AᵀGA)",
            })?
        }
    };
    let projector = Projector::new(factor, a, options)?;
    // Without constraints λ is empty: no ideal force to form.
    let lambda = if a.nrows() == 0 {
        OVector::zeros_generic(a.shape_generic().0, Const::<1>)
    } else {
        let mut ideal_force = terms.mass_matrix * &acceleration - terms.generalized_force;
        if let Some(c) = terms.nonideal_force {
            ideal_force -= c;
        }
        projector.multipliers(&ideal_force)
    };
    Ok((acceleration, projector, lambda))
}

/// q̈ and its exact Jacobians ∂q̈/∂q, ∂q̈/∂q̇ (n × n) and ∂q̈/∂u (n × k) of the system whose
/// terms (M, Q, A, b, C) at the state are `terms`, with `options`, by the method of the
/// [module docs](self). `residual_jacobians(q̈, λ)` returns the [`ResidualJacobians`] at
/// v = q̈ and the given multipliers λ (m entries); generated models pass their
/// `residual_jacobians`. No heap allocation.
///
/// `acceleration` is exactly what [`crate::acceleration`] returns for `terms`.
///
/// Sources: Udwadia & Kalaba 1993, eq 17; Udwadia & Wanichanon 2013, eqs 3.8, 3.18 (singular
/// M); Golub & Pereyra 1973, Theorem 4.3 (the pseudoinverse at constant rank).
///
/// # Errors
/// Those of [`crate::acceleration`]; `RankChange` where the rank of A or [M; A] changes or is
/// numerically ambiguous (the derivative does not exist there); `NonFinite` when a residual
/// Jacobian or a derivative is not finite.
pub fn acceleration_jacobian<const N: usize, const M: usize, const K: usize>(
    terms: LagrangianView<'_, Const<N>, Const<M>>,
    options: &Options,
    residual_jacobians: impl FnOnce(&SVector<f64, N>, &SVector<f64, M>) -> ResidualJacobians<N, M, K>,
) -> Result<AccelerationJacobian<N, K>, Error> {
    let (acceleration, projector, lambda) = lagrangian_setup(terms, options)?;
    let mut j = residual_jacobians(&acceleration, &lambda);
    projector.derivatives_mut(&mut j.r_q, &j.g_q, &mut j.r_qd, &j.g_qd, &mut j.r_u, &j.g_u)?;
    Ok(AccelerationJacobian {
        acceleration,
        wrt_q: j.r_q,
        wrt_qd: j.r_qd,
        wrt_u: j.r_u,
    })
}

/// [`acceleration_jacobian`] for dynamic sizes: n = `terms.generalized_force.len()`,
/// m = `terms.constraint_rhs.len()`, k = the columns of the returned `r_u`.
///
/// # Errors
/// As [`acceleration_jacobian`], plus `DimensionMismatch` for terms or residual Jacobians of
/// inconsistent shapes.
pub fn acceleration_jacobian_dyn(
    terms: LagrangianView<'_, Dyn, Dyn>,
    options: &Options,
    residual_jacobians: impl FnOnce(&DVector<f64>, &DVector<f64>) -> ResidualJacobiansDyn,
) -> Result<AccelerationJacobianDyn, Error> {
    let (acceleration, projector, lambda) = lagrangian_setup(terms, options)?;
    let mut j = residual_jacobians(&acceleration, &lambda);
    let (n, m, k) = (acceleration.len(), lambda.len(), j.r_u.ncols());
    validate::shape(&j.r_q, (n, n), "∂r/∂q")?;
    validate::shape(&j.r_qd, (n, n), "∂r/∂q̇")?;
    validate::shape(&j.r_u, (n, k), "∂r/∂u")?;
    validate::shape(&j.g_q, (m, n), "∂g/∂q")?;
    validate::shape(&j.g_qd, (m, n), "∂g/∂q̇")?;
    validate::shape(&j.g_u, (m, k), "∂g/∂u")?;
    projector.derivatives_mut(&mut j.r_q, &j.g_q, &mut j.r_qd, &j.g_qd, &mut j.r_u, &j.g_u)?;
    Ok(AccelerationJacobianDyn {
        acceleration,
        wrt_q: j.r_q,
        wrt_qd: j.r_qd,
        wrt_u: j.r_u,
    })
}

/// ṗ, the projector and the multipliers μ (A_pᵀμ = H_pp(ṗ + H_q)) of a Hamiltonian system,
/// any sizes.
fn hamiltonian_setup<N: Dim, R: Dim>(
    h_q: &OVector<f64, N>,
    h_pp: &OMatrix<f64, N, N>,
    a_p: &OMatrix<f64, R, N>,
    b_p: &OVector<f64, R>,
    options: &Options,
) -> Result<Setup<N, R>, Error>
where
    DefaultAllocator: KernelAllocator<N, R>,
{
    let (momentum_rate, _) = crate::hamiltonian::solve(h_q, h_pp, a_p, b_p, options)?;
    let factor = Cholesky::new(h_pp.clone(), FACTOR_TOLERANCE)
        .ok_or(Error::NotPositiveDefinite { what: "H_pp" })?;
    let projector = Projector::new(factor, a_p, options)?;
    let mu = projector.multipliers(&(h_pp * (&momentum_rate + h_q)));
    Ok((momentum_rate, projector, mu))
}

/// (q̇, ṗ) of a constrained Hamiltonian system and their exact Jacobian ∂(q̇, ṗ)/∂(q, p),
/// from its `terms` at the state, with `options`. `residual_jacobians(ṗ, μ)` returns the
/// [`HamiltonianResidualJacobians`] at w = ṗ and the given multipliers μ (m entries);
/// generated models pass their `residual_jacobians`. No heap allocation.
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
    let (momentum_rate, projector, mu) =
        hamiltonian_setup(&terms.h_q, &terms.h_pp, &terms.a_p, &terms.b_p, options)?;
    let mut j = residual_jacobians(&momentum_rate, &mu);
    validate::finite(&j.h_p_q, "∂H_p/∂q")?;
    projector.derivative_mut(&mut j.r_q, &j.g_q)?;
    projector.derivative_mut(&mut j.r_p, &j.g_p)?;
    Ok(StateJacobian {
        velocity: terms.h_p,
        momentum_rate,
        velocity_wrt_q: j.h_p_q,
        velocity_wrt_p: terms.h_pp,
        momentum_rate_wrt_q: j.r_q,
        momentum_rate_wrt_p: j.r_p,
    })
}

/// [`state_jacobian`] for dynamic sizes, from H_p, H_q (n), H_pp (n × n), A_p (m × n) and
/// b_p (m).
///
/// # Errors
/// As [`state_jacobian`], plus `DimensionMismatch` for inconsistent shapes.
pub fn state_jacobian_dyn(
    h_p: &DVector<f64>,
    h_q: &DVector<f64>,
    h_pp: &DMatrix<f64>,
    a_p: &DMatrix<f64>,
    b_p: &DVector<f64>,
    options: &Options,
    residual_jacobians: impl FnOnce(&DVector<f64>, &DVector<f64>) -> HamiltonianResidualJacobiansDyn,
) -> Result<StateJacobianDyn, Error> {
    let n = h_q.len();
    validate::shape(h_p, (n, 1), "H_p")?;
    validate::finite(h_p, "H_p")?;
    let (momentum_rate, projector, mu) = hamiltonian_setup(h_q, h_pp, a_p, b_p, options)?;
    let mut j = residual_jacobians(&momentum_rate, &mu);
    let m = mu.len();
    validate::shape(&j.h_p_q, (n, n), "∂H_p/∂q")?;
    validate::shape(&j.r_q, (n, n), "∂r/∂q")?;
    validate::shape(&j.r_p, (n, n), "∂r/∂p")?;
    validate::shape(&j.g_q, (m, n), "∂g/∂q")?;
    validate::shape(&j.g_p, (m, n), "∂g/∂p")?;
    validate::finite(&j.h_p_q, "∂H_p/∂q")?;
    projector.derivative_mut(&mut j.r_q, &j.g_q)?;
    projector.derivative_mut(&mut j.r_p, &j.g_p)?;
    Ok(StateJacobianDyn {
        velocity: h_p.clone(),
        momentum_rate,
        velocity_wrt_q: j.h_p_q,
        velocity_wrt_p: h_pp.clone(),
        momentum_rate_wrt_q: j.r_q,
        momentum_rate_wrt_p: j.r_p,
    })
}
