//! Reference implementation for singular mass matrices: the explicit equation
//! q̈ = [(I − A⁺A)M; A]⁺ [Q + C; b] + (I − 𝓜⁺𝓜)η (Udwadia & Phohomsiri 2006, eqs 2.14–2.15)
//! through SVDs, and the uniqueness test rank [M; A] = n (ibid., Result 3).
//!
//! These functions are cross-checks and diagnostics, not hot-path kernels: they use dynamic
//! storage (the fixed-size entry points copy into it) and cost several SVDs.

use nalgebra::{Const, DMatrix, DVector, DefaultAllocator, Dim, Dyn, SMatrix, SVector};

use crate::allocator::KernelAllocator;
use crate::pinv::{pinv_and_rank, Tolerance};
use crate::{residual, scaling, validate, Error, LagrangianView, Options};

/// The minimum-norm solution of eq 2.14 (η = 0), with the rank that decides uniqueness.
#[derive(Debug, Clone, PartialEq)]
pub struct ReferenceSolution<V> {
    /// q̈ = 𝓜⁺[Q + C; b] (n-vector): the acceleration if unique, otherwise the
    /// minimum-norm member of the solution set.
    pub acceleration: V,
    /// Numerical rank of 𝓜 = [(I − A⁺A)M; A], equal to rank [M; A] (ibid., Lemma 3.1).
    pub rank: usize,
    /// Number of generalized coordinates.
    pub n: usize,
    /// The zero-based indices of the coordinates the solution leaves free (see
    /// [`crate::FreeCoordinates`]); empty when the acceleration is unique.
    pub free: Vec<usize>,
}

impl<V> ReferenceSolution<V> {
    /// Whether the acceleration is uniquely determined (rank = n, Result 3).
    pub fn is_unique(&self) -> bool {
        self.rank == self.n
    }
}

/// Reference acceleration by Udwadia & Phohomsiri 2006, eq 2.15, for dynamic sizes:
/// q̈ = [(I − A⁺A)M; A]⁺ [Q + C; b], where `terms` borrows M (n × n, symmetric positive
/// semidefinite, possibly singular), Q and C (n-vectors), A (m × n), b (m-vector).
///
/// When rank [M; A] < n the solution is not unique (eq 2.14); the returned acceleration is
/// then the minimum-norm one (η = 0) and [`ReferenceSolution::is_unique`] is false.
/// Singular values ≤ τ·σ_max count as zero, τ = [`Options::tolerance`] (default 1e-10).
///
/// The rows of A q̈ = b are equilibrated and M, Q, C scaled by a power of two first (exact,
/// and without effect on q̈), so that no product overflows or underflows.
///
/// # Errors
/// `DimensionMismatch`, `NonFinite`, `NotSymmetric`, `InvalidOption`,
/// `InconsistentConstraints` (A q̈ = b unsolvable), `ResidualTooLarge` (the a-posteriori
/// check of A q̈ = b, see [`Options::residual_tolerance`]), `NoConvergence`.
pub fn reference_acceleration_dyn(
    terms: LagrangianView<'_, Dyn, Dyn>,
    options: &Options,
) -> Result<ReferenceSolution<DVector<f64>>, Error> {
    validate::lagrangian_inputs(terms, options)?;
    let mass_matrix = terms.mass_matrix;
    // Exact power-of-two scalings that change neither the solution set of A q̈ = b nor q̈
    // (see `scaling`): no product below overflows or underflows.
    let (constraint_matrix, constraint_rhs) =
        scaling::equilibrate_rows(terms.constraint_matrix, terms.constraint_rhs)?;
    let s = scaling::metric_scale(mass_matrix).unwrap_or(1.0);
    let mut force = terms.generalized_force * s;
    if let Some(c) = terms.nonideal_force {
        force += c * s;
    }
    validate::finite(&force, "generalized force (Q + C)/max |Mᵢⱼ| (overflow)")?;
    let n = force.len();
    let m = constraint_rhs.len();
    let tolerance = Tolerance::Relative(options.rank_tolerance());
    let (a_pinv, _) = pinv_and_rank(&constraint_matrix, tolerance)?;
    let projector = DMatrix::identity(n, n) - &a_pinv * &constraint_matrix;
    let mut stacked = DMatrix::zeros(n + m, n);
    stacked
        .rows_mut(0, n)
        .copy_from(&(projector * mass_matrix * s));
    stacked.rows_mut(n, m).copy_from(&constraint_matrix);
    let (stacked_pinv, rank) = pinv_and_rank(&stacked, tolerance)?;
    let free = free_coordinates(&stacked_pinv, &stacked, rank);
    // q̈ = 𝓜⁺[Q + C; 0] + 𝓜⁺[0; b]; the first term is the scale of the forced motion.
    let forced = stacked_pinv.columns(0, n) * &force;
    let acceleration = &forced + stacked_pinv.columns(n, m) * &constraint_rhs;
    if !acceleration.iter().all(|v| v.is_finite()) {
        return Err(Error::NonFinite {
            what: "constrained acceleration (overflow)",
        });
    }
    // A q̈ = b is solvable iff b lies in the range of A: test A A⁺ b = b directly, which does
    // not depend on the accuracy of 𝓜⁺.
    let particular = &a_pinv * &constraint_rhs;
    let residual = (&constraint_matrix * &particular - &constraint_rhs).norm();
    let scale = constraint_matrix.norm() * particular.norm() + constraint_rhs.norm();
    if residual > options.consistency_tolerance * scale {
        return Err(Error::InconsistentConstraints { residual });
    }
    let forced_norm = validate::max_magnitude(forced.as_slice());
    let rho = residual::relative_residual(
        &constraint_matrix,
        &constraint_rhs,
        &acceleration,
        forced_norm,
    );
    residual::check(rho, options)?;
    Ok(ReferenceSolution {
        acceleration,
        rank,
        n,
        free,
    })
}

