//! The SO-100 arm (`robots/so100.urdf`), a robot with generic joint frames: its joint origins
//! are turned by angles such as 1.57079 (not π/2), −1.8 and −1 rad, so the turns between the
//! body frames are not signed permutations and the articulated-body program composes each
//! body's turn with its joint rotation. Pinocchio's `aba`, `crba` and `rnea`, and M symmetric
//! positive definite.

use crate::{assert_matches_pinocchio, assert_symmetric_positive_definite};
use proptest::prelude::*;
use udk::lagrangian;
use udk::nalgebra::SVector;

/// The SO-100 arm of example-robot-data (TheRobotStudio's SO-ARM100): six revolute joints, the
/// last one the gripper's jaw, τ as inputs, gravity −9.81 m/s² along z.
#[lagrangian(urdf = "robots/so100.urdf")]
pub struct So100;

#[test]
fn coordinates_are_the_urdf_joints_in_depth_first_order() {
    assert_eq!(
        So100::COORDINATE_NAMES,
        [
            "shoulder_pan",
            "shoulder_lift",
            "elbow_flex",
            "wrist_flex",
            "wrist_roll",
            "gripper"
        ]
    );
}

#[test]
fn accelerations_mass_matrix_and_bias_match_pinocchio() {
    assert_eq!(
        assert_matches_pinocchio(&So100, &So100::COORDINATE_NAMES, "so100"),
        8
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Every link has mass: M is positive definite everywhere (Pinocchio's smallest eigenvalue
    /// over 2000 random poses is 1.6e-5 kg m²).
    #[test]
    fn the_mass_matrix_is_symmetric_positive_definite(
        angles in prop::array::uniform6(-std::f64::consts::PI..std::f64::consts::PI),
    ) {
        assert_symmetric_positive_definite(
            &So100.mass_matrix(&SVector::<f64, 6>::from(angles), 0.0),
            1e-6,
        );
    }
}
