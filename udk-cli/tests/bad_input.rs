//! Each kind of bad input gives a one-line error naming the file and the position, and exit
//! code 2; a state with no unique or consistent acceleration gives exit code 3.

mod common;

use common::{model, udk, PENDULUM};
use std::path::{Path, PathBuf};

/// Writes `text` to `name` in `dir` and returns the path.
fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// `udk command file` of the model `text` written to `file` in a fresh temporary directory,
/// expected to fail with code 2: (the file's path, standard error).
fn model_fails(command: &str, file: &str, text: &str) -> (PathBuf, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), file, text);
    let err = fails(&[os(command), path.as_os_str()], 2);
    (path, err)
}

/// Runs `udk args…`, asserts the exit code, and returns standard error.
fn fails(args: &[&std::ffi::OsStr], code: i32) -> String {
    let output = udk().args(args).assert().code(code).get_output().clone();
    assert!(output.stdout.is_empty(), "nothing on stdout on failure");
    String::from_utf8(output.stderr).unwrap()
}

fn os<S: AsRef<std::ffi::OsStr> + ?Sized>(s: &S) -> &std::ffi::OsStr {
    s.as_ref()
}

/// `udk eval model --q q --qd qd`, expected to fail with `code`; standard error.
fn eval_fails(model: &Path, q: &str, qd: &str, code: i32) -> String {
    let args = [
        os("eval"),
        model.as_os_str(),
        os("--q"),
        os(q),
        os("--qd"),
        os(qd),
    ];
    fails(&args, code)
}

/// `udk eval model --states states`, expected to fail with code 2; standard error. The states
/// are streamed, so the reports before the bad state may be on standard output.
fn eval_states_fails(model: &Path, states: &Path) -> String {
    let args = [
        os("eval"),
        model.as_os_str(),
        os("--states"),
        states.as_os_str(),
    ];
    let output = udk().args(args).assert().code(2).get_output().clone();
    String::from_utf8(output.stderr).unwrap()
}

/// `udk simulate model --t-end t_end`, expected to fail with `code`; standard error.
fn simulate_fails(model: &Path, t_end: &str, code: i32) -> String {
    fails(
        &[os("simulate"), model.as_os_str(), os("--t-end"), os(t_end)],
        code,
    )
}

