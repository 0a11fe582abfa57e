//! The four-bar of `examples/urdf_four_bar.rs`, a URDF tree closed by `holonomic(...)` with
//! `link_position` and `link_rotation`: the loop stays closed and the energy constant over 10 s.

use udk::nalgebra::SVector;
use udk::runtime::simulate::{simulate_lagrangian, Method, OutputTimes, SimulationOptions};
use udk::runtime::{ControlledLagrangianSystem, LagrangianSystem};

#[allow(dead_code)]
#[path = "../../examples/urdf_four_bar.rs"]
mod model;

use model::UrdfFourBar;

#[test]
fn the_loop_stays_closed_for_10_s() {
    assert_eq!(
        UrdfFourBar::COORDINATE_NAMES,
        ["crank_joint", "coupler_joint", "rocker_joint"]
    );
    assert_eq!(UrdfFourBar::NUM_CONSTRAINTS, 2);
    let (q0, qd0) = UrdfFourBar::start(1.0, 25.0).unwrap();
    // The assembled state: the crank as given, the loop closed at both levels, and the branch
    // of the guess (coupler −2.1161, rocker −2.2664 rad from the position analysis).
    assert_eq!((q0[0], qd0[0]), (1.0, 25.0));
    assert!((q0[1] + 2.116_124_470_400_680_3).abs() < 1e-9, "{q0}");
    assert!((q0[2] + 2.266_427_966_001_138).abs() < 1e-9, "{q0}");
    let passive = UrdfFourBar.closed_loop(|_, _, _| SVector::<f64, 3>::zeros());
    assert!(passive.holonomic_residual(&q0, 0.0).norm() < 1e-12);
    assert!(passive.velocity_residual(&q0, &qd0, 0.0).norm() < 1e-12);
    let options = SimulationOptions {
        method: Method::Dop853,
        rtol: 1e-11,
        atol: 1e-11,
        output: OutputTimes::Every(0.05),
        ..SimulationOptions::default()
    };
    let run = simulate_lagrangian(&passive, &q0, &qd0, 0.0, 10.0, &options).unwrap();
    assert_eq!(run.final_time(), Some(10.0));
    assert_eq!(run.samples.len(), 201);
    assert!(
        run.max_position_residual() < 1e-9,
        "|f| = {:e} m",
        run.max_position_residual()
    );
    // Passive and ideal: the constraint force does no work.
    assert!(run.energy_drift() < 1e-8, "drift {:e}", run.energy_drift());
    // The crank goes round: started at 25 rad/s, it has the energy to lift the coupler and
    // the rocker through their highest position (at 6 rad/s it rocks back).
    let crank = run
        .samples
        .iter()
        .map(|s| (s.q[0] - 1.0).abs())
        .fold(0.0, f64::max);
    assert!(
        crank > std::f64::consts::TAU,
        "the crank turned {crank} rad"
    );
}
