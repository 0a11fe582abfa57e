//! Lowering of DAG outputs to a straight-line program of binary floating-point operations,
//! shared by the Rust emitter and the run-time tape so that both do the same arithmetic in the
//! same order.
//!
//! The lowering turns the canonical forms of the DAG into the cheap operations a programmer
//! would write: `−1·x` becomes a negation, sums with negative terms become subtractions,
//! factors with negative rational exponents go to a denominator, `x^k` becomes `powi`,
//! `x^(k/2)` becomes `sqrt` (then `powi`), and sin and cos of one argument become one
//! `sin_cos`. The program's values are themselves hash-consed, so a value used by several
//! outputs (or twice by one) is computed once.
//!
//! The program is public so that back ends outside this crate (the JIT of `udk-jit`) consume
//! the same lowering: [`Program::new`] builds it, and its fields are read-only in spirit.

use super::tape::TapeSizes;
use super::terms::{signed_terms, term};
use crate::expr::{ExprId, Func, Node, Number, Pool, Symbol};
use rustc_hash::FxHashMap as HashMap;

/// Index of a value of a [`Program`] (into [`Program::ops`]).
pub type Val = u32;

/// One operation of a [`Program`]; operands are earlier values. Each is one IEEE-754 binary64
/// operation, rounded once, or one call of the Rust `f64` method of the same name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// A constant, as the bits of an f64.
    Const(u64),
    /// A model quantity.
    Load(Symbol),
    /// a + b.
    Add(Val, Val),
    /// a − b.
    Sub(Val, Val),
    /// a · b.
    Mul(Val, Val),
    /// a / b.
    Div(Val, Val),
    /// −a.
    Neg(Val),
    /// `f64::powi(a, k)`; k = 2 is written a · a by every back end (which it is exactly).
    Powi(Val, i32),
    /// `f64::powf(a, b)`.
    Powf(Val, Val),
    /// A one-argument function (any [`Func`] but `Atan2`).
    Call(Func, Val),
    /// atan2(y, x).
    Atan2(Val, Val),
}

impl Op {
    /// The operands, in order.
    pub fn operands(self) -> impl Iterator<Item = Val> {
        let (a, b) = match self {
            Op::Const(_) | Op::Load(_) => (None, None),
            Op::Neg(a) | Op::Powi(a, _) | Op::Call(_, a) => (Some(a), None),
            Op::Add(a, b)
            | Op::Sub(a, b)
            | Op::Mul(a, b)
            | Op::Div(a, b)
            | Op::Powf(a, b)
            | Op::Atan2(a, b) => (Some(a), Some(b)),
        };
        a.into_iter().chain(b)
    }

    /// Whether the op is a leaf (a constant or a model quantity).
    pub fn is_leaf(self) -> bool {
        matches!(self, Op::Const(_) | Op::Load(_))
    }
}

/// One step of the program, in execution order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Compute one value.
    Op(Val),
    /// Compute sin and cos of `arg` together (`f64::sin_cos`), into two values.
    SinCos {
        /// The argument.
        arg: Val,
        /// The value holding sin(arg).
        sin: Val,
        /// The value holding cos(arg).
        cos: Val,
    },
}

/// A straight-line program computing a list of outputs: the common form of the Rust code of
/// [`emit_rust`](super::emit_rust), the [`Tape`](super::Tape) and the JIT of `udk-jit`, which
/// all perform its steps in order.
#[derive(Clone, Debug)]
pub struct Program {
    /// Every value, operands before users (dead values included; see `steps`).
    pub ops: Vec<Op>,
    /// Live values (reachable from the outputs) in execution order; a sin/cos pair of one
    /// argument is one [`Step::SinCos`]. Leaves (constants, loads) are steps too.
    pub steps: Vec<Step>,
    /// For each value, how many times live steps and outputs reference it.
    pub uses: Vec<u32>,
    /// Whether each value is computed by a `sin_cos` step.
    pub paired: Vec<bool>,
    /// The value of each output.
    pub outputs: Vec<Val>,
}

