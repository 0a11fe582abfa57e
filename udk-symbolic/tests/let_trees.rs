//! Kinematic trees written by hand, with `let` definitions and `kinetic_energy` terms and no
//! `tree`: the derivation recognizes them and takes the O(n) path (M by the composite rigid
//! body algorithm, q̈₀ by the articulated-body algorithm). q̈₀ agrees with the dense path
//! (∂²L/∂q̇², M factored; `tree_support::dense`) and with the same model given its tree, to
//! 1e-12 relative (or 8 ε κ(M) where M's conditioning bounds the dense solve above that), with
//! numbers and with symbolic parameters; models that are not trees keep the dense path.

mod tree_support;

use nalgebra::{DMatrix, DVector};
use proptest::prelude::*;
use tree_support::{assert_solution_close, dense, robots, spec, tree, Body, GRAVITY};
use udk_symbolic::expr::Symbol;
use udk_symbolic::{derive, Derivation, Equations, LagrangianEquations, MassMatrixForm, ModelSpec};

fn equations(d: &Derivation) -> &LagrangianEquations {
    match &d.equations {
        Equations::Lagrangian(e) => e,
        Equations::Hamiltonian(_) => unreachable!("a Lagrangian model"),
    }
}

/// A pseudo-random state of a model with `n` coordinates and `parameters` parameters: q in
/// (−3, 3), q̇ in (−2, 2), τ in (−1, 1), parameters in (0.5, 1.5).
fn state(k: u32, n: usize, parameters: usize) -> impl Fn(Symbol) -> f64 {
    let draw = move |offset: f64, i: usize| ((f64::from(k) + 1.0) * (i as f64 + offset)).sin();
    let q: Vec<f64> = (0..n).map(|i| 3.0 * draw(0.37, i)).collect();
    let qd: Vec<f64> = (0..n).map(|i| 2.0 * draw(1.91, i)).collect();
    let tau: Vec<f64> = (0..n).map(|i| draw(2.73, i)).collect();
    let p: Vec<f64> = (0..parameters).map(|i| 1.0 + 0.5 * draw(4.19, i)).collect();
    move |s| match s {
        Symbol::Coordinate(i) => q[i],
        Symbol::Velocity(i) => qd[i],
        Symbol::Input(i) => tau[i],
        Symbol::Parameter(i) => p[i],
        _ => 0.0,
    }
}

/// Asserts that `spec` (no tree) takes the O(n) path, prints it on its equation sheet, and
/// that its q̈₀ agrees with the dense path's and, when given, with that of `with_tree` (the
/// same model with its tree) at `states` states.
fn assert_takes_the_tree_path(spec: &ModelSpec, with_tree: Option<&ModelSpec>, states: u32) {
    assert!(spec.tree.is_none());
    let d = derive(spec).unwrap_or_else(|e| panic!("{e}"));
    let e = equations(&d);
    assert_eq!(
        e.mass_matrix_forms
            .iter()
            .map(|(f, _)| *f)
            .collect::<Vec<_>>(),
        [MassMatrixForm::CompositeRigidBody],
        "the tree holds all of L, so its form is the only one"
    );
    let articulated = e.articulated.as_ref().expect("the O(n) path applies");
    let sheet = udk_symbolic::emit::equations_text(&d);
    assert!(sheet.contains("O(n), q''0 = M^-1 (Q + C)"), "{sheet}");
    let reference = derive(&dense(spec)).unwrap_or_else(|e| panic!("{e}"));
    let by_tree = with_tree.map(|s| derive(s).unwrap_or_else(|e| panic!("{e}")));
    let n = spec.coordinates.len();
    for k in 0..states {
        let at = state(k, n, spec.parameters.len());
        let r = equations(&reference);
        let mass =
            DMatrix::from_row_slice(n, n, &reference.pool.eval_all(&r.mass_matrix.entries, &at));
        let force = DVector::from_vec(reference.pool.eval_all(&r.generalized_force, &at));
        let expected = mass
            .clone()
            .cholesky()
            .expect("M positive definite")
            .solve(&force);
        let qdd = d
            .pool
            .eval_all(&articulated.unconstrained_acceleration, &at);
        assert_solution_close(
            &qdd,
            expected.as_slice(),
            &mass,
            &force,
            "q̈₀ against the dense path",
        );
        if let Some(by_tree) = &by_tree {
            let with = equations(by_tree)
                .articulated
                .as_ref()
                .expect("the O(n) path applies");
            let tree_qdd = by_tree.pool.eval_all(&with.unconstrained_acceleration, &at);
            assert_solution_close(
                &qdd,
                &tree_qdd,
                &mass,
                &force,
                "q̈₀ against the model's tree",
            );
        }
    }
}

