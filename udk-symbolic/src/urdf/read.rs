//! Reading a URDF file into a [`Robot`]: the [`RigidBodyTree`] with its fixed joints merged,
//! plus what the spec expansion needs beyond it (joint names, damping, mimic tags, where each
//! link sits in its body, each body's joint origin as the file writes it).
//!
//! The XML is parsed by `urdf-rs` (after [`super::xml`] drops the elements udk ignores);
//! every check after that (links, tree shape, axes, inertias) is done here, and each error
//! names the file, the element and its line (found in the text, since `urdf-rs` keeps no
//! positions).

use super::inertia::{self, LinkInertia};
use super::UrdfSource;
use crate::tree::{RigidBodyTree, SpatialInertia, Transform, TreeBody, TreeJoint};
use std::collections::HashMap;
use urdf_rs::JointType;

/// The most movable joints a robot may have: its symbolic derivation grows with their number,
/// and this bound keeps its time and memory bounded on any file.
pub const MAX_JOINTS: usize = 128;

/// A URDF robot ready for the spec expansion.
#[derive(Clone, Debug)]
pub struct Robot {
    /// The robot's name (`<robot name>`).
    pub name: String,
    /// The kinematic tree; body `i` is moved by coordinate `i`.
    pub tree: RigidBodyTree,
    /// The movable joints, one per body and coordinate, in the same order.
    pub joints: Vec<MovableJoint>,
    /// With `floating_base` or a `root` pose, the mass properties of the root link and the
    /// links fixed to it, in the root link's frame (`None` when they have none); `None`
    /// without (a fixed root does not move, and its links' inertias are not read).
    pub base_inertia: Option<SpatialInertia>,
    /// Every link, in file order, with the frame it is rigidly attached to.
    pub links: Vec<LinkFrame>,
    /// What the file says that udk accepts with a remark, each naming the element: inertia
    /// tensors slightly indefinite or repaired, `<mimic>` tags naming no joint (ignored
    /// without `mimic`).
    pub warnings: Vec<String>,
}

/// A revolute, continuous or prismatic joint of a [`Robot`].
#[derive(Clone, Debug)]
pub struct MovableJoint {
    /// The joint's name, verbatim.
    pub name: String,
    /// `<dynamics damping>`, N·m·s/rad or N·s/m (0 when absent).
    pub damping: f64,
    /// `<mimic joint multiplier offset>`: the index of the mimicked coordinate, the
    /// multiplier (default 1) and the offset (default 0).
    pub mimic: Option<(usize, f64, f64)>,
}

/// Where a link's frame is: `offset` from the frame of body `body` (`None`: the root).
#[derive(Clone, Debug)]
pub struct LinkFrame {
    /// The link's name, verbatim.
    pub name: String,
    /// The body it belongs to, `None` for the root and the links fixed to it.
    pub body: Option<usize>,
    /// The link frame in the body frame (the identity for the body's own link).
    pub offset: Transform,
}

