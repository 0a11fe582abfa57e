//! The simulator on a robot with a floating base ([`FreeFlyerSystem`]): the same run as
//! every other system (methods, output times, stats, CSV), with the state x = [q, v] on
//! SE(3) × ℝⁿ and the base quaternion brought back to unit norm at every output time; with
//! unilateral frictional contacts at its link points ([`ground_contacts`], a [`ContactSet`]).

use super::contact::{Contact, ContactGeometry, ContactRow, ContactSet};
use super::dynamic::{DynamicLagrangianSystem, DynamicLagrangianTerms};
use super::dynamics::{finite, Dynamics, State};
use super::integrate::run;
use super::{
    ConstraintLevel, Projection, Sample, SimulationError, SimulationOptions, StateKind, Trajectory,
    Violation,
};
use crate::free_flyer::{configuration_rate, FreeFlyerError, FreeFlyerSystem};
use crate::{Error, Options};
use nalgebra::{DMatrix, DVector, SVector, Vector3};
use std::cell::RefCell;
use std::ops::ControlFlow;
use std::rc::Rc;

/// The joint efforts τ(t, q, v) of a run, written into `out` (n entries).
pub type JointEfforts<'a, const NQ: usize> =
    dyn Fn(f64, &SVector<f64, NQ>, &[f64], &mut [f64]) + 'a;

/// A [`FreeFlyerSystem`] under the joint efforts `efforts`. In first-order form column 0 of
/// the state is q (NQ), column 1 is v (NV = NQ − 1) with a last entry that stays 0. As a
/// [`DynamicLagrangianSystem`] over (q, v) (slices of NQ and NV entries) it gives M(q) and
/// Q = M v̇_free = τ − h(q, v) with no constraint of its own: the system a [`ContactSet`] adds
/// contacts to, for [`simulate_free_flyer_with_contacts`].
pub struct FreeFlyer<'a, S, const NQ: usize> {
    system: &'a S,
    efforts: &'a JointEfforts<'a, NQ>,
}

impl<'a, S: FreeFlyerSystem<NQ>, const NQ: usize> FreeFlyer<'a, S, NQ> {
    /// `system` under the joint efforts `efforts`.
    pub fn new(system: &'a S, efforts: &'a JointEfforts<'a, NQ>) -> Self {
        Self { system, efforts }
    }
}

/// The free-flyer error as the simulator reports it.
fn simulation_error(e: FreeFlyerError) -> Error {
    match e {
        FreeFlyerError::ZeroQuaternion => Error::InvalidSelection {
            what: "the base quaternion is zero",
        },
        FreeFlyerError::WrongLength {
            argument,
            len,
            expected,
        } => Error::DimensionMismatch {
            what: argument,
            expected: (expected, 1),
            found: (len, 1),
        },
        _ => Error::NonFinite {
            what: "the free-flyer state (q, v, τ)",
        },
    }
}

impl<S: FreeFlyerSystem<NQ>, const NQ: usize> FreeFlyer<'_, S, NQ> {
    /// v̇ at (t, q, v), written into `out` (NV entries).
    fn acceleration(
        &self,
        t: f64,
        q: &SVector<f64, NQ>,
        v: &[f64],
        out: &mut [f64],
    ) -> Result<(), Error> {
        let mut tau = vec![0.0; NQ - 7];
        (self.efforts)(t, q, v, &mut tau);
        (self.system)
            .acceleration_into(q, v, &tau, t, out)
            .map_err(simulation_error)
    }

    /// The energy ½ vᵀ M v − m g·c (c the centre of mass: m c = m p + R h, with m and the
    /// base-frame first moment h read from the base block of M); NaN where M fails.
    fn energy(&self, q: &SVector<f64, NQ>, v: &[f64]) -> f64 {
        let nv = NQ - 1;
        let mut m = vec![0.0; nv * nv];
        let Ok(rotation) = crate::free_flyer::rotation(q.as_slice()) else {
            return f64::NAN;
        };
        if self.system.mass_matrix_into(q, &mut m).is_err() {
            return f64::NAN;
        }
        let kinetic: f64 = (0..nv)
            .map(|r| v[r] * (0..nv).map(|c| m[r * nv + c] * v[c]).sum::<f64>())
            .sum::<f64>()
            / 2.0;
        let mass = m[0];
        let first_moment = Vector3::new(m[5 * nv + 1], m[3 * nv + 2], m[4 * nv]);
        let position = Vector3::new(q[0], q[1], q[2]);
        let moment = position * mass + rotation * first_moment;
        kinetic - Vector3::from(self.system.gravity()).dot(&moment)
    }
}

