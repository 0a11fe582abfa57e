//! `udk eval` and `udk expand` on every model under `examples/models/` against the same models
//! written with `#[lagrangian]` / `#[hamiltonian]`: the evaluations agree to 1e-12, and the
//! expansions byte for byte with the files the macros wrote to `UDK_EXPAND_DIR` (set for this
//! package by its build script) while this test compiled.

mod chain10;
mod common;

use chain10::PendulumChainCartesian10;

use common::{close, numbers, udk, Json};
use udk::nalgebra::{SMatrix, SVector};
use udk::runtime::simulate::{
    simulate_hamiltonian, simulate_lagrangian, OutputTimes, SimulationOptions,
};
use udk::{hamiltonian, lagrangian, HamiltonianSystem, LagrangianSystem};

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

#[lagrangian(
    coordinates(x1, q1, q2),
    lagrangian = 0.5 * m1 * dot(x1).powi(2) + 0.5 * m2 * (dot(q1) + dot(q2)).powi(2) - 0.5 * k1 * x1.powi(2) - 0.5 * k2 * q2.powi(2),
    holonomic(q1 - x1 - d),
)]
pub struct TwoMasses {
    pub m1: f64,
    pub m2: f64,
    pub k1: f64,
    pub k2: f64,
    pub d: f64,
}

#[lagrangian(
    coordinates(x1, q1, q2),
    lagrangian = 0.5 * m1 * dot(x1).powi(2) + 0.5 * m2 * (dot(q1) + dot(q2)).powi(2) - 0.5 * k1 * x1.powi(2) - 0.5 * k2 * q2.powi(2),
    holonomic(q1 - x1 - d, k1 * x1 - k2 * q2),
)]
pub struct TwoMassesFirstMassless {
    pub m1: f64,
    pub m2: f64,
    pub k1: f64,
    pub k2: f64,
    pub d: f64,
}

#[lagrangian(
    coordinates(x1, q1, q2),
    lagrangian = 0.5 * m1 * dot(x1).powi(2) + 0.5 * m2 * (dot(q1) + dot(q2)).powi(2) - 0.5 * k1 * x1.powi(2) - 0.5 * k2 * q2.powi(2),
    holonomic(q1 - x1 - d, k2 * q2),
)]
pub struct TwoMassesSecondMassless {
    pub m1: f64,
    pub m2: f64,
    pub k1: f64,
    pub k2: f64,
    pub d: f64,
}

#[lagrangian(
    coordinates(u0, u1, u2, u3),
    lagrangian = 2.0 * (j1 * (-u1 * dot(u0) + u0 * dot(u1) + u3 * dot(u2) - u2 * dot(u3)).powi(2) + j2 * (-u2 * dot(u0) - u3 * dot(u1) + u0 * dot(u2) + u1 * dot(u3)).powi(2) + j3 * (-u3 * dot(u0) + u2 * dot(u1) - u1 * dot(u2) + u0 * dot(u3)).powi(2)),
    holonomic(u0.powi(2) + u1.powi(2) + u2.powi(2) + u3.powi(2) - 1.0),
    forces(2.0 * (-u1 * tau1 - u2 * tau2 - u3 * tau3), 2.0 * (u0 * tau1 - u3 * tau2 + u2 * tau3), 2.0 * (u3 * tau1 + u0 * tau2 - u1 * tau3), 2.0 * (-u2 * tau1 + u1 * tau2 + u0 * tau3)),
)]
pub struct QuaternionRigidBody {
    pub j1: f64,
    pub j2: f64,
    pub j3: f64,
    pub tau1: f64,
    pub tau2: f64,
    pub tau3: f64,
}

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

#[hamiltonian(
    coordinates(x, y, z),
    momenta(px, py, pz),
    hamiltonian = (px.powi(2) + py.powi(2) + pz.powi(2)) / (2.0 * m) - m * g * z,
    constraints(x * px + y * py + z * pz),
)]
pub struct SphericalPendulum {
    pub m: f64,
    pub g: f64,
}

#[hamiltonian(
    coordinates(x, y, z),
    momenta(px, py, pz),
    hamiltonian = (px.powi(2) + py.powi(2) + pz.powi(2)) / (2.0 * m),
    constraints(z.powi(2) * px - py),
)]
pub struct NonholonomicParticle {
    pub m: f64,
}