#[test]
fn malformed_toml_names_file_line_and_column() {
    let text = PENDULUM.replace(r#"coordinates = ["x", "y"]"#, r#"coordinates = ["x", "y""#);
    let (path, err) = model_fails("derive", "p.toml", &text);
    assert_eq!(err.lines().count(), 1, "{err}");
    // The array is unclosed: toml notices at the start of line 3.
    assert!(
        err.starts_with(&format!(
            "udk: error: {}:3:1: missing comma",
            path.display()
        )),
        "{err}"
    );
}

#[test]
fn unknown_key_is_reported_at_its_line() {
    let text = PENDULUM.replace("holonomic =", "holonomics =");
    let (path, err) = model_fails("derive", "p.toml", &text);
    assert!(
        err.contains(&format!(
            "{}:5:1: unknown field `holonomics`",
            path.display()
        )),
        "{err}"
    );
}

#[test]
fn malformed_json_model_names_line_and_column() {
    let (path, err) = model_fails(
        "expand",
        "p.json",
        "{\n  \"name\": \"P\",\n  \"coordinates\": [\"x\",]\n}",
    );
    assert!(
        err.starts_with(&format!("udk: error: {}:3:", path.display())),
        "{err}"
    );
}

#[test]
fn expression_syntax_error_points_at_the_value() {
    let text = PENDULUM.replace("x.powi(2) + y.powi(2) - l.powi(2)", "x.powi(2) + ");
    let (path, err) = model_fails("derive", "p.toml", &text);
    assert!(err.contains(&format!("{}:5:", path.display())), "{err}");
    assert!(err.contains("is not an expression"), "{err}");
}

#[test]
fn unknown_symbol_names_the_key_and_column_and_the_file_position() {
    let dir = tempfile::tempdir().unwrap();
    let text = PENDULUM.replace("- l.powi(2)", "- len.powi(2)");
    let path = write(dir.path(), "p.toml", &text);
    for command in ["derive", "expand", "eval"] {
        let err = fails(&[os(command), path.as_os_str()], 2);
        // `holonomic = ["` is 14 characters; `len` is at column 25 of the expression.
        assert_eq!(
            err.trim_end(),
            format!(
                "udk: error: {}:5:39: unknown identifier `len`: not a coordinate, momentum, \
                 parameter, input, definition, `t` or `PI`; did you mean `l`? (in `holonomic[0]`, column 25)",
                path.display()
            )
        );
    }
}

#[test]
fn every_error_of_a_model_is_reported_one_per_line() {
    let text = PENDULUM
        .replace("- l.powi(2)", "- len.powi(2)")
        .replace("- m * g * y", "- m * grav * y.sine()");
    let (_, err) = model_fails("derive", "p.toml", &text);
    assert_eq!(err.lines().count(), 3, "{err}");
    assert!(err.contains("(in `lagrangian`, column"), "{err}");
    assert!(
        err.contains("`grav`") && err.contains("`sine`") && err.contains("`len`"),
        "{err}"
    );
}

#[test]
fn wrong_vector_length_names_the_vector_and_n() {
    let err = eval_fails(&model("wheel_on_incline"), "1,2,3", "0,0", 2);
    assert!(
        err.contains("q has 3 entries, but `WheelOnIncline` has n = 2 coordinates (theta, y)"),
        "{err}"
    );
}

#[test]
fn velocities_for_a_hamiltonian_model_are_refused() {
    let path = model("spherical_pendulum_hamiltonian");
    let err = eval_fails(&path, "1,0,0", "0,1,0", 2);
    assert!(
        err.contains("`p` must give the momenta p (`qd` is for Lagrangian models)"),
        "{err}"
    );
}

#[test]
fn malformed_states_file_and_a_bad_state_are_located() {
    let dir = tempfile::tempdir().unwrap();
    let path = model("wheel_on_incline");
    let states = write(
        dir.path(),
        "s.json",
        "[\n  {\"t\": 0, \"q\": [0, 0], \"qd\": [0, 0]},\n  {\"q\": [0 0]}\n]",
    );
    let err = eval_states_fails(&path, &states);
    assert!(
        err.starts_with(&format!("udk: error: {}:3:", states.display())),
        "{err}"
    );
    let states = write(
        dir.path(),
        "s2.json",
        r#"[{"q": [0, 0], "qd": [0, 0]}, {"q": [0], "qd": [0, 0]}]"#,
    );
    let err = eval_states_fails(&path, &states);
    assert!(
        err.contains(&format!("{}: state 1: q has 1 entries", states.display())),
        "{err}"
    );
}

#[test]
fn unknown_or_malformed_parameter_settings_are_refused() {
    let path = model("wheel_on_incline");
    let err = fails(
        &[os("eval"), path.as_os_str(), os("--set"), os("mass=3")],
        2,
    );
    assert!(
        err.contains(
            "`mass` is not a parameter of `WheelOnIncline` (parameters: m, r, ic, g, alpha)"
        ),
        "{err}"
    );
    let err = fails(
        &[os("eval"), path.as_os_str(), os("--set"), os("m=heavy")],
        2,
    );
    assert!(err.contains("expected NAME=VALUE"), "{err}");
}

#[test]
fn a_parameter_without_value_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "p.toml",
        &PENDULUM.replace(", value = 9.81", ""),
    );
    let err = eval_fails(&path, "0,-2", "0,0", 2);
    assert!(err.contains("parameter `g` has no value"), "{err}");
    udk()
        .args([
            os("eval"),
            path.as_os_str(),
            os("--q"),
            os("0,-2"),
            os("--qd"),
            os("0,0"),
            os("--set"),
            os("g=9.81"),
        ])
        .assert()
        .success();
}

#[test]
fn a_non_unique_acceleration_exits_with_3() {
    let err = fails(
        &[os("eval"), model("wheel_zero_mass_particle").as_os_str()],
        3,
    );
    assert!(
        err.contains("the constrained acceleration is not unique: rank [M; A] = 2 < n = 3"),
        "{err}"
    );
}

