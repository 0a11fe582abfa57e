//! A trajectory as CSV (serde + csv): one row per sample,
//! `t`, the n coordinates, the n velocities (or momenta), `position_residual`,
//! `velocity_residual`, `energy`, then the model's output columns, if any. The state columns
//! carry the model's names ([`state_columns`]).
//! Floats are written in the shortest form that reads back to the same bits.

use super::{OutputTable, RecordedSample, Recording, Sample, StateKind, Stats, Trajectory};
use nalgebra::SVector;
use std::io::{Read, Write};
use std::path::Path;

/// Why a trajectory could not be written or read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OutputError {
    /// A file could not be created, written or read.
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
    /// The CSV writer or reader failed (including a field that is not a number).
    #[error("CSV error: {0}")]
    Csv(#[from] ::csv::Error),
    /// The CSV does not have the columns of a trajectory with n coordinates.
    #[error("not a trajectory CSV: {0}")]
    Format(String),
    /// The plot could not be drawn.
    #[error("plot error: {0}")]
    Plot(String),
}

/// Creates the parent directory of `path` when it is missing.
pub(super) fn create_parent(path: &Path) -> std::io::Result<()> {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => std::fs::create_dir_all(parent),
        _ => Ok(()),
    }
}

/// The CSV header of a trajectory of `kind` with n unnamed coordinates: `t`, `q1`…`qn`,
/// `qd1`…`qdn` or `p1`…`pn`, `position_residual`, `velocity_residual`, `energy`.
pub fn csv_header(kind: StateKind, n: usize) -> Vec<String> {
    header(state_columns::<&str, &str>(kind, &[], &[], n))
}

/// `t`, the state columns, then the three check columns.
fn header(state: Vec<String>) -> Vec<String> {
    let mut header = vec!["t".to_string()];
    header.extend(state);
    header.extend(CHECK_COLUMNS.map(String::from));
    header
}

/// The columns after the state.
const CHECK_COLUMNS: [&str; 3] = ["position_residual", "velocity_residual", "energy"];

/// The 2n names of a trajectory's state columns, so that a CSV reader (pandas, polars) can
/// index a column by the model's own names:
/// - coordinates: the model's names (`coordinates(theta, x)` gives `theta`, `x`), or
///   `q1`…`qn` when `coordinates` is empty;
/// - velocities ([`StateKind::Velocities`]): the names in `second` when the model names its
///   velocities (the generalized speeds of `speeds(wx, wy, wz)`), else each coordinate's name
///   with `_dot` (`theta_dot`), or `qd1`…`qdn` for unnamed coordinates;
/// - momenta ([`StateKind::Momenta`]): the model's momentum names in `second`
///   (`momenta(p_theta, p_x)`), or `p1`…`pn` when it is empty.
///
/// A `coordinates` or `second` list that is neither empty nor of length n is ignored (the
/// default names are used).
pub fn state_columns<C: AsRef<str>, P: AsRef<str>>(
    kind: StateKind,
    coordinates: &[C],
    second: &[P],
    n: usize,
) -> Vec<String> {
    let own = |names: &[P]| names.iter().map(|p| p.as_ref().to_string()).collect();
    let named = |names: &[C]| names.len() == n;
    let mut columns: Vec<String> = match named(coordinates) {
        true => coordinates.iter().map(|c| c.as_ref().to_string()).collect(),
        false => (1..=n).map(|i| format!("q{i}")).collect(),
    };
    let second: Vec<String> = match kind {
        StateKind::Velocities | StateKind::Momenta if second.len() == n => own(second),
        StateKind::Velocities if named(coordinates) => (coordinates.iter())
            .map(|c| format!("{}_dot", c.as_ref()))
            .collect(),
        StateKind::Velocities => (1..=n).map(|i| format!("qd{i}")).collect(),
        StateKind::Momenta => (1..=n).map(|i| format!("p{i}")).collect(),
    };
    columns.extend(second);
    columns
}

