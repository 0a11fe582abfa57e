//! Models written in the multibody language (definitions, rotations, `kinetic_energy`, vector
//! constraints, inputs, loads, outputs) against independent references: published benchmarks
//! (Basu-Mandal et al. 2007), sympy.physics.mechanics fixtures (`tests/fixtures`), and closed
//! forms. Each example under `examples/` is compiled here as a module, so the models tested are
//! exactly the ones the examples show.

mod bicycle;
mod cart_double_pendulum;
mod cartpole;
mod four_bar;
mod hexapod_legs;
mod rolling_disk;
mod spherical_joint_body;
mod stewart_platform;
mod ur5_arm;

use std::path::Path;

/// The JSON fixture `tests/fixtures/<name>.json`.
fn fixture(name: &str) -> serde_json::Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/{name}.json"));
    let text = std::fs::read_to_string(&path).expect("the fixture is committed");
    serde_json::from_str(&text).expect("the fixture is JSON")
}

/// The JSON array `value` as f64s.
fn numbers(value: &serde_json::Value) -> Vec<f64> {
    value
        .as_array()
        .expect("an array")
        .iter()
        .map(|x| x.as_f64().expect("a number"))
        .collect()
}

/// Asserts `actual` equals `expected` to `tolerance`, relative to the larger of 1 and the
/// largest expected entry.
#[track_caller]
fn assert_close(actual: &[f64], expected: &[f64], tolerance: f64) {
    assert_eq!(actual.len(), expected.len());
    let scale = expected.iter().fold(1.0f64, |s, x| s.max(x.abs()));
    for (i, (a, e)) in actual.iter().zip(expected).enumerate() {
        assert!(
            (a - e).abs() <= tolerance * scale,
            "entry {i}: {a:e}, expected {e:e} (difference {:e})\n  actual:   {actual:?}\n  expected: {expected:?}",
            (a - e).abs()
        );
    }
}