#[hamiltonian(
    coordinates(x1, y1, x2, y2),
    momenta(px1, py1, px2, py2),
    hamiltonian = (px1.powi(2) + py1.powi(2)) / (2.0 * m1) + (px2.powi(2) + py2.powi(2)) / (2.0 * m2) + g * (m1 * y1 + m2 * y2) * alpha.sin(),
    holonomic((x1 - x2).powi(2) + (y1 - y2).powi(2) - l.powi(2)),
    constraints((x1 - x2) / m1 * px1 + (y1 - y2) / m1 * py1, (x1 - x2) / m2 * px2 + (y1 - y2) / m2 * py2),
)]
pub struct TwoParticlesOnIncline {
    pub m1: f64,
    pub m2: f64,
    pub g: f64,
    pub alpha: f64,
    pub l: f64,
}

#[hamiltonian(
    coordinates(theta1, theta2),
    momenta(p1, p2),
    hamiltonian = 0.5 * ((m1 + m2) * l1.powi(2) * p2.powi(2) + m2 * l2.powi(2) * p1.powi(2) - 2.0 * m2 * l1 * l2 * p1 * p2 * (theta1 - theta2).cos()) / (m2 * l1.powi(2) * l2.powi(2) * (m1 + m2 * (theta1 - theta2).sin().powi(2))) - (m1 + m2) * g * l1 * theta1.cos() - m2 * g * l2 * theta2.cos(),
    constraints(p1 - alpha * p2 * (omega * t).sin()),
)]
pub struct ConstrainedDoublePendulum {
    pub m1: f64,
    pub m2: f64,
    pub l1: f64,
    pub l2: f64,
    pub g: f64,
    pub alpha: f64,
    pub omega: f64,
}

#[lagrangian(
    coordinates(r, theta),
    lagrangian = 0.5 * (dot(r).powi(2) + r.powi(2) * dot(theta).powi(2)) - g * r * theta.sin(),
    holonomic(r - (0.1 * theta).exp(), theta + t - 30.0),
)]
pub struct SpiralParticle {
    pub g: f64,
}

