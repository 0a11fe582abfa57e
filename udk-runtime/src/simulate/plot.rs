//! A trajectory as an SVG figure (plotters, SVG backend only: no bitmap or font dependencies)
//! with panels against time: the chosen columns (by default the coordinates, grouped by scale
//! into at most four panels), the constraint violation (log scale), and the relative energy
//! error (or the energy itself when it is not conserved).

use super::csv::create_parent;
use super::csv::recording_header;
use super::{OutputError, RecordedSample, Recording, Trajectory};
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
    /// The names of the coordinates: n of them, or none for the trajectory's own
    /// ([`Trajectory::state_columns`]); any other count is an error of
    /// [`Trajectory::plot_svg`].
    pub labels: &'a [&'a str],
    /// The curves of the top panel: coordinate names from `labels`, or CSV column names
    /// ([`Trajectory::csv_header`]: `theta`, `theta_dot` or a momentum, `position_residual`,
    /// `energy`, an output, ...). Empty: every coordinate, in panels grouped by scale.
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

/// At most this many panels of coordinates.
const MAX_GROUPS: usize = 4;

/// Curves whose peak |y| differ by more than this factor go to different panels.
const SCALE_GAP: f64 = 20.0;

/// The curves split into at most [`MAX_GROUPS`] panels by scale, largest first, so that a
/// wheel angle of 7000 rad does not flatten a quaternion into a line: sorted by their peak
/// |y|, a new panel starts where a peak is more than [`SCALE_GAP`] below the panel's largest,
/// and while there are too many panels the two neighbours closest in scale are merged.
fn scale_groups(curves: Vec<Curve>) -> Vec<Vec<Curve>> {
    let peak = |c: &Curve| {
        (c.points.iter())
            .map(|p| p.1.abs())
            .filter(|y| y.is_finite())
            .fold(f64::MIN_POSITIVE, f64::max)
    };
    let mut curves: Vec<(f64, Curve)> = curves.into_iter().map(|c| (peak(&c), c)).collect();
    curves.sort_by(|a, b| b.0.total_cmp(&a.0));
    // Each group: (its largest peak, its smallest peak, its curves).
    let mut groups: Vec<(f64, f64, Vec<Curve>)> = Vec::new();
    for (peak, curve) in curves {
        match groups.last_mut() {
            Some((high, low, members)) if *high <= SCALE_GAP * peak => {
                *low = peak;
                members.push(curve);
            }
            _ => groups.push((peak, peak, vec![curve])),
        }
    }
    while groups.len() > MAX_GROUPS {
        let closest = (1..groups.len())
            .min_by(|&i, &j| {
                let gap = |k: usize| groups[k - 1].1 / groups[k].0;
                gap(i).total_cmp(&gap(j))
            })
            .expect("more than one group");
        let (_, low, members) = groups.remove(closest);
        let previous = &mut groups[closest - 1];
        previous.1 = low;
        previous.2.extend(members);
    }
    groups.into_iter().map(|(_, _, members)| members).collect()
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

/// The values of the CSV column `name` of `recording` ([`Recording::csv_header`]: `t`, the
/// state columns such as `theta` and `theta_dot`, `position_residual`, `velocity_residual`,
/// `energy`, then the output columns), one per sample; `None` for a name that is not a column.
pub(super) fn column(recording: &impl Recording, name: &str) -> Option<Vec<f64>> {
    let (nq, width) = (recording.coordinates(), recording.state_columns().len());
    let header = recording_header(recording);
    let Some(index) = header[..width + 4].iter().position(|c| c == name) else {
        return recording.outputs().column(name);
    };
    let value = |s: RecordedSample| match index {
        0 => s.t,
        i if i <= nq => s.q[i - 1],
        i if i <= width => s.v[i - nq - 1],
        i if i == width + 1 => s.position_residual,
        i if i == width + 2 => s.velocity_residual,
        _ => s.energy,
    };
    Some(
        (0..recording.samples())
            .map(|i| value(recording.sample(i)))
            .collect(),
    )
}

/// The curves of the top panels of `recording`: `options.columns` resolved as coordinate
/// labels or CSV columns, or every coordinate.
fn selected_columns(
    recording: &impl Recording,
    options: &PlotOptions,
) -> Result<Vec<Curve>, OutputError> {
    let state = recording.state_columns();
    let nq = recording.coordinates();
    let label = |i: usize| match options.labels.get(i) {
        Some(label) => label.to_string(),
        None => state[i].clone(),
    };
    let samples = (0..recording.samples()).map(|i| recording.sample(i));
    let times: Vec<f64> = samples.clone().map(|s| s.t).collect();
    let curve = |label: String, values: Vec<f64>| Curve {
        label,
        points: times.iter().copied().zip(values).collect(),
    };
    let coordinate = |i: usize| samples.clone().map(|s| s.q[i]).collect();
    if options.columns.is_empty() {
        return Ok((0..nq).map(|i| curve(label(i), coordinate(i))).collect());
    }
    (options.columns.iter())
        .map(|&name| {
            let values = match (0..nq).find(|&i| label(i) == name) {
                Some(i) => coordinate(i),
                None => column(recording, name).ok_or_else(|| {
                    OutputError::Format(format!(
                        "`{name}` is neither a coordinate ({}) nor a column ({})",
                        (0..nq).map(label).collect::<Vec<_>>().join(", "),
                        recording_header(recording).join(", ")
                    ))
                })?,
            };
            Ok(curve(name.to_string(), values))
        })
        .collect()
}

/// Draws `recording` to the SVG file `path` ([`Trajectory::plot_svg`]).
pub(super) fn plot(
    recording: &impl Recording,
    path: &Path,
    options: &PlotOptions,
) -> Result<(), OutputError> {
    let nq = recording.coordinates();
    if !options.labels.is_empty() && options.labels.len() != nq {
        return Err(OutputError::Format(format!(
            "PlotOptions::labels has {} names ({}) for the {nq} coordinates; give one per \
             coordinate, in order, or none",
            options.labels.len(),
            options.labels.join(", ")
        )));
    }
    let samples: Vec<RecordedSample> = (0..recording.samples())
        .map(|i| recording.sample(i))
        .collect();
    let (Some(first), Some(last)) = (samples.first(), samples.last()) else {
        return Err(OutputError::Format("nothing to plot".into()));
    };
    if samples.len() < 2 || last.t <= first.t {
        return Err(OutputError::Format(
            "a plot needs samples at two different times".into(),
        ));
    }
    let columns = selected_columns(recording, options)?;
    create_parent(path)?;
    let span = (first.t, last.t);
    let series = |f: &dyn Fn(&RecordedSample) -> f64| -> Vec<(f64, f64)> {
        samples.iter().map(|s| (s.t, f(s))).collect()
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
            let errors = recording.relative_energy_errors();
            let points = samples.iter().map(|s| s.t).zip(errors).collect();
            ("relative energy error", "(E − E₀)/|E₀|", points)
        }
        false => ("energy (not conserved)", "E", series(&|s| s.energy)),
    };
    let energy = [Curve {
        label: energy_label.into(),
        points: energy,
    }];
    let (top_label, top) = match options.columns.is_empty() {
        true => ("q", scale_groups(columns)),
        false => ("", vec![columns]),
    };
    let caption = |group: &[Curve]| match (options.columns.is_empty(), top.len()) {
        (false, _) => "columns".to_string(),
        (true, 1) => "coordinates".to_string(),
        (true, _) => format!(
            "coordinates: {}",
            group
                .iter()
                .map(|c| c.label.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };

    let rows = top.len() + 2;
    let size = (SIZE.0, SIZE.1 / 3 * rows as u32);
    let root = SVGBackend::new(path, size).into_drawing_area();
    root.fill(&WHITE).map_err(plot_error)?;
    let root = (root.titled(options.title, ("sans-serif", 24))).map_err(plot_error)?;
    let areas = root.split_evenly((rows, 1));
    for (area, group) in areas.iter().zip(&top) {
        panel(area, &caption(group), top_label, span, group, false)?;
    }
    let areas = &areas[top.len() - 1..];
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

impl<const N: usize> Trajectory<N> {
    /// The values of the CSV column `name` ([`Trajectory::csv_header`]: `t`, the state
    /// columns such as `theta` and `theta_dot`, `position_residual`, `velocity_residual`,
    /// `energy`, then the model's output columns), one per sample; `None` for a name that is
    /// not a column.
    pub fn column(&self, name: &str) -> Option<Vec<f64>> {
        column(self, name)
    }

    /// Draws the trajectory to the SVG file `path` (its directory is created if needed): the
    /// chosen columns against time (see [`PlotOptions::columns`]; by default the coordinates,
    /// in up to four panels of similar scale), the constraint violations
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
        plot(self, path.as_ref(), options)
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
            state_columns: vec!["q1".into(), "qd1".into()],
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
        let curves = selected_columns(&run, &options).unwrap();
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

    /// A curve of the constant `y` at t = 0, 1.
    fn flat(label: &str, y: f64) -> Curve {
        Curve {
            label: label.into(),
            points: vec![(0.0, y), (1.0, -y)],
        }
    }

    /// The labels of each group.
    fn labels(groups: &[Vec<Curve>]) -> Vec<Vec<&str>> {
        (groups.iter())
            .map(|g| g.iter().map(|c| c.label.as_str()).collect())
            .collect()
    }

    #[test]
    fn coordinates_are_grouped_by_scale_into_at_most_four_panels() {
        // A wheel angle of 7000 rad beside the entries of a unit quaternion.
        let wheel = ["e0", "e1", "e2", "e3", "spin"].map(|name| match name {
            "spin" => flat(name, 7000.0),
            _ => flat(name, 0.5),
        });
        let groups = scale_groups(wheel.into_iter().collect());
        assert_eq!(
            labels(&groups),
            [vec!["spin"], vec!["e0", "e1", "e2", "e3"]]
        );
        // Within a factor of 20 of a panel's largest peak: one panel; zero joins the smallest.
        let near = vec![flat("a", 1.0), flat("b", 19.0), flat("c", 0.0)];
        assert_eq!(labels(&scale_groups(near)), [vec!["b", "a"], vec!["c"]]);
        // Six scales, 1e6 … 1e-9: merged into four, the closest neighbours first (1e6 with
        // 1e4 and 1 with 1e-2, gaps of 100, before the gaps of 1e3 and 1e4).
        let six = [1e6, 1e4, 1.0, 1e-2, 1e-5, 1e-9];
        let curves = six.iter().map(|&y| flat(&format!("{y:e}"), y)).collect();
        assert_eq!(
            labels(&scale_groups(curves)),
            [
                vec!["1e6", "1e4"],
                vec!["1e0", "1e-2"],
                vec!["1e-5"],
                vec!["1e-9"]
            ]
        );
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
        let curves = selected_columns(&run, &none).unwrap();
        assert_eq!(curves[0].label, "q1");
        let named = Trajectory {
            state_columns: vec!["theta".into(), "theta_dot".into()],
            ..run
        };
        assert_eq!(selected_columns(&named, &none).unwrap()[0].label, "theta");
        assert_eq!(named.column("theta_dot"), Some(vec![1.0; 3]));
        assert_eq!(named.column("q1"), None);
        // Names of the wrong count fall back to the default ones, never a panic.
        let unnamed = Trajectory {
            state_columns: Vec::new(),
            ..named
        };
        assert_eq!(unnamed.column("qd1"), Some(vec![1.0; 3]));
        assert_eq!(unnamed.csv_header()[..3], ["t", "q1", "qd1"]);
    }
}
