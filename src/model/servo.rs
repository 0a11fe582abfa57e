//! The servo controller of a [`Model`] with servo constraints: its terms compiled by the JIT
//! on first use, and `udk_runtime::servo::control_dyn` on them, as the generated
//! `servo_terms` and `servo_control` (review paper, Zhao, Chen, Zhao & Dong 2018, section 8.3;
//! Udwadia 2003).

use super::{lazy, Model, ModelError};
use nalgebra::{DVector, Dyn};
use udk_jit::{Block, Scatter};
use udk_runtime::servo::{
    control_by_inverse_dynamics_dyn, control_dyn, GenericServoControl, GenericServoTask,
    GenericServoTerms, ServoLaw,
};
use udk_runtime::Options;
use udk_symbolic::emit::TapeInputs;
use udk_symbolic::Equations;

impl Model {
    /// Number of servo constraint rows s (0 for a model without `servo`).
    pub fn num_servo(&self) -> usize {
        match &self.compiled.derivation.equations {
            Equations::Lagrangian(e) => e.servo.as_ref().map_or(0, |s| s.constraint_rhs.len()),
            Equations::Hamiltonian(_) => 0,
        }
    }

    /// Number of holonomic servo rows, the first of the s servo rows.
    pub fn num_servo_holonomic(&self) -> usize {
        match &self.compiled.derivation.equations {
            Equations::Lagrangian(e) => e.servo.as_ref().map_or(0, |s| s.holonomic.len()),
            Equations::Hamiltonian(_) => 0,
        }
    }

    /// The program of the servo terms (compiled on the first call).
    ///
    /// # Errors
    /// [`ModelError::NoServo`] for a model without servo constraints.
    fn servo_program(&self) -> Result<&Scatter, ModelError> {
        let c = &self.compiled;
        let scatter = lazy(&c.servo, || {
            let Equations::Lagrangian(e) = &c.derivation.equations else {
                return Ok(None);
            };
            let Some(rows) = e.servo_rows() else {
                return Ok(None);
            };
            let blocks = Block::servo_terms(e, &rows).expect("servo rows imply servo terms");
            let name = format!("servo terms of `{}`", c.name);
            Scatter::new(&c.derivation.pool, &blocks, &name, c.backend).map(Some)
        })?;
        scatter.as_ref().ok_or_else(|| ModelError::NoServo {
            model: c.name.clone(),
        })
    }

    /// The terms of the servo controller at (q, q̇, t), as the generated `servo_terms`: M
    /// (n × n), Q and C at u = 0 (n each; C `None` for ideal constraints), the input matrix
    /// B = ∂(Q + C)/∂u (n × k), the m physical rows then the s servo rows of
    /// [A; A_s] q̈ = [b; b_s] (r × n and r, r = m + s), the holonomic residuals (f, e) and the
    /// velocity-level residuals of all r rows (β in the servo rows, review paper eq 72).
    ///
    /// # Errors
    /// [`ModelError::NoServo`] for a model without servo constraints (a Hamiltonian one
    /// included); [`ModelError::Length`], [`ModelError::MissingParameter`].
    pub fn servo_terms(
        &self,
        q: &DVector<f64>,
        qd: &DVector<f64>,
        t: f64,
    ) -> Result<GenericServoTerms<Dyn, Dyn, Dyn>, ModelError> {
        let scatter = self.servo_program()?;
        let (n, k) = (self.n(), self.inputs().len());
        let mut terms = GenericServoTerms::zeros(n, self.m() + self.num_servo(), k, true);
        self.at(q.as_slice(), qd.as_slice(), t, Some(false), |inputs| {
            let mut buffers = scatter.buffers();
            scatter
                .eval(inputs, &mut buffers, terms.blocks_mut())
                .expect("inputs checked against the model");
        })?;
        if !self.compiled.nonideal {
            terms.nonideal_force = None;
        }
        Ok(terms)
    }

