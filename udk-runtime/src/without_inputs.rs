//! [`WithoutInputs`]: a [`LagrangianSystem`] seen as a [`ControlledLagrangianSystem`] with
//! k = 0 inputs, so that code written once for models with inputs (such as
//! [`crate::linearize::linearize`]) also takes models without them.

use crate::control::ControlledLagrangianSystem;
use crate::system::{LagrangianSystem, LagrangianTerms, ModelEquations};
use crate::{AccelerationJacobian, Error, Options};
use nalgebra::{SMatrix, SVector};

/// A [`LagrangianSystem`] with n = `N` coordinates and m = `M` constraints, as a
/// [`ControlledLagrangianSystem`] with no inputs (k = 0, u the empty vector). Every method
/// forwards to the system's own, so generated exact Jacobians are kept.
#[derive(Clone, Copy, Debug)]
pub struct WithoutInputs<'a, S: ?Sized>(pub &'a S);

impl<S, const N: usize, const M: usize> ControlledLagrangianSystem<N, M, 0> for WithoutInputs<'_, S>
where
    S: LagrangianSystem<N, M> + ?Sized,
{
    const EQUATIONS: ModelEquations = S::EQUATIONS;
    const NUM_HOLONOMIC: usize = S::NUM_HOLONOMIC;
    const COORDINATE_NAMES: &'static [&'static str] = S::COORDINATE_NAMES;
    const OUTPUT_COLUMNS: &'static [&'static str] = S::OUTPUT_COLUMNS;

    fn terms(
        &self,
        q: &SVector<f64, N>,
        qd: &SVector<f64, N>,
        _u: &SVector<f64, 0>,
        t: f64,
    ) -> LagrangianTerms<N, M> {
        self.0.terms(q, qd, t)
    }

    fn energy(
        &self,
        q: &SVector<f64, N>,
        qd: &SVector<f64, N>,
        _u: &SVector<f64, 0>,
        t: f64,
    ) -> f64 {
        self.0.energy(q, qd, t)
    }

    fn holonomic_residual(&self, q: &SVector<f64, N>, t: f64) -> SVector<f64, M> {
        self.0.holonomic_residual(q, t)
    }

    fn output_values(
        &self,
        q: &SVector<f64, N>,
        qd: &SVector<f64, N>,
        _u: &SVector<f64, 0>,
        t: f64,
        out: &mut [f64],
    ) {
        self.0.output_values(q, qd, t, out);
    }

    fn velocity_residual(
        &self,
        q: &SVector<f64, N>,
        qd: &SVector<f64, N>,
        _u: &SVector<f64, 0>,
        t: f64,
    ) -> SVector<f64, M> {
        self.0.velocity_residual(q, qd, t)
    }

    fn acceleration_with(
        &self,
        q: &SVector<f64, N>,
        qd: &SVector<f64, N>,
        _u: &SVector<f64, 0>,
        t: f64,
        options: &Options,
    ) -> Result<SVector<f64, N>, Error> {
        self.0.acceleration_with(q, qd, t, options)
    }

    fn acceleration_jacobian_with(
        &self,
        q: &SVector<f64, N>,
        qd: &SVector<f64, N>,
        _u: &SVector<f64, 0>,
        t: f64,
        options: &Options,
    ) -> Result<AccelerationJacobian<N, 0>, Error> {
        self.0.acceleration_jacobian_with(q, qd, t, options)
    }

    fn velocity_residual_jacobian(
        &self,
        q: &SVector<f64, N>,
        qd: &SVector<f64, N>,
        _u: &SVector<f64, 0>,
        t: f64,
    ) -> Result<SMatrix<f64, M, N>, Error> {
        self.0.velocity_residual_jacobian(q, qd, t)
    }

    fn constraint_force(
        &self,
        q: &SVector<f64, N>,
        qd: &SVector<f64, N>,
        _u: &SVector<f64, 0>,
        t: f64,
    ) -> Result<SVector<f64, N>, Error> {
        self.0.constraint_force(q, qd, t)
    }
}
