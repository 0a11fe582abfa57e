//! A trajectory as CSV (serde + csv): one row per sample,
//! `t, q1…qn, qd1…qdn (or p1…pn), position_residual, velocity_residual, energy`, then the
//! model's output columns, if any.
//! Floats are written in the shortest form that reads back to the same bits.

use super::{OutputTable, Sample, StateKind, Stats, Trajectory};
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

impl StateKind {
    /// The CSV column prefix of the second half of the state: `qd` or `p`.
    fn prefix(self) -> &'static str {
        match self {
            StateKind::Velocities => "qd",
            StateKind::Momenta => "p",
        }
    }
}

/// The CSV header of a trajectory of `kind` with n coordinates: `t`, `q1`…`qn`, `qd1`…`qdn`
/// or `p1`…`pn`, `position_residual`, `velocity_residual`, `energy`.
pub fn csv_header(kind: StateKind, n: usize) -> Vec<String> {
    let mut header = vec!["t".to_string()];
    header.extend((1..=n).map(|i| format!("q{i}")));
    header.extend((1..=n).map(|i| format!("{}{i}", kind.prefix())));
    header.extend(["position_residual", "velocity_residual", "energy"].map(String::from));
    header
}

/// A trajectory CSV written one sample at a time, so that a run can write its samples as it
/// records them (see [`super::simulate_dynamic_lagrangian`]) and an interrupted run keeps
/// what it computed. Memory stays that of one row.
pub struct CsvWriter<W: Write> {
    csv: ::csv::Writer<W>,
}

impl<W: Write> CsvWriter<W> {
    /// Writes the header of a trajectory of `kind` with n = `n` coordinates ([`csv_header`])
    /// to `writer`.
    ///
    /// # Errors
    /// [`OutputError::Csv`] or [`OutputError::Io`].
    pub fn new(writer: W, kind: StateKind, n: usize) -> Result<Self, OutputError> {
        Self::with_outputs(writer, kind, n, &[])
    }

    /// As [`CsvWriter::new`], with the model's output columns (`outputs`) after `energy`.
    ///
    /// # Errors
    /// [`OutputError::Csv`] or [`OutputError::Io`].
    pub fn with_outputs(
        writer: W,
        kind: StateKind,
        n: usize,
        outputs: &[String],
    ) -> Result<Self, OutputError> {
        let mut csv = ::csv::Writer::from_writer(writer);
        let mut header = csv_header(kind, n);
        header.extend(outputs.iter().cloned());
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
        create_parent(path)?;
        Self::with_outputs(std::fs::File::create(path)?, kind, n, outputs)
    }
}

impl<const N: usize> Trajectory<N> {
    /// The CSV header of this trajectory: [`csv_header`], then its output columns.
    pub fn csv_header(&self) -> Vec<String> {
        let mut header = csv_header(self.kind, N);
        header.extend(self.outputs.columns.iter().cloned());
        header
    }

    /// Writes the samples as CSV to `writer`, with the model's outputs as the last columns.
    ///
    /// # Errors
    /// [`OutputError::Csv`] or [`OutputError::Io`].
    pub fn write_csv_to<W: Write>(&self, writer: W) -> Result<(), OutputError> {
        let mut csv = CsvWriter::with_outputs(writer, self.kind, N, &self.outputs.columns)?;
        for (i, sample) in self.samples.iter().enumerate() {
            csv.write_with_outputs(sample, self.outputs.row(i))?;
        }
        csv.flush()
    }

    /// Writes the samples as CSV to the file `path`, creating its directory if needed.
    ///
    /// # Errors
    /// As [`Trajectory::write_csv_to`].
    pub fn write_csv(&self, path: impl AsRef<Path>) -> Result<(), OutputError> {
        let path = path.as_ref();
        create_parent(path)?;
        self.write_csv_to(std::fs::File::create(path)?)
    }

    /// Reads a trajectory with n = `N` coordinates written by [`Trajectory::write_csv_to`];
    /// the header tells velocities from momenta. [`Trajectory::stats`] is zero.
    ///
    /// # Errors
    /// [`OutputError::Format`] for a header or row of the wrong shape, [`OutputError::Csv`]
    /// for a field that is not a number.
    pub fn read_csv_from<R: Read>(reader: R) -> Result<Self, OutputError> {
        let mut csv = ::csv::Reader::from_reader(reader);
        let header = csv.headers()?.clone();
        let kind = [StateKind::Velocities, StateKind::Momenta]
            .into_iter()
            .find(|&kind| {
                let columns = csv_header(kind, N);
                header.len() >= columns.len() && header.iter().zip(&columns).all(|(a, b)| a == b)
            })
            .ok_or_else(|| {
                OutputError::Format(format!(
                    "expected the header of a trajectory with {N} coordinates, found {header:?}"
                ))
            })?;
        let columns: Vec<String> = header.iter().skip(2 * N + 4).map(String::from).collect();
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
