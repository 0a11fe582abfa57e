//! udk's symbolic engine: model spec → expression DAG → derivation → emitters.
//!
//! Data flows one way: [`spec`] (what the user wrote) is parsed into the expression DAG,
//! differentiated into the mass matrix M, generalized force Q, constraint matrix A, vector b
//! and non-ideal force C, simplified, and emitted as Rust tokens, LaTeX, or a run-time tape.

pub mod error;
pub mod spec;

pub use error::{Error, Errors};
pub use spec::{Expression, ModelSpec, Name, Parameter};
