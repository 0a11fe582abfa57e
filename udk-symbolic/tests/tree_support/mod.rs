//! Kinematic trees built by hand, and the same robot as a spec of `let` definitions and
//! `kinetic_energy` terms (the way the URDF front end writes it), for the tests of the
//! composite-rigid-body and Newton–Euler derivation.
#![allow(dead_code)]

pub mod robots;

use udk_symbolic::expr::Symbol;
use udk_symbolic::{ModelSpec, RigidBodyTree, SpatialInertia, Transform, TreeBody, TreeJoint};

/// Standard gravity along −z, m/s².
pub const GRAVITY: [f64; 3] = [0.0, 0.0, -9.81];

/// One body as the tests describe it: the joint origin as roll, pitch, yaw (URDF `rpy`,
/// R = Rz(yaw) Ry(pitch) Rx(roll)) and a translation, then the joint.
#[derive(Clone, Debug)]
pub struct Body {
    pub parent: Option<usize>,
    pub rpy: [f64; 3],
    pub xyz: [f64; 3],
    pub revolute: bool,
    pub axis: [f64; 3],
    /// (mass, centre of mass, inertia about it), `None` for a massless body.
    pub inertia: Option<(f64, [f64; 3], [[f64; 3]; 3])>,
}

fn rot(axis: usize, angle: f64) -> [[f64; 3]; 3] {
    let (s, c) = angle.sin_cos();
    match axis {
        0 => [[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]],
        1 => [[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]],
        _ => [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]],
    }
}

pub fn mul(a: &[[f64; 3]; 3], b: &[[f64; 3]; 3]) -> [[f64; 3]; 3] {
    [0, 1, 2].map(|i| [0, 1, 2].map(|j| (0..3).map(|k| a[i][k] * b[k][j]).sum()))
}

/// Rz(yaw) Ry(pitch) Rx(roll).
pub fn rpy_matrix([roll, pitch, yaw]: [f64; 3]) -> [[f64; 3]; 3] {
    mul(&mul(&rot(2, yaw), &rot(1, pitch)), &rot(0, roll))
}

/// The tree of `bodies` (coordinate i is body i's) under `gravity`.
pub fn tree(bodies: &[Body], gravity: [f64; 3]) -> RigidBodyTree {
    let bodies = (bodies.iter().enumerate())
        .map(|(i, b)| TreeBody {
            name: format!("link{i}"),
            parent: b.parent,
            joint: if b.revolute {
                TreeJoint::Revolute {
                    coordinate: i,
                    axis: b.axis,
                }
            } else {
                TreeJoint::Prismatic {
                    coordinate: i,
                    axis: b.axis,
                }
            },
            origin: Transform {
                rotation: rpy_matrix(b.rpy),
                translation: b.xyz,
            },
            inertia: b
                .inertia
                .map(|(mass, com, inertia)| SpatialInertia { mass, com, inertia }),
        })
        .collect();
    RigidBodyTree { bodies, gravity }
}

fn vec3(v: [f64; 3]) -> String {
    format!("vec3({:?}, {:?}, {:?})", v[0], v[1], v[2])
}

/// The model of `bodies` as a spec: coordinates q0.., inputs tau0.. as the forces, and
/// L = Σ kinetic_energy(m, I, p, R) + Σ m g·p over the bodies with mass, with each body's
/// rotation `r{i}` and origin `o{i}` as definitions; `spec.tree` is not set.
pub fn spec(bodies: &[Body], gravity: [f64; 3]) -> ModelSpec {
    let n = bodies.len();
    let mut definitions = Vec::new();
    let mut lagrangian = Vec::new();
    for (i, b) in bodies.iter().enumerate() {
        let [roll, pitch, yaw] = b.rpy;
        let origin = format!("rot_z({yaw:?}) * rot_y({pitch:?}) * rot_x({roll:?})");
        let (parent_r, parent_o) = match b.parent {
            Some(p) => (format!("r{p} * "), format!("o{p} + ")),
            None => (String::new(), String::new()),
        };
        let axis = vec3(b.axis);
        let normalized = format!("normalize({axis})");
        if b.revolute {
            definitions.push((
                format!("r{i}"),
                format!("{parent_r}{origin} * rot_axis({normalized}, q{i})"),
            ));
            definitions.push((
                format!("o{i}"),
                format!("{parent_o}{parent_r}{}", vec3(b.xyz)),
            ));
        } else {
            definitions.push((format!("r{i}"), format!("{parent_r}{origin}")));
            definitions.push((
                format!("o{i}"),
                format!(
                    "{parent_o}{parent_r}({} + {origin} * (q{i} * {normalized}))",
                    vec3(b.xyz)
                ),
            ));
        }
        if let Some((m, com, inertia)) = b.inertia {
            definitions.push((format!("p{i}"), format!("o{i} + r{i} * {}", vec3(com))));
            let entries: Vec<String> = inertia
                .as_flattened()
                .iter()
                .map(|x| format!("{x:?}"))
                .collect();
            lagrangian.push(format!(
                "kinetic_energy({m:?}, mat3({}), p{i}, r{i}) + {m:?} * dot({}, p{i})",
                entries.join(", "),
                vec3(gravity)
            ));
        }
    }
    let quoted = |names: Vec<String>| {
        names
            .iter()
            .map(|s| format!("{s:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let toml_text = format!(
        "name = \"Tree\"\ncoordinates = [{}]\ninputs = [{}]\nforces = [{}]\ndefinitions = [{}]\nlagrangian = {:?}\n",
        quoted((0..n).map(|i| format!("q{i}")).collect()),
        quoted((0..n).map(|i| format!("tau{i}")).collect()),
        quoted((0..n).map(|i| format!("tau{i}")).collect()),
        (definitions.iter())
            .map(|(name, value)| format!("{{ name = {name:?}, value = {value:?} }}"))
            .collect::<Vec<_>>()
            .join(", "),
        if lagrangian.is_empty() { "0.0".to_owned() } else { lagrangian.join(" + ") },
    );
    toml::from_str(&toml_text).unwrap_or_else(|e| panic!("{e}\n{toml_text}"))
}

/// The value of each symbol at a test state: q, q̇, τ (parameters and time unused).
pub fn at<'a>(q: &'a [f64], qd: &'a [f64], tau: &'a [f64]) -> impl Fn(Symbol) -> f64 + 'a {
    move |s| match s {
        Symbol::Coordinate(i) => q[i],
        Symbol::Velocity(i) => qd[i],
        Symbol::Input(i) => tau[i],
        _ => 0.0,
    }
}

/// Asserts |a − b| ≤ tolerance · max(|a|, |b|, scale) entrywise.
pub fn assert_close(a: &[f64], b: &[f64], tolerance: f64, scale: f64) {
    assert_eq!(a.len(), b.len());
    for (k, (x, y)) in a.iter().zip(b).enumerate() {
        let bound = tolerance * x.abs().max(y.abs()).max(scale);
        assert!((x - y).abs() <= bound, "entry {k}: {x} vs {y}");
    }
}
