//! The hexapod's six legs written with one `for` block against one leg written by hand: with
//! the body held still, the legs do not interact, and by the body's symmetry about its z axis
//! each leg of the hexapod moves exactly as the leg alone, whatever the other legs do.

use udk::nalgebra::{SVector, Vector3};

#[allow(dead_code)]
#[path = "../../examples/hexapod_legs.rs"]
mod model;

use model::Hexapod;

#[test]
fn each_leg_moves_as_the_leg_written_by_hand() {
    let hexapod = Hexapod::EXAMPLE;
    let leg = hexapod.leg();
    assert_eq!(
        Hexapod::COORDINATE_NAMES[..4],
        ["coxa_0", "femur_0", "tibia_0", "coxa_1"]
    );
    // Each leg in a state of its own.
    let q = SVector::<f64, 18>::from_fn(|k, _| 0.3 * (k as f64 + 1.0).sin());
    let qd = SVector::<f64, 18>::from_fn(|k, _| 0.7 * (2.0 * k as f64 + 0.5).cos());
    let qdd = hexapod.acceleration(&q, &qd, 0.0).unwrap();
    for i in 0..6 {
        let (q_i, qd_i) = (
            q.fixed_rows::<3>(3 * i).into_owned(),
            qd.fixed_rows::<3>(3 * i).into_owned(),
        );
        let alone = leg.acceleration(&q_i, &qd_i, 0.0).unwrap();
        let together = qdd.fixed_rows::<3>(3 * i).into_owned();
        assert!(
            (together - alone).norm() <= 1e-12 * alone.norm().max(1.0),
            "leg {i}: {together} vs {alone}"
        );
    }
    // The feet: the output of leg 2, 120° round from leg 0 in the same joint state, is leg 0's
    // foot turned by 120° about z.
    let same = SVector::<f64, 18>::from_fn(|k, _| [0.2, -0.5, 1.1][k % 3]);
    let zero = SVector::zeros();
    let turned = udk::nalgebra::Rotation3::from_axis_angle(
        &Vector3::z_axis(),
        2.0 * std::f64::consts::FRAC_PI_3,
    ) * hexapod.foot_0(&same, &zero, 0.0);
    assert!((hexapod.foot_2(&same, &zero, 0.0) - turned).norm() < 1e-14);
}
