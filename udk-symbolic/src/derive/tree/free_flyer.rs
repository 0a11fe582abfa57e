//! A kinematic tree on a floating base (a free flyer): the root body moves freely in space, as
//! with Pinocchio's `JointModelFreeFlyer`, and its six degrees of freedom enter the
//! recursions as the root's own motion rather than as six virtual joints (Featherstone 2008,
//! ch. 9).
//!
//! The layout is Pinocchio's:
//! - q = [x, y, z, qx, qy, qz, qw, joints…] ([`Symbol::Coordinate`] k is `q[k]`): the base
//!   frame's origin in the world frame (m) and the unit quaternion (scalar last) of its
//!   rotation R (base → world), then the joint coordinates;
//! - v = [v_x, v_y, v_z, ω_x, ω_y, ω_z, joint rates…] ([`Symbol::Velocity`] k is `v[k]`): the
//!   velocity of the base origin and the angular velocity, both in the base frame, then the
//!   joint rates; v̇ ([`Symbol::Acceleration`] k is `v̇[k]`) their time derivatives;
//! - τ: the n joint efforts ([`Symbol::Input`] j is `τ[j]`).
//!
//! The base frame is the URDF root link's frame. Only gravity reads the quaternion: in the
//! base frame it is Rᵀ g, with R the rotation of the normalized quaternion (q / |q|), so the
//! expressions are those of the unit quaternion in the direction of q.

use super::algorithms::{self, body_wrench, sum_inertias, RootMotion, Wrench};
use super::constants::{body_constants, body_frames, turned_inertia, TurnedFrame};
use super::links::{about_origin, body_links, Inertia};
use super::{articulated, TreeError};
use crate::derivation::ExprMatrix;
use crate::expr::{ExprId, Pool, Symbol};
use crate::parse::{add3, cross3};
use crate::tree::{RigidBodyTree, SpatialInertia};

/// Entries of q for the base: position (3) and quaternion (4).
pub const BASE_COORDINATES: usize = 7;
/// Entries of v for the base: linear (3) and angular (3) velocity.
pub const BASE_VELOCITIES: usize = 6;

/// The dynamics of a tree on a free-flying base, as DAG nodes over the layout of the module
/// docs (NV = 6 + n entries; base rows first, linear then angular).
#[derive(Clone, Debug)]
pub struct FreeFlyerDynamics {
    /// v̇(q, v, τ), NV entries, by the articulated-body algorithm with a 6-DoF root: the base's
    /// spatial acceleration in the base frame (m/s², rad/s²), then the joint accelerations.
    /// Pinocchio's `aba`.
    pub acceleration: Vec<ExprId>,
    /// M(q), NV × NV, exactly symmetric, by the composite-rigid-body algorithm: the base
    /// block is the composite inertia of the whole robot about the base origin in the base
    /// frame. Pinocchio's `crba` (mirrored).
    pub mass_matrix: ExprMatrix,
    /// The generalized forces M v̇ + h(q, v) that produce v̇ (the [`Symbol::Acceleration`]s),
    /// NV entries, by recursive Newton–Euler: the wrench on the base (force in N, then moment
    /// about its origin in N·m, base frame; zero along a free motion), then the joint efforts.
    /// Pinocchio's `rnea`.
    pub inverse_dynamics: Vec<ExprId>,
    /// h(q, v): [`FreeFlyerDynamics::inverse_dynamics`] at v̇ = 0, NV entries, the Coriolis,
    /// centrifugal and gravity forces (N, then N·m, base frame; then the joints'), with
    /// M v̇ + h = [0; τ] on a free motion. Pinocchio's `nonLinearEffects`.
    pub bias_force: Vec<ExprId>,
}

