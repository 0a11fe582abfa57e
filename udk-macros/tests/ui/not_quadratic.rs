use udk::lagrangian;

#[lagrangian(
    coordinates(x),
    lagrangian = 0.25 * m * dot(x).powi(4),
)]
pub struct Quartic {
    pub m: f64,
}

fn main() {}
