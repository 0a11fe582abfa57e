//! `#[lagrangian(urdf = "..", floating_base = true)]`: robots on a free-flying base in
//! Pinocchio's layout. Solo12's generated functions against Pinocchio 4.1 with
//! `JointModelFreeFlyer` (tests/fixtures/free_flyer.json; the DAG itself is checked on more
//! robots in udk-symbolic/tests/free_flyer.rs), then physics through the simulator: total
//! spatial momentum conserved in zero gravity under joint torques, the centre of mass falling
//! at exactly g, Euler's equations for a free body and the precession of an axisymmetric one,
//! the quaternion kept of unit norm; and the refusals of bad input.

use udk::lagrangian;
use udk::nalgebra::{SVector, Vector3};
use udk::runtime::free_flyer::{momentum, FreeFlyerError};
use udk::runtime::simulate::{simulate_free_flyer, Method, SimulationOptions};

mod fixture_support;
use fixture_support::{assert_close, numbers, JointOrder};

/// Solo12 on a free flyer, gravity (0, 0, −9.81) m/s².
#[lagrangian(
    urdf = "robots/example-robot-data/solo_description/robots/solo12.urdf",
    floating_base = true
)]
struct Solo12;

/// Solo12 on a free flyer in zero gravity.
#[lagrangian(
    urdf = "robots/example-robot-data/solo_description/robots/solo12.urdf",
    floating_base = true,
    gravity(0.0, 0.0, 0.0)
)]
struct FloatingSolo12;

/// The Hector quadrotor (one link, I₁ = I₂): a free axisymmetric body in zero gravity.
#[lagrangian(
    urdf = "robots/example-robot-data/hector_description/robots/quadrotor_base.urdf",
    floating_base = true,
    gravity(0.0, 0.0, 0.0)
)]
struct Hector;

/// One body with a full inertia tensor, in zero gravity.
#[lagrangian(
    urdf = "tests/urdf/free_body.urdf",
    floating_base = true,
    gravity(0.0, 0.0, 0.0)
)]
struct FreeBody;

type Q = SVector<f64, 19>;
type V = SVector<f64, 18>;

fn fixture() -> serde_json::Value {
    serde_json::from_str(include_str!("fixtures/free_flyer.json")).expect("JSON")
}

#[test]
fn solo12_layout_is_pinocchios() {
    assert_eq!((Solo12::NQ, Solo12::NV, Solo12::NUM_JOINTS), (19, 18, 12));
    assert_eq!(
        Solo12::COORDINATE_NAMES[..7],
        ["base_x", "base_y", "base_z", "base_qx", "base_qy", "base_qz", "base_qw"]
    );
    assert_eq!(
        Solo12::VELOCITY_NAMES[..6],
        ["base_vx", "base_vy", "base_vz", "base_wx", "base_wy", "base_wz"]
    );
    assert_eq!(Solo12::COORDINATE_NAMES[7..], Solo12::VELOCITY_NAMES[6..]);
}