/// The header made of `state` and `outputs`, refused when two columns share a name (a reader
/// indexing by name would get the wrong one).
fn unique_header(state: Vec<String>, outputs: &[String]) -> Result<Vec<String>, OutputError> {
    let mut header = header(state);
    header.extend(outputs.iter().cloned());
    let mut seen = std::collections::HashSet::new();
    match header.iter().find(|c| !seen.insert(c.as_str())) {
        Some(twice) => Err(OutputError::Format(format!(
            "two columns of the trajectory are named `{twice}` (a coordinate, velocity or \
             momentum name clashes with another column); rename one"
        ))),
        None => Ok(header),
    }
}

/// A trajectory CSV written one sample at a time, so that a run can write its samples as it
/// records them (see [`super::simulate_dynamic_lagrangian`]) and an interrupted run keeps
/// what it computed. Memory stays that of one row.
pub struct CsvWriter<W: Write> {
    csv: ::csv::Writer<W>,
}

impl<W: Write> CsvWriter<W> {
    /// Writes the header of a trajectory of `kind` with n = `n` unnamed coordinates
    /// ([`csv_header`]) to `writer`.
    ///
    /// # Errors
    /// [`OutputError::Csv`] or [`OutputError::Io`].
    pub fn new(writer: W, kind: StateKind, n: usize) -> Result<Self, OutputError> {
        Self::with_outputs(writer, kind, n, &[])
    }

    /// As [`CsvWriter::new`], with the model's output columns (`outputs`) after `energy`.
    ///
    /// # Errors
    /// As [`CsvWriter::with_columns`].
    pub fn with_outputs(
        writer: W,
        kind: StateKind,
        n: usize,
        outputs: &[String],
    ) -> Result<Self, OutputError> {
        Self::with_columns(
            writer,
            state_columns::<&str, &str>(kind, &[], &[], n),
            outputs,
        )
    }

    /// Writes the header `t`, the 2n `state` columns (from [`state_columns`]),
    /// `position_residual`, `velocity_residual`, `energy` and the `outputs` to `writer`.
    ///
    /// # Errors
    /// [`OutputError::Format`] when two columns share a name, before anything is written;
    /// [`OutputError::Csv`] or [`OutputError::Io`].
    pub fn with_columns(
        writer: W,
        state: Vec<String>,
        outputs: &[String],
    ) -> Result<Self, OutputError> {
        Self::from_header(writer, &unique_header(state, outputs)?)
    }

    /// Writes a header already checked by [`unique_header`].
    fn from_header(writer: W, header: &[String]) -> Result<Self, OutputError> {
        let mut csv = ::csv::Writer::from_writer(writer);
        csv.write_record(header)?;
        Ok(Self { csv })
    }

    /// Writes one row, `t, q, v, position_residual, velocity_residual, energy`, to the
    /// writer's buffer.
    ///
    /// # Errors
    /// [`OutputError::Csv`] or [`OutputError::Io`].
    pub fn write<const N: usize>(&mut self, s: &Sample<N>) -> Result<(), OutputError> {
        self.write_with_outputs(s, &[])
    }

    /// Writes one row, the sample's columns then the values of the output columns given to
    /// [`CsvWriter::with_outputs`].
    ///
    /// # Errors
    /// [`OutputError::Csv`] or [`OutputError::Io`].
    pub fn write_with_outputs<const N: usize>(
        &mut self,
        s: &Sample<N>,
        outputs: &[f64],
    ) -> Result<(), OutputError> {
        self.write_recorded(&s.recorded(), outputs)
    }

    /// Writes one row: `s` then `outputs`.
    fn write_recorded(&mut self, s: &RecordedSample, outputs: &[f64]) -> Result<(), OutputError> {
        let row = std::iter::once(s.t)
            .chain(s.q.iter().copied())
            .chain(s.v.iter().copied())
            .chain([s.position_residual, s.velocity_residual, s.energy])
            .chain(outputs.iter().copied());
        self.csv.serialize(row.collect::<Vec<f64>>())?;
        Ok(())
    }

