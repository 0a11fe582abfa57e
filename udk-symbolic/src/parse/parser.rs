//! The recursive-descent walk over a `syn::Expr` that builds typed values in the DAG.

use super::literal::decimal;
use super::mechanics;
use super::value::{add_values, cross3, dot3, mul_values, transpose, Matrix, Rates, Value};
use super::{Binding, Context, Scope, Uses};
use crate::error::Errors;
use crate::expr::{ExprId, Func, Node, Number, Pool, Symbol};
use crate::limits::{nesting_message, MAX_NESTING};
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{BinOp, Expr, Lit, UnOp};

/// The functions the language knows besides [`Func`], for messages and suggestions.
const FUNCTIONS: [&str; 24] = [
    "dot",
    "powi",
    "powf",
    "vec3",
    "mat3",
    "diag",
    "eye",
    "rot_x",
    "rot_y",
    "rot_z",
    "rot_axis",
    "quat_to_rot",
    "cross",
    "norm",
    "norm_squared",
    "normalize",
    "transpose",
    "x",
    "y",
    "z",
    "angular_velocity",
    "body_angular_velocity",
    "kinetic_energy",
    "force",
];

/// A walk over one expression. A method returns `None` where an error has been reported, so
/// that one mistake is not reported again by every operation above it.
pub(super) struct Parser<'a> {
    pool: &'a mut Pool,
    scope: &'a Scope,
    context: Context,
    errors: &'a mut Errors,
    /// How many calls of [`Parser::value`] are under way, at most [`MAX_NESTING`].
    depth: usize,
}

impl<'a> Parser<'a> {
    pub(super) fn new(
        pool: &'a mut Pool,
        scope: &'a Scope,
        context: Context,
        errors: &'a mut Errors,
    ) -> Self {
        Parser {
            pool,
            scope,
            context,
            errors,
            depth: 0,
        }
    }

    /// Reports an error; the caller returns `None`.
    fn error<T>(&mut self, span: Span, message: impl Into<String>) -> Option<T> {
        self.errors.push(span, message);
        None
    }

    /// `value` as a scalar, or an error at `expr` naming what it is instead.
    pub(super) fn scalar(&mut self, value: Option<Value>, expr: &Expr) -> Option<ExprId> {
        match value? {
            Value::Scalar(x) => Some(x),
            other => self.error(
                expr.span(),
                format!(
                    "{} must be a scalar, found {}",
                    self.context.what,
                    other.kind()
                ),
            ),
        }
    }

    /// Parses `expr` into a value; an error beyond [`MAX_NESTING`] levels of recursion.
    pub(super) fn value(&mut self, expr: &Expr) -> Option<Value> {
        if self.depth == MAX_NESTING {
            return self.error(first_span(expr), nesting_message());
        }
        self.depth += 1;
        let value = self.node(expr);
        self.depth -= 1;
        value
    }

    /// Parses one node of `expr` into a value.
    fn node(&mut self, expr: &Expr) -> Option<Value> {
        match expr {
            Expr::Lit(lit) => match &lit.lit {
                Lit::Int(i) => self.literal(i.base10_digits(), i.span()),
                Lit::Float(f) => self.literal(f.base10_digits(), f.span()),
                other => self.error(other.span(), "only numeric literals are supported"),
            },
            Expr::Path(path) => self.path(path),
            Expr::Paren(inner) => self.value(&inner.expr),
            Expr::Group(inner) => self.value(&inner.expr),
            Expr::Unary(unary) => match unary.op {
                UnOp::Neg(_) => {
                    let x = self.value(&unary.expr)?;
                    Some(x.map(self.pool, |p, x| p.neg(x)))
                }
                op => self.error(op.span(), "unsupported operator: only unary `-` is supported"),
            },
            Expr::Binary(binary) => self.binary(binary),
            Expr::Call(call) => {
                let Some((name, span)) = function_name(&call.func) else {
                    return self.error(call.func.span(), "expected a function name");
                };
                let args: Vec<&Expr> = call.args.iter().collect();
                self.call(&name, span, expr, &args)
            }
            Expr::MethodCall(call) => {
                if let Some(turbofish) = &call.turbofish {
                    return self.error(turbofish.span(), "type arguments are not supported");
                }
                let args: Vec<&Expr> = std::iter::once(&*call.receiver)
                    .chain(call.args.iter())
                    .collect();
                let name = call.method.to_string();
                self.call(&name, call.method.span(), expr, &args)
            }
            other => self.error(
                other.span(),
                "unsupported syntax: expected a number, a name, an arithmetic operator or a function call",
            ),
        }
    }

