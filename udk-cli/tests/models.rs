//! `udk eval` and `udk expand` on every model under `examples/models/` against the same models
//! written with `#[lagrangian]` / `#[hamiltonian]` (the examples themselves, compiled here as
//! modules): the evaluations agree to 1e-12, the expansions byte for byte with the files the
//! macros wrote to `UDK_EXPAND_DIR` (set for this package by its build script) while this test
//! compiled, and `udk simulate` ends where the generated system's simulation ends.

mod chain10;
mod common;

#[allow(dead_code)]
#[path = "../../examples/constrained_double_pendulum.rs"]
mod constrained_double_pendulum;

#[allow(dead_code)]
#[path = "../../examples/double_pendulum_minimal.rs"]
mod double_pendulum_minimal;

#[allow(dead_code)]
#[path = "../../examples/flexible_joint_manipulator.rs"]
mod flexible_joint_manipulator;

#[allow(dead_code)]
#[path = "../../examples/nonholonomic_particle.rs"]
mod nonholonomic_particle;

#[allow(dead_code)]
#[path = "../../examples/quaternion_rigid_body.rs"]
mod quaternion_rigid_body;

#[allow(dead_code)]
#[path = "../../examples/spherical_pendulum.rs"]
mod spherical_pendulum;

#[allow(dead_code)]
#[path = "../../examples/spiral_particle.rs"]
mod spiral_particle;

#[allow(dead_code)]
#[path = "../../examples/swarm_robots.rs"]
mod swarm_robots;

#[allow(dead_code)]
#[path = "../../examples/stewart_platform.rs"]
mod stewart_platform;

#[allow(dead_code)]
#[path = "../../examples/two_masses_springs.rs"]
mod two_masses_springs;

#[allow(dead_code)]
#[path = "../../examples/two_particles_incline.rs"]
mod two_particles_incline;

#[allow(dead_code)]
#[path = "../../examples/wheel_on_incline.rs"]
mod wheel_on_incline;

#[allow(dead_code)]
#[path = "../../examples/wheel_zero_mass_particle.rs"]
mod wheel_zero_mass_particle;

#[allow(dead_code)]
#[path = "../../examples/whipple_bicycle.rs"]
mod whipple_bicycle;

#[allow(dead_code)]
#[path = "../../examples/cart_double_pendulum.rs"]
mod cart_double_pendulum;

#[allow(dead_code)]
#[path = "../../examples/rolling_disk.rs"]
mod rolling_disk;

#[allow(dead_code)]
#[path = "../../examples/four_bar.rs"]
mod four_bar;

#[allow(dead_code)]
#[path = "../../examples/spherical_joint_body.rs"]
mod spherical_joint_body;

/// The model file `urdf_double_pendulum` under `#[lagrangian]`, its path relative to this
/// package's manifest.
mod urdf_double_pendulum {
    use udk::lagrangian;

    #[lagrangian(
        urdf = "../tests/urdf/double_pendulum.urdf",
        joint_damping = true,
        outputs(tip = link_position("tip")),
    )]
    pub struct UrdfDoublePendulum;
}

use chain10::PendulumChainCartesian10;
use common::{close, eval_json, fixture, numbers, read_csv, udk, Json};
use constrained_double_pendulum::ConstrainedDoublePendulum;
use double_pendulum_minimal::DoublePendulum;
use flexible_joint_manipulator::FlexibleJointManipulator;
use nonholonomic_particle::NonholonomicParticle;
use quaternion_rigid_body::QuaternionRigidBody;
use spherical_pendulum::{SphericalPendulum, SphericalPendulumLagrangian};
use spiral_particle::SpiralParticle;
use swarm_robots::SwarmOfFiveRobots;
use two_masses_springs::{TwoMasses, TwoMassesFirstMassless, TwoMassesSecondMassless};
use two_particles_incline::TwoParticlesOnIncline;
use udk::nalgebra::SVector;
use udk::runtime::simulate::{
    simulate_hamiltonian, simulate_lagrangian, OutputTimes, SimulationError, SimulationOptions,
    Trajectory,
};
use udk::{HamiltonianSystem, LagrangianSystem};
use wheel_on_incline::WheelOnIncline;
use wheel_zero_mass_particle::WheelWithMasslessParticle;
use whipple_bicycle::WhippleBicycle;

