//! Periodic orbits of hybrid systems (walkers, rolling wheels): the Poincaré return map at an
//! event, its fixed point by Newton's method, and the Floquet multipliers of the orbit from the
//! state transition matrix of the flow and the saltation matrix of the reset.

use super::dynamic::{DynamicLagrange, DynamicLagrangianSystem};
use super::dynamics::{join, split, Dynamics, Lagrangian, WithOptions};
use super::events::{Action, Event};
use super::integrate::run;
use super::{OutputTimes, SimulationError, SimulationOptions, Trajectory};
use crate::linearize::sorted_eigenvalues;
use crate::{pinv, Error, LagrangianSystem};
use nalgebra::{Complex, DMatrix, DVector, SVector};
use std::ops::ControlFlow;

/// Options of [`periodic_orbit`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OrbitOptions {
    /// Newton stops when ‖P(x) − x‖∞ ≤ this, relative to max(1, ‖x‖∞). Default 1e-10.
    pub tolerance: f64,
    /// At most this many Newton iterations. Default 20.
    pub max_iterations: usize,
    /// The relative step of the central differences. Default 1e-5.
    pub step: f64,
    /// A return must reach the event within this time (s). Default 100.
    pub max_period: f64,
}

impl Default for OrbitOptions {
    fn default() -> Self {
        Self {
            tolerance: 1e-10,
            max_iterations: 20,
            step: 1e-5,
            max_period: 100.0,
        }
    }
}

/// A periodic orbit through the section of an event, n = `N` coordinates.
#[derive(Clone, Debug, PartialEq)]
pub struct PeriodicOrbit<const N: usize> {
    /// The fixed point x* = (q, v) of the return map, on the section just after the reset.
    pub q: SVector<f64, N>,
    /// Its velocities q̇ (n entries).
    pub v: SVector<f64, N>,
    /// The period τ (s): the time from the section back to it.
    pub period: f64,
    /// The monodromy matrix S Φ (2n × 2n, state order (q, v)).
    pub monodromy: DMatrix<f64>,
    /// The Floquet multipliers: the 2n − 1 eigenvalues of the monodromy matrix besides the one
    /// nearest 1 (the flow direction), by decreasing magnitude. A reset onto a set of lower
    /// dimension adds zeros.
    pub multipliers: Vec<Complex<f64>>,
    /// The Newton iterations taken.
    pub iterations: usize,
}

/// Why [`periodic_orbit`] failed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum OrbitError<const N: usize> {
    /// A run failed.
    #[error("a return of the orbit failed: {0}")]
    Simulation(#[from] SimulationError<N>),
    /// The event did not fire within [`OrbitOptions::max_period`].
    #[error("the event did not fire within {max_period} s of the section")]
    NoReturn {
        /// The bound (s).
        max_period: f64,
    },
    /// The reset map, a pseudoinverse or the eigenvalues failed; the guard is not crossed
    /// transversally (∇g·f⁻ = 0); or the options are out of range.
    #[error("the orbit's linearization failed: {0}")]
    Kernel(#[from] Error),
    /// Newton's method did not bring ‖P(x) − x‖ under the tolerance.
    #[error("no periodic orbit found: ‖P(x) − x‖ = {residual:e} after {iterations} iterations")]
    NoConvergence {
        /// The iterations taken.
        iterations: usize,
        /// The last residual.
        residual: f64,
    },
}

/// One return from the section: the event time τ, the state x⁻ before the reset and x⁺ after.
struct Return {
    period: f64,
    before: DVector<f64>,
    after: DVector<f64>,
}

/// The return map and its Jacobians for one system (in first-order form) and event.
struct ReturnMap<'s, D, const N: usize> {
    dynamics: &'s D,
    event: &'s Event<'s, N>,
    options: SimulationOptions,
    orbit: OrbitOptions,
}

/// x = (q, v) as one 2n-vector, and back.
fn stack<const N: usize>(q: &SVector<f64, N>, v: &SVector<f64, N>) -> DVector<f64> {
    DVector::from_iterator(2 * N, q.iter().chain(v.iter()).copied())
}

fn halves<const N: usize>(x: &DVector<f64>) -> (SVector<f64, N>, SVector<f64, N>) {
    (
        SVector::from_iterator(x.rows(0, N).iter().copied()),
        SVector::from_iterator(x.rows(N, N).iter().copied()),
    )
}