    /// A binary operation. A chain of `+` and `-` (or of `*` and `/`) is walked in a loop,
    /// not recursively, and a chain of scalars becomes one sum (product), so that a sum of
    /// 100,000 terms is one canonicalization, not 100,000 ever longer ones.
    fn binary(&mut self, binary: &syn::ExprBinary) -> Option<Value> {
        let op = binary.op;
        if let BinOp::BitXor(_) = op {
            let _ = (self.value(&binary.left), self.value(&binary.right));
            return self.error(
                op.span(),
                "`^` is exclusive or in Rust: write a power as `x.powi(2)` (integer exponent) \
                 or `x.powf(y)`",
            );
        }
        let Some(class) = chain_class(op) else {
            let _ = (self.value(&binary.left), self.value(&binary.right));
            return self.error(
                op.span(),
                "unsupported operator: only `+`, `-`, `*` and `/` are supported",
            );
        };
        // The operands of the chain, the first one last: (operator before it, operand).
        let mut links: Vec<(BinOp, &Expr)> = Vec::new();
        let mut link = binary;
        let first = loop {
            links.push((link.op, &link.right));
            match &*link.left {
                Expr::Binary(left) if chain_class(left.op) == Some(class) => link = left,
                first => break first,
            }
        };
        let first = self.value(first);
        let rest: Vec<(BinOp, Option<Value>)> = (links.iter().rev())
            .map(|&(op, operand)| (op, self.value(operand)))
            .collect();
        let mut acc = first?;
        let rest: Vec<(BinOp, Value)> = (rest.into_iter())
            .map(|(op, value)| value.map(|v| (op, v)))
            .collect::<Option<_>>()?;
        for (&(op, value), &(_, operand)) in rest.iter().zip(links.iter().rev()) {
            if let (BinOp::Div(_), Value::Scalar(d)) = (op, value) {
                if self.pool.is_zero(d) {
                    return self.error(
                        operand.span(),
                        "division by zero: this divisor is the constant 0",
                    );
                }
            }
        }
        let value = match self.scalar_chain(acc, &rest) {
            Some(scalar) => Value::Scalar(scalar),
            None => {
                for (op, b) in rest {
                    acc = self.apply(op, acc, b)?;
                }
                acc
            }
        };
        self.finite(value, &binary.left)
    }

    /// `value`, or an error at the start of `culprit` (the chain's first operand) when a
    /// component is a constant, or has a constant term or coefficient, that is not finite:
    /// folding the chain's constants overflowed f64.
    fn finite(&mut self, value: Value, culprit: &Expr) -> Option<Value> {
        let pool = &*self.pool;
        let infinite_number =
            |x: ExprId| pool.as_number(x).is_some_and(|n| !n.to_f64().is_finite());
        // A sum's constant term and a product's coefficient are its first operand.
        let infinite = value.components().iter().any(|&x| match pool.get(x) {
            Node::Add(ops) | Node::Mul(ops) => infinite_number(ops[0]),
            _ => infinite_number(x),
        });
        if infinite {
            return self.error(
                first_span(culprit),
                "this constant is not finite: folding it overflows f64",
            );
        }
        Some(value)
    }

