//! The constrained acceleration q̈ and the constraint force Qᶜ of a Lagrangian system
//! M q̈ = Q + Qᶜ subject to A q̈ = b, for positive definite or singular M, ideal or non-ideal
//! constraints (Udwadia & Kalaba 1993; Udwadia & Phohomsiri 2006; Udwadia & Wanichanon 2013).
//!
//! Shapes: n generalized coordinates, m constraints. M is n × n symmetric positive
//! semidefinite (kg, kg·m² … per coordinate pair), Q and C are n-vectors (generalized
//! forces), A is m × n and b an m-vector (A q̈ = b, units of b/A are accelerations).
//!
//! Before any product is formed, the rows of A q̈ = b are equilibrated and M, Q, C scaled by
//! a power of two (exact; see the `scaling` module), so that inputs of any magnitude neither
//! overflow nor underflow; every answer then passes an a-posteriori check of A q̈ = b
//! ([`Options::residual_tolerance`]) before it is returned.
//!
//! Paths, chosen automatically:
//! 1. M positive definite (Cholesky with relative pivot threshold succeeds):
//!    q̈ = a + M⁻¹Aᵀ(AM⁻¹Aᵀ)⁺(b − Aa) + M^-½(I − B⁺B)M^-½C, a = M⁻¹Q, B = AM^-½
//!    (Udwadia & Phohomsiri 2006, eq 4.24; Udwadia & Kalaba 1993, eq 17). Through the
//!    Cholesky factor this is q̈ = M⁻¹(Q + C) + M⁻¹Aᵀ(AM⁻¹Aᵀ)⁺(b − AM⁻¹(Q + C)), because
//!    M^-½(I − B⁺B)M^-½C = M⁻¹C − M⁻¹Aᵀ(AM⁻¹Aᵀ)⁺AM⁻¹C. No matrix square root is formed.
//!    A diagonal M (point masses in Cartesian coordinates) is its own factorization: then
//!    a = D⁻¹(Q + C), AM⁻¹Aᵀ is accumulated over the nonzero entries of A only and factored
//!    when A has full row rank; with redundant constraints the general form takes over.
//! 2. M singular: the same equation for the augmented mass matrix M + α²AᵀGA and the
//!    augmented force Q + AᵀG(α²b) (Udwadia & Wanichanon 2013, eqs 3.8, 3.18, 3.36). This
//!    matrix is positive definite iff rank [M; A] = n (ibid., Lemma 3.1).
//! 3. Augmented matrix numerically singular: the rank of [M; A] decides. Rank n: the SVD
//!    form eq 2.15 of Udwadia & Phohomsiri 2006; rank < n: `NonUniqueAcceleration`.
//!
//! The constraint force is Qᶜ = M q̈ − Q; it is evaluated as C + Aᵀλ, which is eq 16 of
//! Udwadia & Kalaba 1993 on path 1 and Qᶜ_{AᵀG, α²b} of Udwadia & Wanichanon 2013, eq 3.28
//! (equal to Qᶜ by eq 3.37) on path 2.

use nalgebra::{Const, DVector, DefaultAllocator, Dim, Dyn, OMatrix, OVector, SVector, U1};

use crate::allocator::KernelAllocator;
use crate::cholesky::Cholesky;
use crate::projection::{project, project_diagonal, Unconstrained, VectorPair, FACTOR_TOLERANCE};
use crate::{scaling, singular, validate, Error, LagrangianView, Options, Weighting};

/// q̈ and, when requested, Qᶜ.
pub(crate) type MaybeForce<N> = (OVector<f64, N>, Option<OVector<f64, N>>);

/// Shift (relative to max |Mᵢⱼ|) below which a negative eigenvalue of M counts as rounding.
const SEMIDEFINITE_SHIFT: f64 = 1e-8;