/// Parses the URDF `text` of the file `source.path` (for messages) into a [`Robot`], with the
/// options of `source` (`mimic`, `inertia`).
///
/// # Errors
/// A message naming the file, the element and its line: XML that does not parse as a URDF; a
/// file with no links; a joint whose parent or child link is not defined, or a link that is the
/// child of two joints; no root link (a cycle) or several; more than [`MAX_JOINTS`] movable
/// joints; a `floating`, `planar` or `spherical` joint (not supported yet; with
/// `floating_base`, a floating joint is refused as a second free base); a movable joint
/// with a zero or non-finite axis; with `mimic`, a `<mimic>` that names no movable joint; a
/// link with a negative or non-finite mass, or with an inertia tensor that is not positive
/// semidefinite beyond rounding (see [`super::inertia`]; `inertia = "repair"` repairs it).
pub fn read(text: &str, source: &UrdfSource) -> Result<Robot, String> {
    let file = source.path.as_str();
    let robot = super::xml::parse(file, text)?;
    let at = |tag: &str, name: &str| {
        let line = line_of(text, tag, name).map_or(String::new(), |l| format!(":{l}"));
        format!("{file}{line}: <{tag} name=\"{name}\">")
    };
    let link_index: HashMap<&str, usize> = (robot.links.iter().enumerate())
        .map(|(i, l)| (l.name.as_str(), i))
        .collect();
    let mut parent_joint: Vec<Option<usize>> = vec![None; robot.links.len()];
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); robot.links.len()];
    for (j, joint) in robot.joints.iter().enumerate() {
        for (role, link) in [("parent", &joint.parent.link), ("child", &joint.child.link)] {
            if !link_index.contains_key(link.as_str()) {
                return Err(format!(
                    "{}: the {role} link `{link}` is not defined",
                    at("joint", &joint.name)
                ));
            }
        }
        if joint.joint_type == JointType::Floating && source.floating_base {
            return Err(format!(
                "{}: the URDF already has a floating joint, and `floating_base = true` adds \
                 another free base at its root link `{}`: remove the option or the joint",
                at("joint", &joint.name),
                joint.parent.link
            ));
        }
        if matches!(
            joint.joint_type,
            JointType::Floating | JointType::Planar | JointType::Spherical
        ) {
            return Err(format!(
                "{}: {:?} joints are not supported yet (revolute, continuous, prismatic and \
                 fixed joints are)",
                at("joint", &joint.name),
                joint.joint_type
            )
            .replace("Floating", "floating")
            .replace("Planar", "planar")
            .replace("Spherical", "spherical"));
        }
        let child = link_index[joint.child.link.as_str()];
        if let Some(earlier) = parent_joint[child] {
            return Err(format!(
                "{}: link `{}` is already the child of joint `{}`; a URDF is a tree",
                at("joint", &joint.name),
                joint.child.link,
                robot.joints[earlier].name
            ));
        }
        parent_joint[child] = Some(j);
        children[link_index[joint.parent.link.as_str()]].push(j);
    }
    let roots: Vec<usize> = (0..robot.links.len())
        .filter(|&i| parent_joint[i].is_none())
        .collect();
    let root = match roots.as_slice() {
        [root] => *root,
        [] => {
            return Err(format!(
                "{file}: every link is the child of a joint, so the joints form a cycle and \
                 there is no root link"
            ))
        }
        several => {
            let names: Vec<String> = (several.iter())
                .map(|&i| format!("`{}`", robot.links[i].name))
                .collect();
            return Err(format!(
                "{file}: several root links ({}); a URDF has one root, every other link the \
                 child of a joint",
                names.join(", ")
            ));
        }
    };
    let mut builder = Builder {
        robot: &robot,
        at: &at,
        children: &children,
        link_index: &link_index,
        bodies: Vec::new(),
        inertias: Vec::new(),
        base: (source.floating_base || source.root.is_some()).then(Vec::new),
        joints: Vec::new(),
        links: vec![None; robot.links.len()],
        names: HashMap::new(),
    };
    builder.walk(root)?;
    if let Some(unreached) = builder.links.iter().position(Option::is_none) {
        return Err(format!(
            "{}: the link is not reachable from the root link `{}`: its joints form a cycle",
            at("link", &robot.links[unreached].name),
            robot.links[root].name
        ));
    }
    if builder.joints.len() > MAX_JOINTS {
        return Err(format!(
            "{file}: {} movable joints; udk derives robots of at most {MAX_JOINTS}",
            builder.joints.len()
        ));
    }
    let Builder {
        mut bodies,
        inertias,
        base,
        mut joints,
        links,
        names,
        ..
    } = builder;
    let mut remarks = Vec::new();
    for ((body, _), links) in bodies.iter_mut().zip(inertias) {
        body.inertia = inertia::merge(links, source.inertia, &mut remarks)
            .map_err(|(link, e)| format!("{}: {e}", at("link", &link)))?;
    }
    let base_inertia = match base {
        Some(links) => inertia::merge(links, source.inertia, &mut remarks)
            .map_err(|(link, e)| format!("{}: {e}", at("link", &link)))?,
        None => None,
    };
    let mut warnings: Vec<String> = (remarks.into_iter())
        .map(|(link, remark)| format!("{}: {remark}", at("link", &link)))
        .collect();
    warnings.extend(massless_subtrees(
        file,
        &bodies,
        &joints,
        &links,
        &robot.links,
    ));
    for (joint, (_, mimic)) in joints.iter_mut().zip(&mut bodies) {
        if let Some(m) = mimic.take() {
            match names.get(m.joint.as_str()) {
                Some(&i) => {
                    joint.mimic = Some((i, m.multiplier.unwrap_or(1.0), m.offset.unwrap_or(0.0)))
                }
                None => {
                    let problem = format!(
                        "{}: the mimicked joint `{}` is not a revolute, continuous or \
                         prismatic joint of the model",
                        at("joint", &joint.name),
                        m.joint
                    );
                    if source.mimic {
                        return Err(problem);
                    }
                    warnings.push(format!("{problem}; ignored, since `mimic` is off"));
                }
            }
        }
    }
    Ok(Robot {
        name: robot.name.clone(),
        tree: RigidBodyTree {
            bodies: bodies.into_iter().map(|(b, _)| b).collect(),
            gravity: [0.0, 0.0, -9.81],
        },
        joints,
        base_inertia,
        links: (links.into_iter().zip(&robot.links))
            .map(|(frame, link)| {
                let (body, offset) = frame.expect("every link was reached");
                LinkFrame {
                    name: link.name.clone(),
                    body,
                    offset,
                }
            })
            .collect(),
        warnings,
    })
}

