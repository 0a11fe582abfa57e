//! Robots read from URDF: their residual Jacobians differentiate the inverse dynamics
//! (recursive Newton–Euler with q̈ as symbols) instead of M q̈, so they are checked here on an
//! open chain with inputs and damping, a closed loop, a branched robot with mimic constraints
//! and a 31-joint humanoid.

use crate::support::check_controlled;
use udk::lagrangian;
use udk::nalgebra::SVector;

#[allow(dead_code)]
#[path = "../../examples/urdf_four_bar.rs"]
mod four_bar;

#[allow(dead_code)]
#[path = "../../examples/panda_mimic.rs"]
mod panda_mimic;

/// The Romeo humanoid of `tests/robots` (31 joints, fixed base). Its `residual_jacobians`
/// binds more than `udk_symbolic::limits::MAX_LET_STATEMENTS` temporaries, so building this
/// test (a debug build) also checks their single declaration: with one `let` each, rustc
/// crashed on it.
#[lagrangian(urdf = "robots/romeo_small.urdf")]
struct Romeo;

/// The UR5 with joint damping (a velocity-dependent force besides the inverse dynamics).
#[lagrangian(urdf = "robots/ur5_robot.urdf", joint_damping = true)]
struct DampedUr5;

#[test]
fn an_arm_with_inputs_and_damping() {
    let q = SVector::<f64, 6>::from([0.3, -1.1, 1.4, -0.6, 0.9, 0.2]);
    let qd = SVector::<f64, 6>::from([0.5, -0.3, 0.8, 1.2, -0.7, 0.4]);
    let tau = SVector::<f64, 6>::from([2.0, -10.0, 4.0, 0.5, -0.3, 0.1]);
    check_controlled("UR5 (URDF, damped)", &DampedUr5, &q, &qd, &tau, 0.0);
}

#[test]
fn a_closed_loop_of_a_urdf_tree() {
    let (q, qd) = four_bar::UrdfFourBar::start(1.0, 2.5).expect("assembles");
    let tau = SVector::<f64, 3>::from([0.4, 0.0, 0.0]);
    check_controlled(
        "four-bar (URDF)",
        &four_bar::UrdfFourBar,
        &q,
        &qd,
        &tau,
        0.0,
    );
}

#[test]
fn a_branched_robot_with_mimic_constraints() {
    let (q, mut qd) = panda_mimic::PandaMimic::ready();
    qd[0] = 0.4;
    qd[3] = -0.7;
    let tau = panda_mimic::PandaMimic::hold(&q, &qd);
    check_controlled(
        "Panda (mimic fingers)",
        &panda_mimic::PandaMimic,
        &q,
        &qd,
        &tau,
        0.0,
    );
}

#[test]
fn a_humanoid() {
    let q = SVector::<f64, 31>::from_fn(|i, _| 0.4 * (1.3 * i as f64 + 0.2).sin());
    let qd = SVector::<f64, 31>::from_fn(|i, _| (0.7 * i as f64 + 0.5).cos());
    let tau = SVector::<f64, 31>::from_fn(|i, _| 2.0 * (0.9 * i as f64).sin());
    check_controlled("Romeo", &Romeo, &q, &qd, &tau, 0.0);
}
