use udk::lagrangian;

#[lagrangian(
    coordinates(x),
    lagrangian = 0.5 * m * dot(x).powi(2) - k * x.cosine(),
)]
pub struct Oscillator {
    pub m: f64,
    pub k: f64,
}

fn main() {}