/// The depth-first walk that builds the bodies.
struct Builder<'a> {
    robot: &'a urdf_rs::Robot,
    at: &'a dyn Fn(&str, &str) -> String,
    children: &'a [Vec<usize>],
    link_index: &'a HashMap<&'a str, usize>,
    bodies: Vec<(TreeBody, Option<urdf_rs::Mimic>)>,
    /// The inertias of each body's links, merged once the walk is done.
    inertias: Vec<Vec<LinkInertia>>,
    /// The inertias of the root link and the links fixed to it, gathered for a floating base.
    base: Option<Vec<LinkInertia>>,
    joints: Vec<MovableJoint>,
    /// Each link's body and offset in it, once reached.
    links: Vec<Option<(Option<usize>, Transform)>>,
    /// Coordinate index of each movable joint, by name.
    names: HashMap<&'a str, usize>,
}

impl<'a> Builder<'a> {
    /// Walks the tree from `root` depth-first (children in the order of their joints in the
    /// file), with an explicit stack so that a long chain cannot overflow the call stack.
    fn walk(&mut self, root: usize) -> Result<(), String> {
        let robot = self.robot;
        // (joint, the parent link's body and its offset in it); the root link itself enters
        // as `None`.
        let mut stack: Vec<(Option<usize>, Option<usize>, Transform)> =
            vec![(None, None, Transform::IDENTITY)];
        while let Some((joint, body, offset)) = stack.pop() {
            let (link, body, offset) = match joint {
                None => (root, body, offset),
                Some(j) => {
                    let joint = &robot.joints[j];
                    let child = self.link_index[joint.child.link.as_str()];
                    let numbers = [joint.origin.xyz.0, joint.origin.rpy.0].concat();
                    if !numbers.iter().all(|x| x.is_finite()) {
                        let at = (self.at)("joint", &joint.name);
                        return Err(format!("{at}: a number of its origin is not finite"));
                    }
                    let origin = compose(&offset, &pose(&joint.origin));
                    if joint.joint_type == JointType::Fixed {
                        (child, body, origin)
                    } else {
                        let moved = self.movable(joint, body, origin)?;
                        (child, Some(moved), Transform::IDENTITY)
                    }
                }
            };
            self.attach(link, body, offset)?;
            for &j in self.children[link].iter().rev() {
                stack.push((Some(j), body, offset));
            }
        }
        Ok(())
    }

    /// Adds the body that the movable `joint` moves, attached to `parent` at `origin`; returns
    /// its index.
    fn movable(
        &mut self,
        joint: &'a urdf_rs::Joint,
        parent: Option<usize>,
        origin: Transform,
    ) -> Result<usize, String> {
        let axis = unit_axis(joint.axis.xyz.0).ok_or_else(|| {
            let at = (self.at)("joint", &joint.name);
            format!(
                "{at}: the axis {:?} is zero or not finite; a movable joint needs a direction",
                joint.axis.xyz.0
            )
        })?;
        let damping = joint.dynamics.as_ref().map_or(0.0, |d| d.damping);
        let mimic = joint.mimic.as_ref();
        let mimic_numbers = mimic.map_or([1.0, 0.0], |m| {
            [m.multiplier.unwrap_or(1.0), m.offset.unwrap_or(0.0)]
        });
        if !mimic_numbers
            .iter()
            .chain(&[damping])
            .all(|x| x.is_finite())
        {
            let at = (self.at)("joint", &joint.name);
            return Err(format!(
                "{at}: its damping or a number of its mimic tag is not finite"
            ));
        }
        let coordinate = self.joints.len();
        let tree_joint = if joint.joint_type == JointType::Prismatic {
            TreeJoint::Prismatic { coordinate, axis }
        } else {
            TreeJoint::Revolute { coordinate, axis }
        };
        self.names.insert(&joint.name, coordinate);
        self.joints.push(MovableJoint {
            name: joint.name.clone(),
            damping,
            mimic: None,
        });
        self.bodies.push((
            TreeBody {
                name: joint.child.link.clone(),
                parent,
                joint: tree_joint,
                origin,
                inertia: None,
            },
            joint.mimic.clone(),
        ));
        self.inertias.push(Vec::new());
        Ok(coordinate)
    }

