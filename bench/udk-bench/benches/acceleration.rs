//! Time per acceleration call on the 2- and 5-link pendulum chains (plus 10 and 20 with the
//! `large` feature), Cartesian and minimal: the generated code, the run-time tape, and for the
//! double pendulum the hand-written closed form. Run:
//! `cargo bench -p udk-bench --bench acceleration [--features large]`.
//! `bench/compare.sh` makes the same figures side by side with the Python peers.

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use udk_bench::{models, Accelerator, Chain, ChainState, DoublePendulum, Form, TapeModel};
use udk_symbolic::models::{pendulum_chain_cartesian, pendulum_chain_minimal};

/// A chain of unit masses and lengths, released at 0.3 rad per joint with 0.5 rad/s rates.
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

fn bench(c: &mut Criterion, name: &str, subject: &dyn Accelerator, state: &(Vec<f64>, Vec<f64>)) {
    let (q, qd) = state;
    c.bench_function(name, |b| {
        b.iter(|| subject.acceleration(black_box(q), black_box(qd)))
    });
}

fn bench_acceleration(c: &mut Criterion) {
    for links in [2, 5, 10, 20] {
        let chain = chain(links);
        for form in [Form::Cartesian, Form::Minimal] {
            let Some(model) = models::generated(&chain, form) else {
                continue;
            };
            let state = &chain.states_in(form)[0];
            let label = format!("{form:?}_{links}").to_lowercase();
            bench(c, &format!("generated/{label}"), model.as_ref(), state);
            let spec = match form {
                Form::Cartesian => pendulum_chain_cartesian(links),
                Form::Minimal => pendulum_chain_minimal(links),
            };
            let tape = TapeModel::new(&spec, |p| if p == "g" { 9.81 } else { 1.0 })
                .expect("the chain derives");
            bench(c, &format!("tape/{label}"), &tape, state);
            if form == Form::Minimal && links == 2 {
                bench(
                    c,
                    "closed_form/minimal_2",
                    &DoublePendulum::new(&chain),
                    state,
                );
            }
        }
    }
}

criterion_group!(benches, bench_acceleration);
criterion_main!(benches);
