//! `udk eval`: the equations of motion of a model at one state or many, as JSON.

use crate::args::{EvalArgs, StateOptions};
use crate::failure::Failure;
use crate::model::{Backend, Evaluator, HamiltonianEvaluator, LagrangianEvaluator, Model};
use nalgebra::{DMatrix, DVector};
use serde::de::{Deserializer as _, Error as _, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use std::io::{BufRead, BufReader, Write};
use udk_runtime::servo::ServoLaw;
use udk_runtime::Options;

/// One state of `--states`: t (default 0), q, and q̇ (Lagrangian) or p (Hamiltonian), and the
/// inputs u of a model with inputs.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct State {
    /// Time t (s).
    #[serde(default)]
    pub t: f64,
    /// Generalized coordinates, n entries.
    pub q: Vec<f64>,
    /// Generalized velocities, n entries (Lagrangian models).
    #[serde(default)]
    pub qd: Option<Vec<f64>>,
    /// Generalized momenta, n entries (Hamiltonian models).
    #[serde(default)]
    pub p: Option<Vec<f64>>,
    /// Inputs u, k entries (models with inputs; for a model with `servo` constraints, the
    /// controller's inputs when absent).
    #[serde(default)]
    pub u: Option<Vec<f64>>,
}

/// The equations of motion of a Lagrangian model at one state (Udwadia & Kalaba 1993;
/// Udwadia & Phohomsiri 2006, eq 2.14). Matrices are lists of rows.
#[derive(Debug, Clone, Serialize)]
pub struct LagrangianReport {
    /// Time t (s).
    pub t: f64,
    /// q, n.
    pub q: Vec<f64>,
    /// q̇, n.
    pub qd: Vec<f64>,
    /// The inputs u, k (absent for a model without inputs).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub u: Vec<f64>,
    /// The constrained acceleration q̈, n.
    pub acceleration: Vec<f64>,
    /// The constraint force Qᶜ = M q̈ − Q, n.
    pub constraint_force: Vec<f64>,
    /// The multipliers λ of Qᶜ − C = Aᵀλ by row name (`holonomic[i]`, `nonholonomic[i]`), m
    /// entries, the minimum-norm λ when rows are redundant
    /// ([`udk_runtime::constraint_multipliers_dyn`]); absent when m = 0.
    #[serde(skip_serializing_if = "Outputs::is_empty")]
    pub constraint_multipliers: Outputs,
    /// M, n × n.
    pub mass_matrix: Vec<Vec<f64>>,
    /// Q, n.
    pub generalized_force: Vec<f64>,
    /// A, m × n.
    pub constraint_matrix: Vec<Vec<f64>>,
    /// b, m.
    pub constraint_rhs: Vec<f64>,
    /// C, n (zeros for ideal constraints).
    pub nonideal_force: Vec<f64>,
    /// The Jacobi integral h.
    pub energy: f64,
    /// f(q, t) (one per holonomic constraint) and the m constraints at velocity level.
    pub residuals: Residuals,
    /// The model's outputs (absent when it has none).
    #[serde(skip_serializing_if = "Outputs::is_empty")]
    pub outputs: Outputs,
    /// Ranks of M, A and [M; A]; the acceleration is unique iff rank [M; A] = n.
    pub rank: LagrangianRank,
    /// The servo controller at the state, for a model with `servo` constraints (absent
    /// otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub servo: Option<ServoReport>,
}

/// The servo controller of a model with `servo` constraints at one state, under the law of
/// the servo flags (`udk_runtime::servo::control_dyn`; review paper, section 8.3). The
/// inputs `u` of the state, when given, play no part in it.
#[derive(Debug, Clone, Serialize)]
pub struct ServoReport {
    /// The controller's inputs u, k.
    pub input: Vec<f64>,
    /// q̈ under those inputs and the physical constraints, n.
    pub acceleration: Vec<f64>,
    /// The servo part of the constraint force with the convergence term, Qᶜ_s, n: the
    /// generalized force the inputs should supply.
    pub servo_force: Vec<f64>,
    /// The part of Qᶜ_s the inputs cannot supply, n (zeros when the task is realizable).
    pub unrealized_force: Vec<f64>,
    /// A q̈(u) − b* in every row, physical then servo, m + s: the task acceleration the inputs
    /// miss in the servo rows.
    pub task_residual: Vec<f64>,
    /// The servo constraints: e(q, t) (one per holonomic one) and, all s rows at velocity
    /// level, ė or φ_s (the error β of eq 72).
    pub residuals: Residuals,
}

