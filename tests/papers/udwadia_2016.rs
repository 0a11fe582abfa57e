//! Udwadia 2016, section 4: the spherical pendulum (eq 42, and its Lagrangian twin), the
//! nonholonomic particle (eq 46), two particles on an incline with dependent constraints
//! (eqs 64–66) and the double pendulum with p₁ = α p₂ sin ωt (eqs 69–76).

use crate::{assert_close, samples};
use udk::hamiltonian;
use udk::nalgebra::{Vector2, Vector3, Vector4};

#[allow(dead_code)]
#[path = "../../examples/spherical_pendulum.rs"]
pub(crate) mod spherical_pendulum;

#[allow(dead_code)]
#[path = "../../examples/nonholonomic_particle.rs"]
mod nonholonomic_particle;

#[allow(dead_code)]
#[path = "../../examples/two_particles_incline.rs"]
mod two_particles_incline;

#[allow(dead_code)]
#[path = "../../examples/constrained_double_pendulum.rs"]
mod constrained_double_pendulum;

use constrained_double_pendulum::ConstrainedDoublePendulum;
use nonholonomic_particle::NonholonomicParticle;
use spherical_pendulum::{SphericalPendulum, SphericalPendulumLagrangian};
use two_particles_incline::TwoParticlesOnIncline;

/// The spherical pendulum with its holonomic constraint written as such: the macro turns it
/// into φ = (∂f/∂q) H_p through q̇ = H_p (eq 9).
#[hamiltonian(
    coordinates(x, y, z),
    momenta(px, py, pz),
    hamiltonian = (px.powi(2) + py.powi(2) + pz.powi(2)) / (2.0 * m) - m * g * z,
    holonomic(x.powi(2) + y.powi(2) + z.powi(2) - l.powi(2)),
)]
struct SphericalPendulumHolonomic {
    m: f64,
    g: f64,
    l: f64,
}

/// A state on the sphere of radius `l` with a tangent velocity, from `s` (5 samples).
fn sphere_state(l: f64, s: &[f64]) -> (Vector3<f64>, Vector3<f64>) {
    let q = l * Vector3::new(s[0], s[1], s[2]).normalize();
    let w = Vector3::new(s[3], s[4], 0.5);
    (q, w - q * (q.dot(&w) / (l * l)))
}

#[test]
fn spherical_pendulum_matches_eq_42_in_both_forms() {
    for seed in 0..8 {
        let s = samples(seed, 8, -1.0, 1.0);
        let (m, g, l) = (1.5 + s[5], 9.81, 2.0 + s[6]);
        let (q, qd) = sphere_state(l, &s);
        let p = m * qd;
        let t = s[7];
        // Eq 42: ṗ = [0, 0, mg] − (m/L²)(pᵀp/m² + gz) q.
        let force = -(m / (l * l)) * (p.norm_squared() / (m * m) + g * q[2]) * q;
        let pd = Vector3::new(0.0, 0.0, m * g) + force;

        let lagrangian = SphericalPendulumLagrangian { m, g, l };
        let qdd = lagrangian.acceleration(&q, &qd, t).unwrap();
        assert_close((m * qdd).as_slice(), pd.as_slice());
        assert_close(
            lagrangian.constraint_force(&q, &qd, t).unwrap().as_slice(),
            force.as_slice(),
        );

        let hamiltonian = SphericalPendulum { m, g };
        let (velocity, momentum_rate) = hamiltonian.state_derivative(&q, &p, t).unwrap();
        assert_close(velocity.as_slice(), qd.as_slice());
        assert_close(momentum_rate.as_slice(), pd.as_slice());
        assert_close(
            hamiltonian.constraint_force(&q, &p, t).unwrap().as_slice(),
            force.as_slice(),
        );
        assert_close(&[hamiltonian.constraint_residual(&q, &p, t)[0]], &[0.0]);

        let holonomic = SphericalPendulumHolonomic { m, g, l };
        let (velocity, momentum_rate) = holonomic.state_derivative(&q, &p, t).unwrap();
        assert_close(velocity.as_slice(), qd.as_slice());
        assert_close(momentum_rate.as_slice(), pd.as_slice());
        assert_close(&[holonomic.position_residual(&q, t)[0]], &[0.0]);

        // The Lagrangian and Hamiltonian forms agree on the energy too.
        assert_close(
            &[lagrangian.energy(&q, &qd, t)],
            &[hamiltonian.hamiltonian(&q, &p, t)],
        );
        assert_close(&[lagrangian.position_residual(&q, t)[0]], &[0.0]);
        assert_close(&[lagrangian.velocity_residual(&q, &qd, t)[0]], &[0.0]);
    }
}

