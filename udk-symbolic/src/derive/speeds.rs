//! Generalized speeds: the equations of a Lagrangian model rewritten for the speeds u of its
//! kinematic differential equations q̇ = K(q, u, t) = N(q, t) u + c(q, t) (Kane & Levinson
//! 1985, ch. 2 and 6).
//!
//! With q̈ = N u̇ + β, β = Ṅu + ċ = (∂K/∂q) K + ∂K/∂t (the chain rule, u held fixed),
//! M q̈ = Q + Qᶜ premultiplied by Nᵀ and A q̈ = b give
//!
//! - M_u = Nᵀ M N, Q_u = Nᵀ (Q − M β), C_u = Nᵀ C, the forces Nᵀ F;
//! - A_u = ∂r/∂u and b_u = −((∂r/∂q) K + ∂r/∂t) for the velocity-level constraints r(q, u, t)
//!   (ḟ and φ with q̇ = K): for a holonomic row A_u = (∂f/∂q) N and b_u = b − (∂f/∂q) β, and a
//!   nonholonomic row may be written in u directly.
//!
//! The ideal constraint force Nᵀ Aᵀ λ = A_uᵀ λ stays ideal, so the Udwadia–Kalaba kernels
//! apply to (M_u, Q_u, A_u, b_u, C_u) unchanged and give u̇. N must be square (one speed per
//! coordinate, checked by the spec's checks) and invertible along the motion for u to describe
//! every q̇; where it is singular, M_u is too and the kernels report it.

use super::jacobian;
use crate::derivation::{ExprMatrix, Kinematics};
use crate::error::Errors;
use crate::expr::{ExprId, Pool, Symbol};
use crate::parse::{parse_expr, Context, Scope};
use crate::spec::ModelSpec;

/// The kinematic differential equations of `spec` as parsed, with u as `Symbol::Speed`; an
/// error at each entry that holds a velocity `dot(..)` or is not linear in the speeds.
pub(super) fn parse(
    spec: &ModelSpec,
    scope: &Scope,
    pool: &mut Pool,
    errors: &mut Errors,
) -> Vec<ExprId> {
    let n = spec.speeds.len();
    let velocity = |s: Symbol| matches!(s, Symbol::Velocity(_));
    let speed = |s: Symbol| matches!(s, Symbol::Speed(_));
    (spec.kinematics.iter())
        .map(|e| {
            let k = parse_expr(pool, scope, Context::KINEMATICS, &e.0, errors);
            if pool.depends_on(k, &velocity) {
                errors.push(
                    e.span(),
                    "a kinematic differential equation gives q̇ᵢ in terms of q, the speeds and \
                     t: it may not hold a velocity `dot(..)`",
                );
            } else {
                let partials: Vec<ExprId> =
                    (0..n).map(|j| pool.diff(k, Symbol::Speed(j))).collect();
                if pool.any_depends_on(&partials, &speed) {
                    errors.push(
                        e.span(),
                        "a kinematic differential equation must be linear in the speeds: \
                         q̇ = N(q, t) u + c(q, t)",
                    );
                }
            }
            k
        })
        .collect()
}

/// The equations of a Lagrangian model in q̇ (with the speeds as `Symbol::Speed` where the
/// model wrote them), or the same rewritten in the speeds by [`rewrite`].
pub(super) struct Terms {
    /// M, n × n.
    pub mass_matrix: ExprMatrix,
    /// Q, n entries.
    pub generalized_force: Vec<ExprId>,
    /// C, n entries.
    pub nonideal_force: Vec<ExprId>,
    /// The forces and loads' generalized forces, n entries or none.
    pub nonconservative_force: Vec<ExprId>,
    /// The Jacobi integral.
    pub energy: ExprId,
    /// The velocity-level constraints (ḟ, φ), m entries.
    pub velocity_constraints: Vec<ExprId>,
}

/// The rewritten equations: [`Terms`] in u, with A_u and b_u.
pub(super) struct Rewritten {
    /// M_u, Q_u, C_u, the forces, the Jacobi integral and the velocity-level constraints.
    pub terms: Terms,
    /// A_u, m × n.
    pub constraint_matrix: ExprMatrix,
    /// b_u, m entries.
    pub constraint_rhs: Vec<ExprId>,
    /// K and N.
    pub kinematics: Kinematics,
}

