use udk::lagrangian;

#[lagrangian(
    coordinates(x, y),
    lagrangian = 0.5 * m * (dot(x).powi(2) + dot(y).powi(2)),
    forces(-c * dot(x), -c * dot(y), 0.0),
)]
pub struct DampedParticle {
    pub m: f64,
    pub c: f64,
}

fn main() {}
