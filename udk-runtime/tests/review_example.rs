//! Zhao, Chen, Zhao & Dong 2018 (review), section 8.1: a unit-mass particle on the
//! logarithmic spiral r = e^{0.1θ}, θ = −t + 30 (eqs 53–57).

mod common;

use common::{assert_close, EXAMPLE_TOLERANCE};
use nalgebra::{Matrix2, Vector2};
use udk_runtime::{acceleration, constraint_force, LagrangianView, Options};

#[test]
fn spiral_particle_eq_57() {
    let g = 9.81;
    for (theta, theta_dot) in [
        (30.0_f64, -1.0_f64),
        (25.0, -1.0),
        (12.5, -1.0),
        (3.0, -1.0),
    ] {
        let r = (0.1 * theta).exp();
        let r_dot = 0.1 * r * theta_dot; // eq 54
        let m = Matrix2::identity(); // unit mass, as in the paper
        let a0 = Vector2::new(
            r * theta_dot * theta_dot - g * theta.sin(),
            (-2.0 * r_dot * theta_dot - g * theta.cos()) / r,
        ); // eq 52
        let a = Matrix2::new(1.0, -0.1 * (0.1 * theta).exp(), 0.0, 1.0); // eq 55
        let b = Vector2::new(0.01 * (0.1 * theta).exp() * theta_dot * theta_dot, 0.0);
        // Eq 57: q̈ = a₀ + A⁺(b − A a₀); A is invertible, so q̈ = A⁻¹b.
        let expected = Vector2::new(0.01 * r * theta_dot * theta_dot, 0.0);
        let options = Options::default();
        let qdd = acceleration(LagrangianView::new(&m, &a0, &a, &b), &options).unwrap();
        assert_close(&qdd, &expected, EXAMPLE_TOLERANCE, "spiral particle, eq 57");
        // Eq 56: F^C = A⁺(b − A a₀).
        let a_inv = a.try_inverse().unwrap();
        let fc = constraint_force(LagrangianView::new(&m, &a0, &a, &b), &options).unwrap();
        assert_close(&fc, &(a_inv * (b - a * a0)), EXAMPLE_TOLERANCE, "eq 56");
    }
}
