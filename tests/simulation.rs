//! End-to-end runs of paper systems through `udk::runtime::simulate`, against closed forms and
//! conservation laws.

#[path = "simulation/models.rs"]
mod models;

use models::*;
use udk::nalgebra::{Vector2, Vector3, Vector4};
use udk::runtime::simulate::{
    simulate_hamiltonian, simulate_lagrangian, Method, OutputError, OutputTimes, Projection,
    SimulationError, SimulationOptions, StateKind, Trajectory,
};
use udk::runtime::ControlledLagrangianSystem;
use udk::Error;

fn options_at(rtol: f64, output: OutputTimes) -> SimulationOptions {
    SimulationOptions {
        method: Method::Dop853,
        rtol,
        atol: 1e-12,
        output,
        ..SimulationOptions::default()
    }
}

#[test]
fn spherical_pendulum_keeps_its_constraint_and_energy_for_100_s() {
    let (pendulum, q0, qd0) = pendulum_start();
    let run = |options: &SimulationOptions| {
        simulate_lagrangian(&pendulum, &q0, &qd0, 0.0, 100.0, options).unwrap()
    };
    let options = options_at(1e-10, OutputTimes::Steps);
    let stabilized = run(&options);
    let free = run(&SimulationOptions {
        stabilization: None,
        ..options.clone()
    });
    eprintln!(
        "spherical pendulum, 100 s, DOP853 rtol 1e-10: max |f| = {:.3e} with Baumgarte, {:.3e} \
         without; energy drift {:.3e} with, {:.3e} without; {} steps",
        stabilized.max_position_residual(),
        free.max_position_residual(),
        stabilized.energy_drift(),
        free.energy_drift(),
        stabilized.stats.accepted_steps
    );
    assert_eq!(stabilized.final_time(), Some(100.0));
    assert!(stabilized.max_position_residual() < 1e-9);
    assert!(stabilized.energy_drift() < 1e-8);
    assert!(free.max_position_residual().is_finite());

    // Projection at the output times removes what drift there is without stabilization.
    let projected = run(&SimulationOptions {
        stabilization: None,
        projection: Some(Projection::default()),
        output: OutputTimes::Every(1.0),
        ..options
    });
    assert_eq!(projected.samples.len(), 101);
    assert!(projected.max_position_residual() < 1e-12);
    assert!(projected.max_velocity_residual() < 1e-12);
}

#[test]
fn spherical_pendulum_lagrangian_and_hamiltonian_runs_agree() {
    let (pendulum, q0, qd0) = pendulum_start();
    let hamiltonian = SphericalPendulum {
        m: pendulum.m,
        g: pendulum.g,
    };
    // Both as derived, without Baumgarte: off the manifold the stabilizations differ (the
    // Hamiltonian form constrains only φ = qᵀp, the Lagrangian one f = |q|² − l² too), and
    // the comparison is of the two derivations, not of two drift controls.
    let options = SimulationOptions {
        stabilization: None,
        ..options_at(1e-10, OutputTimes::Every(0.5))
    };
    let lagrangian = simulate_lagrangian(&pendulum, &q0, &qd0, 0.0, 100.0, &options).unwrap();
    let p0 = pendulum.m * qd0;
    let hamiltonian = simulate_hamiltonian(&hamiltonian, &q0, &p0, 0.0, 100.0, &options).unwrap();
    assert_eq!(hamiltonian.kind, StateKind::Momenta);
    assert_eq!(lagrangian.samples.len(), 201);
    assert_eq!(hamiltonian.samples.len(), 201);
    let mut worst: f64 = 0.0;
    for (l, h) in lagrangian.samples.iter().zip(&hamiltonian.samples) {
        assert_eq!(l.t, h.t);
        worst = worst
            .max((l.q - h.q).amax())
            .max((pendulum.m * l.v - h.v).amax());
    }
    eprintln!(
        "Lagrangian vs Hamiltonian spherical pendulum over 100 s: max difference {worst:.3e}"
    );
    assert!(worst < 1e-8, "{worst:e}");
}

