//! Operation counts of the Rust code emitted for M, Q, A, b and C, and for the residual
//! Jacobians (`residual_jacobians`), before CSE (every output written out as a tree) and after
//! (each distinct value once), with the time of one `derive` and of one `generate`.
//!
//! Run: `cargo run --release -p udk-symbolic --example op_counts [links… | model.toml …]`:
//! a number is the pendulum chain of that many links (Cartesian and minimal), a path a model
//! file (default: 10).

use std::time::Instant;
use udk_symbolic::emit::{count_ops, OpCounts};
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

/// The models an argument names.
fn specs(argument: &str) -> Vec<ModelSpec> {
    match argument.parse::<usize>() {
        Ok(n) => vec![
            models::pendulum_chain_cartesian(n),
            models::pendulum_chain_minimal(n),
        ],
        Err(_) => {
            let text = std::fs::read_to_string(argument).expect("a readable model file");
            vec![toml::from_str(&text).expect("a model file")]
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
            "{}: n = {}, m = {}, {} DAG nodes; derive {:.1} ms, generate {:.1} ms",
            d.name,
            d.coordinates.len(),
            e.constraint_rhs.len(),
            d.pool.len(),
            derived.as_secs_f64() * 1e3,
            generated.as_secs_f64() * 1e3,
        );
        let forms: Vec<String> = (e.mass_matrix_forms.iter())
            .map(|(form, ops)| format!("{} {ops}", form.describe()))
            .collect();
        println!(
            "M and Q by {}: DAG operations {}",
            e.mass_matrix_form.describe(),
            forms.join(", ")
        );
        println!("       |      adds |      muls |    divs |   calls |     total");
        println!("{}", row("before", &report.tree));
        println!("{}", row("after", &report.dag));
        let blocks: Vec<_> = (e.jacobians.residual_blocks().iter())
            .flat_map(|(_, m)| m.entries.iter().copied())
            .collect();
        let jacobians = count_ops(&d.pool, &blocks);
        println!("residual_jacobians (∂r, ∂g with respect to q, q̇, u):");
        println!("{}", row("before", &jacobians.tree));
        println!("{}", row("after", &jacobians.dag));
        println!();
    }
}
