//! The first-order form x = [q, v] of a Lagrangian (v = q̇) or Hamiltonian (v = p) system, with
//! stabilization, checks and projection: what the integrator loop needs from a system.

use super::projection::{project_hamiltonian, project_lagrangian};
use super::stabilization::stabilize;
use super::{Baumgarte, Projection, Sample, StateKind};
use crate::{Error, HamiltonianSystem, LagrangianSystem, Options};
use nalgebra::{SMatrix, SVector};
use std::marker::PhantomData;

/// The integrated state: column 0 is q, column 1 is q̇ or p (n × 2).
pub(crate) type State<const N: usize> = SMatrix<f64, N, 2>;

/// A system in first-order form.
pub(crate) trait Dynamics<const N: usize> {
    /// Whether column 1 of the state holds velocities or momenta.
    const KIND: StateKind;

    /// ẋ = [q̇, q̈] or [q̇, ṗ] at (t, x), finite.
    fn derivative(&self, t: f64, x: &State<N>) -> Result<State<N>, Error>;

    /// The residuals and energy of x at t.
    fn sample(&self, t: f64, x: &State<N>) -> Sample<N>;

    /// x projected onto the constraint manifold at t.
    fn project(&self, t: f64, x: &State<N>, projection: &Projection) -> Result<State<N>, Error>;
}

/// Splits x into (q, v).
fn split<const N: usize>(x: &State<N>) -> (SVector<f64, N>, SVector<f64, N>) {
    (x.column(0).into_owned(), x.column(1).into_owned())
}

/// Joins (q, v) into x.
fn join<const N: usize>(q: &SVector<f64, N>, v: &SVector<f64, N>) -> State<N> {
    State::from_columns(&[*q, *v])
}

/// `Err(NonFinite)` unless every entry of `x` is finite.
fn finite<const N: usize>(x: &State<N>, what: &'static str) -> Result<(), Error> {
    if x.iter().all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(Error::NonFinite { what })
    }
}

/// A Lagrangian system, integrated as q̇, q̈ = fundamental equation with (stabilized) b.
pub(crate) struct Lagrangian<'a, S, const N: usize, const M: usize> {
    pub(crate) system: &'a S,
    pub(crate) stabilization: Option<Baumgarte>,
    pub(crate) kernel: &'a Options,
    pub(crate) sizes: PhantomData<([f64; N], [f64; M])>,
}

impl<S: LagrangianSystem<N, M>, const N: usize, const M: usize> Dynamics<N>
    for Lagrangian<'_, S, N, M>
{
    const KIND: StateKind = StateKind::Velocities;

    fn derivative(&self, t: f64, x: &State<N>) -> Result<State<N>, Error> {
        finite(x, "state (q, q̇)")?;
        let (q, qd) = split(x);
        let mut terms = self.system.terms(&q, &qd, t);
        if let (Some(gains), true) = (&self.stabilization, M > 0) {
            stabilize(
                &mut terms.constraint_rhs,
                S::NUM_HOLONOMIC,
                &self.system.holonomic_residual(&q, t),
                &self.system.velocity_residual(&q, &qd, t),
                gains,
            );
        }
        let qdd = crate::acceleration(
            &terms.mass_matrix,
            &terms.generalized_force,
            &terms.constraint_matrix,
            &terms.constraint_rhs,
            terms.nonideal_force.as_ref(),
            self.kernel,
        )?;
        let xd = join(&qd, &qdd);
        finite(&xd, "state derivative (q̇, q̈)")?;
        Ok(xd)
    }

    fn sample(&self, t: f64, x: &State<N>) -> Sample<N> {
        let (q, qd) = split(x);
        Sample {
            t,
            q,
            v: qd,
            position_residual: self.system.position_residual_norm(&q, t),
            velocity_residual: self.system.velocity_residual(&q, &qd, t).norm(),
            energy: self.system.energy(&q, &qd, t),
        }
    }

    fn project(&self, t: f64, x: &State<N>, projection: &Projection) -> Result<State<N>, Error> {
        let (q, qd) = split(x);
        let (q, qd) = project_lagrangian(self.system, t, q, qd, projection)?;
        Ok(join(&q, &qd))
    }
}

/// A Hamiltonian system, integrated as q̇ = H_p, ṗ by Udwadia 2016 eq 36 with (stabilized) b_p.
pub(crate) struct Hamiltonian<'a, S, const N: usize, const M: usize> {
    pub(crate) system: &'a S,
    pub(crate) stabilization: Option<Baumgarte>,
    pub(crate) kernel: &'a Options,
    pub(crate) sizes: PhantomData<([f64; N], [f64; M])>,
}

impl<S: HamiltonianSystem<N, M>, const N: usize, const M: usize> Dynamics<N>
    for Hamiltonian<'_, S, N, M>
{
    const KIND: StateKind = StateKind::Momenta;

    fn derivative(&self, t: f64, x: &State<N>) -> Result<State<N>, Error> {
        finite(x, "state (q, p)")?;
        let (q, p) = split(x);
        let mut terms = self.system.terms(&q, &p, t);
        if let (Some(gains), true) = (&self.stabilization, M > 0) {
            stabilize(
                &mut terms.b_p,
                S::NUM_HOLONOMIC,
                &self.system.holonomic_residual(&q, t),
                &self.system.constraint_residual(&q, &p, t),
                gains,
            );
        }
        let pd = crate::hamiltonian::momentum_rate(
            &terms.h_q,
            &terms.h_pp,
            &terms.a_p,
            &terms.b_p,
            self.kernel,
        )?;
        let xd = join(&terms.h_p, &pd);
        finite(&xd, "state derivative (q̇, ṗ)")?;
        Ok(xd)
    }

    fn sample(&self, t: f64, x: &State<N>) -> Sample<N> {
        let (q, p) = split(x);
        Sample {
            t,
            q,
            v: p,
            position_residual: self.system.position_residual_norm(&q, t),
            velocity_residual: self.system.constraint_residual(&q, &p, t).norm(),
            energy: self.system.hamiltonian(&q, &p, t),
        }
    }

    fn project(&self, t: f64, x: &State<N>, projection: &Projection) -> Result<State<N>, Error> {
        let (q, p) = split(x);
        let (q, p) = project_hamiltonian(self.system, t, q, p, projection)?;
        Ok(join(&q, &p))
    }
}
