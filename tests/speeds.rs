//! Generalized speeds (`speeds(..)`, `kinematics(..)`): a heavy top written with its body
//! rates as speeds against the same top written in q̇, and against sympy.physics.mechanics'
//! KanesMethod (`tests/fixtures/kane_speeds.json`, from `make_kane_speeds.py`); a rolling disk
//! with body rates as speeds keeps A_u u̇ = b_u along a run and rolls as the disk in q̇ does.

use std::path::Path;
use udk::lagrangian;
use udk::nalgebra::{SMatrix, SVector, Vector3};
use udk::runtime::simulate::{simulate_lagrangian, SimulationOptions};

/// A heavy top on a fixed pivot in ZYX angles, in q̇.
#[lagrangian(
    coordinates(psi, theta, phi),
    let frame = rot_z(psi) * rot_y(theta) * rot_x(phi),
    let centre = frame * vec3(0.0, 0.0, l),
    let inertia = mat3(ixx, ixy, ixz, ixy, iyy, iyz, ixz, iyz, izz),
    lagrangian = kinetic_energy(m, inertia, centre, frame) - m * g * centre.z(),
    loads(torque(-c * angular_velocity(frame), frame)),
)]
#[derive(Clone, Copy)]
pub struct Top {
    pub m: f64,
    pub l: f64,
    pub g: f64,
    pub c: f64,
    pub ixx: f64,
    pub iyy: f64,
    pub izz: f64,
    pub ixy: f64,
    pub iyz: f64,
    pub ixz: f64,
}

/// The same top with the body rates (wx, wy, wz) as its speeds.
#[lagrangian(
    coordinates(psi, theta, phi),
    speeds(wx, wy, wz),
    kinematics(
        (wy * phi.sin() + wz * phi.cos()) / theta.cos(),
        wy * phi.cos() - wz * phi.sin(),
        wx + (wy * phi.sin() + wz * phi.cos()) * theta.tan(),
    ),
    let frame = rot_z(psi) * rot_y(theta) * rot_x(phi),
    let centre = frame * vec3(0.0, 0.0, l),
    let inertia = mat3(ixx, ixy, ixz, ixy, iyy, iyz, ixz, iyz, izz),
    lagrangian = kinetic_energy(m, inertia, centre, frame) - m * g * centre.z(),
    loads(torque(-c * angular_velocity(frame), frame)),
    outputs(spin_rate = wz),
)]
#[derive(Clone, Copy)]
pub struct TopRates {
    pub m: f64,
    pub l: f64,
    pub g: f64,
    pub c: f64,
    pub ixx: f64,
    pub iyy: f64,
    pub izz: f64,
    pub ixy: f64,
    pub iyz: f64,
    pub ixz: f64,
}

/// The fixture `tests/fixtures/kane_speeds.json`.
fn fixture() -> serde_json::Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/kane_speeds.json");
    let text = std::fs::read_to_string(path).expect("the fixture is committed");
    serde_json::from_str(&text).expect("the fixture is JSON")
}

/// The JSON array `value` as a 3-vector.
fn vector(value: &serde_json::Value) -> Vector3<f64> {
    let entries: Vec<f64> = (value.as_array().expect("an array").iter())
        .map(|x| x.as_f64().expect("a number"))
        .collect();
    Vector3::from_column_slice(&entries)
}

/// The fixture's parameters, for both forms of the top.
fn tops() -> (Top, TopRates) {
    let reference = fixture();
    let p = |name: &str| reference["parameters"][name].as_f64().unwrap();
    // The two forms have the same parameters.
    macro_rules! top {
        ($form:ident) => {
            $form {
                m: p("m"),
                l: p("l"),
                g: p("g"),
                c: p("c"),
                ixx: p("ixx"),
                iyy: p("iyy"),
                izz: p("izz"),
                ixy: p("ixy"),
                iyz: p("iyz"),
                ixz: p("ixz"),
            }
        };
    }
    (top!(Top), top!(TopRates))
}

/// DOP853 with rtol = atol = `tolerance`, a sample every `dt` s.
fn tight(tolerance: f64, dt: f64) -> SimulationOptions {
    SimulationOptions {
        rtol: tolerance,
        atol: tolerance,
        ..SimulationOptions::every(dt)
    }
}

/// |a − b| ≤ tol·max(1, |b|) entrywise.
fn assert_close<const R: usize, const C: usize>(
    a: &SMatrix<f64, R, C>,
    b: &SMatrix<f64, R, C>,
    tol: f64,
    what: &str,
) {
    for (x, y) in a.iter().zip(b.iter()) {
        assert!(
            (x - y).abs() <= tol * y.abs().max(1.0),
            "{what}: {a} against {b}"
        );
    }
}

