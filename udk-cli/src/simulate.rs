//! `udk simulate`: the model compiled at run time (by the JIT, or the tape with `--interpret`)
//! handed to the udk-runtime simulator (`simulate_dynamic_lagrangian` /
//! `simulate_dynamic_hamiltonian`), with no rustc.

use crate::args::{Method, SimulateArgs};
use crate::failure::Failure;
use crate::hybrid::{self, Events};
use crate::model::{Backend, Evaluator, Model, ModelEvaluator, Terms};
use indicatif::{HumanDuration, ProgressBar, ProgressStyle};
use nalgebra::{DMatrix, DVector, SVector};
use std::cell::RefCell;
use std::io::IsTerminal;
use std::ops::ControlFlow;
use std::time::{Duration, Instant};
use udk_runtime::jacobian::AccelerationJacobianDyn;
use udk_runtime::servo::ServoLaw;
use udk_runtime::simulate::{
    consistent_dynamic_hamiltonian_state, consistent_dynamic_lagrangian_state,
    simulate_dynamic_hamiltonian, simulate_dynamic_lagrangian, state_columns, ConstraintLevel,
    CsvWriter, DynamicHamiltonianSystem, DynamicHamiltonianTerms, DynamicLagrangianSystem,
    DynamicLagrangianTerms, OutputError, OutputTable, OutputTimes, PlotOptions, Sample,
    SimulationError, SimulationOptions, StateKind, Summary, Trajectory, Violation,
};
use udk_runtime::{Assembly, AssemblyOptions};

/// The largest n `udk simulate` handles: the simulator's state has a compile-time size, so the
/// command is built for each n up to this.
pub const MAX_COORDINATES: usize = 24;

/// Runs `udk simulate` and returns the summary table (after the assembled initial state, with
/// `--assemble`). A robot on a floating base goes to [`crate::free_flyer::simulate`].
///
/// # Errors
/// [`Failure::BadInput`] for a bad model, a missing, non-finite or wrong-length initial state,
/// an initial state that violates a constraint by more than `--constraint-tol` (each violation
/// named), bad options (too many output times included), or n above [`MAX_COORDINATES`];
/// [`Failure::Motion`] when the run stops (non-unique acceleration, inconsistent constraints,
/// integrator failure) — the trajectory up to then is already in the CSV; [`Failure::Output`]
/// when the CSV or SVG cannot be written.
pub fn run(args: &SimulateArgs, backend: Backend) -> Result<String, Failure> {
    let file = crate::model_file::ModelFile::load(&args.model)?;
    if file.is_free_flyer() {
        let t0 = file.spec.initial.as_ref().map_or(0.0, |i| i.t0);
        return crate::free_flyer::simulate(&file, args, options(args, t0)?);
    }
    let model = Model::derive(file)?;
    let params = model.parameter_values(&args.set)?;
    let name = model.file.name();
    let Some(initial) = model.file.spec.initial.clone() else {
        return Err(Failure::bad_input(format!(
            "{name}: no initial state: add an [initial] table with q0 and {}",
            if model.is_hamiltonian() { "p0" } else { "qd0" }
        )));
    };
    let (v0, key) = if model.is_hamiltonian() {
        (&initial.p0, "initial.p0")
    } else {
        (&initial.qd0, "initial.qd0")
    };
    let context = format!("{name}: ");
    model.check_length(&context, "initial.q0", &initial.q0)?;
    model.check_length(&context, key, v0)?;
    let fixed = coordinate_indices(&model, "--fixed", &args.fixed)?;
    check_plot_columns(&model, args)?;
    let servo = crate::servo::law(&model, &args.servo)?;
    if servo.is_some() && !args.u.is_empty() {
        return Err(Failure::bad_input(format!(
            "{name}: the servo constraints drive the inputs; --u is not taken"
        )));
    }
    let inputs = match servo {
        Some(_) => vec![0.0; model.derivation.inputs.len()],
        None => model.input_values("", Some(&args.u))?,
    };
    let spec = &model.file.spec;
    if servo.is_some() && !(spec.events.is_empty() && spec.contacts.is_empty()) {
        return Err(Failure::bad_input(format!(
            "{name}: servo constraints together with [[events]] or [[contacts]] are not \
             supported yet: simulate the servo model without them"
        )));
    }
    let hybrid = !(spec.events.is_empty() && spec.contacts.is_empty());
    if !spec.speeds.is_empty() && hybrid {
        return Err(Failure::bad_input(format!(
            "{name}: generalized speeds together with [[events]] or [[contacts]] are not \
             supported yet: their guards, gaps and impacts are written in q̇"
        )));
    }
    let events = Events::new(&model, &params, &inputs, backend)?;
    let run = Run {
        events: &events,
        model: &model,
        args,
        options: options(args, initial.t0)?,
        assembly: AssemblyOptions {
            fixed,
            ..AssemblyOptions::default()
        },
        t0: initial.t0,
        progress: RefCell::new(Progress::new(initial.t0, args.t_end)),
        energy_conserved: servo.is_none() && model.derivation.conserves_energy(&params, &inputs),
        servo,
    };
    let evaluator = model.evaluator(params, inputs, backend)?;
    let n = model.n();
    macro_rules! dispatch {
        ($($size:literal)*) => {
            match n {
                $($size => run.simulate::<$size>(evaluator, &initial.q0, v0),)*
                _ => Err(Failure::bad_input(format!(
                    "{name}: udk simulate handles up to {MAX_COORDINATES} coordinates; this model has {n}"
                ))),
            }
        };
    }
    dispatch!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24)
}

