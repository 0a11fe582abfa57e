//! `udk eval` and `udk simulate` on a robot on a floating base
//! (`urdf = { path = "..", floating_base = true }`): Solo12 against Pinocchio 4.1 with
//! `JointModelFreeFlyer` (tests/fixtures/free_flyer.json), the CSV's named columns and unit
//! quaternion, the refused non-unit start, and a URDF that already has a floating joint.

mod common;

use common::{csv, fixtures_dir, numbers, read_csv, run};
use std::path::{Path, PathBuf};

fn solo12() -> PathBuf {
    fixtures_dir().join("solo12_floating.toml")
}

/// max |a − b| ≤ tolerance · max(1, max |b|).
fn assert_close(got: &[f64], expected: &[f64], tolerance: f64, what: &str) {
    assert_eq!(got.len(), expected.len(), "{what}");
    let scale = expected.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
    for (k, (g, e)) in got.iter().zip(expected).enumerate() {
        assert!(
            (g - e).abs() <= tolerance * scale,
            "{what}[{k}]: {g} vs {e}"
        );
    }
}

#[test]
fn eval_matches_pinocchio() {
    let fixture = common::fixture("free_flyer");
    let entry = &fixture["robots"]["solo12"];
    let pinocchio: Vec<String> = (entry["joints"].as_array().unwrap().iter())
        .map(|x| x.as_str().unwrap().to_owned())
        .collect();
    for state in entry["states"].as_array().unwrap() {
        let q = numbers(&state["q"]);
        let v = numbers(&state["v"]);
        let tau = numbers(&state["tau"]);
        // Pinocchio's joint order is udk's for Solo12 (checked below by name).
        let report = common::json_output(
            "eval",
            &solo12(),
            &[
                &format!("--q={}", csv(&q)),
                &format!("--qd={}", csv(&v)),
                &format!("--u={}", csv(&tau)),
            ],
        );
        let names: Vec<String> = (report["coordinate_names"].as_array().unwrap().iter())
            .map(|x| x.as_str().unwrap().to_owned())
            .collect();
        assert_eq!(names[7..], pinocchio[..]);
        assert_eq!(names[3..7], ["base_qx", "base_qy", "base_qz", "base_qw"]);
        let aba = numbers(&report["acceleration"]);
        assert_close(&aba, &numbers(&state["aba"]), 1e-10, "aba");
        let mass: Vec<f64> = (report["mass_matrix"].as_array().unwrap().iter())
            .flat_map(numbers)
            .collect();
        let crba: Vec<f64> = (state["crba"].as_array().unwrap().iter())
            .flat_map(numbers)
            .collect();
        assert_close(&mass, &crba, 1e-10, "crba");
        // h = rnea(q, v, 0) = M a − τ_full at a = aba: M v̇ + h = [0, τ].
        let h = numbers(&report["bias_force"]);
        let generalized: Vec<f64> = (0..18)
            .map(|r| (0..18).map(|c| mass[r * 18 + c] * aba[c]).sum::<f64>() + h[r])
            .collect();
        let expected: Vec<f64> = [0.0; 6].iter().chain(&tau).copied().collect();
        assert_close(&generalized, &expected, 1e-9, "M v̇ + h");
        let points = report["points"].as_array().unwrap();
        assert_eq!(points.len(), 4);
        assert_eq!(points[0]["name"], "FL");
        assert_eq!(points[0]["jacobian"].as_array().unwrap().len(), 3);
    }
}

#[test]
fn simulate_names_its_columns_and_keeps_the_quaternion_unit() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("solo.csv");
    let args = [
        "--t-end",
        "0.2",
        "--dt-out",
        "0.05",
        "--out",
        out.to_str().unwrap(),
    ];
    run("simulate", &solo12(), &args, 0);
    let (header, rows) = read_csv(&out);
    assert_eq!(
        header[..8],
        ["t", "base_x", "base_y", "base_z", "base_qx", "base_qy", "base_qz", "base_qw"]
    );
    assert_eq!(header[8], "FL_HAA");
    assert_eq!(header[20..23], ["base_vx", "base_vy", "base_vz"]);
    assert_eq!(header[26], "FL_HAA_dot");
    // v has NV = 18 entries: the residuals follow it.
    assert_eq!(header[38], "position_residual");
    assert!(
        header.ends_with(&["HR.x", "HR.y", "HR.z"].map(String::from)),
        "{header:?}"
    );
    assert_eq!(rows.len(), 5);
    for row in &rows {
        let norm = row[4..8].iter().map(|x| x * x).sum::<f64>().sqrt();
        assert!((norm - 1.0).abs() < 1e-15, "|q| = {norm}");
        // No contact and no torque from rest: the robot falls freely, z = 0.3 − g t²/2.
        let t = row[0];
        assert!(
            (row[3] - (0.3 - 0.5 * 9.81 * t * t)).abs() < 1e-9,
            "z = {}",
            row[3]
        );
    }
}

