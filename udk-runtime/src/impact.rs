//! Impacts by the fundamental equation at velocity level: the jump of the generalized
//! velocities when constraints close with restitution, as Gauss's principle applied to the
//! velocity jump (the acceleration kernels of [`crate::fundamental`] with q̈ replaced by
//! Δq̇ = q̇⁺ − q̇⁻ and no finite force, since finite forces do no impulse).
//!
//! Shapes: n generalized coordinates, m constraint rows Ĵ (m × n) stacking the impacting rows
//! J q̇⁺ = −e J q̇⁻ (e the coefficient of restitution of each row) and the persistent ones
//! A q̇⁺ = 0 (rows with e = 0), so that Ĵ q̇⁺ = b̂ with b̂ = −diag(e) Ĵ q̇⁻. Then
//!
//! q̇⁺ = q̇⁻ + M^-½ (Ĵ M^-½)⁺ (b̂ − Ĵ q̇⁻)
//!
//! (Udwadia & Kalaba 1993, eq 17, with q̈ → Δq̇, Q → 0, A → Ĵ, b → b̂ − Ĵ q̇⁻).
//!
//! Rows of rheonomic constraints φ(q, t) (a moving surface) have a rate r = ∂φ/∂t, so that
//! φ̇ = Ĵ q̇ + r. Newton's law φ̇⁺ = −e φ̇⁻ is then Ĵ q̇⁺ = −e Ĵ q̇⁻ − (1 + e) r, that is
//! b̂ = −diag(e) Ĵ q̇⁻ − diag(1 + e) r and b̂ − Ĵ q̇⁻ = −diag(1 + e)(Ĵ q̇⁻ + r)
//! ([`rheonomic_impact`]; a persistent row, e = 0, ends with φ̇⁺ = 0). The impulse
//! of the constraints is P = M Δq̇ = Ĵᵀλ, and λ (one impulse per row, N·s for a contact in
//! metres) is its Moore–Penrose resolution λ = (Ĵᵀ)⁺ P, unique when Ĵ has full row rank and
//! the smallest one that gives P when rows are redundant.
//!
//! A singular M goes through the augmented mass matrix M + α²ĴᵀGĴ (Udwadia & Wanichanon
//! 2013, eq 3.18), as the acceleration kernels do; Δq̇ is unique iff [M; Ĵ] has full column
//! rank (Udwadia & Phohomsiri 2006).
//!
//! When the rows with Ĵᵢ q̇⁻ ≠ 0 share one restitution e ≤ 1, the kinetic energy ½q̇ᵀMq̇ does
//! not increase: q̇⁺ = w − e u, with u the M-orthogonal projection of q̇⁻ onto the span of
//! M⁻¹Ĵᵀ and w the rest. Different restitutions on coupled rows can add energy (the known
//! inconsistency of Newton's restitution law for simultaneous impacts).
//!
//! [`crate::consistent_state`] is not an impact map: it projects q̇ onto A q̇ = 0 in the
//! Euclidean metric, not the metric of M, so it neither conserves the momenta the impact
//! conserves nor takes restitution.

use nalgebra::allocator::Allocator;
use nalgebra::{DefaultAllocator, Dim, OMatrix, OVector};

use crate::allocator::KernelAllocator;
use crate::fundamental::solve;
use crate::pinv::{pinv_and_rank, Tolerance};
use crate::{validate, Error, LagrangianView, Options};

/// The outcome of an impact, n = `N` coordinates and m = `R` constraint rows.
#[derive(Clone, Debug, PartialEq)]
pub struct Impact<N: Dim, R: Dim>
where
    DefaultAllocator: Allocator<N> + Allocator<R>,
{
    /// The generalized velocities just after the impact, q̇⁺ (n entries).
    pub velocity: OVector<f64, N>,
    /// The impulse λ of each constraint row (m entries; N·s for a row in metres): Ĵᵀλ = P.
    pub impulse: OVector<f64, R>,
    /// The generalized impulse of the constraints P = M(q̇⁺ − q̇⁻) = Ĵᵀλ (n entries).
    pub generalized_impulse: OVector<f64, N>,
}

