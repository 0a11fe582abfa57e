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
    /// The names of the coordinates, n of them (`q1`… for those missing).
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

/// A tick label of the log axis: the power of ten.
fn log_tick(y: &f64) -> String {
    format!("{y:.0e}")
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
fn panel(
    area: &DrawingArea<SVGBackend, Shift>,
    caption: &str,
    y_label: &str,
    (t0, tf): (f64, f64),
    curves: &[Curve],
    log: bool,
) -> Result<(), OutputError> {
    let (lo, hi) = y_range(curves);
    let linear = linear_tick(lo, hi);
    let mut builder = ChartBuilder::on(area);
    builder
        .caption(caption, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(35)
        .y_label_area_size(80);
    macro_rules! draw {
        ($chart:expr, $tick:expr, $labels:expr) => {{
            let mut chart = $chart;
            chart
                .configure_mesh()
                .x_desc("t (s)")
                .y_desc(y_label)
                .y_labels($labels)
                .y_label_formatter($tick)
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
        }};
    }
    if log {
        // Whole decades, so that every power of ten in range gets its tick and label.
        let lo = 10f64.powf(lo.max(FLOOR).log10().floor());
        let hi = 10f64.powf(hi.max(FLOOR * 10.0).log10().ceil());
        let decades = (hi / lo).log10().round() as usize + 1;
        draw!(
            builder
                .build_cartesian_2d(t0..tf, (lo..hi).log_scale())
                .map_err(plot_error)?,
            &log_tick,
            decades
        );
    } else {
        draw!(
            builder
                .build_cartesian_2d(t0..tf, lo..hi)
                .map_err(plot_error)?,
            &linear,
            10
        );
    }
    Ok(())
}

impl<const N: usize> Trajectory<N> {
    /// The values of the CSV column `name` ([`super::csv_header`]: `t`, `q1`…, `qd1`… or
    /// `p1`…, `position_residual`, `velocity_residual`, `energy`), one per sample; `None` for
    /// a name that is not a column.
    pub fn column(&self, name: &str) -> Option<Vec<f64>> {
        let index = self.csv_header().iter().position(|c| c == name)?;
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
    /// fails, [`OutputError::Format`] for a trajectory with fewer than two samples or a column
    /// that does not exist.
    pub fn plot_svg(
        &self,
        path: impl AsRef<Path>,
        options: &PlotOptions,
    ) -> Result<(), OutputError> {
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
