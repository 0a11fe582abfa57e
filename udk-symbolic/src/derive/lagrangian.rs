//! The equations of a Lagrangian model: M, Q, A, b, C, the Jacobi integral (review paper,
//! eqs 18–29).

use super::tree::TreeConstants;
use super::{
    bodies, check_holonomic, jacobian, parse_all, parse_constraints, symmetric_jacobian, Jacobians,
};
use crate::derivation::{
    ArticulatedEquations, ExprMatrix, LagrangianEquations, MassMatrixForm, NamedValue, TreeResidual,
};
use crate::error::Errors;
use crate::expr::{ExprId, Pool, Symbol};
use crate::parse::{parse_expr, parse_load, Context, Load, Scope};
use crate::spec::{Expression, ModelSpec};
use proc_macro2::Span;

/// Parses every expression of a Lagrangian `spec` and derives its equations, the residual
/// Jacobians when `jacobians` says so; `None` when an error was found (pushed to `errors`).
/// When M and Q come from the model's kinematic tree, the subexpressions they share are
/// appended to `definitions` as `tmp1`, `tmp2`, …, so that the equation sheet prints each once.
pub(super) fn derive(
    spec: &ModelSpec,
    lagrangian: &Expression,
    scope: &Scope,
    pool: &mut Pool,
    definitions: &mut Vec<NamedValue>,
    jacobians: Jacobians,
    errors: &mut Errors,
) -> Option<LagrangianEquations> {
    let n = spec.coordinates.len();
    let l = parse_expr(pool, scope, Context::LAGRANGIAN, &lagrangian.0, errors);
    let holonomic = parse_constraints(pool, scope, Context::HOLONOMIC, &spec.holonomic, errors);
    let nonholonomic = parse_constraints(
        pool,
        scope,
        Context::NONHOLONOMIC,
        &spec.nonholonomic,
        errors,
    );
    let forces = parse_all(pool, scope, Context::FORCE, &spec.forces, errors);
    let nonideal = parse_all(pool, scope, Context::NONIDEAL, &spec.nonideal, errors);
    let loads: Vec<Load> = (spec.loads.iter())
        .filter_map(|e| parse_load(pool, scope, &e.0, errors))
        .collect();
    let rates = (!spec.speeds.is_empty()).then(|| super::speeds::parse(spec, scope, pool, errors));
    let speed = |s: Symbol| matches!(s, Symbol::Speed(_));
    if pool.depends_on(l, &speed) {
        errors.push(
            lagrangian.span(),
            "L is written in the generalized velocities `dot(q)`: the speeds enter it through \
             the kinematic differential equations, and may appear in the constraints, forces, \
             loads and outputs",
        );
    }
    if !errors.is_empty() {
        return None;
    }
    check_constraints(pool, &holonomic, &nonholonomic, errors);
    let holonomic: Vec<ExprId> = holonomic.into_iter().map(|(f, _)| f).collect();
    let nonholonomic: Vec<ExprId> = nonholonomic.into_iter().map(|(phi, _)| phi).collect();
    let forces = add_loads(pool, n, &forces, &loads);

    // A kinematic tree gives M by the composite-rigid-body algorithm and Q by recursive
    // Newton–Euler. When L is exactly the tree's Lagrangian (a URDF model), that form is the
    // only one formed: the others cost most of the derivation (Panda: ∂²L/∂q̇² and Q take 25824
    // operations against the tree's 3039) and never win on a tree (the README's "Robots"
    // table, from `op_counts`, which derives the model on the dense path too). A model without
    // a tree may build one in its definitions: that tree is used only when it holds all of L.
    let constants = match &spec.tree {
        Some(tree) => match super::tree::body_constants(pool, tree, n) {
            Ok(constants) => Some(constants),
            Err(e) => {
                errors.push(lagrangian.span(), e.to_string());
                return None;
            }
        },
        None => super::tree::recognize(pool, scope, &lagrangian.0, n),
    };
    // The part of L the tree does not hold; a recognized tree must hold all of it, and is
    // dropped before any of its recursions is formed otherwise.
    let with_rest = constants.map(|c| {
        let rest = super::tree::rest_of_lagrangian(pool, &c, l);
        (c, rest)
    });
    let with_rest = with_rest.filter(|&(_, rest)| spec.tree.is_some() || pool.is_zero(rest));
    let tree = (with_rest.as_ref()).map(|(c, rest)| tree_form(pool, c, n, *rest, &forces));
    // The Jacobi integral h = q̇ᵀ ∂L/∂q̇ − L: the tree's energy plus the rest's integral where a
    // tree holds L (the tree's momenta are never formed), else from ∂L/∂q̇ᵢ.
    let tree_energy = (with_rest.as_ref()).map(|(c, rest)| {
        let tree = super::tree::energy(pool, c);
        let rest_momenta = momenta(pool, *rest, n);
        let rest = jacobi_integral(pool, *rest, &rest_momenta);
        pool.add(&[tree, rest])
    });
    let constants = with_rest.map(|(c, _)| c);
    let mut candidates = Vec::new();
    let tree_forces = tree.as_ref().and_then(|form| form.joint_forces.clone());
    // ∂L/∂q̇ᵢ, for the Lagrangian forms and the Jacobi integral of a model with no tree.
    let mut lagrangian_momenta: Option<Vec<ExprId>> = None;
    match tree {
        Some(TreeForm {
            mass_matrix,
            force,
            holds_all: true,
            ..
        }) => candidates.push((MassMatrixForm::CompositeRigidBody, mass_matrix, force)),
        tree => {
            // M = ∂²L/∂q̇², which must not depend on q̇ (L quadratic in q̇).
            let momenta: &[ExprId] = lagrangian_momenta.get_or_insert_with(|| momenta(pool, l, n));
            let mass_matrix = symmetric_jacobian(pool, momenta, Symbol::Velocity);
            let is_velocity = |s: Symbol| matches!(s, Symbol::Velocity(_));
            if pool.any_depends_on(&mass_matrix.entries, &is_velocity) {
                errors.push(
                    lagrangian.span(),
                    "the Lagrangian is not quadratic in the generalized velocities: the mass \
                     matrix ∂²L/∂q̇² depends on them",
                );
                return None;
            }
            let force = generalized_force(pool, l, momenta, &mass_matrix.entries, &forces);
            // The same M and Q from the bodies' partial velocities (with the Lagrangian Q, and
            // with Kane's) and the tree's form with the rest of L; the smallest pair is kept
            // (the first of equals).
            candidates.push((MassMatrixForm::Lagrangian, mass_matrix, force));
            if let Some(split) = bodies::split(pool, scope, &lagrangian.0) {
                let by_bodies = bodies::mass_matrix(pool, &split, n);
                let by_bodies_force =
                    generalized_force(pool, l, momenta, &by_bodies.entries, &forces);
                // Kane: Q = Q₀ of the bodies + the Lagrangian Q of L_rest (with the forces).
                let bias = bodies::kane_bias(pool, &split.bodies, n);
                let (_, rest_force) = rest_terms(pool, split.rest, n, &forces);
                let kane_force = sum_entries(pool, &bias, &rest_force);
                candidates.push((
                    MassMatrixForm::PartialVelocities,
                    by_bodies.clone(),
                    by_bodies_force,
                ));
                candidates.push((MassMatrixForm::Kane, by_bodies, kane_force));
            }
            if let Some(form) = tree {
                candidates.push((
                    MassMatrixForm::CompositeRigidBody,
                    form.mass_matrix,
                    form.force,
                ));
            }
        }
    }
    let sizes: Vec<usize> = (candidates.iter())
        .map(|(_, m, q)| pool.operation_count(&[&m.entries[..], q].concat()))
        .collect();
    let forms = (candidates.iter().zip(&sizes))
        .map(|((form, _, _), &size)| (*form, size))
        .collect();
    let smallest = (0..candidates.len())
        .min_by_key(|&k| (sizes[k], k))
        .unwrap_or(0);
    let (chosen, mass_matrix, generalized_force) = candidates.swap_remove(smallest);
    if chosen == MassMatrixForm::CompositeRigidBody {
        let outputs = [&mass_matrix.entries[..], &generalized_force].concat();
        definitions.extend(super::tree::temporaries(pool, &outputs));
    }

    // Velocity level: ḟ = (∂/∂t + q̇ᵀ∂/∂q) f, then φ. Their time derivatives are
    // A q̈ − b with A = ∂(ḟ or φ)/∂q̇ (= ∂(f̈ or φ̇)/∂q̈) and b = −(∂/∂t + q̇ᵀ∂/∂q)(ḟ or φ).
    let first: Vec<ExprId> = (holonomic.iter())
        .map(|&f| pool.convective_derivative(f))
        .collect();
    let velocity_constraints: Vec<ExprId> = first.iter().chain(&nonholonomic).copied().collect();
    let constraint_matrix = jacobian(pool, &velocity_constraints, n, Symbol::Velocity);
    let constraint_rhs: Vec<ExprId> = (velocity_constraints.iter())
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

    let articulated = match (&constants, &tree_forces) {
        (Some(constants), Some(extra)) if rates.is_none() => {
            articulated(pool, constants, extra, &nonideal_force, &constraint_matrix)
        }
        _ => None,
    };

    let energy = match tree_energy {
        Some(energy) => energy,
        None => {
            let momenta = lagrangian_momenta.unwrap_or_else(|| momenta(pool, l, n));
            jacobi_integral(pool, l, &momenta)
        }
    };

    if let Some(rates) = rates {
        let terms = super::speeds::Terms {
            mass_matrix,
            generalized_force,
            nonideal_force,
            nonconservative_force: forces,
            energy,
            velocity_constraints,
        };
        let rewritten = super::speeds::rewrite(pool, &rates, &terms);
        let t = rewritten.terms;
        return errors.is_empty().then_some(LagrangianEquations {
            mass_matrix_form: chosen,
            mass_matrix_forms: forms,
            mass_matrix: t.mass_matrix,
            generalized_force: t.generalized_force,
            constraint_matrix: rewritten.constraint_matrix,
            constraint_rhs: rewritten.constraint_rhs,
            nonideal_force: t.nonideal_force,
            nonconservative_force: t.nonconservative_force,
            articulated: None,
            energy: t.energy,
            holonomic,
            velocity_constraints: t.velocity_constraints,
            jacobians: None,
            tree_residual: None,
            servo: None,
            contacts: Vec::new(),
            kinematics: Some(rewritten.kinematics),
        });
    }

    // A tree whose M is the composite-rigid-body one and whose rest of L is at most a
    // potential gives M v − Q₀ by inverse dynamics, O(n) where M v takes O(n²), and its
    // Jacobians differentiate that.
    let tree_residual = match (&constants, &tree_forces, chosen) {
        (Some(constants), Some(extra), MassMatrixForm::CompositeRigidBody) => {
            let v: Vec<ExprId> = (0..n)
                .map(|j| pool.symbol(Symbol::Acceleration(j)))
                .collect();
            let inertial = super::tree::constant_inverse_dynamics(pool, constants, n, &v);
            Some(TreeResidual {
                inertial,
                joint_forces: extra.clone(),
                constants: constants.clone(),
            })
        }
        _ => None,
    };
    let mut equations = LagrangianEquations {
        mass_matrix_form: chosen,
        mass_matrix_forms: forms,
        mass_matrix,
        generalized_force,
        constraint_matrix,
        constraint_rhs,
        nonideal_force,
        nonconservative_force: forces,
        articulated,
        energy,
        holonomic,
        velocity_constraints,
        jacobians: None,
        tree_residual,
        servo: None,
        contacts: Vec::new(),
        kinematics: None,
    };
    let force = jacobian::residual_force(pool, &equations);
    if jacobians == Jacobians::Now {
        let k = spec.inputs.len();
        equations.jacobians = jacobian::lagrangian(pool, &equations, &force, k);
    }
    let e = &equations;
    equations.servo = super::servo::derive(
        spec,
        scope,
        pool,
        (&e.generalized_force, &e.nonideal_force),
        &jacobian::Residuals::lagrangian(e, &force),
        (&e.holonomic, e.velocity_constraints.len()),
        errors,
    );
    equations.contacts = super::contacts::derive(spec, scope, pool, errors);
    errors.is_empty().then_some(equations)
}

