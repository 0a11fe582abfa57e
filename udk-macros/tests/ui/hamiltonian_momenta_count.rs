use udk::hamiltonian;

#[hamiltonian(
    coordinates(x, y),
    momenta(px),
    hamiltonian = (px.powi(2) + py.powi(2)) / (2.0 * m),
)]
pub struct Particle {
    pub m: f64,
}

fn main() {}
