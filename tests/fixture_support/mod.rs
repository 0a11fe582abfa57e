//! What the tests against committed Pinocchio fixtures share: reading a JSON array of numbers,
//! comparing vectors relative to the reference's scale, and Pinocchio's joint order.
//!
//! Each test binary compiles this module and uses a part of it.
#![allow(dead_code)]

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

/// Pinocchio's joint order against udk's for a free-flyer robot: udk's joint j is Pinocchio's
/// joint `order[j]`, matched by name. Both put the free flyer's 7 coordinates and 6 speeds
/// first.
pub struct JointOrder(Vec<usize>);

impl JointOrder {
    /// Matches `udk` (udk's joint names, the free flyer left out) against `pinocchio` (a JSON
    /// array of Pinocchio's joint names). Panics on a name Pinocchio does not have.
    pub fn new<S: AsRef<str>>(udk: &[S], pinocchio: &serde_json::Value) -> Self {
        let names: Vec<&str> = (pinocchio.as_array().expect("joint names").iter())
            .map(|x| x.as_str().expect("a name"))
            .collect();
        Self(
            (udk.iter())
                .map(|name| {
                    let name = name.as_ref();
                    names.iter().position(|p| *p == name).expect(name)
                })
                .collect(),
        )
    }

    /// `x` in udk's order: its first `base` entries (the free flyer's) as they are, then the
    /// joints' (7 for a configuration, 6 for a velocity, 0 for joint torques).
    pub fn reorder(&self, x: &[f64], base: usize) -> Vec<f64> {
        let mut out = x[..base].to_vec();
        out.extend(self.0.iter().map(|&p| x[base + p]));
        out
    }

    /// A (6 + n) × (6 + n) matrix given as a JSON array of rows, in udk's order, row-major.
    pub fn matrix(&self, rows: &serde_json::Value) -> Vec<f64> {
        let rows: Vec<Vec<f64>> = (rows.as_array().expect("rows").iter())
            .map(|row| self.reorder(&numbers(row), 6))
            .collect();
        (0..6)
            .chain(self.0.iter().map(|&p| 6 + p))
            .flat_map(|r| rows[r].clone())
            .collect()
    }
}
