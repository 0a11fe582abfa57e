//! The expression DAG: hash-consed nodes in a [`Pool`], so equal subexpressions are one node
//! and common-subexpression elimination falls out of the structure.
//!
//! Nodes are only ever created through the canonicalizing constructors of the pool (sums and
//! products flattened and sorted, like terms and powers collected, constants folded), so two
//! expressions that canonicalize alike have the same [`ExprId`].
//!
//! # Canonical forms (what an emitter sees)
//! - [`Number`]: exact `Rational(p, q)` (lowest terms, q > 0) whenever the inputs were exact
//!   (decimal literals such as `9.81` are parsed exactly as 981/100); a `Float` for inexact
//!   values (`PI`, rational overflow, functions of floats). An integer-valued float, or any
//!   float k/2ʲ with j ≤ 16, is always the `Rational`.
//! - Negation: `Mul([-1, x])`; more generally a numeric coefficient is the first operand of a
//!   `Mul` (so −2·x·y is `Mul([-2, x, y])`).
//! - Sums are primitive: the rational coefficients of an `Add` (its constant included) have no
//!   common factor, and its term of lowest id has a positive coefficient; the content goes
//!   outside, so 2a + 2b is `Mul([2, Add([a, b])])` and, with id(x₁) < id(x₂), x₂ − x₁ is
//!   `Mul([-1, Add([x₁, Mul([-1, x₂])])])`. Hence x₁ − x₂ and x₂ − x₁ share one `Add`, and
//!   `Pool::add` may return a `Mul`. A coefficient times a lone sum is distributed again when
//!   that product is added to something, so sums stay flat; products of sums are never
//!   expanded.
//! - Subtraction: a − b is a + (−1)·b, normalized as above.
//! - Division: x / y is `Mul([x, Pow(y, -1)])`; 1/y is `Pow(y, -1)`.
//! - Square root: always `Call(Func::Sqrt, [x])`, never `Pow(x, 1/2)`: x^(1/2) becomes
//!   `Call(Sqrt, [x])` and x^(k/2) for odd k becomes `Pow(Call(Sqrt, [x]), k)`, so an emitter
//!   writes `x.sqrt()` and `powi`. `Pow` exponents are therefore integers (`Rational(k, 1)`)
//!   except for genuinely non-integer ones (`powf`).
//! - `Add` and `Mul` have at least two operands, at most one of them numeric (first), the
//!   rest sorted by id; no operand of an `Add` is an `Add`, none of a `Mul` is a `Mul`.
//! - `Shared(s)` holds a sum s that [`Pool::shared`] marked as one operand: a sum that contains
//!   it does not take s's terms apart. Recursive algorithms (the articulated-body algorithm)
//!   mark the values they carry from body to body, so each body adds O(1) operations instead
//!   of re-adding every term of its descendants. Only `Pool::shared` makes such nodes, so
//!   expressions built without it are as before.
//! - 0, 1, x·0, x+0, x·1, x^1, x^0 never survive; like terms and like powers are collected.
//! - Children always have smaller ids than their parents, so evaluating nodes in id order is a
//!   valid schedule.
//!
//! Build nodes with the constructors in `build.rs` ([`Pool::add`], [`Pool::mul`], [`Pool::pow`],
//! [`Pool::powi`], [`Pool::neg`], [`Pool::sub`], [`Pool::div`], [`Pool::sqrt`], [`Pool::call`],
//! [`Pool::number`], [`Pool::rational`], [`Pool::symbol`], …); differentiate with
//! [`Pool::diff`] and [`Pool::time_derivative`]; evaluate with [`Pool::eval`].

mod build;
mod diff;
mod eval;
mod number;
#[cfg(test)]
mod tests;

pub use diff::OperationCount;
use rustc_hash::FxHashMap as HashMap;

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
    /// Run-time input uₖ (a torque, a force, a steering command), read like a parameter but
    /// given at every call; allowed in forces, loads and non-ideal forces only.
    Input(usize),
    /// Generalized speed uᵢ (Kane's speeds, quasi-velocities) of a model with kinematic
    /// differential equations q̇ = N(q, t) u + c(q, t); appears only while such a model is
    /// derived: its derived equations hold the speeds as [`Symbol::Velocity`], the second
    /// half of the state (see [`crate::derivation::Kinematics`]).
    Speed(usize),
    /// Constraint multiplier λᵣ, one per constraint row (Aᵀλ is the ideal constraint force);
    /// appears only in the residuals whose Jacobians the derivation forms
    /// ([`crate::derivation::LagrangianJacobians`]), never in a model's expressions.
    Multiplier(usize),
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

/// The elementary functions of the expression language. Each is the `f64` method of the same
/// name ([`Func::name`]), so `Call(f, [x])` is `x.f()` and `Call(Atan2, [y, x])` is `y.atan2(x)`.
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
    /// Square root, the only form of x^(1/2) in the DAG (see the module docs).
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
    /// Its operand, a sum or a reciprocal, kept as one operand: sums and products do not
    /// flatten into it (see [`Pool::shared`] and [`Pool::shared_reciprocal`]). Evaluates to
    /// the operand and costs no operation.
    Shared(ExprId),
}

/// The arena that owns every node, with the hash-consing index.
#[derive(Clone, Debug, Default)]
pub struct Pool {
    nodes: Vec<Node>,
    index: HashMap<Node, ExprId>,
    /// Memoized derivatives, per variable of differentiation.
    derivatives: HashMap<diff::Wrt, HashMap<ExprId, ExprId>>,
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

    /// The id of `node`, adding it if it is new (one hash lookup). No canonicalization
    /// happens here: callers outside this module use the canonicalizing constructors instead.
    pub(crate) fn intern(&mut self, node: Node) -> ExprId {
        let next = self.nodes.len();
        match self.index.entry(node) {
            std::collections::hash_map::Entry::Occupied(entry) => *entry.get(),
            std::collections::hash_map::Entry::Vacant(entry) => {
                let id = ExprId(u32::try_from(next).expect("expression pool overflow"));
                self.nodes.push(entry.key().clone());
                entry.insert(id);
                id
            }
        }
    }
}
