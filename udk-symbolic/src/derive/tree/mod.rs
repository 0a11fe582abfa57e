//! The equations of a kinematic tree ([`RigidBodyTree`], a robot read from a URDF file) the way
//! symbolic robot-dynamics generators form them: M by the composite-rigid-body algorithm and
//! the bias force by recursive Newton–Euler with q̈ = 0 (Featherstone 2008, "Rigid Body
//! Dynamics Algorithms", Tables 6.2 and 5.1; Khalil & Dombre 2002, ch. 9), run symbolically in
//! the DAG, so that each body's pose, velocity and acceleration is built once and shared by
//! hash-consing, instead of differentiating the kinetic energy twice.
//!
//! The constants of a URDF tree are composed in f64 first (see `constants`); those of a tree
//! written with `let` are DAG expressions of its parameters (see `recognize`). Either way each
//! body frame is turned so that its joint axis is e_z, and the turns between frames are
//! constant matrices whose exact 0 and ±1 entries fall out of the products. The recursions run
//! either in body frames (constant inertias, a rotation between each body and its parent) or
//! in the world frame (no rotations between bodies, rotated inertias); `smallest` keeps the
//! one with fewer operations.

mod algorithms;
mod articulated;
mod constants;
pub mod free_flyer;
mod inverse_dynamics_derivatives;
mod links;
mod recognize;
mod temporaries;

pub(crate) use constants::{body_constants, TreeConstants};
pub(crate) use inverse_dynamics_derivatives::constant_inverse_dynamics_derivatives;
pub(crate) use recognize::recognize;
pub(crate) use temporaries::temporaries;

use crate::derivation::ExprMatrix;
use crate::expr::{ExprId, Pool, Symbol};
use crate::parse::{dot3, kinetic_energy, mat_vec, Matrix};
use crate::tree::RigidBodyTree;
pub use articulated::ArticulatedSolve;

/// The frames the recursions express each body's vectors in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Frames {
    /// Each body's own frame, turned so that its joint axis is z: inertias and axes are
    /// constants, and vectors pass between bodies through a constant turn and Rz(qᵢ).
    Body,
    /// The world (root) frame: vectors pass between bodies unchanged, but each body's axis,
    /// offset and inertia turn with it (Rᵢ J Rᵢᵀ).
    World,
}

/// The mass matrix and bias force of a tree, as DAG nodes.
#[derive(Clone, Debug)]
pub struct TreeDynamics {
    /// M(q), n × n, exactly symmetric, by the composite-rigid-body algorithm (kg, kg·m,
    /// kg·m² by joint type).
    pub mass_matrix: ExprMatrix,
    /// Q₀(q, q̇) = −(C(q, q̇) q̇ + g(q)), n entries (N·m for a revolute joint, N for a
    /// prismatic one), by recursive Newton–Euler with q̈ = 0 and the base accelerating at
    /// −gravity. M q̈ = Q₀ + τ is the tree's equation of motion under joint efforts τ.
    pub bias: Vec<ExprId>,
}

/// Why a [`RigidBodyTree`] cannot be derived.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TreeError {
    /// A body's parent index is not smaller than its own (bodies must be in depth-first order).
    #[error("body `{body}` of the kinematic tree comes before its parent")]
    ParentAfterChild {
        /// The body's name.
        body: String,
    },
    /// A joint's coordinate index is not below the model's number of coordinates.
    #[error("the joint of body `{body}` moves coordinate {coordinate}, but the model has {n}")]
    CoordinateOutOfRange {
        /// The body's name.
        body: String,
        /// The index given.
        coordinate: usize,
        /// The number of coordinates.
        n: usize,
    },
    /// Two joints move the same coordinate.
    #[error("the joint of body `{body}` moves a coordinate an earlier joint already moves")]
    CoordinateRepeated {
        /// The body's name.
        body: String,
    },
    /// A joint axis is the zero vector.
    #[error("the joint of body `{body}` has a zero axis")]
    ZeroAxis {
        /// The body's name.
        body: String,
    },
    /// A joint origin's rotation is not orthonormal with determinant +1 (to 1e-9).
    #[error("the joint origin of body `{body}` is not a rotation")]
    NotARotation {
        /// The body's name.
        body: String,
    },
    /// A body's mass is negative.
    #[error("body `{body}` has a negative mass")]
    NegativeMass {
        /// The body's name.
        body: String,
    },
    /// A body's rotational inertia is not symmetric (to 1e-9 of its largest entry).
    #[error("the inertia of body `{body}` is not symmetric")]
    NotSymmetric {
        /// The body's name.
        body: String,
    },
    /// A body of a tree on a floating base carries no mass in its subtree (`body` = "base"
    /// when nothing has mass), so its accelerations are not determined.
    #[error("the subtree of `{body}` has no mass, so its accelerations on a floating base are not determined")]
    Massless {
        /// The body's name, or "base".
        body: String,
    },
    /// A number of a body (or the gravity, `body` = "gravity") is infinite or NaN.
    #[error("a number of `{body}` in the kinematic tree is not finite")]
    NotFinite {
        /// The body's name, or "gravity".
        body: String,
    },
}

