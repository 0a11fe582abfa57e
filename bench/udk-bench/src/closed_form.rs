//! The floor: a hand-written closed-form acceleration of the double pendulum.

use crate::{timing, Accelerator, Chain};
use nalgebra::Vector2;
use std::error::Error;

/// The 2-link chain in minimal coordinates (absolute angles θ1, θ2 from the downward
/// vertical; point masses m1, m2 in kg on rods l1, l2 in m; gravity g in m/s²), with its
/// textbook closed-form angular accelerations.
#[derive(Clone, Copy, Debug)]
pub struct DoublePendulum {
    m1: f64,
    m2: f64,
    l1: f64,
    l2: f64,
    g: f64,
}

impl DoublePendulum {
    /// The double pendulum of a 2-link `chain`.
    ///
    /// # Panics
    /// When `chain` does not have 2 links.
    pub fn new(chain: &Chain) -> Self {
        assert_eq!(chain.links(), 2, "the double pendulum has 2 links");
        DoublePendulum {
            m1: chain.masses[0],
            m2: chain.masses[1],
            l1: chain.lengths[0],
            l2: chain.lengths[1],
            g: chain.g,
        }
    }

    /// (θ̈1, θ̈2) at angles `theta` and rates `omega`, by solving the 2 × 2 Lagrange equations
    /// in closed form.
    #[inline]
    pub fn angular_acceleration(&self, theta: &Vector2<f64>, omega: &Vector2<f64>) -> Vector2<f64> {
        let Self { m1, m2, l1, l2, g } = *self;
        let (w1, w2) = (omega[0], omega[1]);
        let delta = theta[0] - theta[1];
        let (s, c) = delta.sin_cos();
        let denominator = 2.0 * m1 + m2 - m2 * (2.0 * delta).cos();
        let a1 = (-g * (2.0 * m1 + m2) * theta[0].sin()
            - m2 * g * (theta[0] - 2.0 * theta[1]).sin()
            - 2.0 * s * m2 * (w2 * w2 * l2 + w1 * w1 * l1 * c))
            / (l1 * denominator);
        let a2 = 2.0
            * s
            * (w1 * w1 * l1 * (m1 + m2) + g * (m1 + m2) * theta[0].cos() + w2 * w2 * l2 * m2 * c)
            / (l2 * denominator);
        Vector2::new(a1, a2)
    }
}

impl Accelerator for DoublePendulum {
    fn acceleration(&self, q: &[f64], qd: &[f64]) -> Result<Vec<f64>, Box<dyn Error>> {
        let qdd = self.angular_acceleration(
            &Vector2::from_column_slice(q),
            &Vector2::from_column_slice(qd),
        );
        Ok(qdd.as_slice().to_vec())
    }

    fn ns_per_call(&self, states: &[(Vec<f64>, Vec<f64>)]) -> f64 {
        let states: Vec<_> = states
            .iter()
            .map(|(q, qd)| {
                (
                    Vector2::from_column_slice(q),
                    Vector2::from_column_slice(qd),
                )
            })
            .collect();
        timing::ns_per_call(&states, |(q, qd)| self.angular_acceleration(q, qd)[0])
    }
}
