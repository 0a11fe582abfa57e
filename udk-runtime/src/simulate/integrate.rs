//! The run: the system in first-order form handed to a `differential-equations` method, output
//! recorded at the requested times, the first failed evaluation turned into a stop.

use super::dynamics::{finite, join, Dynamics, Hamiltonian, Lagrangian, State, WithOptions};
use super::{
    ConstraintLevel, FailedState, Method, OutputTable, OutputTimes, Sample, SimulationError,
    SimulationOptions, Stats, Trajectory, Violation,
};
use crate::{Error, HamiltonianSystem, LagrangianSystem};
use differential_equations::control::ControlFlag;
use differential_equations::interpolate::Interpolation;
use differential_equations::linalg::Matrix;
use differential_equations::methods::{
    BackwardDifferentiationFormula, DormandPrince, ExplicitRungeKutta, Fixed, ImplicitRungeKutta,
    Ordinary, Radau,
};
use differential_equations::ode::{solve_ode, OrdinaryNumericalMethod, ODE};
use differential_equations::solout::Solout;
use differential_equations::solution::Solution;
use nalgebra::SVector;
use std::cell::{Cell, RefCell};
use std::ops::ControlFlow;

/// Simulates a Lagrangian system with n = `N` coordinates and m = `M` constraints from
/// (q₀, q̇₀) at t₀ to t_f, integrating q̈ from the fundamental equation (Udwadia & Kalaba 1993,
/// eq 17; singular M through Udwadia & Wanichanon 2013, eq 3.18) with A q̈ = b stabilized as
/// [`super::Baumgarte`] says.
///
/// (q₀, q̇₀) must be finite and satisfy the constraints within
/// [`SimulationOptions::constraint_tolerance`]; with [`super::Projection`] it is projected
/// first. [`crate::consistent_state`] makes a rough start consistent.
///
/// # Errors
/// [`SimulationError::InvalidOptions`] for bad options or times (including more output times
/// than [`SimulationOptions::max_samples`]); [`SimulationError::NonFiniteStart`] and
/// [`SimulationError::InconsistentStart`] for a bad initial state; during the run,
/// [`SimulationError::Dynamics`] at the first failed acceleration (with its time and state),
/// [`SimulationError::Projection`] or [`SimulationError::Integrator`]. Each keeps the
/// trajectory recorded so far.
pub fn simulate_lagrangian<S, const N: usize, const M: usize>(
    system: &S,
    q0: &SVector<f64, N>,
    qd0: &SVector<f64, N>,
    t0: f64,
    tf: f64,
    options: &SimulationOptions,
) -> Result<Trajectory<N>, SimulationError<N>>
where
    S: LagrangianSystem<N, M>,
{
    let dynamics: Lagrangian<_, N, M> = WithOptions::new(system, options);
    run(&dynamics, join(q0, qd0), t0, tf, options, &mut |_| {
        ControlFlow::Continue(())
    })
}

/// Simulates a Hamiltonian system with n = `N` coordinates and momenta and m = `M` constraints
/// φ(q, p, t) = 0 from (q₀, p₀) at t₀ to t_f, integrating q̇ = H_p and ṗ from the constrained
/// Hamilton equations (Udwadia 2016, eqs 35–36) with A_p ṗ = b_p stabilized as
/// [`super::Baumgarte`] says.
///
/// # Errors
/// As [`simulate_lagrangian`]; [`SimulationError::Dynamics`] also reports a singular H_pp.
pub fn simulate_hamiltonian<S, const N: usize, const M: usize>(
    system: &S,
    q0: &SVector<f64, N>,
    p0: &SVector<f64, N>,
    t0: f64,
    tf: f64,
    options: &SimulationOptions,
) -> Result<Trajectory<N>, SimulationError<N>>
where
    S: HamiltonianSystem<N, M>,
{
    let dynamics: Hamiltonian<_, N, M> = WithOptions::new(system, options);
    run(&dynamics, join(q0, p0), t0, tf, options, &mut |_| {
        ControlFlow::Continue(())
    })
}

