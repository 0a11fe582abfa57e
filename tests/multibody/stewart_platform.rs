//! The Stewart platform written with a `for` block: held still by the leg forces that balance
//! its weight (statics solved independently, from the legs' axes), its acceleration is zero;
//! with those forces raised by 10 % it rises at 0.1 g without turning.

use udk::nalgebra::SVector;

#[allow(dead_code)]
#[path = "../../examples/stewart_platform.rs"]
mod model;

use model::StewartPlatform;

/// Poses (x, y, z, then a turn `angle` about the unit axis `axis`).
fn poses() -> Vec<SVector<f64, 7>> {
    let pose = |x: f64, y: f64, z: f64, angle: f64, axis: [f64; 3]| {
        let norm = axis.iter().map(|a| a * a).sum::<f64>().sqrt();
        let (s, c) = (0.5 * angle).sin_cos();
        SVector::from([
            x,
            y,
            z,
            c,
            s * axis[0] / norm,
            s * axis[1] / norm,
            s * axis[2] / norm,
        ])
    };
    vec![
        pose(0.0, 0.0, 0.4, 0.0, [0.0, 0.0, 1.0]),
        pose(0.02, -0.01, 0.4, 0.2, [0.0, 0.0, 1.0]),
        pose(-0.03, 0.05, 0.35, 0.15, [1.0, -2.0, 0.5]),
    ]
}

#[test]
fn the_legs_hold_the_plate_still_and_lift_it_at_a_tenth_of_g() {
    let plate = StewartPlatform::EXAMPLE;
    assert_eq!(
        StewartPlatform::INPUT_NAMES,
        ["u_0", "u_1", "u_2", "u_3", "u_4", "u_5"]
    );
    for q in poses() {
        let forces = plate.holding_forces(&q).expect("a regular pose");
        let qd = SVector::zeros();
        let held = plate.acceleration(&q, &qd, &forces, 0.0).unwrap();
        assert!(held.norm() < 1e-12, "{q}: q̈ = {held}");
        let lifted = plate.acceleration(&q, &qd, &(1.1 * forces), 0.0).unwrap();
        let expected = SVector::<f64, 7>::from([0.0, 0.0, 0.1 * plate.g, 0.0, 0.0, 0.0, 0.0]);
        assert!((lifted - expected).norm() < 1e-12, "{q}: q̈ = {lifted}");
        // The outputs: each leg's length is the distance between its anchors.
        let u = SVector::zeros();
        let length = plate.length_4(&q, &qd, &u, 0.0);
        let between = plate.anchor_4(&q, &qd, &u, 0.0) - plate.foot_4(&q, &qd, &u, 0.0);
        assert_eq!(length, between.norm());
    }
}