/// Named values at a state, in the model's order (its outputs, its multipliers): a JSON object
/// of numbers (scalars) and arrays of 3 (vector outputs).
#[derive(Debug, Clone, Default)]
pub struct Outputs(pub Vec<(String, Vec<f64>)>);

impl Outputs {
    /// The outputs of `model` from their concatenated components `values`.
    fn of(model: &Model, values: &[f64]) -> Self {
        let mut rest = values;
        Outputs(
            (model.derivation.outputs.iter())
                .map(|o| {
                    let (value, tail) = rest.split_at(o.value.components().len());
                    rest = tail;
                    (o.name.clone(), value.to_vec())
                })
                .collect(),
        )
    }

    /// Scalars `values` named by `names`.
    fn scalars(names: Vec<String>, values: &[f64]) -> Self {
        Outputs(
            names
                .into_iter()
                .zip(values)
                .map(|(n, x)| (n, vec![*x]))
                .collect(),
        )
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Serialize for Outputs {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, value) in &self.0 {
            match value.as_slice() {
                [scalar] => map.serialize_entry(name, scalar)?,
                vector => map.serialize_entry(name, vector)?,
            }
        }
        map.end()
    }
}

/// Constraint residuals at a state: zero on the constraint manifold.
#[derive(Debug, Clone, Serialize)]
pub struct Residuals {
    /// The holonomic constraints f(q, t).
    pub holonomic: Vec<f64>,
    /// Lagrangian models: ḟ then φ(q, q̇, t), m entries; Hamiltonian models: φ(q, p, t).
    pub velocity: Vec<f64>,
}

/// Rank information of a Lagrangian model at a state (Udwadia & Phohomsiri 2006, Result 3).
#[derive(Debug, Clone, Serialize)]
pub struct LagrangianRank {
    /// n.
    pub n: usize,
    /// m.
    pub m: usize,
    /// rank M.
    pub mass_matrix: usize,
    /// rank A.
    pub constraint_matrix: usize,
    /// rank [M; A].
    pub mass_and_constraint_matrix: usize,
}

/// The constrained Hamilton equations at one state (Udwadia 2016, eqs 35–36).
#[derive(Debug, Clone, Serialize)]
pub struct HamiltonianReport {
    /// Time t (s).
    pub t: f64,
    /// q, n.
    pub q: Vec<f64>,
    /// p, n.
    pub p: Vec<f64>,
    /// q̇ = H_p, n.
    pub qd: Vec<f64>,
    /// ṗ = −H_q + Fᶜ, n.
    pub momentum_rate: Vec<f64>,
    /// The constraint force on ṗ, Fᶜ, n.
    pub constraint_force: Vec<f64>,
    /// H_p, n.
    pub h_p: Vec<f64>,
    /// H_q, n.
    pub h_q: Vec<f64>,
    /// H_pp, n × n.
    pub h_pp: Vec<Vec<f64>>,
    /// A_p, m × n.
    pub a_p: Vec<Vec<f64>>,
    /// b_p, m.
    pub b_p: Vec<f64>,
    /// H(q, p, t).
    pub hamiltonian: f64,
    /// f(q, t) and φ(q, p, t).
    pub residuals: Residuals,
    /// The model's outputs (absent when it has none).
    #[serde(skip_serializing_if = "Outputs::is_empty")]
    pub outputs: Outputs,
    /// Ranks of H_pp and A_p.
    pub rank: HamiltonianRank,
}

