//! The Aldebaran Romeo humanoid on a fixed base (`robots/romeo_small.urdf`): 31 revolute joints
//! in a branched tree, its body fixed to the world by the fixed `waist` joint. Two legs of six
//! joints hang from the body; the trunk joint carries the torso, and the torso the neck and
//! head (four joints) and two arms of seven. udk numbers the branches in file order (legs,
//! trunk, head, arms), Pinocchio in its own (the left arm before the head): the fixture is
//! mapped by joint name. Pinocchio's `aba`, `crba` and `rnea`; M symmetric positive definite
//! with the zeros of a tree.

use crate::{
    assert_matches_pinocchio, assert_symmetric_positive_definite, assert_zero_across_branches,
};
use proptest::prelude::*;
use udk::lagrangian;
use udk::nalgebra::SVector;

/// Romeo (the `romeo_small` model of example-robot-data, without fingers) with its body fixed,
/// joint torques as inputs, gravity −9.81 m/s² along z.
#[lagrangian(urdf = "robots/romeo_small.urdf")]
pub struct RomeoSmall;

/// The branch of the tree each of udk's coordinates sits on: 0 and 1 the left and right legs,
/// 2 the trunk joint, 3 the neck and head, 4 and 5 the left and right arms.
const BRANCH: [usize; 31] = [
    0, 0, 0, 0, 0, 0, //
    1, 1, 1, 1, 1, 1, //
    2, //
    3, 3, 3, 3, //
    4, 4, 4, 4, 4, 4, 4, //
    5, 5, 5, 5, 5, 5, 5,
];

/// The trunk branch, the parent of the head and of both arms.
const TRUNK: usize = 2;

/// Whether joints `i` and `j` lie on one path from the root (one is the other's ancestor or
/// they are the same): only then can M[i, j] be nonzero.
fn on_one_path(i: usize, j: usize) -> bool {
    let (a, b) = (BRANCH[i], BRANCH[j]);
    a == b || (a == TRUNK && b > TRUNK) || (b == TRUNK && a > TRUNK)
}

#[test]
fn coordinates_follow_the_file_depth_first() {
    assert_eq!(RomeoSmall::DOF, 31);
    assert_eq!(
        RomeoSmall::COORDINATE_NAMES,
        [
            "LHipYaw",
            "LHipRoll",
            "LHipPitch",
            "LKneePitch",
            "LAnklePitch",
            "LAnkleRoll",
            "RHipYaw",
            "RHipRoll",
            "RHipPitch",
            "RKneePitch",
            "RAnklePitch",
            "RAnkleRoll",
            "TrunkYaw",
            "NeckYaw",
            "NeckPitch",
            "HeadPitch",
            "HeadRoll",
            "LShoulderPitch",
            "LShoulderYaw",
            "LElbowRoll",
            "LElbowYaw",
            "LWristRoll",
            "LWristYaw",
            "LWristPitch",
            "RShoulderPitch",
            "RShoulderYaw",
            "RElbowRoll",
            "RElbowYaw",
            "RWristRoll",
            "RWristYaw",
            "RWristPitch"
        ]
    );
    assert_eq!(RomeoSmall::NUM_CONSTRAINTS, 0);
}

#[test]
fn accelerations_mass_matrix_and_bias_match_pinocchio() {
    assert_eq!(
        assert_matches_pinocchio(&RomeoSmall, &RomeoSmall::COORDINATE_NAMES, "romeo_small"),
        8
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Every moving link has mass (the wrist yaw links 0.076 kg): M is positive definite
    /// (Pinocchio's smallest eigenvalue over 2000 random poses is 5.1e-5), and its entries
    /// between joints on different branches (the two legs, the head, the two arms; the trunk
    /// joint is on the path to the head and the arms) are exactly zero.
    #[test]
    fn the_mass_matrix_is_positive_definite_with_the_zeros_of_the_tree(
        angles in prop::array::uniform31(-std::f64::consts::PI..std::f64::consts::PI),
    ) {
        let mass = RomeoSmall.mass_matrix(&SVector::from(angles), 0.0);
        assert_symmetric_positive_definite(&mass, 1e-5);
        assert_zero_across_branches(&mass, on_one_path);
    }

    /// The hip yaw joints and the trunk joint turn about the vertical (their parent, the body,
    /// is fixed upright): gravity does no work along them, so at rest and with τ = 0 their
    /// generalized forces vanish in every pose, while the others carry the weight.
    #[test]
    fn gravity_has_no_moment_about_the_vertical_joints(
        angles in prop::array::uniform31(-std::f64::consts::PI..std::f64::consts::PI),
    ) {
        let zero = SVector::<f64, 31>::zeros();
        let gravity = RomeoSmall.generalized_forces(&SVector::from(angles), &zero, &zero, 0.0);
        let scale = gravity.amax();
        // The knees and hips hold the legs' weight: several N m.
        prop_assert!(scale > 1.0, "largest generalized gravity force {}", scale);
        for name in ["LHipYaw", "RHipYaw", "TrunkYaw"] {
            let i = RomeoSmall::COORDINATE_NAMES.iter().position(|n| *n == name).unwrap();
            prop_assert!(gravity[i].abs() <= 1e-13 * scale, "Q[{}] = {:e}", name, gravity[i]);
        }
    }
}
