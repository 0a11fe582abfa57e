//! A trajectory as an SVG figure (plotters, SVG backend only: no bitmap or font dependencies)
//! with three panels against time: the chosen columns (by default the coordinates), the
//! constraint violation (log scale), and the relative energy error (or the energy itself when
//! it is not conserved).

use super::csv::create_parent;
use super::{OutputError, Trajectory};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// Width and height of the figure (px).
const SIZE: (u32, u32) = (1000, 1100);

/// Residuals below this are drawn at this value on the log axis.
const FLOOR: f64 = 1e-18;

/// One curve of a panel.
struct Curve {
    label: String,
    points: Vec<(f64, f64)>,
}

/// What [`Trajectory::plot_svg`] draws.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlotOptions<'a> {
    /// The title of the figure.
    pub title: &'a str,
    /// The names of the coordinates: n of them, or none for `q1`…`qn`; any other count is an
    /// error of [`Trajectory::plot_svg`].
    pub labels: &'a [&'a str],
    /// The curves of the top panel: coordinate names from `labels`, or CSV column names
    /// ([`super::csv_header`]: `q2`, `qd1` or `p1`, `position_residual`, `energy`, ...).
    /// Empty: every coordinate.
    pub columns: &'a [&'a str],
    /// Whether the energy (the Jacobi integral or H) is conserved: then the bottom panel is
    /// the relative energy error (see [`Trajectory::relative_energy_errors`]), a check of the
    /// run; when not, it is the energy itself.
    pub energy_conserved: bool,
}

impl<'a> PlotOptions<'a> {
    /// Every coordinate, named by `labels`, under `title`, with the energy conserved.
    pub fn new(title: &'a str, labels: &'a [&'a str]) -> Self {
        Self {
            title,
            labels,
            columns: &[],
            energy_conserved: true,
        }
    }
}

/// The y-axis tick labels of an axis from `lo` to `hi`: a value within 10⁻⁹ of the span from
/// 0 is 0 (a tick computed as 2.6e-26 on an axis through 0 reads 0); the others are plain for
/// moderate magnitudes, scientific for tiny or huge ones.
fn linear_tick(lo: f64, hi: f64) -> impl Fn(&f64) -> String {
    let zero = 1e-9 * (hi - lo).abs();
    move |y: &f64| {
        let magnitude = y.abs();
        if magnitude <= zero {
            "0".to_string()
        } else if (1e-3..1e4).contains(&magnitude) {
            format!("{y:.3}")
        } else {
            format!("{y:.1e}")
        }
    }
}

fn plot_error(error: impl std::fmt::Display) -> OutputError {
    OutputError::Plot(error.to_string())
}

/// The (min, max) of the curves' y values, widened when empty or flat.
fn y_range(curves: &[Curve]) -> (f64, f64) {
    let (lo, hi) = (curves.iter().flat_map(|c| c.points.iter().map(|p| p.1)))
        .filter(|y| y.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), y| {
            (lo.min(y), hi.max(y))
        });
    if lo > hi {
        (-1.0, 1.0)
    } else if hi - lo <= 1e-300 + 1e-12 * hi.abs().max(lo.abs()) {
        (
            lo - 0.5 * lo.abs().max(1e-300),
            hi + 0.5 * hi.abs().max(1e-300),
        )
    } else {
        let pad = 0.05 * (hi - lo);
        (lo - pad, hi + pad)
    }
}

