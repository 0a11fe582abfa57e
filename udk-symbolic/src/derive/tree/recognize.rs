//! A kinematic tree found in a Lagrangian written by hand: L = Σ kinetic_energy(mᵦ, Iᵦ, pᵦ, Rᵦ)
//! − V with each body's pose built (in `let` definitions or inline) from its parent's by one
//! joint, a rotation by one coordinate about a constant axis or a translation by one
//! coordinate along one, and V = −Σ mᵦ g·pᵦ. Its constants are DAG expressions, so that
//! parameters (lengths, masses, g) stay symbolic.
//!
//! The recognition is a heuristic, made safe by the numeric check the caller runs
//! ([`super::rest_of_lagrangian`]): a recognized tree is used only when its Lagrangian equals L
//! at pseudo-random states. From each body's coordinates (those its pose depends on) come its
//! parent (the body whose coordinates are its own less one) and its joint coordinate qₖ; the
//! rest is read at q = 0, where the pool folds the constants:
//! - the joint axis in body axes is ∂Ω/∂q̇ₖ (revolute) or Rᵀ ∂p/∂qₖ (prismatic), a unit vector
//!   of numbers, which `constants::axis_frame` turns into the turned frame F = R P;
//! - the turn K = F_parentᵀ F and the offset of F's origin in F_parent;
//! - for a revolute joint, F's origin is the point of the axis nearest the parent frame's
//!   origin (so the offset is normal to the axis; URDF and DH frames give sparse offsets so):
//!   in F the centre of mass is c = (wᵧ, −wₓ, h), with w = Kᵀ F_parentᵀ ∂p/∂qₖ = e_z × c and
//!   h the parent-frame position of the centre of mass along the axis; for a prismatic joint,
//!   F's origin is the centre of mass;
//! - numbers left of a cancellation (below 16 ulps of the inputs) are made 0, and entries of
//!   the turns within 4 ulps of 0 or ±1 snapped, as for a URDF tree;
//! - g from the potential read again with each body's position name standing for a fresh
//!   symbol X: ∂V/∂Xᵦ = −mᵦ g.

use super::constants::{axis_frame, dot, snap_entry, BodyConstants, Inertia, TreeConstants};
use super::links::congruence;
use crate::derive::bodies::signed_terms;
use crate::error::Errors;
use crate::expr::{ExprId, Node, Number, Pool, Symbol};
use crate::parse::{
    body_angular_velocity, dot3, mat_mul, mat_t_vec, mat_vec, parse_body, parse_expr, Body,
    Context, Matrix, Scope, Value,
};
use std::collections::BTreeSet;
use syn::Expr;

/// A body of L with what the recognition reads from its `kinetic_energy` term.
struct Term {
    /// Mass, inertia, centre of mass and rotation.
    body: Body,
    /// The name of the centre of mass when the term gives it as a bare name.
    position: Option<String>,
    /// The coordinates the body's pose depends on.
    coordinates: BTreeSet<usize>,
}

/// The world pose of a recognized body's turned frame at q = 0.
struct Frame {
    /// F(0), row-major, constants.
    rotation: [ExprId; 9],
    /// The origin of F at q = 0, world frame, m.
    origin: [ExprId; 3],
}

