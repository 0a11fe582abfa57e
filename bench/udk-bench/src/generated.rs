//! A generated model as a benchmark subject: its `acceleration` per call and inside a DOP853
//! run of the udk simulator.

use crate::{timing, Accelerator, Chain, Form, FromChain};
use nalgebra::SVector;
use std::error::Error;
use std::time::Instant;
use udk::runtime::simulate::{simulate_lagrangian, Method, OutputTimes, SimulationOptions};
use udk::LagrangianSystem;

/// A generated chain model: what `#[lagrangian]` emits, run through its `acceleration`.
pub trait BenchModel: Accelerator {
    /// The model's coordinates.
    fn form(&self) -> Form;

    /// The number of links n.
    fn links(&self) -> usize;

    /// Simulates the model from (q, q̇) = (`q`, `qd`) over 0 ≤ t ≤ `t_end` with the udk
    /// simulator: DOP853 at relative and absolute tolerance `tolerance`, A q̈ = b as derived (no
    /// Baumgarte stabilization, so that the equations are those a peer integrates), output at
    /// `t_end` only; reports the cost.
    ///
    /// # Errors
    /// The simulator's error, as text.
    fn simulate(
        &self,
        q: &[f64],
        qd: &[f64],
        t_end: f64,
        tolerance: f64,
    ) -> Result<SimulationRun, String>;
}

/// The cost of one integration.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct SimulationRun {
    /// Right-hand-side evaluations (each one `acceleration`).
    pub evaluations: usize,
    /// Accepted plus rejected steps.
    pub steps: usize,
    /// Wall time of the whole integration (s).
    pub seconds: f64,
}

/// Generated system `S` with n = `N` coordinates and m = `M` constraints.
pub struct Generated<S, const N: usize, const M: usize> {
    system: S,
    form: Form,
    links: usize,
}

impl<S: FromChain, const N: usize, const M: usize> Generated<S, N, M> {
    /// The model of `form` with the parameters of `chain`.
    pub fn new(chain: &Chain, form: Form) -> Self {
        Generated {
            system: S::from_chain(chain),
            form,
            links: chain.links(),
        }
    }
}

impl<S: LagrangianSystem<N, M>, const N: usize, const M: usize> Accelerator for Generated<S, N, M> {
    fn acceleration(&self, q: &[f64], qd: &[f64]) -> Result<Vec<f64>, Box<dyn Error>> {
        let q = SVector::<f64, N>::from_column_slice(q);
        let qd = SVector::<f64, N>::from_column_slice(qd);
        Ok(self.system.acceleration(&q, &qd, 0.0)?.as_slice().to_vec())
    }

    fn ns_per_call(&self, states: &[(Vec<f64>, Vec<f64>)]) -> f64 {
        let states: Vec<_> = states
            .iter()
            .map(|(q, qd)| {
                (
                    SVector::<f64, N>::from_column_slice(q),
                    SVector::<f64, N>::from_column_slice(qd),
                )
            })
            .collect();
        timing::ns_per_call(&states, |(q, qd)| {
            match self.system.acceleration(q, qd, 0.0) {
                Ok(qdd) => qdd[0],
                Err(_) => f64::NAN,
            }
        })
    }
}

impl<S: LagrangianSystem<N, M>, const N: usize, const M: usize> BenchModel for Generated<S, N, M> {
    fn form(&self) -> Form {
        self.form
    }

    fn links(&self) -> usize {
        self.links
    }

    fn simulate(
        &self,
        q: &[f64],
        qd: &[f64],
        t_end: f64,
        tolerance: f64,
    ) -> Result<SimulationRun, String> {
        let options = SimulationOptions {
            method: Method::Dop853,
            rtol: tolerance,
            atol: tolerance,
            output: OutputTimes::Every(t_end),
            stabilization: None,
            ..SimulationOptions::default()
        };
        let (q, qd) = (
            SVector::<f64, N>::from_column_slice(q),
            SVector::<f64, N>::from_column_slice(qd),
        );
        let start = Instant::now();
        let trajectory =
            simulate_lagrangian::<S, N, M>(&self.system, &q, &qd, 0.0, t_end, &options)
                .map_err(|e| e.to_string())?;
        let seconds = start.elapsed().as_secs_f64();
        let stats = trajectory.stats;
        Ok(SimulationRun {
            evaluations: stats.rhs_evaluations,
            steps: stats.accepted_steps + stats.rejected_steps,
            seconds,
        })
    }
}
