//! The first-order form x = [q, v] of a Lagrangian (v = q̇, or the generalized speeds u with
//! q̇ = N(q, t) u + c(q, t)) or Hamiltonian (v = p) system, with
//! stabilization, checks and projection: what the integrator loop needs from a system.

use super::dynamic::Scratch;
use super::stabilization::solve_stabilized;
use super::{Baumgarte, Projection, Sample, SimulationOptions, StateKind};
use crate::{Error, HamiltonianSystem, LagrangianSystem, LagrangianView, Options};
use nalgebra::allocator::Allocator;
use nalgebra::{Const, DefaultAllocator, Dim, OMatrix, SMatrix, SVector};
use std::cell::RefCell;
use std::marker::PhantomData;

/// The state of a system: column 0 is q, column 1 is q̇ or p (n × 2).
pub(crate) type State<const N: usize> = SMatrix<f64, N, 2>;

/// What a run integrates: n rows, the state (q, v) in columns 0 and 1, and the further columns
/// that some dynamics carry along (the tangent vectors of the variational equations).
pub(crate) trait Phase<const N: usize>: differential_equations::traits::State<f64> {
    /// Columns 0 and 1: the state (q, v).
    fn motion(&self) -> State<N>;
    /// The same with columns 0 and 1 replaced by `x`, the other columns kept.
    fn with_motion(&self, x: &State<N>) -> Self;
    /// The number of columns (2 for the state alone).
    fn columns(&self) -> usize;
}

impl<C: Dim, const N: usize> Phase<N> for OMatrix<f64, Const<N>, C>
where
    DefaultAllocator: Allocator<Const<N>, C>,
{
    fn motion(&self) -> State<N> {
        self.fixed_columns::<2>(0).into_owned()
    }

    fn with_motion(&self, x: &State<N>) -> Self {
        let mut out = self.clone();
        out.fixed_columns_mut::<2>(0).copy_from(x);
        out
    }

    fn columns(&self) -> usize {
        self.ncols()
    }
}

/// A system in first-order form.
pub(crate) trait Dynamics<const N: usize> {
    /// Whether column 1 of the state holds velocities or momenta. A method, not an associated
    /// constant, so that the trait is dyn-compatible: the integration loop takes
    /// `&dyn Dynamics` ([`super::integrate`]).
    fn kind(&self) -> StateKind;

    /// What the run integrates: the state alone ([`State`]), or more.
    type Integrated: Phase<N>;

    /// ẋ = [q̇, q̈] or [q̇, ṗ] at (t, x), finite.
    fn derivative(&self, t: f64, x: &Self::Integrated) -> Result<Self::Integrated, Error>;

    /// (∂a/∂q, ∂a/∂v), n × n each, of the second half a of ẋ = [v, a] at (t, x), without the
    /// stabilization terms: for the Newton matrices of the implicit methods.
    ///
    /// # Errors
    /// `JacobianUnavailable` by default; whatever the system's Jacobian returns.
    fn jacobian(
        &self,
        t: f64,
        x: &Self::Integrated,
    ) -> Result<(SMatrix<f64, N, N>, SMatrix<f64, N, N>), Error> {
        let _ = (t, x);
        Err(Error::JacobianUnavailable {
            what: "the Jacobian of the state derivative",
        })
    }

    /// The residuals and energy of x at t.
    fn sample(&self, t: f64, x: &Self::Integrated) -> Sample<N>;

    /// The 2n names of the state's columns, q then v ([`super::state_columns`]).
    fn state_columns(&self) -> Vec<String>;

    /// The names of the model's output columns (none by default).
    fn output_columns(&self) -> &'static [&'static str] {
        &[]
    }

    /// The model's outputs at the sample's state into `out`, one per output column.
    fn outputs(&self, sample: &Sample<N>, out: &mut [f64]) {
        let _ = (sample, out);
    }

    /// The holonomic constraints f(q, t) (one per holonomic constraint) and the m
    /// velocity-level rows, (ḟ, φ) or φ(q, p, t), at (t, x).
    fn residuals(&self, t: f64, x: &Self::Integrated) -> (Vec<f64>, Vec<f64>);

    /// x projected onto the constraint manifold at t.
    fn project(
        &self,
        t: f64,
        x: &Self::Integrated,
        projection: &Projection,
    ) -> Result<Self::Integrated, Error>;
}