/// The 2n state columns of the model's trajectory CSV, named after its coordinates (and
/// momenta or speeds).
fn model_state_columns(model: &Model) -> Vec<String> {
    let d = &model.derivation;
    let (kind, second) = match model.is_hamiltonian() {
        true => (StateKind::Momenta, &d.momenta),
        false => (StateKind::Velocities, &d.speeds),
    };
    state_columns(kind, &d.coordinate_names, second, model.n())
}

/// Checks `--plot-columns` before the run: each a coordinate, a column of the CSV
/// (`t`, [`model_state_columns`], the residuals, the energy) or an output column of the model.
///
/// # Errors
/// [`Failure::BadInput`] naming every column that is none of those, with the choices.
fn check_plot_columns(model: &Model, args: &SimulateArgs) -> Result<(), Failure> {
    let d = &model.derivation;
    let mut columns = vec!["t".to_string()];
    columns.extend(model_state_columns(model));
    columns.extend(["position_residual", "velocity_residual", "energy"].map(String::from));
    columns.extend(d.output_columns());
    let unknown: Vec<String> = (args.plot_columns.iter())
        .filter(|c| !columns.contains(c))
        .map(|c| {
            format!(
                "--plot-columns {c}: neither a coordinate of `{}` ({}) nor a column ({})",
                d.name,
                d.coordinate_names.join(", "),
                columns.join(", ")
            )
        })
        .collect();
    match unknown.is_empty() {
        true => Ok(()),
        false => Err(Failure::BadInput(unknown)),
    }
}

/// The indices of the coordinates `names` (given with `option`).
///
/// # Errors
/// [`Failure::BadInput`] for a name that is not a coordinate.
fn coordinate_indices(
    model: &Model,
    option: &str,
    names: &[String],
) -> Result<Vec<usize>, Failure> {
    let coordinates = &model.derivation.coordinates;
    names
        .iter()
        .map(|name| {
            coordinates.iter().position(|c| c == name).ok_or_else(|| {
                Failure::bad_input(format!(
                    "{option} {name}: not a coordinate of `{}` ({})",
                    model.derivation.name,
                    coordinates.join(", ")
                ))
            })
        })
        .collect()
}

