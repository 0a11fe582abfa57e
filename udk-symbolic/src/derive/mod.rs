//! The derivation: from a [`ModelSpec`] to the equations of motion in the DAG.
//!
//! Lagrangian models (review paper, eqs 18–29; Udwadia & Phohomsiri 2006):
//! M = ∂²L/∂q̇², Q = ∂L/∂q − (∂²L/∂q̇∂q) q̇ − ∂²L/∂q̇∂t + forces; holonomic f(q, t) = 0 are
//! differentiated twice and nonholonomic φ(q, q̇, t) = 0 once, and A = ∂(·)/∂q̈,
//! b = −(·)|q̈=0, so that A q̈ = b.
//!
//! Hamiltonian models (Udwadia 2016, eqs 9–12): H_p, H_q, H_pp, A_p = ∂φ/∂p,
//! b_p = −(∂φ/∂q) H_p − ∂φ/∂t, with each holonomic f(q, t) first turned into
//! φ = (∂f/∂q) H_p + ∂f/∂t through q̇ = H_p (eq 9).

mod bodies;
mod check;
mod contacts;
mod determinacy;
mod energy;
pub(crate) mod fundamental;
mod hamiltonian;
mod jacobian;
mod lagrangian;
mod servo;
mod speeds;
pub mod tree;

use crate::derivation::{Derivation, Equations, ExprMatrix, LagrangianEquations, NamedValue};
use crate::error::Errors;
use crate::expr::{ExprId, Pool, Symbol};
use crate::parse::{parse_components, parse_expr, parse_value, Context, Scope, Value};
use crate::spec::{Expression, ModelSpec};
use proc_macro2::Span;

/// Derives the equations of motion of `spec`.
///
/// With n coordinates and m constraints, a Lagrangian model gives M (n × n), Q (n), A (m × n),
/// b (m), C (n), the Jacobi integral and the velocity-level constraints; a Hamiltonian model
/// gives H_p, H_q (n), H_pp (n × n), A_p (m × n), b_p (m). See [`crate::derivation`].
///
/// # Errors
/// Every problem found, each at the span of its culprit:
/// - the spec: neither or both of `lagrangian` and `hamiltonian`; no coordinates; a name used
///   twice among coordinates, momenta, parameters, inputs and definitions (a definition may
///   not redefine or shadow a name), or named `t` or `PI`; a Hamiltonian model whose
///   `momenta` are not n; `forces` or `nonideal` with neither 0 nor n entries; fields of the
///   other kind of model (`momenta` or `constraints` in a Lagrangian model; `nonholonomic`,
///   `forces`, `nonideal`, `inputs` or `loads` in a Hamiltonian model, whose equations have
///   no place for them);
/// - expressions: see [`crate::parse`] (unknown identifier or function, a definition used
///   before it is defined, wrong argument count or type, unsupported syntax, a velocity,
///   momentum or input where the expression may not have one, an output that is a matrix);
/// - the model: L not quadratic in q̇ (M would depend on q̇), at L's span; a constraint
///   that depends on no coordinate, velocity or momentum, a nonholonomic constraint with no
///   velocity, or a Hamiltonian constraint φ(q, p, t) with no momentum (each would be
///   differentiated once too few), at the constraint's span.
pub fn derive(spec: &ModelSpec) -> Result<Derivation, Errors> {
    derive_with(spec, Jacobians::Now)
}

/// When [`derive_with`] forms the Jacobians of a model's residuals
/// ([`LagrangianEquations::jacobians`], [`crate::HamiltonianEquations::jacobians`]), which
/// only the exact derivative of the motion needs: for a URDF robot about 40% of the
/// derivation, as long as the rest of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Jacobians {
    /// With the other equations, as [`derive()`] does: what the macro and the equation sheets
    /// need.
    Now,
    /// When [`Derivation::derive_jacobians`] is called: for a run-time model that may never
    /// be asked for them.
    OnDemand,
}

