//! The Jacobians of the residuals of the fundamental equation, from which the runtime forms
//! the exact derivative of the motion (`udk_runtime::jacobian`).
//!
//! The residuals hold the acceleration and the multipliers as symbols, so that the derivative
//! of the mass matrix enters only contracted with them (∂(M v)/∂q, n × n) and no n × n × n
//! tensor ∂M/∂q is formed. A tree's M v − Q₀ is differentiated by the analytic derivatives
//! of recursive Newton–Euler (`tree::constant_inverse_dynamics_derivatives`); every other
//! derivative goes through the pool's memoized [`Pool::diff`](crate::expr::Pool::diff), so
//! the blocks share their subexpressions with M, Q, A and b.

use super::jacobian as matrix_jacobian;
use super::tree::{constant_inverse_dynamics_derivatives, TreeConstants};
use crate::derivation::{
    ExprMatrix, HamiltonianEquations, HamiltonianJacobians, LagrangianEquations,
    LagrangianJacobians,
};
use crate::expr::{ExprId, OperationCount, Pool, Symbol};

/// The terms of a constrained system in the form M v = F + Aᵀλ, A v = b, from which the
/// residuals r = M v − F − Aᵀλ and g = A v − b are built.
pub(super) struct Residuals<'e> {
    /// M (or H_pp), n × n.
    pub(super) metric: &'e ExprMatrix,
    /// M v − F₀ as expressions of v = `Symbol::Acceleration`, n entries, when a cheaper form
    /// than the product with `metric` is known (a tree's inverse dynamics, with F₀ its bias
    /// force); `force` is then F − F₀.
    pub(super) inertial: Option<&'e [ExprId]>,
    /// The constants of the tree whose inverse dynamics `inertial` is, from which its
    /// derivatives by q and q̇ are formed analytically; `None` without `inertial`.
    pub(super) tree: Option<&'e TreeConstants>,
    /// The force F, n entries: Q + C, or −H_pp H_q (F − F₀ with `inertial`).
    pub(super) force: &'e [ExprId],
    /// A (or A_p), m × n.
    pub(super) constraint_matrix: &'e ExprMatrix,
    /// b (or b_p), m entries.
    pub(super) constraint_rhs: &'e [ExprId],
}

/// The force F of the residual of `e`: Q + C, or Q − Q₀ + C with a tree's inverse dynamics
/// ([`LagrangianEquations::tree_residual`]), n entries.
pub(super) fn residual_force(pool: &mut Pool, e: &LagrangianEquations) -> Vec<ExprId> {
    let force = match &e.tree_residual {
        Some(tree) => &tree.joint_forces,
        None => &e.generalized_force,
    };
    (force.iter().zip(&e.nonideal_force))
        .map(|(&q, &c)| pool.add(&[q, c]))
        .collect()
}

impl<'e> Residuals<'e> {
    /// The residuals of `e` with its force `force` ([`residual_force`]).
    pub(super) fn lagrangian(e: &'e LagrangianEquations, force: &'e [ExprId]) -> Self {
        Residuals {
            metric: &e.mass_matrix,
            inertial: e.tree_residual.as_ref().map(|tree| &tree.inertial[..]),
            tree: e.tree_residual.as_ref().map(|tree| &tree.constants),
            force,
            constraint_matrix: &e.constraint_matrix,
            constraint_rhs: &e.constraint_rhs,
        }
    }

    /// (r, g) as expressions of the state, `Symbol::Acceleration` and `Symbol::Multiplier`.
    pub(super) fn build(&self, pool: &mut Pool) -> (Vec<ExprId>, Vec<ExprId>) {
        let n = self.force.len();
        let m = self.constraint_rhs.len();
        let v: Vec<ExprId> = (0..n)
            .map(|j| pool.symbol(Symbol::Acceleration(j)))
            .collect();
        let rest = self.applied(pool);
        let r = (0..n)
            .map(|i| {
                let mut terms: Vec<ExprId> = match self.inertial {
                    Some(inertial) => vec![inertial[i]],
                    None => (0..n)
                        .map(|j| pool.mul(&[self.metric.get(i, j), v[j]]))
                        .collect(),
                };
                terms.push(rest[i]);
                pool.add(&terms)
            })
            .collect();
        let g = (0..m)
            .map(|row| {
                let mut terms: Vec<ExprId> = (0..n)
                    .map(|j| pool.mul(&[self.constraint_matrix.get(row, j), v[j]]))
                    .collect();
                terms.push(pool.neg(self.constraint_rhs[row]));
                pool.add(&terms)
            })
            .collect();
        (r, g)
    }

