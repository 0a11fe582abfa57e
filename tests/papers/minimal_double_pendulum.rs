//! The double pendulum in minimal coordinates against the textbook M(θ) and θ̈.

use crate::{assert_close, samples};
use udk::nalgebra::{Matrix2, Vector2};

#[allow(dead_code)]
#[path = "../../examples/double_pendulum_minimal.rs"]
mod double_pendulum_minimal;

use double_pendulum_minimal::DoublePendulum;

#[test]
fn double_pendulum_matches_the_textbook() {
    for seed in 0..8 {
        let s = samples(seed, 9, 0.2, 2.0);
        let pendulum = DoublePendulum {
            m1: s[0],
            m2: s[1],
            l1: s[2],
            l2: s[3],
            g: 9.81,
        };
        let DoublePendulum { m1, m2, l1, l2, g } = pendulum;
        let (q, qd) = (
            Vector2::new(3.0 * s[4] - 3.0, 3.0 * s[5] - 3.0),
            Vector2::new(s[6] - 1.0, s[7] - 1.0),
        );
        let (t1, t2, w1, w2) = (q[0], q[1], qd[0], qd[1]);
        let delta = t1 - t2;
        let mass = Matrix2::new(
            (m1 + m2) * l1 * l1,
            m2 * l1 * l2 * delta.cos(),
            m2 * l1 * l2 * delta.cos(),
            m2 * l2 * l2,
        );
        assert_close(pendulum.mass_matrix(&q, 0.0).as_slice(), mass.as_slice());
        let den = 2.0 * m1 + m2 - m2 * (2.0 * delta).cos();
        let expected = [
            (-g * (2.0 * m1 + m2) * t1.sin()
                - m2 * g * (t1 - 2.0 * t2).sin()
                - 2.0 * delta.sin() * m2 * (w2 * w2 * l2 + w1 * w1 * l1 * delta.cos()))
                / (l1 * den),
            2.0 * delta.sin()
                * (w1 * w1 * l1 * (m1 + m2)
                    + g * (m1 + m2) * t1.cos()
                    + w2 * w2 * l2 * m2 * delta.cos())
                / (l2 * den),
        ];
        assert_close(
            pendulum.acceleration(&q, &qd, s[8]).unwrap().as_slice(),
            &expected,
        );
        assert_close(
            pendulum.constraint_force(&q, &qd, s[8]).unwrap().as_slice(),
            &[0.0, 0.0],
        );
        let energy = 0.5 * (qd.transpose() * mass * qd)[0]
            - (m1 + m2) * g * l1 * t1.cos()
            - m2 * g * l2 * t2.cos();
        assert_close(&[pendulum.energy(&q, &qd, 0.0)], &[energy]);
    }
}
