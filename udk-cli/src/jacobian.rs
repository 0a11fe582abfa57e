//! `udk jacobian`: the exact Jacobian of the motion of a model at one state, as JSON.
//!
//! The residual Jacobians of the derivation (`udk_symbolic::LagrangianJacobians`,
//! `HamiltonianJacobians`) are compiled into one program (by the JIT, or the tape with
//! `--interpret`), evaluated at the acceleration (or ṗ) and the multipliers the kernel finds,
//! and turned into the derivative by `udk_runtime::jacobian::acceleration_jacobian_dyn`
//! (`udk::Model::acceleration_jacobian`) or `state_jacobian_dyn`, as the generated
//! `acceleration_jacobian` does with compiled code.

use crate::args::JacobianArgs;
use crate::eval::{checked, command_line_state, motion, rows, vector};
use crate::failure::Failure;
use crate::model::{Backend, Block, Evaluator, Model, Scatter};
use nalgebra::{DMatrix, DVector};
use serde::Serialize;
use udk_runtime::jacobian::{state_jacobian_dyn, HamiltonianResidualJacobiansDyn};
use udk_runtime::Options;
use udk_symbolic::emit::TapeInputs;
use udk_symbolic::{Equations, ExprMatrix};

/// q̈ and its Jacobians at a state of a Lagrangian model (rows as arrays).
#[derive(Debug, Clone, Serialize)]
pub struct AccelerationJacobianReport {
    /// q̈, n.
    pub acceleration: Vec<f64>,
    /// ∂q̈/∂q, n × n.
    pub wrt_q: Vec<Vec<f64>>,
    /// ∂q̈/∂q̇, n × n.
    pub wrt_qd: Vec<Vec<f64>>,
    /// ∂q̈/∂u, n × k (rows of k entries; empty rows without inputs).
    pub wrt_u: Vec<Vec<f64>>,
}

/// (q̇, ṗ) and their Jacobians at a state of a Hamiltonian model (rows as arrays; the first n
/// rows are q̇, the last n ṗ).
#[derive(Debug, Clone, Serialize)]
pub struct StateJacobianReport {
    /// (q̇, ṗ), 2n.
    pub state_derivative: Vec<f64>,
    /// ∂(q̇, ṗ)/∂q, 2n × n.
    pub wrt_q: Vec<Vec<f64>>,
    /// ∂(q̇, ṗ)/∂p, 2n × n.
    pub wrt_p: Vec<Vec<f64>>,
}