#[test]
fn wheel_on_incline_follows_eq_5_17_with_every_method() {
    let wheel = WheelOnIncline::EXAMPLE;
    let d = wheel.m * wheel.r.powi(2) + wheel.ic;
    let theta_dd = wheel.m * wheel.g * wheel.r * wheel.alpha.sin() / d;
    let (theta0, theta_d0) = (0.2, 0.5);
    let slope = wheel.r * wheel.alpha.sin();
    let q0 = Vector2::new(theta0, slope * theta0);
    let qd0 = Vector2::new(theta_d0, slope * theta_d0);
    let methods = [
        Method::Dop853,
        Method::Dopri5,
        Method::Rk4 { step: 0.01 },
        Method::Radau5,
        Method::Bdf,
    ];
    for method in methods {
        let options = SimulationOptions {
            method,
            output: OutputTimes::Every(0.1),
            ..SimulationOptions::default()
        };
        let run = simulate_lagrangian(&wheel, &q0, &qd0, 0.0, 5.0, &options).unwrap();
        assert_eq!(run.samples.len(), 51);
        assert_eq!(run.final_time(), Some(5.0));
        let mut worst: f64 = 0.0;
        for s in &run.samples {
            let theta = theta0 + theta_d0 * s.t + 0.5 * theta_dd * s.t * s.t;
            worst = worst
                .max((s.q[0] - theta).abs())
                .max((s.q[1] - slope * theta).abs());
        }
        eprintln!("wheel on incline, {method:?}: max |error| of θ, y = {worst:.3e}");
        // BDF (order ≤ 5, restarted at order 1 at every output time) has a global error of
        // 6e-7 here at rtol 1e-10; the other methods stay below 1e-12.
        let bound = if method == Method::Bdf { 1e-6 } else { 1e-9 };
        assert!(worst < bound, "{method:?}: {worst:e}");
    }
}

/// The flexible-joint arm with stiff joints (k = 10⁶ N m/rad, a 1000 rad/s joint mode) from
/// its slow start, for 0.2 s.
fn stiff_arm_run(method: Method, rtol: f64) -> Trajectory<4> {
    let arm = FlexibleJointManipulator {
        k1: 1e6,
        k2: 1e6,
        ..FlexibleJointManipulator::EXAMPLE
    };
    let (q0, qd0) = arm.slow_start([0.2, 0.3], [1.0, -1.0]).unwrap();
    let options = SimulationOptions {
        method,
        rtol,
        atol: rtol * 1e-2,
        output: OutputTimes::Every(0.1),
        ..SimulationOptions::default()
    };
    simulate_lagrangian(&arm, &q0, &qd0, 0.0, 0.2, &options).unwrap()
}

#[test]
fn implicit_methods_follow_a_stiff_arm_and_count_their_jacobians() {
    let reference = stiff_arm_run(Method::Dop853, 1e-12);
    for method in [Method::Radau5, Method::Bdf] {
        let run = stiff_arm_run(method, 1e-8);
        assert_eq!(run.samples.len(), 3);
        let error = (run.samples.iter().zip(&reference.samples))
            .map(|(a, b)| (a.q - b.q).amax().max((a.v - b.v).amax()))
            .fold(0.0f64, f64::max);
        eprintln!(
            "stiff arm, {method:?} rtol 1e-8: {:?}, max error {error:.2e}",
            run.stats
        );
        assert!(error < 1e-5, "{method:?}: {error:e}");
        assert!(run.stats.jacobian_evaluations > 0);
        assert!(run.stats.finite_difference_jacobians <= run.stats.jacobian_evaluations);
        assert!(run.max_velocity_residual() < 1e-8);
    }
    assert_eq!(reference.stats.jacobian_evaluations, 0);
}