    /// `f(args)` for a scalar function of constant arguments, or an error at the call `whole`
    /// when it is undefined (NaN) or infinite there, e.g. `ln(0.0)`, `(-1.0).sqrt()`,
    /// `0.0.powi(-1)`.
    fn defined(&mut self, result: ExprId, args: &[ExprId], whole: &Expr) -> Option<ExprId> {
        if self.pool.any_depends_on(args, &|_| true) {
            return Some(result);
        }
        let value = self.pool.eval(result, &|_| f64::NAN);
        if value.is_finite() {
            return Some(result);
        }
        self.error(
            whole.span(),
            format!(
                "this function of constants is {}: udk folds constants and refuses an \
                 undefined one",
                if value.is_nan() {
                    "undefined (NaN)"
                } else {
                    "infinite"
                }
            ),
        )
    }

    /// The sum (product) of a chain of scalars in one canonicalization, `None` when a value
    /// of the chain is not a scalar.
    fn scalar_chain(&mut self, first: Value, rest: &[(BinOp, Value)]) -> Option<ExprId> {
        let Value::Scalar(first) = first else {
            return None;
        };
        let mut operands = vec![first];
        for &(op, value) in rest {
            let Value::Scalar(x) = value else {
                return None;
            };
            operands.push(match op {
                BinOp::Sub(_) => self.pool.neg(x),
                BinOp::Div(_) => self.pool.recip(x),
                _ => x,
            });
        }
        Some(match chain_class(rest[0].0) {
            Some(Chain::Sum) => self.pool.add(&operands),
            _ => self.pool.mul(&operands),
        })
    }

    /// `a op b` for `+ - * /`, or an error at the operator for types it does not take.
    fn apply(&mut self, op: BinOp, a: Value, b: Value) -> Option<Value> {
        let result = match op {
            BinOp::Add(_) => add_values(self.pool, &a, &b),
            BinOp::Sub(_) => {
                let minus_b = b.map(self.pool, |p, x| p.neg(x));
                add_values(self.pool, &a, &minus_b)
            }
            BinOp::Mul(_) => mul_values(self.pool, &a, &b),
            _ => match b {
                Value::Scalar(d) => Some(a.map(self.pool, |p, x| p.div(x, d))),
                _ => None,
            },
        };
        if result.is_some() {
            return result;
        }
        let message = match (op, &a, &b) {
            (BinOp::Mul(_), Value::Vector(_), Value::Vector(_)) => {
                "`*` of two 3-vectors is not defined: use `.dot(w)` or `.cross(w)`".to_owned()
            }
            (BinOp::Mul(_), Value::Vector(_), Value::Matrix(_)) => {
                "a 3-vector times a 3×3 matrix is not defined: write `m.transpose() * v`".to_owned()
            }
            (BinOp::Div(_), _, _) => {
                format!("`/` divides by a scalar, not by {}", b.kind())
            }
            _ => format!(
                "`{}` does not take {} and {}",
                quote::ToTokens::to_token_stream(&op),
                a.kind(),
                b.kind()
            ),
        };
        self.error(op.span(), message)
    }

    /// A decimal literal, exact when it fits a rational with i64 parts.
    fn literal(&mut self, digits: &str, span: Span) -> Option<Value> {
        match decimal(digits) {
            Some(value) if value.to_f64().is_finite() => {
                Some(Value::Scalar(self.pool.constant(value)))
            }
            _ => self.error(span, "numeric literal out of range"),
        }
    }