/// The [`FreeFlyerDynamics`] of `tree` on a free base whose own mass properties (those of the
/// URDF root link and the links fixed to it, in the base frame) are `base`; the tree's bodies
/// are jointed to the base, its gravity is in the world frame.
///
/// # Errors
/// A [`TreeError`] when the tree or the base inertia is malformed (the base's errors name the
/// body "base"), or [`TreeError::Massless`] when a body's subtree has no mass, or nothing has
/// (the accelerations would not be determined).
pub fn free_flyer(
    pool: &mut Pool,
    tree: &RigidBodyTree,
    base: Option<&SpatialInertia>,
) -> Result<FreeFlyerDynamics, TreeError> {
    let n = tree.bodies.len();
    let constants = body_constants(pool, tree, n)?;
    let base = match base {
        Some(b) => Some(turned_inertia(pool, "base", b, &TurnedFrame::IDENTITY)?),
        None => None,
    };
    let base = base.map(|b| about_origin(pool, &b));
    let links = body_links(pool, &constants.bodies);
    // Placeholders while building: joint j is Coordinate/Velocity/Acceleration(j) as the
    // recursions read them, base entry k is (n + k); `layout` renumbers them at the end.
    let at = |pool: &mut Pool, symbol: fn(usize) -> Symbol, k: usize| pool.symbol(symbol(n + k));
    let linear: [ExprId; 3] = std::array::from_fn(|k| at(pool, Symbol::Velocity, k));
    let angular: [ExprId; 3] = std::array::from_fn(|k| at(pool, Symbol::Velocity, 3 + k));
    let gravity = base_gravity(pool, n, constants.gravity);
    let tau: Vec<ExprId> = (0..n).map(|j| pool.symbol(Symbol::Input(j))).collect();
    if n == 0 && base.is_none() {
        return Err(massless(tree));
    }
    let solve =
        articulated::solve_floating(pool, &links, n, &tau, (angular, linear), base.as_ref())
            .ok_or_else(|| massless(tree))?;
    let mut acceleration: Vec<ExprId> = add3(pool, solve.root_linear, gravity).to_vec();
    acceleration.extend(solve.root_angular);
    acceleration.extend(solve.joints);

    let (joint_block, coupling) = algorithms::composite_rigid_body(pool, &links, n, true);
    let coupling = coupling.expect("asked for the root coupling");
    let mut parts: Vec<Inertia> = base.into_iter().collect();
    parts.extend(coupling.composites);
    let total = sum_inertias(pool, &parts);
    let mass_matrix = assemble(pool, n, total.as_ref(), &coupling.columns, &joint_block);

    let omega_dot: [ExprId; 3] = std::array::from_fn(|k| at(pool, Symbol::Acceleration, 3 + k));
    let linear_rate: [ExprId; 3] = std::array::from_fn(|k| at(pool, Symbol::Acceleration, k));
    // The origin's acceleration R ᵀ p̈ = v̇ + ω × v, less gravity (Featherstone 2008, §5.3).
    let transport = cross3(pool, angular, linear);
    let minus_gravity = gravity.map(|g| pool.neg(g));
    let origin = super::links::sum3(pool, &[linear_rate, transport, minus_gravity]);
    let root = RootMotion {
        omega: angular,
        omega_dot,
        acceleration: origin,
    };
    let joint_accelerations: Vec<ExprId> = (0..n)
        .map(|j| pool.symbol(Symbol::Acceleration(j)))
        .collect();
    let (bias, children) =
        algorithms::newton_euler(pool, &links, n, &root, Some(&joint_accelerations), true);
    let children = children.expect("asked for the root wrench");
    let mut forces = vec![children.force];
    let mut moments = vec![children.moment];
    if let Some(own) = &base {
        let needed = body_wrench(pool, own, angular, omega_dot, origin);
        forces.push(needed.force);
        moments.push(needed.moment);
    }
    let mut inverse_dynamics: Vec<ExprId> = super::links::sum3(pool, &forces).to_vec();
    inverse_dynamics.extend(super::links::sum3(pool, &moments));
    inverse_dynamics.extend(bias.into_iter().map(|b| pool.neg(b)));

    let mut outputs = acceleration;
    outputs.extend(&mass_matrix.entries);
    outputs.extend(&inverse_dynamics);
    let outputs = layout(pool, n, &outputs);
    let nv = BASE_VELOCITIES + n;
    Ok(FreeFlyerDynamics {
        acceleration: outputs[..nv].to_vec(),
        mass_matrix: ExprMatrix {
            rows: nv,
            cols: nv,
            entries: outputs[nv..nv + nv * nv].to_vec(),
        },
        bias_force: pool.substitute_many(&outputs[nv + nv * nv..], &mut |pool, symbol| {
            matches!(symbol, Symbol::Acceleration(_)).then(|| pool.zero())
        }),
        inverse_dynamics: outputs[nv + nv * nv..].to_vec(),
    })
}