#[lagrangian(
    coordinates(x1, y1, x2, y2, x3, y3, x4, y4, x5, y5),
    lagrangian = 0.5 * m * (dot(x1).powi(2) + dot(y1).powi(2) + dot(x2).powi(2) + dot(y2).powi(2) + dot(x3).powi(2) + dot(y3).powi(2) + dot(x4).powi(2) + dot(y4).powi(2) + dot(x5).powi(2) + dot(y5).powi(2)),
    nonholonomic(dot(x1) + (x1 - x2) * (1.0 - 0.5 / ((x1 - x2).powi(2) + (y1 - y2).powi(2)).sqrt()) + (x1 - x3) * (1.0 - 0.5 / ((x1 - x3).powi(2) + (y1 - y3).powi(2)).sqrt()) + (x1 - x4) * (1.0 - 0.5 / ((x1 - x4).powi(2) + (y1 - y4).powi(2)).sqrt()) + (x1 - x5) * (1.0 - 0.5 / ((x1 - x5).powi(2) + (y1 - y5).powi(2)).sqrt()), dot(y1) + (y1 - y2) * (1.0 - 0.5 / ((x1 - x2).powi(2) + (y1 - y2).powi(2)).sqrt()) + (y1 - y3) * (1.0 - 0.5 / ((x1 - x3).powi(2) + (y1 - y3).powi(2)).sqrt()) + (y1 - y4) * (1.0 - 0.5 / ((x1 - x4).powi(2) + (y1 - y4).powi(2)).sqrt()) + (y1 - y5) * (1.0 - 0.5 / ((x1 - x5).powi(2) + (y1 - y5).powi(2)).sqrt()), dot(x2) + (x2 - x1) * (1.0 - 0.5 / ((x2 - x1).powi(2) + (y2 - y1).powi(2)).sqrt()) + (x2 - x3) * (1.0 - 0.5 / ((x2 - x3).powi(2) + (y2 - y3).powi(2)).sqrt()) + (x2 - x4) * (1.0 - 0.5 / ((x2 - x4).powi(2) + (y2 - y4).powi(2)).sqrt()) + (x2 - x5) * (1.0 - 0.5 / ((x2 - x5).powi(2) + (y2 - y5).powi(2)).sqrt()), dot(y2) + (y2 - y1) * (1.0 - 0.5 / ((x2 - x1).powi(2) + (y2 - y1).powi(2)).sqrt()) + (y2 - y3) * (1.0 - 0.5 / ((x2 - x3).powi(2) + (y2 - y3).powi(2)).sqrt()) + (y2 - y4) * (1.0 - 0.5 / ((x2 - x4).powi(2) + (y2 - y4).powi(2)).sqrt()) + (y2 - y5) * (1.0 - 0.5 / ((x2 - x5).powi(2) + (y2 - y5).powi(2)).sqrt()), dot(x3) + (x3 - x1) * (1.0 - 0.5 / ((x3 - x1).powi(2) + (y3 - y1).powi(2)).sqrt()) + (x3 - x2) * (1.0 - 0.5 / ((x3 - x2).powi(2) + (y3 - y2).powi(2)).sqrt()) + (x3 - x4) * (1.0 - 0.5 / ((x3 - x4).powi(2) + (y3 - y4).powi(2)).sqrt()) + (x3 - x5) * (1.0 - 0.5 / ((x3 - x5).powi(2) + (y3 - y5).powi(2)).sqrt()), dot(y3) + (y3 - y1) * (1.0 - 0.5 / ((x3 - x1).powi(2) + (y3 - y1).powi(2)).sqrt()) + (y3 - y2) * (1.0 - 0.5 / ((x3 - x2).powi(2) + (y3 - y2).powi(2)).sqrt()) + (y3 - y4) * (1.0 - 0.5 / ((x3 - x4).powi(2) + (y3 - y4).powi(2)).sqrt()) + (y3 - y5) * (1.0 - 0.5 / ((x3 - x5).powi(2) + (y3 - y5).powi(2)).sqrt()), dot(x4) + (x4 - x1) * (1.0 - 0.5 / ((x4 - x1).powi(2) + (y4 - y1).powi(2)).sqrt()) + (x4 - x2) * (1.0 - 0.5 / ((x4 - x2).powi(2) + (y4 - y2).powi(2)).sqrt()) + (x4 - x3) * (1.0 - 0.5 / ((x4 - x3).powi(2) + (y4 - y3).powi(2)).sqrt()) + (x4 - x5) * (1.0 - 0.5 / ((x4 - x5).powi(2) + (y4 - y5).powi(2)).sqrt()), dot(y4) + (y4 - y1) * (1.0 - 0.5 / ((x4 - x1).powi(2) + (y4 - y1).powi(2)).sqrt()) + (y4 - y2) * (1.0 - 0.5 / ((x4 - x2).powi(2) + (y4 - y2).powi(2)).sqrt()) + (y4 - y3) * (1.0 - 0.5 / ((x4 - x3).powi(2) + (y4 - y3).powi(2)).sqrt()) + (y4 - y5) * (1.0 - 0.5 / ((x4 - x5).powi(2) + (y4 - y5).powi(2)).sqrt()), dot(x5) + (x5 - x1) * (1.0 - 0.5 / ((x5 - x1).powi(2) + (y5 - y1).powi(2)).sqrt()) + (x5 - x2) * (1.0 - 0.5 / ((x5 - x2).powi(2) + (y5 - y2).powi(2)).sqrt()) + (x5 - x3) * (1.0 - 0.5 / ((x5 - x3).powi(2) + (y5 - y3).powi(2)).sqrt()) + (x5 - x4) * (1.0 - 0.5 / ((x5 - x4).powi(2) + (y5 - y4).powi(2)).sqrt()), dot(y5) + (y5 - y1) * (1.0 - 0.5 / ((x5 - x1).powi(2) + (y5 - y1).powi(2)).sqrt()) + (y5 - y2) * (1.0 - 0.5 / ((x5 - x2).powi(2) + (y5 - y2).powi(2)).sqrt()) + (y5 - y3) * (1.0 - 0.5 / ((x5 - x3).powi(2) + (y5 - y3).powi(2)).sqrt()) + (y5 - y4) * (1.0 - 0.5 / ((x5 - x4).powi(2) + (y5 - y4).powi(2)).sqrt())),
)]
pub struct SwarmOfFiveRobots {
    pub m: f64,
}

