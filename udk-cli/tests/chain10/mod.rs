//! The 10-link pendulum chain in Cartesian coordinates, `examples/models/chain10_cartesian.toml`
//! written with `#[lagrangian]`: shared by the model tests and the `eval_states` benchmark.

use udk::lagrangian;

#[lagrangian(
    coordinates(x1, y1, x2, y2, x3, y3, x4, y4, x5, y5, x6, y6, x7, y7, x8, y8, x9, y9, x10, y10),
    lagrangian = 0.5 * m1 * (dot(x1).powi(2) + dot(y1).powi(2)) - m1 * g * y1 + 0.5 * m2 * (dot(x2).powi(2) + dot(y2).powi(2)) - m2 * g * y2 + 0.5 * m3 * (dot(x3).powi(2) + dot(y3).powi(2)) - m3 * g * y3 + 0.5 * m4 * (dot(x4).powi(2) + dot(y4).powi(2)) - m4 * g * y4 + 0.5 * m5 * (dot(x5).powi(2) + dot(y5).powi(2)) - m5 * g * y5 + 0.5 * m6 * (dot(x6).powi(2) + dot(y6).powi(2)) - m6 * g * y6 + 0.5 * m7 * (dot(x7).powi(2) + dot(y7).powi(2)) - m7 * g * y7 + 0.5 * m8 * (dot(x8).powi(2) + dot(y8).powi(2)) - m8 * g * y8 + 0.5 * m9 * (dot(x9).powi(2) + dot(y9).powi(2)) - m9 * g * y9 + 0.5 * m10 * (dot(x10).powi(2) + dot(y10).powi(2)) - m10 * g * y10,
    holonomic(x1.powi(2) + y1.powi(2) - l1.powi(2), (x2 - x1).powi(2) + (y2 - y1).powi(2) - l2.powi(2), (x3 - x2).powi(2) + (y3 - y2).powi(2) - l3.powi(2), (x4 - x3).powi(2) + (y4 - y3).powi(2) - l4.powi(2), (x5 - x4).powi(2) + (y5 - y4).powi(2) - l5.powi(2), (x6 - x5).powi(2) + (y6 - y5).powi(2) - l6.powi(2), (x7 - x6).powi(2) + (y7 - y6).powi(2) - l7.powi(2), (x8 - x7).powi(2) + (y8 - y7).powi(2) - l8.powi(2), (x9 - x8).powi(2) + (y9 - y8).powi(2) - l9.powi(2), (x10 - x9).powi(2) + (y10 - y9).powi(2) - l10.powi(2)),
)]
pub struct PendulumChainCartesian10 {
    pub m1: f64,
    pub m2: f64,
    pub m3: f64,
    pub m4: f64,
    pub m5: f64,
    pub m6: f64,
    pub m7: f64,
    pub m8: f64,
    pub m9: f64,
    pub m10: f64,
    pub l1: f64,
    pub l2: f64,
    pub l3: f64,
    pub l4: f64,
    pub l5: f64,
    pub l6: f64,
    pub l7: f64,
    pub l8: f64,
    pub l9: f64,
    pub l10: f64,
    pub g: f64,
}
