//! Starting and bounding a run of `udk::runtime::simulate`: the initial state is checked
//! (finite, on the constraints) before anything is integrated, `consistent_state` assembles a
//! rough start, and the output times and steps are bounded over the whole run.

#[path = "simulation/models.rs"]
mod models;

use models::*;
use udk::nalgebra::{Vector1, Vector3};
use udk::runtime::simulate::{
    simulate_hamiltonian, simulate_lagrangian, ConstraintLevel, SimulationError, SimulationOptions,
    Violation,
};
use udk::runtime::{consistent_hamiltonian_state, consistent_state, AssemblyOptions};
use udk::{lagrangian, Error};

/// A particle held at x = t and at x = 0 at once: consistent at t = 0 at position level
/// (f = (0, 0) at x = 0), but ḟ = (ẋ − 1, ẋ) cannot vanish.
#[lagrangian(
    coordinates(x),
    lagrangian = 0.5 * dot(x).powi(2),
    holonomic(x - t, x),
)]
pub struct Driven {}

#[test]
fn an_inconsistent_start_is_refused_naming_the_constraint_and_its_residual() {
    let zero = Vector1::zeros();
    let options = SimulationOptions::default();
    match simulate_lagrangian(&Driven {}, &zero, &zero, 0.0, 1.0, &options) {
        Err(SimulationError::InconsistentStart {
            violations,
            tolerance,
        }) => {
            let expected = Violation {
                level: ConstraintLevel::Velocity,
                row: 0,
                residual: -1.0,
            };
            assert_eq!(violations, vec![expected]);
            assert_eq!(tolerance, 1e-8);
        }
        other => panic!("expected an inconsistent start, got {other:?}"),
    }
    // The spherical pendulum 1 cm off its sphere: f = 1.01² − 1 = 0.0201, within a looser
    // tolerance only.
    let (pendulum, q0, qd0) = pendulum_start();
    let off = q0 * 1.01;
    let refused = simulate_lagrangian(&pendulum, &off, &qd0, 0.0, 0.1, &options);
    let Err(SimulationError::InconsistentStart { violations, .. }) = refused else {
        panic!("expected an inconsistent start, got {refused:?}");
    };
    assert_eq!(violations[0].level, ConstraintLevel::Position);
    assert!((violations[0].residual - 0.0201).abs() < 1e-12);
    let loose = SimulationOptions {
        constraint_tolerance: 0.1,
        ..SimulationOptions::every(0.05)
    };
    assert!(simulate_lagrangian(&pendulum, &off, &qd0, 0.0, 0.1, &loose).is_ok());
}

#[test]
fn a_non_finite_start_is_refused_before_integrating() {
    let (pendulum, q0, qd0) = pendulum_start();
    let options = SimulationOptions::default();
    let nan = Vector3::new(f64::NAN, q0.y, q0.z);
    let result = simulate_lagrangian(&pendulum, &nan, &qd0, 0.0, 1.0, &options);
    assert_eq!(result, Err(SimulationError::NonFiniteStart));
    let infinite = Vector3::new(0.0, f64::INFINITY, 0.0);
    let hamiltonian = SphericalPendulum { m: 1.0, g: 9.81 };
    let result = simulate_hamiltonian(&hamiltonian, &q0, &infinite, 0.0, 1.0, &options);
    assert_eq!(result, Err(SimulationError::NonFiniteStart));
}

#[test]
fn output_times_are_bounded_before_the_run() {
    let (pendulum, q0, qd0) = pendulum_start();
    for dt in [1e-300, 1e-7] {
        let result = simulate_lagrangian(
            &pendulum,
            &q0,
            &qd0,
            0.0,
            1.0,
            &SimulationOptions::every(dt),
        );
        assert!(
            matches!(result, Err(SimulationError::InvalidOptions { what }) if what.contains("max_samples")),
            "{result:?}"
        );
    }
    // A Δt that t = 1e9 cannot tell apart from the next output time.
    let result = simulate_lagrangian(
        &pendulum,
        &q0,
        &qd0,
        1e9,
        1e9 + 1e-6,
        &SimulationOptions::every(1e-12),
    );
    assert!(
        matches!(result, Err(SimulationError::InvalidOptions { .. })),
        "{result:?}"
    );
    // Exactly max_samples output times are allowed: t₀ and ten more.
    let options = SimulationOptions {
        max_samples: 11,
        ..SimulationOptions::every(0.01)
    };
    let run = simulate_lagrangian(&pendulum, &q0, &qd0, 0.0, 0.1, &options).unwrap();
    assert_eq!(run.samples.len(), 11);
    // With output at every step, the run stops when the trajectory is full.
    let options = SimulationOptions {
        max_samples: 5,
        ..SimulationOptions::default()
    };
    match simulate_lagrangian(&pendulum, &q0, &qd0, 0.0, 10.0, &options) {
        Err(SimulationError::Integrator {
            reason, trajectory, ..
        }) => {
            assert!(reason.contains("max_samples = 5"), "{reason}");
            assert_eq!(trajectory.samples.len(), 5);
        }
        other => panic!("expected a full trajectory, got {other:?}"),
    }
}

