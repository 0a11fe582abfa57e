//! Helpers shared by the emitter tests: symbol tokens, random states, random expression
//! trees, the outputs of a Lagrangian model, and the models of the benchmarks.
#![allow(dead_code)]

use proc_macro2::{Literal, TokenStream};
use proptest::prelude::*;
use quote::quote;
use udk_symbolic::emit::TapeInputs;
use udk_symbolic::expr::{ExprId, Func, Pool, Symbol};
use udk_symbolic::{models, Derivation, Equations, ModelSpec};

/// Symbols as the tokens `q[i]`, `qd[i]`, `p[i]`, `c[i]`, `u[i]`, `t`.
pub fn symbol(s: Symbol) -> TokenStream {
    let (array, i) = match s {
        Symbol::Time => return quote!(t),
        Symbol::Coordinate(i) => (quote!(q), i),
        Symbol::Velocity(i) | Symbol::Speed(i) => (quote!(qd), i),
        Symbol::Acceleration(i) => (quote!(qdd), i),
        Symbol::Momentum(i) => (quote!(p), i),
        Symbol::Parameter(i) => (quote!(c), i),
        Symbol::Input(i) => (quote!(u), i),
        Symbol::Multiplier(i) => (quote!(lambda), i),
    };
    let i = Literal::usize_unsuffixed(i);
    quote!(#array[#i])
}

pub fn lagrangian_outputs(d: &Derivation) -> Vec<ExprId> {
    let Equations::Lagrangian(e) = &d.equations else {
        panic!("a Lagrangian model")
    };
    [
        &e.mass_matrix.entries[..],
        &e.generalized_force,
        &e.constraint_matrix.entries,
        &e.constraint_rhs,
        &e.nonideal_force,
    ]
    .concat()
}

/// A state: q, q̇, q̈, p in [−2, 2], t in [0, 1], parameters c in [0.5, 2], inputs u (3 of
/// them) in [−2, 2], from a seed.
pub struct State {
    pub q: Vec<f64>,
    pub qd: Vec<f64>,
    pub qdd: Vec<f64>,
    pub p: Vec<f64>,
    pub t: f64,
    pub c: Vec<f64>,
    pub u: Vec<f64>,
}

impl State {
    pub fn random(seed: u64, n: usize, params: usize) -> Self {
        let mut s = seed;
        let mut next = move || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut v = |k: usize, lo: f64, hi: f64| {
            (0..k).map(|_| lo + (hi - lo) * next()).collect::<Vec<_>>()
        };
        State {
            q: v(n, -2.0, 2.0),
            qd: v(n, -2.0, 2.0),
            qdd: v(n, -2.0, 2.0),
            p: v(n, -2.0, 2.0),
            t: v(1, 0.0, 1.0)[0],
            c: v(params, 0.5, 2.0),
            u: v(3, -2.0, 2.0),
        }
    }

    pub fn value(&self, s: Symbol) -> f64 {
        match s {
            Symbol::Time => self.t,
            Symbol::Coordinate(i) => self.q[i],
            Symbol::Velocity(i) | Symbol::Speed(i) => self.qd[i],
            Symbol::Acceleration(i) => self.qdd[i],
            Symbol::Momentum(i) => self.p[i],
            Symbol::Parameter(i) => self.c[i],
            Symbol::Input(i) => self.u[i],
            Symbol::Multiplier(_) => unreachable!("no multiplier in a test expression"),
        }
    }

    pub fn inputs(&self) -> TapeInputs<'_> {
        TapeInputs {
            q: &self.q,
            qd: &self.qd,
            qdd: &self.qdd,
            p: &self.p,
            t: self.t,
            params: &self.c,
            u: &self.u,
            lambda: &[],
        }
    }
}

/// A random expression tree over x0, x1, x2, t and c0, with functions kept on their domains.
#[derive(Clone, Debug)]
pub enum Tree {
    Leaf(Symbol),
    Int(i64),
    Ratio(i64, i64),
    /// π, a float constant.
    Pi,
    Add(Vec<Tree>),
    Mul(Vec<Tree>),
    Sub(Box<Tree>, Box<Tree>),
    /// a / (1 + b²).
    Div(Box<Tree>, Box<Tree>),
    Powi(Box<Tree>, i64),
    /// f(a) for a function defined everywhere, or sqrt/ln of 1 + a².
    Call(Func, Box<Tree>),
    Atan2(Box<Tree>, Box<Tree>),
}

