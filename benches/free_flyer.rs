//! The generated functions of robots on a floating base (`floating_base = true`): v̇ by the
//! articulated-body algorithm with a 6-DoF root, M and the inverse dynamics of Solo12 and
//! ANYmal C at one general state (base tilted and moving, legs bent).
//!
//! Run with `cargo bench --bench free_flyer`; Pinocchio's `aba` with `JointModelFreeFlyer` on
//! the same robots is what to compare with.

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use udk::lagrangian;
use udk::nalgebra::{SVector, UnitQuaternion};

/// Solo12 on a free flyer.
#[lagrangian(
    urdf = "robots/example-robot-data/solo_description/robots/solo12.urdf",
    floating_base = true
)]
struct Solo12;

/// ANYmal C on a free flyer.
#[lagrangian(
    urdf = "robots/example-robot-data/anymal_c_simple_description/urdf/anymal.urdf",
    floating_base = true
)]
struct AnymalC;

/// A general state of a robot with 12 joints.
fn state() -> (SVector<f64, 19>, SVector<f64, 18>, SVector<f64, 12>) {
    let turn = UnitQuaternion::from_euler_angles(0.3, -0.2, 0.7);
    let c = turn.quaternion().coords;
    let mut q = SVector::<f64, 19>::zeros();
    q.as_mut_slice()[..7].copy_from_slice(&[0.1, -0.2, 0.4, c[0], c[1], c[2], c[3]]);
    for j in 0..12 {
        q[7 + j] = 0.4 * ((j as f64) * 1.3).sin();
    }
    let v = SVector::<f64, 18>::from_iterator((0..18).map(|k| 0.8 * ((k as f64) * 0.7).cos()));
    let tau = SVector::<f64, 12>::from_iterator((0..12).map(|j| (j as f64 * 0.9).sin()));
    (q, v, tau)
}

fn legged(c: &mut Criterion) {
    let (q, v, tau) = state();
    let mut group = c.benchmark_group("solo12");
    group.bench_function("acceleration", |b| {
        b.iter(|| Solo12.acceleration(black_box(&q), black_box(&v), black_box(&tau), 0.0))
    });
    group.bench_function("mass_matrix", |b| {
        b.iter(|| Solo12.mass_matrix(black_box(&q)))
    });
    group.bench_function("inverse_dynamics", |b| {
        b.iter(|| Solo12.inverse_dynamics(black_box(&q), black_box(&v), black_box(&v), 0.0))
    });
    group.finish();
    let mut group = c.benchmark_group("anymal_c");
    group.bench_function("acceleration", |b| {
        b.iter(|| AnymalC.acceleration(black_box(&q), black_box(&v), black_box(&tau), 0.0))
    });
    group.finish();
}

criterion_group!(benches, legged);
criterion_main!(benches);
