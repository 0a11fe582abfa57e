//! Random models: two families of models whose parameters, states and inputs proptest draws,
//! against central differences. One has a positive definite M, holonomic, nonholonomic and
//! non-ideal constraints and two inputs; the other a singular M (a massless coordinate) and
//! a redundant pair of constraints.

use crate::support::{check_controlled, check_lagrangian};
use proptest::prelude::*;
use udk::lagrangian;
use udk::nalgebra::{Vector2, Vector3};

/// Masses `m1..m3` and coupling coefficients `k1..k3` (M positive definite when the
/// couplings are small), potential coefficients `g1`, `g2`, constraint coefficients
/// `k4..k8`, dampings `d1`, `d2`, non-ideal coefficients `e1`, `e2`.
#[lagrangian(
    coordinates(a, b, c),
    inputs(u1, u2),
    lagrangian = 0.5 * m1 * dot(a).powi(2)
        + 0.5 * m2 * (dot(b).powi(2) + k1 * b.cos() * dot(a) * dot(b))
        + 0.5 * m3 * (1.0 + k2 * c.powi(2)) * dot(c).powi(2)
        + k3 * dot(a) * dot(c) * b.sin()
        - g1 * a.cos() - g2 * b * c,
    holonomic(a + k4 * b.sin() + k5 * c.powi(2) - k6),
    nonholonomic(dot(a) * c + k7 * dot(b) - k8 * dot(c) * a.sin()),
    forces(u1 - d1 * dot(a), u2 * c, -d2 * dot(c) * dot(b)),
    nonideal(-e1 * dot(b), 0.0, e2 * a * dot(c)),
)]
struct Coupled {
    m1: f64,
    m2: f64,
    m3: f64,
    k1: f64,
    k2: f64,
    k3: f64,
    g1: f64,
    g2: f64,
    k4: f64,
    k5: f64,
    k6: f64,
    k7: f64,
    k8: f64,
    d1: f64,
    d2: f64,
    e1: f64,
    e2: f64,
}

/// Two masses `m1`, `m2` and a massless coordinate z tied to them twice over: the same
/// constraint written as two rows (2 × the first), so A has rank 1 < m = 2 and M is singular.
#[lagrangian(
    coordinates(x, y, z),
    lagrangian = 0.5 * m1 * dot(x).powi(2) + 0.5 * m2 * dot(y).powi(2)
        - g * (y + k * x.powi(2)) - 0.5 * s * (x - y).powi(2),
    holonomic(z - s1 * x - s2 * y.sin(), 2.0 * z - 2.0 * s1 * x - 2.0 * s2 * y.sin()),
)]
struct MasslessRedundant {
    m1: f64,
    m2: f64,
    g: f64,
    k: f64,
    s: f64,
    s1: f64,
    s2: f64,
}

fn unit() -> impl Strategy<Value = f64> {
    -1.0..1.0f64
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn coupled_models(
        masses in prop::array::uniform3(1.0..3.0f64),
        couplings in prop::array::uniform3(-0.3..0.3f64),
        coefficients in prop::array::uniform12(unit()),
        state in prop::array::uniform6(unit()),
        u in prop::array::uniform2(unit()),
    ) {
        let [k4, k5, k6, k7, k8, g1, g2, d1, d2, e1, e2, _] = coefficients;
        let model = Coupled {
            m1: masses[0], m2: masses[1], m3: masses[2],
            k1: couplings[0], k2: couplings[1].abs(), k3: couplings[2],
            g1, g2, k4, k5, k6, k7: 1.0 + k7.abs(), k8, d1, d2, e1, e2,
        };
        let q = Vector3::new(state[0], state[1], state[2]);
        let qd = Vector3::new(state[3], state[4], state[5]);
        let u = Vector2::new(u[0], u[1]);
        prop_assume!(model.acceleration(&q, &qd, &u, 0.0).is_ok());
        check_controlled("random coupled model", &model, &q, &qd, &u, 0.0);
    }

    #[test]
    fn massless_redundant_models(
        masses in prop::array::uniform2(0.5..3.0f64),
        coefficients in prop::array::uniform5(unit()),
        state in prop::array::uniform4(unit()),
    ) {
        let [g, k, s, s1, s2] = coefficients;
        let model = MasslessRedundant { m1: masses[0], m2: masses[1], g, k, s, s1, s2 };
        let (x, y, xd, yd) = (state[0], state[1], state[2], state[3]);
        let q = Vector3::new(x, y, s1 * x + s2 * y.sin());
        let qd = Vector3::new(xd, yd, s1 * xd + s2 * y.cos() * yd);
        check_lagrangian("random massless redundant model", &model, &q, &qd, 0.0);
    }
}