/// Splits x into (q, v).
pub(crate) fn split<const N: usize>(x: &State<N>) -> (SVector<f64, N>, SVector<f64, N>) {
    (x.column(0).into_owned(), x.column(1).into_owned())
}

/// Joins (q, v) into x.
pub(crate) fn join<const N: usize>(q: &SVector<f64, N>, v: &SVector<f64, N>) -> State<N> {
    State::from_columns(&[*q, *v])
}

/// The first `num_holonomic` rows of an aligned f (the holonomic constraints) and the
/// velocity-level rows r, as the two vectors of [`Dynamics::residuals`].
pub(crate) fn split_residuals(f: &[f64], r: &[f64], num_holonomic: usize) -> (Vec<f64>, Vec<f64>) {
    (f.iter().take(num_holonomic).copied().collect(), r.to_vec())
}

/// `Err(NonFinite)` unless every entry of `x` is finite.
pub(crate) fn finite<X: differential_equations::traits::State<f64>>(
    x: &X,
    what: &'static str,
) -> Result<(), Error> {
    if (0..x.len()).all(|i| x.get_component(i).is_finite()) {
        Ok(())
    } else {
        Err(Error::NonFinite { what })
    }
}

/// A system with the drift control and kernel options of a run. `K` is a marker saying which
/// equations of motion are integrated (Lagrange's or Hamilton's, of fixed or run-time size).
pub(crate) struct WithOptions<'a, S, K> {
    pub(crate) system: &'a S,
    pub(crate) stabilization: Option<Baumgarte>,
    pub(crate) kernel: &'a Options,
    /// The buffers of a right-hand side of run-time size (unused by the others).
    pub(crate) scratch: RefCell<Scratch>,
    kind: PhantomData<K>,
}

impl<'a, S, K> WithOptions<'a, S, K> {
    pub(crate) fn new(system: &'a S, options: &'a SimulationOptions) -> Self {
        Self {
            system,
            stabilization: options.stabilization,
            kernel: &options.kernel,
            scratch: RefCell::default(),
            kind: PhantomData,
        }
    }
}

/// Marker of a Lagrangian system with n = `N` coordinates and m = `M` constraints.
pub(crate) struct Lagrange<const N: usize, const M: usize>;

/// A Lagrangian system, integrated as q̇, q̈ = fundamental equation with (stabilized) b.
pub(crate) type Lagrangian<'a, S, const N: usize, const M: usize> =
    WithOptions<'a, S, Lagrange<N, M>>;

impl<S: LagrangianSystem<N, M>, const N: usize, const M: usize> Dynamics<N>
    for Lagrangian<'_, S, N, M>
{
    type Integrated = State<N>;

    fn kind(&self) -> StateKind {
        StateKind::Velocities
    }

    fn state_columns(&self) -> Vec<String> {
        super::state_columns(self.kind(), S::COORDINATE_NAMES, S::VELOCITY_NAMES, N)
    }

    fn derivative(&self, t: f64, x: &State<N>) -> Result<State<N>, Error> {
        finite(x, "state (q, q̇)")?;
        let (q, qd) = split(x);
        let terms = self.system.terms(&q, &qd, t);
        let qdd = solve_stabilized(
            self.stabilization.as_ref(),
            S::NUM_HOLONOMIC,
            &terms.constraint_matrix,
            &terms.constraint_rhs,
            || {
                let f = self.system.holonomic_residual(&q, t);
                (f, self.system.velocity_residual(&q, &qd, t))
            },
            |b| {
                crate::acceleration(
                    LagrangianView {
                        constraint_rhs: b,
                        ..terms.view()
                    },
                    self.kernel,
                )
                .map_err(|e| e.with_coordinate_names(S::COORDINATE_NAMES))
            },
        )?;
        let xd = join(&self.system.coordinate_rates(&q, &qd, t), &qdd);
        finite(&xd, "state derivative (q̇, q̈)")?;
        Ok(xd)
    }

    fn jacobian(
        &self,
        t: f64,
        x: &State<N>,
    ) -> Result<(SMatrix<f64, N, N>, SMatrix<f64, N, N>), Error> {
        let (q, qd) = split(x);
        let jacobian = self
            .system
            .acceleration_jacobian_with(&q, &qd, t, self.kernel)?;
        Ok((jacobian.wrt_q, jacobian.wrt_qd))
    }

    fn output_columns(&self) -> &'static [&'static str] {
        S::OUTPUT_COLUMNS
    }

    fn outputs(&self, sample: &Sample<N>, out: &mut [f64]) {
        self.system
            .output_values(&sample.q, &sample.v, sample.t, out);
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

    fn residuals(&self, t: f64, x: &State<N>) -> (Vec<f64>, Vec<f64>) {
        let (q, qd) = split(x);
        let f = self.system.holonomic_residual(&q, t);
        let r = self.system.velocity_residual(&q, &qd, t);
        split_residuals(f.as_slice(), r.as_slice(), S::NUM_HOLONOMIC)
    }

    fn project(&self, t: f64, x: &State<N>, projection: &Projection) -> Result<State<N>, Error> {
        let (q, qd) = split(x);
        let options = projection.assembly_options();
        let assembly = crate::consistent_state(self.system, &q, &qd, t, &options)?;
        Ok(join(&assembly.q, &assembly.v))
    }
}