impl<S: FreeFlyerSystem<NQ>, const NQ: usize> DynamicLagrangianSystem for FreeFlyer<'_, S, NQ> {
    fn num_holonomic(&self) -> usize {
        0
    }

    /// M and Q = M a (a = v̇ with no contact); NaN entries where the state is refused, which
    /// the kernels then report.
    fn terms(&self, q: &[f64], v: &[f64], t: f64) -> DynamicLagrangianTerms {
        let nv = NQ - 1;
        let q = SVector::<f64, NQ>::from_column_slice(q);
        let mut mass = vec![f64::NAN; nv * nv];
        let mut a = DVector::zeros(nv);
        let terms = (self.system.mass_matrix_into(&q, &mut mass))
            .map_err(simulation_error)
            .and_then(|()| self.acceleration(t, &q, v, a.as_mut_slice()));
        let mass_matrix = DMatrix::from_row_slice(nv, nv, &mass);
        let generalized_force = match terms {
            Ok(()) => &mass_matrix * a,
            Err(_) => DVector::from_element(nv, f64::NAN),
        };
        DynamicLagrangianTerms {
            mass_matrix,
            generalized_force,
            constraint_matrix: DMatrix::zeros(0, nv),
            constraint_rhs: DVector::zeros(0),
            nonideal_force: None,
        }
    }

    fn energy(&self, q: &[f64], v: &[f64], _: f64) -> f64 {
        self.energy(&SVector::from_column_slice(q), v)
    }

    fn holonomic_residual(&self, _: &[f64], _: f64) -> DVector<f64> {
        DVector::zeros(0)
    }

    fn velocity_residual(&self, _: &[f64], _: &[f64], _: f64) -> DVector<f64> {
        DVector::zeros(0)
    }

    fn coordinate_names(&self) -> Vec<String> {
        let mut columns = self.system.state_columns();
        columns.truncate(NQ);
        columns
    }

    fn num_velocities(&self, coordinates: usize) -> usize {
        coordinates.saturating_sub(1)
    }
}

impl<S: FreeFlyerSystem<NQ>, const NQ: usize> Dynamics<NQ> for FreeFlyer<'_, S, NQ> {
    type Integrated = State<NQ>;

    fn kind(&self) -> StateKind {
        StateKind::Velocities
    }

    fn derivative(&self, t: f64, x: &State<NQ>) -> Result<State<NQ>, Error> {
        first_order_rate(x, |q, v, out| self.acceleration(t, q, v, out))
    }

    fn state_columns(&self) -> Vec<String> {
        state_columns(self.system)
    }

    fn sample(&self, t: f64, x: &State<NQ>) -> Sample<NQ> {
        sample(t, x, |q, v| (0.0, self.energy(q, v)))
    }

    fn residuals(&self, _: f64, x: &State<NQ>) -> (Vec<f64>, Vec<f64>) {
        let q: SVector<f64, NQ> = x.column(0).into_owned();
        (vec![quaternion_residual(&q)], Vec::new())
    }

    fn project(&self, _: f64, x: &State<NQ>, _: &Projection) -> Result<State<NQ>, Error> {
        unit_quaternion(x)
    }
}

/// The rate ẋ = [q̇, v̇] of the first-order state x = [q, v] (v padded with one 0): q̇ =
/// (R v, ½ q ⊗ ω, joint rates), v̇ written by `acceleration(q, v, out)` into its NV = NQ − 1
/// entries, the padding's rate 0. Both x and ẋ are checked finite.
fn first_order_rate<const NQ: usize>(
    x: &State<NQ>,
    acceleration: impl FnOnce(&SVector<f64, NQ>, &[f64], &mut [f64]) -> Result<(), Error>,
) -> Result<State<NQ>, Error> {
    finite(x, "state (q, v)")?;
    let q: SVector<f64, NQ> = x.column(0).into_owned();
    let v = &x.as_slice()[NQ..2 * NQ - 1];
    let mut xd = State::<NQ>::zeros();
    let (rate, acceleration_column) = xd.as_mut_slice().split_at_mut(NQ);
    configuration_rate(q.as_slice(), v, rate).map_err(simulation_error)?;
    acceleration(&q, v, &mut acceleration_column[..NQ - 1])?;
    finite(&xd, "state derivative (q̇, v̇)")?;
    Ok(xd)
}

