//! Arithmetic on [`Number`]: exact rationals with checked `i64` arithmetic, falling back to
//! floats when a result does not fit or when an operand is already a float.

use super::Number;

/// Greatest common divisor of two non-negative integers.
fn gcd(mut a: i128, mut b: i128) -> i128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// p/q in lowest terms for q > 0, in `i64`: what [`reduced_i128`] gives, without its `i128`
/// divisions (a call each, about a tenth of a small model's derivation when every sum and
/// product of rationals took them). An integer (q = 1) takes no division.
fn reduced(p: i64, q: i64) -> Number {
    if q == 1 {
        return Number::Rational(p, 1);
    }
    let (mut a, mut b) = (p.unsigned_abs(), q.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    // a divides q > 0, so 1 ≤ a ≤ i64::MAX.
    let g = a as i64;
    Number::Rational(p / g, q / g)
}

/// p/q (q ≠ 0) reduced in `i128`; a float when the reduced fraction does not fit in `i64`.
fn reduced_i128(p: i128, q: i128) -> Number {
    let g = gcd(p.abs(), q.abs());
    let (mut p, mut q) = (p / g, q / g);
    if q < 0 {
        (p, q) = (-p, -q);
    }
    match (i64::try_from(p), i64::try_from(q)) {
        (Ok(p), Ok(q)) => Number::Rational(p, q),
        _ => Number::Float(p as f64 / q as f64),
    }
}

impl Number {
    /// Zero.
    pub const ZERO: Number = Number::Rational(0, 1);
    /// One.
    pub const ONE: Number = Number::Rational(1, 1);
    /// Minus one.
    pub const MINUS_ONE: Number = Number::Rational(-1, 1);

    /// The rational p/q in lowest terms, or `None` when q = 0. When the reduced fraction does
    /// not fit in `i64` the value becomes a float.
    pub fn rational(p: i64, q: i64) -> Option<Number> {
        Number::from_i128(i128::from(p), i128::from(q))
    }

    /// p/q reduced; a float when it does not fit in `i64`; `None` when q = 0.
    fn from_i128(p: i128, q: i128) -> Option<Number> {
        if q == 0 {
            return None;
        }
        Some(match (i64::try_from(p), i64::try_from(q)) {
            (Ok(p), Ok(q)) if q > 0 => reduced(p, q),
            _ => reduced_i128(p, q),
        })
    }

    /// `x` as a number: a float that is exactly k/2ʲ with j ≤ 16 and |k| < 2⁵³ becomes that
    /// exact rational, so that `2.0` and `2`, or `0.5` and `1/2`, are the same constant; any
    /// other value stays a float.
    pub fn from_f64(x: f64) -> Number {
        const LIMIT: f64 = 9_007_199_254_740_992.0;
        let mut scaled = x;
        for j in 0..=16 {
            if scaled.abs() >= LIMIT {
                break;
            }
            if scaled.fract() == 0.0 {
                return Number::rational(scaled as i64, 1 << j).expect("positive denominator");
            }
            scaled *= 2.0;
        }
        Number::Float(x)
    }

    /// Whether the value is 0.
    pub fn is_zero(self) -> bool {
        matches!(self, Number::Rational(0, _))
    }

    /// Whether the value is 1.
    pub fn is_one(self) -> bool {
        matches!(self, Number::Rational(1, 1))
    }

    /// Whether the value is negative.
    pub fn is_negative(self) -> bool {
        self.to_f64() < 0.0
    }

    /// The value as an integer, when it is an exact one.
    pub fn as_integer(self) -> Option<i64> {
        match self {
            Number::Rational(p, 1) => Some(p),
            _ => None,
        }
    }

    /// Floats that are integer-valued become exact integers (see [`Number::from_f64`]).
    fn normalize(self) -> Number {
        match self {
            Number::Float(x) => Number::from_f64(x),
            r => r,
        }
    }

    /// self + other, exact when both are rationals and the result fits.
    fn sum(self, other: Number) -> Number {
        match (self, other) {
            (Number::Rational(a, b), Number::Rational(c, d)) => {
                let (a, b, c, d) = (i128::from(a), i128::from(b), i128::from(c), i128::from(d));
                Number::from_i128(a * d + c * b, b * d).expect("denominators are positive")
            }
            _ => Number::from_f64(self.to_f64() + other.to_f64()),
        }
    }

    /// self · other, exact when both are rationals and the result fits.
    fn product(self, other: Number) -> Number {
        match (self, other) {
            (Number::Rational(a, b), Number::Rational(c, d)) => {
                let (a, b, c, d) = (i128::from(a), i128::from(b), i128::from(c), i128::from(d));
                Number::from_i128(a * c, b * d).expect("denominators are positive")
            }
            _ => Number::from_f64(self.to_f64() * other.to_f64()),
        }
    }

    /// self^k for an integer k, by repeated squaring; `None` for 0^k with k < 0 or when a
    /// float result is not finite.
    pub fn powi(self, k: i64) -> Option<Number> {
        if k < 0 {
            let inverse = match self {
                Number::Rational(p, q) => Number::rational(q, p)?,
                Number::Float(x) => Number::from_f64(1.0 / x),
            };
            return inverse.powi(k.checked_neg()?);
        }
        let mut result = Number::ONE;
        let mut base = self;
        let mut k = k;
        while k > 0 {
            if k & 1 == 1 {
                result = result * base;
            }
            k >>= 1;
            if k > 0 {
                base = base * base;
            }
        }
        result.to_f64().is_finite().then_some(result.normalize())
    }

    /// The exact square root of a non-negative rational that is a perfect square.
    pub fn exact_sqrt(self) -> Option<Number> {
        let Number::Rational(p, q) = self else {
            return None;
        };
        let root = |n: i64| -> Option<i64> {
            if n < 0 {
                return None;
            }
            let r = (n as f64).sqrt().round() as i64;
            (r.checked_mul(r) == Some(n)).then_some(r)
        };
        Some(Number::Rational(root(p)?, root(q)?))
    }
}

impl std::ops::Add for Number {
    type Output = Number;
    fn add(self, other: Number) -> Number {
        self.sum(other)
    }
}

impl std::ops::Mul for Number {
    type Output = Number;
    fn mul(self, other: Number) -> Number {
        self.product(other)
    }
}

impl std::ops::Neg for Number {
    type Output = Number;
    fn neg(self) -> Number {
        self.product(Number::MINUS_ONE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rational_arithmetic_is_exact_and_reduced() {
        let a = Number::rational(1, 3).unwrap();
        let b = Number::rational(1, 6).unwrap();
        assert_eq!(a + b, Number::Rational(1, 2));
        assert_eq!(a * b, Number::Rational(1, 18));
        assert_eq!(Number::rational(4, -6), Some(Number::Rational(-2, 3)));
        assert_eq!(Number::rational(1, 0), None);
        assert_eq!(
            Number::Rational(2, 3).powi(-3),
            Some(Number::Rational(27, 8))
        );
        assert_eq!(Number::ZERO.powi(-1), None);
        assert_eq!(
            Number::Rational(9, 4).exact_sqrt(),
            Some(Number::Rational(3, 2))
        );
        assert_eq!(Number::Rational(2, 1).exact_sqrt(), None);
    }

    /// The `i64` reduction of `from_i128` against the `i128` one it shortcuts, on the sums
    /// and products of small and overflowing operands and on negative denominators.
    #[test]
    fn i64_reduction_agrees_with_i128_reduction() {
        let values: [i64; 13] = [
            0,
            1,
            -1,
            2,
            -3,
            6,
            7,
            -12,
            1 << 31,
            -(1 << 31),
            1 << 40,
            i64::MAX,
            i64::MIN,
        ];
        let fractions = || {
            let denominators = values.iter().filter(|&&q| q != 0);
            values
                .iter()
                .flat_map(move |&p| denominators.clone().map(move |&q| (p, q)))
        };
        for (p, q) in fractions() {
            let (p, q) = (i128::from(p), i128::from(q));
            assert_eq!(Number::from_i128(p, q), Some(reduced_i128(p, q)), "{p}/{q}");
        }
        for (a, b) in fractions() {
            for (c, d) in fractions() {
                let Some(Number::Rational(a, b)) = Number::rational(a, b) else {
                    continue;
                };
                let Some(Number::Rational(c, d)) = Number::rational(c, d) else {
                    continue;
                };
                let (x, y) = (Number::Rational(a, b), Number::Rational(c, d));
                let (a, b, c, d) = (i128::from(a), i128::from(b), i128::from(c), i128::from(d));
                assert_eq!(x * y, reduced_i128(a * c, b * d), "{x:?} · {y:?}");
                assert_eq!(x + y, reduced_i128(a * d + c * b, b * d), "{x:?} + {y:?}");
            }
        }
    }

    #[test]
    fn overflow_falls_back_to_float() {
        let big = Number::Rational(i64::MAX, 1);
        let sum = big + big;
        assert!(matches!(sum, Number::Float(_)));
        assert_eq!(sum.to_f64(), 2.0 * i64::MAX as f64);
        let r = Number::Rational(1, i64::MAX) * Number::Rational(1, 3);
        assert!(matches!(r, Number::Float(_)));
        assert_eq!(Number::from_f64(3.0), Number::Rational(3, 1));
        assert_eq!(Number::from_f64(0.75), Number::Rational(3, 4));
        assert_eq!(Number::from_f64(0.1), Number::Float(0.1));
    }
}
