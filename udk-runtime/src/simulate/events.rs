//! Events of a run: guard functions g(t, q, v) whose zero crossings stop the run, are recorded,
//! or apply a reset map to the state (an impact, a switch of legs), the log of the events that
//! happened, and the bounds that end a Zeno or chattering run.

use crate::Error;
use nalgebra::SVector;

/// Which zero crossings of a guard g fire its event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// g goes from negative to zero or positive.
    Rising,
    /// g goes from positive to zero or negative (a gap closing: touchdown, heel strike).
    Falling,
    /// Either.
    Both,
}

/// A reset map (t, q⁻, v⁻) ↦ (q⁺, v⁺), n entries each (v: q̇ or p as the run's state). An
/// error stops the run with [`super::SimulationError::Reset`].
pub type ResetMap<'a, const N: usize> = dyn Fn(f64, &SVector<f64, N>, &SVector<f64, N>) -> Result<(SVector<f64, N>, SVector<f64, N>), Error>
    + 'a;

/// A guard function g(t, q, v) (units of the guard; v: q̇ or p as the run's state).
pub type GuardFunction<'a, const N: usize> =
    dyn Fn(f64, &SVector<f64, N>, &SVector<f64, N>) -> f64 + 'a;

/// The gradient of a guard at (t, q, v): (∂g/∂q, ∂g/∂v), n entries each.
pub type GuardGradient<'a, const N: usize> =
    dyn Fn(f64, &SVector<f64, N>, &SVector<f64, N>) -> (SVector<f64, N>, SVector<f64, N>) + 'a;

/// What an event does when its guard fires.
pub enum Action<'a, const N: usize> {
    /// End the run at the event: the run returns `Ok` with the event state as its last sample.
    Stop,
    /// Log the event and go on.
    Record,
    /// Replace the state by the reset map's image and go on (an impact, a switch of legs).
    Reset(Box<ResetMap<'a, N>>),
}

/// An event of a run with n = `N` coordinates: a named guard g(t, q, v), the direction of its
/// zero crossings that fire it, and its [`Action`].
///
/// The run watches g at the end of every accepted step. A crossing in a step is bracketed by
/// the step's ends, first located on the integrator's dense output by the Brent–Dekker search
/// of `differential-equations` (`EventSolout`) and Newton's method there, then by Newton's
/// method on the flow itself (each iterate integrated from the step start, ġ by a forward
/// difference along ẋ), kept inside the bracket by bisection. It stops when the bracket is
/// narrower than 10⁻¹⁴ of the step, or as soon as Newton's correction τ at a flow point t is
/// under 10⁻⁷ of the time from the step start to t: the event is then at t + τ (past the
/// crossing by half the tolerance), its state the integrated one plus τ ẋ (the method's step
/// accuracy, not the dense output's). With DOP853 the dense output's crossing is usually that close, so an event
/// costs one integration on the flow and two evaluations of ẋ for the dense output. The
/// earliest crossing of a step fires; the run restarts from the event time.
///
/// Right after a reset, the guard that fired counts as on its side before the crossing when its
/// value is zero or past the crossing: a reset that leaves the motion going on through the
/// surface fires it again at once, which [`EventLimits`] turns into an error. After a record,
/// and after a reset that leaves the state as it was (a no-op impact, such as a plastic one
/// whose rows already hold), the motion goes on through the surface.
pub struct Event<'a, const N: usize> {
    pub(super) name: String,
    pub(super) direction: Direction,
    pub(super) guard: Box<GuardFunction<'a, N>>,
    pub(super) action: Action<'a, N>,
    pub(super) condition: Option<Box<Condition<'a, N>>>,
    pub(super) gradient: Option<Box<GuardGradient<'a, N>>>,
}

/// A condition c(t, q, v) on the state at a crossing: the event fires only where it holds.
pub type Condition<'a, const N: usize> =
    dyn Fn(f64, &SVector<f64, N>, &SVector<f64, N>) -> bool + 'a;

impl<'a, const N: usize> Event<'a, N> {
    /// An event named `name` that fires when `guard` crosses zero in `direction`, and does
    /// `action`.
    pub fn new(
        name: impl Into<String>,
        direction: Direction,
        guard: impl Fn(f64, &SVector<f64, N>, &SVector<f64, N>) -> f64 + 'a,
        action: Action<'a, N>,
    ) -> Self {
        Self {
            name: name.into(),
            direction,
            guard: Box::new(guard),
            action,
            condition: None,
            gradient: None,
        }
    }

    /// The same event, firing only at crossings where `condition`(t, q, v) holds (the heel
    /// strike of a walker, not the scuffing of its swing foot at mid-stance); the run goes
    /// through the other crossings as if there were none, and does not log them. The condition
    /// is first tried on the integrator's dense output at the estimate of the crossing: where
    /// it fails there, the step goes on without the crossing being located (so a condition
    /// should not change its truth within the method's tolerance of a crossing that fires);
    /// where it holds, it is tried again at the located state.
    pub fn when(
        self,
        condition: impl Fn(f64, &SVector<f64, N>, &SVector<f64, N>) -> bool + 'a,
    ) -> Self {
        Self {
            condition: Some(Box::new(condition)),
            ..self
        }
    }