/// What every recursion over the tree of `constants` starts from: its links in `frames`, and
/// the base's acceleration −gravity (m/s²), which puts gravity into the bias (Featherstone
/// 2008, §5.3).
fn recursion_inputs(
    pool: &mut Pool,
    constants: &TreeConstants,
    frames: Frames,
) -> (Vec<links::Link>, [ExprId; 3]) {
    let bodies = &constants.bodies;
    let links = match frames {
        Frames::Body => links::body_links(pool, bodies),
        Frames::World => {
            let poses = links::poses(pool, bodies);
            links::world_links(pool, bodies, &poses)
        }
    };
    (links, constants.gravity.map(|g| pool.neg(g)))
}

/// M and the bias force Q₀ of `tree` for a model with `n` coordinates, with the recursions in
/// `frames` (see [`TreeDynamics`]). Coordinates that no joint of the tree moves get zero rows
/// and columns in M and zero bias.
///
/// # Errors
/// A [`TreeError`] when the tree is malformed: see its variants.
pub fn dynamics(
    pool: &mut Pool,
    tree: &RigidBodyTree,
    n: usize,
    frames: Frames,
) -> Result<TreeDynamics, TreeError> {
    let constants = body_constants(pool, tree, n)?;
    Ok(constant_dynamics(pool, &constants, n, frames))
}

/// [`dynamics`] of the tree of `constants`.
fn constant_dynamics(
    pool: &mut Pool,
    constants: &TreeConstants,
    n: usize,
    frames: Frames,
) -> TreeDynamics {
    let (links, base_acceleration) = recursion_inputs(pool, constants, frames);
    TreeDynamics {
        mass_matrix: algorithms::mass_matrix(pool, &links, n),
        bias: algorithms::bias(pool, &links, n, base_acceleration, None),
    }
}

/// The inverse dynamics M(q) q̈ − Q₀(q, q̇) of `tree` (n entries, by coordinate; the joint
/// efforts that produce `accelerations`, n entries) by recursive Newton–Euler in body frames
/// (Featherstone 2008, Table 5.1): O(n) operations for a chain, where the product of the
/// composite-rigid-body M with q̈ takes O(n²). The Jacobians differentiate it in place of M q̈.
///
/// # Errors
/// A [`TreeError`] when the tree is malformed.
pub fn inverse_dynamics(
    pool: &mut Pool,
    tree: &RigidBodyTree,
    n: usize,
    accelerations: &[ExprId],
) -> Result<Vec<ExprId>, TreeError> {
    let constants = body_constants(pool, tree, n)?;
    Ok(constant_inverse_dynamics(
        pool,
        &constants,
        n,
        accelerations,
    ))
}

/// [`inverse_dynamics`] of the tree of `constants`.
pub(crate) fn constant_inverse_dynamics(
    pool: &mut Pool,
    constants: &TreeConstants,
    n: usize,
    accelerations: &[ExprId],
) -> Vec<ExprId> {
    let (links, base_acceleration) = recursion_inputs(pool, constants, Frames::Body);
    let bias = algorithms::bias(pool, &links, n, base_acceleration, Some(accelerations));
    bias.into_iter().map(|b| pool.neg(b)).collect()
}