#[lagrangian(
    coordinates(q1, q2, q3, q4),
    lagrangian = 0.5 * (m2 * (l1.powi(2) + lc2.powi(2) + 2.0 * l1 * lc2 * q4.cos()) + m1 * lc1.powi(2) + i1 + i2) * dot(q2).powi(2) + (m2 * (lc2.powi(2) + l1 * lc2 * q4.cos()) + i2) * dot(q2) * dot(q4) + 0.5 * (m2 * lc2.powi(2) + i2) * dot(q4).powi(2) + 0.5 * (j11 * dot(q1).powi(2) + j22 * dot(q3).powi(2)) + (m1 * lc1 + m2 * l1) * g * q2.cos() + m2 * lc2 * g * (q2 + q4).cos() - 0.5 * k1 * (q2 - q1).powi(2) - 0.5 * k2 * (q4 - q3).powi(2),
    nonholonomic(dot(q2) + dot(q4)),
)]
pub struct FlexibleJointManipulator {
    pub m1: f64,
    pub m2: f64,
    pub l1: f64,
    pub lc1: f64,
    pub lc2: f64,
    pub i1: f64,
    pub i2: f64,
    pub j11: f64,
    pub j22: f64,
    pub k1: f64,
    pub k2: f64,
    pub g: f64,
}

#[lagrangian(
    coordinates(theta1, theta2),
    lagrangian = 0.5 * (m1 + m2) * l1.powi(2) * dot(theta1).powi(2) + 0.5 * m2 * l2.powi(2) * dot(theta2).powi(2) + m2 * l1 * l2 * dot(theta1) * dot(theta2) * (theta1 - theta2).cos() + (m1 + m2) * g * l1 * theta1.cos() + m2 * g * l2 * theta2.cos(),
)]
pub struct DoublePendulum {
    pub m1: f64,
    pub m2: f64,
    pub l1: f64,
    pub l2: f64,
    pub g: f64,
}

#[test]
fn wheel_on_incline() {
    expand_matches("wheel_on_incline", "WheelOnIncline");
    check_lagrangian(
        "wheel_on_incline",
        &WheelOnIncline {
            m: 2.0,
            r: 0.3,
            ic: 0.09,
            g: 9.81,
            alpha: 0.4,
        },
    );
    simulate_matches_lagrangian(
        "wheel_on_incline",
        &WheelOnIncline {
            m: 2.0,
            r: 0.3,
            ic: 0.09,
            g: 9.81,
            alpha: 0.4,
        },
        2.0,
    );
}

#[test]
fn wheel_zero_mass_particle() {
    expand_matches("wheel_zero_mass_particle", "WheelWithMasslessParticle");
    not_unique(
        "wheel_zero_mass_particle",
        &WheelWithMasslessParticle {
            m: 2.0,
            r: 0.3,
            ic: 0.09,
            g: 9.81,
            alpha: 0.4,
        },
    );
}

#[test]
fn two_masses_springs() {
    expand_matches("two_masses_springs", "TwoMasses");
    check_lagrangian(
        "two_masses_springs",
        &TwoMasses {
            m1: 1.5,
            m2: 2.5,
            k1: 3.0,
            k2: 5.0,
            d: 0.5,
        },
    );
    simulate_matches_lagrangian(
        "two_masses_springs",
        &TwoMasses {
            m1: 1.5,
            m2: 2.5,
            k1: 3.0,
            k2: 5.0,
            d: 0.5,
        },
        2.0,
    );
}

#[test]
fn two_masses_first_massless() {
    expand_matches("two_masses_first_massless", "TwoMassesFirstMassless");
    check_lagrangian(
        "two_masses_first_massless",
        &TwoMassesFirstMassless {
            m1: 0.0,
            m2: 2.5,
            k1: 3.0,
            k2: 5.0,
            d: 0.5,
        },
    );
}

#[test]
fn two_masses_second_massless() {
    expand_matches("two_masses_second_massless", "TwoMassesSecondMassless");
    check_lagrangian(
        "two_masses_second_massless",
        &TwoMassesSecondMassless {
            m1: 1.5,
            m2: 0.0,
            k1: 3.0,
            k2: 5.0,
            d: 0.5,
        },
    );
}

