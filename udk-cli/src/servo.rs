//! `udk simulate` of a model file with `servo` constraints: the inputs are not held at `--u`
//! but computed at every evaluation by the servo controller (`udk_runtime::servo`), from a tape
//! of the servo terms, and the model's tapes run at that u.

use crate::args::ServoOptions;
use crate::failure::Failure;
use crate::model::{Backend, Block, Model, Scatter};
use nalgebra::{DVector, Dyn};
use std::cell::RefCell;
use udk_runtime::servo::{control_dyn, Convergence, GenericServoTerms, ServoLaw};
use udk_runtime::simulate::{DynamicLagrangianSystem, DynamicLagrangianTerms};
use udk_runtime::Options;
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

/// The servo controller of a model file: the tape of its servo terms (M, Q and C at u = 0,
/// B, [A; A_s], [b; b_s] and the residuals), their buffers and the law.
#[derive(Debug)]
pub(crate) struct Controller {
    scatter: Scatter,
    terms: GenericServoTerms<Dyn, Dyn, Dyn>,
    params: Vec<f64>,
    physical: usize,
    law: ServoLaw,
}

impl Controller {
    /// The controller of `model` (which has servo constraints: `None` otherwise) with
    /// parameter values `params`, its servo terms compiled for `backend`.
    ///
    /// # Errors
    /// [`Failure::BadInput`] when Cranelift fails on the servo terms.
    pub(crate) fn new(
        model: &Model,
        params: &[f64],
        law: ServoLaw,
        backend: Backend,
    ) -> Result<Option<Self>, Failure> {
        let Equations::Lagrangian(e) = &model.derivation.equations else {
            return Ok(None);
        };
        if e.servo.is_none() {
            return Ok(None);
        }
        let rows = e.servo_rows().expect("a model with servo constraints");
        let blocks = Block::servo_terms(e, &rows).expect("a model with servo constraints");
        let (n, k, m) = (
            model.n(),
            model.derivation.inputs.len(),
            e.constraint_rhs.len(),
        );
        Ok(Some(Controller {
            scatter: Scatter::new(&model.derivation.pool, &blocks, "servo terms", backend)?,
            terms: GenericServoTerms::zeros(n, rows.constraint_rhs.len(), k, true),
            params: params.to_vec(),
            physical: m,
            law,
        }))
    }

    /// The servo input u at (q, q̇, t), k entries; NaN entries where the controller fails (a
    /// singular M, inconsistent constraints), so that the run stops there with the
    /// simulator's error.
    fn input(&mut self, q: &[f64], qd: &[f64], t: f64) -> DVector<f64> {
        let inputs = udk_symbolic::emit::TapeInputs {
            q,
            qd,
            t,
            params: &self.params,
            ..Default::default()
        };
        self.scatter.eval(&inputs, self.terms.blocks_mut());
        let k = self.terms.input_matrix.ncols();
        control_dyn(&self.terms, self.physical, self.law, &Options::default())
            .map_or_else(|_| DVector::from_element(k, f64::NAN), |c| c.input)
    }
}

/// A system whose inputs can be set for its next evaluations (the model's tapes).
pub(crate) trait HeldInputs {
    /// Holds u = `u` for the following evaluations.
    fn hold_inputs(&self, u: &[f64]);
}

/// `system` closed by its servo controller: each evaluation of the terms first computes u.
pub(crate) struct ServoLoop<'a, S> {
    /// The open-loop system.
    pub(crate) system: &'a S,
    /// The controller.
    pub(crate) controller: &'a RefCell<Controller>,
}

impl<S: DynamicLagrangianSystem + HeldInputs> DynamicLagrangianSystem for ServoLoop<'_, S> {
    fn coordinate_names(&self) -> Vec<String> {
        self.system.coordinate_names()
    }

    fn num_holonomic(&self) -> usize {
        self.system.num_holonomic()
    }

    fn terms(&self, q: &[f64], qd: &[f64], t: f64) -> DynamicLagrangianTerms {
        let u = self.controller.borrow_mut().input(q, qd, t);
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
