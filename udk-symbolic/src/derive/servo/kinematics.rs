//! Servo rows of a kinematic tree's link frames by the tree's kinematics: a row written with
//! `link_position`/`link_rotation` is read with each body frame's world rotation Rᵢ and origin
//! oᵢ as placeholders whose rates are known from the forward recursion (Featherstone 2008,
//! §2.11 and §5.3; Siciliano et al. 2009, §3.1), in the world frame with the root fixed:
//!
//! ωᵢ = ω_λ + zᵢ q̇ᵢ (revolute), vᵢ = v_λ + ω_λ × (oᵢ − o_λ) (+ zᵢ q̇ᵢ, prismatic),
//! Ṙᵢ = \[ωᵢ\]× Rᵢ, ȯᵢ = vᵢ,
//!
//! with λ the parent and zᵢ = Rᵢ sᵢ the joint axis sᵢ (joint frame) in the world. The time
//! derivatives of a row then follow the chain rule through the placeholders: its Jacobian
//! holds the geometric Jacobian's columns zᵢ × (p − oᵢ) and zᵢ, and its b the bias
//! acceleration of the recursion with q̈ = 0 (J̇q̇), where differentiating the world-frame
//! expression of the link frames twice expands the whole chain of rotations. The placeholders
//! are replaced by the frames' own definitions at the end, which the position residuals and
//! the outputs use too.

use super::Rows;
use crate::derive::{check, define_with};
use crate::error::Errors;
use crate::expr::{ExprId, Pool, Symbol};
use crate::parse::{cross3, mat_t_vec, mat_vec, Binding, Context, Matrix, Rates, Scope, Value};
use crate::spec::{Expression, ModelSpec};
use crate::tree::TreeJoint;
use std::collections::HashMap;

/// Placeholders per body: the nine entries of its rotation (row-major), then its origin.
const SLOTS: usize = 12;

