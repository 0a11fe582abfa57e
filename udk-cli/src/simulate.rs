//! `udk simulate`: the model's run-time tapes handed to the udk-runtime simulator
//! (`simulate_dynamic_lagrangian` / `simulate_dynamic_hamiltonian`), with no rustc.

use crate::args::{Method, SimulateArgs};
use crate::failure::Failure;
use crate::model::{Evaluator, Model, TapeEvaluator, TapeTerms};
use indicatif::{ProgressBar, ProgressStyle};
use nalgebra::{DVector, SVector};
use std::cell::RefCell;
use std::io::IsTerminal;
use std::time::{Duration, Instant};
use udk_runtime::simulate::{
    simulate_dynamic_hamiltonian, simulate_dynamic_lagrangian, DynamicHamiltonianSystem,
    DynamicHamiltonianTerms, DynamicLagrangianSystem, DynamicLagrangianTerms, OutputTimes,
    SimulationError, SimulationOptions, Summary, Trajectory,
};

/// The largest n `udk simulate` handles: the simulator's state has a compile-time size, so the
/// command is built for each n up to this.
pub const MAX_COORDINATES: usize = 24;

/// Runs `udk simulate` and returns the summary table.
///
/// # Errors
/// [`Failure::BadInput`] for a bad model, a missing or wrong-length initial state, an initial
/// state that violates a constraint by more than `--constraint-tol`, bad options, or n above
/// [`MAX_COORDINATES`]; [`Failure::Motion`] when the run stops (non-unique acceleration,
/// inconsistent constraints, integrator failure) — the trajectory up to then is still written;
/// [`Failure::Output`] when the CSV or SVG cannot be written.
pub fn run(args: &SimulateArgs) -> Result<String, Failure> {
    let model = Model::load(&args.model)?;
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
    let mut evaluator = model.evaluator(params);
    check_initial_state(
        &model,
        &mut evaluator,
        initial.t0,
        &initial.q0,
        v0,
        args.constraint_tol,
    )?;
    let options = options(args, initial.t0)?;
    let run = Run {
        model: &model,
        args,
        options,
        t0: initial.t0,
        progress: RefCell::new(Progress::new(initial.t0, args.t_end)),
    };
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
        },
        rtol: args.rtol,
        atol: args.atol,
        output: OutputTimes::Every(args.dt_out.unwrap_or(span / 1000.0)),
        stabilization: match args.no_stabilization {
            true => None,
            false => SimulationOptions::default().stabilization,
        },
        ..SimulationOptions::default()
    })
}

/// Refuses an initial state off the constraint manifold: each holonomic constraint f, and each
/// constraint at velocity level (ḟ, φ) or φ(q, p, t), must be within `tolerance` of zero.
fn check_initial_state(
    model: &Model,
    evaluator: &mut Evaluator,
    t: f64,
    q: &[f64],
    v: &[f64],
    tolerance: f64,
) -> Result<(), Failure> {
    let spec = &model.file.spec;
    let (holonomic, velocity, rows): (Vec<f64>, Vec<f64>, Vec<String>) = match evaluator {
        Evaluator::Lagrangian(e) => {
            let (_, f, r) = e.residuals(q, v, t);
            let rows = (0..f.len())
                .map(|i| format!("the time derivative of holonomic[{i}]"))
                .chain((0..spec.nonholonomic.len()).map(|i| format!("nonholonomic[{i}]")))
                .collect();
            (f, r, rows)
        }
        Evaluator::Hamiltonian(e) => {
            let (_, f, r) = e.residuals(q, v, t);
            let rows = (0..f.len())
                .map(|i| format!("holonomic[{i}] through q̇ = H_p"))
                .chain((0..spec.constraints.len()).map(|i| format!("constraints[{i}]")))
                .collect();
            (f, r, rows)
        }
    };
    let violations = holonomic
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let text = model.file.source_of(&spec.holonomic[i]);
            (format!("holonomic[{i}] (`{text}`)"), *f)
        })
        .chain(velocity.iter().zip(rows).map(|(r, row)| (row, *r)))
        .filter(|(_, value)| value.is_nan() || value.abs() > tolerance);
    let lines: Vec<String> = violations
        .map(|(what, value)| {
            format!(
                "{}: the initial state violates {what} by {value:.3e} (tolerance {tolerance:e})",
                model.file.name()
            )
        })
        .collect();
    if lines.is_empty() {
        Ok(())
    } else {
        Err(Failure::BadInput(lines))
    }
}

/// One run: the model, the command line and the simulator's options.
struct Run<'a> {
    model: &'a Model,
    args: &'a SimulateArgs,
    options: SimulationOptions,
    t0: f64,
    progress: RefCell<Progress>,
}