#[test]
fn solo12_generated_functions_match_pinocchio() {
    let fixture = fixture();
    let entry = &fixture["robots"]["solo12"];
    let dt = fixture["dt"].as_f64().expect("dt");
    let order = JointOrder::new(&Solo12::COORDINATE_NAMES[7..], &entry["joints"]);
    for state in entry["states"].as_array().expect("states") {
        let q = Q::from_column_slice(&order.reorder(&numbers(&state["q"]), 7));
        let v = V::from_column_slice(&order.reorder(&numbers(&state["v"]), 6));
        let a = V::from_column_slice(&order.reorder(&numbers(&state["a"]), 6));
        let tau = SVector::<f64, 12>::from_column_slice(&order.reorder(&numbers(&state["tau"]), 0));
        let aba = Solo12.acceleration(&q, &v, &tau, 0.0).expect("aba");
        let expected = order.reorder(&numbers(&state["aba"]), 6);
        assert_close(aba.as_slice(), &expected, 1e-10, "aba");
        let rnea = Solo12.inverse_dynamics(&q, &v, &a, 0.0).expect("rnea");
        let expected = order.reorder(&numbers(&state["rnea"]), 6);
        assert_close(rnea.as_slice(), &expected, 1e-10, "rnea");
        let mass = Solo12.mass_matrix(&q).expect("crba");
        let got: Vec<f64> = (0..18)
            .flat_map(|r| (0..18).map(move |c| (r, c)))
            .map(|(r, c)| mass[(r, c)])
            .collect();
        assert_close(&got, &order.matrix(&state["crba"]), 1e-10, "crba");
        let next = Solo12::integrate(&q, &v, dt).expect("integrate");
        assert_close(
            next.as_slice(),
            &order.reorder(&numbers(&state["integrate"]), 7),
            1e-12,
            "integrate",
        );
        // Along the free motion the base needs no wrench, the joints their efforts.
        let wrench = Solo12.inverse_dynamics(&q, &v, &aba, 0.0).expect("rnea");
        let mut expected = vec![0.0; 6];
        expected.extend(tau.iter());
        assert_close(wrench.as_slice(), &expected, 1e-10, "rnea(aba)");
    }
}

/// A Solo12 state: the base tilted, the legs bent, everything moving.
fn solo_state() -> (Q, V) {
    let mut q = Q::zeros();
    let turn = udk::nalgebra::UnitQuaternion::from_euler_angles(0.3, -0.2, 0.7);
    let c = turn.quaternion().coords;
    q.as_mut_slice()[..7].copy_from_slice(&[0.1, -0.2, 0.4, c[0], c[1], c[2], c[3]]);
    for j in 0..12 {
        q[7 + j] = 0.4 * ((j as f64) * 1.3).sin();
    }
    let v = V::from_iterator((0..18).map(|k| 0.8 * ((k as f64) * 0.7 + 0.2).cos()));
    (q, v)
}

fn tight() -> SimulationOptions {
    SimulationOptions {
        rtol: 1e-12,
        atol: 1e-12,
        method: Method::Dop853,
        ..SimulationOptions::every(0.1)
    }
}

#[test]
fn zero_gravity_conserves_spatial_momentum_under_joint_torques() {
    let (q0, v0) = solo_state();
    let efforts = |t: f64, _: &Q, _: &[f64], out: &mut [f64]| {
        for (j, tau) in out.iter_mut().enumerate() {
            *tau = 0.5 * (3.0 * t + j as f64).sin();
        }
    };
    let run = simulate_free_flyer(
        &FloatingSolo12,
        &efforts,
        &q0,
        v0.as_slice(),
        0.0,
        1.0,
        &tight(),
    )
    .expect("a run");
    let world = |q: &Q, v: &[f64]| {
        let mut mass = vec![0.0; 18 * 18];
        udk::runtime::free_flyer::FreeFlyerSystem::mass_matrix_into(&FloatingSolo12, q, &mut mass)
            .expect("M");
        momentum(q.as_slice(), v, &mass).expect("momentum")
    };
    let [p0, l0] = world(&q0, v0.as_slice());
    let scale = p0.norm().max(l0.norm());
    assert!(scale > 0.1, "a state that moves: {scale}");
    for sample in &run.samples {
        let [p, l] = world(&sample.q, &sample.v.as_slice()[..18]);
        let drift = (p - p0).norm().max((l - l0).norm());
        assert!(
            drift <= 1e-10 * scale,
            "t = {}: momentum drift {drift:e}",
            sample.t
        );
        assert!(sample.position_residual.abs() <= 1e-14, "|quaternion| − 1");
    }
    // The joints moved: the torques did work.
    let last = run.samples.last().expect("samples");
    assert!((last.q - q0).rows(7, 12).norm() > 0.05);
}

