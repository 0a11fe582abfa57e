//! A kinematic tree of rigid bodies with a fixed base: the data a robot description (URDF)
//! gives once its fixed joints are merged, and what the composite-rigid-body and recursive
//! Newton–Euler derivations read (Featherstone 2008, ch. 5–6).
//!
//! Units: metres, kilograms, radians. Frames follow URDF: a body's frame is its parent's frame
//! times the joint's constant `origin` transform times the joint motion, a rotation about
//! (revolute) or a translation along (prismatic) the joint `axis`, given in the joint frame.

/// A kinematic tree with a fixed root (the world frame of the model).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RigidBodyTree {
    /// The moving bodies, every parent before its children (depth-first from the root,
    /// children in file order). Coordinate `i` belongs to the body whose joint names it.
    pub bodies: Vec<TreeBody>,
    /// Gravitational acceleration in the root frame, m/s² (URDF models: (0, 0, −9.81) unless
    /// the model says otherwise).
    pub gravity: [f64; 3],
}

/// One moving body of a [`RigidBodyTree`]: a link with every link fixed to it merged in.
#[derive(Clone, Debug, PartialEq)]
pub struct TreeBody {
    /// The name of the link whose frame is this body's frame.
    pub name: String,
    /// Index of the parent in [`RigidBodyTree::bodies`], `None` for a body jointed to the root.
    pub parent: Option<usize>,
    /// The joint that moves this body relative to its parent.
    pub joint: TreeJoint,
    /// Parent body frame → joint frame at zero joint coordinate (the URDF joint `<origin>`,
    /// with the fixed joints between the two bodies composed in).
    pub origin: Transform,
    /// The body's mass properties in its own frame, `None` when it has no mass.
    pub inertia: Option<SpatialInertia>,
}

/// How a [`TreeBody`] moves relative to its parent, with its generalized coordinate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TreeJoint {
    /// Rotation by qᵢ (rad) about the unit `axis` (joint frame).
    Revolute {
        /// Index i of the coordinate.
        coordinate: usize,
        /// Unit axis in the joint frame.
        axis: [f64; 3],
    },
    /// Translation by qᵢ (m) along the unit `axis` (joint frame).
    Prismatic {
        /// Index i of the coordinate.
        coordinate: usize,
        /// Unit axis in the joint frame.
        axis: [f64; 3],
    },
}

impl TreeJoint {
    /// The index of the joint's generalized coordinate.
    pub fn coordinate(&self) -> usize {
        match *self {
            TreeJoint::Revolute { coordinate, .. } | TreeJoint::Prismatic { coordinate, .. } => {
                coordinate
            }
        }
    }
}

/// A rigid transform: x_parent = rotation · x_child + translation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transform {
    /// Rotation matrix, row-major (rows are the parent-frame components).
    pub rotation: [[f64; 3]; 3],
    /// Translation, m, in the parent frame.
    pub translation: [f64; 3],
}

impl Transform {
    /// The identity transform.
    pub const IDENTITY: Transform = Transform {
        rotation: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        translation: [0.0; 3],
    };
}

/// Mass properties of a rigid body in the body's frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpatialInertia {
    /// Mass, kg (positive).
    pub mass: f64,
    /// Centre of mass, m, in the body frame.
    pub com: [f64; 3],
    /// Rotational inertia about the centre of mass, kg·m², in the body frame's axes;
    /// symmetric positive semidefinite.
    pub inertia: [[f64; 3]; 3],
}
