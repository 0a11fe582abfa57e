use udk::lagrangian;

// An unknown key and a malformed key do not hide the expressions' errors: all are reported.
#[lagrangian(
    coordinates(x),
    lagrangian = 0.5 * m * dot(x).powi(2) - k * x.powi(2),
    constraint(x - 1.0),
    forces = 2.0,
    holonomic(x - len),
)]
pub struct Oscillator {
    pub m: f64,
    pub l: f64,
}

fn main() {}
