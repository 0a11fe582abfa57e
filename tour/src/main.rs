//! A tour of udk: simulates systems of the papers end to end and writes what a person can look
//! at. For each system it prints the integrator's work, the largest constraint violation, the
//! energy drift and the wall time, and writes `target/udk/<system>.csv` and `.svg` (coordinates,
//! constraint violation and relative energy error against time).
//!
//! Run with `cargo run --release -p udk-tour`, the README's first command. A crate of its own
//! (not an example of `udk`) so that its build leaves out what it does not use: `udk` without
//! its default `model` feature (the JIT and Cranelift) and `udk`'s dev-dependencies.

#[path = "../../tests/simulation/models.rs"]
mod models;
#[allow(dead_code)]
#[path = "../../examples/whipple_bicycle.rs"]
mod whipple_bicycle;

use std::path::Path;

use models::*;
use udk::nalgebra::{Vector2, Vector3, Vector4};
use udk::runtime::simulate::{
    simulate_hamiltonian, simulate_lagrangian, Projection, Showcase, SimulationOptions, Summary,
};

fn main() {
    // The workspace's root: the files go to its target/udk/.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .and_then(Path::to_str);
    let root = root.expect("the workspace root, a UTF-8 path");
    println!("{}", Summary::header());

    // The Whipple bicycle (Meijaard et al. 2007), four bodies with rolling contact, kicked
    // in roll at 5 m/s (self-stable) and at 3 m/s (the weave grows); 5 s each.
    whipple_bicycle::self_stability_runs(root);

    // Spherical pendulum (Udwadia 2016, section 4.1): 1 kg on a 1 m rod, 60° from the
    // downward vertical, 1.5 m/s horizontally; 100 s.
    let (pendulum, q0, qd0) = pendulum_start();
    let xyz = ["x", "y", "z"];
    let title = "Spherical pendulum, Cartesian Lagrangian (Udwadia 2016, §4.1)";
    let run = Showcase::new(root, "spherical_pendulum_lagrangian", title, &xyz);
    let report = run.run(&SimulationOptions::every(0.05), |options| {
        simulate_lagrangian(&pendulum, &q0, &qd0, 0.0, 100.0, options)
    });
    println!("{report}");

    // The same run without Baumgarte, projected back onto f = 0, ḟ = 0 every 0.05 s instead.
    let projected = SimulationOptions {
        stabilization: None,
        projection: Some(Projection::default()),
        ..SimulationOptions::every(0.05)
    };
    let title = "Spherical pendulum, no Baumgarte, projection every 0.05 s";
    let run = Showcase::new(root, "spherical_pendulum_projected", title, &xyz);
    let report = run.run(&projected, |options| {
        simulate_lagrangian(&pendulum, &q0, &qd0, 0.0, 100.0, options)
    });
    println!("{report}");

    // The same pendulum from H = pᵀp/2m − mgz with φ = qᵀp = 0 (eqs 37–42). The model has no
    // holonomic f (so |f| shows 0): Baumgarte keeps φ at zero, and |q| − l is reported below.
    let hamiltonian = SphericalPendulum { m: 1.0, g: 9.81 };
    let p0 = pendulum.m * qd0;
    let title = "Spherical pendulum, Hamiltonian with φ = qᵀp (Udwadia 2016, eqs 37–42)";
    let run = Showcase::new(root, "spherical_pendulum_hamiltonian", title, &xyz);
    let report = run.run(&SimulationOptions::every(0.05), |options| {
        simulate_hamiltonian(&hamiltonian, &q0, &p0, 0.0, 100.0, options)
    });
    println!("{report}");
    if let Some(run) = report.trajectory() {
        let length_drift = (run.samples.iter())
            .map(|s| (s.q.norm() - pendulum.l).abs())
            .fold(0.0, f64::max);
        println!("{:<34} max ||q| − l| = {length_drift:.1e} m", "");
    }

    // Wheel rolling down an incline, singular mass matrix (Udwadia & Phohomsiri 2006,
    // example 1): 2 kg, radius 0.3 m, I_c = 0.09 kg m², incline 0.4 rad, from rest; 5 s.
    let title = "Wheel on an incline, singular M (Udwadia & Phohomsiri 2006, eq 5.17)";
    let run = Showcase::new(root, "wheel_on_incline", title, &["θ", "y"]);
    let rest = Vector2::zeros();
    let report = run.run(&SimulationOptions::every(0.01), |options| {
        simulate_lagrangian(&WheelOnIncline::EXAMPLE, &rest, &rest, 0.0, 5.0, options)
    });
    println!("{report}");

    // Torque-free rigid body in unit quaternions, M = 4EᵀJE of rank 3 (Udwadia & Wanichanon
    // 2013, eq 4.6): J = diag(1, 2, 3) kg m², spun at 1 rad/s nearly about the intermediate
    // axis, so it keeps flipping over (the tennis-racket effect); 30 s.
    let body = QuaternionRigidBody {
        tau1: 0.0,
        tau2: 0.0,
        tau3: 0.0,
        ..QuaternionRigidBody::EXAMPLE
    };
    let u0 = [0.5, 0.5, 0.5, 0.5];
    let (u0, ud0) = (
        Vector4::from(u0),
        Vector4::from(quaternion_rate(&u0, &[0.02, 1.0, 0.02])),
    );
    let title = "Torque-free rigid body in quaternions (Udwadia & Wanichanon 2013, eq 4.6)";
    let run = Showcase::new(
        root,
        "quaternion_rigid_body",
        title,
        &["u0", "u1", "u2", "u3"],
    );
    let report = run.run(&SimulationOptions::every(0.02), |options| {
        simulate_lagrangian(&body, &u0, &ud0, 0.0, 30.0, options)
    });
    println!("{report}");

    // Particle driven along the spiral r = e^{0.1θ}, θ = 30 − t, with the paper's initial
    // state r = e³, θ = 30, ṙ = −0.1e³, θ̇ = −1 (review paper, section 8.1); 30 s.
    let e3 = 3.0f64.exp();
    let (q0, qd0) = (Vector2::new(e3, 30.0), Vector2::new(-0.1 * e3, -1.0));
    let run = Showcase {
        energy_note: Some("the constraint θ = 30 − t drives the particle and does work"),
        ..Showcase::new(
            root,
            "spiral_particle",
            "Particle on a driven spiral (review paper, eq 57)",
            &["r", "θ"],
        )
    };
    let report = run.run(&SimulationOptions::every(0.02), |options| {
        simulate_lagrangian(&SpiralParticle { g: 9.81 }, &q0, &qd0, 0.0, 30.0, options)
    });
    println!("{report}");

    // The wheel with a zero-mass particle (ibid., example 2): the motion is not unique, and
    // the run says so instead of inventing one.
    let massless = wheel_with_massless_particle();
    let title = "Wheel with a zero-mass particle";
    let run = Showcase::new(root, "wheel_zero_mass_particle", title, &["θ", "y", "x"]);
    let rest = Vector3::zeros();
    let report = run.run(&SimulationOptions::every(0.01), |options| {
        simulate_lagrangian(&massless, &rest, &rest, 0.0, 5.0, options)
    });
    println!("{report}");

    println!(
        "\nmax |f|: holonomic constraints; max |ḟ,φ|: velocity level; energy drift: max \
         |E − E₀|/|E₀| of the Jacobi integral or H (in parentheses where it is not conserved)."
    );
    println!("CSV and SVG files in {}/target/udk", root);
}
