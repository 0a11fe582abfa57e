//! The Unitree A1 quadruped on a fixed base (`robots/a1.urdf`): a branched tree of four legs
//! of three revolute joints. udk numbers the legs in file order (FR, FL, RR, RL), Pinocchio in
//! its own (FL, FR, RL, RR): the fixture is mapped by joint name.

use crate::{
    assert_matches_pinocchio, assert_symmetric_positive_definite, assert_zero_across_branches,
};
use proptest::prelude::*;
use udk::lagrangian;
use udk::nalgebra::SVector;

/// The A1 with its trunk fixed, joint torques as inputs.
#[lagrangian(urdf = "robots/a1.urdf")]
pub struct A1;

#[test]
fn coordinates_follow_the_file_depth_first() {
    assert_eq!(
        A1::COORDINATE_NAMES,
        [
            "FR_hip_joint",
            "FR_thigh_joint",
            "FR_calf_joint",
            "FL_hip_joint",
            "FL_thigh_joint",
            "FL_calf_joint",
            "RR_hip_joint",
            "RR_thigh_joint",
            "RR_calf_joint",
            "RL_hip_joint",
            "RL_thigh_joint",
            "RL_calf_joint"
        ]
    );
}

#[test]
fn accelerations_mass_matrix_and_bias_match_pinocchio() {
    assert_eq!(
        assert_matches_pinocchio(&A1, &A1::COORDINATE_NAMES, "a1"),
        8
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The legs are independent branches: M is block diagonal, one 3 × 3 block per leg, and
    /// positive definite (Pinocchio's smallest eigenvalue over 2000 random poses is 1.7e-3).
    #[test]
    fn the_mass_matrix_is_block_diagonal_and_positive_definite(
        angles in prop::array::uniform12(-std::f64::consts::PI..std::f64::consts::PI),
    ) {
        let mass = A1.mass_matrix(&SVector::from(angles), 0.0);
        assert_symmetric_positive_definite(&mass, 1e-3);
        assert_zero_across_branches(&mass, |i, j| i / 3 == j / 3);
    }
}
