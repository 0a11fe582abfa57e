//! A six-link spatial arm with the UR5's kinematic structure (Universal Robots' standard
//! Denavit–Hartenberg parameters), written with `let` definitions and `kinetic_energy`, driven
//! by six joint torques.
//!
//! Frames follow the standard DH convention, Tᵢ = Rz(qᵢ)·Tz(dᵢ)·Tx(aᵢ)·Rx(αᵢ): the link
//! frames are Rᵢ = Rᵢ₋₁·rot_z(qᵢ)·rot_x(αᵢ) and their origins oᵢ = oᵢ₋₁ + dᵢ·(Rᵢ₋₁ e_z) +
//! aᵢ·(Rᵢ e_x) (the same point as oᵢ₋₁ + Rᵢ₋₁·(rot_z(qᵢ)·(aᵢ, 0, 0) + (0, 0, dᵢ)), since
//! rot_x(αᵢ) leaves e_x alone). Link i's centre of mass is oᵢ + Rᵢ cᵢ, with cᵢ in the DH link
//! frame. Joints 1, 4 and 5 have α = ±π/2 (`quarter`, `quarter_back`): udk folds sin and cos
//! of float multiples of π/2 to the exact 0 and ±1, so these quarter turns carry no 6e-17
//! entries into the later frames (with them the emitted code took 2469 operations, not 1862).
//!
//! The geometry, masses and inertias are the UR5's, hard-coded as `let` constants (folded
//! when the model is derived, so zero offsets cost nothing); gravity is the struct's one field.
//! `examples/models/ur5_arm.toml` is the same model as a model file, and
//! `examples/models/ur5_arm_expanded.toml` the same Lagrangian expanded by a SymPy script
//! (`tests/fixtures/make_ur5_arm_expanded.py`), the way an outside tool delivers it.
//!
//! `tests/multibody/ur5_arm.rs` checks q̈ against Pinocchio's articulated-body algorithm and
//! against the expanded Lagrangian, M's symmetry and definiteness, and the energy over 2 s.
//!
//! Run with `cargo run --release --example ur5_arm`.

use udk::lagrangian;
use udk::nalgebra::SVector;
use udk::runtime::simulate::{simulate_lagrangian, Showcase, SimulationOptions, Summary};
use udk::runtime::ControlledLagrangianSystem;