#[test]
fn the_centre_of_mass_falls_at_exactly_g() {
    let (q0, v0) = solo_state();
    let efforts = |t: f64, _: &Q, _: &[f64], out: &mut [f64]| {
        for (j, tau) in out.iter_mut().enumerate() {
            *tau = 0.3 * (2.0 * t - j as f64).cos();
        }
    };
    let run = simulate_free_flyer(&Solo12, &efforts, &q0, v0.as_slice(), 0.0, 0.5, &tight())
        .expect("a run");
    let linear = |q: &Q, v: &[f64]| {
        let mut mass = vec![0.0; 18 * 18];
        udk::runtime::free_flyer::FreeFlyerSystem::mass_matrix_into(&Solo12, q, &mut mass)
            .expect("M");
        (
            momentum(q.as_slice(), v, &mass).expect("momentum")[0],
            mass[0],
        )
    };
    let (p0, m) = linear(&q0, v0.as_slice());
    let g = Vector3::new(0.0, 0.0, -9.81);
    for sample in &run.samples {
        let (p, _) = linear(&sample.q, &sample.v.as_slice()[..18]);
        // m ċ = p(t) = p(0) + m g t.
        let expected = p0 + g * (m * sample.t);
        assert!(
            (p - expected).norm() <= 1e-10 * expected.norm().max(1.0),
            "t = {}: {p} vs {expected}",
            sample.t
        );
    }
}

#[test]
fn a_free_body_follows_eulers_equations() {
    let inertia =
        udk::nalgebra::Matrix3::new(0.30, 0.02, -0.04, 0.02, 0.50, 0.03, -0.04, 0.03, 0.70);
    let q = SVector::<f64, 7>::from_column_slice(&[0.3, 0.1, -0.2, 0.1, 0.5, -0.3, 0.8]);
    let v = SVector::<f64, 6>::from_column_slice(&[0.4, -1.1, 0.6, 1.7, -0.9, 2.3]);
    let a = FreeBody
        .acceleration(&q, &v, &SVector::<f64, 0>::zeros(), 0.0)
        .expect("v̇");
    let (velocity, omega) = (v.fixed_rows::<3>(0), v.fixed_rows::<3>(3));
    // I ω̇ = −ω × I ω; the origin's velocity in the body frame turns: v̇ = −ω × v.
    let omega_dot = inertia
        .cholesky()
        .expect("I positive definite")
        .solve(&(-omega.cross(&(inertia * omega))));
    let velocity_dot = -omega.cross(&velocity);
    assert_close(
        a.fixed_rows::<3>(3).as_slice(),
        omega_dot.as_slice(),
        1e-13,
        "ω̇",
    );
    assert_close(
        a.fixed_rows::<3>(0).as_slice(),
        velocity_dot.as_slice(),
        1e-13,
        "v̇",
    );
}

#[test]
fn an_axisymmetric_body_precesses_at_the_rate_of_eulers_equations() {
    // Hector: I₁ = I₂ = 0.01152, I₃ = 0.0218 kg·m², the centre of mass at the origin.
    let (i1, i3) = (0.01152, 0.0218);
    let (w1, w3) = (0.7, 5.0);
    let rate = (i3 - i1) * w3 / i1;
    let q0 = SVector::<f64, 7>::from_column_slice(&[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]);
    let v0 = [0.0, 0.0, 0.0, w1, 0.0, w3];
    let none = |_: f64, _: &SVector<f64, 7>, _: &[f64], _: &mut [f64]| {};
    let period = 2.0 * std::f64::consts::PI / rate;
    let run =
        simulate_free_flyer(&Hector, &none, &q0, &v0, 0.0, 3.0 * period, &tight()).expect("a run");
    for sample in &run.samples {
        let t = sample.t;
        // ω₁ + i ω₂ = w₁ e^{iΩt}, ω₃ constant.
        let expected = [w1 * (rate * t).cos(), w1 * (rate * t).sin(), w3];
        assert_close(&sample.v.as_slice()[3..6], &expected, 1e-10, "ω(t)");
        assert!(sample.position_residual.abs() <= 1e-14, "|quaternion| − 1");
    }
}