#[test]
fn a_non_unit_start_is_refused_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("solo.toml");
    let text = std::fs::read_to_string(solo12()).unwrap().replace(
        "../../robots/",
        &format!("{}/../robots/", env!("CARGO_MANIFEST_DIR")),
    );
    let scaled = text.replace(
        "0.0, 0.0, 0.0, 1.0, 0.1, 0.8",
        "0.0, 0.0, 0.0, 1.1, 0.1, 0.8",
    );
    assert_ne!(text, scaled);
    std::fs::write(&model, scaled).unwrap();
    let (_, message) = run("simulate", &model, &["--t-end", "0.1"], 2);
    assert!(message.contains("non-unit start is refused"), "{message}");
}

#[test]
fn a_floating_joint_with_a_floating_base_is_refused() {
    let model = fixtures_dir().join("floating_joint_with_floating_base.toml");
    for (command, args) in [("eval", &[][..]), ("simulate", &["--t-end", "1"][..])] {
        let (_, message) = run(command, &model, args, 2);
        assert!(
            message.contains("already has a floating joint") && message.contains("free_flight"),
            "{command}: {message}"
        );
    }
}

#[test]
fn other_commands_say_they_do_not_take_a_floating_base() {
    let (_, message) = run("derive", &solo12(), &[], 2);
    assert!(
        message.contains("`udk eval` and `udk simulate`"),
        "{message}"
    );
}

/// Solo12 dropped onto the ground with four frictional foot contacts from a model file
/// (tests/fixtures/solo12_landing.toml) under constant joint torques: the four touchdowns
/// in the event log, the foot forces by name in the CSV, and the run of
/// `udk::model::FreeFlyerModel` (which tests/free_flyer_file_contacts.rs checks against the
/// macro's robot) to 1e-9.
#[test]
fn simulate_lands_on_the_contacts_of_the_model_file() {
    let file = fixtures_dir().join("solo12_landing.toml");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("landing.csv");
    let tau: Vec<f64> = (0..12)
        .map(|j| [0.0, 0.6, -0.9][j % 3] * if j < 6 { 1.0 } else { -1.0 })
        .collect();
    let times = [
        "--t-end", "0.15", "--dt-out", "0.05", "--rtol", "1e-10", "--atol", "1e-12",
    ];
    let (u, out_arg) = (format!("--u={}", csv(&tau)), out.to_str().unwrap());
    let args: [&[&str]; 2] = [&times, &[&u, "--out", out_arg]];
    let (stdout, _) = run("simulate", &file, &args.concat(), 0);
    for foot in ["FL", "FR", "HL", "HR"] {
        assert!(stdout.contains(&format!("{foot} touchdown")), "{stdout}");
    }
    let (header, rows) = read_csv(&out);
    assert_eq!(rows.len(), 4);
    let column = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("{name} in {header:?}"))
    };
    assert!(
        header.ends_with(&["HR.normal", "HR.tangent", "HR.lateral"].map(String::from)),
        "{header:?}"
    );

    let model = udk::model::FreeFlyerModel::from_file(&file).unwrap();
    let spec: udk::ModelSpec = toml::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let initial = spec.initial.unwrap();
    let options = udk::runtime::simulate::SimulationOptions {
        rtol: 1e-10,
        atol: 1e-12,
        ..udk::runtime::simulate::SimulationOptions::every(0.05)
    };
    let motion = model
        .simulate(&initial.q0, &initial.qd0, &tau, (0.0, 0.15), &options)
        .unwrap();
    let last = rows.last().unwrap();
    let j = motion.t.len() - 1;
    assert_close(&last[1..20], motion.q.column(j).as_slice(), 1e-9, "q(0.15)");
    let width = motion.outputs.columns.len();
    for (c, name) in motion.outputs.columns.iter().enumerate() {
        let expected = motion.outputs.values[j * width + c];
        assert!(
            (last[column(name)] - expected).abs() <= 1e-7 * (1.0 + expected.abs()),
            "{name}"
        );
    }
    // Each foot on the ground at 0.15 s, pushed up; in the air at 0.1 s.
    for foot in ["FL", "FR", "HL", "HR"] {
        let normal = column(&format!("{foot}.normal"));
        assert!(last[normal] > 1.0, "{foot}: λₙ = {}", last[normal]);
        assert_eq!(rows[2][normal], 0.0);
    }
}

