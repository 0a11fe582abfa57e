//! The `#[lagrangian]` and `#[hamiltonian]` attribute macros. Use them through the `udk` crate.
