//! Operation counts of the Rust code emitted for M, Q, A, b and C of the pendulum chains,
//! before CSE (every output written out as a tree) and after (each distinct value once).
//! Run: `cargo run --release -p udk-symbolic --example op_counts [links…]` (default: 10).

use udk_symbolic::emit::{count_ops, OpCounts};
use udk_symbolic::{derive, models, Equations};

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

fn main() {
    let links: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("a number of links"))
        .collect();
    let links = if links.is_empty() { vec![10] } else { links };
    for n in links {
        for spec in [
            models::pendulum_chain_cartesian(n),
            models::pendulum_chain_minimal(n),
        ] {
            let d = match derive(&spec) {
                Ok(d) => d,
                Err(e) => {
                    eprintln!("{}: {e:?}", spec.name);
                    std::process::exit(1);
                }
            };
            let Equations::Lagrangian(e) = &d.equations else {
                unreachable!("the chains are Lagrangian models")
            };
            let report = count_ops(&d.pool, &d.equations.outputs());
            println!(
                "{}: n = {}, m = {}, {} DAG nodes",
                d.name,
                d.coordinates.len(),
                e.constraint_rhs.len(),
                d.pool.len()
            );
            println!("       |      adds |      muls |    divs |   calls |     total");
            println!("{}", row("before", &report.tree));
            println!("{}", row("after", &report.dag));
            println!();
        }
    }
}
