//! `udk simulate` of a model file with generalized speeds: a heavy top with its body rates as
//! speeds keeps its energy, names its CSV columns after the speeds, and a speeds model with
//! events is refused.

mod common;

use common::{read_csv, run};

/// A symmetric heavy top on a pivot in ZYX angles with the body rates as speeds.
const TOP: &str = r#"
name = "top"
coordinates = ["psi", "theta", "phi"]
speeds = ["wx", "wy", "wz"]
kinematics = [
    "(wy * phi.sin() + wz * phi.cos()) / theta.cos()",
    "wy * phi.cos() - wz * phi.sin()",
    "wx + (wy * phi.sin() + wz * phi.cos()) * theta.tan()",
]
definitions = [
    { name = "frame", value = "rot_z(psi) * rot_y(theta) * rot_x(phi)" },
    { name = "centre", value = "frame * vec3(0.0, 0.0, l)" },
]
lagrangian = "kinetic_energy(m, diag(0.12, 0.12, 0.05), centre, frame) - m * g * centre.z()"
parameters = [{ name = "m", value = 1.5 }, { name = "l", value = 0.4 }, { name = "g", value = 9.81 }]

[initial]
q0 = [0.0, 0.1, 0.05]
qd0 = [0.0, 0.0, 20.0]
"#;

#[test]
fn a_top_in_body_rates_keeps_its_energy_and_its_spin() {
    let dir = tempfile::tempdir().unwrap();
    let (model, csv) = (dir.path().join("top.toml"), dir.path().join("top.csv"));
    std::fs::write(&model, TOP).unwrap();
    let args = [
        "--t-end",
        "2",
        "--dt-out",
        "0.1",
        "--out",
        csv.to_str().unwrap(),
    ];
    run("simulate", &model, &args, 0);
    let (header, rows) = read_csv(&csv);
    assert_eq!(header[..7], ["t", "psi", "theta", "phi", "wx", "wy", "wz"]);
    assert_eq!(rows.len(), 21);
    let energy = header.iter().position(|c| c == "energy").unwrap();
    for row in &rows {
        assert!(
            (row[energy] - rows[0][energy]).abs() < 1e-9,
            "energy {}",
            row[energy]
        );
        // Symmetric about its axis (I₁ = I₂), the top keeps its spin rate: Euler's third
        // equation I₃ ω̇₃ = (I₁ − I₂) ω₁ω₂ = 0.
        assert!((row[6] - 20.0).abs() < 1e-9, "spin {}", row[6]);
    }
}

#[test]
fn speeds_with_events_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("top.toml");
    let events = "\n[[events]]\nname = \"low\"\nguard = \"theta - 1.0\"\naction = \"stop\"\n";
    std::fs::write(&model, format!("{TOP}{events}")).unwrap();
    let (_, stderr) = run("simulate", &model, &["--t-end", "1"], 2);
    assert!(
        stderr.contains("generalized speeds together with [[events]]"),
        "{stderr}"
    );
}