/// The names of the first-order state's entries: [`FreeFlyerSystem::state_columns`], then
/// `padding`.
fn state_columns<S: FreeFlyerSystem<NQ>, const NQ: usize>(system: &S) -> Vec<String> {
    let mut columns = system.state_columns();
    columns.push("padding".into());
    columns
}

/// The sample of x = [q, v] at t, with its velocity residual and energy from
/// `residual_and_energy(q, v)` (v the NV = NQ − 1 entries without the padding).
fn sample<const NQ: usize>(
    t: f64,
    x: &State<NQ>,
    residual_and_energy: impl FnOnce(&SVector<f64, NQ>, &[f64]) -> (f64, f64),
) -> Sample<NQ> {
    let q: SVector<f64, NQ> = x.column(0).into_owned();
    let v: SVector<f64, NQ> = x.column(1).into_owned();
    let (velocity_residual, energy) = residual_and_energy(&q, &v.as_slice()[..NQ - 1]);
    Sample {
        t,
        q,
        v,
        position_residual: quaternion_residual(&q),
        velocity_residual,
        energy,
    }
}

/// `x` with its base quaternion divided by its norm.
fn unit_quaternion<const NQ: usize>(x: &State<NQ>) -> Result<State<NQ>, Error> {
    let mut projected = *x;
    let norm = x.fixed_view::<4, 1>(3, 0).norm();
    if norm == 0.0 || !norm.is_finite() {
        return Err(simulation_error(FreeFlyerError::ZeroQuaternion));
    }
    projected.fixed_view_mut::<4, 1>(3, 0).unscale_mut(norm);
    Ok(projected)
}

/// A robot on a floating base with contacts, in first-order form as [`FreeFlyer`]: v̇ from the
/// fundamental equation with the contacts' rows in their present modes.
struct WithContacts<'s, 'a, S, const NQ: usize> {
    set: &'s ContactSet<'a, FreeFlyer<'a, S, NQ>>,
}

impl<S: FreeFlyerSystem<NQ>, const NQ: usize> Dynamics<NQ> for WithContacts<'_, '_, S, NQ> {
    type Integrated = State<NQ>;

    fn kind(&self) -> StateKind {
        StateKind::Velocities
    }

    fn derivative(&self, t: f64, x: &State<NQ>) -> Result<State<NQ>, Error> {
        first_order_rate(x, |q, v, out| {
            let terms = self.set.terms(q.as_slice(), v, t);
            let a = crate::acceleration_dyn(terms.view(), &Options::default())
                .map_err(|e| e.with_coordinate_names(&self.set.coordinate_names()))?;
            out.copy_from_slice(a.as_slice());
            Ok(())
        })
    }

    fn state_columns(&self) -> Vec<String> {
        state_columns(self.set.system().system)
    }

    fn sample(&self, t: f64, x: &State<NQ>) -> Sample<NQ> {
        sample(t, x, |q, v| {
            let q = q.as_slice();
            (
                self.set.velocity_residual(q, v, t).norm(),
                self.set.energy(q, v, t),
            )
        })
    }

    fn residuals(&self, t: f64, x: &State<NQ>) -> (Vec<f64>, Vec<f64>) {
        let q: SVector<f64, NQ> = x.column(0).into_owned();
        let v = &x.as_slice()[NQ..2 * NQ - 1];
        let rows = self.set.velocity_residual(q.as_slice(), v, t);
        (vec![quaternion_residual(&q)], rows.as_slice().to_vec())
    }

    fn project(&self, _: f64, x: &State<NQ>, _: &Projection) -> Result<State<NQ>, Error> {
        unit_quaternion(x)
    }
}

/// A ground contact at each link point of `system` (its
/// [`FreeFlyerSystem::point_names`], the contact named as the point), the ground the plane
/// z = `height` (m) of the world frame, with restitution `restitution` and friction
/// coefficient `friction`: [`ground_contacts_at`] with the same [`GroundContact`] at every
/// point.
pub fn ground_contacts<'a, S: FreeFlyerSystem<NQ>, const NQ: usize>(
    system: &'a S,
    height: f64,
    restitution: f64,
    friction: f64,
) -> Vec<Contact<'a>> {
    let contacts: Vec<GroundContact> = (0..system.point_names().len())
        .map(|point| GroundContact {
            point,
            height,
            restitution,
            friction,
            rest_speed: 0.0,
        })
        .collect();
    ground_contacts_at(system, &contacts).expect("every point index is in range")
}

