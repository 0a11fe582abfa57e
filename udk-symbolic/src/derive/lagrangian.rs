//! The equations of a Lagrangian model: M, Q, A, b, C, the Jacobi integral (review paper,
//! eqs 18–29).

use super::{check_holonomic, jacobian, parse_all, symmetric_jacobian};
use crate::derivation::LagrangianEquations;
use crate::error::Errors;
use crate::expr::{ExprId, Pool, Symbol};
use crate::parse::{parse_expr, Context, Scope};
use crate::spec::{Expression, ModelSpec};

/// Parses every expression of a Lagrangian `spec` and derives its equations; `None` when an
/// error was found (pushed to `errors`).
pub(super) fn derive(
    spec: &ModelSpec,
    lagrangian: &Expression,
    scope: &Scope,
    pool: &mut Pool,
    errors: &mut Errors,
) -> Option<LagrangianEquations> {
    let n = spec.coordinates.len();
    let l = parse_expr(pool, scope, Context::LAGRANGIAN, &lagrangian.0, errors);
    let holonomic = parse_all(pool, scope, Context::HOLONOMIC, &spec.holonomic, errors);
    let nonholonomic = parse_all(
        pool,
        scope,
        Context::NONHOLONOMIC,
        &spec.nonholonomic,
        errors,
    );
    let forces = parse_all(pool, scope, Context::FORCE, &spec.forces, errors);
    let nonideal = parse_all(pool, scope, Context::NONIDEAL, &spec.nonideal, errors);
    if !errors.is_empty() {
        return None;
    }
    check_constraints(pool, spec, &holonomic, &nonholonomic, errors);

    // ∂L/∂q̇ᵢ, M = ∂²L/∂q̇², Q = ∂L/∂q − (∂²L/∂q̇∂q) q̇ − ∂²L/∂q̇∂t + forces, where the middle
    // terms are the convective derivative (∂/∂t + q̇ᵀ∂/∂q) of ∂L/∂q̇ᵢ: computed on the DAG,
    // it shares the derivatives of common subexpressions across all i.
    let momenta: Vec<ExprId> = (0..n).map(|i| pool.diff(l, Symbol::Velocity(i))).collect();
    let mass_matrix = symmetric_jacobian(pool, &momenta, Symbol::Velocity);
    let is_velocity = |s: Symbol| matches!(s, Symbol::Velocity(_));
    if pool.any_depends_on(&mass_matrix.entries, &is_velocity) {
        errors.push(
            lagrangian.span(),
            "the Lagrangian is not quadratic in the generalized velocities: the mass matrix \
             ∂²L/∂q̇² depends on them",
        );
    }
    let generalized_force = (0..n)
        .map(|i| {
            let potential = pool.diff(l, Symbol::Coordinate(i));
            let convective = pool.convective_derivative(momenta[i]);
            let minus_convective = pool.neg(convective);
            let mut terms = vec![potential, minus_convective];
            terms.extend(forces.get(i));
            pool.add(&terms)
        })
        .collect();

    // Velocity level: ḟ = (∂/∂t + q̇ᵀ∂/∂q) f, then φ. Their time derivatives are
    // A q̈ − b with A = ∂(ḟ or φ)/∂q̇ (= ∂(f̈ or φ̇)/∂q̈) and b = −(∂/∂t + q̇ᵀ∂/∂q)(ḟ or φ).
    let first: Vec<ExprId> = (holonomic.iter())
        .map(|&f| pool.convective_derivative(f))
        .collect();
    let velocity_constraints: Vec<ExprId> = first.iter().chain(&nonholonomic).copied().collect();
    let constraint_matrix = jacobian(pool, &velocity_constraints, n, Symbol::Velocity);
    let constraint_rhs = (velocity_constraints.iter())
        .map(|&c| {
            let rest = pool.convective_derivative(c);
            pool.neg(rest)
        })
        .collect();
    let nonideal_force = if nonideal.is_empty() {
        vec![pool.zero(); n]
    } else {
        nonideal
    };

    // h = q̇ᵀ ∂L/∂q̇ − L.
    let velocities: Vec<ExprId> = (0..n).map(|i| pool.symbol(Symbol::Velocity(i))).collect();
    let mut terms: Vec<ExprId> = (velocities.iter().zip(&momenta))
        .map(|(&v, &p)| pool.mul(&[v, p]))
        .collect();
    terms.push(pool.neg(l));
    let energy = pool.add(&terms);

    errors.is_empty().then_some(LagrangianEquations {
        mass_matrix,
        generalized_force,
        constraint_matrix,
        constraint_rhs,
        nonideal_force,
        energy,
        holonomic,
        velocity_constraints,
    })
}

/// An error at each constraint that depends on no coordinate or velocity, and at each
/// nonholonomic constraint with no velocity (it would be differentiated once only).
fn check_constraints(
    pool: &Pool,
    spec: &ModelSpec,
    holonomic: &[ExprId],
    nonholonomic: &[ExprId],
    errors: &mut Errors,
) {
    // A holonomic f(q, t) cannot hold a velocity (the parser rejects one), so "no coordinate"
    // is "no coordinate or velocity" there.
    check_holonomic(pool, spec, holonomic, errors);
    let state = |s: Symbol| matches!(s, Symbol::Coordinate(_) | Symbol::Velocity(_));
    let velocity = |s: Symbol| matches!(s, Symbol::Velocity(_));
    for (&phi, e) in nonholonomic.iter().zip(&spec.nonholonomic) {
        if !pool.depends_on(phi, &state) {
            errors.push(
                e.span(),
                "this nonholonomic constraint depends on no generalized coordinate or velocity",
            );
        } else if !pool.depends_on(phi, &velocity) {
            errors.push(
                e.span(),
                "this nonholonomic constraint has no generalized velocity `dot(..)`: write it \
                 as a holonomic constraint, which is differentiated twice",
            );
        }
    }
}
