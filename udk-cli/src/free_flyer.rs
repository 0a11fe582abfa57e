//! `udk eval` and `udk simulate` on a robot on a floating base: a model file with
//! `urdf = { path = "..", floating_base = true }` ([`crate::model_file::ModelFile::is_free_flyer`]),
//! in Pinocchio's free-flyer layout (q = [x, y, z, qx, qy, qz, qw, joints…], v = [base velocity
//! and angular velocity in the base frame, joint rates…], τ the n joint efforts). The model is
//! `udk::model::FreeFlyerModel`, the same derivation as `#[lagrangian(urdf = "..",
//! floating_base = true)]`, evaluated by its tapes (`--interpret` changes nothing).

use crate::args::{EvalArgs, SimulateArgs};
use crate::failure::Failure;
use crate::model_file::ModelFile;
use serde::Serialize;
use std::io::Write;
use std::time::Instant;
use udk::model::{FreeFlyerModel, FreeFlyerModelError, ModelError, Motion};
use udk_runtime::simulate::{PlotOptions, Recording, SimulationOptions, Summary};

/// A link point at one state: where it is and how it moves
/// (`udk_runtime::free_flyer::PointMotion`).
#[derive(Debug, Clone, Serialize)]
pub struct PointReport {
    /// The point's name (the output's).
    pub name: String,
    /// Its position in the world frame, m.
    pub position: Vec<f64>,
    /// Its Jacobian J with respect to v, 3 × NV rows (ṗ = J v), world frame.
    pub jacobian: Vec<Vec<f64>>,
    /// J̇ v, m/s² (p̈ = J v̇ + J̇ v).
    pub bias: Vec<f64>,
}

/// The dynamics of a robot on a floating base at one state.
#[derive(Debug, Clone, Serialize)]
pub struct FreeFlyerReport {
    /// Time t (s).
    pub t: f64,
    /// q, NQ = 7 + n: base position (m), base quaternion (qx, qy, qz, qw), joints.
    pub q: Vec<f64>,
    /// v, NV = 6 + n: base velocity and angular velocity in the base frame, joint rates.
    pub v: Vec<f64>,
    /// The joint efforts τ, n.
    pub tau: Vec<f64>,
    /// The names of the entries of q.
    pub coordinate_names: Vec<String>,
    /// The names of the entries of v.
    pub velocity_names: Vec<String>,
    /// v̇ = M⁻¹(S τ − h), NV (Pinocchio's `aba`).
    pub acceleration: Vec<f64>,
    /// M(q), NV × NV (Pinocchio's `crba`, mirrored).
    pub mass_matrix: Vec<Vec<f64>>,
    /// h(q, v) = the inverse dynamics at v̇ = 0, NV: Coriolis, centrifugal and gravity terms
    /// (Pinocchio's `rnea` at zero acceleration).
    pub bias_force: Vec<f64>,
    /// The link points (the model's outputs), in order; absent when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub points: Vec<PointReport>,
}

/// The floating-base model of `file`.
///
/// # Errors
/// [`Failure::BadInput`] with the reader's messages (a key a floating-base model does not
/// take, a URDF that cannot be read or already has a floating joint, an unknown link).
pub fn load(file: &ModelFile) -> Result<FreeFlyerModel, Failure> {
    let base = file.path.parent().unwrap_or(std::path::Path::new(""));
    FreeFlyerModel::from_spec(&file.spec, base).map_err(|e| match e {
        ModelError::Derivation { messages, .. } => Failure::BadInput(
            (messages.lines())
                .map(|m| format!("{}: {m}", file.name()))
                .collect(),
        ),
        other => Failure::bad_input(format!("{}: {other}", file.name())),
    })
}

