//! `udk::Model` (the JIT) side by side with the code `#[lagrangian]` generates, in one run:
//! - derive + JIT: `Model::from_spec` / `from_urdf` and the first workspace (which compiles
//!   the articulated-body program), seconds, best of up to 7;
//! - q̈ per call: the bare JIT-compiled articulated-body program (no `udk::Model` around it),
//!   the JIT's `acceleration_with_inputs_in` (reused workspace), the tape's (`--interpret`), and the
//!   generated `acceleration`, on the same states (ns, best of 7 runs);
//! - batch: `acceleration_batch` on 20,000 states with rayon pools of 1 and 2 threads
//!   (states per second, best of 5).
//!
//! Tree chains of n = 2 and 5 links (10 … 60 with the `large` feature), and with the `robots`
//! feature UR5, Panda, Romeo and SO-100 (generic joint frames).
//!
//! `cargo run --release -p udk-bench --features robots,large --bin jit`
//!
//! With `-- --calls ROUNDS [MODEL [PATH]]` it times nothing: for each model whose name
//! contains MODEL (all without; chains of 2 and 5 links and the robots), it runs the path
//! PATH (`bare`, `model` or `generated`; all without) ROUNDS times over the 32 states in the
//! function `calls`, for an instruction count per call under `valgrind --tool=callgrind`: the
//! inclusive cost of `calls` divided by 32 ROUNDS, one model and path per process. Before
//! `calls`, the path runs `udk_jit::UPGRADE_AFTER` times, so that `calls` counts the JIT's
//! faster tier (see `udk_jit::Function`).
//!
//! With `-- --first [MODEL]` it times derive + JIT alone (to the first workspace, as the
//! table's column), 7 times per model, and prints each time in ms, fastest first.

use std::path::Path as FilePath;
use udk::model::Backend;
use udk::nalgebra::{DMatrix, SVector};
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

/// A way to q̈: the bare JIT-compiled program, `udk::Model`, the generated code.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Path {
    Bare,
    Model,
    Generated,
}

/// What the bench measures of each path of q̈.
#[derive(Clone, Copy, Debug)]
enum Measure {
    /// Nanoseconds per call, the best of several runs.
    Time,
    /// This many rounds over the states, untimed (for callgrind), of one path or all.
    Calls(usize, Option<Path>),
    /// Derive + JIT alone, 7 times.
    First,
}

impl Measure {
    /// Whether `path` is measured.
    fn wants(self, path: Path) -> bool {
        match self {
            Measure::Time | Measure::Calls(_, None) => true,
            Measure::Calls(_, Some(p)) => p == path,
            Measure::First => false,
        }
    }

    /// `call` over `inputs` on `path`: ns per call, or the sum of its results after the
    /// rounds (NaN for a path not measured).
    fn run<T>(self, path: Path, inputs: &[T], mut call: impl FnMut(&T) -> f64) -> f64 {
        match self {
            _ if !self.wants(path) => f64::NAN,
            Measure::Time => timing::ns_per_call(inputs, call),
            Measure::Calls(rounds, _) => {
                // `udk::Model`'s programs run their faster tier from their
                // `udk_jit::UPGRADE_AFTER`-th call on: reached here, outside `calls`.
                for input in inputs.iter().cycle().take(udk_jit::UPGRADE_AFTER) {
                    std::hint::black_box(call(std::hint::black_box(input)));
                }
                calls(rounds, inputs, call)
            }
            Measure::First => unreachable!("no path is run"),
        }
    }
}

/// `rounds` rounds of `call` over `inputs`, the sum of its results; never inlined, so that
/// callgrind counts each path in its own instance.
#[inline(never)]
fn calls<T>(rounds: usize, inputs: &[T], mut call: impl FnMut(&T) -> f64) -> f64 {
    let mut sum = 0.0;
    for _ in 0..rounds {
        for input in inputs {
            sum += call(std::hint::black_box(input));
        }
    }
    std::hint::black_box(sum)
}

