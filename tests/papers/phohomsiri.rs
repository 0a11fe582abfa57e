//! Udwadia & Phohomsiri 2006, section 5: the wheel (eq 5.17), the wheel with a zero-mass
//! particle (eq 5.23) and the two masses with springs (eqs 5.39, 5.47, 5.56).

use crate::{assert_close, samples};
use udk::nalgebra::{Matrix3, Vector2, Vector3};
use udk::runtime::{reference_acceleration, Error, Options};

#[allow(dead_code)]
#[path = "../../examples/wheel_on_incline.rs"]
mod wheel_on_incline;

#[allow(dead_code)]
#[path = "../../examples/wheel_zero_mass_particle.rs"]
mod wheel_zero_mass_particle;

#[allow(dead_code)]
#[path = "../../examples/two_masses_springs.rs"]
mod two_masses_springs;

use two_masses_springs::{TwoMasses, TwoMassesFirstMassless, TwoMassesSecondMassless};
use wheel_on_incline::WheelOnIncline;
use wheel_zero_mass_particle::WheelWithMasslessParticle;

#[test]
fn wheel_on_incline_matches_eq_5_17() {
    for seed in 0..6 {
        let s = samples(seed, 9, 0.1, 2.0);
        let wheel = WheelOnIncline {
            m: s[0],
            r: s[1],
            ic: s[2],
            g: 9.81,
            alpha: 0.7 * s[3],
        };
        let (q, qd) = (Vector2::new(s[4], s[5]), Vector2::new(s[6], s[7]));
        let WheelOnIncline { m, r, ic, g, alpha } = wheel;
        let d = m * r * r + ic;
        let expected = [
            m * g * r * alpha.sin() / d,
            m * g * (r * alpha.sin()).powi(2) / d,
        ];
        assert_close(
            wheel.acceleration(&q, &qd, s[8]).unwrap().as_slice(),
            &expected,
        );
        // Qᶜ = M q̈ − Q with M of eq 5.6 and Q of eq 5.7.
        let force = [d * expected[0], -m * g];
        assert_close(
            wheel.constraint_force(&q, &qd, s[8]).unwrap().as_slice(),
            &force,
        );
    }
}

#[test]
fn zero_mass_particle_is_reported_non_unique_with_the_eq_5_23_minimum_norm_answer() {
    for seed in 0..4 {
        let s = samples(seed, 9, 0.1, 2.0);
        let system = WheelWithMasslessParticle {
            m: s[0],
            r: s[1],
            ic: s[2],
            g: 9.81,
            alpha: 0.7 * s[3],
        };
        let (q, qd) = (
            Vector3::new(s[4], s[5], s[6]),
            Vector3::new(s[7], s[8], 0.3),
        );
        let error = system.acceleration(&q, &qd, 0.0).unwrap_err();
        assert!(
            matches!(&error, Error::NonUniqueAcceleration { rank: 2, n: 3, free }
                if free.indices() == [2] && free.names() == ["x"]),
            "{error:?}"
        );
        assert!(system.constraint_force(&q, &qd, 0.0).is_err());
        let terms = system.terms(&q, &qd, 0.0);
        let reference = reference_acceleration(terms.view(), &Options::default()).unwrap();
        assert!(!reference.is_unique());
        let WheelWithMasslessParticle { m, r, ic, g, alpha } = system;
        let d = m * r * r + ic;
        let eta = 0.0;
        let expected = [
            m * g * r * alpha.sin() / d,
            m * g * (r * alpha.sin()).powi(2) / d,
            eta,
        ];
        assert_close(reference.acceleration.as_slice(), &expected);
    }
}

/// M of eq 5.33 and Q of eq 5.34, to turn a closed-form q̈ into the constraint force M q̈ − Q.
fn spring_constraint_force(
    m1: f64,
    m2: f64,
    k1: f64,
    k2: f64,
    q: &Vector3<f64>,
    qdd: &[f64; 3],
) -> Vec<f64> {
    let mass = Matrix3::new(m1, 0.0, 0.0, 0.0, m2, m2, 0.0, m2, m2);
    let force = Vector3::new(-k1 * q[0], 0.0, -k2 * q[2]);
    (mass * Vector3::from(*qdd) - force).as_slice().to_vec()
}

#[test]
fn two_masses_case_5_1_matches_eq_5_39() {
    for seed in 0..6 {
        let s = samples(seed, 10, 0.2, 3.0);
        let system = TwoMasses {
            m1: s[0],
            m2: s[1],
            k1: s[2],
            k2: s[3],
            d: s[4],
        };
        let q = Vector3::new(s[5] - 1.5, s[5] - 1.5 + system.d, s[6] - 1.5);
        let qd = Vector3::new(s[7], s[7], s[8]);
        let TwoMasses { m1, m2, k1, k2, .. } = system;
        let a = (-k1 * q[0] + k2 * q[2]) / m1;
        let expected = [a, a, -a - k2 * q[2] / m2];
        assert_close(
            system.acceleration(&q, &qd, s[9]).unwrap().as_slice(),
            &expected,
        );
        assert_close(
            system.constraint_force(&q, &qd, s[9]).unwrap().as_slice(),
            &spring_constraint_force(m1, m2, k1, k2, &q, &expected),
        );
    }
}

#[test]
fn two_masses_case_5_2_matches_eq_5_47() {
    for seed in 0..6 {
        let s = samples(seed, 8, 0.2, 3.0);
        let system = TwoMassesFirstMassless {
            m1: 0.0,
            m2: s[0],
            k1: s[1],
            k2: s[2],
            d: s[3],
        };
        let TwoMassesFirstMassless { m1, m2, k1, k2, d } = system;
        // A state on the constraints q₁ = x₁ + d and k₁x₁ = k₂q₂.
        let x1 = s[4] - 1.5;
        let q = Vector3::new(x1, x1 + d, k1 * x1 / k2);
        let v = s[5] - 1.5;
        let qd = Vector3::new(v, v, k1 * v / k2);
        let c = k1 * k2 * (q[0] + q[2]) / (m2 * (k1 + k2).powi(2));
        let expected = [-k2 * c, -k2 * c, -k1 * c];
        assert_close(
            system.acceleration(&q, &qd, s[6]).unwrap().as_slice(),
            &expected,
        );
        assert_close(
            system.constraint_force(&q, &qd, s[6]).unwrap().as_slice(),
            &spring_constraint_force(m1, m2, k1, k2, &q, &expected),
        );
    }
}

#[test]
fn two_masses_case_5_3_matches_eq_5_56() {
    for seed in 0..6 {
        let s = samples(seed, 8, 0.2, 3.0);
        let system = TwoMassesSecondMassless {
            m1: s[0],
            m2: 0.0,
            k1: s[1],
            k2: s[2],
            d: s[3],
        };
        let TwoMassesSecondMassless { m1, m2, k1, k2, d } = system;
        // A state on the constraints q₁ = x₁ + d and k₂q₂ = 0.
        let x1 = s[4] - 1.5;
        let q = Vector3::new(x1, x1 + d, 0.0);
        let qd = Vector3::new(s[5], s[5], 0.0);
        let expected = [-k1 * x1 / m1, -k1 * x1 / m1, 0.0];
        assert_close(
            system.acceleration(&q, &qd, s[6]).unwrap().as_slice(),
            &expected,
        );
        assert_close(
            system.constraint_force(&q, &qd, s[6]).unwrap().as_slice(),
            &spring_constraint_force(m1, m2, k1, k2, &q, &expected),
        );
    }
}