/// A point fixed to a body of a tree on a free-flying base, as DAG nodes over the layout of
/// the module docs: what a contact at the point needs.
#[derive(Clone, Debug)]
pub struct PointKinematics {
    /// p(q): the point in the world frame, m.
    pub position: [ExprId; 3],
    /// J(q), 3 × NV: ṗ = J v, rows in the world frame (the base columns are R and
    /// −R \[r\]×, r the point in the base frame; a joint's column is R ∂r/∂qⱼ).
    pub jacobian: ExprMatrix,
    /// J̇ v (q, v), world frame, m/s²: p̈ = J v̇ + J̇ v.
    pub bias: [ExprId; 3],
}

/// The [`PointKinematics`] of each of `points` on `tree` (on a free base): a point is the
/// body it is fixed to (`None` for the base) and its position in that body's frame (m), as
/// `link_position` names the origin of a link frame.
///
/// With r(q) the point in the base frame (from the poses the fixed-base tree uses,
/// `links::poses`), ṙ = Σ ∂r/∂qⱼ q̇ⱼ and w = v + ω × r + ṙ the point's velocity in the
/// base frame: ṗ = R w, and p̈ = R(v̇ + ω̇ × r + J_r q̈) + R(ω × (v + ω × r + 2ṙ) + J̇_r q̇), whose
/// second term is J̇ v (Featherstone 2008, §2.9 and §4.3, in 3-vector form).
///
/// # Errors
/// A [`TreeError`] when the tree is malformed, or [`TreeError::CoordinateOutOfRange`] naming
/// "point" for a body index out of range.
pub fn point_kinematics(
    pool: &mut Pool,
    tree: &RigidBodyTree,
    points: &[(Option<usize>, [f64; 3])],
) -> Result<Vec<PointKinematics>, TreeError> {
    let n = tree.bodies.len();
    let constants = body_constants(pool, tree, n)?;
    let frames = body_frames(tree);
    let poses = super::links::poses(pool, &constants.bodies);
    let velocity = |pool: &mut Pool, k: usize| pool.symbol(Symbol::Velocity(k));
    let linear: [ExprId; 3] = std::array::from_fn(|k| velocity(pool, n + k));
    let angular: [ExprId; 3] = std::array::from_fn(|k| velocity(pool, n + 3 + k));
    let rotation = base_rotation(pool, n);
    let rotate = |pool: &mut Pool, u: [ExprId; 3]| -> [ExprId; 3] {
        std::array::from_fn(|r| {
            let terms: Vec<ExprId> = (0..3).map(|c| pool.mul(&[rotation[r][c], u[c]])).collect();
            pool.add(&terms)
        })
    };
    let nv = BASE_VELOCITIES + n;
    let mut outputs = Vec::with_capacity(points.len() * (6 + 3 * nv));
    for &(body, offset) in points {
        let r: [ExprId; 3] = match body {
            None => offset.map(|x| pool.number(x)),
            Some(b) if b < n => {
                let local = frames[b].local(offset).map(|x| pool.number(x));
                let turned = crate::parse::mat_vec(pool, &poses[b].rotation, local);
                add3(pool, poses[b].origin, turned)
            }
            Some(b) => {
                return Err(TreeError::CoordinateOutOfRange {
                    body: "point".to_owned(),
                    coordinate: b,
                    n,
                })
            }
        };
        let r = r.map(|x| pool.shared(x));
        let turned = rotate(pool, r);
        let position: Vec<ExprId> = (0..3)
            .map(|k| {
                let origin = pool.symbol(Symbol::Coordinate(n + k));
                pool.add(&[origin, turned[k]])
            })
            .collect();
        let rate = r.map(|x| {
            let d = pool.convective_derivative(x);
            pool.shared(d)
        });
        let curvature = rate.map(|x| pool.convective_derivative(x));
        let zero = pool.zero();
        let mut columns: Vec<[ExprId; 3]> = Vec::with_capacity(nv);
        for c in 0..3 {
            let mut unit = [zero; 3];
            unit[c] = pool.one();
            columns.push(rotate(pool, unit));
        }
        for c in 0..3 {
            let mut unit = [zero; 3];
            unit[c] = pool.one();
            let arm = cross3(pool, unit, r);
            columns.push(rotate(pool, arm));
        }
        for j in 0..n {
            let partial = r.map(|x| pool.diff(x, Symbol::Coordinate(j)));
            columns.push(rotate(pool, partial));
        }
        let two = pool.integer(2);
        let twice_rate = rate.map(|x| pool.mul(&[two, x]));
        let whirl = cross3(pool, angular, r);
        let relative = super::links::sum3(pool, &[linear, whirl, twice_rate]);
        let coriolis = cross3(pool, angular, relative);
        let inner = add3(pool, coriolis, curvature);
        let bias = rotate(pool, inner);
        outputs.extend(position);
        outputs.extend((0..3).flat_map(|row| columns.iter().map(move |column| column[row])));
        outputs.extend(bias);
    }
    let outputs = layout(pool, n, &outputs);
    let size = 6 + 3 * nv;
    Ok(outputs
        .chunks(size)
        .map(|chunk| PointKinematics {
            position: [chunk[0], chunk[1], chunk[2]],
            jacobian: ExprMatrix {
                rows: 3,
                cols: nv,
                entries: chunk[3..3 + 3 * nv].to_vec(),
            },
            bias: [chunk[size - 3], chunk[size - 2], chunk[size - 1]],
        })
        .collect())
}