/// The first failed right-hand-side evaluation.
struct Failure<const N: usize> {
    time: f64,
    state: State<N>,
    error: Error,
}

/// The right-hand side handed to the integrator. `ODE::diff` cannot fail, so the first error
/// is kept here and every later call returns zeros until [`Recorder`] stops the run at the end
/// of the current step; no value computed after the failure is recorded.
struct Rhs<'a, D, const N: usize> {
    dynamics: &'a D,
    failure: RefCell<Option<Failure<N>>>,
    evaluations: Cell<usize>,
    jacobians: Cell<usize>,
    finite_difference_jacobians: Cell<usize>,
}

/// The right-hand side alone, so that its `ODE::jacobian` is the crate's forward-difference
/// default.
struct FiniteDifferences<'a, R>(&'a R);

impl<R: ODE<f64, State<N>>, const N: usize> ODE<f64, State<N>> for FiniteDifferences<'_, R> {
    fn diff(&self, t: f64, x: &State<N>, xd: &mut State<N>) {
        self.0.diff(t, x, xd);
    }
}

impl<D: Dynamics<N>, const N: usize> ODE<f64, State<N>> for Rhs<'_, D, N> {
    fn diff(&self, t: f64, x: &State<N>, xd: &mut State<N>) {
        if self.failure.borrow().is_some() {
            xd.fill(0.0);
            return;
        }
        self.evaluations.set(self.evaluations.get() + 1);
        match self.dynamics.derivative(t, x) {
            Ok(derivative) => *xd = derivative,
            Err(error) => {
                xd.fill(0.0);
                *self.failure.borrow_mut() = Some(Failure {
                    time: t,
                    state: *x,
                    error,
                });
            }
        }
    }

    /// The Jacobian of ẋ = [v, a] in the crate's component order (row-major over the n × 2
    /// state: component 2i is qᵢ, 2i + 1 is vᵢ): the system's, or forward differences when it
    /// has none (or it does not exist at x).
    fn jacobian(&self, t: f64, x: &State<N>, j: &mut Matrix<f64>) {
        self.jacobians.set(self.jacobians.get() + 1);
        match self.dynamics.jacobian(t, x) {
            Ok((wrt_q, wrt_v)) => {
                j.fill(0.0);
                for i in 0..N {
                    j[(2 * i, 2 * i + 1)] = 1.0;
                    for k in 0..N {
                        j[(2 * i + 1, 2 * k)] = wrt_q[(i, k)];
                        j[(2 * i + 1, 2 * k + 1)] = wrt_v[(i, k)];
                    }
                }
            }
            Err(_) => {
                let count = &self.finite_difference_jacobians;
                count.set(count.get() + 1);
                FiniteDifferences(self).jacobian(t, x, j);
            }
        }
    }
}

/// The end of output segment k = 1, 2, … of t₀, t₀ + Δt, t₀ + 2Δt, …, t_f (a time within
/// 10⁻⁹Δt of t_f is t_f): `None` after t_f. The count is bounded by
/// [`SimulationOptions::max_samples`], checked before the run.
fn output_time(t0: f64, dt: f64, tf: f64, k: usize) -> Option<f64> {
    let before = t0 + (k - 1) as f64 * dt;
    let t = t0 + k as f64 * dt;
    if k > 1 && before >= tf - 1e-9 * dt {
        None
    } else if t >= tf - 1e-9 * dt {
        Some(tf)
    } else {
        Some(t)
    }
}

/// Why the recorder stopped a segment early.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Halt {
    /// The observer asked to stop.
    Observer,
    /// The trajectory holds `max_samples` samples.
    SampleLimit,
}

