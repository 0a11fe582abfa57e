//! Robots from URDF files: the front end that turns a `<robot>` description into a
//! [`ModelSpec`].
//!
//! [`read`] parses the file with `urdf-rs` into a [`crate::tree::RigidBodyTree`], merging
//! fixed joints; [`expand`] then fills the spec so that every later stage works unchanged:
//! - `coordinates`: the model's own, then one per revolute, continuous or prismatic joint,
//!   depth-first from the root link, children in the order of their joints in the file
//!   (identifiers made from the joint names; `coordinate_names` keeps the names verbatim);
//! - `definitions`: each moving link's world rotation `<link>_rotation` (3×3), frame origin
//!   `<link>_position` (m) and, when it is not the origin, centre of mass `<link>_com`;
//! - `lagrangian`: L = Σ `kinetic_energy(m, I, p_com, R)` + Σ m g·p_com (gravity
//!   (0, 0, −9.81) m/s² unless `gravity` says otherwise), plus the model's own L;
//! - `inputs`: the model's own, then the joint efforts `tau_<joint>` (N·m or N), one per joint;
//! - `forces`: the model's own for its coordinates, then per joint τ, minus d·q̇ with
//!   `joint_damping` (URDF `<dynamics damping>`), plus the model's own entry if it gives one;
//! - `holonomic`: the model's own, then q_j − multiplier·q_i − offset for each `<mimic>`
//!   joint with `mimic`;
//! - `tree`: the tree, for the composite-rigid-body and Newton–Euler derivation (none when
//!   the model has its own coordinates or a `root` pose: the tree takes the root fixed).
//!
//! With a `root` pose ([`UrdfRoot`]) the root link's frame is `urdf_root_rotation` and
//! `urdf_root_position`, defined from the model's expressions after those of its own `let`
//! definitions that use no link, and the root link's mass moves with it.
//!
//! The model's own `holonomic`, `nonholonomic`, `nonideal`, `forces`, `loads`, `outputs` and
//! `let` definitions combine with the URDF, and may use `link_position("link")` (the link
//! frame's origin in the world frame, a 3-vector, m) and `link_rotation("link")` (its
//! rotation matrix, 3×3).

mod expand;
pub mod inertia;
mod links;
pub(crate) use links::unknown_link;
#[cfg(test)]
mod quirks_tests;
mod read;
#[cfg(test)]
mod tests;
mod xml;

pub use expand::expand_robot;
pub use read::{read, LinkFrame, MovableJoint, Robot, MAX_JOINTS};

use crate::error::{Error, Errors};
use crate::spec::{Expression, ModelSpec};
use proc_macro2::Span;
use serde::{Deserialize, Deserializer, Serialize};
use std::path::{Path, PathBuf};

/// Gravity of a URDF model unless its `gravity` says otherwise: (0, 0, −9.81) m/s² in the root
/// frame, as Pinocchio's.
pub const DEFAULT_GRAVITY: [f64; 3] = [0.0, 0.0, -9.81];

/// The URDF file of a model and its options: `urdf = "robots/ur5.urdf"` in a model file, or
/// `urdf = { path = "robots/ur5.urdf", gravity = [0, 0, -1.62], joint_damping = true,
/// mimic = true, inertia = "repair", floating_base = true }`; `#[lagrangian(urdf = "..",
/// gravity(..), joint_damping = .., mimic = .., inertia = "repair", floating_base = true)]` in
/// the macro.
#[derive(Clone, Debug, Serialize)]
pub struct UrdfSource {
    /// The file, relative to the model file (or to `CARGO_MANIFEST_DIR` in the macro).
    pub path: String,
    /// Gravitational acceleration in the root frame, m/s²; [`DEFAULT_GRAVITY`] when `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gravity: Option<[f64; 3]>,
    /// Whether each joint's `<dynamics damping>` d adds the force −d q̇ (off by default, as in
    /// Pinocchio's ABA).
    pub joint_damping: bool,
    /// Whether each `<mimic>` joint becomes the holonomic constraint
    /// q_j − multiplier·q_i − offset = 0 (off by default: independent joints).
    pub mimic: bool,
    /// What to do with an inertia tensor that is not positive semidefinite beyond rounding
    /// (see [`inertia`]): refuse the file (the default) or repair the tensor.
    #[serde(skip_serializing_if = "InertiaCheck::is_strict")]
    pub inertia: InertiaCheck,
    /// Whether the root link floats freely in space, as with Pinocchio's
    /// `JointModelFreeFlyer` (see `crate::derive::tree::free_flyer`): q gains the base pose
    /// [x, y, z, qx, qy, qz, qw] and v the base twist in the base frame. Off by default (the
    /// root link is fixed to the world).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub floating_base: bool,
    /// Where the URDF's root link is, when the model places it (`root = { position = "..",
    /// rotation = ".." }`, `urdf_root(position = .., rotation = ..)` in the macro): a pose in
    /// the model's own coordinates, parameters and `let` definitions (a cart, a moving
    /// platform). `None`: the root link is the world frame.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root: Option<UrdfRoot>,
    /// Where the model names the file (the `urdf = ".."` literal in the macro): every URDF
    /// error is reported there.
    #[serde(skip)]
    pub span: Span,
}

