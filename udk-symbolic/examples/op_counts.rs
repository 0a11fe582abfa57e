//! Operation counts of the Rust code emitted for M, Q, A, b and C, and for the residual
//! Jacobians (`residual_jacobians`), before CSE (every output written out as a tree) and after
//! (each distinct value once), with the time of one `derive` and of one `generate` and the
//! size of the plain-text equation sheet.
//!
//! Run: `cargo run --release -p udk-symbolic --example op_counts [links… | robot… | model.toml …]`:
//! a number is the pendulum chain of that many links (Cartesian and minimal); `ur5`,
//! `ur5-dh`, `panda` or `panda-fingers` a robot arm written as the URDF front end writes it
//! (`let` definitions and `kinetic_energy` terms, with its kinematic tree set, so that the
//! composite-rigid-body form is tried too; see `tests/tree_support/robots.rs`); `let` or
//! `spatial` followed by a number (`let40`) the chain of that many links of
//! `tree_support::chain`, planar or spatial, written with `let` definitions and no tree (the
//! derivation recognizes the tree); a path a model
//! file (default: 10). For a robot, the operations of the tree form's M and Q are also given
//! with the recursions in body frames and in the world frame.

#[path = "../tests/tree_support/mod.rs"]
mod tree_support;

use std::time::Instant;
use tree_support::{robots, Body, GRAVITY};
use udk_symbolic::derive::tree::{dynamics, Frames};
use udk_symbolic::emit::{count_ops, OpCounts};
use udk_symbolic::expr::Pool;
use udk_symbolic::{derive, generate, models, Equations, ModelSpec};

fn row(label: &str, c: &OpCounts) -> String {
    format!(
        "{label:>6} | {:>9} | {:>9} | {:>7} | {:>7} | {:>9}",
        c.adds,
        c.muls,
        c.divs,
        c.calls,
        c.total()
    )
}

/// The robot an argument names, as its model name and bodies.
fn robot(argument: &str) -> Option<(&'static str, Vec<Body>)> {
    match argument {
        "ur5" => Some(("Ur5", robots::ur5_urdf_bodies())),
        "ur5-dh" => Some(("Ur5Dh", robots::ur5_dh_bodies())),
        "panda" => Some(("Panda", robots::panda_bodies(false))),
        "panda-fingers" => Some(("PandaFingers", robots::panda_bodies(true))),
        _ => None,
    }
}

/// The model of a robot, named `name`, with its tree set.
fn robot_spec(name: &str, bodies: &[Body]) -> ModelSpec {
    let mut spec = tree_support::spec(bodies, GRAVITY);
    spec.name = name.to_owned();
    spec.tree = Some(tree_support::tree(bodies, GRAVITY));
    spec
}

/// The models an argument names.
fn specs(argument: &str) -> Vec<ModelSpec> {
    if let Some((name, bodies)) = robot(argument) {
        return vec![robot_spec(name, &bodies)];
    }
    for (prefix, spatial) in [("let", false), ("spatial", true)] {
        if let Some(Ok(n)) = argument.strip_prefix(prefix).map(str::parse::<usize>) {
            let mut spec = tree_support::spec(&tree_support::chain(n, spatial), GRAVITY);
            spec.name = format!("LetChain{n}");
            return vec![spec];
        }
    }
    match argument.parse::<usize>() {
        Ok(n) => vec![
            models::pendulum_chain_cartesian(n),
            models::pendulum_chain_minimal(n),
        ],
        Err(_) => {
            let text = std::fs::read_to_string(argument).expect("a readable model file");
            let mut spec: ModelSpec = toml::from_str(&text).expect("a model file");
            let base = std::path::Path::new(argument)
                .parent()
                .expect("a file path");
            udk_symbolic::urdf::expand(&mut spec, base).expect("a readable URDF");
            vec![spec]
        }
    }
}

