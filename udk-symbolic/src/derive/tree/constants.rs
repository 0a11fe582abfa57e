//! The constant data of a [`RigidBodyTree`], checked and composed in f64 before anything enters
//! the DAG: each body's frame is turned by a constant rotation Pᵢ so that its joint axis is
//! e_z, and the joint origin, the parent's turn and the inertia are expressed in the turned
//! frames.
//!
//! With Fᵢ = (body frame of i)·Pᵢ, the rotation from Fᵢ to F_parent is Kᵢ Rz(qᵢ) for a revolute
//! joint and Kᵢ for a prismatic one, where Kᵢ = P_parentᵀ R_origin Pᵢ (P of the root is the
//! identity): the rotation R_axis(q) about aᵢ = Pᵢ e_z equals Pᵢ Rz(q) Pᵢᵀ. Entries within 4 ulps
//! of 0 or ±1 are snapped to those exact values, so that quarter turns and identities stay
//! exact in the DAG and multiply out of the expressions. A frame may be spun about its joint
//! axis at no cost, Pᵢ = axis_frame(aᵢ) Rz(φᵢ); φᵢ is chosen so that the turn to the first
//! child on another axis is Rx(β) Rz(γ) (`spins`), which the recursions apply as two plane
//! rotations. Its origin may slide along the joint axis at no cost too ([`TurnedFrame`]); the
//! slide is chosen to zero a component of the offset from the parent (`slide`), which every
//! vector and inertia carried between the two bodies crosses with.
//!
//! The recursions read the constants as DAG nodes ([`TreeConstants`]): numbers here, and
//! expressions in the model's parameters for a tree recognized in a model's definitions
//! (`recognize`).

use super::TreeError;
use crate::expr::{ExprId, Pool};
use crate::tree::{RigidBodyTree, SpatialInertia, TreeJoint};

/// A 3×3 matrix, row-major.
pub(super) type Mat3 = [[f64; 3]; 3];

/// The constants of a kinematic tree as DAG nodes, what every recursion starts from.
#[derive(Clone, Debug)]
pub(crate) struct TreeConstants {
    /// The bodies, every parent before its children.
    pub bodies: Vec<BodyConstants>,
    /// Gravitational acceleration in the world frame, m/s².
    pub gravity: [ExprId; 3],
}

/// One body's constants in the turned frames, as DAG nodes.
#[derive(Clone, Debug)]
pub(crate) struct BodyConstants {
    /// Index of the parent body, `None` for a body jointed to the root.
    pub parent: Option<usize>,
    /// Index of the joint's coordinate.
    pub coordinate: usize,
    /// Revolute (true) or prismatic joint.
    pub revolute: bool,
    /// Kᵢ, row-major: the axes of Fᵢ at qᵢ = 0 in F_parent (columns).
    pub turn: [ExprId; 9],
    /// The origin of Fᵢ at qᵢ = 0 in F_parent, m.
    pub offset: [ExprId; 3],
    /// The mass properties in Fᵢ, `None` for a massless body.
    pub inertia: Option<Inertia>,
}

/// Mass properties in a turned frame Fᵢ, as DAG nodes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Inertia {
    /// Mass, kg.
    pub mass: ExprId,
    /// Centre of mass in Fᵢ, m.
    pub com: [ExprId; 3],
    /// Rotational inertia about the centre of mass in Fᵢ's axes, row-major, kg·m².
    pub about_com: [ExprId; 9],
}

/// The constants `values` as DAG nodes.
pub(super) fn numbers<const N: usize>(pool: &mut Pool, values: &[f64]) -> [ExprId; N] {
    std::array::from_fn(|k| pool.number(values[k]))
}

