//! `udk-bench`: the Rust side of `bench/compare.sh`. Each subcommand prints JSON on stdout.
//!
//! - `check WORKLOAD`: the accelerations of every udk path at every state of the workload.
//! - `accel WORKLOAD`: nanoseconds per acceleration call of every udk path.
//! - `derive N...`: seconds of derivation plus Rust emission (`udk_symbolic::generate`).
//! - `simulate WORKLOAD T_END TOL`: one DOP853 run per generated model.
//! - `tree N...`: nanoseconds per acceleration of the tree chains, O(n) path and dense kernel.
//! - `macro-source FORM N`: a `lib.rs` holding just that chain model under `#[lagrangian]`.
//! - `robots WORKLOAD` (feature `robots`): q̈ of the URDF robots at the workload's states and
//!   nanoseconds per call of their `acceleration`, `mass_matrix` and `generalized_forces`.
//! - `floating WORKLOAD` (feature `floating`): v̇ of the floating-base robots at the
//!   workload's states, nanoseconds per `acceleration` and, on Solo12, per contact-constrained
//!   forward dynamics with the four feet held.
//! - `robot-derive NAME=PATH...`: seconds of reading and expanding the URDF file at PATH
//!   (`udk_symbolic::urdf::expand`) and of `udk_symbolic::generate` on the expanded spec.

use serde_json::{json, Value};
use std::error::Error;
use udk_bench::{
    models, timing, Accelerator, BenchModel, Chain, DoublePendulum, Form, TapeModel, Workload,
};
use udk_symbolic::models::{pendulum_chain_cartesian, pendulum_chain_minimal};
use udk_symbolic::ModelSpec;

const FORMS: [Form; 2] = [Form::Cartesian, Form::Minimal];

fn spec(form: Form, links: usize) -> ModelSpec {
    match form {
        Form::Cartesian => pendulum_chain_cartesian(links),
        Form::Minimal => pendulum_chain_minimal(links),
    }
}

