//! `udk eval --states` on 100,000 states of the 10-link Cartesian pendulum chain
//! (`examples/models/chain10_cartesian.toml`, n = 20, m = 10): states per second of the
//! model compiled at run time, by the JIT and by the tape (`--interpret`), against the code
//! `#[lagrangian]` generates for the same model.
//!
//! `cargo bench -p udk-cli --bench eval_states` prints, for each path:
//! - terms: M, Q, A, b, C only (JIT and tape vs generated straight-line code);
//! - motion: terms plus the acceleration and constraint force by the fundamental equation
//!   (dynamic-size vs fixed-size kernel);
//! - full report: everything `udk eval` prints per state (motion, energy, residuals, ranks);
//! - and the whole command, `udk eval --states` on a 100,000-state JSON file (parsing and
//!   printing JSON included), with and without `--interpret`.
//!
//! `UDK_BENCH_STATES` overrides the number of states.

#[path = "../tests/chain10/mod.rs"]
mod chain10;

use chain10::PendulumChainCartesian10;
use nalgebra::SVector;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;
use udk::LagrangianSystem;
use udk_cli::eval::{evaluate, State};
use udk_cli::model::{Backend, Evaluator, Model};
use udk_runtime::Options;

const N: usize = 20;

/// Deterministic states on the constraint manifold: link angles and rates in [−1, 1].
fn states(count: usize) -> Vec<State> {
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    let mut uniform = move || {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    (0..count)
        .map(|_| {
            let (mut q, mut qd) = (Vec::with_capacity(N), Vec::with_capacity(N));
            let (mut x, mut y, mut vx, mut vy) = (0.0, 0.0, 0.0, 0.0);
            for _ in 0..N / 2 {
                let (theta, omega): (f64, f64) = (uniform(), uniform());
                x += theta.sin();
                y -= theta.cos();
                vx += theta.cos() * omega;
                vy += theta.sin() * omega;
                q.extend([x, y]);
                qd.extend([vx, vy]);
            }
            State {
                t: 0.0,
                q,
                qd: Some(qd),
                p: None,
                u: None,
            }
        })
        .collect()
}

/// Runs `f` on every state and prints states per second.
fn time(label: &str, states: &[State], mut f: impl FnMut(&State)) -> f64 {
    let start = Instant::now();
    for s in states {
        f(s);
    }
    let rate = states.len() as f64 / start.elapsed().as_secs_f64();
    println!("{label:<44} {rate:>12.0} states/s");
    rate
}

fn main() {
    let count = std::env::var("UDK_BENCH_STATES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let path = root.join("examples/models/chain10_cartesian.toml");
    let model = Model::load(&path).expect("the chain model loads");
    let params = model.parameter_values(&[]).expect("values in the file");
    let mut evaluator =
        (model.evaluator(params.clone(), Vec::new(), Backend::Jit)).expect("the chain compiles");
    let chain = PendulumChainCartesian10 {
        m1: params[0],
        m2: params[1],
        m3: params[2],
        m4: params[3],
        m5: params[4],
        m6: params[5],
        m7: params[6],
        m8: params[7],
        m9: params[8],
        m10: params[9],
        l1: params[10],
        l2: params[11],
        l3: params[12],
        l4: params[13],
        l5: params[14],
        l6: params[15],
        l7: params[16],
        l8: params[17],
        l9: params[18],
        l10: params[19],
        g: params[20],
    };
    let states = states(count);
    let vectors: Vec<_> = states
        .iter()
        .map(|s| {
            let qd = s.qd.as_deref().expect("velocities");
            (
                SVector::<f64, N>::from_column_slice(&s.q),
                SVector::<f64, N>::from_column_slice(qd),
            )
        })
        .collect();
    println!("udk eval on {count} states of {}", path.display());
    let options = Options::default();
    let Evaluator::Lagrangian(lagrangian) = &mut evaluator else {
        unreachable!("the chain is Lagrangian")
    };
    let raw = udk_symbolic::emit::LagrangianTape::new(&model.derivation).expect("Lagrangian");
    let mut workspace = raw.workspace();
    time("terms, LagrangianTape (all outputs, dense)", &states, |s| {
        let qd = s.qd.as_deref().unwrap();
        black_box(raw.eval(&s.q, qd, s.t, &params, &mut workspace)).expect("sizes");
    });
    let mut interpreted = (model.evaluator(params.clone(), Vec::new(), Backend::Tape))
        .expect("the chain compiles to a tape");
    let Evaluator::Lagrangian(tape_evaluator) = &mut interpreted else {
        unreachable!("the chain is Lagrangian")
    };
    time("terms, udk eval --interpret (tape)", &states, |s| {
        black_box(tape_evaluator.terms(&s.q, s.qd.as_deref().unwrap(), s.t));
    });
    let jit = time("terms, udk eval (JIT)", &states, |s| {
        black_box(lagrangian.terms(&s.q, s.qd.as_deref().unwrap(), s.t));
    });
    let mut k = 0;
    let generated = time("terms, generated", &states, |s| {
        let (q, qd) = &vectors[k];
        k += 1;
        black_box(chain.terms(q, qd, s.t));
    });
    println!("{:<44} {:>12.2}", "  generated / JIT", generated / jit);
    let jit = time("motion (q̈, Qᶜ), JIT + dynamic kernel", &states, |s| {
        let t = lagrangian.terms(&s.q, s.qd.as_deref().unwrap(), s.t);
        black_box(udk_runtime::acceleration_and_constraint_force_dyn(
            t.view(),
            &options,
        ))
        .expect("unique");
    });
    // M, Q, A, b, C from the generated code and (q̈, Qᶜ) from the fixed-size kernel; returns
    // the terms for the full report.
    let generated_motion = |q: &SVector<f64, N>, qd: &SVector<f64, N>, t: f64| {
        let terms = chain.terms(q, qd, t);
        black_box(udk_runtime::acceleration_and_constraint_force(
            terms.view(),
            &options,
        ))
        .expect("unique");
        terms
    };
    let mut k = 0;
    let generated = time(
        "motion (q̈, Qᶜ), generated + fixed kernel",
        &states,
        |s| {
            let (q, qd) = &vectors[k];
            k += 1;
            generated_motion(q, qd, s.t);
        },
    );
    println!("{:<44} {:>12.2}", "  generated / JIT", generated / jit);
    time("full report, --interpret (tape)", &states, |s| {
        black_box(evaluate(&model, &mut interpreted, s, "")).expect("unique");
    });
    let jit = time("full report, JIT", &states, |s| {
        black_box(evaluate(&model, &mut evaluator, s, "")).expect("unique");
    });
    let mut k = 0;
    let generated = time("full report, generated", &states, |s| {
        let (q, qd) = &vectors[k];
        k += 1;
        let t = generated_motion(q, qd, s.t);
        black_box((
            chain.energy(q, qd, s.t),
            chain.holonomic_residual(q, s.t),
            chain.velocity_residual(q, qd, s.t),
            udk_runtime::rank(&t.mass_matrix, None).expect("finite"),
            udk_runtime::rank(&t.constraint_matrix, None).expect("finite"),
            udk_runtime::mass_constraint_rank(&t.mass_matrix, &t.constraint_matrix, &options)
                .expect("finite"),
        ));
    });
    println!("{:<44} {:>12.2}", "  generated / JIT", generated / jit);
    for interpret in [false, true] {
        command(&root, &path, &states, interpret);
    }
}

/// The whole command on a states file, as a user runs it (with `--interpret` when asked).
fn command(root: &std::path::Path, model: &std::path::Path, states: &[State], interpret: bool) {
    let dir = root.join("target/udk");
    std::fs::create_dir_all(&dir).expect("target/udk");
    let file = dir.join("chain10_states.json");
    let json: Vec<serde_json::Value> = states
        .iter()
        .map(|s| serde_json::json!({ "t": s.t, "q": s.q, "qd": s.qd }))
        .collect();
    std::fs::write(&file, serde_json::to_string(&json).unwrap()).expect("states file");
    let start = Instant::now();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_udk"))
        .arg("eval")
        .arg(model)
        .arg("--states")
        .arg(&file)
        .args(interpret.then_some("--interpret"))
        .output()
        .expect("udk runs");
    let elapsed = start.elapsed().as_secs_f64();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    println!(
        "{:<44} {:>12.0} states/s ({} MB of JSON out)",
        match interpret {
            true => "udk eval --states --interpret (command)",
            false => "udk eval --states (whole command, JIT)",
        },
        states.len() as f64 / elapsed,
        output.stdout.len() / 1_000_000
    );
}