impl Run<'_> {
    fn simulate<const N: usize>(
        &self,
        evaluator: Evaluator,
        q0: &[f64],
        v0: &[f64],
    ) -> Result<String, Failure> {
        let (q0, v0) = (
            SVector::<f64, N>::from_column_slice(q0),
            SVector::<f64, N>::from_column_slice(v0),
        );
        let start = Instant::now();
        let result = match evaluator {
            Evaluator::Lagrangian(evaluator) => {
                let system = Tape {
                    evaluator: RefCell::new(evaluator),
                    progress: &self.progress,
                };
                simulate_dynamic_lagrangian(
                    &system,
                    &q0,
                    &v0,
                    self.t0,
                    self.args.t_end,
                    &self.options,
                )
            }
            Evaluator::Hamiltonian(evaluator) => {
                let system = Tape {
                    evaluator: RefCell::new(evaluator),
                    progress: &self.progress,
                };
                simulate_dynamic_hamiltonian(
                    &system,
                    &q0,
                    &v0,
                    self.t0,
                    self.args.t_end,
                    &self.options,
                )
            }
        };
        let wall = start.elapsed();
        self.progress.borrow_mut().finish();
        match result {
            Ok(trajectory) => {
                self.write(&trajectory)?;
                let name = &self.model.derivation.name;
                let summary = Summary::new(name, self.options.method, &trajectory, wall);
                Ok(format!("{}\n{summary}\n", Summary::header()))
            }
            Err(error) => {
                let stopped = error.trajectory().map(|t| self.write(t));
                let failure = match &error {
                    SimulationError::InvalidOptions { .. } => {
                        Failure::bad_input(format!("{}: {error}", self.model.file.name()))
                    }
                    _ => Failure::Motion(format!(
                        "{}: {error}{}",
                        self.model.file.name(),
                        match stopped {
                            Some(Ok(())) if self.args.out.is_some() => {
                                "; the trajectory up to then is written"
                            }
                            _ => "",
                        }
                    )),
                };
                Err(failure)
            }
        }
    }

    /// Writes the CSV and the SVG asked for.
    fn write<const N: usize>(&self, trajectory: &Trajectory<N>) -> Result<(), Failure> {
        let output = |path: &std::path::Path, e: &dyn std::fmt::Display| {
            Failure::Output(format!("cannot write {}: {e}", path.display()))
        };
        if let Some(path) = &self.args.out {
            trajectory.write_csv(path).map_err(|e| output(path, &e))?;
        }
        if let Some(path) = &self.args.plot {
            let names: Vec<&str> = self
                .model
                .derivation
                .coordinates
                .iter()
                .map(String::as_str)
                .collect();
            trajectory
                .plot_svg(path, &self.model.derivation.name, &names)
                .map_err(|e| output(path, &e))?;
        }
        Ok(())
    }
}

/// A progress bar on standard error, shown when it is a terminal and the run has lasted half a
/// second; fed with the time of each right-hand-side evaluation.
struct Progress {
    t0: f64,
    tf: f64,
    start: Instant,
    bar: Option<ProgressBar>,
    terminal: bool,
}

impl Progress {
    const PERMILLE: u64 = 1000;

    fn new(t0: f64, tf: f64) -> Self {
        Progress {
            t0,
            tf,
            start: Instant::now(),
            bar: None,
            terminal: std::io::stderr().is_terminal(),
        }
    }

    fn update(&mut self, t: f64) {
        if !self.terminal {
            return;
        }
        if self.bar.is_none() && self.start.elapsed() > Duration::from_millis(500) {
            let bar = ProgressBar::new(Self::PERMILLE);
            if let Ok(style) =
                ProgressStyle::with_template("{bar:40} t = {msg} s  [{elapsed}, {eta} left]")
            {
                bar.set_style(style);
            }
            self.bar = Some(bar);
        }
        if let Some(bar) = &self.bar {
            let done = ((t - self.t0) / (self.tf - self.t0)).clamp(0.0, 1.0);
            let position = (done * Self::PERMILLE as f64) as u64;
            if position > bar.position() {
                bar.set_position(position);
                bar.set_message(format!("{t:.3}"));
            }
        }
    }

    fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

/// A model file's tapes as a system for the simulator: a [`DynamicLagrangianSystem`] for
/// Lagrangian terms, a [`DynamicHamiltonianSystem`] for Hamiltonian ones.
struct Tape<'a, T> {
    evaluator: RefCell<TapeEvaluator<T>>,
    progress: &'a RefCell<Progress>,
}

impl<T: TapeTerms + Clone> Tape<'_, T> {
    /// The terms at (q, v, t), reporting t to the progress bar.
    fn terms(&self, q: &[f64], v: &[f64], t: f64) -> T {
        self.progress.borrow_mut().update(t);
        self.evaluator.borrow_mut().terms(q, v, t).clone()
    }

    /// The energy h or H.
    fn scalar(&self, q: &[f64], v: &[f64], t: f64) -> f64 {
        self.evaluator.borrow_mut().residuals(q, v, t).0
    }

    /// f(q, t) of the holonomic rows followed by zeros: aligned with the m rows.
    fn holonomic_residual(&self, q: &[f64], t: f64) -> DVector<f64> {
        let mut evaluator = self.evaluator.borrow_mut();
        let mut aligned = DVector::zeros(evaluator.m());
        // f(q, t) does not read q̇ or p; the monitor tape needs one of n entries all the same.
        let (_, f, _) = evaluator.residuals(q, q, t);
        aligned.as_mut_slice()[..f.len()].copy_from_slice(&f);
        aligned
    }

    /// The m constraints at velocity level.
    fn velocity_residual(&self, q: &[f64], v: &[f64], t: f64) -> DVector<f64> {
        DVector::from_vec(self.evaluator.borrow_mut().residuals(q, v, t).2)
    }
}

impl DynamicLagrangianSystem for Tape<'_, DynamicLagrangianTerms> {
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