#[test]
fn quaternion_rigid_body() {
    expand_matches("quaternion_rigid_body", "QuaternionRigidBody");
    check_lagrangian(
        "quaternion_rigid_body",
        &QuaternionRigidBody {
            j1: 1.0,
            j2: 2.0,
            j3: 3.0,
            tau1: 0.1,
            tau2: -0.2,
            tau3: 0.3,
        },
    );
    simulate_matches_lagrangian(
        "quaternion_rigid_body",
        &QuaternionRigidBody {
            j1: 1.0,
            j2: 2.0,
            j3: 3.0,
            tau1: 0.1,
            tau2: -0.2,
            tau3: 0.3,
        },
        2.0,
    );
}

#[test]
fn spherical_pendulum_lagrangian() {
    expand_matches(
        "spherical_pendulum_lagrangian",
        "SphericalPendulumLagrangian",
    );
    check_lagrangian(
        "spherical_pendulum_lagrangian",
        &SphericalPendulumLagrangian {
            m: 1.5,
            g: 9.81,
            l: 2.0,
        },
    );
    simulate_matches_lagrangian(
        "spherical_pendulum_lagrangian",
        &SphericalPendulumLagrangian {
            m: 1.5,
            g: 9.81,
            l: 2.0,
        },
        2.0,
    );
}

#[test]
fn spherical_pendulum_hamiltonian() {
    expand_matches("spherical_pendulum_hamiltonian", "SphericalPendulum");
    check_hamiltonian(
        "spherical_pendulum_hamiltonian",
        &SphericalPendulum { m: 1.5, g: 9.81 },
    );
    simulate_matches_hamiltonian(
        "spherical_pendulum_hamiltonian",
        &SphericalPendulum { m: 1.5, g: 9.81 },
        2.0,
    );
}

#[test]
fn nonholonomic_particle() {
    expand_matches("nonholonomic_particle", "NonholonomicParticle");
    check_hamiltonian("nonholonomic_particle", &NonholonomicParticle { m: 2.0 });
    simulate_matches_hamiltonian(
        "nonholonomic_particle",
        &NonholonomicParticle { m: 2.0 },
        2.0,
    );
}

#[test]
fn two_particles_incline() {
    expand_matches("two_particles_incline", "TwoParticlesOnIncline");
    check_hamiltonian(
        "two_particles_incline",
        &TwoParticlesOnIncline {
            m1: 1.0,
            m2: 3.0,
            g: 9.81,
            alpha: 0.3,
            l: 2.0,
        },
    );
}

#[test]
fn constrained_double_pendulum() {
    expand_matches("constrained_double_pendulum", "ConstrainedDoublePendulum");
    check_hamiltonian(
        "constrained_double_pendulum",
        &ConstrainedDoublePendulum {
            m1: 1.0,
            m2: 0.5,
            l1: 1.0,
            l2: 0.7,
            g: 9.81,
            alpha: 0.8,
            omega: 2.0,
        },
    );
    simulate_matches_hamiltonian(
        "constrained_double_pendulum",
        &ConstrainedDoublePendulum {
            m1: 1.0,
            m2: 0.5,
            l1: 1.0,
            l2: 0.7,
            g: 9.81,
            alpha: 0.8,
            omega: 2.0,
        },
        2.0,
    );
}

#[test]
fn spiral_particle() {
    expand_matches("spiral_particle", "SpiralParticle");
    check_lagrangian("spiral_particle", &SpiralParticle { g: 9.81 });
    simulate_matches_lagrangian("spiral_particle", &SpiralParticle { g: 9.81 }, 2.0);
}

#[test]
fn swarm_robots() {
    expand_matches("swarm_robots", "SwarmOfFiveRobots");
    check_lagrangian("swarm_robots", &SwarmOfFiveRobots { m: 2.0 });
}

#[test]
fn flexible_joint_manipulator() {
    expand_matches("flexible_joint_manipulator", "FlexibleJointManipulator");
    check_lagrangian(
        "flexible_joint_manipulator",
        &FlexibleJointManipulator {
            m1: 1.0,
            m2: 1.0,
            l1: 1.0,
            lc1: 0.5,
            lc2: 0.5,
            i1: 1.0,
            i2: 1.0,
            j11: 1.0,
            j22: 1.0,
            k1: 1.0,
            k2: 1.0,
            g: 9.81,
        },
    );
    simulate_matches_lagrangian(
        "flexible_joint_manipulator",
        &FlexibleJointManipulator {
            m1: 1.0,
            m2: 1.0,
            l1: 1.0,
            lc1: 0.5,
            lc2: 0.5,
            i1: 1.0,
            i2: 1.0,
            j11: 1.0,
            j22: 1.0,
            k1: 1.0,
            k2: 1.0,
            g: 9.81,
        },
        2.0,
    );
}

