//! One servo-controller evaluation on the UR5 circle (`examples/ur5_circle.rs`: the torques
//! u from the state, by `servo_control` with the task-space law) against one `acceleration`
//! of the same model (q̈ from the state and the torques, by the articulated-body algorithm).
//! The target: the controller within 2× the acceleration.
//!
//! The parts of the controller's path by inverse dynamics (what `servo_control` runs on this
//! model): the task terms (`servo_task`) and one recursive Newton–Euler pass
//! (`servo_inverse_dynamics`), and the kernel between them (`control_by_inverse_dynamics` on
//! given task terms, with the inverse dynamics a constant). And the general path it replaces, `control` on the full terms
//! (`servo_terms`, with M), which was `servo_control` before.
//!
//! Run with `cargo bench --bench servo`.

#[allow(dead_code)]
#[path = "../examples/ur5_circle.rs"]
mod ur5_circle;

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use udk::nalgebra::SVector;
use udk::runtime::servo::{control, control_by_inverse_dynamics};
use udk::runtime::Options;
use ur5_circle::Ur5Circle;

fn servo(c: &mut Criterion) {
    let arm = Ur5Circle::EXAMPLE;
    let q = SVector::<f64, 6>::from([0.32, -1.18, 1.63, -1.87, -1.52, 0.21]);
    let qd = SVector::<f64, 6>::from([0.1, -0.2, 0.3, 0.05, -0.1, 0.2]);
    let t = 0.3;
    let control_at = arm
        .servo_control(&q, &qd, t, Ur5Circle::GAINS)
        .expect("the task is nonsingular here");
    let (tau, qdd) = (control_at.input, control_at.acceleration);
    let mut group = c.benchmark_group("ur5_circle");
    group.bench_function("servo_control", |b| {
        b.iter(|| {
            arm.servo_control(
                black_box(&q),
                black_box(&qd),
                black_box(t),
                Ur5Circle::GAINS,
            )
            .expect("the task is nonsingular here")
        })
    });
    group.bench_function("acceleration", |b| {
        b.iter(|| {
            arm.acceleration(black_box(&q), black_box(&qd), black_box(&tau), black_box(t))
                .expect("unique")
        })
    });
    group.bench_function("servo_task", |b| {
        b.iter(|| arm.servo_task(black_box(&q), black_box(&qd), black_box(t)))
    });
    group.bench_function("servo_inverse_dynamics", |b| {
        b.iter(|| {
            arm.servo_inverse_dynamics(black_box(&q), black_box(&qd), black_box(&qdd), black_box(t))
        })
    });
    let task = arm.servo_task(&q, &qd, t);
    group.bench_function("kernel", |b| {
        b.iter(|| {
            control_by_inverse_dynamics::<6, 6, 6>(
                black_box(&task),
                |_| tau,
                Ur5Circle::GAINS,
                &Options::default(),
            )
            .expect("the task is nonsingular here")
        })
    });
    group.bench_function("general_path", |b| {
        b.iter(|| {
            let terms = arm.servo_terms(black_box(&q), black_box(&qd), black_box(t));
            control::<6, 0, 6, 6>(&terms, Ur5Circle::GAINS, &Options::default())
                .expect("M is positive definite")
        })
    });
    group.finish();
}

criterion_group!(benches, servo);
criterion_main!(benches);
