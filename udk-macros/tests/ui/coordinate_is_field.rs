use udk::lagrangian;

#[lagrangian(
    coordinates(x),
    lagrangian = 0.5 * m * dot(x).powi(2),
)]
pub struct Particle {
    pub m: f64,
    pub x: f64,
}

fn main() {}
