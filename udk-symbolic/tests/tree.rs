//! M by the composite-rigid-body algorithm and Q by recursive Newton–Euler on hand-built
//! kinematic trees, against closed forms, against ∂²L/∂q̇² and the Lagrangian Q of the same
//! robot written with `kinetic_energy` terms, and (the UR5 arm) against Pinocchio.

mod tree_support;

use nalgebra::{DMatrix, DVector};
use proptest::prelude::*;
use std::f64::consts::FRAC_PI_2;
use tree_support::GRAVITY;
use tree_support::{assert_close, at, dense, spec, tree, Body};
use udk_symbolic::derive::tree::{dynamics, Frames, TreeError};
use udk_symbolic::expr::{Pool, Symbol};
use udk_symbolic::{derive, Equations, LagrangianEquations, MassMatrixForm, RigidBodyTree};

fn equations(d: &udk_symbolic::Derivation) -> &LagrangianEquations {
    match &d.equations {
        Equations::Lagrangian(e) => e,
        Equations::Hamiltonian(_) => unreachable!("a Lagrangian model"),
    }
}

/// M (row-major) and Q of a derivation at (q, q̇, τ).
fn evaluate(
    d: &udk_symbolic::Derivation,
    q: &[f64],
    qd: &[f64],
    tau: &[f64],
) -> (Vec<f64>, Vec<f64>) {
    let e = equations(d);
    let values = at(q, qd, tau);
    (
        d.pool.eval_all(&e.mass_matrix.entries, &values),
        d.pool.eval_all(&e.generalized_force, &values),
    )
}

/// Asserts that the energies (Jacobi integrals) of two derivations agree at (q, q̇) to 1e-12
/// relative to `scale`: a tree's is formed from its bodies' velocities, the dense path's is
/// q̇ᵀ∂L/∂q̇ − L.
fn assert_same_energy(
    a: &udk_symbolic::Derivation,
    b: &udk_symbolic::Derivation,
    q: &[f64],
    qd: &[f64],
    scale: f64,
) {
    let values = at(q, qd, &[]);
    let energy = |d: &udk_symbolic::Derivation| d.pool.eval(equations(d).energy, &values);
    assert_close(&[energy(a)], &[energy(b)], 1e-12, scale);
}

/// M (row-major) and Q₀ + τ of the tree in `frames` at (q, q̇, τ).
fn tree_values(
    tree: &RigidBodyTree,
    frames: Frames,
    q: &[f64],
    qd: &[f64],
    tau: &[f64],
) -> (Vec<f64>, Vec<f64>) {
    let mut pool = Pool::new();
    let d = dynamics(&mut pool, tree, q.len(), frames).expect("a well-formed tree");
    let values = at(q, qd, tau);
    let m = pool.eval_all(&d.mass_matrix.entries, &values);
    let bias = pool.eval_all(&d.bias, &values);
    (m, bias.iter().zip(tau).map(|(b, t)| b + t).collect())
}

fn largest(values: &[f64]) -> f64 {
    values.iter().fold(0.0, |a, x| a.max(x.abs()))
}

