//! The UR5 of `robots/ur5_robot.urdf` draws a horizontal circle of radius 0.1 m at one
//! revolution per second with its `tool0` frame, its joint torques computed from servo
//! constraints (review paper, section 8.3; Udwadia 2003): the tool origin on the circle
//! (three holonomic servo rows, functions of t) and the tool's angular velocity zero (three
//! nonholonomic rows, so that the task Jacobian is 6 × 6 and the six torques are determined).
//! Off the task, the task-space law ë = −K_d ė − K_p e brings the tool back.
//!
//! `tests/servo/ur5_circle.rs` checks the torques against computed torque from Pinocchio
//! (`tests/fixtures/make_ur5_circle.py`) to 1e-9 and the path error after convergence.
//!
//! Run with `cargo run --release --example ur5_circle`.

use udk::lagrangian;
use udk::nalgebra::SVector;
use udk::runtime::servo::{servo_loop, Convergence};
use udk::runtime::simulate::{simulate_lagrangian, Showcase, SimulationOptions, Summary};
use udk::runtime::Options;

/// The UR5 with its tool0 origin on the circle c + r (cos ωt, sin ωt, 0) of centre
/// (`cx`, `cy`, `cz`) (m), radius `radius` (m) and rate `rate` (rad/s), and its tool's angular
/// velocity zero. Inputs: the joint torques `tau_<joint>` (N m).
#[lagrangian(
    urdf = "robots/ur5_robot.urdf",
    let tool = link_position("tool0"),
    let tool_rotation = link_rotation("tool0"),
    let target = vec3(cx + radius * (rate * t).cos(), cy + radius * (rate * t).sin(), cz),
    servo(
        holonomic(tool - target),
        nonholonomic(angular_velocity(tool_rotation)),
    ),
    outputs(tool = tool, path_error = (tool - target).norm()),
)]
pub struct Ur5Circle {
    pub cx: f64,
    pub cy: f64,
    pub cz: f64,
    pub radius: f64,
    pub rate: f64,
}

impl Ur5Circle {
    /// The circle of the tests: r = 0.1 m at 1 rev/s, its point at t = 0 the tool0 origin at
    /// [`Ur5Circle::START`] (centre from Pinocchio's forward kinematics,
    /// `tests/fixtures/ur5_circle.json`).
    pub const EXAMPLE: Self = Self {
        cx: 0.4429455528236407,
        cy: 0.28829952253329805,
        cz: 0.2439427993959374,
        radius: 0.1,
        rate: 2.0 * std::f64::consts::PI,
    };

    /// The joint angles (rad) whose tool0 origin is the circle's point at t = 0.
    pub const START: [f64; 6] = [0.3, -1.2, 1.6, -1.9, -1.5, 0.2];

    /// The task-space gains of the example: K_p = 400 s⁻², K_d = 40 s⁻¹ (critical damping,
    /// time constant 0.05 s).
    pub const GAINS: Convergence = Convergence::TaskSpace {
        stiffness: 400.0,
        damping: 40.0,
    };
}

fn main() {
    let arm = Ur5Circle::EXAMPLE;
    let (q0, qd0) = (SVector::from(Ur5Circle::START), SVector::zeros());
    let control = arm
        .servo_control(&q0, &qd0, 0.0, Ur5Circle::GAINS)
        .expect("M is positive definite");
    println!("τ(0) = {:?}", control.input.as_slice());
    let run = Showcase {
        columns: &["path_error"],
        energy_note: Some("the joint torques do work"),
        ..Showcase::new(
            env!("CARGO_MANIFEST_DIR"),
            "ur5_circle",
            "UR5 drawing a circle by servo constraints",
            &Ur5Circle::COORDINATE_NAMES,
        )
    };
    let report = run.run(&SimulationOptions::every(0.01), |options| {
        let closed = servo_loop(&arm, Ur5Circle::GAINS, Options::default());
        simulate_lagrangian(&closed, &q0, &qd0, 0.0, 3.0, options)
    });
    println!("{}\n{report}", Summary::header());
}
