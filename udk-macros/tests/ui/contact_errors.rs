//! Mistakes in `contacts(..)`, all reported at once at their culprits: a gap that reads a
//! velocity, a gap of no coordinate, an unknown name in a slip coordinate, a coefficient
//! that depends on the state, an unknown key, a contact without a gap and a repeated name.
use udk::lagrangian;

#[lagrangian(
    coordinates(x, y),
    lagrangian = 0.5 * m * (dot(x).powi(2) + dot(y).powi(2)) - m * g * y,
    contacts(
        moving(gap = y + dot(x)),
        floating(gap = h),
        sliding(gap = y, slip = xx, friction = x),
        typo(gap = y, restitutoin = 0.5),
        empty(restitution = 0.5),
        moving(gap = y - h),
    ),
)]
pub struct Block {
    pub m: f64,
    pub g: f64,
    pub h: f64,
}

fn main() {}
