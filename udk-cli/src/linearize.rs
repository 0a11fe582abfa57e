//! `udk linearize`: the motion of a Lagrangian model linearized about an operating point, on
//! its constraint manifold, as JSON: (A_ss, B_ss) in the independent coordinates and
//! velocities, the eigenvalues of A_ss, and the partition used.
//!
//! The model is compiled at run time (by the JIT, or the tape with `--interpret`) and
//! linearized by `udk::Model::linearize`, whose method is `udk_runtime::linearize` (Peterson,
//! Gede & Hubbard 2015).

use crate::args::LinearizeArgs;
use crate::eval::{checked, command_line_state, rows};
use crate::failure::Failure;
use crate::jacobian::{model_failure, unavailable};
use crate::model::{Backend, Evaluator, Model};
use nalgebra::DVector;
use serde::Serialize;
use udk_runtime::linearize::{LinearizationOptions, Selection};
use udk_runtime::Error;
use udk_symbolic::Equations;

/// The JSON report of `udk linearize`.
#[derive(Debug, Clone, Serialize)]
pub struct LinearizeReport {
    /// The independent coordinates q_I (0-based indices), the first entries of the state.
    pub independent: Vec<usize>,
    /// The independent velocities q̇_J, the last entries of the state.
    pub independent_velocities: Vec<usize>,
    /// The coordinates solved from the holonomic constraints.
    pub dependent: Vec<usize>,
    /// The velocities solved from the velocity-level constraints.
    pub dependent_velocities: Vec<usize>,
    /// The coordinates held at their operating values.
    pub held: Vec<usize>,
    /// The velocities held at their operating values.
    pub held_velocities: Vec<usize>,
    /// A_ss, rows as arrays.
    pub a: Vec<Vec<f64>>,
    /// B_ss, rows as arrays (empty rows without inputs).
    pub b: Vec<Vec<f64>>,
    /// The eigenvalues of A_ss as [re, im], sorted by real part, then imaginary part.
    pub eigenvalues: Vec<[f64; 2]>,
}

/// Runs `udk linearize`: the pretty-printed JSON report, with a final newline.
///
/// # Errors
/// [`Failure::BadInput`] for a bad model, vector length, `--set` or index, a Hamiltonian
/// model, no state, an operating point off the constraints (naming the row) or a choice of
/// independent entries that leaves the constraints unsolvable; [`Failure::Motion`] when the
/// motion or its derivative does not exist at the point (`RankChange`).
pub fn run(args: &LinearizeArgs, backend: Backend) -> Result<String, Failure> {
    let model = Model::load(&args.model)?;
    let Equations::Lagrangian(equations) = &model.derivation.equations else {
        return Err(Failure::bad_input(format!(
            "{}: udk linearize takes Lagrangian models",
            model.file.name()
        )));
    };
    let params = model.parameter_values(&args.set)?;
    let state = command_line_state(&model, &args.state)?;
    let (v, u) = checked(&model, &state, "")?;
    let Evaluator::Lagrangian(evaluator) = model.evaluator(params, u, backend)? else {
        unreachable!("the evaluator is of the model's kind")
    };
    unavailable(&model, equations.jacobians.as_ref())?;
    let independent = (!args.independent.is_empty()).then(|| args.independent.clone());
    let velocities = match &args.independent_velocities {
        list if !list.is_empty() => Some(list.clone()),
        _ => independent.clone(),
    };
    let selection = Selection {
        coordinates: independent,
        velocities,
        held_coordinates: args.held.clone(),
        held_velocities: args.held_velocities.clone(),
    };
    let (q, v) = (
        DVector::from_column_slice(&state.q),
        DVector::from_column_slice(v),
    );
    let options = LinearizationOptions::default();
    let linear = (evaluator
        .model()
        .linearize(&q, &v, state.t, &selection, &options))
    .map_err(|e| match e {
        udk::ModelError::Runtime(
            e @ (Error::ConstraintViolated { .. } | Error::InvalidSelection { .. }),
        ) => Failure::bad_input(format!("{}: {e}", model.file.name())),
        e => model_failure(&model, &state, e),
    })?;
    let report = LinearizeReport {
        independent: linear.coordinates.independent,
        independent_velocities: linear.velocities.independent,
        dependent: linear.coordinates.dependent,
        dependent_velocities: linear.velocities.dependent,
        held: linear.coordinates.held,
        held_velocities: linear.velocities.held,
        a: rows(&linear.a),
        b: rows(&linear.b),
        eigenvalues: linear.eigenvalues.iter().map(|e| [e.re, e.im]).collect(),
    };
    let mut json = serde_json::to_string_pretty(&report)
        .map_err(|e| Failure::Output(format!("cannot write JSON: {e}")))?;
    json.push('\n');
    Ok(json)
}