/// A kinematic tree's M and Q, from [`tree_form`].
struct TreeForm {
    /// M by the composite-rigid-body algorithm plus ∂²L_rest/∂q̇².
    mass_matrix: ExprMatrix,
    /// Q = Q₀ + the forces + the Lagrangian Q of L_rest.
    force: Vec<ExprId>,
    /// Whether L_rest is zero: the tree holds all of L.
    holds_all: bool,
    /// When ∂²L_rest/∂q̇² is zero (L_rest at most a potential), Q − Q₀: the joint forces the
    /// articulated-body algorithm adds to the bias (n entries).
    joint_forces: Option<Vec<ExprId>>,
}

/// M and Q of a kinematic tree for a model with `n` coordinates: M by the composite-rigid-body
/// algorithm, Q = Q₀ + `forces` with the bias Q₀ by recursive Newton–Euler (`tree`), plus
/// ∂²L_rest/∂q̇² and the Lagrangian Q of `rest`, the part of L the tree does not hold
/// ([`super::tree::rest_of_lagrangian`]; none for a URDF model).
fn tree_form(
    pool: &mut Pool,
    constants: &TreeConstants,
    n: usize,
    rest: ExprId,
    forces: &[ExprId],
) -> TreeForm {
    let dynamics = super::tree::smallest(pool, constants, n);
    let (rest_matrix, rest_force) = rest_terms(pool, rest, n, forces);
    let entries = sum_entries(pool, &dynamics.mass_matrix.entries, &rest_matrix);
    let force = sum_entries(pool, &dynamics.bias, &rest_force);
    let potential_only = rest_matrix.iter().all(|&e| pool.is_zero(e));
    TreeForm {
        mass_matrix: ExprMatrix {
            rows: n,
            cols: n,
            entries,
        },
        force,
        holds_all: pool.is_zero(rest),
        joint_forces: potential_only.then_some(rest_force),
    }
}