/// The impact of constraint rows Ĵ (m × n) with restitution e (m entries, ≥ 0; 0 for a
/// persistent or plastic row) on a system with mass matrix M (n × n, symmetric positive
/// semidefinite) moving with q̇⁻ (n entries): q̇⁺ with Ĵ q̇⁺ = −diag(e) Ĵ q̇⁻, and the impulses.
/// See the [module docs](self) for the equation and its sources. Works for `SMatrix` and
/// `DMatrix` alike.
///
/// # Example
/// Two equal masses on a line, the first moving at 1 m/s into the second at rest; the contact
/// row is the closing speed q̇₂ − q̇₁. Elastic (e = 1), they exchange velocities.
/// ```
/// use nalgebra::{matrix, vector};
/// use udk_runtime::{impact, Options};
///
/// let mass_matrix = matrix![2.0, 0.0; 0.0, 2.0];
/// let contact = matrix![-1.0, 1.0];
/// let jump = impact(&mass_matrix, &contact, &vector![1.0], &vector![1.0, 0.0], &Options::default())?;
/// assert!((jump.velocity - vector![0.0, 1.0]).norm() < 1e-14);
/// assert!((jump.impulse[0] - 2.0).abs() < 1e-14); // m Δv of the second mass, N·s
/// # Ok::<(), udk_runtime::Error>(())
/// ```
///
/// # Errors
/// `DimensionMismatch` for inconsistent shapes; `NonFinite` for a NaN or ∞ input;
/// `InvalidOption` for a negative restitution; `InconsistentConstraints` when no velocity
/// satisfies Ĵ q̇⁺ = b̂ (an impulse problem with no solution: contacts that contradict each
/// other); `NonUniqueAcceleration` when rank [M; Ĵ] < n; and the other errors of
/// [`crate::acceleration`].
pub fn impact<N: Dim, R: Dim>(
    mass_matrix: &OMatrix<f64, N, N>,
    constraint_matrix: &OMatrix<f64, R, N>,
    restitution: &OVector<f64, R>,
    velocity: &OVector<f64, N>,
    options: &Options,
) -> Result<Impact<N, R>, Error>
where
    // KernelAllocator<N, R>, spelled out because a crate-private trait cannot bound a public
    // function.
    DefaultAllocator: Allocator<N, N>
        + Allocator<R, N>
        + Allocator<N, R>
        + Allocator<R, R>
        + Allocator<N>
        + Allocator<R>,
{
    impact_under(
        mass_matrix,
        constraint_matrix,
        None,
        restitution,
        velocity,
        None,
        options,
    )
}

/// [`impact`] of rows Ĵ (m × n) of rheonomic constraints φ(q, t) with the rates r = ∂φ/∂t
/// (`rates`, m entries; m/s for a gap in metres), as at a moving surface: φ̇ = Ĵ q̇ + r, and
/// q̇⁺ satisfies φ̇⁺ = −diag(e) φ̇⁻, so Ĵ q̇⁺ = −diag(e) Ĵ q̇⁻ − diag(1 + e) r. A persistent
/// row (e = 0) ends moving with its surface, φ̇⁺ = 0. With r = 0 this is [`impact`]. See the
/// [module docs](self).
///
/// # Example
/// A ball of 1 kg falling at 3 m/s onto a platform rising at 1 m/s, φ = y − t, with e = 0.5:
/// it meets the platform at 4 m/s and leaves it at 2 m/s, so ẏ⁺ = 1 + 2 = 3 m/s (the old
/// static law would give 1.5 m/s).
/// ```
/// use nalgebra::{matrix, vector};
/// use udk_runtime::{rheonomic_impact, Options};
///
/// let (mass_matrix, gap) = (matrix![1.0], matrix![1.0]);
/// let rate = vector![-1.0]; // ∂φ/∂t of φ = y − t
/// let jump = rheonomic_impact(&mass_matrix, &gap, &rate, &vector![0.5], &vector![-3.0], &Options::default())?;
/// assert!((jump.velocity[0] - 3.0).abs() < 1e-14);
/// assert!((jump.impulse[0] - 6.0).abs() < 1e-14); // m Δẏ, N·s
/// # Ok::<(), udk_runtime::Error>(())
/// ```
///
/// # Errors
/// As [`impact`]; `DimensionMismatch` for `rates` without m entries, `NonFinite` for a NaN or
/// ∞ rate.
pub fn rheonomic_impact<N: Dim, R: Dim>(
    mass_matrix: &OMatrix<f64, N, N>,
    constraint_matrix: &OMatrix<f64, R, N>,
    rates: &OVector<f64, R>,
    restitution: &OVector<f64, R>,
    velocity: &OVector<f64, N>,
    options: &Options,
) -> Result<Impact<N, R>, Error>
where
    // KernelAllocator<N, R>, spelled out because a crate-private trait cannot bound a public
    // function.
    DefaultAllocator: Allocator<N, N>
        + Allocator<R, N>
        + Allocator<N, R>
        + Allocator<R, R>
        + Allocator<N>
        + Allocator<R>,
{
    impact_under(
        mass_matrix,
        constraint_matrix,
        Some(rates),
        restitution,
        velocity,
        None,
        options,
    )
}

