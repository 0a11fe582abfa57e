//! Systems whose sizes are known only at run time, such as a model file evaluated by a tape
//! (`udk simulate`): traits over slices and dynamic nalgebra matrices, and their adapters to the
//! simulator's loop. The caller picks n = `N` (a `match` on n over the sizes it supports); m
//! and the number of holonomic constraints stay run-time values.
//!
//! The same integrators, output times, stabilization and [`Trajectory`] as
//! [`super::simulate_lagrangian`] and [`super::simulate_hamiltonian`]; the fundamental equation
//! runs in its dynamic-size form ([`crate::acceleration_dyn`],
//! [`crate::hamiltonian::momentum_rate_dyn`]), and the assembly of [`crate::consistent_state`]
//! is [`consistent_dynamic_lagrangian_state`] and [`consistent_dynamic_hamiltonian_state`].
//! The runs hand each sample to an observer as soon as it is recorded, so that a caller can
//! write the trajectory as it goes.

use super::dynamics::{finite, join, split_residuals, Dynamics, State, WithOptions};
use super::events::Event;
use super::integrate::run;
use super::stabilization::solve_stabilized;
use super::{Projection, Sample, SimulationError, SimulationOptions, StateKind, Trajectory};
use crate::assemble::{
    assemble, hamiltonian_position_jacobian, holonomic_rows, position_jacobian, Levels,
};
use crate::jacobian::AccelerationJacobianDyn;
use crate::{Assembly, AssemblyOptions, Error, LagrangianView, Options};
use nalgebra::{DMatrix, DVector, Dyn, SMatrix, SVector};
use std::ops::ControlFlow;

/// M, Q, A, b and C of a Lagrangian system at one state, n coordinates and m constraints.
#[derive(Clone, Debug, PartialEq)]
pub struct DynamicLagrangianTerms {
    /// Mass matrix M, n × n.
    pub mass_matrix: DMatrix<f64>,
    /// Generalized force Q, n.
    pub generalized_force: DVector<f64>,
    /// Constraint matrix A, m × n: the holonomic rows first.
    pub constraint_matrix: DMatrix<f64>,
    /// b of A q̈ = b, m.
    pub constraint_rhs: DVector<f64>,
    /// Non-ideal constraint force C, n; `None` for ideal constraints.
    pub nonideal_force: Option<DVector<f64>>,
}

impl DynamicLagrangianTerms {
    /// The terms borrowed as the one argument of the kernels ([`crate::acceleration_dyn`] …).
    pub fn view(&self) -> LagrangianView<'_, Dyn, Dyn> {
        LagrangianView {
            mass_matrix: &self.mass_matrix,
            generalized_force: &self.generalized_force,
            constraint_matrix: &self.constraint_matrix,
            constraint_rhs: &self.constraint_rhs,
            nonideal_force: self.nonideal_force.as_ref(),
        }
    }
}

