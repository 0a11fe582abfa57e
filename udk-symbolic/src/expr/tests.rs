//! Unit tests of the canonical forms.

use super::{ExprId, Func, Node, Number, Pool, Symbol};

fn setup() -> (Pool, ExprId, ExprId) {
    let mut pool = Pool::new();
    let x = pool.symbol(Symbol::Coordinate(0));
    let y = pool.symbol(Symbol::Coordinate(1));
    (pool, x, y)
}

#[test]
fn identities_and_constant_folding() {
    let (mut p, x, _) = setup();
    let zero = p.zero();
    let one = p.one();
    assert_eq!(p.add(&[x, zero]), x);
    assert_eq!(p.mul(&[x, one]), x);
    assert_eq!(p.mul(&[x, zero]), zero);
    assert_eq!(p.powi(x, 1), x);
    assert_eq!(p.powi(x, 0), one);
    let a = p.rational(1, 3);
    let b = p.rational(1, 6);
    let sum = p.add(&[a, b]);
    assert_eq!(p.as_number(sum), Some(Number::Rational(1, 2)));
    let half = p.number(0.5);
    assert_eq!(sum, half);
    let two = p.number(2.0);
    assert_eq!(two, p.integer(2));
}

#[test]
fn like_terms_and_powers_collect() {
    let (mut p, x, y) = setup();
    let two = p.integer(2);
    let three = p.integer(3);
    let a = p.mul(&[two, x, y]);
    let b = p.mul(&[y, three, x]);
    let sum = p.add(&[a, b]);
    let five = p.integer(5);
    let expected = p.mul(&[five, x, y]);
    assert_eq!(sum, expected);
    let diff = p.sub(a, a);
    assert!(p.is_zero(diff));
    let x2 = p.powi(x, 2);
    let x3 = p.mul(&[x2, x]);
    assert_eq!(x3, p.powi(x, 3));
    let q = p.div(x3, x2);
    assert_eq!(q, x);
    assert_eq!(p.div(x, x), p.one());
}

#[test]
fn division_negation_and_sqrt_forms() {
    let (mut p, x, y) = setup();
    let q = p.div(x, y);
    let inv = p.powi(y, -1);
    assert_eq!(p.get(q), &Node::Mul(vec![x, inv].into()));
    let n = p.neg(x);
    let m1 = p.integer(-1);
    assert_eq!(p.get(n), &Node::Mul(vec![m1, x].into()));
    assert_eq!(p.neg(n), x);
    let half = p.rational(1, 2);
    let r = p.pow(x, half);
    assert_eq!(p.get(r), &Node::Call(Func::Sqrt, vec![x].into()));
    let r2 = p.mul(&[r, r]);
    assert_eq!(r2, x);
    let three_halves = p.rational(3, 2);
    let r3 = p.pow(x, three_halves);
    assert_eq!(r3, p.powi(r, 3));
    let four = p.integer(4);
    let root = p.sqrt(four);
    assert_eq!(p.as_number(root), Some(Number::Rational(2, 1)));
}

#[test]
fn odd_and_even_functions_normalize_sign() {
    let (mut p, x, _) = setup();
    let nx = p.neg(x);
    let s = p.call(Func::Sin, &[x]);
    let c = p.call(Func::Cos, &[x]);
    let sn = p.call(Func::Sin, &[nx]);
    assert_eq!(sn, p.neg(s));
    assert_eq!(p.call(Func::Cos, &[nx]), c);
    let zero = p.zero();
    assert_eq!(p.call(Func::Cos, &[zero]), p.one());
}

#[test]
fn products_distribute_integer_powers() {
    let (mut p, x, y) = setup();
    let three = p.integer(3);
    let xy = p.mul(&[three, x, y]);
    let sq = p.powi(xy, 2);
    let nine = p.integer(9);
    let x2 = p.powi(x, 2);
    let y2 = p.powi(y, 2);
    assert_eq!(sq, p.mul(&[nine, x2, y2]));
    let sum = p.add(&[x, y]);
    let sum2 = p.powi(sum, 2);
    assert!(
        matches!(p.get(sum2), Node::Pow(..)),
        "sums are not expanded"
    );
}

