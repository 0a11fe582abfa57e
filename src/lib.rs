#![doc = include_str!("../README.md")]

pub use nalgebra;
pub use udk_runtime as runtime;
pub use udk_runtime::{
    Error, HamiltonianSystem, HamiltonianTerms, LagrangianSystem, LagrangianTerms, ModelEquations,
    Options,
};

pub use udk_macros::{hamiltonian, lagrangian};

/// What generated code names: the runtime and nalgebra, so that a user crate needs `udk` as its
/// only dependency. Not a public API.
#[doc(hidden)]
pub mod __private {
    pub use nalgebra;
    pub use udk_runtime;
}