/// A Lagrangian system of run-time size: what [`simulate_dynamic_lagrangian`] needs. Slices
/// `q`, `qd` have n entries.
pub trait DynamicLagrangianSystem {
    /// Number of holonomic constraints: the first rows of A.
    fn num_holonomic(&self) -> usize;
    /// M, Q, A, b, C at (q, q̇, t).
    fn terms(&self, q: &[f64], qd: &[f64], t: f64) -> DynamicLagrangianTerms;
    /// The Jacobi integral h.
    fn energy(&self, q: &[f64], qd: &[f64], t: f64) -> f64;
    /// f(q, t) aligned with the m rows of A (0 on the nonholonomic rows).
    fn holonomic_residual(&self, q: &[f64], t: f64) -> DVector<f64>;
    /// ḟ on the holonomic rows, φ(q, q̇, t) on the others, m entries.
    fn velocity_residual(&self, q: &[f64], qd: &[f64], t: f64) -> DVector<f64>;
    /// [`DynamicLagrangianSystem::terms`] into `terms`, the simulator's buffers of the
    /// previous evaluation (one set per run): a system that evaluates in place, or moves its
    /// own buffers in, saves their allocation at every right-hand side. The default assigns
    /// `terms(q, qd, t)`.
    fn terms_into(&self, q: &[f64], qd: &[f64], t: f64, terms: &mut DynamicLagrangianTerms) {
        *terms = self.terms(q, qd, t);
    }
    /// [`DynamicLagrangianSystem::holonomic_residual`] and
    /// [`DynamicLagrangianSystem::velocity_residual`] together (m entries each) into the
    /// simulator's buffers, for Baumgarte's stabilization at every right-hand side: a system
    /// that evaluates both in one pass saves one. The default calls both.
    fn residuals_into(
        &self,
        q: &[f64],
        qd: &[f64],
        t: f64,
        holonomic: &mut DVector<f64>,
        velocity: &mut DVector<f64>,
    ) {
        *holonomic = self.holonomic_residual(q, t);
        *velocity = self.velocity_residual(q, qd, t);
    }
    /// The names of the n coordinates for the trajectory's columns
    /// ([`super::state_columns`]); empty (the default) for `q1`…`qn`.
    fn coordinate_names(&self) -> Vec<String> {
        Vec::new()
    }
    /// q̈ and its exact Jacobians ∂q̈/∂q and ∂q̈/∂q̇ (n × n) at (q, q̇, t), with the kernel
    /// `options` ([`crate::jacobian::acceleration_jacobian_dyn`]): the variational equations
    /// of [`super::periodic_dynamic_orbit`] and the Newton matrices of [`super::Method::Radau5`]
    /// and [`super::Method::Bdf`].
    ///
    /// # Errors
    /// `JacobianUnavailable` for a system that does not provide it (the default); `RankChange`
    /// where the rank of A or [M; A] changes; the kernel's errors.
    fn acceleration_jacobian(
        &self,
        q: &[f64],
        qd: &[f64],
        t: f64,
        options: &Options,
    ) -> Result<AccelerationJacobianDyn, Error> {
        let _ = (q, qd, t, options);
        Err(Error::JacobianUnavailable {
            what: "the acceleration Jacobian",
        })
    }
    /// The names of the n generalized speeds, as [`crate::LagrangianSystem::VELOCITY_NAMES`];
    /// empty (the default) when the second state is q̇.
    fn velocity_names(&self) -> Vec<String> {
        Vec::new()
    }
    /// q̇ at (q, v, t), n entries, as [`crate::LagrangianSystem::coordinate_rates`]: v itself
    /// by default.
    fn coordinate_rates(&self, q: &[f64], v: &[f64], t: f64) -> DVector<f64> {
        let _ = (q, t);
        DVector::from_column_slice(v)
    }
    /// N(q, t), n × n, as [`crate::LagrangianSystem::kinematic_matrix`]: `None` (the
    /// identity) by default.
    fn kinematic_matrix(&self, q: &[f64], t: f64) -> Option<DMatrix<f64>> {
        let _ = (q, t);
        None
    }
    /// The number of velocities (the length of `qd`, the rows of M) for `coordinates`
    /// entries of q: the same (the default); one fewer on a floating base, whose unit
    /// quaternion (4 entries) moves with an angular velocity (3).
    fn num_velocities(&self, coordinates: usize) -> usize {
        coordinates
    }
}