impl Program {
    /// Lowers `outputs` of `pool`.
    pub fn new(pool: &Pool, outputs: &[ExprId]) -> Self {
        let mut lowering = Lowering {
            pool,
            ops: Vec::new(),
            index: HashMap::default(),
            memo: HashMap::default(),
        };
        let outputs: Vec<Val> = outputs.iter().map(|&id| lowering.lower(id)).collect();
        let ops = lowering.ops;

        let mut live = vec![false; ops.len()];
        for &v in &outputs {
            live[v as usize] = true;
        }
        for v in (0..ops.len()).rev() {
            if live[v] {
                for w in ops[v].operands() {
                    live[w as usize] = true;
                }
            }
        }

        let mut sin_of = HashMap::default();
        let mut cos_of = HashMap::default();
        for (v, op) in ops.iter().enumerate() {
            match *op {
                Op::Call(Func::Sin, a) if live[v] => sin_of.insert(a, v as Val),
                Op::Call(Func::Cos, a) if live[v] => cos_of.insert(a, v as Val),
                _ => None,
            };
        }
        let mut paired = vec![false; ops.len()];
        let mut steps = Vec::new();
        for (v, op) in ops.iter().enumerate() {
            if !live[v] || paired[v] {
                continue;
            }
            if let Op::Call(Func::Sin | Func::Cos, arg) = *op {
                if let (Some(&sin), Some(&cos)) = (sin_of.get(&arg), cos_of.get(&arg)) {
                    paired[sin as usize] = true;
                    paired[cos as usize] = true;
                    steps.push(Step::SinCos { arg, sin, cos });
                    continue;
                }
            }
            steps.push(Step::Op(v as Val));
        }

        let mut uses = vec![0u32; ops.len()];
        for &v in &outputs {
            uses[v as usize] += 1;
        }
        for step in &steps {
            match *step {
                Step::Op(v) => {
                    for w in ops[v as usize].operands() {
                        uses[w as usize] += 1;
                    }
                }
                Step::SinCos { arg, .. } => uses[arg as usize] += 1,
            }
        }

        Program {
            ops,
            steps,
            uses,
            paired,
            outputs,
        }
    }

    /// The constant value of `v`, if it is a constant.
    pub fn constant(&self, v: Val) -> Option<f64> {
        match self.ops[v as usize] {
            Op::Const(bits) => Some(f64::from_bits(bits)),
            _ => None,
        }
    }

    /// How many entries of each input kind the live steps read.
    pub fn required(&self) -> TapeSizes {
        let mut sizes = TapeSizes::default();
        for step in &self.steps {
            if let Step::Op(v) = *step {
                if let Op::Load(s) = self.ops[v as usize] {
                    let (slot, i) = match s {
                        Symbol::Time => continue,
                        Symbol::Coordinate(i) => (&mut sizes.q, i),
                        Symbol::Velocity(i) | Symbol::Speed(i) => (&mut sizes.qd, i),
                        Symbol::Acceleration(i) => (&mut sizes.qdd, i),
                        Symbol::Momentum(i) => (&mut sizes.p, i),
                        Symbol::Parameter(i) => (&mut sizes.params, i),
                        Symbol::Input(i) => (&mut sizes.u, i),
                        Symbol::Multiplier(i) => (&mut sizes.lambda, i),
                    };
                    *slot = (*slot).max(i + 1);
                }
            }
        }
        sizes
    }
}

/// Whether `id` is a structural zero: the number 0, so an emitter writes nothing for it.
pub(crate) fn is_zero(pool: &Pool, id: ExprId) -> bool {
    matches!(pool.get(id), Node::Number(n) if n.to_f64() == 0.0)
}

struct Lowering<'p> {
    pool: &'p Pool,
    ops: Vec<Op>,
    index: HashMap<Op, Val>,
    memo: HashMap<ExprId, Val>,
}

/// A rational number p/q with q > 0, if `id` is one.
fn rational(pool: &Pool, id: ExprId) -> Option<(i64, i64)> {
    match pool.get(id) {
        Node::Number(Number::Rational(p, q)) => Some((*p, *q)),
        _ => None,
    }
}

