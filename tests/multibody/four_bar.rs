//! The four-bar closed by a vector constraint (three rows of rank 2) against the closed-form
//! position analysis, with its constraint and energy over 10 s.

use udk::runtime::simulate::{simulate_lagrangian, OutputTimes, SimulationOptions};

#[allow(dead_code)]
#[path = "../../examples/four_bar.rs"]
mod model;

use model::FourBar;

#[test]
fn the_loop_follows_its_closed_form_position_analysis_for_10_s() {
    let linkage = FourBar::EXAMPLE;
    assert_eq!(FourBar::NUM_CONSTRAINTS, 3);
    let (q0, qd0) = linkage.start(1.0, 6.0);
    assert!(linkage.position_residual(&q0, 0.0).norm() < 1e-14);
    assert!(linkage.velocity_residual(&q0, &qd0, 0.0).norm() < 1e-13);
    let options = SimulationOptions {
        rtol: 1e-11,
        atol: 1e-11,
        output: OutputTimes::Every(0.05),
        ..SimulationOptions::default()
    };
    let run = simulate_lagrangian(&linkage, &q0, &qd0, 0.0, 10.0, &options).unwrap();
    assert_eq!(run.final_time(), Some(10.0));
    assert!(
        run.max_position_residual() < 1e-9,
        "{}",
        run.max_position_residual()
    );
    let e0 = run.samples[0].energy;
    let mut turns = 0.0f64;
    for sample in &run.samples {
        let (th2, th3) = linkage.closed_form(sample.q[0]);
        let wrap = |x: f64| {
            (x + std::f64::consts::PI).rem_euclid(std::f64::consts::TAU) - std::f64::consts::PI
        };
        assert!(
            wrap(sample.q[1] - th2).abs() < 1e-8,
            "t = {}: th2 {} vs {th2}",
            sample.t,
            sample.q[1]
        );
        assert!(
            wrap(sample.q[2] - th3).abs() < 1e-8,
            "t = {}: th3 {} vs {th3}",
            sample.t,
            sample.q[2]
        );
        assert!((sample.energy - e0).abs() < 1e-8 * e0.abs().max(1.0));
        turns = turns.max(sample.q[0].abs() / std::f64::consts::TAU);
    }
    // The crank goes round: a crank-rocker, not a rocking motion.
    assert!(turns > 1.0, "{turns}");

    // The coupler point is an output: the trajectory carries its columns, as the generated
    // function gives them, and the CSV writes and reads them back.
    assert_eq!(
        run.outputs.columns,
        ["coupler_point.x", "coupler_point.y", "coupler_point.z"]
    );
    let ys = run.column("coupler_point.y").unwrap();
    for (sample, y) in run.samples.iter().zip(&ys) {
        assert_eq!(*y, linkage.coupler_point(&sample.q, &sample.v, sample.t).y);
    }
    let mut csv = Vec::new();
    run.write_csv_to(&mut csv).unwrap();
    let header = String::from_utf8_lossy(&csv)
        .lines()
        .next()
        .unwrap()
        .to_owned();
    assert!(
        header.ends_with("energy,coupler_point.x,coupler_point.y,coupler_point.z"),
        "{header}"
    );
    let back = udk::runtime::simulate::Trajectory::<3>::read_csv_from(csv.as_slice()).unwrap();
    assert_eq!(back.outputs, run.outputs);
}