/// [`derive()`], with the residual Jacobians formed as `jacobians` says. Either way the
/// equations are the same DAG nodes, the Jacobians included once derived.
///
/// # Errors
/// As [`derive()`].
pub fn derive_with(spec: &ModelSpec, jacobians: Jacobians) -> Result<Derivation, Errors> {
    let expanded = crate::repeat::expand(spec)?;
    let spec: &ModelSpec = &expanded;
    let mut errors = Errors::default();
    let kind = check::check_spec(spec, &mut errors);
    let mut scope = check::scope(spec, &mut errors);
    let mut pool = Pool::new();
    let lagrangian = !matches!(kind, Some(check::Kind::Hamiltonian(_)));
    let context = if lagrangian {
        Context::LAGRANGIAN_DEFINITION
    } else {
        Context::HAMILTONIAN_DEFINITION
    };
    let mut definitions = define(spec, context, &mut pool, &mut scope, &mut errors);
    let mut outputs: Vec<NamedValue> = (spec.outputs.iter())
        .filter_map(|o| {
            let value = parse_value(&mut pool, &scope, context, &o.value.0, &mut errors)?;
            if let Value::Matrix(_) = value {
                errors.push(
                    o.value.span(),
                    "an output is a scalar or a 3-vector, not a 3×3 matrix",
                );
            }
            Some(NamedValue {
                name: o.name.as_string(),
                value,
            })
        })
        .collect();
    let equations = match kind {
        Some(check::Kind::Lagrangian(l)) => {
            let definitions = &mut definitions;
            lagrangian::derive(
                spec,
                l,
                &scope,
                &mut pool,
                definitions,
                jacobians,
                &mut errors,
            )
            .map(crate::derivation::Equations::Lagrangian)
        }
        Some(check::Kind::Hamiltonian(h)) => {
            hamiltonian::derive(spec, h, &scope, &mut pool, jacobians, &mut errors)
                .map(crate::derivation::Equations::Hamiltonian)
        }
        None => None,
    };
    // A model with speeds: its definitions and outputs in its state (q, u, t), as its equations.
    if let Some(crate::derivation::Equations::Lagrangian(LagrangianEquations {
        kinematics: Some(kinematics),
        ..
    })) = &equations
    {
        for named in definitions.iter_mut().chain(outputs.iter_mut()) {
            let rates = &kinematics.rates;
            named.value =
                (named.value).map(&mut pool, |pool, x| speeds::in_state(pool, rates, &[x])[0]);
        }
    }
    match equations {
        Some(equations) if errors.is_empty() => Ok(Derivation {
            name: spec.name.clone(),
            coordinates: spec.coordinates.iter().map(|c| c.as_string()).collect(),
            coordinate_names: if spec.coordinate_names.len() == spec.coordinates.len() {
                spec.coordinate_names.clone()
            } else {
                spec.coordinates.iter().map(|c| c.as_string()).collect()
            },
            momenta: spec.momenta.iter().map(|p| p.as_string()).collect(),
            speeds: spec.speeds.iter().map(|u| u.as_string()).collect(),
            parameters: spec.parameters.iter().map(|p| p.name.as_string()).collect(),
            inputs: spec.inputs.iter().map(|u| u.as_string()).collect(),
            definitions,
            outputs,
            pool,
            equations,
            warnings: spec.warnings.clone(),
        }),
        _ => Err(errors),
    }
}

impl Derivation {
    /// Forms the Jacobians of the residuals of a derivation made with [`Jacobians::OnDemand`]
    /// (on [`crate::limits::on_large_stack`], as the derivation): the nodes [`derive()`] forms,
    /// so that they evaluate to the same values bit for bit when nothing was added to the pool
    /// after the residuals (a model without servo constraints and contacts). Does nothing
    /// where they are already formed or do not apply (a model with generalized speeds); leaves
    /// them `None` for a model beyond [`crate::limits::MAX_JACOBIAN_COST`].
    pub fn derive_jacobians(&mut self) {
        let (pool, k) = (&mut self.pool, self.inputs.len());
        crate::limits::on_large_stack(|| match &mut self.equations {
            Equations::Lagrangian(e) if e.jacobians.is_none() && e.kinematics.is_none() => {
                let force = jacobian::residual_force(pool, e);
                e.jacobians = jacobian::lagrangian(pool, e, &force, k);
            }
            Equations::Hamiltonian(e) if e.jacobians.is_none() => {
                e.jacobians = jacobian::hamiltonian(pool, e);
            }
            _ => {}
        });
    }
}

/// Lowers `expressions` of the Lagrangian model `spec`, scalars of (q, q̇, u, t) with its
/// parameters and definitions in scope, into `pool` (the derivation's, or a copy of it): the
/// expressions of a model file that the equations of motion do not use, such as the guards and
/// reset maps of its events.
///
/// # Errors
/// Every error of the expressions (see [`crate::parse`]) and of the spec's names and
/// definitions, each at its span.
pub fn lower(
    spec: &ModelSpec,
    pool: &mut Pool,
    expressions: &[&Expression],
) -> Result<Vec<ExprId>, Errors> {
    let mut errors = Errors::default();
    let mut scope = check::scope(spec, &mut errors);
    let context = Context::LAGRANGIAN_DEFINITION;
    define(spec, context, pool, &mut scope, &mut errors);
    let ids = (expressions.iter())
        .map(|e| parse_expr(pool, &scope, context, &e.0, &mut errors))
        .collect();
    match errors.is_empty() {
        true => Ok(ids),
        false => Err(errors),
    }
}

