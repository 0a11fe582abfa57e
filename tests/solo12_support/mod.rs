//! Solo12 of example-robot-data on a floating base, its feet as link points, with the standing
//! posture and the PD law it lands under: what the floating-base tests and
//! `examples/solo12_landing.rs` share.
//!
//! Each test binary compiles this module and uses a part of it.
#![allow(dead_code)]

use udk::lagrangian;
use udk::nalgebra::{SVector, UnitQuaternion};

/// Solo12 on a free flyer (q: 19 entries, the base position and unit quaternion then the 12
/// joints; v: 18), its four feet as link points.
#[lagrangian(
    urdf = "robots/example-robot-data/solo_description/robots/solo12.urdf",
    floating_base = true,
    outputs(
        FL = link_position("FL_FOOT"),
        FR = link_position("FR_FOOT"),
        HL = link_position("HL_FOOT"),
        HR = link_position("HR_FOOT"),
    )
)]
pub struct Solo12;

/// The standing posture of example-robot-data's SRDF (rad): HAA ±0.1, HFE ±0.8, KFE ∓1.6,
/// front legs then hind legs.
pub const POSTURE: [f64; 12] = [
    0.1, 0.8, -1.6, -0.1, 0.8, -1.6, 0.1, -0.8, 1.6, -0.1, -0.8, 1.6,
];

/// The PD gains (Kp in N·m/rad, Kd in N·m·s/rad).
pub const GAINS: (f64, f64) = (20.0, 0.5);

/// The joint torques τ = Kp (q* − q) − Kd q̇ (12 entries, N·m) toward [`POSTURE`] at the
/// coordinates q (19 entries) and velocities v (18).
pub fn pd(q: &[f64], v: &[f64], tau: &mut [f64]) {
    for (j, tau) in tau.iter_mut().enumerate() {
        *tau = GAINS.0 * (POSTURE[j] - q[7 + j]) - GAINS.1 * v[6 + j];
    }
}

/// The landing start: the base 0.3 m above the ground, tilted by 0.05 rad in roll and 0.03 rad
/// in pitch (so that the feet touch down one at a time), the legs in [`POSTURE`].
pub fn landing_start() -> SVector<f64, 19> {
    let mut q0 = SVector::<f64, 19>::zeros();
    q0[2] = 0.3;
    let turn = UnitQuaternion::from_euler_angles(0.05, 0.03, 0.0);
    q0.fixed_rows_mut::<4>(3)
        .copy_from(&turn.quaternion().coords);
    q0.fixed_rows_mut::<12>(7).copy_from_slice(&POSTURE);
    q0
}