/// The tree of `bodies` in both frames, and its spec with `tree` set, agree with ∂²L/∂q̇² and
/// the Lagrangian Q of the spec without it (the dense path, 1e-12 relative) at `states` pseudo-random states;
/// returns the forms tried with the tree and without it.
fn assert_matches_lagrangian(bodies: &[Body], states: u32) -> Vec<(MassMatrixForm, usize)> {
    let n = bodies.len();
    let tree = tree(bodies, GRAVITY);
    let plain = spec(bodies, GRAVITY);
    let reference = derive(&dense(&plain)).unwrap_or_else(|e| panic!("{e}"));
    let mut with_tree = plain.clone();
    with_tree.tree = Some(tree.clone());
    let by_tree = derive(&with_tree).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        equations(&by_tree).mass_matrix_form,
        MassMatrixForm::CompositeRigidBody
    );
    for k in 0..states {
        let draw = |offset: f64, i: usize| ((f64::from(k) + 1.0) * (i as f64 + offset)).sin();
        let q: Vec<f64> = (0..n).map(|i| 3.0 * draw(0.37, i)).collect();
        let qd: Vec<f64> = (0..n).map(|i| 2.0 * draw(1.91, i)).collect();
        let tau: Vec<f64> = (0..n).map(|i| draw(2.73, i)).collect();
        let (m, force) = evaluate(&reference, &q, &qd, &tau);
        let (m_scale, q_scale) = (largest(&m), largest(&force));
        for frames in [Frames::Body, Frames::World] {
            let (tree_m, tree_q) = tree_values(&tree, frames, &q, &qd, &tau);
            assert_close(&tree_m, &m, 1e-12, m_scale);
            assert_close(&tree_q, &force, 1e-12, q_scale);
        }
        let (chosen_m, chosen_q) = evaluate(&by_tree, &q, &qd, &tau);
        assert_close(&chosen_m, &m, 1e-12, m_scale);
        assert_close(&chosen_q, &force, 1e-12, q_scale);
        assert_same_energy(&by_tree, &reference, &q, &qd, m_scale + q_scale);
    }
    // With a clean tree only the tree's form is formed; the dense model gives ∂²L/∂q̇².
    let mut forms = equations(&by_tree).mass_matrix_forms.clone();
    forms.extend(equations(&reference).mass_matrix_forms.iter().copied());
    forms
}

fn point_mass(mass: f64, com: [f64; 3]) -> Option<(f64, [f64; 3], [[f64; 3]; 3])> {
    Some((mass, com, [[0.0; 3]; 3]))
}

/// A planar double pendulum about y, links l1 and l2 hanging along −z at q = 0, point masses
/// m1 and m2 at their ends.
fn double_pendulum(m1: f64, m2: f64, l1: f64, l2: f64) -> Vec<Body> {
    let link = |parent, xyz, mass: f64, length: f64| Body {
        parent,
        rpy: [0.0; 3],
        xyz,
        revolute: true,
        axis: [0.0, 1.0, 0.0],
        inertia: point_mass(mass, [0.0, 0.0, -length]),
    };
    vec![
        link(None, [0.0; 3], m1, l1),
        link(Some(0), [0.0, 0.0, -l1], m2, l2),
    ]
}

/// The double pendulum's M and bias have their closed forms, with h = m₂ l₁ l₂ sin q₂:
/// M = [[m₁l₁² + m₂(l₁² + l₂² + 2l₁l₂ cos q₂), m₂(l₂² + l₁l₂ cos q₂)], [·, m₂l₂²]],
/// Q₀ = (h(2q̇₁q̇₂ + q̇₂²) − (m₁+m₂)g l₁ sin q₁ − m₂ g l₂ sin(q₁+q₂), −h q̇₁² − m₂ g l₂ sin(q₁+q₂)).
#[test]
fn double_pendulum_has_its_closed_form() {
    let (m1, m2, l1, l2, g) = (1.3, 0.7, 0.9, 0.6, 9.81);
    let tree = tree(&double_pendulum(m1, m2, l1, l2), GRAVITY);
    let (q, qd) = ([0.4f64, -1.1], [0.8f64, -1.7]);
    let (s2, c2, s12) = (q[1].sin(), q[1].cos(), (q[0] + q[1]).sin());
    let m12 = m2 * (l2 * l2 + l1 * l2 * c2);
    let expected_m = [
        m1 * l1 * l1 + m2 * (l1 * l1 + l2 * l2 + 2.0 * l1 * l2 * c2),
        m12,
        m12,
        m2 * l2 * l2,
    ];
    let h = m2 * l1 * l2 * s2;
    let expected_bias = [
        h * (2.0 * qd[0] * qd[1] + qd[1] * qd[1])
            - (m1 + m2) * g * l1 * q[0].sin()
            - m2 * g * l2 * s12,
        -h * qd[0] * qd[0] - m2 * g * l2 * s12,
    ];
    for frames in [Frames::Body, Frames::World] {
        let (m, bias) = tree_values(&tree, frames, &q, &qd, &[0.0, 0.0]);
        assert_close(&m, &expected_m, 1e-14, 1.0);
        assert_close(&bias, &expected_bias, 1e-13, 1.0);
    }
}

