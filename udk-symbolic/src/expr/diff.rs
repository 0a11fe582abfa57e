//! Differentiation: partial derivatives with respect to a symbol, the total time derivative
//! along q̇ and q̈, total derivatives along given rates, and substitution.
//!
//! Every derivative is memoized per node, so differentiating a DAG costs time linear in its
//! size and the result shares subexpressions with its input.

use super::{ExprId, Func, Node, Pool, Symbol};
use rustc_hash::FxHashMap as HashMap;

/// What a memoized derivative is taken with respect to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Wrt {
    /// ∂/∂symbol.
    Symbol(Symbol),
    /// d/dt along q̇ and q̈.
    Time,
    /// ∂/∂t + Σ q̇ᵢ ∂/∂qᵢ.
    Convective,
}

/// The derivative of each leaf, given the pool to build it in.
type Leaf<'a> = dyn FnMut(&mut Pool, Symbol) -> ExprId + 'a;

/// [`Pool::operation_count`] of a growing set of expressions, kept up to date as they are
/// added, each distinct node counted once over every [`OperationCount::add`]: for stopping the
/// construction of a form as soon as it costs more than another.
#[derive(Clone, Debug, Default)]
pub struct OperationCount {
    /// Whether each node (by id) has been counted.
    seen: Vec<bool>,
    /// The operations counted.
    total: usize,
}

impl OperationCount {
    /// Counts the nodes of `ids` not counted before and returns the total: the
    /// [`Pool::operation_count`] of all the expressions added so far.
    pub fn add(&mut self, pool: &Pool, ids: &[ExprId]) -> usize {
        // Operands come before their users in the pool, so the largest id bounds the nodes
        // reached.
        let size = ids.iter().map(|id| id.0 as usize + 1).max().unwrap_or(0);
        if self.seen.len() < size {
            self.seen.resize(size, false);
        }
        let mut stack = ids.to_vec();
        while let Some(node) = stack.pop() {
            if std::mem::replace(&mut self.seen[node.0 as usize], true) {
                continue;
            }
            match pool.get(node) {
                Node::Number(_) | Node::Symbol(_) => {}
                Node::Add(ops) | Node::Mul(ops) => {
                    self.total += ops.len() - 1;
                    stack.extend(ops.iter());
                }
                Node::Call(_, ops) => {
                    self.total += 1;
                    stack.extend(ops.iter());
                }
                Node::Pow(b, e) => {
                    self.total += 1;
                    stack.extend([*b, *e]);
                }
                Node::Shared(x) => stack.push(*x),
            }
        }
        self.total
    }
}

impl Pool {
    /// ∂(id)/∂symbol, with the chain rule for every function (d|x|/dx = x/|x|,
    /// d sqrt(x)/dx = ½·sqrt(x)⁻¹, d atan2(y, x) = (x dy − y dx)/(x² + y²)).
    pub fn diff(&mut self, id: ExprId, symbol: Symbol) -> ExprId {
        let one = self.one();
        let zero = self.zero();
        self.memoized(id, Wrt::Symbol(symbol), &mut |_, s| {
            if s == symbol {
                one
            } else {
                zero
            }
        })
    }

    /// The total time derivative d/dt = ∂/∂t + Σ q̇ᵢ ∂/∂qᵢ + Σ q̈ᵢ ∂/∂q̇ᵢ (parameters are
    /// constant).
    ///
    /// # Panics
    /// When `id` contains an acceleration, a momentum, an input, a speed or a multiplier (their time
    /// derivatives are not
    /// symbols of the language; use [`Pool::total_derivative`] with explicit rates).
    pub fn time_derivative(&mut self, id: ExprId) -> ExprId {
        self.memoized(id, Wrt::Time, &mut |pool, s| match s {
            Symbol::Time => pool.one(),
            Symbol::Coordinate(i) => pool.symbol(Symbol::Velocity(i)),
            Symbol::Velocity(i) => pool.symbol(Symbol::Acceleration(i)),
            Symbol::Parameter(_) => pool.zero(),
            Symbol::Acceleration(_)
            | Symbol::Momentum(_)
            | Symbol::Input(_)
            | Symbol::Speed(_)
            | Symbol::Multiplier(_) => {
                panic!("time derivative of {s:?} is not expressible")
            }
        })
    }

