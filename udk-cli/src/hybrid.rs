//! The events of a model file (`[[events]]`, [`udk_symbolic::EventSpec`]) and its contacts
//! (`[[contacts]]`, [`udk_symbolic::ContactSpec`]), compiled by [`udk::model::Hybrid`] (the
//! same code [`udk::Model::simulate`] runs) with their errors located in the file, and the
//! event log of a run.

use crate::failure::Failure;
use crate::model::{Backend, Model};
use crate::model_file::ModelFile;
use std::fmt::Write as _;
use udk::model::{BoundHybrid, Hybrid, SpecSource};
use udk::ModelError;
use udk_runtime::simulate::EventRecord;
use udk_symbolic::{Errors, Expression};

impl SpecSource for ModelFile {
    fn name(&self) -> String {
        ModelFile::name(self)
    }

    fn locate(&self, errors: &Errors) -> Vec<String> {
        ModelFile::locate(self, errors).lines()
    }

    fn source_of(&self, expression: &Expression) -> String {
        ModelFile::source_of(self, expression)
    }
}

/// The events and contacts of a model file, compiled, with the parameter values and inputs
/// they are evaluated with.
#[derive(Debug)]
pub struct Events {
    hybrid: Option<Hybrid>,
    params: Vec<f64>,
    inputs: Vec<f64>,
}

/// A failure of [`Hybrid`] as the CLI reports it.
fn failure(file: &ModelFile, error: ModelError) -> Failure {
    match error {
        ModelError::Events { problems, .. } => Failure::BadInput(problems),
        error => Failure::bad_input(format!(
            "{}: {error}; `--interpret` evaluates the model by the tape instead",
            file.name()
        )),
    }
}

impl Events {
    /// The events and contacts of `model`'s file compiled for `backend`, with parameter
    /// values `params` and inputs `inputs`.
    ///
    /// # Errors
    /// [`Failure::BadInput`], located in the file: the errors of [`Hybrid::new`].
    pub fn new(
        model: &Model,
        params: &[f64],
        inputs: &[f64],
        backend: Backend,
    ) -> Result<Self, Failure> {
        let file = &model.file;
        let values: Vec<Option<f64>> = params.iter().copied().map(Some).collect();
        let hybrid = Hybrid::new(&file.spec, &model.derivation, &values, backend, file)
            .map_err(|e| failure(file, e))?;
        Ok(Events {
            hybrid,
            params: params.to_vec(),
            inputs: inputs.to_vec(),
        })
    }

    /// The events and contacts bound to the parameter values and inputs; `None` for a file
    /// without any.
    ///
    /// # Errors
    /// [`Failure::BadInput`] for a coefficient that is negative or not finite (checked by
    /// [`Events::new`] already).
    pub fn bind(&self) -> Result<Option<BoundHybrid<'_>>, Failure> {
        let Some(hybrid) = &self.hybrid else {
            return Ok(None);
        };
        match hybrid.bind(&self.params, &self.inputs) {
            Ok(bound) => Ok(Some(bound)),
            Err(ModelError::Events { problems, .. }) => Err(Failure::BadInput(problems)),
            Err(e) => Err(Failure::bad_input(e.to_string())),
        }
    }

    /// The events' names.
    fn names(&self) -> Vec<&str> {
        self.hybrid
            .as_ref()
            .map_or_else(Vec::new, Hybrid::event_names)
    }

    /// The index of the event named `name`.
    ///
    /// # Errors
    /// [`Failure::BadInput`] listing the events when none has that name.
    pub fn index(&self, name: &str) -> Result<usize, Failure> {
        let names = self.names();
        names.iter().position(|e| *e == name).ok_or_else(|| {
            Failure::bad_input(format!(
                "--section {name}: no event of that name (events: {})",
                names.join(", ")
            ))
        })
    }

    /// The indices of the events whose action is a reset.
    pub fn resets(&self) -> Vec<usize> {
        self.hybrid.as_ref().map_or_else(Vec::new, Hybrid::resets)
    }

    /// The name of event `index`.
    pub fn name(&self, index: usize) -> &str {
        self.names()[index]
    }
}

/// One event of a run as the log shows it: a record of the simulator
/// ([`udk_runtime::simulate::EventRecord`]) or of a [`udk::model::Motion`].
pub trait LoggedEvent {
    /// The event time (s).
    fn time(&self) -> f64;
    /// The event's name.
    fn name(&self) -> &str;
    /// q and q̇ (or v) before the event, then after it.
    fn states(&self) -> [&[f64]; 4];
}

impl<const N: usize> LoggedEvent for EventRecord<N> {
    fn time(&self) -> f64 {
        self.t
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn states(&self) -> [&[f64]; 4] {
        [&self.before.0, &self.before.1, &self.after.0, &self.after.1].map(|v| v.as_slice())
    }
}

impl LoggedEvent for udk::model::EventRecord {
    fn time(&self) -> f64 {
        self.t
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn states(&self) -> [&[f64]; 4] {
        [&self.q_before, &self.v_before, &self.q_after, &self.v_after].map(|v| v.as_slice())
    }
}

/// The event log of a run as text: a header and one line per event, at most `limit` of them.
pub fn log(records: &[impl LoggedEvent], limit: usize) -> String {
    if records.is_empty() {
        return String::new();
    }
    let mut text = format!("events: {}\n", records.len());
    for record in records.iter().take(limit) {
        let [q_before, v_before, q_after, v_after] = record.states();
        let _ = writeln!(
            text,
            "  t = {:.12}  {}  q⁻ = {q_before:?}  q̇⁻ = {v_before:?}  q⁺ = {q_after:?}  q̇⁺ = {v_after:?}",
            record.time(),
            record.name(),
        );
    }
    if records.len() > limit {
        let _ = writeln!(
            text,
            "  … {} more (--events FILE writes them all)",
            records.len() - limit
        );
    }
    text
}

/// Writes the event log as CSV to `path`: t, name, then q⁻, q̇⁻, q⁺, q̇⁺ by coordinate name.
///
/// # Errors
/// [`Failure::Output`] when the file cannot be written.
pub fn write_log(
    path: &std::path::Path,
    records: &[impl LoggedEvent],
    coordinates: &[String],
) -> Result<(), Failure> {
    let mut text = String::from("t,event");
    for suffix in ["_before", "_dot_before", "_after", "_dot_after"] {
        for c in coordinates {
            let _ = write!(text, ",{c}{suffix}");
        }
    }
    text.push('\n');
    for r in records {
        let _ = write!(text, "{:e},{}", r.time(), r.name().replace(',', ";"));
        for v in r.states() {
            for x in v {
                let _ = write!(text, ",{x:e}");
            }
        }
        text.push('\n');
    }
    std::fs::write(path, text)
        .map_err(|e| Failure::Output(format!("cannot write {}: {e}", path.display())))
}