#[test]
fn implicit_methods_fall_back_to_finite_differences_for_a_closed_loop() {
    // A closed loop has no Jacobian: every Newton matrix comes from forward differences.
    let cart = CartDoublePendulum::EXAMPLE;
    let controlled = cart.closed_loop(|_, q: &Vector3<f64>, qd: &Vector3<f64>| {
        udk::nalgebra::Vector1::new(-8.0 * q[0] - 4.0 * qd[0])
    });
    let (q0, qd0) = (Vector3::new(0.0, 0.1, -0.1), Vector3::zeros());
    let options = SimulationOptions {
        method: Method::Radau5,
        output: OutputTimes::Every(0.5),
        ..SimulationOptions::default()
    };
    let run = simulate_lagrangian(&controlled, &q0, &qd0, 0.0, 1.0, &options).unwrap();
    let reference = simulate_lagrangian(
        &controlled,
        &q0,
        &qd0,
        0.0,
        1.0,
        &SimulationOptions {
            method: Method::Dop853,
            ..options.clone()
        },
    )
    .unwrap();
    let stats = run.stats;
    assert!(stats.jacobian_evaluations > 0);
    assert_eq!(
        stats.finite_difference_jacobians,
        stats.jacobian_evaluations
    );
    let end = |r: &Trajectory<3>| r.samples.last().unwrap().q;
    // Radau5 turns rtol 1e-10 into its own 0.1 rtol^(2/3) ≈ 2e-8 (Hairer & Wanner's code).
    assert!(
        (end(&run) - end(&reference)).amax() < 1e-5,
        "{}",
        end(&run) - end(&reference)
    );
}

#[test]
fn spiral_particle_follows_its_spiral_for_30_s() {
    let particle = SpiralParticle { g: 9.81 };
    let e3 = 3.0f64.exp();
    // The paper's initial state (review, section 8.1).
    let (q0, qd0) = (Vector2::new(e3, 30.0), Vector2::new(-0.1 * e3, -1.0));
    let options = options_at(1e-10, OutputTimes::Every(0.25));
    let run = simulate_lagrangian(&particle, &q0, &qd0, 0.0, 30.0, &options).unwrap();
    assert_eq!(run.final_time(), Some(30.0));
    let mut worst: f64 = 0.0;
    for s in &run.samples {
        worst = worst
            .max((s.q[0] - (3.0 - 0.1 * s.t).exp()).abs())
            .max((s.q[1] - (30.0 - s.t)).abs());
    }
    eprintln!("spiral particle over 30 s: max |error| of r, θ = {worst:.3e}");
    assert!(worst < 1e-8, "{worst:e}");
}

/// Euler's equations J ω̇ = −ω × Jω (torque-free), by classical RK4 with step h: the
/// independent reference for the quaternion body.
fn euler_equations(j: [f64; 3], w0: [f64; 3], h: f64, steps: usize) -> Vec<[f64; 3]> {
    let rate = |w: [f64; 3]| {
        [
            (j[1] - j[2]) * w[1] * w[2] / j[0],
            (j[2] - j[0]) * w[2] * w[0] / j[1],
            (j[0] - j[1]) * w[0] * w[1] / j[2],
        ]
    };
    let add =
        |w: [f64; 3], k: [f64; 3], s: f64| [w[0] + s * k[0], w[1] + s * k[1], w[2] + s * k[2]];
    let mut out = vec![w0];
    let mut w = w0;
    for _ in 0..steps {
        let k1 = rate(w);
        let k2 = rate(add(w, k1, h / 2.0));
        let k3 = rate(add(w, k2, h / 2.0));
        let k4 = rate(add(w, k3, h));
        w = std::array::from_fn(|i| w[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]));
        out.push(w);
    }
    out
}

