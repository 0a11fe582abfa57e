use udk::lagrangian;

// A definition may not be defined twice, nor shadow a coordinate, a parameter, an input or `t`.
#[lagrangian(
    coordinates(x),
    inputs(u),
    let a = 2.0 * x,
    let a = 3.0 * x,
    let x = 1.0,
    let m = 1.0,
    let u = 0.0,
    let t = 0.0,
    lagrangian = 0.5 * m * dot(x).powi(2) - a,
)]
pub struct Oscillator {
    pub m: f64,
}

fn main() {}