/// The servo rows of the `holonomic` and `nonholonomic` entries of `spec` (n coordinates) by
/// its tree's kinematics, the frames replaced by their definitions in `scope`; `None` for a
/// model without a tree or when an entry cannot be read so (it is then read as written).
pub(super) fn rows(
    spec: &ModelSpec,
    scope: &Scope,
    pool: &mut Pool,
    (holonomic, nonholonomic): (&[Expression], &[Expression]),
    n: usize,
) -> Option<Rows> {
    let tree = spec.tree.as_ref()?;
    if spec.tree_frames.len() != tree.bodies.len() {
        return None;
    }
    // The placeholders are parameters past the model's own.
    let base = spec.parameters.len();
    let placeholder = |pool: &mut Pool, body: usize, slot: usize| {
        pool.symbol(Symbol::Parameter(base + SLOTS * body + slot))
    };
    let mut omega: Vec<[ExprId; 3]> = Vec::with_capacity(tree.bodies.len());
    let mut velocity: Vec<[ExprId; 3]> = Vec::with_capacity(tree.bodies.len());
    let mut origins: Vec<[ExprId; 3]> = Vec::with_capacity(tree.bodies.len());
    let mut rates: Vec<ExprId> = Vec::with_capacity(SLOTS * tree.bodies.len());
    let mut given: HashMap<String, Value> = HashMap::new();
    let zero = pool.zero();
    for (b, body) in tree.bodies.iter().enumerate() {
        let rotation = Matrix::plain(std::array::from_fn(|k| placeholder(pool, b, k)));
        let origin: [ExprId; 3] = std::array::from_fn(|k| placeholder(pool, b, 9 + k));
        let (revolute, coordinate, axis) = match body.joint {
            TreeJoint::Revolute { coordinate, axis } => (true, coordinate, axis),
            TreeJoint::Prismatic { coordinate, axis } => (false, coordinate, axis),
        };
        let axis = axis.map(|x| pool.number(x));
        let z = mat_vec(pool, &rotation, axis);
        let rate = pool.symbol(Symbol::Velocity(coordinate));
        let joint = z.map(|x| pool.mul(&[x, rate]));
        let (parent_omega, parent_velocity, arm) = match body.parent {
            Some(p) => {
                let arm: [ExprId; 3] = std::array::from_fn(|k| pool.sub(origin[k], origins[p][k]));
                (omega[p], velocity[p], cross3(pool, omega[p], arm))
            }
            None => ([zero; 3], [zero; 3], [zero; 3]),
        };
        let w: [ExprId; 3] = std::array::from_fn(|k| {
            let terms = [parent_omega[k], if revolute { joint[k] } else { zero }];
            pool.shared_sum(&terms)
        });
        let v: [ExprId; 3] = std::array::from_fn(|k| {
            let terms = [
                parent_velocity[k],
                arm[k],
                if revolute { zero } else { joint[k] },
            ];
            pool.shared_sum(&terms)
        });
        // Ṙ = [ω]× R, column by column.
        let columns = [0, 1, 2].map(|j| {
            let column = [0, 1, 2].map(|i| rotation.get(i, j));
            cross3(pool, w, column)
        });
        rates.extend((0..9).map(|k| columns[k % 3][k / 3]));
        rates.extend(v);
        let body_rate = mat_t_vec(pool, &rotation, w);
        let frame = Matrix {
            entries: rotation.entries,
            rates: Some(Rates {
                world: w,
                body: body_rate,
            }),
        };
        let (rotation_name, origin_name) = &spec.tree_frames[b];
        given.insert(rotation_name.clone(), Value::Matrix(frame));
        given.insert(origin_name.clone(), Value::Vector(origin));
        omega.push(w);
        velocity.push(v);
        origins.push(origin);
    }
    // The entries read again, with the frames as placeholders.
    let mut errors = Errors::default();
    let mut placeholders = check::scope(spec, &mut errors);
    let context = Context::LAGRANGIAN_DEFINITION;
    define_with(
        spec,
        context,
        pool,
        &mut placeholders,
        &mut errors,
        &|name| given.get(name).copied(),
    );
    let holonomic = super::super::parse_constraints(
        pool,
        &placeholders,
        Context::HOLONOMIC,
        holonomic,
        &mut errors,
    );
    let nonholonomic = super::super::parse_constraints(
        pool,
        &placeholders,
        Context::NONHOLONOMIC,
        nonholonomic,
        &mut errors,
    );
    if !errors.is_empty() {
        return None;
    }
    let holonomic: Vec<ExprId> = holonomic.into_iter().map(|(e, _)| e).collect();
    let nonholonomic: Vec<ExprId> = nonholonomic.into_iter().map(|(e, _)| e).collect();
    let mut convective = |pool: &mut Pool, ids: &[ExprId]| {
        pool.total_derivative(ids, &mut |pool, s| match s {
            Symbol::Time => pool.one(),
            Symbol::Coordinate(i) => pool.symbol(Symbol::Velocity(i)),
            Symbol::Parameter(i) if i >= base => rates[i - base],
            _ => pool.zero(),
        })
    };
    let rows = Rows::new(pool, (&holonomic, &nonholonomic), n, &mut convective);
    // The frames' own definitions in place of the placeholders, each kept as one operand.
    let mut frames = Vec::with_capacity(SLOTS * tree.bodies.len());
    for (rotation_name, origin_name) in &spec.tree_frames {
        match (
            definition(scope, rotation_name),
            definition(scope, origin_name),
        ) {
            (Some(Value::Matrix(r)), Some(Value::Vector(o))) => {
                frames.extend(r.entries.into_iter().chain(o).map(|x| pool.shared(x)));
            }
            _ => return None,
        }
    }
    let mut replace = |_: &mut Pool, s: Symbol| match s {
        Symbol::Parameter(i) if i >= base => Some(frames[i - base]),
        _ => None,
    };
    let all = pool.substitute_many(&rows.all(), &mut replace);
    let (entries, rest) = all.split_at(rows.constraint_matrix.entries.len());
    let (rhs, velocity_constraints) = rest.split_at(rows.constraint_rhs.len());
    Some(Rows {
        constraint_matrix: crate::derivation::ExprMatrix {
            entries: entries.to_vec(),
            ..rows.constraint_matrix
        },
        constraint_rhs: rhs.to_vec(),
        velocity_constraints: velocity_constraints.to_vec(),
    })
}

/// The value of the definition `name` in `scope`.
fn definition(scope: &Scope, name: &str) -> Option<Value> {
    match scope.lookup(name)? {
        Binding::Definition(i) => Some(scope.definitions()[i].value),
        _ => None,
    }
}