pub fn tree() -> impl Strategy<Value = Tree> {
    let leaf = prop_oneof![
        (0usize..3).prop_map(|i| Tree::Leaf(Symbol::Coordinate(i))),
        Just(Tree::Leaf(Symbol::Time)),
        Just(Tree::Leaf(Symbol::Parameter(0))),
        Just(Tree::Leaf(Symbol::Velocity(1))),
        (-3i64..=3).prop_map(Tree::Int),
        (-5i64..=5, 2i64..=4).prop_map(|(p, q)| Tree::Ratio(p, q)),
        Just(Tree::Pi),
    ];
    leaf.prop_recursive(4, 24, 3, |inner| {
        let func = prop_oneof![
            Just(Func::Sin),
            Just(Func::Cos),
            Just(Func::Atan),
            Just(Func::Tanh),
            Just(Func::Abs),
            Just(Func::Sqrt),
            Just(Func::Ln),
            Just(Func::Sinh),
        ];
        prop_oneof![
            prop::collection::vec(inner.clone(), 2..4).prop_map(Tree::Add),
            prop::collection::vec(inner.clone(), 2..4).prop_map(Tree::Mul),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Tree::Sub(a.into(), b.into())),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Tree::Div(a.into(), b.into())),
            (inner.clone(), -3i64..=3).prop_map(|(a, k)| Tree::Powi(a.into(), k)),
            (func, inner.clone()).prop_map(|(f, a)| Tree::Call(f, a.into())),
            (inner.clone(), inner).prop_map(|(a, b)| Tree::Atan2(a.into(), b.into())),
        ]
    })
}

pub fn build(pool: &mut Pool, t: &Tree) -> ExprId {
    match t {
        Tree::Leaf(s) => pool.symbol(*s),
        Tree::Int(k) => pool.integer(*k),
        Tree::Ratio(p, q) => pool.rational(*p, *q),
        Tree::Pi => pool.number(std::f64::consts::PI),
        Tree::Add(ts) => {
            let ids: Vec<ExprId> = ts.iter().map(|t| build(pool, t)).collect();
            pool.add(&ids)
        }
        Tree::Mul(ts) => {
            let ids: Vec<ExprId> = ts.iter().map(|t| build(pool, t)).collect();
            pool.mul(&ids)
        }
        Tree::Sub(a, b) => {
            let (a, b) = (build(pool, a), build(pool, b));
            pool.sub(a, b)
        }
        Tree::Div(a, b) => {
            let (a, b) = (build(pool, a), build(pool, b));
            let den = positive(pool, b);
            pool.div(a, den)
        }
        Tree::Powi(a, k) => {
            let a = build(pool, a);
            // Negative powers of 1 + a², so that nothing divides by zero.
            let base = if *k < 0 { positive(pool, a) } else { a };
            pool.powi(base, *k)
        }
        Tree::Call(f, a) => {
            let a = build(pool, a);
            let arg = match f {
                Func::Sqrt | Func::Ln => positive(pool, a),
                Func::Sinh => {
                    // Keep sinh's argument bounded.
                    pool.call(Func::Tanh, &[a])
                }
                _ => a,
            };
            pool.call(*f, &[arg])
        }
        Tree::Atan2(a, b) => {
            let (a, b) = (build(pool, a), build(pool, b));
            let x = positive(pool, b);
            pool.call(Func::Atan2, &[a, x])
        }
    }
}

/// 1 + a².
pub fn positive(pool: &mut Pool, a: ExprId) -> ExprId {
    let one = pool.one();
    let square = pool.powi(a, 2);
    pool.add(&[one, square])
}

/// The 10-link pendulum chain in Cartesian (20 coordinates, 10 length constraints) and in
/// minimal coordinates (10 angles), named as the benchmarks report them.
pub fn pendulum_chains() -> [(&'static str, ModelSpec); 2] {
    [
        (
            "pendulum_chain_cartesian_10",
            models::pendulum_chain_cartesian(10),
        ),
        (
            "pendulum_chain_minimal_10",
            models::pendulum_chain_minimal(10),
        ),
    ]
}
