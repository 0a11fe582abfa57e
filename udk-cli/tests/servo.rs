//! `udk simulate` of a model file with servo constraints: the inputs driven by the servo
//! controller (review paper, section 8.3), and the servo flags' mistakes.

mod common;

use common::{model, read_csv, run, udk};
use std::path::Path;

/// `udk simulate model args…`, expected to exit with `code`: its standard error.
fn simulate(model: &Path, args: &[&str], code: i32) -> String {
    run("simulate", model, args, code).1
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
    let (header, rows) = read_csv(&csv);
    let (t, beta) = (0, header.iter().position(|c| c == "beta").unwrap());
    for row in &rows {
        // β̇ = −β/P from β(0) = 0.9.
        let expected = 0.9 * (-row[t] / 0.25).exp();
        assert!(
            (row[beta] - expected).abs() < 1e-8,
            "t = {}: {}",
            row[t],
            row[beta]
        );
    }
    assert_eq!(rows.len(), 5);
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

/// The UR5 circle of `examples/ur5_circle.rs` as a model file (the tool0 origin on a circle of
/// 0.1 m at 1 rev/s, the tool's angular velocity zero), from the example's start at rest.
fn ur5_circle_file(dir: &Path) -> std::path::PathBuf {
    let urdf = Path::new(env!("CARGO_MANIFEST_DIR")).join("../robots/ur5_robot.urdf");
    let text = format!(
        r#"
        name = "Ur5Circle"
        urdf = "{urdf}"
        parameters = [
            {{ name = "cx", value = 0.4429455528236407 }}, {{ name = "cy", value = 0.28829952253329805 }},
            {{ name = "cz", value = 0.2439427993959374 }}, {{ name = "radius", value = 0.1 }},
            {{ name = "rate", value = 6.283185307179586 }},
        ]
        definitions = [
            {{ name = "tool", value = 'link_position("tool0")' }},
            {{ name = "tool_rotation", value = 'link_rotation("tool0")' }},
            {{ name = "target", value = "vec3(cx + radius * (rate * t).cos(), cy + radius * (rate * t).sin(), cz)" }},
        ]
        servo = ["holonomic(tool - target)", "nonholonomic(angular_velocity(tool_rotation))"]

        [initial]
        q0 = [0.3, -1.2, 1.6, -1.9, -1.5, 0.2]
        qd0 = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
        "#,
        urdf = urdf.display(),
    );
    let path = dir.join("ur5_circle.toml");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn simulate_moves_the_ur5_circle_as_the_model_controls_it() {
    use udk::nalgebra::DVector;
    use udk_runtime::servo::Convergence;
    let dir = tempfile::tempdir().unwrap();
    let file = ur5_circle_file(dir.path());
    let csv = dir.path().join("ur5.csv");
    let args = [
        "--t-end",
        "0.4",
        "--dt-out",
        "0.1",
        "--rtol",
        "1e-12",
        "--atol",
        "1e-12",
        "--servo-stiffness",
        "400",
        "--servo-damping",
        "40",
        "--out",
        csv.to_str().unwrap(),
    ];
    simulate(&file, &args, 0);
    let (_, rows) = read_csv(&csv);
    assert_eq!(rows.len(), 5);
    // The model's own motion under its controller (udk::Model::control, the path by inverse
    // dynamics: s = n = 6, B = I) and its acceleration at those torques, by classical RK4 with
    // h = 2.5e-4 s: (ω h)⁵ ≈ 3e-12 per step for the law's ω = 20 s⁻¹. The two agree to about
    // 4e-13 rad and 1e-11 rad/s (DOP853 at tolerances 1e-12 against RK4).
    let mut model = udk::Model::from_file(&file).unwrap();
    let law = Convergence::TaskSpace {
        stiffness: 400.0,
        damping: 40.0,
    };
    let mut rate = |q: &DVector<f64>, v: &DVector<f64>, t: f64| {
        let u = model.control(q, v, t, law).unwrap().input;
        model.set_inputs(u.as_slice()).unwrap();
        (v.clone(), model.acceleration(q, v, t).unwrap())
    };
    let mut q = DVector::from_column_slice(&rows[0][1..7]);
    let mut v = DVector::from_column_slice(&rows[0][7..13]);
    let (h, steps) = (2.5e-4, 400);
    for (i, row) in rows.iter().enumerate().skip(1) {
        for step in 0..steps {
            let t = ((i - 1) * steps + step) as f64 * h;
            let (k1q, k1v) = rate(&q, &v, t);
            let (k2q, k2v) = rate(
                &(&q + &k1q * (h / 2.0)),
                &(&v + &k1v * (h / 2.0)),
                t + h / 2.0,
            );
            let (k3q, k3v) = rate(
                &(&q + &k2q * (h / 2.0)),
                &(&v + &k2v * (h / 2.0)),
                t + h / 2.0,
            );
            let (k4q, k4v) = rate(&(&q + &k3q * h), &(&v + &k3v * h), t + h);
            q += (k1q + k2q * 2.0 + k3q * 2.0 + k4q) * (h / 6.0);
            v += (k1v + k2v * 2.0 + k3v * 2.0 + k4v) * (h / 6.0);
        }
        assert!((row[0] - i as f64 * 0.1).abs() < 1e-12, "t = {}", row[0]);
        let (found_q, found_v) = (&row[1..7], &row[7..13]);
        let error = |x: &[f64], y: &DVector<f64>| {
            (x.iter().zip(y.iter())).fold(0.0_f64, |e, (a, b)| e.max((a - b).abs()))
        };
        let (eq, ev) = (error(found_q, &q), error(found_v, &v));
        assert!(
            eq < 1e-10 && ev < 1e-9,
            "t = {}: |Δq| {eq:e}, |Δq̇| {ev:e}",
            row[0]
        );
    }
}
