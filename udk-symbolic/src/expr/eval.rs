//! Numeric evaluation of expressions, for tests and reference values.

use super::{ExprId, Node, Number, Pool, Symbol};

impl Pool {
    /// The value of `id` with each symbol's value given by `values` (f64 arithmetic; every
    /// shared subexpression is evaluated once).
    pub fn eval(&self, id: ExprId, values: &dyn Fn(Symbol) -> f64) -> f64 {
        self.eval_all(&[id], values)[0]
    }

    /// The values of `ids`, sharing the evaluation of common subexpressions.
    pub fn eval_all(&self, ids: &[ExprId], values: &dyn Fn(Symbol) -> f64) -> Vec<f64> {
        let size = ids.iter().map(|id| id.0 as usize + 1).max().unwrap_or(0);
        let mut memo: Vec<Option<f64>> = vec![None; size];
        ids.iter()
            .map(|&id| self.eval_memo(id, values, &mut memo))
            .collect()
    }

    fn eval_memo(
        &self,
        id: ExprId,
        values: &dyn Fn(Symbol) -> f64,
        memo: &mut [Option<f64>],
    ) -> f64 {
        if let Some(v) = memo[id.0 as usize] {
            return v;
        }
        let v = match self.get(id) {
            Node::Number(n) => n.to_f64(),
            Node::Symbol(s) => values(*s),
            Node::Add(ops) => ops.iter().map(|&o| self.eval_memo(o, values, memo)).sum(),
            Node::Mul(ops) => ops
                .iter()
                .map(|&o| self.eval_memo(o, values, memo))
                .product(),
            Node::Pow(base, exponent) => {
                let b = self.eval_memo(*base, values, memo);
                match self.get(*exponent) {
                    Node::Number(Number::Rational(k, 1)) if i32::try_from(*k).is_ok() => {
                        b.powi(*k as i32)
                    }
                    _ => b.powf(self.eval_memo(*exponent, values, memo)),
                }
            }
            Node::Call(func, args) => {
                let args: Vec<f64> = args
                    .iter()
                    .map(|&a| self.eval_memo(a, values, memo))
                    .collect();
                func.apply(&args)
            }
            Node::Shared(x) => self.eval_memo(*x, values, memo),
        };
        memo[id.0 as usize] = Some(v);
        v
    }
}