#[test]
fn double_pendulum_minimal() {
    expand_matches("double_pendulum_minimal", "DoublePendulum");
    check_lagrangian(
        "double_pendulum_minimal",
        &DoublePendulum {
            m1: 1.0,
            m2: 1.0,
            l1: 1.0,
            l2: 1.0,
            g: 9.81,
        },
    );
}

#[test]
fn chain10_cartesian() {
    expand_matches("chain10_cartesian", "PendulumChainCartesian10");
    check_lagrangian(
        "chain10_cartesian",
        &PendulumChainCartesian10 {
            m1: 1.0,
            m2: 1.0,
            m3: 1.0,
            m4: 1.0,
            m5: 1.0,
            m6: 1.0,
            m7: 1.0,
            m8: 1.0,
            m9: 1.0,
            m10: 1.0,
            l1: 1.0,
            l2: 1.0,
            l3: 1.0,
            l4: 1.0,
            l5: 1.0,
            l6: 1.0,
            l7: 1.0,
            l8: 1.0,
            l9: 1.0,
            l10: 1.0,
            g: 9.81,
        },
    );
}

/// The initial state of a model file: (t0, q0, qd0 or p0).
fn initial(name: &str) -> (f64, Vec<f64>, Vec<f64>) {
    let file = udk_cli::model_file::ModelFile::load(&common::model(name)).expect("model file");
    let initial = file.spec.initial.expect("an [initial] table");
    let v = if initial.p0.is_empty() {
        initial.qd0
    } else {
        initial.p0
    };
    (initial.t0, initial.q0, v)
}

/// Two states per model: the initial one, and a later time with −½ the velocities or momenta
/// (still on the constraint manifold for the homogeneous velocity constraints).
fn states(name: &str) -> Vec<(f64, Vec<f64>, Vec<f64>)> {
    let (t0, q0, v0) = initial(name);
    let scaled = v0.iter().map(|v| -0.5 * v).collect();
    vec![(t0, q0.clone(), v0), (t0 + 0.3, q0, scaled)]
}

/// `udk eval --states` of `states` on the model file `name`, as JSON reports.
fn eval(name: &str, key: &str, states: &[(f64, Vec<f64>, Vec<f64>)]) -> Vec<Json> {
    let input: Vec<Json> = states
        .iter()
        .map(|(t, q, v)| serde_json::json!({ "t": t, "q": q, key: v }))
        .collect();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("states.json");
    std::fs::write(&path, serde_json::to_string(&input).unwrap()).unwrap();
    let output = udk()
        .arg("eval")
        .arg(common::model(name))
        .arg("--states")
        .arg(&path)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let reports: Vec<Json> = serde_json::from_slice(&output).expect("JSON output");
    assert_eq!(reports.len(), states.len());
    reports
}

const TOL: f64 = 1e-12;