#[test]
fn quaternion_rigid_body_matches_eulers_equations() {
    let j = [1.0, 2.0, 3.0];
    let body = QuaternionRigidBody {
        j1: j[0],
        j2: j[1],
        j3: j[2],
        tau1: 0.0,
        tau2: 0.0,
        tau3: 0.0,
    };
    let u0 = [0.5, 0.5, 0.5, 0.5];
    let w0 = [0.3, -0.5, 0.8];
    let q0 = Vector4::from(u0);
    let qd0 = Vector4::from(quaternion_rate(&u0, &w0));
    let (dt, tf) = (0.5, 10.0);
    let options = options_at(1e-11, OutputTimes::Every(dt));
    let run = simulate_lagrangian(&body, &q0, &qd0, 0.0, tf, &options).unwrap();
    let h = 1e-3;
    let reference = euler_equations(j, w0, h, (tf / h).round() as usize);
    let jw_norm = |w: &[f64; 3]| {
        ((j[0] * w[0]).powi(2) + (j[1] * w[1]).powi(2) + (j[2] * w[2]).powi(2)).sqrt()
    };
    let kinetic =
        |w: &[f64; 3]| 0.5 * (j[0] * w[0] * w[0] + j[1] * w[1] * w[1] + j[2] * w[2] * w[2]);
    let (mut norm_error, mut omega_error, mut momentum_error, mut energy_error) =
        (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for s in &run.samples {
        let w = angular_velocity(s.q.as_slice(), s.v.as_slice());
        let w_ref = reference[(s.t / h).round() as usize];
        norm_error = norm_error.max((s.q.norm() - 1.0).abs());
        omega_error = omega_error.max((0..3).map(|i| (w[i] - w_ref[i]).abs()).fold(0.0, f64::max));
        momentum_error = momentum_error.max((jw_norm(&w) / jw_norm(&w0) - 1.0).abs());
        energy_error = energy_error.max((kinetic(&w) / kinetic(&w0) - 1.0).abs());
        // The Jacobi integral of this Lagrangian is the kinetic energy ½ωᵀJω.
        assert!((s.energy - kinetic(&w)).abs() < 1e-12);
    }
    eprintln!(
        "quaternion body over {tf} s: ||u| − 1| ≤ {norm_error:.3e}, |ω − ω_Euler| ≤ \
         {omega_error:.3e}, |Jω| rel {momentum_error:.3e}, T rel {energy_error:.3e}"
    );
    assert!(norm_error < 1e-9);
    assert!(omega_error < 1e-8, "{omega_error:e}");
    assert!(momentum_error < 1e-9);
    assert!(energy_error < 1e-9);
}

#[test]
fn zero_mass_particle_stops_the_run_with_the_time_of_failure() {
    let system = wheel_with_massless_particle();
    let q0 = Vector3::new(1.0, 0.3 * 0.4f64.sin(), 0.0);
    let result = simulate_lagrangian(
        &system,
        &q0,
        &Vector3::zeros(),
        2.0,
        5.0,
        &SimulationOptions::default(),
    );
    match result {
        Err(SimulationError::Dynamics {
            time,
            state,
            source,
            trajectory,
        }) => {
            assert_eq!(time, 2.0);
            assert_eq!(state.q, q0);
            assert!(matches!(
                &source,
                Error::NonUniqueAcceleration { rank: 2, n: 3, free } if free.names() == ["x"]
            ));
            assert!(
                source.to_string().ends_with("; free coordinate: x"),
                "{source}"
            );
            // Only the given initial state was recorded.
            assert_eq!(trajectory.samples.len(), 1);
            assert_eq!(trajectory.samples[0].t, 2.0);
        }
        other => panic!("expected the non-unique acceleration error, got {other:?}"),
    }
}

#[test]
fn two_particles_on_the_incline_keep_their_dependent_constraints_with_baumgarte() {
    let system = TwoParticlesOnIncline::EXAMPLE;
    let (q0, p0) = system.state(0.7, 0.8, -0.3);
    // Three functionally dependent constraints (Udwadia 2016, eqs 49–66): the Baumgarte
    // correction leaves range(A_p) as soon as the state drifts, and is projected back onto it.
    let options = options_at(1e-10, OutputTimes::Every(0.05));
    let run = simulate_hamiltonian(&system, &q0, &p0, 0.0, 5.0, &options).unwrap();
    eprintln!(
        "two particles on the incline, 5 s with Baumgarte: max |f| = {:.3e}, max |φ| = {:.3e}, \
         energy drift {:.3e}",
        run.max_position_residual(),
        run.max_velocity_residual(),
        run.energy_drift()
    );
    assert_eq!(run.final_time(), Some(5.0));
    assert_eq!(run.samples.len(), 101);
    assert!(run.max_position_residual() < 1e-10);
    assert!(run.max_velocity_residual() < 1e-10);
    assert!(run.energy_drift() < 1e-9);
}

/// A particle with x = a t² and x = 0 at once: A = [1; 1], b = [2a, 0], no acceleration
/// satisfies both.
#[udk::lagrangian(
    coordinates(x),
    lagrangian = 0.5 * dot(x).powi(2),
    holonomic(x - a * t * t, x),
)]
pub struct Stuck {
    pub a: f64,
}