/// Marker of a Hamiltonian system with n = `N` coordinates and m = `M` constraints.
pub(crate) struct Hamilton<const N: usize, const M: usize>;

/// A Hamiltonian system, integrated as q̇ = H_p, ṗ by Udwadia 2016 eq 36 with (stabilized) b_p.
pub(crate) type Hamiltonian<'a, S, const N: usize, const M: usize> =
    WithOptions<'a, S, Hamilton<N, M>>;

impl<S: HamiltonianSystem<N, M>, const N: usize, const M: usize> Dynamics<N>
    for Hamiltonian<'_, S, N, M>
{
    type Integrated = State<N>;

    fn kind(&self) -> StateKind {
        StateKind::Momenta
    }

    fn state_columns(&self) -> Vec<String> {
        super::state_columns(self.kind(), S::COORDINATE_NAMES, S::MOMENTUM_NAMES, N)
    }

    fn derivative(&self, t: f64, x: &State<N>) -> Result<State<N>, Error> {
        finite(x, "state (q, p)")?;
        let (q, p) = split(x);
        let terms = self.system.terms(&q, &p, t);
        let pd = solve_stabilized(
            self.stabilization.as_ref(),
            S::NUM_HOLONOMIC,
            &terms.a_p,
            &terms.b_p,
            || {
                let f = self.system.holonomic_residual(&q, t);
                (f, self.system.constraint_residual(&q, &p, t))
            },
            |b| {
                crate::hamiltonian::momentum_rate(
                    &terms.h_q,
                    &terms.h_pp,
                    &terms.a_p,
                    b,
                    self.kernel,
                )
            },
        )?;
        let xd = join(&terms.h_p, &pd);
        finite(&xd, "state derivative (q̇, ṗ)")?;
        Ok(xd)
    }

    fn output_columns(&self) -> &'static [&'static str] {
        S::OUTPUT_COLUMNS
    }

    fn outputs(&self, sample: &Sample<N>, out: &mut [f64]) {
        self.system
            .output_values(&sample.q, &sample.v, sample.t, out);
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

    fn residuals(&self, t: f64, x: &State<N>) -> (Vec<f64>, Vec<f64>) {
        let (q, p) = split(x);
        let f = self.system.holonomic_residual(&q, t);
        let r = self.system.constraint_residual(&q, &p, t);
        split_residuals(f.as_slice(), r.as_slice(), S::NUM_HOLONOMIC)
    }

    fn project(&self, t: f64, x: &State<N>, projection: &Projection) -> Result<State<N>, Error> {
        let (q, p) = split(x);
        let options = projection.assembly_options();
        let assembly = crate::consistent_hamiltonian_state(self.system, &q, &p, t, &options)?;
        Ok(join(&assembly.q, &assembly.v))
    }
}
