//! The JIT against the tape on random expressions: every function of the language, deep sums,
//! integer, rational and real powers, and constants near 0 and ±1, over every kind of input.
//! The two must agree bit for bit (any NaN matching any NaN), in both tiers of the JIT; and the
//! code for pairs of states must give each state's outputs as the JIT does.

use proptest::prelude::*;
use udk_jit::{JitFunction, JitPair, Tier};
use udk_symbolic::emit::{compile_tape, Program, TapeInputs, TapeSizes};
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

/// Inputs of every kind the program reads, from the values of the variables.
struct Inputs([Vec<f64>; 7]);

impl Inputs {
    fn new(s: TapeSizes, values: &[f64]) -> Self {
        let input = |len: usize, at: usize| vec![values[at]; len];
        Inputs([
            (0..s.q).map(|i| values[i % 2]).collect(),
            input(s.qd, 2),
            input(s.qdd, 3),
            input(s.p, 4),
            input(s.params, 5),
            input(s.u, 6),
            input(s.lambda, 7),
        ])
    }

    fn view<'a>(&'a self, values: &[f64]) -> TapeInputs<'a> {
        let [q, qd, qdd, p, params, u, lambda] = &self.0;
        TapeInputs {
            q,
            qd,
            qdd,
            p,
            t: values[8],
            params,
            u,
            lambda,
        }
    }
}

fn values() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(
        prop_oneof![-2.0..2.0f64, prop::sample::select(CONSTANTS.to_vec())],
        VARIABLES.len(),
    )
}

fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn jit_equals_the_tape(
        trees in prop::collection::vec(tree(), 1..4),
        values in values(),
    ) {
        let mut pool = Pool::new();
        let outputs: Vec<ExprId> = trees.iter().map(|t| build(&mut pool, t)).collect();
        let tape = compile_tape(&pool, &outputs);
        let program = Program::new(&pool, &outputs);
        let inputs = Inputs::new(tape.required(), &values);
        let inputs = inputs.view(&values);
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

    /// Two states through the pair code against one call of the JIT each: a long sum too, so
    /// that a program split into several native functions passes pairs through the scratch.
    #[test]
    fn pairs_equal_two_calls(
        trees in prop::collection::vec(tree(), 1..4),
        first in values(),
        second in values(),
        long in any::<bool>(),
    ) {
        let mut pool = Pool::new();
        let mut outputs: Vec<ExprId> = trees.iter().map(|t| build(&mut pool, t)).collect();
        if long {
            // More values than one native function takes (2000).
            let terms: Vec<ExprId> = (0..1500)
                .map(|k| {
                    let x = build(&mut pool, &trees[k % trees.len()]);
                    let c = pool.number(k as f64 + 0.5);
                    let s = pool.call(Func::Sin, &[c]);
                    let y = pool.mul(&[x, c]);
                    pool.add(&[y, s])
                })
                .collect();
            outputs.push(pool.mul(&terms));
        }
        let program = Program::new(&pool, &outputs);
        let jit = JitFunction::from_program(&program, "random").unwrap();
        let pair = JitPair::from_program(&program, "random").unwrap();
        prop_assert_eq!(pair.outputs(), jit.outputs());
        let states = [&first, &second].map(|v| Inputs::new(jit.required(), v));
        let views = [states[0].view(&first), states[1].view(&second)];
        let mut buffers = pair.buffers();
        let got = pair.eval([&views[0], &views[1]], &mut buffers).unwrap();
        for (state, view) in views.iter().enumerate() {
            let mut expected = vec![0.0; jit.outputs()];
            jit.eval(view, &mut vec![0.0; jit.registers()], &mut expected).unwrap();
            for (k, (&a, &b)) in expected.iter().zip(got[state]).enumerate() {
                prop_assert!(same(a, b), "state {}, output {}: JIT {:e}, pair {:e}", state, k, a, b);
            }
        }
    }
}
