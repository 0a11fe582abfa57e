//! The Panda of `examples/panda_mimic.rs` with `mimic = true`: one constraint row, and the
//! fingers stay equal during a simulation.

use udk::runtime::simulate::{simulate_lagrangian, Method, OutputTimes, SimulationOptions};
use udk::runtime::ControlledLagrangianSystem;

#[allow(dead_code)]
#[path = "../../examples/panda_mimic.rs"]
mod model;

use model::PandaMimic;

#[test]
fn the_fingers_stay_equal_to_1e_12() {
    assert_eq!(PandaMimic::NUM_CONSTRAINTS, 1);
    assert_eq!(
        PandaMimic::COORDINATE_NAMES[PandaMimic::FINGER1],
        "panda_finger_joint1"
    );
    assert_eq!(
        PandaMimic::COORDINATE_NAMES[PandaMimic::FINGER2],
        "panda_finger_joint2"
    );
    let (q0, qd0) = PandaMimic::ready();
    let held = PandaMimic.closed_loop(|_, q, qd| PandaMimic::hold(q, qd));
    let options = SimulationOptions {
        method: Method::Dop853,
        rtol: 1e-11,
        atol: 1e-12,
        output: OutputTimes::Every(0.01),
        ..SimulationOptions::default()
    };
    let run = simulate_lagrangian(&held, &q0, &qd0, 0.0, 2.0, &options).unwrap();
    assert_eq!(run.samples.len(), 201);
    for s in &run.samples {
        let (f1, f2) = (s.q[PandaMimic::FINGER1], s.q[PandaMimic::FINGER2]);
        assert!(
            (f1 - f2).abs() < 1e-12,
            "t = {}: fingers {f1} and {f2}",
            s.t
        );
        let (v1, v2) = (s.v[PandaMimic::FINGER1], s.v[PandaMimic::FINGER2]);
        assert!(
            (v1 - v2).abs() < 1e-10,
            "t = {}: finger rates {v1} and {v2}",
            s.t
        );
    }
    // The law on finger 1 alone closes both to about 1 cm (gravity on the fingers moves the
    // equilibrium by at most 0.03 kg · 9.81 m/s² / 200 N/m = 1.5 mm).
    let last = run.samples.last().unwrap();
    let grip = last.q[PandaMimic::FINGER2];
    assert!((grip - PandaMimic::GRIP).abs() < 2e-3, "{}", last.q);
}
