//! The mass matrix from partial velocities: for a Lagrangian L = Σ kinetic_energy(mᵦ, Iᵦ, pᵦ,
//! Rᵦ) + L_rest, M = Σᵦ (mᵦ Jᵥᵀ Jᵥ + J_Ωᵀ Iᵦ J_Ω) + ∂²L_rest/∂q̇², with the partial velocities
//! Jᵥ = ∂ṗ/∂q̇ = ∂p/∂q and J_Ω = ∂Ω/∂q̇ (Kane & Levinson 1985, ch. 6; Featherstone 2008, the
//! composite form of the joint-space inertia matrix). It equals ∂²L/∂q̇², and where the bodies
//! share rotations it is the smaller expression. The bodies' part of Q likewise from Kane's
//! generalized inertia forces at q̈ = 0.

use super::symmetric_jacobian;
use crate::derivation::ExprMatrix;
use crate::error::Errors;
use crate::expr::{ExprId, Pool, Symbol};
use crate::parse::{
    add3, body_angular_velocity, cross3, mat_vec, parse_body, parse_expr, Body, Context, Scope,
};
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

/// The rigid bodies of a Lagrangian (its `+ kinetic_energy(..)` terms) and the sum of its
/// other terms, L_rest.
pub(super) struct Split {
    /// The bodies.
    pub bodies: Vec<Body>,
    /// L_rest.
    pub rest: ExprId,
}

/// `lagrangian` split into its `+ kinetic_energy(..)` terms and the rest; `None` when L has no
/// such term.
pub(super) fn split(pool: &mut Pool, scope: &Scope, lagrangian: &Expr) -> Option<Split> {
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
    Some(Split {
        bodies: bodies.into_iter().flatten().collect(),
        rest: pool.add(&rest),
    })
}

