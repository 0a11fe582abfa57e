//! Solo12 (example-robot-data) dropped onto the ground: a robot on a floating base with four
//! unilateral, frictional foot contacts at link points, landing and standing under a PD law
//! on its twelve joints.
//!
//! The base starts 0.3 m above the ground, at rest, tilted by 0.05 rad in roll and 0.03 rad
//! in pitch, the legs in the standing posture of example-robot-data's SRDF. Each foot is the
//! origin of its `*_FOOT` link (`outputs(FL = link_position("FL_FOOT"), ..)`), a contact with
//! the ground z = 0 ([`ground_contacts`]): plastic touchdowns (an impact by the fundamental
//! equation at velocity level, which also stops the feet's slip), Coulomb friction μ = 1.5 in
//! a circular cone, lift-off when the normal force would pull. The joints follow
//! τ = Kp (q* − q) − Kd q̇ toward the posture. The feet touch down one by one and stick; the
//! hind right foot slips for 23 ms and sticks again. (With μ = 0.8, the same landing from
//! `tests/fixtures/solo12_landing.toml` under this PD law: the hind right foot slips for 29 ms
//! and the front right one for 8 ms, both stick, and the base stands at 0.214 m.)
//!
//! Prints the events, then the base height and the four normal forces at rest, whose sum is
//! the robot's weight m g; writes `target/udk/solo12_landing.csv` (the state, then each
//! foot's `normal`, `tangent` and `lateral` force in N), `solo12_landing_height.svg` (base
//! height) and `solo12_landing_forces.svg` (normal forces).
//!
//! Run with `cargo run --release --example solo12_landing`.

use std::cell::RefCell;
use std::ops::ControlFlow;
use std::path::Path;
use udk::nalgebra::SVector;
use udk::runtime::simulate::{
    ground_contacts, simulate_free_flyer_with_contacts, ContactSet, FreeFlyer, OutputTable,
    PlotOptions, SimulationOptions,
};

/// Solo12 on a free flyer with its feet as link points, its standing posture, PD law and
/// landing start.
#[path = "../tests/solo12_support/mod.rs"]
mod solo12_support;
use solo12_support::{landing_start, pd, Solo12};

/// Friction coefficient of the feet on the ground.
const FRICTION: f64 = 1.5;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let efforts =
        |_: f64, q: &SVector<f64, 19>, v: &[f64], tau: &mut [f64]| pd(q.as_slice(), v, tau);
    let robot = FreeFlyer::new(&Solo12, &efforts);
    let set = ContactSet::new(robot, ground_contacts(&Solo12, 0.0, 0.0, FRICTION))?;
    let q0 = landing_start();
    let options = SimulationOptions {
        rtol: 1e-10,
        atol: 1e-12,
        ..SimulationOptions::every(0.005)
    };
    let forces = RefCell::new(OutputTable::default());
    let start = std::time::Instant::now();
    let mut run = simulate_free_flyer_with_contacts(
        &set,
        (&q0, &[0.0; 18]),
        (0.0, 2.0),
        &options,
        |sample| {
            let v = &sample.v.as_slice()[..18];
            let Ok(now) = set.forces(sample.q.as_slice(), v, sample.t) else {
                return ControlFlow::Break(());
            };
            // One column per foot and direction; an open foot's are 0.
            let mut table = forces.borrow_mut();
            if table.columns.is_empty() {
                table.columns = (Solo12::POINT_NAMES.iter())
                    .flat_map(|p| ["normal", "tangent", "lateral"].map(|k| format!("{p}.{k}")))
                    .collect();
            }
            let row = (table.columns.clone().iter())
                .map(|c| now.iter().find(|f| &f.name == c).map_or(0.0, |f| f.value))
                .collect::<Vec<f64>>();
            table.values.extend(row);
            ControlFlow::Continue(())
        },
    )?;
    let elapsed = start.elapsed();
    for event in &run.events {
        println!("t = {:.4} s  {}", event.t, event.name);
    }
    let last = run.samples.last().ok_or("no samples")?;
    let mass = Solo12.mass_matrix(&last.q)?[(0, 0)];
    run.outputs = forces.into_inner();
    let normal: Vec<f64> = (Solo12::POINT_NAMES.iter())
        .map(|p| {
            run.outputs
                .column(&format!("{p}.normal"))
                .map_or(0.0, |c| c[c.len() - 1])
        })
        .collect();
    println!(
        "at t = {} s: base height {:.4} m, normal forces {:.4?} N, sum {:.6} N, m g = {:.6} N",
        last.t,
        last.q[2],
        normal,
        normal.iter().sum::<f64>(),
        mass * 9.81
    );
    println!(
        "{} events, {} steps, {} right-hand sides in {:.2?}",
        run.events.len(),
        run.stats.accepted_steps,
        run.stats.rhs_evaluations,
        elapsed
    );
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/udk");
    run.write_csv(out.join("solo12_landing.csv"))?;
    let height = PlotOptions {
        columns: &["base_z"],
        energy_conserved: false,
        ..PlotOptions::new("Solo12 landing: base height (m)", &[])
    };
    run.plot_svg(out.join("solo12_landing_height.svg"), &height)?;
    let forces = PlotOptions {
        columns: &["FL.normal", "FR.normal", "HL.normal", "HR.normal"],
        energy_conserved: false,
        ..PlotOptions::new("Solo12 landing: normal foot forces (N)", &[])
    };
    run.plot_svg(out.join("solo12_landing_forces.svg"), &forces)?;
    Ok(())
}
