//! The double pendulum of example-robot-data (`robots/double_pendulum_simple.urdf`): two
//! revolute joints about x, a massless end-effector link merged by its fixed joint, joint
//! damping in the file (ignored without `joint_damping = true`, as in Pinocchio's `aba`).

use crate::{assert_matches_pinocchio, assert_symmetric_positive_definite};
use proptest::prelude::*;
use udk::lagrangian;
use udk::nalgebra::SVector;

/// The double pendulum, joint torques as inputs.
#[lagrangian(urdf = "robots/double_pendulum_simple.urdf")]
pub struct DoublePendulum;

#[test]
fn accelerations_mass_matrix_and_bias_match_pinocchio() {
    assert_eq!(DoublePendulum::COORDINATE_NAMES, ["joint1", "joint2"]);
    assert_eq!(
        assert_matches_pinocchio(
            &DoublePendulum,
            &DoublePendulum::COORDINATE_NAMES,
            "double_pendulum_simple"
        ),
        8
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Both moving links have mass: M is positive definite (Pinocchio's smallest eigenvalue
    /// over 2000 random poses is 3.3e-4 kg m²).
    #[test]
    fn the_mass_matrix_is_symmetric_positive_definite(
        angles in prop::array::uniform2(-std::f64::consts::PI..std::f64::consts::PI),
    ) {
        let mass = DoublePendulum.mass_matrix(&SVector::from(angles), 0.0);
        assert_symmetric_positive_definite(&mass, 1e-4);
    }
}