/// M from the partial velocities of the bodies of `split` and ∂²L_rest/∂q̇² of the rest.
pub(super) fn mass_matrix(pool: &mut Pool, split: &Split, n: usize) -> ExprMatrix {
    let (bodies, rest) = (&split.bodies, split.rest);
    let momenta: Vec<ExprId> = (0..n)
        .map(|i| pool.diff(rest, Symbol::Velocity(i)))
        .collect();
    let rest_matrix = symmetric_jacobian(pool, &momenta, Symbol::Velocity);
    let mut terms: Vec<Vec<ExprId>> = rest_matrix.entries.iter().map(|&e| vec![e]).collect();
    for body in bodies {
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
    ExprMatrix {
        rows: n,
        cols: n,
        entries,
    }
}

/// The bodies' part of the bias force, Q₀ = −Σ [m Jᵥᵀ a₀ + J_Ωᵀ (I Ω̇₀ + Ω × I Ω)], n entries,
/// with the partial velocities Jᵥ = ∂p/∂q and J_Ω = ∂Ω/∂q̇ and the accelerations at q̈ = 0,
/// a₀ = (∂/∂t + q̇ᵀ∂/∂q)² p and Ω̇₀ = (∂/∂t + q̇ᵀ∂/∂q) Ω (Kane & Levinson 1985, generalized
/// inertia forces, ch. 6). With M from the same partial velocities, M q̈ − Q₀ is Σ of the
/// bodies' generalized inertia forces, so Q₀ plus the Lagrangian Q of L_rest equals L's Q.
pub(super) fn kane_bias(pool: &mut Pool, bodies: &[Body], n: usize) -> Vec<ExprId> {
    let mut terms: Vec<Vec<ExprId>> = vec![Vec::new(); n];
    for body in bodies {
        let velocity = body.centre.map(|x| pool.convective_derivative(x));
        let acceleration = velocity.map(|x| pool.convective_derivative(x));
        let inertia_force = acceleration.map(|x| pool.mul(&[body.mass, x]));
        let omega = body_angular_velocity(pool, &body.orientation);
        let omega_dot = omega.map(|x| pool.convective_derivative(x));
        let momentum = mat_vec(pool, &body.inertia, omega);
        let angular = mat_vec(pool, &body.inertia, omega_dot);
        let gyroscopic = cross3(pool, omega, momentum);
        let inertia_moment = add3(pool, angular, gyroscopic);
        for (i, entry) in terms.iter_mut().enumerate() {
            for k in 0..3 {
                let linear = pool.diff(body.centre[k], Symbol::Coordinate(i));
                let angular = pool.diff(omega[k], Symbol::Velocity(i));
                let force = pool.mul(&[linear, inertia_force[k]]);
                let moment = pool.mul(&[angular, inertia_moment[k]]);
                entry.push(pool.neg(force));
                entry.push(pool.neg(moment));
            }
        }
    }
    terms.iter().map(|t| pool.add(t)).collect()
}

#[cfg(test)]
mod tests {
    use super::{kane_bias, mass_matrix, split};
    use crate::derive::lagrangian::generalized_force;
    use crate::derive::{check, symmetric_jacobian};
    use crate::error::Errors;
    use crate::expr::{ExprId, Pool, Symbol};
    use crate::parse::{parse_expr, Context, Scope};
    use crate::spec::ModelSpec;

    /// The model file `examples/models/<name>.toml` parsed: its pool, scope, L, the spec.
    fn model(name: &str) -> (Pool, Scope, ExprId, ModelSpec) {
        let path = format!(
            "{}/../examples/models/{name}.toml",
            env!("CARGO_MANIFEST_DIR")
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
        (pool, scope, l, spec)
    }

    /// Asserts that `a` and `b` agree to 1e-12 relative at pseudo-random states of `spec`.
    fn assert_agree(pool: &Pool, spec: &ModelSpec, a: &[ExprId], b: &[ExprId]) {
        let parameters: Vec<f64> = spec.parameters.iter().map(|p| p.value.unwrap()).collect();
        for seed in 1..6u32 {
            let at = |s: Symbol| match s {
                Symbol::Coordinate(i) => (f64::from(seed) * 0.37 + i as f64 * 0.61).sin(),
                Symbol::Velocity(i) => (f64::from(seed) * 0.53 + i as f64 * 0.29).cos(),
                Symbol::Parameter(i) => parameters[i],
                _ => 0.0,
            };
            let (a, b) = (pool.eval_all(a, &at), pool.eval_all(b, &at));
            let scale = a.iter().fold(1.0f64, |m, x| m.max(x.abs()));
            for (x, y) in a.iter().zip(&b) {
                assert!((x - y).abs() < 1e-12 * scale, "{x} vs {y}");
            }
        }
    }

    /// The bicycle's M from partial velocities equals ∂²L/∂q̇² at pseudo-random states.
    #[test]
    fn partial_velocities_give_the_hessian_of_the_lagrangian() {
        let (mut pool, scope, l, spec) = model("whipple_bicycle");
        let n = spec.coordinates.len();
        let momenta: Vec<_> = (0..n).map(|i| pool.diff(l, Symbol::Velocity(i))).collect();
        let hessian = symmetric_jacobian(&mut pool, &momenta, Symbol::Velocity);
        let lagrangian = &spec.lagrangian.as_ref().unwrap().0;
        let split = split(&mut pool, &scope, lagrangian).expect("four bodies");
        let by_bodies = mass_matrix(&mut pool, &split, n);
        assert_agree(&pool, &spec, &hessian.entries, &by_bodies.entries);
    }

    /// Kane's Q₀ of the bodies plus the Lagrangian Q of the rest of L is L's Q, for the
    /// bicycle and the UR5 arm, at pseudo-random states with velocities.
    #[test]
    fn kane_inertia_forces_give_the_lagrangian_force() {
        for name in ["whipple_bicycle", "ur5_arm"] {
            let (mut pool, scope, l, spec) = model(name);
            let n = spec.coordinates.len();
            let momenta: Vec<_> = (0..n).map(|i| pool.diff(l, Symbol::Velocity(i))).collect();
            let hessian = symmetric_jacobian(&mut pool, &momenta, Symbol::Velocity);
            let force = generalized_force(&mut pool, l, &momenta, &hessian.entries, &[]);
            let lagrangian = &spec.lagrangian.as_ref().unwrap().0;
            let split = split(&mut pool, &scope, lagrangian).expect("bodies");
            let bias = kane_bias(&mut pool, &split.bodies, n);
            let rest: Vec<_> = (0..n)
                .map(|i| pool.diff(split.rest, Symbol::Velocity(i)))
                .collect();
            let rest_matrix = symmetric_jacobian(&mut pool, &rest, Symbol::Velocity);
            let rest_force =
                generalized_force(&mut pool, split.rest, &rest, &rest_matrix.entries, &[]);
            let kane: Vec<_> = (bias.iter().zip(&rest_force))
                .map(|(&a, &b)| pool.add(&[a, b]))
                .collect();
            assert_agree(&pool, &spec, &force, &kane);
        }
    }
}
