//! Two particles on a frictionless incline, joined by a light rod of length L, whose
//! velocities must stay perpendicular to the rod: three functionally dependent constraints,
//! one holonomic and two nonholonomic (Udwadia 2016, section 4.3, eqs 47–66).
//!
//! The rows of A_p are dependent, so A_p H_pp⁻¹ A_pᵀ is singular; the runtime's
//! Moore–Penrose path handles it and gives eqs 64–66.
//!
//! Run with `cargo run --example two_particles_incline`.

use udk::hamiltonian;
use udk::nalgebra::Vector4;
use udk::runtime::simulate::{simulate_hamiltonian, Showcase, SimulationOptions, Summary};

/// Masses `m1`, `m2` (kg) on a plane inclined at `alpha` (rad) under gravity `g` (m/s²), a
/// distance `l` (m) apart; X and Y lie in the plane (eq 47).
#[hamiltonian(
    coordinates(x1, y1, x2, y2),
    momenta(px1, py1, px2, py2),
    hamiltonian = (px1.powi(2) + py1.powi(2)) / (2.0 * m1) + (px2.powi(2) + py2.powi(2)) / (2.0 * m2)
        + g * (m1 * y1 + m2 * y2) * alpha.sin(),
    holonomic((x1 - x2).powi(2) + (y1 - y2).powi(2) - l.powi(2)),
    constraints(
        (x1 - x2) / m1 * px1 + (y1 - y2) / m1 * py1,
        (x1 - x2) / m2 * px2 + (y1 - y2) / m2 * py2,
    ),
)]
pub struct TwoParticlesOnIncline {
    pub m1: f64,
    pub m2: f64,
    pub g: f64,
    pub alpha: f64,
    pub l: f64,
}

impl TwoParticlesOnIncline {
    /// The particles this example runs: 1 kg and 3 kg, 2 m apart, on an incline of 0.3 rad
    /// under g = 9.81 m/s².
    pub const EXAMPLE: Self = Self {
        m1: 1.0,
        m2: 3.0,
        g: 9.81,
        alpha: 0.3,
        l: 2.0,
    };
}

impl TwoParticlesOnIncline {
    /// A state on the constraints: particle 2 at (1, 0.5) m, particle 1 at distance l along
    /// the direction at angle `beta` (rad) in the plane, with speeds `v1`, `v2` (m/s)
    /// perpendicular to the rod; (q, p).
    pub fn state(&self, beta: f64, v1: f64, v2: f64) -> (Vector4<f64>, Vector4<f64>) {
        let (sin, cos) = beta.sin_cos();
        let q = Vector4::new(1.0 + self.l * cos, 0.5 + self.l * sin, 1.0, 0.5);
        let p = Vector4::new(
            -self.m1 * v1 * sin,
            self.m1 * v1 * cos,
            -self.m2 * v2 * sin,
            self.m2 * v2 * cos,
        );
        (q, p)
    }
}

fn main() {
    let system = TwoParticlesOnIncline::EXAMPLE;
    let (q, p) = system.state(0.7, 0.8, -0.3);
    println!("A_p = {}", system.terms(&q, &p, 0.0).a_p);
    let (qd, pd) = system.state_derivative(&q, &p, 0.0).expect("consistent");
    println!("q̇ = {:?}", qd.as_slice());
    println!("ṗ = {:?}", pd.as_slice());

    // 5 s with Baumgarte stabilization on: the correction of the three dependent constraints
    // is projected onto range(A_p).
    let run = Showcase::new(
        env!("CARGO_MANIFEST_DIR"),
        "two_particles_incline",
        "Two particles on an incline, dependent constraints (Udwadia 2016, eqs 47–66)",
        &["x1", "y1", "x2", "y2"],
    );
    let report = run.run(&SimulationOptions::every(0.01), |options| {
        simulate_hamiltonian(&system, &q, &p, 0.0, 5.0, options)
    });
    println!("\n{}\n{report}", Summary::header());
}