fn check_lagrangian<S: LagrangianSystem<N, M>, const N: usize, const M: usize>(
    name: &str,
    system: &S,
) {
    let states = states(name);
    for ((t, q, qd), report) in states.iter().zip(eval(name, "qd", &states)) {
        let (q, qd) = (
            SVector::<f64, N>::from_column_slice(q),
            SVector::<f64, N>::from_column_slice(qd),
        );
        let terms = system.terms(&q, &qd, *t);
        let at = format!("{name} at t = {t}");
        let acceleration = system.acceleration(&q, &qd, *t).expect("unique");
        let force = system.constraint_force(&q, &qd, *t).expect("unique");
        close(
            &numbers(&report["acceleration"]),
            acceleration.as_slice(),
            TOL,
            &format!("{at}: q̈"),
        );
        close(
            &numbers(&report["constraint_force"]),
            force.as_slice(),
            TOL,
            &format!("{at}: Qᶜ"),
        );
        close(
            &common::matrix_column_major(&report["mass_matrix"]),
            terms.mass_matrix.as_slice(),
            TOL,
            &format!("{at}: M"),
        );
        close(
            &numbers(&report["generalized_force"]),
            terms.generalized_force.as_slice(),
            TOL,
            &format!("{at}: Q"),
        );
        if M > 0 {
            close(
                &common::matrix_column_major(&report["constraint_matrix"]),
                terms.constraint_matrix.as_slice(),
                TOL,
                &format!("{at}: A"),
            );
        }
        close(
            &numbers(&report["constraint_rhs"]),
            terms.constraint_rhs.as_slice(),
            TOL,
            &format!("{at}: b"),
        );
        let c = terms.nonideal_force.unwrap_or_else(SVector::zeros);
        close(
            &numbers(&report["nonideal_force"]),
            c.as_slice(),
            TOL,
            &format!("{at}: C"),
        );
        close(
            &[report["energy"].as_f64().unwrap()],
            &[system.energy(&q, &qd, *t)],
            TOL,
            &format!("{at}: energy"),
        );
        close(
            &numbers(&report["residuals"]["velocity"]),
            system.velocity_residual(&q, &qd, *t).as_slice(),
            TOL,
            &format!("{at}: velocity residual"),
        );
        let holonomic = system.holonomic_residual(&q, *t);
        close(
            &numbers(&report["residuals"]["holonomic"]),
            &holonomic.as_slice()[..S::NUM_HOLONOMIC],
            TOL,
            &format!("{at}: f"),
        );
        assert_eq!(report["rank"]["mass_and_constraint_matrix"], N);
    }
}

fn check_hamiltonian<S: HamiltonianSystem<N, M>, const N: usize, const M: usize>(
    name: &str,
    system: &S,
) {
    let states = states(name);
    for ((t, q, p), report) in states.iter().zip(eval(name, "p", &states)) {
        let (q, p) = (
            SVector::<f64, N>::from_column_slice(q),
            SVector::<f64, N>::from_column_slice(p),
        );
        let at = format!("{name} at t = {t}");
        let terms = system.terms(&q, &p, *t);
        let (qd, pd) = system.state_derivative(&q, &p, *t).expect("consistent");
        let force = system.constraint_force(&q, &p, *t).expect("consistent");
        close(
            &numbers(&report["qd"]),
            qd.as_slice(),
            TOL,
            &format!("{at}: q̇"),
        );
        close(
            &numbers(&report["momentum_rate"]),
            pd.as_slice(),
            TOL,
            &format!("{at}: ṗ"),
        );
        close(
            &numbers(&report["constraint_force"]),
            force.as_slice(),
            TOL,
            &format!("{at}: Fᶜ"),
        );
        close(
            &numbers(&report["h_q"]),
            terms.h_q.as_slice(),
            TOL,
            &format!("{at}: H_q"),
        );
        let h_pp: SMatrix<f64, N, N> = terms.h_pp;
        close(
            &common::matrix_column_major(&report["h_pp"]),
            h_pp.as_slice(),
            TOL,
            &format!("{at}: H_pp"),
        );
        close(
            &common::matrix_column_major(&report["a_p"]),
            terms.a_p.as_slice(),
            TOL,
            &format!("{at}: A_p"),
        );
        close(
            &numbers(&report["b_p"]),
            terms.b_p.as_slice(),
            TOL,
            &format!("{at}: b_p"),
        );
        close(
            &[report["hamiltonian"].as_f64().unwrap()],
            &[system.hamiltonian(&q, &p, *t)],
            TOL,
            &format!("{at}: H"),
        );
        close(
            &numbers(&report["residuals"]["velocity"]),
            system.constraint_residual(&q, &p, *t).as_slice(),
            TOL,
            &format!("{at}: φ"),
        );
    }
}

/// The wheel with a zero-mass particle: rank [M; A] < n, so `udk eval` exits with code 3 and
/// the generated `acceleration` returns the same error.
fn not_unique<S: LagrangianSystem<N, M>, const N: usize, const M: usize>(name: &str, system: &S) {
    let (t, q, qd) = initial(name);
    let expected = system
        .acceleration(
            &SVector::<f64, N>::from_column_slice(&q),
            &SVector::<f64, N>::from_column_slice(&qd),
            t,
        )
        .expect_err("not unique");
    udk()
        .arg("eval")
        .arg(common::model(name))
        .assert()
        .code(3)
        .stderr(predicate(&expected.to_string()));
}