/// A coordinate counts as free when its diagonal entry of the null-space projector exceeds
/// this (the entries lie in [0, 1]; a null vector shared by k coordinates gives about 1/k).
const FREE_DIAGONAL: f64 = 1e-6;

/// The zero-based indices of the coordinates with a diagonal entry of I − 𝓜⁺𝓜 above
/// [`FREE_DIAGONAL`]; none when 𝓜 has full column rank.
fn free_coordinates(
    stacked_pinv: &DMatrix<f64>,
    stacked: &DMatrix<f64>,
    rank: usize,
) -> Vec<usize> {
    let n = stacked.ncols();
    if rank == n {
        return Vec::new();
    }
    let range_projector = stacked_pinv * stacked;
    (0..n)
        .filter(|&i| 1.0 - range_projector[(i, i)] > FREE_DIAGONAL)
        .collect()
}

/// [`reference_acceleration_dyn`] for fixed sizes (copies into dynamic storage; a
/// cross-check, not a hot-path kernel). Same equation, shapes and errors.
pub fn reference_acceleration<const N: usize, const M: usize>(
    terms: LagrangianView<'_, Const<N>, Const<M>>,
    options: &Options,
) -> Result<ReferenceSolution<SVector<f64, N>>, Error> {
    let s = reference_acceleration_copied(terms, options)?;
    Ok(ReferenceSolution {
        acceleration: SVector::from_column_slice(s.acceleration.as_slice()),
        rank: s.rank,
        n: s.n,
        free: s.free,
    })
}

/// [`reference_acceleration_dyn`] of terms in any storage, copied into dynamic storage. The
/// shapes must be consistent (fixed sizes, or dynamic terms already validated).
pub(crate) fn reference_acceleration_copied<N: Dim, R: Dim>(
    terms: LagrangianView<'_, N, R>,
    options: &Options,
) -> Result<ReferenceSolution<DVector<f64>>, Error>
where
    DefaultAllocator: KernelAllocator<N, R>,
{
    let (n, m) = (terms.generalized_force.len(), terms.constraint_rhs.len());
    let mass_matrix = DMatrix::from_column_slice(n, n, terms.mass_matrix.as_slice());
    let generalized_force = DVector::from_column_slice(terms.generalized_force.as_slice());
    let constraint_matrix = DMatrix::from_column_slice(m, n, terms.constraint_matrix.as_slice());
    let constraint_rhs = DVector::from_column_slice(terms.constraint_rhs.as_slice());
    let c = terms
        .nonideal_force
        .map(|c| DVector::from_column_slice(c.as_slice()));
    let mut copy = LagrangianView::new(
        &mass_matrix,
        &generalized_force,
        &constraint_matrix,
        &constraint_rhs,
    );
    copy.nonideal_force = c.as_ref();
    reference_acceleration_dyn(copy, options)
}

/// Numerical rank of the (n + m) × n matrix [M; A] for dynamic sizes: the acceleration is
/// unique iff it equals n (Udwadia & Phohomsiri 2006, Result 3). Singular values
/// ≤ τ·σ_max count as zero, τ = [`Options::tolerance`] (default 1e-10).
///
/// # Errors
/// `DimensionMismatch` (M not n × n or A not m × n), `NonFinite`, `InvalidOption`,
/// `NoConvergence`.
pub fn mass_constraint_rank_dyn(
    mass_matrix: &DMatrix<f64>,
    constraint_matrix: &DMatrix<f64>,
    options: &Options,
) -> Result<usize, Error> {
    let n = mass_matrix.ncols();
    options.validate()?;
    validate::shape(mass_matrix, (n, n), "mass matrix M")?;
    validate::shape(
        constraint_matrix,
        (constraint_matrix.nrows(), n),
        "constraint matrix A",
    )?;
    let m = constraint_matrix.nrows();
    let mut stacked = DMatrix::zeros(n + m, n);
    stacked.rows_mut(0, n).copy_from(mass_matrix);
    stacked.rows_mut(n, m).copy_from(constraint_matrix);
    pinv_and_rank(&stacked, Tolerance::Relative(options.rank_tolerance())).map(|(_, r)| r)
}

/// [`mass_constraint_rank_dyn`] for fixed sizes (copies into dynamic storage).
///
/// # Errors
/// As [`mass_constraint_rank_dyn`].
pub fn mass_constraint_rank<const N: usize, const M: usize>(
    mass_matrix: &SMatrix<f64, N, N>,
    constraint_matrix: &SMatrix<f64, M, N>,
    options: &Options,
) -> Result<usize, Error> {
    mass_constraint_rank_dyn(
        &DMatrix::from_column_slice(N, N, mass_matrix.as_slice()),
        &DMatrix::from_column_slice(M, N, constraint_matrix.as_slice()),
        options,
    )
}
