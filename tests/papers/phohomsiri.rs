//! Udwadia & Phohomsiri 2006, section 5: the wheel (eq 5.17), the wheel with a zero-mass
//! particle (eq 5.23) and the two masses with springs (eqs 5.39, 5.47, 5.56).

use crate::{assert_close, samples};
use udk::nalgebra::{Matrix3, Vector2, Vector3};
use udk::runtime::{reference_acceleration, Error, LagrangianSystem, Options};

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

/// q̈ of the wheel of mass m, radius r and inertia I_c rolling down an incline of angle α
/// under gravity g (eq 5.17): (θ̈, ẍ) = m g r sin α (1, r sin α) / (m r² + I_c).
fn wheel_acceleration(m: f64, r: f64, ic: f64, g: f64, alpha: f64) -> [f64; 2] {
    let d = m * r * r + ic;
    [
        m * g * r * alpha.sin() / d,
        m * g * (r * alpha.sin()).powi(2) / d,
    ]
}

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
        let expected = wheel_acceleration(m, r, ic, g, alpha);
        assert_close(
            wheel.acceleration(&q, &qd, s[8]).unwrap().as_slice(),
            &expected,
        );
        // Qᶜ = M q̈ − Q with M of eq 5.6 and Q of eq 5.7.
        let force = [(m * r * r + ic) * expected[0], -m * g];
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
        let [theta, x] = wheel_acceleration(m, r, ic, g, alpha);
        let eta = 0.0;
        let expected = [theta, x, eta];
        assert_close(reference.acceleration.as_slice(), &expected);
    }
}

/// Asserts that two masses with springs (`m1`, `m2`, `k1`, `k2`) at (q, q̇, t) have the
/// closed-form q̈ `expected` and the constraint force M q̈ − Q, with M of eq 5.33 and Q of
/// eq 5.34.
fn assert_two_masses<S: LagrangianSystem<3, C>, const C: usize>(
    system: &S,
    [m1, m2, k1, k2]: [f64; 4],
    (q, qd, t): (&Vector3<f64>, &Vector3<f64>, f64),
    expected: &[f64; 3],
) {
    assert_close(system.acceleration(q, qd, t).unwrap().as_slice(), expected);
    let mass = Matrix3::new(m1, 0.0, 0.0, 0.0, m2, m2, 0.0, m2, m2);
    let force = Vector3::new(-k1 * q[0], 0.0, -k2 * q[2]);
    assert_close(
        system.constraint_force(q, qd, t).unwrap().as_slice(),
        (mass * Vector3::from(*expected) - force).as_slice(),
    );
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
        assert_two_masses(&system, [m1, m2, k1, k2], (&q, &qd, s[9]), &expected);
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
        assert_two_masses(&system, [m1, m2, k1, k2], (&q, &qd, s[6]), &expected);
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
        assert_two_masses(&system, [m1, m2, k1, k2], (&q, &qd, s[6]), &expected);
    }
}