/// The simulator's options from the command line.
fn options(args: &SimulateArgs, t0: f64) -> Result<SimulationOptions, Failure> {
    let span = args.t_end - t0;
    if !(span.is_finite() && span > 0.0) {
        return Err(Failure::bad_input(format!(
            "--t-end {} must be after the initial time t0 = {t0}",
            args.t_end
        )));
    }
    Ok(SimulationOptions {
        method: match args.method {
            Method::Dop853 => udk_runtime::simulate::Method::Dop853,
            Method::Dopri5 => udk_runtime::simulate::Method::Dopri5,
            Method::Rk4 => udk_runtime::simulate::Method::Rk4 { step: args.step },
            Method::Radau5 => udk_runtime::simulate::Method::Radau5,
            Method::Bdf => udk_runtime::simulate::Method::Bdf,
        },
        rtol: args.rtol,
        atol: args.atol,
        output: OutputTimes::Every(args.dt_out.unwrap_or(span / 1000.0)),
        stabilization: match args.no_stabilization {
            true => None,
            false => SimulationOptions::default().stabilization,
        },
        constraint_tolerance: args.constraint_tol,
        max_steps: args.max_steps,
        ..SimulationOptions::default()
    })
}

/// One line per constraint the initial state violates, naming it as the model file does.
fn violations(model: &Model, violations: &[Violation], tolerance: f64) -> Failure {
    let spec = &model.file.spec;
    let holonomic = spec.holonomic.len();
    let name = |v: &Violation| match (v.level, model.is_hamiltonian()) {
        (ConstraintLevel::Position, _) => {
            let text = model.file.source_of(&spec.holonomic[v.row]);
            format!("holonomic[{}] (`{text}`)", v.row)
        }
        (ConstraintLevel::Velocity, false) if v.row < holonomic => {
            format!("the time derivative of holonomic[{}]", v.row)
        }
        (ConstraintLevel::Velocity, false) => format!("nonholonomic[{}]", v.row - holonomic),
        (ConstraintLevel::Velocity, true) if v.row < holonomic => {
            format!("holonomic[{}] through q̇ = H_p", v.row)
        }
        (ConstraintLevel::Velocity, true) => format!("constraints[{}]", v.row - holonomic),
    };
    Failure::BadInput(
        violations
            .iter()
            .map(|v| {
                format!(
                    "{}: the initial state violates {} by {:.3e} (tolerance {tolerance:e})",
                    model.file.name(),
                    name(v),
                    v.residual
                )
            })
            .collect(),
    )
}

/// One run: the model, the command line and the simulator's options.
struct Run<'a> {
    model: &'a Model,
    /// The model file's `[[events]]`.
    events: &'a Events,
    args: &'a SimulateArgs,
    options: SimulationOptions,
    assembly: AssemblyOptions,
    t0: f64,
    progress: RefCell<Progress>,
    /// Whether the energy is conserved ([`udk_symbolic::Derivation::conserves_energy`]): the
    /// summary shows the drift in parentheses and the plot the energy itself when it is not.
    energy_conserved: bool,
    /// The law of the servo controller that drives the inputs of a model with `servo`
    /// constraints ([`udk::Model::control`] of the evaluator's model).
    servo: Option<ServoLaw>,
}

