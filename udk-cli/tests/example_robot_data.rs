//! Every robot of example-robot-data 6.0.0 on a fixed base, through the run-time path (URDF
//! front end, derivation, tape and kernels, as `udk eval` runs it), against Pinocchio 4.1
//! (`tests/fixtures/example_robot_data.json`, written by
//! `tests/fixtures/make_example_robot_data.py`): q̈ against `aba`, M against `crba` and the
//! bias h = τ − Q against `rnea(q, q̇, 0)`. The files Pinocchio cannot run on a fixed base are
//! checked for what udk says of them.
//!
//! The files whose licence lets udk redistribute them are vendored under
//! `robots/example-robot-data/`. The others (Talos, TIAGo, Alex: CC BY-NC-ND; iCub: CC BY-SA)
//! are read from `UDK_EXAMPLE_ROBOT_DATA`, the package's `robots/` directory, when it is set
//! (CI sets it; see `.ci/run`), and are left out otherwise, with a line saying so.

use std::path::{Path, PathBuf};
use udk_cli::eval::{evaluate, Report, State};
use udk_cli::model::{Backend, Model};
use udk_cli::Failure;

const VENDORED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../robots/example-robot-data");

/// The robots udk cannot redistribute (their licences forbid it or ask for share-alike).
const NOT_VENDORED: [&str; 4] = [
    "talos_data/",
    "tiago_description/",
    "alex_description/",
    "icub_description/",
];

