//! The run: the system in first-order form handed to a `differential-equations` method, output
//! recorded at the requested times, the first failed evaluation turned into a stop.

use super::dynamics::{finite, join, split, Dynamics, Hamiltonian, Lagrangian, Phase, WithOptions};
use super::events::{Action, Event, EventRecord};
use super::locate::{locate, refine, Crossing, Dense, Detector, Dop853Dense, Watched};
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
use differential_equations::solout::{DefaultSolout, Solout};
use differential_equations::solution::Solution;
use differential_equations::traits::State as _;
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
    simulate_lagrangian_with_events(system, q0, qd0, t0, tf, options, &[])
}

/// [`simulate_lagrangian`] with `events`: each [`Event`]'s guard g(t, q, q̇) is watched, and
/// each crossing is located, logged in [`Trajectory::events`] and acted on (a stop ends the run
/// with `Ok`, a reset replaces the state, as an impact does).
///
/// ```
/// use udk::lagrangian;
/// use udk::nalgebra::Vector1;
/// use udk::runtime::simulate::{simulate_lagrangian_with_events, Direction, Event, SimulationOptions};
///
/// /// A ball of mass m falling under gravity g.
/// #[lagrangian(coordinates(y), lagrangian = 0.5 * m * dot(y).powi(2) - m * g * y)]
/// pub struct Ball { pub m: f64, pub g: f64 }
///
/// let ball = Ball { m: 1.0, g: 9.81 };
/// let e = 0.8; // restitution: q̇⁺ = −e q̇⁻
/// let bounce = Event::reset("ground", Direction::Falling, |_, q: &Vector1<f64>, _| q[0], |_, q, v| {
///     Ok((*q, -e * v))
/// });
/// let options = SimulationOptions::default();
/// let run = simulate_lagrangian_with_events(
///     &ball, &Vector1::new(1.0), &Vector1::zeros(), 0.0, 2.0, &options, &[bounce],
/// )?;
/// let times: Vec<f64> = run.events.iter().map(|event| event.t).collect();
/// let t1 = (2.0_f64 / 9.81).sqrt(); // the first impact, t₁ = √(2h/g)
/// assert!((times[0] - t1).abs() < 1e-12, "{times:?}");
/// assert!((times[1] - t1 * (1.0 + 2.0 * e)).abs() < 1e-12, "{times:?}");
/// # Ok::<(), udk::runtime::simulate::SimulationError<1>>(())
/// ```
///
/// # Errors
/// As [`simulate_lagrangian`]; [`SimulationError::Reset`] when a reset map fails,
/// [`SimulationError::Zeno`] when the events break [`SimulationOptions::events`].
pub fn simulate_lagrangian_with_events<S, const N: usize, const M: usize>(
    system: &S,
    q0: &SVector<f64, N>,
    qd0: &SVector<f64, N>,
    t0: f64,
    tf: f64,
    options: &SimulationOptions,
    events: &[Event<'_, N>],
) -> Result<Trajectory<N>, SimulationError<N>>
where
    S: LagrangianSystem<N, M>,
{
    let dynamics: Lagrangian<_, N, M> = WithOptions::new(system, options);
    let start = (join(q0, qd0), t0, tf);
    run(&dynamics, start, options, events, &mut |_| {
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
    let start = (join(q0, p0), t0, tf);
    run(&dynamics, start, options, &[], &mut |_| {
        ControlFlow::Continue(())
    })
}

/// What a run hands each sample to as soon as it is recorded; `Break` stops the run.
type Observer<'o, const N: usize> = dyn FnMut(&Sample<N>) -> ControlFlow<()> + 'o;

/// The first failed right-hand-side evaluation, at the integrated state `state`.
struct Failure<X> {
    time: f64,
    state: X,
    error: Error,
}

/// The right-hand side handed to the integrator. `ODE::diff` cannot fail, so the first error
/// is kept here and every later call returns zeros until [`Recorder`] stops the run at the end
/// of the current step; no value computed after the failure is recorded.
struct Rhs<'a, D: Dynamics<N> + ?Sized, const N: usize> {
    dynamics: &'a D,
    failure: RefCell<Option<Failure<D::Integrated>>>,
    evaluations: Cell<usize>,
    jacobians: Cell<usize>,
    finite_difference_jacobians: Cell<usize>,
}

/// The right-hand side alone, so that its `ODE::jacobian` is the crate's forward-difference
/// default.
struct FiniteDifferences<'a, R>(&'a R);

impl<R: ODE<f64, X>, X: differential_equations::traits::State<f64>> ODE<f64, X>
    for FiniteDifferences<'_, R>
{
    fn diff(&self, t: f64, x: &X, xd: &mut X) {
        self.0.diff(t, x, xd);
    }
}

impl<D: Dynamics<N> + ?Sized, const N: usize> ODE<f64, D::Integrated> for Rhs<'_, D, N> {
    fn diff(&self, t: f64, x: &D::Integrated, xd: &mut D::Integrated) {
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
                    state: x.clone(),
                    error,
                });
            }
        }
    }

    /// The Jacobian of ẋ = [v, a] in the crate's component order (row-major over the n × c
    /// integrated state: component c·i + 2p is qᵢ of column pair p, c·i + 2p + 1 its vᵢ): the
    /// system's, the same for every pair of columns (exact for the state, pair 0, and for the
    /// tangent vectors of the variational equations, which are linear in them; their
    /// dependence on the state is left out of this Newton matrix), or forward differences when
    /// the system has none (or it does not exist at x).
    fn jacobian(&self, t: f64, x: &D::Integrated, j: &mut Matrix<f64>) {
        self.jacobians.set(self.jacobians.get() + 1);
        match self.dynamics.jacobian(t, x) {
            Ok((wrt_q, wrt_v)) => {
                j.fill(0.0);
                let c = x.columns();
                for p in (0..c).step_by(2) {
                    for i in 0..N {
                        j[(c * i + p, c * i + p + 1)] = 1.0;
                        for k in 0..N {
                            j[(c * i + p + 1, c * k + p)] = wrt_q[(i, k)];
                            j[(c * i + p + 1, c * k + p + 1)] = wrt_v[(i, k)];
                        }
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
/// failed evaluation, a stop asked by the observer, at `max_samples`, or at the first step
/// that crosses an event's guard (kept in `crossing`, the step end not recorded).
struct Recorder<'a, 'w, D: Dynamics<N> + ?Sized, const N: usize> {
    dynamics: &'a D,
    detector: Option<Detector<'w, D::Integrated, N>>,
    crossing: Option<Crossing<D::Integrated>>,
    events: Vec<EventRecord<N>>,
    /// The events in a row less than 1/`max_rate` apart, the last included.
    burst: usize,
    failure: &'a RefCell<Option<Failure<D::Integrated>>>,
    observe: &'a mut dyn FnMut(&Sample<N>) -> ControlFlow<()>,
    every_step: bool,
    max_samples: usize,
    samples: Vec<Sample<N>>,
    largest_step: f64,
    halt: Option<Halt>,
}

impl<D: Dynamics<N> + ?Sized, const N: usize> Recorder<'_, '_, D, N> {
    /// Records (t, x) unless a sample at t or later is already recorded.
    fn record(&mut self, t: f64, x: &D::Integrated) {
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

    /// The error of a run stopped by a failed evaluation.
    fn failed(&self, failure: Failure<D::Integrated>, stats: Stats) -> SimulationError<N> {
        let (q, v) = split(&failure.state.motion());
        SimulationError::Dynamics {
            time: failure.time,
            state: Box::new(FailedState { q, v }),
            source: failure.error,
            trajectory: self.trajectory(stats),
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
            kind: self.dynamics.kind(),
            state_columns: self.dynamics.state_columns(),
            samples: self.samples.clone(),
            stats,
            events: self.events.clone(),
            outputs: OutputTable {
                columns: columns.iter().map(|c| c.to_string()).collect(),
                values,
            },
        })
    }
}

impl<D: Dynamics<N> + ?Sized, const N: usize> Solout<f64, D::Integrated>
    for Recorder<'_, '_, D, N>
{
    fn solout<I>(
        &mut self,
        t_curr: f64,
        t_prev: f64,
        y_curr: &D::Integrated,
        y_prev: &D::Integrated,
        interpolator: &mut I,
        _solution: &mut Solution<f64, D::Integrated>,
    ) -> ControlFlag<f64, D::Integrated>
    where
        I: Interpolation<f64, D::Integrated> + ?Sized,
    {
        if self.failure.borrow().is_some() {
            return ControlFlag::Terminate;
        }
        self.largest_step = self.largest_step.max(t_curr - t_prev);
        if let Some(detector) = &mut self.detector {
            let ends = ((t_prev, y_prev), (t_curr, y_curr));
            self.crossing = detector.step(ends.0, ends.1, interpolator);
            if self.crossing.is_some() {
                return ControlFlag::Terminate;
            }
        }
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
fn integrator_reason<X: differential_equations::traits::State<f64>>(
    error: &differential_equations::error::Error<f64, X>,
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
fn check_start<D: Dynamics<N> + ?Sized, const N: usize>(
    dynamics: &D,
    t: f64,
    x: &D::Integrated,
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
    start: (D::Integrated, f64, f64),
    options: &SimulationOptions,
    events: &[Event<'_, N>],
    observe: &mut dyn FnMut(&Sample<N>) -> ControlFlow<()>,
) -> Result<Trajectory<N>, SimulationError<N>> {
    run_to_end(dynamics, start, options, events, observe).map(|(trajectory, _)| trajectory)
}

/// [`run`], with the integrated state where the run ended: at t_f, or at the event that
/// stopped it.
///
/// The system comes behind a `dyn Dynamics`, so that the integration loop, its five methods
/// and the event location are compiled once per state type (n and the columns), not once per
/// system type. `udk::Model` dispatches its runs to every n up to its maximum for five kinds of
/// system: erased, its crate compiles a quarter of the copies of the loop (half the code). The
/// cost is one indirect call per evaluation of the system.
pub(super) fn run_to_end<X: Phase<N>, const N: usize>(
    dynamics: &dyn Dynamics<N, Integrated = X>,
    (x0, t0, tf): (X, f64, f64),
    options: &SimulationOptions,
    events: &[Event<'_, N>],
    observe: &mut dyn FnMut(&Sample<N>) -> ControlFlow<()>,
) -> Result<(Trajectory<N>, X), SimulationError<N>> {
    options
        .validate(t0, tf)
        .map_err(|what| SimulationError::InvalidOptions { what })?;
    finite(&x0, "initial state").map_err(|_| SimulationError::NonFiniteStart)?;
    let (rtol, atol) = (options.rtol, options.atol);
    let (start, hooks) = ((x0, t0, tf), (events, observe));
    // An adaptive method with the run's tolerances, its initial step h0 and the steps left.
    macro_rules! adaptive {
        ($method:expr, $dense:expr) => {
            run_with(
                dynamics,
                start,
                options,
                hooks,
                |h0, _, max_steps| $method.rtol(rtol).atol(atol).max_steps(max_steps).h0(h0),
                $dense,
            )
        };
    }
    match options.method {
        Method::Dop853 => adaptive!(
            ExplicitRungeKutta::<Ordinary, DormandPrince, f64, X, 8, 12, 16>::dop853(),
            Dense::Dop853
        ),
        Method::Dopri5 => adaptive!(
            ExplicitRungeKutta::<Ordinary, DormandPrince, f64, X, 5, 7, 7>::dopri5(),
            Dense::Direct
        ),
        Method::Radau5 => adaptive!(
            ImplicitRungeKutta::<Ordinary, Radau, f64, X, 5, 3, 3>::radau5(),
            Dense::Direct
        ),
        Method::Bdf => adaptive!(
            BackwardDifferentiationFormula::<Ordinary, f64, X>::adaptive(),
            Dense::Direct
        ),
        Method::Rk4 { step } => run_with(
            dynamics,
            start,
            options,
            hooks,
            |_, length, max_steps| {
                ExplicitRungeKutta::<Ordinary, Fixed, f64, X, 4, 4, 4>::rk4(step.min(length))
                    .max_steps(max_steps)
            },
            Dense::Direct,
        ),
    }
}

/// After an event: the time and the integrated state to go on from (`Continue`), or where a
/// stop ends the run (`Break`).
type Next<X> = ControlFlow<(f64, X), (f64, X)>;

/// What every piece of a run integrates with: the right-hand side, the watched events, the
/// options and the method.
struct Pieces<'r, 'w, D: Dynamics<N> + ?Sized, F, const N: usize> {
    rhs: &'r Rhs<'r, D, N>,
    watched: &'w [Watched<'w, N>],
    options: &'r SimulationOptions,
    method: F,
    /// How the method's interpolant gives the dense output of a step.
    dense: Dense,
}

impl<'w, D, F, S, const N: usize> Pieces<'_, 'w, D, F, N>
where
    D: Dynamics<N> + ?Sized,
    F: Fn(f64, f64, usize) -> S,
    S: OrdinaryNumericalMethod<f64, D::Integrated> + Interpolation<f64, D::Integrated>,
{
    /// Integrates from x at a to b, with initial step h0, the events watched (the recorder
    /// records and observes) or not (nothing is recorded); the solver where it stopped.
    ///
    /// # Errors
    /// A failed evaluation, a halt of the recorder, an integrator error.
    fn integrate(
        &self,
        (a, b): (f64, f64),
        x: &D::Integrated,
        h0: f64,
        recorder: &mut Recorder<'_, 'w, D, N>,
        stats: &mut Stats,
        watch: bool,
    ) -> Result<S, SimulationError<N>> {
        let options = self.options;
        let steps_left =
            (options.max_steps).saturating_sub(stats.accepted_steps + stats.rejected_steps);
        let mut solver = (self.method)(h0.min(b - a), b - a, steps_left);
        let rhs = self.rhs;
        let result = match watch {
            true => {
                recorder.detector = Some(Detector::new(self.watched, a, b));
                solve_ode(&mut solver, rhs, a, b, x, recorder)
            }
            false => solve_ode(&mut solver, rhs, a, b, x, &mut DefaultSolout::new()),
        };
        if let Ok(solution) = &result {
            stats.accepted_steps += solution.steps.accepted;
            stats.rejected_steps += solution.steps.rejected;
        }
        stats.rhs_evaluations = rhs.evaluations.get();
        stats.jacobian_evaluations = rhs.jacobians.get();
        stats.finite_difference_jacobians = rhs.finite_difference_jacobians.get();
        if let Some(failure) = rhs.failure.take() {
            return Err(recorder.failed(failure, *stats));
        }
        if let Some(halt) = recorder.halt {
            return Err(recorder.halted(halt, options.max_samples, *stats));
        }
        if let Err(error) = &result {
            return Err(SimulationError::Integrator {
                time: solver.t(),
                reason: integrator_reason(error),
                trajectory: recorder.trajectory(*stats),
            });
        }
        Ok(solver)
    }

    /// ẋ at (t, x), counted as a right-hand-side evaluation.
    ///
    /// # Errors
    /// [`SimulationError::Dynamics`] when the dynamics fail at x.
    fn derivative(
        &self,
        t: f64,
        x: &D::Integrated,
        recorder: &Recorder<'_, 'w, D, N>,
        stats: &mut Stats,
    ) -> Result<D::Integrated, SimulationError<N>> {
        let evaluations = &self.rhs.evaluations;
        evaluations.set(evaluations.get() + 1);
        stats.rhs_evaluations = evaluations.get();
        self.rhs.dynamics.derivative(t, x).map_err(|error| {
            let failure = Failure {
                time: t,
                state: x.clone(),
                error,
            };
            recorder.failed(failure, *stats)
        })
    }

    /// Locates `crossing` (its guess refined on the dense output of the step, `interpolator`,
    /// then on the flow), logs the event and acts on it: the event time and the
    /// state to go on from (`Continue`), or the state where a stop ends the run (`Break`). A
    /// crossing where the event's condition does not hold is passed through: the run goes on
    /// from it, nothing logged.
    ///
    /// # Errors
    /// A failed piece or evaluation, a failed reset, a burst of events over the limits.
    fn event(
        &self,
        crossing: &Crossing<D::Integrated>,
        interpolator: &mut S,
        events: &[Event<'_, N>],
        recorder: &mut Recorder<'_, 'w, D, N>,
        stats: &mut Stats,
    ) -> Result<Next<D::Integrated>, SimulationError<N>> {
        let (options, event) = (self.options, &events[crossing.index]);
        let watched = &self.watched[crossing.index];
        let guess = match self.dense {
            Dense::Direct => refine(watched, crossing, |t| interpolator.interpolate(t).ok()),
            Dense::Dop853 => {
                let ends = (
                    self.derivative(crossing.t_prev, &crossing.y_prev, recorder, stats)?,
                    self.derivative(crossing.t_curr, &crossing.y_curr, recorder, stats)?,
                );
                let mut dense = Dop853Dense::new(interpolator, crossing, ends);
                refine(watched, crossing, |t| dense.at(t))
            }
        };
        let flow = |t: f64| {
            let ends = (crossing.t_prev, t);
            let h = t - crossing.t_prev;
            let solver = self.integrate(ends, &crossing.y_prev, h, recorder, stats, false)?;
            let x = solver.y().clone();
            let xd = self.derivative(t, &x, recorder, stats)?;
            Ok((x, xd))
        };
        let (t, x) = locate(watched, crossing, guess, flow)?;
        let before = split(&x.motion());
        if !event.holds(t, &before.0, &before.1) {
            for watched in self.watched {
                watched.restart.set(None);
            }
            return Ok(ControlFlow::Continue((t, x)));
        }
        let after = match &event.action {
            Action::Reset(reset) => (reset(t, &before.0, &before.1))
                .and_then(|(q, v)| finite(&join(&q, &v), "state after the reset").map(|_| (q, v)))
                .map_err(|source| SimulationError::Reset {
                    name: event.name.clone(),
                    time: t,
                    source,
                    trajectory: recorder.trajectory(*stats),
                })?,
            Action::Stop | Action::Record => before,
        };
        if recorder.events.len() >= options.events.max_events {
            return Err(SimulationError::Integrator {
                time: t,
                reason: format!(
                    "the event log is full at max_events = {}",
                    options.events.max_events
                ),
                trajectory: recorder.trajectory(*stats),
            });
        }
        let burst = match recorder.events.last() {
            Some(last) if t - last.t < 1.0 / options.events.max_rate => recorder.burst + 1,
            _ => 1,
        };
        recorder.burst = burst;
        recorder.events.push(EventRecord {
            t,
            index: crossing.index,
            name: event.name.clone(),
            before,
            after,
        });
        let stop = matches!(event.action, Action::Stop);
        if stop || recorder.every_step {
            recorder.record(t, &x);
        }
        if let Some(halt) = recorder.halt {
            return Err(recorder.halted(halt, options.max_samples, *stats));
        }
        if burst > options.events.max_in_a_row {
            return Err(SimulationError::Zeno {
                name: event.name.clone(),
                time: t,
                count: burst,
                trajectory: recorder.trajectory(*stats),
            });
        }
        // A reset that leaves the state as it was (a no-op impact) lets the motion go on
        // through the surface, as a record does.
        let reset = matches!(event.action, Action::Reset(_)) && after != before;
        for (index, watched) in self.watched.iter().enumerate() {
            let fired = reset && index == crossing.index;
            watched.restart.set(fired.then_some((t, crossing.sign)));
        }
        let next = (t, x.with_motion(&join(&after.0, &after.1)));
        Ok(match stop {
            true => ControlFlow::Break(next),
            false => ControlFlow::Continue(next),
        })
    }
}

/// Integrates segment by segment from x₀ at t₀ to t_f, `method(h0, length, max_steps)`
/// building the integrator of a segment of that length with initial step h0 ≤ length (0: the
/// method's own estimate) and the steps left of [`SimulationOptions::max_steps`].
///
/// With [`OutputTimes::Every`] the segments end at the output times, so every output is a
/// step end, at the method's full accuracy: no dense-output interpolation is used (the DOP853
/// interpolant of `differential-equations` 0.7 is far less accurate than its steps, see
/// [`Dop853Dense`]), and
/// projection restarts from the projected state. A segment starts with the largest step the
/// previous one took or proposed (its last step is cut short to end on the output time).
///
/// A step that crosses an event's guard ends its piece of the segment: the event is located on
/// the step's dense output ([`refine`]; `dense` says how the method's interpolant gives it),
/// then on the flow ([`locate`]), and acted on, and the segment goes on from the event time
/// with the new state. The integrator restarts there, as `differential-equations` does for a
/// `ControlFlag::ModifyState`, but from a state at step accuracy and with the step size the
/// method proposed after the crossing step, at most the crossing step's length (its error
/// control rejects and shrinks it where the reset made the motion faster).
fn run_with<D, S, const N: usize>(
    dynamics: &D,
    (x0, t0, tf): (D::Integrated, f64, f64),
    options: &SimulationOptions,
    (events, observe): (&[Event<'_, N>], &mut Observer<'_, N>),
    method: impl Fn(f64, f64, usize) -> S,
    dense: Dense,
) -> Result<(Trajectory<N>, D::Integrated), SimulationError<N>>
where
    D: Dynamics<N> + ?Sized,
    S: OrdinaryNumericalMethod<f64, D::Integrated> + Interpolation<f64, D::Integrated>,
{
    let rhs = Rhs {
        dynamics,
        failure: RefCell::new(None),
        evaluations: Cell::new(0),
        jacobians: Cell::new(0),
        finite_difference_jacobians: Cell::new(0),
    };
    let watched: Vec<Watched<N>> = (events.iter())
        .map(|event| Watched {
            event,
            restart: Cell::new(None),
        })
        .collect();
    let pieces = Pieces {
        rhs: &rhs,
        watched: &watched,
        options,
        method,
        dense,
    };
    let mut recorder = Recorder {
        dynamics,
        detector: None,
        crossing: None,
        events: Vec::new(),
        burst: 0,
        failure: &rhs.failure,
        observe,
        every_step: options.output == OutputTimes::Steps,
        max_samples: options.max_samples,
        samples: Vec::new(),
        largest_step: 0.0,
        halt: None,
    };
    let mut stats = Stats::default();
    let project = |t: f64, x: &D::Integrated, recorder: &Recorder<D, N>, stats: Stats| match options
        .projection
    {
        None => Ok(x.clone()),
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
        let mut h_next;
        let end = loop {
            let mut solver = pieces.integrate((a, b), &x, h0, &mut recorder, &mut stats, true)?;
            h_next = solver.h();
            let Some(crossing) = recorder.crossing.take() else {
                break solver.y().clone();
            };
            let event = pieces.event(&crossing, &mut solver, events, &mut recorder, &mut stats);
            let restart = match event? {
                ControlFlow::Continue(restart) => restart,
                ControlFlow::Break((_, end)) => return Ok((*recorder.trajectory(stats), end)),
            };
            (a, x) = restart;
            // Go on with the step the method proposed after the crossing step, not with its
            // initial-step estimate from scratch (two more evaluations, then a ramp up from a
            // step far shorter than the motion needs), but no longer than the crossing step:
            // the error estimate behind the proposal is the motion's before the event, so, as
            // after a rejected step, the step does not grow until one is accepted after it.
            h0 = h_next.min(crossing.t_curr - crossing.t_prev);
            if b - a <= 16.0 * f64::EPSILON * b.abs().max(1.0) {
                break x;
            }
        };
        x = project(b, &end, &recorder, stats)?;
        recorder.record(b, &x);
        if let Some(halt) = recorder.halt {
            return Err(recorder.halted(halt, options.max_samples, stats));
        }
        h0 = h_next.max(recorder.largest_step);
        (a, k) = (b, k + 1);
    }
    Ok((*recorder.trajectory(stats), x))
}