/// A borrowed system is the system (so that a [`super::ContactSet`] may own or borrow it).
impl<S: DynamicLagrangianSystem + ?Sized> DynamicLagrangianSystem for &S {
    fn num_holonomic(&self) -> usize {
        (**self).num_holonomic()
    }
    fn terms(&self, q: &[f64], qd: &[f64], t: f64) -> DynamicLagrangianTerms {
        (**self).terms(q, qd, t)
    }
    fn energy(&self, q: &[f64], qd: &[f64], t: f64) -> f64 {
        (**self).energy(q, qd, t)
    }
    fn holonomic_residual(&self, q: &[f64], t: f64) -> DVector<f64> {
        (**self).holonomic_residual(q, t)
    }
    fn velocity_residual(&self, q: &[f64], qd: &[f64], t: f64) -> DVector<f64> {
        (**self).velocity_residual(q, qd, t)
    }
    fn terms_into(&self, q: &[f64], qd: &[f64], t: f64, terms: &mut DynamicLagrangianTerms) {
        (**self).terms_into(q, qd, t, terms);
    }
    fn residuals_into(
        &self,
        q: &[f64],
        qd: &[f64],
        t: f64,
        holonomic: &mut DVector<f64>,
        velocity: &mut DVector<f64>,
    ) {
        (**self).residuals_into(q, qd, t, holonomic, velocity);
    }
    fn coordinate_names(&self) -> Vec<String> {
        (**self).coordinate_names()
    }
    fn acceleration_jacobian(
        &self,
        q: &[f64],
        qd: &[f64],
        t: f64,
        options: &Options,
    ) -> Result<AccelerationJacobianDyn, Error> {
        (**self).acceleration_jacobian(q, qd, t, options)
    }
    fn velocity_names(&self) -> Vec<String> {
        (**self).velocity_names()
    }
    fn coordinate_rates(&self, q: &[f64], v: &[f64], t: f64) -> DVector<f64> {
        (**self).coordinate_rates(q, v, t)
    }
    fn kinematic_matrix(&self, q: &[f64], t: f64) -> Option<DMatrix<f64>> {
        (**self).kinematic_matrix(q, t)
    }
    fn num_velocities(&self, coordinates: usize) -> usize {
        (**self).num_velocities(coordinates)
    }
}

/// H_p, H_q, H_pp, A_p and b_p of a Hamiltonian system at one state.
#[derive(Clone, Debug, PartialEq)]
pub struct DynamicHamiltonianTerms {
    /// H_p = q̇, n.
    pub h_p: DVector<f64>,
    /// H_q, n.
    pub h_q: DVector<f64>,
    /// H_pp, n × n.
    pub h_pp: DMatrix<f64>,
    /// A_p, m × n: the rows of holonomic constraints first.
    pub a_p: DMatrix<f64>,
    /// b_p, m.
    pub b_p: DVector<f64>,
}

/// A Hamiltonian system of run-time size: what [`simulate_dynamic_hamiltonian`] needs.
pub trait DynamicHamiltonianSystem {
    /// Number of holonomic constraints: the first rows of A_p.
    fn num_holonomic(&self) -> usize;
    /// H_p, H_q, H_pp, A_p, b_p at (q, p, t).
    fn terms(&self, q: &[f64], p: &[f64], t: f64) -> DynamicHamiltonianTerms;
    /// H(q, p, t).
    fn hamiltonian(&self, q: &[f64], p: &[f64], t: f64) -> f64;
    /// f(q, t) aligned with the m rows of A_p (0 on the other rows).
    fn holonomic_residual(&self, q: &[f64], t: f64) -> DVector<f64>;
    /// φ(q, p, t), m entries.
    fn constraint_residual(&self, q: &[f64], p: &[f64], t: f64) -> DVector<f64>;
    /// The names of the n coordinates, as [`DynamicLagrangianSystem::coordinate_names`].
    fn coordinate_names(&self) -> Vec<String> {
        Vec::new()
    }
    /// The names of the n momenta; empty (the default) for `p1`…`pn`.
    fn momentum_names(&self) -> Vec<String> {
        Vec::new()
    }
}

/// [`super::simulate_lagrangian`] for a system of run-time size, with n = `N`; `observe` is
/// called with each sample as soon as it is recorded, in order, and stops the run by returning
/// `ControlFlow::Break`.
///
/// # Errors
/// As [`super::simulate_lagrangian`]; [`SimulationError::Interrupted`] when `observe` stops
/// the run.
pub fn simulate_dynamic_lagrangian<S: DynamicLagrangianSystem, const N: usize>(
    system: &S,
    q0: &SVector<f64, N>,
    qd0: &SVector<f64, N>,
    t0: f64,
    tf: f64,
    options: &SimulationOptions,
    observe: impl FnMut(&Sample<N>) -> ControlFlow<()>,
) -> Result<Trajectory<N>, SimulationError<N>> {
    simulate_dynamic_lagrangian_with_events(system, (q0, qd0), (t0, tf), options, &[], observe)
}

