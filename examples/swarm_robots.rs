//! A swarm of five mobile robots whose velocities follow the gradient of the interaction
//! potential G_ij = −0.5‖qⁱ − qʲ‖ + ½‖qⁱ − qʲ‖² + 50 (review paper, section 8.2, eqs 60–64).
//!
//! The ten nonholonomic constraints q̇ⁱ = −Σⱼ ∇_{qⁱ} G_ij give A = I, so the constrained
//! acceleration is b itself (eq 63), whatever the masses.
//!
//! Run with `cargo run --example swarm_robots`.

use udk::lagrangian;
use udk::nalgebra::SVector;
use udk::runtime::simulate::{simulate_lagrangian, Showcase, SimulationOptions, Summary};

/// Five robots of mass `m` (kg) in the plane, free of applied forces (the paper's F_i = 0).
#[lagrangian(
    coordinates(x1, y1, x2, y2, x3, y3, x4, y4, x5, y5),
    lagrangian = 0.5 * m * (dot(x1).powi(2) + dot(y1).powi(2) + dot(x2).powi(2) + dot(y2).powi(2)
        + dot(x3).powi(2) + dot(y3).powi(2) + dot(x4).powi(2) + dot(y4).powi(2)
        + dot(x5).powi(2) + dot(y5).powi(2)),
    nonholonomic(
        dot(x1) + (x1 - x2) * (1.0 - 0.5 / ((x1 - x2).powi(2) + (y1 - y2).powi(2)).sqrt())
            + (x1 - x3) * (1.0 - 0.5 / ((x1 - x3).powi(2) + (y1 - y3).powi(2)).sqrt())
            + (x1 - x4) * (1.0 - 0.5 / ((x1 - x4).powi(2) + (y1 - y4).powi(2)).sqrt())
            + (x1 - x5) * (1.0 - 0.5 / ((x1 - x5).powi(2) + (y1 - y5).powi(2)).sqrt()),
        dot(y1) + (y1 - y2) * (1.0 - 0.5 / ((x1 - x2).powi(2) + (y1 - y2).powi(2)).sqrt())
            + (y1 - y3) * (1.0 - 0.5 / ((x1 - x3).powi(2) + (y1 - y3).powi(2)).sqrt())
            + (y1 - y4) * (1.0 - 0.5 / ((x1 - x4).powi(2) + (y1 - y4).powi(2)).sqrt())
            + (y1 - y5) * (1.0 - 0.5 / ((x1 - x5).powi(2) + (y1 - y5).powi(2)).sqrt()),
        dot(x2) + (x2 - x1) * (1.0 - 0.5 / ((x2 - x1).powi(2) + (y2 - y1).powi(2)).sqrt())
            + (x2 - x3) * (1.0 - 0.5 / ((x2 - x3).powi(2) + (y2 - y3).powi(2)).sqrt())
            + (x2 - x4) * (1.0 - 0.5 / ((x2 - x4).powi(2) + (y2 - y4).powi(2)).sqrt())
            + (x2 - x5) * (1.0 - 0.5 / ((x2 - x5).powi(2) + (y2 - y5).powi(2)).sqrt()),
        dot(y2) + (y2 - y1) * (1.0 - 0.5 / ((x2 - x1).powi(2) + (y2 - y1).powi(2)).sqrt())
            + (y2 - y3) * (1.0 - 0.5 / ((x2 - x3).powi(2) + (y2 - y3).powi(2)).sqrt())
            + (y2 - y4) * (1.0 - 0.5 / ((x2 - x4).powi(2) + (y2 - y4).powi(2)).sqrt())
            + (y2 - y5) * (1.0 - 0.5 / ((x2 - x5).powi(2) + (y2 - y5).powi(2)).sqrt()),
        dot(x3) + (x3 - x1) * (1.0 - 0.5 / ((x3 - x1).powi(2) + (y3 - y1).powi(2)).sqrt())
            + (x3 - x2) * (1.0 - 0.5 / ((x3 - x2).powi(2) + (y3 - y2).powi(2)).sqrt())
            + (x3 - x4) * (1.0 - 0.5 / ((x3 - x4).powi(2) + (y3 - y4).powi(2)).sqrt())
            + (x3 - x5) * (1.0 - 0.5 / ((x3 - x5).powi(2) + (y3 - y5).powi(2)).sqrt()),
        dot(y3) + (y3 - y1) * (1.0 - 0.5 / ((x3 - x1).powi(2) + (y3 - y1).powi(2)).sqrt())
            + (y3 - y2) * (1.0 - 0.5 / ((x3 - x2).powi(2) + (y3 - y2).powi(2)).sqrt())
            + (y3 - y4) * (1.0 - 0.5 / ((x3 - x4).powi(2) + (y3 - y4).powi(2)).sqrt())
            + (y3 - y5) * (1.0 - 0.5 / ((x3 - x5).powi(2) + (y3 - y5).powi(2)).sqrt()),
        dot(x4) + (x4 - x1) * (1.0 - 0.5 / ((x4 - x1).powi(2) + (y4 - y1).powi(2)).sqrt())
            + (x4 - x2) * (1.0 - 0.5 / ((x4 - x2).powi(2) + (y4 - y2).powi(2)).sqrt())
            + (x4 - x3) * (1.0 - 0.5 / ((x4 - x3).powi(2) + (y4 - y3).powi(2)).sqrt())
            + (x4 - x5) * (1.0 - 0.5 / ((x4 - x5).powi(2) + (y4 - y5).powi(2)).sqrt()),
        dot(y4) + (y4 - y1) * (1.0 - 0.5 / ((x4 - x1).powi(2) + (y4 - y1).powi(2)).sqrt())
            + (y4 - y2) * (1.0 - 0.5 / ((x4 - x2).powi(2) + (y4 - y2).powi(2)).sqrt())
            + (y4 - y3) * (1.0 - 0.5 / ((x4 - x3).powi(2) + (y4 - y3).powi(2)).sqrt())
            + (y4 - y5) * (1.0 - 0.5 / ((x4 - x5).powi(2) + (y4 - y5).powi(2)).sqrt()),
        dot(x5) + (x5 - x1) * (1.0 - 0.5 / ((x5 - x1).powi(2) + (y5 - y1).powi(2)).sqrt())
            + (x5 - x2) * (1.0 - 0.5 / ((x5 - x2).powi(2) + (y5 - y2).powi(2)).sqrt())
            + (x5 - x3) * (1.0 - 0.5 / ((x5 - x3).powi(2) + (y5 - y3).powi(2)).sqrt())
            + (x5 - x4) * (1.0 - 0.5 / ((x5 - x4).powi(2) + (y5 - y4).powi(2)).sqrt()),
        dot(y5) + (y5 - y1) * (1.0 - 0.5 / ((x5 - x1).powi(2) + (y5 - y1).powi(2)).sqrt())
            + (y5 - y2) * (1.0 - 0.5 / ((x5 - x2).powi(2) + (y5 - y2).powi(2)).sqrt())
            + (y5 - y3) * (1.0 - 0.5 / ((x5 - x3).powi(2) + (y5 - y3).powi(2)).sqrt())
            + (y5 - y4) * (1.0 - 0.5 / ((x5 - x4).powi(2) + (y5 - y4).powi(2)).sqrt()),
    ),
)]
pub struct SwarmOfFiveRobots {
    pub m: f64,
}