    fn path(&mut self, path: &syn::ExprPath) -> Option<Value> {
        // Its span only for an error: `syn` finds it by printing the path back to tokens.
        let span = || path.span();
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
            return Some(Value::Scalar(self.pool.number(std::f64::consts::PI)));
        }
        if !plain || segments.len() != 1 {
            return self.error(span(), "unsupported path: expected a plain name");
        }
        let name = &segments[0];
        if name == "t" {
            return Some(Value::Scalar(self.pool.symbol(Symbol::Time)));
        }
        let what = self.context.what;
        let symbol = |s| Some(Value::Scalar(s));
        match self.scope.lookup(name) {
            Some(Binding::Coordinate(i)) => symbol(self.pool.symbol(Symbol::Coordinate(i))),
            Some(Binding::Parameter(i)) => symbol(self.pool.symbol(Symbol::Parameter(i))),
            Some(Binding::Momentum(i)) if self.context.momenta => {
                symbol(self.pool.symbol(Symbol::Momentum(i)))
            }
            Some(Binding::Momentum(_)) => {
                self.error(span(), format!("momentum `{name}` cannot appear in {what}"))
            }
            Some(Binding::Input(i)) if self.context.inputs => {
                symbol(self.pool.symbol(Symbol::Input(i)))
            }
            Some(Binding::Input(_)) => self.error(
                span(),
                format!(
                    "input `{name}` cannot appear in {what}: inputs act through `forces`, \
                     `loads` and `nonideal`"
                ),
            ),
            Some(Binding::Speed(i)) if self.context.velocities => {
                symbol(self.pool.symbol(Symbol::Speed(i)))
            }
            Some(Binding::Speed(_)) => self.error(
                span(),
                format!("speed `{name}` is a velocity, which cannot appear in {what}"),
            ),
            Some(Binding::Definition(i)) => {
                let definition = &self.scope.definitions()[i];
                match self.forbidden(definition.uses) {
                    Some(kind) => self.error(
                        span(),
                        format!("`{name}` depends on {kind}, which cannot appear in {what}"),
                    ),
                    None => Some(definition.value),
                }
            }
            None if self.scope.announced.contains(name) => self.error(
                span(),
                format!(
                    "`{name}` is defined later: a definition can use only the definitions \
                     before it"
                ),
            ),
            None => {
                let hint = suggestion(name, self.scope.names().chain(["t", "PI"]));
                self.error(
                    span(),
                    format!(
                        "unknown identifier `{name}`: not a coordinate, momentum, parameter, \
                         input, definition, `t` or `PI`{hint}"
                    ),
                )
            }
        }
    }

    /// The first kind of quantity in `uses` that this context does not allow, as messages name it.
    fn forbidden(&self, uses: Uses) -> Option<&'static str> {
        uses.beyond(Uses {
            velocities: self.context.velocities,
            momenta: self.context.momenta,
            inputs: self.context.inputs,
        })
    }

    /// The values of `args`, or `None` if any failed (all are parsed, for their errors).
    fn values(&mut self, args: &[&Expr]) -> Option<Vec<Value>> {
        let values: Vec<Option<Value>> = args.iter().map(|a| self.value(a)).collect();
        values.into_iter().collect()
    }

    /// A function or method applied to `args` (the receiver first for a method call) in the
    /// call expression `whole`, whose span (which `syn` finds by printing the call back to
    /// tokens) is computed only for an error.
    fn call(&mut self, name: &str, name_span: Span, whole: &Expr, args: &[&Expr]) -> Option<Value> {
        if name == "dot" && args.len() == 1 {
            return self.time_derivative(name_span, args[0]);
        }
        if name == "force" || name == "torque" {
            return self.error(
                name_span,
                format!("`{name}(..)` is a load: write it in `loads(..)`"),
            );
        }
        let Some(arity) = arity(name) else {
            let _ = self.values(args);
            let known = FUNCTIONS
                .iter()
                .copied()
                .chain(Func::ALL.iter().map(|f| f.name()))
                .chain(["torque"]);
            let hint = suggestion(name, known);
            return self.error(name_span, format!("unknown function `{name}`{hint}"));
        };
        let values = self.values(args)?;
        if values.len() != arity {
            return self.error(
                whole.span(),
                format!(
                    "`{name}` takes {arity} argument{} (a method call counts its receiver), got {}",
                    if arity == 1 { "" } else { "s" },
                    values.len()
                ),
            );
        }
        if name == "powi" {
            if let Expr::Lit(syn::ExprLit {
                lit: Lit::Float(f), ..
            }) = strip(args[1])
            {
                return self.error(
                    f.span(),
                    format!(
                        "`powi` takes an integer exponent: write `powi({})`, or `powf({})` for \
                         a real exponent",
                        f.base10_digits()
                            .trim_end_matches(".0")
                            .trim_end_matches('.'),
                        f.base10_digits()
                    ),
                );
            }
        }
        if name == "powf" {
            let exponent = match strip(args[1]) {
                Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => strip(&u.expr),
                other => other,
            };
            if let Expr::Lit(syn::ExprLit {
                lit: Lit::Int(i), ..
            }) = exponent
            {
                let k = i.base10_digits();
                return self.error(
                    i.span(),
                    format!(
                        "`powf` takes a real exponent, as in Rust: write `powf({k}.0)`, or \
                         `powi({k})` for an integer power"
                    ),
                );
            }
        }
        self.builtin(name, whole, args, &values)
    }

    /// The argument `k` as a scalar, or an error at it.
    fn scalar_arg(
        &mut self,
        name: &str,
        args: &[&Expr],
        values: &[Value],
        k: usize,
    ) -> Option<ExprId> {
        match values[k] {
            Value::Scalar(x) => Some(x),
            other => self.wrong_type(name, args[k], "a scalar", &other),
        }
    }

    fn vector_arg(
        &mut self,
        name: &str,
        args: &[&Expr],
        values: &[Value],
        k: usize,
    ) -> Option<[ExprId; 3]> {
        match values[k] {
            Value::Vector(v) => Some(v),
            other => self.wrong_type(name, args[k], "a 3-vector", &other),
        }
    }

    fn matrix_arg(
        &mut self,
        name: &str,
        args: &[&Expr],
        values: &[Value],
        k: usize,
    ) -> Option<Matrix> {
        match values[k] {
            Value::Matrix(m) => Some(m),
            other => self.wrong_type(name, args[k], "a 3×3 matrix", &other),
        }
    }

    fn wrong_type<T>(
        &mut self,
        name: &str,
        arg: &Expr,
        expected: &str,
        found: &Value,
    ) -> Option<T> {
        self.error(
            arg.span(),
            format!("`{name}` takes {expected} here, found {}", found.kind()),
        )
    }

    /// The scalars of every argument, or an error at each one that is not a scalar.
    fn scalar_args(&mut self, name: &str, args: &[&Expr], values: &[Value]) -> Option<Vec<ExprId>> {
        let scalars: Vec<Option<ExprId>> = (0..values.len())
            .map(|k| self.scalar_arg(name, args, values, k))
            .collect();
        scalars.into_iter().collect()
    }

    /// Applies a known function of the right arity to parsed `values`.
    fn builtin(
        &mut self,
        name: &str,
        whole: &Expr,
        args: &[&Expr],
        values: &[Value],
    ) -> Option<Value> {
        Some(match name {
            "vec3" => {
                let s = self.scalar_args(name, args, values)?;
                Value::Vector([s[0], s[1], s[2]])
            }
            "mat3" => {
                let s = self.scalar_args(name, args, values)?;
                let entries: [ExprId; 9] = s.try_into().ok()?;
                Value::Matrix(mechanics::constant_rotation(self.pool, entries))
            }
            "diag" => {
                let s = self.scalar_args(name, args, values)?;
                let zero = self.pool.zero();
                Value::Matrix(Matrix::plain([
                    s[0], zero, zero, zero, s[1], zero, zero, zero, s[2],
                ]))
            }
            "eye" => {
                let (zero, one) = (self.pool.zero(), self.pool.one());
                Value::Matrix(Matrix {
                    entries: [one, zero, zero, zero, one, zero, zero, zero, one],
                    rates: Some(Rates {
                        world: [zero; 3],
                        body: [zero; 3],
                    }),
                })
            }
            "rot_x" | "rot_y" | "rot_z" => {
                let angle = self.scalar_arg(name, args, values, 0)?;
                self.time_dependent(name, args[0], &values[0])?;
                let axis = usize::from(name.as_bytes()[4] - b'x');
                Value::Matrix(mechanics::axis_rotation(self.pool, axis, angle))
            }
            "rot_axis" => {
                let axis = self.vector_arg(name, args, values, 0);
                let angle = self.scalar_arg(name, args, values, 1);
                let (axis, angle) = (axis?, angle?);
                self.time_dependent(name, args[0], &values[0])?;
                self.time_dependent(name, args[1], &values[1])?;
                let moves = |s: Symbol| matches!(s, Symbol::Coordinate(_) | Symbol::Time);
                let fixed = !self.pool.any_depends_on(&axis, &moves);
                Value::Matrix(mechanics::axis_angle_rotation(
                    self.pool, axis, angle, fixed,
                ))
            }
            "quat_to_rot" => {
                let s = self.scalar_args(name, args, values)?;
                for k in 0..4 {
                    self.time_dependent(name, args[k], &values[k])?;
                }
                Value::Matrix(mechanics::quaternion_rotation(
                    self.pool,
                    [s[0], s[1], s[2], s[3]],
                ))
            }
            "dot" | "cross" => {
                let u = self.vector_arg(name, args, values, 0);
                let v = self.vector_arg(name, args, values, 1);
                let (u, v) = (u?, v?);
                if name == "dot" {
                    Value::Scalar(dot3(self.pool, u, v))
                } else {
                    Value::Vector(cross3(self.pool, u, v))
                }
            }
            "norm_squared" | "norm" | "normalize" => {
                let v = self.vector_arg(name, args, values, 0)?;
                let squared = dot3(self.pool, v, v);
                match name {
                    "norm_squared" => Value::Scalar(squared),
                    "norm" => Value::Scalar(self.pool.sqrt(squared)),
                    _ => {
                        let norm = self.pool.sqrt(squared);
                        Value::Vector(v.map(|x| self.pool.div(x, norm)))
                    }
                }
            }
            "x" | "y" | "z" => {
                let v = self.vector_arg(name, args, values, 0)?;
                Value::Scalar(v[usize::from(name.as_bytes()[0] - b'x')])
            }
            "transpose" => {
                let m = self.matrix_arg(name, args, values, 0)?;
                Value::Matrix(transpose(self.pool, &m))
            }
            "angular_velocity" | "body_angular_velocity" => {
                let r = self.matrix_arg(name, args, values, 0)?;
                self.rate_allowed(name, whole)?;
                self.time_dependent(name, args[0], &values[0])?;
                Value::Vector(if name == "angular_velocity" {
                    mechanics::angular_velocity(self.pool, &r)
                } else {
                    mechanics::body_angular_velocity(self.pool, &r)
                })
            }
            "kinetic_energy" => {
                let m = self.scalar_arg(name, args, values, 0);
                let inertia = self.matrix_arg(name, args, values, 1);
                let p = self.vector_arg(name, args, values, 2);
                let r = self.matrix_arg(name, args, values, 3);
                let (m, inertia, p, r) = (m?, inertia?, p?, r?);
                self.rate_allowed(name, whole)?;
                self.time_dependent(name, args[2], &values[2])?;
                self.time_dependent(name, args[3], &values[3])?;
                Value::Scalar(mechanics::kinetic_energy(self.pool, m, &inertia, p, &r))
            }
            _ => {
                let s = self.scalar_args(name, args, values)?;
                let result = match Func::from_name(name) {
                    Some(f) => self.pool.call(f, &s),
                    None if name == "powi" => {
                        let exponent = self.pool.as_number(s[1]).and_then(Number::as_integer);
                        if exponent.is_none() {
                            return self.error(args[1].span(), "`powi` needs an integer exponent");
                        }
                        self.pool.pow(s[0], s[1])
                    }
                    None => self.pool.pow(s[0], s[1]),
                };
                Value::Scalar(self.defined(result, &s, whole)?)
            }
        })
    }

    /// An error when this context has no velocities, for the functions that make them.
    fn rate_allowed(&mut self, name: &str, whole: &Expr) -> Option<()> {
        if self.context.velocities {
            return Some(());
        }
        let what = self.context.what;
        self.error(
            whole.span(),
            format!("`{name}` gives generalized velocities, which cannot appear in {what}"),
        )
    }

    /// An error when `value` depends on anything but q, t and the parameters, so that its time
    /// derivative cannot be formed.
    fn time_dependent(&mut self, name: &str, arg: &Expr, value: &Value) -> Option<()> {
        let Some(kind) = Uses::of(self.pool, value).beyond(Uses::default()) else {
            return Some(());
        };
        self.error(
            arg.span(),
            format!(
                "`{name}` needs an expression of the coordinates and time only, whose time \
                 derivative udk forms; this one depends on {kind}"
            ),
        )
    }

    /// A load: `force(F, p)` (a world-frame force F applied at the point p) or `torque(T, R)` (a
    /// world-frame torque T on the body of orientation R).
    pub(super) fn load(&mut self, expr: &Expr) -> Option<Load> {
        let call = match strip(expr) {
            Expr::Call(call) => function_name(&call.func)
                .filter(|(name, _)| name == "force" || name == "torque")
                .map(|name| (name, call)),
            _ => None,
        };
        let Some(((name, _), call)) = call else {
            let _ = self.value(expr);
            return self.error(
                expr.span(),
                "a load is `force(F, p)` (force F at point p) or `torque(T, R)` (torque T on                  the body of orientation R), with F, p and T 3-vectors in the world frame",
            );
        };
        let args: Vec<&Expr> = call.args.iter().collect();
        let values = self.values(&args)?;
        if values.len() != 2 {
            return self.error(
                expr.span(),
                format!("`{name}` takes 2 arguments, got {}", values.len()),
            );
        }
        let vector = self.vector_arg(&name, &args, &values, 0)?;
        self.time_dependent(&name, args[1], &values[1])?;
        if name == "force" {
            let point = self.vector_arg(&name, &args, &values, 1)?;
            Some(Load::Force {
                force: vector,
                point,
            })
        } else {
            let r = self.matrix_arg(&name, &args, &values, 1)?;
            let omega = mechanics::angular_velocity(self.pool, &r);
            Some(Load::Torque {
                torque: vector,
                angular_velocity: omega,
            })
        }
    }

    /// The rigid body of `kinetic_energy(m, I, p, R)` when `expr` is that call with well-typed
    /// arguments, else `None` (with no error: the expression is parsed whole elsewhere).
    pub(super) fn body(&mut self, expr: &Expr) -> Option<Body> {
        let Expr::Call(call) = strip(expr) else {
            return None;
        };
        let (name, _) = function_name(&call.func)?;
        if name != "kinetic_energy" || call.args.len() != 4 {
            return None;
        }
        let args: Vec<&Expr> = call.args.iter().collect();
        let values = self.values(&args)?;
        match values[..] {
            [Value::Scalar(mass), Value::Matrix(inertia), Value::Vector(centre), Value::Matrix(orientation)] => {
                Some(Body {
                    mass,
                    inertia,
                    centre,
                    orientation,
                })
            }
            _ => None,
        }
    }

    /// `dot(EXPR)`: the total time derivative of an expression of q and t.
    fn time_derivative(&mut self, name_span: Span, arg: &Expr) -> Option<Value> {
        let bare = match strip(arg) {
            Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
            _ => None,
        };
        if let Some(n) = &bare {
            let message = match self.scope.lookup(n) {
                Some(Binding::Parameter(_)) => Some(format!(
                    "`dot` takes a generalized coordinate; `{n}` is a parameter"
                )),
                Some(Binding::Momentum(_)) => Some(format!(
                    "`dot` takes a generalized coordinate; `{n}` is a momentum"
                )),
                Some(Binding::Input(_)) => Some(format!(
                    "`dot` takes a generalized coordinate; `{n}` is an input"
                )),
                Some(Binding::Speed(_)) => Some(format!(
                    "`dot` takes a generalized coordinate; `{n}` is a speed, whose rate the \
                     equations of motion give"
                )),
                None if n == "t" => {
                    Some("`dot` takes a generalized coordinate, not `t`".to_owned())
                }
                _ => None,
            };
            if let Some(message) = message {
                return self.error(arg.span(), message);
            }
        }
        if !self.context.velocities {
            let what = self.context.what;
            let _ = self.value(arg);
            return self.error(
                name_span,
                format!("a generalized velocity `dot(..)` cannot appear in {what}"),
            );
        }
        let value = self.value(arg)?;
        self.time_dependent("dot", arg, &value)?;
        Some(mechanics::time_derivative(self.pool, &value))
    }
}

