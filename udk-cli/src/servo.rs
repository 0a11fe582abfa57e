//! `udk simulate` of a model file with `servo` constraints: the inputs are not held at `--u`
//! but computed at every evaluation by the servo controller of the compiled model
//! ([`udk::Model::control`], the code `udk::Model` users and Python call), and the model's
//! programs run at that u.

use crate::args::ServoOptions;
use crate::failure::Failure;
use crate::model::Model;
use nalgebra::DVector;
use udk_runtime::servo::{Convergence, ServoLaw};
use udk_runtime::simulate::{DynamicLagrangianSystem, DynamicLagrangianTerms};
use udk_symbolic::Equations;

/// The servo law of the command line: `--servo-gain P` for eq 72 of the review paper,
/// `--servo-stiffness K_p` and `--servo-damping K_d` for the task-space law, none of them for
/// no convergence term; `None` for a model without servo constraints.
///
/// # Errors
/// [`Failure::BadInput`] when a servo flag is given to a model without servo constraints,
/// `--servo-gain` is given with a task-space gain, or a gain is negative, zero (P) or not
/// finite.
pub(crate) fn law(model: &Model, args: &ServoOptions) -> Result<Option<ServoLaw>, Failure> {
    let name = model.file.name();
    let task = args.servo_stiffness.is_some() || args.servo_damping.is_some();
    let has_servo = match &model.derivation.equations {
        Equations::Lagrangian(e) => e.servo.is_some(),
        Equations::Hamiltonian(_) => false,
    };
    if !has_servo {
        return match args.servo_gain.is_some() || task {
            true => Err(Failure::bad_input(format!(
                "{name}: --servo-gain, --servo-stiffness and --servo-damping need `servo` \
                 constraints in the model"
            ))),
            false => Ok(None),
        };
    }
    let convergence = match (args.servo_gain, task) {
        (Some(_), true) => {
            return Err(Failure::bad_input(
                "--servo-gain (eq 72) and --servo-stiffness/--servo-damping (task space) are \
                 two laws: give one",
            ))
        }
        (Some(p), false) if p > 0.0 && p.is_finite() => Convergence::Paper { p },
        (Some(p), false) => {
            return Err(Failure::bad_input(format!(
                "--servo-gain {p}: the gain P of eq 72 is a time constant, positive and finite"
            )))
        }
        (None, true) => {
            let (stiffness, damping) = (
                args.servo_stiffness.unwrap_or(0.0),
                args.servo_damping.unwrap_or(0.0),
            );
            if !(stiffness >= 0.0 && damping >= 0.0 && (stiffness + damping).is_finite()) {
                return Err(Failure::bad_input(
                    "--servo-stiffness and --servo-damping must be finite and ≥ 0",
                ));
            }
            Convergence::TaskSpace { stiffness, damping }
        }
        (None, false) => Convergence::None,
    };
    Ok(Some(convergence.into()))
}

/// A system whose inputs the servo controller sets: behind it, the model file's compiled
/// [`udk::Model`], whose [`udk::Model::control`] gives the inputs.
pub(crate) trait HeldInputs {
    /// The servo input u at (q, q̇, t) under `law`, k entries, by [`servo_input`].
    fn servo_input(&self, q: &[f64], qd: &[f64], t: f64, law: ServoLaw) -> DVector<f64>;

    /// Holds u = `u` for the following evaluations.
    fn hold_inputs(&self, u: &[f64]);
}

/// The servo input u of `model` at (q, q̇, t) under `law`, k entries:
/// [`udk::Model::control`] (the path by inverse dynamics where the servo rows alone fix the
/// motion with B = I, else `udk_runtime::servo::control_dyn` on the servo terms), with NaN
/// entries where the controller fails (a singular M, inconsistent constraints), so that the
/// run stops there with the simulator's error.
pub(crate) fn servo_input(
    model: &udk::Model,
    (q, qd, t): (&[f64], &[f64], f64),
    law: ServoLaw,
) -> DVector<f64> {
    let (q, qd) = (
        DVector::from_column_slice(q),
        DVector::from_column_slice(qd),
    );
    let k = model.inputs().len();
    (model.control(&q, &qd, t, law))
        .map_or_else(|_| DVector::from_element(k, f64::NAN), |c| c.input)
}

/// `system` closed by its servo controller: each evaluation of the terms first computes u.
pub(crate) struct ServoLoop<'a, S> {
    /// The open-loop system.
    pub(crate) system: &'a S,
    /// The controller's law.
    pub(crate) law: ServoLaw,
}

impl<S: DynamicLagrangianSystem + HeldInputs> DynamicLagrangianSystem for ServoLoop<'_, S> {
    fn coordinate_names(&self) -> Vec<String> {
        self.system.coordinate_names()
    }

    fn num_holonomic(&self) -> usize {
        self.system.num_holonomic()
    }

    fn terms(&self, q: &[f64], qd: &[f64], t: f64) -> DynamicLagrangianTerms {
        let u = self.system.servo_input(q, qd, t, self.law);
        self.system.hold_inputs(u.as_slice());
        self.system.terms(q, qd, t)
    }

    fn energy(&self, q: &[f64], qd: &[f64], t: f64) -> f64 {
        self.system.energy(q, qd, t)
    }

    fn holonomic_residual(&self, q: &[f64], t: f64) -> DVector<f64> {
        self.system.holonomic_residual(q, t)
    }

    fn velocity_residual(&self, q: &[f64], qd: &[f64], t: f64) -> DVector<f64> {
        self.system.velocity_residual(q, qd, t)
    }
}
