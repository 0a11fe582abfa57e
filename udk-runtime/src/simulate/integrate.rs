//! The run: the system in first-order form handed to a `differential-equations` method, output
//! recorded at the requested times, the first failed evaluation turned into a stop.

use super::dynamics::{join, Dynamics, Hamiltonian, Lagrangian, State, WithOptions};
use super::{
    FailedState, Method, OutputTimes, SimulationError, SimulationOptions, Stats, Trajectory,
};
use crate::{Error, HamiltonianSystem, LagrangianSystem};
use differential_equations::control::ControlFlag;
use differential_equations::interpolate::Interpolation;
use differential_equations::methods::{DormandPrince, ExplicitRungeKutta, Fixed, Ordinary};
use differential_equations::ode::{solve_ode, OrdinaryNumericalMethod, ODE};
use differential_equations::solout::Solout;
use differential_equations::solution::Solution;
use nalgebra::SVector;
use std::cell::{Cell, RefCell};

/// Simulates a Lagrangian system with n = `N` coordinates and m = `M` constraints from
/// (q₀, q̇₀) at t₀ to t_f, integrating q̈ from the fundamental equation (Udwadia & Kalaba 1993,
/// eq 17; singular M through Udwadia & Wanichanon 2013, eq 3.18) with A q̈ = b stabilized as
/// [`super::Baumgarte`] says.
///
/// (q₀, q̇₀) should satisfy the constraints; with [`super::Projection`] it is projected first.
///
/// # Errors
/// [`SimulationError::InvalidOptions`] for bad options or times; during the run,
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
    run(&dynamics, join(q0, qd0), t0, tf, options)
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
    run(&dynamics, join(q0, p0), t0, tf, options)
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
}

/// The output times t₀, t₀ + Δt, t₀ + 2Δt, …, t_f (a time within 10⁻⁹Δt of t_f is t_f).
fn output_times(t0: f64, dt: f64, tf: f64) -> Vec<f64> {
    let mut times = vec![t0];
    for k in 1.. {
        let t = t0 + k as f64 * dt;
        if t >= tf - 1e-9 * dt {
            times.push(tf);
            return times;
        }
        times.push(t);
    }
    unreachable!("the loop returns once t passes t_f")
}

/// Records (t, x) at every accepted step when asked to, keeps the largest step of the current
/// segment, and stops the run after a failed evaluation.
struct Recorder<'a, const N: usize> {
    failure: &'a RefCell<Option<Failure<N>>>,
    every_step: bool,
    records: Vec<(f64, State<N>)>,
    largest_step: f64,
}

impl<const N: usize> Recorder<'_, N> {
    /// Makes (t, x) the last record: replaces a record at t, else appends.
    fn finish_segment(&mut self, t: f64, x: State<N>) {
        match self.records.last_mut() {
            Some(last) if last.0 >= t => *last = (t, x),
            _ => self.records.push((t, x)),
        }
    }
}

impl<const N: usize> Solout<f64, State<N>> for Recorder<'_, N> {
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
        if self.every_step && self.records.last().is_none_or(|(t, _)| *t < t_curr) {
            self.records.push((t_curr, *y_curr));
        }
        ControlFlag::Continue
    }
}

/// The integrator's reason for an error, without the state it carries.
fn integrator_reason<const N: usize>(
    error: &differential_equations::error::Error<f64, State<N>>,
) -> String {
    use differential_equations::error::Error as E;
    match error {
        E::MaxSteps { .. } => "the maximum number of steps was reached".into(),
        E::StepSize { .. } => "the step size became too small".into(),
        E::Stiffness { .. } => "the problem looks stiff to the explicit method".into(),
        E::BadInput { msg } | E::LinearAlgebra { msg, .. } => msg.clone(),
        other => format!("{other:?}"),
    }
}

