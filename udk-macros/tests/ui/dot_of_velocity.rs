use udk::lagrangian;

// `dot` is the total time derivative of an expression of q and t; of one with q̇ it is an
// error, directly or through a definition.
#[lagrangian(
    coordinates(x, y),
    let p = vec3(x, y, 0.0),
    let v = dot(p),
    lagrangian = 0.5 * m * v.norm_squared() + dot(dot(x)) + dot(v).x(),
)]
pub struct Particle {
    pub m: f64,
}

fn main() {}
