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