/// Picks the method and runs.
pub(super) fn run<D: Dynamics<N>, const N: usize>(
    dynamics: &D,
    x0: State<N>,
    t0: f64,
    tf: f64,
    options: &SimulationOptions,
) -> Result<Trajectory<N>, SimulationError<N>> {
    options
        .validate(t0, tf)
        .map_err(|what| SimulationError::InvalidOptions { what })?;
    let (rtol, atol, max_steps) = (options.rtol, options.atol, options.max_steps);
    match options.method {
        Method::Dop853 => run_with(dynamics, x0, t0, tf, options, |h0, _| {
            let mut method =
                ExplicitRungeKutta::<Ordinary, DormandPrince, f64, State<N>, 8, 12, 16>::dop853()
                    .rtol(rtol)
                    .atol(atol)
                    .max_steps(max_steps);
            method.h0 = h0;
            method
        }),
        Method::Dopri5 => run_with(dynamics, x0, t0, tf, options, |h0, _| {
            let mut method =
                ExplicitRungeKutta::<Ordinary, DormandPrince, f64, State<N>, 5, 7, 7>::dopri5()
                    .rtol(rtol)
                    .atol(atol)
                    .max_steps(max_steps);
            method.h0 = h0;
            method
        }),
        Method::Rk4 { step } => run_with(dynamics, x0, t0, tf, options, |_, length| {
            ExplicitRungeKutta::<Ordinary, Fixed, f64, State<N>, 4, 4, 4>::rk4(step.min(length))
                .max_steps(max_steps)
        }),
    }
}

/// Integrates segment by segment, `method(h0, length)` building the integrator of a segment of
/// that length with initial step h0 ≤ length (0: the method's own estimate).
///
/// With [`OutputTimes::Every`] the segments end at the output times, so every output is a
/// step end, at the method's full accuracy: no dense-output interpolation is used (the DOP853
/// interpolant of `differential-equations` 0.7 is far less accurate than its steps), and
/// projection restarts from the projected state. A segment starts with the largest step the
/// previous one took or proposed (its last step is cut short to end on the output time).
fn run_with<D, S, const N: usize>(
    dynamics: &D,
    x0: State<N>,
    t0: f64,
    tf: f64,
    options: &SimulationOptions,
    method: impl Fn(f64, f64) -> S,
) -> Result<Trajectory<N>, SimulationError<N>>
where
    D: Dynamics<N>,
    S: OrdinaryNumericalMethod<f64, State<N>> + Interpolation<f64, State<N>>,
{
    let rhs = Rhs {
        dynamics,
        failure: RefCell::new(None),
        evaluations: Cell::new(0),
    };
    let breakpoints = match options.output {
        OutputTimes::Steps => vec![t0, tf],
        OutputTimes::Every(dt) => output_times(t0, dt, tf),
    };
    let mut recorder = Recorder {
        failure: &rhs.failure,
        every_step: options.output == OutputTimes::Steps,
        records: Vec::new(),
        largest_step: 0.0,
    };
    let mut stats = Stats::default();
    let trajectory = |records: &[(f64, State<N>)], stats: Stats| {
        Box::new(Trajectory {
            kind: D::KIND,
            samples: records
                .iter()
                .map(|(t, x)| dynamics.sample(*t, x))
                .collect(),
            stats,
        })
    };
    let project = |t: f64, x: &State<N>, records: &[(f64, State<N>)], stats: Stats| match options
        .projection
    {
        None => Ok(*x),
        Some(projection) => {
            dynamics
                .project(t, x, &projection)
                .map_err(|source| SimulationError::Projection {
                    time: t,
                    source,
                    trajectory: trajectory(records, stats),
                })
        }
    };

    let mut x = project(t0, &x0, &[], stats)?;
    recorder.records.push((t0, x));
    let mut h0: f64 = 0.0;
    for segment in breakpoints.windows(2) {
        let (a, b) = (segment[0], segment[1]);
        recorder.largest_step = 0.0;
        let mut solver = method(h0.min(b - a), b - a);
        let result = solve_ode(&mut solver, &rhs, a, b, &x, &mut recorder);
        if let Ok(solution) = &result {
            stats.accepted_steps += solution.steps.accepted;
            stats.rejected_steps += solution.steps.rejected;
        }
        stats.rhs_evaluations = rhs.evaluations.get();
        if let Some(failure) = rhs.failure.take() {
            return Err(SimulationError::Dynamics {
                time: failure.time,
                state: Box::new(FailedState {
                    q: failure.state.column(0).into_owned(),
                    v: failure.state.column(1).into_owned(),
                }),
                source: failure.error,
                trajectory: trajectory(&recorder.records, stats),
            });
        }
        if let Err(error) = &result {
            return Err(SimulationError::Integrator {
                time: solver.t(),
                reason: integrator_reason(error),
                trajectory: trajectory(&recorder.records, stats),
            });
        }
        x = project(b, solver.y(), &recorder.records, stats)?;
        recorder.finish_segment(b, x);
        h0 = solver.h().max(recorder.largest_step);
    }
    Ok(*trajectory(&recorder.records, stats))
}
