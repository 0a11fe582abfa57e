//! Property tests of the expression engine: derivatives agree with central finite
//! differences, canonicalization preserves values, and derivation is deterministic.

use proptest::prelude::*;
use std::cell::Cell;
use udk_symbolic::expr::{ExprId, Func, Pool, Symbol};
use udk_symbolic::{derive, models, Derivation};

/// The variables of the random trees.
const VARIABLES: [Symbol; 5] = [
    Symbol::Coordinate(0),
    Symbol::Coordinate(1),
    Symbol::Velocity(0),
    Symbol::Parameter(0),
    Symbol::Time,
];

/// A random expression. Functions are wrapped so that every point of [−1, 1]⁵ is inside
/// their domain (for example `Ln(a)` is ln(a² + 1)).
#[derive(Clone, Debug)]
enum Tree {
    Var(usize),
    Const(i8, u8),
    Add(Box<Tree>, Box<Tree>),
    Sub(Box<Tree>, Box<Tree>),
    Mul(Box<Tree>, Box<Tree>),
    /// a / (b² + 1)
    Div(Box<Tree>, Box<Tree>),
    Neg(Box<Tree>),
    /// a^k, k ≥ 0, or (a² + 1)^k, k < 0
    Powi(Box<Tree>, i8),
    /// (a² + 1)^(k/4)
    Powf(Box<Tree>, i8),
    /// atan2(a, b² + 1/2)
    Atan2(Box<Tree>, Box<Tree>),
    Unary(Func, Box<Tree>),
}

fn tree() -> impl Strategy<Value = Tree> {
    let leaf = prop_oneof![
        (0..VARIABLES.len()).prop_map(Tree::Var),
        (-5i8..=5, 1u8..=4).prop_map(|(p, q)| Tree::Const(p, q)),
    ];
    // Every one-argument function; Atan2 has its own node.
    let unary = prop::sample::select(
        Func::ALL
            .into_iter()
            .filter(|f| f.arity() == 1)
            .collect::<Vec<_>>(),
    );
    leaf.prop_recursive(5, 40, 2, move |inner| {
        let b = || inner.clone().prop_map(Box::new);
        prop_oneof![
            (b(), b()).prop_map(|(a, b)| Tree::Add(a, b)),
            (b(), b()).prop_map(|(a, b)| Tree::Sub(a, b)),
            (b(), b()).prop_map(|(a, b)| Tree::Mul(a, b)),
            (b(), b()).prop_map(|(a, b)| Tree::Div(a, b)),
            b().prop_map(Tree::Neg),
            (b(), -3i8..=4).prop_map(|(a, k)| Tree::Powi(a, k)),
            (b(), -6i8..=6).prop_map(|(a, k)| Tree::Powf(a, k)),
            (b(), b()).prop_map(|(a, b)| Tree::Atan2(a, b)),
            (unary.clone(), b()).prop_map(|(f, a)| Tree::Unary(f, a)),
        ]
    })
}

/// a² + c.
fn square_plus(pool: &mut Pool, a: ExprId, c: (i64, i64)) -> ExprId {
    let a2 = pool.powi(a, 2);
    let c = pool.rational(c.0, c.1);
    pool.add(&[a2, c])
}