/// The checked constants of every body of `tree`, for a model with `n` coordinates, composed
/// in f64 and then made DAG numbers.
///
/// # Errors
/// A [`TreeError`] for the first body with a parent that does not come before it, a coordinate
/// out of range or used twice, a zero or non-finite axis, an origin whose rotation is not a
/// rotation (orthonormal to 1e-9, determinant +1), a negative mass, a non-symmetric inertia or
/// a non-finite number; or a non-finite gravity.
pub(crate) fn body_constants(
    pool: &mut Pool,
    tree: &RigidBodyTree,
    n: usize,
) -> Result<TreeConstants, TreeError> {
    if !tree.gravity.iter().all(|g| g.is_finite()) {
        return Err(TreeError::NotFinite {
            body: "gravity".to_owned(),
        });
    }
    let turned = body_frames(tree);
    let mut used = vec![false; n];
    let mut bodies = Vec::with_capacity(tree.bodies.len());
    for (index, body) in tree.bodies.iter().enumerate() {
        let name = || body.name.clone();
        if body.parent.is_some_and(|p| p >= index) {
            return Err(TreeError::ParentAfterChild { body: name() });
        }
        let (coordinate, axis, revolute) = match body.joint {
            TreeJoint::Revolute { coordinate, axis } => (coordinate, axis, true),
            TreeJoint::Prismatic { coordinate, axis } => (coordinate, axis, false),
        };
        match used.get_mut(coordinate) {
            None => {
                return Err(TreeError::CoordinateOutOfRange {
                    body: name(),
                    coordinate,
                    n,
                })
            }
            Some(true) => return Err(TreeError::CoordinateRepeated { body: name() }),
            Some(slot) => *slot = true,
        }
        let finite = |values: &[f64]| values.iter().all(|x| x.is_finite());
        let rotation = body.origin.rotation;
        let inertia = body.inertia.as_ref();
        if !finite(&axis)
            || !finite(rotation.as_flattened())
            || !finite(&body.origin.translation)
            || inertia.is_some_and(|i| {
                !finite(&[i.mass]) || !finite(&i.com) || !finite(i.inertia.as_flattened())
            })
        {
            return Err(TreeError::NotFinite { body: name() });
        }
        let norm = dot(axis, axis).sqrt();
        if norm == 0.0 {
            return Err(TreeError::ZeroAxis { body: name() });
        }
        if !is_rotation(&rotation) {
            return Err(TreeError::NotARotation { body: name() });
        }
        let frame = &turned[index];
        let parent_axes = body.parent.map_or(IDENTITY, |p| turned[p].axes);
        let turn = snap(mul(&mul(&transpose(&parent_axes), &rotation), &frame.axes));
        let inertia = match inertia {
            None => None,
            Some(i) => Some(turned_inertia(pool, &body.name, i, frame)?),
        };
        bodies.push(BodyConstants {
            parent: body.parent,
            coordinate,
            revolute,
            turn: numbers(pool, turn.as_flattened()),
            offset: numbers(pool, &frame.offset),
            inertia,
        });
    }
    Ok(TreeConstants {
        bodies,
        gravity: numbers(pool, &tree.gravity),
    })
}

/// The mass properties `i` of the body `name` (given in its body frame) in the turned frame
/// `frame`, as DAG numbers.
///
/// # Errors
/// [`TreeError::NotFinite`], [`TreeError::NegativeMass`] or [`TreeError::NotSymmetric`].
pub(super) fn turned_inertia(
    pool: &mut Pool,
    name: &str,
    i: &SpatialInertia,
    frame: &TurnedFrame,
) -> Result<Inertia, TreeError> {
    let body = || name.to_owned();
    let finite = |values: &[f64]| values.iter().all(|x| x.is_finite());
    if !finite(&[i.mass]) || !finite(&i.com) || !finite(i.inertia.as_flattened()) {
        return Err(TreeError::NotFinite { body: body() });
    }
    if i.mass < 0.0 {
        return Err(TreeError::NegativeMass { body: body() });
    }
    if !is_symmetric(&i.inertia) {
        return Err(TreeError::NotSymmetric { body: body() });
    }
    let axes = &frame.axes;
    Ok(Inertia {
        mass: pool.number(i.mass),
        com: numbers(pool, &frame.local(i.com)),
        about_com: numbers(
            pool,
            mul(&mul(&transpose(axes), &i.inertia), axes).as_flattened(),
        ),
    })
}

/// The frame Fᵢ in which a body's quantities are written: its axes Pᵢ (columns, in the body
/// frame; the third is the joint axis aᵢ) and its origin, the body frame's origin slid along
/// the joint axis by sᵢ (m).
#[derive(Clone, Copy, Debug)]
pub(super) struct TurnedFrame {
    /// Pᵢ, the axes of Fᵢ in the body frame.
    pub axes: Mat3,
    /// sᵢ: Fᵢ's origin is the body frame's origin plus sᵢ aᵢ, m.
    pub slide: f64,
    /// Fᵢ's origin at qᵢ = 0 relative to the parent's Fᵢ origin, in the parent's Fᵢ axes
    /// (the root frame's for a body jointed to the root), m.
    pub offset: [f64; 3],
}

impl TurnedFrame {
    /// The root's frame, and that of a body whose axis is malformed.
    pub const IDENTITY: TurnedFrame = TurnedFrame {
        axes: IDENTITY,
        slide: 0.0,
        offset: [0.0; 3],
    };

