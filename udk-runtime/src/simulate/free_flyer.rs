//! The simulator on a robot with a floating base ([`FreeFlyerSystem`]): the same run as
//! every other system (methods, output times, stats, CSV), with the state x = [q, v] on
//! SE(3) × ℝⁿ and the base quaternion brought back to unit norm at every output time.

use super::dynamics::{finite, Dynamics, State};
use super::integrate::run;
use super::{
    ConstraintLevel, Projection, Sample, SimulationError, SimulationOptions, StateKind, Trajectory,
    Violation,
};
use crate::free_flyer::{configuration_rate, FreeFlyerError, FreeFlyerSystem};
use crate::Error;
use nalgebra::{SVector, Vector3};
use std::ops::ControlFlow;

/// The joint efforts τ(t, q, v) of a run, written into `out` (n entries).
pub type JointEfforts<'a, const NQ: usize> =
    dyn Fn(f64, &SVector<f64, NQ>, &[f64], &mut [f64]) + 'a;

/// A [`FreeFlyerSystem`] under the joint efforts `efforts`, in first-order form: column 0 of
/// the state is q (NQ), column 1 is v (NV = NQ − 1) with a last entry that stays 0.
struct FreeFlyer<'a, S, const NQ: usize> {
    system: &'a S,
    efforts: &'a JointEfforts<'a, NQ>,
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
    /// v̇ at (t, q, v), NV entries.
    fn acceleration(&self, t: f64, q: &SVector<f64, NQ>, v: &[f64]) -> Result<Vec<f64>, Error> {
        let mut tau = vec![0.0; NQ - 7];
        (self.efforts)(t, q, v, &mut tau);
        let mut out = vec![0.0; NQ - 1];
        (self.system)
            .acceleration_into(q, v, &tau, t, &mut out)
            .map_err(simulation_error)?;
        Ok(out)
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
        kinetic - Vector3::from(S::GRAVITY).dot(&moment)
    }
}

impl<S: FreeFlyerSystem<NQ>, const NQ: usize> Dynamics<NQ> for FreeFlyer<'_, S, NQ> {
    const KIND: StateKind = StateKind::Velocities;
    type Integrated = State<NQ>;

    fn derivative(&self, t: f64, x: &State<NQ>) -> Result<State<NQ>, Error> {
        finite(x, "state (q, v)")?;
        let q: SVector<f64, NQ> = x.column(0).into_owned();
        let padded: SVector<f64, NQ> = x.column(1).into_owned();
        let v = &padded.as_slice()[..NQ - 1];
        let mut rate = SVector::<f64, NQ>::zeros();
        configuration_rate(q.as_slice(), v, rate.as_mut_slice()).map_err(simulation_error)?;
        let mut acceleration = SVector::<f64, NQ>::zeros();
        acceleration.as_mut_slice()[..NQ - 1].copy_from_slice(&self.acceleration(t, &q, v)?);
        let xd = State::from_columns(&[rate, acceleration]);
        finite(&xd, "state derivative (q̇, v̇)")?;
        Ok(xd)
    }

    fn state_columns(&self) -> Vec<String> {
        let mut columns: Vec<String> = S::STATE_COLUMNS.iter().map(|c| c.to_string()).collect();
        columns.push("padding".into());
        columns
    }

    fn sample(&self, t: f64, x: &State<NQ>) -> Sample<NQ> {
        let q: SVector<f64, NQ> = x.column(0).into_owned();
        let v: SVector<f64, NQ> = x.column(1).into_owned();
        Sample {
            t,
            q,
            v,
            position_residual: quaternion_residual(&q),
            velocity_residual: 0.0,
            energy: self.energy(&q, &v.as_slice()[..NQ - 1]),
        }
    }

    fn residuals(&self, _: f64, x: &State<NQ>) -> (Vec<f64>, Vec<f64>) {
        let q: SVector<f64, NQ> = x.column(0).into_owned();
        (vec![quaternion_residual(&q)], Vec::new())
    }

    fn project(&self, _: f64, x: &State<NQ>, _: &Projection) -> Result<State<NQ>, Error> {
        let mut projected = *x;
        let norm = x.fixed_view::<4, 1>(3, 0).norm();
        if norm == 0.0 || !norm.is_finite() {
            return Err(simulation_error(FreeFlyerError::ZeroQuaternion));
        }
        projected.fixed_view_mut::<4, 1>(3, 0).unscale_mut(norm);
        Ok(projected)
    }
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
/// q and v ([`FreeFlyerSystem::STATE_COLUMNS`]) and the padding entry `padding`.
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
    let dynamics = FreeFlyer { system, efforts };
    let start = (State::from_columns(&[*q0, v]), t0, tf);
    run(&dynamics, start, &options, &[], &mut |_| {
        ControlFlow::Continue(())
    })
}