/// The tree in the DAG.
fn build(pool: &mut Pool, tree: &Tree) -> ExprId {
    match tree {
        Tree::Var(i) => pool.symbol(VARIABLES[*i]),
        Tree::Const(p, q) => pool.rational(i64::from(*p), i64::from(*q)),
        Tree::Add(a, b) => {
            let (a, b) = (build(pool, a), build(pool, b));
            pool.add(&[a, b])
        }
        Tree::Sub(a, b) => {
            let (a, b) = (build(pool, a), build(pool, b));
            pool.sub(a, b)
        }
        Tree::Mul(a, b) => {
            let (a, b) = (build(pool, a), build(pool, b));
            pool.mul(&[a, b])
        }
        Tree::Div(a, b) => {
            let a = build(pool, a);
            let b = build(pool, b);
            let d = square_plus(pool, b, (1, 1));
            pool.div(a, d)
        }
        Tree::Neg(a) => {
            let a = build(pool, a);
            pool.neg(a)
        }
        Tree::Powi(a, k) => {
            let a = build(pool, a);
            let base = if *k < 0 {
                square_plus(pool, a, (1, 1))
            } else {
                a
            };
            pool.powi(base, i64::from(*k))
        }
        Tree::Powf(a, k) => {
            let a = build(pool, a);
            let base = square_plus(pool, a, (1, 1));
            let e = pool.rational(i64::from(*k), 4);
            pool.pow(base, e)
        }
        Tree::Atan2(a, b) => {
            let a = build(pool, a);
            let b = build(pool, b);
            let x = square_plus(pool, b, (1, 2));
            pool.call(Func::Atan2, &[a, x])
        }
        Tree::Unary(f, a) => {
            let a = build(pool, a);
            let arg = domain_wrap(pool, *f, a);
            pool.call(*f, &[arg])
        }
    }
}

/// The argument that keeps `f` inside its domain.
fn domain_wrap(pool: &mut Pool, f: Func, a: ExprId) -> ExprId {
    match f {
        Func::Ln | Func::Sqrt => square_plus(pool, a, (1, 1)),
        Func::Asin | Func::Acos | Func::Tan => {
            let t = pool.call(Func::Tanh, &[a]);
            let c = pool.rational(9, 10);
            pool.mul(&[c, t])
        }
        _ => a,
    }
}

/// Direct f64 evaluation of the tree. `scale` records the largest magnitude met (for the
/// rounding tolerance), `kink` the smallest |argument| of `abs` (where the derivative jumps).
fn value(tree: &Tree, x: &[f64], scale: &Cell<f64>, kink: &Cell<f64>) -> f64 {
    let r = |t: &Tree| value(t, x, scale, kink);
    let v = match tree {
        Tree::Var(i) => x[*i],
        Tree::Const(p, q) => f64::from(*p) / f64::from(*q),
        Tree::Add(a, b) => r(a) + r(b),
        Tree::Sub(a, b) => r(a) - r(b),
        Tree::Mul(a, b) => r(a) * r(b),
        Tree::Div(a, b) => r(a) / (r(b).powi(2) + 1.0),
        Tree::Neg(a) => -r(a),
        Tree::Powi(a, k) => {
            let a = r(a);
            let base = if *k < 0 { a * a + 1.0 } else { a };
            base.powi(i32::from(*k))
        }
        Tree::Powf(a, k) => (r(a).powi(2) + 1.0).powf(f64::from(*k) / 4.0),
        Tree::Atan2(a, b) => r(a).atan2(r(b).powi(2) + 0.5),
        Tree::Unary(f, a) => {
            let a = r(a);
            let arg = match f {
                Func::Ln | Func::Sqrt => a * a + 1.0,
                Func::Asin | Func::Acos | Func::Tan => 0.9 * a.tanh(),
                Func::Abs => {
                    kink.set(kink.get().min(a.abs()));
                    a
                }
                _ => a,
            };
            f.apply(&[arg])
        }
    };
    scale.set(scale.get().max(v.abs()));
    v
}

fn values(x: &[f64]) -> impl Fn(Symbol) -> f64 + '_ {
    move |s| {
        let i = VARIABLES
            .iter()
            .position(|&v| v == s)
            .expect("a tree variable");
        x[i]
    }
}

