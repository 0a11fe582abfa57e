//! Ready-made model specs, written as strings the way a model file holds them: for benchmarks,
//! tests and examples.

use crate::spec::{ModelSpec, NamedExpression, Parameter};

fn parsed<T: std::str::FromStr>(text: &str) -> T
where
    T::Err: std::fmt::Debug,
{
    text.parse()
        .unwrap_or_else(|e| panic!("`{text}` does not parse: {e:?}"))
}

/// Parameters m1…mn (kg), l1…ln (m) and g (m/s²).
fn chain_parameters(n: usize) -> Vec<Parameter> {
    let masses = (1..=n).map(|k| (format!("m{k}"), 1.0));
    let lengths = (1..=n).map(|k| (format!("l{k}"), 1.0));
    masses
        .chain(lengths)
        .chain([("g".to_owned(), 9.81)])
        .map(|(name, value)| Parameter {
            name: parsed(&name),
            value: Some(value),
        })
        .collect()
}

/// The planar chain of n point masses mₖ hanging from the origin on massless rods of lengths
/// lₖ, in Cartesian coordinates: 2n coordinates x1, y1, …, xn, yn (m; y up), n holonomic
/// length constraints (xₖ − xₖ₋₁)² + (yₖ − yₖ₋₁)² − lₖ² = 0, and gravity g along −y.
/// Parameters m1…mn, l1…ln, g.
///
/// # Panics
/// When n = 0.
pub fn pendulum_chain_cartesian(n: usize) -> ModelSpec {
    assert!(n > 0, "a chain needs at least one link");
    let coordinates = (1..=n)
        .flat_map(|k| [format!("x{k}"), format!("y{k}")])
        .map(|c| parsed(&c))
        .collect();
    let lagrangian = (1..=n)
        .map(|k| format!("0.5 * m{k} * (dot(x{k}).powi(2) + dot(y{k}).powi(2)) - m{k} * g * y{k}"))
        .collect::<Vec<_>>()
        .join(" + ");
    let holonomic = (1..=n)
        .map(|k| match k {
            1 => "x1.powi(2) + y1.powi(2) - l1.powi(2)".to_owned(),
            _ => format!(
                "(x{k} - x{j}).powi(2) + (y{k} - y{j}).powi(2) - l{k}.powi(2)",
                j = k - 1
            ),
        })
        .map(|f| parsed(&f))
        .collect();
    ModelSpec {
        name: format!("PendulumChainCartesian{n}"),
        coordinates,
        parameters: chain_parameters(n),
        lagrangian: Some(parsed(&lagrangian)),
        holonomic,
        ..ModelSpec::default()
    }
}

/// The Lagrangian of the chain in the absolute angles th1…thn: Σₖ ½ mₖ |vₖ|² + mₖ g Σ_{j≤k} lⱼ cos θⱼ
/// with vₖ = Σ_{j≤k} lⱼ θ̇ⱼ (cos θⱼ, sin θⱼ), mₖ, lⱼ and g written as `mass(k)`, `length(j)`, `g`.
fn chain_lagrangian(
    n: usize,
    mass: &dyn Fn(usize) -> String,
    length: &dyn Fn(usize) -> String,
    g: &str,
) -> String {
    let sum = |k: usize, term: &dyn Fn(usize) -> String| {
        (1..=k).map(term).collect::<Vec<_>>().join(" + ")
    };
    (1..=n)
        .map(|k| {
            let vx = sum(k, &|j| format!("{} * th{j}.cos() * dot(th{j})", length(j)));
            let vy = sum(k, &|j| format!("{} * th{j}.sin() * dot(th{j})", length(j)));
            let height = sum(k, &|j| format!("{} * th{j}.cos()", length(j)));
            let m = mass(k);
            format!("0.5 * {m} * (({vx}).powi(2) + ({vy}).powi(2)) + {m} * {g} * ({height})")
        })
        .collect::<Vec<_>>()
        .join(" + ")
}

/// The same chain as [`pendulum_chain_cartesian`] in minimal coordinates: the n angles
/// th1…thn (rad) of the rods from the downward vertical, with no constraint. Mass k is at
/// xₖ = Σ_{j≤k} lⱼ sin θⱼ, yₖ = −Σ_{j≤k} lⱼ cos θⱼ. Parameters m1…mn, l1…ln, g.
///
/// # Panics
/// When n = 0.
pub fn pendulum_chain_minimal(n: usize) -> ModelSpec {
    assert!(n > 0, "a chain needs at least one link");
    let coordinates = (1..=n).map(|k| parsed(&format!("th{k}"))).collect();
    let lagrangian = chain_lagrangian(n, &|k| format!("m{k}"), &|j| format!("l{j}"), "g");
    ModelSpec {
        name: format!("PendulumChainMinimal{n}"),
        coordinates,
        parameters: chain_parameters(n),
        lagrangian: Some(parsed(&lagrangian)),
        ..ModelSpec::default()
    }
}

/// The chain of [`pendulum_chain_minimal`] as a kinematic tree, with unit masses and lengths
/// and g = 9.81 m/s² written as numbers (the tree's inertias are constants): the n relative
/// joint angles q1…qn (rad), qₖ = θₖ − θₖ₋₁, and [`ModelSpec::tree`] set, so that the
/// derivation forms M by the composite-rigid-body algorithm and q̈ by the articulated-body
/// algorithm. The model of `bench/compare.py`'s `pinocchio_chain` and
/// `bench/pinocchio_aba.cpp`: revolute joints about z, joint k at the end of rod k − 1, the
/// point mass of link k at (0, −1, 0) in joint k's frame, gravity (0, −9.81, 0).
///
/// # Panics
/// When n = 0.
pub fn pendulum_chain_tree(n: usize) -> ModelSpec {
    use crate::tree::{RigidBodyTree, SpatialInertia, Transform, TreeBody, TreeJoint};
    assert!(n > 0, "a chain needs at least one link");
    let coordinates = (1..=n).map(|k| parsed(&format!("q{k}"))).collect();
    let definitions = (1..=n)
        .map(|k| NamedExpression {
            name: parsed(&format!("th{k}")),
            value: parsed(
                &(1..=k)
                    .map(|j| format!("q{j}"))
                    .collect::<Vec<_>>()
                    .join(" + "),
            ),
        })
        .collect();
    let one = |_: usize| "1.0".to_owned();
    let lagrangian = chain_lagrangian(n, &one, &one, "9.81");
    let bodies = (0..n)
        .map(|k| TreeBody {
            name: format!("link{}", k + 1),
            parent: k.checked_sub(1),
            joint: TreeJoint::Revolute {
                coordinate: k,
                axis: [0.0, 0.0, 1.0],
            },
            origin: Transform {
                rotation: Transform::IDENTITY.rotation,
                translation: [0.0, if k > 0 { -1.0 } else { 0.0 }, 0.0],
            },
            inertia: Some(SpatialInertia {
                mass: 1.0,
                com: [0.0, -1.0, 0.0],
                inertia: [[0.0; 3]; 3],
            }),
        })
        .collect();
    ModelSpec {
        name: format!("PendulumChainTree{n}"),
        coordinates,
        definitions,
        lagrangian: Some(parsed(&lagrangian)),
        tree: Some(RigidBodyTree {
            bodies,
            gravity: [0.0, -9.81, 0.0],
        }),
        ..ModelSpec::default()
    }
}