    /// The convective time derivative ∂/∂t + Σ q̇ᵢ ∂/∂qᵢ: the total time derivative with every
    /// other symbol (velocities, accelerations, momenta, parameters) held fixed. For g(q, q̇, t),
    /// dg/dt = convective(g) + Σ (∂g/∂q̇ᵢ) q̈ᵢ, so the part of dg/dt free of q̈ is convective(g).
    pub fn convective_derivative(&mut self, id: ExprId) -> ExprId {
        self.memoized(id, Wrt::Convective, &mut |pool, s| match s {
            Symbol::Time => pool.one(),
            Symbol::Coordinate(i) => pool.symbol(Symbol::Velocity(i)),
            _ => pool.zero(),
        })
    }

    /// The total derivative Σ ∂(id)/∂s · rate(s) over the symbols s of each expression of
    /// `ids`, with `rate(s)` the rate of change of s (for example q̇ = H_p for a Hamiltonian
    /// model, Udwadia 2016 eq 9; return 0 for constants).
    pub fn total_derivative(
        &mut self,
        ids: &[ExprId],
        rate: &mut dyn FnMut(&mut Pool, Symbol) -> ExprId,
    ) -> Vec<ExprId> {
        let mut memo = HashMap::default();
        ids.iter()
            .map(|&id| self.derivative(id, rate, &mut memo))
            .collect()
    }

    /// `id` with each symbol s replaced by `replace(s)` when that is `Some`, re-canonicalized.
    pub fn substitute(
        &mut self,
        id: ExprId,
        replace: &mut dyn FnMut(&mut Pool, Symbol) -> Option<ExprId>,
    ) -> ExprId {
        let mut memo = HashMap::default();
        self.substitute_memo(id, replace, &mut memo)
    }

    /// [`Pool::substitute`] of each of `ids`, sharing the work on their common nodes.
    pub fn substitute_many(
        &mut self,
        ids: &[ExprId],
        replace: &mut dyn FnMut(&mut Pool, Symbol) -> Option<ExprId>,
    ) -> Vec<ExprId> {
        let mut memo = HashMap::default();
        self.substitute_all(ids, replace, &mut memo)
    }

    /// Whether `id` contains a symbol s with `pred(s)`.
    pub fn depends_on(&self, id: ExprId, pred: &dyn Fn(Symbol) -> bool) -> bool {
        self.any_depends_on(&[id], pred)
    }

    /// Whether any of `ids` contains a symbol s with `pred(s)` (one traversal of the shared
    /// DAG).
    ///
    /// Costs time proportional to the nodes visited, not to the pool's size, so that checking
    /// each small expression of a large pool stays cheap.
    pub fn any_depends_on(&self, ids: &[ExprId], pred: &dyn Fn(Symbol) -> bool) -> bool {
        let mut seen = rustc_hash::FxHashSet::default();
        let mut stack = ids.to_vec();
        while let Some(node) = stack.pop() {
            if !seen.insert(node) {
                continue;
            }
            match self.get(node) {
                Node::Number(_) => {}
                Node::Symbol(s) => {
                    if pred(*s) {
                        return true;
                    }
                }
                Node::Add(ops) | Node::Mul(ops) | Node::Call(_, ops) => stack.extend(ops.iter()),
                Node::Pow(b, e) => stack.extend([*b, *e]),
                Node::Shared(x) => stack.push(*x),
            }
        }
        false
    }

    /// The arithmetic operations that evaluating all of `ids` together takes, each distinct
    /// node once: k − 1 for a sum or product of k operands, 1 for a power or a function. A
    /// measure of the straight-line code's size after common-subexpression elimination.
    pub fn operation_count(&self, ids: &[ExprId]) -> usize {
        OperationCount::default().add(self, ids)
    }