/// A robot from a URDF file: the model file's expansion byte-identical to the macro's, `eval`
/// equal to the generated code, and the URDF file itself a model for `udk derive`.
#[test]
fn urdf_double_pendulum() {
    use urdf_double_pendulum::UrdfDoublePendulum;
    expand_matches("urdf_double_pendulum", "UrdfDoublePendulum");
    let (q, qd, u) = ([0.5, -0.3], [0.2, 0.7], [0.3, -0.1]);
    let input = [serde_json::json!({ "q": q, "qd": qd, "u": u })];
    let report = &eval_json("urdf_double_pendulum", &input)[0];
    let (q, qd, u) = (vector::<2>(&q), vector::<2>(&qd), vector::<2>(&u));
    let qdd = UrdfDoublePendulum.acceleration(&q, &qd, &u, 0.0).unwrap();
    close(&numbers(&report["acceleration"]), qdd.as_slice(), TOL, "q̈");
    let tip = UrdfDoublePendulum.tip(&q, &qd, &u, 0.0);
    close(
        &numbers(&report["outputs"]["tip"]),
        tip.as_slice(),
        TOL,
        "tip",
    );
    let urdf = common::models_dir().join("../../tests/urdf/double_pendulum.urdf");
    let printed = udk().arg("derive").arg(&urdf).assert().success();
    let sheet = String::from_utf8_lossy(&printed.get_output().stdout).into_owned();
    assert!(
        sheet.starts_with("DoublePendulum (Lagrangian): n = 2 coordinates (shoulder, elbow)"),
        "{sheet}"
    );
}

#[test]
fn wheel_on_incline() {
    let wheel = WheelOnIncline::EXAMPLE;
    lagrangian_model("wheel_on_incline", "WheelOnIncline", &wheel, Some(2.0));
}

/// The multibody examples' model files: expansions byte-identical to the macros', `eval`
/// equal to the generated code, and `simulate` ending where the generated system's run ends.
#[test]
fn multibody_models() {
    let disk = rolling_disk::RollingDisk::EXAMPLE;
    lagrangian_model("rolling_disk", "RollingDisk", &disk, Some(2.0));
    lagrangian_model(
        "four_bar",
        "FourBar",
        &four_bar::FourBar::EXAMPLE,
        Some(1.0),
    );
    let body = spherical_joint_body::BodyZyx::EXAMPLE;
    lagrangian_model("spherical_joint_body", "BodyZyx", &body, Some(2.0));
}

/// `udk simulate --out` writes the model's outputs after the sample's columns, as the
/// generated functions compute them at each row's state.
#[test]
fn simulated_csv_has_the_outputs() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("four_bar.csv");
    udk()
        .args([
            "simulate",
            common::model("four_bar").to_str().unwrap(),
            "--t-end",
            "0.2",
        ])
        .arg("--out")
        .arg(&path)
        .assert()
        .success();
    let (header, rows) = read_csv(&path);
    assert_eq!(
        header[9..],
        [
            "energy",
            "coupler_point.x",
            "coupler_point.y",
            "coupler_point.z"
        ]
    );
    let linkage = four_bar::FourBar::EXAMPLE;
    for row in &rows {
        let (q, qd) = (vector::<3>(&row[1..4]), vector::<3>(&row[4..7]));
        let point = linkage.coupler_point(&q, &qd, row[0]);
        close(&row[10..13], point.as_slice(), 1e-15, "coupler_point");
    }
    assert!(rows.len() > 10, "{} rows", rows.len());
}

