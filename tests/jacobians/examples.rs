//! Every example with tests: ∂q̈/∂(q, q̇, u) (or ∂(q̇, ṗ)/∂(q, p)) against central differences,
//! at general states. Between them they cover redundant constraints (four-bar), singular mass
//! matrices (wheel on the incline, the two massless cases), nonholonomic constraints (rolling
//! disk, bicycle, flexible joint, nonholonomic particle, swarm), non-ideal constraints
//! (sliding particle), time-dependent constraints (spiral) and inputs (cart-double-pendulum,
//! UR5 arm).

#![allow(dead_code)]

#[path = "../../examples/cart_double_pendulum.rs"]
mod cart_double_pendulum;
#[path = "../../examples/constrained_double_pendulum.rs"]
mod constrained_double_pendulum;
#[path = "../../examples/double_pendulum_minimal.rs"]
mod double_pendulum_minimal;
#[path = "../../examples/flexible_joint_manipulator.rs"]
mod flexible_joint_manipulator;
#[path = "../../examples/four_bar.rs"]
mod four_bar;
#[path = "../../examples/nonholonomic_particle.rs"]
mod nonholonomic_particle;
#[path = "../../examples/quaternion_rigid_body.rs"]
mod quaternion_rigid_body;
#[path = "../../examples/rolling_disk.rs"]
mod rolling_disk;
#[path = "../../examples/spherical_joint_body.rs"]
mod spherical_joint_body;
#[path = "../../examples/spherical_pendulum.rs"]
mod spherical_pendulum;
#[path = "../../examples/spiral_particle.rs"]
mod spiral_particle;
#[path = "../../examples/swarm_robots.rs"]
mod swarm_robots;
#[path = "../../examples/two_masses_springs.rs"]
mod two_masses_springs;
#[path = "../../examples/two_particles_incline.rs"]
mod two_particles_incline;
#[path = "../../examples/ur5_arm.rs"]
mod ur5_arm;
#[path = "../../examples/wheel_on_incline.rs"]
mod wheel_on_incline;
#[path = "../../examples/whipple_bicycle.rs"]
mod whipple_bicycle;

use crate::support::{check_controlled, check_hamiltonian, check_lagrangian};
use udk::lagrangian;
use udk::nalgebra::{SVector, Vector1, Vector2, Vector3, Vector4};

#[test]
fn pendulums() {
    let l = 0.9;
    let (theta, phi) = (0.7f64, 0.4f64);
    let q = l * Vector3::new(
        theta.sin() * phi.cos(),
        theta.sin() * phi.sin(),
        -theta.cos(),
    );
    // A velocity tangent to the sphere: qᵀq̇ = 0.
    let (a, b) = (0.3, -0.5);
    let qd = Vector3::new(a, b, -(q[0] * a + q[1] * b) / q[2]);
    let m = 1.3;
    let cartesian = spherical_pendulum::SphericalPendulumLagrangian { m, g: 9.81, l };
    check_lagrangian("spherical pendulum (Lagrangian)", &cartesian, &q, &qd, 0.0);
    let hamiltonian = spherical_pendulum::SphericalPendulum { m, g: 9.81 };
    check_hamiltonian(
        "spherical pendulum (Hamiltonian)",
        &hamiltonian,
        &q,
        &(m * qd),
        0.0,
    );
    let double = double_pendulum_minimal::DoublePendulum {
        m1: 1.0,
        m2: 0.7,
        l1: 1.1,
        l2: 0.8,
        g: 9.81,
    };
    let (q, qd) = (Vector2::new(0.6, -1.2), Vector2::new(1.5, -0.4));
    check_lagrangian("double pendulum", &double, &q, &qd, 0.0);
    let constrained = constrained_double_pendulum::ConstrainedDoublePendulum::EXAMPLE;
    let t = 0.3;
    let p2 = 0.7;
    let p1 = constrained.alpha * p2 * (constrained.omega * t).sin();
    check_hamiltonian(
        "constrained double pendulum",
        &constrained,
        &Vector2::new(0.4, -0.9),
        &Vector2::new(p1, p2),
        t,
    );
}

