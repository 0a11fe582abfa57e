//! The run summary table of the tour, the examples and `udk simulate`, and [`Showcase`]: a
//! named run that is timed, summarized and written to CSV and SVG.

use super::{
    Method, OutputError, PlotOptions, Recording, SimulationError, SimulationOptions, Trajectory,
};
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// One row of the summary table of a finished run.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// The system's name (the first column).
    pub system: String,
    /// The integrator.
    pub method: Method,
    /// Accepted integrator steps.
    pub steps: usize,
    /// Right-hand-side evaluations (one acceleration or ṗ each).
    pub rhs_evaluations: usize,
    /// The time of the last sample (s).
    pub final_time: f64,
    /// The largest ‖f‖ of the holonomic constraints over the samples (units of f).
    pub max_position_residual: f64,
    /// The largest norm of the velocity-level constraints (ḟ, φ) over the samples.
    pub max_velocity_residual: f64,
    /// The largest |E − E₀|/|E₀| of the Jacobi integral or H ([`Trajectory::energy_drift`]).
    pub energy_drift: f64,
    /// Whether the energy is conserved, so that the drift is a check; when not, the table
    /// shows the drift in parentheses.
    pub energy_conserved: bool,
    /// The wall time of the run.
    pub wall: Duration,
}

impl Summary {
    /// The row of `trajectory` (a [`Trajectory`], or any [`Recording`]), run by `method` in
    /// `wall` time; energy assumed conserved.
    pub fn new(
        system: impl Into<String>,
        method: Method,
        trajectory: &impl Recording,
        wall: Duration,
    ) -> Self {
        Self {
            system: system.into(),
            method,
            steps: trajectory.stats().accepted_steps,
            rhs_evaluations: trajectory.stats().rhs_evaluations,
            final_time: trajectory.final_time().unwrap_or(f64::NAN),
            max_position_residual: trajectory.max_position_residual(),
            max_velocity_residual: trajectory.max_velocity_residual(),
            energy_drift: trajectory.energy_drift(),
            energy_conserved: true,
            wall,
        }
    }

    /// The header line of the table: system, method, steps, RHS evaluations, final t (s),
    /// max |f|, max |ḟ,φ|, energy drift, wall time (ms).
    pub fn header() -> String {
        format!(
            "{:<34} {:<9} {:>6} {:>7} {:>8} {:>10} {:>10} {:>12} {:>9}",
            "system",
            "method",
            "steps",
            "RHS",
            "final t",
            "max |f|",
            "max |ḟ,φ|",
            "energy drift",
            "wall ms"
        )
    }
}

/// The row under [`Summary::header`], without a line break.
impl fmt::Display for Summary {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let method = match self.method {
            Method::Dop853 => "DOP853".to_string(),
            Method::Dopri5 => "DOPRI5".to_string(),
            Method::Rk4 { step } => format!("RK4 h={step}"),
            Method::Radau5 => "Radau5".to_string(),
            Method::Bdf => "BDF".to_string(),
        };
        let drift = match self.energy_conserved {
            true => format!("{:.1e}", self.energy_drift),
            false => format!("({:.1e})", self.energy_drift),
        };
        write!(
            out,
            "{:<34} {:<9} {:>6} {:>7} {:>8.2} {:>10.1e} {:>10.1e} {:>12} {:>9.1}",
            self.system,
            method,
            self.steps,
            self.rhs_evaluations,
            self.final_time,
            self.max_position_residual,
            self.max_velocity_residual,
            drift,
            self.wall.as_secs_f64() * 1e3,
        )
    }
}

impl<const N: usize> Trajectory<N> {
    /// Writes `<directory>/<name>.csv` ([`Trajectory::write_csv`]) and `<directory>/<name>.svg`
    /// ([`Trajectory::plot_svg`] with `plot`), creating the directory; returns the two paths.
    ///
    /// # Errors
    /// As [`Trajectory::write_csv`] and [`Trajectory::plot_svg`].
    pub fn save(
        &self,
        directory: impl AsRef<Path>,
        name: &str,
        plot: &PlotOptions,
    ) -> Result<[PathBuf; 2], OutputError> {
        let [csv, svg] = ["csv", "svg"].map(|ext| directory.as_ref().join(format!("{name}.{ext}")));
        self.write_csv(&csv)?;
        self.plot_svg(&svg, plot)?;
        Ok([csv, svg])
    }
}

