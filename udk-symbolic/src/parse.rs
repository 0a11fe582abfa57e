//! Parsing udk's expression language, a subset of Rust expressions, into the DAG.
//!
//! The language: numeric literals (decimal literals are exact rationals, `9.81` = 981/100);
//! the names of coordinates, momenta and parameters; `t` (time, s) and `PI`; `dot(q)` for the
//! generalized velocity q̇ of a coordinate q; unary `-`; `+ - * /` with Rust precedence;
//! parentheses; `powi`, `powf`, `sqrt`, `sin`, `cos`, `tan`, `asin`, `acos`, `atan`, `atan2`,
//! `sinh`, `cosh`, `tanh`, `exp`, `ln`, `abs`, both as methods (`x.sin()`, `y.atan2(x)`,
//! `x.powi(2)`) and as functions (`sin(x)`, `atan2(y, x)`, `powi(x, 2)`).
//!
//! Every error (unknown identifier, unknown function, wrong argument count, unsupported
//! syntax, a symbol the expression may not use) is pushed with the span of its culprit, and
//! parsing goes on, so that one pass reports all of them.

use crate::error::Errors;
use crate::expr::{ExprId, Func, Number, Pool, Symbol};
use proc_macro2::Span;
use std::collections::HashMap;
use syn::spanned::Spanned;
use syn::{BinOp, Expr, Lit, UnOp};

/// What a name stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binding {
    /// Generalized coordinate qᵢ.
    Coordinate(usize),
    /// Generalized momentum pᵢ.
    Momentum(usize),
    /// Parameter number i.
    Parameter(usize),
}

/// The names an expression may refer to.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    names: HashMap<String, Binding>,
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

    /// What `name` stands for.
    pub fn lookup(&self, name: &str) -> Option<Binding> {
        self.names.get(name).copied()
    }
}

/// Which kind of expression is being parsed: what it may refer to, and its name in messages.
#[derive(Clone, Copy, Debug)]
pub struct Context {
    /// How messages name the expression, e.g. "a holonomic constraint f(q, t)".
    pub what: &'static str,
    /// Whether `dot(q)` is allowed.
    pub velocities: bool,
    /// Whether momenta are allowed.
    pub momenta: bool,
}

impl Context {
    /// L(q, q̇, t).
    pub const LAGRANGIAN: Context = Context {
        what: "the Lagrangian L(q, q̇, t)",
        velocities: true,
        momenta: false,
    };
    /// H(q, p, t).
    pub const HAMILTONIAN: Context = Context {
        what: "the Hamiltonian H(q, p, t)",
        velocities: false,
        momenta: true,
    };
    /// f(q, t) = 0.
    pub const HOLONOMIC: Context = Context {
        what: "a holonomic constraint f(q, t)",
        velocities: false,
        momenta: false,
    };
    /// φ(q, q̇, t) = 0.
    pub const NONHOLONOMIC: Context = Context {
        what: "a nonholonomic constraint φ(q, q̇, t)",
        velocities: true,
        momenta: false,
    };
    /// φ(q, p, t) = 0.
    pub const HAMILTONIAN_CONSTRAINT: Context = Context {
        what: "a constraint φ(q, p, t) of a Hamiltonian model",
        velocities: false,
        momenta: true,
    };
    /// A non-conservative generalized force of (q, q̇, t).
    pub const FORCE: Context = Context {
        what: "a generalized force of (q, q̇, t)",
        velocities: true,
        momenta: false,
    };
    /// An entry of the non-ideal constraint force C(q, q̇, t).
    pub const NONIDEAL: Context = Context {
        what: "a non-ideal constraint force C(q, q̇, t)",
        velocities: true,
        momenta: false,
    };
}

/// Parses `expr` into `pool`. Errors are pushed to `errors` (with their spans) and parsing
/// goes on; the result is then meaningless, but every error of `expr` has been reported.
pub fn parse_expr(
    pool: &mut Pool,
    scope: &Scope,
    context: Context,
    expr: &Expr,
    errors: &mut Errors,
) -> ExprId {
    Parser {
        pool,
        scope,
        context,
        errors,
    }
    .expr(expr)
}

struct Parser<'a> {
    pool: &'a mut Pool,
    scope: &'a Scope,
    context: Context,
    errors: &'a mut Errors,
}

