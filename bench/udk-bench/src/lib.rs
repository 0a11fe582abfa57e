//! Benchmarks of udk on the n-link planar pendulum chain, driven by `bench/compare.sh`.
//!
//! The chain models of `udk_symbolic::models` (Cartesian: 2n coordinates and n length
//! constraints; minimal: n angles) are generated at build time exactly as `#[lagrangian]` would
//! generate them ([`models`]), for n = 2 and 5, and with the `large` feature also n = 10 and 20.
//! The crate evaluates their accelerations on the states of a workload file written by
//! `bench/compare.py` ([`Workload`]), times them per call ([`timing`]), runs them in a DOP853
//! integration ([`BenchModel::simulate`]), and offers the same for the run-time tape
//! ([`TapeModel`]) and a hand-written closed-form double pendulum ([`DoublePendulum`]).
//! With the `robots` feature, the `robots` module holds sixteen URDF robots (n = 6 … 44)
//! under `#[lagrangian(urdf = "...")]` for the robot comparison of `bench/robots.py`; with the
//! `floating` feature, the `floating` module holds Solo12, ANYmal C (and with
//! `package-robots` Talos reduced) on a floating base for `bench/floating.py`.

mod closed_form;
#[cfg(feature = "floating")]
pub mod floating;
mod generated;
pub mod models;
#[cfg(feature = "robots")]
pub mod robots;
mod tape;
pub mod timing;
pub mod tree_chain;
mod workload;

pub use closed_form::DoublePendulum;
pub use generated::{BenchModel, Generated, SimulationRun};
pub use tape::TapeModel;
pub use workload::{Chain, ChainState, Form, FromChain, Workload};

/// A way to compute the constrained acceleration q̈ of one chain model at (q, q̇), t = 0.
pub trait Accelerator {
    /// q̈ (n entries) at the generalized coordinates `q` and velocities `qd` (n entries each).
    ///
    /// # Errors
    /// Whatever the underlying evaluation reports (a udk kernel error, a tape input error).
    fn acceleration(&self, q: &[f64], qd: &[f64]) -> Result<Vec<f64>, Box<dyn std::error::Error>>;

    /// Nanoseconds per call of the acceleration, the best of [`timing::REPEATS`] runs cycling
    /// through `states` (each a pair q, q̇ of n entries).
    fn ns_per_call(&self, states: &[(Vec<f64>, Vec<f64>)]) -> f64;
}
