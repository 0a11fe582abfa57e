//! The JIT against the tape on random expressions: every function of the language, deep sums,
//! integer, rational and real powers, and constants near 0 and ±1, over every kind of input.
//! The two must agree bit for bit (any NaN matching any NaN), in both tiers of the JIT.

use proptest::prelude::*;
use udk_jit::{JitFunction, Tier};
use udk_symbolic::emit::{compile_tape, Program, TapeInputs};
use udk_symbolic::expr::{ExprId, Func, Pool, Symbol};

/// The variables of the random expressions, one of each input kind.
const VARIABLES: [Symbol; 9] = [
    Symbol::Coordinate(0),
    Symbol::Coordinate(2),
    Symbol::Velocity(1),
    Symbol::Acceleration(0),
    Symbol::Momentum(1),
    Symbol::Parameter(0),
    Symbol::Input(0),
    Symbol::Multiplier(1),
    Symbol::Time,
];

/// Constants at and near 0 and ±1, and ordinary ones.
const CONSTANTS: [f64; 12] = [
    0.0,
    1e-300,
    -1e-17,
    1.0,
    -1.0,
    1.0 + f64::EPSILON,
    -1.0 + 1e-15,
    0.5,
    2.0,
    -3.25,
    std::f64::consts::PI,
    1e300,
];

#[derive(Clone, Debug)]
enum Tree {
    Var(usize),
    Const(usize),
    Sum(Vec<Tree>),
    Product(Vec<Tree>),
    Div(Box<Tree>, Box<Tree>),
    Neg(Box<Tree>),
    Powi(Box<Tree>, i8),
    /// a^(p/q)
    Rational(Box<Tree>, i8, u8),
    Powf(Box<Tree>, Box<Tree>),
    Call(Func, Vec<Tree>),
}

fn tree() -> impl Strategy<Value = Tree> {
    let leaf = prop_oneof![
        (0..VARIABLES.len()).prop_map(Tree::Var),
        (0..CONSTANTS.len()).prop_map(Tree::Const),
    ];
    leaf.prop_recursive(6, 120, 40, |inner| {
        let b = || inner.clone().prop_map(Box::new);
        prop_oneof![
            prop::collection::vec(inner.clone(), 2..40).prop_map(Tree::Sum),
            prop::collection::vec(inner.clone(), 2..5).prop_map(Tree::Product),
            (b(), b()).prop_map(|(a, b)| Tree::Div(a, b)),
            b().prop_map(Tree::Neg),
            (b(), -5i8..=6).prop_map(|(a, k)| Tree::Powi(a, k)),
            (b(), -7i8..=7, 1u8..=4).prop_map(|(a, p, q)| Tree::Rational(a, p, q)),
            (b(), b()).prop_map(|(a, b)| Tree::Powf(a, b)),
            (prop::sample::select(Func::ALL.to_vec()), b(), b()).prop_map(|(f, a, b)| {
                let args = if f.arity() == 2 {
                    vec![*a, *b]
                } else {
                    vec![*a]
                };
                Tree::Call(f, args)
            }),
        ]
    })
}

fn build(pool: &mut Pool, tree: &Tree) -> ExprId {
    let all = |pool: &mut Pool, trees: &[Tree]| -> Vec<ExprId> {
        trees.iter().map(|t| build(pool, t)).collect()
    };
    match tree {
        Tree::Var(i) => pool.symbol(VARIABLES[*i]),
        Tree::Const(i) => pool.number(CONSTANTS[*i]),
        Tree::Sum(terms) => {
            let terms = all(pool, terms);
            pool.add(&terms)
        }
        Tree::Product(factors) => {
            let factors = all(pool, factors);
            pool.mul(&factors)
        }
        Tree::Div(a, b) => {
            let (a, b) = (build(pool, a), build(pool, b));
            pool.div(a, b)
        }
        Tree::Neg(a) => {
            let a = build(pool, a);
            pool.neg(a)
        }
        Tree::Powi(a, k) => {
            let a = build(pool, a);
            pool.powi(a, i64::from(*k))
        }
        Tree::Rational(a, p, q) => {
            let a = build(pool, a);
            let e = pool.rational(i64::from(*p), i64::from(*q));
            pool.pow(a, e)
        }
        Tree::Powf(a, b) => {
            let (a, b) = (build(pool, a), build(pool, b));
            pool.pow(a, b)
        }
        Tree::Call(f, args) => {
            let args = all(pool, args);
            pool.call(*f, &args)
        }
    }
}

fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn jit_equals_the_tape(
        trees in prop::collection::vec(tree(), 1..4),
        values in prop::collection::vec(
            prop_oneof![-2.0..2.0f64, prop::sample::select(CONSTANTS.to_vec())],
            VARIABLES.len(),
        ),
    ) {
        let mut pool = Pool::new();
        let outputs: Vec<ExprId> = trees.iter().map(|t| build(&mut pool, t)).collect();
        let tape = compile_tape(&pool, &outputs);
        let program = Program::new(&pool, &outputs);
        let s = tape.required();
        let input = |len: usize, at: usize| vec![values[at]; len];
        let (q, qd, qdd, p, params, u, lambda) = (
            (0..s.q).map(|i| values[i % 2]).collect::<Vec<_>>(),
            input(s.qd, 2),
            input(s.qdd, 3),
            input(s.p, 4),
            input(s.params, 5),
            input(s.u, 6),
            input(s.lambda, 7),
        );
        let inputs = TapeInputs {
            q: &q, qd: &qd, qdd: &qdd, p: &p, t: values[8], params: &params, u: &u,
            lambda: &lambda,
        };
        let mut expected = vec![0.0; tape.outputs()];
        tape.eval(&inputs, &mut vec![0.0; tape.registers()], &mut expected).unwrap();
        for tier in [Tier::Quick, Tier::Optimized] {
            let jit = JitFunction::from_program_in(&program, "random", tier).unwrap();
            let mut got = vec![0.0; jit.outputs()];
            jit.eval(&inputs, &mut vec![0.0; jit.registers()], &mut got).unwrap();
            for (k, (&a, &b)) in expected.iter().zip(&got).enumerate() {
                prop_assert!(same(a, b), "output {}: tape {:e}, JIT ({:?}) {:e}", k, a, tier, b);
            }
        }
    }
}