    /// Pushes the rows written so far to the underlying writer and flushes it.
    ///
    /// # Errors
    /// [`OutputError::Io`].
    pub fn flush(&mut self) -> Result<(), OutputError> {
        self.csv.flush()?;
        Ok(())
    }
}

impl CsvWriter<std::fs::File> {
    /// Creates the file `path` (and its directory) and writes the header, as [`CsvWriter::new`].
    ///
    /// # Errors
    /// [`OutputError::Io`] when the file cannot be created, and as [`CsvWriter::new`].
    pub fn create(path: &Path, kind: StateKind, n: usize) -> Result<Self, OutputError> {
        Self::create_with_outputs(path, kind, n, &[])
    }

    /// As [`CsvWriter::create`], with output columns ([`CsvWriter::with_outputs`]).
    ///
    /// # Errors
    /// As [`CsvWriter::create`].
    pub fn create_with_outputs(
        path: &Path,
        kind: StateKind,
        n: usize,
        outputs: &[String],
    ) -> Result<Self, OutputError> {
        Self::create_with_columns(
            path,
            state_columns::<&str, &str>(kind, &[], &[], n),
            outputs,
        )
    }

    /// As [`CsvWriter::with_columns`], into the file `path` (and its directory), created only
    /// once the header is known to be valid.
    ///
    /// # Errors
    /// As [`CsvWriter::with_columns`], and [`OutputError::Io`] when the file cannot be created.
    pub fn create_with_columns(
        path: &Path,
        state: Vec<String>,
        outputs: &[String],
    ) -> Result<Self, OutputError> {
        let header = unique_header(state, outputs)?;
        create_parent(path)?;
        Self::from_header(std::fs::File::create(path)?, &header)
    }
}

/// The CSV header of `recording`: `t`, its state columns, `position_residual`,
/// `velocity_residual`, `energy`, then its output columns.
pub(super) fn recording_header(recording: &impl Recording) -> Vec<String> {
    let mut header = header(recording.state_columns());
    header.extend(recording.outputs().columns.iter().cloned());
    header
}

/// Writes the samples of `recording` as CSV to `writer`, with its outputs as the last
/// columns ([`Recording::write_csv_to`]).
pub(super) fn write_recording_to<W: Write>(
    recording: &impl Recording,
    writer: W,
) -> Result<(), OutputError> {
    let header = unique_header(recording.state_columns(), &recording.outputs().columns)?;
    write_rows(recording, CsvWriter::from_header(writer, &header)?)
}

/// Writes the samples of `recording` as CSV to the file `path` ([`Recording::write_csv`]).
pub(super) fn write_recording(recording: &impl Recording, path: &Path) -> Result<(), OutputError> {
    let csv = CsvWriter::create_with_columns(
        path,
        recording.state_columns(),
        &recording.outputs().columns,
    )?;
    write_rows(recording, csv)
}

/// Writes every sample of `recording` with its outputs, then flushes.
fn write_rows<W: Write>(
    recording: &impl Recording,
    mut csv: CsvWriter<W>,
) -> Result<(), OutputError> {
    for i in 0..recording.samples() {
        csv.write_recorded(&recording.sample(i), recording.outputs().row(i))?;
    }
    csv.flush()
}

impl<const N: usize> Trajectory<N> {
    /// The CSV header of this trajectory ([`Recording::csv_header`]): `t`, its
    /// [`Trajectory::state_columns`] (the default names when it does not hold 2n),
    /// `position_residual`, `velocity_residual`, `energy`, then its output columns.
    pub fn csv_header(&self) -> Vec<String> {
        recording_header(self)
    }

