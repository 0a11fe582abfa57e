//! The equations of a Hamiltonian model: H_p, H_q, H_pp, A_p, b_p (Udwadia 2016, eqs 9–12).

use super::{check_holonomic, jacobian, parse_constraints, symmetric_jacobian, Jacobians};
use crate::derivation::HamiltonianEquations;
use crate::error::Errors;
use crate::expr::{ExprId, Pool, Symbol};
use crate::parse::{parse_expr, Context, Scope};
use crate::spec::{Expression, ModelSpec};

/// Parses every expression of a Hamiltonian `spec` and derives its equations, the Jacobians
/// when `jacobians` says so; `None` when an error was found (pushed to `errors`).
pub(super) fn derive(
    spec: &ModelSpec,
    hamiltonian: &Expression,
    scope: &Scope,
    pool: &mut Pool,
    jacobians: Jacobians,
    errors: &mut Errors,
) -> Option<HamiltonianEquations> {
    let n = spec.coordinates.len();
    let h = parse_expr(pool, scope, Context::HAMILTONIAN, &hamiltonian.0, errors);
    let holonomic = parse_constraints(pool, scope, Context::HOLONOMIC, &spec.holonomic, errors);
    let given = parse_constraints(
        pool,
        scope,
        Context::HAMILTONIAN_CONSTRAINT,
        &spec.constraints,
        errors,
    );
    if !errors.is_empty() {
        return None;
    }
    check_holonomic(pool, &holonomic, errors);
    let state = |s: Symbol| matches!(s, Symbol::Coordinate(_) | Symbol::Momentum(_));
    let momentum = |s: Symbol| matches!(s, Symbol::Momentum(_));
    for &(phi, span) in &given {
        if !pool.depends_on(phi, &state) {
            errors.push(
                span,
                "this constraint depends on no generalized coordinate or momentum",
            );
        } else if !pool.depends_on(phi, &momentum) {
            errors.push(
                span,
                "this constraint φ(q, p, t) has no momentum: write it as a holonomic \
                 constraint f(q, t), which is first turned into φ through q̇ = H_p",
            );
        }
    }

    let h_p: Vec<ExprId> = (0..n).map(|i| pool.diff(h, Symbol::Momentum(i))).collect();
    let h_q: Vec<ExprId> = (0..n)
        .map(|i| pool.diff(h, Symbol::Coordinate(i)))
        .collect();
    let h_pp = symmetric_jacobian(pool, &h_p, Symbol::Momentum);

    // Eq 9: φ = (∂f/∂q) H_p + ∂f/∂t, then eq 12: b_p = −(∂φ/∂q) H_p − ∂φ/∂t.
    let mut along_flow = |pool: &mut Pool, s: Symbol| match s {
        Symbol::Coordinate(i) => h_p[i],
        Symbol::Time => pool.one(),
        _ => pool.zero(),
    };
    let holonomic: Vec<ExprId> = holonomic.into_iter().map(|(f, _)| f).collect();
    let converted = pool.total_derivative(&holonomic, &mut along_flow);
    let constraints: Vec<ExprId> = (converted.into_iter())
        .chain(given.into_iter().map(|(phi, _)| phi))
        .collect();
    let a_p = jacobian(pool, &constraints, n, Symbol::Momentum);
    let b_p = pool.total_derivative(&constraints, &mut along_flow);
    let b_p: Vec<ExprId> = b_p.into_iter().map(|b| pool.neg(b)).collect();
    let mut equations = HamiltonianEquations {
        hamiltonian: h,
        h_p,
        h_q,
        h_pp,
        a_p,
        b_p,
        constraints,
        holonomic,
        jacobians: None,
    };
    if jacobians == Jacobians::Now {
        equations.jacobians = super::jacobian::hamiltonian(pool, &equations);
    }
    errors.is_empty().then_some(equations)
}
