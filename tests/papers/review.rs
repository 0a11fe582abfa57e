//! The review paper (Zhao et al. 2018), section 8: the spiral particle (eq 57), the swarm of
//! five robots (eqs 60–64) and the flexible-joint manipulator (eqs 65–72).

use crate::{assert_close, samples};
use udk::nalgebra::{Matrix2, RowVector2, SVector, Vector2, Vector4};

#[allow(dead_code)]
#[path = "../../examples/spiral_particle.rs"]
mod spiral_particle;

#[allow(dead_code)]
#[path = "../../examples/swarm_robots.rs"]
mod swarm_robots;

#[allow(dead_code)]
#[path = "../../examples/flexible_joint_manipulator.rs"]
mod flexible_joint_manipulator;

use flexible_joint_manipulator::FlexibleJointManipulator;
use spiral_particle::SpiralParticle;
use swarm_robots::SwarmOfFiveRobots;

#[test]
fn spiral_particle_matches_eq_57() {
    for seed in 0..8 {
        let s = samples(seed, 5, 0.0, 1.0);
        let particle = SpiralParticle { g: 9.0 + s[0] };
        let (r, theta) = (0.5 + 3.0 * s[1], 30.0 * s[2]);
        let (q, qd) = (
            Vector2::new(r, theta),
            Vector2::new(s[3] - 0.5, -1.0 + s[4]),
        );
        let (rd, thetad) = (qd[0], qd[1]);
        // A q̈ = b of section 8.1, with A invertible: q̈ = A⁻¹b.
        let expected = [0.01 * (0.1 * theta).exp() * thetad * thetad, 0.0];
        assert_close(
            particle.acceleration(&q, &qd, 0.0).unwrap().as_slice(),
            &expected,
        );
        // Qᶜ = M q̈ − Q with the polar M = diag(1, r²) and Q = M a₀ (a₀ of eq 54).
        let g = particle.g;
        let force = [
            expected[0] - (r * thetad * thetad - g * theta.sin()),
            r * r * expected[1] - (-2.0 * r * rd * thetad - g * r * theta.cos()),
        ];
        assert_close(
            particle.constraint_force(&q, &qd, 0.0).unwrap().as_slice(),
            &force,
        );
    }
}

#[test]
fn swarm_matches_eq_63() {
    for seed in 0..4 {
        let s = samples(seed, 21, -3.0, 3.0);
        let swarm = SwarmOfFiveRobots {
            m: 2.0 + s[20] / 3.0,
        };
        let q = SVector::<f64, 10>::from_column_slice(&s[0..10]);
        let qd = SVector::<f64, 10>::from_column_slice(&s[10..20]) / 3.0;
        let mut expected = [0.0; 10];
        for i in 0..5 {
            for j in (0..5).filter(|&j| j != i) {
                let dq = Vector2::new(q[2 * i] - q[2 * j], q[2 * i + 1] - q[2 * j + 1]);
                let dv = Vector2::new(qd[2 * i] - qd[2 * j], qd[2 * i + 1] - qd[2 * j + 1]);
                let d = dq.norm();
                let term = dv * (1.0 - 0.5 / d) + 0.5 * dq * d.powi(-3) * dq.dot(&dv);
                expected[2 * i] -= term[0];
                expected[2 * i + 1] -= term[1];
            }
        }
        let qdd = swarm.acceleration(&q, &qd, 0.0).unwrap();
        assert_close(qdd.as_slice(), &expected);
        // No applied force: the constraint force is all of M q̈.
        let force: Vec<f64> = expected.iter().map(|a| swarm.m * a).collect();
        assert_close(
            swarm.constraint_force(&q, &qd, 0.0).unwrap().as_slice(),
            &force,
        );
    }
}

#[test]
fn flexible_joint_manipulator_matches_the_fundamental_equation_on_eqs_65_70() {
    for seed in 0..6 {
        let s = samples(seed, 12, -1.0, 1.0);
        let arm = FlexibleJointManipulator {
            m1: 1.0 + 0.5 * s[0],
            m2: 1.0 + 0.5 * s[1],
            l1: 1.0,
            lc1: 0.5,
            lc2: 0.5 + 0.2 * s[2],
            i1: 1.0,
            i2: 1.0 + 0.5 * s[3],
            j11: 1.0,
            j22: 1.5,
            k1: 1.0,
            k2: 2.0,
            g: 9.81,
        };
        let q = Vector4::new(s[4], s[5], s[6], s[7]);
        let qd = Vector4::new(s[8], s[9], s[10], s[11]);
        let FlexibleJointManipulator {
            m1,
            m2,
            l1,
            lc1,
            lc2,
            i1,
            i2,
            j11,
            j22,
            k1,
            k2,
            g,
        } = arm;
        let (link, link_rate) = (Vector2::new(q[1], q[3]), Vector2::new(qd[1], qd[3]));
        let motor = Vector2::new(q[0], q[2]);
        // D, C, G of section 8.3 (with m₂ in c₁₁, as in the textbook two-link arm).
        let c4 = q[3].cos();
        let d11 = m2 * (l1 * l1 + lc2 * lc2 + 2.0 * l1 * lc2 * c4) + m1 * lc1 * lc1 + i1 + i2;
        let d12 = m2 * (lc2 * lc2 + l1 * lc2 * c4) + i2;
        let d = Matrix2::new(d11, d12, d12, m2 * lc2 * lc2 + i2);
        let h = m2 * l1 * lc2 * q[3].sin();
        let c = Matrix2::new(-h * qd[3], -h * (qd[3] + qd[1]), h * qd[1], 0.0);
        let gravity = Vector2::new(
            (m1 * lc1 + m2 * l1) * g * q[1].sin() + m2 * lc2 * g * (q[1] + q[3]).sin(),
            m2 * lc2 * g * (q[1] + q[3]).sin(),
        );
        let k = Matrix2::new(k1, 0.0, 0.0, k2);
        let j = Matrix2::new(j11, 0.0, 0.0, j22);
        // Links: D q̈ = F + Fᶜ with F = −C q̇ − G − K(q_link − q_motor), A = [1 1], b = 0.
        let d_inv = d.try_inverse().unwrap();
        let a = RowVector2::new(1.0, 1.0);
        let f = -c * link_rate - gravity - k * (link - motor);
        let free = d_inv * f;
        let link_acceleration =
            free + d_inv * a.transpose() * ((0.0 - (a * free)[0]) / (a * d_inv * a.transpose())[0]);
        // Motors: J q̈ = K(q_link − q_motor), untouched by the constraint.
        let motor_acceleration = j.try_inverse().unwrap() * k * (link - motor);
        let expected = [
            motor_acceleration[0],
            link_acceleration[0],
            motor_acceleration[1],
            link_acceleration[1],
        ];
        assert_close(
            arm.acceleration(&q, &qd, 0.0).unwrap().as_slice(),
            &expected,
        );
        let link_force = d * link_acceleration - f;
        let force = [0.0, link_force[0], 0.0, link_force[1]];
        assert_close(
            arm.constraint_force(&q, &qd, 0.0).unwrap().as_slice(),
            &force,
        );
    }
}