/// `udk eval` on the floating-base model `file`: the report at the state of `--q`, `--qd`
/// (v), `--u` (τ, zeros when not given) and `--t`, or at the file's initial state, written to
/// `out` as JSON.
///
/// # Errors
/// [`Failure::BadInput`] for options a floating-base model does not take (`--states`,
/// `--set`, `--p`, the servo law), no state, a wrong length, a zero or non-finite quaternion or
/// entry; [`Failure::Motion`] where M is singular; [`Failure::Output`] when `out` cannot be
/// written.
pub fn eval(file: &ModelFile, args: &EvalArgs, out: &mut dyn Write) -> Result<(), Failure> {
    let name = file.name();
    let servo = &args.servo;
    let unsupported = [
        ("--states", args.states.is_some()),
        ("--set", !args.set.is_empty()),
        ("--p", !args.state.p.is_empty()),
        (
            "--servo-*",
            servo.servo_gain.is_some()
                || servo.servo_stiffness.is_some()
                || servo.servo_damping.is_some(),
        ),
    ];
    refuse_options(&name, &unsupported)?;
    let model = load(file)?;
    let (t, q, v) = if args.state.q.is_empty() {
        let Some(initial) = &file.spec.initial else {
            return Err(Failure::bad_input(format!(
                "{name}: no state to evaluate: give --q and --qd, or an [initial] table in the file"
            )));
        };
        let t = args.state.t.unwrap_or(initial.t0);
        (t, initial.q0.clone(), initial.qd0.clone())
    } else {
        let t = args.state.t.unwrap_or(0.0);
        (t, args.state.q.clone(), args.state.qd.clone())
    };
    let tau = match args.state.u.is_empty() {
        true => vec![0.0; model.nv() - 6],
        false => args.state.u.clone(),
    };
    check_lengths(&model, &name, &q, &v, &tau)?;
    let refused = |e: FreeFlyerModelError| match e {
        FreeFlyerModelError::State(udk_runtime::free_flyer::FreeFlyerError::NotDetermined) => {
            Failure::Motion(format!("{name}: {e}"))
        }
        e => Failure::bad_input(format!("{name}: {e}")),
    };
    let nv = model.nv();
    let acceleration = model.acceleration(&q, &v, &tau).map_err(refused)?;
    let mass = model.mass_matrix(&q).map_err(refused)?;
    let bias_force = (model.inverse_dynamics(&q, &v, &vec![0.0; nv])).map_err(refused)?;
    let points = model.points(&q, &v).map_err(refused)?;
    let size = 6 + 3 * nv;
    let report = FreeFlyerReport {
        t,
        coordinate_names: model.coordinate_names().to_vec(),
        velocity_names: model.velocity_names().to_vec(),
        acceleration,
        mass_matrix: mass.chunks(nv).map(<[f64]>::to_vec).collect(),
        bias_force,
        points: (model.point_names().iter().zip(points.chunks(size)))
            .map(|(name, p)| PointReport {
                name: name.clone(),
                position: p[..3].to_vec(),
                jacobian: p[3..3 + 3 * nv].chunks(nv).map(<[f64]>::to_vec).collect(),
                bias: p[3 + 3 * nv..].to_vec(),
            })
            .collect(),
        q,
        v,
        tau,
    };
    let write = |e: std::io::Error| Failure::Output(format!("cannot write the report: {e}"));
    serde_json::to_writer_pretty(&mut *out, &report)
        .map_err(|e| Failure::Output(format!("cannot write the report: {e}")))?;
    out.write_all(b"\n").map_err(write)
}