#[test]
fn four_bar_with_redundant_constraints() {
    let linkage = four_bar::FourBar::EXAMPLE;
    for (th1, rate) in [(1.0, 6.0), (2.5, -3.0), (-0.4, 1.0)] {
        let (q, qd) = linkage.start(th1, rate);
        check_lagrangian("four-bar", &linkage, &q, &qd, 0.0);
    }
}

#[test]
fn singular_mass_matrices() {
    let wheel = wheel_on_incline::WheelOnIncline::EXAMPLE;
    check_lagrangian(
        "wheel on incline",
        &wheel,
        &Vector2::new(0.4, 0.3 * 0.4 * 0.4f64.sin()),
        &Vector2::new(1.2, 0.3 * 1.2 * 0.4f64.sin()),
        0.0,
    );
    let (k1, k2, d) = (3.0, 5.0, 0.5);
    let first = two_masses_springs::TwoMassesFirstMassless {
        m1: 0.0,
        m2: 2.5,
        k1,
        k2,
        d,
    };
    let q = Vector3::new(0.2, 0.7, k1 * 0.2 / k2);
    check_lagrangian(
        "two masses, first massless",
        &first,
        &q,
        &Vector3::new(0.1, 0.1, k1 * 0.1 / k2),
        0.0,
    );
    let second = two_masses_springs::TwoMassesSecondMassless {
        m1: 1.5,
        m2: 0.0,
        k1,
        k2,
        d,
    };
    check_lagrangian(
        "two masses, second massless",
        &second,
        &Vector3::new(0.2, 0.7, 0.0),
        &Vector3::new(0.3, 0.3, 0.0),
        0.0,
    );
    let both = two_masses_springs::TwoMasses {
        m1: 1.5,
        m2: 2.5,
        k1,
        k2,
        d,
    };
    check_lagrangian(
        "two masses",
        &both,
        &Vector3::new(0.2, 0.7, -0.1),
        &Vector3::new(0.3, 0.3, 0.2),
        0.0,
    );
}

#[test]
fn nonholonomic_systems() {
    let disk = rolling_disk::RollingDisk::EXAMPLE;
    let (q, qd) = rolling_disk::RollingDisk::steady_turn();
    check_lagrangian("rolling disk, steady turn", &disk, &q, &qd, 0.0);
    let perturbed = qd + SVector::<f64, 5>::from([0.0, 0.0, 0.3, -0.2, 0.0]);
    check_lagrangian("rolling disk, perturbed", &disk, &q, &perturbed, 0.0);

    let arm = flexible_joint_manipulator::FlexibleJointManipulator::EXAMPLE;
    check_lagrangian(
        "flexible joint manipulator",
        &arm,
        &Vector4::new(0.1, 0.2, -0.1, 0.3),
        &Vector4::new(0.0, 1.0, 0.0, -1.0),
        0.0,
    );

    let particle = nonholonomic_particle::NonholonomicParticle { m: 2.0 };
    let z = 0.8f64;
    check_hamiltonian(
        "nonholonomic particle",
        &particle,
        &Vector3::new(0.1, -0.4, z),
        &Vector3::new(1.0, z * z, 0.5),
        0.0,
    );

    let swarm = swarm_robots::SwarmOfFiveRobots { m: 2.0 };
    let q = SVector::<f64, 10>::from_column_slice(&[
        0.0, 0.0, 3.0, 1.0, -2.0, 2.5, 1.5, -3.0, -1.0, -1.5,
    ]);
    let qd = -swarm.velocity_residual(&q, &SVector::zeros(), 0.0);
    check_lagrangian("swarm of robots", &swarm, &q, &qd, 0.0);
}

#[test]
fn whipple_bicycle() {
    let bicycle = whipple_bicycle::WhippleBicycle::BENCHMARK;
    // Leaned, steered and turning (Basu-Mandal et al. 2007, Table 1, in Moore's coordinates).
    let q = SVector::<f64, 8>::from([0.0, -0.17533, 0.0, 0.62066, 0.33298, 0.0, -0.23114, 0.0]);
    let qd = SVector::<f64, 8>::from([2.8, -0.2, -0.783, -0.6068, 0.0119, -8.913, -0.486, -8.013]);
    check_lagrangian("bicycle, Basu-Mandal state", &bicycle, &q, &qd, 0.0);
    let (q, qd) = bicycle.upright(4.0, 0.5);
    check_lagrangian("bicycle, upright", &bicycle, &q, &qd, 0.0);
}

