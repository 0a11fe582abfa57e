//! Models with run-time inputs u (torques, forces, steering commands), as `#[lagrangian]`
//! generates them for a model with `inputs(u1, ..., uk)`, and [`ClosedLoop`], which closes
//! such a model with a control law u = k(t, q, q̇) into a [`LagrangianSystem`] that the
//! simulator and every generic tool take.

use crate::system::{LagrangianSystem, LagrangianTerms, ModelEquations};
use crate::{Error, Options};
use nalgebra::{SMatrix, SVector};

/// A Lagrangian system with n = `N` generalized coordinates, m = `M` constraint equations and
/// k = `K` inputs: M, A and b depend on (q, q̇, t), Q and C also on u.
pub trait ControlledLagrangianSystem<const N: usize, const M: usize, const K: usize> {
    /// The derived M, Q, A, b and C as text and LaTeX.
    const EQUATIONS: ModelEquations;

    /// Number of holonomic constraints f(q, t) = 0, the first rows of A and b.
    const NUM_HOLONOMIC: usize;

    /// M, Q, A, b and C at (q, q̇, u, t), computed together.
    fn terms(
        &self,
        q: &SVector<f64, N>,
        qd: &SVector<f64, N>,
        u: &SVector<f64, K>,
        t: f64,
    ) -> LagrangianTerms<N, M>;

    /// The Jacobi integral h = q̇ᵀ ∂L/∂q̇ − L (L does not depend on u; `u` is taken so that
    /// every function of q̇ has one signature).
    fn energy(&self, q: &SVector<f64, N>, qd: &SVector<f64, N>, u: &SVector<f64, K>, t: f64)
        -> f64;

    /// The holonomic constraints f(q, t) aligned with the m rows of A (0 in the nonholonomic
    /// rows), as [`LagrangianSystem::holonomic_residual`].
    fn holonomic_residual(&self, q: &SVector<f64, N>, t: f64) -> SVector<f64, M>;

    /// The names of the n coordinates, as [`LagrangianSystem::COORDINATE_NAMES`].
    const COORDINATE_NAMES: &'static [&'static str] = &[];

    /// The names of the n generalized speeds, as [`LagrangianSystem::VELOCITY_NAMES`].
    const VELOCITY_NAMES: &'static [&'static str] = &[];

    /// The columns of the model's outputs, as [`LagrangianSystem::OUTPUT_COLUMNS`].
    const OUTPUT_COLUMNS: &'static [&'static str] = &[];

    /// q̇ at (q, v, t), as [`LagrangianSystem::coordinate_rates`] (the kinematic differential
    /// equations hold no input).
    fn coordinate_rates(
        &self,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
        t: f64,
    ) -> SVector<f64, N> {
        let _ = (q, t);
        *v
    }

    /// N(q, t), as [`LagrangianSystem::kinematic_matrix`].
    fn kinematic_matrix(&self, q: &SVector<f64, N>, t: f64) -> Option<SMatrix<f64, N, N>> {
        let _ = (q, t);
        None
    }

    /// The outputs at (q, q̇, u, t) into `out`, as [`LagrangianSystem::output_values`].
    fn output_values(
        &self,
        q: &SVector<f64, N>,
        qd: &SVector<f64, N>,
        u: &SVector<f64, K>,
        t: f64,
        out: &mut [f64],
    ) {
        let _ = (q, qd, u, t, out);
    }

    /// The m constraints at velocity level, as [`LagrangianSystem::velocity_residual`].
    fn velocity_residual(
        &self,
        q: &SVector<f64, N>,
        qd: &SVector<f64, N>,
        u: &SVector<f64, K>,
        t: f64,
    ) -> SVector<f64, M>;

    /// The system closed by the control law `law(t, q, q̇) = u`, a [`LagrangianSystem`] for the
    /// simulator.
    fn closed_loop<F>(&self, law: F) -> ClosedLoop<'_, Self, F, K>
    where
        F: Fn(f64, &SVector<f64, N>, &SVector<f64, N>) -> SVector<f64, K>,
    {
        ClosedLoop { system: self, law }
    }

    /// The constrained acceleration q̈ (n entries) under the inputs u, with `options` (Udwadia
    /// & Kalaba 1993, eq 17).
    ///
    /// # Errors
    /// As [`LagrangianSystem::acceleration_with`].
    fn acceleration_with(
        &self,
        q: &SVector<f64, N>,
        qd: &SVector<f64, N>,
        u: &SVector<f64, K>,
        t: f64,
        options: &Options,
    ) -> Result<SVector<f64, N>, Error> {
        self.closed_loop(|_, _, _| *u)
            .acceleration_with(q, qd, t, options)
    }

    /// The constrained acceleration q̈ (n entries) under the inputs u, with the default
    /// [`Options`].
    ///
    /// # Errors
    /// As [`LagrangianSystem::acceleration_with`].
    fn acceleration(
        &self,
        q: &SVector<f64, N>,
        qd: &SVector<f64, N>,
        u: &SVector<f64, K>,
        t: f64,
    ) -> Result<SVector<f64, N>, Error> {
        self.acceleration_with(q, qd, u, t, &Options::default())
    }

    /// q̈ and its exact Jacobians ∂q̈/∂q, ∂q̈/∂q̇ (n × n) and ∂q̈/∂u (n × k) at (q, q̇, u, t),
    /// with `options`, as [`LagrangianSystem::acceleration_jacobian_with`].
    ///
    /// # Errors
    /// As [`LagrangianSystem::acceleration_jacobian_with`].
    fn acceleration_jacobian_with(
        &self,
        q: &SVector<f64, N>,
        qd: &SVector<f64, N>,
        u: &SVector<f64, K>,
        t: f64,
        options: &Options,
    ) -> Result<crate::AccelerationJacobian<N, K>, Error> {
        let _ = (q, qd, u, t, options);
        Err(Error::JacobianUnavailable {
            what: "the acceleration Jacobian",
        })
    }

    /// q̈ and its exact Jacobians under the inputs u, with the default [`Options`].
    ///
    /// # Errors
    /// As [`LagrangianSystem::acceleration_jacobian_with`].
    fn acceleration_jacobian(
        &self,
        q: &SVector<f64, N>,
        qd: &SVector<f64, N>,
        u: &SVector<f64, K>,
        t: f64,
    ) -> Result<crate::AccelerationJacobian<N, K>, Error> {
        self.acceleration_jacobian_with(q, qd, u, t, &Options::default())
    }

    /// ∂/∂q of [`ControlledLagrangianSystem::velocity_residual`], m × n (its ∂/∂q̇ is A).
    ///
    /// # Errors
    /// `JacobianUnavailable` for a system that does not provide it (the default).
    fn velocity_residual_jacobian(
        &self,
        q: &SVector<f64, N>,
        qd: &SVector<f64, N>,
        u: &SVector<f64, K>,
        t: f64,
    ) -> Result<SMatrix<f64, M, N>, Error> {
        let _ = (q, qd, u, t);
        Err(Error::JacobianUnavailable {
            what: "the velocity-residual Jacobian",
        })
    }

    /// The constraint force Qᶜ = M q̈ − Q (n entries) under the inputs u.
    ///
    /// # Errors
    /// As [`LagrangianSystem::acceleration_with`].
    fn constraint_force(
        &self,
        q: &SVector<f64, N>,
        qd: &SVector<f64, N>,
        u: &SVector<f64, K>,
        t: f64,
    ) -> Result<SVector<f64, N>, Error> {
        self.closed_loop(|_, _, _| *u).constraint_force(q, qd, t)
    }
}

