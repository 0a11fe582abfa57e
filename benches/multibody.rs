//! The multibody examples' generated functions: one `acceleration` (terms and the fundamental
//! equation) and one `terms` (M, Q, A, b alone) of the Whipple bicycle at the Basu-Mandal
//! state and of the rolling disk in its steady turn.
//!
//! Run with `cargo bench --bench multibody`.

#[allow(dead_code)]
#[path = "../examples/rolling_disk.rs"]
mod rolling_disk;
#[allow(dead_code)]
#[path = "../examples/whipple_bicycle.rs"]
mod whipple_bicycle;

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use udk::nalgebra::SVector;
use whipple_bicycle::WhippleBicycle;

fn bicycle(c: &mut Criterion) {
    let bicycle = WhippleBicycle::BENCHMARK;
    // A general state: leaned, steered and turning (Basu-Mandal et al. 2007, Table 1, in
    // Moore's coordinates, as in tests/multibody/bicycle.rs).
    let q = SVector::<f64, 8>::from([0.0, -0.17533, 0.0, 0.62066, 0.33298, 0.0, -0.23114, 0.0]);
    let qd = SVector::<f64, 8>::from([2.8, -0.2, -0.783, -0.6068, 0.0119, -8.913, -0.486, -8.013]);
    let mut group = c.benchmark_group("whipple_bicycle");
    group.bench_function("acceleration", |b| {
        b.iter(|| bicycle.acceleration(black_box(&q), black_box(&qd), 0.0))
    });
    group.bench_function("terms", |b| {
        b.iter(|| bicycle.terms(black_box(&q), black_box(&qd), 0.0))
    });
    group.finish();

    let disk = rolling_disk::RollingDisk::EXAMPLE;
    let (q, qd) = rolling_disk::RollingDisk::steady_turn();
    c.bench_function("rolling_disk/acceleration", |b| {
        b.iter(|| disk.acceleration(black_box(&q), black_box(&qd), 0.0))
    });
}

criterion_group!(benches, bicycle);
criterion_main!(benches);
