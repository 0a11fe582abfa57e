//! A tour of udk: simulates systems of the papers end to end and writes what a person can look
//! at. For each system it prints the integrator's work, the largest constraint violation, the
//! energy drift and the wall time, and writes `target/udk/<system>.csv` and `.svg` (coordinates,
//! constraint violation and relative energy error against time).
//!
//! Run with `cargo run --release --example tour`.

#[path = "../tests/simulation/models.rs"]
mod models;

use models::*;
use std::path::{Path, PathBuf};
use std::time::Instant;
use udk::nalgebra::{Vector2, Vector3, Vector4};
use udk::runtime::simulate::{
    simulate_hamiltonian, simulate_lagrangian, Method, OutputTimes, Projection, SimulationError,
    SimulationOptions, Trajectory,
};

/// One simulated system, ready to report.
struct Run<const N: usize> {
    name: &'static str,
    title: &'static str,
    names: [&'static str; N],
    options: SimulationOptions,
    /// Why the energy drift is not a check for this system, if it is not.
    energy_note: Option<&'static str>,
}

impl<const N: usize> Run<N> {
    /// Prints a table row, writes the CSV and SVG files, and returns the trajectory.
    fn report(
        &self,
        directory: &Path,
        simulate: impl FnOnce(&SimulationOptions) -> Result<Trajectory<N>, SimulationError<N>>,
    ) -> Option<Trajectory<N>> {
        let start = Instant::now();
        let result = simulate(&self.options);
        let wall = start.elapsed();
        let trajectory = match result {
            Ok(trajectory) => trajectory,
            Err(error) => {
                println!("{:<34} stopped: {error}", self.name);
                return None;
            }
        };
        let method = match self.options.method {
            Method::Dop853 => "DOP853".to_string(),
            Method::Dopri5 => "DOPRI5".to_string(),
            Method::Rk4 { step } => format!("RK4 h={step}"),
        };
        let drift = format!("{:.1e}", trajectory.energy_drift());
        println!(
            "{:<34} {:<9} {:>6} {:>7} {:>8.2} {:>10.1e} {:>10.1e} {:>12} {:>9.1}",
            self.name,
            method,
            trajectory.stats.accepted_steps,
            trajectory.stats.rhs_evaluations,
            trajectory.final_time().unwrap_or(f64::NAN),
            trajectory.max_position_residual(),
            trajectory.max_velocity_residual(),
            match self.energy_note {
                Some(_) => format!("({drift})"),
                None => drift,
            },
            wall.as_secs_f64() * 1e3,
        );
        if let Some(note) = self.energy_note {
            println!("{:<34} energy not conserved: {note}", "");
        }
        let csv = directory.join(format!("{}.csv", self.name));
        let svg = directory.join(format!("{}.svg", self.name));
        if let Err(error) = trajectory.write_csv(&csv) {
            println!("    could not write {}: {error}", csv.display());
        }
        if let Err(error) = trajectory.plot_svg(&svg, self.title, &self.names) {
            println!("    could not write {}: {error}", svg.display());
        }
        Some(trajectory)
    }
}

/// Every `dt` seconds, with the default DOP853 at rtol 1e-10 and Baumgarte stabilization.
fn every(dt: f64) -> SimulationOptions {
    SimulationOptions {
        output: OutputTimes::Every(dt),
        ..SimulationOptions::default()
    }
}

fn main() {
    let directory: PathBuf = [env!("CARGO_MANIFEST_DIR"), "target", "udk"]
        .iter()
        .collect();
    println!(
        "{:<34} {:<9} {:>6} {:>7} {:>8} {:>10} {:>10} {:>12} {:>9}",
        "system",
        "method",
        "steps",
        "RHS",
        "final t",
        "max |f|",
        "max |ḟ,φ|",
        "energy drift",
        "wall ms"
    );

    // Spherical pendulum (Udwadia 2016, section 4.1): 1 kg on a 1 m rod, 60° from the
    // downward vertical, 1.5 m/s horizontally; 100 s.
    let pendulum = SphericalPendulumLagrangian {
        m: 1.0,
        g: 9.81,
        l: 1.0,
    };
    let angle = std::f64::consts::FRAC_PI_3;
    let q0 = Vector3::new(angle.sin(), 0.0, angle.cos());
    let qd0 = Vector3::new(0.0, 1.5, 0.0);
    Run {
        name: "spherical_pendulum_lagrangian",
        title: "Spherical pendulum, Cartesian Lagrangian (Udwadia 2016, §4.1)",
        names: ["x", "y", "z"],
        options: every(0.05),
        energy_note: None,
    }
    .report(&directory, |options| {
        simulate_lagrangian(&pendulum, &q0, &qd0, 0.0, 100.0, options)
    });

    // The same run without Baumgarte, projected back onto f = 0, ḟ = 0 every 0.05 s instead.
    Run {
        name: "spherical_pendulum_projected",
        title: "Spherical pendulum, no Baumgarte, projection every 0.05 s",
        names: ["x", "y", "z"],
        options: SimulationOptions {
            stabilization: None,
            projection: Some(Projection::default()),
            ..every(0.05)
        },
        energy_note: None,
    }
    .report(&directory, |options| {
        simulate_lagrangian(&pendulum, &q0, &qd0, 0.0, 100.0, options)
    });

    // The same pendulum from H = pᵀp/2m − mgz with φ = qᵀp = 0 (eqs 37–42). The model has no
    // holonomic f (so |f| shows 0): Baumgarte keeps φ at zero, and |q| − l is reported below.
    let hamiltonian = SphericalPendulumHamiltonian { m: 1.0, g: 9.81 };
    let p0 = pendulum.m * qd0;
    let hamiltonian_run = Run {
        name: "spherical_pendulum_hamiltonian",
        title: "Spherical pendulum, Hamiltonian with φ = qᵀp (Udwadia 2016, eqs 37–42)",
        names: ["x", "y", "z"],
        options: every(0.05),
        energy_note: None,
    }
    .report(&directory, |options| {
        simulate_hamiltonian(&hamiltonian, &q0, &p0, 0.0, 100.0, options)
    });
    if let Some(run) = hamiltonian_run {
        let length_drift = (run.samples.iter())
            .map(|s| (s.q.norm() - pendulum.l).abs())
            .fold(0.0, f64::max);
        println!("{:<34} max ||q| − l| = {length_drift:.1e} m", "");
    }

    // Wheel rolling down an incline, singular mass matrix (Udwadia & Phohomsiri 2006,
    // example 1): 2 kg, radius 0.3 m, I_c = 0.09 kg m², incline 0.4 rad, from rest; 5 s.
    let wheel = WheelOnIncline {
        m: 2.0,
        r: 0.3,
        ic: 0.09,
        g: 9.81,
        alpha: 0.4,
    };
    Run {
        name: "wheel_on_incline",
        title: "Wheel on an incline, singular M (Udwadia & Phohomsiri 2006, eq 5.17)",
        names: ["θ", "y"],
        options: every(0.01),
        energy_note: None,
    }
    .report(&directory, |options| {
        simulate_lagrangian(
            &wheel,
            &Vector2::zeros(),
            &Vector2::zeros(),
            0.0,
            5.0,
            options,
        )
    });

    // Torque-free rigid body in unit quaternions, M = 4EᵀJE of rank 3 (Udwadia & Wanichanon
    // 2013, eq 4.6): J = diag(1, 2, 3) kg m², spun at 1 rad/s nearly about the intermediate
    // axis, so it keeps flipping over (the tennis-racket effect); 30 s.
    let body = QuaternionRigidBody {
        j1: 1.0,
        j2: 2.0,
        j3: 3.0,
        tau1: 0.0,
        tau2: 0.0,
        tau3: 0.0,
    };
    let u0 = [0.5, 0.5, 0.5, 0.5];
    let ud0 = quaternion_rate(&u0, &[0.02, 1.0, 0.02]);
    Run {
        name: "quaternion_rigid_body",
        title: "Torque-free rigid body in quaternions (Udwadia & Wanichanon 2013, eq 4.6)",
        names: ["u0", "u1", "u2", "u3"],
        options: every(0.02),
        energy_note: None,
    }
    .report(&directory, |options| {
        simulate_lagrangian(
            &body,
            &Vector4::from(u0),
            &Vector4::from(ud0),
            0.0,
            30.0,
            options,
        )
    });

    // Particle driven along the spiral r = e^{0.1θ}, θ = 30 − t, with the paper's initial
    // state r = e³, θ = 30, ṙ = −0.1e³, θ̇ = −1 (review paper, section 8.1); 30 s.
    let spiral = SpiralParticle { g: 9.81 };
    let e3 = 3.0f64.exp();
    Run {
        name: "spiral_particle",
        title: "Particle on a driven spiral (review paper, eq 57)",
        names: ["r", "θ"],
        options: every(0.02),
        energy_note: Some("the constraint θ = 30 − t drives the particle and does work"),
    }
    .report(&directory, |options| {
        simulate_lagrangian(
            &spiral,
            &Vector2::new(e3, 30.0),
            &Vector2::new(-0.1 * e3, -1.0),
            0.0,
            30.0,
            options,
        )
    });

    // The wheel with a zero-mass particle (ibid., example 2): the motion is not unique, and
    // the run says so instead of inventing one.
    let massless = WheelWithMasslessParticle {
        m: 2.0,
        r: 0.3,
        ic: 0.09,
        g: 9.81,
        alpha: 0.4,
    };
    Run {
        name: "wheel_zero_mass_particle",
        title: "Wheel with a zero-mass particle",
        names: ["θ", "y", "x"],
        options: every(0.01),
        energy_note: None,
    }
    .report(&directory, |options| {
        simulate_lagrangian(
            &massless,
            &Vector3::zeros(),
            &Vector3::zeros(),
            0.0,
            5.0,
            options,
        )
    });

    println!(
        "\nmax |f|: holonomic constraints; max |ḟ,φ|: velocity level; energy drift: max \
         |E − E₀|/|E₀| of the Jacobi integral or H (in parentheses where it is not conserved)."
    );
    println!("CSV and SVG files in {}", directory.display());
}
