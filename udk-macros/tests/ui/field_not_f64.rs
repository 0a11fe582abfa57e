use udk::lagrangian;

#[lagrangian(
    coordinates(x),
    lagrangian = 0.5 * m * dot(x).powi(2) - n * x,
)]
pub struct Particle {
    pub m: f64,
    pub n: u32,
    pub label: String,
}

fn main() {}