/// q̈₀ = M⁻¹(Q + C) and W = M⁻¹Aᵀ by the articulated-body algorithm on the tree of
/// `constants`, for the joint forces `extra` + C besides the tree's bias and the rows of A;
/// `None` where the algorithm cannot apply (see [`super::tree::articulated`]).
fn articulated(
    pool: &mut Pool,
    constants: &TreeConstants,
    extra: &[ExprId],
    nonideal: &[ExprId],
    constraint_matrix: &ExprMatrix,
) -> Option<ArticulatedEquations> {
    let n = constraint_matrix.cols;
    let tau: Vec<ExprId> = (extra.iter().zip(nonideal))
        .map(|(&f, &c)| pool.add(&[f, c]))
        .collect();
    let rows: Vec<Vec<ExprId>> = (0..constraint_matrix.rows)
        .map(|r| (0..n).map(|j| constraint_matrix.get(r, j)).collect())
        .collect();
    let solve = super::tree::constant_articulated(pool, constants, n, &tau, &rows)?;
    Some(ArticulatedEquations {
        unconstrained_acceleration: solve.acceleration,
        inverse_mass_constraint: solve.inverse_mass_columns,
        pivots: solve.pivots,
    })
}

/// ∂²L_rest/∂q̇² (row-major) and the Lagrangian Q of L_rest = `rest` with `forces` added.
fn rest_terms(
    pool: &mut Pool,
    rest: ExprId,
    n: usize,
    forces: &[ExprId],
) -> (Vec<ExprId>, Vec<ExprId>) {
    let momenta = momenta(pool, rest, n);
    let matrix = symmetric_jacobian(pool, &momenta, Symbol::Velocity);
    let force = generalized_force(pool, rest, &momenta, &matrix.entries, forces);
    (matrix.entries, force)
}