#[test]
fn nonholonomic_particle_matches_eq_46() {
    for seed in 0..8 {
        let s = samples(seed, 6, -1.5, 1.5);
        let particle = NonholonomicParticle { m: 2.0 + s[5] };
        let m = particle.m;
        let z = s[2];
        let q = Vector3::new(s[0], s[1], z);
        let p = Vector3::new(s[3], z * z * s[3], s[4]);
        let k = -2.0 * z * p[0] * p[2] / (m * (1.0 + z.powi(4)));
        let expected = [k * z * z, -k, 0.0];
        let (qd, pd) = particle.state_derivative(&q, &p, 0.0).unwrap();
        assert_close(qd.as_slice(), (p / m).as_slice());
        assert_close(pd.as_slice(), &expected);
        // Free particle: all of ṗ is constraint force.
        assert_close(
            particle.constraint_force(&q, &p, 0.0).unwrap().as_slice(),
            &expected,
        );
    }
}

#[test]
fn two_particles_on_incline_match_eqs_64_to_66() {
    for seed in 0..8 {
        let s = samples(seed, 9, -1.0, 1.0);
        let system = TwoParticlesOnIncline {
            m1: 1.5 + s[0],
            m2: 1.5 + s[1],
            g: 9.81,
            alpha: 0.5 + 0.4 * s[2],
            l: 2.0 + s[3],
        };
        let TwoParticlesOnIncline {
            m1,
            m2,
            g,
            alpha,
            l,
        } = system;
        // A state on the three constraints: |q₁ − q₂| = L, both velocities perpendicular to it.
        let beta = 3.0 * s[4];
        let (x2, y2) = (s[5], s[6]);
        let (x1, y1) = (x2 + l * beta.cos(), y2 + l * beta.sin());
        let (v1, v2) = (s[7], s[8]);
        let (px1, py1) = (-m1 * v1 * beta.sin(), m1 * v1 * beta.cos());
        let (px2, py2) = (-m2 * v2 * beta.sin(), m2 * v2 * beta.cos());
        let q = Vector4::new(x1, y1, x2, y2);
        let p = Vector4::new(px1, py1, px2, py2);
        let p1 = px1 * px1 + py1 * py1;
        let p2 = px2 * px2 + py2 * py2;
        let p12 = px1 * px2 + py1 * py2;
        let gs = g * (y1 - y2) * alpha.sin();
        let f1 = m1 * p12 - m2 * p1 + m1 * m1 * m2 * gs;
        let f2 = m1 * p2 - m2 * p12 + m1 * m2 * m2 * gs;
        let c = 1.0 / (m1 * m2 * l * l);
        let force = [
            c * (x1 - x2) * f1,
            c * (y1 - y2) * f1,
            c * (x1 - x2) * f2,
            c * (y1 - y2) * f2,
        ];
        let free = [0.0, -g * alpha.sin() * m1, 0.0, -g * alpha.sin() * m2];
        let expected: Vec<f64> = free.iter().zip(&force).map(|(a, b)| a + b).collect();
        let (qd, pd) = system.state_derivative(&q, &p, 0.0).unwrap();
        assert_close(qd.as_slice(), &[px1 / m1, py1 / m1, px2 / m2, py2 / m2]);
        assert_close(pd.as_slice(), &expected);
        assert_close(
            system.constraint_force(&q, &p, 0.0).unwrap().as_slice(),
            &force,
        );
    }
}