#[test]
fn stewart_platform_written_with_repeat() {
    // The file's [[repeat]] block expands as the macro's `for` block: the same code, byte for
    // byte, and the same q̈ under the leg forces that hold the plate still (q̈ = 0).
    expand_matches("stewart_platform", "StewartPlatform");
    let plate = stewart_platform::StewartPlatform::EXAMPLE;
    let (_, q0, qd0) = initial("stewart_platform");
    let q = vector::<7>(&q0);
    let u = plate.holding_forces(&q).expect("a regular pose");
    let lifted = 1.1 * u;
    let states = [serde_json::json!({ "q": q0, "qd": qd0, "u": lifted.as_slice() })];
    let report = &eval_json("stewart_platform", &states)[0];
    let expected = plate
        .acceleration(&q, &vector::<7>(&qd0), &lifted, 0.0)
        .unwrap();
    close(
        &numbers(&report["acceleration"]),
        expected.as_slice(),
        1e-12,
        "q̈",
    );
    assert!((expected[2] - 0.1 * plate.g).abs() < 1e-12, "{expected}");
}

#[test]
fn whipple_bicycle() {
    let bicycle = WhippleBicycle::BENCHMARK;
    lagrangian_model("whipple_bicycle", "WhippleBicycle", &bicycle, Some(1.0));
}

/// The model file with an input force against sympy.physics.mechanics
/// (`tests/fixtures/cart_double_pendulum.json`), with `u` in the states file and on the command
/// line.
#[test]
fn cart_double_pendulum_with_inputs() {
    let fixture = fixture("cart_double_pendulum");
    let states: Vec<Json> = (fixture["states"].as_array().unwrap().iter())
        .map(|s| serde_json::json!({ "q": s["q"], "qd": s["qd"], "u": [s["u"]] }))
        .collect();
    let reports = eval_json("cart_double_pendulum", &states);
    for (report, state) in reports.iter().zip(fixture["states"].as_array().unwrap()) {
        let expected = numbers(&state["qdd"]);
        close(&numbers(&report["acceleration"]), &expected, 1e-12, "q̈");
        assert_eq!(numbers(&report["u"]), [state["u"].as_f64().unwrap()]);
    }
    let state = &fixture["states"][0];
    let list = |v: &Json| {
        numbers(v)
            .iter()
            .map(f64::to_string)
            .collect::<Vec<_>>()
            .join(",")
    };
    let output = udk()
        .args([
            "eval",
            common::model("cart_double_pendulum").to_str().unwrap(),
        ])
        .arg(format!("--q={}", list(&state["q"])))
        .arg(format!("--qd={}", list(&state["qd"])))
        .arg(format!("--u={}", state["u"]))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Json = serde_json::from_slice(&output.stdout).unwrap();
    close(
        &numbers(&report["acceleration"]),
        &numbers(&state["qdd"]),
        1e-12,
        "q̈",
    );
    // The output `tip` as the generated function computes it.
    let (q, qd) = (
        vector::<3>(&numbers(&state["q"])),
        vector::<3>(&numbers(&state["qd"])),
    );
    let u = udk::nalgebra::Vector1::new(state["u"].as_f64().unwrap());
    let tip = cart_double_pendulum::CartDoublePendulum::EXAMPLE.tip(&q, &qd, &u, 0.0);
    close(
        &numbers(&report["outputs"]["tip"]),
        tip.as_slice(),
        1e-14,
        "tip",
    );
    // A model with inputs needs them, and gets the right number.
    let missing = udk()
        .args([
            "eval",
            common::model("cart_double_pendulum").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&missing.stderr).contains("the model has 1 input (u): give `u`")
    );
    let too_many = udk()
        .args([
            "eval",
            common::model("cart_double_pendulum").to_str().unwrap(),
            "--u=1,2",
        ])
        .output()
        .unwrap();
    assert_eq!(too_many.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&too_many.stderr).contains("`u` has 2 entries"));
}

#[test]
fn wheel_zero_mass_particle() {
    let WheelOnIncline { m, r, ic, g, alpha } = WheelOnIncline::EXAMPLE;
    let system = WheelWithMasslessParticle { m, r, ic, g, alpha };
    expand_matches("wheel_zero_mass_particle", "WheelWithMasslessParticle");
    not_unique("wheel_zero_mass_particle", &system);
}