    /// The programs of the path by inverse dynamics, the task terms and M v − Q − C
    /// (compiled on the first call); `None` for a model whose servo rows do not alone
    /// determine the motion with B = I (`LagrangianEquations::servo_by_inverse_dynamics`).
    /// Its `Result` is that of the model's lazily compiled programs, which no longer fail.
    fn servo_inverse_programs(&self) -> Result<Option<&[Scatter; 2]>, ModelError> {
        let c = &self.compiled;
        let programs = lazy(&c.servo_inverse, || {
            let pool = &c.derivation.pool;
            let Equations::Lagrangian(e) = &c.derivation.equations else {
                return Ok(None);
            };
            let (Some(servo), Some(rows)) = (&e.servo, e.servo_rows()) else {
                return Ok(None);
            };
            if !e.servo_by_inverse_dynamics(pool) {
                return Ok(None);
            }
            let task = [
                Block::matrix(&servo.constraint_matrix),
                Block::vector(&servo.constraint_rhs),
                Block::vector(&servo.position_residual),
                Block::vector(&rows.velocity_residual),
            ];
            let inverse = [Block::vector(&servo.inverse_dynamics)];
            let name = |what: &str| format!("servo {what} of `{}`", c.name);
            Ok(Some([
                Scatter::new(pool, &task, &name("task"), c.backend)?,
                Scatter::new(pool, &inverse, &name("inverse dynamics"), c.backend)?,
            ]))
        })?;
        Ok(programs.as_ref())
    }

    /// The inputs u (k entries) that make the motion at (q, q̇, t) satisfy the servo and the
    /// physical constraints under `law` (a `udk_runtime::servo::Convergence`, or a
    /// `ServoLaw` that also chooses the realization), with the servo force Qᶜ_s, the part of
    /// it the inputs cannot supply and the task residual, with the default kernel options, as
    /// the generated `servo_control`: for a model whose servo rows alone determine the motion
    /// and whose inputs are the generalized forces (no physical rows, s = n, B = I), by
    /// `udk_runtime::servo::control_by_inverse_dynamics_dyn` (q̈* = A_s⁻¹b*, then u = M q̈* −
    /// Q by the inverse dynamics, M never formed); else, or where A_s is singular or nearly
    /// so, `udk_runtime::servo::control_dyn` on [`Model::servo_terms`]. The inputs held by
    /// the model ([`Model::set_inputs`]) play no part.
    ///
    /// # Errors
    /// As [`Model::servo_terms`]; the controller's [`udk_runtime::Error`] (a singular M,
    /// inconsistent constraints, a bad gain).
    pub fn control(
        &self,
        q: &DVector<f64>,
        qd: &DVector<f64>,
        t: f64,
        law: impl Into<ServoLaw>,
    ) -> Result<GenericServoControl<Dyn, Dyn, Dyn>, ModelError> {
        let (law, options) = (law.into(), Options::default());
        if let Some([task_program, inverse_program]) = self.servo_inverse_programs()? {
            let (n, k) = (self.n(), self.inputs().len());
            let control = self.at(q.as_slice(), qd.as_slice(), t, Some(false), |inputs| {
                let mut task = GenericServoTask::zeros(n, n);
                let mut buffers = task_program.buffers();
                (task_program.eval(inputs, &mut buffers, task.blocks_mut()))
                    .expect("inputs checked against the model");
                let inverse_dynamics = |qdd: &DVector<f64>| {
                    let inputs = TapeInputs {
                        qdd: qdd.as_slice(),
                        ..*inputs
                    };
                    let mut force = DVector::zeros(n);
                    let mut buffers = inverse_program.buffers();
                    (inverse_program.eval(&inputs, &mut buffers, [force.as_mut_slice()]))
                        .expect("inputs checked against the model");
                    force
                };
                control_by_inverse_dynamics_dyn(&task, inverse_dynamics, k, law, &options)
            })??;
            if let Some(control) = control {
                return Ok(control);
            }
        }
        let terms = self.servo_terms(q, qd, t)?;
        Ok(control_dyn(&terms, self.m(), law, &options)?)
    }
}