#[test]
fn derivatives_of_basic_forms() {
    let (mut p, x, y) = setup();
    let s = p.call(Func::Sin, &[x]);
    let xs = p.mul(&[x, s, y]);
    let d = p.diff(xs, Symbol::Coordinate(0));
    let c = p.call(Func::Cos, &[x]);
    let t1 = p.mul(&[s, y]);
    let t2 = p.mul(&[x, c, y]);
    assert_eq!(d, p.add(&[t1, t2]));
    let dt = p.time_derivative(s);
    let v = p.symbol(Symbol::Velocity(0));
    assert_eq!(dt, p.mul(&[c, v]));
    let at = p.call(Func::Atan2, &[y, x]);
    let vals = |s: Symbol| match s {
        Symbol::Coordinate(0) => 0.7,
        Symbol::Coordinate(1) => -0.3,
        _ => 0.0,
    };
    let dx = p.diff(at, Symbol::Coordinate(0));
    let v = p.eval(dx, &vals);
    assert!((v - 0.3 / (0.49 + 0.09)).abs() < 1e-15);
}

#[test]
fn sums_are_primitive_and_sign_normalized() {
    let (mut p, x, y) = setup();
    let two = p.integer(2);
    let two_x = p.mul(&[two, x]);
    let two_y = p.mul(&[two, y]);
    let sum = p.add(&[two_x, two_y]);
    let x_plus_y = p.add(&[x, y]);
    assert_eq!(sum, p.mul(&[two, x_plus_y]));
    let half = p.rational(1, 2);
    assert_eq!(p.mul(&[half, sum]), x_plus_y);
    let a = p.sub(x, y);
    let b = p.sub(y, x);
    assert_eq!(b, p.neg(a));
    assert_eq!(p.powi(a, 2), p.powi(b, 2));
    // Scaled sums flatten when added: 2(x + y) − 2x = 2y.
    let back = p.sub(sum, two_x);
    assert_eq!(back, two_y);
    let third = p.rational(1, 3);
    let x3 = p.mul(&[third, x]);
    let sixth = p.rational(1, 6);
    let y6 = p.mul(&[sixth, y]);
    let s = p.add(&[x3, y6]);
    let Node::Mul(ops) = p.get(s) else {
        panic!("content 1/6 outside")
    };
    assert_eq!(p.as_number(ops[0]), Some(Number::Rational(1, 6)));
}

#[test]
fn pythagorean_identity() {
    let (mut p, x, y) = setup();
    let s = p.call(Func::Sin, &[x]);
    let c = p.call(Func::Cos, &[x]);
    let s2 = p.powi(s, 2);
    let c2 = p.powi(c, 2);
    let three = p.integer(3);
    let a = p.mul(&[three, y, s2]);
    let b = p.mul(&[y, c2, three]);
    let sum = p.add(&[a, x, b]);
    let y3 = p.mul(&[three, y]);
    assert_eq!(sum, p.add(&[x, y3]));
    assert_eq!(p.add(&[s2, c2]), p.one());
    // Different cofactors or coefficients stay.
    let b2 = p.mul(&[x, c2]);
    let kept = p.add(&[a, b2]);
    assert!(matches!(p.get(kept), Node::Add(ops) if ops.len() == 2));
}

#[test]
fn sin_and_cos_of_float_multiples_of_half_pi_are_exact() {
    let mut p = Pool::new();
    let pi = p.number(std::f64::consts::PI);
    let exact = |p: &mut Pool, func: Func, turns: (i64, i64)| {
        let k = p.rational(turns.0, turns.1);
        let angle = p.mul(&[k, pi]);
        let value = p.call(func, &[angle]);
        p.as_number(value)
    };
    let (one, zero, minus_one) = (Number::ONE, Number::ZERO, Number::Rational(-1, 1));
    // π/2, −π/2, π, 3π/2, 5π/2 as PI times a rational, folded in floating point first.
    assert_eq!(exact(&mut p, Func::Sin, (1, 2)), Some(one));
    assert_eq!(exact(&mut p, Func::Cos, (1, 2)), Some(zero));
    assert_eq!(exact(&mut p, Func::Sin, (-1, 2)), Some(minus_one));
    assert_eq!(exact(&mut p, Func::Cos, (1, 1)), Some(minus_one));
    assert_eq!(exact(&mut p, Func::Sin, (1, 1)), Some(zero));
    assert_eq!(exact(&mut p, Func::Sin, (3, 2)), Some(minus_one));
    assert_eq!(exact(&mut p, Func::Cos, (5, 2)), Some(zero));
    // Other angles stay floats: sin(π/3) is not snapped, nor is an angle near π/2.
    let third = exact(&mut p, Func::Sin, (1, 3)).unwrap();
    assert!(matches!(third, Number::Float(v) if (v - 3f64.sqrt() / 2.0).abs() < 1e-15));
    let near = p.number(std::f64::consts::FRAC_PI_2 + 1e-9);
    let cos_near = p.call(Func::Cos, &[near]);
    assert!(matches!(p.as_number(cos_near), Some(Number::Float(v)) if (v + 1e-9).abs() < 1e-15));
}

