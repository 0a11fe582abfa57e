//! The canonicalizing constructors of [`Pool`]: every node is made through these, so that two
//! expressions that canonicalize alike are one node.
//!
//! Canonical forms:
//! - numbers: exact rationals where the inputs are exact (checked `i64`, else float); an
//!   integer-valued float is the integer;
//! - sums and products are flattened; like terms c₁·x + c₂·x and like powers x^a·x^b are
//!   collected; 0 and 1 are dropped; the one numeric operand, if any, comes first and the
//!   others follow sorted by id;
//! - negation is the product (−1)·x;
//! - sums are primitive (no common rational factor, lowest-id term positive), the content
//!   being a coefficient outside: 2a + 2b = 2·(a + b);
//! - division x/y is x·y^−1;
//! - square roots are `Call(Sqrt, [x])`; x^(k/2) for odd k is sqrt(x)^k; sqrt(x)^(2k) is x^k;
//! - an integer power of a product or a power is distributed: (x·y)^k = x^k·y^k,
//!   (x^a)^k = x^(a·k);
//! - c·R·sin²u + c·R·cos²u = c·R (same coefficient c and cofactor R);
//! - sin, tan, asin, atan, sinh, tanh of a negated argument pull the sign out; cos, cosh and
//!   abs drop it;
//! - functions of exact constants fold only when the result is exact (sin 0, cos 0, exp 0,
//!   ln 1, sqrt of a perfect square, abs); of float constants they fold to floats, except
//!   sin and cos of a float within 4 ulps of a multiple of π/2, which fold to the exact 0 or
//!   ±1 it stands for (`rot_x(PI / 2)` is an exact quarter turn).

use super::{ExprId, Func, Node, Number, Pool};
use rustc_hash::FxHashMap as HashMap;

impl Pool {
    /// The constant `value`, normalized (see [`Number::from_f64`]).
    pub fn constant(&mut self, value: Number) -> ExprId {
        let value = match value {
            Number::Float(x) => Number::from_f64(x),
            r => r,
        };
        self.intern(Node::Number(value))
    }

    /// The constant `x` (exact when `x` is an integer below 2⁵³ in magnitude).
    pub fn number(&mut self, x: f64) -> ExprId {
        self.constant(Number::from_f64(x))
    }

    /// The exact constant p/q.
    ///
    /// # Panics
    /// When q = 0.
    pub fn rational(&mut self, p: i64, q: i64) -> ExprId {
        let value = Number::rational(p, q).expect("rational with zero denominator");
        self.constant(value)
    }

    /// The exact integer k.
    pub fn integer(&mut self, k: i64) -> ExprId {
        self.constant(Number::Rational(k, 1))
    }

    /// The constant 0.
    pub fn zero(&mut self) -> ExprId {
        self.constant(Number::ZERO)
    }

    /// The constant 1.
    pub fn one(&mut self) -> ExprId {
        self.constant(Number::ONE)
    }

    /// The leaf for `symbol`.
    pub fn symbol(&mut self, symbol: super::Symbol) -> ExprId {
        self.intern(Node::Symbol(symbol))
    }

    /// The value of `id` when it is a constant.
    pub fn as_number(&self, id: ExprId) -> Option<Number> {
        match self.get(id) {
            Node::Number(n) => Some(*n),
            _ => None,
        }
    }

    /// Whether `id` is the constant 0.
    pub fn is_zero(&self, id: ExprId) -> bool {
        self.as_number(id).is_some_and(Number::is_zero)
    }

    /// Whether `id` is the constant 1.
    pub fn is_one(&self, id: ExprId) -> bool {
        self.as_number(id).is_some_and(Number::is_one)
    }