/// `bodies` as a `let` model without its tree, and with it.
fn with_and_without_tree(bodies: &[Body]) -> (ModelSpec, ModelSpec) {
    let plain = spec(bodies, GRAVITY);
    let mut with_tree = plain.clone();
    with_tree.tree = Some(tree(bodies, GRAVITY));
    (plain, with_tree)
}

/// The UR5 (its URDF frames and its DH frames) and the Panda (with and without its prismatic
/// fingers) written as the URDF front end writes them, without their trees.
#[test]
fn robots_written_with_let_take_the_tree_path() {
    for bodies in [
        robots::ur5_urdf_bodies(),
        robots::ur5_dh_bodies(),
        robots::panda_bodies(false),
        robots::panda_bodies(true),
    ] {
        let (plain, with_tree) = with_and_without_tree(&bodies);
        assert_takes_the_tree_path(&plain, Some(&with_tree), 4);
    }
}

/// A spatial arm whose lengths, masses and gravity are parameters (three revolute joints, the
/// second turned by a quarter turn, and a prismatic slider on the last link), its gravity
/// potential written as −g Σ mᵢ pᵢ.z.
fn symbolic_arm() -> ModelSpec {
    let text = r#"
name = "SymbolicArm"
coordinates = ["q1", "q2", "q3", "s4"]
inputs = ["tau1", "tau2", "tau3", "f4"]
forces = ["tau1", "tau2", "tau3", "f4"]
parameters = [
    { name = "l1", value = 0.4 },
    { name = "l2", value = 0.5 },
    { name = "l3", value = 0.3 },
    { name = "m1", value = 2.0 },
    { name = "m2", value = 1.5 },
    { name = "m3", value = 1.0 },
    { name = "m4", value = 0.5 },
    { name = "g", value = 9.81 },
]
definitions = [
    { name = "r1", value = "rot_z(q1)" },
    { name = "p1", value = "vec3(0.0, 0.0, 0.5 * l1)" },
    { name = "r2", value = "r1 * rot_x(0.5 * PI) * rot_z(q2)" },
    { name = "o2", value = "vec3(0.0, 0.0, l1)" },
    { name = "p2", value = "o2 + r2 * vec3(0.5 * l2, 0.0, 0.02)" },
    { name = "r3", value = "r2 * rot_y(0.3) * rot_z(q3)" },
    { name = "o3", value = "o2 + r2 * vec3(l2, 0.0, 0.0)" },
    { name = "p3", value = "o3 + r3 * vec3(0.5 * l3, 0.1 * l3, 0.0)" },
    { name = "p4", value = "o3 + r3 * vec3(l3 + s4, 0.0, 0.05)" },
]
lagrangian = """
{lagrangian}
"""
"#;
    let text = text.replace("{lagrangian}", &symbolic_arm_lagrangian());
    toml::from_str(&text).unwrap_or_else(|e| panic!("{e}"))
}