/// `udk simulate` on the floating-base model `file` from its `[initial]` table (q0: NQ
/// entries, qd0: v₀, NV entries) under the joint efforts `--u` (n entries held; zeros when not
/// given), by `udk::model::FreeFlyerModel::simulate` (with the file's `[joint_pd]` law and
/// ground `[[contacts]]`): the base quaternion is divided by its norm at every output time, and
/// a start whose quaternion is off unit norm by more than `--constraint-tol` is refused (not
/// normalized). The CSV (`--out`, written at the end of the run from the returned
/// `udk::model::Motion`) names its columns `base_x … base_qw`, the joints,
/// `base_vx … base_wz`, `<joint>_dot`, the residuals, the energy, the link points' positions
/// (`FL.x`, …) and the contact forces (`FL.normal`, `FL.tangent`, `FL.lateral`, …, N).
/// Returns the summary table, followed by the event log of the contacts.
///
/// # Errors
/// [`Failure::BadInput`] for options a floating-base model does not take (`--assemble`,
/// `--events`, `--set`, the servo law), a missing or wrong-length initial state, a start off
/// unit quaternion norm, more joints than `FreeFlyerModel::simulate` takes
/// ([`udk::model::MAX_SIMULATED_COORDINATES`]); [`Failure::Motion`] when the run stops (the
/// motion up to then is written); [`Failure::Output`] when the CSV or SVG cannot be written.
pub fn simulate(
    file: &ModelFile,
    args: &SimulateArgs,
    options: SimulationOptions,
) -> Result<String, Failure> {
    let name = file.name();
    let servo = &args.servo;
    let unsupported = [
        ("--assemble", args.assemble),
        ("--events", args.events.is_some()),
        ("--set", !args.set.is_empty()),
        (
            "--servo-*",
            servo.servo_gain.is_some()
                || servo.servo_stiffness.is_some()
                || servo.servo_damping.is_some(),
        ),
    ];
    refuse_options(&name, &unsupported)?;
    let model = load(file)?;
    let Some(initial) = file.spec.initial.clone() else {
        return Err(Failure::bad_input(format!(
            "{name}: no initial state: add an [initial] table with q0 (7 + n entries) and qd0 \
             (v0, 6 + n entries)"
        )));
    };
    let tau = match args.u.is_empty() {
        true => vec![0.0; model.nv() - 6],
        false => args.u.clone(),
    };
    check_lengths(&model, &name, &initial.q0, &initial.qd0, &tau)?;
    let span = (initial.t0, args.t_end);
    let start = Instant::now();
    let result = model.simulate(&initial.q0, &initial.qd0, &tau, span, &options);
    let wall = start.elapsed();
    // Without contacts, efforts or a PD law on the joints the energy is conserved.
    let energy_conserved =
        tau.iter().all(|&t| t == 0.0) && model.contact_names().is_empty() && !model.has_joint_pd();
    let write = |motion: &Motion| -> Result<(), Failure> {
        if let Some(path) = &args.out {
            (motion.write_csv(path)).map_err(|e| crate::simulate::output(path, &e))?;
        }
        if let Some(path) = &args.plot {
            let columns: Vec<&str> = args.plot_columns.iter().map(String::as_str).collect();
            let plot = PlotOptions {
                columns: &columns,
                energy_conserved,
                ..PlotOptions::new(model.name(), &[])
            };
            (motion.plot_svg(path, &plot)).map_err(|e| crate::simulate::output(path, &e))?;
        }
        Ok(())
    };
    let motion = match result {
        Ok(motion) => motion,
        // The run stopped: the motion up to then is written.
        Err(ModelError::Simulation {
            message,
            time: Some(_),
            motion,
        }) => {
            if let Some(motion) = motion {
                write(&motion)?;
            }
            return Err(Failure::Motion(format!(
                "{name}: {message}{}",
                match args.out {
                    Some(_) => "; the trajectory up to then is written",
                    None => "",
                }
            )));
        }
        // The run did not start: a refused start or options, too many joints.
        Err(error) => return Err(Failure::bad_input(format!("{name}: {error}"))),
    };
    write(&motion)?;
    let summary = Summary {
        energy_conserved,
        ..Summary::new(model.name(), options.method, &motion, wall)
    };
    let log = crate::hybrid::log(&motion.events, 20);
    Ok(format!("{}\n{summary}\n{log}", Summary::header()))
}

/// Refuses each option of `options` that is given, naming it.
fn refuse_options(name: &str, options: &[(&str, bool)]) -> Result<(), Failure> {
    let given: Vec<String> = (options.iter().filter(|o| o.1))
        .map(|o| format!("{name}: {} is not taken by a robot on a floating base", o.0))
        .collect();
    match given.is_empty() {
        true => Ok(()),
        false => Err(Failure::BadInput(given)),
    }
}

/// Checks that q, v and τ have NQ, NV and n entries.
fn check_lengths(
    model: &FreeFlyerModel,
    name: &str,
    q: &[f64],
    v: &[f64],
    tau: &[f64],
) -> Result<(), Failure> {
    let n = model.nv() - 6;
    let problems: Vec<String> = [
        (
            "q",
            q.len(),
            model.nq(),
            "7 + n: base position, quaternion, joints",
        ),
        (
            "v (--qd, initial.qd0)",
            v.len(),
            model.nv(),
            "6 + n: base twist, joint rates",
        ),
        ("τ (--u)", tau.len(), n, "the joint efforts"),
    ]
    .iter()
    .filter(|(_, given, expected, _)| given != expected)
    .map(|(what, given, expected, meaning)| {
        format!(
            "{name}: {what} has {given} entries, but the robot on a floating base (n = {n} \
             joints) takes {expected} ({meaning})"
        )
    })
    .collect();
    match problems.is_empty() {
        true => Ok(()),
        false => Err(Failure::BadInput(problems)),
    }
}