/// ∂`l`/∂q̇ᵢ, n entries.
fn momenta(pool: &mut Pool, l: ExprId, n: usize) -> Vec<ExprId> {
    (0..n).map(|i| pool.diff(l, Symbol::Velocity(i))).collect()
}

/// The Jacobi integral h = q̇ᵀ`momenta` − `l` of a Lagrangian `l` with ∂l/∂q̇ = `momenta`.
fn jacobi_integral(pool: &mut Pool, l: ExprId, momenta: &[ExprId]) -> ExprId {
    let velocities = velocities(pool, momenta.len());
    let mut terms: Vec<ExprId> = (velocities.iter().zip(momenta))
        .map(|(&v, &p)| pool.mul(&[v, p]))
        .collect();
    terms.push(pool.neg(l));
    pool.add(&terms)
}

/// a + b, entry by entry.
fn sum_entries(pool: &mut Pool, a: &[ExprId], b: &[ExprId]) -> Vec<ExprId> {
    (a.iter().zip(b))
        .map(|(&x, &y)| pool.add(&[x, y]))
        .collect()
}

/// The generalized velocities q̇₁ … q̇ₙ as expressions.
fn velocities(pool: &mut Pool, n: usize) -> Vec<ExprId> {
    (0..n).map(|i| pool.symbol(Symbol::Velocity(i))).collect()
}

