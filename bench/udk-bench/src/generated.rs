//! A generated model as a benchmark subject: its `acceleration` per call and inside a DOP853
//! integration.

use crate::{timing, Accelerator, Chain, Form, FromChain};
use differential_equations::prelude::{ExplicitRungeKutta, IVP, ODE};
use nalgebra::SVector;
use std::error::Error;
use std::time::Instant;
use udk::LagrangianSystem;

/// A generated chain model: what `#[lagrangian]` emits, run through its `acceleration`.
pub trait BenchModel: Accelerator {
    /// The model's coordinates.
    fn form(&self) -> Form;

    /// The number of links n.
    fn links(&self) -> usize;

    /// Integrates q̈ = `acceleration`(q, q̇) from (q, q̇) = (`q`, `qd`) over 0 ≤ t ≤ `t_end` with
    /// DOP853 at relative and absolute tolerance `tolerance`, and reports the cost.
    ///
    /// # Errors
    /// The integrator's error, as text.
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

/// Generated system `S` with n = `N` coordinates, m = `M` constraints and state size `K` = 2n.
pub struct Generated<S, const N: usize, const M: usize, const K: usize> {
    system: S,
    form: Form,
    links: usize,
}

impl<S: FromChain, const N: usize, const M: usize, const K: usize> Generated<S, N, M, K> {
    /// The model of `form` with the parameters of `chain`.
    pub fn new(chain: &Chain, form: Form) -> Self {
        assert_eq!(K, 2 * N, "the state holds q and q̇");
        Generated {
            system: S::from_chain(chain),
            form,
            links: chain.links(),
        }
    }
}

impl<S: LagrangianSystem<N, M>, const N: usize, const M: usize, const K: usize> Accelerator
    for Generated<S, N, M, K>
{
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

/// The first-order system y = (q, q̇), ẏ = (q̇, q̈) of a generated model.
struct Rhs<'a, S, const N: usize, const M: usize>(&'a S);

impl<S: LagrangianSystem<N, M>, const N: usize, const M: usize, const K: usize>
    ODE<f64, SVector<f64, K>> for Rhs<'_, S, N, M>
{
    fn diff(&self, t: f64, y: &SVector<f64, K>, dydt: &mut SVector<f64, K>) {
        let q = y.fixed_rows::<N>(0).into_owned();
        let qd = y.fixed_rows::<N>(N).into_owned();
        let qdd = self
            .0
            .acceleration(&q, &qd, t)
            .unwrap_or_else(|_| SVector::repeat(f64::NAN));
        dydt.fixed_rows_mut::<N>(0).copy_from(&qd);
        dydt.fixed_rows_mut::<N>(N).copy_from(&qdd);
    }
}

impl<S: LagrangianSystem<N, M>, const N: usize, const M: usize, const K: usize> BenchModel
    for Generated<S, N, M, K>
{
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
        let y0 = SVector::<f64, K>::from_iterator(q.iter().chain(qd).copied());
        let rhs = Rhs::<S, N, M>(&self.system);
        let start = Instant::now();
        let solution = IVP::ode(&rhs, 0.0, t_end, y0)
            .method(ExplicitRungeKutta::dop853().rtol(tolerance).atol(tolerance))
            .solve()
            .map_err(|e| format!("{e:?}"))?;
        let seconds = start.elapsed().as_secs_f64();
        if solution
            .y
            .last()
            .is_none_or(|y| !y.iter().all(|v| v.is_finite()))
        {
            return Err("the integration produced a non-finite state".to_owned());
        }
        Ok(SimulationRun {
            evaluations: solution.evals.function,
            steps: solution.steps.total(),
            seconds,
        })
    }
}