impl<D: Dynamics<N>, const N: usize> ReturnMap<'_, D, N> {
    /// A run of the flow from x at t = 0 to `tf` with `events`.
    fn run(
        &self,
        x: &DVector<f64>,
        tf: f64,
        options: &SimulationOptions,
        events: &[Event<'_, N>],
    ) -> Result<Trajectory<N>, SimulationError<N>> {
        let (q, v) = halves::<N>(x);
        let start = (join(&q, &v), 0.0, tf);
        run(self.dynamics, start, options, events, &mut |_| {
            ControlFlow::Continue(())
        })
    }

    /// Integrates from x⁺ at t = 0 to the first firing of the event.
    fn step(&self, x: &DVector<f64>) -> Result<Return, OrbitError<N>> {
        let event = self.event;
        let stop = Event::new(
            event.name.clone(),
            event.direction,
            |t, q, v| event.value(t, q, v),
            Action::Stop,
        )
        .when(|t, q, v| event.holds(t, q, v));
        let max_period = self.orbit.max_period;
        let run = self.run(x, max_period, &self.options, &[stop])?;
        let fired = run
            .events
            .first()
            .ok_or(OrbitError::NoReturn { max_period })?;
        let before = stack(&fired.before.0, &fired.before.1);
        let after = self.reset(fired.t, &before)?;
        Ok(Return {
            period: fired.t,
            before,
            after,
        })
    }

    /// The event's reset map on a stacked state.
    fn reset(&self, t: f64, x: &DVector<f64>) -> Result<DVector<f64>, Error> {
        let (q, v) = halves::<N>(x);
        match &self.event.action {
            Action::Reset(reset) => reset(t, &q, &v).map(|(q, v)| stack(&q, &v)),
            Action::Stop | Action::Record => Ok(x.clone()),
        }
    }

    /// ẋ = (q̇, q̈) at x (on the constraint manifold, where stabilization changes nothing).
    fn flow(&self, t: f64, x: &DVector<f64>) -> Result<DVector<f64>, Error> {
        let (q, v) = halves::<N>(x);
        let (v, a) = split(&self.dynamics.derivative(t, &join(&q, &v))?);
        Ok(stack(&v, &a))
    }

    /// Central differences of `f` at x, one column per state entry.
    fn differences(
        &self,
        x: &DVector<f64>,
        mut f: impl FnMut(&DVector<f64>) -> Result<DVector<f64>, OrbitError<N>>,
    ) -> Result<DMatrix<f64>, OrbitError<N>> {
        let mut columns = Vec::with_capacity(2 * N);
        for j in 0..2 * N {
            let h = self.orbit.step * x[j].abs().max(1.0);
            let (mut plus, mut minus) = (x.clone(), x.clone());
            plus[j] += h;
            minus[j] -= h;
            columns.push((f(&plus)? - f(&minus)?) / (2.0 * h));
        }
        Ok(DMatrix::from_columns(&columns))
    }

    /// (DP, S Φ) at x⁺ with its return `back`.
    fn jacobians(
        &self,
        x: &DVector<f64>,
        back: &Return,
    ) -> Result<(DMatrix<f64>, DMatrix<f64>), OrbitError<N>> {
        let tau = back.period;
        let options = SimulationOptions {
            output: OutputTimes::Steps,
            ..self.options.clone()
        };
        let transition = self.differences(x, |x| {
            let run = self.run(x, tau, &options, &[])?;
            let last = run
                .samples
                .last()
                .ok_or(OrbitError::NoReturn { max_period: tau })?;
            Ok(stack(&last.q, &last.v))
        })?;
        let guard = self.differences(&back.before, |x| {
            let (q, v) = halves::<N>(x);
            Ok(DVector::from_element(1, self.event.value(tau, &q, &v)))
        })?;
        let reset = self.differences(&back.before, |x| Ok(self.reset(tau, x)?))?;
        let (before, after) = (self.flow(tau, &back.before)?, self.flow(tau, &back.after)?);
        let gradient = guard.row(0).transpose();
        let rate = gradient.dot(&before);
        if rate == 0.0 || !rate.is_finite() {
            return Err(OrbitError::Kernel(Error::NonFinite {
                what: "1/(∇g·f⁻): the orbit grazes the guard",
            }));
        }
        let jump = &reset * &before;
        let saltation = &reset + (&after - &jump) * gradient.transpose() / rate;
        let monodromy = &saltation * &transition;
        let section = &after * (gradient.transpose() * &transition) / rate;
        Ok((&monodromy - section, monodromy))
    }
}