#[test]
fn bad_quaternions_are_refused_and_a_non_unit_one_stands_for_its_direction() {
    let (q, v) = solo_state();
    let tau = SVector::<f64, 12>::zeros();
    let mut zero = q;
    zero.as_mut_slice()[3..7].copy_from_slice(&[0.0; 4]);
    assert_eq!(
        Solo12.acceleration(&zero, &v, &tau, 0.0),
        Err(FreeFlyerError::ZeroQuaternion)
    );
    assert_eq!(
        Solo12.mass_matrix(&zero),
        Err(FreeFlyerError::ZeroQuaternion)
    );
    assert_eq!(
        Solo12::integrate(&zero, &v, 0.1),
        Err(FreeFlyerError::ZeroQuaternion)
    );
    let mut nan = q;
    nan[4] = f64::NAN;
    assert_eq!(
        Solo12.acceleration(&nan, &v, &tau, 0.0),
        Err(FreeFlyerError::NotFinite {
            argument: "q",
            index: 4
        })
    );
    let mut infinite = v;
    infinite[9] = f64::INFINITY;
    assert_eq!(
        Solo12.inverse_dynamics(&q, &infinite, &v, 0.0),
        Err(FreeFlyerError::NotFinite {
            argument: "v",
            index: 9
        })
    );
    // Three times the quaternion: the same rotation, the same dynamics.
    let mut scaled = q;
    scaled.fixed_rows_mut::<4>(3).scale_mut(3.0);
    let a = Solo12.acceleration(&q, &v, &tau, 0.0).expect("v̇");
    let b = Solo12.acceleration(&scaled, &v, &tau, 0.0).expect("v̇");
    assert_close(b.as_slice(), a.as_slice(), 1e-14, "v̇ of 3q");
    let next = Solo12::integrate(&scaled, &v, 0.0).expect("q");
    assert!((next.fixed_rows::<4>(3).norm() - 1.0).abs() < 1e-15);
    // The simulator refuses a non-unit start rather than guess.
    let none = |_: f64, _: &Q, _: &[f64], _: &mut [f64]| {};
    let refused = simulate_free_flyer(&Solo12, &none, &scaled, v.as_slice(), 0.0, 0.1, &tight());
    assert!(matches!(
        refused,
        Err(udk::runtime::simulate::SimulationError::InconsistentStart { .. })
    ));
}

/// `udk::model::FreeFlyerModel` (the tape, at run time) on A1 and on Talos reduced (32
/// joints, from `UDK_EXAMPLE_ROBOT_DATA`; skipped with a printed reason when unset) against
/// the Pinocchio fixture.
#[test]
fn the_run_time_model_matches_pinocchio() {
    use udk::model::FreeFlyerModel;
    let fixture = fixture();
    let robots = [
        (
            "a1",
            Some("robots/example-robot-data/a1_description/urdf/a1.urdf".into()),
        ),
        (
            "talos_reduced",
            std::env::var_os("UDK_EXAMPLE_ROBOT_DATA").map(|root| {
                std::path::PathBuf::from(root).join("talos_data/robots/talos_reduced.urdf")
            }),
        ),
    ];
    for (key, path) in robots {
        let Some(path) = path else {
            println!("skipped {key}: UDK_EXAMPLE_ROBOT_DATA is not set (its URDF is not vendored)");
            continue;
        };
        let model = FreeFlyerModel::from_urdf(&path, [0.0, 0.0, -9.81]).expect("a model");
        let entry = &fixture["robots"][key];
        let order = JointOrder::new(&model.coordinate_names()[7..], &entry["joints"]);
        for state in entry["states"].as_array().expect("states") {
            let q = order.reorder(&numbers(&state["q"]), 7);
            let v = order.reorder(&numbers(&state["v"]), 6);
            let a = order.reorder(&numbers(&state["a"]), 6);
            let tau = order.reorder(&numbers(&state["tau"]), 0);
            let aba = model.acceleration(&q, &v, &tau).expect("aba");
            assert_close(&aba, &order.reorder(&numbers(&state["aba"]), 6), 1e-10, key);
            let rnea = model.inverse_dynamics(&q, &v, &a).expect("rnea");
            assert_close(
                &rnea,
                &order.reorder(&numbers(&state["rnea"]), 6),
                1e-10,
                key,
            );
            let expected = order.matrix(&state["crba"]);
            assert_close(&model.mass_matrix(&q).expect("crba"), &expected, 1e-10, key);
            let next = model.integrate(&q, &v, fixture["dt"].as_f64().expect("dt"));
            assert_close(
                &next.expect("integrate"),
                &order.reorder(&numbers(&state["integrate"]), 7),
                1e-12,
                key,
            );
        }
        let mut zero = numbers(&entry["states"][0]["q"]);
        zero[3..7].copy_from_slice(&[0.0; 4]);
        assert_eq!(
            model.mass_matrix(&zero),
            Err(udk::model::FreeFlyerModelError::State(
                FreeFlyerError::ZeroQuaternion
            ))
        );
    }
}

