//! The generated functions of robots on a floating base (`floating_base = true`): v̇ by the
//! articulated-body algorithm with a 6-DoF root, M and the inverse dynamics of Solo12 and
//! ANYmal C at one general state (base tilted and moving, legs bent); and a whole landing of
//! Solo12 on its four feet (`solo12/landing`: the integrator, the event location and the
//! contacts' solves).
//!
//! Run with `cargo bench --bench free_flyer`; Pinocchio's `aba` with `JointModelFreeFlyer` on
//! the same robots is what to compare with.

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use std::ops::ControlFlow;
use udk::lagrangian;
use udk::nalgebra::{SVector, UnitQuaternion};
use udk::runtime::simulate::{
    ground_contacts, simulate_free_flyer_with_contacts, ContactSet, FreeFlyer, SimulationOptions,
};

#[path = "../tests/solo12_support/mod.rs"]
mod solo12_support;
use solo12_support::{landing_start, pd, Solo12};

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
    group.sample_size(10);
    group.bench_function("landing", |b| b.iter(landing));
    group.finish();
    let mut group = c.benchmark_group("anymal_c");
    group.bench_function("acceleration", |b| {
        b.iter(|| AnymalC.acceleration(black_box(&q), black_box(&v), black_box(&tau), 0.0))
    });
    group.finish();
}

/// Solo12 dropped from 0.3 m (`landing_start`) onto the ground z = 0 under the PD law `pd`,
/// friction 1.5, for 0.5 s at rtol 1e-10, as `examples/solo12_landing.rs` runs it: its four
/// touchdowns, then standing on four feet. Panics if the run fails.
fn landing() {
    let efforts =
        |_: f64, q: &SVector<f64, 19>, v: &[f64], tau: &mut [f64]| pd(q.as_slice(), v, tau);
    let robot = FreeFlyer::new(&Solo12, &efforts);
    let set = ContactSet::new(robot, ground_contacts(&Solo12, 0.0, 0.0, 1.5)).expect("contacts");
    let options = SimulationOptions {
        rtol: 1e-10,
        atol: 1e-12,
        ..SimulationOptions::every(0.05)
    };
    let q0 = landing_start();
    let start = (&q0, &[0.0; 18][..]);
    let run = simulate_free_flyer_with_contacts(&set, start, (0.0, 0.5), &options, |_| {
        ControlFlow::Continue(())
    });
    black_box(run.expect("the landing runs"));
}

criterion_group!(benches, legged);
criterion_main!(benches);