/// Records the sample of (t, x) at every accepted step when asked to, hands each new sample to
/// the observer, keeps the largest step of the current segment, and stops the run after a
/// failed evaluation, a stop asked by the observer, or at `max_samples`.
struct Recorder<'a, D, const N: usize> {
    dynamics: &'a D,
    failure: &'a RefCell<Option<Failure<N>>>,
    observe: &'a mut dyn FnMut(&Sample<N>) -> ControlFlow<()>,
    every_step: bool,
    max_samples: usize,
    samples: Vec<Sample<N>>,
    largest_step: f64,
    halt: Option<Halt>,
}

impl<D: Dynamics<N>, const N: usize> Recorder<'_, D, N> {
    /// Records (t, x) unless a sample at t or later is already recorded.
    fn record(&mut self, t: f64, x: &State<N>) {
        if self.halt.is_some() || self.samples.last().is_some_and(|s| s.t >= t) {
            return;
        }
        if self.samples.len() >= self.max_samples {
            self.halt = Some(Halt::SampleLimit);
            return;
        }
        let sample = self.dynamics.sample(t, x);
        self.samples.push(sample);
        if (self.observe)(&sample).is_break() {
            self.halt = Some(Halt::Observer);
        }
    }

    /// The error of a run stopped by `halt`, at the time of the last sample (there is always
    /// one: the first sample is recorded before any halt).
    fn halted(&self, halt: Halt, max_samples: usize, stats: Stats) -> SimulationError<N> {
        let (time, trajectory) = (
            self.samples.last().map_or(0.0, |s| s.t),
            self.trajectory(stats),
        );
        match halt {
            Halt::Observer => SimulationError::Interrupted { time, trajectory },
            Halt::SampleLimit => SimulationError::Integrator {
                time,
                reason: format!("the trajectory reached max_samples = {max_samples} samples"),
                trajectory,
            },
        }
    }

    /// The trajectory recorded so far.
    fn trajectory(&self, stats: Stats) -> Box<Trajectory<N>> {
        let columns = self.dynamics.output_columns();
        let mut values = vec![0.0; columns.len() * self.samples.len()];
        if !columns.is_empty() {
            for (sample, row) in self.samples.iter().zip(values.chunks_mut(columns.len())) {
                self.dynamics.outputs(sample, row);
            }
        }
        Box::new(Trajectory {
            kind: D::KIND,
            samples: self.samples.clone(),
            stats,
            outputs: OutputTable {
                columns: columns.iter().map(|c| c.to_string()).collect(),
                values,
            },
        })
    }
}

impl<D: Dynamics<N>, const N: usize> Solout<f64, State<N>> for Recorder<'_, D, N> {
    fn solout<I>(
        &mut self,
        t_curr: f64,
        t_prev: f64,
        y_curr: &State<N>,
        _y_prev: &State<N>,
        _interpolator: &mut I,
        _solution: &mut Solution<f64, State<N>>,
    ) -> ControlFlag<f64, State<N>>
    where
        I: Interpolation<f64, State<N>> + ?Sized,
    {
        if self.failure.borrow().is_some() {
            return ControlFlag::Terminate;
        }
        self.largest_step = self.largest_step.max(t_curr - t_prev);
        if self.every_step {
            self.record(t_curr, y_curr);
        }
        match self.halt {
            Some(_) => ControlFlag::Terminate,
            None => ControlFlag::Continue,
        }
    }
}

/// The integrator's reason for an error, without the state it carries.
fn integrator_reason<const N: usize>(
    error: &differential_equations::error::Error<f64, State<N>>,
) -> String {
    use differential_equations::error::Error as E;
    match error {
        E::MaxSteps { .. } => "it took the most steps allowed (`SimulationOptions::max_steps`, \
                               `--max-steps` of `udk simulate`; raise it for a longer or tighter \
                               run)"
            .into(),
        E::StepSize { .. } => "the step size became too small".into(),
        E::Stiffness { .. } => "the problem looks stiff to the explicit method".into(),
        E::BadInput { msg } | E::LinearAlgebra { msg, .. } => msg.clone(),
        other => format!("{other:?}"),
    }
}