/// The Lagrangian of [`symbolic_arm`].
fn symbolic_arm_lagrangian() -> String {
    "kinetic_energy(m1, diag(0.1 * m1 * l1 * l1, 0.1 * m1 * l1 * l1, 0.02 * m1), p1, r1)
+ kinetic_energy(m2, diag(0.01 * m2, m2 * l2 * l2 / 12.0, m2 * l2 * l2 / 12.0), p2, r2)
+ kinetic_energy(m3, mat3(0.01, 0.002, 0.0, 0.002, 0.02, 0.001, 0.0, 0.001, 0.015), p3, r3)
+ kinetic_energy(m4, diag(0.001, 0.002, 0.003), p4, r3)
- g * (m1 * p1.z() + m2 * p2.z() + m3 * p3.z() + m4 * p4.z())"
        .to_owned()
}

/// The symbolic arm takes the tree path and agrees with the dense path at pseudo-random
/// values of its parameters.
#[test]
fn an_arm_with_symbolic_parameters_takes_the_tree_path() {
    assert_takes_the_tree_path(&symbolic_arm(), None, 8);
}

/// `spec` with its Lagrangian replaced by `lagrangian`.
fn with_lagrangian(spec: &ModelSpec, lagrangian: &str) -> ModelSpec {
    let mut changed = spec.clone();
    changed.lagrangian = Some(lagrangian.parse().unwrap_or_else(|e| panic!("{e}")));
    changed
}