/// Parses the definitions of `spec` in order into `scope`, each in `context`; returns them.
/// A name that is reserved or already bound is an error at the name; a definition with an
/// error is bound to 0, so that its uses report nothing more.
pub(crate) fn define(
    spec: &ModelSpec,
    context: Context,
    pool: &mut Pool,
    scope: &mut Scope,
    errors: &mut Errors,
) -> Vec<NamedValue> {
    define_with(spec, context, pool, scope, errors, &|_| None)
}

/// [`define`] with the definition of each name for which `given` returns a value bound to
/// that value instead of its expression (the servo rows read a tree's link frames so).
pub(crate) fn define_with(
    spec: &ModelSpec,
    context: Context,
    pool: &mut Pool,
    scope: &mut Scope,
    errors: &mut Errors,
    given: &dyn Fn(&str) -> Option<Value>,
) -> Vec<NamedValue> {
    scope.announce(spec.definitions.iter().map(|d| d.name.as_string()));
    let mut definitions = Vec::with_capacity(spec.definitions.len());
    for d in &spec.definitions {
        let name = d.name.as_string();
        let value = given(&name)
            .or_else(|| parse_value(pool, scope, context, &d.value.0, errors))
            .unwrap_or_else(|| Value::Scalar(pool.zero()));
        if name == "t" || name == "PI" {
            errors.push(d.name.span(), format!("`{name}` is reserved (time and π)"));
        } else if let Some(earlier) = scope.define(pool, &name, value) {
            errors.push(
                d.name.span(),
                format!(
                    "`{name}` is already {}: a definition may not redefine or shadow a name",
                    earlier.describe()
                ),
            );
        } else {
            definitions.push(NamedValue { name, value });
        }
    }
    definitions
}

/// Parses each of `expressions` in `context` as a scalar, in order; the errors go to `errors`.
fn parse_all(
    pool: &mut Pool,
    scope: &Scope,
    context: Context,
    expressions: &[Expression],
    errors: &mut Errors,
) -> Vec<ExprId> {
    expressions
        .iter()
        .map(|e| parse_expr(pool, scope, context, &e.0, errors))
        .collect()
}

/// Parses each constraint of `expressions` in `context`, in order, a 3-vector into its three
/// components; each with the span of the expression it came from.
fn parse_constraints(
    pool: &mut Pool,
    scope: &Scope,
    context: Context,
    expressions: &[Expression],
    errors: &mut Errors,
) -> Vec<(ExprId, Span)> {
    expressions
        .iter()
        .flat_map(|e| {
            parse_components(pool, scope, context, &e.0, errors)
                .into_iter()
                .map(|c| (c, e.span()))
        })
        .collect()
}

/// An error at each holonomic constraint f(q, t) (with its span) that depends on no
/// generalized coordinate.
fn check_holonomic(pool: &Pool, holonomic: &[(ExprId, Span)], errors: &mut Errors) {
    let coordinate = |s: Symbol| matches!(s, Symbol::Coordinate(_));
    for &(f, span) in holonomic {
        if !pool.depends_on(f, &coordinate) {
            errors.push(
                span,
                "this holonomic constraint depends on no generalized coordinate",
            );
        }
    }
}

/// The n × n matrix ∂(rows[i])/∂(symbol(j)), computed for j ≥ i and mirrored, so that a
/// symmetric Hessian is exactly symmetric.
pub(crate) fn symmetric_jacobian(
    pool: &mut Pool,
    rows: &[ExprId],
    symbol: impl Fn(usize) -> Symbol,
) -> ExprMatrix {
    let n = rows.len();
    let mut entries = vec![ExprId(0); n * n];
    for i in 0..n {
        for j in i..n {
            let d = pool.diff(rows[i], symbol(j));
            entries[i * n + j] = d;
            entries[j * n + i] = d;
        }
    }
    ExprMatrix {
        rows: n,
        cols: n,
        entries,
    }
}

/// The m × n matrix ∂(rows[r])/∂(symbol(j)).
fn jacobian(
    pool: &mut Pool,
    rows: &[ExprId],
    n: usize,
    symbol: impl Fn(usize) -> Symbol,
) -> ExprMatrix {
    let entries = rows
        .iter()
        .flat_map(|&row| (0..n).map(move |j| (row, j)))
        .map(|(row, j)| pool.diff(row, symbol(j)))
        .collect();
    ExprMatrix {
        rows: rows.len(),
        cols: n,
        entries,
    }
}
