//! A cart carrying a double pendulum of uniform rods, pushed by a horizontal force u: a model
//! with a run-time input (`inputs(u)`) that acts through a load (`force(F, p)`), simulated
//! under a control law.
//!
//! The cart moves along x; the rods swing in the x–z plane (z up), at angles th1 and th2 from
//! the downward vertical. `tests/multibody.rs` checks q̈ against sympy.physics.mechanics
//! (`tests/fixtures/cart_double_pendulum.json`).
//!
//! Run with `cargo run --release --example cart_double_pendulum`.

use udk::lagrangian;
use udk::nalgebra::{SVector, Vector1, Vector3};
use udk::runtime::simulate::{simulate_lagrangian, Showcase, SimulationOptions, Summary};
use udk::runtime::ControlledLagrangianSystem;

/// Cart of mass `mc` (kg); rods of masses `m1`, `m2` (kg) and lengths `l1`, `l2` (m); gravity
/// `g` (m/s²). Input: the horizontal force u on the cart (N).
#[lagrangian(
    coordinates(x, th1, th2),
    inputs(u),
    let cart = vec3(x, 0.0, 0.0),
    let down1 = vec3(th1.sin(), 0.0, -th1.cos()),
    let down2 = vec3(th2.sin(), 0.0, -th2.cos()),
    let centre1 = cart + 0.5 * l1 * down1,
    let centre2 = cart + l1 * down1 + 0.5 * l2 * down2,
    // A rod along its body z axis, turned about y: rot_y(−th) maps (0, 0, −1) to `down`.
    let rod1 = m1 * l1.powi(2) / 12.0 * diag(1.0, 1.0, 0.0),
    let rod2 = m2 * l2.powi(2) / 12.0 * diag(1.0, 1.0, 0.0),
    lagrangian = 0.5 * mc * dot(x).powi(2)
        + kinetic_energy(m1, rod1, centre1, rot_y(-th1))
        + kinetic_energy(m2, rod2, centre2, rot_y(-th2))
        - g * (m1 * centre1.z() + m2 * centre2.z()),
    loads(force(vec3(u, 0.0, 0.0), cart)),
    outputs(tip = cart + l1 * down1 + l2 * down2),
)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CartDoublePendulum {
    pub mc: f64,
    pub m1: f64,
    pub l1: f64,
    pub m2: f64,
    pub l2: f64,
    pub g: f64,
}

impl CartDoublePendulum {
    /// The cart of the example and of the sympy fixture.
    pub const EXAMPLE: Self = Self {
        mc: 1.5,
        m1: 0.5,
        l1: 0.6,
        m2: 0.4,
        l2: 0.5,
        g: 9.81,
    };
}

/// A control law that drives the cart to x = 1 m with a PD force: u = −8 (x − 1) − 4 ẋ.
pub fn drive_to_one(_t: f64, q: &SVector<f64, 3>, qd: &SVector<f64, 3>) -> Vector1<f64> {
    Vector1::new(-8.0 * (q[0] - 1.0) - 4.0 * qd[0])
}

fn main() {
    let model = CartDoublePendulum::EXAMPLE;
    let (q, qd) = (Vector3::new(0.0, 0.3, -0.2), Vector3::zeros());
    let push = Vector1::new(2.0);
    let qdd = model
        .acceleration(&q, &qd, &push, 0.0)
        .expect("a unique motion");
    println!("q̈ under u = 2 N: {}", qdd.transpose());
    println!(
        "pendulum tip: {}",
        model.tip(&q, &qd, &push, 0.0).transpose()
    );

    // Ten seconds under the PD law; writes target/udk/cart_double_pendulum.csv and .svg.
    let controlled = model.closed_loop(drive_to_one);
    let run = Showcase::new(
        env!("CARGO_MANIFEST_DIR"),
        "cart_double_pendulum",
        "Cart with a double pendulum, driven to x = 1 m by a PD force",
        &CartDoublePendulum::COORDINATE_NAMES,
    );
    let report = run.run(&SimulationOptions::every(0.01), |options| {
        simulate_lagrangian(&controlled, &q, &qd, 0.0, 10.0, options)
    });
    println!("{}\n{report}", Summary::header());
}
