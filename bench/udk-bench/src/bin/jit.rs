//! `udk::Model` (the JIT) side by side with the code `#[lagrangian]` generates, in one run:
//! - derive + JIT: `Model::from_spec` / `from_urdf` and the first workspace (which compiles
//!   the articulated-body program), seconds, best of up to 7;
//! - q̈ per call: the bare JIT-compiled articulated-body program (no `udk::Model` around it),
//!   the JIT's `acceleration_in` (reused workspace), the tape's (`--interpret`), and the
//!   generated `acceleration`, on the same states (ns, best of 7 runs);
//! - batch: `acceleration_batch` on 20,000 states with rayon pools of 1 and 2 threads
//!   (states per second, best of 5).
//!
//! Tree chains of n = 2 and 5 links (10 … 60 with the `large` feature), and with the `robots`
//! feature UR5, Panda, Romeo and SO-100 (generic joint frames).
//!
//! `cargo run --release -p udk-bench --features robots,large --bin jit`

use std::path::Path;
use udk::model::Backend;
use udk::nalgebra::DMatrix;
use udk::Model;
use udk_bench::{models, timing};

/// One state: q, q̇ and the inputs τ (empty for the chains).
type State = (Vec<f64>, Vec<f64>, Vec<f64>);

/// Deterministic states of n coordinates and k inputs: angles within ±1.2 rad, rates within
/// ±1 rad/s, efforts within ±2 N m.
fn states(n: usize, k: usize, count: usize) -> Vec<State> {
    let draw = |s: usize, i: usize, offset: f64| ((s * 31 + i) as f64 * 0.618 + offset).sin();
    (0..count)
        .map(|s| {
            (
                (0..n).map(|i| 1.2 * draw(s, i, 0.1)).collect(),
                (0..n).map(|i| draw(s, i, 2.3)).collect(),
                (0..k).map(|i| 2.0 * draw(s, i, 4.1)).collect(),
            )
        })
        .collect()
}

/// ns per q̈ of `model` (inputs set per state) with a reused workspace.
fn model_ns(model: &Model, states: &[State]) -> f64 {
    let mut model = model.clone();
    let mut workspace = model.workspace().expect("a Lagrangian model");
    let mut qdd = vec![0.0; model.n()];
    timing::ns_per_call(states, |(q, qd, tau)| {
        if !tau.is_empty() {
            model.set_inputs(tau).expect("k inputs");
        }
        (model.acceleration_in(&mut workspace, q, qd, 0.0, &mut qdd)).map_or(f64::NAN, |()| qdd[0])
    })
}

/// ns per evaluation of the bare articulated-body program of `spec` (a URDF it names read
/// relative to `base`): the JIT-compiled function alone, at the spec's parameter values, with
/// none of `Model::acceleration_in` around it (checks, parameters, scatter, kernel).
fn bare_ns(mut spec: udk::ModelSpec, base: &Path, states: &[State]) -> f64 {
    let d = udk_symbolic::limits::on_large_stack(|| {
        udk_symbolic::urdf::expand(&mut spec, base).expect("the URDF expands");
        udk_symbolic::derive(&spec).expect("the model derives")
    });
    let udk_symbolic::Equations::Lagrangian(e) = &d.equations else {
        unreachable!("a Lagrangian tree")
    };
    let ids: Vec<_> = (e
        .articulated_outputs()
        .expect("a kinematic tree")
        .into_iter())
    .filter(|&id| !d.pool.is_zero(id))
    .collect();
    let jit = udk_jit::JitFunction::compile(&d.pool, &ids, "bare").expect("compiles");
    let params: Vec<f64> = (spec.parameters.iter())
        .map(|p| p.value.expect("a value"))
        .collect();
    let (mut regs, mut out) = (vec![0.0; jit.registers()], vec![0.0; jit.outputs()]);
    timing::ns_per_call(states, |(q, qd, tau)| {
        let inputs = udk_symbolic::emit::TapeInputs {
            q,
            qd,
            params: &params,
            u: tau,
            ..Default::default()
        };
        jit.eval(&inputs, &mut regs, &mut out)
            .map_or(f64::NAN, |()| out[0])
    })
}

/// States per second of `acceleration_batch` on a pool of `threads` threads.
fn batch_rate(model: &Model, threads: usize) -> f64 {
    let (n, count) = (model.n(), 20_000);
    let all = states(n, 0, count);
    let column = |pick: fn(&State) -> &Vec<f64>| {
        DMatrix::from_iterator(n, count, all.iter().flat_map(|s| pick(s).iter().copied()))
    };
    let (q, qd, t) = (column(|s| &s.0), column(|s| &s.1), vec![0.0; count]);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool");
    let seconds = timing::seconds_per_call(30.0, || {
        pool.install(|| model.acceleration_batch(&q, &qd, &t))
            .expect("q̈ at every state")
    });
    count as f64 / seconds
}