    /// Records that `link` sits at `offset` in `body` (`None`: the root) and adds its mass
    /// properties to the body's links (those of the fixed base do not move).
    fn attach(
        &mut self,
        link: usize,
        body: Option<usize>,
        offset: Transform,
    ) -> Result<(), String> {
        self.links[link] = Some((body, offset));
        let data = &self.robot.links[link];
        let inertia = inertia::link_inertia(data, &offset).map_err(|e| {
            let at = (self.at)("link", &data.name);
            format!("{at}: {e}")
        })?;
        match (inertia, body, &mut self.base) {
            (Some(inertia), Some(b), _) => self.inertias[b].push(inertia),
            (Some(inertia), None, Some(base)) => base.push(inertia),
            _ => {}
        }
        Ok(())
    }
}

/// A warning for each largest subtree of bodies with no inertia at all: the joints that move
/// it have zero rows and columns in M, so their accelerations are never determined (romeo.urdf's
/// hands, whose `aba` in Pinocchio returns NaN). It names the joints and the links they move.
fn massless_subtrees(
    file: &str,
    bodies: &[(TreeBody, Option<urdf_rs::Mimic>)],
    joints: &[MovableJoint],
    links: &[Option<(Option<usize>, Transform)>],
    link_data: &[urdf_rs::Link],
) -> Vec<String> {
    // Bodies come parents first, so one backward pass gathers each subtree's inertia.
    let mut heavy: Vec<bool> = bodies.iter().map(|(b, _)| b.inertia.is_some()).collect();
    for b in (0..bodies.len()).rev() {
        if let Some(parent) = bodies[b].0.parent {
            heavy[parent] |= heavy[b];
        }
    }
    let massless = |b: usize| !heavy[b];
    let within = |b: usize, top: usize| {
        let mut at = Some(b);
        while let Some(k) = at {
            if k == top {
                return true;
            }
            at = bodies[k].0.parent;
        }
        false
    };
    (0..bodies.len())
        .filter(|&b| massless(b) && bodies[b].0.parent.is_none_or(|p| !massless(p)))
        .map(|top| {
            let moved: Vec<usize> = (top..bodies.len()).filter(|&b| within(b, top)).collect();
            let joint_names: Vec<String> = moved
                .iter()
                .map(|&b| format!("`{}`", joints[b].name))
                .collect();
            let link_names: Vec<String> = (links.iter().zip(link_data))
                .filter(|(frame, _)| {
                    frame
                        .as_ref()
                        .and_then(|f| f.0)
                        .is_some_and(|b| moved.contains(&b))
                })
                .map(|(_, link)| format!("`{}`", link.name))
                .collect();
            let (joint, moves, rows) = match moved.len() {
                1 => (
                    "joint",
                    "moves",
                    "its row and column of M are 0 and its acceleration is",
                ),
                _ => (
                    "joints",
                    "move",
                    "their rows and columns of M are 0 and their accelerations are",
                ),
            };
            format!(
                "{file}: the {joint} {} {moves} only links with no mass or inertia ({}), so \
                 {rows} never determined",
                joint_names.join(", "),
                link_names.join(", ")
            )
        })
        .collect()
}

/// The 1-based line of the first `<tag ... name="name"` in `text`.
fn line_of(text: &str, tag: &str, name: &str) -> Option<usize> {
    let open = format!("<{tag}");
    let mut from = 0;
    while let Some(k) = text[from..].find(&open) {
        let start = from + k;
        let end = text[start..].find('>').map_or(text.len(), |e| start + e);
        let element = &text[start..end];
        let after = element[open.len()..].chars().next();
        if after.is_some_and(char::is_whitespace)
            && (element.contains(&format!("name=\"{name}\""))
                || element.contains(&format!("name='{name}'")))
        {
            return Some(text[..start].matches('\n').count() + 1);
        }
        from = start + open.len();
    }
    None
}

