//! The recorded motion: one [`Sample`] per output time, and run statistics.

use super::{EventRecord, Recording};
use nalgebra::SVector;

/// What the second half of the state is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StateKind {
    /// Generalized velocities q̇ (a Lagrangian system).
    Velocities,
    /// Generalized momenta p (a Hamiltonian system).
    Momenta,
}

/// The state and its checks at one output time, for n = `N` coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample<const N: usize> {
    /// The time t (s).
    pub t: f64,
    /// The generalized coordinates q, n entries.
    pub q: SVector<f64, N>,
    /// The generalized velocities q̇ or momenta p (see [`Trajectory::kind`]), n entries.
    pub v: SVector<f64, N>,
    /// ‖f(q, t)‖, the Euclidean norm of the holonomic constraints (position level).
    pub position_residual: f64,
    /// The Euclidean norm of the velocity-level constraints: (ḟ, φ(q, q̇, t)) for a Lagrangian
    /// system, φ(q, p, t) for a Hamiltonian one.
    pub velocity_residual: f64,
    /// The Jacobi integral h = q̇ᵀ ∂L/∂q̇ − L, or the Hamiltonian H (J when the model is in SI).
    pub energy: f64,
}

/// Counts of the work a run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Accepted integrator steps.
    pub accepted_steps: usize,
    /// Rejected integrator steps (adaptive methods).
    pub rejected_steps: usize,
    /// Evaluations of the right-hand side (one acceleration or state derivative each).
    pub rhs_evaluations: usize,
    /// Evaluations of the Jacobian of the right-hand side by the implicit methods
    /// ([`super::Method::Radau5`], [`super::Method::Bdf`]); 0 for the explicit ones.
    pub jacobian_evaluations: usize,
    /// Of those, the ones done by forward differences because the system has no Jacobian
    /// (each also costs 2n right-hand sides).
    pub finite_difference_jacobians: usize,
}

/// A simulated motion: the samples at the output times, in increasing t.
#[derive(Clone, Debug, PartialEq)]
pub struct Trajectory<const N: usize> {
    /// Whether [`Sample::v`] holds velocities or momenta.
    pub kind: StateKind,
    /// The names of the 2n state columns, q then v ([`super::state_columns`]): the model's
    /// coordinate names and `name_dot` (or its momenta's names), or `q1`…, `qd1`… (`p1`…);
    /// any other count of names is written as the default names.
    pub state_columns: Vec<String>,
    /// One sample per output time; the first is at t₀.
    pub samples: Vec<Sample<N>>,
    /// Steps and right-hand-side evaluations of the run (zero for a trajectory read from CSV).
    pub stats: Stats,
    /// The model's outputs at each sample (no columns for a model without outputs).
    pub outputs: OutputTable,
    /// The events of the run, in time order (empty for a run without events and for a
    /// trajectory read from CSV).
    pub events: Vec<EventRecord<N>>,
}

/// The values of a model's outputs (`outputs(name = EXPR)`) at each sample of a trajectory:
/// one column per scalar output, three (`name.x`, `name.y`, `name.z`) per vector output.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OutputTable {
    /// The column names, k of them.
    pub columns: Vec<String>,
    /// One row of k values per sample, row-major.
    pub values: Vec<f64>,
}

impl OutputTable {
    /// The values of the column `name`, one per sample; `None` for a name that is not a
    /// column.
    pub fn column(&self, name: &str) -> Option<Vec<f64>> {
        let k = self.columns.len();
        let index = self.columns.iter().position(|c| c == name)?;
        Some(self.values.iter().skip(index).step_by(k).copied().collect())
    }

    /// The row of sample `i`, k values.
    pub fn row(&self, i: usize) -> &[f64] {
        let k = self.columns.len();
        &self.values[i * k..(i + 1) * k]
    }
}

impl<const N: usize> Trajectory<N> {
    /// The time of the last sample (s), or `None` when there is none.
    pub fn final_time(&self) -> Option<f64> {
        Recording::final_time(self)
    }

    /// The largest ‖f‖ over the samples (0 for an empty trajectory).
    pub fn max_position_residual(&self) -> f64 {
        Recording::max_position_residual(self)
    }

    /// The largest velocity-level residual over the samples (0 for an empty trajectory).
    pub fn max_velocity_residual(&self) -> f64 {
        Recording::max_velocity_residual(self)
    }

    /// A series, one entry per sample: the energy error of each sample relative to the first,
    /// (E(t) − E(t₀)) / |E(t₀)|; when E(t₀) = 0, the absolute error E(t) − E(t₀) instead.
    /// Its largest magnitude, one number, is [`Trajectory::energy_drift`].
    pub fn relative_energy_errors(&self) -> Vec<f64> {
        Recording::relative_energy_errors(self)
    }

    /// One number for the run: the largest |(E(t) − E(t₀)) / E(t₀)| over the samples, the
    /// maximum magnitude of the series [`Trajectory::relative_energy_errors`]. Meaningful as a
    /// drift measure when the energy is conserved (no explicit time dependence, no
    /// non-conservative forces).
    pub fn energy_drift(&self) -> f64 {
        Recording::energy_drift(self)
    }
}