/// The udk paths of one model: (tool name, evaluator).
type Subjects = Vec<(&'static str, Box<dyn Accelerator>)>;

/// Every udk path for `chain` in `form`.
fn subjects(chain: &Chain, form: Form) -> Result<Subjects, Box<dyn Error>> {
    let parameter = |name: &str| -> f64 {
        let index = |digits: &str| digits.parse::<usize>().map(|k| k - 1);
        match (name, index(&name[1..])) {
            ("g", _) => chain.g,
            (_, Ok(k)) if name.starts_with('m') => chain.masses[k],
            (_, Ok(k)) if name.starts_with('l') => chain.lengths[k],
            _ => f64::NAN,
        }
    };
    let mut subjects: Subjects = Vec::new();
    if let Some(model) = models::generated(chain, form) {
        subjects.push(("generated", as_accelerator(model)));
    }
    subjects.push((
        "tape",
        Box::new(TapeModel::new(&spec(form, chain.links()), parameter)?),
    ));
    if form == Form::Minimal && chain.links() == 2 {
        subjects.push(("closed_form", Box::new(DoublePendulum::new(chain))));
    }
    Ok(subjects)
}

fn as_accelerator(model: Box<dyn BenchModel>) -> Box<dyn Accelerator> {
    struct Wrap(Box<dyn BenchModel>);
    impl Accelerator for Wrap {
        fn acceleration(&self, q: &[f64], qd: &[f64]) -> Result<Vec<f64>, Box<dyn Error>> {
            self.0.acceleration(q, qd)
        }
        fn ns_per_call(&self, states: &[(Vec<f64>, Vec<f64>)]) -> f64 {
            self.0.ns_per_call(states)
        }
    }
    Box::new(Wrap(model))
}

fn check(workload: &Workload) -> Result<Value, Box<dyn Error>> {
    let mut rows = Vec::new();
    for chain in &workload.chains {
        for form in FORMS {
            for (tool, subject) in subjects(chain, form)? {
                let accelerations = chain
                    .states_in(form)
                    .iter()
                    .map(|(q, qd)| subject.acceleration(q, qd))
                    .collect::<Result<Vec<_>, _>>()?;
                rows.push(json!({"tool": tool, "form": form, "links": chain.links(), "accelerations": accelerations}));
            }
        }
    }
    Ok(Value::Array(rows))
}

fn accel(workload: &Workload) -> Result<Value, Box<dyn Error>> {
    let mut rows = Vec::new();
    for chain in &workload.chains {
        for form in FORMS {
            let states = chain.states_in(form);
            let subjects = subjects(chain, form)?;
            let timings = if subjects.iter().any(|(tool, _)| *tool == "closed_form") {
                // The double pendulum: generated and closed form timed in alternation, so that
                // both see the same load on the shared machine.
                alternating_best(&subjects, &states)
            } else {
                subjects
                    .iter()
                    .map(|(_, s)| s.ns_per_call(&states))
                    .collect()
            };
            for ((tool, _), ns) in subjects.iter().zip(timings) {
                eprintln!("accel {tool} {form:?} n={}: {ns:.1} ns", chain.links());
                rows.push(json!({"tool": tool, "form": form, "links": chain.links(), "ns": ns}));
            }
        }
    }
    Ok(Value::Array(rows))
}

/// Nanoseconds per call of each subject: the best of [`ALTERNATIONS`] rounds, each round
/// timing every subject once.
fn alternating_best(subjects: &Subjects, states: &[(Vec<f64>, Vec<f64>)]) -> Vec<f64> {
    let mut best = vec![f64::INFINITY; subjects.len()];
    for _ in 0..ALTERNATIONS {
        for ((_, subject), best) in subjects.iter().zip(&mut best) {
            *best = best.min(subject.ns_per_call(states));
        }
    }
    best
}

/// Rounds of [`alternating_best`].
const ALTERNATIONS: usize = 3;

fn derive(sizes: &[usize]) -> Value {
    let mut rows = Vec::new();
    for &links in sizes {
        for form in FORMS {
            let spec = spec(form, links);
            let seconds = timing::seconds_per_call(10.0, || {
                udk_symbolic::generate(&spec).map(|code| code.is_empty())
            });
            eprintln!("derive {form:?} n={links}: {seconds:.4} s");
            rows.push(json!({"form": form, "links": links, "seconds": seconds}));
        }
    }
    Value::Array(rows)
}

fn simulate(workload: &Workload, t_end: f64, tolerance: f64) -> Result<Value, Box<dyn Error>> {
    let mut rows = Vec::new();
    for chain in &workload.chains {
        for form in FORMS {
            let Some(model) = models::generated(chain, form) else {
                continue;
            };
            let (q, qd) = &chain.states_in(form)[0];
            let run = (0..timing::REPEATS)
                .map(|_| model.simulate(q, qd, t_end, tolerance))
                .collect::<Result<Vec<_>, _>>()?
                .into_iter()
                .min_by(|a, b| a.seconds.total_cmp(&b.seconds))
                .expect("at least one run");
            eprintln!("simulate {form:?} n={}: {run:?}", model.links());
            rows.push(json!({"form": model.form(), "links": model.links(), "evaluations": run.evaluations, "steps": run.steps, "seconds": run.seconds}));
        }
    }
    Ok(Value::Array(rows))
}

/// The `lib.rs` of a crate holding just one chain model, written with `#[lagrangian]`.
fn macro_source(form: Form, links: usize) -> String {
    let spec = spec(form, links);
    let join = |items: Vec<String>| items.join(", ");
    let coordinates = join(spec.coordinates.iter().map(|c| c.to_string()).collect());
    let lagrangian = spec
        .lagrangian
        .as_ref()
        .map(|l| l.to_string())
        .unwrap_or_default();
    let holonomic = match spec.holonomic.is_empty() {
        true => String::new(),
        false => format!(
            "    holonomic({}),\n",
            join(spec.holonomic.iter().map(|f| f.to_string()).collect())
        ),
    };
    let fields = join(
        spec.parameters
            .iter()
            .map(|p| format!("pub {}: f64", p.name))
            .collect(),
    );
    format!(
        "//! The {links}-link pendulum chain, {form:?} form.\n\n\
         /// The chain.\n#[udk::lagrangian(\n    coordinates({coordinates}),\n    lagrangian = {lagrangian},\n{holonomic})]\n\
         pub struct {name} {{ {fields} }}\n",
        name = spec.name
    )
}

/// Seconds to expand a URDF file into a spec and to generate its code, per robot, each given
/// as `NAME=PATH` (the path absolute or relative to the workspace root).
fn robot_derive(robots: &[&str]) -> Result<Value, Box<dyn Error>> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut rows = Vec::new();
    for robot in robots {
        let (name, path) = robot
            .split_once('=')
            .ok_or_else(|| format!("`{robot}` is not NAME=PATH"))?;
        let source = udk_symbolic::ModelSpec {
            name: "Robot".to_owned(),
            urdf: Some(serde_json::from_value(json!(path))?),
            ..udk_symbolic::ModelSpec::default()
        };
        let expand = || {
            let mut spec = source.clone();
            udk_symbolic::urdf::expand(&mut spec, &root).map(|_| spec)
        };
        let spec = expand().map_err(|e| format!("{name}: {e}"))?;
        let expand_seconds = timing::seconds_per_call(10.0, expand);
        let generate_seconds =
            timing::seconds_per_call(10.0, || udk_symbolic::generate(&spec).map(|c| c.is_empty()));
        eprintln!(
            "robot-derive {name}: expand {expand_seconds:.4} s, generate {generate_seconds:.4} s"
        );
        rows.push(json!({"name": name, "expand_seconds": expand_seconds, "generate_seconds": generate_seconds}));
    }
    Ok(Value::Array(rows))
}

