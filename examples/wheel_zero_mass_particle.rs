//! The wheel on an incline with a zero-mass particle added (Udwadia & Phohomsiri 2006,
//! example 2, eqs 5.18–5.23).
//!
//! The particle's coordinate x appears in no term: its row of M and its column of A are zero,
//! so [M; A] has rank 2 < n = 3 and ẍ is arbitrary (η in eq 5.23). The generated
//! `acceleration` reports this as `Error::NonUniqueAcceleration` instead of inventing a value.
//!
//! Run with `cargo run --example wheel_zero_mass_particle`.

use udk::lagrangian;
use udk::nalgebra::Vector3;
use udk::runtime::simulate::{simulate_lagrangian, Showcase, SimulationOptions, Summary};

/// The wheel of `wheel_on_incline` (mass `m`, radius `r`, central moment of inertia `ic`,
/// incline `alpha`, gravity `g`) with a massless particle moving along x.
#[lagrangian(
    coordinates(theta, y, x),
    lagrangian = 0.5 * m * (r * dot(theta)).powi(2) + 0.5 * ic * dot(theta).powi(2) + m * g * y,
    holonomic(y - r * theta * alpha.sin()),
)]
// x is undetermined by design (the paper's point): silence the macro's warning that says so.
#[allow(deprecated)]
pub struct WheelWithMasslessParticle {
    pub m: f64,
    pub r: f64,
    pub ic: f64,
    pub g: f64,
    pub alpha: f64,
}

fn main() {
    let system = WheelWithMasslessParticle {
        m: 2.0,
        r: 0.3,
        ic: 0.09,
        g: 9.81,
        alpha: 0.4,
    };
    let (q, qd) = (Vector3::new(1.0, 0.3 * 0.4f64.sin(), 0.0), Vector3::zeros());
    println!("M = {}", system.mass_matrix(&q, 0.0));
    println!("A = {}", system.constraint_matrix(&q, &qd, 0.0));
    match system.acceleration(&q, &qd, 0.0) {
        Ok(qdd) => println!("unexpectedly unique: {qdd}"),
        Err(error) => println!("as eq 5.23 says, the motion is not unique: {error}"),
    }

    // A run stops at its first evaluation, with the error and its time (no file is written).
    let run = Showcase::new(
        env!("CARGO_MANIFEST_DIR"),
        "wheel_zero_mass_particle",
        "Wheel with a zero-mass particle",
        &["θ", "y", "x"],
    );
    let report = run.run(&SimulationOptions::every(0.01), |options| {
        simulate_lagrangian(&system, &q, &qd, 0.0, 5.0, options)
    });
    println!("\n{}\n{report}", Summary::header());
}
