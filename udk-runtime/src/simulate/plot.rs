//! A trajectory as an SVG figure (plotters, SVG backend only: no bitmap or font dependencies)
//! with three panels against time: the coordinates, the constraint violation (log scale), and
//! the relative energy error.

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

/// A y-axis tick label: plain for moderate magnitudes, scientific for tiny or huge ones.
fn tick(y: &f64) -> String {
    let magnitude = y.abs();
    if magnitude == 0.0 || (1e-3..1e4).contains(&magnitude) {
        format!("{y:.3}")
    } else {
        format!("{y:.1e}")
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
fn panel(
    area: &DrawingArea<SVGBackend, Shift>,
    caption: &str,
    y_label: &str,
    (t0, tf): (f64, f64),
    curves: &[Curve],
    log: bool,
) -> Result<(), OutputError> {
    let (lo, hi) = y_range(curves);
    let mut builder = ChartBuilder::on(area);
    builder
        .caption(caption, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(35)
        .y_label_area_size(80);
    macro_rules! draw {
        ($chart:expr) => {{
            let mut chart = $chart;
            chart
                .configure_mesh()
                .x_desc("t (s)")
                .y_desc(y_label)
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
        }};
    }
    if log {
        let (lo, hi) = (lo.max(FLOOR), hi.max(FLOOR * 10.0));
        draw!(builder
            .build_cartesian_2d(t0..tf, (lo..hi).log_scale())
            .map_err(plot_error)?);
    } else {
        draw!(builder
            .build_cartesian_2d(t0..tf, lo..hi)
            .map_err(plot_error)?);
    }
    Ok(())
}

impl<const N: usize> Trajectory<N> {
    /// Draws the trajectory to the SVG file `path` (its directory is created if needed): the
    /// coordinates named `names` (n of them; `q1`… when `names` is shorter) against time, the
    /// constraint violations ‖f‖ and ‖(ḟ, φ)‖ against time (log scale), and the relative
    /// energy error (see [`Trajectory::relative_energy_error`]) against time.
    ///
    /// # Errors
    /// [`OutputError::Io`] when the file cannot be created, [`OutputError::Plot`] when drawing
    /// fails, [`OutputError::Format`] for a trajectory with fewer than two samples.
    pub fn plot_svg(
        &self,
        path: impl AsRef<Path>,
        title: &str,
        names: &[&str],
    ) -> Result<(), OutputError> {
        let (Some(first), Some(last)) = (self.samples.first(), self.samples.last()) else {
            return Err(OutputError::Format("nothing to plot".into()));
        };
        if self.samples.len() < 2 || last.t <= first.t {
            return Err(OutputError::Format(
                "a plot needs samples at two different times".into(),
            ));
        }
        let path = path.as_ref();
        create_parent(path)?;
        let span = (first.t, last.t);
        let series = |f: &dyn Fn(usize) -> f64| -> Vec<(f64, f64)> {
            (0..self.samples.len())
                .map(|k| (self.samples[k].t, f(k)))
                .collect()
        };
        let coordinates: Vec<Curve> = (0..N)
            .map(|i| Curve {
                label: names
                    .get(i)
                    .map_or(format!("q{}", i + 1), |s| s.to_string()),
                points: series(&|k| self.samples[k].q[i]),
            })
            .collect();
        let violations = [
            Curve {
                label: "‖f‖ (position)".into(),
                points: series(&|k| self.samples[k].position_residual.max(FLOOR)),
            },
            Curve {
                label: "‖(ḟ, φ)‖ (velocity)".into(),
                points: series(&|k| self.samples[k].velocity_residual.max(FLOOR)),
            },
        ];
        let errors = self.relative_energy_error();
        let energy = [Curve {
            label: "(E − E₀)/|E₀|".into(),
            points: series(&|k| errors[k]),
        }];

        let root = SVGBackend::new(path, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        let root = root.titled(title, ("sans-serif", 24)).map_err(plot_error)?;
        let areas = root.split_evenly((3, 1));
        panel(&areas[0], "coordinates", "q", span, &coordinates, false)?;
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
            "relative energy error",
            "(E − E₀)/|E₀|",
            span,
            &energy,
            false,
        )?;
        root.present().map_err(plot_error)?;
        Ok(())
    }
}