    /// −F − Aᵀλ, the part of r besides M v (n entries), as expressions of the state and
    /// `Symbol::Multiplier`.
    fn applied(&self, pool: &mut Pool) -> Vec<ExprId> {
        let m = self.constraint_rhs.len();
        let lambda: Vec<ExprId> = (0..m).map(|r| pool.symbol(Symbol::Multiplier(r))).collect();
        (self.force.iter().enumerate())
            .map(|(i, &f)| {
                let mut terms = vec![pool.neg(f)];
                for (row, &l) in lambda.iter().enumerate() {
                    let product = pool.mul(&[self.constraint_matrix.get(row, i), l]);
                    terms.push(pool.neg(product));
                }
                pool.add(&terms)
            })
            .collect()
    }

    /// (∂r/∂q, ∂r/∂q̇) of r from [`Residuals::build`], each n × n: r differentiated by
    /// [`Pool::diff`]; with a tree, also its M v − Q₀ by the analytic derivatives of recursive
    /// Newton–Euler plus the derivatives of the rest ([`Residuals::applied`]), and of the two
    /// the one with fewer operations ([`Pool::operation_count`]; forward mode on a tie). The
    /// analytic form is formed first, and forward mode only until it costs more (column by
    /// column, see [`forward_within`]). The analytic form pays on deep trees and generic
    /// joint frames (TIAGo Pro's emitted `residual_jacobians` 78 758 → 29 269 operations after
    /// CSE), forward mode on short arms with axis-aligned frames (UR5: 2 050 against 3 665).
    fn state_jacobians(&self, pool: &mut Pool, r: &[ExprId]) -> (ExprMatrix, ExprMatrix) {
        let n = r.len();
        let Some(constants) = self.tree else {
            return (
                matrix_jacobian(pool, r, n, Symbol::Coordinate),
                matrix_jacobian(pool, r, n, Symbol::Velocity),
            );
        };
        let v: Vec<ExprId> = (0..n)
            .map(|j| pool.symbol(Symbol::Acceleration(j)))
            .collect();
        let (tau_q, tau_qd) = constant_inverse_dynamics_derivatives(pool, constants, n, &v);
        let rest = self.applied(pool);
        let mut plus_rest = |tau: ExprMatrix, symbol: fn(usize) -> Symbol| {
            let rest = matrix_jacobian(pool, &rest, n, symbol);
            let entries = (tau.entries.iter().zip(&rest.entries))
                .map(|(&a, &b)| pool.add(&[a, b]))
                .collect();
            ExprMatrix { entries, ..tau }
        };
        let analytic = (
            plus_rest(tau_q, Symbol::Coordinate),
            plus_rest(tau_qd, Symbol::Velocity),
        );
        let size = pool.operation_count(&[&analytic.0.entries[..], &analytic.1.entries].concat());
        forward_within(pool, r, size).unwrap_or(analytic)
    }
}

/// (∂r/∂q, ∂r/∂q̇) of the n residuals `r` by [`Pool::diff`], formed a column ∂r/∂qⱼ, ∂r/∂q̇ⱼ at
/// a time from j = 0 (the tree's coordinates come parents first, so the columns that reach
/// the most bodies come first); `None` as soon as the columns formed take more than `budget`
/// operations ([`OperationCount`]), the rest not formed.
fn forward_within(
    pool: &mut Pool,
    r: &[ExprId],
    budget: usize,
) -> Option<(ExprMatrix, ExprMatrix)> {
    let n = r.len();
    let mut count = OperationCount::default();
    let mut blocks = [vec![ExprId(0); n * n], vec![ExprId(0); n * n]];
    for j in 0..n {
        for (block, symbol) in blocks
            .iter_mut()
            .zip([Symbol::Coordinate(j), Symbol::Velocity(j)])
        {
            let column: Vec<ExprId> = r.iter().map(|&row| pool.diff(row, symbol)).collect();
            if count.add(pool, &column) > budget {
                return None;
            }
            for (i, d) in column.into_iter().enumerate() {
                block[i * n + j] = d;
            }
        }
    }
    let [by_q, by_qd] = blocks.map(|entries| ExprMatrix {
        rows: n,
        cols: n,
        entries,
    });
    Some((by_q, by_qd))
}