/// Coulomb friction that slides through an impact: the impulse μ λₖ d, with λₖ the impulse of
/// constraint row `normal_row` (the contact's normal row, compressive positive), μ ≥ 0 the
/// friction coefficient and d the generalized direction of the friction impulse (n entries:
/// −(∂s/∂q)ᵀ sgn ṡ for a slip coordinate s, or any unit combination of the tangential rows in
/// space).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlidingFriction<'a, N: Dim>
where
    DefaultAllocator: Allocator<N>,
{
    /// The index of the normal row in the constraint rows Ĵ.
    pub normal_row: usize,
    /// The friction coefficient μ (≥ 0).
    pub coefficient: f64,
    /// The generalized direction d of the friction impulse (n entries).
    pub direction: &'a OVector<f64, N>,
}

/// [`rheonomic_impact`] with Coulomb friction sliding through it (Routh's sliding impact, with
/// Newton's restitution on the normal row): the rows Ĵ with rates r = ∂φ/∂t (`rates`, m
/// entries; zeros for fixed constraints, as [`impact`]) close as in [`rheonomic_impact`], and
/// the generalized impulse is P = Ĵᵀλ + μ λₖ d ([`SlidingFriction`]). [`Impact::impulse`] is λ (Ĵᵀλ the ideal
/// part), [`Impact::generalized_impulse`] the whole P = M(q̇⁺ − q̇⁻).
///
/// The jump is affine in a given impulse, so λₖ(c) = λₖ(0) + κc for a friction impulse c·μd;
/// the consistent c = λₖ solves c = λₖ(0) / (1 − κ). This takes three solves of the kernel of
/// [`impact`] (with no friction, with μd, then with λₖμd), so it holds for a singular M and
/// redundant rows as [`impact`] does. A contact whose sticking impulse lies within the
/// friction cone (|λₜ| ≤ μλₙ) sticks instead: that is [`impact`] with the tangential rows in Ĵ
/// (e = 0), which [`crate::simulate::ContactSet`] tries first.
///
/// # Example
/// A unit point mass in the plane moving at (1, −1) m/s hits the floor y = 0, plastic, with
/// μ = 0.5: the normal impulse 1 N·s stops its fall, and friction takes μ·1 = 0.5 N·s from the
/// slip (less than the 1 N·s that sticking needs).
/// ```
/// use nalgebra::{matrix, vector};
/// use udk_runtime::{sliding_impact, Options, SlidingFriction};
///
/// let mass_matrix = matrix![1.0, 0.0; 0.0, 1.0];
/// let floor = matrix![0.0, 1.0];
/// let against_slip = vector![-1.0, 0.0];
/// let friction = SlidingFriction { normal_row: 0, coefficient: 0.5, direction: &against_slip };
/// let (velocity, fixed) = (vector![1.0, -1.0], vector![0.0]);
/// let jump = sliding_impact(&mass_matrix, &floor, &fixed, &vector![0.0], &velocity, friction, &Options::default())?;
/// assert!((jump.velocity - vector![0.5, 0.0]).norm() < 1e-14);
/// assert!((jump.impulse[0] - 1.0).abs() < 1e-14);
/// # Ok::<(), udk_runtime::Error>(())
/// ```
///
/// # Errors
/// As [`rheonomic_impact`]; `InvalidOption` for a `normal_row` out of range, a negative or non-finite μ
/// or a `direction` of the wrong length; `InconsistentConstraints` when 1 − κ ≤ 0 (the friction
/// would need a tensile or unbounded normal impulse: Painlevé's paradox at the impact).
pub fn sliding_impact<N: Dim, R: Dim>(
    mass_matrix: &OMatrix<f64, N, N>,
    constraint_matrix: &OMatrix<f64, R, N>,
    rates: &OVector<f64, R>,
    restitution: &OVector<f64, R>,
    velocity: &OVector<f64, N>,
    friction: SlidingFriction<'_, N>,
    options: &Options,
) -> Result<Impact<N, R>, Error>
where
    DefaultAllocator: Allocator<N, N>
        + Allocator<R, N>
        + Allocator<N, R>
        + Allocator<R, R>
        + Allocator<N>
        + Allocator<R>,
{
    let SlidingFriction {
        normal_row: k,
        coefficient: mu,
        direction,
    } = friction;
    if k >= constraint_matrix.nrows() || !(mu.is_finite() && mu >= 0.0) {
        return Err(Error::InvalidOption {
            what: "sliding friction needs a normal row among the rows and a finite μ ≥ 0",
        });
    }
    validate::shape(direction, (velocity.len(), 1), "friction direction d")?;
    validate::finite(direction, "friction direction d")?;
    let under = |c: f64| {
        impact_under(
            mass_matrix,
            constraint_matrix,
            Some(rates),
            restitution,
            velocity,
            Some(direction * (mu * c)),
            options,
        )
    };
    let frictionless = under(0.0)?.impulse[k];
    let slope = under(1.0)?.impulse[k] - frictionless;
    if 1.0 - slope <= f64::EPSILON.sqrt() {
        return Err(Error::InconsistentConstraints {
            residual: (1.0 - slope).abs(),
        });
    }
    under(frictionless / (1.0 - slope))
}