    /// The point `x` of the body frame (m) in Fᵢ: Pᵢᵀ x − sᵢ e_z.
    pub fn local(&self, x: [f64; 3]) -> [f64; 3] {
        let mut turned = mat_vec(&transpose(&self.axes), x);
        turned[2] -= self.slide;
        turned
    }
}

/// For each body of `tree`, its [`TurnedFrame`]: the axes Pᵢ = `axis_frame`(aᵢ) Rz(φᵢ) with
/// the spins φ of [`spins`] (the identity for a body whose axis is zero or not finite, which
/// [`body_constants`] refuses), and the origin slid along the joint axis as [`slide`] chooses,
/// parents first.
pub(super) fn body_frames(tree: &RigidBodyTree) -> Vec<TurnedFrame> {
    let spins = spins(tree);
    let mut frames: Vec<TurnedFrame> = Vec::with_capacity(tree.bodies.len());
    for (index, (body, spin)) in tree.bodies.iter().zip(spins).enumerate() {
        let Some(a) = unit_axis(body) else {
            frames.push(TurnedFrame::IDENTITY);
            continue;
        };
        let axes = mul(&axis_frame(a), &about_z(spin));
        let parent = (body.parent)
            .filter(|&p| p < index)
            .map_or(&TurnedFrame::IDENTITY, |p| &frames[p]);
        let fixed = parent.local(body.origin.translation);
        // The joint axis in the parent's turned frame.
        let along = mat_vec(&transpose(&parent.axes), mat_vec(&body.origin.rotation, a));
        let (slide, offset) = slide(fixed, along);
        frames.push(TurnedFrame {
            axes,
            slide,
            offset,
        });
    }
    frames
}

/// The slide s along the joint axis `along` (a unit vector in the parent's turned frame) that
/// makes the most components of the offset `fixed` + s `along` zero, and that offset: a
/// component k with alongₖ ≠ 0 is zeroed by s = −fixedₖ/alongₖ, taken when |s| ≤ |fixed|
/// (nearly parallel axes would slide the origin far away and trade exactness for large
/// cancelling terms). Components within 8 ulps of |fixed| of zero count as zero: the joint
/// axes of a file that intersect or meet a coordinate plane do so exactly but for rounding.
/// Every vector the recursions carry between bodies crosses with this offset (a cross product
/// with a zero component costs 5 operations instead of 9, with two zeros 2). s = 0 when no
/// slide zeroes more components, or for malformed data.
fn slide(fixed: [f64; 3], along: [f64; 3]) -> (f64, [f64; 3]) {
    let length = dot(fixed, fixed).sqrt();
    let clean = |v: [f64; 3]| {
        v.map(|x| {
            if x.abs() <= 8.0 * f64::EPSILON * length {
                0.0
            } else {
                x
            }
        })
    };
    if !length.is_finite() || !along.iter().all(|x| x.is_finite()) {
        return (0.0, fixed);
    }
    let zeros = |v: &[f64; 3]| v.iter().filter(|&&x| x == 0.0).count();
    let mut best: (f64, [f64; 3]) = (0.0, clean(fixed));
    for k in 0..3 {
        if along[k] == 0.0 || fixed[k] == 0.0 {
            continue;
        }
        let s = -fixed[k] / along[k];
        if s.abs() > length {
            continue;
        }
        let mut offset = clean([0, 1, 2].map(|j| fixed[j] + s * along[j]));
        offset[k] = 0.0;
        let better = zeros(&offset) > zeros(&best.1)
            || (zeros(&offset) == zeros(&best.1) && best.0 != 0.0 && s.abs() < best.0.abs());
        if better {
            best = (s, offset);
        }
    }
    best
}

/// The joint axis of `body`, normalized; `None` for a zero or non-finite axis.
fn unit_axis(body: &crate::tree::TreeBody) -> Option<[f64; 3]> {
    let (TreeJoint::Revolute { axis, .. } | TreeJoint::Prismatic { axis, .. }) = body.joint;
    let norm = dot(axis, axis).sqrt();
    (norm > 0.0 && norm.is_finite()).then(|| axis.map(|a| a / norm))
}

