//! The UR5 arm against Pinocchio's articulated-body algorithm (`tests/fixtures/ur5_arm.json`),
//! against its own hand-expanded Lagrangian (`examples/models/ur5_arm_expanded.toml`, derived
//! here by `udk_symbolic` and evaluated on the run-time tape, and the same Lagrangian compiled
//! by the macro) and its model-file twin (`examples/models/ur5_arm.toml`), and against mechanics: M symmetric positive definite and independent of the
//! base joint, and the energy of a passive run conserved.

use crate::{assert_close, fixture, numbers};
use proptest::prelude::*;
use std::path::Path;
use udk::nalgebra::{SMatrix, SVector};
use udk::runtime::simulate::{simulate_lagrangian, OutputTimes, SimulationOptions};
use udk::runtime::ControlledLagrangianSystem;
use udk_symbolic::emit::{compile_tape, Tape, TapeInputs};

#[allow(dead_code)]
#[path = "../../examples/ur5_arm.rs"]
mod model;

#[path = "../fixtures/ur5_arm_expanded.rs"]
mod expanded;

use expanded::Ur5ArmExpanded;
use model::Ur5Arm;

type Vector6 = SVector<f64, 6>;

/// The fixture's states: (q, q̇, τ) and the entry `key` of each.
fn states(key: &str) -> Vec<(Vector6, Vector6, Vector6, Vec<f64>)> {
    let reference = fixture("ur5_arm");
    let vector = |state: &serde_json::Value, key: &str| Vector6::from_vec(numbers(&state[key]));
    (reference["states"].as_array().unwrap().iter())
        .map(|state| {
            let expected = match &state[key] {
                serde_json::Value::Array(rows) if rows[0].is_array() => {
                    rows.iter().flat_map(numbers).collect()
                }
                value => numbers(value),
            };
            (
                vector(state, "q"),
                vector(state, "qd"),
                vector(state, "tau"),
                expected,
            )
        })
        .collect()
}

#[test]
fn accelerations_mass_matrix_and_tool_match_pinocchio() {
    let arm = Ur5Arm::EXAMPLE;
    for (q, qd, tau, qdd) in states("qdd") {
        let actual = arm.acceleration(&q, &qd, &tau, 0.0).unwrap();
        assert_close(actual.as_slice(), &qdd, 1e-10);
    }
    for (q, _, _, mass) in states("mass_matrix") {
        // Row-major in the fixture; M is symmetric, so the order does not matter here.
        assert_close(arm.mass_matrix(&q, 0.0).as_slice(), &mass, 1e-12);
    }
    for (q, qd, tau, tool) in states("tool") {
        assert_close(arm.tool(&q, &qd, &tau, 0.0).as_slice(), &tool, 1e-14);
    }
}

/// The example's DH chain, written with `let` definitions and the parameter g and given no
/// tree, is recognized as a kinematic tree: M and Q by composite rigid body and recursive
/// Newton–Euler, q̈ by the O(n) articulated-body algorithm, as its equation sheet says.
#[test]
fn the_dh_chain_takes_the_articulated_path() {
    let sheet = Ur5Arm::EQUATIONS_TEXT;
    assert!(sheet.contains("\nM and Q by composite rigid body + recursive Newton–Euler\n"));
    assert!(sheet.contains("O(n), q''0 = M^-1 (Q + C) and M^-1 A^T by the articulated-body"));
}

/// The model file `examples/models/<name>.toml` derived by `udk_symbolic`, compiled to a tape
/// of M, Q, A, b, C.
fn model_tape(name: &str) -> Tape {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("examples/models/{name}.toml"));
    let text = std::fs::read_to_string(path).expect("the model file is committed");
    let spec: udk_symbolic::ModelSpec = toml::from_str(&text).expect("a model file");
    let derivation = udk_symbolic::derive(&spec).expect("the model derives");
    compile_tape(&derivation.pool, &derivation.equations.outputs())
}

