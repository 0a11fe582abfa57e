//! udk: the motion of constrained mechanical systems by the Udwadia–Kalaba equation.
//!
//! This facade re-exports the numeric runtime ([`udk_runtime`]) and the attribute macros.

pub use nalgebra;
pub use udk_runtime as runtime;