#[test]
fn body_rates_match_sympy_kanes_method_to_1e_12() {
    let (_, top) = tops();
    let reference = fixture();
    let states = reference["states"].as_array().unwrap();
    assert_eq!(states.len(), 5);
    assert_eq!(TopRates::VELOCITY_NAMES, ["wx", "wy", "wz"]);
    for state in states {
        let (q, u) = (vector(&state["q"]), vector(&state["u"]));
        let rates = top.coordinate_rates(&q, &u, 0.0);
        assert_close(&rates, &vector(&state["qd"]), 1e-12, "q̇ = N(q) u");
        let ud = top.acceleration(&q, &u, 0.0).unwrap();
        assert_close(&ud, &vector(&state["ud"]), 1e-12, "u̇");
        assert_eq!(top.spin_rate(&q, &u, 0.0), u[2]);
    }
}

#[test]
fn body_rates_give_the_motion_of_the_top_in_q_dot() {
    let (top, rates) = tops();
    let q0 = Vector3::new(0.3, -0.4, 0.2);
    let u0 = Vector3::new(0.5, -1.0, 8.0);
    let qd0 = rates.coordinate_rates(&q0, &u0, 0.0);
    // The speeds' mass matrix is Nᵀ M N and their kinetic energy that of the same motion.
    let n = rates.kinematic_matrix(&q0, 0.0);
    let mass = n.transpose() * top.mass_matrix(&q0, 0.0) * n;
    assert_close(&rates.mass_matrix(&q0, 0.0), &mass, 1e-13, "Nᵀ M N");
    assert!((rates.energy(&q0, &u0, 0.0) - top.energy(&q0, &qd0, 0.0)).abs() < 1e-13);
    let options = tight(1e-13, 0.05);
    let in_q_dot = simulate_lagrangian(&top, &q0, &qd0, 0.0, 1.0, &options).unwrap();
    let in_speeds = simulate_lagrangian(&rates, &q0, &u0, 0.0, 1.0, &options).unwrap();
    assert_eq!(
        in_speeds.state_columns,
        ["psi", "theta", "phi", "wx", "wy", "wz"]
    );
    assert_eq!(in_q_dot.samples.len(), 21);
    assert_eq!(in_speeds.samples.len(), 21);
    let mut largest = 0.0f64;
    for (a, b) in in_q_dot.samples.iter().zip(&in_speeds.samples) {
        assert_eq!(a.t, b.t);
        largest = largest.max((a.q - b.q).amax());
        let qd = rates.coordinate_rates(&b.q, &b.v, b.t);
        largest = largest.max((a.v - qd).amax());
        // Pointwise, the two forms agree to rounding: q̈ = N u̇ + (d/dt N) u.
        let ud = rates
            .acceleration(&a.q, &rates_at(&rates, &a.q, &a.v), a.t)
            .unwrap();
        let qdd = top.acceleration(&a.q, &a.v, a.t).unwrap();
        let h = 1e-6;
        let ahead = a.q + a.v * h;
        let behind = a.q - a.v * h;
        let u = rates_at(&rates, &a.q, &a.v);
        let n = rates.kinematic_matrix(&a.q, a.t);
        let n_rate = (rates.kinematic_matrix(&ahead, a.t) - rates.kinematic_matrix(&behind, a.t))
            / (2.0 * h);
        assert_close(&(n * ud + n_rate * u), &qdd, 1e-7, "q̈ = N u̇ + Ṅ u");
    }
    assert!(largest < 1e-12, "the two forms differ by {largest:e}");
}

/// The speeds u = N(q)⁻¹ q̇ of the top at (q, q̇).
fn rates_at(top: &TopRates, q: &Vector3<f64>, qd: &Vector3<f64>) -> Vector3<f64> {
    top.kinematic_matrix(q, 0.0)
        .lu()
        .solve(qd)
        .expect("N is invertible away from theta = ±π/2")
}

/// A thin disk rolling without slip, in q̇.
#[allow(dead_code)]
#[path = "../examples/rolling_disk.rs"]
mod rolling_disk;
use rolling_disk::RollingDisk;

