//! `udk simulate` and `udk eval --states` on the edges of their input: bounded output times
//! and steps, a non-finite or rough initial state (`--assemble`), the CSV written as the run
//! goes, chosen plot columns, and states as JSON Lines.

mod common;

use common::{model, read_csv, run, udk, Json, PENDULUM};
use std::path::{Path, PathBuf};

/// The pendulum with the initial state `q0`, `qd0` (TOML arrays), written to `dir`.
fn pendulum(dir: &Path, q0: &str, qd0: &str) -> PathBuf {
    let path = dir.join("p.toml");
    let text = format!("{PENDULUM}\n[initial]\nq0 = {q0}\nqd0 = {qd0}\n");
    std::fs::write(&path, text).unwrap();
    path
}

/// `udk simulate model args…`, expected to exit with `code`: (stdout, stderr).
fn simulate(model: &Path, args: &[&str], code: i32) -> (String, String) {
    run("simulate", model, args, code)
}

#[test]
fn too_many_output_times_are_bad_input() {
    let (_, err) = simulate(
        &model("spherical_pendulum_lagrangian"),
        &["--t-end", "1", "--dt-out", "1e-300"],
        2,
    );
    assert!(
        err.contains("the output interval gives more output times than max_samples"),
        "{err}"
    );
}

#[test]
fn a_non_finite_initial_state_is_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let path = pendulum(dir.path(), "[nan, -2.0]", "[0.0, 0.0]");
    let (out, err) = simulate(&path, &["--t-end", "1"], 2);
    assert!(out.is_empty());
    assert_eq!(
        err,
        format!(
            "udk: error: {}: the initial state contains a NaN or an infinite entry\n",
            path.display()
        )
    );
}

/// A driven particle x = t that is also held at x = 0: ḟ = (ẋ − 1, ẋ) cannot vanish.
#[test]
fn an_inconsistent_start_names_the_constraint() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d.toml");
    let text = "name = \"Driven\"\ncoordinates = [\"x\"]\nlagrangian = \"0.5 * dot(x).powi(2)\"\n\
                holonomic = [\"x - t\", \"x\"]\n[initial]\nq0 = [0.0]\nqd0 = [0.0]\n";
    std::fs::write(&path, text).unwrap();
    let (_, err) = simulate(&path, &["--t-end", "1"], 2);
    assert_eq!(
        err,
        format!(
            "udk: error: {}: the initial state violates the time derivative of holonomic[0] by \
             -1.000e0 (tolerance 1e-8)\n",
            path.display()
        )
    );
}

/// From a rough start (|q| = 2.1 for l = 2, a radial velocity) `--assemble` reaches the circle
/// along the ray of q, (0, −2), and removes the radial velocity, leaving q̇ = (1, 0); with y
/// fixed nothing can move y, and x has to be 0.
#[test]
fn assemble_projects_a_rough_start_onto_the_constraints() {
    let dir = tempfile::tempdir().unwrap();
    let path = pendulum(dir.path(), "[0.0, -2.1]", "[1.0, 0.5]");
    let csv = dir.path().join("run.csv");
    let csv_arg = csv.to_str().unwrap();
    let args = ["--t-end", "0.5", "--assemble", "--out", csv_arg];
    let (out, _) = simulate(&path, &args, 0);
    assert!(
        out.starts_with("assembled initial state: q0 = [0.0, -2.0], qd0 = [1.0, 0.0]"),
        "{out}"
    );
    let (_, rows) = read_csv(&csv);
    assert_eq!(rows[0][..5], [0.0, 0.0, -2.0, 1.0, 0.0]);
    assert!(rows.iter().all(|r| r[5] < 1e-9), "position residuals");

    let path = pendulum(dir.path(), "[0.3, -2.1]", "[1.0, 0.5]");
    let args = ["--t-end", "0.5", "--assemble", "--fixed", "y"];
    let (out, err) = simulate(&path, &args, 2);
    assert!(out.is_empty());
    // x² = 4 − 2.1² has no solution: the best x is 0, f = 2.1² − 4 = 0.41.
    assert!(
        err.contains("the initial state violates holonomic[0] (`x.powi(2) + y.powi(2) - l.powi(2)`) by 4.100e-1"),
        "{err}"
    );
    let (_, err) = simulate(&path, &["--t-end", "0.5", "--assemble", "--fixed", "z"], 2);
    assert!(
        err.contains("--fixed z: not a coordinate of `Pendulum` (x, y)"),
        "{err}"
    );
}

#[test]
fn max_steps_counts_the_whole_run() {
    let (_, err) = simulate(
        &model("spherical_pendulum_lagrangian"),
        &["--t-end", "10", "--max-steps", "50"],
        3,
    );
    assert!(
        err.contains("the integrator stopped at t = ") && err.contains("the most steps allowed (`SimulationOptions::max_steps`, `--max-steps` of `udk simulate`"),
        "{err}"
    );
}

