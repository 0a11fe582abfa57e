//! A free particle under the nonholonomic constraint z²pₓ − p_y = 0 (Udwadia 2016, section 4.2,
//! eqs 43–46). The constrained motion is ṗ = −2zpₓp_z / (m(1 + z⁴)) [z², −1, 0]ᵀ (eq 46).
//!
//! Run with `cargo run --example nonholonomic_particle`.

use udk::hamiltonian;
use udk::nalgebra::Vector3;
use udk::runtime::simulate::{simulate_hamiltonian, Showcase, SimulationOptions, Summary};

/// A particle of mass `m` (kg), H = pᵀp/2m (eq 43), constrained by φ = z²pₓ − p_y (eq 44).
#[hamiltonian(
    coordinates(x, y, z),
    momenta(px, py, pz),
    hamiltonian = (px.powi(2) + py.powi(2) + pz.powi(2)) / (2.0 * m),
    constraints(z.powi(2) * px - py),
)]
pub struct NonholonomicParticle {
    pub m: f64,
}

fn main() {
    let particle = NonholonomicParticle { m: 2.0 };
    let (q, z) = (Vector3::new(0.1, -0.4, 0.8), 0.8f64);
    let p = Vector3::new(1.0, z * z, 0.5);
    let (qd, pd) = particle.state_derivative(&q, &p, 0.0).expect("consistent");
    let k = -2.0 * z * p[0] * p[2] / (particle.m * (1.0 + z.powi(4)));
    println!("q̇ = {:?}", qd.as_slice());
    println!("ṗ = {:?}", pd.as_slice());
    println!("eq 46: {:?}", [k * z * z, -k, 0.0]);
    println!("φ = {}", particle.constraint_residual(&q, &p, 0.0)[0]);

    // 10 s from this state (φ = 0).
    let run = Showcase::new(
        env!("CARGO_MANIFEST_DIR"),
        "nonholonomic_particle",
        "Particle under z²pₓ − p_y = 0 (Udwadia 2016, eqs 43–46)",
        &["x", "y", "z"],
    );
    let report = run.run(&SimulationOptions::every(0.01), |options| {
        simulate_hamiltonian(&particle, &q, &p, 0.0, 10.0, options)
    });
    println!("\n{}\n{report}", Summary::header());
}