/// Draws one panel; `log` draws y on a log₁₀ axis.
///
/// The log axis is drawn as log₁₀ y on a linear axis over whole decades, labelled 10^y:
/// plotters' own log scale drops every key point below f64::EPSILON, so residuals under 1e-15
/// would get no labels.
fn panel(
    area: &DrawingArea<SVGBackend, Shift>,
    caption: &str,
    y_label: &str,
    (t0, tf): (f64, f64),
    curves: &[Curve],
    log: bool,
) -> Result<(), OutputError> {
    let log_curves: Vec<Curve>;
    let (curves, (lo, hi), labels) = if log {
        log_curves = (curves.iter())
            .map(|c| Curve {
                label: c.label.clone(),
                points: (c.points.iter())
                    .map(|&(t, y)| (t, y.max(FLOOR).log10()))
                    .collect(),
            })
            .collect();
        let (lo, hi) = y_range(&log_curves);
        let (lo, hi) = (lo.floor(), hi.ceil().max(lo.floor() + 1.0));
        (&log_curves[..], (lo, hi), (hi - lo) as usize + 1)
    } else {
        (curves, y_range(curves), 10)
    };
    let linear = linear_tick(lo, hi);
    let tick = move |y: &f64| match log {
        true => format!("{:.0e}", 10f64.powf(*y)),
        false => linear(y),
    };
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(35)
        .y_label_area_size(80)
        .build_cartesian_2d(t0..tf, lo..hi)
        .map_err(plot_error)?;
    chart
        .configure_mesh()
        .x_desc("t (s)")
        .y_desc(y_label)
        .y_labels(labels)
        .y_label_formatter(&tick)
        .draw()
        .map_err(plot_error)?;
    for (i, curve) in curves.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        chart
            .draw_series(LineSeries::new(curve.points.iter().copied(), color))
            .map_err(plot_error)?
            .label(curve.label.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(plot_error)?;
    Ok(())
}

impl<const N: usize> Trajectory<N> {
    /// The values of the CSV column `name` ([`super::csv_header`]: `t`, `q1`…, `qd1`… or
    /// `p1`…, `position_residual`, `velocity_residual`, `energy`, then the model's output
    /// columns), one per sample; `None` for a name that is not a column.
    pub fn column(&self, name: &str) -> Option<Vec<f64>> {
        let Some(index) = super::csv_header(self.kind, N)
            .iter()
            .position(|c| c == name)
        else {
            return self.outputs.column(name);
        };
        let value = |s: &super::Sample<N>| match index {
            0 => s.t,
            i if i <= N => s.q[i - 1],
            i if i <= 2 * N => s.v[i - N - 1],
            i if i == 2 * N + 1 => s.position_residual,
            i if i == 2 * N + 2 => s.velocity_residual,
            _ => s.energy,
        };
        Some(self.samples.iter().map(value).collect())
    }

    /// The curves of the top panel: `options.columns` resolved as coordinate labels or CSV
    /// columns, or every coordinate.
    fn selected_columns(&self, options: &PlotOptions) -> Result<Vec<Curve>, OutputError> {
        let label = |i: usize| {
            options
                .labels
                .get(i)
                .map_or(format!("q{}", i + 1), |s| s.to_string())
        };
        let times: Vec<f64> = self.samples.iter().map(|s| s.t).collect();
        let curve = |label: String, values: Vec<f64>| Curve {
            label,
            points: times.iter().copied().zip(values).collect(),
        };
        if options.columns.is_empty() {
            return Ok((0..N)
                .map(|i| curve(label(i), self.samples.iter().map(|s| s.q[i]).collect()))
                .collect());
        }
        (options.columns.iter())
            .map(|&name| {
                let values = match (0..N).find(|&i| label(i) == name) {
                    Some(i) => self.samples.iter().map(|s| s.q[i]).collect(),
                    None => self.column(name).ok_or_else(|| {
                        OutputError::Format(format!(
                            "`{name}` is neither a coordinate ({}) nor a column ({})",
                            (0..N).map(label).collect::<Vec<_>>().join(", "),
                            self.csv_header().join(", ")
                        ))
                    })?,
                };
                Ok(curve(name.to_string(), values))
            })
            .collect()
    }

    /// Draws the trajectory to the SVG file `path` (its directory is created if needed): the
    /// chosen columns against time (see [`PlotOptions::columns`]), the constraint violations
    /// ‖f‖ and ‖(ḟ, φ)‖ against time (log scale, a labelled tick at each power of ten), and
    /// the relative energy error (see [`Trajectory::relative_energy_errors`]) or, when
    /// [`PlotOptions::energy_conserved`] is false, the energy against time.
    ///
    /// # Errors
    /// [`OutputError::Io`] when the file cannot be created, [`OutputError::Plot`] when drawing
    /// fails, [`OutputError::Format`] for a trajectory with fewer than two samples, a column
    /// that does not exist, or [`PlotOptions::labels`] with neither 0 nor n names.
    pub fn plot_svg(
        &self,
        path: impl AsRef<Path>,
        options: &PlotOptions,
    ) -> Result<(), OutputError> {
        if !options.labels.is_empty() && options.labels.len() != N {
            return Err(OutputError::Format(format!(
                "PlotOptions::labels has {} names ({}) for the {N} coordinates; give one per \
                 coordinate, in order, or none",
                options.labels.len(),
                options.labels.join(", ")
            )));
        }
        let (Some(first), Some(last)) = (self.samples.first(), self.samples.last()) else {
            return Err(OutputError::Format("nothing to plot".into()));
        };
        if self.samples.len() < 2 || last.t <= first.t {
            return Err(OutputError::Format(
                "a plot needs samples at two different times".into(),
            ));
        }
        let columns = self.selected_columns(options)?;
        let path = path.as_ref();
        create_parent(path)?;
        let span = (first.t, last.t);
        let series = |f: &dyn Fn(&super::Sample<N>) -> f64| -> Vec<(f64, f64)> {
            self.samples.iter().map(|s| (s.t, f(s))).collect()
        };
        let violations = [
            Curve {
                label: "‖f‖ (position)".into(),
                points: series(&|s| s.position_residual.max(FLOOR)),
            },
            Curve {
                label: "‖(ḟ, φ)‖ (velocity)".into(),
                points: series(&|s| s.velocity_residual.max(FLOOR)),
            },
        ];
        let (energy_caption, energy_label, energy) = match options.energy_conserved {
            true => {
                let errors = self.relative_energy_errors();
                let points = self.samples.iter().map(|s| s.t).zip(errors).collect();
                ("relative energy error", "(E − E₀)/|E₀|", points)
            }
            false => ("energy (not conserved)", "E", series(&|s| s.energy)),
        };
        let energy = [Curve {
            label: energy_label.into(),
            points: energy,
        }];
        let top_label = if options.columns.is_empty() { "q" } else { "" };
        let top_caption = if options.columns.is_empty() {
            "coordinates"
        } else {
            "columns"
        };

        let root = SVGBackend::new(path, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        let root = (root.titled(options.title, ("sans-serif", 24))).map_err(plot_error)?;
        let areas = root.split_evenly((3, 1));
        panel(&areas[0], top_caption, top_label, span, &columns, false)?;
        panel(
            &areas[1],
            "constraint violation",
            "residual",
            span,
            &violations,
            true,
        )?;
        panel(
            &areas[2],
            energy_caption,
            energy_label,
            span,
            &energy,
            false,
        )?;
        root.present().map_err(plot_error)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simulate::{Sample, StateKind, Stats};
    use nalgebra::SVector;

    /// A one-coordinate trajectory at t = 0, 1, 2, with q = t, the given residuals and
    /// energies.
    fn trajectory(residuals: [f64; 3], energies: [f64; 3]) -> Trajectory<1> {
        let samples = (0..3)
            .map(|k| Sample {
                t: k as f64,
                q: SVector::from([k as f64]),
                v: SVector::from([1.0]),
                position_residual: residuals[k],
                velocity_residual: residuals[k],
                energy: energies[k],
            })
            .collect();
        Trajectory {
            kind: StateKind::Velocities,
            samples,
            stats: Stats::default(),
            outputs: Default::default(),
            events: Vec::new(),
        }
    }

    /// The texts of an SVG file (plotters writes each on its own line).
    fn texts(path: &Path) -> Vec<String> {
        let svg = std::fs::read_to_string(path).unwrap();
        svg.lines().map(|l| l.trim().to_string()).collect()
    }

    #[test]
    fn a_round_off_tick_through_zero_reads_zero() {
        let tick = linear_tick(-1.2e-15, 1.3e-15);
        assert_eq!(tick(&2.6e-26), "0");
        assert_eq!(tick(&7.9e-16), "7.9e-16");
        assert_eq!(tick(&-0.25), "-0.250");
    }

    #[test]
    fn residuals_far_below_1e_15_get_labels_and_unconserved_energy_is_plotted_as_is() {
        let dir = std::env::temp_dir().join(format!("udk-plot-{}", std::process::id()));
        let path = dir.join("p.svg");
        let run = trajectory([1e-17, 1e-16, 3e-18], [10.0, 20.0, 37.0]);
        let options = PlotOptions {
            energy_conserved: false,
            ..PlotOptions::new("t", &["x"])
        };
        run.plot_svg(&path, &options).unwrap();
        let drawn = texts(&path);
        for label in ["1e-18", "1e-17", "1e-16", "energy (not conserved)", "x"] {
            assert!(drawn.iter().any(|t| t == label), "{label} missing");
        }
        assert!(!drawn.iter().any(|t| t == "relative energy error"));
        // Conserved: the relative error, up to (37 − 10)/10 = 2.7.
        run.plot_svg(&path, &PlotOptions::new("t", &["x"])).unwrap();
        assert!(texts(&path).iter().any(|t| t == "relative energy error"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn columns_are_chosen_by_coordinate_or_csv_name() {
        let run = trajectory([0.0; 3], [1.0, 2.0, 3.0]);
        assert_eq!(run.column("energy"), Some(vec![1.0, 2.0, 3.0]));
        assert_eq!(run.column("q1"), Some(vec![0.0, 1.0, 2.0]));
        assert_eq!(run.column("qd1"), Some(vec![1.0; 3]));
        assert_eq!(run.column("p1"), None);
        let options = PlotOptions {
            columns: &["x", "energy"],
            ..PlotOptions::new("t", &["x"])
        };
        let curves = run.selected_columns(&options).unwrap();
        let labels: Vec<&str> = curves.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(labels, ["x", "energy"]);
        assert_eq!(curves[1].points, [(0.0, 1.0), (1.0, 2.0), (2.0, 3.0)]);
        let unknown = PlotOptions {
            columns: &["w"],
            ..options
        };
        let path = std::env::temp_dir().join("udk-plot-never-written.svg");
        assert!(matches!(
            run.plot_svg(&path, &unknown),
            Err(OutputError::Format(message)) if message.contains("`w`")
        ));
        assert!(!path.exists());
    }

    #[test]
    fn labels_must_name_every_coordinate_or_none() {
        let run = trajectory([0.0; 3], [1.0, 2.0, 3.0]);
        let path = std::env::temp_dir().join("udk-plot-wrong-labels.svg");
        let wrong = PlotOptions::new("t", &["e0", "e1"]);
        assert!(matches!(
            run.plot_svg(&path, &wrong),
            Err(OutputError::Format(message))
                if message.starts_with("PlotOptions::labels has 2 names (e0, e1) for the 1 coordinates")
        ));
        assert!(!path.exists());
        let none = PlotOptions::new("t", &[]);
        let curves = run.selected_columns(&none).unwrap();
        assert_eq!(curves[0].label, "q1");
    }
}