#[test]
fn inconsistent_constraints_exit_with_3() {
    let dir = tempfile::tempdir().unwrap();
    let text = r#"name = "Stuck"
coordinates = ["x"]
lagrangian = "0.5 * dot(x).powi(2)"
holonomic = ["x - t.powi(2)", "x"]
"#;
    let path = write(dir.path(), "s.toml", text);
    let err = eval_fails(&path, "0", "0", 3);
    assert!(err.contains("the constraints are inconsistent"), "{err}");
}

#[test]
fn an_initial_state_off_the_constraints_names_the_constraint_and_the_violation() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!("{PENDULUM}\n[initial]\nq0 = [0.0, -2.1]\nqd0 = [1.0, 0.5]\n");
    let path = write(dir.path(), "p.toml", &text);
    let err = simulate_fails(&path, "1", 2);
    let name = path.display();
    // f = 2.1² − 2² = 0.41, ḟ = 2 (x ẋ + y ẏ) = −2.1.
    assert_eq!(
        err,
        format!(
            "udk: error: {name}: the initial state violates holonomic[0] \
             (`x.powi(2) + y.powi(2) - l.powi(2)`) by 4.100e-1 (tolerance 1e-8)\n\
             udk: error: {name}: the initial state violates the time derivative of \
             holonomic[0] by -2.100e0 (tolerance 1e-8)\n"
        )
    );
    // Within a looser tolerance the run goes ahead.
    udk()
        .args([os("simulate"), path.as_os_str(), os("--t-end"), os("0.1")])
        .args([os("--constraint-tol"), os("3")])
        .assert()
        .success();
}

#[test]
fn simulate_needs_an_initial_state_and_a_final_time_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "p.toml", PENDULUM);
    let err = simulate_fails(&path, "1", 2);
    assert!(
        err.contains("no initial state: add an [initial] table with q0 and qd0"),
        "{err}"
    );
    let err = simulate_fails(&model("wheel_on_incline"), "-1", 2);
    assert!(
        err.contains("--t-end -1 must be after the initial time t0 = 0"),
        "{err}"
    );
}

#[test]
fn a_simulation_that_meets_a_non_unique_acceleration_exits_with_3() {
    let path = model("wheel_zero_mass_particle");
    let err = simulate_fails(&path, "1", 3);
    assert!(
        err.contains(
            "the equations of motion failed at t = 0 s: the constrained acceleration is not unique"
        ),
        "{err}"
    );
}

#[test]
fn errors_in_multi_line_expressions_and_names_are_located_in_the_file() {
    let text = "name = \"P\"\ncoordinates = [\"x\", \"x\"]\nlagrangian = \"\"\"\n0.5 * dot(x).powi(2)\n  - foo * x\"\"\"\n";
    let (path, err) = model_fails("derive", "p.toml", text);
    let name = path.display();
    assert_eq!(
        err,
        format!(
            "udk: error: {name}:2:22: `x` is already a coordinate (in `coordinates[1]`, column 1)\n\
             udk: error: {name}:5:5: unknown identifier `foo`: not a coordinate, momentum, \
             parameter, input, definition, `t` or `PI` (in `lagrangian`, line 2, column 5)\n"
        )
    );
}

#[test]
fn a_model_level_error_names_the_file() {
    let (path, err) = model_fails(
        "derive",
        "p.toml",
        "name = \"P\"\ncoordinates = [\"x\"]\nholonomic = [\"x - 1\"]\n",
    );
    assert_eq!(
        err,
        format!(
            "udk: error: {}: model `P` has neither a Lagrangian nor a Hamiltonian\n",
            path.display()
        )
    );
}

#[test]
fn a_json_model_evaluates_as_its_toml_twin() {
    let dir = tempfile::tempdir().unwrap();
    let toml_path = model("wheel_on_incline");
    let spec: toml::Value = toml::from_str(&std::fs::read_to_string(&toml_path).unwrap()).unwrap();
    let json_path = write(
        dir.path(),
        "wheel.json",
        &serde_json::to_string_pretty(&spec).unwrap(),
    );
    let eval = |path: &Path| {
        udk()
            .args([
                os("eval"),
                path.as_os_str(),
                os("--q"),
                os("1,0.2"),
                os("--qd"),
                os("0.5,0.1"),
            ])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone()
    };
    assert_eq!(eval(&json_path), eval(&toml_path));
}