/// `terms` rewritten for the speeds of the kinematic differential equations `rates`
/// (q̇ = K(q, u, t), n entries, u as `Symbol::Speed`): see the module documentation. In the
/// result the speeds are `Symbol::Velocity`, the second half of the state, and no q̇ is left.
pub(super) fn rewrite(pool: &mut Pool, rates: &[ExprId], terms: &Terms) -> Rewritten {
    let n = rates.len();
    let matrix = jacobian(pool, rates, n, Symbol::Speed);
    // d/dt with u̇ = 0: ∂/∂t + Σ Kₖ ∂/∂qₖ.
    let mut along = |pool: &mut Pool, s: Symbol| match s {
        Symbol::Time => pool.one(),
        Symbol::Coordinate(k) => rates[k],
        _ => pool.zero(),
    };
    let bias = pool.total_derivative(rates, &mut along);
    let mut velocity = |_: &mut Pool, s: Symbol| match s {
        Symbol::Velocity(i) => Some(rates[i]),
        _ => None,
    };
    let mass = &terms.mass_matrix;
    let mut force = pool.substitute_many(&terms.generalized_force, &mut velocity);
    for (i, f) in force.iter_mut().enumerate() {
        let products: Vec<ExprId> = (0..n)
            .map(|j| pool.mul(&[mass.get(i, j), bias[j]]))
            .collect();
        let inertial = pool.add(&products);
        *f = pool.sub(*f, inertial);
    }
    let generalized_force = transpose_times(pool, &matrix, &force);
    let nonideal = pool.substitute_many(&terms.nonideal_force, &mut velocity);
    let nonideal_force = transpose_times(pool, &matrix, &nonideal);
    let forces = pool.substitute_many(&terms.nonconservative_force, &mut velocity);
    let nonconservative_force = match forces.is_empty() {
        true => forces,
        false => transpose_times(pool, &matrix, &forces),
    };
    let mut entries = vec![pool.zero(); n * n];
    for a in 0..n {
        for b in a..n {
            let products: Vec<ExprId> = (0..n)
                .flat_map(|i| (0..n).map(move |j| (i, j)))
                .map(|(i, j)| pool.mul(&[matrix.get(i, a), mass.get(i, j), matrix.get(j, b)]))
                .collect();
            let sum = pool.add(&products);
            entries[a * n + b] = sum;
            entries[b * n + a] = sum;
        }
    }
    let energy = pool.substitute(terms.energy, &mut velocity);
    let velocity_constraints = pool.substitute_many(&terms.velocity_constraints, &mut velocity);
    let constraint_matrix = jacobian(pool, &velocity_constraints, n, Symbol::Speed);
    let rhs = pool.total_derivative(&velocity_constraints, &mut along);
    let constraint_rhs: Vec<ExprId> = rhs.iter().map(|&r| pool.neg(r)).collect();

    // The speeds become the second half of the state.
    let matrix_in_state = |pool: &mut Pool, m: &ExprMatrix| ExprMatrix {
        rows: m.rows,
        cols: m.cols,
        entries: to_state(pool, &m.entries),
    };
    let mass_matrix = ExprMatrix {
        rows: n,
        cols: n,
        entries: to_state(pool, &entries),
    };
    Rewritten {
        terms: Terms {
            mass_matrix,
            generalized_force: to_state(pool, &generalized_force),
            nonideal_force: to_state(pool, &nonideal_force),
            nonconservative_force: to_state(pool, &nonconservative_force),
            energy: to_state(pool, &[energy])[0],
            velocity_constraints: to_state(pool, &velocity_constraints),
        },
        constraint_matrix: matrix_in_state(pool, &constraint_matrix),
        constraint_rhs: to_state(pool, &constraint_rhs),
        kinematics: Kinematics {
            rates: to_state(pool, rates),
            matrix: matrix_in_state(pool, &matrix),
        },
    }
}

/// `ids` with each speed `Symbol::Speed(j)` read as `Symbol::Velocity(j)`.
fn to_state(pool: &mut Pool, ids: &[ExprId]) -> Vec<ExprId> {
    pool.substitute_many(ids, &mut |pool, s| match s {
        Symbol::Speed(j) => Some(pool.symbol(Symbol::Velocity(j))),
        _ => None,
    })
}

/// An expression of (q, q̇, u, t) of a model with speeds (an output, a definition), written in
/// its state (q, u, t): q̇ replaced by `rates` (K with the speeds as `Symbol::Velocity`, as
/// [`Kinematics::rates`]) and each speed read as `Symbol::Velocity`, in one pass.
pub(super) fn in_state(pool: &mut Pool, rates: &[ExprId], ids: &[ExprId]) -> Vec<ExprId> {
    pool.substitute_many(ids, &mut |pool, s| match s {
        Symbol::Velocity(i) => Some(rates[i]),
        Symbol::Speed(j) => Some(pool.symbol(Symbol::Velocity(j))),
        _ => None,
    })
}

/// Nᵀ v for the n × n matrix N and n entries v.
fn transpose_times(pool: &mut Pool, matrix: &ExprMatrix, v: &[ExprId]) -> Vec<ExprId> {
    (0..matrix.cols)
        .map(|a| {
            let products: Vec<ExprId> = (0..matrix.rows)
                .map(|i| pool.mul(&[matrix.get(i, a), v[i]]))
                .collect();
            pool.add(&products)
        })
        .collect()
}
