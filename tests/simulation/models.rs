//! The paper systems that `tests/simulation.rs`, `tour/src/main.rs` and `benches/simulate.rs`
//! simulate: the examples' own models, compiled here as modules (each example is the one
//! definition of its model), and two quaternion helpers.

// Each user takes the models it needs.
#![allow(dead_code, unused_imports)]

#[path = "../../examples/cart_double_pendulum.rs"]
mod cart_double_pendulum;
#[path = "../../examples/flexible_joint_manipulator.rs"]
mod flexible_joint_manipulator;
#[path = "../../examples/quaternion_rigid_body.rs"]
mod quaternion_rigid_body;
#[path = "../../examples/spherical_pendulum.rs"]
mod spherical_pendulum;
#[path = "../../examples/spiral_particle.rs"]
mod spiral_particle;
#[path = "../../examples/two_particles_incline.rs"]
mod two_particles_incline;
#[path = "../../examples/wheel_on_incline.rs"]
mod wheel_on_incline;
#[path = "../../examples/wheel_zero_mass_particle.rs"]
mod wheel_zero_mass_particle;

use udk::nalgebra;

pub use cart_double_pendulum::CartDoublePendulum;
pub use flexible_joint_manipulator::FlexibleJointManipulator;
pub use quaternion_rigid_body::QuaternionRigidBody;
pub use spherical_pendulum::{SphericalPendulum, SphericalPendulumLagrangian};
pub use spiral_particle::SpiralParticle;
pub use two_particles_incline::TwoParticlesOnIncline;
pub use wheel_on_incline::WheelOnIncline;
pub use wheel_zero_mass_particle::WheelWithMasslessParticle;

/// ω = 2E(u) u̇, the body angular velocity of the quaternion body (Wanichanon eq 4.2).
pub fn angular_velocity(u: &[f64], ud: &[f64]) -> [f64; 3] {
    [
        2.0 * (-u[1] * ud[0] + u[0] * ud[1] + u[3] * ud[2] - u[2] * ud[3]),
        2.0 * (-u[2] * ud[0] - u[3] * ud[1] + u[0] * ud[2] + u[1] * ud[3]),
        2.0 * (-u[3] * ud[0] + u[2] * ud[1] - u[1] * ud[2] + u[0] * ud[3]),
    ]
}

/// u̇ = ½ E(u)ᵀ ω, the quaternion rate of the body angular velocity ω (E Eᵀ = I for |u| = 1).
pub fn quaternion_rate(u: &[f64], w: &[f64; 3]) -> [f64; 4] {
    [
        0.5 * (-u[1] * w[0] - u[2] * w[1] - u[3] * w[2]),
        0.5 * (u[0] * w[0] - u[3] * w[1] + u[2] * w[2]),
        0.5 * (u[3] * w[0] + u[0] * w[1] - u[1] * w[2]),
        0.5 * (-u[2] * w[0] + u[1] * w[1] + u[0] * w[2]),
    ]
}

/// [`WheelOnIncline::EXAMPLE`] with the zero-mass particle of Udwadia & Phohomsiri 2006,
/// example 2.
pub fn wheel_with_massless_particle() -> WheelWithMasslessParticle {
    let WheelOnIncline { m, r, ic, g, alpha } = WheelOnIncline::EXAMPLE;
    WheelWithMasslessParticle { m, r, ic, g, alpha }
}

/// The spherical pendulum of the tests and the tour: 1 kg on a 1 m rod under g = 9.81 m/s²,
/// started at 60° from the downward vertical with a horizontal velocity of 1.5 m/s; (system,
/// q₀, q̇₀).
pub fn pendulum_start() -> (
    SphericalPendulumLagrangian,
    nalgebra::Vector3<f64>,
    nalgebra::Vector3<f64>,
) {
    let pendulum = SphericalPendulumLagrangian {
        m: 1.0,
        g: 9.81,
        l: 1.0,
    };
    let angle = std::f64::consts::FRAC_PI_3;
    let q0 = nalgebra::Vector3::new(angle.sin(), 0.0, angle.cos());
    (pendulum, q0, nalgebra::Vector3::new(0.0, 1.5, 0.0))
}
