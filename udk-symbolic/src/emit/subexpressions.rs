//! Names for the subexpressions that an equation sheet would otherwise print more than once.
//!
//! A sheet prints a DAG. Printed as trees, the values of a DAG whose shared nodes nest grow
//! exponentially with its depth (a 40-joint chain with generic joint frames had a value of
//! more than 476 MB). So a node that the sheet reaches more than once and whose value is
//! longer than [`MAX_REPEATED_LENGTH`] is printed once, under a name, and the name stands for
//! it everywhere else: the first time it is a line of its own (its label, such as `M[1,2]`) it
//! takes that label as its name; met first inside another value, it gets a line of its own
//! `s1 = …` just before that value's line. Every other node is either reached once or short,
//! so a sheet's length is bounded by a constant times the number of DAG operands it shows.

use super::names::{latex_name, Names};
use crate::expr::{ExprId, Node, Number, Pool};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// The longest value, in characters of plain text (estimated as [`Subexpressions::of`]
/// describes), that a sheet may print again at each of its uses rather than name: long enough
/// that the sheets of small models name nothing (the double pendulum's M₁₂ is 62).
pub(crate) const MAX_REPEATED_LENGTH: usize = 100;

/// The named subexpressions of one sheet: which nodes are to be named, the names given so far,
/// and the definitions printed but not yet put on the sheet.
#[derive(Default)]
pub(crate) struct Subexpressions {
    /// The nodes printed under a name once they are met.
    named: HashSet<ExprId>,
    /// The generated names are `prefix1`, `prefix2`, …: `s`, or `ss`, `sss`, … if a name of
    /// the model has the form `s` + digits.
    prefix: String,
    /// Each named node's name (text, LaTeX), once it has one.
    names: HashMap<ExprId, (String, String)>,
    /// How many generated names were given.
    count: usize,
    /// Definitions printed and not yet taken by the sheet: (name, value), in the order they are
    /// to appear (each after the ones it uses).
    pending: Vec<(String, String)>,
}

impl Subexpressions {
    /// No node named: every value printed as a tree.
    pub(crate) fn none() -> Self {
        Self::default()
    }

    /// The nodes to name on a sheet that prints `roots` (one occurrence per line or component
    /// printed), where the model's names are `taken` (for the prefix). A node is named if the
    /// roots reach it more than once (counting each operand of each reached node and each
    /// root) and its estimated plain-text length exceeds [`MAX_REPEATED_LENGTH`]. The estimate
    /// counts a named operand as its name and ignores parentheses. Cost O(reached nodes);
    /// nothing is printed.
    pub(crate) fn of<'n>(
        pool: &Pool,
        roots: &[ExprId],
        names: &Names,
        taken: impl Iterator<Item = &'n str>,
    ) -> Self {
        let mut uses: HashMap<ExprId, u32> = HashMap::default();
        let mut stack = roots.to_vec();
        while let Some(id) = stack.pop() {
            let count = uses.entry(id).or_insert(0);
            *count += 1;
            if *count == 1 {
                stack.extend(operands(pool, id).0);
            }
        }
        // Operands are interned before their users, so ascending ids put operands first.
        let mut reached: Vec<ExprId> = uses.keys().copied().collect();
        reached.sort_unstable();
        const NAME: usize = 4;
        let mut length: HashMap<ExprId, usize> = HashMap::default();
        let mut named = HashSet::default();
        for id in reached {
            let (ops, own) = operands(pool, id);
            let own = match pool.get(id) {
                Node::Symbol(s) => names.text(*s).len(),
                Node::Number(n) => number_length(*n),
                _ => own + ops.len().saturating_sub(1) * separator(pool.get(id)),
            };
            let value = ops.iter().fold(own, |sum, op| {
                let op = if named.contains(op) { NAME } else { length[op] };
                sum.saturating_add(op)
            });
            if uses[&id] > 1 && value > MAX_REPEATED_LENGTH {
                named.insert(id);
            }
            length.insert(id, value);
        }
        let taken: Vec<&str> = taken.collect();
        let mut prefix = "s".to_owned();
        while taken.iter().any(|name| {
            name.strip_prefix(prefix.as_str())
                .is_some_and(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()))
        }) {
            prefix.push('s');
        }
        Subexpressions {
            named,
            prefix,
            ..Self::default()
        }
    }

    /// Whether `id` is printed under a name once met.
    pub(crate) fn is_named(&self, id: ExprId) -> bool {
        self.named.contains(&id)
    }

    /// The name of `id` (text, LaTeX), if it has been given one.
    pub(crate) fn name(&self, id: ExprId) -> Option<&(String, String)> {
        self.names.get(&id)
    }

    /// Names `id` by the label of the line that prints it.
    pub(crate) fn label(&mut self, id: ExprId, text: String, latex: String) {
        self.names.entry(id).or_insert((text, latex));
    }

    /// Gives `id` the next generated name and queues its definition, `value` printed in the
    /// style that `latex` says; returns the name in that style.
    pub(crate) fn define(&mut self, id: ExprId, value: String, latex: bool) -> String {
        self.count += 1;
        let text = format!("{}{}", self.prefix, self.count);
        let names = (latex_name(&text, 0), text);
        let name = if latex { &names.0 } else { &names.1 }.clone();
        self.pending.push((name.clone(), value));
        self.names.insert(id, (names.1, names.0));
        name
    }

    /// The definitions printed since the last call: (name, value), each after those it uses.
    pub(crate) fn take_pending(&mut self) -> Vec<(String, String)> {
        std::mem::take(&mut self.pending)
    }
}