/// ns per q̈ of `model` with a reused workspace, the inputs passed per state
/// (`acceleration_with_inputs_in`, as the generated `acceleration` takes them).
fn model_ns(model: &Model, states: &[State], measure: Measure) -> f64 {
    let mut workspace = model.workspace().expect("a Lagrangian model");
    let mut qdd = vec![0.0; model.n()];
    measure.run(Path::Model, states, |(q, qd, tau)| {
        (model.acceleration_with_inputs_in(&mut workspace, q, qd, tau, 0.0, &mut qdd))
            .map_or(f64::NAN, |()| qdd[0])
    })
}

/// ns per evaluation of the bare articulated-body program of `spec` (a URDF it names read
/// relative to `base`): the JIT-compiled function alone, at the spec's parameter values, with
/// none of `Model::acceleration_in` around it (checks, parameters, scatter, kernel).
fn bare_ns(mut spec: udk::ModelSpec, base: &FilePath, states: &[State], measure: Measure) -> f64 {
    if !measure.wants(Path::Bare) {
        return f64::NAN;
    }
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
    measure.run(Path::Bare, states, |(q, qd, tau)| {
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

/// [`Measure::run`] of the generated `acceleration` of a tree chain (no inputs), on
/// fixed-size vectors as a caller of generated code has them.
fn generated_calls<S: udk::LagrangianSystem<N, 0>, const N: usize>(
    system: &S,
    states: &[(Vec<f64>, Vec<f64>)],
    measure: Measure,
) -> f64 {
    let fixed: Vec<(SVector<f64, N>, SVector<f64, N>)> = (states.iter())
        .map(|(q, qd)| {
            (
                SVector::from_column_slice(q),
                SVector::from_column_slice(qd),
            )
        })
        .collect();
    measure.run(Path::Generated, &fixed, |(q, qd)| {
        system.acceleration(q, qd, 0.0).map_or(f64::NAN, |x| x[0])
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

/// Prints one row: derive + JIT, q̈ by JIT, tape and generated code, and the batch rates;
/// with [`Measure::Calls`], runs the JIT's q̈ only.
fn row(
    name: &str,
    build: impl Fn(Backend) -> Model,
    bare: f64,
    generated_ns: Option<f64>,
    states: &[State],
    measure: Measure,
) {
    match measure {
        Measure::Calls(..) => {
            if measure.wants(Path::Model) {
                model_ns(&build(Backend::Jit), states, measure);
            }
            return;
        }
        Measure::First => {
            let mut ms: Vec<f64> = (0..timing::REPEATS)
                .map(|_| {
                    let start = std::time::Instant::now();
                    build(Backend::Jit).workspace().expect("compiles");
                    start.elapsed().as_secs_f64() * 1e3
                })
                .collect();
            ms.sort_by(f64::total_cmp);
            println!("{name}: derive + JIT {ms:.1?} ms");
            return;
        }
        Measure::Time => {}
    }
    let compile =
        timing::seconds_per_call(10.0, || build(Backend::Jit).workspace().expect("compiles"));
    let (jit, tape) = (build(Backend::Jit), build(Backend::Tape));
    let (jit_ns, tape_ns) = (
        model_ns(&jit, states, measure),
        model_ns(&tape, states, measure),
    );
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

/// The measure of the command line (`--calls ROUNDS [MODEL [PATH]]`, or timing) and the
/// models it names.
fn arguments() -> (Measure, impl Fn(&str) -> bool) {
    let usage = "usage: jit [--calls ROUNDS [MODEL [bare|model|generated]] | --first [MODEL]]";
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (measure, filter) = match args.as_slice() {
        [] => (Measure::Time, String::new()),
        [flag, rounds, rest @ ..] if flag == "--calls" && rest.len() <= 2 => {
            let path = rest.get(1).map(|p| match p.as_str() {
                "bare" => Path::Bare,
                "model" => Path::Model,
                "generated" => Path::Generated,
                _ => panic!("{usage}"),
            });
            let rounds = rounds.parse().expect(usage);
            (
                Measure::Calls(rounds, path),
                rest.first().cloned().unwrap_or_default(),
            )
        }
        [flag, rest @ ..] if flag == "--first" && rest.len() <= 1 => {
            (Measure::First, rest.first().cloned().unwrap_or_default())
        }
        _ => panic!("{usage}"),
    };
    let filter = filter.to_lowercase();
    (measure, move |name: &str| {
        name.to_lowercase().contains(&filter)
    })
}

fn main() {
    let (measure, wanted) = arguments();
    if let Measure::Time = measure {
        println!(
            "| model | n | derive + JIT (ms) | bare JIT program (ns) | JIT q̈ (ns) | tape q̈ (ns) | generated q̈ (ns) | JIT / generated | batch, 1 thread (M states/s) | batch, 2 threads (M states/s) |"
        );
        println!("|---|---|---|---|---|---|---|---|---|---|");
    }
    for links in [2, 5, 10, 20, 30, 40, 60] {
        let name = format!("tree chain {links}");
        let Some(generated) = models::tree_chain(links).filter(|_| wanted(&name)) else {
            continue;
        };
        let chain_states: Vec<(Vec<f64>, Vec<f64>)> = udk_bench::tree_chain::states(links, 32);
        let states: Vec<State> = (chain_states.iter())
            .map(|(q, qd)| (q.clone(), qd.clone(), Vec::new()))
            .collect();
        let spec = udk_symbolic::models::pendulum_chain_tree(links);
        let build = |backend| {
            Model::from_spec_with(spec.clone(), FilePath::new("."), backend).expect("the chain")
        };
        let generated_ns = match (measure, links) {
            (Measure::Time, _) => generated.ns_per_call(&chain_states).0,
            (Measure::First, _) => f64::NAN,
            (Measure::Calls(..), 2) => {
                generated_calls(&models::PendulumChainTree2, &chain_states, measure)
            }
            (Measure::Calls(..), 5) => {
                generated_calls(&models::PendulumChainTree5, &chain_states, measure)
            }
            (Measure::Calls(..), _) => continue,
        };
        row(
            &name,
            build,
            bare_ns(spec.clone(), FilePath::new("."), &states, measure),
            Some(generated_ns),
            &states,
            measure,
        );
    }
    #[cfg(feature = "robots")]
    robots::rows(measure, &wanted);
}

#[cfg(feature = "robots")]
mod robots {
    use super::{bare_ns, row, states, Measure, Path, State};
    use std::path::{Path as FilePath, PathBuf};
    use udk::model::Backend;
    use udk::nalgebra::SVector;
    use udk::Model;
    use udk_bench::robots::{Panda, RomeoSmall, So100, Ur5};

    fn urdf(file: &str) -> PathBuf {
        FilePath::new(env!("CARGO_MANIFEST_DIR"))
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
    fn bare(file: &str, states: &[State], measure: Measure) -> f64 {
        bare_ns(
            spec(file),
            urdf(file).parent().expect("robots/"),
            states,
            measure,
        )
    }

    macro_rules! generated_ns {
        ($robot:expr, $n:literal, $states:expr, $measure:expr) => {{
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
            $measure.run(Path::Generated, &fixed, |(q, qd, tau)| {
                $robot
                    .acceleration(q, qd, tau, 0.0)
                    .map_or(f64::NAN, |x| x[0])
            })
        }};
    }

    /// The row of one robot (n coordinates and inputs, its URDF `file`, its generated
    /// struct), when `wanted` names it.
    macro_rules! robot_row {
        ($name:expr, $file:literal, $robot:expr, $n:literal, $measure:expr, $wanted:expr) => {
            if $wanted($name) {
                let s = states($n, $n, 32);
                let generated = generated_ns!($robot, $n, s, $measure);
                let bare = bare($file, &s, $measure);
                row($name, build($file), bare, Some(generated), &s, $measure);
            }
        };
    }

    /// The robots' rows, of those `wanted` names.
    pub fn rows(measure: Measure, wanted: &dyn Fn(&str) -> bool) {
        robot_row!("UR5", "ur5_robot.urdf", Ur5, 6, measure, wanted);
        robot_row!("Panda", "panda.urdf", Panda, 9, measure, wanted);
        robot_row!("Romeo", "romeo_small.urdf", RomeoSmall, 31, measure, wanted);
        let so100 = "SO-100 (generic frames)";
        robot_row!(so100, "so100.urdf", So100, 6, measure, wanted);
    }
}