/// The two masses with springs with masses `m1`, `m2`.
macro_rules! two_masses {
    ($model:ident, $m1:expr, $m2:expr) => {
        $model {
            m1: $m1,
            m2: $m2,
            k1: 3.0,
            k2: 5.0,
            d: 0.5,
        }
    };
}

#[test]
fn two_masses_springs() {
    lagrangian_model(
        "two_masses_springs",
        "TwoMasses",
        &two_masses!(TwoMasses, 1.5, 2.5),
        Some(2.0),
    );
    let first = two_masses!(TwoMassesFirstMassless, 0.0, 2.5);
    lagrangian_model(
        "two_masses_first_massless",
        "TwoMassesFirstMassless",
        &first,
        None,
    );
    let second = two_masses!(TwoMassesSecondMassless, 1.5, 0.0);
    lagrangian_model(
        "two_masses_second_massless",
        "TwoMassesSecondMassless",
        &second,
        None,
    );
}

#[test]
fn quaternion_rigid_body() {
    let body = QuaternionRigidBody::EXAMPLE;
    lagrangian_model(
        "quaternion_rigid_body",
        "QuaternionRigidBody",
        &body,
        Some(2.0),
    );
}

#[test]
fn spherical_pendulum() {
    let (m, g, l) = (1.5, 9.81, 2.0);
    let lagrangian = SphericalPendulumLagrangian { m, g, l };
    lagrangian_model(
        "spherical_pendulum_lagrangian",
        "SphericalPendulumLagrangian",
        &lagrangian,
        Some(2.0),
    );
    let hamiltonian = SphericalPendulum { m, g };
    hamiltonian_model(
        "spherical_pendulum_hamiltonian",
        "SphericalPendulum",
        &hamiltonian,
        Some(2.0),
    );
}

#[test]
fn nonholonomic_particle() {
    let particle = NonholonomicParticle { m: 2.0 };
    hamiltonian_model(
        "nonholonomic_particle",
        "NonholonomicParticle",
        &particle,
        Some(2.0),
    );
}

#[test]
fn two_particles_incline() {
    let particles = TwoParticlesOnIncline::EXAMPLE;
    // Three dependent constraints with Baumgarte stabilization on (the correction projected
    // onto range(A_p)).
    hamiltonian_model(
        "two_particles_incline",
        "TwoParticlesOnIncline",
        &particles,
        Some(2.0),
    );
}

#[test]
fn constrained_double_pendulum() {
    let pendulum = ConstrainedDoublePendulum::EXAMPLE;
    hamiltonian_model(
        "constrained_double_pendulum",
        "ConstrainedDoublePendulum",
        &pendulum,
        Some(2.0),
    );
}

#[test]
fn spiral_particle() {
    lagrangian_model(
        "spiral_particle",
        "SpiralParticle",
        &SpiralParticle { g: 9.81 },
        Some(2.0),
    );
}

#[test]
fn swarm_robots() {
    lagrangian_model(
        "swarm_robots",
        "SwarmOfFiveRobots",
        &SwarmOfFiveRobots { m: 2.0 },
        None,
    );
}

#[test]
fn flexible_joint_manipulator() {
    let manipulator = FlexibleJointManipulator::EXAMPLE;
    lagrangian_model(
        "flexible_joint_manipulator",
        "FlexibleJointManipulator",
        &manipulator,
        Some(2.0),
    );
}

#[test]
fn double_pendulum_minimal() {
    let pendulum = DoublePendulum {
        m1: 1.0,
        m2: 1.0,
        l1: 1.0,
        l2: 1.0,
        g: 9.81,
    };
    lagrangian_model("double_pendulum_minimal", "DoublePendulum", &pendulum, None);
}

#[test]
fn chain10_cartesian() {
    let chain = PendulumChainCartesian10 {
        m1: 1.0,
        m2: 1.0,
        m3: 1.0,
        m4: 1.0,
        m5: 1.0,
        m6: 1.0,
        m7: 1.0,
        m8: 1.0,
        m9: 1.0,
        m10: 1.0,
        l1: 1.0,
        l2: 1.0,
        l3: 1.0,
        l4: 1.0,
        l5: 1.0,
        l6: 1.0,
        l7: 1.0,
        l8: 1.0,
        l9: 1.0,
        l10: 1.0,
        g: 9.81,
    };
    lagrangian_model(
        "chain10_cartesian",
        "PendulumChainCartesian10",
        &chain,
        None,
    );
}