/// The UR5 arm: six revolute joints q1..q6 (rad), joint torques tau1..tau6 (N m) as the
/// generalized forces, gravity `g` (m/s²) along −z.
///
/// DH parameters (m): d1 = 0.089159, a2 = −0.425, a3 = −0.39225, d4 = 0.10915, d5 = 0.09465,
/// d6 = 0.0823; α = (π/2, 0, 0, π/2, −π/2, 0). Link masses (kg): 3.7, 8.393, 2.275, 1.219,
/// 1.219, 0.1879; centres of mass in the DH link frames (m) and diagonal inertias about them
/// (kg m²) as in the definitions below. The output `tool` is the flange's position o6 (m).
#[lagrangian(
    coordinates(q1, q2, q3, q4, q5, q6),
    inputs(tau1, tau2, tau3, tau4, tau5, tau6),
    // rot_x(π/2) and rot_x(−π/2) with exact entries: the unit quaternions (h, ±h, 0, 0).
    let quarter = rot_x(0.5 * PI),
    let quarter_back = rot_x(-0.5 * PI),
    let ex = vec3(1.0, 0.0, 0.0),
    let ez = vec3(0.0, 0.0, 1.0),
    // The DH chain.
    let r1 = rot_z(q1) * quarter,
    let o1 = 0.089159 * ez,
    let r2 = r1 * rot_z(q2),
    let o2 = o1 - 0.425 * (r2 * ex),
    let r3 = r2 * rot_z(q3),
    let o3 = o2 - 0.39225 * (r3 * ex),
    let r4 = r3 * rot_z(q4) * quarter,
    let o4 = o3 + 0.10915 * (r3 * ez),
    let r5 = r4 * rot_z(q5) * quarter_back,
    let o5 = o4 + 0.09465 * (r4 * ez),
    let r6 = r5 * rot_z(q6),
    let o6 = o5 + 0.0823 * (r5 * ez),
    // The centres of mass.
    let p1 = o1 + r1 * vec3(0.0, -0.02561, 0.00193),
    let p2 = o2 + r2 * vec3(0.2125, 0.0, 0.11336),
    let p3 = o3 + r3 * vec3(0.15, 0.0, 0.0265),
    let p4 = o4 + r4 * vec3(0.0, -0.0018, 0.01634),
    let p5 = o5 + r5 * vec3(0.0, 0.0018, 0.01634),
    let p6 = o6 + r6 * vec3(0.0, 0.0, -0.001159),
    lagrangian = kinetic_energy(3.7, diag(0.0102, 0.0102, 0.0067), p1, r1)
        + kinetic_energy(8.393, diag(0.2269, 0.2269, 0.0151), p2, r2)
        + kinetic_energy(2.275, diag(0.0494, 0.0494, 0.0041), p3, r3)
        + kinetic_energy(1.219, diag(0.001112, 0.001112, 0.002194), p4, r4)
        + kinetic_energy(1.219, diag(0.001112, 0.001112, 0.002194), p5, r5)
        + kinetic_energy(0.1879, diag(0.000171, 0.000171, 0.000338), p6, r6)
        - g * (3.7 * p1.z() + 8.393 * p2.z() + 2.275 * p3.z()
            + 1.219 * p4.z() + 1.219 * p5.z() + 0.1879 * p6.z()),
    forces(tau1, tau2, tau3, tau4, tau5, tau6),
    outputs(tool = o6),
)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ur5Arm {
    pub g: f64,
}

impl Ur5Arm {
    /// The arm under standard gravity, g = 9.81 m/s².
    pub const EXAMPLE: Self = Self { g: 9.81 };

    /// A general pose, away from the wrist singularity (q5 ≠ 0, π), and joint rates (rad/s):
    /// the state of the example and of the benchmark.
    pub fn pose() -> (SVector<f64, 6>, SVector<f64, 6>) {
        (
            SVector::from([0.3, -1.1, 1.4, -0.6, 0.9, 0.2]),
            SVector::from([0.5, -0.4, 0.8, 1.2, -0.7, 1.5]),
        )
    }
}

fn main() {
    let arm = Ur5Arm::EXAMPLE;
    let equations = Ur5Arm::EQUATIONS_TEXT;
    println!(
        "EQUATIONS: {} lines, {:.1} KB of text",
        equations.lines().count(),
        equations.len() as f64 / 1024.0
    );
    let (q, qd) = Ur5Arm::pose();
    let zero = SVector::<f64, 6>::zeros();
    let qdd = arm
        .acceleration(&q, &qd, &zero, 0.0)
        .expect("the arm's mass matrix is positive definite");
    println!("q̈ under zero torque (rad/s²): {:.6?}", qdd.as_slice());
    println!(
        "tool at (m): {:.6?}",
        arm.tool(&q, &qd, &zero, 0.0).as_slice()
    );

    // Two seconds of free fall from the pose, no torque; writes target/udk/ur5_arm.csv and .svg.
    let passive = arm.closed_loop(|_, _, _: &SVector<f64, 6>| SVector::<f64, 6>::zeros());
    let run = Showcase::new(
        env!("CARGO_MANIFEST_DIR"),
        "ur5_arm",
        "UR5 arm falling under gravity, zero joint torques",
        &Ur5Arm::COORDINATE_NAMES,
    );
    let report = run.run(&SimulationOptions::every(0.01), |options| {
        simulate_lagrangian(&passive, &q, &qd, 0.0, 2.0, options)
    });
    println!("{}\n{report}", Summary::header());
}
