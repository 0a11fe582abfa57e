//! The UR5 (`robots/ur5_robot.urdf`): Pinocchio's `aba`, `crba` and `rnea`, M symmetric
//! positive definite, and the energy of a passive 5 s run.

use crate::{assert_matches_pinocchio, assert_symmetric_positive_definite};
use proptest::prelude::*;
use udk::lagrangian;
use udk::nalgebra::SVector;
use udk::runtime::simulate::{simulate_lagrangian, Method, OutputTimes, SimulationOptions};
use udk::runtime::ControlledLagrangianSystem;

/// The UR5 arm of example-robot-data: six revolute joints, τ as inputs, gravity −9.81 m/s² along z.
#[lagrangian(urdf = "robots/ur5_robot.urdf")]
pub struct Ur5;

type Vector6 = SVector<f64, 6>;

#[test]
fn coordinates_are_the_urdf_joints_in_depth_first_order() {
    assert_eq!(Ur5::DOF, 6);
    assert_eq!(
        Ur5::COORDINATE_NAMES,
        [
            "shoulder_pan_joint",
            "shoulder_lift_joint",
            "elbow_joint",
            "wrist_1_joint",
            "wrist_2_joint",
            "wrist_3_joint"
        ]
    );
}

#[test]
fn accelerations_mass_matrix_and_bias_match_pinocchio() {
    assert_eq!(
        assert_matches_pinocchio(&Ur5, &Ur5::COORDINATE_NAMES, "ur5_robot"),
        8
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Every link has mass: M is positive definite everywhere (Pinocchio's smallest eigenvalue
    /// over 2000 random poses is 0.016 kg m²).
    #[test]
    fn the_mass_matrix_is_symmetric_positive_definite(
        angles in prop::array::uniform6(-std::f64::consts::PI..std::f64::consts::PI),
    ) {
        assert_symmetric_positive_definite(&Ur5.mass_matrix(&Vector6::from(angles), 0.0), 1e-2);
    }
}

#[test]
fn a_passive_ur5_keeps_its_energy_over_5_s_to_1e_8() {
    let q = Vector6::from([0.3, -1.2, 1.0, -0.4, 0.9, 0.2]);
    let qd = Vector6::from([0.5, -0.3, 0.8, 0.2, -0.6, 1.0]);
    let passive = Ur5.closed_loop(|_, _, _: &Vector6| Vector6::zeros());
    let e0 = Ur5.energy(&q, &qd, &Vector6::zeros(), 0.0);
    // Far from zero, so that the relative drift means something.
    assert!(e0.abs() > 1.0, "E(0) = {e0} J");
    let options = SimulationOptions {
        method: Method::Dop853,
        rtol: 1e-12,
        atol: 1e-12,
        output: OutputTimes::Every(0.05),
        ..SimulationOptions::default()
    };
    let run = simulate_lagrangian(&passive, &q, &qd, 0.0, 5.0, &options).unwrap();
    assert_eq!(run.samples.len(), 101);
    assert_eq!(run.samples[0].energy, e0);
    // The arm falls and swings: the shoulder moves through more than a radian.
    let travel = (run.samples.iter())
        .map(|s| (s.q - q).amax())
        .fold(0.0, f64::max);
    assert!(travel > 1.0, "largest excursion {travel} rad");
    assert!(run.energy_drift() < 1e-8, "drift {:e}", run.energy_drift());
}
