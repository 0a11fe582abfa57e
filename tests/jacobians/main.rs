//! The exact Jacobians of the generated models (`acceleration_jacobian`, `state_jacobian`,
//! `velocity_residual_jacobian`) against central differences of the generated motion, on
//! every example with tests (each compiled here as a module, so the models checked are the
//! examples' own) and on random models; and `RankChange` where the rank of A changes.

mod examples;
mod random;
mod rank;
mod support;
mod urdf;