/// The partial derivatives (∂τ/∂q, ∂τ/∂q̇), each n × n (row = τ's coordinate, column = the
/// variable's coordinate), of the inverse dynamics τ = M(q) v − Q₀(q, q̇) of `tree`
/// ([`inverse_dynamics`]) at the accelerations `accelerations` (n entries by coordinate), by
/// the analytic derivatives of recursive Newton–Euler in the world frame (Carpentier &
/// Mansard 2018, "Analytical Derivatives of Rigid Body Dynamics Algorithms", RSS): per pair
/// of an ancestor and a descendant one or two products of 6-vectors, where differentiating
/// [`inverse_dynamics`] carries each derivative through every ancestor's rotation. Entries
/// of coordinates no joint moves are 0. Units: τ's (N·m or N) per rad or m, and per rad/s or
/// m/s.
///
/// # Errors
/// A [`TreeError`] when the tree is malformed.
pub fn inverse_dynamics_derivatives(
    pool: &mut Pool,
    tree: &RigidBodyTree,
    n: usize,
    accelerations: &[ExprId],
) -> Result<(ExprMatrix, ExprMatrix), TreeError> {
    let constants = body_constants(pool, tree, n)?;
    Ok(constant_inverse_dynamics_derivatives(
        pool,
        &constants,
        n,
        accelerations,
    ))
}

/// [`dynamics`] of the tree of `constants` in body frames and in the world frame, whichever
/// takes fewer operations for M and Q₀ together ([`Pool::operation_count`]; body frames on a
/// tie).
pub(crate) fn smallest(pool: &mut Pool, constants: &TreeConstants, n: usize) -> TreeDynamics {
    let size = |pool: &Pool, d: &TreeDynamics| {
        pool.operation_count(&[&d.mass_matrix.entries[..], &d.bias].concat())
    };
    let body = constant_dynamics(pool, constants, n, Frames::Body);
    let world = constant_dynamics(pool, constants, n, Frames::World);
    if size(pool, &world) < size(pool, &body) {
        world
    } else {
        body
    }
}

/// M⁻¹ of the tree by the articulated-body algorithm in body frames (Featherstone 2008,
/// Table 7.1): q̈ = M⁻¹(`tau` + Q₀) for joint forces `tau` (n entries, by coordinate) and
/// M⁻¹x for each of `right_hand_sides` (n entries each), O(n) operations per solve for a
/// chain. The tree's poses and velocities are the nodes the other recursions build
/// (hash-consed). `Ok(None)` when the algorithm cannot apply, decided structurally: a
/// coordinate no joint moves, or a body whose subtree has no mass (M singular).
///
/// # Errors
/// A [`TreeError`] when the tree is malformed.
pub fn articulated(
    pool: &mut Pool,
    tree: &RigidBodyTree,
    n: usize,
    tau: &[ExprId],
    right_hand_sides: &[Vec<ExprId>],
) -> Result<Option<ArticulatedSolve>, TreeError> {
    let constants = body_constants(pool, tree, n)?;
    Ok(constant_articulated(
        pool,
        &constants,
        n,
        tau,
        right_hand_sides,
    ))
}

/// [`articulated`] of the tree of `constants`.
pub(crate) fn constant_articulated(
    pool: &mut Pool,
    constants: &TreeConstants,
    n: usize,
    tau: &[ExprId],
    right_hand_sides: &[Vec<ExprId>],
) -> Option<ArticulatedSolve> {
    let (links, base_acceleration) = recursion_inputs(pool, constants, Frames::Body);
    articulated::solve(pool, &links, n, tau, base_acceleration, right_hand_sides)
}

