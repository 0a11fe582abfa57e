//! `udk linearize`: the cart with a double pendulum upright against the SymPy fixture, the
//! Whipple bicycle at 5 m/s against Meijaard et al. (2007) Table 2, the Cartesian pendulum at
//! the bottom, the file's initial state as the default, and exit code 2 for a point off the
//! constraints.

mod common;

use common::{close, fixture, json_output, model, numbers, run, Json, PENDULUM};
use std::path::Path;

/// `udk linearize model args…` (success): its JSON.
fn linearize(model: &Path, args: &[&str]) -> Json {
    json_output("linearize", model, args)
}

/// The rows of a JSON matrix, concatenated.
fn flat(v: &Json) -> Vec<f64> {
    v.as_array()
        .expect("rows")
        .iter()
        .flat_map(numbers)
        .collect()
}

/// The eigenvalues [re, im], concatenated.
fn eigenvalues(report: &Json) -> Vec<f64> {
    flat(&report["eigenvalues"])
}

#[test]
fn cart_double_pendulum_upright_matches_sympy() {
    let fixture = fixture("cart_double_pendulum");
    let pi = std::f64::consts::PI.to_string();
    let q = format!("0,{pi},{pi}");
    let args = ["--q", &q, "--qd", "0,0,0", "--u", "0"];
    let report = linearize(&model("cart_double_pendulum"), &args);
    assert_eq!(report["independent"], serde_json::json!([0, 1, 2]));
    close(
        &flat(&report["a"]),
        &flat(&fixture["upright"]["a"]),
        1e-12,
        "A",
    );
    close(
        &flat(&report["b"]),
        &flat(&fixture["upright"]["b"]),
        1e-12,
        "B",
    );
}

#[test]
fn whipple_bicycle_at_5_m_per_s_has_the_table_2_eigenvalues() {
    // The file's initial state is upright at 5 m/s with a roll rate of 0.5 rad/s; give the
    // state without it. Roll (3) and steer (6) and their rates are the state; the rear-wheel
    // rate (5) is held.
    let lambda = (std::f64::consts::PI / 10.0).to_string();
    let q = format!("0,0,0,0,{lambda},0,0,0");
    let qd = format!("5,0,0,0,0,{},0,{}", -5.0 / 0.3, -5.0 / 0.35);
    let args = [
        "--q",
        &q,
        "--qd",
        &qd,
        "--independent",
        "3,6",
        "--held-velocities",
        "5",
    ];
    let report = linearize(&model("whipple_bicycle"), &args);
    assert_eq!(report["dependent"], serde_json::json!([4]));
    assert_eq!(report["held_velocities"], serde_json::json!([5]));
    let expected = [
        -14.0783896927982,
        0.0,
        -0.77534188219585,
        -4.46486771378823,
        -0.77534188219585,
        4.46486771378823,
        -0.32286642900409,
        0.0,
    ];
    close(&eigenvalues(&report), &expected, 1e-10, "eigenvalues");
}

#[test]
fn cartesian_pendulum_at_the_bottom_and_off_its_circle() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pendulum.toml");
    std::fs::write(&path, PENDULUM).unwrap();
    let report = linearize(&path, &["--q", "0,-2", "--qd", "0,0"]);
    assert_eq!(report["independent"], serde_json::json!([0]));
    assert_eq!(report["dependent"], serde_json::json!([1]));
    let omega = (9.81f64 / 2.0).sqrt();
    close(
        &eigenvalues(&report),
        &[0.0, -omega, 0.0, omega],
        1e-12,
        "±iω",
    );
    // Off the circle: exit code 2, naming the row and its level.
    let (_, message) = run("linearize", &path, &["--q", "0.1,-2", "--qd", "0,0"], 2);
    assert!(
        message.contains("constraint row 0 (holonomic, position level)"),
        "{message}"
    );
}

#[test]
fn the_file_initial_state_is_the_default_operating_point() {
    let path = model("cart_double_pendulum");
    let default = linearize(&path, &["--u", "0"]);
    let given = linearize(&path, &["--q", "0,0.3,-0.2", "--qd", "0,0,0", "--u", "0"]);
    assert_eq!(default, given);
}
