//! Tolerances and the gauge (α, G) of the augmented mass matrix.

use nalgebra::DMatrix;

/// The positive definite m × m weighting matrix G of the augmented mass matrix
/// M + α² Aᵀ G A (Udwadia & Wanichanon 2013, eq 3.8).
///
/// The acceleration does not depend on G (ibid., Remark 1); G only affects conditioning.
/// The kernels read it only when the mass matrix is singular. G weights the rows of A after
/// their equilibration (each row scaled by a power of two to max |Aᵢⱼ| ∈ [1, 2)).
#[derive(Debug, Clone, Default, PartialEq)]
pub enum Weighting {
    /// G = I_m (the paper's Remark 2). Needs no storage and no allocation.
    #[default]
    Identity,
    /// G = diag(g₁, …, g_m); every entry finite and > 0, length m.
    Diagonal(Vec<f64>),
    /// A full symmetric positive definite m × m matrix.
    Matrix(DMatrix<f64>),
}

/// Options shared by every kernel.
///
/// `Options::default()` is what generated code uses: automatic tolerances, α = 1, G = I,
/// consistency tolerance 1e-8, residual tolerance 1e-6. Constructing it does not allocate.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// Relative rank tolerance τ (dimensionless, ≥ 0) of every rank decision in the kernels:
    ///
    /// - Redundant constraints: singular values of B = A M^-½ (formed as (L⁻¹Aᵀ)ᵀ with the
    ///   Cholesky factor M = L Lᵀ, each row scaled to unit norm) at or below τ·σ_max mark
    ///   linearly dependent constraints.
    /// - Eq 2.15 reference and rank [M; A]: singular values ≤ τ·σ_max count as zero.
    ///
    /// `None` means 1e-10. (The free function [`pinv`](crate::pinv) has its own absolute
    /// tolerance argument.)
    pub tolerance: Option<f64>,
    /// Relative tolerance of the consistency test of redundant constraints: when the rank
    /// test finds A (numerically) rank-deficient, the least-squares candidate q̈ is declared
    /// inconsistent if its relative residual ρ (as for
    /// [`residual_tolerance`](Self::residual_tolerance)) exceeds it; in the eq 2.15 reference
    /// the test is ‖A A⁺ b − b‖₂ > tolerance · (‖A‖_F ‖A⁺ b‖₂ + ‖b‖₂). Default 1e-8.
    pub consistency_tolerance: f64,
    /// Tolerance of the a-posteriori check that every kernel applies before returning: the
    /// relative residual ρ = ‖A q̈ − b‖_∞ / (‖A‖_∞ (‖q̈‖_∞ + ‖a‖_∞) + ‖b‖_∞) of the
    /// row-equilibrated constraints (a the unconstrained acceleration M⁻¹(Q + C), or −H_q
    /// for [`hamiltonian`](crate::hamiltonian), where the constraints are A_p ṗ = b_p) must
    /// not exceed it, else the kernel returns
    /// [`Error::ResidualTooLarge`](crate::Error::ResidualTooLarge). Dimensionless, finite,
    /// ≥ 0. Default 1e-6: right answers have ρ of the unit roundoff 1.1e-16 times the
    /// conditioning of the projection (the property tests, with redundant constraints and
    /// singular M, see ρ ≤ 3e-12); answers spoiled by overflow, underflow or a wrong rank
    /// decision have ρ of order 1.
    pub residual_tolerance: f64,
    /// The nonzero, finite scalar α of the augmented mass matrix M + α² Aᵀ G A
    /// (Udwadia & Wanichanon 2013, eq 3.8). Default 1.
    pub alpha: f64,
    /// The weighting matrix G of the augmented mass matrix. Default G = I.
    pub weighting: Weighting,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            tolerance: None,
            consistency_tolerance: 1e-8,
            residual_tolerance: 1e-6,
            alpha: 1.0,
            weighting: Weighting::Identity,
        }
    }
}

/// Default relative rank tolerance of the kernels.
const DEFAULT_RANK_TOLERANCE: f64 = 1e-10;

impl Options {
    /// Checks the scalar fields that every kernel reads.
    pub(crate) fn validate(&self) -> Result<(), crate::Error> {
        if let Some(t) = self.tolerance {
            if !(t.is_finite() && t >= 0.0) {
                return Err(crate::Error::InvalidOption {
                    what: "tolerance must be finite and non-negative",
                });
            }
        }
        if !(self.consistency_tolerance.is_finite() && self.consistency_tolerance >= 0.0) {
            return Err(crate::Error::InvalidOption {
                what: "consistency_tolerance must be finite and non-negative",
            });
        }
        if !(self.residual_tolerance.is_finite() && self.residual_tolerance >= 0.0) {
            return Err(crate::Error::InvalidOption {
                what: "residual_tolerance must be finite and non-negative",
            });
        }
        Ok(())
    }

    /// The relative rank tolerance τ.
    pub(crate) fn rank_tolerance(&self) -> f64 {
        self.tolerance.unwrap_or(DEFAULT_RANK_TOLERANCE)
    }
}
