//! Numeric literals: decimal digits to exact rationals where they fit.

use crate::expr::Number;

/// The value of a decimal literal's digits (`12`, `9.81`, `1e-3`, `2.5E3`): an exact rational
/// when numerator and denominator fit in i64, else a float; `None` when it does not parse.
pub(super) fn decimal(digits: &str) -> Option<Number> {
    let float = || digits.parse::<f64>().ok().map(Number::Float);
    let (mantissa, exponent) = match digits.find(['e', 'E']) {
        Some(k) => (&digits[..k], digits[k + 1..].parse::<i32>().ok()?),
        None => (digits, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all: String = [int, frac].concat();
    let Ok(numerator) = all.parse::<i64>() else {
        return float();
    };
    let Some(scale) = i32::try_from(frac.len())
        .ok()
        .and_then(|f| exponent.checked_sub(f))
    else {
        return float();
    };
    let power = |k: i32| 10_i64.checked_pow(k.unsigned_abs());
    let exact = if scale >= 0 {
        power(scale)
            .and_then(|p| numerator.checked_mul(p))
            .map(|n| Number::Rational(n, 1))
    } else {
        power(scale).and_then(|p| Number::rational(numerator, p))
    };
    exact.or_else(float)
}

#[cfg(test)]
mod tests {
    use super::decimal;
    use crate::expr::Number;

    #[test]
    fn decimals_are_exact() {
        assert_eq!(decimal("9.81"), Some(Number::Rational(981, 100)));
        assert_eq!(decimal("1e-3"), Some(Number::Rational(1, 1000)));
        assert_eq!(decimal("2.5E3"), Some(Number::Rational(2500, 1)));
        assert_eq!(decimal("0.5"), Some(Number::Rational(1, 2)));
        assert_eq!(decimal("12"), Some(Number::Rational(12, 1)));
        assert_eq!(decimal("1e300"), Some(Number::Float(1e300)));
        assert_eq!(
            decimal("1e400").map(|n| n.to_f64().is_finite()),
            Some(false)
        );
    }
}
