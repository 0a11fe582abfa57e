//! The flexible-joint manipulator with its joint stiffness raised to 10⁶ N m/rad (a 1000 rad/s
//! joint mode), from its slow start (`FlexibleJointManipulator::slow_start`, links at 0.2 and
//! 0.3 rad turning at ±1 rad/s), for 2 s at rtol 1e-8 (atol = rtol/100), output at every
//! step: Radau5 and BDF against DOP853; then DOP853 at the looser rtol 1e-6 and the implicit
//! methods at tighter ones, looking for equal accuracy. Prints each run's accepted and rejected
//! steps, right-hand side and Jacobian evaluations (and how many of those were forward
//! differences), and the largest error of the final state (q, q̇) against DOP853 at rtol
//! 1e-13; criterion times each run.
//!
//! Run with `cargo bench --bench stiff`.

#[allow(dead_code)]
#[path = "../examples/flexible_joint_manipulator.rs"]
mod flexible_joint_manipulator;

use criterion::{criterion_group, criterion_main, Criterion};
use flexible_joint_manipulator::FlexibleJointManipulator;
use std::hint::black_box;
use udk::nalgebra::Vector4;
use udk::runtime::simulate::{simulate_lagrangian, Method, SimulationOptions, Trajectory};

const STIFFNESS: f64 = 1e6;
const DURATION: f64 = 2.0;

fn arm() -> (FlexibleJointManipulator, Vector4<f64>, Vector4<f64>) {
    let arm = FlexibleJointManipulator {
        k1: STIFFNESS,
        k2: STIFFNESS,
        ..FlexibleJointManipulator::EXAMPLE
    };
    let (q0, qd0) = arm
        .slow_start([0.2, 0.3], [1.0, -1.0])
        .expect("a unique motion");
    (arm, q0, qd0)
}

fn run(method: Method, rtol: f64) -> Trajectory<4> {
    let (arm, q0, qd0) = arm();
    let options = SimulationOptions {
        method,
        rtol,
        atol: rtol * 1e-2,
        ..SimulationOptions::default()
    };
    simulate_lagrangian(&arm, &q0, &qd0, 0.0, DURATION, &options).expect("runs")
}

fn stiff(c: &mut Criterion) {
    let reference = run(Method::Dop853, 1e-13);
    let end = reference.samples.last().expect("a final sample");
    println!(
        "| method | accepted steps | rejected | RHS evaluations | Jacobians (by differences) | \
         max final error |"
    );
    let methods = [
        ("DOP853", Method::Dop853, 1e-8),
        ("Radau5", Method::Radau5, 1e-8),
        ("BDF", Method::Bdf, 1e-8),
        ("DOP853", Method::Dop853, 1e-6),
        ("Radau5", Method::Radau5, 1e-11),
        ("BDF", Method::Bdf, 1e-9),
    ];
    for (name, method, rtol) in methods {
        let trajectory = run(method, rtol);
        let last = trajectory.samples.last().expect("a final sample");
        let error = (last.q - end.q).amax().max((last.v - end.v).amax());
        let stats = trajectory.stats;
        println!(
            "| {name} rtol {rtol:.0e} | {} | {} | {} | {} ({}) | {error:.1e} |",
            stats.accepted_steps,
            stats.rejected_steps,
            stats.rhs_evaluations,
            stats.jacobian_evaluations,
            stats.finite_difference_jacobians
        );
    }
    let mut group = c.benchmark_group("stiff_arm_k1e6_2s");
    group.sample_size(10);
    for (name, method, rtol) in methods {
        let id = format!("{name}_rtol{rtol:.0e}");
        group.bench_function(id, |b| b.iter(|| run(black_box(method), rtol)));
    }
    group.finish();
}

criterion_group!(benches, stiff);
criterion_main!(benches);