    /// The canonical sum of `terms` (0 when empty). The result is a primitive `Add`, or c times
    /// one (`Mul([c, Add])`), or a single term: see the module docs.
    pub fn add(&mut self, terms: &[ExprId]) -> ExprId {
        let mut constant = Number::ZERO;
        let mut collected: Vec<(ExprId, Number)> = Vec::new();
        let mut slot: HashMap<ExprId, usize> = HashMap::default();
        let mut pending: Vec<(ExprId, Number)> =
            terms.iter().rev().map(|&t| (t, Number::ONE)).collect();
        while let Some((term, k)) = pending.pop() {
            match self.get(term) {
                Node::Number(n) => constant = constant + k * *n,
                Node::Add(ops) => pending.extend(ops.iter().rev().map(|&o| (o, k))),
                Node::Mul(ops) if ops.len() == 2 && self.is_scaled_sum(ops) => {
                    let Node::Number(c) = *self.get(ops[0]) else {
                        unreachable!("checked by is_scaled_sum")
                    };
                    let Node::Add(inner) = self.get(ops[1]) else {
                        unreachable!("checked by is_scaled_sum")
                    };
                    pending.extend(inner.iter().rev().map(|&o| (o, k * c)));
                }
                _ => {
                    let (c, rest) = self.split_coefficient(term);
                    match slot.get(&rest) {
                        Some(&i) => collected[i].1 = collected[i].1 + k * c,
                        None => {
                            slot.insert(rest, collected.len());
                            collected.push((rest, k * c));
                        }
                    }
                }
            }
        }
        collected.retain(|(_, c)| !c.is_zero());
        if let Some((i, j, rest)) = self.pythagorean_pair(&collected) {
            // c·R·sin²u + c·R·cos²u = c·R
            let merged = self.scale(collected[i].1, rest);
            let mut terms = vec![merged, self.constant(constant)];
            for (k, &(rest, c)) in collected.iter().enumerate() {
                if k != i && k != j {
                    terms.push(self.scale(c, rest));
                }
            }
            return self.add(&terms);
        }
        if collected.is_empty() || (collected.len() == 1 && constant.is_zero()) {
            return match collected.first() {
                Some(&(rest, c)) => self.scale(c, rest),
                None => self.constant(constant),
            };
        }
        let content = content(&collected, constant);
        let mut ops: Vec<ExprId> = Vec::with_capacity(collected.len() + 1);
        for (rest, c) in collected {
            ops.push(self.scale(divide(c, content), rest));
        }
        ops.sort_unstable();
        if !constant.is_zero() {
            ops.insert(0, self.constant(divide(constant, content)));
        }
        let sum = self.intern(Node::Add(ops.into()));
        if content.is_one() {
            sum
        } else {
            let content = self.constant(content);
            self.intern(Node::Mul([content, sum].into()))
        }
    }

    /// `x` kept as one operand of the sums it enters (`Node::Shared`): a sum, or the sum of a
    /// scaled sum c·s (giving c·Shared(s)); any other `x` is returned as it is, being an
    /// operand already. Equal in value to `x`; x − x still cancels. Use it for a value that a
    /// recursion carries into many later sums, so that their cost does not grow with the
    /// recursion's depth (see the module docs of [`crate::expr`]).
    pub fn shared(&mut self, x: ExprId) -> ExprId {
        match self.get(x) {
            Node::Add(_) => self.intern(Node::Shared(x)),
            Node::Mul(ops) if ops.len() == 2 && self.is_scaled_sum(ops) => {
                let (c, s) = (ops[0], ops[1]);
                let s = self.intern(Node::Shared(s));
                self.mul(&[c, s])
            }
            _ => x,
        }
    }

    /// The sum of `terms` kept as one operand: [`Pool::shared`] of [`Pool::add`].
    pub fn shared_sum(&mut self, terms: &[ExprId]) -> ExprId {
        let total = self.add(terms);
        self.shared(total)
    }