#[test]
fn max_steps_bounds_the_whole_run_not_each_output_segment() {
    let (pendulum, q0, qd0) = pendulum_start();
    let unbounded = SimulationOptions::every(0.01);
    let run = simulate_lagrangian(&pendulum, &q0, &qd0, 0.0, 2.0, &unbounded).unwrap();
    let steps = run.stats.accepted_steps + run.stats.rejected_steps;
    // 200 segments take at least a step each, so 100 steps cannot reach t = 2 s.
    assert!(steps > 200, "{steps}");
    let options = SimulationOptions {
        max_steps: 100,
        ..unbounded
    };
    match simulate_lagrangian(&pendulum, &q0, &qd0, 0.0, 2.0, &options) {
        Err(SimulationError::Integrator {
            time,
            reason,
            trajectory,
        }) => {
            assert!(
                reason.contains(
                    "the most steps allowed (`SimulationOptions::max_steps`, `--max-steps`"
                ),
                "{reason}"
            );
            assert!(time < 1.0, "{time}");
            let taken = trajectory.stats.accepted_steps + trajectory.stats.rejected_steps;
            assert!(taken <= 100, "{taken}");
        }
        other => panic!("expected the step limit, got {other:?}"),
    }
}

/// The spherical pendulum of length 1: from q at |q| = 1.3 and a velocity with a radial part,
/// minimum-norm Gauss–Newton on |q|² − 1 moves q along its ray (J = 2qᵀ), to q/|q|; the
/// velocity loses its radial part.
#[test]
fn consistent_state_projects_a_rough_start_onto_the_sphere() {
    let (pendulum, _, _) = pendulum_start();
    let q = Vector3::new(0.5, -0.6, 1.0);
    let qd = Vector3::new(0.3, 1.0, -0.2);
    let assembly = consistent_state(&pendulum, &q, &qd, 0.0, &AssemblyOptions::default()).unwrap();
    let radial = q.normalize();
    assert!((assembly.q - radial).norm() < 1e-12, "{}", assembly.q);
    let tangent = qd - radial * radial.dot(&qd);
    assert!((assembly.v - tangent).norm() < 1e-12, "{}", assembly.v);
    assert!(assembly.converged);
    assert!(assembly.position_residual < 1e-12 && assembly.velocity_residual < 1e-12);
    // The assembled state starts a run that the rough one could not.
    let options = SimulationOptions::every(0.1);
    assert!(simulate_lagrangian(&pendulum, &q, &qd, 0.0, 1.0, &options).is_err());
    simulate_lagrangian(&pendulum, &assembly.q, &assembly.v, 0.0, 1.0, &options).unwrap();
}

/// With z held fixed, (x, y) alone moves along its own ray onto the circle
/// x² + y² = 1 − z², and ż stays.
#[test]
fn consistent_state_keeps_fixed_coordinates() {
    let (pendulum, _, _) = pendulum_start();
    let q = Vector3::new(0.5, -0.6, 0.8);
    let qd = Vector3::new(0.3, 1.0, -0.2);
    let options = AssemblyOptions {
        fixed: vec![2],
        ..AssemblyOptions::default()
    };
    let assembly = consistent_state(&pendulum, &q, &qd, 0.0, &options).unwrap();
    let scale = (1.0 - 0.8f64.powi(2)).sqrt() / q.xy().norm();
    let expected = Vector3::new(0.5 * scale, -0.6 * scale, 0.8);
    assert!((assembly.q - expected).norm() < 1e-12, "{}", assembly.q);
    assert_eq!(assembly.v.z, -0.2);
    assert!(assembly.v.dot(&assembly.q).abs() < 1e-12);
    assert!(assembly.converged);
    // Nothing free and the sphere missed: the best state is the given one, not converged.
    let all = AssemblyOptions {
        fixed: vec![0, 1, 2],
        ..AssemblyOptions::default()
    };
    let stuck = consistent_state(&pendulum, &q, &qd, 0.0, &all).unwrap();
    assert_eq!((stuck.q, stuck.v), (q, qd));
    assert!(!stuck.converged);
    assert!((stuck.position_residual - (q.norm_squared() - 1.0)).abs() < 1e-15);
}

#[test]
fn consistent_state_refuses_bad_input() {
    let (pendulum, q0, qd0) = pendulum_start();
    let nan = Vector3::new(f64::NAN, 0.0, 0.0);
    let result = consistent_state(&pendulum, &nan, &qd0, 0.0, &AssemblyOptions::default());
    assert!(matches!(result, Err(Error::NonFinite { .. })), "{result:?}");
    let out_of_range = AssemblyOptions {
        fixed: vec![3],
        ..AssemblyOptions::default()
    };
    let result = consistent_state(&pendulum, &q0, &qd0, 0.0, &out_of_range);
    assert!(
        matches!(result, Err(Error::InvalidOption { .. })),
        "{result:?}"
    );
    let negative = AssemblyOptions {
        tolerance: -1.0,
        ..AssemblyOptions::default()
    };
    let result = consistent_state(&pendulum, &q0, &qd0, 0.0, &negative);
    assert!(
        matches!(result, Err(Error::InvalidOption { .. })),
        "{result:?}"
    );
}

/// The Hamiltonian spherical pendulum, φ = qᵀp = 0 (Udwadia 2016, eq 40): p loses its part
/// along q; q, with no holonomic constraint, stays.
#[test]
fn consistent_hamiltonian_state_removes_the_radial_momentum() {
    let system = SphericalPendulum { m: 1.5, g: 9.81 };
    let q = Vector3::new(1.2, 0.0, 1.6);
    let p = Vector3::new(0.4, 1.05, 0.3);
    let assembly =
        consistent_hamiltonian_state(&system, &q, &p, 0.0, &AssemblyOptions::default()).unwrap();
    assert_eq!(assembly.q, q);
    let expected = p - q * (q.dot(&p) / q.norm_squared());
    assert!((assembly.v - expected).norm() < 1e-12, "{}", assembly.v);
    assert!(assembly.converged);
    let options = SimulationOptions::every(0.1);
    simulate_hamiltonian(&system, &assembly.q, &assembly.v, 0.0, 0.5, &options).unwrap();
}