    /// The same event with the exact gradient of its guard, `gradient`(t, q, v) = (∂g/∂q,
    /// ∂g/∂v), n entries each: the saltation matrix of [`super::periodic_orbit`] uses it
    /// instead of central differences of g.
    pub fn with_gradient(
        self,
        gradient: impl Fn(f64, &SVector<f64, N>, &SVector<f64, N>) -> (SVector<f64, N>, SVector<f64, N>)
            + 'a,
    ) -> Self {
        Self {
            gradient: Some(Box::new(gradient)),
            ..self
        }
    }

    /// An event that applies `reset` (t, q⁻, v⁻) ↦ (q⁺, v⁺) when `guard` crosses zero in
    /// `direction`.
    pub fn reset(
        name: impl Into<String>,
        direction: Direction,
        guard: impl Fn(f64, &SVector<f64, N>, &SVector<f64, N>) -> f64 + 'a,
        reset: impl Fn(
                f64,
                &SVector<f64, N>,
                &SVector<f64, N>,
            ) -> Result<(SVector<f64, N>, SVector<f64, N>), Error>
            + 'a,
    ) -> Self {
        Self::new(name, direction, guard, Action::Reset(Box::new(reset)))
    }

    /// The event's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether the event's condition holds at (t, q, v) (always without one).
    pub(super) fn holds(&self, t: f64, q: &SVector<f64, N>, v: &SVector<f64, N>) -> bool {
        self.condition.as_ref().is_none_or(|c| c(t, q, v))
    }

    /// The exact gradient (∂g/∂q, ∂g/∂v) at (t, q, v), when the event has one.
    pub(super) fn gradient(
        &self,
        t: f64,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
    ) -> Option<(SVector<f64, N>, SVector<f64, N>)> {
        self.gradient.as_ref().map(|gradient| gradient(t, q, v))
    }

    /// g at (t, q, v).
    pub(super) fn value(&self, t: f64, q: &SVector<f64, N>, v: &SVector<f64, N>) -> f64 {
        (self.guard)(t, q, v)
    }

    /// +1 or −1: the sign of g before a crossing that fires the event, given the signs of g
    /// at the two ends of a step (`None` when the step does not fire it).
    pub(super) fn fires(&self, before: f64, after: f64) -> Option<f64> {
        let rising = before < 0.0 && after >= 0.0;
        let falling = before > 0.0 && after <= 0.0;
        match self.direction {
            Direction::Rising if rising => Some(-1.0),
            Direction::Falling if falling => Some(1.0),
            Direction::Both if rising => Some(-1.0),
            Direction::Both if falling => Some(1.0),
            _ => None,
        }
    }
}

impl<const N: usize> std::fmt::Debug for Event<'_, N> {
    fn fmt(&self, out: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let action = match self.action {
            Action::Stop => "stop",
            Action::Record => "record",
            Action::Reset(_) => "reset",
        };
        (out.debug_struct("Event"))
            .field("name", &self.name)
            .field("direction", &self.direction)
            .field("action", &action)
            .field("conditional", &self.condition.is_some())
            .field("gradient", &self.gradient.is_some())
            .finish()
    }
}

/// One event that happened during a run, n = `N` coordinates.
#[derive(Clone, Debug, PartialEq)]
pub struct EventRecord<const N: usize> {
    /// The event time (s).
    pub t: f64,
    /// The index of the event in the list handed to the run.
    pub index: usize,
    /// Its name.
    pub name: String,
    /// q and v (q̇ or p) just before the event, n entries each.
    pub before: (SVector<f64, N>, SVector<f64, N>),
    /// q and v just after: the reset map's image, or the same state for a stop or record.
    pub after: (SVector<f64, N>, SVector<f64, N>),
}

/// Bounds on the events of a run, so that a Zeno run (events accumulating at a finite time),
/// an event that fires again at once, or a chattering contact ends with
/// [`super::SimulationError::Zeno`] naming the event instead of a hang.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EventLimits {
    /// Events less than 1/`max_rate` seconds apart are a burst (events per second, > 0).
    /// Default 10⁶.
    pub max_rate: f64,
    /// The run stops when a burst holds more than this many events in a row (≥ 1). Default 50.
    pub max_in_a_row: usize,
    /// The most events a run may log (bounds its memory). Default 10⁶.
    pub max_events: usize,
}

impl Default for EventLimits {
    fn default() -> Self {
        Self {
            max_rate: 1e6,
            max_in_a_row: 50,
            max_events: 1_000_000,
        }
    }
}

impl EventLimits {
    /// Checks every field; `what` names the first bad one.
    pub(super) fn validate(&self) -> Result<(), &'static str> {
        if !(self.max_rate.is_finite() && self.max_rate > 0.0) {
            return Err("the event rate bound must be finite and positive");
        }
        if self.max_in_a_row == 0 || self.max_events == 0 {
            return Err("the event counts must be positive");
        }
        Ok(())
    }
}
