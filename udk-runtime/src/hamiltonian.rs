//! Constrained Hamilton equations (Udwadia 2016, eqs 35–36):
//! q̇ = H_p,  ṗ = −H_q + H_pp⁻¹A_pᵀ(A_p H_pp⁻¹ A_pᵀ)⁺(b_p + A_p H_q),
//! for constraints φ(p, q, t) = 0 differentiated to A_p ṗ = b_p (eqs 11–12).
//!
//! Shapes: n coordinates and momenta, m constraints. H_q (n-vector) = ∂H/∂q,
//! H_pp (n × n, symmetric positive definite) = ∂²H/∂p², A_p (m × n, any rank), b_p
//! (m-vector). The constraint force on ṗ is Q^C = ṗ + H_q (eq 13). q̇ = H_p needs no kernel.

use nalgebra::{DMatrix, DVector, DefaultAllocator, Dim, OMatrix, OVector, SMatrix, SVector};

use crate::allocator::KernelAllocator;
use crate::cholesky::Cholesky;
use crate::projection::{project, Unconstrained, VectorPair, FACTOR_TOLERANCE};
use crate::{scaling, validate, Error, Options};

/// The generic kernel behind every public entry point: validates the inputs (shapes
/// included, n = `h_q.len()`, m = `b_p.len()`), equilibrates the rows of A_p ṗ = b_p and
/// scales H_pp by a power of two, and returns (ṗ, Q^C) once ṗ has passed the a-posteriori
/// residual check of A_p ṗ = b_p.
pub(crate) fn solve<N: Dim, R: Dim>(
    h_q: &OVector<f64, N>,
    h_pp: &OMatrix<f64, N, N>,
    a_p: &OMatrix<f64, R, N>,
    b_p: &OVector<f64, R>,
    options: &Options,
) -> Result<VectorPair<N>, Error>
where
    DefaultAllocator: KernelAllocator<N, R>,
{
    let n = h_q.len();
    validate::shape(h_pp, (n, n), "H_pp")?;
    validate::shape(a_p, (b_p.len(), n), "A_p")?;
    options.validate()?;
    validate::finite(h_q, "H_q")?;
    validate::finite(h_pp, "H_pp")?;
    validate::symmetric(h_pp, "H_pp")?;
    validate::finite(a_p, "A_p")?;
    validate::finite(b_p, "b_p")?;
    // ṗ and Q^C do not change when the rows of A_p ṗ = b_p or H_pp are scaled (`scaling`).
    let (a_p, b_p) = scaling::equilibrate_rows(a_p, b_p)?;
    let h_pp = match scaling::metric_scale(h_pp) {
        Some(s) => h_pp * s,
        None => h_pp.clone(),
    };
    let factor =
        Cholesky::new(h_pp, FACTOR_TOLERANCE).ok_or(Error::NotPositiveDefinite { what: "H_pp" })?;
    let p = project(&factor, Unconstrained::Rate(-h_q), &a_p, &b_p, options)?;
    let constraint_force = p.correction(&factor);
    Ok((p.acceleration, constraint_force))
}

/// ṗ of the constrained Hamiltonian system (Udwadia 2016, eq 36), fixed sizes, no heap
/// allocation. Arguments: `h_q` = ∂H/∂q (n), `h_pp` = ∂²H/∂p² (n × n, positive definite),
/// `a_p` (m × n) and `b_p` (m) with A_p ṗ = b_p. Redundant constraints are allowed.
///
/// # Errors
/// `NonFinite`, `NotSymmetric` / `NotPositiveDefinite` (H_pp), `InconsistentConstraints`,
/// `ResidualTooLarge` (A_p ṗ = b_p violated, see [`Options::residual_tolerance`]),
/// `InvalidOption`.
pub fn momentum_rate<const N: usize, const M: usize>(
    h_q: &SVector<f64, N>,
    h_pp: &SMatrix<f64, N, N>,
    a_p: &SMatrix<f64, M, N>,
    b_p: &SVector<f64, M>,
    options: &Options,
) -> Result<SVector<f64, N>, Error> {
    solve(h_q, h_pp, a_p, b_p, options).map(|(p_dot, _)| p_dot)
}

/// (ṗ, Q^C) with Q^C = H_pp⁻¹A_pᵀ(A_p H_pp⁻¹ A_pᵀ)⁺(b_p + A_p H_q) the constraint force on
/// ṗ (Udwadia 2016, eqs 13 and 36), fixed sizes. Inputs and errors as [`momentum_rate`].
pub fn momentum_rate_and_constraint_force<const N: usize, const M: usize>(
    h_q: &SVector<f64, N>,
    h_pp: &SMatrix<f64, N, N>,
    a_p: &SMatrix<f64, M, N>,
    b_p: &SVector<f64, M>,
    options: &Options,
) -> Result<(SVector<f64, N>, SVector<f64, N>), Error> {
    solve(h_q, h_pp, a_p, b_p, options)
}

/// [`momentum_rate`] for dynamic sizes: n = `h_q.len()`, m = `b_p.len()`.
///
/// # Errors
/// As [`momentum_rate`], plus `DimensionMismatch`.
pub fn momentum_rate_dyn(
    h_q: &DVector<f64>,
    h_pp: &DMatrix<f64>,
    a_p: &DMatrix<f64>,
    b_p: &DVector<f64>,
    options: &Options,
) -> Result<DVector<f64>, Error> {
    solve(h_q, h_pp, a_p, b_p, options).map(|(p_dot, _)| p_dot)
}

/// [`momentum_rate_and_constraint_force`] for dynamic sizes.
///
/// # Errors
/// As [`momentum_rate_dyn`].
pub fn momentum_rate_and_constraint_force_dyn(
    h_q: &DVector<f64>,
    h_pp: &DMatrix<f64>,
    a_p: &DMatrix<f64>,
    b_p: &DVector<f64>,
    options: &Options,
) -> Result<(DVector<f64>, DVector<f64>), Error> {
    solve(h_q, h_pp, a_p, b_p, options)
}
