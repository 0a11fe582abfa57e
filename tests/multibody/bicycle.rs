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

/// The published linearized benchmark (Meijaard et al. 2007, eqs A 20–A 24 as rounded in
/// `../shared/references/whipple_bicycle.md`): M0, C1, K0 and K2, row-major, in (roll, steer).
const M0: [f64; 4] = [
    80.81722,
    2.31941332208709,
    2.31941332208709,
    0.29784188199686,
];
const C1: [f64; 4] = [0.0, 33.86641391492494, -0.85035641456978, 1.6854039739756];
const K0: [f64; 4] = [
    -80.95,
    -2.59951685249872,
    -2.59951685249872,
    -0.80329488458618,
];
const K2: [f64; 4] = [0.0, 76.59734589573222, 0.0, 2.65431523794604];

/// Meijaard et al. (2007), Table 2: the eigenvalues (re, im) at v = 0, 1, …, 10 m/s.
const TABLE_2: [[(f64, f64); 4]; 11] = [
    [
        (-5.53094371765393, 0.0),
        (-3.13164324790656, 0.0),
        (3.13164324790656, 0.0),
        (5.53094371765393, 0.0),
    ],
    [
        (-7.11008014637442, 0.0),
        (-3.13423125066578, 0.0),
        (3.5269617099007, 0.8077402751993),
        (3.5269617099007, -0.8077402751993),
    ],
    [
        (-8.67387984831735, 0.0),
        (-3.07158645641514, 0.0),
        (2.68234517512745, 1.68066296590675),
        (2.68234517512745, -1.68066296590675),
    ],
    [
        (-10.3510146724592, 0.0),
        (-2.63366137253667, 0.0),
        (1.70675605663975, 2.31582447384325),
        (1.70675605663975, -2.31582447384325),
    ],
    [
        (-12.1586142657645, 0.0),
        (-1.42944427361326, 0.0),
        (0.41325331521125, 3.07910818603206),
        (0.41325331521125, -3.07910818603206),
    ],
    [
        (-14.0783896927982, 0.0),
        (-0.32286642900409, 0.0),
        (-0.77534188219585, 4.46486771378823),
        (-0.77534188219585, -4.46486771378823),
    ],
    [
        (-16.0853712309803, 0.0),
        (-0.0040669007697, 0.0),
        (-1.52644486584142, 5.87673060598709),
        (-1.52644486584142, -5.87673060598709),
    ],
    [
        (-18.15788466125262, 0.0),
        (0.10268170574766, 0.0),
        (-2.13875644258362, 7.19525913329805),
        (-2.13875644258362, -7.19525913329805),
    ],
    [
        (-20.27940894394569, 0.0),
        (0.14327879765713, 0.0),
        (-2.69348683581097, 8.46037971396931),
        (-2.69348683581097, -8.46037971396931),
    ],
    [
        (-22.43788559040858, 0.0),
        (0.15790184030917, 0.0),
        (-3.21675402252485, 9.69377351531791),
        (-3.21675402252485, -9.69377351531791),
    ],
    [
        (-24.62459635017404, 0.0),
        (0.16105338653172, 0.0),
        (-3.72016840437287, 10.90681139476287),
        (-3.72016840437287, -10.90681139476287),
    ],
];

/// Upright straight running at `speed` linearized in (roll, steer, roll rate, steer rate):
/// pitch is the dependent coordinate; x, y, yaw and the wheel angles are held (ignorable);
/// the rear-wheel rate is held (constant speed) and the other four rates are dependent.
fn upright_linearization(speed: f64) -> udk::runtime::linearize::Linearization {
    use udk::runtime::linearize::{linearize, LinearizationOptions, OperatingPoint, Selection};
    let bicycle = WhippleBicycle::BENCHMARK;
    let (q, qd) = bicycle.upright(speed, 0.0);
    let point = OperatingPoint {
        q,
        qd,
        u: SVector::zeros(),
        t: 0.0,
    };
    let selection = Selection {
        coordinates: Some(vec![3, 6]),
        velocities: Some(vec![3, 6]),
        held_velocities: vec![5],
        ..Selection::default()
    };
    let system = udk::runtime::WithoutInputs(&bicycle);
    linearize(
        &system,
        &point,
        &selection,
        &LinearizationOptions::default(),
    )
    .expect("upright running linearizes")
}