    /// Writes the samples as CSV to `writer`, with the model's outputs as the last columns
    /// ([`Recording::write_csv_to`]).
    ///
    /// # Errors
    /// [`OutputError::Format`] when two columns share a name (nothing is written);
    /// [`OutputError::Csv`] or [`OutputError::Io`].
    pub fn write_csv_to<W: Write>(&self, writer: W) -> Result<(), OutputError> {
        write_recording_to(self, writer)
    }

    /// Writes the samples as CSV to the file `path`, creating its directory if needed; a
    /// header with a repeated name is refused before the file is created
    /// ([`Recording::write_csv`]).
    ///
    /// # Errors
    /// As [`Trajectory::write_csv_to`].
    pub fn write_csv(&self, path: impl AsRef<Path>) -> Result<(), OutputError> {
        write_recording(self, path.as_ref())
    }

    /// Reads a trajectory with n = `N` coordinates written by [`Trajectory::write_csv_to`]:
    /// `t`, 2n state columns of any names, `position_residual`, `velocity_residual`, `energy`,
    /// then output columns. The state holds velocities when its second n columns are `qd1`…
    /// or the coordinates' names with `_dot`, and momenta otherwise. [`Trajectory::stats`] is
    /// zero.
    ///
    /// # Errors
    /// [`OutputError::Format`] for a header or row of the wrong shape, [`OutputError::Csv`]
    /// for a field that is not a number.
    pub fn read_csv_from<R: Read>(reader: R) -> Result<Self, OutputError> {
        let mut csv = ::csv::Reader::from_reader(reader);
        let header = csv.headers()?.clone();
        let names: Vec<String> = header.iter().map(String::from).collect();
        let shaped = names.len() >= 2 * N + 4
            && names[0] == "t"
            && names[2 * N + 1..2 * N + 4] == CHECK_COLUMNS;
        if !shaped {
            return Err(OutputError::Format(format!(
                "expected the header of a trajectory with {N} coordinates (t, {N} coordinates, \
                 {N} velocities or momenta, {}), found {header:?}",
                CHECK_COLUMNS.join(", ")
            )));
        }
        let state = names[1..=2 * N].to_vec();
        let velocities = [
            state_columns::<&str, &str>(StateKind::Velocities, &[], &[], N),
            state_columns::<_, &str>(StateKind::Velocities, &state[..N], &[], N),
        ];
        let kind = match velocities.iter().any(|v| v[N..] == state[N..]) {
            true => StateKind::Velocities,
            false => StateKind::Momenta,
        };
        let columns: Vec<String> = names[2 * N + 4..].to_vec();
        let width = 2 * N + 4 + columns.len();
        let mut samples = Vec::new();
        let mut values = Vec::new();
        for row in csv.deserialize::<Vec<f64>>() {
            let row = row?;
            if row.len() != width {
                return Err(OutputError::Format(format!(
                    "a row has {} fields, expected {width}",
                    row.len(),
                )));
            }
            values.extend_from_slice(&row[2 * N + 4..]);
            samples.push(Sample {
                t: row[0],
                q: SVector::from_column_slice(&row[1..=N]),
                v: SVector::from_column_slice(&row[N + 1..=2 * N]),
                position_residual: row[2 * N + 1],
                velocity_residual: row[2 * N + 2],
                energy: row[2 * N + 3],
            });
        }
        Ok(Trajectory {
            kind,
            state_columns: state,
            samples,
            stats: Stats::default(),
            events: Vec::new(),
            outputs: OutputTable { columns, values },
        })
    }

    /// Reads the CSV file `path` (see [`Trajectory::read_csv_from`]).
    ///
    /// # Errors
    /// As [`Trajectory::read_csv_from`], and [`OutputError::Io`] when the file cannot be read.
    pub fn read_csv(path: impl AsRef<Path>) -> Result<Self, OutputError> {
        Self::read_csv_from(std::fs::File::open(path)?)
    }
}
