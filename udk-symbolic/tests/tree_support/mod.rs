//! Kinematic trees built by hand, and the same robot as a spec of `let` definitions and
//! `kinetic_energy` terms (the way the URDF front end writes it), for the tests of the
//! composite-rigid-body and Newton–Euler derivation.
#![allow(dead_code)]

pub mod robots;

use nalgebra::{DMatrix, DVector};
use proptest::prelude::*;
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

/// A chain of `n` revolute bodies of 1 kg. Planar: the chain of `models::pendulum_chain_tree`
/// (joints about z, each 1 m along −y from the one before, point masses 1 m along −y from
/// their joints). Spatial: joint k about z, y, x in turn (k mod 3), its origin 0.3 m along the
/// parent's x and 0.1 m along its z, turned by rpy (0.2, −0.1, 0.3), the centre of mass 0.15 m
/// along x and an inertia with products.
pub fn chain(n: usize, spatial: bool) -> Vec<Body> {
    let inertia = [
        [0.02, 0.001, -0.002],
        [0.001, 0.03, 0.0015],
        [-0.002, 0.0015, 0.025],
    ];
    (0..n)
        .map(|k| {
            let mut axis = [0.0; 3];
            axis[if spatial { 2 - k % 3 } else { 2 }] = 1.0;
            let (rpy, xyz, mass) = if spatial {
                let xyz = if k == 0 { [0.0; 3] } else { [0.3, 0.0, 0.1] };
                ([0.2, -0.1, 0.3], xyz, (1.0, [0.15, 0.0, 0.0], inertia))
            } else {
                let xyz = if k == 0 { [0.0; 3] } else { [0.0, -1.0, 0.0] };
                ([0.0; 3], xyz, (1.0, [0.0, -1.0, 0.0], [[0.0; 3]; 3]))
            };
            Body {
                parent: k.checked_sub(1),
                rpy,
                xyz,
                revolute: true,
                axis,
                inertia: Some(mass),
            }
        })
        .collect()
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

/// `spec` without its tree and with its Lagrangian L written as `1.0 * (L)`: one term, with no
/// `kinetic_energy` term at the top level, so that the derivation neither recognizes a tree in
/// the definitions nor splits L into bodies. Its M and Q are ∂²L/∂q̇² and the Lagrangian Q:
/// the dense path, the reference the tree forms are checked against.
pub fn dense(spec: &ModelSpec) -> ModelSpec {
    let mut dense = spec.clone();
    dense.tree = None;
    let l = spec.lagrangian.as_ref().expect("a Lagrangian model");
    dense.lagrangian = Some(format!("1.0 * ({l})").parse().expect("L parses"));
    dense
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

/// Asserts ‖x − y‖ ≤ max(1e-12, 8 ε κ(M)) ‖y‖ (Euclidean norms): 1e-12, unless the
/// conditioning κ(M) of the mass matrix bounds the dense solve's own accuracy above it (the
/// chain's M at n ≳ 20), and that x solves M x = f to a backward error of 1e-13.
pub fn assert_solution_close(
    x: &[f64],
    y: &[f64],
    mass: &DMatrix<f64>,
    f: &DVector<f64>,
    what: &str,
) {
    assert_eq!(x.len(), y.len());
    let (x, y) = (DVector::from_column_slice(x), DVector::from_column_slice(y));
    let eigenvalues = mass.clone().symmetric_eigenvalues();
    let condition = eigenvalues.max() / eigenvalues.min();
    let bound = 1e-12_f64.max(8.0 * f64::EPSILON * condition);
    let error = (&x - &y).norm() / y.norm().max(f64::MIN_POSITIVE);
    assert!(
        error <= bound,
        "{what}: relative error {error:e} > {bound:e}"
    );
    let backward = (mass * &x - f).norm() / (mass.norm() * x.norm() + f.norm());
    assert!(backward <= 1e-13, "{what}: backward error {backward:e}");
}

/// Random trees of 1 to `max_bodies` − 1 bodies: a parent before each, a joint origin, a
/// revolute or prismatic joint about a random axis (a coordinate axis half the time), and mass
/// properties with probability `mass_weight`, else none.
pub fn random_bodies(mass_weight: f64, max_bodies: usize) -> impl Strategy<Value = Vec<Body>> {
    let angle = -3.2..3.2f64;
    let length = -0.5..0.5f64;
    let axis = prop_oneof![
        (0..3usize, prop::bool::ANY).prop_map(|(k, negative)| {
            let mut a = [0.0; 3];
            a[k] = if negative { -1.0 } else { 1.0 };
            a
        }),
        [-1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64].prop_filter("a non-zero axis", |a| a
            .iter()
            .map(|x| x * x)
            .sum::<f64>()
            > 0.01),
    ];
    let inertia = prop::option::weighted(
        mass_weight,
        (
            0.1..3.0f64,
            [length.clone(), length.clone(), length.clone()],
            [0.01..0.2f64, 0.01..0.2f64, 0.01..0.2f64],
            [angle.clone(), angle.clone(), angle.clone()],
        )
            .prop_map(|(mass, com, principal, rpy)| {
                let r = rpy_matrix(rpy);
                let inertia = [0, 1, 2].map(|i| {
                    [0, 1, 2].map(|j| (0..3).map(|k| r[i][k] * principal[k] * r[j][k]).sum())
                });
                (mass, com, inertia)
            }),
    );
    let body = (
        prop::num::f64::ANY.prop_map(|x| x.to_bits()),
        [angle.clone(), angle.clone(), angle],
        [length.clone(), length.clone(), length],
        prop::bool::weighted(0.75),
        axis,
        inertia,
    );
    prop::collection::vec(body, 1..max_bodies).prop_map(|raw| {
        (raw.into_iter().enumerate())
            .map(|(i, (bits, rpy, xyz, revolute, axis, inertia))| Body {
                parent: (i > 0 && bits % 5 != 0).then(|| (bits as usize / 5) % i),
                rpy,
                xyz,
                revolute,
                axis,
                inertia,
            })
            .collect()
    })
}