/// A = [[0, I], [−M0⁻¹(g K0 + v² K2), −v M0⁻¹ C1]], row-major 4 × 4.
fn benchmark_a(speed: f64) -> Vec<f64> {
    use udk::nalgebra::Matrix2;
    let m0 = Matrix2::from_row_slice(&M0);
    let (c1, k0, k2) = (
        Matrix2::from_row_slice(&C1),
        Matrix2::from_row_slice(&K0),
        Matrix2::from_row_slice(&K2),
    );
    let inverse = m0.try_inverse().expect("M0 is invertible");
    let stiffness = -inverse * (WhippleBicycle::BENCHMARK.g * k0 + speed * speed * k2);
    let damping = -inverse * c1 * speed;
    let mut a = vec![0.0; 16];
    a[2] = 1.0;
    a[7] = 1.0;
    for i in 0..2 {
        for j in 0..2 {
            a[4 * (2 + i) + j] = stiffness[(i, j)];
            a[4 * (2 + i) + 2 + j] = damping[(i, j)];
        }
    }
    a
}

#[test]
fn upright_linearization_is_the_published_benchmark_a_at_0_to_10_m_per_s() {
    for speed in 0..=10 {
        let speed = f64::from(speed);
        let result = upright_linearization(speed);
        assert_eq!(result.coordinates.dependent, vec![4], "pitch");
        assert_eq!(result.velocities.held, vec![5], "rear wheel rate");
        let a: Vec<f64> = (0..16).map(|k| result.a[(k / 4, k % 4)]).collect();
        assert_close(&a, &benchmark_a(speed), 1e-10);
    }
}

#[test]
fn upright_eigenvalues_match_meijaard_2007_table_2_to_1e_10() {
    for (speed, row) in TABLE_2.iter().enumerate() {
        let mut expected = row.to_vec();
        expected.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.total_cmp(&y.1)));
        let found = upright_linearization(speed as f64).eigenvalues;
        assert_eq!(found.len(), 4);
        for (e, (re, im)) in found.iter().zip(expected) {
            assert!(
                (e.re - re).abs() < 1e-10 && (e.im - im).abs() < 1e-10,
                "v = {speed}: {e}, expected {re} + {im}i\n{found:?}"
            );
        }
    }
}

/// The speed in [low, high] where the largest real part of the eigenvalues changes sign,
/// by bisection to 1e-12 m/s.
fn sign_change_of_the_largest_real_part(mut low: f64, mut high: f64) -> f64 {
    let largest = |v: f64| {
        let eigenvalues = upright_linearization(v).eigenvalues;
        eigenvalues
            .iter()
            .map(|e| e.re)
            .fold(f64::NEG_INFINITY, f64::max)
    };
    let low_sign = largest(low).signum();
    assert_ne!(
        low_sign,
        largest(high).signum(),
        "no sign change in [{low}, {high}]"
    );
    while high - low > 1e-12 {
        let middle = 0.5 * (low + high);
        if largest(middle).signum() == low_sign {
            low = middle;
        } else {
            high = middle;
        }
    }
    0.5 * (low + high)
}

#[test]
fn weave_and_capsize_speeds_match_meijaard_2007_to_1e_9() {
    // Between 4 and 5 m/s the weave pair's real part crosses zero (the capsize mode is stable
    // there); between 6 and 7 m/s the capsize eigenvalue does.
    let weave = sign_change_of_the_largest_real_part(4.0, 5.0);
    let capsize = sign_change_of_the_largest_real_part(6.0, 7.0);
    assert!(
        (weave - 4.29238253634111).abs() < 1e-9,
        "weave speed {weave}"
    );
    assert!(
        (capsize - 6.02426201538837).abs() < 1e-9,
        "capsize speed {capsize}"
    );
}