/// The Lagrangian model file `name` against the generated `system` (the struct `structure`): `udk expand` prints what
/// the macro wrote, `udk eval` agrees with the generated terms, and with `t_end`, `udk simulate`
/// to t_end ends where the generated system's simulation does.
fn lagrangian_model<S: LagrangianSystem<N, M>, const N: usize, const M: usize>(
    name: &str,
    structure: &str,
    system: &S,
    t_end: Option<f64>,
) {
    expand_matches(name, structure);
    check_lagrangian(name, system);
    if let Some(t_end) = t_end {
        simulate_matches(name, t_end, |q0, v0, t0, options| {
            simulate_lagrangian(system, q0, v0, t0, t_end, options)
        });
    }
}

/// As [`lagrangian_model`] for a Hamiltonian model.
fn hamiltonian_model<S: HamiltonianSystem<N, M>, const N: usize, const M: usize>(
    name: &str,
    structure: &str,
    system: &S,
    t_end: Option<f64>,
) {
    expand_matches(name, structure);
    check_hamiltonian(name, system);
    if let Some(t_end) = t_end {
        simulate_matches(name, t_end, |q0, v0, t0, options| {
            simulate_hamiltonian(system, q0, v0, t0, t_end, options)
        });
    }
}

/// The initial state of a model file: (t0, q0, qd0 or p0).
fn initial(name: &str) -> (f64, Vec<f64>, Vec<f64>) {
    let file = udk_cli::model_file::ModelFile::load(&common::model(name)).expect("model file");
    let initial = file.spec.initial.expect("an [initial] table");
    let v = if initial.p0.is_empty() {
        initial.qd0
    } else {
        initial.p0
    };
    (initial.t0, initial.q0, v)
}

/// Two states per model: the initial one, and a later time with −½ the velocities or momenta
/// (still on the constraint manifold for the homogeneous velocity constraints).
fn states(name: &str) -> Vec<(f64, Vec<f64>, Vec<f64>)> {
    let (t0, q0, v0) = initial(name);
    let scaled = v0.iter().map(|v| -0.5 * v).collect();
    vec![(t0, q0.clone(), v0), (t0 + 0.3, q0, scaled)]
}

/// `udk eval --states` of `states` on the model file `name`, as JSON reports.
fn eval(name: &str, key: &str, states: &[(f64, Vec<f64>, Vec<f64>)]) -> Vec<Json> {
    let input: Vec<Json> = states
        .iter()
        .map(|(t, q, v)| serde_json::json!({ "t": t, "q": q, key: v }))
        .collect();
    eval_json(name, &input)
}

const TOL: f64 = 1e-12;

/// A slice of n entries as a vector.
fn vector<const N: usize>(v: &[f64]) -> SVector<f64, N> {
    SVector::from_column_slice(v)
}

/// The entry of a report at `path` (keys separated by `/`) as numbers: a number, a vector, or a
/// list of rows flattened column-major (nalgebra's order).
fn field(report: &Json, path: &str) -> Vec<f64> {
    let value = path.split('/').fold(report, |v, key| &v[key]);
    match value {
        Json::Number(x) => vec![x.as_f64().expect("a number")],
        Json::Array(rows) if rows.first().is_some_and(Json::is_array) => {
            common::matrix_column_major(value)
        }
        _ => numbers(value),
    }
}

/// Asserts each (report path, label, generated values) to [`TOL`].
fn agree(report: &Json, at: &str, checks: &[(&str, &str, &[f64])]) {
    for (path, label, generated) in checks {
        close(
            &field(report, path),
            generated,
            TOL,
            &format!("{at}: {label}"),
        );
    }
}