/// A predicate: the text contains `needle`.
fn predicate(needle: &str) -> impl predicates::Predicate<[u8]> + '_ {
    predicates::function::function(move |out: &[u8]| String::from_utf8_lossy(out).contains(needle))
}

/// `udk expand` prints exactly what the macro wrote for `Struct` to `UDK_EXPAND_DIR`.
fn expand_matches(name: &str, structure: &str) {
    let written = std::path::Path::new(env!("UDK_EXPAND_DIR")).join(format!("{structure}.rs"));
    let expected = std::fs::read(&written)
        .unwrap_or_else(|e| panic!("the macro wrote {}: {e}", written.display()));
    let printed = udk()
        .arg("expand")
        .arg(common::model(name))
        .assert()
        .success();
    assert!(
        printed.get_output().stdout == expected,
        "udk expand {name} differs from {}",
        written.display()
    );
}

/// `udk simulate` of the model file `name` to `t_end` with the CSV written, and the final
/// (q, v) of that CSV.
fn simulate_final_state(name: &str, t_end: f64) -> (Vec<f64>, Vec<f64>) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let csv = dir.path().join("trajectory.csv");
    udk()
        .arg("simulate")
        .arg(common::model(name))
        .arg("--t-end")
        .arg(t_end.to_string())
        .arg("--out")
        .arg(&csv)
        .assert()
        .success();
    let text = std::fs::read_to_string(&csv).expect("the CSV is written");
    let last: Vec<f64> = text
        .lines()
        .last()
        .expect("samples")
        .split(',')
        .map(|x| x.parse().expect("a number"))
        .collect();
    let n = (last.len() - 4) / 2;
    assert_eq!(last[0], t_end, "the last sample is at t_end");
    (last[1..=n].to_vec(), last[n + 1..=2 * n].to_vec())
}

/// What `udk simulate --t-end t_end` runs: DOP853 at its default tolerances with Baumgarte
/// stabilization, output every (t_end − t0)/1000.
fn cli_options(t0: f64, t_end: f64) -> SimulationOptions {
    SimulationOptions {
        output: OutputTimes::Every((t_end - t0) / 1000.0),
        ..SimulationOptions::default()
    }
}

const SIMULATION_TOL: f64 = 1e-8;

/// The CSV of `udk simulate` ends where the macro-generated system's simulation ends, to 1e-8.
fn simulate_matches_lagrangian<S: LagrangianSystem<N, M>, const N: usize, const M: usize>(
    name: &str,
    system: &S,
    t_end: f64,
) {
    let (t0, q0, v0) = initial(name);
    let (q0, v0) = (
        SVector::<f64, N>::from_column_slice(&q0),
        SVector::<f64, N>::from_column_slice(&v0),
    );
    let trajectory = simulate_lagrangian(system, &q0, &v0, t0, t_end, &cli_options(t0, t_end))
        .expect("the macro-based run reaches t_end");
    let last = trajectory.samples.last().expect("samples");
    let (q, v) = simulate_final_state(name, t_end);
    close(
        &q,
        last.q.as_slice(),
        SIMULATION_TOL,
        &format!("{name}: final q"),
    );
    close(
        &v,
        last.v.as_slice(),
        SIMULATION_TOL,
        &format!("{name}: final q̇"),
    );
}

/// As [`simulate_matches_lagrangian`] for a Hamiltonian model.
fn simulate_matches_hamiltonian<S: HamiltonianSystem<N, M>, const N: usize, const M: usize>(
    name: &str,
    system: &S,
    t_end: f64,
) {
    let (t0, q0, v0) = initial(name);
    let (q0, v0) = (
        SVector::<f64, N>::from_column_slice(&q0),
        SVector::<f64, N>::from_column_slice(&v0),
    );
    let trajectory = simulate_hamiltonian(system, &q0, &v0, t0, t_end, &cli_options(t0, t_end))
        .expect("the macro-based run reaches t_end");
    let last = trajectory.samples.last().expect("samples");
    let (q, p) = simulate_final_state(name, t_end);
    close(
        &q,
        last.q.as_slice(),
        SIMULATION_TOL,
        &format!("{name}: final q"),
    );
    close(
        &p,
        last.v.as_slice(),
        SIMULATION_TOL,
        &format!("{name}: final p"),
    );
}