#[test]
fn double_pendulum_matches_its_lagrangian() {
    assert_matches_lagrangian(&double_pendulum(1.3, 0.7, 0.9, 0.6), 5);
}

/// A branched tree: a base turning about z carries a prismatic slider (axis along its x, at
/// an angle) with an arm on it, and a massless revolute link (axis x) with a body on an
/// oblique axis (1, 1, 0)/√2 at its end.
fn branched() -> Vec<Body> {
    let inertia =
        |a: f64, b: f64, c: f64| [[a, 0.01, -0.002], [0.01, b, 0.003], [-0.002, 0.003, c]];
    vec![
        Body {
            parent: None,
            rpy: [0.0; 3],
            xyz: [0.0, 0.0, 0.2],
            revolute: true,
            axis: [0.0, 0.0, 1.0],
            inertia: Some((2.0, [0.01, 0.02, 0.05], inertia(0.05, 0.06, 0.04))),
        },
        Body {
            parent: Some(0),
            rpy: [0.3, -0.2, FRAC_PI_2],
            xyz: [0.1, 0.0, 0.05],
            revolute: false,
            axis: [1.0, 0.0, 0.0],
            inertia: Some((0.8, [0.05, 0.0, 0.01], inertia(0.02, 0.03, 0.025))),
        },
        Body {
            parent: Some(0),
            rpy: [FRAC_PI_2, 0.0, 0.0],
            xyz: [0.0, 0.15, 0.1],
            revolute: true,
            axis: [1.0, 0.0, 0.0],
            inertia: None,
        },
        Body {
            parent: Some(2),
            rpy: [0.0, 0.4, 0.0],
            xyz: [0.0, 0.0, 0.3],
            revolute: true,
            axis: [1.0, 1.0, 0.0],
            inertia: Some((0.5, [0.0, 0.1, 0.02], inertia(0.01, 0.012, 0.008))),
        },
        Body {
            parent: Some(1),
            rpy: [0.0, 0.0, -0.7],
            xyz: [0.2, 0.0, 0.0],
            revolute: true,
            axis: [0.0, -1.0, 0.0],
            inertia: Some((0.3, [0.1, 0.0, 0.0], inertia(0.004, 0.005, 0.006))),
        },
    ]
}

#[test]
fn branched_tree_with_a_slider_and_a_massless_link_matches_its_lagrangian() {
    let forms = assert_matches_lagrangian(&branched(), 4);
    let size = |form| forms.iter().find(|(f, _)| *f == form).map(|(_, s)| *s);
    assert!(size(MassMatrixForm::CompositeRigidBody) < size(MassMatrixForm::Lagrangian));
}

/// A coordinate no joint of the tree moves gets a zero row and column and no bias.
#[test]
fn coordinates_outside_the_tree_get_zero_rows() {
    let tree = tree(&double_pendulum(1.0, 1.0, 1.0, 1.0), GRAVITY);
    let (m, bias) = tree_values(
        &tree,
        Frames::Body,
        &[0.3, 0.2, 5.0],
        &[1.0, 2.0, 3.0],
        &[0.0; 3],
    );
    assert_eq!([m[2], m[5], m[6], m[7], m[8], bias[2]], [0.0; 6]);
    assert!(m[0] > 0.0 && m[4] > 0.0);
}

