//! [`Recording`]: a recorded motion of any size, sample by sample, as the CSV and SVG writers
//! and the [`super::Summary`] read it: a [`Trajectory`] of the simulator, or a motion whose
//! sizes are known only at run time (`udk::model::Motion`).

use super::{
    state_columns, OutputError, OutputTable, PlotOptions, Sample, StateKind, Stats, Trajectory,
};
use std::io::Write;
use std::path::Path;

/// One sample of a [`Recording`]: the state and its checks at one output time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RecordedSample<'a> {
    /// The time t (s).
    pub t: f64,
    /// The coordinates q ([`Recording::coordinates`] entries).
    pub q: &'a [f64],
    /// The velocities (q̇, generalized speeds) or momenta, as many entries as the state columns
    /// after q.
    pub v: &'a [f64],
    /// ‖f(q, t)‖ of the holonomic constraints.
    pub position_residual: f64,
    /// The norm of the velocity-level constraints.
    pub velocity_residual: f64,
    /// The Jacobi integral h, or H (J for a model in SI).
    pub energy: f64,
}

/// A recorded motion: samples at increasing times, each a state (q, v) with its residuals and
/// energy, the state columns' names, and the model's outputs at each sample. The CSV writer
/// ([`Recording::write_csv`]), the plot ([`Recording::plot_svg`]) and [`super::Summary::new`]
/// read it, so that a [`Trajectory`] of a compile-time size and a motion of run-time size are
/// written by the same code. The second block of the state may have fewer entries than q (a
/// floating base: 7 + n coordinates, 6 + n velocities).
pub trait Recording {
    /// Whether the second block of the state holds velocities or momenta.
    fn kind(&self) -> StateKind;
    /// The number of coordinates (entries of q).
    fn coordinates(&self) -> usize;
    /// The names of the state columns: the coordinates', then the velocities' (or momenta's).
    fn state_columns(&self) -> Vec<String>;
    /// The number of samples.
    fn samples(&self) -> usize;
    /// Sample `i` (< [`Recording::samples`]).
    fn sample(&self, i: usize) -> RecordedSample<'_>;
    /// The model's outputs, one row a sample (no columns for a model without outputs).
    fn outputs(&self) -> &OutputTable;
    /// Steps and right-hand-side evaluations of the run.
    fn stats(&self) -> Stats;

    /// The CSV header: `t`, the state columns, `position_residual`, `velocity_residual`,
    /// `energy`, then the output columns.
    fn csv_header(&self) -> Vec<String>
    where
        Self: Sized,
    {
        super::csv::recording_header(self)
    }

    /// Writes the samples as CSV to `writer`, one row a sample, with the outputs as the last
    /// columns (floats in the shortest form that reads back to the same bits).
    ///
    /// # Errors
    /// [`OutputError::Format`] when two columns share a name (nothing is written);
    /// [`OutputError::Csv`] or [`OutputError::Io`].
    fn write_csv_to<W: Write>(&self, writer: W) -> Result<(), OutputError>
    where
        Self: Sized,
    {
        super::csv::write_recording_to(self, writer)
    }

    /// Writes the samples as CSV to the file `path` ([`Recording::write_csv_to`]), creating its
    /// directory if needed; a header with a repeated name is refused before the file is
    /// created.
    ///
    /// # Errors
    /// As [`Recording::write_csv_to`], and [`OutputError::Io`] when the file cannot be created.
    fn write_csv(&self, path: impl AsRef<Path>) -> Result<(), OutputError>
    where
        Self: Sized,
    {
        super::csv::write_recording(self, path.as_ref())
    }

    /// The values of the CSV column `name` ([`Recording::csv_header`]), one per sample; `None`
    /// for a name that is not a column.
    fn column(&self, name: &str) -> Option<Vec<f64>>
    where
        Self: Sized,
    {
        super::plot::column(self, name)
    }

    /// Draws the recording to the SVG file `path`, as [`Trajectory::plot_svg`] describes.
    ///
    /// # Errors
    /// As [`Trajectory::plot_svg`].
    fn plot_svg(&self, path: impl AsRef<Path>, options: &PlotOptions) -> Result<(), OutputError>
    where
        Self: Sized,
    {
        super::plot::plot(self, path.as_ref(), options)
    }

    /// The time of the last sample (s), or `None` when there is none.
    fn final_time(&self) -> Option<f64> {
        self.samples().checked_sub(1).map(|i| self.sample(i).t)
    }

    /// The largest ‖f‖ over the samples (0 without samples).
    fn max_position_residual(&self) -> f64 {
        (0..self.samples()).fold(0.0, |m, i| m.max(self.sample(i).position_residual))
    }

    /// The largest velocity-level residual over the samples (0 without samples).
    fn max_velocity_residual(&self) -> f64 {
        (0..self.samples()).fold(0.0, |m, i| m.max(self.sample(i).velocity_residual))
    }

    /// The energy error of each sample relative to the first, (E(t) − E(t₀)) / |E(t₀)|; when
    /// E(t₀) = 0, the absolute error E(t) − E(t₀) instead.
    fn relative_energy_errors(&self) -> Vec<f64> {
        if self.samples() == 0 {
            return Vec::new();
        }
        let first = self.sample(0).energy;
        let scale = if first == 0.0 { 1.0 } else { first.abs() };
        (0..self.samples())
            .map(|i| (self.sample(i).energy - first) / scale)
            .collect()
    }

    /// The largest magnitude of [`Recording::relative_energy_errors`] (0 without samples): a
    /// drift measure when the energy is conserved.
    fn energy_drift(&self) -> f64 {
        (self.relative_energy_errors().into_iter())
            .map(f64::abs)
            .fold(0.0, f64::max)
    }
}

impl<const N: usize> Sample<N> {
    /// The sample as a [`RecordedSample`].
    pub(super) fn recorded(&self) -> RecordedSample<'_> {
        RecordedSample {
            t: self.t,
            q: self.q.as_slice(),
            v: self.v.as_slice(),
            position_residual: self.position_residual,
            velocity_residual: self.velocity_residual,
            energy: self.energy,
        }
    }
}

impl<const N: usize> Recording for Trajectory<N> {
    fn kind(&self) -> StateKind {
        self.kind
    }

    fn coordinates(&self) -> usize {
        N
    }

    /// [`Trajectory::state_columns`], or the default names ([`super::csv_header`]) when it
    /// does not hold 2n.
    fn state_columns(&self) -> Vec<String> {
        match self.state_columns.len() == 2 * N {
            true => self.state_columns.clone(),
            false => state_columns::<&str, &str>(self.kind, &[], &[], N),
        }
    }

    fn samples(&self) -> usize {
        self.samples.len()
    }

    fn sample(&self, i: usize) -> RecordedSample<'_> {
        self.samples[i].recorded()
    }

    fn outputs(&self) -> &OutputTable {
        &self.outputs
    }

    fn stats(&self) -> Stats {
        self.stats
    }
}
