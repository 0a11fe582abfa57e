//! Coordinates whose acceleration no equation of the model determines.

use crate::derivation::{Derivation, Equations};

impl Derivation {
    /// The indices of the coordinates qᵢ of a Lagrangian model whose acceleration is
    /// undetermined at every state: column i of the mass matrix M (so row i too, M being
    /// symmetric) is structurally 0, which happens when L has no velocity term in q̇ᵢ, and
    /// column i of the constraint matrix A is structurally 0, as no constraint involves q̈ᵢ.
    /// Then column i of [M; A] is 0, its rank is below n for every state, and the
    /// Udwadia–Kalaba acceleration is never unique (Udwadia & Phohomsiri 2006, eq 5.23: the
    /// massless particle on the rolling wheel). "Structurally 0" means the DAG entry is the
    /// constant 0, so a coordinate whose column vanishes only for some parameter values is
    /// not listed. Empty for a Hamiltonian model. For a model with generalized speeds u
    /// (q̇ = N(q)u), M and A are taken with respect to u̇, so index i is that of the speed uᵢ
    /// ([`Derivation::speeds`]), not of qᵢ.
    pub fn undetermined_coordinates(&self) -> Vec<usize> {
        let Equations::Lagrangian(e) = &self.equations else {
            return Vec::new();
        };
        let zero = |id| self.pool.is_zero(id);
        let (m, a) = (&e.mass_matrix, &e.constraint_matrix);
        (0..m.cols)
            .filter(|&i| (0..m.rows).all(|r| zero(m.get(r, i))))
            .filter(|&i| (0..a.rows).all(|r| zero(a.get(r, i))))
            .collect()
    }

    /// One sentence per undetermined coordinate ([`Derivation::undetermined_coordinates`])
    /// saying why its acceleration can never be found; it names the speed uᵢ for a model
    /// with generalized speeds.
    pub fn undetermined_messages(&self) -> Vec<String> {
        let (what, names) = match self.speeds.is_empty() {
            true => ("acceleration of coordinate", &self.coordinates),
            false => ("rate of speed", &self.speeds),
        };
        (self.undetermined_coordinates().into_iter())
            .map(|i| {
                format!(
                    "the {what} `{}` is never determined: L has no velocity term in it (its \
                     row and column of M are 0) and no constraint involves it, so [M; A] has \
                     rank < n at every state and `acceleration` returns \
                     NonUniqueAcceleration",
                    names[i]
                )
            })
            .collect()
    }
}