/// For each body, the angle φ (rad) its turned frame is spun about its joint axis, Pᵢ =
/// `axis_frame`(aᵢ) Rz(φᵢ): chosen so that the turn to its first child c whose axis is not
/// parallel to its own is Rx(β) Rz(γ), whose first row and column are (1, 0, 0) up to the
/// trailing Rz(γ), which joins the child's joint rotation Rz(q꜀). Any turn is
/// Rz(α) Rx(β) Rz(γ) (z-x-z angles); φ = α removes the Rz(α), where
/// G = axis_frame(a_parent)ᵀ R_origin axis_frame(a꜀) has third column
/// (sin α sin β, −cos α sin β, cos β). A child with a parallel axis (sin β = 0) has the turn
/// Rz(γ) whatever φ is, so it is passed over. 0 for a body without such a child, or with
/// malformed data (the caller reports it).
fn spins(tree: &RigidBodyTree) -> Vec<f64> {
    let mut spins = vec![0.0; tree.bodies.len()];
    let mut chosen = vec![false; tree.bodies.len()];
    for (index, body) in tree.bodies.iter().enumerate() {
        let Some(p) = body.parent.filter(|&p| p < index && !chosen[p]) else {
            continue;
        };
        let (Some(child), Some(parent)) = (unit_axis(body), unit_axis(&tree.bodies[p])) else {
            continue;
        };
        let rotation = body.origin.rotation;
        if !rotation.as_flattened().iter().all(|x| x.is_finite()) {
            continue;
        }
        let g = mul(
            &mul(&transpose(&axis_frame(parent)), &rotation),
            &axis_frame(child),
        );
        if g[0][2].hypot(g[1][2]) > 1e-9 {
            spins[p] = g[0][2].atan2(-g[1][2]);
            chosen[p] = true;
        }
    }
    spins
}

/// Rz(φ), snapped: exact for quarter turns.
fn about_z(phi: f64) -> Mat3 {
    let (s, c) = phi.sin_cos();
    snap([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
}

/// The identity matrix.
pub(super) const IDENTITY: Mat3 = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

/// A rotation P whose third column is the unit vector `a`: the first column is the coordinate
/// axis least aligned with `a` made orthogonal to it, the second their cross product. For a
/// coordinate axis ±eₖ every entry is exactly 0 or ±1.
pub(super) fn axis_frame(a: [f64; 3]) -> Mat3 {
    let least = (0..3)
        .min_by(|&i, &j| a[i].abs().total_cmp(&a[j].abs()))
        .unwrap_or(0);
    let mut u = [0.0; 3];
    u[least] = 1.0;
    let along = a[least];
    let u = [0, 1, 2].map(|k| u[k] - along * a[k]);
    let length = dot(u, u).sqrt();
    let u = u.map(|x| x / length);
    let w = cross(a, u);
    snap([0, 1, 2].map(|r| [u[r], w[r], a[r]]))
}

/// Whether `r` is orthonormal to 1e-9 with determinant +1.
fn is_rotation(r: &Mat3) -> bool {
    let product = mul(&transpose(r), r);
    let orthonormal =
        (0..3).all(|i| (0..3).all(|j| (product[i][j] - IDENTITY[i][j]).abs() <= 1e-9));
    orthonormal && dot(r[0], cross(r[1], r[2])) > 0.0
}

/// Whether `m` is symmetric to 1e-9 of its largest entry.
fn is_symmetric(m: &Mat3) -> bool {
    let largest = m.as_flattened().iter().fold(0.0f64, |a, x| a.max(x.abs()));
    (0..3).all(|i| (0..3).all(|j| (m[i][j] - m[j][i]).abs() <= 1e-9 * largest))
}

/// `m` with each entry snapped ([`snap_entry`]).
fn snap(m: Mat3) -> Mat3 {
    m.map(|row| row.map(snap_entry))
}

/// `x`, or the exact 0, 1 or −1 when it is within 4 ulps of one.
pub(super) fn snap_entry(x: f64) -> f64 {
    let nearest = x.round();
    if nearest.abs() <= 1.0 && (x - nearest).abs() <= 4.0 * f64::EPSILON {
        nearest
    } else {
        x
    }
}

/// u·v.
pub(super) fn dot(u: [f64; 3], v: [f64; 3]) -> f64 {
    u[0] * v[0] + u[1] * v[1] + u[2] * v[2]
}

/// u × v.
fn cross(u: [f64; 3], v: [f64; 3]) -> [f64; 3] {
    [
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ]
}

/// A B.
fn mul(a: &Mat3, b: &Mat3) -> Mat3 {
    [0, 1, 2].map(|i| [0, 1, 2].map(|j| (0..3).map(|k| a[i][k] * b[k][j]).sum()))
}

/// A v.
pub(super) fn mat_vec(a: &Mat3, v: [f64; 3]) -> [f64; 3] {
    a.map(|row| dot(row, v))
}

/// Aᵀ.
pub(super) fn transpose(a: &Mat3) -> Mat3 {
    [0, 1, 2].map(|i| [0, 1, 2].map(|j| a[j][i]))
}
