//! The spherical pendulum twice: in Cartesian coordinates from a Lagrangian, and from a
//! Hamiltonian with the constraint qᵀp = 0 (Udwadia 2016, section 4.1, eqs 37–42). The z-axis
//! points down.
//!
//! The two agree: with p = m q̇, ṗ of the Hamiltonian form equals m q̈ of the Lagrangian form,
//! ṗ = [0, 0, mg] − (m/L²)(pᵀp/m² + gz) q (eq 42).
//!
//! Run with `cargo run --example spherical_pendulum`.

use udk::nalgebra::Vector3;
use udk::runtime::simulate::{
    simulate_hamiltonian, simulate_lagrangian, Showcase, SimulationOptions, Summary,
};
use udk::{hamiltonian, lagrangian};

/// A particle of mass `m` (kg) on a massless rod of length `l` (m) under gravity `g` (m/s²),
/// in Cartesian coordinates with z down.
#[lagrangian(
    coordinates(x, y, z),
    lagrangian = 0.5 * m * (dot(x).powi(2) + dot(y).powi(2) + dot(z).powi(2)) + m * g * z,
    holonomic(x.powi(2) + y.powi(2) + z.powi(2) - l.powi(2)),
)]
pub struct SphericalPendulumLagrangian {
    pub m: f64,
    pub g: f64,
    pub l: f64,
}

/// The same particle as a Hamiltonian system, H = pᵀp/2m − mgz (eq 37), kept on its sphere by
/// φ = qᵀp = 0 (eq 40); the length is that of the initial q.
#[hamiltonian(
    coordinates(x, y, z),
    momenta(px, py, pz),
    hamiltonian = (px.powi(2) + py.powi(2) + pz.powi(2)) / (2.0 * m) - m * g * z,
    constraints(x * px + y * py + z * pz),
)]
pub struct SphericalPendulum {
    pub m: f64,
    pub g: f64,
}

fn main() {
    let (m, g, l) = (1.5, 9.81, 2.0);
    let lagrangian = SphericalPendulumLagrangian { m, g, l };
    let hamiltonian = SphericalPendulum { m, g };
    println!(
        "Hamiltonian model:\n{}\n",
        SphericalPendulum::EQUATIONS.text
    );

    // A state on the sphere |q| = l with the velocity tangent to it.
    let q = Vector3::new(1.2, 0.0, 1.6);
    let qd = Vector3::new(0.0, 0.7, 0.0);
    let qdd = lagrangian.acceleration(&q, &qd, 0.0).expect("unique");
    let (velocity, pd) = hamiltonian
        .state_derivative(&q, &(m * qd), 0.0)
        .expect("consistent");
    println!("Lagrangian:  m q̈ = {:?}", (m * qdd).as_slice());
    println!("Hamiltonian: ṗ   = {:?}", pd.as_slice());
    println!("Hamiltonian: q̇   = {:?}", velocity.as_slice());
    println!(
        "rod tension force = {:?}",
        lagrangian
            .constraint_force(&q, &qd, 0.0)
            .expect("unique")
            .as_slice()
    );

    // Both forms for 10 s from this state (p = m q̇); target/udk/spherical_pendulum_*.csv, .svg.
    let root = env!("CARGO_MANIFEST_DIR");
    let labels = ["x", "y", "z"];
    let options = SimulationOptions::every(0.01);
    let title = "Spherical pendulum, Cartesian Lagrangian (Udwadia 2016, §4.1)";
    let run = Showcase::new(root, "spherical_pendulum_lagrangian", title, &labels);
    let from_lagrangian = run.run(&options, |o| {
        simulate_lagrangian(&lagrangian, &q, &qd, 0.0, 10.0, o)
    });
    let title = "Spherical pendulum, Hamiltonian with φ = qᵀp (Udwadia 2016, eqs 37–42)";
    let run = Showcase::new(root, "spherical_pendulum_hamiltonian", title, &labels);
    let from_hamiltonian = run.run(&options, |o| {
        simulate_hamiltonian(&hamiltonian, &q, &(m * qd), 0.0, 10.0, o)
    });
    println!(
        "\n{}\n{from_lagrangian}\n{from_hamiltonian}",
        Summary::header()
    );
}
