//! Why a simulation run stopped early.

use super::Trajectory;
use crate::Error;
use nalgebra::SVector;

/// A run that could not reach its final time; every variant that happens during the run keeps
/// the trajectory up to the last good output time (never a non-finite sample).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SimulationError<const N: usize> {
    /// An option is out of range (see [`super::SimulationOptions`]); nothing was integrated.
    #[error("invalid simulation option: {what}")]
    InvalidOptions {
        /// What is wrong.
        what: &'static str,
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
    /// The integrator gave up: too many steps, a step size that became too small, or
    /// stiffness detected by DOP853/DOPRI5.
    #[error("the integrator stopped at t = {time} s: {reason}")]
    Integrator {
        /// The time reached (s).
        time: f64,
        /// The integrator's reason.
        reason: String,
        /// The trajectory up to the last output time reached.
        trajectory: Box<Trajectory<N>>,
    },
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
    /// The time at which the run stopped (s); `None` for invalid options.
    pub fn time(&self) -> Option<f64> {
        match self {
            Self::InvalidOptions { .. } => None,
            Self::Dynamics { time, .. }
            | Self::Projection { time, .. }
            | Self::Integrator { time, .. } => Some(*time),
        }
    }

    /// The trajectory recorded before the run stopped; `None` for invalid options.
    pub fn trajectory(&self) -> Option<&Trajectory<N>> {
        match self {
            Self::InvalidOptions { .. } => None,
            Self::Dynamics { trajectory, .. }
            | Self::Projection { trajectory, .. }
            | Self::Integrator { trajectory, .. } => Some(trajectory),
        }
    }
}
