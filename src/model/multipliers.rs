//! The multipliers λ of a [`Model`]'s constraints, by name.

use super::{Model, ModelError};
use nalgebra::DVector;
use udk_runtime::{constraint_multipliers_dyn, Options};

impl Model {
    /// The names of the m rows of A q̈ = b, in order: `holonomic[i]`, then `nonholonomic[i]`
    /// (`constraints[i]` in a Hamiltonian model), as the generated `CONSTRAINT_NAMES`
    /// ([`udk_symbolic::Derivation::constraint_names`]).
    pub fn constraint_names(&self) -> Vec<String> {
        self.compiled.derivation.constraint_names()
    }

    /// The Lagrange multipliers λ at (q, q̇, t), m entries named by
    /// [`Model::constraint_names`], of the ideal constraint force Qᶜ − C = Aᵀλ:
    /// λ = (A M⁻¹ Aᵀ)⁺ (b − A a), a = M⁻¹(Q + C), the minimum-norm λ when rows are redundant
    /// (Udwadia & Kalaba 1993, eq 16; [`udk_runtime::constraint_multipliers_dyn`], default
    /// kernel options). A holonomic row's λ is in generalized force per unit of its f(q, t).
    ///
    /// # Errors
    /// As [`Model::terms`], and the kernel's [`udk_runtime::Error`].
    pub fn constraint_multipliers(
        &self,
        q: &DVector<f64>,
        qd: &DVector<f64>,
        t: f64,
    ) -> Result<DVector<f64>, ModelError> {
        let terms = self.terms(q, qd, t)?;
        Ok(constraint_multipliers_dyn(
            terms.view(),
            &Options::default(),
        )?)
    }
}
