use udk::lagrangian;

// Every type error of the model is reported, each at its culprit.
#[lagrangian(
    coordinates(x, y),
    let p = vec3(x, y, 0.0),
    let r = rot_z(x),
    lagrangian = 0.5 * m * dot(p).norm_squared() - m * g * (p + y) + (p * p) + sin(p) + r.dot(p),
    holonomic(r),
)]
pub struct Particle {
    pub m: f64,
    pub g: f64,
}

fn main() {}
