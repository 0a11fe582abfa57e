//! `udk::Model`'s motion: `linearize` on the constraint manifold (the pendulum's ±i√(g/l) in
//! Cartesian coordinates, and the same numbers as the runtime's `linearize` on generated
//! code), `simulate` (the oscillator against its closed form, a constrained model's residuals
//! and energy, a Hamiltonian model), `consistent_state` and `residuals`.

use std::path::Path;
use udk::lagrangian;
use udk::nalgebra::{dvector, DVector, Vector2};
use udk::runtime::linearize::{linearize, LinearizationOptions, OperatingPoint, Selection};
use udk::runtime::simulate::{SimulationOptions, StateKind};
use udk::runtime::{AssemblyOptions, WithoutInputs};
use udk::{Model, ModelError, ModelSpec};

fn spec(text: &str) -> Model {
    let spec: ModelSpec = toml::from_str(text).unwrap();
    Model::from_spec(spec, Path::new(".")).unwrap()
}

/// A pendulum of length l in Cartesian coordinates (x, y), y up, held by x² + y² = l².
fn cartesian_pendulum() -> Model {
    spec(
        r#"
        name = "CartesianPendulum"
        coordinates = ["x", "y"]
        parameters = [{ name = "m", value = 2.0 }, { name = "l", value = 1.5 }, { name = "g", value = 9.81 }]
        lagrangian = "0.5 * m * (dot(x).powi(2) + dot(y).powi(2)) - m * g * y"
        holonomic = ["x.powi(2) + y.powi(2) - l.powi(2)"]
        "#,
    )
}

/// The same pendulum, generated.
#[lagrangian(
    coordinates(x, y),
    lagrangian = 0.5 * m * (dot(x).powi(2) + dot(y).powi(2)) - m * g * y,
    holonomic(x.powi(2) + y.powi(2) - l.powi(2)),
)]
struct CartesianPendulum {
    m: f64,
    l: f64,
    g: f64,
}

fn model_models() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/models")
}

#[test]
fn the_pendulum_linearized_at_the_bottom_oscillates_at_the_root_of_g_over_l() {
    let model = cartesian_pendulum();
    let (q, qd) = (dvector![0.0, -1.5], dvector![0.0, 0.0]);
    let options = LinearizationOptions::default();
    let linear = model
        .linearize(&q, &qd, 0.0, &Selection::default(), &options)
        .unwrap();
    // One independent coordinate (x, by pivoted QR of ∂f/∂q = [0, −2l]) and one velocity.
    assert_eq!(linear.coordinates.independent, [0]);
    assert_eq!(linear.velocities.independent, [0]);
    let omega = (9.81f64 / 1.5).sqrt();
    let e = &linear.eigenvalues;
    assert_eq!(e.len(), 2);
    assert!(e.iter().all(|z| z.re.abs() < 1e-12), "{e:?}");
    assert!((e[0].im.abs() - omega).abs() < 1e-12, "{e:?}");
    assert!((e[1].im.abs() - omega).abs() < 1e-12, "{e:?}");

    // The runtime's linearize on the generated pendulum gives the same matrices.
    let generated = CartesianPendulum {
        m: 2.0,
        l: 1.5,
        g: 9.81,
    };
    let point = OperatingPoint {
        q: Vector2::new(0.3, -(1.5f64.powi(2) - 0.09).sqrt()),
        qd: Vector2::zeros(),
        u: Default::default(),
        t: 0.0,
    };
    let selection = Selection::default();
    let expected = linearize(&WithoutInputs(&generated), &point, &selection, &options).unwrap();
    let q = DVector::from_column_slice(point.q.as_slice());
    let linear = model.linearize(&q, &qd, 0.0, &selection, &options).unwrap();
    assert_eq!(linear.coordinates, expected.coordinates);
    assert!((&linear.a - &expected.a).amax() < 1e-12 * expected.a.amax());
}

#[test]
fn linearize_refuses_a_point_off_the_constraints_and_a_hamiltonian_model() {
    let model = cartesian_pendulum();
    let options = LinearizationOptions::default();
    let off = model.linearize(
        &dvector![0.1, -1.0],
        &dvector![0.0, 0.0],
        0.0,
        &Selection::default(),
        &options,
    );
    assert!(
        matches!(
            off,
            Err(ModelError::Runtime(
                udk::runtime::Error::ConstraintViolated { .. }
            ))
        ),
        "{off:?}"
    );
    let hamiltonian =
        Model::from_file(&model_models().join("spherical_pendulum_hamiltonian.toml")).unwrap();
    let wrong = hamiltonian.linearize(
        &dvector![1.2, 0.0, 1.6],
        &dvector![0.0, 0.0, 0.0],
        0.0,
        &Selection::default(),
        &options,
    );
    assert!(
        matches!(wrong, Err(ModelError::WrongKind { .. })),
        "{wrong:?}"
    );
}

