//! The Lagrange multipliers λ of the ideal constraint force, one per row of A q̈ = b
//! ([`constraint_multipliers`]).
//!
//! With a = M⁻¹(Q + C), the ideal constraint force of Udwadia & Kalaba 1993, eq 16, is
//! Qᶜ − C = Aᵀλ with λ = (A M⁻¹ Aᵀ)⁺ (b − A a). Rows of A that are redundant (A of rank < m)
//! leave λ determined only up to null(Aᵀ); the Moore–Penrose inverse picks the minimum-norm λ,
//! the one in range(A). It is computed as λ = (Aᵀ)⁺ (Qᶜ − C) from the fundamental equation's
//! Qᶜ: (Aᵀ)⁺ gives the minimum-norm solution of Aᵀλ = Qᶜ − C, which lies in range(A) too and
//! so equals (A M⁻¹ Aᵀ)⁺ (b − A a) (the two differ by an element of range(A) ∩ null(Aᵀ) = {0}).
//! This form also holds for a singular M (Udwadia & Wanichanon 2013, eqs 3.28, 3.37), where
//! M⁻¹ does not exist.
//!
//! Units: λᵢ is the generalized force per unit of row i. A holonomic row f(q, t) = 0 has
//! Aᵢ = ∂f/∂q, so λᵢ is in N per unit of f: a force (N) when f is a distance in metres, a
//! torque (N·m) when f is an angle; Aᵢᵀλᵢ is the row's part of Qᶜ. Its sign follows f: for
//! a rod f = |p| − l, λ < 0 pulls the mass inward (tension).

use crate::allocator::KernelAllocator;
use crate::fundamental::with_force;
use crate::{pinv, Error, LagrangianView, Options};
use nalgebra::{Const, DVector, DefaultAllocator, Dim, Dyn, OVector, SVector};

/// The multipliers λ (m entries, one per row of A) of the ideal constraint force
/// Qᶜ − C = Aᵀλ at the terms `terms` (n coordinates, m rows), for fixed sizes: no heap
/// allocation unless the fundamental equation takes its SVD fallback. The minimum-norm λ when
/// rows are redundant. See the [module docs](self) for the formula, units and sources
/// (Udwadia & Kalaba 1993, eqs 16–17; Udwadia & Wanichanon 2013, eq 3.37).
///
/// # Errors
/// As [`crate::acceleration`] (a non-unique acceleration, inconsistent constraints, a
/// non-finite term); `NoConvergence` when the SVD of Aᵀ fails.
///
/// # Example
/// A pendulum of mass m on a rod of length l, in Cartesian coordinates with the constraint
/// f = √(x² + y²) − l: at rest hanging down, λ = −m g (the rod pulls up with m g).
/// ```
/// use nalgebra::{matrix, vector};
/// use udk_runtime::{constraint_multipliers, LagrangianView, Options};
///
/// let (m, g) = (2.0, 9.81);
/// let mass_matrix = matrix![m, 0.0; 0.0, m];
/// let force = vector![0.0, -m * g];
/// let a = matrix![0.0, -1.0]; // ∂f/∂q at (0, −l)
/// let b = vector![0.0]; // −ḟ's drift, zero at rest
/// let lambda = constraint_multipliers(LagrangianView::new(&mass_matrix, &force, &a, &b), &Options::default())?;
/// assert!((lambda[0] + m * g).abs() < 1e-12);
/// # Ok::<(), udk_runtime::Error>(())
/// ```
pub fn constraint_multipliers<const N: usize, const M: usize>(
    terms: LagrangianView<'_, Const<N>, Const<M>>,
    options: &Options,
) -> Result<SVector<f64, M>, Error> {
    with_multipliers(terms, options).map(|(_, lambda)| lambda)
}

/// Both q̈ (n entries) and the multipliers λ (m entries) from one solve of the fundamental
/// equation, for fixed sizes: [`crate::acceleration`]'s q̈ and [`constraint_multipliers`]'s λ.
/// Generated code that holds a floating base's link points (`contact_dynamics`) takes this
/// path wherever its own closed form does not stand.
///
/// # Errors
/// As [`constraint_multipliers`].
pub fn acceleration_and_multipliers<const N: usize, const M: usize>(
    terms: LagrangianView<'_, Const<N>, Const<M>>,
    options: &Options,
) -> Result<(SVector<f64, N>, SVector<f64, M>), Error> {
    with_multipliers(terms, options)
}

/// [`constraint_multipliers`] for dynamic sizes: n = `terms.generalized_force.len()`,
/// m = `terms.constraint_rhs.len()` (this form allocates).
///
/// # Errors
/// As [`constraint_multipliers`], plus `DimensionMismatch` for inconsistent shapes.
pub fn constraint_multipliers_dyn(
    terms: LagrangianView<'_, Dyn, Dyn>,
    options: &Options,
) -> Result<DVector<f64>, Error> {
    with_multipliers(terms, options).map(|(_, lambda)| lambda)
}

/// q̈ (n entries) and λ (m entries).
type AccelerationAndMultipliers<N, R> = (OVector<f64, N>, OVector<f64, R>);

/// (q̈, λ): the fundamental equation's q̈ and Qᶜ, then λ = (Aᵀ)⁺(Qᶜ − C) (module docs).
fn with_multipliers<N: Dim, R: Dim>(
    terms: LagrangianView<'_, N, R>,
    options: &Options,
) -> Result<AccelerationAndMultipliers<N, R>, Error>
where
    DefaultAllocator: KernelAllocator<N, R>,
{
    let (acceleration, force) = with_force(terms, options)?;
    let ideal = match terms.nonideal_force {
        Some(c) => force - c,
        None => force,
    };
    let multipliers = pinv(&terms.constraint_matrix.transpose(), None)? * ideal;
    Ok((acceleration, multipliers))
}