/// `Err(InconsistentStart)` listing every constraint that x violates at t by more than
/// `tolerance` (or that is NaN).
fn check_start<D: Dynamics<N>, const N: usize>(
    dynamics: &D,
    t: f64,
    x: &State<N>,
    tolerance: f64,
) -> Result<(), SimulationError<N>> {
    let (f, r) = dynamics.residuals(t, x);
    let levels = [
        (ConstraintLevel::Position, f),
        (ConstraintLevel::Velocity, r),
    ];
    let violations: Vec<Violation> = (levels.into_iter())
        .flat_map(|(level, values)| {
            (values.into_iter().enumerate()).map(move |(row, residual)| Violation {
                level,
                row,
                residual,
            })
        })
        .filter(|v| v.residual.is_nan() || v.residual.abs() > tolerance)
        .collect();
    match violations.is_empty() {
        true => Ok(()),
        false => Err(SimulationError::InconsistentStart {
            violations,
            tolerance,
        }),
    }
}

/// Checks the options and the initial state, picks the method and runs; `observe` gets each
/// sample as it is recorded.
pub(super) fn run<D: Dynamics<N>, const N: usize>(
    dynamics: &D,
    x0: State<N>,
    t0: f64,
    tf: f64,
    options: &SimulationOptions,
    observe: &mut dyn FnMut(&Sample<N>) -> ControlFlow<()>,
) -> Result<Trajectory<N>, SimulationError<N>> {
    options
        .validate(t0, tf)
        .map_err(|what| SimulationError::InvalidOptions { what })?;
    finite(&x0, "initial state").map_err(|_| SimulationError::NonFiniteStart)?;
    let (rtol, atol) = (options.rtol, options.atol);
    let start = (x0, t0, tf);
    match options.method {
        Method::Dop853 => run_with(dynamics, start, options, observe, |h0, _, max_steps| {
            let mut method =
                ExplicitRungeKutta::<Ordinary, DormandPrince, f64, State<N>, 8, 12, 16>::dop853()
                    .rtol(rtol)
                    .atol(atol)
                    .max_steps(max_steps);
            method.h0 = h0;
            method
        }),
        Method::Dopri5 => run_with(dynamics, start, options, observe, |h0, _, max_steps| {
            let mut method =
                ExplicitRungeKutta::<Ordinary, DormandPrince, f64, State<N>, 5, 7, 7>::dopri5()
                    .rtol(rtol)
                    .atol(atol)
                    .max_steps(max_steps);
            method.h0 = h0;
            method
        }),
        Method::Radau5 => run_with(dynamics, start, options, observe, |h0, _, max_steps| {
            let mut method =
                ImplicitRungeKutta::<Ordinary, Radau, f64, State<N>, 5, 3, 3>::radau5()
                    .rtol(rtol)
                    .atol(atol)
                    .max_steps(max_steps);
            method.h0 = h0;
            method
        }),
        Method::Bdf => run_with(dynamics, start, options, observe, |h0, _, max_steps| {
            BackwardDifferentiationFormula::<Ordinary, f64, State<N>>::adaptive()
                .rtol(rtol)
                .atol(atol)
                .max_steps(max_steps)
                .h0(h0)
        }),
        Method::Rk4 { step } => {
            run_with(dynamics, start, options, observe, |_, length, max_steps| {
                ExplicitRungeKutta::<Ordinary, Fixed, f64, State<N>, 4, 4, 4>::rk4(step.min(length))
                    .max_steps(max_steps)
            })
        }
    }
}

