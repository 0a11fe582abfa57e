//! Servo (task) constraints: the constraints a controller realizes through the inputs
//! (review paper, section 8.3; Udwadia 2003), derived as the physical ones are, and the input
//! matrix B = ∂(Q + C)/∂u through which the inputs act.

use super::jacobian::Residuals;
use super::{jacobian, parse_constraints};
use crate::derivation::{ExprMatrix, ServoEquations};
use crate::error::Errors;
use crate::expr::{ExprId, Pool, Symbol};
use crate::parse::{Context, Scope};
use crate::spec::{Expression, ModelSpec};

/// The servo equations of `spec` (`None` without `servo`), for the generalized force
/// `force` and the non-ideal force `nonideal` (n entries each, functions of u), the model's
/// residual of the fundamental equation `residuals` (its M v − Q − C, by inverse dynamics for
/// a tree, gives [`ServoEquations::inverse_dynamics`]), next to the `physical` rows (their
/// holonomic constraints f and their number).
///
/// Each entry of `spec.servo` is `holonomic(e1, ...)` or `nonholonomic(φ1, ...)`; the
/// holonomic rows come first whatever the order written. Errors (pushed to `errors`): an
/// entry of another form, servo constraints in a model without inputs, and inputs that do
/// not enter Q + C affinely (B would depend on u).
pub(super) fn derive(
    spec: &ModelSpec,
    scope: &Scope,
    pool: &mut Pool,
    (force, nonideal): (&[ExprId], &[ExprId]),
    residuals: &Residuals<'_>,
    physical: (&[ExprId], usize),
    errors: &mut Errors,
) -> Option<ServoEquations> {
    let first = spec.servo.first()?;
    let (mut holonomic, mut nonholonomic) = (Vec::new(), Vec::new());
    for entry in &spec.servo {
        let call = match &entry.0 {
            syn::Expr::Call(call) => call,
            _ => {
                errors.push(entry.span(), SERVO_FORM);
                continue;
            }
        };
        let arguments: Vec<Expression> = call.args.iter().cloned().map(Expression).collect();
        match &*call.func {
            syn::Expr::Path(p) if p.path.is_ident("holonomic") => holonomic.extend(arguments),
            syn::Expr::Path(p) if p.path.is_ident("nonholonomic") => nonholonomic.extend(arguments),
            _ => errors.push(entry.span(), SERVO_FORM),
        }
    }
    if spec.inputs.is_empty() {
        errors.push(
            first.span(),
            "servo constraints are realized by the inputs: declare them with `inputs(..)` and \
             let them act through `forces`, `loads` or `nonideal`",
        );
    }
    let holonomic = parse_constraints(pool, scope, Context::HOLONOMIC, &holonomic, errors);
    let nonholonomic = parse_constraints(pool, scope, Context::NONHOLONOMIC, &nonholonomic, errors);
    if !errors.is_empty() {
        return None;
    }
    super::lagrangian::check_constraints(pool, &holonomic, &nonholonomic, errors);
    let holonomic: Vec<ExprId> = holonomic.into_iter().map(|(e, _)| e).collect();
    let n = force.len();
    let k = spec.inputs.len();
    let mut velocity_constraints: Vec<ExprId> = (holonomic.iter())
        .map(|&e| pool.convective_derivative(e))
        .collect();
    velocity_constraints.extend(nonholonomic.into_iter().map(|(phi, _)| phi));
    let constraint_matrix = jacobian(pool, &velocity_constraints, n, Symbol::Velocity);
    let constraint_rhs = (velocity_constraints.iter())
        .map(|&c| {
            let rest = pool.convective_derivative(c);
            pool.neg(rest)
        })
        .collect();
    let total: Vec<ExprId> = (force.iter().zip(nonideal))
        .map(|(&q, &c)| pool.add(&[q, c]))
        .collect();
    let input_matrix = jacobian(pool, &total, k, Symbol::Input);
    let input = |s: Symbol| matches!(s, Symbol::Input(_));
    if pool.any_depends_on(&input_matrix.entries, &input) {
        errors.push(
            first.span(),
            "the inputs enter Q + C nonlinearly: a servo controller needs Q + C = Q₀ + B u \
             with B = ∂(Q + C)/∂u free of u",
        );
        return None;
    }
    let zero = pool.zero();
    let mut position_residual = physical.0.to_vec();
    position_residual.resize(physical.1, zero);
    position_residual.extend(&holonomic);
    position_residual.resize(physical.1 + velocity_constraints.len(), zero);
    let generalized_force = at_rest(pool, force);
    let nonideal_force = at_rest(pool, nonideal);
    // M v − Q − C: the residual r of the fundamental equation without constraint rows (λ = 0).
    let no_rows = ExprMatrix {
        rows: 0,
        cols: n,
        entries: Vec::new(),
    };
    let free = Residuals {
        constraint_matrix: &no_rows,
        constraint_rhs: &[],
        ..*residuals
    };
    let (inverse_dynamics, _) = free.build(pool);
    let inverse_dynamics = at_rest(pool, &inverse_dynamics);
    Some(ServoEquations {
        constraint_matrix,
        constraint_rhs,
        holonomic,
        position_residual,
        velocity_constraints,
        input_matrix,
        generalized_force,
        nonideal_force,
        inverse_dynamics,
    })
}

/// `entries` at u = 0.
fn at_rest(pool: &mut Pool, entries: &[ExprId]) -> Vec<ExprId> {
    let mut zero = |pool: &mut Pool, s: Symbol| match s {
        Symbol::Input(_) => Some(pool.zero()),
        _ => None,
    };
    (entries.iter())
        .map(|&e| pool.substitute(e, &mut zero))
        .collect()
}

/// The message for a servo entry that is neither `holonomic(..)` nor `nonholonomic(..)`.
const SERVO_FORM: &str = "a servo constraint is `holonomic(e1, ...)` (e(q, t) = 0, differentiated \
                          twice) or `nonholonomic(φ1, ...)` (φ(q, q̇, t) = 0, differentiated once)";