fn point() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(-1.0f64..1.0, VARIABLES.len())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn canonicalization_preserves_value(tree in tree(), x in point()) {
        let mut pool = Pool::new();
        let id = build(&mut pool, &tree);
        let (scale, kink) = (Cell::new(1.0), Cell::new(f64::INFINITY));
        let direct = value(&tree, &x, &scale, &kink);
        prop_assume!(direct.is_finite() && scale.get() < 1e6);
        let canonical = pool.eval(id, &values(&x));
        prop_assert!(
            (canonical - direct).abs() <= 1e-10 * scale.get(),
            "canonical {canonical}, direct {direct}"
        );
    }

    #[test]
    fn derivatives_match_central_differences(
        tree in tree(),
        x in point(),
        wrt in 0..VARIABLES.len(),
    ) {
        let mut pool = Pool::new();
        let id = build(&mut pool, &tree);
        let d = pool.diff(id, VARIABLES[wrt]);
        let (scale, kink) = (Cell::new(1.0), Cell::new(f64::INFINITY));
        let f = |x: &[f64]| value(&tree, x, &scale, &kink);
        let h = 1e-5;
        let (mut up, mut down) = (x.clone(), x.clone());
        up[wrt] += h;
        down[wrt] -= h;
        let numeric = (f(&up) - f(&down)) / (2.0 * h);
        prop_assume!(numeric.is_finite() && scale.get() < 1e4 && kink.get() > 1e-3);
        let symbolic = pool.eval(d, &values(&x));
        prop_assert!(
            (symbolic - numeric).abs() <= 1e-6 * (scale.get() + symbolic.abs()),
            "∂/∂{:?}: symbolic {symbolic}, central difference {numeric}", VARIABLES[wrt]
        );
    }

    #[test]
    fn time_derivative_matches_central_differences(
        tree in tree(),
        x in point(),
        acceleration in -1.0f64..1.0,
    ) {
        // Along the path q₀(τ) = q₀ + q̇₀τ + aτ²/2, q̇₀(τ) = q̇₀ + aτ, t(τ) = t + τ, with q₁
        // at rest (q̇₁ = 0) and the parameter constant.
        let mut pool = Pool::new();
        let id = build(&mut pool, &tree);
        let dt = pool.time_derivative(id);
        let (scale, kink) = (Cell::new(1.0), Cell::new(f64::INFINITY));
        let at = |tau: f64| {
            let mut y = x.clone();
            y[0] += x[2] * tau + 0.5 * acceleration * tau * tau;
            y[2] += acceleration * tau;
            y[4] += tau;
            value(&tree, &y, &scale, &kink)
        };
        let h = 1e-5;
        let numeric = (at(h) - at(-h)) / (2.0 * h);
        prop_assume!(numeric.is_finite() && scale.get() < 1e4 && kink.get() > 1e-3);
        let symbolic = pool.eval(dt, &|s| match s {
            Symbol::Velocity(1) => 0.0,
            Symbol::Acceleration(0) => acceleration,
            s => values(&x)(s),
        });
        prop_assert!(
            (symbolic - numeric).abs() <= 1e-6 * (scale.get() + symbolic.abs()),
            "d/dt: symbolic {symbolic}, central difference {numeric}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn convective_derivative_is_the_time_derivative_without_accelerations(
        tree in tree(),
        x in point(),
    ) {
        let mut pool = Pool::new();
        let id = build(&mut pool, &tree);
        let convective = pool.convective_derivative(id);
        let dt = pool.time_derivative(id);
        let at = |s: Symbol| match s {
            Symbol::Velocity(1) | Symbol::Acceleration(_) => 0.0,
            s => values(&x)(s),
        };
        let (c, d) = (pool.eval(convective, &at), pool.eval(dt, &at));
        prop_assume!(d.is_finite() && d.abs() < 1e6);
        prop_assert!((c - d).abs() <= 1e-9 * (1.0 + d.abs()), "convective {c}, d/dt {d}");
    }
}

/// Every node of the pool and the equations, as text.
fn fingerprint(d: &Derivation) -> (Vec<String>, String) {
    let nodes = (0..d.pool.len())
        .map(|i| format!("{:?}", d.pool.get(ExprId(i as u32))))
        .collect();
    (nodes, format!("{:?}", d.equations))
}

#[test]
fn derivation_is_deterministic() {
    for spec in [
        models::pendulum_chain_cartesian(4),
        models::pendulum_chain_minimal(4),
    ] {
        let first = fingerprint(&derive(&spec).expect("derives"));
        let second = fingerprint(&derive(&spec).expect("derives"));
        assert!(first.0.len() > 50);
        assert_eq!(first, second);
    }
}