/// The transform of a URDF `<origin xyz rpy>`: R = Rz(yaw)·Ry(pitch)·Rx(roll) (URDF's fixed-axis
/// roll, pitch, yaw).
pub fn pose(origin: &urdf_rs::Pose) -> Transform {
    Transform {
        rotation: rpy_matrix(origin.rpy.0),
        translation: origin.xyz.0,
    }
}

/// Rz(yaw)·Ry(pitch)·Rx(roll) for `[roll, pitch, yaw]`.
fn rpy_matrix([roll, pitch, yaw]: [f64; 3]) -> [[f64; 3]; 3] {
    let (sr, cr) = sin_cos(roll);
    let (sp, cp) = sin_cos(pitch);
    let (sy, cy) = sin_cos(yaw);
    [
        [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
        [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
        [-sp, cp * sr, cp * cr],
    ]
}

/// How close (rad) an rpy angle must be to a multiple of π/2 to be taken as that quarter turn:
/// a file that writes π/2 to 13 or more significant digits (TIAGo Pro's 1.5707963267949 and
/// 1.57079632679489, 3.4e-15 and 6.6e-15 short) means it, where 1.5708 (3.7e-6 short, as many
/// files write it) and the UR5's 1.57079632679 (4.9e-12 short) are read as written. A snapped angle moves a frame by less than 1e-12 rad,
/// far inside the 1e-10 to which udk agrees with Pinocchio, which reads the literal angle.
const QUARTER_TURN_TOLERANCE: f64 = 1e-12;

/// sin and cos of `angle`, the exact 0 and ±1 when it is within [`QUARTER_TURN_TOLERANCE`] of
/// a multiple of π/2 (as udk's constant folding does for `rot_x(0.5 * PI)`), so that a URDF's
/// quarter turns carry no 6e-17 (or 3.4e-15) entries into the frames: a turn that is a signed
/// permutation costs nothing in the recursions, a turn 3.4e-15 short of one a plane rotation
/// per vector and inertia (TIAGo Pro's emitted q̈ 11 723 → 10 914 operations).
fn sin_cos(angle: f64) -> (f64, f64) {
    let k = (angle / std::f64::consts::FRAC_PI_2).round();
    let near = (angle - k * std::f64::consts::FRAC_PI_2).abs() <= QUARTER_TURN_TOLERANCE;
    if k != 0.0 && k.abs() <= 1e6 && near {
        match (k as i64).rem_euclid(4) {
            0 => (0.0, 1.0),
            1 => (1.0, 0.0),
            2 => (0.0, -1.0),
            _ => (-1.0, 0.0),
        }
    } else {
        angle.sin_cos()
    }
}

/// a ∘ b: x_a = R_a (R_b x + t_b) + t_a.
pub fn compose(a: &Transform, b: &Transform) -> Transform {
    Transform {
        rotation: mat_mul(&a.rotation, &b.rotation),
        translation: apply(a, b.translation),
    }
}

/// R x + t.
pub fn apply(a: &Transform, x: [f64; 3]) -> [f64; 3] {
    let r = mat_vec(&a.rotation, x);
    [0, 1, 2].map(|i| r[i] + a.translation[i])
}

fn mat_vec(a: &[[f64; 3]; 3], x: [f64; 3]) -> [f64; 3] {
    a.map(|row| row[0] * x[0] + row[1] * x[1] + row[2] * x[2])
}

pub(super) fn mat_mul(a: &[[f64; 3]; 3], b: &[[f64; 3]; 3]) -> [[f64; 3]; 3] {
    [0, 1, 2].map(|i| [0, 1, 2].map(|j| (0..3).map(|k| a[i][k] * b[k][j]).sum()))
}

/// `axis` scaled to unit length, `None` when it is zero or not finite.
fn unit_axis(axis: [f64; 3]) -> Option<[f64; 3]> {
    let norm = axis.iter().map(|x| x * x).sum::<f64>().sqrt();
    (norm.is_finite() && norm > 0.0).then(|| axis.map(|x| x / norm))
}