#[test]
fn the_oscillator_simulated_follows_its_closed_form() {
    let model = spec(
        r#"
        name = "Oscillator"
        coordinates = ["x"]
        parameters = [{ name = "m", value = 2.0 }, { name = "k", value = 8.0 }]
        lagrangian = "0.5 * m * dot(x).powi(2) - 0.5 * k * x.powi(2)"
        outputs = [{ name = "spring", value = "0.5 * k * x.powi(2)" }]
        "#,
    );
    let period = std::f64::consts::PI; // 2π/ω, ω = √(k/m) = 2
    let options = SimulationOptions::every(period / 8.0);
    let motion = model
        .simulate(&dvector![0.5], &dvector![0.0], 0.0, period, &options)
        .unwrap();
    assert_eq!(motion.kind, StateKind::Velocities);
    assert_eq!(motion.t.len(), 9);
    assert_eq!(motion.q.shape(), (1, 9));
    for (j, t) in motion.t.iter().enumerate() {
        let x = 0.5 * (2.0 * t).cos();
        assert!((motion.q[(0, j)] - x).abs() < 1e-8, "x({t})");
        assert!((motion.v[(0, j)] + (2.0 * t).sin()).abs() < 1e-7, "ẋ({t})");
        let spring = motion.outputs.row(j)[0];
        assert!((spring - 4.0 * x * x).abs() < 1e-7, "spring({t})");
    }
    assert!(motion.energy_drift() < 1e-8);
    assert!(motion.stats.rhs_evaluations > 0);
}

#[test]
fn a_constrained_model_simulated_stays_on_its_constraints_and_keeps_its_energy() {
    let model = Model::from_file(&model_models().join("four_bar.toml")).unwrap();
    let (q0, qd0) = (
        dvector![1.0, 0.6420293812808668, 1.7177185312694976],
        dvector![6.0, -1.4948390447186597, 0.8959268656570865],
    );
    let motion = model
        .simulate(&q0, &qd0, 0.0, 1.0, &SimulationOptions::every(0.05))
        .unwrap();
    assert_eq!(motion.t.len(), 21);
    assert!(motion.position_residual.iter().all(|r| *r < 1e-8));
    assert!(motion.velocity_residual.iter().all(|r| *r < 1e-8));
    assert!(motion.energy_drift() < 1e-6, "{}", motion.energy_drift());
    assert_eq!(motion.outputs.columns.len(), 3);
    // The residuals of the last sample, evaluated again.
    let last = motion.t.len() - 1;
    let (q, v) = (
        motion.q.column(last).into_owned(),
        motion.v.column(last).into_owned(),
    );
    let residuals = model.residuals(&q, &v, motion.t[last]).unwrap();
    assert_eq!(residuals.holonomic.norm(), motion.position_residual[last]);
    assert_eq!(residuals.energy, motion.energy[last]);
}

#[test]
fn a_hamiltonian_model_simulated_keeps_its_sphere() {
    let model =
        Model::from_file(&model_models().join("spherical_pendulum_hamiltonian.toml")).unwrap();
    let (q0, p0) = (dvector![1.2, 0.0, 1.6], dvector![0.0, 1.5, 0.0]);
    let motion = model
        .simulate(&q0, &p0, 0.0, 1.0, &SimulationOptions::every(0.1))
        .unwrap();
    assert_eq!(motion.kind, StateKind::Momenta);
    assert!(motion.position_residual.iter().all(|r| *r < 1e-8));
    assert!(motion.energy_drift() < 1e-6);
}

#[test]
fn a_failed_run_is_a_typed_error_with_the_motion_up_to_then() {
    let model = cartesian_pendulum();
    // Off the constraint by 0.1: the simulator refuses to start.
    let refused = model.simulate(
        &dvector![0.0, -1.4],
        &dvector![0.0, 0.0],
        0.0,
        1.0,
        &SimulationOptions::default(),
    );
    match refused {
        Err(ModelError::Simulation { time, motion, .. }) => {
            assert_eq!(time, None);
            assert!(motion.is_none());
        }
        other => panic!("{other:?}"),
    }
    // Too few steps: stopped by the integrator, with the samples before.
    let options = SimulationOptions {
        max_steps: 5,
        ..SimulationOptions::every(0.01)
    };
    let stopped = model.simulate(
        &dvector![1.5, 0.0],
        &dvector![0.0, 0.0],
        0.0,
        10.0,
        &options,
    );
    match stopped {
        Err(ModelError::Simulation {
            time: Some(time),
            motion: Some(motion),
            ..
        }) => {
            assert!(time > 0.0 && time < 10.0);
            assert!(!motion.t.is_empty() && *motion.t.last().unwrap() <= time);
        }
        other => panic!("{other:?}"),
    }
    let wrong = model.simulate(
        &dvector![1.5],
        &dvector![0.0, 0.0],
        0.0,
        1.0,
        &SimulationOptions::default(),
    );
    assert!(matches!(wrong, Err(ModelError::Length { what: "q", .. })));
}

#[test]
fn consistent_state_projects_onto_the_constraints() {
    let model = cartesian_pendulum();
    let assembly = model
        .consistent_state(
            &dvector![0.3, -1.3],
            &dvector![1.0, 1.0],
            0.0,
            &AssemblyOptions::default(),
        )
        .unwrap();
    assert!(assembly.converged);
    let (q, v) = (&assembly.q, &assembly.v);
    assert!((q.norm() - 1.5).abs() < 1e-12);
    assert!(q.dot(v).abs() < 1e-12);
    let residuals = model.residuals(q, v, 0.0).unwrap();
    assert!(residuals.holonomic[0].abs() < 1e-12);
    assert!(residuals.velocity[0].abs() < 1e-12);
}
