//! Times the JIT on a model file or a URDF robot, phase by phase: derivation (without the
//! residual Jacobians, as `udk::Model` derives, then the Jacobians on their own), lowering of the
//! terms (M, Q, A, b, C) and of the articulated-body program (q̈₀, W, A, b, pivots, C of a
//! kinematic tree) to a [`Program`] (the CSE'd straight-line form), their compilation by
//! Cranelift (in both tiers, [`Tier`]) and by the tape, and one evaluation of each by the tape
//! and the JIT, per call.
//!
//! `cargo run --release -p udk-jit --example jit_timing -- robots/panda.urdf` (or `chain:N` for
//! the N-link chain of `udk_symbolic::models::pendulum_chain_tree`)

#[path = "../tests/support/mod.rs"]
mod support;

use std::path::Path;
use std::time::{Duration, Instant};
use udk_jit::{JitFunction, Tier};
use udk_symbolic::emit::{compile_tape, Program, TapeInputs};
use udk_symbolic::expr::ExprId;
use udk_symbolic::Equations;
use udk_symbolic::Jacobians::OnDemand;

/// Time of one call of `f`: the best of 50 runs of at least 2 ms each (the machine is shared:
/// the best run is the one least disturbed).
fn per_call(mut f: impl FnMut()) -> Duration {
    (0..50)
        .map(|_| {
            let (mut calls, start) = (0u32, Instant::now());
            while start.elapsed() < Duration::from_millis(2) {
                f();
                calls += 1;
            }
            start.elapsed() / calls
        })
        .min()
        .expect("50 runs")
}

/// The duration of `f` (the best of 5 calls) and its result.
fn timed<R>(mut f: impl FnMut() -> R) -> (Duration, R) {
    let mut best = (Duration::MAX, None);
    for _ in 0..5 {
        let start = Instant::now();
        let r = f();
        let elapsed = start.elapsed();
        if elapsed < best.0 {
            best = (elapsed, Some(r));
        }
    }
    (best.0, best.1.expect("5 calls"))
}

/// Lowers, compiles and evaluates `ids` of `d`'s pool, printing one line named `what`.
fn program(d: &udk_symbolic::Derivation, what: &str, ids: &[ExprId]) {
    let (lower, program) = timed(|| Program::new(&d.pool, ids));
    let (tape_time, tape) = timed(|| compile_tape(&d.pool, ids));
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
    let mut functions = 0;
    let jit: Vec<String> = [Tier::Quick, Tier::Optimized]
        .into_iter()
        .map(|tier| {
            let (time, jit) = timed(|| JitFunction::from_program_in(&program, what, tier).unwrap());
            let mut regs = vec![0.0; jit.registers()];
            let call = per_call(|| jit.eval(&inputs, &mut regs, &mut out).unwrap());
            functions = jit.functions();
            format!("{tier:?} compile {time:.1?}, call {call:.1?}")
        })
        .collect();
    println!(
        "  {what}: {} values in {} native functions; lowering {lower:.1?}, tape compile \
         {tape_time:.1?}, call {tape_call:.1?}; JIT {}",
        program.steps.len(),
        functions,
        jit.join("; "),
    );
}

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("a model file or a URDF robot");
    let (derive, d) = match path.strip_prefix("chain:") {
        Some(links) => {
            let spec = udk_symbolic::models::pendulum_chain_tree(links.parse().expect("N"));
            timed(|| udk_symbolic::derive_with(&spec, OnDemand).expect("the chain derives"))
        }
        None => timed(|| support::derive_with(Path::new(&path), OnDemand)),
    };
    // The best of 5, each on a copy of the derivation (the copy not timed).
    let jacobians = (0..5)
        .map(|_| {
            let mut d = d.clone();
            let start = Instant::now();
            d.derive_jacobians();
            start.elapsed()
        })
        .min()
        .expect("5 runs");
    println!(
        "{path}: n = {}, derivation {derive:.1?} (residual Jacobians on demand: \
         {jacobians:.1?} more)",
        d.coordinates.len()
    );
    program(&d, "terms", &d.equations.outputs());
    if let Equations::Lagrangian(e) = &d.equations {
        if let Some(ids) = e.articulated_outputs() {
            let ids: Vec<ExprId> = ids.into_iter().filter(|&id| !d.pool.is_zero(id)).collect();
            program(&d, "articulated-body program", &ids);
        }
    }
}