fn check_lagrangian<S: LagrangianSystem<N, M>, const N: usize, const M: usize>(
    name: &str,
    system: &S,
) {
    let states = states(name);
    for ((t, q, qd), report) in states.iter().zip(eval(name, "qd", &states)) {
        let (q, qd) = (vector::<N>(q), vector::<N>(qd));
        let terms = system.terms(&q, &qd, *t);
        let acceleration = system.acceleration(&q, &qd, *t).expect("unique");
        let force = system.constraint_force(&q, &qd, *t).expect("unique");
        let c = terms.nonideal_force.unwrap_or_else(SVector::zeros);
        let holonomic = system.holonomic_residual(&q, *t);
        let velocity = system.velocity_residual(&q, &qd, *t);
        let at = format!("{name} at t = {t}");
        agree(
            &report,
            &at,
            &[
                ("acceleration", "q̈", acceleration.as_slice()),
                ("constraint_force", "Qᶜ", force.as_slice()),
                ("mass_matrix", "M", terms.mass_matrix.as_slice()),
                ("generalized_force", "Q", terms.generalized_force.as_slice()),
                ("constraint_rhs", "b", terms.constraint_rhs.as_slice()),
                ("nonideal_force", "C", c.as_slice()),
                ("energy", "energy", &[system.energy(&q, &qd, *t)]),
                (
                    "residuals/velocity",
                    "velocity residual",
                    velocity.as_slice(),
                ),
                (
                    "residuals/holonomic",
                    "f",
                    &holonomic.as_slice()[..S::NUM_HOLONOMIC],
                ),
            ],
        );
        if M > 0 {
            let a = terms.constraint_matrix;
            agree(&report, &at, &[("constraint_matrix", "A", a.as_slice())]);
            // λ by row name, as the kernel gives it on the generated terms.
            let options = udk_runtime::Options::default();
            let lambda = udk_runtime::constraint_multipliers(terms.view(), &options).unwrap();
            for (i, value) in lambda.iter().enumerate() {
                let name = match i < S::NUM_HOLONOMIC {
                    true => format!("holonomic[{i}]"),
                    false => format!("nonholonomic[{}]", i - S::NUM_HOLONOMIC),
                };
                let path = format!("constraint_multipliers/{name}");
                close(
                    &field(&report, &path),
                    &[*value],
                    TOL,
                    &format!("{at}: λ {name}"),
                );
            }
        } else {
            assert!(report.get("constraint_multipliers").is_none(), "{report}");
        }
        assert_eq!(report["rank"]["mass_and_constraint_matrix"], N);
    }
}

fn check_hamiltonian<S: HamiltonianSystem<N, M>, const N: usize, const M: usize>(
    name: &str,
    system: &S,
) {
    let states = states(name);
    for ((t, q, p), report) in states.iter().zip(eval(name, "p", &states)) {
        let (q, p) = (vector::<N>(q), vector::<N>(p));
        let terms = system.terms(&q, &p, *t);
        let (qd, pd) = system.state_derivative(&q, &p, *t).expect("consistent");
        let force = system.constraint_force(&q, &p, *t).expect("consistent");
        let phi = system.constraint_residual(&q, &p, *t);
        agree(
            &report,
            &format!("{name} at t = {t}"),
            &[
                ("qd", "q̇", qd.as_slice()),
                ("momentum_rate", "ṗ", pd.as_slice()),
                ("constraint_force", "Fᶜ", force.as_slice()),
                ("h_q", "H_q", terms.h_q.as_slice()),
                ("h_pp", "H_pp", terms.h_pp.as_slice()),
                ("a_p", "A_p", terms.a_p.as_slice()),
                ("b_p", "b_p", terms.b_p.as_slice()),
                ("hamiltonian", "H", &[system.hamiltonian(&q, &p, *t)]),
                ("residuals/velocity", "φ", phi.as_slice()),
            ],
        );
    }
}

/// The wheel with a zero-mass particle: rank [M; A] < n, so `udk eval` exits with code 3 and
/// the generated `acceleration` returns the same error.
fn not_unique<S: LagrangianSystem<N, M>, const N: usize, const M: usize>(name: &str, system: &S) {
    let (t, q, qd) = initial(name);
    let expected = system
        .acceleration(&vector::<N>(&q), &vector::<N>(&qd), t)
        .expect_err("not unique");
    udk()
        .arg("eval")
        .arg(common::model(name))
        .assert()
        .code(3)
        .stderr(predicate(&expected.to_string()));
}