fn fixture() -> serde_json::Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/example_robot_data.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Where the robot `name` (its path under the package's `robots/`) is, `None` when it is not
/// vendored and `UDK_EXAMPLE_ROBOT_DATA` is not set.
fn locate(name: &str) -> Option<PathBuf> {
    if NOT_VENDORED.iter().any(|prefix| name.starts_with(prefix)) {
        let root = std::env::var_os("UDK_EXAMPLE_ROBOT_DATA")?;
        let path = Path::new(&root).join(name);
        assert!(path.is_file(), "UDK_EXAMPLE_ROBOT_DATA has no {name}");
        return Some(path);
    }
    let path = Path::new(VENDORED).join(name);
    assert!(path.is_file(), "{name} is vendored");
    Some(path)
}

fn numbers(value: &serde_json::Value) -> Vec<f64> {
    (value.as_array().unwrap().iter())
        .map(|x| x.as_f64().unwrap())
        .collect()
}

fn names(value: &serde_json::Value) -> Vec<String> {
    (value.as_array().unwrap().iter())
        .map(|x| x.as_str().unwrap().to_owned())
        .collect()
}

/// The largest |a − b| over max(1, |b|∞).
fn relative(a: &[f64], b: &[f64]) -> f64 {
    let scale = b.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
    a.iter()
        .zip(b)
        .fold(0.0_f64, |m, (x, y)| m.max((x - y).abs()))
        / scale
}

/// The worst relative errors (q̈, M, h) of udk against the fixture's states of one robot.
fn compare(path: &Path, entry: &serde_json::Value) -> [f64; 3] {
    let model = Model::load(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let pinocchio = names(&entry["coordinates"]);
    let n = model.n();
    assert_eq!(pinocchio.len(), n, "{}", path.display());
    // at[i]: where udk's coordinate i sits in Pinocchio's order.
    let at: Vec<usize> = (model.derivation.coordinate_names.iter())
        .map(|name| pinocchio.iter().position(|p| p == name).unwrap())
        .collect();
    let permuted = |v: Vec<f64>| -> Vec<f64> { at.iter().map(|&k| v[k]).collect() };
    let mut worst = [0.0_f64; 3];
    for state in entry["states"].as_array().unwrap() {
        let tau = permuted(numbers(&state["tau"]));
        let state_of = |u: Vec<f64>| State {
            t: 0.0,
            q: permuted(numbers(&state["q"])),
            qd: Some(permuted(numbers(&state["qd"]))),
            p: None,
            u: Some(u),
        };
        let mut evaluator = (model.evaluator(Vec::new(), tau.clone(), Backend::Jit)).unwrap();
        let Report::Lagrangian(report) =
            evaluate(&model, &mut evaluator, &state_of(tau.clone()), "")
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        else {
            panic!("a Lagrangian model")
        };
        let mass: Vec<f64> = (state["mass_matrix"].as_array().unwrap().iter())
            .flat_map(numbers)
            .collect();
        let mass: Vec<f64> = (0..n * n)
            .map(|k| mass[at[k / n] * n + at[k % n]])
            .collect();
        let udk_mass: Vec<f64> = report.mass_matrix.concat();
        let bias: Vec<f64> = (tau.iter().zip(&report.generalized_force))
            .map(|(t, q)| t - q)
            .collect();
        let errors = [
            relative(&report.acceleration, &permuted(numbers(&state["qdd"]))),
            relative(&udk_mass, &mass),
            relative(&bias, &permuted(numbers(&state["bias"]))),
        ];
        // q̈ = M⁻¹(τ − h): two correct solvers differ by up to cond(M)·ε of it.
        let condition = state["condition"].as_f64().unwrap();
        let limits = [1e-10_f64.max(1e-15 * condition), 1e-12, 1e-12];
        for (k, what) in ["q̈ against aba", "M against crba", "h against rnea"]
            .iter()
            .enumerate()
        {
            assert!(
                errors[k] <= limits[k],
                "{}: {what}: relative error {:e} > {:e}",
                path.display(),
                errors[k],
                limits[k]
            );
            worst[k] = worst[k].max(errors[k]);
        }
    }
    worst
}

#[test]
fn every_robot_agrees_with_pinocchio_or_says_why_not() {
    let fixture = fixture();
    let robots = fixture["robots"].as_object().unwrap();
    assert_eq!(robots.len(), 69, "the package's URDF files");
    let (mut compared, mut absent) = (Vec::new(), Vec::new());
    for (name, entry) in robots {
        let Some(path) = locate(name) else {
            absent.push(name.as_str());
            continue;
        };
        match entry["skipped"].as_str() {
            None => {
                let worst = compare(&path, entry);
                compared.push(format!(
                    "{name}: {:.1e} {:.1e} {:.1e}",
                    worst[0], worst[1], worst[2]
                ));
            }
            Some(reason) => skipped(name, &path, reason, entry),
        }
    }
    println!(
        "{} robots agree with Pinocchio (worst relative errors of q̈, M, h):\n  {}",
        compared.len(),
        compared.join("\n  ")
    );
    if !absent.is_empty() {
        println!(
            "left out, not vendored (set UDK_EXAMPLE_ROBOT_DATA to the package's robots/): {}",
            absent.join(", ")
        );
    }
    let expected = if std::env::var_os("UDK_EXAMPLE_ROBOT_DATA").is_some() {
        64
    } else {
        50
    };
    assert_eq!(compared.len(), expected, "robots compared");
}

/// The message of a bad-input failure.
fn error(name: &str, loaded: Result<Model, Failure>) -> String {
    match loaded {
        Err(e @ Failure::BadInput(_)) => e.to_string(),
        Err(e) => panic!("{name}: expected bad input, found {e}"),
        Ok(_) => panic!("{name}: expected an error"),
    }
}

/// The robot at `path` read with `inertia = "repair"`.
fn repaired(path: &Path) -> Model {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("repaired.toml");
    let text = format!(
        "name = \"Repaired\"\nurdf = {{ path = {:?}, inertia = \"repair\" }}\n",
        path.display().to_string()
    );
    std::fs::write(&file, text).unwrap();
    Model::load(&file).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// What udk says of a file Pinocchio cannot run on a fixed base.
fn skipped(name: &str, path: &Path, reason: &str, entry: &serde_json::Value) {
    let loaded = Model::load(path);
    if reason.starts_with("Pinocchio refuses") {
        // ur3.urdf: an empty <robot>.
        let message = error(name, loaded);
        assert!(
            message.contains("the file has no links; a URDF robot needs at least its root link"),
            "{name}: {message}"
        );
    } else if reason.starts_with("no movable joint") {
        // The drones: no movable joint (as a free body, the floating-base issue).
        let message = error(name, loaded);
        assert!(
            message.contains("the robot has no revolute, continuous or prismatic joint"),
            "{name}: {message}"
        );
    } else {
        // Joints that move only massless links: udk names exactly Pinocchio's zero rows of M.
        assert!(reason.starts_with("M is singular"), "{name}: {reason}");
        let model = match loaded {
            Ok(model) => model,
            // romeo_laas_small.urdf: an indefinite tensor too, which Pinocchio takes as it is.
            Err(e) if e.to_string().contains("inertia = \"repair\"") => repaired(path),
            Err(e) => panic!("{name}: {e}"),
        };
        let d = &model.derivation;
        let mut undetermined: Vec<&str> = (d.undetermined_coordinates().into_iter())
            .map(|i| d.coordinate_names[i].as_str())
            .collect();
        let mut massless = names(&entry["massless"]);
        undetermined.sort_unstable();
        massless.sort_unstable();
        assert_eq!(undetermined, massless, "{name}");
        // The front end's warnings name those joints and the links they move.
        let named = |joint: &String| {
            (d.warnings.iter()).any(|w| {
                w.contains("only links with no mass or inertia")
                    && w.contains(&format!("`{joint}`"))
            })
        };
        assert!(massless.iter().all(named), "{name}: {:?}", d.warnings);
    }
}
