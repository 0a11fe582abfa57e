use udk::lagrangian;

// Inputs act through forces, loads and non-ideal forces, never through L or a constraint.
#[lagrangian(
    coordinates(x, y),
    inputs(u),
    let push = u * x,
    lagrangian = 0.5 * m * (dot(x).powi(2) + dot(y).powi(2)) - u * x - push,
    holonomic(x - u),
    forces(u, 0.0),
)]
pub struct Cart {
    pub m: f64,
}

fn main() {}
