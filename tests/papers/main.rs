//! The generated code of every example model against the papers' closed forms, to 1e-10, at
//! several parameter values and states. Each example under `examples/` is compiled here as a
//! module, so the models tested are exactly the ones the examples show.

mod api;
mod phohomsiri;
mod review;
mod udwadia_2016;
mod wanichanon;

mod minimal_double_pendulum;

/// Asserts `actual` equals `expected` to 1e-10, relative to the larger of 1 and the largest
/// expected entry.
#[track_caller]
fn assert_close(actual: &[f64], expected: &[f64]) {
    assert_eq!(actual.len(), expected.len());
    let scale = expected.iter().fold(1.0f64, |s, x| s.max(x.abs()));
    for (i, (a, e)) in actual.iter().zip(expected).enumerate() {
        assert!(
            (a - e).abs() <= 1e-10 * scale,
            "entry {i}: generated {a:e}, closed form {e:e}\n  generated:   {actual:?}\n  closed form: {expected:?}"
        );
    }
}

/// `count` deterministic pseudo-random numbers in [lo, hi) for `seed`, to vary the states.
fn samples(seed: u64, count: usize, lo: f64, hi: f64) -> Vec<f64> {
    let mut state = seed
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    (0..count)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            lo + (hi - lo) * ((state >> 11) as f64 / (1u64 << 53) as f64)
        })
        .collect()
}