    /// The canonical product of `factors` (1 when empty).
    pub fn mul(&mut self, factors: &[ExprId]) -> ExprId {
        let mut coefficient = Number::ONE;
        // (base, exponents, the factor itself when it is alone)
        let mut groups: Vec<(ExprId, Vec<ExprId>, ExprId)> = Vec::new();
        let mut slot: HashMap<ExprId, usize> = HashMap::default();
        let mut pending: Vec<ExprId> = factors.iter().rev().copied().collect();
        while let Some(factor) = pending.pop() {
            match self.get(factor) {
                Node::Number(n) => coefficient = coefficient * *n,
                Node::Mul(ops) => pending.extend(ops.iter().rev()),
                _ => {
                    let (base, exponent) = self.split_power(factor);
                    match slot.get(&base) {
                        Some(&i) => groups[i].1.push(exponent),
                        None => {
                            slot.insert(base, groups.len());
                            groups.push((base, vec![exponent], factor));
                        }
                    }
                }
            }
        }
        if coefficient.is_zero() {
            return self.zero();
        }
        let mut ops = Vec::with_capacity(groups.len());
        let mut regroup = false;
        for (base, exponents, alone) in groups {
            if exponents.len() == 1 {
                ops.push(alone);
                continue;
            }
            let exponent = self.add(&exponents);
            let power = self.pow(base, exponent);
            regroup |= match self.get(power) {
                Node::Number(_) | Node::Mul(_) => true,
                _ => self.split_power(power).0 != base,
            };
            ops.push(power);
        }
        if regroup {
            ops.push(self.constant(coefficient));
            return self.mul(&ops);
        }
        ops.sort_unstable();
        if !coefficient.is_one() {
            ops.insert(0, self.constant(coefficient));
        }
        match ops.len() {
            0 => self.one(),
            1 => ops[0],
            _ => self.intern(Node::Mul(ops.into())),
        }
    }

    /// base^exponent, canonical.
    pub fn pow(&mut self, base: ExprId, exponent: ExprId) -> ExprId {
        let Some(e) = self.as_number(exponent) else {
            if self.is_one(base) {
                return base;
            }
            return self.intern(Node::Pow(base, exponent));
        };
        if e.is_zero() {
            return self.one();
        }
        if e.is_one() {
            return base;
        }
        if let Some(b) = self.as_number(base) {
            if let Some(folded) = fold_power(b, e) {
                return self.constant(folded);
            }
        }
        if let Some(k) = e.as_integer() {
            match self.get(base).clone() {
                Node::Pow(inner, a) => {
                    let product = self.mul(&[a, exponent]);
                    return self.pow(inner, product);
                }
                Node::Mul(ops) => {
                    let powers: Vec<ExprId> = ops.iter().map(|&o| self.pow(o, exponent)).collect();
                    return self.mul(&powers);
                }
                Node::Call(Func::Sqrt, args) if k % 2 == 0 => {
                    let half = self.integer(k / 2);
                    return self.pow(args[0], half);
                }
                _ => {}
            }
        } else if let Number::Rational(p, 2) = e {
            let root = self.call(Func::Sqrt, &[base]);
            let p = self.integer(p);
            return self.pow(root, p);
        }
        self.intern(Node::Pow(base, exponent))
    }

    /// base^k for an integer k.
    pub fn powi(&mut self, base: ExprId, k: i64) -> ExprId {
        let k = self.integer(k);
        self.pow(base, k)
    }

    /// −x, as (−1)·x.
    pub fn neg(&mut self, x: ExprId) -> ExprId {
        let minus_one = self.integer(-1);
        self.mul(&[minus_one, x])
    }

    /// a − b.
    pub fn sub(&mut self, a: ExprId, b: ExprId) -> ExprId {
        let minus_b = self.neg(b);
        self.add(&[a, minus_b])
    }

    /// 1/x, as x^−1.
    pub fn recip(&mut self, x: ExprId) -> ExprId {
        self.powi(x, -1)
    }

    /// 1/x kept as one operand of the products it enters (`Node::Shared` of x^−1), so that
    /// the emitted code divides once and multiplies by the quotient wherever x^−1 appears,
    /// where each product holding x^−1 would otherwise be a division of its own. The
    /// reciprocal of a number is that number. Equal in value
    /// to x^−1, but x · (1/x) no longer cancels: use it for a divisor that many products
    /// share, such as the pivots of a factorization.
    pub fn shared_reciprocal(&mut self, x: ExprId) -> ExprId {
        let inverse = self.recip(x);
        match self.get(inverse) {
            Node::Pow(..) => self.intern(Node::Shared(inverse)),
            // c⁻¹ · s⁻¹ for a scaled sum c · s.
            Node::Mul(ops) if ops.len() == 2 && matches!(self.get(ops[1]), Node::Pow(..)) => {
                let (c, power) = (ops[0], ops[1]);
                let power = self.intern(Node::Shared(power));
                self.mul(&[c, power])
            }
            _ => inverse,
        }
    }

