//! Parsing udk's expression language, a subset of Rust expressions, into the DAG.
//!
//! # Values
//! Scalars, 3-vectors and 3×3 matrices. Every value is scalarized as it is parsed, a vector
//! into three DAG nodes and a matrix into nine (see [`Value`]), so derivation, CSE and the
//! emitters see only scalars.
//!
//! # The language
//! - Numbers: decimal literals, exact rationals (`9.81` = 981/100); `PI`.
//! - Names:
//!   - coordinates, momenta, parameters, inputs and speeds;
//!   - definitions (`let NAME = EXPR`, each usable after its own);
//!   - `t`, the time in s.
//! - Operators, with Rust precedence and parentheses:
//!   - `+` and `-` between values of one type;
//!   - `*` for scalar·scalar, scalar·vector, scalar·matrix (either order), matrix·vector and
//!     matrix·matrix;
//!   - `/` by a scalar;
//!   - unary `-`.
//! - Scalar functions, written as methods (`x.sin()`) or as functions (`sin(x)`): `powi`,
//!   `powf`, `sqrt`, `sin`, `cos`, `tan`, `asin`, `acos`, `atan`, `atan2`, `sinh`, `cosh`,
//!   `tanh`, `exp`, `ln`, `abs`.
//! - Constructors: `vec3(x, y, z)`, `mat3(a11, a12, …, a33)` (row-major; a constant
//!   orthogonal one with determinant 1 is a constant rotation), `diag(a, b, c)`,
//!   `eye()`.
//! - Rotations, active and right-handed: `rot_x(θ)`, `rot_y(θ)`, `rot_z(θ)`,
//!   `rot_axis(axis, θ)` (Rodrigues, with a unit axis), `quat_to_rot(e0, e1, e2, e3)` (Euler
//!   parameters, scalar first).
//! - Vector and matrix methods: `.dot(w)`, `.cross(w)`, `.norm()`, `.norm_squared()`,
//!   `.normalize()`, `.transpose()`, `.x()`, `.y()`, `.z()`.
//! - `dot(EXPR)`: the total time derivative of an expression of q and t, whatever its type.
//!   `dot(q)` of a coordinate is its generalized velocity.
//! - Mechanics:
//!   - `angular_velocity(R)` = vee(Ṙ Rᵀ), in the world frame;
//!   - `body_angular_velocity(R)` = vee(Rᵀ Ṙ);
//!   - `kinetic_energy(m, I, p, R)` = ½ m ṗ·ṗ + ½ Ωᵀ I Ω, with Ω the body angular velocity,
//!     I the inertia about the centre of mass in body axes, and p the centre of mass.
//!
//! # Errors
//! Every error is pushed with the span of its culprit, and parsing goes on, so that one pass
//! reports all of them. The errors:
//! - an unknown identifier or function, with the nearest known name suggested;
//! - a wrong argument count, or an argument of the wrong type;
//! - an operator between types it does not take;
//! - unsupported syntax;
//! - a symbol the expression may not use, such as a velocity in a holonomic constraint or an
//!   input in L;
//! - an undefined constant, where constant folding meets it: division by a constant 0 (at
//!   the divisor; so `(0.0 / 0.0) * x` is an error, not 0), a function of constants that is
//!   NaN or infinite (`ln(0.0)`, `(-1.0).sqrt()`, `0.0.powi(-1)`, at the call), a chain of
//!   constants whose value overflows f64 (at its start);
//! - an expression nested deeper than [`crate::limits::MAX_NESTING`] (a chain of `+ -`, or
//!   of `* /`, is walked in a loop and counts one level however long).

mod literal;
mod mechanics;
mod parser;
#[cfg(test)]
mod tests;
mod value;

pub(crate) use mechanics::axis_rotation;
pub use mechanics::{angular_velocity, body_angular_velocity, kinetic_energy};
pub use parser::{Body, Load};
pub(crate) use value::{add3, cross3, dot3, mat_mul, mat_t_vec, mat_vec, scale3};
pub use value::{Matrix, Rates, Value};

use crate::error::Errors;
use crate::expr::{ExprId, Pool, Symbol};
use parser::Parser;
use std::collections::{HashMap, HashSet};
use syn::Expr;

/// What a name stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binding {
    /// Generalized coordinate qᵢ.
    Coordinate(usize),
    /// Generalized momentum pᵢ.
    Momentum(usize),
    /// Parameter number i.
    Parameter(usize),
    /// Run-time input uᵢ.
    Input(usize),
    /// Generalized speed uᵢ of a model with kinematic differential equations.
    Speed(usize),
    /// Definition number i (see [`Scope::definitions`]).
    Definition(usize),
}

impl Binding {
    /// How messages name the kind of binding ("a coordinate", ...).
    pub fn describe(self) -> &'static str {
        match self {
            Binding::Coordinate(_) => "a coordinate",
            Binding::Momentum(_) => "a momentum",
            Binding::Parameter(_) => "a parameter",
            Binding::Input(_) => "an input",
            Binding::Speed(_) => "a speed",
            Binding::Definition(_) => "a definition",
        }
    }
}

