//! Numeric kernels of udk: the Moore–Penrose inverse and the Udwadia–Kalaba fundamental
//! equation, with no symbolic dependencies.
//!
//! Notation follows the papers in `../shared/papers/`: n generalized coordinates q, m
//! constraints A q̈ = b, mass matrix M (n × n), generalized force Q (n), non-ideal
//! constraint force description C (n), constraint force Qᶜ (n).
//!
//! - [`acceleration`], [`constraint_force`], [`acceleration_and_constraint_force`]: the
//!   fundamental equation for positive definite or singular M (fixed sizes, no heap
//!   allocation), with `_dyn` twins for `DMatrix`/`DVector`.
//! - [`hamiltonian`]: constrained Hamilton equations (Udwadia 2016, eq 36).
//! - [`reference_acceleration`], [`mass_constraint_rank`]: eq 2.15 of Udwadia & Phohomsiri
//!   2006 and its uniqueness test, for cross-checks.
//! - [`pinv`], [`rank`], [`pinv_symmetric`]: Moore–Penrose inverse and numerical rank.
//! - [`simulate`] (default feature `simulate`): DOP853/DOPRI5/RK4 runs of any generated
//!   system with Baumgarte stabilization, projection, trajectories, CSV and SVG plots.
//!
//! Every kernel validates its input and returns [`Error`] rather than panicking or
//! returning NaN.

mod cholesky;
mod error;
pub mod fundamental;
pub mod hamiltonian;
mod options;
mod pinv;
mod projection;
mod residual;
mod scaling;
#[cfg(feature = "simulate")]
pub mod simulate;
mod singular;
pub mod system;
mod validate;

pub use error::Error;
pub use fundamental::{
    acceleration, acceleration_and_constraint_force, acceleration_and_constraint_force_dyn,
    acceleration_dyn, constraint_force, constraint_force_dyn,
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

use nalgebra::allocator::Allocator;
use nalgebra::Dim;

/// The nalgebra storage the generic kernels need for n coordinates and m constraints;
/// implemented by `DefaultAllocator` for every pair of fixed or dynamic dimensions.
pub(crate) trait KernelAllocator<N: Dim, R: Dim>:
    Allocator<N, N> + Allocator<R, N> + Allocator<N, R> + Allocator<R, R> + Allocator<N> + Allocator<R>
{
}

impl<N: Dim, R: Dim, T> KernelAllocator<N, R> for T where
    T: Allocator<N, N>
        + Allocator<R, N>
        + Allocator<N, R>
        + Allocator<R, R>
        + Allocator<N>
        + Allocator<R>
{
}
