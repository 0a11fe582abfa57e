//! Shared helpers of the symbolic core's tests: models from TOML text, random points, and
//! numeric comparison.
#![allow(dead_code)]

use udk_symbolic::expr::{ExprId, Pool, Symbol};
use udk_symbolic::{derive, Derivation, Equations, HamiltonianEquations, LagrangianEquations};
use udk_symbolic::{ExprMatrix, ModelSpec};

/// A model spec from TOML text, as a model file holds it.
pub fn model(toml_text: &str) -> ModelSpec {
    toml::from_str(toml_text).expect("model TOML parses")
}

/// Derives `toml_text`'s model, panicking with the messages if it fails.
pub fn derived(toml_text: &str) -> Derivation {
    derive(&model(toml_text)).unwrap_or_else(|e| panic!("derivation failed: {e}"))
}

pub fn lagrangian(d: &Derivation) -> &LagrangianEquations {
    match &d.equations {
        Equations::Lagrangian(l) => l,
        Equations::Hamiltonian(_) => panic!("expected a Lagrangian model"),
    }
}

pub fn hamiltonian(d: &Derivation) -> &HamiltonianEquations {
    match &d.equations {
        Equations::Hamiltonian(h) => h,
        Equations::Lagrangian(_) => panic!("expected a Hamiltonian model"),
    }
}

/// SplitMix64: a small deterministic generator for test points.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [lo, hi).
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    pub fn vec(&mut self, n: usize, lo: f64, hi: f64) -> Vec<f64> {
        (0..n).map(|_| self.uniform(lo, hi)).collect()
    }
}

/// A point of state space: coordinates, velocities, accelerations, momenta, parameters, time.
#[derive(Clone, Debug)]
pub struct Point {
    pub q: Vec<f64>,
    pub v: Vec<f64>,
    pub a: Vec<f64>,
    pub p: Vec<f64>,
    pub k: Vec<f64>,
    pub t: f64,
    pub u: Vec<f64>,
}

impl Point {
    /// A random point with n coordinates and `params` parameters; parameters are in
    /// [0.5, 2) so that masses and lengths are positive.
    pub fn random(rng: &mut Rng, n: usize, params: usize) -> Point {
        Point {
            q: rng.vec(n, -1.5, 1.5),
            v: rng.vec(n, -1.5, 1.5),
            a: rng.vec(n, -1.5, 1.5),
            p: rng.vec(n, -1.5, 1.5),
            k: rng.vec(params, 0.5, 2.0),
            t: rng.uniform(-2.0, 2.0),
            u: rng.vec(3, -1.5, 1.5),
        }
    }

    pub fn value(&self, s: Symbol) -> f64 {
        match s {
            Symbol::Time => self.t,
            Symbol::Coordinate(i) => self.q[i],
            Symbol::Velocity(i) | Symbol::Speed(i) => self.v[i],
            Symbol::Acceleration(i) => self.a[i],
            Symbol::Momentum(i) => self.p[i],
            Symbol::Parameter(i) => self.k[i],
            Symbol::Input(i) => self.u[i],
            Symbol::Multiplier(_) => unreachable!("no multiplier in a model expression"),
        }
    }

    pub fn eval(&self, pool: &Pool, id: ExprId) -> f64 {
        pool.eval(id, &|s| self.value(s))
    }

    pub fn eval_vec(&self, pool: &Pool, ids: &[ExprId]) -> Vec<f64> {
        pool.eval_all(ids, &|s| self.value(s))
    }

    pub fn eval_matrix(&self, pool: &Pool, m: &ExprMatrix) -> Vec<Vec<f64>> {
        let flat = self.eval_vec(pool, &m.entries);
        flat.chunks(m.cols.max(1))
            .take(m.rows)
            .map(<[f64]>::to_vec)
            .collect()
    }
}

/// Asserts |actual − expected| ≤ 1e-12 · max(1, |expected|) entrywise.
pub fn assert_close(actual: &[f64], expected: &[f64], what: &str) {
    assert_eq!(actual.len(), expected.len(), "{what}: length");
    for (i, (a, e)) in actual.iter().zip(expected).enumerate() {
        assert!(
            (a - e).abs() <= 1e-12 * e.abs().max(1.0),
            "{what}[{i}]: derived {a}, expected {e}"
        );
    }
}

/// Matrix version of [`assert_close`].
pub fn assert_close_matrix(actual: &[Vec<f64>], expected: &[Vec<f64>], what: &str) {
    assert_eq!(actual.len(), expected.len(), "{what}: rows");
    for (i, (a, e)) in actual.iter().zip(expected).enumerate() {
        assert_close(a, e, &format!("{what} row {i}"));
    }
}