/// The error for a tree whose accelerations the masses do not determine: the first body whose
/// subtree has no mass, or "base" when nothing has.
fn massless(tree: &RigidBodyTree) -> TreeError {
    let mut heavy: Vec<bool> = tree.bodies.iter().map(|b| b.inertia.is_some()).collect();
    for i in (0..tree.bodies.len()).rev() {
        if let (Some(p), true) = (tree.bodies[i].parent, heavy[i]) {
            heavy[p] = true;
        }
    }
    let body = heavy
        .iter()
        .position(|h| !h)
        .map_or_else(|| "base".to_owned(), |i| tree.bodies[i].name.clone());
    TreeError::Massless { body }
}

/// Rᵀ g: the world-frame `gravity` in the base frame ([`base_rotation`]).
fn base_gravity(pool: &mut Pool, n: usize, gravity: [ExprId; 3]) -> [ExprId; 3] {
    let r = base_rotation(pool, n);
    std::array::from_fn(|c| {
        let terms: Vec<ExprId> = (0..3).map(|k| pool.mul(&[r[k][c], gravity[k]])).collect();
        let sum = pool.add(&terms);
        pool.shared(sum)
    })
}

/// R (base → world, rows), the rotation of the normalized quaternion (the placeholders
/// n + 3 … n + 6 = qx, qy, qz, qw): R = 1 + s(w \[u\]× + \[u\]×²) with s = 2 / |q|² and
/// u = (qx, qy, qz); every entry shared.
fn base_rotation(pool: &mut Pool, n: usize) -> [[ExprId; 3]; 3] {
    let [x, y, z, w] = [3, 4, 5, 6].map(|k| pool.symbol(Symbol::Coordinate(n + k)));
    let squares = [x, y, z, w].map(|c| pool.mul(&[c, c]));
    let norm = pool.add(&squares);
    let two = pool.integer(2);
    let inverse = pool.recip(norm);
    let s = pool.mul(&[two, inverse]);
    let s = pool.shared(s);
    let product = |pool: &mut Pool, a: ExprId, b: ExprId| pool.mul(&[s, a, b]);
    let one = pool.one();
    let minus_one = pool.integer(-1);
    // Entry (r, c) of R from s, the products of two components and their signs.
    let diagonal = |pool: &mut Pool, a: ExprId, b: ExprId| {
        let squares = [pool.mul(&[a, a]), pool.mul(&[b, b])];
        let sum = pool.add(&squares);
        let scaled = pool.mul(&[minus_one, s, sum]);
        let entry = pool.add(&[one, scaled]);
        pool.shared(entry)
    };
    let off = |pool: &mut Pool, (a, b): (ExprId, ExprId), (c, d): (ExprId, ExprId), sign: i64| {
        let first = product(pool, a, b);
        let second = product(pool, c, d);
        let sign = pool.integer(sign);
        let second = pool.mul(&[sign, second]);
        let entry = pool.add(&[first, second]);
        pool.shared(entry)
    };
    [
        [
            diagonal(pool, y, z),
            off(pool, (x, y), (z, w), -1),
            off(pool, (x, z), (y, w), 1),
        ],
        [
            off(pool, (x, y), (z, w), 1),
            diagonal(pool, x, z),
            off(pool, (y, z), (x, w), -1),
        ],
        [
            off(pool, (x, z), (y, w), -1),
            off(pool, (y, z), (x, w), 1),
            diagonal(pool, x, y),
        ],
    ]
}