#[test]
fn models_with_inputs() {
    let cart = cart_double_pendulum::CartDoublePendulum::EXAMPLE;
    check_controlled(
        "cart-double-pendulum",
        &cart,
        &Vector3::new(0.2, 0.5, -0.3),
        &Vector3::new(-0.4, 1.1, 0.7),
        &Vector1::new(0.7),
        0.0,
    );
    let arm = ur5_arm::Ur5Arm::EXAMPLE;
    let (q, qd) = ur5_arm::Ur5Arm::pose();
    let tau = SVector::<f64, 6>::from([1.0, -2.0, 0.5, 0.1, -0.05, 0.02]);
    check_controlled("UR5 arm", &arm, &q, &qd, &tau, 0.0);
}

#[test]
fn rigid_bodies_and_time_dependent_constraints() {
    let body = quaternion_rigid_body::QuaternionRigidBody::EXAMPLE;
    check_lagrangian(
        "quaternion rigid body",
        &body,
        &Vector4::new(0.5, 0.5, 0.5, 0.5),
        &Vector4::new(0.1, -0.3, 0.2, 0.0),
        0.0,
    );
    let angles = Vector3::new(0.3, -0.5, 0.8);
    let rates = Vector3::new(0.7, 0.2, -1.1);
    check_lagrangian(
        "body in ZYX angles",
        &spherical_joint_body::BodyZyx::EXAMPLE,
        &angles,
        &rates,
        0.0,
    );
    let (e, ed) = spherical_joint_body::quaternion_state(&angles, &rates);
    check_lagrangian(
        "body in Euler parameters",
        &spherical_joint_body::BodyQuaternion::EXAMPLE,
        &e,
        &ed,
        0.0,
    );
    // On the spiral r = e^(θ/10) with θ = 30 − t.
    let t = 2.0f64;
    let theta = 30.0 - t;
    let r = (0.1 * theta).exp();
    check_lagrangian(
        "spiral particle",
        &spiral_particle::SpiralParticle { g: 9.81 },
        &Vector2::new(r, theta),
        &Vector2::new(-0.1 * r, -1.0),
        t,
    );
    let system = two_particles_incline::TwoParticlesOnIncline::EXAMPLE;
    let (q, p) = system.state(0.3, 0.5, -0.2);
    check_hamiltonian("two particles on an incline", &system, &q, &p, 0.0);
}

/// A particle on the line y = h sin ωt, pushed by (fx, fy), with viscous friction −c ẋ
/// along the line as a non-ideal constraint force (Udwadia & Phohomsiri 2006, eq 2.14).
#[lagrangian(
    coordinates(x, y),
    lagrangian = 0.5 * m * (dot(x).powi(2) + dot(y).powi(2)) - 0.5 * k * x.powi(2) * y,
    holonomic(y - h * (omega * t).sin() - 0.3 * x.powi(2)),
    nonideal(-c * dot(x) * (1.0 + y.powi(2)), 0.0),
)]
struct SlidingParticle {
    m: f64,
    k: f64,
    h: f64,
    omega: f64,
    c: f64,
}

#[test]
fn non_ideal_constraint() {
    let particle = SlidingParticle {
        m: 1.5,
        k: 2.0,
        h: 0.4,
        omega: 2.0,
        c: 0.7,
    };
    let t = 0.8f64;
    let x = 0.6;
    let y = 0.4 * (2.0 * t).sin() + 0.3 * x * x;
    let xd = -0.9;
    let yd = 0.4 * 2.0 * (2.0 * t).cos() + 0.6 * x * xd;
    check_lagrangian(
        "sliding particle with friction",
        &particle,
        &Vector2::new(x, y),
        &Vector2::new(xd, yd),
        t,
    );
}
