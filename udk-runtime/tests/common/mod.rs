//! Shared helpers of the integration tests.

use nalgebra::{Dim, Matrix, RawStorage};

/// Relative error ‖actual − expected‖ / ‖expected‖ required by the worked-example tests.
pub const EXAMPLE_TOLERANCE: f64 = 1e-10;

/// Asserts ‖actual − expected‖ ≤ tol·‖expected‖ (absolute tol when expected = 0).
#[track_caller]
pub fn assert_close<R: Dim, C: Dim, S1, S2>(
    actual: &Matrix<f64, R, C, S1>,
    expected: &Matrix<f64, R, C, S2>,
    tol: f64,
    what: &str,
) where
    S1: RawStorage<f64, R, C>,
    S2: RawStorage<f64, R, C>,
{
    let diff = actual
        .iter()
        .zip(expected.iter())
        .map(|(a, e)| (a - e) * (a - e))
        .sum::<f64>()
        .sqrt();
    let norm = expected.iter().map(|e| e * e).sum::<f64>().sqrt();
    let relative = if norm > 0.0 { diff / norm } else { diff };
    assert!(
        relative <= tol,
        "{what}: relative error {relative:e} > {tol:e}\nactual   {actual:?}\nexpected {expected:?}",
        actual = actual.iter().collect::<Vec<_>>(),
        expected = expected.iter().collect::<Vec<_>>(),
    );
}