/// A predicate: the text contains `needle`.
fn predicate(needle: &str) -> impl predicates::Predicate<[u8]> + '_ {
    predicates::function::function(move |out: &[u8]| String::from_utf8_lossy(out).contains(needle))
}

/// `udk expand` prints exactly what the macro wrote for `Struct` to `UDK_EXPAND_DIR`, after the
/// struct's own doc comment and derives: the macro carries the example's `///` lines and
/// `#[derive(..)]` over, and a model file has neither.
fn expand_matches(name: &str, structure: &str) {
    let written = std::path::Path::new(env!("UDK_EXPAND_DIR")).join(format!("{structure}.rs"));
    let expected = std::fs::read_to_string(&written)
        .unwrap_or_else(|e| panic!("the macro wrote {}: {e}", written.display()));
    let mut generated = expected.as_str();
    while generated.starts_with("///") || generated.starts_with("#[derive(") {
        generated = generated.split_once('\n').map_or("", |(_, rest)| rest);
    }
    let printed = udk()
        .arg("expand")
        .arg(common::model(name))
        .assert()
        .success();
    assert!(
        printed.get_output().stdout == generated.as_bytes(),
        "udk expand {name} differs from {}",
        written.display()
    );
}

/// `udk simulate` of the model file `name` to `t_end` with the CSV written, and the final
/// (q, v) of that CSV.
fn simulate_final_state<const N: usize>(name: &str, t_end: f64) -> (Vec<f64>, Vec<f64>) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let csv = dir.path().join("trajectory.csv");
    udk()
        .arg("simulate")
        .arg(common::model(name))
        .arg("--t-end")
        .arg(t_end.to_string())
        .arg("--out")
        .arg(&csv)
        .assert()
        .success();
    let text = std::fs::read_to_string(&csv).expect("the CSV is written");
    let last: Vec<f64> = text
        .lines()
        .last()
        .expect("samples")
        .split(',')
        .map(|x| x.parse().expect("a number"))
        .collect();
    // t, q, q̇ or p, three residual and energy columns, then the model's outputs.
    assert!(last.len() >= 2 * N + 4, "{} columns", last.len());
    assert_eq!(last[0], t_end, "the last sample is at t_end");
    (last[1..=N].to_vec(), last[N + 1..=2 * N].to_vec())
}

/// What `udk simulate --t-end t_end` runs: DOP853 at its default tolerances with Baumgarte
/// stabilization, output every (t_end − t0)/1000.
fn cli_options(t0: f64, t_end: f64) -> SimulationOptions {
    SimulationOptions {
        output: OutputTimes::Every((t_end - t0) / 1000.0),
        ..SimulationOptions::default()
    }
}

const SIMULATION_TOL: f64 = 1e-8;

/// The CSV of `udk simulate` of the model file `name` ends where `simulate` (q₀, v₀, t₀,
/// options) of the macro-generated system ends, to 1e-8.
fn simulate_matches<const N: usize>(
    name: &str,
    t_end: f64,
    simulate: impl FnOnce(
        &SVector<f64, N>,
        &SVector<f64, N>,
        f64,
        &SimulationOptions,
    ) -> Result<Trajectory<N>, SimulationError<N>>,
) {
    let (t0, q0, v0) = initial(name);
    let (q0, v0) = (vector::<N>(&q0), vector::<N>(&v0));
    let trajectory =
        simulate(&q0, &v0, t0, &cli_options(t0, t_end)).expect("the macro-based run reaches t_end");
    let last = trajectory.samples.last().expect("samples");
    let (q, v) = simulate_final_state::<N>(name, t_end);
    close(
        &q,
        last.q.as_slice(),
        SIMULATION_TOL,
        &format!("{name}: final q"),
    );
    close(
        &v,
        last.v.as_slice(),
        SIMULATION_TOL,
        &format!("{name}: final q̇ or p"),
    );
}