    /// a/b, as a·b^−1.
    pub fn div(&mut self, a: ExprId, b: ExprId) -> ExprId {
        let inverse = self.recip(b);
        self.mul(&[a, inverse])
    }

    /// √x, as `Call(Sqrt, [x])`.
    pub fn sqrt(&mut self, x: ExprId) -> ExprId {
        self.call(Func::Sqrt, &[x])
    }

    /// The function `func` applied to `args`, canonical.
    ///
    /// # Panics
    /// When `args.len()` is not `func.arity()`.
    pub fn call(&mut self, func: Func, args: &[ExprId]) -> ExprId {
        assert_eq!(
            args.len(),
            func.arity(),
            "wrong argument count for {func:?}"
        );
        if let Some(folded) = self.fold_call(func, args) {
            return folded;
        }
        if func.arity() == 1 {
            if let Some(positive) = self.negated(args[0]) {
                match func {
                    Func::Sin | Func::Tan | Func::Asin | Func::Atan | Func::Sinh | Func::Tanh => {
                        let value = self.call(func, &[positive]);
                        return self.neg(value);
                    }
                    Func::Cos | Func::Cosh | Func::Abs => return self.call(func, &[positive]),
                    _ => {}
                }
            }
        }
        self.intern(Node::Call(func, args.into()))
    }

    /// When `x` is c·y with c < 0 (or a negative constant), −x.
    fn negated(&mut self, x: ExprId) -> Option<ExprId> {
        let negative = match self.get(x) {
            Node::Number(n) => n.is_negative(),
            Node::Mul(ops) => self.as_number(ops[0]).is_some_and(Number::is_negative),
            _ => false,
        };
        negative.then(|| self.neg(x))
    }

    /// The value of a function of constants, when it is exact or an argument is a float.
    fn fold_call(&mut self, func: Func, args: &[ExprId]) -> Option<ExprId> {
        let values: Vec<Number> = args
            .iter()
            .map(|&a| self.as_number(a))
            .collect::<Option<_>>()?;
        let x = values[0];
        let exact = match func {
            Func::Sin | Func::Tan | Func::Asin | Func::Atan | Func::Sinh | Func::Tanh
                if x.is_zero() =>
            {
                Some(Number::ZERO)
            }
            Func::Cos | Func::Cosh | Func::Exp if x.is_zero() => Some(Number::ONE),
            // sin and cos of a float multiple of π/2 (PI / 2, -PI, 1.5 * PI, ...) are the exact
            // 0 or ±1 they stand for, so that `rot_x(PI / 2)` is an exact quarter turn:
            // sin(kπ/2) = 0, 1, 0, −1 for k mod 4 = 0, 1, 2, 3, and cos(kπ/2) = sin((k+1)π/2).
            Func::Sin | Func::Cos => quarter_turns(x).map(|k| {
                let k = if func == Func::Cos { k + 1 } else { k };
                match k.rem_euclid(4) {
                    1 => Number::ONE,
                    3 => Number::Rational(-1, 1),
                    _ => Number::ZERO,
                }
            }),
            Func::Ln if x.is_one() => Some(Number::ZERO),
            Func::Sqrt => x.exact_sqrt(),
            Func::Abs => match x {
                Number::Rational(p, q) => Some(Number::Rational(p.abs(), q)),
                Number::Float(f) => Some(Number::Float(f.abs())),
            },
            _ => None,
        };
        if let Some(value) = exact {
            return Some(self.constant(value));
        }
        if !values.iter().any(|v| matches!(v, Number::Float(_))) {
            return None;
        }
        let floats: Vec<f64> = values.iter().map(|v| v.to_f64()).collect();
        let value = func.apply(&floats);
        value.is_finite().then(|| self.number(value))
    }