/// Runs `udk jacobian`: the pretty-printed JSON report, with a final newline.
///
/// # Errors
/// [`Failure::BadInput`] for a bad model, vector length or `--set`, or no state;
/// [`Failure::Motion`] when the motion has no trustworthy value or no derivative at the state
/// (`RankChange`), naming it.
pub fn run(args: &JacobianArgs, backend: Backend) -> Result<String, Failure> {
    let model = Model::load(&args.model)?;
    let params = model.parameter_values(&args.set)?;
    let state = command_line_state(&model, &args.state)?;
    let (v, u) = checked(&model, &state, "")?;
    let (q, t) = (&state.q[..], state.t);
    let pool = &model.derivation.pool;
    let options = Options::default();
    let mut evaluator = model.evaluator(params.clone(), u.clone(), backend)?;
    let json = match (&model.derivation.equations, &mut evaluator) {
        (Equations::Lagrangian(e), Evaluator::Lagrangian(l)) => {
            unavailable(&model, e.jacobians.as_ref())?;
            let (q, v) = (DVector::from_column_slice(q), DVector::from_column_slice(v));
            let jacobian = (l.model().acceleration_jacobian_with(&q, &v, t, &options))
                .map_err(|e| model_failure(&model, &state, e))?;
            serde_json::to_string_pretty(&AccelerationJacobianReport {
                acceleration: vector(&jacobian.acceleration),
                wrt_q: rows(&jacobian.wrt_q),
                wrt_qd: rows(&jacobian.wrt_qd),
                wrt_u: rows(&jacobian.wrt_u),
            })
        }
        (Equations::Hamiltonian(e), Evaluator::Hamiltonian(h)) => {
            let blocks = unavailable(&model, e.jacobians.as_ref())?.blocks();
            let name = format!("residual Jacobians of `{}`", model.derivation.name);
            let mut scatter =
                Scatter::new(pool, &blocks.map(|(_, m)| Block::matrix(m)), &name, backend)?;
            let terms = h.terms(q, v, t);
            let jacobian = state_jacobian_dyn(
                &terms.h_p,
                &terms.h_q,
                &terms.h_pp,
                &terms.a_p,
                &terms.b_p,
                &options,
                |p_dot, mu| {
                    let [mut h_p_q, mut r_q, mut r_p, mut g_q, mut g_p] =
                        blocks.map(|(_, m)| zeros(m));
                    let inputs = TapeInputs {
                        q,
                        p: v,
                        t,
                        params: &params,
                        qdd: p_dot.as_slice(),
                        lambda: mu.as_slice(),
                        ..TapeInputs::default()
                    };
                    scatter.eval(
                        &inputs,
                        [&mut h_p_q, &mut r_q, &mut r_p, &mut g_q, &mut g_p]
                            .map(|m| m.as_mut_slice()),
                    );
                    HamiltonianResidualJacobiansDyn {
                        h_p_q,
                        r_q,
                        r_p,
                        g_q,
                        g_p,
                    }
                },
            )
            .map_err(|e| motion(&model, &state, "", e))?;
            let stacked = |top: &DMatrix<f64>, bottom: &DMatrix<f64>| {
                let mut rows = rows(top);
                rows.extend(crate::eval::rows(bottom));
                rows
            };
            let derivative: DVector<f64> = DVector::from_iterator(
                2 * q.len(),
                jacobian
                    .velocity
                    .iter()
                    .chain(jacobian.momentum_rate.iter())
                    .copied(),
            );
            serde_json::to_string_pretty(&StateJacobianReport {
                state_derivative: vector(&derivative),
                wrt_q: stacked(&jacobian.velocity_wrt_q, &jacobian.momentum_rate_wrt_q),
                wrt_p: stacked(&jacobian.velocity_wrt_p, &jacobian.momentum_rate_wrt_p),
            })
        }
        _ => unreachable!("the evaluator is of the model's kind"),
    };
    let mut json = json.map_err(|e| Failure::Output(format!("cannot write JSON: {e}")))?;
    json.push('\n');
    Ok(json)
}

/// The model's Jacobians, or the failure of a model beyond
/// `udk_symbolic::limits::MAX_JACOBIAN_COST` (exit code 3, as the generated code's
/// `JacobianUnavailable`).
pub(crate) fn unavailable<'j, J>(
    model: &Model,
    jacobians: Option<&'j J>,
) -> Result<&'j J, Failure> {
    jacobians.ok_or_else(|| {
        Failure::Motion(format!(
            "{}: the exact Jacobians of this model are not derived: differentiating it once \
             more would take more than udk_symbolic::limits::MAX_JACOBIAN_COST operands",
            model.file.name()
        ))
    })
}

/// An error of the compiled model at `state` (lengths and parameters checked before): the
/// kernel's as a [`Failure::Motion`] naming the state; Cranelift's as a [`Failure::BadInput`].
pub(crate) fn model_failure(
    model: &Model,
    state: &crate::eval::State,
    e: udk::ModelError,
) -> Failure {
    match e {
        udk::ModelError::Runtime(e) => motion(model, state, "", e),
        e => Failure::bad_input(format!("{}: {e}", model.file.name())),
    }
}

/// A zero matrix of the shape of `m`.
fn zeros(m: &ExprMatrix) -> DMatrix<f64> {
    DMatrix::zeros(m.rows, m.cols)
}