/// A [`ControlledLagrangianSystem`] closed by a control law u = `law`(t, q, q̇): the
/// [`LagrangianSystem`] whose terms are the system's at that u. Make one with
/// [`ControlledLagrangianSystem::closed_loop`].
pub struct ClosedLoop<'a, S: ?Sized, F, const K: usize> {
    /// The open-loop system.
    pub system: &'a S,
    /// The control law (t, q, q̇) ↦ u, k entries.
    pub law: F,
}

impl<S, F, const N: usize, const M: usize, const K: usize> LagrangianSystem<N, M>
    for ClosedLoop<'_, S, F, K>
where
    S: ControlledLagrangianSystem<N, M, K> + ?Sized,
    F: Fn(f64, &SVector<f64, N>, &SVector<f64, N>) -> SVector<f64, K>,
{
    const EQUATIONS: ModelEquations = S::EQUATIONS;
    const NUM_HOLONOMIC: usize = S::NUM_HOLONOMIC;
    const COORDINATE_NAMES: &'static [&'static str] = S::COORDINATE_NAMES;
    const VELOCITY_NAMES: &'static [&'static str] = S::VELOCITY_NAMES;
    const OUTPUT_COLUMNS: &'static [&'static str] = S::OUTPUT_COLUMNS;

    fn coordinate_rates(
        &self,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
        t: f64,
    ) -> SVector<f64, N> {
        self.system.coordinate_rates(q, v, t)
    }

    fn kinematic_matrix(&self, q: &SVector<f64, N>, t: f64) -> Option<SMatrix<f64, N, N>> {
        self.system.kinematic_matrix(q, t)
    }

    fn output_values(&self, q: &SVector<f64, N>, qd: &SVector<f64, N>, t: f64, out: &mut [f64]) {
        self.system
            .output_values(q, qd, &(self.law)(t, q, qd), t, out);
    }

    fn terms(&self, q: &SVector<f64, N>, qd: &SVector<f64, N>, t: f64) -> LagrangianTerms<N, M> {
        self.system.terms(q, qd, &(self.law)(t, q, qd), t)
    }

    fn energy(&self, q: &SVector<f64, N>, qd: &SVector<f64, N>, t: f64) -> f64 {
        self.system.energy(q, qd, &SVector::zeros(), t)
    }

    fn holonomic_residual(&self, q: &SVector<f64, N>, t: f64) -> SVector<f64, M> {
        self.system.holonomic_residual(q, t)
    }

    fn velocity_residual(
        &self,
        q: &SVector<f64, N>,
        qd: &SVector<f64, N>,
        t: f64,
    ) -> SVector<f64, M> {
        self.system.velocity_residual(q, qd, &SVector::zeros(), t)
    }

    fn velocity_residual_jacobian(
        &self,
        q: &SVector<f64, N>,
        qd: &SVector<f64, N>,
        t: f64,
    ) -> Result<SMatrix<f64, M, N>, Error> {
        self.system
            .velocity_residual_jacobian(q, qd, &SVector::zeros(), t)
    }
}