/// The generic kernel behind every public entry point of this module: validates the
/// inputs (shapes included, so that the dynamic-size twins need no check of their own),
/// scales them ([`scaling`]: rows of A x = b equilibrated; M, Q and C by one power of two
/// when M is far from unit size)
/// and returns q̈ and, if `with_force`, Qᶜ; every answer has passed the a-posteriori
/// [`residual`](crate::residual) check.
#[inline]
pub(crate) fn solve<N: Dim, R: Dim>(
    terms: LagrangianView<'_, N, R>,
    options: &Options,
    with_force: bool,
) -> Result<MaybeForce<N>, Error>
where
    DefaultAllocator: KernelAllocator<N, R>,
{
    solve_keeping(terms, options, with_force, drop).map(|(solution, _)| solution)
}

/// [`solve`], and the factorization M = L D Lᵀ it made when M is positive definite (path 1
/// with a Cholesky factor; `None` on the other paths and for a diagonal M), for callers that
/// need M⁻¹ again. When M was scaled by s = 4ʲ ([`scaling::metric_scale`]), the factor of
/// s·M is turned into that of M by dividing its pivots by s, exactly (L does not change).
pub(crate) fn solve_factored<N: Dim, R: Dim>(
    terms: LagrangianView<'_, N, R>,
    options: &Options,
    with_force: bool,
) -> Result<(MaybeForce<N>, Option<Cholesky<N>>), Error>
where
    DefaultAllocator: KernelAllocator<N, R>,
{
    solve_keeping(terms, options, with_force, |factor| factor)
}

/// [`solve`], and `keep` applied to the factorization that [`solve_factored`] returns (`drop`
/// for [`solve`], so that the n × n factor is never moved out of the kernel).
#[inline(always)]
fn solve_keeping<N: Dim, R: Dim, K>(
    terms: LagrangianView<'_, N, R>,
    options: &Options,
    with_force: bool,
    keep: impl FnOnce(Cholesky<N>) -> K,
) -> Result<(MaybeForce<N>, Option<K>), Error>
where
    DefaultAllocator: KernelAllocator<N, R>,
{
    let diagonal = validate::lagrangian_inputs(terms, options)?;
    let LagrangianView {
        mass_matrix,
        generalized_force,
        constraint_matrix,
        constraint_rhs,
        nonideal_force,
    } = terms;
    let (constraint_matrix, constraint_rhs) =
        scaling::equilibrate_rows(constraint_matrix, constraint_rhs)?;
    let (constraint_matrix, constraint_rhs) = (&constraint_matrix, &constraint_rhs);
    // M q̈ = Q + Qᶜ is homogeneous in (M, Q, Qᶜ): scale them by s, then Qᶜ back by 1/s.
    let scale = scaling::metric_scale(mass_matrix);
    let (scaled_mass, scaled_force, scaled_nonideal);
    let (mass_matrix, generalized_force, nonideal_force) = match scale {
        Some(s) => {
            scaled_mass = mass_matrix * s;
            scaled_force = generalized_force * s;
            scaled_nonideal = nonideal_force.map(|c| c * s);
            (&scaled_mass, &scaled_force, scaled_nonideal.as_ref())
        }
        None => (mass_matrix, generalized_force, nonideal_force),
    };
    let mut force = generalized_force.clone();
    if let Some(c) = nonideal_force {
        force += c;
    }
    validate::finite(&force, "generalized force (Q + C)/max |Mᵢⱼ| (overflow)")?;
    let unscale = |(qdd, qc): MaybeForce<N>| -> Result<MaybeForce<N>, Error> {
        let qc = match (qc, scale) {
            (Some(qc), Some(s)) => {
                let qc = qc / s;
                validate::finite(&qc, "constraint force Qᶜ (overflow)")?;
                Some(qc)
            }
            (qc, _) => qc,
        };
        Ok((qdd, qc))
    };

    if let Some(inverse_mass) = diagonal.then(|| positive_inverse(mass_matrix)).flatten() {
        if let Some(projected) = project_diagonal(
            &inverse_mass,
            &force,
            constraint_matrix,
            constraint_rhs,
            options,
        ) {
            let (acceleration, ideal_force) = projected?;
            let constraint_force = with_force.then(|| match nonideal_force {
                Some(c) => ideal_force + c,
                None => ideal_force,
            });
            return Ok((unscale((acceleration, constraint_force))?, None));
        }
    }
    // M is factored where the factor stays, so that its n × n storage is never moved.
    let mut factor = Cholesky::unfactored(mass_matrix.clone());
    let positive_definite = factor.factor(FACTOR_TOLERANCE);
    if !positive_definite {
        semidefinite(mass_matrix)?;
        let g = weighting_matrix(&options.weighting, constraint_matrix.shape_generic().0)?;
        if !(options.alpha.is_finite() && options.alpha != 0.0) {
            return Err(Error::InvalidOption {
                what: "alpha must be finite and nonzero",
            });
        }
        let alpha2 = options.alpha * options.alpha;
        let ga = g * constraint_matrix;
        let augmented = mass_matrix + constraint_matrix.tr_mul(&ga) * alpha2;
        let Some(augmented) = Cholesky::new(augmented, FACTOR_TOLERANCE) else {
            let scaled = LagrangianView {
                mass_matrix,
                generalized_force,
                constraint_matrix,
                constraint_rhs,
                nonideal_force,
            };
            return Ok((unscale(svd_fallback(scaled, options)?)?, None));
        };
        // z = α²b, so that C + Aᵀλ is the constraint force on the actual system (eq 3.37).
        force += ga.tr_mul(constraint_rhs) * alpha2;
        factor = augmented;
    }
    let p = project(
        &factor,
        Unconstrained::Force(force),
        constraint_matrix,
        constraint_rhs,
        options,
    )?;
    let constraint_force = with_force.then(|| {
        let mut qc = p.force(&factor);
        if let Some(c) = nonideal_force {
            qc += c;
        }
        qc
    });
    let solution = unscale((p.acceleration, constraint_force))?;
    if !positive_definite {
        return Ok((solution, None));
    }
    if let Some(s) = scale {
        factor.unscale_pivots(s);
    }
    Ok((solution, Some(keep(factor))))
}

