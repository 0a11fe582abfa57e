//! Times the JIT on a model file or a URDF robot: derivation, JIT compilation and tape compilation of the
//! model's terms (M, Q, A, b, C), and one evaluation by each, in ns per call.
//!
//! `cargo run --release -p udk-jit --example jit_timing -- robots/panda.urdf`

#[path = "../tests/support/mod.rs"]
mod support;

use std::path::Path;
use std::time::{Duration, Instant};
use udk_jit::JitFunction;
use udk_symbolic::emit::{compile_tape, TapeInputs};

/// Mean time of one call of `f`, over at least 0.2 s.
fn per_call(mut f: impl FnMut()) -> Duration {
    let (mut calls, start) = (0u32, Instant::now());
    while start.elapsed() < Duration::from_millis(200) {
        f();
        calls += 1;
    }
    start.elapsed() / calls
}

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("a model file or a URDF robot");
    let path = Path::new(&path);
    let start = Instant::now();
    let d = support::derive(path);
    let derive = start.elapsed();
    let ids = d.equations.outputs();
    let start = Instant::now();
    let tape = compile_tape(&d.pool, &ids);
    let tape_time = start.elapsed();
    let start = Instant::now();
    let jit = JitFunction::compile(&d.pool, &ids, "terms").unwrap();
    let jit_time = start.elapsed();
    let s = tape.required();
    let (q, qd, params, u) = (
        vec![0.3; s.q],
        vec![0.2; s.qd],
        vec![1.0; s.params],
        vec![0.1; s.u],
    );
    let inputs = TapeInputs {
        q: &q,
        qd: &qd,
        params: &params,
        u: &u,
        ..TapeInputs::default()
    };
    let mut out = vec![0.0; tape.outputs()];
    let mut regs = vec![0.0; tape.registers()];
    let tape_call = per_call(|| tape.eval(&inputs, &mut regs, &mut out).unwrap());
    let mut jit_regs = vec![0.0; jit.registers()];
    let jit_call = per_call(|| jit.eval(&inputs, &mut jit_regs, &mut out).unwrap());
    println!(
        "{}: n = {}, {} values in {} native functions; derive {derive:.1?}, \
         tape compile {tape_time:.1?}, JIT compile {jit_time:.1?}; \
         terms: tape {tape_call:.1?}, JIT {jit_call:.1?} per call",
        path.display(),
        d.coordinates.len(),
        tape.len(),
        jit.functions(),
    );
}
