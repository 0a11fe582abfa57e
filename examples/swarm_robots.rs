//! A swarm of five mobile robots whose velocities follow the gradient of the interaction
//! potential G_ij = −0.5‖qⁱ − qʲ‖ + ½‖qⁱ − qʲ‖² + 50 (review paper, section 8.2, eqs 60–64).
//!
//! The ten nonholonomic constraints q̇ⁱ = −Σⱼ ∇_{qⁱ} G_ij give A = I, so the constrained
//! acceleration is b itself (eq 63), whatever the masses.
//!
//! Run with `cargo run --example swarm_robots`.

use udk::lagrangian;
use udk::nalgebra::SVector;
use udk::runtime::servo::{servo_loop, Convergence};
use udk::runtime::simulate::{simulate_lagrangian, Report, Showcase, SimulationOptions, Summary};
use udk::runtime::Options;

/// The swarm of section 8.2 as the struct `$name` with the ten constraints q̇ⁱ = −Σⱼ ∇G_ij
/// (eq 61) as physical constraints (`physical`) or as servo constraints (`servo`), and the
/// keys `$keys`: one model for the swarm whose constraints are enforced and for the swarm
/// whose robots are driven onto them.
macro_rules! swarm {
    ($(#[$doc:meta])* $name:ident, $kind:ident, $($keys:tt)*) => {
        swarm!(@wrap $kind [$(#[$doc])*] $name [
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
        ] $($keys)*);
    };
    (@wrap physical [$($doc:tt)*] $name:ident [$($c:tt)*] $($keys:tt)*) => {
        swarm!(@emit [$($doc)*] $name [nonholonomic($($c)*)] $($keys)*);
    };
    (@wrap servo [$($doc:tt)*] $name:ident [$($c:tt)*] $($keys:tt)*) => {
        swarm!(@emit [$($doc)*] $name [servo(nonholonomic($($c)*))] $($keys)*);
    };
    (@emit [$($doc:tt)*] $name:ident [$($constraints:tt)*] $($keys:tt)*) => {
        $($doc)*
        #[lagrangian(
            coordinates(x1, y1, x2, y2, x3, y3, x4, y4, x5, y5),
            lagrangian = 0.5 * m * (dot(x1).powi(2) + dot(y1).powi(2) + dot(x2).powi(2) + dot(y2).powi(2)
                + dot(x3).powi(2) + dot(y3).powi(2) + dot(x4).powi(2) + dot(y4).powi(2)
                + dot(x5).powi(2) + dot(y5).powi(2)),
            $($constraints)*,
            $($keys)*
        )]
        pub struct $name {
            pub m: f64,
        }
    };
}

swarm!(
    /// Five robots of mass `m` (kg) in the plane, free of applied forces (the paper's F_i = 0),
    /// whose velocities obey eq 61 from the start.
    SwarmOfFiveRobots,
    physical,
);

swarm!(
    /// Five robots of mass `m` (kg) in the plane driven by the forces `fx1`, `fy1`, …, `fy5`
    /// (N) onto eq 61 as servo constraints: the paper's Fᶜ (eq 64) is the control.
    SwarmServo,
    servo,
    inputs(fx1, fy1, fx2, fy2, fx3, fy3, fx4, fy4, fx5, fy5),
    forces(fx1, fy1, fx2, fy2, fx3, fy3, fx4, fy4, fx5, fy5),
);

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

    // The same constraints as servo constraints: the robots start at rest, off eq 61, and the
    // control Fᶜ of eq 64 with the convergence term of eq 72 (P = 0.25 s) drives ‖β‖ down
    // (Figure 8).
    let servo = SwarmServo { m: 2.0 };
    let law = Convergence::Paper { p: 0.25 };
    let beta = |q: &SVector<f64, 10>, qd: &SVector<f64, 10>, t: f64| {
        servo.servo_terms(q, qd, t).velocity_residual.norm()
    };
    println!("servo: ‖β(0)‖ = {:.3}", beta(&q, &SVector::zeros(), 0.0));
    let run = Showcase {
        energy_note: Some("the servo forces do work"),
        ..Showcase::new(
            env!("CARGO_MANIFEST_DIR"),
            "swarm_servo",
            "Swarm of five robots driven onto eq 61 by servo control (eqs 64, 72)",
            &["x1", "y1", "x2", "y2", "x3", "y3", "x4", "y4", "x5", "y5"],
        )
    };
    let report = run.run(&SimulationOptions::every(0.01), |options| {
        simulate_lagrangian(
            &servo_loop(&servo, law, Options::default()),
            &q,
            &SVector::zeros(),
            0.0,
            5.0,
            options,
        )
    });
    println!("{report}");
    if let Report {
        outcome: Ok((trajectory, _)),
        ..
    } = &report
    {
        let last = trajectory.samples.last().expect("a sample");
        println!("‖β(5 s)‖ = {:.3e}", beta(&last.q, &last.v, last.t));
    }
}
