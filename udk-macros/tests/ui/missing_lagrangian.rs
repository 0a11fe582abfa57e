use udk::lagrangian;

#[lagrangian(
    coordinates(x, y),
    holonomic(x.powi(2) + y.powi(2) - l.powi(2)),
)]
pub struct Pendulum {
    pub l: f64,
}

fn main() {}
