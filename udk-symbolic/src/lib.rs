//! udk's symbolic engine: model spec → expression DAG → derivation → emitters.
//!
//! Data flows one way: [`spec`] (what the user wrote) is parsed into the expression DAG
//! ([`expr`]), differentiated into the mass matrix M, generalized force Q, constraint matrix A,
//! vector b and non-ideal force C ([`derivation`]), simplified, and emitted as Rust tokens,
//! LaTeX, or a run-time tape.

pub mod codegen;
pub mod derivation;
pub mod derive;
pub mod emit;
pub mod error;
pub mod expr;
pub mod models;
pub mod parse;
pub mod spec;

pub use codegen::generate;
pub use derivation::{
    Derivation, Equations, ExprMatrix, HamiltonianEquations, LagrangianEquations,
};
pub use derive::derive;
pub use error::{Error, Errors};
pub use spec::{Expression, InitialState, ModelSpec, Name, Parameter};
