//! Numeric kernels of udk: the Moore–Penrose inverse and the Udwadia–Kalaba fundamental
//! equation, with no symbolic dependencies.
//!
//! Notation follows the papers in `../shared/papers/`: n generalized coordinates q, m
//! constraints A q̈ = b, mass matrix M (n × n), generalized force Q (n), non-ideal
//! constraint force description C (n), constraint force Qᶜ (n).
//!
//! - [`acceleration`], [`constraint_force`], [`acceleration_and_constraint_force`]: the
//!   fundamental equation for positive definite or singular M (fixed sizes, no heap
//!   allocation), with `_dyn` twins for `DMatrix`/`DVector`. Each takes the terms
//!   (M, Q, A, b, C) as one borrowed [`LagrangianView`].
//! - [`factored`]: the same equation from a = M⁻¹(Q + C) and W = M⁻¹Aᵀ, for trees whose
//!   generated code forms them in O(n) by the articulated-body algorithm.
//! - [`hamiltonian`]: constrained Hamilton equations (Udwadia 2016, eq 36).
//! - [`impact()`]: the velocity jump and the impulses of constraints that close with
//!   restitution, by the fundamental equation at velocity level ([`rheonomic_impact()`] on
//!   moving constraints, [`sliding_impact()`] with Coulomb friction).
//! - [`jacobian`]: exact Jacobians of q̈ (and of the Hamiltonian (q̇, ṗ)) from the generated
//!   Jacobians of the residuals of the fundamental equation, at constant rank.
//! - [`reference_acceleration`], [`mass_constraint_rank`]: eq 2.15 of Udwadia & Phohomsiri
//!   2006 and its uniqueness test, for cross-checks.
//! - [`pinv`], [`rank`], [`pinv_symmetric`]: Moore–Penrose inverse and numerical rank.
//! - [`linearize`]: state-space matrices and eigenvalues on the constraint manifold; [`lqr`]:
//!   the regulator gain.
//! - [`simulate`] (default feature `simulate`): DOP853/DOPRI5/RK4/Radau5/BDF runs of any
//!   generated system with Baumgarte stabilization, projection, trajectories, CSV and SVG
//!   plots.
//!
//! Every kernel validates its input and returns [`Error`] rather than panicking or
//! returning NaN; it scales its input by powers of two so that no product overflows or
//! underflows, and checks the residual of its constraints before it returns an answer
//! ([`Options::residual_tolerance`]).
//!
//! # Layers
//! The modules, bottom to top; each imports only from the layers below it.
//! 1. `allocator` (the nalgebra storage bound of the kernels), `error`.
//! 2. `options`, `view` ([`LagrangianView`]).
//! 3. `validate` (input checks), `cholesky` (L D Lᵀ).
//! 4. `scaling` (power-of-two equilibration), `residual` (the a-posteriori check), `pinv`
//!    (Moore–Penrose inverse by one-sided Jacobi SVD).
//! 5. `projection` (the constraint projection shared by both formulations), `derivative`
//!    (the projection of the residual Jacobians that [`jacobian`] differentiates through).
//! 6. `singular` (the eq 2.15 reference).
//! 7. [`fundamental`] (which falls back on `singular`), [`factored`], [`hamiltonian`],
//!    [`mod@impact`] (which calls `fundamental`).
//! 8. [`system`] (the traits, whose default methods call the kernels), [`jacobian`] (the
//!    derivative kernels, which take the traits' terms).
//! 9. [`control`] (models with inputs, closed by a control law into a [`LagrangianSystem`]),
//!    [`WithoutInputs`] (a [`LagrangianSystem`] as a model with no inputs), `assemble`
//!    ([`consistent_state`], Gauss–Newton over the traits).
//! 10. [`linearize`] (state-space matrices and eigenvalues about an operating point),
//!     [`lqr`] (the regulator gain of a linearization).
//! 11. [`simulate`] (integrators over the traits).
//! 12. [`servo`] (control by servo constraints: the inputs that realize a task).

mod allocator;
mod assemble;
mod cholesky;
pub mod control;
mod derivative;
mod error;
pub mod factored;
pub mod fast_path;
pub mod free_flyer;
pub mod fundamental;
pub mod hamiltonian;
pub mod impact;
pub mod jacobian;
pub mod linearize;
pub mod lqr;
pub mod multipliers;
mod options;
mod pinv;
mod projection;
mod residual;
mod scaling;
pub mod servo;
#[cfg(feature = "simulate")]
pub mod simulate;
mod singular;
pub mod system;
mod validate;
mod view;
mod without_inputs;

pub use assemble::{consistent_hamiltonian_state, consistent_state, Assembly, AssemblyOptions};
pub use control::{ClosedLoop, ControlledLagrangianSystem};
pub use error::{Error, FreeCoordinates};
pub use factored::{factored_acceleration_and_constraint_force, pivots_usable, FactoredView};
pub use fundamental::{
    acceleration, acceleration_and_constraint_force, acceleration_and_constraint_force_dyn,
    acceleration_dyn, constraint_force, constraint_force_dyn,
};
pub use impact::{impact, rheonomic_impact, sliding_impact, Impact, SlidingFriction};
pub use jacobian::{
    AccelerationJacobian, AccelerationJacobianDyn, HamiltonianResidualJacobians,
    HamiltonianResidualJacobiansDyn, ResidualJacobians, ResidualJacobiansDyn, StateJacobian,
    StateJacobianDyn,
};
pub use multipliers::{
    acceleration_and_multipliers, constraint_multipliers, constraint_multipliers_dyn,
};
pub use options::{Options, Weighting};
pub use pinv::{pinv, pinv_symmetric, rank};
pub use singular::{
    mass_constraint_rank, mass_constraint_rank_dyn, reference_acceleration,
    reference_acceleration_dyn, ReferenceSolution,
};
pub use system::{
    HamiltonianSystem, HamiltonianTerms, LagrangianSystem, LagrangianTerms, ModelEquations,
};
pub use view::LagrangianView;
pub use without_inputs::WithoutInputs;