/// Prints one row: derive + JIT, q̈ by JIT, tape and generated code, and the batch rates.
fn row(
    name: &str,
    build: impl Fn(Backend) -> Model,
    bare: f64,
    generated_ns: Option<f64>,
    states: &[State],
) {
    let compile =
        timing::seconds_per_call(10.0, || build(Backend::Jit).workspace().expect("compiles"));
    let (jit, tape) = (build(Backend::Jit), build(Backend::Tape));
    let (jit_ns, tape_ns) = (model_ns(&jit, states), model_ns(&tape, states));
    let ratio = generated_ns.map_or(String::from("–"), |g| format!("{:.2}", jit_ns / g));
    let generated = generated_ns.map_or(String::from("–"), |g| format!("{g:.0}"));
    let (one, two) = (batch_rate(&jit, 1), batch_rate(&jit, 2));
    println!(
        "| {name} | {} | {:.1} | {bare:.0} | {jit_ns:.0} | {tape_ns:.0} | {generated} | {ratio} | {:.2} | {:.2} |",
        jit.n(),
        compile * 1e3,
        one / 1e6,
        two / 1e6,
    );
}

fn main() {
    println!(
        "| model | n | derive + JIT (ms) | bare JIT program (ns) | JIT q̈ (ns) | tape q̈ (ns) | generated q̈ (ns) | JIT / generated | batch, 1 thread (M states/s) | batch, 2 threads (M states/s) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for links in [2, 5, 10, 20, 30, 40, 60] {
        let Some(generated) = models::tree_chain(links) else {
            continue;
        };
        let chain_states: Vec<(Vec<f64>, Vec<f64>)> = udk_bench::tree_chain::states(links, 32);
        let states: Vec<State> = (chain_states.iter())
            .map(|(q, qd)| (q.clone(), qd.clone(), Vec::new()))
            .collect();
        let spec = udk_symbolic::models::pendulum_chain_tree(links);
        let build = |backend| {
            Model::from_spec_with(spec.clone(), Path::new("."), backend).expect("the chain")
        };
        let generated_ns = generated.ns_per_call(&chain_states).0;
        row(
            &format!("tree chain {links}"),
            build,
            bare_ns(spec.clone(), Path::new("."), &states),
            Some(generated_ns),
            &states,
        );
    }
    #[cfg(feature = "robots")]
    robots::rows();
}

#[cfg(feature = "robots")]
mod robots {
    use super::{bare_ns, row, states, State};
    use std::path::{Path, PathBuf};
    use udk::model::Backend;
    use udk::nalgebra::SVector;
    use udk::Model;
    use udk_bench::robots::{Panda, RomeoSmall, So100, Ur5};
    use udk_bench::timing;

    fn urdf(file: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../robots")
            .join(file)
    }

    /// The spec of the robot of `file`.
    fn spec(file: &str) -> udk::ModelSpec {
        udk::ModelSpec {
            name: "Robot".into(),
            urdf: Some(udk_symbolic::urdf::UrdfSource::new(file)),
            ..udk::ModelSpec::default()
        }
    }

    /// The robot of `file` compiled for a backend.
    fn build(file: &str) -> impl Fn(Backend) -> Model + '_ {
        move |backend| {
            let path = urdf(file);
            Model::from_spec_with(spec(file), path.parent().expect("robots/"), backend)
                .expect("the robot derives")
        }
    }

    /// [`bare_ns`] of the robot of `file`.
    fn bare(file: &str, states: &[State]) -> f64 {
        bare_ns(spec(file), urdf(file).parent().expect("robots/"), states)
    }

    macro_rules! generated_ns {
        ($robot:expr, $n:literal, $states:expr) => {{
            let fixed: Vec<(SVector<f64, $n>, SVector<f64, $n>, SVector<f64, $n>)> = ($states
                .iter())
            .map(|(q, qd, tau): &State| {
                (
                    SVector::from_column_slice(q),
                    SVector::from_column_slice(qd),
                    SVector::from_column_slice(tau),
                )
            })
            .collect();
            timing::ns_per_call(&fixed, |(q, qd, tau)| {
                $robot
                    .acceleration(q, qd, tau, 0.0)
                    .map_or(f64::NAN, |x| x[0])
            })
        }};
    }

    pub fn rows() {
        let s = states(6, 6, 32);
        row(
            "UR5",
            build("ur5_robot.urdf"),
            bare("ur5_robot.urdf", &s),
            Some(generated_ns!(Ur5, 6, s)),
            &s,
        );
        let s = states(9, 9, 32);
        row(
            "Panda",
            build("panda.urdf"),
            bare("panda.urdf", &s),
            Some(generated_ns!(Panda, 9, s)),
            &s,
        );
        let s = states(31, 31, 32);
        let romeo = generated_ns!(RomeoSmall, 31, s);
        let romeo_bare = bare("romeo_small.urdf", &s);
        row(
            "Romeo",
            build("romeo_small.urdf"),
            romeo_bare,
            Some(romeo),
            &s,
        );
        let s = states(6, 6, 32);
        let so100 = generated_ns!(So100, 6, s);
        let so100_bare = bare("so100.urdf", &s);
        row(
            "SO-100 (generic frames)",
            build("so100.urdf"),
            so100_bare,
            Some(so100),
            &s,
        );
    }
}
