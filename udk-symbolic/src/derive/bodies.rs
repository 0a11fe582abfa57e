//! The mass matrix from partial velocities: for a Lagrangian L = Σ kinetic_energy(mᵦ, Iᵦ, pᵦ,
//! Rᵦ) + L_rest, M = Σᵦ (mᵦ Jᵥᵀ Jᵥ + J_Ωᵀ Iᵦ J_Ω) + ∂²L_rest/∂q̇², with the partial velocities
//! Jᵥ = ∂ṗ/∂q̇ = ∂p/∂q and J_Ω = ∂Ω/∂q̇ (Kane & Levinson 1985, ch. 6; Featherstone 2008, the
//! composite form of the joint-space inertia matrix). It equals ∂²L/∂q̇², and where the bodies
//! share rotations it is the smaller expression.

use super::symmetric_jacobian;
use crate::derivation::ExprMatrix;
use crate::error::Errors;
use crate::expr::{ExprId, Pool, Symbol};
use crate::parse::{body_angular_velocity, parse_body, parse_expr, Body, Context, Scope};
use syn::{BinOp, Expr, UnOp};

/// The top-level terms of `expr` with their signs (true for −): a sum split at `+` and `-`,
/// through parentheses and unary minus, without recursion.
pub(super) fn signed_terms(expr: &Expr) -> Vec<(bool, &Expr)> {
    let mut terms = Vec::new();
    let mut stack = vec![(false, expr)];
    while let Some((negative, e)) = stack.pop() {
        match e {
            Expr::Paren(p) => stack.push((negative, &p.expr)),
            Expr::Group(g) => stack.push((negative, &g.expr)),
            Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => stack.push((!negative, &u.expr)),
            Expr::Binary(b) if matches!(b.op, BinOp::Add(_) | BinOp::Sub(_)) => {
                let right_negative = negative ^ matches!(b.op, BinOp::Sub(_));
                stack.push((right_negative, &b.right));
                stack.push((negative, &b.left));
            }
            _ => terms.push((negative, e)),
        }
    }
    terms
}

/// M from the partial velocities of the bodies of `lagrangian` (its `+ kinetic_energy(..)`
/// terms) and ∂²L_rest/∂q̇² of the other terms; `None` when L has no such term.
pub(super) fn mass_matrix(
    pool: &mut Pool,
    scope: &Scope,
    lagrangian: &Expr,
    n: usize,
) -> Option<ExprMatrix> {
    let terms = signed_terms(lagrangian);
    let bodies: Vec<Option<Body>> = (terms.iter())
        .map(|&(negative, term)| parse_body(pool, scope, term).filter(|_| !negative))
        .collect();
    if bodies.iter().all(Option::is_none) {
        return None;
    }
    let mut rest: Vec<ExprId> = Vec::new();
    for (&(negative, term), body) in terms.iter().zip(&bodies) {
        if body.is_none() {
            let mut ignored = Errors::default();
            let value = parse_expr(pool, scope, Context::LAGRANGIAN, term, &mut ignored);
            rest.push(if negative { pool.neg(value) } else { value });
        }
    }
    let bodies: Vec<Body> = bodies.into_iter().flatten().collect();
    let rest = pool.add(&rest);
    let momenta: Vec<ExprId> = (0..n)
        .map(|i| pool.diff(rest, Symbol::Velocity(i)))
        .collect();
    let rest_matrix = symmetric_jacobian(pool, &momenta, Symbol::Velocity);
    let mut terms: Vec<Vec<ExprId>> = rest_matrix.entries.iter().map(|&e| vec![e]).collect();
    for body in &bodies {
        let linear: Vec<[ExprId; 3]> = (0..n)
            .map(|i| body.centre.map(|x| pool.diff(x, Symbol::Coordinate(i))))
            .collect();
        let omega = body_angular_velocity(pool, &body.orientation);
        let angular: Vec<[ExprId; 3]> = (0..n)
            .map(|i| omega.map(|w| pool.diff(w, Symbol::Velocity(i))))
            .collect();
        // I J_Ω, column by column.
        let inertia_angular: Vec<[ExprId; 3]> = angular
            .iter()
            .map(|w| {
                [0, 1, 2].map(|r| {
                    let products = [0, 1, 2].map(|c| pool.mul(&[body.inertia.get(r, c), w[c]]));
                    pool.add(&products)
                })
            })
            .collect();
        for i in 0..n {
            for j in i..n {
                let mut sum = Vec::with_capacity(6);
                for k in 0..3 {
                    sum.push(pool.mul(&[body.mass, linear[i][k], linear[j][k]]));
                    sum.push(pool.mul(&[angular[i][k], inertia_angular[j][k]]));
                }
                let entry = pool.add(&sum);
                terms[i * n + j].push(entry);
            }
        }
    }
    let mut entries = vec![ExprId(0); n * n];
    for i in 0..n {
        for j in i..n {
            let entry = pool.add(&terms[i * n + j]);
            entries[i * n + j] = entry;
            entries[j * n + i] = entry;
        }
    }
    Some(ExprMatrix {
        rows: n,
        cols: n,
        entries,
    })
}

#[cfg(test)]
mod tests {
    use super::mass_matrix;
    use crate::derive::{check, symmetric_jacobian};
    use crate::error::Errors;
    use crate::expr::{Pool, Symbol};
    use crate::parse::{parse_expr, Context};
    use crate::spec::ModelSpec;

    /// The bicycle's M from partial velocities equals ∂²L/∂q̇² at pseudo-random states.
    #[test]
    fn partial_velocities_give_the_hessian_of_the_lagrangian() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../examples/models/whipple_bicycle.toml"
        );
        let spec: ModelSpec = toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let mut errors = Errors::default();
        let mut scope = check::scope(&spec, &mut errors);
        let mut pool = Pool::new();
        super::super::define(
            &spec,
            Context::LAGRANGIAN_DEFINITION,
            &mut pool,
            &mut scope,
            &mut errors,
        );
        let lagrangian = &spec.lagrangian.as_ref().unwrap().0;
        let l = parse_expr(
            &mut pool,
            &scope,
            Context::LAGRANGIAN,
            lagrangian,
            &mut errors,
        );
        assert!(errors.is_empty());
        let n = spec.coordinates.len();
        let momenta: Vec<_> = (0..n).map(|i| pool.diff(l, Symbol::Velocity(i))).collect();
        let hessian = symmetric_jacobian(&mut pool, &momenta, Symbol::Velocity);
        let by_bodies = mass_matrix(&mut pool, &scope, lagrangian, n).expect("four bodies");
        let parameters: Vec<f64> = spec.parameters.iter().map(|p| p.value.unwrap()).collect();
        for seed in 1..6u32 {
            let at = |s: Symbol| match s {
                Symbol::Coordinate(i) => (f64::from(seed) * 0.37 + i as f64 * 0.61).sin(),
                Symbol::Parameter(i) => parameters[i],
                _ => 0.0,
            };
            for (a, b) in hessian.entries.iter().zip(&by_bodies.entries) {
                let (a, b) = (pool.eval(*a, &at), pool.eval(*b, &at));
                assert!((a - b).abs() < 1e-12 * a.abs().max(1.0), "{a} vs {b}");
            }
        }
    }
}