impl Lowering<'_> {
    fn push(&mut self, op: Op) -> Val {
        if let Some(&v) = self.index.get(&op) {
            return v;
        }
        let v = Val::try_from(self.ops.len()).expect("program too large");
        self.ops.push(op);
        self.index.insert(op, v);
        v
    }

    fn constant(&mut self, x: f64) -> Val {
        // One constant for 0.0 and −0.0 alike would change signs; keep the bits.
        self.push(Op::Const(x.to_bits()))
    }

    fn lower(&mut self, id: ExprId) -> Val {
        if let Some(&v) = self.memo.get(&id) {
            return v;
        }
        let v = match self.pool.get(id) {
            Node::Number(n) => self.constant(n.to_f64()),
            Node::Symbol(s) => self.push(Op::Load(*s)),
            Node::Add(terms) => self.sum(terms, false),
            Node::Mul(_) | Node::Pow(..) => {
                let (negative, v) = self.signed(id);
                if negative {
                    self.push(Op::Neg(v))
                } else {
                    v
                }
            }
            Node::Call(f, args) => self.call(*f, args),
            Node::Shared(x) => self.lower(*x),
        };
        self.memo.insert(id, v);
        v
    }

    fn call(&mut self, f: Func, args: &[ExprId]) -> Val {
        let a = self.lower(args[0]);
        match f {
            Func::Atan2 => {
                let x = self.lower(args[1]);
                self.push(Op::Atan2(a, x))
            }
            _ => self.push(Op::Call(f, a)),
        }
    }

    /// The sign and the magnitude of a term: `−c·x…` is (true, c·x…).
    fn signed(&mut self, id: ExprId) -> (bool, Val) {
        if let Some(t) = term(self.pool, id, false) {
            let coefficient = t.coefficient.map(Number::to_f64);
            return (t.negative, self.product(coefficient, t.factors, t.flipped));
        }
        match self.pool.get(id) {
            Node::Number(n) if n.is_negative() => (true, self.constant(-n.to_f64())),
            Node::Pow(..) => (false, self.product(None, &[id], None)),
            _ => (false, self.lower(id)),
        }
    }

    /// The sum of `terms`, each with its sign changed if `flip`, a positive term first.
    fn sum(&mut self, terms: &[ExprId], flip: bool) -> Val {
        let signed = signed_terms(terms, flip, |t| self.signed(t));
        let (neg, v) = signed[0];
        let mut acc = if neg { self.push(Op::Neg(v)) } else { v };
        for &(neg, v) in &signed[1..] {
            acc = self.push(if neg {
                Op::Sub(acc, v)
            } else {
                Op::Add(acc, v)
            });
        }
        acc
    }

    /// coefficient · Π factors, with negative rational powers as a denominator.
    /// The factor at index `flipped`, a sum, has the signs of its terms changed.
    fn product(
        &mut self,
        coefficient: Option<f64>,
        factors: &[ExprId],
        flipped: Option<usize>,
    ) -> Val {
        let mut numerator: Vec<Val> = coefficient.map(|c| self.constant(c)).into_iter().collect();
        let mut denominator = Vec::new();
        for (i, &f) in factors.iter().enumerate() {
            match self.pool.get(f) {
                Node::Add(terms) if flipped == Some(i) => numerator.push(self.sum(terms, true)),
                Node::Pow(base, exponent) => match rational(self.pool, *exponent) {
                    Some((p, q)) if p < 0 => denominator.push(self.power(*base, -p, q)),
                    Some((p, q)) => numerator.push(self.power(*base, p, q)),
                    None => {
                        let (b, e) = (self.lower(*base), self.lower(*exponent));
                        numerator.push(self.push(Op::Powf(b, e)));
                    }
                },
                _ => numerator.push(self.lower(f)),
            }
        }
        let numerator = self.fold_mul(&numerator);
        match (numerator, self.fold_mul(&denominator)) {
            (Some(n), None) => n,
            (n, Some(d)) => {
                let n = n.unwrap_or_else(|| self.constant(1.0));
                self.push(Op::Div(n, d))
            }
            (None, None) => self.constant(1.0),
        }
    }

    fn fold_mul(&mut self, factors: &[Val]) -> Option<Val> {
        let (&first, rest) = factors.split_first()?;
        Some(
            rest.iter()
                .fold(first, |acc, &f| self.push(Op::Mul(acc, f))),
        )
    }

    /// base^(p/q) for p > 0.
    fn power(&mut self, base: ExprId, p: i64, q: i64) -> Val {
        let b = self.lower(base);
        let root = match q {
            1 => b,
            2 => self.push(Op::Call(Func::Sqrt, b)),
            _ => {
                let e = self.constant(p as f64 / q as f64);
                return self.push(Op::Powf(b, e));
            }
        };
        match i32::try_from(p) {
            Ok(1) => root,
            Ok(k) => self.push(Op::Powi(root, k)),
            Err(_) => {
                let e = self.constant(p as f64);
                self.push(Op::Powf(root, e))
            }
        }
    }
}

