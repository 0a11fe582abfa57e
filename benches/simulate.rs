//! The spherical pendulum simulated for 1000 s with DOP853 at rtol 1e-10 (atol 1e-12), output
//! at every step, Baumgarte stabilization on: the cost of a whole run, from which the README
//! derives steps per second and nanoseconds per right-hand-side evaluation (one q̈ by the
//! fundamental equation with the stabilized b, plus the integrator's own work per evaluation).
//! Also one bare `acceleration` call at a state of the run, for comparison.
//!
//! Run with `cargo bench --bench simulate`.

#[path = "../tests/simulation/models.rs"]
mod models;

use criterion::{criterion_group, criterion_main, Criterion};
use models::SphericalPendulumLagrangian;
use std::hint::black_box;
use udk::nalgebra::Vector3;
use udk::runtime::simulate::{simulate_lagrangian, SimulationOptions};

fn pendulum() -> (SphericalPendulumLagrangian, Vector3<f64>, Vector3<f64>) {
    let angle = std::f64::consts::FRAC_PI_3;
    (
        SphericalPendulumLagrangian {
            m: 1.0,
            g: 9.81,
            l: 1.0,
        },
        Vector3::new(angle.sin(), 0.0, angle.cos()),
        Vector3::new(0.0, 1.5, 0.0),
    )
}

fn simulate(c: &mut Criterion) {
    let (system, q0, qd0) = pendulum();
    let options = SimulationOptions::default();
    let run = simulate_lagrangian(&system, &q0, &qd0, 0.0, 1000.0, &options).expect("runs");
    println!(
        "spherical pendulum, 1000 s, DOP853 rtol 1e-10: {} accepted steps, {} rejected, {} \
         right-hand-side evaluations, max |f| {:.1e}, energy drift {:.1e}",
        run.stats.accepted_steps,
        run.stats.rejected_steps,
        run.stats.rhs_evaluations,
        run.max_position_residual(),
        run.energy_drift()
    );
    let mut group = c.benchmark_group("simulate");
    group.sample_size(10);
    group.bench_function("spherical_pendulum_1000s_dop853_rtol1e-10", |b| {
        b.iter(|| {
            simulate_lagrangian(
                black_box(&system),
                black_box(&q0),
                black_box(&qd0),
                0.0,
                1000.0,
                &options,
            )
            .expect("runs")
        })
    });
    group.finish();
    c.bench_function("spherical_pendulum_acceleration", |b| {
        b.iter(|| black_box(&system).acceleration(black_box(&q0), black_box(&qd0), 0.0))
    });
}

criterion_group!(benches, simulate);
criterion_main!(benches);