/// The model's parts the tree does not hold (a spring in L) are added to the tree's M and Q.
#[test]
fn terms_of_the_lagrangian_outside_the_tree_are_kept() {
    let bodies = double_pendulum(1.3, 0.7, 0.9, 0.6);
    let mut with_spring = spec(&bodies, GRAVITY);
    let l = with_spring.lagrangian.take().unwrap();
    with_spring.lagrangian = Some(
        format!("{l} - 3.0 * q1.powi(2) + 0.2 * dot(q0) * dot(q1)")
            .parse()
            .unwrap(),
    );
    let reference = derive(&dense(&with_spring)).unwrap();
    with_spring.tree = Some(tree(&bodies, GRAVITY));
    let by_tree = derive(&with_spring).unwrap();
    let forms = &equations(&by_tree).mass_matrix_forms;
    assert!(forms
        .iter()
        .any(|(f, _)| *f == MassMatrixForm::CompositeRigidBody));
    let (q, qd, tau) = ([0.4, -1.1], [0.8, -1.7], [0.3, -0.2]);
    let (m, force) = evaluate(&reference, &q, &qd, &tau);
    let (tree_m, tree_force) = evaluate(&by_tree, &q, &qd, &tau);
    assert_close(&tree_m, &m, 1e-12, 1.0);
    assert_close(&tree_force, &force, 1e-12, 1.0);
    // h is T + V of the tree plus the rest's q̇ᵀ∂L_rest/∂q̇ − L_rest = 3 q₁² + 0.2 q̇₀q̇₁,
    // checked by value too.
    assert_same_energy(&by_tree, &reference, &q, &qd, 1.0);
    let without_spring = {
        let mut plain = spec(&bodies, GRAVITY);
        plain.tree = Some(tree(&bodies, GRAVITY));
        derive(&plain).unwrap()
    };
    let h = |d: &udk_symbolic::Derivation| d.pool.eval(equations(d).energy, &at(&q, &qd, &[]));
    let rest = 3.0 * q[1] * q[1] + 0.2 * qd[0] * qd[1];
    assert_close(&[h(&by_tree) - h(&without_spring)], &[rest], 1e-12, 1.0);
}

/// A malformed tree is a typed error, and a derivation error at the Lagrangian.
#[test]
fn malformed_trees_are_errors() {
    let bodies = double_pendulum(1.0, 1.0, 1.0, 1.0);
    let mut pool = Pool::new();
    let mut bad = tree(&bodies, GRAVITY);
    bad.bodies[1].parent = Some(1);
    assert!(matches!(
        dynamics(&mut pool, &bad, 2, Frames::Body),
        Err(TreeError::ParentAfterChild { .. })
    ));
    let mut bad = tree(&bodies, GRAVITY);
    bad.bodies[0].joint = udk_symbolic::TreeJoint::Revolute {
        coordinate: 0,
        axis: [0.0; 3],
    };
    assert!(matches!(
        dynamics(&mut pool, &bad, 2, Frames::World),
        Err(TreeError::ZeroAxis { .. })
    ));
    assert!(matches!(
        dynamics(&mut pool, &tree(&bodies, GRAVITY), 1, Frames::Body),
        Err(TreeError::CoordinateOutOfRange {
            coordinate: 1,
            n: 1,
            ..
        })
    ));
    let mut bad = tree(&bodies, GRAVITY);
    bad.bodies[1].joint = udk_symbolic::TreeJoint::Prismatic {
        coordinate: 0,
        axis: [1.0, 0.0, 0.0],
    };
    assert!(matches!(
        dynamics(&mut pool, &bad, 2, Frames::Body),
        Err(TreeError::CoordinateRepeated { .. })
    ));
    let mut bad = tree(&bodies, GRAVITY);
    bad.bodies[1].origin.rotation[0][0] = 2.0;
    assert!(matches!(
        dynamics(&mut pool, &bad, 2, Frames::Body),
        Err(TreeError::NotARotation { .. })
    ));
    let mut bad = tree(&bodies, [0.0, f64::NAN, 0.0]);
    assert!(matches!(
        dynamics(&mut pool, &bad, 2, Frames::Body),
        Err(TreeError::NotFinite { .. })
    ));
    bad.gravity = GRAVITY;
    bad.bodies[0].inertia.as_mut().unwrap().mass = -1.0;
    assert!(matches!(
        dynamics(&mut pool, &bad, 2, Frames::Body),
        Err(TreeError::NegativeMass { .. })
    ));
    bad.bodies[0].inertia.as_mut().unwrap().mass = 1.0;
    bad.bodies[0].inertia.as_mut().unwrap().inertia[0][1] = 0.5;
    assert!(matches!(
        dynamics(&mut pool, &bad, 2, Frames::Body),
        Err(TreeError::NotSymmetric { .. })
    ));
    let mut model = spec(&bodies, GRAVITY);
    model.tree = Some(bad);
    let errors = derive(&model).unwrap_err();
    assert!(
        errors
            .to_string()
            .contains("inertia of body `link0` is not symmetric"),
        "{errors}"
    );
}

