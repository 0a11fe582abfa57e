use udk::lagrangian;

#[lagrangian(
    coordinates(x),
    lagrangian = 0.5 * m * dot(x).powi(2) - 0.5 * k * x.powi(2),
)]
pub struct Oscillator {
    pub m: f64,
}

fn main() {}