/// (1/Mₖₖ)ₖ when the diagonal of the diagonal matrix M is positive: then the Cholesky
/// factorization of path 1 is M itself and [`project_diagonal`] applies.
fn positive_inverse<N: Dim>(mass_matrix: &OMatrix<f64, N, N>) -> Option<OVector<f64, N>>
where
    DefaultAllocator: nalgebra::allocator::Allocator<N, N> + nalgebra::allocator::Allocator<N>,
{
    let d = mass_matrix.diagonal();
    d.iter().all(|v| *v > 0.0).then(|| d.map(|v| 1.0 / v))
}

/// `Err(NotPositiveSemidefinite)` unless M + δI is positive definite, δ = 1e-8·max|Mᵢⱼ|.
fn semidefinite<N: Dim>(mass_matrix: &OMatrix<f64, N, N>) -> Result<(), Error>
where
    DefaultAllocator: nalgebra::allocator::Allocator<N, N> + nalgebra::allocator::Allocator<N>,
{
    let scale = mass_matrix.amax();
    if scale == 0.0 {
        return Ok(());
    }
    let (n, _) = mass_matrix.shape_generic();
    let shifted = mass_matrix + OMatrix::identity_generic(n, n) * (SEMIDEFINITE_SHIFT * scale);
    if Cholesky::new(shifted, 0.0).is_some() {
        Ok(())
    } else {
        Err(Error::NotPositiveSemidefinite {
            what: "mass matrix M",
        })
    }
}

