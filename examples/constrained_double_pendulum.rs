//! A double pendulum whose canonical momenta are tied by p₁ = α p₂ sin ωt, a time-dependent
//! nonholonomic constraint (Udwadia 2016, section 4.4, eqs 67–76).
//!
//! Run with `cargo run --example constrained_double_pendulum`.

use udk::hamiltonian;
use udk::nalgebra::Vector2;
use udk::runtime::simulate::{simulate_hamiltonian, Showcase, SimulationOptions, Summary};

/// Point masses `m1`, `m2` (kg) on massless arms `l1`, `l2` (m) at angles θ₁, θ₂ from the
/// downward vertical, under gravity `g` (m/s²); H of eq 67 with Δ = m₁ + m₂ sin²(θ₁ − θ₂).
#[hamiltonian(
    coordinates(theta1, theta2),
    momenta(p1, p2),
    hamiltonian = 0.5 * ((m1 + m2) * l1.powi(2) * p2.powi(2) + m2 * l2.powi(2) * p1.powi(2)
            - 2.0 * m2 * l1 * l2 * p1 * p2 * (theta1 - theta2).cos())
        / (m2 * l1.powi(2) * l2.powi(2) * (m1 + m2 * (theta1 - theta2).sin().powi(2)))
        - (m1 + m2) * g * l1 * theta1.cos() - m2 * g * l2 * theta2.cos(),
    constraints(p1 - alpha * p2 * (omega * t).sin()),
)]
pub struct ConstrainedDoublePendulum {
    pub m1: f64,
    pub m2: f64,
    pub l1: f64,
    pub l2: f64,
    pub g: f64,
    pub alpha: f64,
    pub omega: f64,
}

impl ConstrainedDoublePendulum {
    /// The pendulum this example runs: 1 kg and 0.5 kg on rods of 1 m and 0.7 m, g = 9.81 m/s²,
    /// α = 0.8, ω = 2 rad/s.
    pub const EXAMPLE: Self = Self {
        m1: 1.0,
        m2: 0.5,
        l1: 1.0,
        l2: 0.7,
        g: 9.81,
        alpha: 0.8,
        omega: 2.0,
    };
}

fn main() {
    let system = ConstrainedDoublePendulum::EXAMPLE;
    let t = 0.4;
    let q = Vector2::new(0.3, -0.2);
    let p2 = 0.6;
    let p = Vector2::new(system.alpha * p2 * (system.omega * t).sin(), p2);
    let (qd, pd) = system.state_derivative(&q, &p, t).expect("consistent");
    println!("θ̇ = {:?}", qd.as_slice());
    println!("ṗ = {:?}", pd.as_slice());
    println!(
        "constraint force on ṗ = {:?}",
        system
            .constraint_force(&q, &p, t)
            .expect("consistent")
            .as_slice()
    );

    // 5 s from this state at t = 0.4 s. H is conserved although φ depends on t: φ is linear
    // and homogeneous in p, so the constraint force does no work (q̇ᵀFᶜ ∝ A_p p = φ = 0).
    let run = Showcase::new(
        env!("CARGO_MANIFEST_DIR"),
        "constrained_double_pendulum",
        "Double pendulum under p₁ = α p₂ sin ωt (Udwadia 2016, section 4.4)",
        &["θ1", "θ2"],
    );
    let report = run.run(&SimulationOptions::every(0.01), |options| {
        simulate_hamiltonian(&system, &q, &p, t, t + 5.0, options)
    });
    println!("\n{}\n{report}", Summary::header());
}
