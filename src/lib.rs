#![doc = include_str!("../README.md")]

pub use nalgebra;
pub use udk_runtime as runtime;
pub use udk_runtime::{
    Error, HamiltonianSystem, HamiltonianTerms, LagrangianSystem, LagrangianTerms, ModelEquations,
    Options,
};

pub mod guide;

#[cfg(feature = "model")]
pub mod model;
#[cfg(feature = "model")]
pub use model::{Model, ModelError, ModelSpec};

/// Every item this macro generates, with its doc comment, is shown on an example model:
/// [`example_generated::CartesianPendulum`].
///
pub use udk_macros::lagrangian;

/// The items this macro generates are listed in the crate documentation, section "Generated
/// API"; [`example_generated`] shows those of the Lagrangian counterpart on an example model.
///
pub use udk_macros::hamiltonian;

/// The name the generated code uses for this crate (`::udk::__private`), so that the example
/// model below can be expanded inside `udk` itself.
#[cfg(any(doc, test))]
extern crate self as udk;

#[cfg(any(doc, test))]
pub mod example_generated;

/// What generated code names: the runtime and nalgebra, so that a user crate needs `udk` as its
/// only dependency. Not a public API.
#[doc(hidden)]
pub mod __private {
    pub use nalgebra;
    pub use udk_runtime;
}