#[test]
fn inconsistent_constraints_stop_the_run_with_or_without_baumgarte() {
    let zero = udk::nalgebra::Vector1::zeros();
    for stabilization in [None, SimulationOptions::default().stabilization] {
        let options = SimulationOptions {
            stabilization,
            ..SimulationOptions::default()
        };
        match simulate_lagrangian(&Stuck { a: 1.0 }, &zero, &zero, 0.0, 1.0, &options) {
            Err(SimulationError::Dynamics { time, source, .. }) => {
                assert_eq!(time, 0.0);
                assert!(
                    matches!(source, Error::InconsistentConstraints { residual } if residual > 1.0),
                    "{source}"
                );
            }
            other => panic!("expected inconsistent constraints, got {other:?}"),
        }
    }
}

fn assert_round_trip<const N: usize>(trajectory: &Trajectory<N>) {
    let mut bytes = Vec::new();
    trajectory.write_csv_to(&mut bytes).unwrap();
    let back = Trajectory::<N>::read_csv_from(bytes.as_slice()).unwrap();
    assert_eq!(back.kind, trajectory.kind);
    assert_eq!(back.state_columns, trajectory.state_columns);
    assert_eq!(back.samples, trajectory.samples);
}

#[test]
fn trajectory_csv_round_trips() {
    let (pendulum, q0, qd0) = pendulum_start();
    let options = options_at(1e-10, OutputTimes::Every(0.1));
    let lagrangian = simulate_lagrangian(&pendulum, &q0, &qd0, 0.0, 2.0, &options).unwrap();
    assert_round_trip(&lagrangian);
    // The columns carry the model's names: coordinates, velocities as `name_dot`, momenta.
    let header = lagrangian.csv_header();
    assert_eq!(header[..7], ["t", "x", "y", "z", "x_dot", "y_dot", "z_dot"]);
    assert_eq!(
        header[7..],
        ["position_residual", "velocity_residual", "energy"]
    );
    let hamiltonian = SphericalPendulum { m: 1.0, g: 9.81 };
    let momenta = simulate_hamiltonian(&hamiltonian, &q0, &qd0, 0.0, 2.0, &options).unwrap();
    assert_eq!(momenta.state_columns, ["x", "y", "z", "px", "py", "pz"]);
    assert_round_trip(&momenta);
    // A name used twice would make a reader pick the wrong column: refused, no file made.
    let clash = Trajectory {
        state_columns: ["x", "y", "energy", "x_dot", "y_dot", "z_dot"]
            .map(String::from)
            .to_vec(),
        ..lagrangian.clone()
    };
    let path = std::env::temp_dir().join(format!("udk-clash-{}.csv", std::process::id()));
    assert!(matches!(
        clash.write_csv(&path),
        Err(OutputError::Format(message)) if message.contains("two columns of the trajectory are named `energy`")
    ));
    assert!(!path.exists());

    let path = std::env::temp_dir().join(format!("udk-simulation-{}.csv", std::process::id()));
    lagrangian.write_csv(&path).unwrap();
    let back = Trajectory::<3>::read_csv(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(back.samples, lagrangian.samples);
    // The wrong number of coordinates is a format error, not a silently wrong trajectory.
    let mut bytes = Vec::new();
    lagrangian.write_csv_to(&mut bytes).unwrap();
    assert!(Trajectory::<2>::read_csv_from(bytes.as_slice()).is_err());
}