/// Rank information of a Hamiltonian model at a state.
#[derive(Debug, Clone, Serialize)]
pub struct HamiltonianRank {
    /// n.
    pub n: usize,
    /// m.
    pub m: usize,
    /// rank H_pp (n for a regular H).
    pub h_pp: usize,
    /// rank A_p (< m for redundant constraints).
    pub a_p: usize,
}

/// A report of either kind.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Report {
    /// Of a Lagrangian model.
    Lagrangian(Box<LagrangianReport>),
    /// Of a Hamiltonian model.
    Hamiltonian(Box<HamiltonianReport>),
}

/// Runs `udk eval` on the model compiled for `backend`, writing its JSON to `out`: one
/// pretty-printed report for one state; for `--states`, a JSON array of reports (or, for a
/// `.jsonl` file, one report a line), each written as soon as its state is read, so that memory
/// stays flat whatever the count; for `--states -`, one state a line read from standard input
/// and one report a line, `out` flushed after each (a pipe to another program). A robot on a
/// floating base goes to [`crate::free_flyer::eval`].
///
/// # Errors
/// [`Failure::BadInput`] for a bad model, states file, vector length or `--set`;
/// [`Failure::Motion`] when the acceleration at a state is not unique or the constraints are
/// inconsistent (naming the state); [`Failure::Output`] when `out` cannot be written. The
/// reports of the states before a failing one are already written.
pub fn run(args: &EvalArgs, backend: Backend, out: &mut dyn Write) -> Result<(), Failure> {
    let file = crate::model_file::ModelFile::load(&args.model)?;
    if file.is_free_flyer() {
        return crate::free_flyer::eval(&file, args, out);
    }
    let model = Model::derive(file)?;
    let params = model.parameter_values(&args.set)?;
    let mut evaluator = model.evaluator(params, Vec::new(), backend)?;
    let law = crate::servo::law(&model, &args.servo)?;
    let Some(path) = &args.states else {
        let state = command_line_state(&model, &args.state)?;
        let report = evaluate_with_servo(&model, &mut evaluator, &state, "", law)?;
        serde_json::to_writer_pretty(&mut *out, &report).map_err(write_error)?;
        return out.write_all(b"\n").map_err(write_error);
    };
    let standard_input = path.as_os_str() == "-";
    let (name, mut reader): (String, Box<dyn BufRead>) = if standard_input {
        ("standard input".into(), Box::new(std::io::stdin().lock()))
    } else {
        let name = path.display().to_string();
        let file = std::fs::File::open(path)
            .map_err(|e| Failure::bad_input(format!("{name}: cannot read: {e}")))?;
        (name, Box::new(BufReader::new(file)))
    };
    let lines = standard_input || path.extension().is_some_and(|e| e == "jsonl");
    if !lines {
        out.write_all(b"[").map_err(write_error)?;
    }
    let mut count = 0;
    let mut each = |state: State, separator: &[u8]| {
        let context = format!("{name}: state {count}: ");
        let report = evaluate_with_servo(&model, &mut evaluator, &state, &context, law)?;
        out.write_all(if count == 0 { b"" } else { separator })
            .map_err(write_error)?;
        serde_json::to_writer(&mut *out, &report).map_err(write_error)?;
        if lines {
            out.write_all(b"\n").map_err(write_error)?;
        }
        if standard_input {
            out.flush().map_err(write_error)?;
        }
        count += 1;
        Ok(())
    };
    if lines {
        let mut line = String::new();
        for number in 1.. {
            line.clear();
            let read = reader.read_line(&mut line);
            match read
                .map_err(|e| Failure::bad_input(format!("{name}:{number}: cannot read: {e}")))?
            {
                0 => break,
                _ if line.trim().is_empty() => continue,
                _ => {}
            }
            let state = serde_json::from_str(&line).map_err(|e| located(&name, e, |_| number))?;
            each(state, b"")?;
        }
        Ok(())
    } else {
        let mut failure = None;
        let mut deserializer = serde_json::Deserializer::from_reader(&mut reader);
        let visited = deserializer
            .deserialize_seq(EachState(&mut |state| {
                each(state, b",").map_err(|f| failure = Some(f))
            }))
            .and_then(|()| deserializer.end());
        if let Some(failure) = failure {
            return Err(failure);
        }
        visited.map_err(|e| located(&name, e, serde_json::Error::line))?;
        out.write_all(b"]\n")
    }
    .map_err(write_error)
}

