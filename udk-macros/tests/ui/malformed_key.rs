use udk::lagrangian;

#[lagrangian(
    coordinates = x,
    lagrangian = 0.5 * m * dot(x).powi(2),
    constraints(x - 1.0),
)]
pub struct Particle {
    pub m: f64,
}

fn main() {}