/// The kinematic tree of the Lagrangian `lagrangian` of a model with `n` coordinates, `None`
/// when its bodies do not form one (see the module docs). The tree need not hold all of L:
/// check that with [`super::rest_of_lagrangian`].
pub(crate) fn recognize(
    pool: &mut Pool,
    scope: &Scope,
    lagrangian: &Expr,
    n: usize,
) -> Option<TreeConstants> {
    let mut terms = Vec::new();
    let mut others = Vec::new();
    for (negative, term) in signed_terms(lagrangian) {
        match parse_body(pool, scope, term).filter(|_| !negative) {
            Some(body) => {
                let mut ids = body.orientation.entries.to_vec();
                ids.extend(body.centre);
                terms.push(Term {
                    body,
                    position: position_name(term),
                    coordinates: coordinates(pool, &ids, n)?,
                });
            }
            None => others.push((negative, term)),
        }
    }
    if terms.is_empty() {
        return None;
    }
    // Parents before children: by the number of coordinates.
    terms.sort_by_key(|t| t.coordinates.len());
    let joints = joints(&terms, n)?;
    let mut frames: Vec<Frame> = Vec::with_capacity(terms.len());
    let mut bodies = Vec::with_capacity(terms.len());
    for (term, &(parent, coordinate)) in terms.iter().zip(&joints) {
        let parent_frame = parent.map(|p| &frames[p]);
        let (body, frame) = body_constants(pool, &term.body, parent, parent_frame, coordinate)?;
        frames.push(frame);
        bodies.push(body);
    }
    let gravity = gravity(pool, scope, &terms, &others)?;
    Some(TreeConstants { bodies, gravity })
}

/// The name `p` of a term `kinetic_energy(m, I, p, R)`, when p is a bare name.
fn position_name(term: &Expr) -> Option<String> {
    let mut e = term;
    loop {
        match e {
            Expr::Paren(p) => e = &p.expr,
            Expr::Group(g) => e = &g.expr,
            _ => break,
        }
    }
    let Expr::Call(call) = e else {
        return None;
    };
    match call.args.iter().nth(2)? {
        Expr::Path(path) => path.path.get_ident().map(ToString::to_string),
        _ => None,
    }
}

/// The coordinates (of `n`) the nodes `ids` depend on; `None` when they depend on anything
/// else than coordinates and parameters (time, a velocity: not a tree's pose).
fn coordinates(pool: &Pool, ids: &[ExprId], n: usize) -> Option<BTreeSet<usize>> {
    let other = |s: Symbol| !matches!(s, Symbol::Coordinate(_) | Symbol::Parameter(_));
    if pool.any_depends_on(ids, &other) {
        return None;
    }
    let moved_by = |k: usize| pool.any_depends_on(ids, &|s| s == Symbol::Coordinate(k));
    Some((0..n).filter(|&k| moved_by(k)).collect())
}

/// Each body's parent (an index into `terms`) and joint coordinate: the parent is the one
/// body whose coordinates are the body's own less one, the joint's coordinate; `None` when a
/// body has no coordinate, no such parent or several, or when two joints share a coordinate.
fn joints(terms: &[Term], n: usize) -> Option<Vec<(Option<usize>, usize)>> {
    let mut used = vec![false; n];
    let mut joints = Vec::with_capacity(terms.len());
    for (index, term) in terms.iter().enumerate() {
        let own = &term.coordinates;
        let mut parents = (terms[..index].iter().enumerate())
            .filter(|(_, t)| t.coordinates.len() + 1 == own.len() && t.coordinates.is_subset(own))
            .map(|(p, _)| p);
        let parent = match own.len() {
            0 => return None,
            1 => None,
            _ => Some(parents.next()?),
        };
        if parents.next().is_some() {
            return None;
        }
        let inherited = parent
            .map_or(&BTreeSet::new(), |p| &terms[p].coordinates)
            .clone();
        let coordinate = *own.difference(&inherited).next()?;
        let slot = used.get_mut(coordinate)?;
        if *slot {
            return None;
        }
        *slot = true;
        joints.push((parent, coordinate));
    }
    Some(joints)
}

/// `id` at q = 0; when that depends on no symbol, its value as a number (functions of exact
/// constants such as cos(1.5707963267948966) stay unevaluated in the pool), snapped to 0 or
/// ±1 within 4 ulps.
fn at_zero(pool: &mut Pool, id: ExprId) -> ExprId {
    let value = pool.substitute(id, &mut |pool, s| match s {
        Symbol::Coordinate(_) => Some(pool.zero()),
        _ => None,
    });
    match pool.get(value) {
        Node::Number(Number::Rational(..)) => value,
        _ if pool.depends_on(value, &|_| true) => value,
        _ => {
            let x = pool.eval(value, &|_| 0.0);
            pool.number(snap_entry(x))
        }
    }
}