/// The same disk with the contact point's velocity and the disk's angular velocity in the
/// leaned frame as speeds; the rolling constraints written in the speeds and `dot(spin)`
/// (the material point at the contact moves at (vx, vy, 0) − r·spin'·(frame x axis)).
#[lagrangian(
    coordinates(x, y, yaw, lean, spin),
    speeds(vx, vy, wx, wy, wz),
    kinematics(vx, vy, wz / lean.cos(), wx, wy - wz * lean.tan()),
    let frame = rot_z(yaw) * rot_x(lean),
    let disk = frame * rot_y(spin),
    let contact = vec3(x, y, 0.0),
    let centre = contact + r * frame * vec3(0.0, 0.0, 1.0),
    let inertia = m * r.powi(2) * diag(0.25, 0.5, 0.25),
    let slip = vec3(vx, vy, 0.0) - r * dot(spin) * frame * vec3(1.0, 0.0, 0.0),
    lagrangian = kinetic_energy(m, inertia, centre, disk) - m * g * centre.z(),
    nonholonomic(slip.x(), slip.y()),
)]
pub struct DiskRates {
    pub m: f64,
    pub r: f64,
    pub g: f64,
}

#[test]
fn a_disk_rolling_in_speeds_keeps_a_u_u_dot_equal_to_b_u() {
    let (m, r, g) = (2.0, 0.5, 9.81);
    let (disk, rates) = (RollingDisk { m, r, g }, DiskRates { m, r, g });
    // Leaned and turning; the spin rate and the contact velocity roll without slip.
    let q0 = SVector::<f64, 5>::from([0.0, 0.0, 0.0, 0.3, 0.0]);
    let (yaw_rate, lean_rate, spin) = (1.2, 0.4, -3.0);
    let mut qd0 = SVector::<f64, 5>::from([0.0, 0.0, yaw_rate, lean_rate, spin]);
    let slip = disk.velocity_residual(&q0, &qd0, 0.0);
    let a = disk.constraint_matrix(&q0, &qd0, 0.0);
    let xy = a.fixed_columns::<2>(0).lu().solve(&(-slip)).unwrap();
    qd0[0] += xy[0];
    qd0[1] += xy[1];
    assert!(disk.velocity_residual(&q0, &qd0, 0.0).norm() < 1e-14);
    let u0 = rates.kinematic_matrix(&q0, 0.0).lu().solve(&qd0).unwrap();
    assert!(rates.velocity_residual(&q0, &u0, 0.0).norm() < 1e-14);
    let options = tight(1e-12, 0.1);
    let in_q_dot = simulate_lagrangian(&disk, &q0, &qd0, 0.0, 2.0, &options).unwrap();
    let in_speeds = simulate_lagrangian(&rates, &q0, &u0, 0.0, 2.0, &options).unwrap();
    assert_eq!(in_speeds.samples.len(), 21);
    for (a, b) in in_q_dot.samples.iter().zip(&in_speeds.samples) {
        let terms = rates.terms(&b.q, &b.v, b.t);
        let ud = rates.acceleration(&b.q, &b.v, b.t).unwrap();
        let residual = terms.constraint_matrix * ud - terms.constraint_rhs;
        assert!(
            residual.amax() < 1e-12 * terms.constraint_rhs.amax().max(1.0),
            "A_u u̇ − b_u = {residual}"
        );
        assert!(rates.velocity_residual(&b.q, &b.v, b.t).amax() < 1e-9);
        assert!((a.q - b.q).amax() < 1e-8, "{} against {}", a.q, b.q);
    }
}

/// The top with body rates as a model file, as `udk::Model` (and the `udk` binary) reads it.
const TOP_FILE: &str = r#"
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
    { name = "inertia", value = "mat3(ixx, ixy, ixz, ixy, iyy, iyz, ixz, iyz, izz)" },
]
lagrangian = "kinetic_energy(m, inertia, centre, frame) - m * g * centre.z()"
loads = ["torque(-c * angular_velocity(frame), frame)"]
parameters = [
    { name = "m" }, { name = "l" }, { name = "g" }, { name = "c" }, { name = "ixx" },
    { name = "iyy" }, { name = "izz" }, { name = "ixy" }, { name = "iyz" }, { name = "ixz" },
]
"#;

