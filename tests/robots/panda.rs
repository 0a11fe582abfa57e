//! The Franka Emika Panda (`robots/panda.urdf`): seven revolute joints and two prismatic
//! fingers, independent (the file's `<mimic>` tag is ignored without `mimic = true`, as in
//! Pinocchio). Pinocchio's `aba`, `crba` and `rnea`; M symmetric positive definite.

use crate::{assert_matches_pinocchio, assert_symmetric_positive_definite};
use proptest::prelude::*;
use udk::lagrangian;
use udk::nalgebra::SVector;

/// The Panda arm of example-robot-data with its two fingers, τ as inputs.
#[lagrangian(urdf = "robots/panda.urdf")]
pub struct Panda;

#[test]
fn coordinates_are_the_seven_arm_joints_then_the_fingers() {
    assert_eq!(Panda::DOF, 9);
    assert_eq!(
        Panda::COORDINATE_NAMES,
        [
            "panda_joint1",
            "panda_joint2",
            "panda_joint3",
            "panda_joint4",
            "panda_joint5",
            "panda_joint6",
            "panda_joint7",
            "panda_finger_joint1",
            "panda_finger_joint2"
        ]
    );
    // No mimic constraint unless asked for.
    assert_eq!(Panda::NUM_CONSTRAINTS, 0);
}

#[test]
fn accelerations_mass_matrix_and_bias_match_pinocchio() {
    assert_eq!(
        assert_matches_pinocchio(&Panda, &Panda::COORDINATE_NAMES, "panda"),
        8
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Every link has mass (the fingers 0.015 kg each): M is positive definite (Pinocchio's
    /// smallest eigenvalue over 2000 random poses is 4.7e-3).
    #[test]
    fn the_mass_matrix_is_symmetric_positive_definite(
        arm in prop::array::uniform7(-std::f64::consts::PI..std::f64::consts::PI),
        fingers in prop::array::uniform2(0.0..0.04f64),
    ) {
        let q = SVector::<f64, 9>::from_iterator(arm.into_iter().chain(fingers));
        assert_symmetric_positive_definite(&Panda.mass_matrix(&q, 0.0), 1e-3);
    }
}
