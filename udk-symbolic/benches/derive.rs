//! Time of `derive` (parse, canonicalize, differentiate) for the 10-link pendulum chain in
//! Cartesian coordinates (20 coordinates, 10 length constraints) and in minimal coordinates
//! (10 angles). Run: `cargo bench -p udk-symbolic --bench derive`.

#[path = "../tests/emit_support/mod.rs"]
mod emit_support;

use criterion::{criterion_group, criterion_main, Criterion};
use emit_support::pendulum_chains;
use std::hint::black_box;
use udk_symbolic::derive;

fn bench_derive(c: &mut Criterion) {
    let mut group = c.benchmark_group("derive");
    for (name, spec) in pendulum_chains() {
        let pool_size = derive(&spec).expect("chain derives").pool.len();
        println!("{name}: {pool_size} DAG nodes after derivation");
        group.bench_function(name, |b| b.iter(|| derive(black_box(&spec))));
    }
    group.finish();
}

criterion_group!(benches, bench_derive);
criterion_main!(benches);
