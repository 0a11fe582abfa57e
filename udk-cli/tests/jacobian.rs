//! `udk jacobian`: the exact Jacobian against central differences of `udk eval` (one
//! `--states` run over the perturbed states), the file's initial state as the default, and
//! the exit codes of `eval` (2 for bad input, 3 where the derivative does not exist).

mod common;

use common::{close, eval_json, json_output, model, numbers, udk, Json};
use std::path::Path;

/// `udk jacobian model args…` (success): its JSON.
fn jacobian(model: &Path, args: &[&str]) -> Json {
    json_output("jacobian", model, args)
}

/// `udk jacobian model args…`, expected to exit with `code`: standard error.
fn jacobian_fails(model: &Path, args: &[&str], code: i32) -> String {
    let output = udk()
        .arg("jacobian")
        .arg(model)
        .args(args)
        .assert()
        .code(code)
        .get_output()
        .stderr
        .clone();
    String::from_utf8(output).unwrap()
}

/// The rows of a JSON matrix.
fn rows(v: &Json) -> Vec<Vec<f64>> {
    v.as_array().expect("rows").iter().map(numbers).collect()
}

/// Central differences of `field` of `udk eval` on the model file `name` at the state
/// `(key, value)…`, perturbing each entry of `wrt` by h = 1e-5·max(1, |x|): the columns of the
/// Jacobian, one per entry.
fn central(name: &str, state: &[(&str, Vec<f64>)], wrt: &str, field: &str) -> Vec<Vec<f64>> {
    let base = state.iter().find(|(k, _)| *k == wrt).unwrap().1.clone();
    let step = |j: usize| 1e-5 * base[j].abs().max(1.0);
    let mut states = Vec::new();
    for j in 0..base.len() {
        for sign in [1.0, -1.0] {
            let mut object = serde_json::Map::new();
            for (key, value) in state {
                let mut value = value.clone();
                if *key == wrt {
                    value[j] += sign * step(j);
                }
                object.insert((*key).to_owned(), value.into());
            }
            states.push(Json::Object(object));
        }
    }
    let reports = eval_json(name, &states);
    (0..base.len())
        .map(|j| {
            let plus = numbers(&reports[2 * j][field]);
            let minus = numbers(&reports[2 * j + 1][field]);
            (plus.iter().zip(&minus))
                .map(|(p, m)| (p - m) / (2.0 * step(j)))
                .collect()
        })
        .collect()
}

/// Asserts that the rows of `exact` agree with the columns `numeric` to 1e-6 (relative to
/// max(1, |entry|)).
fn agrees(exact: &[Vec<f64>], numeric: &[Vec<f64>], what: &str) {
    for (j, column) in numeric.iter().enumerate() {
        let exact: Vec<f64> = exact.iter().map(|row| row[j]).collect();
        close(&exact, column, 1e-6, &format!("{what}, column {j}"));
    }
}

#[test]
fn lagrangian_jacobian_matches_central_differences_of_eval() {
    let path = model("cart_double_pendulum");
    let (q, qd, u) = (vec![0.2, 0.5, -0.3], vec![-0.4, 1.1, 0.7], vec![0.7]);
    let j = jacobian(
        &path,
        &["--q", "0.2,0.5,-0.3", "--qd", "-0.4,1.1,0.7", "--u", "0.7"],
    );
    let state = [("q", q), ("qd", qd), ("u", u)];
    for (wrt, key) in [("q", "wrt_q"), ("qd", "wrt_qd"), ("u", "wrt_u")] {
        let numeric = central("cart_double_pendulum", &state, wrt, "acceleration");
        agrees(&rows(&j[key]), &numeric, key);
    }
}

#[test]
fn constrained_and_hamiltonian_jacobians_match_central_differences() {
    // The Cartesian pendulum from its file's initial state, which is the default.
    let path = model("spherical_pendulum_lagrangian");
    let default = jacobian(&path, &[]);
    let given = jacobian(&path, &["--q", "1.2,0,1.6", "--qd", "0,1,0"]);
    assert_eq!(default, given);
    let state = [("q", vec![1.2, 0.0, 1.6]), ("qd", vec![0.0, 1.0, 0.0])];
    for (wrt, key) in [("q", "wrt_q"), ("qd", "wrt_qd")] {
        let numeric = central("spherical_pendulum_lagrangian", &state, wrt, "acceleration");
        agrees(&rows(&given[key]), &numeric, key);
    }
    assert_eq!(rows(&given["wrt_u"]), vec![Vec::<f64>::new(); 3]);

    // ∂(q̇, ṗ)/∂(q, p) of the nonholonomic particle: the top rows are ∂q̇, the bottom ∂ṗ.
    let path = model("nonholonomic_particle");
    let (q, p) = (vec![0.1, -0.4, 0.8], vec![1.0, 0.64, 0.5]);
    let j = jacobian(&path, &["--q", "0.1,-0.4,0.8", "--p", "1,0.64,0.5"]);
    let state = [("q", q), ("p", p)];
    for (wrt, key) in [("q", "wrt_q"), ("p", "wrt_p")] {
        let exact = rows(&j[key]);
        let velocity = central("nonholonomic_particle", &state, wrt, "qd");
        let momentum_rate = central("nonholonomic_particle", &state, wrt, "momentum_rate");
        agrees(&exact[..3], &velocity, key);
        agrees(&exact[3..], &momentum_rate, key);
    }
    assert_eq!(numbers(&j["state_derivative"]).len(), 6);
}

#[test]
fn a_rank_change_exits_with_3_and_bad_input_with_2() {
    let dir = tempfile::tempdir().unwrap();
    // φ₁ = ẏ and φ₂ = x ẋ + ẏ are parallel at x = 0 and independent elsewhere.
    let path = dir.path().join("parallel.toml");
    std::fs::write(
        &path,
        r#"name = "Parallel"
coordinates = ["x", "y"]
lagrangian = "0.5 * (dot(x).powi(2) + dot(y).powi(2))"
forces = ["1.5", "0.0"]
nonholonomic = ["dot(y)", "x * dot(x) + dot(y)"]
"#,
    )
    .unwrap();
    let err = jacobian_fails(&path, &["--q", "0,0.2", "--qd", "0,0"], 3);
    assert!(
        err.contains("constraint matrix A changes rank at this state"),
        "{err}"
    );
    jacobian(&path, &["--q", "0.5,0.2", "--qd", "0,0"]);
    let err = jacobian_fails(&path, &["--q", "0,0.2,1", "--qd", "0,0"], 2);
    assert!(err.contains("q"), "{err}");
    let err = jacobian_fails(&path, &[], 2);
    assert!(err.contains("no state to evaluate"), "{err}");
}

#[test]
fn a_model_whose_jacobian_would_be_quadratic_has_none() {
    // V = Π sin(x + k) over 300 factors: Q is a sum of 300 products of 300 factors, and its
    // derivative would hold 300 times as many; the derivation stops at MAX_JACOBIAN_COST.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("product.toml");
    let factors: Vec<String> = (1..=300).map(|k| format!("(x + {k}).sin()")).collect();
    std::fs::write(
        &path,
        format!(
            "name = \"Product\"\ncoordinates = [\"x\"]\nlagrangian = \"0.5 * dot(x).powi(2) - {}\"\n",
            factors.join(" * ")
        ),
    )
    .unwrap();
    let err = jacobian_fails(&path, &["--q", "0.1", "--qd", "0"], 3);
    assert!(err.contains("MAX_JACOBIAN_COST"), "{err}");
}
