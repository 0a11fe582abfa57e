//! Why a command failed, as one line per problem, and its exit code.

use std::fmt;

/// A failed command. Exit codes: 2 for bad input, 3 for equations of motion with no
/// trustworthy solution at a state, 1 for anything else (an output file that cannot be written).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Failure {
    /// Malformed TOML or JSON, an unknown symbol, a wrong vector length, an initial state off
    /// the constraint manifold, ...: one line per problem, each with its file and position.
    BadInput(Vec<String>),
    /// The constrained acceleration is not unique, the constraints are inconsistent, or another
    /// kernel error (`udk_runtime::Error`) at a state.
    Motion(String),
    /// An I/O error on an output.
    Output(String),
}

impl Failure {
    /// One bad-input problem.
    pub fn bad_input(line: impl Into<String>) -> Self {
        Failure::BadInput(vec![line.into()])
    }

    /// The process exit code: 2, 3 or 1.
    pub fn exit_code(&self) -> u8 {
        match self {
            Failure::BadInput(_) => 2,
            Failure::Motion(_) => 3,
            Failure::Output(_) => 1,
        }
    }

    /// The message, one line per problem.
    pub fn lines(&self) -> Vec<String> {
        match self {
            Failure::BadInput(lines) => lines.clone(),
            Failure::Motion(line) | Failure::Output(line) => vec![line.clone()],
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.lines().join("\n"))
    }
}

impl std::error::Error for Failure {}