/// q̈ of an arm model's tape at (q, q̇, τ): M and Q from the tape, then M q̈ = Q (the
/// fundamental equation with no constraints) by Cholesky, which also requires M positive
/// definite.
fn tape_acceleration(tape: &Tape, q: &Vector6, qd: &Vector6, tau: &Vector6) -> Vector6 {
    let mut registers = vec![0.0; tape.registers()];
    let mut out = vec![0.0; tape.outputs()];
    let inputs = TapeInputs {
        q: q.as_slice(),
        qd: qd.as_slice(),
        params: &[Ur5Arm::EXAMPLE.g],
        u: tau.as_slice(),
        ..TapeInputs::default()
    };
    tape.eval(&inputs, &mut registers, &mut out).unwrap();
    // M (36 entries, row-major), Q (6), no A or b, C (6).
    assert_eq!(out.len(), 48);
    let mass = SMatrix::<f64, 6, 6>::from_row_slice(&out[..36]);
    let force = Vector6::from_column_slice(&out[36..42]);
    let cholesky = mass.cholesky().expect("M is positive definite");
    cholesky.solve(&force)
}

#[test]
fn the_expanded_lagrangian_and_the_model_file_twin_give_the_same_accelerations() {
    let (arm, compiled) = (Ur5Arm::EXAMPLE, Ur5ArmExpanded { g: 9.81 });
    let (expanded_tape, twin_tape) = (model_tape("ur5_arm_expanded"), model_tape("ur5_arm"));
    let mut checked = 0;
    for (q, qd, tau, _) in states("qdd") {
        let structured = arm.acceleration(&q, &qd, &tau, 0.0).unwrap();
        // The model file twin of the example: the same definitions, so the same q̈ up to the
        // solve.
        let twin = tape_acceleration(&twin_tape, &q, &qd, &tau);
        assert_close(twin.as_slice(), structured.as_slice(), 1e-13);
        let expanded = tape_acceleration(&expanded_tape, &q, &qd, &tau);
        assert_close(expanded.as_slice(), structured.as_slice(), 1e-10);
        // The same Lagrangian through the macro (the benchmark's model).
        let macro_expanded = compiled.acceleration(&q, &qd, &tau, 0.0).unwrap();
        assert_close(macro_expanded.as_slice(), structured.as_slice(), 1e-10);
        checked += 1;
    }
    assert_eq!(checked, 6);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn the_mass_matrix_is_symmetric_positive_definite_and_independent_of_q1(
        angles in prop::array::uniform6(-std::f64::consts::PI..std::f64::consts::PI),
        base in -std::f64::consts::PI..std::f64::consts::PI,
    ) {
        let arm = Ur5Arm::EXAMPLE;
        let q = Vector6::from(angles);
        let mass = arm.mass_matrix(&q, 0.0);
        let scale = mass.amax();
        prop_assert!((mass - mass.transpose()).amax() <= 1e-15 * scale);
        let eigenvalues = mass.symmetric_eigenvalues();
        // The smallest is the last link's axial moment plus little: ~3e-4 kg m².
        prop_assert!(eigenvalues.min() > 1e-4, "eigenvalues {eigenvalues}");
        // Turning the whole arm about the vertical base axis changes no inertia it sees.
        let mut turned = q;
        turned[0] = base;
        prop_assert!((arm.mass_matrix(&turned, 0.0) - mass).amax() <= 1e-14 * scale);
    }
}

#[test]
fn a_passive_arm_keeps_its_energy_over_2_s_to_1e_8() {
    let arm = Ur5Arm::EXAMPLE;
    let (q, qd) = Ur5Arm::pose();
    let passive = arm.closed_loop(|_, _, _: &Vector6| Vector6::zeros());
    let options = SimulationOptions {
        rtol: 1e-12,
        atol: 1e-12,
        output: OutputTimes::Every(0.05),
        ..SimulationOptions::default()
    };
    let run = simulate_lagrangian(&passive, &q, &qd, 0.0, 2.0, &options).unwrap();
    assert_eq!(run.samples.len(), 41);
    // The arm moves: it falls through more than a radian at the shoulder.
    let last = run.samples.last().unwrap();
    assert!((last.q - q).amax() > 1.0, "q(2 s) = {}", last.q);
    assert!(run.energy_drift() < 1e-8, "drift {:e}", run.energy_drift());
}
