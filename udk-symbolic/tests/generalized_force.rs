//! The generalized force Q of the derivation, written with the Christoffel symbols of M and
//! the velocity-linear part g of L, against the textbook form
//! Q = ∂L/∂q − (∂²L/∂q̇∂q) q̇ − ∂²L/∂q̇∂t (review paper, eq 20) and against the convective
//! form ∂L/∂q − (∂/∂t + q̇ᵀ∂/∂q)(∂L/∂q̇), on the pendulum chains and on random Lagrangians
//! with velocity-linear terms and explicit time dependence.

use proptest::prelude::*;
use udk_symbolic::derivation::Equations;
use udk_symbolic::error::Errors;
use udk_symbolic::expr::{ExprId, Pool, Symbol};
use udk_symbolic::parse::{parse_expr, Binding, Context, Scope};
use udk_symbolic::{derive, models, ModelSpec};

/// The derived Q, the textbook Q and the convective-form Q of `spec`, as expressions in the
/// derivation's pool.
struct Forms {
    pool: Pool,
    derived: Vec<ExprId>,
    textbook: Vec<ExprId>,
    convective: Vec<ExprId>,
}

fn forms(spec: &ModelSpec) -> Forms {
    let d = derive(spec).expect("the model derives");
    let Equations::Lagrangian(equations) = &d.equations else {
        panic!("a Lagrangian model");
    };
    let derived = equations.generalized_force.clone();
    let mut pool = d.pool;
    let mut scope = Scope::new();
    for (i, c) in spec.coordinates.iter().enumerate() {
        scope.bind(&c.as_string(), Binding::Coordinate(i));
    }
    for (i, p) in spec.parameters.iter().enumerate() {
        scope.bind(&p.name.as_string(), Binding::Parameter(i));
    }
    let mut errors = Errors::default();
    let lagrangian = spec.lagrangian.as_ref().expect("a Lagrangian");
    let l = parse_expr(
        &mut pool,
        &scope,
        Context::LAGRANGIAN,
        &lagrangian.0,
        &mut errors,
    );
    assert!(errors.is_empty(), "{errors:?}");
    let n = spec.coordinates.len();
    let (mut textbook, mut convective) = (Vec::new(), Vec::new());
    for i in 0..n {
        let dl_dq = pool.diff(l, Symbol::Coordinate(i));
        let momentum = pool.diff(l, Symbol::Velocity(i));
        let mut terms = vec![dl_dq];
        for j in 0..n {
            let mixed = pool.diff(momentum, Symbol::Coordinate(j));
            let qd = pool.symbol(Symbol::Velocity(j));
            let product = pool.mul(&[mixed, qd]);
            terms.push(pool.neg(product));
        }
        let dt = pool.diff(momentum, Symbol::Time);
        terms.push(pool.neg(dt));
        textbook.push(pool.add(&terms));
        let rate = pool.convective_derivative(momentum);
        convective.push(pool.sub(dl_dq, rate));
    }
    Forms {
        pool,
        derived,
        textbook,
        convective,
    }
}

/// Deterministic values in [−1, 1] for every symbol, from `seed`.
fn state(seed: u64) -> impl Fn(Symbol) -> f64 {
    move |s: Symbol| {
        let k = match s {
            Symbol::Time => 0,
            Symbol::Coordinate(i) => 1 + 4 * i,
            Symbol::Velocity(i) => 2 + 4 * i,
            Symbol::Parameter(i) => 3 + 4 * i,
            Symbol::Acceleration(i)
            | Symbol::Momentum(i)
            | Symbol::Input(i)
            | Symbol::Speed(i)
            | Symbol::Multiplier(i) => 4 + 4 * i,
        } as u64;
        let x = (seed.wrapping_mul(6364136223846793005) ^ k.wrapping_mul(1442695040888963407))
            .wrapping_mul(2862933555777620809);
        let v = (x >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0;
        if matches!(s, Symbol::Parameter(_)) {
            1.5 + v // masses and lengths positive
        } else {
            v
        }
    }
}

/// max |x − y| / (1 + max |y|) over the entries.
fn distance(pool: &Pool, x: &[ExprId], y: &[ExprId], values: &dyn Fn(Symbol) -> f64) -> f64 {
    let (x, y) = (pool.eval_all(x, values), pool.eval_all(y, values));
    let scale = 1.0 + y.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    x.iter()
        .zip(&y)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max)
        / scale
}