/// The operands of `id` as the printers read them, and the length of its own text apart from
/// the operands and their separators (a call's name and parentheses, a power's `^`).
fn operands(pool: &Pool, id: ExprId) -> (Vec<ExprId>, usize) {
    match pool.get(id) {
        Node::Number(_) | Node::Symbol(_) => (Vec::new(), 0),
        Node::Add(ops) | Node::Mul(ops) => (ops.to_vec(), 0),
        Node::Call(f, ops) => (ops.to_vec(), f.name().len() + 2),
        Node::Pow(base, exponent) => (vec![*base, *exponent], 0),
        Node::Shared(x) => (vec![*x], 0),
    }
}

/// The length of the separator between two operands of `node`: ` + ` in a sum, `*` in a
/// product, `^` in a power, `, ` between a call's arguments.
fn separator(node: &Node) -> usize {
    match node {
        Node::Add(_) => 3,
        Node::Mul(_) | Node::Pow(..) => 1,
        _ => 2,
    }
}

/// The length of a number's plain text.
fn number_length(n: Number) -> usize {
    match n {
        Number::Rational(p, 1) => p.to_string().len(),
        Number::Rational(p, q) => p.to_string().len() + 1 + q.to_string().len(),
        Number::Float(x) => format!("{x:?}").len(),
    }
}

#[cfg(test)]
mod tests {
    use super::{Subexpressions, MAX_REPEATED_LENGTH};
    use crate::emit::latex::Printer;
    use crate::emit::names::Names;
    use crate::expr::{ExprId, Func, Pool, Symbol};

    /// a₀ = x, aₖ₊₁ = sin(aₖ) + aₖ cos(aₖ): four DAG nodes per level, and a tree that
    /// doubles per level. Printed with its subexpressions named, level 60 takes under 2 ×
    /// [`MAX_REPEATED_LENGTH`] characters per level, each name used after its definition;
    /// level 2 is short and printed whole.
    #[test]
    fn a_dag_whose_tree_doubles_per_level_prints_in_linear_length() {
        let mut pool = Pool::new();
        let mut levels = vec![pool.symbol(Symbol::Coordinate(0))];
        for _ in 0..60 {
            let a = levels[levels.len() - 1];
            let sin = pool.call(Func::Sin, &[a]);
            let cos = pool.call(Func::Cos, &[a]);
            let product = pool.mul(&[a, cos]);
            levels.push(pool.add(&[sin, product]));
        }
        let names = Names {
            coordinates: vec!["x".to_owned()],
            ..Names::default()
        };
        let print = |id: ExprId| {
            let mut subexpressions = Subexpressions::of(&pool, &[id], &names, std::iter::empty());
            let mut printer = Printer::new(&pool, &names, false, &mut subexpressions);
            let value = printer.string(id);
            (value, printer.take_definitions())
        };
        let (value, definitions) = print(levels[2]);
        assert!(definitions.is_empty(), "{definitions:?}");
        assert_eq!(
            value,
            "sin(sin(x) + x*cos(x)) + (sin(x) + x*cos(x))*cos(sin(x) + x*cos(x))"
        );
        let (value, definitions) = print(levels[60]);
        let length: usize = (definitions.iter())
            .map(|(name, value)| name.len() + value.len())
            .sum();
        assert!(
            length + value.len() < 60 * 2 * MAX_REPEATED_LENGTH,
            "{length}"
        );
        for (k, (name, _)) in definitions.iter().enumerate() {
            let used_later = definitions[k + 1..].iter().map(|(_, v)| v).chain([&value]);
            let uses = |v: &String| v.split(|c: char| !c.is_alphanumeric()).any(|w| w == name);
            assert!(used_later.clone().any(uses), "{name} unused");
            assert!(
                !definitions[..=k].iter().any(|(_, v)| uses(v)),
                "{name} used before"
            );
        }
    }
}