/// A serde_json error in the states file `name`, as `name:line:column: message`; `line` gives
/// the line number (from the error, or the line being read).
fn located(
    name: &str,
    e: serde_json::Error,
    line: impl Fn(&serde_json::Error) -> usize,
) -> Failure {
    let message = e.to_string();
    let message = message
        .rfind(" at line ")
        .map_or(&message[..], |i| &message[..i]);
    Failure::bad_input(format!("{name}:{}:{}: {message}", line(&e), e.column()))
}

/// A failure to write the output.
fn write_error(e: impl std::fmt::Display) -> Failure {
    Failure::Output(format!("cannot write JSON: {e}"))
}

/// A serde visitor that hands each state of a JSON array to a closure as soon as it is read,
/// keeping none: the array is streamed. The closure's `Err(())` stops the reading.
struct EachState<'a, F>(&'a mut F);

impl<'de, F: FnMut(State) -> Result<(), ()>> Visitor<'de> for EachState<'_, F> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON array of states")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(state) = seq.next_element::<State>()? {
            (self.0)(state).map_err(|()| A::Error::custom("stopped at a failed state"))?;
        }
        Ok(())
    }
}

/// The state of `--q`, `--qd`/`--p` and `--t`, or the file's initial state when `--q` is not
/// given.
pub(crate) fn command_line_state(model: &Model, args: &StateOptions) -> Result<State, Failure> {
    if args.q.is_empty() {
        let Some(initial) = &model.file.spec.initial else {
            return Err(Failure::bad_input(format!(
                "{}: no state to evaluate: give --q and --{} (or --states), or an [initial] table in the file",
                model.file.name(),
                if model.is_hamiltonian() { "p" } else { "qd" }
            )));
        };
        return Ok(State {
            t: args.t.unwrap_or(initial.t0),
            q: initial.q0.clone(),
            qd: some(&initial.qd0),
            p: some(&initial.p0),
            u: some(&args.u),
        });
    }
    Ok(State {
        t: args.t.unwrap_or(0.0),
        q: args.q.clone(),
        qd: some(&args.qd),
        p: some(&args.p),
        u: some(&args.u),
    })
}

/// `Some(v)` unless `v` is empty.
fn some(v: &[f64]) -> Option<Vec<f64>> {
    (!v.is_empty()).then(|| v.to_vec())
}

/// The report at `state`, after checking its vector lengths; `context` prefixes messages.
///
/// # Errors
/// [`Failure::BadInput`] for wrong lengths or a missing q̇/p; [`Failure::Motion`] when the
/// kernels find no trustworthy motion.
pub fn evaluate(
    model: &Model,
    evaluator: &mut Evaluator,
    state: &State,
    context: &str,
) -> Result<Report, Failure> {
    evaluate_with_servo(model, evaluator, state, context, None)
}