#[test]
fn chain_forces_match_the_textbook_form() {
    for spec in [
        models::pendulum_chain_minimal(3),
        models::pendulum_chain_minimal(5),
        models::pendulum_chain_cartesian(3),
    ] {
        let f = forms(&spec);
        for seed in 0..8 {
            let values = state(seed);
            let d = distance(&f.pool, &f.derived, &f.textbook, &values);
            assert!(d < 1e-12, "{}: {d:e} at seed {seed}", spec.name);
        }
    }
}

/// One factor of a random coefficient: q₁, q₂, t, sin q₁, cos q₂, sin t, exp(q₁·t/4) or 1.
fn factor() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "q1",
        "q2",
        "t",
        "q1.sin()",
        "q2.cos()",
        "t.sin()",
        "(0.25 * q1 * t).exp()",
        "1.0",
    ])
}

/// c·a·b with a small integer c, as source text.
fn coefficient() -> impl Strategy<Value = String> {
    (-3i8..=3, factor(), factor()).prop_map(|(c, a, b)| format!("({c}.0 * {a} * {b})"))
}

/// L = ½|B q̇|² + ½ k |q̇|² + g(q, t)ᵀq̇ + L₀(q, t) over q = (q1, q2), with the entries of B, g
/// and L₀ random coefficients: M = BᵀB + kI (k = 1 + p1, p1 a parameter), velocity-linear
/// terms and explicit time dependence everywhere.
fn lagrangian() -> impl Strategy<Value = String> {
    (
        proptest::collection::vec(coefficient(), 4),
        proptest::collection::vec(coefficient(), 2),
        proptest::collection::vec(coefficient(), 2),
    )
        .prop_map(|(b, g, l0)| {
            format!(
                "0.5 * ({b0} * dot(q1) + {b1} * dot(q2)).powi(2) \
                 + 0.5 * ({b2} * dot(q1) + {b3} * dot(q2)).powi(2) \
                 + 0.5 * (1.0 + p1) * (dot(q1).powi(2) + dot(q2).powi(2)) \
                 + {g0} * dot(q1) + {g1} * dot(q2) + {l00} + {l01} * p1",
                b0 = b[0],
                b1 = b[1],
                b2 = b[2],
                b3 = b[3],
                g0 = g[0],
                g1 = g[1],
                l00 = l0[0],
                l01 = l0[1],
            )
        })
}

fn spec(lagrangian: &str) -> ModelSpec {
    ModelSpec {
        name: "Random".to_owned(),
        coordinates: vec!["q1".parse().unwrap(), "q2".parse().unwrap()],
        parameters: vec![udk_symbolic::Parameter {
            name: "p1".parse().unwrap(),
            value: Some(1.0),
        }],
        lagrangian: Some(lagrangian.parse().unwrap()),
        ..ModelSpec::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    /// On random Lagrangians the derived Q equals the convective form (the formula the
    /// derivation used before the Christoffel form) and the textbook form.
    #[test]
    fn random_forces_match_the_convective_and_textbook_forms(l in lagrangian()) {
        let f = forms(&spec(&l));
        for seed in 0..4 {
            let values = state(seed);
            let d = distance(&f.pool, &f.derived, &f.convective, &values);
            prop_assert!(d < 1e-11, "convective: {d:e} at seed {seed}");
            let d = distance(&f.pool, &f.derived, &f.textbook, &values);
            prop_assert!(d < 1e-11, "textbook: {d:e} at seed {seed}");
        }
    }
}