/// Integrates segment by segment from x₀ at t₀ to t_f, `method(h0, length, max_steps)`
/// building the integrator of a segment of that length with initial step h0 ≤ length (0: the
/// method's own estimate) and the steps left of [`SimulationOptions::max_steps`].
///
/// With [`OutputTimes::Every`] the segments end at the output times, so every output is a
/// step end, at the method's full accuracy: no dense-output interpolation is used (the DOP853
/// interpolant of `differential-equations` 0.7 is far less accurate than its steps), and
/// projection restarts from the projected state. A segment starts with the largest step the
/// previous one took or proposed (its last step is cut short to end on the output time).
fn run_with<D, S, const N: usize>(
    dynamics: &D,
    (x0, t0, tf): (State<N>, f64, f64),
    options: &SimulationOptions,
    observe: &mut dyn FnMut(&Sample<N>) -> ControlFlow<()>,
    method: impl Fn(f64, f64, usize) -> S,
) -> Result<Trajectory<N>, SimulationError<N>>
where
    D: Dynamics<N>,
    S: OrdinaryNumericalMethod<f64, State<N>> + Interpolation<f64, State<N>>,
{
    let rhs = Rhs {
        dynamics,
        failure: RefCell::new(None),
        evaluations: Cell::new(0),
        jacobians: Cell::new(0),
        finite_difference_jacobians: Cell::new(0),
    };
    let mut recorder = Recorder {
        dynamics,
        failure: &rhs.failure,
        observe,
        every_step: options.output == OutputTimes::Steps,
        max_samples: options.max_samples,
        samples: Vec::new(),
        largest_step: 0.0,
        halt: None,
    };
    let mut stats = Stats::default();
    let project =
        |t: f64, x: &State<N>, recorder: &Recorder<D, N>, stats: Stats| match options.projection {
            None => Ok(*x),
            Some(projection) => {
                dynamics
                    .project(t, x, &projection)
                    .map_err(|source| SimulationError::Projection {
                        time: t,
                        source,
                        trajectory: recorder.trajectory(stats),
                    })
            }
        };

    let mut x = project(t0, &x0, &recorder, stats)?;
    check_start(dynamics, t0, &x, options.constraint_tolerance)?;
    recorder.record(t0, &x);
    if let Some(halt) = recorder.halt {
        return Err(recorder.halted(halt, options.max_samples, stats));
    }
    let mut h0: f64 = 0.0;
    let (mut a, mut k) = (t0, 1);
    while let Some(b) = match options.output {
        OutputTimes::Steps => (k == 1).then_some(tf),
        OutputTimes::Every(dt) => output_time(t0, dt, tf, k),
    } {
        recorder.largest_step = 0.0;
        let steps_left =
            (options.max_steps).saturating_sub(stats.accepted_steps + stats.rejected_steps);
        let mut solver = method(h0.min(b - a), b - a, steps_left);
        let result = solve_ode(&mut solver, &rhs, a, b, &x, &mut recorder);
        if let Ok(solution) = &result {
            stats.accepted_steps += solution.steps.accepted;
            stats.rejected_steps += solution.steps.rejected;
        }
        stats.rhs_evaluations = rhs.evaluations.get();
        stats.jacobian_evaluations = rhs.jacobians.get();
        stats.finite_difference_jacobians = rhs.finite_difference_jacobians.get();
        if let Some(failure) = rhs.failure.take() {
            return Err(SimulationError::Dynamics {
                time: failure.time,
                state: Box::new(FailedState {
                    q: failure.state.column(0).into_owned(),
                    v: failure.state.column(1).into_owned(),
                }),
                source: failure.error,
                trajectory: recorder.trajectory(stats),
            });
        }
        if let Some(halt) = recorder.halt {
            return Err(recorder.halted(halt, options.max_samples, stats));
        }
        if let Err(error) = &result {
            return Err(SimulationError::Integrator {
                time: solver.t(),
                reason: integrator_reason(error),
                trajectory: recorder.trajectory(stats),
            });
        }
        x = project(b, solver.y(), &recorder, stats)?;
        recorder.record(b, &x);
        if let Some(halt) = recorder.halt {
            return Err(recorder.halted(halt, options.max_samples, stats));
        }
        h0 = solver.h().max(recorder.largest_step);
        (a, k) = (b, k + 1);
    }
    Ok(*recorder.trajectory(stats))
}