/// [`evaluate`], and for a Lagrangian model with `servo` constraints and a `law`, the servo
/// controller at the state ([`LagrangianReport::servo`]); a state without `u` is then
/// evaluated at the controller's inputs (the closed loop), one with `u` at its own.
///
/// # Errors
/// As [`evaluate`]; [`Failure::Motion`] when the controller fails (a singular M).
pub fn evaluate_with_servo(
    model: &Model,
    evaluator: &mut Evaluator,
    state: &State,
    context: &str,
    law: Option<ServoLaw>,
) -> Result<Report, Failure> {
    // A servo model's state without `u` takes the controller's inputs.
    let driven = law.is_some() && state.u.is_none();
    let with_inputs;
    let checked_state = if driven {
        with_inputs = State {
            u: Some(vec![0.0; model.derivation.inputs.len()]),
            ..state.clone()
        };
        &with_inputs
    } else {
        state
    };
    let (v, mut u) = checked(model, checked_state, context)?;
    // A non-unique acceleration names its free coordinates.
    let motion = |e: udk_runtime::Error| {
        let named = e.with_coordinate_names(&model.derivation.coordinate_names);
        motion(model, state, context, named)
    };
    Ok(match evaluator {
        Evaluator::Lagrangian(l) => {
            let failed = |e: udk::ModelError| match e {
                udk::ModelError::Runtime(e) => motion(e),
                other => Failure::bad_input(format!("{}: {other}", model.file.name())),
            };
            let servo = (law.map(|law| servo(l.model(), &state.q, v, state.t, law)))
                .transpose()
                .map_err(failed)?;
            if let (Some(servo), true) = (&servo, driven) {
                u.clone_from(&servo.input);
            }
            l.set_inputs(&u);
            let (mut report, multipliers) =
                lagrangian(l, &state.q, v, &u, state.t).map_err(motion)?;
            report.outputs = Outputs::of(model, l.outputs(&state.q, v, state.t));
            report.servo = servo;
            let names = model.derivation.constraint_names();
            report.constraint_multipliers = Outputs::scalars(names, multipliers.as_slice());
            Report::Lagrangian(Box::new(report))
        }
        Evaluator::Hamiltonian(h) => {
            let mut report = hamiltonian(h, &state.q, v, state.t).map_err(motion)?;
            report.outputs = Outputs::of(model, h.outputs(&state.q, v, state.t));
            Report::Hamiltonian(Box::new(report))
        }
    })
}

/// A kernel error at `state` as a [`Failure::Motion`] naming the file and the state.
pub(crate) fn motion(
    model: &Model,
    state: &State,
    context: &str,
    e: udk_runtime::Error,
) -> Failure {
    let at = if context.is_empty() {
        format!("at t = {}", state.t)
    } else {
        format!("{context}t = {}", state.t)
    };
    Failure::Motion(format!("{}: {at}: {e}", model.file.name()))
}

/// The velocities q̇ (or momenta p) of `state` and its inputs u, after checking every length
/// against the model; `context` prefixes messages.
///
/// # Errors
/// [`Failure::BadInput`] for wrong lengths or a missing or misplaced q̇/p.
pub(crate) fn checked<'s>(
    model: &Model,
    state: &'s State,
    context: &str,
) -> Result<(&'s [f64], Vec<f64>), Failure> {
    model.check_length(context, "q", &state.q)?;
    let (wanted, other) = if model.is_hamiltonian() {
        (&state.p, ("p", "qd"))
    } else {
        (&state.qd, ("qd", "p"))
    };
    let present = [&state.qd, &state.p].iter().any(|v| v.is_some());
    let Some(v) = wanted else {
        let why = if present {
            format!(
                "`{}` is for {} models",
                other.1,
                if model.is_hamiltonian() {
                    "Lagrangian"
                } else {
                    "Hamiltonian"
                }
            )
        } else {
            "it is missing".to_owned()
        };
        return Err(Failure::bad_input(format!(
            "{context}`{}` must give the {} ({why})",
            other.0,
            if model.is_hamiltonian() {
                "momenta p"
            } else {
                "velocities qd"
            }
        )));
    };
    model.check_length(context, other.0, v)?;
    let u = model.input_values(context, state.u.as_deref())?;
    Ok((v, u))
}