/// Q = ∂L/∂q − (∂²L/∂q̇∂q) q̇ − ∂²L/∂q̇∂t + forces (review paper, eq 20), for L quadratic in
/// q̇ written as L = ½q̇ᵀMq̇ + gᵀq̇ + L₀ with g = ∂L/∂q̇ and L₀ = L at q̇ = 0:
///
/// Qᵢ = Σ_{j≤k} cᵢⱼₖ q̇ⱼq̇ₖ + Σⱼ (∂gⱼ/∂qᵢ − ∂gᵢ/∂qⱼ) q̇ⱼ + ∂L₀/∂qᵢ − ∂gᵢ/∂t − Σⱼ (∂Mᵢⱼ/∂t) q̇ⱼ,
///
/// with the Christoffel symbols of the first kind cᵢⱼₖ = ∂Mⱼₖ/∂qᵢ − ∂Mᵢⱼ/∂qₖ − ∂Mᵢₖ/∂qⱼ
/// (j < k) and cᵢⱼⱼ = ½∂Mⱼⱼ/∂qᵢ − ∂Mᵢⱼ/∂qⱼ. Expanding ∂L/∂qᵢ and the convective derivative
/// of ∂L/∂q̇ᵢ = Σⱼ Mᵢⱼq̇ⱼ + gᵢ gives this sum term by term; written so, the terms that cancel
/// (such as ∂Mᵢⱼ/∂qₖ against itself in cᵢⱼₖ) are identical DAG nodes and vanish in the
/// like-term collection, instead of surviving as pairs like m₂X − m₂(X + Y).
pub(super) fn generalized_force(
    pool: &mut Pool,
    l: ExprId,
    momenta: &[ExprId],
    mass_matrix: &[ExprId],
    forces: &[ExprId],
) -> Vec<ExprId> {
    let n = momenta.len();
    let velocities = velocities(pool, n);
    let mut at_rest = |pool: &mut Pool, s: Symbol| match s {
        Symbol::Velocity(_) => Some(pool.zero()),
        _ => None,
    };
    // The momenta and L at rest in one substitution, which shares the work on their common
    // nodes (each momentum holds the velocities of the links before).
    let mut g = pool.substitute_many(&[momenta, &[l]].concat(), &mut at_rest);
    let l0 = g.pop().expect("L is the last");
    let half = pool.rational(1, 2);
    let m = |i: usize, j: usize| mass_matrix[i * n + j];
    (0..n)
        .map(|i| {
            let mut terms = Vec::new();
            for j in 0..n {
                for k in j..n {
                    let mut coefficient = if j == k {
                        let d = pool.diff(m(j, j), Symbol::Coordinate(i));
                        vec![pool.mul(&[half, d])]
                    } else {
                        vec![pool.diff(m(j, k), Symbol::Coordinate(i))]
                    };
                    let d = pool.diff(m(i, j), Symbol::Coordinate(k));
                    coefficient.push(pool.neg(d));
                    if j != k {
                        let d = pool.diff(m(i, k), Symbol::Coordinate(j));
                        coefficient.push(pool.neg(d));
                    }
                    let c = pool.add(&coefficient);
                    terms.push(pool.mul(&[c, velocities[j], velocities[k]]));
                }
                let gyroscopic = pool.diff(g[j], Symbol::Coordinate(i));
                let d = pool.diff(g[i], Symbol::Coordinate(j));
                let minus = pool.neg(d);
                let dmdt = pool.diff(m(i, j), Symbol::Time);
                let minus_dmdt = pool.neg(dmdt);
                let c = pool.add(&[gyroscopic, minus, minus_dmdt]);
                terms.push(pool.mul(&[c, velocities[j]]));
            }
            terms.push(pool.diff(l0, Symbol::Coordinate(i)));
            let dgdt = pool.diff(g[i], Symbol::Time);
            terms.push(pool.neg(dgdt));
            terms.extend(forces.get(i));
            pool.add(&terms)
        })
        .collect()
}