/// The vector `v`, computed from the vectors `inputs`, with each numeric component below 16
/// ulps of the largest numeric component of the inputs made 0: what is left of a cancellation
/// (a frame origin at 8e-18 m from an axis where 0 was meant costs operations in every
/// recursion and moves nothing).
fn rounded_off(pool: &mut Pool, v: [ExprId; 3], inputs: &[[ExprId; 3]]) -> [ExprId; 3] {
    let scale = (inputs.iter().flatten())
        .filter_map(|&x| pool.as_number(x))
        .fold(0.0f64, |m, x| m.max(x.to_f64().abs()));
    v.map(|x| match pool.as_number(x) {
        Some(n) if n.to_f64().abs() <= 16.0 * f64::EPSILON * scale => pool.zero(),
        _ => x,
    })
}

/// The numbers of `ids`, `None` unless each is a number.
fn numeric(pool: &Pool, ids: [ExprId; 3]) -> Option<[f64; 3]> {
    let values = ids.map(|id| pool.as_number(id).map(Number::to_f64));
    Some([values[0]?, values[1]?, values[2]?])
}

/// The rotation P whose third column is the unit `axis` (numbers), as a constant matrix;
/// `None` when `axis` is not a unit vector to 1e-13 (a joint of rate other than q̇ₖ).
fn turned(pool: &mut Pool, axis: [f64; 3]) -> Option<Matrix> {
    if (dot(axis, axis).sqrt() - 1.0).abs() > 1e-13 {
        return None;
    }
    let p = axis_frame(axis);
    Some(Matrix::plain(std::array::from_fn(|k| {
        pool.number(p[k / 3][k % 3])
    })))
}

/// One body's constants in the tree and its frame at q = 0, from its parent's frame (`None`:
/// the world) and its joint coordinate; `None` when the joint is not a unit-rate rotation
/// about a constant axis or translation along one, or a constant depends on more than the
/// parameters.
fn body_constants(
    pool: &mut Pool,
    body: &Body,
    parent: Option<usize>,
    parent_frame: Option<&Frame>,
    coordinate: usize,
) -> Option<(BodyConstants, Frame)> {
    let (zero, one) = (pool.zero(), pool.one());
    let identity = [one, zero, zero, zero, one, zero, zero, zero, one];
    let (parent_rotation, parent_origin) =
        parent_frame.map_or((identity, [zero; 3]), |f| (f.rotation, f.origin));
    let parent_rotation = Matrix::plain(parent_rotation);
    let omega = body_angular_velocity(pool, &body.orientation);
    let rate = omega.map(|w| pool.diff(w, Symbol::Velocity(coordinate)));
    let rate = rate.map(|x| at_zero(pool, x));
    let revolute = !rate.iter().all(|&x| pool.is_zero(x));
    let rotation = Matrix::plain(body.orientation.entries.map(|x| at_zero(pool, x)));
    let slide = (body.centre)
        .map(|x| pool.diff(x, Symbol::Coordinate(coordinate)))
        .map(|x| at_zero(pool, x));
    let axis = if revolute {
        rate
    } else {
        mat_t_vec(pool, &rotation, slide)
    };
    let p = turned(pool, numeric(pool, axis)?)?;
    let frame = mat_mul(pool, &rotation, &p);
    let frame = frame.entries.map(|x| at_zero(pool, x));
    let turn = Matrix::plain(std::array::from_fn(|k| {
        let (i, j) = (k / 3, k % 3);
        let products = [0, 1, 2].map(|r| pool.mul(&[parent_rotation.get(r, i), frame[3 * r + j]]));
        let entry = pool.add(&products);
        at_zero(pool, entry)
    }));
    let centre = body.centre.map(|x| at_zero(pool, x));
    let relative = [0, 1, 2].map(|k| pool.sub(centre[k], parent_origin[k]));
    let relative = mat_t_vec(pool, &parent_rotation, relative);
    let relative = rounded_off(pool, relative, &[centre, parent_origin]);
    // The centre of mass in F: (wᵧ, −wₓ, h) with w = e_z × c and h its height along the axis
    // above the parent's origin (revolute), the origin (prismatic).
    let com = if revolute {
        let moving = mat_t_vec(pool, &parent_rotation, slide);
        let w = mat_t_vec(pool, &turn, moving);
        let w = rounded_off(pool, w, &[moving]);
        let along = [0, 1, 2].map(|r| turn.get(r, 2));
        let height = dot3(pool, relative, along);
        [w[1], pool.neg(w[0]), height]
    } else {
        [zero; 3]
    };
    let arm = mat_vec(pool, &turn, com);
    let offset = [0, 1, 2].map(|k| pool.sub(relative[k], arm[k]));
    let offset = rounded_off(pool, offset, &[relative, arm]);
    let world_arm = mat_vec(pool, &Matrix::plain(frame), com);
    let origin = [0, 1, 2].map(|k| pool.sub(centre[k], world_arm[k]));
    // Pᵀ I P, I in the axes of R.
    let about_com = congruence(pool, &body.inertia.entries, |pool, v| {
        mat_t_vec(pool, &p, v)
    });
    let constants: Vec<ExprId> =
        [&turn.entries[..], &offset, &com, &about_com, &[body.mass]].concat();
    let beyond_parameters = |s: Symbol| !matches!(s, Symbol::Parameter(_));
    if pool.any_depends_on(&constants, &beyond_parameters) {
        return None;
    }
    Some((
        BodyConstants {
            parent,
            coordinate,
            revolute,
            turn: turn.entries,
            offset,
            inertia: Some(Inertia {
                mass: body.mass,
                com,
                about_com,
            }),
        },
        Frame {
            rotation: frame,
            origin,
        },
    ))
}

