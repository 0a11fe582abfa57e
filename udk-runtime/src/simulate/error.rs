//! Why a simulation run stopped early.

use super::Trajectory;
use crate::Error;
use nalgebra::SVector;

/// A run that could not reach its final time; every variant that happens during the run keeps
/// the trajectory up to the last good output time (never a non-finite sample).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SimulationError<const N: usize> {
    /// An option is out of range (see [`super::SimulationOptions`]); nothing was integrated.
    #[error("invalid simulation option: {what}")]
    InvalidOptions {
        /// What is wrong.
        what: &'static str,
    },
    /// The initial state (q₀, q̇₀) or (q₀, p₀) has a NaN or an infinite entry; nothing was
    /// integrated.
    #[error("the initial state contains a NaN or an infinite entry")]
    NonFiniteStart,
    /// The initial state violates constraints by more than
    /// [`super::SimulationOptions::constraint_tolerance`]; nothing was integrated.
    /// [`crate::consistent_state`] projects a rough state onto the constraints.
    #[error(
        "the initial state is off the constraints (tolerance {tolerance:e}): {}",
        violations.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
    )]
    InconsistentStart {
        /// Each violated constraint, in row order, position level first.
        violations: Vec<Violation>,
        /// The tolerance they exceed.
        tolerance: f64,
    },
    /// The acceleration (or ṗ) could not be computed at a state the integrator asked for: a
    /// non-unique acceleration ([M; A] rank-deficient, Udwadia & Phohomsiri 2006), inconsistent
    /// constraints, a non-finite term. The run stops at the first such evaluation.
    #[error("the equations of motion failed at t = {time} s: {source}")]
    Dynamics {
        /// The time of the failed evaluation (s); an integrator stage inside the last step.
        time: f64,
        /// The state at the failed evaluation.
        state: Box<FailedState<N>>,
        /// The kernel's error.
        source: Error,
        /// The trajectory up to the last output time before the failure.
        trajectory: Box<Trajectory<N>>,
    },
    /// The projection onto the constraint manifold failed at an output time.
    #[error("the projection onto the constraints failed at t = {time} s: {source}")]
    Projection {
        /// The output time (s).
        time: f64,
        /// The kernel's error (a failed pseudoinverse, H_pp not positive definite).
        source: Error,
        /// The trajectory up to the previous output time.
        trajectory: Box<Trajectory<N>>,
    },
    /// The run's observer asked it to stop (for example because it could not write a sample).
    #[error("the run was stopped by its observer at t = {time} s")]
    Interrupted {
        /// The time of the last sample (s).
        time: f64,
        /// The trajectory up to and including that sample.
        trajectory: Box<Trajectory<N>>,
    },
    /// The integrator gave up: too many steps (over the whole run), a step size that became too
    /// small, stiffness detected by DOP853/DOPRI5, or more samples than
    /// [`super::SimulationOptions::max_samples`].
    #[error("the integrator stopped at t = {time} s: {reason}")]
    Integrator {
        /// The time reached (s).
        time: f64,
        /// The integrator's reason.
        reason: String,
        /// The trajectory up to the last output time reached.
        trajectory: Box<Trajectory<N>>,
    },
    /// The reset map of an event failed (an impossible impact, a non-finite state).
    #[error("the reset of event '{name}' failed at t = {time} s: {source}")]
    Reset {
        /// The event's name.
        name: String,
        /// The event time (s).
        time: f64,
        /// The reset map's error.
        source: Error,
        /// The trajectory up to the event.
        trajectory: Box<Trajectory<N>>,
    },
    /// Events came faster than [`super::EventLimits`] allow: a Zeno accumulation, an event
    /// that fires again at once after its reset, or a chattering contact.
    #[error(
        "event '{name}' fired {count} times in a row, each within 1/max_rate of the last, at t = {time} s (Zeno, an event that fires again at once, or chattering)"
    )]
    Zeno {
        /// The name of the event that broke the bound.
        name: String,
        /// The time of its last firing (s).
        time: f64,
        /// The events in the burst.
        count: usize,
        /// The trajectory up to that event, its event log included.
        trajectory: Box<Trajectory<N>>,
    },
}

/// Which form of a constraint a [`Violation`] is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConstraintLevel {
    /// The holonomic constraint fᵢ(q, t) itself.
    Position,
    /// Row i of the constraints at velocity level: ḟᵢ for a holonomic row, φᵢ(q, q̇, t) (or
    /// φᵢ(q, p, t) for a Hamiltonian system) for the others.
    Velocity,
}

/// One constraint the initial state violates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Violation {
    /// Position or velocity level.
    pub level: ConstraintLevel,
    /// The constraint's row among the m rows of A (or A_p): holonomic rows first.
    pub row: usize,
    /// Its value at the initial state (units of f, or of the velocity-level row); may be NaN.
    pub residual: f64,
}

/// `f[i] = value` or `velocity row i = value`.
impl std::fmt::Display for Violation {
    fn fmt(&self, out: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.level {
            ConstraintLevel::Position => write!(out, "f[{}] = {:e}", self.row, self.residual),
            ConstraintLevel::Velocity => {
                write!(out, "velocity row {} = {:e}", self.row, self.residual)
            }
        }
    }
}

/// The state at which the equations of motion failed, n = `N` coordinates.
#[derive(Clone, Debug, PartialEq)]
pub struct FailedState<const N: usize> {
    /// The generalized coordinates q, n entries.
    pub q: SVector<f64, N>,
    /// The generalized velocities q̇ (or momenta p), n entries.
    pub v: SVector<f64, N>,
}

impl<const N: usize> SimulationError<N> {
    /// The time at which the run stopped (s); `None` when it did not start (invalid options,
    /// a bad initial state).
    pub fn time(&self) -> Option<f64> {
        match self {
            Self::InvalidOptions { .. } | Self::NonFiniteStart | Self::InconsistentStart { .. } => {
                None
            }
            Self::Dynamics { time, .. }
            | Self::Projection { time, .. }
            | Self::Interrupted { time, .. }
            | Self::Integrator { time, .. }
            | Self::Reset { time, .. }
            | Self::Zeno { time, .. } => Some(*time),
        }
    }

    /// The trajectory recorded before the run stopped; `None` when it did not start.
    pub fn trajectory(&self) -> Option<&Trajectory<N>> {
        match self {
            Self::InvalidOptions { .. } | Self::NonFiniteStart | Self::InconsistentStart { .. } => {
                None
            }
            Self::Dynamics { trajectory, .. }
            | Self::Projection { trajectory, .. }
            | Self::Interrupted { trajectory, .. }
            | Self::Integrator { trajectory, .. }
            | Self::Reset { trajectory, .. }
            | Self::Zeno { trajectory, .. } => Some(trajectory),
        }
    }
}