    /// An upper estimate of the operands one more derivative of `ids` creates, per symbol
    /// differentiated by: the product rule turns a product of k factors into k products of k
    /// factors (k² operands; canonical products are flat, so they share nothing), every other
    /// node into a few. Quadratic where `operation_count` is linear: a chain sin∘…∘sin 4000
    /// deep has a first derivative of 4000 factors and a second one of 16 million operands.
    pub fn product_rule_cost(&self, ids: &[ExprId]) -> usize {
        let size = ids.iter().map(|id| id.0 as usize + 1).max().unwrap_or(0);
        let mut seen = vec![false; size];
        let mut stack = ids.to_vec();
        let mut cost = 0usize;
        while let Some(node) = stack.pop() {
            if std::mem::replace(&mut seen[node.0 as usize], true) {
                continue;
            }
            cost = cost.saturating_add(match self.get(node) {
                Node::Number(_) | Node::Symbol(_) => 1,
                Node::Mul(ops) => {
                    stack.extend(ops.iter());
                    ops.len().saturating_mul(ops.len())
                }
                Node::Add(ops) | Node::Call(_, ops) => {
                    stack.extend(ops.iter());
                    ops.len() + 1
                }
                Node::Pow(b, e) => {
                    stack.extend([*b, *e]);
                    4
                }
                Node::Shared(x) => {
                    stack.push(*x);
                    1
                }
            });
        }
        cost
    }

    fn memoized(&mut self, id: ExprId, wrt: Wrt, leaf: &mut Leaf<'_>) -> ExprId {
        let mut memo = self.derivatives.remove(&wrt).unwrap_or_default();
        let result = self.derivative(id, leaf, &mut memo);
        self.derivatives.insert(wrt, memo);
        result
    }

    fn derivative(
        &mut self,
        id: ExprId,
        leaf: &mut Leaf<'_>,
        memo: &mut HashMap<ExprId, ExprId>,
    ) -> ExprId {
        if let Some(&d) = memo.get(&id) {
            return d;
        }
        let d = match self.get(id).clone() {
            Node::Number(_) => self.zero(),
            Node::Symbol(s) => leaf(self, s),
            Node::Add(ops) => {
                let terms: Vec<ExprId> = ops
                    .iter()
                    .map(|&o| self.derivative(o, leaf, memo))
                    .collect();
                self.add(&terms)
            }
            Node::Mul(ops) => {
                let mut terms = Vec::new();
                for (i, &factor) in ops.iter().enumerate() {
                    let d = self.derivative(factor, leaf, memo);
                    if self.is_zero(d) {
                        continue;
                    }
                    let mut product: Vec<ExprId> = ops.to_vec();
                    product[i] = d;
                    terms.push(self.mul(&product));
                }
                self.add(&terms)
            }
            Node::Pow(base, exponent) => {
                let db = self.derivative(base, leaf, memo);
                let de = self.derivative(exponent, leaf, memo);
                self.pow_derivative(id, base, exponent, db, de)
            }
            Node::Call(func, args) => {
                let mut terms = Vec::new();
                for (k, &arg) in args.iter().enumerate() {
                    let da = self.derivative(arg, leaf, memo);
                    if self.is_zero(da) {
                        continue;
                    }
                    let outer = self.call_partial(func, &args, k);
                    terms.push(self.mul(&[outer, da]));
                }
                self.add(&terms)
            }
            Node::Shared(x) => {
                let dx = self.derivative(x, leaf, memo);
                self.shared(dx)
            }
        };
        memo.insert(id, d);
        d
    }

    /// d(b^e) from db and de: e·b^(e−1)·db + b^e·ln(b)·de.
    fn pow_derivative(
        &mut self,
        power: ExprId,
        base: ExprId,
        exponent: ExprId,
        db: ExprId,
        de: ExprId,
    ) -> ExprId {
        let mut terms = Vec::new();
        if !self.is_zero(db) {
            let minus_one = self.integer(-1);
            let lowered = self.add(&[exponent, minus_one]);
            let lowered = self.pow(base, lowered);
            terms.push(self.mul(&[exponent, lowered, db]));
        }
        if !self.is_zero(de) {
            let log = self.call(Func::Ln, &[base]);
            terms.push(self.mul(&[power, log, de]));
        }
        self.add(&terms)
    }

