//! A four-bar linkage read from a URDF tree (`examples/models/four_bar.urdf`: crank and
//! coupler in one branch, rocker in another) and closed on top of it: the coupler's far end
//! and the rocker's far end are one point,
//! `link_position("coupler") + link_rotation("coupler") * vec3(0.35, 0, 0)` =
//! `link_position("rocker") + link_rotation("rocker") * vec3(0.3, 0, 0)`. The linkage moves in
//! the x–z plane, where the gap's y component is identically zero (udk refuses a constraint
//! that depends on no coordinate), so the loop is closed by the gap's x and z components.
//!
//! `tests/robots/closed_loop.rs` checks the constraint (|f| < 1e-9 m) and the energy over 10 s.
//!
//! Run with `cargo run --release --example urdf_four_bar`.

use udk::lagrangian;
use udk::nalgebra::SVector;
use udk::runtime::simulate::{simulate_lagrangian, Showcase, SimulationOptions, Summary};
use udk::runtime::{consistent_state, AssemblyOptions, ControlledLagrangianSystem, Error};

/// The four-bar: coordinates `crank_joint`, `coupler_joint` (relative to the crank) and
/// `rocker_joint` (rad, about y; a positive angle turns the link's x axis towards −z), joint
/// torques (N m) as inputs, gravity −9.81 m/s² along z. The coupler is 0.35 m long and the
/// rocker 0.3 m.
#[lagrangian(
    urdf = "examples/models/four_bar.urdf",
    let gap = link_position("coupler") + link_rotation("coupler") * vec3(0.35, 0.0, 0.0)
        - link_position("rocker") - link_rotation("rocker") * vec3(0.3, 0.0, 0.0),
    holonomic(gap.x(), gap.z()),
)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UrdfFourBar;

impl UrdfFourBar {
    /// A consistent state with the crank at `angle` (rad) turning at `rate` (rad/s), on the
    /// branch with the coupler's end above the ground line: the coupler and rocker are
    /// assembled from a rough guess by [`consistent_state`] with the crank held.
    ///
    /// # Errors
    /// As [`consistent_state`]; `Error::InvalidOption` if the loop does not close to 1e-12
    /// (an angle for which the guess lies on the wrong side of a dead point).
    pub fn start(angle: f64, rate: f64) -> Result<(SVector<f64, 3>, SVector<f64, 3>), Error> {
        let passive = UrdfFourBar.closed_loop(|_, _, _| SVector::<f64, 3>::zeros());
        // The exact coupler and rocker angles are −2.1161 and −2.2664 rad at a crank angle
        // of 1 rad.
        let guess = SVector::from([angle, -2.1, -2.3]);
        let rates = SVector::from([rate, 0.0, 0.0]);
        let options = AssemblyOptions {
            fixed: vec![0],
            ..AssemblyOptions::default()
        };
        let assembly = consistent_state(&passive, &guess, &rates, 0.0, &options)?;
        if !assembly.converged {
            return Err(Error::InvalidOption {
                what: "the start of the four-bar: the loop does not close from the guess",
            });
        }
        Ok((assembly.q, assembly.v))
    }
}

fn main() -> Result<(), Error> {
    let (q, qd) = UrdfFourBar::start(1.0, 25.0)?;
    let passive = UrdfFourBar.closed_loop(|_, _, _| SVector::<f64, 3>::zeros());
    println!(
        "constraint rows: {} (the loop's gap along x and z)",
        UrdfFourBar::NUM_CONSTRAINTS
    );
    let run = Showcase::new(
        env!("CARGO_MANIFEST_DIR"),
        "urdf_four_bar",
        "Four-bar linkage from a URDF tree, closed by a vector constraint",
        &UrdfFourBar::COORDINATE_NAMES,
    );
    let report = run.run(&SimulationOptions::every(0.01), |options| {
        simulate_lagrangian(&passive, &q, &qd, 0.0, 10.0, options)
    });
    println!("{}\n{report}", Summary::header());
    Ok(())
}