impl Parser<'_> {
    /// Reports an error and returns a placeholder.
    fn error(&mut self, span: Span, message: impl Into<String>) -> ExprId {
        self.errors.push(span, message);
        self.pool.zero()
    }

    fn expr(&mut self, expr: &Expr) -> ExprId {
        match expr {
            Expr::Lit(lit) => match &lit.lit {
                Lit::Int(i) => self.literal(i.base10_digits(), i.span()),
                Lit::Float(f) => self.literal(f.base10_digits(), f.span()),
                other => self.error(other.span(), "only numeric literals are supported"),
            },
            Expr::Path(path) => self.path(path),
            Expr::Paren(inner) => self.expr(&inner.expr),
            Expr::Group(inner) => self.expr(&inner.expr),
            Expr::Unary(unary) => match unary.op {
                UnOp::Neg(_) => {
                    let x = self.expr(&unary.expr);
                    self.pool.neg(x)
                }
                op => self.error(
                    op.span(),
                    "unsupported operator: only unary `-` is supported",
                ),
            },
            Expr::Binary(binary) => {
                let a = self.expr(&binary.left);
                let b = self.expr(&binary.right);
                match binary.op {
                    BinOp::Add(_) => self.pool.add(&[a, b]),
                    BinOp::Sub(_) => self.pool.sub(a, b),
                    BinOp::Mul(_) => self.pool.mul(&[a, b]),
                    BinOp::Div(_) => self.pool.div(a, b),
                    op => self.error(
                        op.span(),
                        "unsupported operator: only `+`, `-`, `*` and `/` are supported",
                    ),
                }
            }
            Expr::Call(call) => {
                let Some((name, span)) = function_name(&call.func) else {
                    return self.error(call.func.span(), "expected a function name");
                };
                let args: Vec<&Expr> = call.args.iter().collect();
                self.call(&name, span, expr.span(), &args)
            }
            Expr::MethodCall(call) => {
                if let Some(turbofish) = &call.turbofish {
                    return self.error(turbofish.span(), "type arguments are not supported");
                }
                let args: Vec<&Expr> = std::iter::once(&*call.receiver)
                    .chain(call.args.iter())
                    .collect();
                let name = call.method.to_string();
                if name == "dot" {
                    return self.error(
                        call.method.span(),
                        "write a generalized velocity as `dot(q)`",
                    );
                }
                self.call(&name, call.method.span(), expr.span(), &args)
            }
            other => self.error(
                other.span(),
                "unsupported syntax: expected a number, a name, `dot(q)`, an arithmetic operator or a function call",
            ),
        }
    }

    /// A decimal literal, exact when it fits a rational with i64 parts.
    fn literal(&mut self, digits: &str, span: Span) -> ExprId {
        match decimal(digits) {
            Some(value) if value.to_f64().is_finite() => self.pool.constant(value),
            _ => self.error(span, "numeric literal out of range"),
        }
    }

    fn path(&mut self, path: &syn::ExprPath) -> ExprId {
        let span = path.span();
        let segments: Vec<String> = path
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        let plain = path.qself.is_none()
            && path.path.leading_colon.is_none()
            && path.path.segments.iter().all(|s| s.arguments.is_none());
        let is_pi = plain
            && (segments == ["PI"]
                || segments.ends_with(&["f64".into(), "consts".into(), "PI".into()]));
        if is_pi {
            return self.pool.number(std::f64::consts::PI);
        }
        if !plain || segments.len() != 1 {
            return self.error(span, "unsupported path: expected a plain name");
        }
        let name = &segments[0];
        if name == "t" {
            return self.pool.symbol(Symbol::Time);
        }
        match self.scope.lookup(name) {
            Some(Binding::Coordinate(i)) => self.pool.symbol(Symbol::Coordinate(i)),
            Some(Binding::Parameter(i)) => self.pool.symbol(Symbol::Parameter(i)),
            Some(Binding::Momentum(i)) => {
                if self.context.momenta {
                    self.pool.symbol(Symbol::Momentum(i))
                } else {
                    let what = self.context.what;
                    self.error(
                        span,
                        format!("momentum `{name}` cannot appear in {what}"),
                    )
                }
            }
            None => self.error(
                span,
                format!("unknown identifier `{name}`: not a coordinate, momentum, parameter, `t` or `PI`"),
            ),
        }
    }

    /// A function applied to `args` (the receiver first for a method call).
    fn call(&mut self, name: &str, name_span: Span, span: Span, args: &[&Expr]) -> ExprId {
        if name == "dot" {
            return self.dot(name_span, span, args);
        }
        let (arity, func) = match name {
            "powi" | "powf" => (2, None),
            _ => match Func::from_name(name) {
                Some(f) => (f.arity(), Some(f)),
                None => {
                    for arg in args {
                        self.expr(arg);
                    }
                    return self.error(name_span, format!("unknown function `{name}`"));
                }
            },
        };
        let values: Vec<ExprId> = args.iter().map(|a| self.expr(a)).collect();
        if values.len() != arity {
            return self.error(
                span,
                format!(
                    "`{name}` takes {arity} argument{} (a method call counts its receiver), got {}",
                    if arity == 1 { "" } else { "s" },
                    values.len()
                ),
            );
        }
        match func {
            Some(f) => self.pool.call(f, &values),
            None if name == "powi" => {
                let exponent = self.pool.as_number(values[1]).and_then(Number::as_integer);
                if exponent.is_none() {
                    return self.error(args[1].span(), "`powi` needs an integer exponent");
                }
                self.pool.pow(values[0], values[1])
            }
            None => self.pool.pow(values[0], values[1]),
        }
    }

    /// `dot(q)`: the generalized velocity of coordinate q.
    fn dot(&mut self, name_span: Span, span: Span, args: &[&Expr]) -> ExprId {
        if args.len() != 1 {
            return self.error(span, format!("`dot` takes 1 argument, got {}", args.len()));
        }
        let arg = strip(args[0]);
        let name = match arg {
            Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
            _ => None,
        };
        let velocity = match name.as_deref().map(|n| (n, self.scope.lookup(n))) {
            Some((_, Some(Binding::Coordinate(i)))) => Symbol::Velocity(i),
            Some((n, Some(Binding::Parameter(_)))) => {
                return self.error(
                    arg.span(),
                    format!("`dot` takes a generalized coordinate; `{n}` is a parameter"),
                )
            }
            Some((n, Some(Binding::Momentum(_)))) => {
                return self.error(
                    arg.span(),
                    format!("`dot` takes a generalized coordinate; `{n}` is a momentum"),
                )
            }
            Some(("t", None)) => {
                return self.error(arg.span(), "`dot` takes a generalized coordinate, not `t`")
            }
            Some((n, None)) => {
                return self.error(
                    arg.span(),
                    format!("unknown identifier `{n}`: `dot` takes a generalized coordinate"),
                )
            }
            None => {
                return self.error(
                    arg.span(),
                    "`dot` takes the name of a generalized coordinate",
                )
            }
        };
        if !self.context.velocities {
            let what = self.context.what;
            return self.error(
                name_span,
                format!("a generalized velocity `dot(..)` cannot appear in {what}"),
            );
        }
        self.pool.symbol(velocity)
    }
}

