use udk::lagrangian;

// Definitions are in order: each can use only the ones before it.
#[lagrangian(
    coordinates(x),
    let a = 2.0 * b,
    let b = x,
    lagrangian = 0.5 * m * dot(x).powi(2) - a,
)]
pub struct Oscillator {
    pub m: f64,
}

fn main() {}
