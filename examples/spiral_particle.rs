//! A unit-mass particle forced along the logarithmic spiral r = e^{0.1θ} with θ = 30 − t, in
//! polar coordinates under gravity (review paper, section 8.1, eqs 53–57).
//!
//! The two constraints fix q̈ completely: r̈ = 0.01 e^{0.1θ} θ̇², θ̈ = 0 (A q̈ = b of section 8.1).
//!
//! Run with `cargo run --example spiral_particle`.

use udk::lagrangian;
use udk::nalgebra::Vector2;
use udk::runtime::simulate::{simulate_lagrangian, Showcase, SimulationOptions, Summary};

/// A particle of unit mass in the vertical plane, gravity `g` (m/s²), in polar coordinates
/// (r, θ); the potential is g r sin θ.
#[lagrangian(
    coordinates(r, theta),
    lagrangian = 0.5 * (dot(r).powi(2) + r.powi(2) * dot(theta).powi(2)) - g * r * theta.sin(),
    holonomic(r - (0.1 * theta).exp(), theta + t - 30.0),
)]
pub struct SpiralParticle {
    pub g: f64,
}

fn main() {
    let particle = SpiralParticle { g: 9.81 };
    // The paper's initial state: r = e³, θ = 30, ṙ = −0.1e³, θ̇ = −1.
    let e3 = 3.0f64.exp();
    let (q, qd) = (Vector2::new(e3, 30.0), Vector2::new(-0.1 * e3, -1.0));
    let qdd = particle
        .acceleration(&q, &qd, 0.0)
        .expect("A is invertible");
    println!("(r̈, θ̈) = ({}, {})", qdd[0], qdd[1]);
    println!("closed form: ({}, 0)", 0.01 * e3);
    let force = particle
        .constraint_force(&q, &qd, 0.0)
        .expect("A is invertible");
    println!("constraint force = {:?}", force.as_slice());

    // 30 s from the paper's initial state: r = e^{3 − 0.1t}, θ = 30 − t.
    let run = Showcase {
        energy_note: Some("the constraint θ = 30 − t drives the particle and does work"),
        ..Showcase::new(
            env!("CARGO_MANIFEST_DIR"),
            "spiral_particle",
            "Particle on a driven spiral (review paper, eq 57)",
            &["r", "θ"],
        )
    };
    let report = run.run(&SimulationOptions::every(0.02), |options| {
        simulate_lagrangian(&particle, &q, &qd, 0.0, 30.0, options)
    });
    println!("\n{}\n{report}", Summary::header());
}