/// [`rheonomic_impact`] of the rows Ĵ with their rates r (`None`: fixed rows, r = 0) under a
/// given generalized impulse `impulse` (n entries, acting with the constraints' Ĵᵀλ; `None`:
/// none): the jump of M Δq̇ = Ĵᵀλ + `impulse`, Ĵ q̇⁺ = b̂. The outcome's generalized impulse is
/// the whole M Δq̇.
fn impact_under<N: Dim, R: Dim>(
    mass_matrix: &OMatrix<f64, N, N>,
    constraint_matrix: &OMatrix<f64, R, N>,
    rates: Option<&OVector<f64, R>>,
    restitution: &OVector<f64, R>,
    velocity: &OVector<f64, N>,
    impulse: Option<OVector<f64, N>>,
    options: &Options,
) -> Result<Impact<N, R>, Error>
where
    DefaultAllocator: KernelAllocator<N, R>,
{
    let impulse = &impulse.unwrap_or_else(|| velocity.map(|_| 0.0));
    let (m, n) = constraint_matrix.shape();
    validate::shape(restitution, (m, 1), "restitution e")?;
    validate::shape(velocity, (n, 1), "velocity q̇⁻")?;
    validate::finite(restitution, "restitution e")?;
    validate::finite(velocity, "velocity q̇⁻")?;
    if restitution.iter().any(|e| *e < 0.0) {
        return Err(Error::InvalidOption {
            what: "every restitution e must be non-negative",
        });
    }
    // b̂ − Ĵ q̇⁻ = −(1 + e) ∘ φ̇⁻, φ̇⁻ = Ĵ q̇⁻ + r.
    let mut closing = constraint_matrix * velocity;
    if let Some(rates) = rates {
        validate::shape(rates, (m, 1), "rates ∂φ/∂t")?;
        validate::finite(rates, "rates ∂φ/∂t")?;
        closing += rates;
    }
    let jump_rhs = closing.zip_map(restitution, |v, e| -(1.0 + e) * v);
    let terms = LagrangianView::new(mass_matrix, impulse, constraint_matrix, &jump_rhs);
    let (jump, ideal) = solve(terms, options, true)?;
    // `solve` gives Qᶜ = M Δq̇ − impulse when asked: the constraints' own Ĵᵀλ.
    let ideal = ideal.unwrap_or_else(|| mass_matrix * &jump - impulse);
    // (Ĵᵀ)⁺ = (Ĵ⁺)ᵀ.
    let (pinv, _) = pinv_and_rank(constraint_matrix, Tolerance::Default)?;
    let lambda = pinv.tr_mul(&ideal);
    let generalized_impulse = ideal + impulse;
    let velocity = velocity + jump;
    validate::finite(&velocity, "velocity q̇⁺ (overflow)")?;
    validate::finite(&lambda, "impulse λ (overflow)")?;
    Ok(Impact {
        velocity,
        impulse: lambda,
        generalized_impulse,
    })
}
