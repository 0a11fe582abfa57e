//! The paper systems that `tests/simulation.rs`, `examples/tour.rs` and `benches/simulate.rs`
//! simulate, written with the macros once and shared through `#[path]`.

// Each user takes the models it needs.
#![allow(dead_code)]

use udk::{hamiltonian, lagrangian};

/// Spherical pendulum in Cartesian coordinates, z down (Udwadia 2016, section 4.1): a particle
/// of mass `m` (kg) on a rod of length `l` (m) under gravity `g` (m/s²).
#[lagrangian(
    coordinates(x, y, z),
    lagrangian = 0.5 * m * (dot(x).powi(2) + dot(y).powi(2) + dot(z).powi(2)) + m * g * z,
    holonomic(x.powi(2) + y.powi(2) + z.powi(2) - l.powi(2)),
)]
pub struct SphericalPendulumLagrangian {
    pub m: f64,
    pub g: f64,
    pub l: f64,
}

/// The same pendulum as a Hamiltonian system, H = pᵀp/2m − mgz (eq 37), with φ = qᵀp = 0
/// (eq 40).
#[hamiltonian(
    coordinates(x, y, z),
    momenta(px, py, pz),
    hamiltonian = (px.powi(2) + py.powi(2) + pz.powi(2)) / (2.0 * m) - m * g * z,
    constraints(x * px + y * py + z * pz),
)]
pub struct SphericalPendulumHamiltonian {
    pub m: f64,
    pub g: f64,
}

/// Wheel rolling down an incline with the redundant coordinates (θ, y) and the singular mass
/// matrix diag(mR² + I_c, 0) (Udwadia & Phohomsiri 2006, example 1, eqs 5.1–5.17).
#[lagrangian(
    coordinates(theta, y),
    lagrangian = 0.5 * m * (r * dot(theta)).powi(2) + 0.5 * ic * dot(theta).powi(2) + m * g * y,
    holonomic(y - r * theta * alpha.sin()),
)]
pub struct WheelOnIncline {
    pub m: f64,
    pub r: f64,
    pub ic: f64,
    pub g: f64,
    pub alpha: f64,
}

/// The wheel with a zero-mass particle x added (ibid., example 2, eqs 5.18–5.23): [M; A] has
/// rank 2 < 3, the acceleration is not unique.
#[lagrangian(
    coordinates(theta, y, x),
    lagrangian = 0.5 * m * (r * dot(theta)).powi(2) + 0.5 * ic * dot(theta).powi(2) + m * g * y,
    holonomic(y - r * theta * alpha.sin()),
)]
pub struct WheelWithMasslessParticle {
    pub m: f64,
    pub r: f64,
    pub ic: f64,
    pub g: f64,
    pub alpha: f64,
}

/// Rigid body in unit quaternions u, T = 2u̇ᵀEᵀJEu̇ with M = 4EᵀJE of rank 3, under the body
/// torque τ (Udwadia & Wanichanon 2013, section 4, eqs 4.1–4.6).
#[lagrangian(
    coordinates(u0, u1, u2, u3),
    lagrangian = 2.0 * (j1 * (-u1 * dot(u0) + u0 * dot(u1) + u3 * dot(u2) - u2 * dot(u3)).powi(2)
        + j2 * (-u2 * dot(u0) - u3 * dot(u1) + u0 * dot(u2) + u1 * dot(u3)).powi(2)
        + j3 * (-u3 * dot(u0) + u2 * dot(u1) - u1 * dot(u2) + u0 * dot(u3)).powi(2)),
    holonomic(u0.powi(2) + u1.powi(2) + u2.powi(2) + u3.powi(2) - 1.0),
    forces(
        2.0 * (-u1 * tau1 - u2 * tau2 - u3 * tau3),
        2.0 * (u0 * tau1 - u3 * tau2 + u2 * tau3),
        2.0 * (u3 * tau1 + u0 * tau2 - u1 * tau3),
        2.0 * (-u2 * tau1 + u1 * tau2 + u0 * tau3),
    ),
)]
pub struct QuaternionRigidBody {
    pub j1: f64,
    pub j2: f64,
    pub j3: f64,
    pub tau1: f64,
    pub tau2: f64,
    pub tau3: f64,
}

/// Unit-mass particle in polar coordinates (r, θ) forced along the spiral r = e^{0.1θ} with
/// θ = 30 − t (review paper, section 8.1, eqs 53–57).
#[lagrangian(
    coordinates(r, theta),
    lagrangian = 0.5 * (dot(r).powi(2) + r.powi(2) * dot(theta).powi(2)) - g * r * theta.sin(),
    holonomic(r - (0.1 * theta).exp(), theta + t - 30.0),
)]
pub struct SpiralParticle {
    pub g: f64,
}

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
