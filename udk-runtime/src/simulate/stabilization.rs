//! Baumgarte's stabilization of A q̈ = b (or A_p ṗ = b_p): see [`super::Baumgarte`].

use super::Baumgarte;
use nalgebra::{Dim, Storage, StorageMut, Vector};

/// b̃ = b − 2α r − β² f on the first `num_holonomic` rows, b̃ = b − γ r on the others, in place.
///
/// `f` is the holonomic residual aligned with the m rows (zero on the other rows) and `r` the
/// velocity-level residual of each row: ḟ on a holonomic row, φ on the others.
pub(crate) fn stabilize<D: Dim, S: StorageMut<f64, D>, F: Storage<f64, D>, R: Storage<f64, D>>(
    rhs: &mut Vector<f64, D, S>,
    num_holonomic: usize,
    f: &Vector<f64, D, F>,
    r: &Vector<f64, D, R>,
    gains: &Baumgarte,
) {
    let stiffness = gains.beta * gains.beta;
    for i in 0..rhs.len() {
        rhs[i] -= if i < num_holonomic {
            2.0 * gains.alpha * r[i] + stiffness * f[i]
        } else {
            gains.gamma * r[i]
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Vector3;

    #[test]
    fn holonomic_rows_get_alpha_and_beta_the_others_gamma() {
        let gains = Baumgarte {
            alpha: 2.0,
            beta: 3.0,
            gamma: 7.0,
        };
        let mut b = Vector3::new(1.0, 1.0, 1.0);
        let f = Vector3::new(0.5, 0.25, 0.0);
        let r = Vector3::new(0.1, 0.2, 0.3);
        stabilize(&mut b, 2, &f, &r, &gains);
        let expected = Vector3::new(
            1.0 - 4.0 * 0.1 - 9.0 * 0.5,
            1.0 - 4.0 * 0.2 - 9.0 * 0.25,
            1.0 - 7.0 * 0.3,
        );
        assert!((b - expected).norm() < 1e-15, "{b} vs {expected}");
    }
}