    /// Two collected terms c·R·sin²u and c·R·cos²u (same c and R), as their indices and R.
    fn pythagorean_pair(
        &mut self,
        collected: &[(ExprId, Number)],
    ) -> Option<(usize, usize, ExprId)> {
        let two = self
            .index
            .get(&Node::Number(Number::Rational(2, 1)))
            .copied()?;
        for (i, &(rest, c)) in collected.iter().enumerate() {
            let factors: Vec<ExprId> = match self.get(rest) {
                Node::Mul(ops) => ops.to_vec(),
                _ => vec![rest],
            };
            for (k, &factor) in factors.iter().enumerate() {
                let Node::Pow(base, exponent) = self.get(factor) else {
                    continue;
                };
                let Node::Call(Func::Sin, u) = self.get(*base) else {
                    continue;
                };
                if *exponent != two {
                    continue;
                }
                let Some(other) = self.cosine_counterpart(&factors, k, u, two) else {
                    continue;
                };
                let Some(j) = collected.iter().position(|&(r, d)| r == other && d == c) else {
                    continue;
                };
                let remaining: Vec<ExprId> = (factors.iter().enumerate())
                    .filter(|&(m, _)| m != k)
                    .map(|(_, &f)| f)
                    .collect();
                let rest = match remaining.len() {
                    0 => self.one(),
                    1 => remaining[0],
                    _ => self.intern(Node::Mul(remaining.into())),
                };
                return Some((i, j, rest));
            }
        }
        None
    }

    /// The existing node `factors` with factor k replaced by cos(u)², if the pool has it.
    fn cosine_counterpart(
        &self,
        factors: &[ExprId],
        k: usize,
        u: &[ExprId],
        two: ExprId,
    ) -> Option<ExprId> {
        let cos = *self.index.get(&Node::Call(Func::Cos, u.into()))?;
        let cos2 = *self.index.get(&Node::Pow(cos, two))?;
        let mut other = factors.to_vec();
        other[k] = cos2;
        other.sort_unstable();
        match other.len() {
            1 => Some(other[0]),
            _ => self.index.get(&Node::Mul(other.into())).copied(),
        }
    }

    /// Whether a product's operands are [number, sum].
    fn is_scaled_sum(&self, ops: &[ExprId]) -> bool {
        matches!(
            (self.get(ops[0]), self.get(ops[1])),
            (Node::Number(_), Node::Add(_))
        )
    }

    /// A term as (numeric coefficient, the rest), so that c₁·x and c₂·x can be collected.
    fn split_coefficient(&mut self, term: ExprId) -> (Number, ExprId) {
        if let Node::Mul(ops) = self.get(term) {
            if let Some(c) = self.as_number(ops[0]) {
                let rest: Box<[ExprId]> = ops[1..].into();
                let rest = if rest.len() == 1 {
                    rest[0]
                } else {
                    self.intern(Node::Mul(rest))
                };
                return (c, rest);
            }
        }
        (Number::ONE, term)
    }

    /// c·rest, where rest is a canonical term without a numeric coefficient.
    fn scale(&mut self, c: Number, rest: ExprId) -> ExprId {
        if c.is_one() {
            return rest;
        }
        let c = self.constant(c);
        let ops: Box<[ExprId]> = match self.get(rest) {
            Node::Mul(ops) => std::iter::once(c).chain(ops.iter().copied()).collect(),
            _ => [c, rest].into(),
        };
        self.intern(Node::Mul(ops))
    }

    /// A factor as (base, exponent), so that x^a and x^b can be collected.
    fn split_power(&mut self, factor: ExprId) -> (ExprId, ExprId) {
        match self.get(factor) {
            Node::Pow(base, exponent) => (*base, *exponent),
            _ => (factor, self.one()),
        }
    }
}

/// k when `x` is a float within 4 ulps of k·π/2 (|k| ≤ 2²⁰, k ≠ 0), else `None`.
fn quarter_turns(x: Number) -> Option<i64> {
    let Number::Float(x) = x else {
        return None;
    };
    let k = (x / std::f64::consts::FRAC_PI_2).round();
    let close = (x - k * std::f64::consts::FRAC_PI_2).abs() <= 4.0 * f64::EPSILON * x.abs();
    (k != 0.0 && k.abs() <= f64::from(1u32 << 20) && close).then_some(k as i64)
}