#[test]
fn constrained_double_pendulum_matches_eqs_69_to_76() {
    for seed in 0..8 {
        let s = samples(seed, 10, -1.0, 1.0);
        let system = ConstrainedDoublePendulum {
            m1: 1.0 + 0.5 * s[0],
            m2: 0.8 + 0.5 * s[1],
            l1: 1.0 + 0.3 * s[2],
            l2: 0.7 + 0.3 * s[3],
            g: 9.81,
            alpha: 0.8 + 0.5 * s[4],
            omega: 2.0 + s[5],
        };
        let ConstrainedDoublePendulum {
            m1,
            m2,
            l1,
            l2,
            g,
            alpha,
            omega,
        } = system;
        let t = 2.0 * s[6];
        let (th1, th2) = (1.5 * s[7], 1.5 * s[8]);
        let p2 = s[9];
        let p1 = alpha * p2 * (omega * t).sin();
        let (q, p) = (Vector2::new(th1, th2), Vector2::new(p1, p2));
        let th12 = th1 - th2;
        let delta = m1 + m2 * th12.sin().powi(2);
        // Eq 69.
        let velocity = [
            (l2 * p1 - l1 * p2 * th12.cos()) / (l1 * l1 * l2 * delta),
            ((m1 + m2) * l1 * p2 - m2 * l2 * p1 * th12.cos()) / (m2 * l1 * l2 * l2 * delta),
        ];
        // Eqs 67, 70, 71: T and Σ.
        let kinetic = 0.5
            * ((m1 + m2) * l1 * l1 * p2 * p2 + m2 * l2 * l2 * p1 * p1
                - 2.0 * m2 * l1 * l2 * p1 * p2 * th12.cos())
            / (m2 * l1 * l1 * l2 * l2 * delta);
        let sigma = (m2 * l1 * l2 * kinetic * (2.0 * th12).sin() - p1 * p2 * th12.sin())
            / (l1 * l2 * delta);
        let free = [
            sigma - (m1 + m2) * l1 * g * th1.sin(),
            -sigma - m2 * l2 * g * th2.sin(),
        ];
        // Eqs 74–76.
        let (sin_wt, cos_wt) = (omega * t).sin_cos();
        let gamma1 = (m1 + m2) * l1 * l1 - 2.0 * alpha * m2 * l1 * l2 * th12.cos() * sin_wt
            + alpha * alpha * m2 * l2 * l2 * sin_wt * sin_wt;
        let gamma2 = alpha * omega * p2 * cos_wt - (1.0 + alpha * sin_wt) * sigma
            + (m1 + m2) * l1 * g * th1.sin()
            - alpha * sin_wt * m2 * l2 * g * th2.sin();
        let direction = [
            (m1 + m2) * l1 * l1 - alpha * m2 * l1 * l2 * th12.cos() * sin_wt,
            m2 * l1 * l2 * th12.cos() - alpha * m2 * l2 * l2 * sin_wt,
        ];
        let force = [
            gamma2 / gamma1 * direction[0],
            gamma2 / gamma1 * direction[1],
        ];
        let (qd, pd) = system.state_derivative(&q, &p, t).unwrap();
        assert_close(qd.as_slice(), &velocity);
        assert_close(pd.as_slice(), &[free[0] + force[0], free[1] + force[1]]);
        assert_close(
            system.constraint_force(&q, &p, t).unwrap().as_slice(),
            &force,
        );
        assert_close(
            &[system.hamiltonian(&q, &p, t)],
            &[kinetic - (m1 + m2) * g * l1 * th1.cos() - m2 * g * l2 * th2.cos()],
        );
    }
}
