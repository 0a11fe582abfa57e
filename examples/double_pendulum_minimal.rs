//! The double pendulum in minimal coordinates (θ₁, θ₂), with no constraints: the generated
//! mass matrix is the textbook M(θ) and `acceleration` solves M θ̈ = Q.
//!
//! Run with `cargo run --example double_pendulum_minimal`.

use udk::lagrangian;
use udk::nalgebra::Vector2;
use udk::runtime::simulate::{simulate_lagrangian, Showcase, SimulationOptions, Summary};

/// Point masses `m1`, `m2` (kg) on massless arms `l1`, `l2` (m), angles from the downward
/// vertical, gravity `g` (m/s²).
#[lagrangian(
    coordinates(theta1, theta2),
    lagrangian = 0.5 * (m1 + m2) * l1.powi(2) * dot(theta1).powi(2)
        + 0.5 * m2 * l2.powi(2) * dot(theta2).powi(2)
        + m2 * l1 * l2 * dot(theta1) * dot(theta2) * (theta1 - theta2).cos()
        + (m1 + m2) * g * l1 * theta1.cos() + m2 * g * l2 * theta2.cos(),
)]
pub struct DoublePendulum {
    pub m1: f64,
    pub m2: f64,
    pub l1: f64,
    pub l2: f64,
    pub g: f64,
}

fn main() {
    let pendulum = DoublePendulum {
        m1: 1.0,
        m2: 0.5,
        l1: 1.0,
        l2: 0.7,
        g: 9.81,
    };
    let (q, qd) = (Vector2::new(0.9, -0.4), Vector2::new(0.3, 1.1));
    println!("M(θ) = {}", pendulum.mass_matrix(&q, 0.0));
    println!(
        "θ̈ = {:?}",
        pendulum
            .acceleration(&q, &qd, 0.0)
            .expect("M is positive definite")
            .as_slice()
    );
    println!("energy = {}", pendulum.energy(&q, &qd, 0.0));

    // 10 s from this state (no constraints).
    let run = Showcase::new(
        env!("CARGO_MANIFEST_DIR"),
        "double_pendulum_minimal",
        "Double pendulum in minimal coordinates",
        &["θ1", "θ2"],
    );
    let report = run.run(&SimulationOptions::every(0.01), |options| {
        simulate_lagrangian(&pendulum, &q, &qd, 0.0, 10.0, options)
    });
    println!("\n{}\n{report}", Summary::header());
}
