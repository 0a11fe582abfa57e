//! Errors of the symbolic engine, each with the span of its culprit.

use proc_macro2::Span;
use std::fmt;

/// One error in a model, located at `span` (a token of the macro input, or a line and column
/// of a model file's expression when the `span-locations` feature of proc-macro2 is on).
#[derive(Clone, Debug)]
pub struct Error {
    /// Where the culprit was written.
    pub span: Span,
    /// What is wrong, in one sentence.
    pub message: String,
}

impl Error {
    /// An error at `span`.
    pub fn new(span: Span, message: impl Into<String>) -> Self {
        Error {
            span,
            message: message.into(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// Every error found in a model: the engine collects them all rather than stop at the first.
#[derive(Clone, Debug, Default)]
pub struct Errors(pub Vec<Error>);

impl Errors {
    /// Adds one error.
    pub fn push(&mut self, span: Span, message: impl Into<String>) {
        self.0.push(Error::new(span, message));
    }
    /// `Ok(value)` when no error was collected, else all of them.
    pub fn finish<T>(self, value: T) -> Result<T, Errors> {
        if self.0.is_empty() {
            Ok(value)
        } else {
            Err(self)
        }
    }
    /// Whether none was collected.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for Errors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Errors {}
