//! Time of derivation plus Rust emission (`udk_symbolic::generate`, the work of
//! `#[lagrangian]`) for the 2-, 5- and 10-link pendulum chains, Cartesian and minimal. Run:
//! `cargo bench -p udk-bench --bench derivation`. `bench/compare.sh` adds n = 20 and the peers.

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use udk_symbolic::models::{pendulum_chain_cartesian, pendulum_chain_minimal};

fn bench_derivation(c: &mut Criterion) {
    let mut group = c.benchmark_group("generate");
    group.sample_size(10);
    for links in [2, 5, 10] {
        for (form, spec) in [
            ("cartesian", pendulum_chain_cartesian(links)),
            ("minimal", pendulum_chain_minimal(links)),
        ] {
            group.bench_function(format!("{form}_{links}"), |b| {
                b.iter(|| udk_symbolic::generate(black_box(&spec)).map(|code| code.is_empty()))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench_derivation);
criterion_main!(benches);
