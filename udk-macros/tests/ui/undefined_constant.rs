use udk::lagrangian;

#[lagrangian(
    coordinates(x),
    lagrangian = 0.5 * m * dot(x).powi(2) - (0.0 / 0.0) * x - x.powi(2) / 0 + (0.0).ln() * x,
)]
pub struct Undefined {
    pub m: f64,
}

fn main() {}
