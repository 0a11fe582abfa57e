//! What `#[lagrangian]` generates, shown on an example model. **Documentation only**: this module
//! exists when rustdoc builds the `udk` crate (`#[cfg(doc)]`) and is not part of the API; your
//! own models get the same items.
//!
//! [`CartesianPendulum`] is the pendulum of the README's section "Writing a model": a point mass
//! m on a massless rod of length l under gravity g, in Cartesian coordinates (x, y), y up, so
//! n = 2 coordinates and m = 1 holonomic constraint x² + y² − l² = 0. Its page lists every
//! constant and function the macro adds, with the shapes and sources in their doc comments, and
//! the [`LagrangianSystem`](crate::LagrangianSystem) implementation; `EQUATIONS` holds the
//! derived M, Q, A and b as text and LaTeX; `residual_jacobians`, `velocity_residual_jacobian`
//! and `acceleration_jacobian` give the exact derivatives of the motion
//! ([`runtime::jacobian`](crate::runtime::jacobian)).
//!
//! ```text
//! #[lagrangian(
//!     coordinates(x, y),
//!     lagrangian = 0.5 * m * (dot(x).powi(2) + dot(y).powi(2)) - m * g * y,
//!     holonomic(x.powi(2) + y.powi(2) - l.powi(2)),
//! )]
//! pub struct CartesianPendulum { pub m: f64, pub g: f64, pub l: f64 }
//! ```

use crate::lagrangian;

/// Planar pendulum in Cartesian coordinates (x, y), y up: a point mass on a massless rod of
/// length l hinged at the origin. L = ½ m (ẋ² + ẏ²) − m g y, constraint x² + y² − l² = 0.
#[lagrangian(
    coordinates(x, y),
    lagrangian = 0.5 * m * (dot(x).powi(2) + dot(y).powi(2)) - m * g * y,
    holonomic(x.powi(2) + y.powi(2) - l.powi(2)),
)]
pub struct CartesianPendulum {
    /// Mass of the bob, m (kg).
    pub m: f64,
    /// Gravitational acceleration, g (m/s²).
    pub g: f64,
    /// Length of the rod, l (m).
    pub l: f64,
}

#[cfg(test)]
mod tests {
    use super::CartesianPendulum;
    use crate::nalgebra::{Matrix1x2, Matrix2, Vector1, Vector2};
    use crate::Error;

    const PENDULUM: CartesianPendulum = CartesianPendulum {
        m: 1.5,
        g: 9.81,
        l: 2.0,
    };

    fn assert_close(actual: Vector2<f64>, expected: Vector2<f64>) {
        let error = (actual - expected).norm();
        assert!(error < 1e-12, "{actual} != {expected} ({error:e})");
    }

    #[test]
    fn sizes_and_terms_are_those_of_the_pendulum() {
        assert_eq!(CartesianPendulum::DOF, 2);
        assert_eq!(CartesianPendulum::NUM_CONSTRAINTS, 1);
        assert_eq!(CartesianPendulum::NUM_HOLONOMIC, 1);
        let (q, qd) = (Vector2::new(1.2, -1.6), Vector2::new(0.8, 0.6));
        let m = PENDULUM.m;
        assert_eq!(PENDULUM.mass_matrix(&q, 0.0), m * Matrix2::identity());
        assert_close(
            PENDULUM.generalized_forces(&q, &qd, 0.0),
            Vector2::new(0.0, -m * 9.81),
        );
        // f = x² + y² − l², so A = ∂f/∂q = 2 qᵀ and b = −2 q̇ᵀq̇.
        assert_eq!(
            PENDULUM.constraint_matrix(&q, &qd, 0.0),
            Matrix1x2::new(2.4, -3.2)
        );
        assert_eq!(PENDULUM.constraint_rhs(&q, &qd, 0.0), Vector1::new(-2.0));
        assert_eq!(PENDULUM.position_residual(&q, 0.0), Vector1::new(0.0));
        // ḟ = 2 qᵀq̇ = 2 (0.96 − 0.96) = 0.
        assert!(PENDULUM.velocity_residual(&q, &qd, 0.0)[0].abs() < 1e-15);
        // h = ½ m |q̇|² + m g y.
        let energy = PENDULUM.energy(&q, &qd, 0.0);
        assert!((energy - (0.5 * m - m * 9.81 * 1.6)).abs() < 1e-12);
    }

