//! Names for the subexpressions that M and Q share, so that the equation sheet prints each
//! once: the recursions build every body's velocity, acceleration and force once in the DAG,
//! but the canonical sums flatten into their users, and printed as trees the entries of a
//! six-joint arm would take megabytes.

use crate::derivation::NamedValue;
use crate::expr::{ExprId, Node, Pool};
use crate::parse::Value;

/// `tmp1`, `tmp2`, … for each non-trivial node that `outputs` reach more than once (counting
/// each operand of each reached node and each output), in id order, so that each is written
/// in terms of the ones before it. Non-trivial: a sum, or a product, power or call with an
/// operand that is not a number or a symbol.
pub(crate) fn temporaries(pool: &Pool, outputs: &[ExprId]) -> Vec<NamedValue> {
    let size = outputs
        .iter()
        .map(|id| id.0 as usize + 1)
        .max()
        .unwrap_or(0);
    let mut uses = vec![0u32; size];
    let mut stack = outputs.to_vec();
    while let Some(node) = stack.pop() {
        let count = &mut uses[node.0 as usize];
        *count += 1;
        if *count > 1 {
            continue;
        }
        stack.extend(operands(pool, node));
    }
    let leaf = |id: ExprId| matches!(pool.get(id), Node::Number(_) | Node::Symbol(_));
    (0..size)
        .map(|k| ExprId(k as u32))
        .filter(|&id| uses[id.0 as usize] > 1)
        .filter(|&id| match pool.get(id) {
            Node::Number(_) | Node::Symbol(_) => false,
            Node::Add(_) => true,
            _ => !operands(pool, id).iter().all(|&o| leaf(o)),
        })
        .enumerate()
        .map(|(k, id)| NamedValue {
            name: format!("tmp{}", k + 1),
            value: Value::Scalar(id),
        })
        .collect()
}

/// The operands of `id`.
fn operands(pool: &Pool, id: ExprId) -> Vec<ExprId> {
    match pool.get(id) {
        Node::Number(_) | Node::Symbol(_) => Vec::new(),
        Node::Add(ops) | Node::Mul(ops) | Node::Call(_, ops) => ops.to_vec(),
        Node::Pow(base, exponent) => vec![*base, *exponent],
        Node::Shared(x) => vec![*x],
    }
}

#[cfg(test)]
mod tests {
    use super::temporaries;
    use crate::expr::{Func, Pool, Symbol};
    use crate::parse::Value;

    /// A sum used twice is named, a sum used once and a call of a symbol are not.
    #[test]
    fn shared_sums_are_named_in_id_order() {
        let mut pool = Pool::new();
        let [a, b, c] = [0, 1, 2].map(|i| pool.symbol(Symbol::Coordinate(i)));
        let shared = pool.add(&[a, b]);
        let once = pool.add(&[b, c]);
        let sin = pool.call(Func::Sin, &[c]);
        let left = pool.mul(&[shared, once, sin]);
        let right = pool.mul(&[shared, sin, a]);
        let outer = pool.call(Func::Cos, &[left]);
        let named = temporaries(&pool, &[left, right, outer]);
        let values: Vec<_> = named.iter().map(|v| (v.name.as_str(), v.value)).collect();
        assert_eq!(
            values,
            [
                ("tmp1", Value::Scalar(shared)),
                ("tmp2", Value::Scalar(left))
            ]
        );
    }
}