/// A model file in `dir` for the simple humanoid of example-robot-data (29 joints, NQ = 36:
/// more than the 24 the CLI once took) with `gravity`, from a start 1 m up, turned by 0.6 rad
/// about y, the joints bent, with base and joint rates `v0`.
fn humanoid(dir: &Path, gravity: [f64; 3], v0: &[f64]) -> (PathBuf, Vec<f64>) {
    let urdf = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../robots/example-robot-data/simple_humanoid_description/urdf/simple_humanoid.urdf");
    let (s, c) = (0.3f64.sin(), 0.3f64.cos());
    let mut q0 = vec![0.1, -0.2, 1.0, 0.0, s, 0.0, c];
    q0.extend((0..29).map(|j| 0.2 * ((j as f64) * 0.9).sin()));
    let text = format!(
        "name = \"Humanoid\"\nurdf = {{ path = {:?}, floating_base = true, gravity = {gravity:?} }}\n\
         [initial]\nq0 = {q0:?}\nqd0 = {v0:?}\n",
        urdf.display().to_string()
    );
    let model = dir.join("humanoid.toml");
    std::fs::write(&model, text).unwrap();
    (model, q0)
}

/// `udk simulate` of the humanoid `model` to 0.3 s, a sample every 0.1 s, at rtol 1e-11 and
/// atol 1e-12, with the arguments `extra`, its CSV written to `out`: the standard output.
fn simulate_humanoid(model: &Path, extra: &[&str], out: &Path) -> String {
    let mut args = vec![
        "--t-end", "0.3", "--dt-out", "0.1", "--rtol", "1e-11", "--atol", "1e-12",
    ];
    args.extend(extra);
    args.extend(["--out", out.to_str().unwrap()]);
    run("simulate", model, &args, 0).0
}

/// `udk simulate` on a robot of 29 joints, past the 24 the CLI's own dispatch once took: from
/// rest with no joint torque it falls as one rigid body, so the base follows z₀ − g t²/2 and
/// keeps its orientation, and the joints stay where they were.
#[test]
fn simulate_takes_more_than_24_joints_and_the_robot_falls_at_g() {
    let dir = tempfile::tempdir().unwrap();
    let (model, q0) = humanoid(dir.path(), [0.0, 0.0, -9.81], &[0.0; 35]);
    let out = dir.path().join("fall.csv");
    assert!(simulate_humanoid(&model, &[], &out).contains("Humanoid"));
    let (header, rows) = read_csv(&out);
    // t, 36 coordinates, 35 velocities, the residuals and the energy.
    assert_eq!(header.len(), 1 + 36 + 35 + 3, "{header:?}");
    assert_eq!(header[36 + 1..36 + 4], ["base_vx", "base_vy", "base_vz"]);
    assert_eq!(
        header[72..],
        ["position_residual", "velocity_residual", "energy"]
    );
    assert_eq!(rows.len(), 4);
    for row in &rows {
        let t = row[0];
        let z = 1.0 - 0.5 * 9.81 * t * t;
        assert!((row[3] - z).abs() < 1e-9, "z({t}) = {} against {z}", row[3]);
        for k in [0, 1, 3, 4, 5, 6].into_iter().chain(7..36) {
            assert!(
                (row[1 + k] - q0[k]).abs() < 1e-9,
                "q[{k}]({t}) = {} against {}",
                row[1 + k],
                q0[k]
            );
        }
        // Energy ½ vᵀ M v − m g·c is conserved in the fall.
        assert!((row[74] - rows[0][74]).abs() < 1e-8 * rows[0][74].abs().max(1.0));
    }
}

/// The same robot in zero gravity under constant joint torques (internal forces) from a
/// tumbling start: the spatial momentum of the CSV's states stays constant.
#[test]
fn simulate_keeps_the_momentum_of_a_robot_of_29_joints_in_zero_gravity() {
    let dir = tempfile::tempdir().unwrap();
    let v0: Vec<f64> = (0..35).map(|i| 0.5 * ((i as f64) * 0.7).cos()).collect();
    let (model, q0) = humanoid(dir.path(), [0.0; 3], &v0);
    let tau: Vec<f64> = (0..29).map(|j| 2.0 * ((j as f64) * 1.3).sin()).collect();
    let out = dir.path().join("space.csv");
    simulate_humanoid(&model, &[&format!("--u={}", csv(&tau))], &out);
    let (_, rows) = read_csv(&out);
    assert_eq!(rows.len(), 4);
    let robot = udk::model::FreeFlyerModel::from_file(&model).unwrap();
    let momentum = |row: &[f64]| {
        let (q, v) = (&row[1..37], &row[37..72]);
        let mass = robot.mass_matrix(q).unwrap();
        udk::runtime::free_flyer::momentum(q, v, &mass).unwrap()
    };
    let [linear0, angular0] = momentum(&rows[0]);
    let scale = linear0.norm().max(angular0.norm());
    assert!(scale > 1.0, "a motion with momentum: {scale}");
    for row in &rows[1..] {
        let [linear, angular] = momentum(row);
        let drift = (linear - linear0).norm().max((angular - angular0).norm());
        assert!(
            drift < 1e-10 * scale,
            "momentum drift {drift} at t = {}",
            row[0]
        );
        // The torques moved the joints.
        assert!((row[1 + 10] - q0[10]).abs() > 1e-6);
    }
}