/// The tree's kinetic energy T = Σ kinetic_energy(mᵢ, Iᵢ, pᵢ, Rᵢ) and the terms mᵢ g·pᵢ of
/// −V over the bodies with mass (pᵢ the centre of mass in the world frame), as DAG nodes.
fn energies(pool: &mut Pool, constants: &TreeConstants) -> (ExprId, Vec<ExprId>) {
    let poses = links::poses(pool, &constants.bodies);
    let mut kinetic = Vec::new();
    let mut potentials = Vec::new();
    for (body, pose) in constants.bodies.iter().zip(&poses) {
        let Some(inertia) = body.inertia else {
            continue;
        };
        let arm = mat_vec(pool, &pose.rotation, inertia.com);
        let centre = crate::parse::add3(pool, pose.origin, arm);
        kinetic.push(kinetic_energy(
            pool,
            inertia.mass,
            &Matrix::plain(inertia.about_com),
            centre,
            &pose.rotation,
        ));
        let height = dot3(pool, constants.gravity, centre);
        potentials.push(pool.mul(&[inertia.mass, height]));
    }
    (pool.add(&kinetic), potentials)
}

/// The tree's Lagrangian as a DAG node, with the scale its values are compared at: T − V with
/// T and −V = Σ mᵢ g·pᵢ from [`energies`], and the scale |T| + Σ |mᵢ g·pᵢ|.
fn lagrangian(pool: &mut Pool, constants: &TreeConstants) -> (ExprId, ExprId) {
    let (t, potentials) = energies(pool, constants);
    let mut terms = potentials.clone();
    terms.push(t);
    let l = pool.add(&terms);
    let magnitudes: Vec<ExprId> = (potentials.iter().chain([&t]))
        .map(|&x| pool.call(crate::expr::Func::Abs, &[x]))
        .collect();
    (l, pool.add(&magnitudes))
}

/// The tree's energy T + V (J), its Jacobi integral q̇ᵀ∂L/∂q̇ − L: the tree's constants do
/// not depend on q̇ or t, so T is a quadratic form in q̇ and q̇ᵀ∂T/∂q̇ = 2T (Euler's theorem on
/// homogeneous functions; Goldstein, *Classical Mechanics*, §2.7). Formed from the bodies'
/// velocities, O(n · depth) operations, where differentiating L by each q̇ᵢ took O(n² · depth)
/// (TIAGo Pro: 50 257 emitted operations).
pub(crate) fn energy(pool: &mut Pool, constants: &TreeConstants) -> ExprId {
    let (t, potentials) = energies(pool, constants);
    let v = pool.add(&potentials);
    pool.sub(t, v)
}

/// The part of the Lagrangian `l` the tree does not hold: 0 when `l` equals the tree's
/// Lagrangian (relative difference within 1e-10 of |T| + Σ|mᵢ g·pᵢ| at six pseudo-random
/// states, coordinates, velocities, time and `parameters` all drawn), else `l` − L_tree.
/// Either way L_tree + the rest is `l`, so the tree's M and Q₀ plus the rest's are `l`'s.
pub(crate) fn rest_of_lagrangian(pool: &mut Pool, constants: &TreeConstants, l: ExprId) -> ExprId {
    let (tree_l, scale) = lagrangian(pool, constants);
    let rest = pool.sub(l, tree_l);
    let matches = (1..=6).all(|draw| {
        let values = pool.eval_all(&[rest, scale], &random_state(draw));
        values[0].abs() <= 1e-10 * values[1]
    });
    if matches {
        pool.zero()
    } else {
        rest
    }
}

/// The values of draw `draw` of a deterministic pseudo-random state: coordinates in [−3, 3),
/// velocities in [−2, 2), parameters in [0.5, 1.5), time in [0, 1), anything else 0.
pub(crate) fn random_state(draw: u32) -> impl Fn(Symbol) -> f64 {
    move |s: Symbol| match s {
        Symbol::Coordinate(i) => 6.0 * pseudo_random(draw, 4 * i) - 3.0,
        Symbol::Velocity(i) => 4.0 * pseudo_random(draw, 4 * i + 1) - 2.0,
        Symbol::Parameter(i) => 0.5 + pseudo_random(draw, 4 * i + 2),
        Symbol::Time => pseudo_random(draw, 3),
        _ => 0.0,
    }
}

/// A deterministic pseudo-random number in [0, 1) for draw `draw` and slot `slot`.
fn pseudo_random(draw: u32, slot: usize) -> f64 {
    let x = (f64::from(draw) * 12.9898 + slot as f64 * 78.233).sin() * 43_758.545_3;
    x - x.floor()
}