fn main() {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let arguments = if arguments.is_empty() {
        vec!["10".to_owned()]
    } else {
        arguments
    };
    for spec in arguments.iter().flat_map(|a| specs(a)) {
        let start = Instant::now();
        let d = match derive(&spec) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("{}: {e:?}", spec.name);
                std::process::exit(1);
            }
        };
        let derived = start.elapsed();
        let start = Instant::now();
        generate(&spec).expect("derives");
        let generated = start.elapsed();
        let Equations::Lagrangian(e) = &d.equations else {
            eprintln!(
                "{}: a Hamiltonian model; counts are for Lagrangian models",
                spec.name
            );
            continue;
        };
        let report = count_ops(&d.pool, &d.equations.outputs());
        println!(
            "{}: n = {}, m = {}, {} DAG nodes; derive {:.1} ms, generate {:.1} ms; equation \
             sheet {:.0} KB",
            d.name,
            d.coordinates.len(),
            e.constraint_rhs.len(),
            d.pool.len(),
            derived.as_secs_f64() * 1e3,
            generated.as_secs_f64() * 1e3,
            udk_symbolic::emit::equations_text(&d).len() as f64 / 1024.0,
        );
        let forms: Vec<String> = (e.mass_matrix_forms.iter())
            .map(|(form, ops)| format!("{} {ops}", form.describe()))
            .collect();
        println!(
            "M and Q by {}: DAG operations {}",
            e.mass_matrix_form.describe(),
            forms.join(", ")
        );
        if let Some(tree) = &spec.tree {
            // With its tree, a URDF model forms only the tree's M and Q. Without it the
            // derivation recognizes the tree in the definitions; with L written as one term
            // (`tree_support::dense`) it takes the dense path, ∂²L/∂q̇².
            let without = ModelSpec {
                tree: None,
                ..spec.clone()
            };
            for (label, model) in [
                ("without the tree", without),
                ("dense", tree_support::dense(&spec)),
            ] {
                if let Ok(Equations::Lagrangian(e)) = derive(&model).map(|d| d.equations) {
                    let forms: Vec<String> = (e.mass_matrix_forms.iter())
                        .map(|(form, ops)| format!("{} {ops}", form.describe()))
                        .collect();
                    println!("{label}: DAG operations {}", forms.join(", "));
                }
            }
            let frames: Vec<String> = [(Frames::Body, "body"), (Frames::World, "world")]
                .iter()
                .map(|&(frames, name)| {
                    let mut pool = Pool::new();
                    let n = spec.coordinates.len();
                    let d = dynamics(&mut pool, tree, n, frames).expect("a well-formed tree");
                    let all = [&d.mass_matrix.entries[..], &d.bias].concat();
                    format!("{name} frames {}", pool.operation_count(&all))
                })
                .collect();
            println!("CRBA + RNEA alone (M and Q₀): {}", frames.join(", "));
        }
        println!("       |      adds |      muls |    divs |   calls |     total");
        println!("{}", row("before", &report.tree));
        println!("{}", row("after", &report.dag));
        let terms = [
            &e.mass_matrix.entries[..],
            &e.generalized_force,
            &e.constraint_matrix.entries,
            &e.constraint_rhs,
            &e.velocity_constraints,
        ]
        .concat();
        let variables = 2 * d.coordinates.len() + d.inputs.len();
        println!(
            "Jacobian cost: {} (product-rule cost × {variables} variables; limit {})",
            d.pool.product_rule_cost(&terms) * variables,
            udk_symbolic::limits::MAX_JACOBIAN_COST
        );
        if let Some(art) = &e.articulated {
            let solve = [&art.unconstrained_acceleration[..], &art.pivots].concat();
            println!("articulated-body q̈₀ and pivots:");
            println!("{}", row("after", &count_ops(&d.pool, &solve).dag));
        }
        match &e.jacobians {
            Some(jacobians) => {
                let blocks: Vec<_> = (jacobians.residual_blocks().iter())
                    .flat_map(|(_, m)| m.entries.iter().copied())
                    .collect();
                let jacobians = count_ops(&d.pool, &blocks);
                println!("residual_jacobians (∂r, ∂g with respect to q, q̇, u):");
                println!("{}", row("before", &jacobians.tree));
                println!("{}", row("after", &jacobians.dag));
            }
            None => println!("no residual_jacobians: beyond MAX_JACOBIAN_COST"),
        }
        println!();
    }
}
