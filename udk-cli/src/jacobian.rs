//! `udk jacobian`: the exact Jacobian of the motion of a model at one state, as JSON.
//!
//! The residual Jacobians of the derivation (`udk_symbolic::LagrangianJacobians`,
//! `HamiltonianJacobians`) are compiled into one tape, evaluated at the acceleration (or ṗ) and
//! the multipliers the kernel finds, and turned into the derivative by
//! `udk_runtime::jacobian::acceleration_jacobian_dyn` (`state_jacobian_dyn`), as the
//! generated `acceleration_jacobian` does with compiled code.

use crate::args::JacobianArgs;
use crate::eval::{checked, command_line_state, motion, rows, vector};
use crate::failure::Failure;
use crate::model::{Block, Evaluator, LagrangianEvaluator, Model, Scatter};
use nalgebra::{DMatrix, DVector};
use serde::Serialize;
use udk_runtime::jacobian::{
    acceleration_jacobian_dyn, state_jacobian_dyn, AccelerationJacobianDyn,
    HamiltonianResidualJacobiansDyn, ResidualJacobiansDyn,
};
use udk_runtime::Options;
use udk_symbolic::derivation::LagrangianJacobians;
use udk_symbolic::emit::TapeInputs;
use udk_symbolic::expr::Pool;
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
pub fn run(args: &JacobianArgs) -> Result<String, Failure> {
    let model = Model::load(&args.model)?;
    let params = model.parameter_values(&args.set)?;
    let state = command_line_state(&model, &args.state)?;
    let (v, u) = checked(&model, &state, "")?;
    let (q, t) = (&state.q[..], state.t);
    let pool = &model.derivation.pool;
    let options = Options::default();
    let mut evaluator = model.evaluator(params.clone(), u.clone());
    let json = match (&model.derivation.equations, &mut evaluator) {
        (Equations::Lagrangian(e), Evaluator::Lagrangian(l)) => {
            let jacobians = unavailable(&model, e.jacobians.as_ref())?;
            let at = Point { q, v, u: &u, t };
            let jacobian = acceleration_jacobian(pool, jacobians, l, &params, &at, &options)
                .map_err(|e| motion(&model, &state, "", e))?;
            serde_json::to_string_pretty(&AccelerationJacobianReport {
                acceleration: vector(&jacobian.acceleration),
                wrt_q: rows(&jacobian.wrt_q),
                wrt_qd: rows(&jacobian.wrt_qd),
                wrt_u: rows(&jacobian.wrt_u),
            })
        }
        (Equations::Hamiltonian(e), Evaluator::Hamiltonian(h)) => {
            let blocks = unavailable(&model, e.jacobians.as_ref())?.blocks();
            let mut scatter = Scatter::new(pool, &blocks.map(|(_, m)| Block::matrix(m)));
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

/// A state (q, q̇, u, t) of a Lagrangian model, every length checked.
pub(crate) struct Point<'a> {
    pub(crate) q: &'a [f64],
    pub(crate) v: &'a [f64],
    pub(crate) u: &'a [f64],
    pub(crate) t: f64,
}

/// q̈ and ∂q̈/∂(q, q̇, u) of a Lagrangian model at `at`: the residual Jacobians `jacobians`
/// compiled into one tape over `pool`, evaluated at the acceleration and multipliers the
/// kernel finds, through `acceleration_jacobian_dyn`.
///
/// # Errors
/// As `acceleration_jacobian_dyn`: the acceleration's errors, `RankChange`.
pub(crate) fn acceleration_jacobian(
    pool: &Pool,
    jacobians: &LagrangianJacobians,
    evaluator: &mut LagrangianEvaluator,
    params: &[f64],
    at: &Point,
    options: &Options,
) -> Result<AccelerationJacobianDyn, udk_runtime::Error> {
    let blocks = jacobians.residual_blocks();
    let mut scatter = Scatter::new(pool, &blocks.map(|(_, m)| Block::matrix(m)));
    let terms = evaluator.terms(at.q, at.v, at.t);
    acceleration_jacobian_dyn(terms.view(), options, |qdd, lambda| {
        let [mut r_q, mut r_qd, mut r_u, mut g_q, mut g_qd, mut g_u] =
            blocks.map(|(_, m)| zeros(m));
        let inputs = TapeInputs {
            q: at.q,
            qd: at.v,
            u: at.u,
            t: at.t,
            params,
            qdd: qdd.as_slice(),
            lambda: lambda.as_slice(),
            ..TapeInputs::default()
        };
        scatter.eval(
            &inputs,
            [&mut r_q, &mut r_qd, &mut r_u, &mut g_q, &mut g_qd, &mut g_u]
                .map(|m| m.as_mut_slice()),
        );
        ResidualJacobiansDyn {
            r_q,
            r_qd,
            r_u,
            g_q,
            g_qd,
            g_u,
        }
    })
}

/// A zero matrix of the shape of `m`.
fn zeros(m: &ExprMatrix) -> DMatrix<f64> {
    DMatrix::zeros(m.rows, m.cols)
}