/// Which kinds of model quantity a value depends on, beyond q, t and the parameters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Uses {
    /// Generalized velocities q̇ or speeds u.
    pub velocities: bool,
    /// Generalized momenta p.
    pub momenta: bool,
    /// Run-time inputs u.
    pub inputs: bool,
}

impl Uses {
    /// How messages name the first kind of quantity in `self` that `allowed` does not allow
    /// ("the generalized velocities", "the momenta", "the inputs"), or `None`.
    pub fn beyond(self, allowed: Uses) -> Option<&'static str> {
        if self.velocities && !allowed.velocities {
            Some("the generalized velocities")
        } else if self.momenta && !allowed.momenta {
            Some("the momenta")
        } else if self.inputs && !allowed.inputs {
            Some("the inputs")
        } else {
            None
        }
    }

    /// What `value` depends on.
    pub fn of(pool: &Pool, value: &Value) -> Self {
        let ids = value.components();
        let has = |pred: &dyn Fn(Symbol) -> bool| pool.any_depends_on(ids, pred);
        Uses {
            velocities: has(&|s| matches!(s, Symbol::Velocity(_) | Symbol::Speed(_))),
            momenta: has(&|s| matches!(s, Symbol::Momentum(_))),
            inputs: has(&|s| matches!(s, Symbol::Input(_))),
        }
    }
}

/// A definition `let NAME = EXPR`, parsed once.
#[derive(Clone, Debug)]
pub struct Definition {
    /// The name.
    pub name: String,
    /// Its value, scalarized.
    pub value: Value,
    /// What it depends on, checked where it is used.
    pub uses: Uses,
}

/// The names an expression may refer to.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    names: HashMap<String, Binding>,
    definitions: Vec<Definition>,
    /// The names of every definition of the model, bound or not yet, so that a use before the
    /// definition is reported as such.
    announced: HashSet<String>,
}

impl Scope {
    /// An empty scope (`t` and `PI` are always known).
    pub fn new() -> Self {
        Self::default()
    }

    /// Binds `name`; returns the earlier binding of that name, if any (it is then unchanged).
    pub fn bind(&mut self, name: &str, binding: Binding) -> Option<Binding> {
        match self.names.get(name) {
            Some(&earlier) => Some(earlier),
            None => {
                self.names.insert(name.to_owned(), binding);
                None
            }
        }
    }

    /// Binds `name` to a definition's `value`; returns the earlier binding of that name, if
    /// any (it is then unchanged).
    pub fn define(&mut self, pool: &Pool, name: &str, value: Value) -> Option<Binding> {
        let binding = Binding::Definition(self.definitions.len());
        let earlier = self.bind(name, binding);
        if earlier.is_none() {
            self.definitions.push(Definition {
                name: name.to_owned(),
                uses: Uses::of(pool, &value),
                value,
            });
        }
        earlier
    }

    /// Binds `name` to a definition's `value` in place of any earlier binding: for reading an
    /// expression again in a copy of the scope with a definition replaced (the derivation
    /// finds the gravity of a kinematic tree so).
    pub fn redefine(&mut self, pool: &Pool, name: &str, value: Value) {
        self.names.remove(name);
        self.define(pool, name, value);
    }

    /// Records the names of the model's definitions before any is parsed.
    pub fn announce(&mut self, names: impl IntoIterator<Item = String>) {
        self.announced.extend(names);
    }

    /// What `name` stands for.
    pub fn lookup(&self, name: &str) -> Option<Binding> {
        self.names.get(name).copied()
    }

    /// The definitions bound so far, in order.
    pub fn definitions(&self) -> &[Definition] {
        &self.definitions
    }

    /// Every bound name, for suggestions.
    fn names(&self) -> impl Iterator<Item = &str> {
        self.names.keys().map(String::as_str)
    }
}

/// Which kind of expression is being parsed: what it may refer to, and its name in messages.
#[derive(Clone, Copy, Debug)]
pub struct Context {
    /// How messages name the expression, e.g. "a holonomic constraint f(q, t)".
    pub what: &'static str,
    /// Whether velocities (`dot(..)`) are allowed.
    pub velocities: bool,
    /// Whether momenta are allowed.
    pub momenta: bool,
    /// Whether inputs are allowed.
    pub inputs: bool,
}