/// The wheel with a zero-mass particle fails at its first acceleration: the CSV, written as
/// the run goes, already holds the header and the sample at t₀.
#[test]
fn the_csv_keeps_what_a_failed_run_computed() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("run.csv");
    let args = ["--t-end", "1", "--out", csv.to_str().unwrap()];
    let (_, err) = simulate(&model("wheel_zero_mass_particle"), &args, 3);
    assert!(
        err.contains("the trajectory up to then is written"),
        "{err}"
    );
    let (header, rows) = read_csv(&csv);
    // Named after the model's coordinates, so that pandas can index them by name.
    assert_eq!(
        header[..7],
        ["t", "theta", "y", "x", "theta_dot", "y_dot", "x_dot"]
    );
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0][0], 0.0);
}

#[test]
fn plot_columns_are_chosen_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("p.svg");
    let path = model("spherical_pendulum_lagrangian");
    let svg_arg = svg.to_str().unwrap();
    let args = [
        "--t-end",
        "1",
        "--plot",
        svg_arg,
        "--plot-columns",
        "z,x_dot",
    ];
    simulate(&path, &args, 0);
    let text = std::fs::read_to_string(&svg).unwrap();
    // plotters writes each text on its own line.
    let texts: Vec<&str> = text.lines().map(str::trim).collect();
    assert!(texts.contains(&"z") && texts.contains(&"x_dot"), "legend");
    assert!(!texts.contains(&"x"), "x is not drawn");
    // A name that is no column is bad input, found before the run: no SVG is drawn.
    std::fs::remove_file(&svg).unwrap();
    let args = ["--t-end", "1", "--plot", svg_arg, "--plot-columns", "w,z"];
    let (_, err) = simulate(&path, &args, 2);
    assert!(
        err.contains("--plot-columns w: neither a coordinate of `SphericalPendulumLagrangian` (x, y, z) nor a column (t, x, y, z, x_dot, y_dot, z_dot, position_residual"),
        "{err}"
    );
    assert!(!svg.exists());
}

#[test]
fn output_columns_can_be_plotted() {
    // The double pendulum's output `tip` gives the columns tip.x, tip.y, tip.z of its CSV; the
    // plot draws them too.
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("tip.svg");
    let path = model("urdf_double_pendulum");
    let args = [
        "--t-end",
        "0.5",
        "--u",
        "0,0",
        "--plot",
        svg.to_str().unwrap(),
        "--plot-columns",
        "tip.x,tip.z",
    ];
    simulate(&path, &args, 0);
    let text = std::fs::read_to_string(&svg).unwrap();
    let texts: Vec<&str> = text.lines().map(str::trim).collect();
    assert!(
        texts.contains(&"tip.x") && texts.contains(&"tip.z"),
        "legend"
    );
}

/// The same states as a JSON array and as JSON Lines give the same reports, as an array and
/// one a line.
#[test]
fn eval_states_as_json_lines() {
    let dir = tempfile::tempdir().unwrap();
    let states = [
        r#"{"t": 0, "q": [0, 0], "qd": [0, 0]}"#,
        r#"{"t": 1, "q": [0.5, 0.1], "qd": [1, 0.2]}"#,
    ];
    let array = dir.path().join("s.json");
    std::fs::write(&array, format!("[{}]", states.join(",\n"))).unwrap();
    let lines = dir.path().join("s.jsonl");
    std::fs::write(&lines, format!("{}\n\n{}\n", states[0], states[1])).unwrap();
    let eval = |states: &Path| {
        let output = udk()
            .arg("eval")
            .arg(model("wheel_on_incline"))
            .arg("--states")
            .arg(states)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        String::from_utf8(output).unwrap()
    };
    let from_array: Json = serde_json::from_str(&eval(&array)).unwrap();
    let from_lines = eval(&lines);
    let reports: Vec<Json> = from_lines
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(reports.len(), 2);
    assert_eq!(Json::Array(reports), from_array);
    assert_eq!(from_array[1]["t"], 1.0);

    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, format!("{}\n{{\"q\": [0 0]}}\n", states[0])).unwrap();
    let output = udk()
        .arg("eval")
        .arg(model("wheel_on_incline"))
        .arg("--states")
        .arg(&bad)
        .assert()
        .code(2)
        .get_output()
        .clone();
    let err = String::from_utf8(output.stderr).unwrap();
    assert!(
        err.starts_with(&format!("udk: error: {}:2:", bad.display())),
        "{err}"
    );
}

/// A CSV that cannot be written (the disk is full) stops the run at its first sample, exit 1.
#[test]
fn a_csv_write_error_stops_the_run() {
    if !Path::new("/dev/full").exists() {
        return;
    }
    let args = ["--t-end", "100", "--out", "/dev/full"];
    let (out, err) = simulate(&model("spherical_pendulum_lagrangian"), &args, 1);
    assert!(out.is_empty());
    assert!(
        err.starts_with("udk: error: cannot write /dev/full: "),
        "{err}"
    );
}
