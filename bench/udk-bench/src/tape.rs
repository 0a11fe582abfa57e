//! The run-time tape (what `udk eval` runs): M, Q, A, b, C from a compiled tape, then the
//! fundamental equation on dynamically sized matrices.

use crate::{timing, Accelerator};
use nalgebra::{DMatrix, DVector};
use std::cell::RefCell;
use std::error::Error;
use udk_symbolic::emit::{LagrangianTape, Workspace};
use udk_symbolic::ModelSpec;

/// A chain model evaluated by the run-time tape with `udk_runtime::acceleration_dyn`.
pub struct TapeModel {
    tape: LagrangianTape,
    parameters: Vec<f64>,
    workspace: RefCell<Workspace>,
}

impl TapeModel {
    /// Derives `spec` and compiles its tape; `parameter` gives the value of each parameter
    /// by name.
    ///
    /// # Errors
    /// The derivation's errors, or a Hamiltonian model.
    pub fn new(spec: &ModelSpec, parameter: impl Fn(&str) -> f64) -> Result<Self, Box<dyn Error>> {
        let derivation = udk_symbolic::derive(spec).map_err(|e| format!("{e:?}"))?;
        let tape = LagrangianTape::new(&derivation)?;
        let parameters = derivation.parameters.iter().map(|p| parameter(p)).collect();
        let workspace = RefCell::new(tape.workspace());
        Ok(TapeModel {
            tape,
            parameters,
            workspace,
        })
    }
}

impl Accelerator for TapeModel {
    fn acceleration(&self, q: &[f64], qd: &[f64]) -> Result<Vec<f64>, Box<dyn Error>> {
        let mut workspace = self.workspace.borrow_mut();
        let v = self
            .tape
            .eval(q, qd, 0.0, &self.parameters, &mut workspace)?;
        let (n, m) = (self.tape.n(), self.tape.m());
        let qdd = udk_runtime::acceleration_dyn(
            udk_runtime::LagrangianView::new(
                &DMatrix::from_row_slice(n, n, v.mass_matrix),
                &DVector::from_column_slice(v.generalized_force),
                &DMatrix::from_row_slice(m, n, v.constraint_matrix),
                &DVector::from_column_slice(v.constraint_rhs),
            )
            .with_nonideal_force(&DVector::from_column_slice(v.nonideal_force)),
            &udk_runtime::Options::default(),
        )?;
        Ok(qdd.as_slice().to_vec())
    }

    fn ns_per_call(&self, states: &[(Vec<f64>, Vec<f64>)]) -> f64 {
        timing::ns_per_call(states, |(q, qd)| match self.acceleration(q, qd) {
            Ok(qdd) => qdd[0],
            Err(_) => f64::NAN,
        })
    }
}
