//! A rigid body with a full inertia tensor on a spherical joint, under gravity, written twice:
//! with ZYX angles (three coordinates) and with Euler parameters (four coordinates and the
//! unit-norm constraint). Both are the same few lines of rotations and `kinetic_energy`.
//!
//! `tests/multibody.rs` checks the ZYX model's q̈ against sympy.physics.mechanics, the body's
//! angular acceleration against Euler's equations about the pivot, and that both forms give
//! the same motion.
//!
//! Run with `cargo run --release --example spherical_joint_body`.

use udk::lagrangian;
use udk::nalgebra::{SVector, Vector3};
use udk::runtime::simulate::{simulate_lagrangian, Showcase, SimulationOptions, Summary};

/// The body in ZYX angles: orientation R = rot_z(psi)·rot_y(theta)·rot_x(phi). Mass `m` (kg),
/// centre of mass at R·(cx, cy, cz) from the pivot (m), inertia about the centre of mass in
/// body axes (`i11` … `i33`, kg m²), gravity `g` (m/s²) along −z.
#[lagrangian(
    coordinates(psi, theta, phi),
    let orientation = rot_z(psi) * rot_y(theta) * rot_x(phi),
    let centre = orientation * vec3(cx, cy, cz),
    let inertia = mat3(i11, i12, i13, i12, i22, i23, i13, i23, i33),
    lagrangian = kinetic_energy(m, inertia, centre, orientation) - m * g * centre.z(),
    outputs(
        body_rate = body_angular_velocity(orientation),
        axis_x = orientation * vec3(1.0, 0.0, 0.0),
        axis_z = orientation * vec3(0.0, 0.0, 1.0),
    ),
)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyZyx {
    pub m: f64,
    pub g: f64,
    pub cx: f64,
    pub cy: f64,
    pub cz: f64,
    pub i11: f64,
    pub i12: f64,
    pub i13: f64,
    pub i22: f64,
    pub i23: f64,
    pub i33: f64,
}

/// The same body with Euler parameters (e0, e1, e2, e3), scalar first, kept unit by a
/// holonomic constraint.
#[lagrangian(
    coordinates(e0, e1, e2, e3),
    let orientation = quat_to_rot(e0, e1, e2, e3),
    let centre = orientation * vec3(cx, cy, cz),
    let inertia = mat3(i11, i12, i13, i12, i22, i23, i13, i23, i33),
    lagrangian = kinetic_energy(m, inertia, centre, orientation) - m * g * centre.z(),
    holonomic(e0.powi(2) + e1.powi(2) + e2.powi(2) + e3.powi(2) - 1.0),
    outputs(
        body_rate = body_angular_velocity(orientation),
        axis_x = orientation * vec3(1.0, 0.0, 0.0),
        axis_z = orientation * vec3(0.0, 0.0, 1.0),
    ),
)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyQuaternion {
    pub m: f64,
    pub g: f64,
    pub cx: f64,
    pub cy: f64,
    pub cz: f64,
    pub i11: f64,
    pub i12: f64,
    pub i13: f64,
    pub i22: f64,
    pub i23: f64,
    pub i33: f64,
}

impl BodyZyx {
    /// The body of the example and of the sympy fixture (`tests/fixtures/spherical_body.json`).
    pub const EXAMPLE: Self = Self {
        m: 3.0,
        g: 9.81,
        cx: 0.1,
        cy: -0.05,
        cz: 0.4,
        i11: 0.30,
        i12: 0.02,
        i13: -0.01,
        i22: 0.25,
        i23: 0.03,
        i33: 0.12,
    };
}

impl BodyQuaternion {
    /// The same body as [`BodyZyx::EXAMPLE`].
    pub const EXAMPLE: Self = {
        let b = BodyZyx::EXAMPLE;
        Self {
            m: b.m,
            g: b.g,
            cx: b.cx,
            cy: b.cy,
            cz: b.cz,
            i11: b.i11,
            i12: b.i12,
            i13: b.i13,
            i22: b.i22,
            i23: b.i23,
            i33: b.i33,
        }
    };
}

/// The Euler parameters and their rates of the ZYX state (angles, rates): e is the product
/// of the three axis quaternions, and ė = ½ e ⊗ (0, Ω) with Ω the body angular velocity.
pub fn quaternion_state(
    angles: &Vector3<f64>,
    rates: &Vector3<f64>,
) -> (SVector<f64, 4>, SVector<f64, 4>) {
    let half = angles / 2.0;
    let (z, y, x) = (
        [half[0].cos(), 0.0, 0.0, half[0].sin()],
        [half[1].cos(), 0.0, half[1].sin(), 0.0],
        [half[2].cos(), half[2].sin(), 0.0, 0.0],
    );
    let e = product(product(z, y), x);
    let omega = BodyZyx::EXAMPLE.body_rate(angles, rates, 0.0);
    let e_rate = product(e, [0.0, omega[0], omega[1], omega[2]]).map(|v| v / 2.0);
    (SVector::from(e), SVector::from(e_rate))
}

/// The quaternion product a ⊗ b, scalar first.
fn product(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
    [
        a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
        a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
        a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
        a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
    ]
}

fn main() {
    let (angles, rates) = (Vector3::new(0.2, 0.5, -0.3), Vector3::new(0.0, 1.0, 4.0));
    let (e, e_rate) = quaternion_state(&angles, &rates);
    let options = SimulationOptions::every(0.01);
    println!("{}", Summary::header());
    // Five seconds of each form from the same state; writes target/udk/<name>.csv and .svg.
    let zyx = Showcase::new(
        env!("CARGO_MANIFEST_DIR"),
        "spherical_joint_body_zyx",
        "Body on a spherical joint, ZYX angles",
        &BodyZyx::COORDINATE_NAMES,
    );
    let report = zyx.run(&options, |o| {
        simulate_lagrangian(&BodyZyx::EXAMPLE, &angles, &rates, 0.0, 5.0, o)
    });
    println!("{report}");
    let quaternion = Showcase::new(
        env!("CARGO_MANIFEST_DIR"),
        "spherical_joint_body_quaternion",
        "Body on a spherical joint, Euler parameters",
        &BodyQuaternion::COORDINATE_NAMES,
    );
    let report = quaternion.run(&options, |o| {
        simulate_lagrangian(&BodyQuaternion::EXAMPLE, &e, &e_rate, 0.0, 5.0, o)
    });
    println!("{report}");
}