/// G as an m × m matrix, validated (positive definite, symmetric, finite, right size).
fn weighting_matrix<R: Dim>(weighting: &Weighting, r: R) -> Result<OMatrix<f64, R, R>, Error>
where
    DefaultAllocator: nalgebra::allocator::Allocator<R, R> + nalgebra::allocator::Allocator<R>,
{
    let m = r.value();
    const WHAT: &str = "weighting matrix G";
    match weighting {
        Weighting::Identity => Ok(OMatrix::identity_generic(r, r)),
        Weighting::Diagonal(d) => {
            if d.len() != m {
                return Err(Error::DimensionMismatch {
                    what: WHAT,
                    expected: (m, 1),
                    found: (d.len(), 1),
                });
            }
            if !d.iter().all(|v| v.is_finite() && *v > 0.0) {
                return Err(Error::NotPositiveDefinite { what: WHAT });
            }
            Ok(OMatrix::from_fn_generic(r, r, |i, j| {
                if i == j {
                    d[i]
                } else {
                    0.0
                }
            }))
        }
        Weighting::Matrix(g) => {
            validate::shape(g, (m, m), WHAT)?;
            validate::finite(g, WHAT)?;
            validate::symmetric::<nalgebra::Dyn>(g, WHAT)?;
            let g = OMatrix::from_fn_generic(r, r, |i, j| g[(i, j)]);
            if Cholesky::new(g.clone(), 0.0).is_none() {
                return Err(Error::NotPositiveDefinite { what: WHAT });
            }
            Ok(g)
        }
    }
}

/// Path 3: the SVD form eq 2.15 when even the augmented mass matrix is numerically
/// singular. Allocates (dynamic storage); reached only for ill-posed or badly scaled input.
fn svd_fallback<N: Dim, R: Dim>(
    terms: LagrangianView<'_, N, R>,
    options: &Options,
) -> Result<MaybeForce<N>, Error>
where
    DefaultAllocator: KernelAllocator<N, R>,
{
    // Re-validates the (already valid) copies; this path costs several SVDs anyway.
    let solution = singular::reference_acceleration_copied(terms, options)?;
    if !solution.is_unique() {
        return Err(Error::NonUniqueAcceleration {
            rank: solution.rank,
            n: solution.n,
            free: crate::FreeCoordinates::new(solution.free),
        });
    }
    let (n, _) = terms.mass_matrix.shape_generic();
    let qdd = OVector::from_iterator_generic(n, U1, solution.acceleration.iter().copied());
    let qc = terms.mass_matrix * &qdd - terms.generalized_force;
    Ok((qdd, Some(qc)))
}

/// (q̈, Qᶜ) from [`solve`].
pub(crate) fn with_force<N: Dim, R: Dim>(
    terms: LagrangianView<'_, N, R>,
    options: &Options,
) -> Result<VectorPair<N>, Error>
where
    DefaultAllocator: KernelAllocator<N, R>,
{
    let (qdd, qc) = solve(terms, options, true)?;
    // `solve` returns the force whenever asked; M q̈ − Q is its definition (eq 2.5).
    let qc = qc.unwrap_or_else(|| terms.mass_matrix * &qdd - terms.generalized_force);
    Ok((qdd, qc))
}