/// A rigid body of the Lagrangian, from a term `kinetic_energy(m, I, p, R)`.
#[derive(Clone, Copy, Debug)]
pub struct Body {
    /// Mass m.
    pub mass: ExprId,
    /// Inertia about the centre of mass, in body axes.
    pub inertia: Matrix,
    /// Centre of mass p(q, t), world frame.
    pub centre: [ExprId; 3],
    /// Orientation R(q, t).
    pub orientation: Matrix,
}

/// A parsed load.
#[derive(Clone, Copy, Debug)]
pub enum Load {
    /// A force F (world frame) applied at the point p(q, t): Qᵢ += F·∂p/∂qᵢ.
    Force {
        /// F.
        force: [ExprId; 3],
        /// p.
        point: [ExprId; 3],
    },
    /// A torque T (world frame) on a body of angular velocity ω: Qᵢ += T·∂ω/∂q̇ᵢ.
    Torque {
        /// T.
        torque: [ExprId; 3],
        /// ω, the world-frame angular velocity of the body.
        angular_velocity: [ExprId; 3],
    },
}

/// The two kinds of operator chain: sums and products.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Chain {
    /// `+` and `-`.
    Sum,
    /// `*` and `/`.
    Product,
}

/// Which chain `op` continues, `None` for an operator the language does not have.
fn chain_class(op: BinOp) -> Option<Chain> {
    match op {
        BinOp::Add(_) | BinOp::Sub(_) => Some(Chain::Sum),
        BinOp::Mul(_) | BinOp::Div(_) => Some(Chain::Product),
        _ => None,
    }
}