/// Whether differentiating `terms` by `variables` symbols stays within
/// [`MAX_JACOBIAN_COST`](crate::limits::MAX_JACOBIAN_COST).
fn affordable(pool: &Pool, terms: &[&[ExprId]], variables: usize) -> bool {
    let terms = terms.concat();
    pool.product_rule_cost(&terms)
        .saturating_mul(variables.max(1))
        <= crate::limits::MAX_JACOBIAN_COST
}

/// The [`LagrangianJacobians`] of `e`, a model with k inputs, whose residual force
/// ([`residual_force`]) is `force`; `None` beyond
/// [`MAX_JACOBIAN_COST`](crate::limits::MAX_JACOBIAN_COST).
pub(super) fn lagrangian(
    pool: &mut Pool,
    e: &LagrangianEquations,
    force: &[ExprId],
    k: usize,
) -> Option<LagrangianJacobians> {
    let residuals = &Residuals::lagrangian(e, force);
    let velocity_constraints = &e.velocity_constraints;
    let n = residuals.force.len();
    let inertial = residuals.inertial.unwrap_or(&residuals.metric.entries);
    let terms = [
        inertial,
        residuals.force,
        &residuals.constraint_matrix.entries,
        residuals.constraint_rhs,
        velocity_constraints,
    ];
    if !affordable(pool, &terms, 2 * n + k) {
        return None;
    }
    let (r, g) = residuals.build(pool);
    let (r_q, r_qd) = residuals.state_jacobians(pool, &r);
    Some(LagrangianJacobians {
        r_q,
        r_qd,
        r_u: matrix_jacobian(pool, &r, k, Symbol::Input),
        g_q: matrix_jacobian(pool, &g, n, Symbol::Coordinate),
        g_qd: matrix_jacobian(pool, &g, n, Symbol::Velocity),
        g_u: matrix_jacobian(pool, &g, k, Symbol::Input),
        velocity_constraints_q: matrix_jacobian(pool, velocity_constraints, n, Symbol::Coordinate),
    })
}

/// The [`HamiltonianJacobians`] of `e`, from its H_p, H_q, H_pp, A_p and b_p; `None` beyond
/// [`MAX_JACOBIAN_COST`](crate::limits::MAX_JACOBIAN_COST).
pub(super) fn hamiltonian(
    pool: &mut Pool,
    e: &HamiltonianEquations,
) -> Option<HamiltonianJacobians> {
    let (h_p, h_q, h_pp, a_p, b_p) = (&e.h_p, &e.h_q, &e.h_pp, &e.a_p, &e.b_p);
    let n = h_p.len();
    if !affordable(pool, &[h_p, h_q, &h_pp.entries, &a_p.entries, b_p], 2 * n) {
        return None;
    }
    // F = −H_pp H_q, so that r = H_pp w − F − A_pᵀμ = H_pp (w + H_q) − A_pᵀμ.
    let force: Vec<ExprId> = (0..n)
        .map(|i| {
            let terms: Vec<ExprId> = (0..n)
                .map(|j| pool.mul(&[h_pp.get(i, j), h_q[j]]))
                .collect();
            let sum = pool.add(&terms);
            pool.neg(sum)
        })
        .collect();
    let residuals = Residuals {
        metric: h_pp,
        inertial: None,
        tree: None,
        force: &force,
        constraint_matrix: a_p,
        constraint_rhs: b_p,
    };
    let (r, g) = residuals.build(pool);
    Some(HamiltonianJacobians {
        h_p_q: matrix_jacobian(pool, h_p, n, Symbol::Coordinate),
        r_q: matrix_jacobian(pool, &r, n, Symbol::Coordinate),
        r_p: matrix_jacobian(pool, &r, n, Symbol::Momentum),
        g_q: matrix_jacobian(pool, &g, n, Symbol::Coordinate),
        g_p: matrix_jacobian(pool, &g, n, Symbol::Momentum),
    })
}