/// The non-conservative generalized forces (`forces`, n entries or none) plus the generalized
/// forces of the loads: Qᵢ += F·∂p/∂qᵢ for a force F at point p (= F·∂ṗ/∂q̇ᵢ) and
/// Qᵢ += T·∂ω/∂q̇ᵢ for a torque T on a body of angular velocity ω (virtual work; Kane &
/// Levinson 1985, generalized active forces). Empty when there are neither.
fn add_loads(pool: &mut Pool, n: usize, forces: &[ExprId], loads: &[Load]) -> Vec<ExprId> {
    if loads.is_empty() {
        return forces.to_vec();
    }
    (0..n)
        .map(|i| {
            let mut terms: Vec<ExprId> = forces.get(i).copied().into_iter().collect();
            for load in loads {
                let (vector, partial) = match *load {
                    Load::Force { force, point } => {
                        (force, point.map(|x| pool.diff(x, Symbol::Coordinate(i))))
                    }
                    Load::Torque {
                        torque,
                        angular_velocity,
                    } => (
                        torque,
                        angular_velocity.map(|x| pool.diff(x, Symbol::Velocity(i))),
                    ),
                };
                for k in 0..3 {
                    terms.push(pool.mul(&[vector[k], partial[k]]));
                }
            }
            pool.add(&terms)
        })
        .collect()
}

/// An error at each constraint that depends on no coordinate or velocity, and at each
/// nonholonomic constraint with no velocity (it would be differentiated once only).
pub(super) fn check_constraints(
    pool: &Pool,
    holonomic: &[(ExprId, Span)],
    nonholonomic: &[(ExprId, Span)],
    errors: &mut Errors,
) {
    // A holonomic f(q, t) cannot hold a velocity (the parser rejects one), so "no coordinate"
    // is "no coordinate or velocity" there.
    check_holonomic(pool, holonomic, errors);
    let state = |s: Symbol| {
        matches!(
            s,
            Symbol::Coordinate(_) | Symbol::Velocity(_) | Symbol::Speed(_)
        )
    };
    let velocity = |s: Symbol| matches!(s, Symbol::Velocity(_) | Symbol::Speed(_));
    for &(phi, span) in nonholonomic {
        if !pool.depends_on(phi, &state) {
            errors.push(
                span,
                "this nonholonomic constraint depends on no generalized coordinate or velocity",
            );
        } else if !pool.depends_on(phi, &velocity) {
            errors.push(
                span,
                "this nonholonomic constraint has no generalized velocity `dot(..)`: write it \
                 as a holonomic constraint, which is differentiated twice",
            );
        }
    }
}
