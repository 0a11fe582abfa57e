//! A thin disk rolling without slip on a horizontal plane, written as a body: rotations,
//! `kinetic_energy`, and the rolling constraint as the velocity of the material point at the
//! contact. The worked example of the README's "Writing a model".
//!
//! The disk's frame is heading (yaw about z), then lean (about the heading's x axis), then
//! spin (about the disk's axle, the leaned y axis). The contact point is (x, y, 0) and the
//! centre is r above it along the leaned z axis. Rolling without slip makes the velocity of
//! the disk's material point at the contact zero in the ground plane: two nonholonomic
//! constraints (its vertical component vanishes identically).
//!
//! `tests/multibody.rs` checks q̈ against sympy.physics.mechanics (`tests/fixtures`) and a
//! steady turn over 10 s.
//!
//! Run with `cargo run --release --example rolling_disk`.

use udk::lagrangian;
use udk::nalgebra::SVector;
use udk::runtime::simulate::{simulate_lagrangian, Showcase, SimulationOptions, Summary};

/// A uniform thin disk of mass `m` (kg) and radius `r` (m) under gravity `g` (m/s²), z up.
/// Coordinates: the contact point (x, y), yaw, lean (0 upright) and spin (rad).
#[lagrangian(
    coordinates(x, y, yaw, lean, spin),
    let frame = rot_z(yaw) * rot_x(lean),
    let disk = frame * rot_y(spin),
    let contact = vec3(x, y, 0.0),
    let centre = contact + r * frame * vec3(0.0, 0.0, 1.0),
    let inertia = m * r.powi(2) * diag(0.25, 0.5, 0.25),
    let slip = dot(centre) + angular_velocity(disk).cross(contact - centre),
    lagrangian = kinetic_energy(m, inertia, centre, disk) - m * g * centre.z(),
    nonholonomic(slip.x(), slip.y()),
    outputs(centre_height = centre.z(), contact_velocity = dot(contact)),
)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RollingDisk {
    pub m: f64,
    pub r: f64,
    pub g: f64,
}

impl RollingDisk {
    /// The disk of the example and of the sympy fixture: 2 kg, radius 0.5 m, g = 9.81 m/s².
    pub const EXAMPLE: Self = Self {
        m: 2.0,
        r: 0.5,
        g: 9.81,
    };

    /// A steady turn: lean 0.3 rad, yaw rate 1.2 rad/s, and the spin rate that keeps the lean
    /// (from the sympy fixture, `tests/fixtures/rolling_disk.json`), with the contact point's
    /// velocity from the rolling constraints: (q, q̇).
    pub fn steady_turn() -> (SVector<f64, 5>, SVector<f64, 5>) {
        let (lean, yaw_rate, spin_rate) = (0.3f64, 1.2, -3.667285327406233);
        // The contact point moves along the heading at r times the spin rate.
        let speed = Self::EXAMPLE.r * spin_rate;
        let q = SVector::<f64, 5>::from([0.0, 0.0, 0.0, lean, 0.0]);
        let qd = SVector::<f64, 5>::from([speed, 0.0, yaw_rate, 0.0, spin_rate]);
        (q, qd)
    }
}

fn main() {
    let disk = RollingDisk::EXAMPLE;
    println!("{}", RollingDisk::EQUATIONS_TEXT);
    let (q, qd) = RollingDisk::steady_turn();
    println!(
        "rolling residual at the steady turn: {:e}",
        disk.velocity_residual(&q, &qd, 0.0).norm()
    );
    let qdd = disk
        .acceleration(&q, &qd, 0.0)
        .expect("a rolling disk has a unique motion");
    println!("q̈ = {}", qdd.transpose());

    // Ten seconds of the steady turn; writes target/udk/rolling_disk.csv and .svg.
    let run = Showcase::new(
        env!("CARGO_MANIFEST_DIR"),
        "rolling_disk",
        "Rolling disk in a steady turn (lean 0.3 rad)",
        &["x", "y", "yaw", "lean", "spin"],
    );
    let report = run.run(&SimulationOptions::every(0.01), |options| {
        simulate_lagrangian(&disk, &q, &qd, 0.0, 10.0, options)
    });
    println!("\n{}\n{report}", Summary::header());
}
