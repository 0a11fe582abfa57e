//! udk: the motion of constrained mechanical systems by the Udwadia–Kalaba equation.
//!
//! Write a Lagrangian (or a Hamiltonian) and the constraints on a struct; at compile time the
//! [`lagrangian`] and [`hamiltonian`] attribute macros differentiate them symbolically into the
//! mass matrix M, the generalized force Q, the constraint matrix A and the vector b, and generate
//! allocation-free functions that return the constrained acceleration and the constraint force.
//!
//! ```
//! use udk::lagrangian;
//! use udk::nalgebra::Vector2;
//!
//! /// Planar pendulum in Cartesian coordinates (y up).
//! #[lagrangian(
//!     coordinates(x, y),
//!     lagrangian = 0.5 * m * (dot(x).powi(2) + dot(y).powi(2)) - m * g * y,
//!     holonomic(x.powi(2) + y.powi(2) - l.powi(2)),
//! )]
//! pub struct CartesianPendulum { pub m: f64, pub g: f64, pub l: f64 }
//!
//! let pendulum = CartesianPendulum { m: 1.0, g: 9.81, l: 2.0 };
//! // At rest, hanging straight down: no acceleration.
//! let qdd = pendulum.acceleration(&Vector2::new(0.0, -2.0), &Vector2::zeros(), 0.0).unwrap();
//! assert!(qdd.norm() < 1e-12);
//! // The rod carries the weight: the constraint force is m g upwards.
//! let force = pendulum.constraint_force(&Vector2::new(0.0, -2.0), &Vector2::zeros(), 0.0).unwrap();
//! assert!((force - Vector2::new(0.0, 9.81)).norm() < 1e-12);
//! ```
//!
//! The README's section "Writing a model" lists the syntax and every generated item.

pub use nalgebra;
pub use udk_macros::{hamiltonian, lagrangian};
pub use udk_runtime as runtime;
pub use udk_runtime::{
    Error, HamiltonianSystem, HamiltonianTerms, LagrangianSystem, LagrangianTerms, ModelEquations,
    Options,
};

/// What generated code names: the runtime and nalgebra, so that a user crate needs `udk` as its
/// only dependency. Not a public API.
#[doc(hidden)]
pub mod __private {
    pub use nalgebra;
    pub use udk_runtime;
}
