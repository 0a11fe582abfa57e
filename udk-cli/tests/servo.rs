//! `udk simulate` of a model file with servo constraints: the inputs driven by the servo
//! controller (review paper, section 8.3), and the servo flags' mistakes.

mod common;

use common::{model, udk};
use std::path::Path;

/// `udk simulate model args…`, expected to exit with `code`: its standard error.
fn simulate(model: &Path, args: &[&str], code: i32) -> String {
    let output = udk()
        .arg("simulate")
        .arg(model)
        .args(args)
        .assert()
        .code(code)
        .get_output()
        .clone();
    String::from_utf8(output.stderr).unwrap()
}

#[test]
fn eq_72_drives_beta_to_zero() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("servo.csv");
    let args = [
        "--t-end",
        "2",
        "--dt-out",
        "0.5",
        "--servo-gain",
        "0.25",
        "--out",
    ];
    let mut args: Vec<&str> = args.to_vec();
    args.push(csv.to_str().unwrap());
    simulate(&model("flexible_joint_servo"), &args, 0);
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let (t, beta) = (0, header.iter().position(|c| *c == "beta").unwrap());
    let mut count = 0;
    for line in lines {
        let row: Vec<f64> = line.split(',').map(|x| x.parse().unwrap()).collect();
        // β̇ = −β/P from β(0) = 0.9.
        let expected = 0.9 * (-row[t] / 0.25).exp();
        assert!(
            (row[beta] - expected).abs() < 1e-8,
            "t = {}: {}",
            row[t],
            row[beta]
        );
        count += 1;
    }
    assert_eq!(count, 5);
}

#[test]
fn servo_flags_need_servo_constraints_and_one_law() {
    let servo = model("flexible_joint_servo");
    let err = simulate(
        &model("flexible_joint_manipulator"),
        &["--t-end", "1", "--servo-gain", "0.5"],
        2,
    );
    assert!(err.contains("need `servo` constraints"), "{err}");
    let err = simulate(
        &servo,
        &[
            "--t-end",
            "1",
            "--servo-gain",
            "0.5",
            "--servo-damping",
            "2",
        ],
        2,
    );
    assert!(err.contains("give one"), "{err}");
    let err = simulate(&servo, &["--t-end", "1", "--servo-gain", "0"], 2);
    assert!(err.contains("positive and finite"), "{err}");
    let err = simulate(&servo, &["--t-end", "1", "--servo-stiffness=-1"], 2);
    assert!(err.contains("≥ 0"), "{err}");
    let err = simulate(&servo, &["--t-end", "1", "--u", "1,2"], 2);
    assert!(err.contains("drive the inputs"), "{err}");
}

#[test]
fn eval_reports_the_servo_controller() {
    use common::json_output;
    let servo = model("flexible_joint_servo");
    // The file's state: q̇⁽²⁾ = 1, q̇⁽⁴⁾ = −0.1, so β = 0.9.
    let report = json_output("eval", &servo, &["--servo-gain", "0.25"]);
    let numbers = |v: &common::Json| -> Vec<f64> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect()
    };
    let control = &report["servo"];
    let beta = numbers(&control["residuals"]["velocity"]);
    assert_eq!(beta.len(), 1);
    assert!((beta[0] - 0.9).abs() < 1e-15, "{beta:?}");
    assert!(numbers(&control["residuals"]["holonomic"]).is_empty());
    // Eq 72 without physical constraints: β̇ = q̈⁽²⁾ + q̈⁽⁴⁾ = −β/P under u.
    let qdd = numbers(&control["acceleration"]);
    assert!((qdd[1] + qdd[3] + 0.9 / 0.25).abs() < 1e-12, "{qdd:?}");
    // The link torques realize the servo force: B u = Qᶜ_s with B = [e₂ e₄].
    let (u, force) = (numbers(&control["input"]), numbers(&control["servo_force"]));
    assert!((u[0] - force[1]).abs() < 1e-12 && (u[1] - force[3]).abs() < 1e-12);
    assert!(
        force[0].abs() < 1e-12 && force[2].abs() < 1e-12,
        "{force:?}"
    );
    let unrealized = numbers(&control["unrealized_force"]);
    assert!(unrealized.iter().all(|x| x.abs() < 1e-12), "{unrealized:?}");
    assert!(numbers(&control["task_residual"])[0].abs() < 1e-12);
    // The state gives no u: the report is the closed loop, at the controller's inputs.
    assert_eq!(numbers(&report["u"]), u);
    let open = numbers(&report["acceleration"]);
    assert!(
        (open.iter().zip(&qdd)).all(|(a, b)| (a - b).abs() < 1e-12),
        "{open:?}"
    );
    // Without a flag, no convergence term: β̇ = 0.
    let report = json_output("eval", &servo, &[]);
    let qdd = numbers(&report["servo"]["acceleration"]);
    assert!((qdd[1] + qdd[3]).abs() < 1e-12, "{qdd:?}");
    // A model without servo constraints has no `servo` object.
    let report = json_output("eval", &model("flexible_joint_manipulator"), &[]);
    assert!(report.get("servo").is_none());
}

#[test]
fn derive_prints_the_servo_rows_and_the_input_matrix() {
    let output = udk()
        .arg("derive")
        .arg(model("flexible_joint_servo"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let sheet = String::from_utf8(output).unwrap();
    for line in [
        "s = 1 servo constraints (0 holonomic, 1 nonholonomic), realized by the inputs (tau2, tau4)",
        "  beta[1] = dot(q2) + dot(q4)",
        "  A_s[1,2] = 1",
        "  B[4,2] = 1",
    ] {
        assert!(sheet.contains(line), "{line} in\n{sheet}");
    }
}
