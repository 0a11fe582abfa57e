use udk::lagrangian;

#[lagrangian(
    coordinates(x, y, x),
    lagrangian = 0.5 * m * (dot(x).powi(2) + dot(y).powi(2)),
)]
pub struct Particle {
    pub m: f64,
}

fn main() {}