/// A shared sum is one operand of the sums it enters (their cost stays one addition per
/// operand), while its value, its derivative and x − x are as for the plain sum; a scaled sum
/// keeps its coefficient outside, so like terms still collect.
#[test]
fn shared_sums_stay_one_operand() {
    let (mut p, x, y) = setup();
    let z = p.symbol(Symbol::Velocity(0));
    let plain = p.add(&[x, y]);
    let held = p.shared(plain);
    assert_ne!(held, plain);
    assert_eq!(p.shared(x), x);
    let outer = p.add(&[held, z]);
    let Node::Add(ops) = p.get(outer) else {
        panic!("a sum")
    };
    assert_eq!(ops.len(), 2, "the shared sum is not taken apart");
    assert_eq!(p.operation_count(&[outer]), 2);
    let flat = p.add(&[plain, z]);
    assert_eq!(p.operation_count(&[flat]), 2);
    let vals = |s: Symbol| match s {
        Symbol::Coordinate(0) => 0.3,
        Symbol::Coordinate(1) => -1.7,
        _ => 2.5,
    };
    assert_eq!(p.eval(outer, &vals), p.eval(flat, &vals));
    let square = p.powi(outer, 2);
    let d = p.diff(square, Symbol::Coordinate(1));
    assert!((p.eval(d, &vals) - 2.0 * (0.3 - 1.7 + 2.5)).abs() < 1e-15);
    let back = p.sub(outer, held);
    assert_eq!(back, z, "x − x cancels for a shared x");
    let three = p.integer(3);
    let scaled = p.mul(&[three, plain]);
    let scaled_held = p.shared(scaled);
    let six = p.integer(6);
    let twice = p.add(&[scaled_held, scaled_held]);
    let expected_term = p.mul(&[six, held]);
    assert_eq!(twice, expected_term);
}

/// A shared reciprocal is one operand of the products it enters, so that the emitted code
/// divides once: a/(x + y) and b/(x + y) take one division and two multiplications instead of
/// two divisions, with the same values and derivative; a number's reciprocal is a number and
/// a scaled sum keeps its coefficient outside.
#[test]
fn shared_reciprocals_divide_once() {
    let (mut p, x, y) = setup();
    let (a, b) = (p.symbol(Symbol::Velocity(0)), p.symbol(Symbol::Velocity(1)));
    let sum = p.add(&[x, y]);
    let held = p.shared_reciprocal(sum);
    let plain = p.recip(sum);
    assert_ne!(held, plain);
    let quotients = |p: &mut Pool, inverse| [p.mul(&[a, inverse]), p.mul(&[b, inverse])];
    let shared = quotients(&mut p, held);
    let divided = quotients(&mut p, plain);
    let ops = |p: &Pool, outputs: &[ExprId]| crate::emit::count_ops(p, outputs).dag;
    assert_eq!((ops(&p, &shared).divs, ops(&p, &shared).muls), (1, 2));
    assert_eq!((ops(&p, &divided).divs, ops(&p, &divided).muls), (2, 0));
    let vals = |s: Symbol| match s {
        Symbol::Coordinate(0) => 0.3,
        Symbol::Coordinate(1) => -1.7,
        Symbol::Velocity(0) => 2.5,
        _ => -0.4,
    };
    for (s, d) in shared.iter().zip(&divided) {
        assert!((p.eval(*s, &vals) - p.eval(*d, &vals)).abs() < 1e-15);
        let (ds, dd) = (
            p.diff(*s, Symbol::Coordinate(1)),
            p.diff(*d, Symbol::Coordinate(1)),
        );
        assert!((p.eval(ds, &vals) - p.eval(dd, &vals)).abs() < 1e-15);
    }
    let two = p.integer(2);
    assert_eq!(p.shared_reciprocal(two), p.rational(1, 2));
    let three = p.integer(3);
    let scaled = p.mul(&[three, sum]);
    let inverse = p.shared_reciprocal(scaled);
    let third = p.rational(1, 3);
    assert_eq!(inverse, p.mul(&[third, held]));
}
