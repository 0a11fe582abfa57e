use udk::lagrangian;

#[lagrangian(
    coordinates(x),
    lagrangian = 0.5 * m * dot(x).powi(2) + dot(m) * x,
)]
pub struct Particle {
    pub m: f64,
}

fn main() {}
