//! `udk linearize`: the motion of a Lagrangian model linearized about an operating point, on
//! its constraint manifold, as JSON: (A_ss, B_ss) in the independent coordinates and
//! velocities, the eigenvalues of A_ss, and the partition used.
//!
//! The derivatives come from the model's tapes, as `udk jacobian` computes them
//! ([`crate::jacobian`]); the method is `udk_runtime::linearize` (Peterson, Gede & Hubbard
//! 2015).

use crate::args::LinearizeArgs;
use crate::eval::{checked, command_line_state, motion, rows};
use crate::failure::Failure;
use crate::jacobian::{acceleration_jacobian, unavailable, Point};
use crate::model::{Block, Evaluator, Model, Scatter};
use nalgebra::{DMatrix, DVector};
use serde::Serialize;
use udk_runtime::linearize::{
    check_operating_point, linearize_derivatives, Derivatives, LinearizationOptions, Selection,
};
use udk_runtime::Error;
use udk_symbolic::emit::TapeInputs;
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
pub fn run(args: &LinearizeArgs) -> Result<String, Failure> {
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
    let Evaluator::Lagrangian(mut evaluator) = model.evaluator(params.clone(), u.clone()) else {
        unreachable!("the evaluator is of the model's kind")
    };
    let at = Point {
        q: &state.q,
        v,
        u: &u,
        t: state.t,
    };
    let bad = |e: Error| match e {
        Error::ConstraintViolated { .. } | Error::InvalidSelection { .. } => {
            Failure::bad_input(format!("{}: {e}", model.file.name()))
        }
        e => motion(&model, &state, "", e),
    };
    let options = LinearizationOptions::default();
    let holonomic = evaluator.num_holonomic();
    let (_, f, g) = evaluator.residuals(at.q, at.v, at.t);
    let (f, g) = (DVector::from_vec(f), DVector::from_vec(g));
    check_operating_point(&f, &g, holonomic, options.constraint_tolerance).map_err(bad)?;

    let constraint_matrix = evaluator.terms(at.q, at.v, at.t).constraint_matrix.clone();
    let jacobians = unavailable(&model, equations.jacobians.as_ref())?;
    let velocity_q = &jacobians.velocity_constraints_q;
    let mut velocity_residual_jacobian = DMatrix::zeros(velocity_q.rows, velocity_q.cols);
    let pool = &model.derivation.pool;
    let mut scatter = Scatter::new(pool, &[Block::matrix(velocity_q)]);
    let inputs = TapeInputs {
        q: at.q,
        qd: at.v,
        u: at.u,
        t: at.t,
        params: &params,
        ..TapeInputs::default()
    };
    scatter.eval(&inputs, [velocity_residual_jacobian.as_mut_slice()]);
    let jacobian = acceleration_jacobian(
        pool,
        jacobians,
        &mut evaluator,
        &params,
        &at,
        &options.kernel,
    )
    .map_err(bad)?;
    let derivatives = Derivatives {
        holonomic,
        holonomic_residual: f,
        velocity_residual: g,
        constraint_matrix,
        velocity_residual_jacobian,
        wrt_q: jacobian.wrt_q,
        wrt_qd: jacobian.wrt_qd,
        wrt_u: jacobian.wrt_u,
    };
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
    let linear = linearize_derivatives(&derivatives, &selection, &options).map_err(bad)?;
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
