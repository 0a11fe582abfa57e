//! What the tests against committed Pinocchio fixtures share: reading a JSON array of numbers,
//! and comparing vectors relative to the reference's scale.

/// The numbers of a JSON array.
pub fn numbers(value: &serde_json::Value) -> Vec<f64> {
    (value.as_array().expect("an array").iter())
        .map(|x| x.as_f64().expect("a number"))
        .collect()
}

/// Asserts max |a − b| ≤ tolerance · max(1, max |b|), naming `what` and the entry that fails.
pub fn assert_close(got: &[f64], expected: &[f64], tolerance: f64, what: &str) {
    assert_eq!(got.len(), expected.len(), "{what}");
    let scale = expected.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
    for (k, (g, e)) in got.iter().zip(expected).enumerate() {
        assert!(
            (g - e).abs() <= tolerance * scale,
            "{what}[{k}]: {g} vs {e}"
        );
    }
}
