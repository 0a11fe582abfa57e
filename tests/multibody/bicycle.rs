//! The Whipple bicycle against Basu-Mandal, Chatterjee & Papadopoulos (2007), Table 1: one
//! general nonlinear state and its accelerations, mapped to Moore's coordinates as
//! `../shared/references/whipple_bicycle.md` says.

use crate::assert_close;
use std::f64::consts::{FRAC_PI_2, PI};
use udk::nalgebra::SVector;

#[allow(dead_code)]
#[path = "../../examples/whipple_bicycle.rs"]
pub mod whipple_bicycle;

use whipple_bicycle::WhippleBicycle;

/// Basu-Mandal et al. (2007), Table 1: the state (x, y, z, θ, ψ, φ, ψf, βr, βf), its rates, and
/// the accelerations.
const STATE: [f64; 9] = [
    0.0,
    0.0,
    0.2440472102925,
    0.0,
    0.9501292851472,
    3.1257073014894,
    0.2311385135743,
    0.0,
    0.0,
];
const RATES: [f64; 9] = [
    -2.8069345714545,
    -0.1480982396001,
    0.1058778746261,
    0.7830033527065,
    0.6068425835418,
    -0.0119185528069,
    0.4859824687093,
    8.9129896614890,
    8.0133620584155,
];
const ACCELERATIONS: [f64; 9] = [
    -0.5041626315047,
    -0.3449706619454,
    -1.4604528332980,
    0.8353281706379,
    -7.8555281128244,
    0.1205543897884,
    -4.6198904039403,
    1.8472554144217,
    2.4548072904550,
];

/// The rear contact's (x, y) in Moore's ground frame and its first and second time
/// derivatives, from the rear wheel centre's (Basu-Mandal's (−x, y, −z) in Moore's axes): the
/// contact is the centre + r_R·B_z, with B_z = (sin q3 sin q4, −cos q3 sin q4, cos q4).
fn rear_contact(r: f64, centre: [[f64; 2]; 3], angles: [[f64; 2]; 3]) -> [[f64; 2]; 3] {
    let ([q3, q4], [u3, u4], [a3, a4]) = (angles[0], angles[1], angles[2]);
    let (s3, c3, s4, c4) = (q3.sin(), q3.cos(), q4.sin(), q4.cos());
    let bz = [s3 * s4, -c3 * s4];
    let bz_rate = [c3 * s4 * u3 + s3 * c4 * u4, s3 * s4 * u3 - c3 * c4 * u4];
    let bz_acceleration = [
        -s3 * s4 * u3 * u3 + 2.0 * c3 * c4 * u3 * u4 - s3 * s4 * u4 * u4
            + c3 * s4 * a3
            + s3 * c4 * a4,
        c3 * s4 * u3 * u3 + 2.0 * s3 * c4 * u3 * u4 + c3 * s4 * u4 * u4 + s3 * s4 * a3
            - c3 * c4 * a4,
    ];
    let mut out = [[0.0; 2]; 3];
    for (k, derivative) in [bz, bz_rate, bz_acceleration].iter().enumerate() {
        for i in 0..2 {
            out[k][i] = centre[k][i] + r * derivative[i];
        }
    }
    out
}

#[test]
fn accelerations_match_basu_mandal_2007_table_1_to_1e_11() {
    let bicycle = WhippleBicycle::BENCHMARK;
    let lambda = bicycle.lambda;
    // Angles: q3 = −θ, q4 = π/2 − ψ, q5 = π − φ + λ, q7 = −ψf, q6 = −βr, q8 = −βf; rates and
    // accelerations with the same signs (the constants drop out).
    let angles = [
        -STATE[3],
        FRAC_PI_2 - STATE[4],
        PI - STATE[5] + lambda,
        -STATE[7],
        -STATE[6],
        -STATE[8],
    ];
    let rates = [
        -RATES[3], -RATES[4], -RATES[5], -RATES[7], -RATES[6], -RATES[8],
    ];
    let expected_angles = [
        -ACCELERATIONS[3],
        -ACCELERATIONS[4],
        -ACCELERATIONS[5],
        -ACCELERATIONS[7],
        -ACCELERATIONS[6],
        -ACCELERATIONS[8],
    ];
    // The rear wheel centre in Moore's axes is Basu-Mandal's (−x, y, −z).
    let centre = [
        [-STATE[0], STATE[1]],
        [-RATES[0], RATES[1]],
        [-ACCELERATIONS[0], ACCELERATIONS[1]],
    ];
    let lean = |k: usize| [[angles[0], angles[1]], [rates[0], rates[1]]][k];
    let known = rear_contact(bicycle.r_r, centre, [lean(0), lean(1), [0.0, 0.0]]);
    let q = SVector::<f64, 8>::from([
        known[0][0],
        known[0][1],
        angles[0],
        angles[1],
        angles[2],
        angles[3],
        angles[4],
        angles[5],
    ]);
    let qd = SVector::<f64, 8>::from([
        known[1][0],
        known[1][1],
        rates[0],
        rates[1],
        rates[2],
        rates[3],
        rates[4],
        rates[5],
    ]);
    // The published state satisfies the constraints (to 4e-14 at position level).
    assert!(bicycle.position_residual(&q, 0.0).norm() < 1e-12);
    assert!(bicycle.velocity_residual(&q, &qd, 0.0).norm() < 1e-11);

    let qdd = bicycle.acceleration(&q, &qd, 0.0).unwrap();
    assert_close(&qdd.as_slice()[2..], &expected_angles, 1e-11);
    // The rear contact's acceleration from the published centre's and the angles'.
    let expected = rear_contact(
        bicycle.r_r,
        centre,
        [lean(0), lean(1), [expected_angles[0], expected_angles[1]]],
    );
    assert_close(&qdd.as_slice()[..2], &expected[2], 1e-11);
    // And the centre's height: z̈ = −(Moore's z̈ of the centre), which the model's output gives
    // at position level: the rear wheel centre is at Moore z = −z.
    let centre_position = bicycle.rear_wheel_centre(&q, &qd, 0.0);
    assert!((centre_position.z + STATE[2]).abs() < 1e-12);
}