/// A massless base carrying one body on one joint: M is singular.
#[lagrangian(urdf = "tests/urdf/massless_base.urdf", floating_base = true)]
struct MasslessBase;

#[test]
fn a_singular_mass_matrix_is_an_error_not_nan() {
    let q = SVector::<f64, 8>::from_column_slice(&[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.3]);
    let v = SVector::<f64, 7>::from_column_slice(&[0.1, 0.0, 0.0, 0.0, 0.2, 0.0, 0.5]);
    let m = MasslessBase.mass_matrix(&q).expect("M");
    assert!(
        m.determinant().abs() < 1e-12 * m.norm().powi(7),
        "M is singular"
    );
    assert_eq!(
        MasslessBase.acceleration(&q, &v, &SVector::<f64, 1>::new(0.1), 0.0),
        Err(FreeFlyerError::NotDetermined)
    );
}

/// A satellite bus with a reaction wheel, in zero gravity.
#[lagrangian(
    urdf = "tests/urdf/satellite.urdf",
    floating_base = true,
    gravity(0.0, 0.0, 0.0)
)]
struct Satellite;

#[test]
fn a_reaction_wheel_turns_the_satellite_and_conserves_its_angular_momentum() {
    let q0 = SVector::<f64, 8>::from_column_slice(&[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
    let v0 = [0.01, -0.02, 0.005, 0.02, -0.01, 0.03, 5.0];
    let motor = |t: f64, _: &SVector<f64, 8>, _: &[f64], out: &mut [f64]| {
        out[0] = 0.05 * (0.2 * t).sin();
    };
    let options = SimulationOptions {
        rtol: 1e-13,
        atol: 1e-13,
        method: Method::Dop853,
        ..SimulationOptions::every(10.0)
    };
    let run =
        simulate_free_flyer(&Satellite, &motor, &q0, &v0, 0.0, 100.0, &options).expect("a run");
    let world = |q: &SVector<f64, 8>, v: &[f64]| {
        let mut mass = vec![0.0; 49];
        udk::runtime::free_flyer::FreeFlyerSystem::mass_matrix_into(&Satellite, q, &mut mass)
            .expect("M");
        momentum(q.as_slice(), v, &mass).expect("momentum")
    };
    let [p0, l0] = world(&q0, &v0);
    let mut largest = 0.0_f64;
    for sample in &run.samples {
        let [p, l] = world(&sample.q, &sample.v.as_slice()[..7]);
        largest = largest
            .max((p - p0).norm() / p0.norm())
            .max((l - l0).norm() / l0.norm());
    }
    assert!(
        largest <= 1e-12,
        "momentum drift {largest:e} relative over 100 s"
    );
    // The wheel's torque turned the bus: its attitude changed.
    let last = run.samples.last().expect("samples");
    assert!((last.q.fixed_rows::<4>(3) - q0.fixed_rows::<4>(3)).norm() > 0.1);
}