impl Run<'_> {
    fn simulate<const N: usize>(
        &self,
        evaluator: Evaluator,
        q0: &[f64],
        v0: &[f64],
    ) -> Result<String, Failure> {
        let (t0, tf) = (self.t0, self.args.t_end);
        let state = model_state_columns(self.model);
        // Created at the first sample, so that a refused start leaves no file behind; the
        // model's outputs follow the sample's columns, from a copy of the evaluator.
        let mut csv: Option<CsvWriter<std::fs::File>> = None;
        let mut written: Result<(), OutputError> = Ok(());
        let columns = self.model.derivation.output_columns();
        let mut outputs = evaluator.clone();
        // The output columns the plot draws, gathered per sample (the trajectory the simulator
        // returns has none: the evaluator gives them here).
        let plotted = self.args.plot.is_some()
            && (self.args.plot_columns.iter()).any(|c| columns.contains(c));
        let mut table = OutputTable {
            columns: if plotted { columns.clone() } else { Vec::new() },
            values: Vec::new(),
        };
        let observe = |sample: &Sample<N>| {
            // Evaluated once a sample, for the plot, the CSV or both.
            let values: &[f64] = if plotted || self.args.out.is_some() {
                outputs.outputs(sample.q.as_slice(), sample.v.as_slice(), sample.t)
            } else {
                &[]
            };
            if plotted {
                table.values.extend_from_slice(values);
            }
            if let Some(path) = &self.args.out {
                written = match &mut csv {
                    Some(csv) => Ok(csv),
                    None => CsvWriter::create_with_columns(path, state.clone(), &columns)
                        .map(|created| csv.insert(created)),
                }
                .and_then(|csv| {
                    csv.write_with_outputs(sample, values)
                        .and_then(|()| csv.flush())
                });
            }
            match written {
                Ok(()) => ControlFlow::Continue(()),
                Err(_) => ControlFlow::Break(()),
            }
        };
        let start = Instant::now();
        let file = self.model.file.name();
        let (assembled, result) = match evaluator {
            Evaluator::Lagrangian(evaluator) => {
                let system = self.tape(evaluator);
                let (q0, v0, assembled) = self.start::<N>(q0, v0, |q, v, options| {
                    consistent_dynamic_lagrangian_state(&system, q, v, t0, options)
                })?;
                let result = match self.servo {
                    Some(law) => {
                        let closed = crate::servo::ServoLoop {
                            system: &system,
                            law,
                        };
                        simulate_dynamic_lagrangian(
                            &closed,
                            &q0,
                            &v0,
                            t0,
                            tf,
                            &self.options,
                            observe,
                        )
                    }
                    None => match self.events.bind()? {
                        Some(bound) => bound
                            .simulate(&system, (&q0, &v0), (t0, tf), &self.options, observe)
                            .map_err(|e| {
                                Failure::bad_input(format!("{file}: [[contacts]]: {e}"))
                            })?,
                        None => simulate_dynamic_lagrangian(
                            &system,
                            &q0,
                            &v0,
                            t0,
                            tf,
                            &self.options,
                            observe,
                        ),
                    },
                };
                (assembled, result)
            }
            Evaluator::Hamiltonian(evaluator) => {
                let system = self.tape(evaluator);
                let (q0, v0, assembled) = self.start::<N>(q0, v0, |q, v, options| {
                    consistent_dynamic_hamiltonian_state(&system, q, v, t0, options)
                })?;
                let result =
                    simulate_dynamic_hamiltonian(&system, &q0, &v0, t0, tf, &self.options, observe);
                (assembled, result)
            }
        };
        let wall = start.elapsed();
        self.progress.borrow_mut().finish();
        if let (Err(e), Some(path)) = (written, &self.args.out) {
            return Err(output(path, &e));
        }
        match result {
            Ok(mut trajectory) => {
                trajectory.outputs = table;
                trajectory.state_columns = state;
                self.plot(&trajectory)?;
                let name = &self.model.derivation.name;
                let summary = Summary {
                    energy_conserved: self.energy_conserved,
                    ..Summary::new(name, self.options.method, &trajectory, wall)
                };
                if let Some(path) = &self.args.events {
                    hybrid::write_log(
                        path,
                        &trajectory.events,
                        &self.model.derivation.coordinates,
                    )?;
                }
                let log = hybrid::log(&trajectory.events, 20);
                Ok(format!(
                    "{assembled}{}\n{summary}\n{log}",
                    Summary::header()
                ))
            }
            Err(SimulationError::InconsistentStart {
                violations: found,
                tolerance,
            }) => Err(violations(self.model, &found, tolerance)),
            Err(
                error @ (SimulationError::InvalidOptions { .. } | SimulationError::NonFiniteStart),
            ) => Err(Failure::bad_input(format!("{file}: {error}"))),
            Err(error) => Err(Failure::Motion(format!(
                "{file}: {error}{}",
                match self.args.out {
                    Some(_) => "; the trajectory up to then is written",
                    None => "",
                }
            ))),
        }
    }

    /// The model's evaluator as a system for the simulator, reporting to the progress bar.
    fn tape<T>(&self, evaluator: ModelEvaluator<T>) -> Tape<'_, T> {
        Tape {
            evaluator: RefCell::new(evaluator),
            progress: Some(&self.progress),
        }
    }

    /// The initial state (q₀, v₀) as given or, with `--assemble`, as `assemble` projects it onto
    /// the constraints, with a line saying what was assembled (empty without `--assemble`).
    fn start<const N: usize>(
        &self,
        q0: &[f64],
        v0: &[f64],
        assemble: impl FnOnce(
            &[f64],
            &[f64],
            &AssemblyOptions,
        ) -> Result<Assembly<DVector<f64>>, udk_runtime::Error>,
    ) -> Result<(SVector<f64, N>, SVector<f64, N>, String), Failure> {
        if !self.args.assemble {
            let vector = SVector::<f64, N>::from_column_slice;
            return Ok((vector(q0), vector(v0), String::new()));
        }
        let file = self.model.file.name();
        let assembly = assemble(q0, v0, &self.assembly).map_err(|e| {
            Failure::bad_input(format!(
                "{file}: the initial state cannot be assembled: {e}"
            ))
        })?;
        let line = format!(
            "assembled initial state: q0 = {:?}, {} = {:?} (‖f‖ = {:.3e}, velocity level {:.3e}{})\n",
            assembly.q.as_slice(),
            if self.model.is_hamiltonian() { "p0" } else { "qd0" },
            assembly.v.as_slice(),
            assembly.position_residual,
            assembly.velocity_residual,
            if assembly.converged { "" } else { ", not converged" },
        );
        Ok((
            SVector::from_column_slice(assembly.q.as_slice()),
            SVector::from_column_slice(assembly.v.as_slice()),
            line,
        ))
    }

    /// Draws the SVG asked for.
    fn plot<const N: usize>(&self, trajectory: &Trajectory<N>) -> Result<(), Failure> {
        let Some(path) = &self.args.plot else {
            return Ok(());
        };
        let columns: Vec<&str> = self.args.plot_columns.iter().map(String::as_str).collect();
        let plot = PlotOptions {
            columns: &columns,
            energy_conserved: self.energy_conserved,
            ..PlotOptions::new(&self.model.derivation.name, &[])
        };
        trajectory
            .plot_svg(path, &plot)
            .map_err(|e| output(path, &e))
    }
}