/// The UR5 arm's model file with gravity a constant (the tree's gravity is fixed), and the
/// tree set.
fn ur5_spec() -> udk_symbolic::ModelSpec {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/models/ur5_arm.toml"
    );
    let mut spec: udk_symbolic::ModelSpec =
        toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    spec.parameters.clear();
    spec.definitions.insert(
        0,
        udk_symbolic::NamedExpression {
            name: "g".parse().unwrap(),
            value: "9.81".parse().unwrap(),
        },
    );
    spec.tree = Some(tree(&tree_support::robots::ur5_dh_bodies(), GRAVITY));
    spec
}

/// The UR5 tree's q̈ = M⁻¹(Q₀ + τ) matches Pinocchio's ABA (tests/fixtures/ur5_arm.json) to
/// 1e-10 and its M Pinocchio's CRBA to 1e-12, in both frames; the derivation keeps the tree
/// form, which agrees with the model's ∂²L/∂q̇².
#[test]
fn ur5_matches_pinocchio_and_its_lagrangian() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/ur5_arm.json"
    );
    let fixture: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let numbers = |v: &serde_json::Value| -> Vec<f64> {
        v.as_array()
            .unwrap()
            .iter()
            .flat_map(|x| match x.as_array() {
                Some(row) => row.iter().map(|y| y.as_f64().unwrap()).collect(),
                None => vec![x.as_f64().unwrap()],
            })
            .collect()
    };
    let spec = ur5_spec();
    let by_tree = derive(&spec).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        equations(&by_tree).mass_matrix_form,
        MassMatrixForm::CompositeRigidBody
    );
    let reference = derive(&dense(&spec)).unwrap();
    for state in fixture["states"].as_array().unwrap() {
        let (q, qd, tau) = (
            numbers(&state["q"]),
            numbers(&state["qd"]),
            numbers(&state["tau"]),
        );
        assert_same_energy(&by_tree, &reference, &q, &qd, 1.0);
        for frames in [Frames::Body, Frames::World] {
            let (m, force) = tree_values(&spec.tree.clone().unwrap(), frames, &q, &qd, &tau);
            assert_close(&m, &numbers(&state["mass_matrix"]), 1e-12, largest(&m));
            let qdd = DMatrix::from_row_slice(6, 6, &m)
                .cholesky()
                .expect("M is positive definite")
                .solve(&DVector::from_vec(force));
            let expected = numbers(&state["qdd"]);
            assert_close(qdd.as_slice(), &expected, 1e-10, largest(&expected));
        }
        let (m, force) = evaluate(&reference, &q, &qd, &tau);
        let (tree_m, tree_force) = evaluate(&by_tree, &q, &qd, &tau);
        assert_close(&tree_m, &m, 1e-12, largest(&m));
        assert_close(&tree_force, &force, 1e-12, largest(&force));
    }
    // The equation sheet prints the shared subexpressions once, as tmp1, tmp2, …: shorter
    // than the Lagrangian form's sheet (printed as trees, they took 6 MB).
    let sheet = udk_symbolic::emit::equations_text(&by_tree);
    assert!(sheet.contains("  tmp1 = "));
    assert!(sheet.contains("\nM and Q by composite rigid body + recursive Newton–Euler\n"));
    assert!(sheet.len() < udk_symbolic::emit::equations_text(&reference).len());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn random_trees_match_their_lagrangian(bodies in tree_support::random_bodies(0.8, 5)) {
        prop_assume!(bodies.iter().any(|b| b.inertia.is_some()));
        let n = bodies.len();
        let tree = tree(&bodies, GRAVITY);
        let reference = derive(&dense(&spec(&bodies, GRAVITY))).unwrap_or_else(|e| panic!("{e}"));
        let q: Vec<f64> = (0..n).map(|i| (1.7 * i as f64 + 0.3).sin() * 2.0).collect();
        let qd: Vec<f64> = (0..n).map(|i| (2.3 * i as f64 + 0.9).cos() * 1.5).collect();
        let tau = vec![0.0; n];
        let (m, force) = evaluate(&reference, &q, &qd, &tau);
        for frames in [Frames::Body, Frames::World] {
            let (tree_m, tree_q) = tree_values(&tree, frames, &q, &qd, &tau);
            assert_close(&tree_m, &m, 1e-12, largest(&m));
            assert_close(&tree_q, &force, 1e-12, largest(&force));
        }
    }

    /// Recursive Newton–Euler with joint accelerations gives M q̈ − Q₀ of the
    /// composite-rigid-body M and the bias (what the Jacobians differentiate for a tree).
    #[test]
    fn inverse_dynamics_is_m_qdd_minus_the_bias(bodies in tree_support::random_bodies(0.8, 5)) {
        let n = bodies.len();
        let tree = tree(&bodies, GRAVITY);
        let mut pool = Pool::new();
        let qdd_symbols: Vec<_> = (0..n).map(|j| pool.symbol(Symbol::Acceleration(j))).collect();
        let inverse = udk_symbolic::derive::tree::inverse_dynamics(&mut pool, &tree, n, &qdd_symbols)
            .expect("a well-formed tree");
        let d = dynamics(&mut pool, &tree, n, Frames::Body).expect("a well-formed tree");
        let q: Vec<f64> = (0..n).map(|i| (1.3 * i as f64 + 0.5).sin() * 2.0).collect();
        let qd: Vec<f64> = (0..n).map(|i| (0.7 * i as f64 + 0.2).cos() * 1.5).collect();
        let qdd: Vec<f64> = (0..n).map(|i| (2.9 * i as f64 + 1.1).sin()).collect();
        let values = |s: Symbol| match s {
            Symbol::Coordinate(i) => q[i],
            Symbol::Velocity(i) => qd[i],
            Symbol::Acceleration(i) => qdd[i],
            _ => 0.0,
        };
        let m = DMatrix::from_row_slice(n, n, &pool.eval_all(&d.mass_matrix.entries, &values));
        let bias = DVector::from_vec(pool.eval_all(&d.bias, &values));
        let expected = &m * DVector::from_vec(qdd.clone()) - bias;
        let actual = pool.eval_all(&inverse, &values);
        assert_close(&actual, expected.as_slice(), 1e-12, largest(expected.as_slice()));
    }
}