/// A unilateral frictional contact of one link point of a robot on a floating base with the
/// ground, a horizontal plane: what [`ground_contacts_at`] makes a [`Contact`] of.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GroundContact {
    /// The index of the point among [`FreeFlyerSystem::point_names`].
    pub point: usize,
    /// The ground is the plane z = `height` of the world frame (m).
    pub height: f64,
    /// The coefficient of restitution e ≥ 0 of a touchdown (0: plastic).
    pub restitution: f64,
    /// The Coulomb friction coefficient μ ≥ 0 (a circular cone).
    pub friction: f64,
    /// A touchdown that would rebound slower than this (m/s) is plastic
    /// ([`Contact::resting_below`]); 0 for none.
    pub rest_speed: f64,
}

/// A contact with the ground for each of `contacts`, named as its point: the gap is
/// p_z − height, the normal row e_zᵀ J, the slip coordinates x (tangent, row e_xᵀ J) and y
/// (lateral, row e_yᵀ J), each b the component of −J̇ v (see
/// [`crate::free_flyer::PointMotion`]). The contacts share one evaluation of the points per
/// state. A state the system refuses gives a NaN gap, which the simulator reports.
///
/// # Errors
/// [`Error::InvalidSelection`] for a point index that is not one of the system's points.
pub fn ground_contacts_at<'a, S: FreeFlyerSystem<NQ>, const NQ: usize>(
    system: &'a S,
    contacts: &[GroundContact],
) -> Result<Vec<Contact<'a>>, Error> {
    let nv = NQ - 1;
    let size = 6 + 3 * nv;
    // The points at the last (q, v) asked, shared by the contacts: each asks at the same state.
    let last: Rc<RefCell<(Vec<f64>, Vec<f64>)>> = Rc::default();
    let names = system.point_names();
    let count = names.len();
    (contacts.iter())
        .map(|contact| {
            let i = contact.point;
            let name = names.get(i).ok_or(Error::InvalidSelection {
                what: "a ground contact's point index is not a point of the system",
            })?;
            let last = Rc::clone(&last);
            let height = contact.height;
            let geometry = move |q: &[f64], v: &[f64], _: f64| {
                let mut last = last.borrow_mut();
                let (state, out) = &mut *last;
                if state.len() != q.len() + v.len()
                    || state[..q.len()] != *q
                    || state[q.len()..] != *v
                {
                    *state = [q, v].concat();
                    *out = vec![f64::NAN; size * count];
                    let q = SVector::<f64, NQ>::from_column_slice(q);
                    if system.points_into(&q, v, out).is_err() {
                        out.fill(f64::NAN);
                    }
                }
                let point = &out[i * size..(i + 1) * size];
                let bias = &point[3 + 3 * nv..];
                // The ground is fixed: no ∂/∂t.
                let row = |r: usize| ContactRow {
                    gradient: DVector::from_column_slice(&point[3 + r * nv..3 + (r + 1) * nv]),
                    rate: 0.0,
                    rhs: -bias[r],
                };
                ContactGeometry {
                    gap: point[2] - height,
                    normal: row(2),
                    tangent: row(0),
                    lateral: Some(row(1)),
                }
            };
            Ok(Contact::new(
                name.clone(),
                contact.restitution,
                contact.friction,
                geometry,
            )
            .resting_below(contact.rest_speed))
        })
        .collect()
}

/// |q[3..7]| − 1.
fn quaternion_residual<const NQ: usize>(q: &SVector<f64, NQ>) -> f64 {
    q.fixed_rows::<4>(3).norm() - 1.0
}