#[test]
fn a_model_file_with_speeds_simulates_as_the_macro_does() {
    let (_, top) = tops();
    let spec: udk::ModelSpec = toml::from_str(TOP_FILE).unwrap();
    let mut model = udk::Model::from_spec(spec, Path::new(".")).unwrap();
    let reference = fixture();
    for name in ["m", "l", "g", "c", "ixx", "iyy", "izz", "ixy", "iyz", "ixz"] {
        let value = reference["parameters"][name].as_f64().unwrap();
        model.set_parameter(name, value).unwrap();
    }
    assert_eq!(model.speeds(), ["wx", "wy", "wz"]);
    for state in reference["states"].as_array().unwrap() {
        let (q, u) = (vector(&state["q"]), vector(&state["u"]));
        let qd = model
            .coordinate_rates(&dvector(&q), &dvector(&u), 0.0)
            .unwrap();
        let n = model.kinematic_matrix(&dvector(&q), 0.0).unwrap().unwrap();
        assert_close(
            &Vector3::from_column_slice(qd.as_slice()),
            &vector(&state["qd"]),
            1e-12,
            "q̇",
        );
        let expected = top.kinematic_matrix(&q, 0.0);
        assert!(
            (n - udk::nalgebra::DMatrix::from_column_slice(3, 3, expected.as_slice())).amax()
                < 1e-14
        );
        let ud = model.acceleration(&dvector(&q), &dvector(&u), 0.0).unwrap();
        assert_close(
            &Vector3::from_column_slice(ud.as_slice()),
            &vector(&state["ud"]),
            1e-12,
            "u̇",
        );
    }
    let (q0, u0) = (Vector3::new(0.0, 0.1, 0.05), Vector3::new(0.0, 0.0, 20.0));
    let options = tight(1e-12, 0.1);
    let motion = model
        .simulate(&dvector(&q0), &dvector(&u0), 0.0, 1.0, &options)
        .unwrap();
    let run = simulate_lagrangian(&top, &q0, &u0, 0.0, 1.0, &options).unwrap();
    assert_eq!(motion.q.ncols(), run.samples.len());
    for (k, sample) in run.samples.iter().enumerate() {
        let q = Vector3::from_column_slice(motion.q.column(k).as_slice());
        assert_close(&q, &sample.q, 1e-9, "q");
    }
}

/// A 3-vector as a dynamic one.
fn dvector(x: &Vector3<f64>) -> udk::nalgebra::DVector<f64> {
    udk::nalgebra::DVector::from_column_slice(x.as_slice())
}

#[allow(dead_code)]
#[path = "../examples/quadrotor.rs"]
mod quadrotor;

#[test]
fn the_quadrotor_hovers_and_turns_at_the_expected_yaw_acceleration() {
    use quadrotor::Quadrotor;
    use udk::runtime::ControlledLagrangianSystem;
    let drone = Quadrotor::EXAMPLE;
    assert_eq!(
        Quadrotor::VELOCITY_NAMES,
        ["vx", "vy", "vz", "wx", "wy", "wz"]
    );
    // Four thrusts of m g / 4 hold it still, at rest or yawed.
    let (u0, options) = (SVector::<f64, 6>::zeros(), tight(1e-12, 0.1));
    let q0 = SVector::<f64, 6>::from([0.5, -0.2, 2.0, 0.7, 0.0, 0.0]);
    let still = drone
        .acceleration(&q0, &u0, &drone.thrusts(0.0), 0.0)
        .unwrap();
    assert!(still.amax() < 1e-14, "{still}");
    let hover = drone.closed_loop(|_, _, _| drone.thrusts(0.0));
    let run = simulate_lagrangian(&hover, &q0, &u0, 0.0, 2.0, &options).unwrap();
    for sample in &run.samples {
        assert!((sample.q - q0).amax() < 1e-12 && sample.v.amax() < 1e-12);
    }
    // Shifting δ from rotors 2, 4 to 1, 3: ẇz = 4 κ δ / I_z, nothing else moves.
    let shift = 0.5;
    let alpha = 4.0 * drone.kappa * shift / drone.iz;
    let level = SVector::<f64, 6>::from([0.0, 0.0, 2.0, 0.0, 0.0, 0.0]);
    let ud = drone
        .acceleration(&level, &u0, &drone.thrusts(shift), 0.0)
        .unwrap();
    let expected = SVector::<f64, 6>::from([0.0, 0.0, 0.0, 0.0, 0.0, alpha]);
    assert!((ud - expected).amax() < 1e-13, "{ud}");
    let turn = drone.closed_loop(|_, _, _| drone.thrusts(shift));
    let run = simulate_lagrangian(&turn, &level, &u0, 0.0, 1.0, &options).unwrap();
    assert_eq!(run.samples.len(), 11);
    for sample in &run.samples {
        let t = sample.t;
        assert!(
            (sample.q[3] - 0.5 * alpha * t * t).abs() < 1e-10,
            "yaw at {t}"
        );
        assert!((sample.v[5] - alpha * t).abs() < 1e-10, "yaw rate at {t}");
        assert!((sample.q[2] - 2.0).abs() < 1e-12, "height at {t}");
        let level = [0, 1, 4, 5].map(|i| sample.q[i].abs()).into_iter();
        assert!(
            level.fold(0.0, f64::max) < 1e-12,
            "drift at {t}: {}",
            sample.q
        );
    }
}