/// The velocity symbol is used by the trees' bias: Q₀ of a resting tree is gravity alone.
#[test]
fn a_resting_pendulum_feels_gravity_only() {
    let tree = tree(&double_pendulum(2.0, 0.0, 0.5, 0.5), GRAVITY);
    let mut pool = Pool::new();
    let d = dynamics(&mut pool, &tree, 2, Frames::Body).unwrap();
    let at_rest = |s: Symbol| match s {
        Symbol::Coordinate(0) => 0.5,
        _ => 0.0,
    };
    let bias = pool.eval_all(&d.bias, &at_rest);
    assert_close(&bias, &[-2.0 * 9.81 * 0.5 * 0.5f64.sin(), 0.0], 1e-14, 1.0);
}

/// The UR5 and the Panda (with its fingers) of their URDF files: the tree form agrees with the
/// Lagrangian and is the one kept.
#[test]
fn urdf_robots_match_their_lagrangian() {
    assert_matches_lagrangian(&tree_support::robots::ur5_urdf_bodies(), 2);
    assert_matches_lagrangian(&tree_support::robots::panda_bodies(true), 2);
}

/// On a spatial chain with generic constants (every joint origin turned by rpy (0.2, −0.1,
/// 0.3), so that no rotation entry is 0 or ±1), the DAG operations of M per entry and of Q₀ per
/// link stay flat from n = 10 to 40, in both frames (measured per M entry: body 109 → 96,
/// world 62 → 32; per link of Q₀: body 257 → 292, world 351 → 369). The values the
/// recursions carry from body to body (the force of the composite-rigid-body loop, the world
/// poses) are shared operands; before they were, a constant turn distributed each carried
/// sum into the next, one more term per ancestor: 210 → 783 DAG operations per entry of M in
/// body frames (the test fails there), and 651 → 5067 emitted operations per link of Q₀ in
/// the world frame.
#[test]
fn spatial_chain_operations_stay_flat_per_entry() {
    let counts = |n: usize, frames: Frames| {
        let bodies = tree_support::chain(n, true);
        let mut pool = Pool::new();
        let d = dynamics(&mut pool, &tree(&bodies, GRAVITY), n, frames).expect("a tree");
        let entries = (n * (n + 1) / 2) as f64;
        (
            pool.operation_count(&d.mass_matrix.entries) as f64 / entries,
            pool.operation_count(&d.bias) as f64 / n as f64,
        )
    };
    for frames in [Frames::Body, Frames::World] {
        let (m10, q10) = counts(10, frames);
        let (m40, q40) = counts(40, frames);
        eprintln!(
            "{frames:?}: per M entry {m10:.0} → {m40:.0}, per link of Q₀ {q10:.0} → {q40:.0}"
        );
        assert!(m40 <= 1.2 * m10, "{frames:?}: M {m10} → {m40} per entry");
        assert!(q40 <= 1.2 * q10, "{frames:?}: Q₀ {q10} → {q40} per link");
    }
}