/// The periodic orbit through the section of `event` (whose action is a reset) of an autonomous
/// Lagrangian system, by Newton's method on P(x) = x from the guess (q, v) just after a reset:
/// x ← x − (DP − I)⁺ (P(x) − x), ⁺ the Moore–Penrose inverse; then its period, monodromy
/// matrix and Floquet multipliers.
///
/// The state is x = (q, v) (2n entries), the section is the event's surface just after its
/// reset, and the system must be autonomous (every return starts at t = 0). One return from x⁺
/// integrates to the event at time τ (state x⁻), then applies the reset R: P(x⁺) = R(x⁻). Its
/// Jacobian is DP = (DR − DR f⁻ ∇gᵀ / (∇g·f⁻)) Φ, and the monodromy matrix of the orbit is
/// S Φ with the saltation matrix S = DR + (f⁺ − DR f⁻) ∇gᵀ / (∇g·f⁻) (Aizerman & Gantmacher
/// 1958; Leine & Nijmeijer 2004, for a reset map), where Φ = ∂x(τ)/∂x(0) is the state
/// transition matrix of the flow from 0 to τ, f∓ = ẋ before and after the reset, and ∇g the
/// guard's gradient.
/// The monodromy matrix has the multiplier 1 along the flow (S f⁻ = f⁺); the others are the
/// Floquet multipliers of the orbit, and the eigenvalues of DP besides its 0 along the flow.
///
/// Φ, ∇g and DR are central differences (of runs of the flow to the fixed time τ, of the guard,
/// of the reset map), with relative step [`OrbitOptions::step`]: the multipliers are accurate to
/// about the step squared plus the integration tolerance over the step.
///
/// # Errors
/// [`OrbitError::Simulation`] for a failed run, [`OrbitError::NoReturn`] when the event does
/// not fire within [`OrbitOptions::max_period`], [`OrbitError::Kernel`] for a failed reset,
/// pseudoinverse or eigenvalue computation, a grazing orbit or bad options,
/// [`OrbitError::NoConvergence`] when Newton's method does not converge.
pub fn periodic_orbit<S, const N: usize, const M: usize>(
    system: &S,
    event: &Event<'_, N>,
    start: (&SVector<f64, N>, &SVector<f64, N>),
    options: &SimulationOptions,
    orbit: &OrbitOptions,
) -> Result<PeriodicOrbit<N>, OrbitError<N>>
where
    S: LagrangianSystem<N, M>,
{
    let dynamics: Lagrangian<_, N, M> = WithOptions::new(system, options);
    find_orbit(&dynamics, event, start, options, orbit)
}

/// [`periodic_orbit`] for a Lagrangian system of run-time size with n = `N` (a model file's
/// tapes, as `udk limit-cycle` runs them).
///
/// # Errors
/// As [`periodic_orbit`].
pub fn periodic_dynamic_orbit<S: DynamicLagrangianSystem, const N: usize>(
    system: &S,
    event: &Event<'_, N>,
    start: (&SVector<f64, N>, &SVector<f64, N>),
    options: &SimulationOptions,
    orbit: &OrbitOptions,
) -> Result<PeriodicOrbit<N>, OrbitError<N>> {
    let dynamics: WithOptions<_, DynamicLagrange> = WithOptions::new(system, options);
    find_orbit(&dynamics, event, start, options, orbit)
}

/// Newton's method of [`periodic_orbit`] on any system in first-order form.
fn find_orbit<D: Dynamics<N>, const N: usize>(
    dynamics: &D,
    event: &Event<'_, N>,
    (q, v): (&SVector<f64, N>, &SVector<f64, N>),
    options: &SimulationOptions,
    orbit: &OrbitOptions,
) -> Result<PeriodicOrbit<N>, OrbitError<N>> {
    let valid = |x: f64| x.is_finite() && x > 0.0;
    if !(valid(orbit.tolerance) && valid(orbit.step) && valid(orbit.max_period)) {
        return Err(OrbitError::Kernel(Error::InvalidOption {
            what: "the orbit tolerance, step and max_period must be finite and positive",
        }));
    }
    // The differences and Newton's iterates start off the constraints by their steps: the
    // runs do not check the start (Baumgarte stabilization brings them back).
    let options = SimulationOptions {
        constraint_tolerance: f64::MAX,
        ..options.clone()
    };
    let map = ReturnMap {
        dynamics,
        event,
        options,
        orbit: *orbit,
    };
    let mut x = stack(q, v);
    let mut residual = f64::INFINITY;
    for iterations in 0..=orbit.max_iterations {
        let back = map.step(&x)?;
        let defect = &back.after - &x;
        residual = defect.amax();
        let (jacobian, monodromy) = map.jacobians(&x, &back)?;
        if residual <= orbit.tolerance * x.amax().max(1.0) {
            let mut multipliers = sorted_eigenvalues(&monodromy)?;
            let trivial = (0..multipliers.len())
                .min_by(|&a, &b| {
                    let distance = |z: Complex<f64>| (z - 1.0).norm();
                    distance(multipliers[a]).total_cmp(&distance(multipliers[b]))
                })
                .ok_or(Error::InvalidOption {
                    what: "a system with no coordinates has no orbit",
                })?;
            multipliers.remove(trivial);
            multipliers.sort_by(|a, b| b.norm().total_cmp(&a.norm()));
            let (q, v) = halves::<N>(&x);
            return Ok(PeriodicOrbit {
                q,
                v,
                period: back.period,
                monodromy,
                multipliers,
                iterations,
            });
        }
        let newton = jacobian - DMatrix::identity(2 * N, 2 * N);
        x -= pinv(&newton, None)? * defect;
    }
    Err(OrbitError::NoConvergence {
        iterations: orbit.max_iterations,
        residual,
    })
}