fn main() {
    let swarm = SwarmOfFiveRobots { m: 2.0 };
    let q = SVector::<f64, 10>::from_column_slice(&[
        0.0, 0.0, 3.0, 1.0, -2.0, 2.5, 1.5, -3.0, -1.0, -1.5,
    ]);
    let qd = SVector::<f64, 10>::from_column_slice(&[
        0.2, -0.1, 0.0, 0.3, -0.4, 0.1, 0.2, 0.2, -0.3, 0.0,
    ]);
    let qdd = swarm.acceleration(&q, &qd, 0.0).expect("A = I");
    for i in 0..5 {
        println!(
            "robot {}: acceleration ({:.6}, {:.6})",
            i + 1,
            qdd[2 * i],
            qdd[2 * i + 1]
        );
    }
    println!(
        "velocity residual β = {:.6}",
        swarm.velocity_residual(&q, &qd, 0.0).norm()
    );

    // 5 s from the same positions with the velocities the constraints prescribe,
    // q̇ = −Σ∇G (φ(q, 0) is Σ∇G).
    let qd0 = -swarm.velocity_residual(&q, &SVector::zeros(), 0.0);
    let run = Showcase {
        energy_note: Some("the constraints prescribe the velocities and do work"),
        ..Showcase::new(
            env!("CARGO_MANIFEST_DIR"),
            "swarm_robots",
            "Swarm of five robots (review paper, section 8.2, eqs 60–64)",
            &["x1", "y1", "x2", "y2", "x3", "y3", "x4", "y4", "x5", "y5"],
        )
    };
    let report = run.run(&SimulationOptions::every(0.01), |options| {
        simulate_lagrangian(&swarm, &q, &qd0, 0.0, 5.0, options)
    });
    println!("\n{}\n{report}", Summary::header());
}
