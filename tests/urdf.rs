//! `#[lagrangian(urdf = "..")]` on the hand-written robots of `tests/urdf/`: the double
//! pendulum's M and q̈ against their closed form (with joint damping, with a parameter's
//! force added to the efforts), and the branched tree's mimic constraint and
//! `link_position` outputs.

use udk::lagrangian;
use udk::nalgebra::{Matrix2, SVector, Vector2, Vector3};

#[lagrangian(urdf = "tests/urdf/double_pendulum.urdf")]
pub struct Pendulum;

#[lagrangian(
    urdf = "tests/urdf/double_pendulum.urdf",
    joint_damping = true,
    forces(-k * shoulder, 0.0),
    outputs(tip = link_position("tip")),
)]
pub struct SpringPendulum {
    pub k: f64,
}

#[lagrangian(
    urdf = "tests/urdf/branched.urdf",
    mimic = true,
    gravity(0.0, 0.0, -1.62),
    outputs(bracket = link_position("bracket"), slider = link_position("slider")),
)]
pub struct Branched;

const M: (f64, f64, f64, f64) = (1.5, 0.4, 0.13, 1.0);
const N: (f64, f64, f64) = (0.9, 0.35, 0.05);

/// The double pendulum's M and Q(q, q̇) with gravity 9.81 along −z (rotations about +y).
fn closed_form(q: Vector2<f64>, v: Vector2<f64>) -> (Matrix2<f64>, Vector2<f64>) {
    let ((m1, c1, i1, l1), (m2, c2, i2)) = (M, N);
    let c = q[1].cos();
    let m12 = i2 + m2 * (c2 * c2 + l1 * c2 * c);
    let mass = Matrix2::new(
        i1 + m1 * c1 * c1 + i2 + m2 * (l1 * l1 + c2 * c2 + 2.0 * l1 * c2 * c),
        m12,
        m12,
        i2 + m2 * c2 * c2,
    );
    let h = m2 * l1 * c2 * q[1].sin();
    let s12 = (q[0] + q[1]).sin();
    let g = 9.81;
    let force = Vector2::new(
        -g * ((m1 * c1 + m2 * l1) * q[0].sin() + m2 * c2 * s12)
            + h * (2.0 * v[0] * v[1] + v[1] * v[1]),
        -g * m2 * c2 * s12 - h * v[0] * v[0],
    );
    (mass, force)
}

fn assert_close<const K: usize>(a: &SVector<f64, K>, b: &SVector<f64, K>, tol: f64) {
    assert!((a - b).norm() <= tol * (1.0 + b.norm()), "{a} vs {b}");
}

#[test]
fn double_pendulum_from_urdf_moves_as_its_closed_form() {
    assert_eq!(Pendulum::COORDINATE_NAMES, ["shoulder", "elbow"]);
    assert_eq!(Pendulum::INPUT_NAMES, ["tau_shoulder", "tau_elbow"]);
    let (q, v) = (Vector2::new(0.4, -1.1), Vector2::new(0.7, 1.9));
    let tau = Vector2::new(0.3, -0.2);
    let (mass, force) = closed_form(q, v);
    let found = Pendulum.mass_matrix(&q, 0.0);
    assert!((found - mass).norm() < 1e-13, "{found} vs {mass}");
    let qdd = Pendulum.acceleration(&q, &v, &tau, 0.0).unwrap();
    let expected = mass.lu().solve(&(force + tau)).unwrap();
    assert_close(&qdd, &expected, 1e-12);
}

#[test]
fn damping_and_the_models_own_forces_add_to_the_efforts() {
    let system = SpringPendulum { k: 2.5 };
    let (q, v) = (Vector2::new(-0.3, 0.8), Vector2::new(1.2, -0.5));
    let tau = Vector2::new(0.1, 0.4);
    let (mass, force) = closed_form(q, v);
    let extra = Vector2::new(-2.5 * q[0] - 0.3 * v[0], -0.2 * v[1]);
    let qdd = system.acceleration(&q, &v, &tau, 0.0).unwrap();
    let expected = mass.lu().solve(&(force + tau + extra)).unwrap();
    assert_close(&qdd, &expected, 1e-12);
    // The tip link (fixed 0.8 m below the elbow) in world coordinates.
    let tip = system.tip(&q, &v, &tau, 0.0);
    let expected = Vector3::new(
        -(q[0].sin() + 0.8 * (q[0] + q[1]).sin()),
        0.0,
        -(q[0].cos() + 0.8 * (q[0] + q[1]).cos()),
    );
    assert_close(&tip, &expected, 1e-14);
}

#[test]
fn mimic_joints_are_holonomic_constraints() {
    assert_eq!(Branched::COORDINATE_NAMES, ["turn", "arm-joint", "slide"]);
    assert_eq!(Branched::NUM_HOLONOMIC, 1);
    let q = SVector::<f64, 3>::new(0.5, 0.3, 0.1 * 0.5 + 0.05);
    let residual = Branched.position_residual(&q, 0.0);
    assert!(residual[0].abs() < 1e-15, "{residual}");
    let v = SVector::<f64, 3>::new(0.4, -0.6, 0.04);
    let tau = SVector::<f64, 3>::new(0.2, 0.0, -0.1);
    let qdd = Branched.acceleration(&q, &v, &tau, 0.0).unwrap();
    assert!((qdd[2] - 0.1 * qdd[0]).abs() < 1e-12, "{qdd}");
    // The slider sits at (q₃, −0.1, 0) in the bracket frame, whose x axis is the table's y
    // and whose y axis is the table's −x: (0.1, q₃, 0) in the table frame, turned by q₁.
    let bracket = Branched.bracket(&q, &v, &tau, 0.0);
    let slider = Branched.slider(&q, &v, &tau, 0.0);
    let (s, c) = q[0].sin_cos();
    let (x, y) = (0.1, q[2]);
    let expected = bracket + Vector3::new(c * x - s * y, s * x + c * y, 0.0);
    assert_close(&slider, &expected, 1e-14);
}