/// Simulates the robot on a floating base `system` under the joint efforts `efforts` from
/// (q₀, v₀) at t₀ to t_f: q̇ = (R v, ½ q ⊗ ω, joint rates) and v̇ from the articulated-body
/// algorithm, integrated by `options.method`, with the base quaternion divided by its norm at
/// t₀ and at every output time (a projection onto |q| = 1 that makes the drift of one output
/// interval the most the run ever carries; `options.projection` is not needed).
///
/// Each [`Sample`] holds q (NQ) and, in `v`, the NV = NQ − 1 entries of v followed by one 0
/// (the simulator's state has two columns of NQ); `position_residual` is |quaternion| − 1
/// before the projection, `energy` is ½ vᵀ M v − m g·c. [`Trajectory::state_columns`] names
/// q and v ([`FreeFlyerSystem::state_columns`]) and the padding entry `padding`.
///
/// # Errors
/// [`SimulationError::InconsistentStart`] when v₀ does not have NQ − 1 entries (row 0 at the
/// velocity level) or the quaternion of q₀ differs from unit norm by more than
/// `options.constraint_tolerance` (a non-unit start is refused, not normalized); otherwise as
/// [`super::simulate_lagrangian`].
pub fn simulate_free_flyer<S: FreeFlyerSystem<NQ>, const NQ: usize>(
    system: &S,
    efforts: &JointEfforts<'_, NQ>,
    q0: &SVector<f64, NQ>,
    v0: &[f64],
    t0: f64,
    tf: f64,
    options: &SimulationOptions,
) -> Result<Trajectory<NQ>, SimulationError<NQ>> {
    let (start, options) = start(q0, v0, options)?;
    let dynamics = FreeFlyer { system, efforts };
    run(&dynamics, (start, t0, tf), &options, &[], &mut |_| {
        ControlFlow::Continue(())
    })
}

/// [`simulate_free_flyer`] with the unilateral frictional contacts of `set` (built on
/// [`FreeFlyer::new`], with [`ground_contacts`] or the caller's own, whose rows are with
/// respect to v): v̇ by the fundamental equation with the rows of the closed contacts, and the
/// events of [`ContactSet::events`] that switch their modes (touchdown as an impact, lift-off,
/// stick, slip). The contacts start in the modes `set` has ([`ContactSet::settle`] closes
/// those touching at rest). `observe` is called with each sample as soon as it is recorded,
/// with the contacts in their modes at that time: the forces by name there come from
/// [`ContactSet::forces`] (with the sample's q and its v, the first NQ − 1 entries of
/// [`Sample::v`]); `ControlFlow::Break` stops the run.
///
/// # Errors
/// As [`simulate_free_flyer`]; [`SimulationError::Interrupted`] when `observe` stops the run.
pub fn simulate_free_flyer_with_contacts<S: FreeFlyerSystem<NQ>, const NQ: usize>(
    set: &ContactSet<'_, FreeFlyer<'_, S, NQ>>,
    (q0, v0): (&SVector<f64, NQ>, &[f64]),
    (t0, tf): (f64, f64),
    options: &SimulationOptions,
    mut observe: impl FnMut(&Sample<NQ>) -> ControlFlow<()>,
) -> Result<Trajectory<NQ>, SimulationError<NQ>> {
    let (start, options) = start(q0, v0, options)?;
    let events = set.events::<NQ>();
    let dynamics = WithContacts { set };
    run(&dynamics, (start, t0, tf), &options, &events, &mut observe)
}

/// The first-order state of (q₀, v₀) and the options of a floating-base run, after the
/// checks of [`simulate_free_flyer`].
fn start<const NQ: usize>(
    q0: &SVector<f64, NQ>,
    v0: &[f64],
    options: &SimulationOptions,
) -> Result<(State<NQ>, SimulationOptions), SimulationError<NQ>> {
    if v0.len() + 1 != NQ {
        return Err(SimulationError::InconsistentStart {
            violations: vec![Violation {
                level: ConstraintLevel::Velocity,
                row: 0,
                residual: f64::INFINITY,
            }],
            tolerance: options.constraint_tolerance,
        });
    }
    let residual = quaternion_residual(q0);
    if residual.abs() > options.constraint_tolerance {
        return Err(SimulationError::InconsistentStart {
            violations: vec![Violation {
                level: ConstraintLevel::Position,
                row: 0,
                residual,
            }],
            tolerance: options.constraint_tolerance,
        });
    }
    let mut v = SVector::<f64, NQ>::zeros();
    v.as_mut_slice()[..NQ - 1].copy_from_slice(v0);
    let options = SimulationOptions {
        projection: Some(options.projection.unwrap_or_default()),
        stabilization: None,
        ..options.clone()
    };
    Ok((State::from_columns(&[*q0, v]), options))
}
