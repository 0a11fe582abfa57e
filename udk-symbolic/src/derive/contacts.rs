//! The unilateral contacts of a Lagrangian model ([`ModelSpec::contacts`]): gap and slip
//! coordinate differentiated as holonomic rows are (review paper, eqs 18–22), with their
//! ∂/∂t for a moving surface, and the
//! coefficients as expressions of the parameters. The one derivation behind the macro's
//! `contacts(..)` and a model file's `[[contacts]]`.

use crate::derivation::ContactEquations;
use crate::error::Errors;
use crate::expr::{ExprId, Pool, Symbol};
use crate::parse::{parse_expr, Context, Scope};
use crate::spec::{Coefficient, ContactSpec, Expression, ModelSpec};

/// The contacts of `spec`, in order, parsed in `scope` into `pool`.
///
/// Errors, each at its culprit's span: the errors of the expressions (an unknown name, a
/// velocity or input in a gap or slip coordinate, ...); a gap that depends on no coordinate; a
/// coefficient that depends on more than the parameters; two contacts of the same name (at
/// the second's gap).
pub(super) fn derive(
    spec: &ModelSpec,
    scope: &Scope,
    pool: &mut Pool,
    errors: &mut Errors,
) -> Vec<ContactEquations> {
    let n = spec.coordinates.len();
    let mut contacts = Vec::with_capacity(spec.contacts.len());
    for (k, contact) in spec.contacts.iter().enumerate() {
        if spec.contacts[..k].iter().any(|c| c.name == contact.name) {
            errors.push(
                contact.gap.span(),
                format!("a second contact named `{}`", contact.name),
            );
        }
        contacts.push(derive_one(contact, n, scope, pool, errors));
    }
    contacts
}

/// One contact.
fn derive_one(
    contact: &ContactSpec,
    n: usize,
    scope: &Scope,
    pool: &mut Pool,
    errors: &mut Errors,
) -> ContactEquations {
    let reported = errors.0.len();
    let gap = parse_expr(pool, scope, Context::CONTACT, &contact.gap.0, errors);
    let coordinate = |s: Symbol| matches!(s, Symbol::Coordinate(_));
    let gap = of_position(pool, gap, &contact.gap, errors);
    if errors.0.len() == reported && !pool.depends_on(gap, &coordinate) {
        errors.push(
            contact.gap.span(),
            "the gap depends on no coordinate: it must be a function φ(q, t) of the coordinates",
        );
    }
    let slip = match &contact.slip {
        Some(s) => {
            let slip = parse_expr(pool, scope, Context::CONTACT, &s.0, errors);
            of_position(pool, slip, s, errors)
        }
        None => pool.zero(),
    };
    let [restitution, friction, rest_speed] =
        [&contact.restitution, &contact.friction, &contact.rest_speed]
            .map(|c| coefficient(c, scope, pool, errors));
    let (normal, normal_rate, normal_rhs) = row(pool, gap, n);
    let (tangent, tangent_rate, tangent_rhs) = row(pool, slip, n);
    ContactEquations {
        name: contact.name.clone(),
        gap,
        normal,
        normal_rate,
        normal_rhs,
        slip,
        tangent,
        tangent_rate,
        tangent_rhs,
        restitution,
        friction,
        rest_speed,
    }
}

/// `f`, or 0 with an error at `expression` when it depends on more than (q, t) and the
/// parameters (through a definition of the velocities or inputs).
fn of_position(pool: &mut Pool, f: ExprId, expression: &Expression, errors: &mut Errors) -> ExprId {
    let state = |s: Symbol| {
        !matches!(
            s,
            Symbol::Coordinate(_) | Symbol::Time | Symbol::Parameter(_)
        )
    };
    if !pool.depends_on(f, &state) {
        return f;
    }
    errors.push(
        expression.span(),
        "a gap or slip coordinate is a function of (q, t) only",
    );
    pool.zero()
}

/// ∂f/∂q (n entries), ∂f/∂t and b = −(f̈ at q̈ = 0) of a function f(q, t): ḟ = (∂f/∂q) q̇ +
/// ∂f/∂t, f̈ = (∂f/∂q) q̈ − b.
fn row(pool: &mut Pool, f: ExprId, n: usize) -> (Vec<ExprId>, ExprId, ExprId) {
    let gradient = (0..n)
        .map(|j| pool.diff(f, Symbol::Coordinate(j)))
        .collect();
    let moving = pool.diff(f, Symbol::Time);
    let rate = pool.time_derivative(f);
    let drift = pool.convective_derivative(rate);
    (gradient, moving, pool.neg(drift))
}

/// A coefficient as an expression; an error at its span when it depends on more than the
/// parameters.
fn coefficient(value: &Coefficient, scope: &Scope, pool: &mut Pool, errors: &mut Errors) -> ExprId {
    let expression = match value {
        Coefficient::Number(x) => return pool.number(*x),
        Coefficient::Expression(e) => e.as_ref(),
    };
    let id = parse_expr(pool, scope, Context::COEFFICIENT, &expression.0, errors);
    if pool.depends_on(id, &|s| !matches!(s, Symbol::Parameter(_))) {
        errors.push(
            expression.span(),
            "a coefficient is a constant: a number or an expression of the parameters",
        );
    }
    id
}
