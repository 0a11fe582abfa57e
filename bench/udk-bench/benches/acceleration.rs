//! Time per acceleration call on the pendulum chains, Cartesian and minimal: the generated
//! `acceleration` (called on the generated struct, as a user would), the run-time tape with
//! `acceleration_dyn`, and for the double pendulum the hand-written closed form. Sizes 2 and 5;
//! with the `large` feature also 10 and 20. Run:
//! `cargo bench -p udk-bench --bench acceleration [--features large]`.
//! `bench/compare.sh` makes the same figures side by side with the Python peers.

use criterion::{criterion_group, criterion_main, Criterion};
use nalgebra::{SVector, Vector2};
use std::hint::black_box;
use udk_bench::models::*;
use udk_bench::{Accelerator, Chain, ChainState, DoublePendulum, Form, FromChain, TapeModel};
use udk_symbolic::models::{pendulum_chain_cartesian, pendulum_chain_minimal};

/// A chain of unit masses and lengths at 0.3 rad per joint with 0.5 rad/s rates.
fn chain(links: usize) -> Chain {
    let lengths = vec![1.0; links];
    let state = ChainState::from_angles(&lengths, &vec![0.3; links], &vec![0.5; links]);
    Chain {
        masses: vec![1.0; links],
        lengths,
        g: 9.81,
        states: vec![state],
    }
}

/// The generated `acceleration` of a model (called on the struct, as a user would) and the
/// run-time tape of the same model, at one state.
macro_rules! bench_generated {
    ($c:expr, $model:ty, $form:expr, $links:expr) => {{
        let chain = chain($links);
        let (q, qd) = &chain.states_in($form)[0];
        let model = <$model>::from_chain(&chain);
        let (q_s, qd_s) = (
            SVector::from_column_slice(q),
            SVector::from_column_slice(qd),
        );
        let label = format!("{:?}_{}", $form, $links).to_lowercase();
        $c.bench_function(&format!("generated/{label}"), |b| {
            b.iter(|| model.acceleration(black_box(&q_s), black_box(&qd_s), 0.0))
        });
        let spec = match $form {
            Form::Cartesian => pendulum_chain_cartesian($links),
            Form::Minimal => pendulum_chain_minimal($links),
        };
        let tape = TapeModel::new(&spec, |p| if p == "g" { 9.81 } else { 1.0 })
            .expect("the chain derives");
        $c.bench_function(&format!("tape/{label}"), |b| {
            b.iter(|| tape.acceleration(black_box(q), black_box(qd)))
        });
    }};
}

fn bench_acceleration(c: &mut Criterion) {
    bench_generated!(c, PendulumChainCartesian2, Form::Cartesian, 2);
    bench_generated!(c, PendulumChainMinimal2, Form::Minimal, 2);
    bench_generated!(c, PendulumChainCartesian5, Form::Cartesian, 5);
    bench_generated!(c, PendulumChainMinimal5, Form::Minimal, 5);
    #[cfg(feature = "large")]
    {
        bench_generated!(c, PendulumChainCartesian10, Form::Cartesian, 10);
        bench_generated!(c, PendulumChainMinimal10, Form::Minimal, 10);
        bench_generated!(c, PendulumChainCartesian20, Form::Cartesian, 20);
        bench_generated!(c, PendulumChainMinimal20, Form::Minimal, 20);
    }
    let chain = chain(2);
    let (q, qd) = &chain.states_in(Form::Minimal)[0];
    let (theta, omega) = (
        Vector2::from_column_slice(q),
        Vector2::from_column_slice(qd),
    );
    let closed = DoublePendulum::new(&chain);
    c.bench_function("closed_form/minimal_2", |b| {
        b.iter(|| closed.angular_acceleration(black_box(&theta), black_box(&omega)))
    });
}

criterion_group!(benches, bench_acceleration);
criterion_main!(benches);
