//! The residual Jacobians formed on demand (`derive_with(.., Jacobians::OnDemand)`, then
//! `Derivation::derive_jacobians`) are the ones `derive` forms: the same DAG nodes where the
//! residuals are the last thing derived, the same values where servo constraints were derived
//! after them.

mod core_support;

use core_support::Rng;
use std::path::Path;
use udk_symbolic::expr::Symbol;
use udk_symbolic::{derive, derive_with, Derivation, Equations, ExprMatrix, Jacobians, ModelSpec};

/// The spec of `examples/models/<file>`, its URDF read.
fn spec(file: &str) -> ModelSpec {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/models");
    let text = std::fs::read_to_string(dir.join(file)).expect("the model file reads");
    let mut spec: ModelSpec = toml::from_str(&text).expect("the model file parses");
    udk_symbolic::urdf::expand(&mut spec, &dir).expect("its URDF expands");
    spec
}

/// The Jacobian blocks of `d` with their names, empty when not formed.
fn blocks(d: &Derivation) -> Vec<(&'static str, ExprMatrix)> {
    let owned = |blocks: &[(&'static str, &ExprMatrix)]| {
        (blocks.iter())
            .map(|&(name, m)| (name, m.clone()))
            .collect::<Vec<_>>()
    };
    match &d.equations {
        Equations::Lagrangian(e) => e.jacobians.as_ref().map_or_else(Vec::new, |j| {
            let mut blocks = owned(&j.residual_blocks());
            blocks.push(("velocity_constraints_q", j.velocity_constraints_q.clone()));
            blocks
        }),
        Equations::Hamiltonian(e) => e
            .jacobians
            .as_ref()
            .map_or_else(Vec::new, |j| owned(&j.blocks())),
    }
}

/// The derivation of `file` by `derive`, and by `derive_with(.., OnDemand)` after checking that
/// it holds no Jacobians, with them formed on demand.
fn both(file: &str) -> (Derivation, Derivation) {
    let spec = spec(file);
    udk_symbolic::limits::on_large_stack(|| {
        let eager = derive(&spec).expect("the model derives");
        let mut on_demand = derive_with(&spec, Jacobians::OnDemand).expect("the model derives");
        assert!(blocks(&on_demand).is_empty(), "{file}: Jacobians formed");
        on_demand.derive_jacobians();
        (eager, on_demand)
    })
}

#[test]
fn jacobians_on_demand_are_the_nodes_derive_forms() {
    for file in [
        "urdf_double_pendulum.toml",
        "ur5_arm.toml",
        "four_bar.toml",
        "spherical_pendulum_hamiltonian.toml",
    ] {
        let (eager, on_demand) = both(file);
        let eager_blocks = blocks(&eager);
        assert!(!eager_blocks.is_empty(), "{file}: no Jacobians");
        assert_eq!(eager_blocks, blocks(&on_demand), "{file}");
        assert_eq!(eager.pool.len(), on_demand.pool.len(), "{file}: pool size");
    }
    // The URDF robot's residual is its inverse dynamics, kept for the Jacobians.
    let (eager, _) = both("urdf_double_pendulum.toml");
    let Equations::Lagrangian(e) = &eager.equations else {
        panic!("a Lagrangian model")
    };
    assert!(e.tree_residual.is_some());
}

#[test]
fn jacobians_on_demand_of_a_servo_model_have_the_values_derive_forms() {
    let (eager, on_demand) = both("flexible_joint_servo.toml");
    let mut rng = Rng(7);
    for _ in 0..5 {
        // Every symbol drawn, the multipliers included; parameters positive.
        let values: Vec<f64> = rng.vec(64, -1.5, 1.5);
        let at = |s: Symbol| match s {
            Symbol::Time => values[0],
            Symbol::Coordinate(i) => values[1 + i],
            Symbol::Velocity(i) | Symbol::Speed(i) => values[9 + i],
            Symbol::Acceleration(i) => values[17 + i],
            Symbol::Momentum(i) => values[25 + i],
            Symbol::Input(i) => values[33 + i],
            Symbol::Multiplier(i) => values[41 + i],
            Symbol::Parameter(i) => 2.0 + values[49 + i],
        };
        let (expected, derived) = (blocks(&eager), blocks(&on_demand));
        assert_eq!(expected.len(), 7);
        for ((name, e), (_, d)) in expected.iter().zip(&derived) {
            let e_values = eager.pool.eval_all(&e.entries, &at);
            let d_values = on_demand.pool.eval_all(&d.entries, &at);
            for (x, y) in e_values.iter().zip(&d_values) {
                assert!(
                    (x - y).abs() <= 1e-12 * x.abs().max(1.0),
                    "{name}: {x} ≠ {y}"
                );
            }
        }
    }
}