/// [`simulate_dynamic_lagrangian`] with `events`, run as
/// [`super::simulate_lagrangian_with_events`] runs them, from (q₀, q̇₀) at t₀ to t_f.
///
/// # Errors
/// As [`super::simulate_lagrangian_with_events`]; [`SimulationError::Interrupted`] when
/// `observe` stops the run.
pub fn simulate_dynamic_lagrangian_with_events<S: DynamicLagrangianSystem, const N: usize>(
    system: &S,
    (q0, qd0): (&SVector<f64, N>, &SVector<f64, N>),
    (t0, tf): (f64, f64),
    options: &SimulationOptions,
    events: &[Event<'_, N>],
    mut observe: impl FnMut(&Sample<N>) -> ControlFlow<()>,
) -> Result<Trajectory<N>, SimulationError<N>> {
    let dynamics: WithOptions<_, DynamicLagrange> = WithOptions::new(system, options);
    run(
        &dynamics,
        (join(q0, qd0), t0, tf),
        options,
        events,
        &mut observe,
    )
}

/// [`super::simulate_hamiltonian`] for a system of run-time size, with n = `N`, observed as
/// [`simulate_dynamic_lagrangian`] is.
///
/// # Errors
/// As [`super::simulate_hamiltonian`]; [`SimulationError::Interrupted`] when `observe` stops
/// the run.
pub fn simulate_dynamic_hamiltonian<S: DynamicHamiltonianSystem, const N: usize>(
    system: &S,
    q0: &SVector<f64, N>,
    p0: &SVector<f64, N>,
    t0: f64,
    tf: f64,
    options: &SimulationOptions,
    mut observe: impl FnMut(&Sample<N>) -> ControlFlow<()>,
) -> Result<Trajectory<N>, SimulationError<N>> {
    let dynamics: WithOptions<_, DynamicHamilton> = WithOptions::new(system, options);
    run(
        &dynamics,
        (join(q0, p0), t0, tf),
        options,
        &[],
        &mut observe,
    )
}

/// [`crate::consistent_state`] for a Lagrangian system of run-time size: q and q̇ (n entries
/// each) projected onto the constraints at time t.
///
/// # Errors
/// As [`crate::consistent_state`]; `DimensionMismatch` when q and q̇ differ in length.
pub fn consistent_dynamic_lagrangian_state<S: DynamicLagrangianSystem>(
    system: &S,
    q: &[f64],
    qd: &[f64],
    t: f64,
    options: &AssemblyOptions,
) -> Result<Assembly<DVector<f64>>, Error> {
    let levels = Levels {
        f: |q: &DVector<f64>| system.holonomic_residual(q.as_slice(), t),
        df: |q: &DVector<f64>, qd: &DVector<f64>| {
            let a = system
                .terms(q.as_slice(), qd.as_slice(), t)
                .constraint_matrix;
            let rows = holonomic_rows(a, system.num_holonomic());
            position_jacobian(rows, system.kinematic_matrix(q.as_slice(), t))
        },
        r: |q: &DVector<f64>, qd: &DVector<f64>| {
            system.velocity_residual(q.as_slice(), qd.as_slice(), t)
        },
        dr: |q: &DVector<f64>, qd: &DVector<f64>| {
            Ok(system
                .terms(q.as_slice(), qd.as_slice(), t)
                .constraint_matrix)
        },
    };
    assemble(q, qd, options, levels)
}

/// [`crate::consistent_hamiltonian_state`] for a Hamiltonian system of run-time size.
///
/// # Errors
/// As [`crate::consistent_hamiltonian_state`]; `DimensionMismatch` when q and p differ in
/// length.
pub fn consistent_dynamic_hamiltonian_state<S: DynamicHamiltonianSystem>(
    system: &S,
    q: &[f64],
    p: &[f64],
    t: f64,
    options: &AssemblyOptions,
) -> Result<Assembly<DVector<f64>>, Error> {
    let levels = Levels {
        f: |q: &DVector<f64>| system.holonomic_residual(q.as_slice(), t),
        df: |q: &DVector<f64>, p: &DVector<f64>| {
            let terms = system.terms(q.as_slice(), p.as_slice(), t);
            hamiltonian_position_jacobian(terms.a_p, terms.h_pp, system.num_holonomic())
        },
        r: |q: &DVector<f64>, p: &DVector<f64>| {
            system.constraint_residual(q.as_slice(), p.as_slice(), t)
        },
        dr: |q: &DVector<f64>, p: &DVector<f64>| {
            Ok(system.terms(q.as_slice(), p.as_slice(), t).a_p)
        },
    };
    assemble(q, p, options, levels)
}

/// The assembled state as a first-order state of n = `N` coordinates.
fn assembled<const N: usize>(assembly: Assembly<DVector<f64>>) -> State<N> {
    join(
        &SVector::from_column_slice(assembly.q.as_slice()),
        &SVector::from_column_slice(assembly.v.as_slice()),
    )
}

/// q (column 0) and q̇ or p (column 1) of a state, as slices.
fn halves<const N: usize>(x: &State<N>) -> (&[f64], &[f64]) {
    x.as_slice().split_at(N)
}

/// Marker of a [`DynamicLagrangianSystem`] in [`WithOptions`].
pub(super) struct DynamicLagrange;

/// The buffers of a run's right-hand side of run-time size, reused from call to call
/// ([`DynamicLagrangianSystem::terms_into`], [`DynamicLagrangianSystem::residuals_into`]).
#[derive(Debug)]
pub(crate) struct Scratch {
    terms: DynamicLagrangianTerms,
    holonomic: DVector<f64>,
    velocity: DVector<f64>,
}

impl Default for Scratch {
    fn default() -> Self {
        Self {
            terms: DynamicLagrangianTerms {
                mass_matrix: DMatrix::zeros(0, 0),
                generalized_force: DVector::zeros(0),
                constraint_matrix: DMatrix::zeros(0, 0),
                constraint_rhs: DVector::zeros(0),
                nonideal_force: None,
            },
            holonomic: DVector::zeros(0),
            velocity: DVector::zeros(0),
        }
    }
}

impl<S: DynamicLagrangianSystem, const N: usize> Dynamics<N>
    for WithOptions<'_, S, DynamicLagrange>
{
    type Integrated = State<N>;

    fn kind(&self) -> StateKind {
        StateKind::Velocities
    }

    fn state_columns(&self) -> Vec<String> {
        super::state_columns(
            StateKind::Velocities,
            &self.system.coordinate_names(),
            &self.system.velocity_names(),
            N,
        )
    }

    fn derivative(&self, t: f64, x: &State<N>) -> Result<State<N>, Error> {
        finite(x, "state (q, q̇)")?;
        let (q, qd) = halves(x);
        // The buffers of the previous call, or a fresh set while those are in use.
        let mut reused = self.scratch.try_borrow_mut().ok();
        let mut fresh = Scratch::default();
        let Scratch {
            terms,
            holonomic,
            velocity,
        } = reused.as_deref_mut().unwrap_or(&mut fresh);
        self.system.terms_into(q, qd, t, terms);
        let terms = &*terms;
        let qdd = solve_stabilized(
            self.stabilization.as_ref(),
            self.system.num_holonomic(),
            &terms.constraint_matrix,
            &terms.constraint_rhs,
            move || {
                self.system.residuals_into(q, qd, t, holonomic, velocity);
                let residuals: (&DVector<f64>, &DVector<f64>) = (holonomic, velocity);
                residuals
            },
            |b| {
                crate::acceleration_dyn(
                    LagrangianView {
                        constraint_rhs: b,
                        ..terms.view()
                    },
                    self.kernel,
                )
                .map_err(|e| e.with_coordinate_names(&self.system.coordinate_names()))
            },
        )?;
        let xd = join(
            &SVector::from_column_slice(self.system.coordinate_rates(q, qd, t).as_slice()),
            &SVector::from_column_slice(qdd.as_slice()),
        );
        finite(&xd, "state derivative (q̇, q̈)")?;
        Ok(xd)
    }

    fn jacobian(
        &self,
        t: f64,
        x: &State<N>,
    ) -> Result<(SMatrix<f64, N, N>, SMatrix<f64, N, N>), Error> {
        let (q, qd) = halves(x);
        let jacobian = self.system.acceleration_jacobian(q, qd, t, self.kernel)?;
        let square = |m: &DMatrix<f64>| match m.shape() == (N, N) {
            true => Ok(SMatrix::from_column_slice(m.as_slice())),
            false => Err(Error::DimensionMismatch {
                what: "the acceleration Jacobian of a system of run-time size",
                expected: (N, N),
                found: m.shape(),
            }),
        };
        Ok((square(&jacobian.wrt_q)?, square(&jacobian.wrt_qd)?))
    }

    fn sample(&self, t: f64, x: &State<N>) -> Sample<N> {
        let (q, qd) = halves(x);
        Sample {
            t,
            q: x.column(0).into_owned(),
            v: x.column(1).into_owned(),
            position_residual: self.system.holonomic_residual(q, t).norm(),
            velocity_residual: self.system.velocity_residual(q, qd, t).norm(),
            energy: self.system.energy(q, qd, t),
        }
    }

    fn residuals(&self, t: f64, x: &State<N>) -> (Vec<f64>, Vec<f64>) {
        let (q, qd) = halves(x);
        let f = self.system.holonomic_residual(q, t);
        let r = self.system.velocity_residual(q, qd, t);
        split_residuals(f.as_slice(), r.as_slice(), self.system.num_holonomic())
    }

    fn project(&self, t: f64, x: &State<N>, projection: &Projection) -> Result<State<N>, Error> {
        let (q, qd) = halves(x);
        let options = projection.assembly_options();
        consistent_dynamic_lagrangian_state(self.system, q, qd, t, &options).map(assembled)
    }
}

/// Marker of a [`DynamicHamiltonianSystem`] in [`WithOptions`].
struct DynamicHamilton;

impl<S: DynamicHamiltonianSystem, const N: usize> Dynamics<N>
    for WithOptions<'_, S, DynamicHamilton>
{
    type Integrated = State<N>;

    fn kind(&self) -> StateKind {
        StateKind::Momenta
    }

    fn state_columns(&self) -> Vec<String> {
        let (coordinates, momenta) = (self.system.coordinate_names(), self.system.momentum_names());
        super::state_columns(StateKind::Momenta, &coordinates, &momenta, N)
    }

    fn derivative(&self, t: f64, x: &State<N>) -> Result<State<N>, Error> {
        finite(x, "state (q, p)")?;
        let (q, p) = halves(x);
        let terms = self.system.terms(q, p, t);
        let pd = solve_stabilized(
            self.stabilization.as_ref(),
            self.system.num_holonomic(),
            &terms.a_p,
            &terms.b_p,
            || {
                let f = self.system.holonomic_residual(q, t);
                (f, self.system.constraint_residual(q, p, t))
            },
            |b| {
                crate::hamiltonian::momentum_rate_dyn(
                    &terms.h_q,
                    &terms.h_pp,
                    &terms.a_p,
                    b,
                    self.kernel,
                )
            },
        )?;
        let xd = join(
            &SVector::from_column_slice(terms.h_p.as_slice()),
            &SVector::from_column_slice(pd.as_slice()),
        );
        finite(&xd, "state derivative (q̇, ṗ)")?;
        Ok(xd)
    }

    fn sample(&self, t: f64, x: &State<N>) -> Sample<N> {
        let (q, p) = halves(x);
        Sample {
            t,
            q: x.column(0).into_owned(),
            v: x.column(1).into_owned(),
            position_residual: self.system.holonomic_residual(q, t).norm(),
            velocity_residual: self.system.constraint_residual(q, p, t).norm(),
            energy: self.system.hamiltonian(q, p, t),
        }
    }

    fn residuals(&self, t: f64, x: &State<N>) -> (Vec<f64>, Vec<f64>) {
        let (q, p) = halves(x);
        let f = self.system.holonomic_residual(q, t);
        let r = self.system.constraint_residual(q, p, t);
        split_residuals(f.as_slice(), r.as_slice(), self.system.num_holonomic())
    }

    fn project(&self, t: f64, x: &State<N>, projection: &Projection) -> Result<State<N>, Error> {
        let (q, p) = halves(x);
        let options = projection.assembly_options();
        consistent_dynamic_hamiltonian_state(self.system, q, p, t, &options).map(assembled)
    }
}
