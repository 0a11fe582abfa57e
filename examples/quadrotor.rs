//! A quadrotor with four thrust inputs, written with generalized speeds: the world-frame
//! velocity of its centre and its body rates (the speeds Kane would choose), with ZYX angles
//! (yaw, pitch, roll) for its attitude.
//!
//! The rotors sit at distance `a` on the body x and y axes (a "+" frame: 1 at +x, 2 at +y, 3 at
//! −x, 4 at −y). Each pushes along the body z axis with its thrust fᵢ (N) and, by its drag,
//! turns the body about z with κ fᵢ (N·m), rotors 1 and 3 one way, 2 and 4 the other. Four
//! equal thrusts m g / 4 hover; shifting thrust between the pairs turns the quadrotor about
//! its vertical at the yaw acceleration 4 κ δ / I_z, with the total thrust, so the altitude,
//! unchanged. `tests/speeds.rs` checks both.
//!
//! Run with `cargo run --release --example quadrotor`.

use udk::lagrangian;
use udk::nalgebra::{SVector, Vector4};
use udk::runtime::simulate::{simulate_lagrangian, Showcase, SimulationOptions, Summary};
use udk::runtime::ControlledLagrangianSystem;

/// Mass `m` (kg), principal moments of inertia `ix`, `iy`, `iz` (kg·m²), arm length `a` (m),
/// rotor drag ratio `kappa` (m: yaw torque per newton of thrust), gravity `g` (m/s²). Inputs:
/// the four rotor thrusts (N).
#[lagrangian(
    coordinates(x, y, z, yaw, pitch, roll),
    speeds(vx, vy, vz, wx, wy, wz),
    kinematics(
        vx,
        vy,
        vz,
        (wy * roll.sin() + wz * roll.cos()) / pitch.cos(),
        wy * roll.cos() - wz * roll.sin(),
        wx + (wy * roll.sin() + wz * roll.cos()) * pitch.tan(),
    ),
    inputs(f1, f2, f3, f4),
    let frame = rot_z(yaw) * rot_y(pitch) * rot_x(roll),
    let centre = vec3(x, y, z),
    let up = frame * vec3(0.0, 0.0, 1.0),
    lagrangian = kinetic_energy(m, diag(ix, iy, iz), centre, frame) - m * g * z,
    loads(
        force(f1 * up, centre + frame * vec3(a, 0.0, 0.0)),
        force(f2 * up, centre + frame * vec3(0.0, a, 0.0)),
        force(f3 * up, centre + frame * vec3(-a, 0.0, 0.0)),
        force(f4 * up, centre + frame * vec3(0.0, -a, 0.0)),
        torque(kappa * (f1 - f2 + f3 - f4) * up, frame),
    ),
    outputs(height = z),
)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Quadrotor {
    pub m: f64,
    pub ix: f64,
    pub iy: f64,
    pub iz: f64,
    pub a: f64,
    pub kappa: f64,
    pub g: f64,
}

impl Quadrotor {
    /// A 1.2 kg quadrotor with 0.25 m arms.
    pub const EXAMPLE: Self = Self {
        m: 1.2,
        ix: 0.012,
        iy: 0.012,
        iz: 0.022,
        a: 0.25,
        kappa: 0.016,
        g: 9.81,
    };

    /// The thrusts that hover (m g / 4 each) with `shift` (N) moved from rotors 2 and 4 to 1
    /// and 3, which turns the quadrotor about its vertical at 4 κ `shift` / I_z.
    pub fn thrusts(&self, shift: f64) -> Vector4<f64> {
        let hover = self.m * self.g / 4.0;
        Vector4::new(hover + shift, hover - shift, hover + shift, hover - shift)
    }
}

fn main() {
    let quadrotor = Quadrotor::EXAMPLE;
    let (q, u) = (SVector::<f64, 6>::zeros(), SVector::<f64, 6>::zeros());
    let still = quadrotor
        .acceleration(&q, &u, &quadrotor.thrusts(0.0), 0.0)
        .expect("a unique motion");
    println!("hovering: u̇ = {}", still.transpose());
    let turning = quadrotor
        .acceleration(&q, &u, &quadrotor.thrusts(0.5), 0.0)
        .expect("a unique motion");
    println!("0.5 N shifted: u̇ = {}", turning.transpose());

    // A quarter turn: 1 s of shifted thrust, then 1 s of the opposite shift to stop.
    let law = |t: f64, _: &SVector<f64, 6>, _: &SVector<f64, 6>| {
        quadrotor.thrusts(if t < 1.0 { 0.5 } else { -0.5 })
    };
    let controlled = quadrotor.closed_loop(law);
    let run = Showcase::new(
        env!("CARGO_MANIFEST_DIR"),
        "quadrotor",
        "Quadrotor turning about its vertical by differential thrust",
        &Quadrotor::COORDINATE_NAMES,
    );
    let report = run.run(&SimulationOptions::every(0.01), |options| {
        simulate_lagrangian(&controlled, &q, &u, 0.0, 2.0, options)
    });
    println!("{}\n{report}", Summary::header());
}