/// A named run of a system, as the tour and the examples show it: timed, summarized in a
/// [`Summary`] row and written with [`Trajectory::save`].
#[derive(Clone, Debug)]
pub struct Showcase<'a> {
    /// Where the files go.
    pub directory: PathBuf,
    /// The row label and the file stem.
    pub name: &'a str,
    /// The title of the plot.
    pub title: &'a str,
    /// The coordinate labels of the plot, n entries.
    pub labels: &'a [&'a str],
    /// The curves of the plot's top panel ([`PlotOptions::columns`]); empty: every coordinate.
    pub columns: &'a [&'a str],
    /// Why the energy is not conserved, when it is not (the drift is then no check, and the
    /// plot shows the energy itself).
    pub energy_note: Option<&'a str>,
}

impl<'a> Showcase<'a> {
    /// A run whose files go to `<root>/target/udk/` (`root`: usually the crate's
    /// `env!("CARGO_MANIFEST_DIR")`), with the energy conserved.
    pub fn new(
        root: impl AsRef<Path>,
        name: &'a str,
        title: &'a str,
        labels: &'a [&'a str],
    ) -> Self {
        Self {
            directory: root.as_ref().join("target").join("udk"),
            name,
            title,
            labels,
            columns: &[],
            energy_note: None,
        }
    }

    /// Runs `simulate` with `options`, timing it; on success writes the files.
    pub fn run<const N: usize>(
        &self,
        options: &SimulationOptions,
        simulate: impl FnOnce(&SimulationOptions) -> Result<Trajectory<N>, SimulationError<N>>,
    ) -> Report<N> {
        let start = Instant::now();
        let result = simulate(options);
        let wall = start.elapsed();
        let outcome = result.map(|trajectory| {
            let summary = Summary {
                energy_conserved: self.energy_note.is_none(),
                ..Summary::new(self.name, options.method, &trajectory, wall)
            };
            (trajectory, summary)
        });
        let files = outcome.as_ref().ok().map(|(trajectory, _)| {
            let plot = PlotOptions {
                columns: self.columns,
                energy_conserved: self.energy_note.is_none(),
                ..PlotOptions::new(self.title, self.labels)
            };
            trajectory.save(&self.directory, self.name, &plot)
        });
        Report {
            name: self.name.to_string(),
            energy_note: self.energy_note.map(str::to_string),
            outcome,
            files,
        }
    }
}

/// The result of [`Showcase::run`]. Its `Display` is the table row (or the error that stopped
/// the run, with its time), the energy note, and a line on files that could not be written.
#[derive(Debug)]
pub struct Report<const N: usize> {
    /// The row label.
    pub name: String,
    /// Why the energy is not conserved, if it is not.
    pub energy_note: Option<String>,
    /// The trajectory and its row, or why the run stopped.
    pub outcome: Result<(Trajectory<N>, Summary), SimulationError<N>>,
    /// The paths of the CSV and SVG files, or why they could not be written; `None` when the
    /// run failed.
    pub files: Option<Result<[PathBuf; 2], OutputError>>,
}

impl<const N: usize> Report<N> {
    /// The trajectory of a successful run.
    pub fn trajectory(&self) -> Option<&Trajectory<N>> {
        self.outcome.as_ref().ok().map(|(trajectory, _)| trajectory)
    }
}

impl<const N: usize> fmt::Display for Report<N> {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.outcome {
            Ok((_, summary)) => write!(out, "{summary}")?,
            Err(error) => write!(out, "{:<34} stopped: {error}", self.name)?,
        }
        if let (Some(note), Ok(_)) = (&self.energy_note, &self.outcome) {
            write!(out, "\n{:<34} energy not conserved: {note}", "")?;
        }
        if let Some(Err(error)) = &self.files {
            write!(out, "\n{:<34} files not written: {error}", "")?;
        }
        Ok(())
    }
}