    #[test]
    fn hanging_at_rest_the_rod_carries_the_weight() -> Result<(), Error> {
        let (q, qd) = (Vector2::new(0.0, -2.0), Vector2::zeros());
        assert_close(PENDULUM.acceleration(&q, &qd, 0.0)?, Vector2::zeros());
        assert_close(
            PENDULUM.constraint_force(&q, &qd, 0.0)?,
            Vector2::new(0.0, 1.5 * 9.81),
        );
        Ok(())
    }

    #[test]
    fn swinging_through_the_bottom_the_acceleration_is_centripetal() -> Result<(), Error> {
        // Speed v at the lowest point: q̈ = v²/l towards the hinge, tension m (g + v²/l).
        let (v, l, m, g) = (3.0, PENDULUM.l, PENDULUM.m, PENDULUM.g);
        let (q, qd) = (Vector2::new(0.0, -l), Vector2::new(v, 0.0));
        assert_close(
            PENDULUM.acceleration(&q, &qd, 0.0)?,
            Vector2::new(0.0, v * v / l),
        );
        assert_close(
            PENDULUM.constraint_force(&q, &qd, 0.0)?,
            Vector2::new(0.0, m * (g + v * v / l)),
        );
        Ok(())
    }

    #[test]
    fn through_the_bottom_the_jacobian_is_the_closed_form() -> Result<(), Error> {
        // q̈ = −g e_y + μ q with μ = (g y − |q̇|²)/|q|² (from A q̈ = b), so at the bottom
        // (0, −l) with speed v: ∂ẍ/∂x = −(g l + v²)/l² (ω² = g/l at rest), ∂ÿ/∂y = v²/l²
        // (ÿ = −v²/y along x = 0), ∂ÿ/∂ẋ = 2v/l, and every other entry is 0; ∂ḟ/∂q = 2 q̇ᵀ.
        let (v, l, g) = (3.0, PENDULUM.l, PENDULUM.g);
        let (q, qd) = (Vector2::new(0.0, -l), Vector2::new(v, 0.0));
        let jacobian = PENDULUM.acceleration_jacobian(&q, &qd, 0.0)?;
        assert_close(jacobian.acceleration, Vector2::new(0.0, v * v / l));
        let expected_q = Matrix2::new(-(g * l + v * v) / (l * l), 0.0, 0.0, v * v / (l * l));
        let expected_qd = Matrix2::new(0.0, 0.0, 2.0 * v / l, 0.0);
        assert!(
            (jacobian.wrt_q - expected_q).norm() < 1e-12,
            "{}",
            jacobian.wrt_q
        );
        assert!(
            (jacobian.wrt_qd - expected_qd).norm() < 1e-12,
            "{}",
            jacobian.wrt_qd
        );
        assert_eq!(
            PENDULUM.velocity_residual_jacobian(&q, &qd, 0.0),
            Matrix1x2::new(2.0 * v, 0.0)
        );
        Ok(())
    }

    #[test]
    fn horizontal_at_rest_the_bob_falls_freely() -> Result<(), Error> {
        let (q, qd) = (Vector2::new(PENDULUM.l, 0.0), Vector2::zeros());
        assert_close(
            PENDULUM.acceleration(&q, &qd, 0.0)?,
            Vector2::new(0.0, -PENDULUM.g),
        );
        assert_close(PENDULUM.constraint_force(&q, &qd, 0.0)?, Vector2::zeros());
        Ok(())
    }
}
