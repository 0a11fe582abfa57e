//! Time of derivation plus code emission (the work the `#[lagrangian]` macro does) for the
//! 10-link pendulum chain in Cartesian coordinates (20 coordinates, 10 length constraints)
//! and in minimal coordinates (10 angles): `derive`, then the Rust code of M, Q, A, b, C
//! (formatted to a string, as the macro hands it to rustc), the run-time tape, and the
//! equation sheets. Also the time of one evaluation of M, Q, A, b, C by the run-time tape.
//! Run: `cargo bench -p udk-symbolic --bench emit`.

#[path = "../tests/emit_support/mod.rs"]
mod emit_support;

use criterion::{criterion_group, criterion_main, Criterion};
use emit_support::{pendulum_chains, symbol};
use std::hint::black_box;
use udk_symbolic::emit::{
    compile_tape, emit_rust, equations_latex, equations_text, LagrangianTape,
};
use udk_symbolic::{derive, ModelSpec};

/// Derivation and every emitter; returns the sizes of what was made.
fn derive_and_emit(spec: &ModelSpec) -> (usize, usize, usize) {
    let d = derive(spec).expect("the chain derives");
    let outputs = d.equations.outputs();
    let block = emit_rust(&d.pool, &outputs, &symbol);
    let code = block.statements.to_string();
    let tape = compile_tape(&d.pool, &outputs);
    let sheets = equations_text(&d).len() + equations_latex(&d).len();
    (code.len(), tape.len(), sheets)
}

fn bench_derive_and_emit(c: &mut Criterion) {
    let mut group = c.benchmark_group("derive_and_emit");
    group.sample_size(10);
    for (name, spec) in pendulum_chains() {
        let (code, tape, sheets) = derive_and_emit(&spec);
        println!(
            "{name}: {code} bytes of Rust, {tape} tape instructions, {sheets} bytes of equations"
        );
        group.bench_function(name, |b| b.iter(|| derive_and_emit(black_box(&spec))));
    }
    group.finish();
}

fn bench_tape_eval(c: &mut Criterion) {
    let mut group = c.benchmark_group("tape_eval");
    for (name, spec) in pendulum_chains() {
        let d = derive(&spec).expect("the chain derives");
        let tape = LagrangianTape::new(&d).expect("a Lagrangian model");
        let mut ws = tape.workspace();
        let n = tape.n();
        let q: Vec<f64> = (0..n).map(|i| 0.1 * i as f64 + 0.3).collect();
        let qd: Vec<f64> = (0..n).map(|i| 0.05 * i as f64 - 0.2).collect();
        let params = vec![1.0; d.parameters.len()];
        group.bench_function(name, |b| {
            b.iter(|| {
                let v = tape
                    .eval(black_box(&q), black_box(&qd), 0.0, &params, &mut ws)
                    .expect("inputs fit");
                black_box(v.mass_matrix[0]);
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench_derive_and_emit, bench_tape_eval);
criterion_main!(benches);
