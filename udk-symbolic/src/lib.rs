//! udk's symbolic engine: model spec → expression DAG → derivation → emitters.
//!
//! Data flows one way: [`spec`] (what the user wrote) is parsed into the expression DAG
//! ([`expr`]), differentiated into the mass matrix M, generalized force Q, constraint matrix A,
//! vector b and non-ideal force C ([`derivation`]), simplified, and emitted as Rust tokens,
//! LaTeX, or a run-time tape.
//!
//! # Expressions
//! L, H, constraints and forces are Rust expressions over the model's names (see [`parse`]):
//! numeric literals, coordinates, momenta, parameters, `t`, `PI`, `dot(q)` for q̇, unary `-`,
//! `+ - * /`, and `powi`, `powf`, `sqrt`, `sin`, `cos`, `tan`, `asin`, `acos`, `atan`,
//! `atan2`, `sinh`, `cosh`, `tanh`, `exp`, `ln`, `abs` as methods or functions.
//!
//! Expressions are bounded in length, tokens and nesting ([`limits`]); callers run the
//! engine on [`limits::on_large_stack`], as the macros and the `udk` binary do.
//!
//! ```
//! let spec: udk_symbolic::ModelSpec = toml::from_str(r#"
//!     name = "Pendulum"
//!     coordinates = ["x", "y"]
//!     parameters = [{ name = "m" }, { name = "g" }, { name = "l" }]
//!     lagrangian = "0.5 * m * (dot(x).powi(2) + dot(y).powi(2)) - m * g * y"
//!     holonomic = ["x.powi(2) + y.powi(2) - l.powi(2)"]
//! "#).unwrap();
//! let derivation = udk_symbolic::derive(&spec).unwrap();
//! let udk_symbolic::Equations::Lagrangian(eq) = &derivation.equations else { unreachable!() };
//! assert_eq!((eq.mass_matrix.rows, eq.constraint_matrix.rows), (2, 1));
//! ```

pub mod codegen;
pub mod derivation;
pub mod derive;
pub mod emit;
pub mod error;
pub mod expr;
pub mod limits;
pub mod models;
pub mod parse;
mod plain;
pub mod repeat;
pub mod spec;
mod stack;
pub mod tree;
pub mod urdf;

pub use codegen::generate;
pub use derivation::{
    ArticulatedEquations, ContactEquations, Derivation, Equations, ExprMatrix,
    HamiltonianEquations, LagrangianEquations, MassMatrixForm, NamedValue, ServoEquations,
    ServoRows, TreeResidual,
};
pub use derive::{derive, derive_with, Jacobians};
pub use error::{Error, Errors};
pub use spec::{
    Coefficient, ContactSpec, EventAction, EventDirection, EventSpec, Expression, Gains,
    InitialState, JointPd, ModelSpec, Name, NamedExpression, Parameter,
};
pub use tree::{RigidBodyTree, SpatialInertia, Transform, TreeBody, TreeJoint};