/// `expr` without enclosing parentheses or invisible groups.
fn strip(mut expr: &Expr) -> &Expr {
    loop {
        match expr {
            Expr::Paren(p) => expr = &p.expr,
            Expr::Group(g) => expr = &g.expr,
            _ => return expr,
        }
    }
}

/// The name of a called function: `f` or `f64::f`.
fn function_name(func: &Expr) -> Option<(String, Span)> {
    let Expr::Path(path) = strip(func) else {
        return None;
    };
    let segments: Vec<_> = path.path.segments.iter().collect();
    let last = match segments.as_slice() {
        [only] => only,
        [ty, last] if ty.ident == "f64" => last,
        _ => return None,
    };
    if path.qself.is_some() || !last.arguments.is_none() {
        return None;
    }
    Some((last.ident.to_string(), last.ident.span()))
}

/// The value of a decimal literal's digits (`12`, `9.81`, `1e-3`, `2.5E3`): an exact rational
/// when numerator and denominator fit in i64, else a float; `None` when it does not parse.
fn decimal(digits: &str) -> Option<Number> {
    let float = || digits.parse::<f64>().ok().map(Number::Float);
    let (mantissa, exponent) = match digits.find(['e', 'E']) {
        Some(k) => (&digits[..k], digits[k + 1..].parse::<i32>().ok()?),
        None => (digits, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all: String = [int, frac].concat();
    let Ok(numerator) = all.parse::<i64>() else {
        return float();
    };
    let Some(scale) = i32::try_from(frac.len())
        .ok()
        .and_then(|f| exponent.checked_sub(f))
    else {
        return float();
    };
    let power = |k: i32| 10_i64.checked_pow(k.unsigned_abs());
    let exact = if scale >= 0 {
        power(scale)
            .and_then(|p| numerator.checked_mul(p))
            .map(|n| Number::Rational(n, 1))
    } else {
        power(scale).and_then(|p| Number::rational(numerator, p))
    };
    exact.or_else(float)
}

#[cfg(test)]
mod tests {
    use super::decimal;
    use crate::expr::Number;

    #[test]
    fn decimals_are_exact() {
        assert_eq!(decimal("9.81"), Some(Number::Rational(981, 100)));
        assert_eq!(decimal("1e-3"), Some(Number::Rational(1, 1000)));
        assert_eq!(decimal("2.5E3"), Some(Number::Rational(2500, 1)));
        assert_eq!(decimal("0.5"), Some(Number::Rational(1, 2)));
        assert_eq!(decimal("12"), Some(Number::Rational(12, 1)));
        assert_eq!(decimal("1e300"), Some(Number::Float(1e300)));
        assert_eq!(
            decimal("1e400").map(|n| n.to_f64().is_finite()),
            Some(false)
        );
    }
}