fn lagrangian(
    e: &mut LagrangianEvaluator,
    q: &[f64],
    qd: &[f64],
    u: &[f64],
    t: f64,
) -> Result<(LagrangianReport, DVector<f64>), udk_runtime::Error> {
    let m = e.m();
    let (energy, holonomic, velocity) = e.residuals(q, qd, t);
    let terms = e.terms(q, qd, t);
    let options = Options::default();
    let (acceleration, constraint_force) =
        udk_runtime::acceleration_and_constraint_force_dyn(terms.view(), &options)?;
    let multipliers = udk_runtime::constraint_multipliers_dyn(terms.view(), &options)?;
    let n = q.len();
    let rank = LagrangianRank {
        n,
        m,
        mass_matrix: udk_runtime::rank(&terms.mass_matrix, None)?,
        constraint_matrix: udk_runtime::rank(&terms.constraint_matrix, None)?,
        mass_and_constraint_matrix: udk_runtime::mass_constraint_rank_dyn(
            &terms.mass_matrix,
            &terms.constraint_matrix,
            &options,
        )?,
    };
    let report = LagrangianReport {
        t,
        q: q.to_vec(),
        qd: qd.to_vec(),
        u: u.to_vec(),
        acceleration: acceleration.as_slice().to_vec(),
        constraint_force: constraint_force.as_slice().to_vec(),
        mass_matrix: rows(&terms.mass_matrix),
        generalized_force: vector(&terms.generalized_force),
        constraint_matrix: rows(&terms.constraint_matrix),
        constraint_rhs: vector(&terms.constraint_rhs),
        nonideal_force: terms
            .nonideal_force
            .as_ref()
            .map_or_else(|| vec![0.0; n], vector),
        energy,
        residuals: Residuals {
            holonomic,
            velocity,
        },
        outputs: Outputs::default(),
        constraint_multipliers: Outputs::default(),
        rank,
        servo: None,
    };
    Ok((report, multipliers))
}

/// The servo controller of `model` at (q, q̇, t) under `law`.
fn servo(
    model: &udk::Model,
    q: &[f64],
    qd: &[f64],
    t: f64,
    law: ServoLaw,
) -> Result<ServoReport, udk::ModelError> {
    let (q, qd) = (
        DVector::from_column_slice(q),
        DVector::from_column_slice(qd),
    );
    let terms = model.servo_terms(&q, &qd, t)?;
    let control = model.control(&q, &qd, t, law)?;
    let (m, r) = (model.m(), terms.constraint_rhs.len());
    let holonomic = m + model.num_servo_holonomic();
    Ok(ServoReport {
        input: vector(&control.input),
        acceleration: vector(&control.acceleration),
        servo_force: vector(&control.servo_force),
        unrealized_force: vector(&control.unrealized_force),
        task_residual: vector(&control.task_residual),
        residuals: Residuals {
            holonomic: terms.position_residual.as_slice()[m..holonomic].to_vec(),
            velocity: terms.velocity_residual.as_slice()[m..r].to_vec(),
        },
    })
}

fn hamiltonian(
    e: &mut HamiltonianEvaluator,
    q: &[f64],
    p: &[f64],
    t: f64,
) -> Result<HamiltonianReport, udk_runtime::Error> {
    let m = e.m();
    let (hamiltonian, holonomic, velocity) = e.residuals(q, p, t);
    let terms = e.terms(q, p, t);
    let (momentum_rate, constraint_force) =
        udk_runtime::hamiltonian::momentum_rate_and_constraint_force_dyn(
            &terms.h_q,
            &terms.h_pp,
            &terms.a_p,
            &terms.b_p,
            &Options::default(),
        )?;
    Ok(HamiltonianReport {
        t,
        q: q.to_vec(),
        p: p.to_vec(),
        qd: vector(&terms.h_p),
        momentum_rate: vector(&momentum_rate),
        constraint_force: vector(&constraint_force),
        h_p: vector(&terms.h_p),
        h_q: vector(&terms.h_q),
        h_pp: rows(&terms.h_pp),
        a_p: rows(&terms.a_p),
        b_p: vector(&terms.b_p),
        hamiltonian,
        residuals: Residuals {
            holonomic,
            velocity,
        },
        outputs: Outputs::default(),
        rank: HamiltonianRank {
            n: q.len(),
            m,
            h_pp: udk_runtime::rank(&terms.h_pp, None)?,
            a_p: udk_runtime::rank(&terms.a_p, None)?,
        },
    })
}

pub(crate) fn vector(v: &DVector<f64>) -> Vec<f64> {
    v.as_slice().to_vec()
}

/// The rows of `m`, each as a list.
pub(crate) fn rows(m: &DMatrix<f64>) -> Vec<Vec<f64>> {
    m.row_iter().map(|r| r.iter().copied().collect()).collect()
}
