//! The expression DAG: hash-consed nodes in a [`Pool`], so equal subexpressions are one node
//! and common-subexpression elimination falls out of the structure.
//!
//! Nodes are only ever created through the canonicalizing constructors of the pool (sums and
//! products flattened and sorted, like terms and powers collected, constants folded), so two
//! expressions that canonicalize alike have the same [`ExprId`].

use std::collections::HashMap;

/// A handle to a node of a [`Pool`]. Ids are given in creation order, which is deterministic
/// for a given input, and that order is the canonical order of sum and product operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ExprId(pub u32);

/// A leaf that stands for a quantity of the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Symbol {
    /// Time t (s).
    Time,
    /// Generalized coordinate qᵢ.
    Coordinate(usize),
    /// Generalized velocity q̇ᵢ.
    Velocity(usize),
    /// Generalized acceleration q̈ᵢ (appears only while differentiating constraints).
    Acceleration(usize),
    /// Generalized momentum pᵢ.
    Momentum(usize),
    /// Model parameter number i.
    Parameter(usize),
}

/// A numeric constant: exact rational where the inputs were exact, else a float.
#[derive(Clone, Copy, Debug)]
pub enum Number {
    /// numerator / denominator, in lowest terms, denominator > 0.
    Rational(i64, i64),
    /// A finite float.
    Float(f64),
}

impl Number {
    /// The value as f64.
    pub fn to_f64(self) -> f64 {
        match self {
            Number::Rational(p, q) => p as f64 / q as f64,
            Number::Float(x) => x,
        }
    }
}

impl PartialEq for Number {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Number::Rational(a, b), Number::Rational(c, d)) => a == c && b == d,
            (Number::Float(x), Number::Float(y)) => x.to_bits() == y.to_bits(),
            _ => false,
        }
    }
}

impl Eq for Number {}

impl std::hash::Hash for Number {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        match self {
            Number::Rational(p, q) => (0u8, *p, *q).hash(state),
            Number::Float(x) => (1u8, x.to_bits()).hash(state),
        }
    }
}

/// The elementary functions of the expression language.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Func {
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    /// atan2(y, x), two arguments.
    Atan2,
    Sinh,
    Cosh,
    Tanh,
    Exp,
    /// Natural logarithm.
    Ln,
    Abs,
    /// Square root (kept as a function so the emitters can write `sqrt`).
    Sqrt,
}

/// One node of the DAG.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    /// A constant.
    Number(Number),
    /// A model quantity.
    Symbol(Symbol),
    /// Sum of two or more operands, sorted by id; a numeric operand, if any, comes first.
    Add(Box<[ExprId]>),
    /// Product of two or more operands, sorted by id; a numeric coefficient, if any, comes first.
    Mul(Box<[ExprId]>),
    /// base ^ exponent. An integer exponent is a `Number::Rational(k, 1)`.
    Pow(ExprId, ExprId),
    /// An elementary function applied to its arguments.
    Call(Func, Box<[ExprId]>),
}

/// The arena that owns every node, with the hash-consing index.
#[derive(Clone, Debug, Default)]
pub struct Pool {
    nodes: Vec<Node>,
    index: HashMap<Node, ExprId>,
}

impl Pool {
    /// An empty pool.
    pub fn new() -> Self {
        Self::default()
    }

    /// The node behind `id`.
    pub fn get(&self, id: ExprId) -> &Node {
        &self.nodes[id.0 as usize]
    }

    /// How many distinct nodes the pool holds.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the pool holds no node.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The id of `node`, adding it if it is new. No canonicalization happens here: callers
    /// outside this module use the canonicalizing constructors instead.
    pub(crate) fn intern(&mut self, node: Node) -> ExprId {
        if let Some(&id) = self.index.get(&node) {
            return id;
        }
        let id = ExprId(u32::try_from(self.nodes.len()).expect("expression pool overflow"));
        self.nodes.push(node.clone());
        self.index.insert(node, id);
        id
    }
}