/// The number of arguments of a known function (a method's receiver counted), `None` for an
/// unknown name.
fn arity(name: &str) -> Option<usize> {
    Some(match name {
        "eye" => 0,
        "rot_x"
        | "rot_y"
        | "rot_z"
        | "norm"
        | "norm_squared"
        | "normalize"
        | "transpose"
        | "x"
        | "y"
        | "z"
        | "angular_velocity"
        | "body_angular_velocity" => 1,
        "powi" | "powf" | "rot_axis" | "cross" | "dot" => 2,
        "vec3" | "diag" => 3,
        "quat_to_rot" | "kinetic_energy" => 4,
        "mat3" => 9,
        _ => return Func::from_name(name).map(Func::arity),
    })
}

/// `, did you mean `x`?` for the known name nearest to `name`, or nothing when none is close.
fn suggestion<'n>(name: &str, known: impl Iterator<Item = &'n str>) -> String {
    known
        .map(|k| (strsim::damerau_levenshtein(name, k), k))
        .filter(|&(d, k)| d <= 2.max(name.len() / 3) && d < k.len().max(name.len()))
        .min()
        .map(|(_, k)| format!("; did you mean `{k}`?"))
        .unwrap_or_default()
}

/// `expr` without enclosing parentheses or invisible groups.
pub(super) fn strip(mut expr: &Expr) -> &Expr {
    loop {
        match expr {
            Expr::Paren(p) => expr = &p.expr,
            Expr::Group(g) => expr = &g.expr,
            _ => return expr,
        }
    }
}

/// The name of a called function: `f` or `f64::f`.
pub(super) fn function_name(func: &Expr) -> Option<(String, Span)> {
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

/// The span of the first token of `expr`, found without recursion (a chain's first operand is
/// its first token), for errors about expressions too deep to walk again.
fn first_span(mut expr: &Expr) -> Span {
    loop {
        expr = match expr {
            Expr::Binary(b) => &b.left,
            Expr::MethodCall(m) => &m.receiver,
            Expr::Call(c) => &c.func,
            Expr::Paren(p) => return p.paren_token.span.open(),
            Expr::Unary(u) => return u.op.span(),
            other => return other.span(),
        }
    }
}