/// The content of a sum with these (rest, coefficient) terms and constant: ± the greatest
/// common divisor of the rational coefficients (1 when one is a float or it does not fit),
/// with the sign of the coefficient of the term of lowest id.
fn content(terms: &[(ExprId, Number)], constant: Number) -> Number {
    let leading = terms.iter().min_by_key(|(rest, _)| *rest).map(|(_, c)| *c);
    let sign = if leading.is_some_and(Number::is_negative) {
        Number::MINUS_ONE
    } else {
        Number::ONE
    };
    let mut numerators: i128 = 0;
    let mut denominators: i128 = 1;
    let coefficients = terms.iter().map(|(_, c)| *c).chain(Some(constant));
    for c in coefficients.filter(|c| !c.is_zero()) {
        let Number::Rational(p, q) = c else {
            return sign;
        };
        numerators = gcd(numerators, i128::from(p).abs());
        denominators = denominators / gcd(denominators, i128::from(q)) * i128::from(q);
        if denominators > i128::from(i64::MAX) {
            return sign;
        }
    }
    match (i64::try_from(numerators), i64::try_from(denominators)) {
        (Ok(p), Ok(q)) => sign * Number::rational(p, q).expect("positive denominator"),
        _ => sign,
    }
}

fn gcd(mut a: i128, mut b: i128) -> i128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// c / content, where content is a non-zero number.
fn divide(c: Number, content: Number) -> Number {
    let inverse = content.powi(-1).expect("content is not zero");
    c * inverse
}

/// b^e for constants, when the result is exact or an operand is a float (and finite).
fn fold_power(b: Number, e: Number) -> Option<Number> {
    if let Some(k) = e.as_integer() {
        return b.powi(k);
    }
    if let Number::Rational(p, 2) = e {
        if let Some(root) = b.exact_sqrt() {
            return root.powi(p);
        }
    }
    if matches!(b, Number::Float(_)) || matches!(e, Number::Float(_)) {
        let value = b.to_f64().powf(e.to_f64());
        return value.is_finite().then_some(Number::from_f64(value));
    }
    None
}

impl Func {
    /// How many arguments the function takes (2 for `Atan2`, else 1).
    pub fn arity(self) -> usize {
        match self {
            Func::Atan2 => 2,
            _ => 1,
        }
    }

    /// The function's name in Rust (`f64` method) and in the expression language.
    pub fn name(self) -> &'static str {
        match self {
            Func::Sin => "sin",
            Func::Cos => "cos",
            Func::Tan => "tan",
            Func::Asin => "asin",
            Func::Acos => "acos",
            Func::Atan => "atan",
            Func::Atan2 => "atan2",
            Func::Sinh => "sinh",
            Func::Cosh => "cosh",
            Func::Tanh => "tanh",
            Func::Exp => "exp",
            Func::Ln => "ln",
            Func::Abs => "abs",
            Func::Sqrt => "sqrt",
        }
    }

    /// Every function, in declaration order.
    pub const ALL: [Func; 14] = [
        Func::Sin,
        Func::Cos,
        Func::Tan,
        Func::Asin,
        Func::Acos,
        Func::Atan,
        Func::Atan2,
        Func::Sinh,
        Func::Cosh,
        Func::Tanh,
        Func::Exp,
        Func::Ln,
        Func::Abs,
        Func::Sqrt,
    ];

    /// The function named `name` in the expression language, if any.
    pub fn from_name(name: &str) -> Option<Func> {
        Func::ALL.into_iter().find(|f| f.name() == name)
    }

    /// The function's value at `args` (`args.len()` = arity; atan2 takes (y, x)).
    pub fn apply(self, args: &[f64]) -> f64 {
        let x = args[0];
        match self {
            Func::Sin => x.sin(),
            Func::Cos => x.cos(),
            Func::Tan => x.tan(),
            Func::Asin => x.asin(),
            Func::Acos => x.acos(),
            Func::Atan => x.atan(),
            Func::Atan2 => x.atan2(args[1]),
            Func::Sinh => x.sinh(),
            Func::Cosh => x.cosh(),
            Func::Tanh => x.tanh(),
            Func::Exp => x.exp(),
            Func::Ln => x.ln(),
            Func::Abs => x.abs(),
            Func::Sqrt => x.sqrt(),
        }
    }
}