/// The NV × NV mass matrix from the composite inertia `total` of the whole robot about the
/// base origin, the base rows of each joint column (`columns`) and the joint block.
/// With h the first moment and J the rotational inertia, the base block in the order
/// (linear, angular) is [[m 1, \[h\]×ᵀ], [\[h\]×, J]] (Featherstone 2008, eq 2.63).
fn assemble(
    pool: &mut Pool,
    n: usize,
    total: Option<&Inertia>,
    columns: &[(usize, Wrench)],
    joints: &ExprMatrix,
) -> ExprMatrix {
    let nv = BASE_VELOCITIES + n;
    let zero = pool.zero();
    let mut entries = vec![zero; nv * nv];
    if let Some(total) = total {
        let [hx, hy, hz] = total.first_moment;
        let (mhx, mhy, mhz) = (pool.neg(hx), pool.neg(hy), pool.neg(hz));
        // [h]×, row-major.
        let cross = [zero, mhz, hy, hz, zero, mhx, mhy, hx, zero];
        for r in 0..3 {
            entries[r * nv + r] = total.mass;
            for c in 0..3 {
                entries[(3 + r) * nv + 3 + c] = total.rotational[3 * r + c];
                entries[(3 + r) * nv + c] = cross[3 * r + c];
                entries[c * nv + 3 + r] = cross[3 * r + c];
            }
        }
    }
    for (coordinate, wrench) in columns {
        let column = BASE_VELOCITIES + coordinate;
        for k in 0..3 {
            for (row, value) in [(k, wrench.force[k]), (3 + k, wrench.moment[k])] {
                entries[row * nv + column] = value;
                entries[column * nv + row] = value;
            }
        }
    }
    for r in 0..n {
        for c in 0..n {
            entries[(BASE_VELOCITIES + r) * nv + BASE_VELOCITIES + c] = joints.entries[r * n + c];
        }
    }
    ExprMatrix {
        rows: nv,
        cols: nv,
        entries,
    }
}

/// `ids` with the building placeholders renumbered to the layout of the module docs: joint j
/// to Coordinate(7 + j), Velocity(6 + j), Acceleration(6 + j); base entry n + k to k.
fn layout(pool: &mut Pool, n: usize, ids: &[ExprId]) -> Vec<ExprId> {
    let renumber = |i: usize, base: usize| if i < n { base + i } else { i - n };
    pool.substitute_many(ids, &mut |pool, s| {
        let moved = match s {
            Symbol::Coordinate(i) => Symbol::Coordinate(renumber(i, BASE_COORDINATES)),
            Symbol::Velocity(i) => Symbol::Velocity(renumber(i, BASE_VELOCITIES)),
            Symbol::Acceleration(i) => Symbol::Acceleration(renumber(i, BASE_VELOCITIES)),
            _ => return None,
        };
        Some(pool.symbol(moved))
    })
}