/// A failure to write the output file `path`.
pub(crate) fn output(path: &std::path::Path, e: &dyn std::fmt::Display) -> Failure {
    Failure::Output(format!("cannot write {}: {e}", path.display()))
}

/// A progress bar on standard error with the time reached and an ETA, shown when standard
/// error is a terminal (so that redirected output is never garbled) and the run has lasted half
/// a second; fed with the time of each right-hand-side evaluation. It redraws itself on a timer,
/// so it shows even while t creeps forward by less than a pixel.
pub(crate) struct Progress {
    t0: f64,
    tf: f64,
    start: Instant,
    bar: Option<ProgressBar>,
    terminal: bool,
    /// When the message was last written.
    shown: Instant,
}

impl Progress {
    /// Resolution of the bar: parts per million of t_f − t₀.
    const PARTS: u64 = 1_000_000;
    /// The message (t and ETA) is rewritten at most this often.
    const REFRESH: Duration = Duration::from_millis(200);

    fn new(t0: f64, tf: f64) -> Self {
        let start = Instant::now();
        Progress {
            t0,
            tf,
            start,
            bar: None,
            terminal: std::io::stderr().is_terminal(),
            shown: start,
        }
    }

    fn update(&mut self, t: f64) {
        if !self.terminal {
            return;
        }
        let now = Instant::now();
        let elapsed = now - self.start;
        if self.bar.is_none() && elapsed > Duration::from_millis(500) {
            let bar = ProgressBar::with_draw_target(
                Some(Self::PARTS),
                indicatif::ProgressDrawTarget::stderr(),
            );
            if let Ok(style) = ProgressStyle::with_template("{bar:40} {percent_precise}%  {msg}") {
                bar.set_style(style);
            }
            bar.enable_steady_tick(Self::REFRESH);
            self.bar = Some(bar);
        }
        let Some(bar) = &self.bar else {
            return;
        };
        if now - self.shown < Self::REFRESH {
            return;
        }
        self.shown = now;
        let done = ((t - self.t0) / (self.tf - self.t0)).clamp(0.0, 1.0);
        bar.set_position((done * Self::PARTS as f64) as u64);
        // The ETA of the rate so far: elapsed · (1 − done) / done.
        let eta = match done > 0.0 {
            true => HumanDuration(elapsed.mul_f64((1.0 - done) / done)).to_string(),
            false => "unknown".to_string(),
        };
        bar.set_message(format!(
            "t = {t:.6e} s of {:.6e}  [{}, ETA {eta}]",
            self.tf,
            HumanDuration(elapsed)
        ));
    }

    fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

/// A model file's evaluator (JIT-compiled, or the tape) as a system for the simulator: a [`DynamicLagrangianSystem`] for
/// Lagrangian terms, a [`DynamicHamiltonianSystem`] for Hamiltonian ones.
pub(crate) struct Tape<'a, T> {
    pub(crate) evaluator: RefCell<ModelEvaluator<T>>,
    /// The progress bar of `udk simulate`, if any.
    pub(crate) progress: Option<&'a RefCell<Progress>>,
}

impl<T: Terms + Clone> Tape<'_, T> {
    /// The terms at (q, v, t), reporting t to the progress bar.
    fn terms(&self, q: &[f64], v: &[f64], t: f64) -> T {
        if let Some(progress) = self.progress {
            progress.borrow_mut().update(t);
        }
        self.evaluator.borrow_mut().terms(q, v, t).clone()
    }

    /// [`Tape::terms`] moved into `terms`, without the copy.
    fn terms_into(&self, q: &[f64], v: &[f64], t: f64, terms: &mut T) {
        if let Some(progress) = self.progress {
            progress.borrow_mut().update(t);
        }
        self.evaluator.borrow_mut().terms_into(q, v, t, terms);
    }

    /// The energy h or H.
    fn scalar(&self, q: &[f64], v: &[f64], t: f64) -> f64 {
        self.evaluator.borrow_mut().residuals(q, v, t).0
    }

    /// f(q, t) of the holonomic rows followed by zeros: aligned with the m rows.
    fn holonomic_residual(&self, q: &[f64], t: f64) -> DVector<f64> {
        let mut evaluator = self.evaluator.borrow_mut();
        let mut aligned = DVector::zeros(evaluator.m());
        // f(q, t) does not read q̇ or p; the program needs one of n entries all the same.
        let (_, f, _) = evaluator.residuals(q, q, t);
        aligned.as_mut_slice()[..f.len()].copy_from_slice(&f);
        aligned
    }

    /// The m constraints at velocity level.
    fn velocity_residual(&self, q: &[f64], v: &[f64], t: f64) -> DVector<f64> {
        DVector::from_vec(self.evaluator.borrow_mut().residuals(q, v, t).2)
    }
}

impl crate::servo::HeldInputs for Tape<'_, DynamicLagrangianTerms> {
    fn servo_input(&self, q: &[f64], qd: &[f64], t: f64, law: ServoLaw) -> DVector<f64> {
        crate::servo::servo_input(self.evaluator.borrow().model(), (q, qd, t), law)
    }

    fn hold_inputs(&self, u: &[f64]) {
        self.evaluator.borrow_mut().set_inputs(u);
    }
}