/// Constrained acceleration q̈ (n-vector) of M q̈ = Q + Qᶜ, A q̈ = b, for fixed sizes
/// (no heap allocation unless the SVD fallback of path 3 is needed).
///
/// `terms` borrows M (n × n, symmetric positive semidefinite; singular M is legal), Q
/// (n-vector), A (m × n, any rank; m = 0, no constraints, is allowed), b (m-vector) and C
/// (n-vector of the non-ideal constraint work wᵀQᶜ = wᵀC, or `None`); see
/// [`LagrangianView`].
///
/// Sources: Udwadia & Kalaba 1993, eq 17; Udwadia & Phohomsiri 2006, eqs 2.15, 4.24;
/// Udwadia & Wanichanon 2013, eq 3.18. See the [module docs](self) for the paths.
///
/// # Errors
/// `NonFinite` (any NaN/∞ input, or a result beyond the f64 range), `NotSymmetric` (M),
/// `NotPositiveSemidefinite` (M indefinite), `NonUniqueAcceleration` (rank [M; A] < n),
/// `InconsistentConstraints` (A q̈ = b unsolvable), `ResidualTooLarge` (the answer fails the
/// a-posteriori check of A q̈ = b, [`Options::residual_tolerance`]), `InvalidOption` /
/// `NotPositiveDefinite` / `DimensionMismatch` (bad α or G in `options`), `NoConvergence`
/// (SVD fallback).
///
/// # Example
/// The wheel rolling down an incline with the singular mass matrix of Udwadia & Phohomsiri
/// 2006, eqs 5.6–5.11; the result is their eq 5.17.
/// ```
/// use nalgebra::{matrix, vector};
/// use udk_runtime::{acceleration, LagrangianView, Options};
///
/// let (m, r, i_c, alpha, g) = (2.0, 0.3, 0.09, 0.4_f64, 9.81);
/// let mass_matrix = matrix![m * r * r + i_c, 0.0; 0.0, 0.0]; // coordinates (θ, y)
/// let force = vector![0.0, m * g];
/// let a = matrix![-r * alpha.sin(), 1.0]; // y = R θ sin α, differentiated twice
/// let b = vector![0.0];
/// let terms = LagrangianView::new(&mass_matrix, &force, &a, &b);
/// let qdd = acceleration(terms, &Options::default())?;
/// let s = alpha.sin();
/// let expected = vector![m * g * r * s, m * g * r * r * s * s] / (m * r * r + i_c);
/// assert!((qdd - expected).norm() <= 1e-12 * expected.norm());
/// # Ok::<(), udk_runtime::Error>(())
/// ```
pub fn acceleration<const N: usize, const M: usize>(
    terms: LagrangianView<'_, Const<N>, Const<M>>,
    options: &Options,
) -> Result<SVector<f64, N>, Error> {
    solve(terms, options, false).map(|(qdd, _)| qdd)
}

/// Constraint force Qᶜ = M q̈ − Q (n-vector, generalized force units) for fixed sizes.
///
/// Evaluated as C + Aᵀλ: Udwadia & Kalaba 1993, eq 16 for positive definite M, and
/// Udwadia & Wanichanon 2013, eq 3.28 with z = α²b (equal to Qᶜ by eq 3.37) for singular M.
/// Inputs and errors as [`acceleration`].
pub fn constraint_force<const N: usize, const M: usize>(
    terms: LagrangianView<'_, Const<N>, Const<M>>,
    options: &Options,
) -> Result<SVector<f64, N>, Error> {
    acceleration_and_constraint_force(terms, options).map(|(_, qc)| qc)
}

/// Both (q̈, Qᶜ) from one factorization, for fixed sizes. See [`acceleration`] and
/// [`constraint_force`] for shapes, sources and errors.
pub fn acceleration_and_constraint_force<const N: usize, const M: usize>(
    terms: LagrangianView<'_, Const<N>, Const<M>>,
    options: &Options,
) -> Result<(SVector<f64, N>, SVector<f64, N>), Error> {
    with_force(terms, options)
}

/// [`acceleration`] for dynamic sizes: n = `terms.generalized_force.len()`,
/// m = `terms.constraint_rhs.len()`; M must be n × n, A m × n, C of length n.
///
/// # Errors
/// As [`acceleration`], plus `DimensionMismatch` for inconsistent shapes.
pub fn acceleration_dyn(
    terms: LagrangianView<'_, Dyn, Dyn>,
    options: &Options,
) -> Result<DVector<f64>, Error> {
    solve(terms, options, false).map(|(qdd, _)| qdd)
}

/// [`constraint_force`] for dynamic sizes (shapes as [`acceleration_dyn`]).
///
/// # Errors
/// As [`acceleration_dyn`].
pub fn constraint_force_dyn(
    terms: LagrangianView<'_, Dyn, Dyn>,
    options: &Options,
) -> Result<DVector<f64>, Error> {
    acceleration_and_constraint_force_dyn(terms, options).map(|(_, qc)| qc)
}

/// [`acceleration_and_constraint_force`] for dynamic sizes (shapes as [`acceleration_dyn`]).
///
/// # Errors
/// As [`acceleration_dyn`].
pub fn acceleration_and_constraint_force_dyn(
    terms: LagrangianView<'_, Dyn, Dyn>,
    options: &Options,
) -> Result<(DVector<f64>, DVector<f64>), Error> {
    with_force(terms, options)
}