    /// ∂func(args)/∂args[k].
    fn call_partial(&mut self, func: Func, args: &[ExprId], k: usize) -> ExprId {
        let x = args[0];
        match func {
            Func::Sin => self.call(Func::Cos, &[x]),
            Func::Cos => {
                let s = self.call(Func::Sin, &[x]);
                self.neg(s)
            }
            Func::Tan => {
                let t = self.call(Func::Tan, &[x]);
                let t2 = self.powi(t, 2);
                let one = self.one();
                self.add(&[one, t2])
            }
            Func::Asin | Func::Acos => {
                // ±(1 − x²)^(−1/2)
                let x2 = self.powi(x, 2);
                let one = self.one();
                let minus_x2 = self.neg(x2);
                let d = self.add(&[one, minus_x2]);
                let minus_half = self.rational(-1, 2);
                let r = self.pow(d, minus_half);
                if func == Func::Asin {
                    r
                } else {
                    self.neg(r)
                }
            }
            Func::Atan => {
                let x2 = self.powi(x, 2);
                let one = self.one();
                let d = self.add(&[one, x2]);
                self.recip(d)
            }
            Func::Atan2 => {
                // atan2(y, x): ∂/∂y = x/(x² + y²), ∂/∂x = −y/(x² + y²).
                let (y, x) = (args[0], args[1]);
                let x2 = self.powi(x, 2);
                let y2 = self.powi(y, 2);
                let d = self.add(&[x2, y2]);
                let inv = self.recip(d);
                if k == 0 {
                    self.mul(&[x, inv])
                } else {
                    let minus_y = self.neg(y);
                    self.mul(&[minus_y, inv])
                }
            }
            Func::Sinh => self.call(Func::Cosh, &[x]),
            Func::Cosh => self.call(Func::Sinh, &[x]),
            Func::Tanh => {
                let t = self.call(Func::Tanh, &[x]);
                let t2 = self.powi(t, 2);
                self.sub_from_one(t2)
            }
            Func::Exp => self.call(Func::Exp, &[x]),
            Func::Ln => self.recip(x),
            Func::Abs => {
                let a = self.call(Func::Abs, &[x]);
                self.div(x, a)
            }
            Func::Sqrt => {
                let s = self.call(Func::Sqrt, &[x]);
                let inv = self.recip(s);
                let half = self.rational(1, 2);
                self.mul(&[half, inv])
            }
        }
    }

    fn sub_from_one(&mut self, x: ExprId) -> ExprId {
        let one = self.one();
        self.sub(one, x)
    }

    fn substitute_memo(
        &mut self,
        id: ExprId,
        replace: &mut dyn FnMut(&mut Pool, Symbol) -> Option<ExprId>,
        memo: &mut HashMap<ExprId, ExprId>,
    ) -> ExprId {
        if let Some(&r) = memo.get(&id) {
            return r;
        }
        let r = match self.get(id).clone() {
            Node::Number(_) => id,
            Node::Symbol(s) => replace(self, s).unwrap_or(id),
            Node::Add(ops) => {
                let ops = self.substitute_all(&ops, replace, memo);
                self.add(&ops)
            }
            Node::Mul(ops) => {
                let ops = self.substitute_all(&ops, replace, memo);
                self.mul(&ops)
            }
            Node::Pow(b, e) => {
                let b = self.substitute_memo(b, replace, memo);
                let e = self.substitute_memo(e, replace, memo);
                self.pow(b, e)
            }
            Node::Call(func, args) => {
                let args = self.substitute_all(&args, replace, memo);
                self.call(func, &args)
            }
            Node::Shared(x) => {
                let x = self.substitute_memo(x, replace, memo);
                self.shared(x)
            }
        };
        memo.insert(id, r);
        r
    }

    fn substitute_all(
        &mut self,
        ids: &[ExprId],
        replace: &mut dyn FnMut(&mut Pool, Symbol) -> Option<ExprId>,
        memo: &mut HashMap<ExprId, ExprId>,
    ) -> Vec<ExprId> {
        ids.iter()
            .map(|&o| self.substitute_memo(o, replace, memo))
            .collect()
    }
}