fn read_workload(path: &str) -> Result<Workload, Box<dyn Error>> {
    Ok(serde_json::from_str(&std::fs::read_to_string(path)?)?)
}

fn form(text: &str) -> Result<Form, Box<dyn Error>> {
    Ok(serde_json::from_value(Value::String(text.to_owned()))?)
}

fn run(args: &[String]) -> Result<(), Box<dyn Error>> {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = match args.as_slice() {
        ["check", path] => check(&read_workload(path)?)?,
        ["accel", path] => accel(&read_workload(path)?)?,
        ["derive", sizes @ ..] => derive(
            &sizes
                .iter()
                .map(|s| s.parse())
                .collect::<Result<Vec<usize>, _>>()?,
        ),
        ["simulate", path, t_end, tolerance] => {
            simulate(&read_workload(path)?, t_end.parse()?, tolerance.parse()?)?
        }
        ["tree", sizes @ ..] => tree(
            &sizes
                .iter()
                .map(|s| s.parse())
                .collect::<Result<Vec<usize>, _>>()?,
        )?,
        #[cfg(feature = "floating")]
        ["floating", path] => {
            let robots: Vec<udk_bench::floating::FloatingWorkload> =
                serde_json::from_str(&std::fs::read_to_string(path)?)?;
            udk_bench::floating::floating(&robots)?
        }
        #[cfg(feature = "robots")]
        ["robots", path] => {
            udk_bench::robots::robots(&serde_json::from_str(&std::fs::read_to_string(path)?)?)?
        }
        ["robot-derive", names @ ..] => robot_derive(names)?,
        ["macro-source", f, links] => {
            print!("{}", macro_source(form(f)?, links.parse()?));
            return Ok(());
        }
        _ => return Err("usage: udk-bench check|accel WORKLOAD | derive N... | tree N... | simulate WORKLOAD T_END TOL | macro-source cartesian|minimal N | robots WORKLOAD | floating WORKLOAD | robot-derive NAME=PATH...".into()),
    };
    println!("{output}");
    Ok(())
}

/// Nanoseconds per acceleration of the generated tree chains of `sizes` links, by the
/// articulated-body path and by the dense kernel on the same model's M and Q, with their
/// largest relative difference over 32 states; and the states (relative angles and rates)
/// with the articulated-body path's q̈, for the peers (`bench/trees.py`).
fn tree(sizes: &[usize]) -> Result<Value, Box<dyn Error>> {
    let mut rows = Vec::new();
    for &links in sizes {
        let model = models::tree_chain(links).ok_or_else(|| {
            format!("the {links}-link tree chain was not generated (feature large?)")
        })?;
        let states = udk_bench::tree_chain::states(links, 32);
        let mut difference: f64 = 0.0;
        let mut accelerations = Vec::new();
        for (q, qd) in &states {
            let (a, b) = (model.factored(q, qd)?, model.dense(q, qd)?);
            let norm = |x: &[f64]| x.iter().map(|v| v * v).sum::<f64>().sqrt();
            let d: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x - y).collect();
            difference = difference.max(norm(&d) / norm(&b));
            accelerations.push(a);
        }
        let (factored, dense) = model.ns_per_call(&states);
        rows.push(json!({
            "links": links, "factored_ns": factored, "dense_ns": dense,
            "relative_difference": difference, "states": states, "accelerations": accelerations,
        }));
    }
    Ok(Value::Array(rows))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Err(e) = run(&args) {
        eprintln!("udk-bench: {e}");
        std::process::exit(1);
    }
}
