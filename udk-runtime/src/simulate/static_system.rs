//! A system of compile-time size seen as one of run-time size ([`StaticSystem`]), so that the
//! run-time machinery ([`super::ContactSet`]) runs a generated model.

use super::dynamic::{DynamicLagrangianSystem, DynamicLagrangianTerms};
use crate::LagrangianSystem;
use nalgebra::{DMatrix, DVector, SVector};
use std::marker::PhantomData;

/// A [`LagrangianSystem<N, M>`] (what `#[lagrangian]` generates) as a
/// [`DynamicLagrangianSystem`]: the same terms, residuals and coordinate names in dynamic
/// matrices. Slices passed to it have n = `N` entries.
pub struct StaticSystem<'a, S, const N: usize, const M: usize> {
    system: &'a S,
    sizes: PhantomData<[(); M]>,
}

impl<'a, S: LagrangianSystem<N, M>, const N: usize, const M: usize> StaticSystem<'a, S, N, M> {
    /// `system` behind the run-time interface.
    pub fn new(system: &'a S) -> Self {
        Self {
            system,
            sizes: PhantomData,
        }
    }
}

/// (q, q̇) as static vectors.
fn state<const N: usize>(q: &[f64], qd: &[f64]) -> (SVector<f64, N>, SVector<f64, N>) {
    (
        SVector::from_column_slice(q),
        SVector::from_column_slice(qd),
    )
}

impl<S: LagrangianSystem<N, M>, const N: usize, const M: usize> DynamicLagrangianSystem
    for StaticSystem<'_, S, N, M>
{
    fn num_holonomic(&self) -> usize {
        S::NUM_HOLONOMIC
    }

    fn terms(&self, q: &[f64], qd: &[f64], t: f64) -> DynamicLagrangianTerms {
        let (q, qd) = state::<N>(q, qd);
        let terms = self.system.terms(&q, &qd, t);
        let dynamic = |x: &[f64], rows, cols| DMatrix::from_column_slice(rows, cols, x);
        DynamicLagrangianTerms {
            mass_matrix: dynamic(terms.mass_matrix.as_slice(), N, N),
            generalized_force: DVector::from_column_slice(terms.generalized_force.as_slice()),
            constraint_matrix: dynamic(terms.constraint_matrix.as_slice(), M, N),
            constraint_rhs: DVector::from_column_slice(terms.constraint_rhs.as_slice()),
            nonideal_force: (terms.nonideal_force)
                .map(|c| DVector::from_column_slice(c.as_slice())),
        }
    }

    fn energy(&self, q: &[f64], qd: &[f64], t: f64) -> f64 {
        let (q, qd) = state::<N>(q, qd);
        self.system.energy(&q, &qd, t)
    }

    fn holonomic_residual(&self, q: &[f64], t: f64) -> DVector<f64> {
        let f = self
            .system
            .holonomic_residual(&SVector::from_column_slice(q), t);
        DVector::from_column_slice(f.as_slice())
    }

    fn velocity_residual(&self, q: &[f64], qd: &[f64], t: f64) -> DVector<f64> {
        let (q, qd) = state::<N>(q, qd);
        let r = self.system.velocity_residual(&q, &qd, t);
        DVector::from_column_slice(r.as_slice())
    }

    fn coordinate_names(&self) -> Vec<String> {
        S::COORDINATE_NAMES.iter().map(|c| c.to_string()).collect()
    }
}