impl DynamicLagrangianSystem for Tape<'_, DynamicLagrangianTerms> {
    fn coordinate_names(&self) -> Vec<String> {
        self.evaluator.borrow().model().coordinates().to_vec()
    }

    fn num_holonomic(&self) -> usize {
        self.evaluator.borrow().num_holonomic()
    }

    fn terms(&self, q: &[f64], qd: &[f64], t: f64) -> DynamicLagrangianTerms {
        Tape::terms(self, q, qd, t)
    }

    fn energy(&self, q: &[f64], qd: &[f64], t: f64) -> f64 {
        self.scalar(q, qd, t)
    }

    fn holonomic_residual(&self, q: &[f64], t: f64) -> DVector<f64> {
        Tape::holonomic_residual(self, q, t)
    }

    fn velocity_residual(&self, q: &[f64], qd: &[f64], t: f64) -> DVector<f64> {
        Tape::velocity_residual(self, q, qd, t)
    }

    fn terms_into(&self, q: &[f64], qd: &[f64], t: f64, terms: &mut DynamicLagrangianTerms) {
        Tape::terms_into(self, q, qd, t, terms);
    }

    /// Both residuals from one evaluation of the model's monitor.
    fn residuals_into(
        &self,
        q: &[f64],
        qd: &[f64],
        t: f64,
        holonomic: &mut DVector<f64>,
        velocity: &mut DVector<f64>,
    ) {
        let mut evaluator = self.evaluator.borrow_mut();
        let m = evaluator.m();
        let (_, f, r) = evaluator.residuals(q, qd, t);
        *holonomic = DVector::zeros(m);
        holonomic.as_mut_slice()[..f.len()].copy_from_slice(&f);
        *velocity = DVector::from_vec(r);
    }

    fn acceleration_jacobian(
        &self,
        q: &[f64],
        qd: &[f64],
        t: f64,
        options: &udk_runtime::Options,
    ) -> Result<AccelerationJacobianDyn, udk_runtime::Error> {
        let (q, qd) = (
            DVector::from_column_slice(q),
            DVector::from_column_slice(qd),
        );
        let evaluator = self.evaluator.borrow();
        (evaluator
            .model()
            .acceleration_jacobian_with(&q, &qd, t, options))
        .map_err(udk::ModelError::into_jacobian_error)
    }

    fn velocity_names(&self) -> Vec<String> {
        self.evaluator.borrow().model().speeds().to_vec()
    }

    fn coordinate_rates(&self, q: &[f64], v: &[f64], t: f64) -> DVector<f64> {
        let (q, v) = (DVector::from_column_slice(q), DVector::from_column_slice(v));
        let evaluator = self.evaluator.borrow();
        (evaluator.model().coordinate_rates(&q, &v, t)).expect(crate::model::CHECKED)
    }

    fn kinematic_matrix(&self, q: &[f64], t: f64) -> Option<DMatrix<f64>> {
        let q = DVector::from_column_slice(q);
        let evaluator = self.evaluator.borrow();
        (evaluator.model().kinematic_matrix(&q, t)).expect(crate::model::CHECKED)
    }
}

impl DynamicHamiltonianSystem for Tape<'_, DynamicHamiltonianTerms> {
    fn num_holonomic(&self) -> usize {
        self.evaluator.borrow().num_holonomic()
    }

    fn terms(&self, q: &[f64], p: &[f64], t: f64) -> DynamicHamiltonianTerms {
        Tape::terms(self, q, p, t)
    }

    fn hamiltonian(&self, q: &[f64], p: &[f64], t: f64) -> f64 {
        self.scalar(q, p, t)
    }

    fn holonomic_residual(&self, q: &[f64], t: f64) -> DVector<f64> {
        Tape::holonomic_residual(self, q, t)
    }

    fn constraint_residual(&self, q: &[f64], p: &[f64], t: f64) -> DVector<f64> {
        self.velocity_residual(q, p, t)
    }
}
