//! The rolling disk against sympy.physics.mechanics (`tests/fixtures/rolling_disk.json`) and a
//! steady turn.

use crate::{assert_close, fixture, numbers};
use udk::nalgebra::SVector;
use udk::runtime::simulate::{simulate_lagrangian, OutputTimes, SimulationOptions};

#[allow(dead_code)]
#[path = "../../examples/rolling_disk.rs"]
mod model;

use model::RollingDisk;

#[test]
fn accelerations_match_sympy_mechanics_to_1e_12() {
    let reference = fixture("rolling_disk");
    let parameters = &reference["parameters"];
    let disk = RollingDisk {
        m: parameters["m"].as_f64().unwrap(),
        r: parameters["r"].as_f64().unwrap(),
        g: parameters["g"].as_f64().unwrap(),
    };
    assert_eq!(disk, RollingDisk::EXAMPLE);
    let states = reference["states"].as_array().unwrap();
    assert_eq!(states.len(), 6);
    for state in states {
        let q = SVector::<f64, 5>::from_vec(numbers(&state["q"]));
        let qd = SVector::<f64, 5>::from_vec(numbers(&state["qd"]));
        let qdd = disk.acceleration(&q, &qd, 0.0).unwrap();
        assert_close(qdd.as_slice(), &numbers(&state["qdd"]), 1e-12);
    }
}

#[test]
fn a_steady_turn_keeps_its_lean_and_radius_for_10_s() {
    let disk = RollingDisk::EXAMPLE;
    let (q0, qd0) = RollingDisk::steady_turn();
    let steady = &fixture("rolling_disk")["steady"];
    assert_close(qd0.as_slice(), &numbers(&steady["qd"]), 1e-15);
    let radius = steady["radius"].as_f64().unwrap();
    let options = SimulationOptions {
        rtol: 1e-13,
        atol: 1e-13,
        output: OutputTimes::Every(0.1),
        ..SimulationOptions::default()
    };
    let run = simulate_lagrangian(&disk, &q0, &qd0, 0.0, 10.0, &options).unwrap();
    assert_eq!(run.final_time(), Some(10.0));
    for sample in &run.samples {
        let (q, qd) = (sample.q, sample.v);
        assert!((q[3] - 0.3).abs() < 1e-10, "lean {}", q[3]);
        let path_radius = qd[0].hypot(qd[1]) / qd[2].abs();
        assert!((path_radius - radius).abs() < 1e-10, "radius {path_radius}");
    }
    // The turn is a circle: the contact point stays at the radius from the turn's centre.
    let centre = (q0[0], q0[1] + radius.copysign(qd0[0] * qd0[2]));
    let last = run.samples.last().unwrap().q;
    assert!(((last[0] - centre.0).hypot(last[1] - centre.1) - radius).abs() < 1e-9);
}