/// Models that are not trees the tree holds whole keep the dense path, and derive the same M
/// and Q as it: a joint about an axis that turns with another coordinate (recognized at q = 0,
/// then refused by the numeric check), two bodies moved by one coordinate, a coordinate in two
/// joints, a spring in L beside the tree, and a potential that is not −Σ mᵢ g·pᵢ (the weights
/// g pᵢ.z without the masses).
#[test]
fn models_that_are_not_trees_keep_the_dense_path() {
    let arm = symbolic_arm();
    let l = arm.lagrangian.as_ref().unwrap().to_string();
    let text = symbolic_arm_lagrangian();
    let mut turning_axis = arm.clone();
    turning_axis.definitions[2].value = "r1 * rot_axis(normalize(vec3(q1, 0.0, 1.0)), q2)"
        .parse()
        .unwrap();
    let cases = [
        turning_axis,
        with_lagrangian(
            &arm,
            &format!("{l} + kinetic_energy(1.0, diag(0.1, 0.1, 0.1), p2, rot_z(q1))"),
        ),
        with_lagrangian(
            &arm,
            &format!(
                "{l} + kinetic_energy(1.0, diag(0.1, 0.1, 0.1), vec3(s4, 0.0, 0.0), rot_z(q1))"
            ),
        ),
        with_lagrangian(&arm, &format!("{l} - 3.0 * q2.powi(2)")),
        with_lagrangian(
            &arm,
            &text.replace(
                "- g * (m1 * p1.z() + m2 * p2.z() + m3 * p3.z() + m4 * p4.z())",
                "- g * (p1.z() + p2.z() + p3.z() + p4.z())",
            ),
        ),
    ];
    for case in &cases {
        let d = derive(case).unwrap_or_else(|e| panic!("{e}"));
        let e = equations(&d);
        assert!(
            !e.mass_matrix_forms
                .iter()
                .any(|(f, _)| *f == MassMatrixForm::CompositeRigidBody),
            "{:?}",
            e.mass_matrix_forms
        );
        assert!(e.articulated.is_none());
        let reference = derive(&dense(case)).unwrap_or_else(|e| panic!("{e}"));
        let r = equations(&reference);
        for k in 0..3 {
            let at = state(k, case.coordinates.len(), case.parameters.len());
            let values =
                |d: &Derivation, ids: &[udk_symbolic::expr::ExprId]| d.pool.eval_all(ids, &at);
            let (m, q) = (
                values(&d, &e.mass_matrix.entries),
                values(&d, &e.generalized_force),
            );
            let (rm, rq) = (
                values(&reference, &r.mass_matrix.entries),
                values(&reference, &r.generalized_force),
            );
            let scale = |v: &[f64]| v.iter().fold(0.0f64, |a, x| a.max(x.abs()));
            tree_support::assert_close(&m, &rm, 1e-12, scale(&rm));
            tree_support::assert_close(&q, &rq, 1e-12, scale(&rq));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    /// Random trees (topology, joint origins, revolute and prismatic joints about random axes,
    /// inertias), every body with mass, written as `let` models: recognized, and agreeing with
    /// the dense path and with their trees.
    #[test]
    fn random_let_trees_take_the_tree_path(bodies in tree_support::random_bodies(0.9, 7)) {
        prop_assume!(bodies.iter().all(|b| b.inertia.is_some()));
        let (plain, with_tree) = with_and_without_tree(&bodies);
        assert_takes_the_tree_path(&plain, Some(&with_tree), 2);
    }
}

/// The operations of q̈₀ (the articulated-body algorithm's unconstrained accelerations) of the
/// planar and the spatial `let` chains at n = 10, 20 and 40: recognized at every n, with the
/// operations added per link from 20 to 40 within 5 % of those from 10 to 20 (linear growth;
/// measured: planar 81.0 and 81.0, spatial 1299.6 and 1300.3), and at most twice those of the
/// same chains given their trees (measured: planar equal; spatial 1.86× at n = 10, 1.94× at
/// n = 40). A given tree's frames are spun about their joint axes so that each turn is
/// Rx(β) Rz(γ) (`derive::tree::constants`); the recognizer does not spin its frames yet, so a
/// recognized chain gets only the composition of each turn with its joint rotation (before
/// either, the spatial chain took 1850.5 per link, 7.5 % more than with its tree).
#[test]
fn let_chain_accelerations_grow_linearly() {
    for spatial in [false, true] {
        let operations = |n: usize, with_tree: bool| {
            let bodies = tree_support::chain(n, spatial);
            let (plain, tree) = with_and_without_tree(&bodies);
            let d =
                derive(if with_tree { &tree } else { &plain }).unwrap_or_else(|e| panic!("{e}"));
            let e = equations(&d);
            assert_eq!(e.mass_matrix_form, MassMatrixForm::CompositeRigidBody);
            let solve = e.articulated.as_ref().expect("the O(n) path applies");
            d.pool.operation_count(&solve.unconstrained_acceleration) as f64
        };
        let counts = [10, 20, 40].map(|n| operations(n, false));
        let trees = [10, 20, 40].map(|n| operations(n, true));
        let (first, second) = (
            (counts[1] - counts[0]) / 10.0,
            (counts[2] - counts[1]) / 20.0,
        );
        eprintln!("spatial {spatial}: operations of q̈₀ {counts:?} (with the trees {trees:?}), per added link {first} and {second}");
        assert!((second - first).abs() <= 0.05 * first, "{counts:?}");
        assert!(
            counts.iter().zip(&trees).all(|(c, t)| *c <= 2.0 * t),
            "{counts:?} {trees:?}"
        );
    }
}

/// The plain-text equation sheet of the spatial `let` chain grows about as fast as its M (n²
/// entries, each a few named temporaries): from 4 to 8 links under 6 times larger (measured
/// 45 KB and 194 KB, 4.3×). Before the printers kept named sums whole, a negative product of a
/// named sum was printed with the sum written out, again inside every copy: 56 KB and 587 KB
/// (10.5×), 143 MB at 14 links.
#[test]
fn equation_sheets_of_let_chains_stay_small() {
    let size = |n: usize| {
        let model = spec(&tree_support::chain(n, true), GRAVITY);
        let d = derive(&model).unwrap_or_else(|e| panic!("{e}"));
        udk_symbolic::emit::equations_text(&d).len() as f64
    };
    let (small, large) = (size(4), size(8));
    assert!(
        large < 6.0 * small,
        "{small} bytes at 4 links, {large} at 8"
    );
}