/// The pose of a URDF's root link in the world frame, as expressions of the model: its origin
/// (a 3-vector, m; the world origin when `None`) and its rotation (3 × 3; the identity when
/// `None`). The root link's own mass then moves with it.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UrdfRoot {
    /// The root link frame's origin in the world frame, m: `vec3(x, 0.0, 0.0)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<Expression>,
    /// The root link frame's rotation, world from root: `rot_z(psi)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotation: Option<Expression>,
}

/// The check of a URDF's inertia tensors (see [`inertia`]): `inertia = "strict"` (the
/// default) or `inertia = "repair"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum InertiaCheck {
    /// A tensor whose smallest eigenvalue is below 0 by more than
    /// [`inertia::TOLERANCE`] × its body's scale is an error.
    #[default]
    Strict,
    /// Such a tensor is projected onto the nearest positive semidefinite tensor (its negative
    /// eigenvalues set to 0), with a warning that says by how much.
    Repair,
}

impl InertiaCheck {
    /// Whether this is [`InertiaCheck::Strict`], the default.
    pub fn is_strict(&self) -> bool {
        *self == InertiaCheck::Strict
    }
}

impl UrdfSource {
    /// The file `path` (relative to the model file, or to `CARGO_MANIFEST_DIR` in the macro)
    /// with the default options: gravity (0, 0, −9.81) m/s², no joint damping, independent
    /// mimic joints, strict inertia checks; errors reported at the call site.
    pub fn new(path: impl Into<String>) -> Self {
        UrdfSource {
            path: path.into(),
            gravity: None,
            joint_damping: false,
            mimic: false,
            inertia: InertiaCheck::Strict,
            floating_base: false,
            root: None,
            span: Span::call_site(),
        }
    }

    /// The file `path` names, relative to `base`.
    pub fn resolve(&self, base: &Path) -> PathBuf {
        base.join(&self.path)
    }
}

impl<'de> Deserialize<'de> for UrdfSource {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Table {
            path: String,
            #[serde(default)]
            gravity: Option<[f64; 3]>,
            #[serde(default)]
            joint_damping: bool,
            #[serde(default)]
            mimic: bool,
            #[serde(default)]
            inertia: InertiaCheck,
            #[serde(default)]
            floating_base: bool,
            #[serde(default)]
            root: Option<UrdfRoot>,
        }
        #[derive(Deserialize)]
        #[serde(
            untagged,
            expecting = "a path or a table { path, gravity, joint_damping, mimic, inertia, floating_base, root }"
        )]
        enum Repr {
            Path(String),
            Table(Box<Table>),
        }
        let table = match Repr::deserialize(d)? {
            Repr::Path(path) => Table {
                path,
                gravity: None,
                joint_damping: false,
                mimic: false,
                inertia: InertiaCheck::Strict,
                floating_base: false,
                root: None,
            },
            Repr::Table(table) => *table,
        };
        Ok(UrdfSource {
            path: table.path,
            gravity: table.gravity,
            joint_damping: table.joint_damping,
            mimic: table.mimic,
            inertia: table.inertia,
            floating_base: table.floating_base,
            root: table.root,
            span: Span::call_site(),
        })
    }
}

/// Expands the URDF model `spec` (one with `spec.urdf` set) in place: reads the file,
/// relative to `base`, and fills the spec from it (see the module docs). Returns the file's
/// path, for a caller that tracks it (the macro's `include_bytes!`), or `None` when the spec
/// has no `urdf`.
///
/// # Errors
/// At `spec.urdf`'s span: a source with `floating_base` (a free-flyer model is generated by
/// `crate::codegen::free_flyer`, not expanded), a file that cannot be read, or any error of
/// [`read`] (file, element and line). At their own spans: `coordinates`, `inputs`, `lagrangian` or `hamiltonian` given
/// with a URDF (the file gives them), `forces` with neither 0 nor n entries, a
/// `link_position`/`link_rotation` of an unknown link or without a string literal.
pub fn expand(spec: &mut ModelSpec, base: &Path) -> Result<Option<PathBuf>, Errors> {
    let Some(source) = spec.urdf.clone() else {
        return Ok(None);
    };
    let path = source.resolve(base);
    let at_source = |message: String| Errors(vec![Error::new(source.span, message)]);
    if source.floating_base {
        return Err(at_source(
            "`floating_base = true` makes a free-flyer model, which has no Lagrangian spec to \
             expand: use `#[lagrangian(urdf = \"..\", floating_base = true)]`, \
             `udk::model::FreeFlyerModel::from_file` (or `from_urdf`), or `udk eval` and \
             `udk simulate` on the model file"
                .to_owned(),
        ));
    }
    let text = std::fs::read_to_string(&path)
        .map_err(|e| at_source(format!("{}: cannot read the URDF file: {e}", source.path)))?;
    let robot = read(&text, &source).map_err(at_source)?;
    expand_robot(spec, robot, &source)?;
    Ok(Some(path))
}
