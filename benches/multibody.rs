//! The multibody examples' generated functions: one `acceleration` (terms and the fundamental
//! equation), one `terms` (M, Q, A, b alone), one `acceleration_jacobian` (q̈ and its exact
//! Jacobians) and one `residual_jacobians` (its generated part) of the Whipple bicycle at the Basu-Mandal state; `acceleration` of the rolling
//! disk in its steady turn; and of the UR5 arm at its example pose: all four for the arm
//! written with `let` and `kinetic_energy` (`examples/ur5_arm.rs`), `acceleration` and `terms`
//! for the arm as one hand-expanded Lagrangian (`tests/fixtures/ur5_arm_expanded.rs`, the
//! macro's form of `examples/models/ur5_arm_expanded.toml`).
//!
//! Run with `cargo bench --bench multibody`.

#[allow(dead_code)]
#[path = "../examples/rolling_disk.rs"]
mod rolling_disk;
#[allow(dead_code)]
#[path = "../examples/ur5_arm.rs"]
mod ur5_arm;
#[path = "../tests/fixtures/ur5_arm_expanded.rs"]
mod ur5_arm_expanded;
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
    group.bench_function("acceleration_jacobian", |b| {
        b.iter(|| bicycle.acceleration_jacobian(black_box(&q), black_box(&qd), 0.0))
    });
    let (qdd, lambda) = (
        SVector::<f64, 8>::repeat(0.1),
        SVector::<f64, 5>::repeat(0.2),
    );
    group.bench_function("residual_jacobians", |b| {
        b.iter(|| bicycle.residual_jacobians(black_box(&q), black_box(&qd), 0.0, &qdd, &lambda))
    });
    group.finish();

    let disk = rolling_disk::RollingDisk::EXAMPLE;
    let (q, qd) = rolling_disk::RollingDisk::steady_turn();
    c.bench_function("rolling_disk/acceleration", |b| {
        b.iter(|| disk.acceleration(black_box(&q), black_box(&qd), 0.0))
    });
}

fn ur5(c: &mut Criterion) {
    let (structured, expanded) = (
        ur5_arm::Ur5Arm::EXAMPLE,
        ur5_arm_expanded::Ur5ArmExpanded { g: 9.81 },
    );
    let (q, qd) = ur5_arm::Ur5Arm::pose();
    let tau = SVector::<f64, 6>::from([1.0, -2.0, 0.5, 0.1, -0.05, 0.02]);
    let mut group = c.benchmark_group("ur5_arm");
    group.bench_function("acceleration", |b| {
        b.iter(|| structured.acceleration(black_box(&q), black_box(&qd), black_box(&tau), 0.0))
    });
    group.bench_function("terms", |b| {
        b.iter(|| structured.terms(black_box(&q), black_box(&qd), black_box(&tau), 0.0))
    });
    group.bench_function("acceleration_jacobian", |b| {
        b.iter(|| {
            structured.acceleration_jacobian(black_box(&q), black_box(&qd), black_box(&tau), 0.0)
        })
    });
    let (qdd, lambda) = (SVector::<f64, 6>::repeat(0.1), SVector::<f64, 0>::zeros());
    group.bench_function("residual_jacobians", |b| {
        b.iter(|| {
            structured.residual_jacobians(
                black_box(&q),
                black_box(&qd),
                black_box(&tau),
                0.0,
                &qdd,
                &lambda,
            )
        })
    });
    group.bench_function("expanded_acceleration", |b| {
        b.iter(|| expanded.acceleration(black_box(&q), black_box(&qd), black_box(&tau), 0.0))
    });
    group.bench_function("expanded_terms", |b| {
        b.iter(|| expanded.terms(black_box(&q), black_box(&qd), black_box(&tau), 0.0))
    });
    group.finish();
}

criterion_group!(benches, bicycle, ur5);
criterion_main!(benches);
