//! Helpers of the command-line tests: the binary, the model files, JSON and comparisons.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

pub use serde_json::Value as Json;

/// A planar pendulum of length 2 in Cartesian coordinates (y up), with no initial state.
pub const PENDULUM: &str = r#"name = "Pendulum"
coordinates = ["x", "y"]
parameters = [{ name = "m", value = 1.0 }, { name = "g", value = 9.81 }, { name = "l", value = 2.0 }]
lagrangian = "0.5 * m * (dot(x).powi(2) + dot(y).powi(2)) - m * g * y"
holonomic = ["x.powi(2) + y.powi(2) - l.powi(2)"]
"#;

/// The `udk` binary of this package.
pub fn udk() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("udk").expect("the udk binary is built for the tests")
}

/// `examples/models/` of the workspace.
pub fn models_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/models")
}

/// The model file `examples/models/<name>.toml`.
pub fn model(name: &str) -> PathBuf {
    models_dir().join(format!("{name}.toml"))
}

/// `udk <command> <model> <args>…`, expected to exit with `code`: (stdout, stderr).
pub fn run(command: &str, model: &Path, args: &[&str], code: i32) -> (String, String) {
    let output = udk()
        .arg(command)
        .arg(model)
        .args(args)
        .assert()
        .code(code)
        .get_output()
        .clone();
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).unwrap();
    (text(output.stdout), text(output.stderr))
}

/// The header and the rows, as numbers, of a trajectory CSV written by `udk simulate`.
pub fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<f64>>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap().split(',').map(String::from).collect();
    let rows = lines
        .map(|l| l.split(',').map(|x| x.parse().unwrap()).collect())
        .collect();
    (header, rows)
}

/// Numbers as a command-line list (`--q=…`): comma-separated, each in `{:e}` (exact).
pub fn csv(values: &[f64]) -> String {
    (values.iter().map(|x| format!("{x:e}")))
        .collect::<Vec<_>>()
        .join(",")
}

/// `udk <command> <model> <args>…`, which must succeed: its standard output as JSON.
pub fn json_output(command: &str, model: &Path, args: &[&str]) -> Json {
    let output = udk()
        .arg(command)
        .arg(model)
        .args(args)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    serde_json::from_slice(&output).expect("JSON")
}

/// `tests/fixtures/` of the workspace.
pub fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures")
}

/// The JSON fixture `tests/fixtures/<name>.json` of the workspace.
pub fn fixture(name: &str) -> Json {
    let path = fixtures_dir().join(format!("{name}.json"));
    serde_json::from_str(&std::fs::read_to_string(path).expect("a committed fixture"))
        .expect("JSON")
}

/// Asserts |a − b| ≤ tol · max(1, |b|) entry by entry.
pub fn close(a: &[f64], b: &[f64], tol: f64, what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: lengths differ: {a:?} vs {b:?}");
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(
            (x - y).abs() <= tol * y.abs().max(1.0),
            "{what}[{i}]: {x} vs {y} (|Δ| = {:e})",
            (x - y).abs()
        );
    }
}

/// A JSON array of numbers.
pub fn numbers(v: &Json) -> Vec<f64> {
    v.as_array()
        .expect("an array")
        .iter()
        .map(|x| x.as_f64().expect("a number"))
        .collect()
}

/// A JSON list of rows, flattened column-major (nalgebra's order).
pub fn matrix_column_major(v: &Json) -> Vec<f64> {
    let rows: Vec<Vec<f64>> = v.as_array().expect("rows").iter().map(numbers).collect();
    let cols = rows.first().map_or(0, Vec::len);
    (0..cols)
        .flat_map(|j| rows.iter().map(move |r| r[j]))
        .collect()
}

/// `udk eval --states` of the JSON states `input` on the model file `name`
/// (`examples/models/<name>.toml`), as JSON reports, one per state.
pub fn eval_json(name: &str, input: &[Json]) -> Vec<Json> {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("states.json");
    std::fs::write(&path, serde_json::to_string(&input).unwrap()).unwrap();
    let output = udk()
        .arg("eval")
        .arg(model(name))
        .arg("--states")
        .arg(&path)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let reports: Vec<Json> = serde_json::from_slice(&output).expect("JSON output");
    assert_eq!(reports.len(), input.len());
    reports
}