/// g (world frame, m/s²) from the terms of L that are not bodies (`others`, with their signs):
/// read again with each named centre of mass pᵦ standing for fresh symbols Xᵦ, the potential
/// term −V = Σ mᵦ g·Xᵦ gives g = (∂(−V)/∂Xᵦ)/mᵦ at the first named body of nonzero mass where
/// mᵦ cancels (no division is left) and g depends on the parameters only; zero when no body is
/// named; `None` when no body gives such a g.
fn gravity(
    pool: &mut Pool,
    scope: &Scope,
    terms: &[Term],
    others: &[(bool, &Expr)],
) -> Option<[ExprId; 3]> {
    let placeholder = |b: usize| [0, 1, 2].map(|k| Symbol::Multiplier(3 * b + k));
    let mut replaced = scope.clone();
    for (b, term) in terms.iter().enumerate() {
        if let Some(name) = &term.position {
            let value = Value::Vector(placeholder(b).map(|s| pool.symbol(s)));
            replaced.redefine(pool, name, value);
        }
    }
    let mut ignored = Errors::default();
    let potential: Vec<ExprId> = (others.iter())
        .map(|&(negative, term)| {
            let value = parse_expr(pool, &replaced, Context::LAGRANGIAN, term, &mut ignored);
            if negative {
                pool.neg(value)
            } else {
                value
            }
        })
        .collect();
    let potential = pool.add(&potential);
    let named: Vec<usize> = (0..terms.len())
        .filter(|&b| terms[b].position.is_some() && !pool.is_zero(terms[b].body.mass))
        .collect();
    if named.is_empty() {
        return Some([pool.zero(); 3]);
    }
    let beyond_parameters = |s: Symbol| !matches!(s, Symbol::Parameter(_));
    named.into_iter().find_map(|b| {
        let mass = terms[b].body.mass;
        let g = placeholder(b).map(|x| {
            let weight = pool.diff(potential, x);
            pool.div(weight, mass)
        });
        // A division left (mᵦ not a factor of the weight) would be a NaN where mᵦ = 0.
        let divides = crate::emit::count_ops(pool, &g).dag.divs > 0;
        (!divides && !pool.any_depends_on(&g, &beyond_parameters)).then_some(g)
    })
}