impl Context {
    /// L(q, q̇, t).
    pub const LAGRANGIAN: Context = Context {
        what: "the Lagrangian L(q, q̇, t)",
        velocities: true,
        momenta: false,
        inputs: false,
    };
    /// H(q, p, t).
    pub const HAMILTONIAN: Context = Context {
        what: "the Hamiltonian H(q, p, t)",
        velocities: false,
        momenta: true,
        inputs: false,
    };
    /// f(q, t) = 0.
    pub const HOLONOMIC: Context = Context {
        what: "a holonomic constraint f(q, t)",
        velocities: false,
        momenta: false,
        inputs: false,
    };
    /// φ(q, q̇, t) = 0.
    pub const NONHOLONOMIC: Context = Context {
        what: "a nonholonomic constraint φ(q, q̇, t)",
        velocities: true,
        momenta: false,
        inputs: false,
    };
    /// φ(q, p, t) = 0.
    pub const HAMILTONIAN_CONSTRAINT: Context = Context {
        what: "a constraint φ(q, p, t) of a Hamiltonian model",
        velocities: false,
        momenta: true,
        inputs: false,
    };
    /// A non-conservative generalized force of (q, q̇, u, t).
    pub const FORCE: Context = Context {
        what: "a generalized force of (q, q̇, u, t)",
        velocities: true,
        momenta: false,
        inputs: true,
    };
    /// An entry of the non-ideal constraint force C(q, q̇, u, t).
    pub const NONIDEAL: Context = Context {
        what: "a non-ideal constraint force C(q, q̇, u, t)",
        velocities: true,
        momenta: false,
        inputs: true,
    };
    /// A load `force(F, p)` or `torque(T, R)` of (q, q̇, u, t).
    pub const LOAD: Context = Context {
        what: "a load of (q, q̇, u, t)",
        velocities: true,
        momenta: false,
        inputs: true,
    };
    /// A kinematic differential equation q̇ᵢ = K(q, u, t) of a model with speeds: the speeds
    /// are allowed (as velocities), inputs are not; a `dot(..)` is refused by the derivation.
    pub const KINEMATICS: Context = Context {
        what: "a kinematic differential equation q̇ᵢ = K(q, u, t)",
        velocities: true,
        momenta: false,
        inputs: false,
    };
    /// A definition or an output of a Lagrangian model: anything of (q, q̇, u, t); what it
    /// depends on is checked where a definition is used.
    pub const LAGRANGIAN_DEFINITION: Context = Context {
        what: "a definition of (q, q̇, u, t)",
        velocities: true,
        momenta: false,
        inputs: true,
    };
    /// The gap φ(q, t) or the slip coordinate s(q, t) of a unilateral contact.
    pub const CONTACT: Context = Context {
        what: "a contact's gap or slip coordinate, a function of (q, t)",
        velocities: false,
        momenta: false,
        inputs: false,
    };
    /// A contact's coefficient (restitution, friction, rest speed): a constant of the
    /// parameters, which the caller checks after parsing.
    pub const COEFFICIENT: Context = Context {
        what: "a contact's coefficient, a constant of the parameters",
        velocities: false,
        momenta: false,
        inputs: false,
    };
    /// A definition or an output of a Hamiltonian model: anything of (q, p, t).
    pub const HAMILTONIAN_DEFINITION: Context = Context {
        what: "a definition of (q, p, t)",
        velocities: false,
        momenta: true,
        inputs: false,
    };
}

/// Parses `expr` into `pool` as a value of any type. Errors are pushed to `errors` (with their
/// spans) and parsing goes on; the result is then meaningless (a scalar 0), but every error of
/// `expr` has been reported.
pub fn parse_value(
    pool: &mut Pool,
    scope: &Scope,
    context: Context,
    expr: &Expr,
    errors: &mut Errors,
) -> Option<Value> {
    Parser::new(pool, scope, context, errors).value(expr)
}

/// Parses `expr` as a scalar (an error at its span if it is a vector or a matrix).
pub fn parse_expr(
    pool: &mut Pool,
    scope: &Scope,
    context: Context,
    expr: &Expr,
    errors: &mut Errors,
) -> ExprId {
    let mut parser = Parser::new(pool, scope, context, errors);
    let value = parser.value(expr);
    parser.scalar(value, expr).unwrap_or_else(|| pool.zero())
}

/// Parses `expr` as a scalar or a 3-vector and returns its components (1 or 3), as the entries
/// of `holonomic(..)` and `nonholonomic(..)` are: a vector constraint is three constraints.
pub fn parse_components(
    pool: &mut Pool,
    scope: &Scope,
    context: Context,
    expr: &Expr,
    errors: &mut Errors,
) -> Vec<ExprId> {
    let value = parse_value(pool, scope, context, expr, errors);
    match value {
        Some(Value::Matrix(_)) => {
            errors.push(
                syn::spanned::Spanned::span(expr),
                format!(
                    "{} must be a scalar or a 3-vector (three constraints), found a 3×3 matrix",
                    context.what
                ),
            );
            vec![pool.zero()]
        }
        Some(value) => value.components().to_vec(),
        None => vec![pool.zero()],
    }
}

/// Parses one entry of `loads(..)`: `force(F, p)` or `torque(T, R)`; `None` after an error.
pub fn parse_load(
    pool: &mut Pool,
    scope: &Scope,
    expr: &Expr,
    errors: &mut Errors,
) -> Option<Load> {
    Parser::new(pool, scope, Context::LOAD, errors).load(expr)
}

/// The rigid body of a term `kinetic_energy(m, I, p, R)` of L, or `None` when `expr` is not
/// such a term. Errors are not reported here: L is parsed whole by [`parse_expr`].
pub fn parse_body(pool: &mut Pool, scope: &Scope, expr: &Expr) -> Option<Body> {
    let mut ignored = Errors::default();
    Parser::new(pool, scope, Context::LAGRANGIAN, &mut ignored).body(expr)
}