/// The analytic derivatives of the inverse dynamics (world-frame Newton–Euler derivatives,
/// Carpentier & Mansard 2018) equal the forward-mode ones (`Pool::diff` of
/// `inverse_dynamics`, body-frame Newton–Euler) to 1e-12 relative to each block's largest
/// entry, at three pseudo-random states with accelerations: on the spatial chain with generic
/// joint frames, the UR5 and the Panda (with fingers, two prismatic joints), the branched tree
/// (a slider, a massless link, an oblique axis), and Romeo and SO-100 read from their URDF
/// files.
#[test]
fn inverse_dynamics_derivatives_match_forward_mode() {
    use udk_symbolic::derive::tree::{inverse_dynamics, inverse_dynamics_derivatives};
    let urdf = |file: &str| {
        let path = format!("{}/../robots/{file}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).expect("a vendored URDF file");
        udk_symbolic::urdf::read(&text, &udk_symbolic::urdf::UrdfSource::new(file))
            .expect("a valid URDF file")
            .tree
    };
    let trees = [
        ("chain", tree(&tree_support::chain(7, true), GRAVITY)),
        (
            "ur5",
            tree(&tree_support::robots::ur5_urdf_bodies(), GRAVITY),
        ),
        (
            "panda",
            tree(&tree_support::robots::panda_bodies(true), GRAVITY),
        ),
        ("branched", tree(&branched(), GRAVITY)),
        ("romeo", urdf("romeo_small.urdf")),
        ("so100", urdf("so100.urdf")),
    ];
    for (name, tree) in trees {
        let n = tree.bodies.len();
        let mut pool = Pool::new();
        let v: Vec<_> = (0..n)
            .map(|j| pool.symbol(Symbol::Acceleration(j)))
            .collect();
        let tau = inverse_dynamics(&mut pool, &tree, n, &v).expect("a well-formed tree");
        let (by_q, by_qd) =
            inverse_dynamics_derivatives(&mut pool, &tree, n, &v).expect("a well-formed tree");
        for (analytic, symbol) in [
            (&by_q, Symbol::Coordinate as fn(usize) -> Symbol),
            (&by_qd, Symbol::Velocity),
        ] {
            let forward: Vec<_> = (tau.iter())
                .flat_map(|&t| (0..n).map(move |j| (t, j)))
                .map(|(t, j)| pool.diff(t, symbol(j)))
                .collect();
            for draw in 0..3 {
                let value = |i: usize, k: f64| (k * i as f64 + 0.7 * f64::from(draw) + 0.3).sin();
                let values = |s: Symbol| match s {
                    Symbol::Coordinate(i) => 3.0 * value(i, 1.3),
                    Symbol::Velocity(i) => 2.0 * value(i, 2.1),
                    Symbol::Acceleration(i) => 4.0 * value(i, 0.9),
                    _ => 0.0,
                };
                let expected = pool.eval_all(&forward, &values);
                let actual = pool.eval_all(&analytic.entries, &values);
                eprintln!("{name}, {:?}, state {draw}", symbol(0));
                assert!(expected.iter().any(|&x| x.abs() > 1e-3));
                assert_close(&actual, &expected, 1e-12, largest(&expected));
            }
        }
    }
}
