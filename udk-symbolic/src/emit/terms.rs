//! How the emitters read a term of a sum: its sign, the magnitude of its numeric coefficient,
//! its other factors, and which sum factor (if any) absorbs a negative sign.

use crate::expr::{ExprId, Node, Number, Pool};

/// A product c·f₁·…·fₖ read as ± |c| · f₁·…·fₖ.
///
/// With `absorb_sign`, when c < 0 and a factor is a sum with a negative term, the sign goes
/// into that sum (`flipped`): −½·m·(a − b) reads as ½·m·(b − a). The printers do this; the
/// code emitters do not, so that a − b stays one shared value.
pub(crate) struct Term<'p> {
    /// Whether the term is negative (after any flip).
    pub(crate) negative: bool,
    /// |c|, unless it is 1.
    pub(crate) coefficient: Option<Number>,
    /// The factors other than c.
    pub(crate) factors: &'p [ExprId],
    /// The index in `factors` of the sum whose terms change sign.
    pub(crate) flipped: Option<usize>,
}

/// `id` read as a term, if it is a product.
pub(crate) fn term(pool: &Pool, id: ExprId, absorb_sign: bool) -> Option<Term<'_>> {
    let Node::Mul(operands) = pool.get(id) else {
        return None;
    };
    let (c, factors) = match pool.get(operands[0]) {
        Node::Number(c) => (*c, &operands[1..]),
        _ => (Number::ONE, &operands[..]),
    };
    let negative = c.is_negative();
    let magnitude = if negative { -c } else { c };
    let flipped = if negative && absorb_sign {
        factors.iter().position(
            |&f| matches!(pool.get(f), Node::Add(ts) if ts.iter().any(|&t| is_negative(pool, t))),
        )
    } else {
        None
    };
    Some(Term {
        negative: negative && flipped.is_none(),
        coefficient: (!magnitude.is_one()).then_some(magnitude),
        factors,
        flipped,
    })
}

/// Whether `id` is a negative number or a product with a negative coefficient.
pub(crate) fn is_negative(pool: &Pool, id: ExprId) -> bool {
    match pool.get(id) {
        Node::Number(n) => n.is_negative(),
        Node::Mul(operands) => matches!(pool.get(operands[0]), Node::Number(c) if c.is_negative()),
        _ => false,
    }
}

/// The terms of a sum as (negative, value), read by `signed` in their order with each sign
/// changed if `flip`, then reordered so that a positive term comes first (the others keep
/// their order): how both the printers and the code emitters write a sum.
pub(crate) fn signed_terms<T>(
    terms: &[ExprId],
    flip: bool,
    mut signed: impl FnMut(ExprId) -> (bool, T),
) -> Vec<(bool, T)> {
    let mut out: Vec<(bool, T)> = terms
        .iter()
        .map(|&t| {
            let (negative, value) = signed(t);
            (negative != flip, value)
        })
        .collect();
    if let Some(first) = out.iter().position(|(negative, _)| !negative) {
        let positive = out.remove(first);
        out.insert(0, positive);
    }
    out
}