/// Counts of floating-point operations in straight-line code.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpCounts {
    /// Additions, subtractions and negations.
    pub adds: u64,
    /// Multiplications.
    pub muls: u64,
    /// Divisions.
    pub divs: u64,
    /// Calls: `powi`, `powf`, `sqrt`, elementary functions; one `sin_cos` is one call.
    pub calls: u64,
}

impl OpCounts {
    /// All operations together.
    pub fn total(&self) -> u64 {
        self.adds + self.muls + self.divs + self.calls
    }

    fn of(op: Op) -> Self {
        let mut c = OpCounts::default();
        match op {
            Op::Const(_) | Op::Load(_) => {}
            Op::Add(..) | Op::Sub(..) | Op::Neg(_) => c.adds = 1,
            Op::Mul(..) => c.muls = 1,
            Op::Div(..) => c.divs = 1,
            Op::Powi(..) | Op::Powf(..) | Op::Call(..) | Op::Atan2(..) => c.calls = 1,
        }
        c
    }

    fn plus(self, o: Self) -> Self {
        OpCounts {
            adds: self.adds.saturating_add(o.adds),
            muls: self.muls.saturating_add(o.muls),
            divs: self.divs.saturating_add(o.divs),
            calls: self.calls.saturating_add(o.calls),
        }
    }
}

/// Operation counts of the code emitted for a set of outputs, before and after
/// common-subexpression elimination.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpReport {
    /// Every output written out as a tree, with no value shared within or across outputs
    /// (sin and cos counted as two calls). Saturates at `u64::MAX`.
    pub tree: OpCounts,
    /// The emitted straight-line code: each distinct value computed once (what
    /// [`emit_rust`](super::emit_rust) and [`compile_tape`](super::compile_tape) execute).
    pub dag: OpCounts,
}

/// Counts the operations of the code emitted for `outputs`, before and after CSE.
pub fn count_ops(pool: &Pool, outputs: &[ExprId]) -> OpReport {
    Program::new(pool, outputs).op_report()
}

impl Program {
    pub(crate) fn op_report(&self) -> OpReport {
        let mut tree_of = vec![OpCounts::default(); self.ops.len()];
        for (v, &op) in self.ops.iter().enumerate() {
            tree_of[v] = op
                .operands()
                .fold(OpCounts::of(op), |acc, w| acc.plus(tree_of[w as usize]));
        }
        let tree = self
            .outputs
            .iter()
            .fold(OpCounts::default(), |acc, &v| acc.plus(tree_of[v as usize]));
        let dag = self.steps.iter().fold(OpCounts::default(), |acc, step| {
            acc.plus(match *step {
                Step::Op(v) => OpCounts::of(self.ops[v as usize]),
                Step::SinCos { .. } => OpCounts {
                    calls: 1,
                    ..OpCounts::default()
                },
            })
        });
        OpReport { tree, dag }
    }
}
