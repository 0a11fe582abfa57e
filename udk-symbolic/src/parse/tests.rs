//! The rotation algebra against its definitions, evaluated at pseudo-random states: angular
//! velocities by composition against vee(Ṙ Rᵀ) and vee(Rᵀ Ṙ) of the entries, rotations
//! orthogonal, and `dot` against central differences along a trajectory.

use super::mechanics::{
    angular_velocity, axis_angle_rotation, axis_rotation, body_angular_velocity,
    quaternion_rotation,
};
use super::value::{mat_mul, transpose, Matrix};
use crate::expr::{ExprId, Pool, Symbol};

/// A state: q in [−1.5, 1.5], q̇ in [−2, 2], t in [0, 1], for `seed`.
fn state(seed: u64) -> impl Fn(Symbol) -> f64 {
    move |s: Symbol| {
        let k = match s {
            Symbol::Time => 0,
            Symbol::Coordinate(i) => 1 + 2 * i as u64,
            Symbol::Velocity(i) => 2 + 2 * i as u64,
            _ => 99,
        };
        let x = (seed.wrapping_mul(6364136223846793005) ^ k.wrapping_mul(1442695040888963407))
            .wrapping_mul(2862933555777620809);
        let v = (x >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0;
        match s {
            Symbol::Coordinate(_) => 1.5 * v,
            Symbol::Velocity(_) => 2.0 * v,
            _ => v.abs(),
        }
    }
}

/// R₁R₂R₃ᵀ of three axis rotations of coordinates and time, and a Rodrigues rotation about a
/// fixed axis.
fn chain(pool: &mut Pool) -> Matrix {
    let q = |pool: &mut Pool, i| pool.symbol(Symbol::Coordinate(i));
    let (a, b, c, d) = (q(pool, 0), q(pool, 1), q(pool, 2), q(pool, 3));
    let t = pool.symbol(Symbol::Time);
    let bt = pool.mul(&[b, t]);
    let r1 = axis_rotation(pool, 2, a);
    let r2 = axis_rotation(pool, 0, bt);
    let r3 = axis_rotation(pool, 1, c);
    let r3t = transpose(pool, &r3);
    let (third, two, two_thirds) = (
        pool.rational(1, 3),
        pool.rational(2, 3),
        pool.rational(2, 3),
    );
    let r4 = axis_angle_rotation(pool, [third, two, two_thirds], d, true);
    let r12 = mat_mul(pool, &r1, &r2);
    let r123 = mat_mul(pool, &r12, &r3t);
    mat_mul(pool, &r123, &r4)
}

fn eval3(pool: &Pool, v: [ExprId; 3], at: &dyn Fn(Symbol) -> f64) -> [f64; 3] {
    v.map(|x| pool.eval(x, at))
}

/// The angular velocities of `r` by composition and from its entries (vee of Ṙ Rᵀ and Rᵀ Ṙ):
/// [world, world from entries, body, body from entries].
fn both_ways(pool: &mut Pool, r: &Matrix) -> [[ExprId; 3]; 4] {
    let plain = Matrix::plain(r.entries);
    [
        angular_velocity(pool, r),
        angular_velocity(pool, &plain),
        body_angular_velocity(pool, r),
        body_angular_velocity(pool, &plain),
    ]
}

/// Asserts that both ways give the same ω and Ω at the state `at`, to 1e-13.
fn assert_same_rates(pool: &Pool, rates: &[[ExprId; 3]; 4], at: &dyn Fn(Symbol) -> f64, seed: u64) {
    let [w, wg, b, bg] = rates.map(|v| eval3(pool, v, at));
    for k in 0..3 {
        assert!(
            (w[k] - wg[k]).abs() < 1e-13,
            "seed {seed}: ω {w:?} vs {wg:?}"
        );
        assert!(
            (b[k] - bg[k]).abs() < 1e-13,
            "seed {seed}: Ω {b:?} vs {bg:?}"
        );
    }
}

#[test]
fn composed_angular_velocities_equal_vee_of_the_rotation_rates() {
    let mut pool = Pool::new();
    let r = chain(&mut pool);
    let rates = both_ways(&mut pool, &r);
    for seed in 0..20 {
        let at = state(seed);
        assert_same_rates(&pool, &rates, &at, seed);
        // R is orthogonal: RᵀR = 1.
        let m: Vec<f64> = r.entries.iter().map(|&x| pool.eval(x, &at)).collect();
        for i in 0..3 {
            for j in 0..3 {
                let dot: f64 = (0..3).map(|k| m[3 * k + i] * m[3 * k + j]).sum();
                assert!((dot - f64::from(u8::from(i == j))).abs() < 1e-14);
            }
        }
    }
}

#[test]
fn quaternion_angular_velocities_equal_vee_of_the_rotation_rates_on_the_unit_sphere() {
    let mut pool = Pool::new();
    let e = [0, 1, 2, 3].map(|i| pool.symbol(Symbol::Coordinate(i)));
    let r = quaternion_rotation(&mut pool, e);
    let rates = both_ways(&mut pool, &r);
    for seed in 0..20 {
        // A unit quaternion and a rate tangent to the unit sphere.
        let raw = state(seed);
        let q: Vec<f64> = (0..4).map(|i| raw(Symbol::Coordinate(i))).collect();
        let norm = q.iter().map(|x| x * x).sum::<f64>().sqrt();
        let q: Vec<f64> = q.iter().map(|x| x / norm).collect();
        let v: Vec<f64> = (0..4).map(|i| raw(Symbol::Velocity(i))).collect();
        let radial: f64 = q.iter().zip(&v).map(|(a, b)| a * b).sum();
        let v: Vec<f64> = v.iter().zip(&q).map(|(b, a)| b - radial * a).collect();
        let at = |s: Symbol| match s {
            Symbol::Coordinate(i) => q[i],
            Symbol::Velocity(i) => v[i],
            _ => 0.0,
        };
        assert_same_rates(&pool, &rates, &at, seed);
    }
}

#[test]
fn time_derivatives_match_central_differences_along_the_motion() {
    let mut pool = Pool::new();
    let r = chain(&mut pool);
    let rates = r.entries.map(|x| pool.convective_derivative(x));
    for seed in 0..10 {
        let at = state(seed);
        let h = 1e-5;
        // q(t ± h) = q ± h q̇, t ± h: first order is exact for the convective derivative.
        let shifted = |sign: f64, s: Symbol| match s {
            Symbol::Coordinate(i) => at(s) + sign * h * at(Symbol::Velocity(i)),
            Symbol::Time => at(s) + sign * h,
            _ => at(s),
        };
        for (k, (&entry, &rate)) in r.entries.iter().zip(&rates).enumerate() {
            let ahead = pool.eval(entry, &|s| shifted(1.0, s));
            let behind = pool.eval(entry, &|s| shifted(-1.0, s));
            let difference = (ahead - behind) / (2.0 * h);
            let exact = pool.eval(rate, &at);
            assert!(
                (difference - exact).abs() < 1e-8,
                "entry {k}: {difference} vs {exact}"
            );
        }
    }
}
