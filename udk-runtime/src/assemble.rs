//! Assembly: a rough state (q, q̇) or (q, p) projected onto the constraints by minimum-norm
//! Gauss–Newton steps, so that a mechanism such as a closed loop can start from a guess.
//!
//! Coordinates: q ← q − J⁺ f(q, t), J = ∂f/∂q (the holonomic rows of A, or A_p,f H_pp⁻¹ for a
//! Hamiltonian system, Udwadia 2016 eq 9), repeated while ‖f‖ decreases. Then the second half
//! of the state: v ← v − A⁺ r(q, v, t), r the velocity-level residual (ḟ, φ) or φ(q, p, t) and
//! A = ∂r/∂v (A itself, or A_p). For constraints linear in v one step is the least-squares
//! projection, the smallest correction that satisfies them. ⁺ is the Moore–Penrose inverse
//! ([`crate::pinv`]), so each step is the minimum-norm one (the Gauss–Newton method for
//! underdetermined systems, Nocedal & Wright, "Numerical Optimization", section 10.3).
//!
//! Coordinates held fixed keep their q and v entries: the steps use only the columns of the
//! other coordinates.

use crate::{Error, HamiltonianSystem, LagrangianSystem};
use nalgebra::{DMatrix, DVector, SMatrix, SVector};

/// What [`consistent_state`] and [`consistent_hamiltonian_state`] aim for.
#[derive(Clone, Debug, PartialEq)]
pub struct AssemblyOptions {
    /// Stop when the Euclidean norm of the residual is ≤ this (absolute, in the units of f at
    /// position level and of (ḟ, φ) at velocity level; finite, ≥ 0). Default 1e-12.
    pub tolerance: f64,
    /// At most this many Gauss–Newton steps per level. Default 50.
    pub max_iterations: usize,
    /// Indices (0-based, < n) of the coordinates whose q and q̇ (or p) entries are kept as
    /// given, such as the crank angle that drives a linkage. Default none.
    pub fixed: Vec<usize>,
}

impl Default for AssemblyOptions {
    fn default() -> Self {
        Self {
            tolerance: 1e-12,
            max_iterations: 50,
            fixed: Vec::new(),
        }
    }
}

/// A state projected onto the constraints, with the residuals it reached.
#[derive(Clone, Debug, PartialEq)]
pub struct Assembly<V> {
    /// The coordinates q, n entries.
    pub q: V,
    /// The velocities q̇ or momenta p, n entries.
    pub v: V,
    /// ‖f(q, t)‖, Euclidean norm of the holonomic constraints (units of f).
    pub position_residual: f64,
    /// Euclidean norm of the velocity-level constraints, (ḟ, φ)(q, q̇, t) or φ(q, p, t).
    pub velocity_residual: f64,
    /// Whether both residuals are within [`AssemblyOptions::tolerance`]. When not, q and v are
    /// the best iterates found (the constraints may have no solution with the fixed
    /// coordinates, or Gauss–Newton may have stalled far from the manifold).
    pub converged: bool,
}

/// Most halvings of a Gauss–Newton step that does not reduce ‖r‖ (down to 2⁻²⁹ of it).
const MAX_HALVINGS: i32 = 30;

/// Repeats x ← x − α J(x)⁺ r(x) on the `free` entries of x, α the first of 1, ½, ¼, … that
/// reduces ‖r‖ (backtracking, Nocedal & Wright section 3.1), until ‖r‖ ≤ tolerance, no α
/// reduces it, or `max_iterations` steps; returns the best iterate and its ‖r‖.
fn gauss_newton(
    mut x: DVector<f64>,
    options: &AssemblyOptions,
    free: &[usize],
    residual: impl Fn(&DVector<f64>) -> DVector<f64>,
    jacobian: impl Fn(&DVector<f64>) -> Result<DMatrix<f64>, Error>,
) -> Result<(DVector<f64>, f64), Error> {
    let mut r = residual(&x);
    for _ in 0..options.max_iterations {
        if r.norm() <= options.tolerance || free.is_empty() {
            break;
        }
        let step = crate::pinv(&jacobian(&x)?.select_columns(free), None)? * &r;
        // Backtracking: the full step, else half of it, a quarter, ... while ‖r‖ does not drop.
        let Some((candidate, r_candidate)) = (0..MAX_HALVINGS).find_map(|halvings| {
            let mut candidate = x.clone();
            let scale = 0.5f64.powi(halvings);
            for (k, &i) in free.iter().enumerate() {
                candidate[i] -= scale * step[k];
            }
            let r_candidate = residual(&candidate);
            (r_candidate.norm() < r.norm()).then_some((candidate, r_candidate))
        }) else {
            break;
        };
        (x, r) = (candidate, r_candidate);
    }
    let norm = r.norm();
    if !norm.is_finite() {
        return Err(Error::NonFinite {
            what: "constraint residual",
        });
    }
    Ok((x, norm))
}

/// The holonomic residual f(q) (m entries, aligned with the rows of A) and its Jacobian
/// ∂f/∂q at (q, v); the velocity-level residual r(q, v) and its Jacobian ∂r/∂v.
pub(crate) struct Levels<F, DF, R, DR> {
    pub(crate) f: F,
    pub(crate) df: DF,
    pub(crate) r: R,
    pub(crate) dr: DR,
}

/// (q, v) projected: q by Gauss–Newton steps on f(q) = 0, then v on r(q, v) = 0 at the new q.
///
/// # Errors
/// `DimensionMismatch` when q and v differ in length, `NonFinite` for a non-finite state or
/// residual, `InvalidOption` for bad options, a failed pseudoinverse, or the error of a
/// Jacobian.
pub(crate) fn assemble<F, DF, R, DR>(
    q: &[f64],
    v: &[f64],
    options: &AssemblyOptions,
    levels: Levels<F, DF, R, DR>,
) -> Result<Assembly<DVector<f64>>, Error>
where
    F: Fn(&DVector<f64>) -> DVector<f64>,
    DF: Fn(&DVector<f64>, &DVector<f64>) -> Result<DMatrix<f64>, Error>,
    R: Fn(&DVector<f64>, &DVector<f64>) -> DVector<f64>,
    DR: Fn(&DVector<f64>, &DVector<f64>) -> Result<DMatrix<f64>, Error>,
{
    if q.len() != v.len() {
        return Err(Error::DimensionMismatch {
            what: "velocities or momenta",
            expected: (q.len(), 1),
            found: (v.len(), 1),
        });
    }
    let (q, v) = (DVector::from_column_slice(q), DVector::from_column_slice(v));
    let Levels { f, df, r, dr } = levels;
    let n = q.len();
    if !(options.tolerance.is_finite() && options.tolerance >= 0.0) {
        return Err(Error::InvalidOption {
            what: "the assembly tolerance must be finite and non-negative",
        });
    }
    if options.fixed.iter().any(|&i| i >= n) {
        return Err(Error::InvalidOption {
            what: "a fixed coordinate index is not below n",
        });
    }
    if !(q.iter().chain(v.iter()).all(|x| x.is_finite())) {
        return Err(Error::NonFinite { what: "state" });
    }
    let free: Vec<usize> = (0..n).filter(|i| !options.fixed.contains(i)).collect();
    let (q, position_residual) = gauss_newton(q, options, &free, &f, |q| df(q, &v))?;
    let (v, velocity_residual) = gauss_newton(v, options, &free, |v| r(&q, v), |v| dr(&q, v))?;
    Ok(Assembly {
        q,
        v,
        position_residual,
        velocity_residual,
        converged: position_residual.max(velocity_residual) <= options.tolerance,
    })
}

/// A with its rows from nonholonomic constraints (all but the first `num_holonomic`) zeroed:
/// ∂f/∂q aligned with the m rows.
pub(crate) fn holonomic_rows(mut a: DMatrix<f64>, num_holonomic: usize) -> DMatrix<f64> {
    let m = a.nrows();
    a.rows_mut(num_holonomic.min(m), m - num_holonomic.min(m))
        .fill(0.0);
    a
}

/// ∂f/∂q from the holonomic `rows` of A: the rows themselves, or, for a system with
/// generalized speeds whose rows are (∂f/∂q) N, rows · N⁺ (N⁻¹ where N is invertible).
///
/// # Errors
/// A failed pseudoinverse of N.
pub(crate) fn position_jacobian(
    rows: DMatrix<f64>,
    kinematic_matrix: Option<DMatrix<f64>>,
) -> Result<DMatrix<f64>, Error> {
    match kinematic_matrix {
        Some(n) => Ok(rows * crate::pinv(&n, None)?),
        None => Ok(rows),
    }
}

/// ∂f/∂q = A_p,f H_pp⁻¹ of a Hamiltonian system (Udwadia 2016, eq 9: the row of A_p of a
/// holonomic f is (∂f/∂q) H_pp), other rows zero.
///
/// # Errors
/// `NotPositiveDefinite` when H_pp is not.
pub(crate) fn hamiltonian_position_jacobian(
    a_p: DMatrix<f64>,
    h_pp: DMatrix<f64>,
    num_holonomic: usize,
) -> Result<DMatrix<f64>, Error> {
    let cholesky = h_pp
        .cholesky()
        .ok_or(Error::NotPositiveDefinite { what: "H_pp" })?;
    // (∂f/∂q)ᵀ = H_pp⁻¹ A_pᵀ, H_pp being symmetric.
    Ok(cholesky
        .solve(&holonomic_rows(a_p, num_holonomic).transpose())
        .transpose())
}

/// A fixed-size vector as a dynamic one.
fn dynamic<const N: usize>(x: &SVector<f64, N>) -> DVector<f64> {
    DVector::from_column_slice(x.as_slice())
}

/// A dynamic vector of n = `N` entries as a fixed-size one.
fn fixed<const N: usize>(x: &DVector<f64>) -> SVector<f64, N> {
    SVector::from_column_slice(x.as_slice())
}

/// A fixed-size matrix as a dynamic one.
fn dynamic_matrix<const R: usize, const C: usize>(a: &SMatrix<f64, R, C>) -> DMatrix<f64> {
    DMatrix::from_column_slice(R, C, a.as_slice())
}

impl Assembly<DVector<f64>> {
    /// The same state as fixed-size vectors of n = `N` entries.
    fn into_fixed<const N: usize>(self) -> Assembly<SVector<f64, N>> {
        Assembly {
            q: fixed(&self.q),
            v: fixed(&self.v),
            position_residual: self.position_residual,
            velocity_residual: self.velocity_residual,
            converged: self.converged,
        }
    }
}

/// The state (q, q̇) of a Lagrangian system nearest to a rough (q, q̇) that satisfies its
/// constraints at time t: q by minimum-norm Gauss–Newton steps on the holonomic f(q, t) = 0
/// (Jacobian: the holonomic rows of A), then q̇ by the minimum-norm correction onto the
/// velocity-level constraints (ḟ, φ) = 0 (Jacobian: A). n = `N` coordinates, m = `M` rows.
/// See the module documentation of the method; coordinates in [`AssemblyOptions::fixed`] are
/// left as given.
///
/// # Errors
/// `NonFinite` for a non-finite q, q̇ or residual; `InvalidOption` for a bad tolerance or a
/// fixed index ≥ n; a failed pseudoinverse. A state that does not reach the tolerance is
/// returned with [`Assembly::converged`] false and its residuals.
pub fn consistent_state<S, const N: usize, const M: usize>(
    system: &S,
    q: &SVector<f64, N>,
    qd: &SVector<f64, N>,
    t: f64,
    options: &AssemblyOptions,
) -> Result<Assembly<SVector<f64, N>>, Error>
where
    S: LagrangianSystem<N, M>,
{
    let levels = Levels {
        f: |q: &DVector<f64>| dynamic(&system.holonomic_residual(&fixed(q), t)),
        df: |q: &DVector<f64>, qd: &DVector<f64>| {
            let a = system.terms(&fixed(q), &fixed(qd), t).constraint_matrix;
            let rows = holonomic_rows(dynamic_matrix(&a), S::NUM_HOLONOMIC);
            let n = system.kinematic_matrix(&fixed(q), t);
            position_jacobian(rows, n.as_ref().map(dynamic_matrix))
        },
        r: |q: &DVector<f64>, qd: &DVector<f64>| {
            dynamic(&system.velocity_residual(&fixed(q), &fixed(qd), t))
        },
        dr: |q: &DVector<f64>, qd: &DVector<f64>| {
            let a = system.terms(&fixed(q), &fixed(qd), t).constraint_matrix;
            Ok(dynamic_matrix(&a))
        },
    };
    let assembly = assemble(q.as_slice(), qd.as_slice(), options, levels)?;
    Ok(assembly.into_fixed())
}

/// [`consistent_state`] for a Hamiltonian system: q by minimum-norm Gauss–Newton steps on the
/// holonomic f(q, t) = 0 with ∂f/∂q = A_p,f H_pp⁻¹ (Udwadia 2016, eq 9), then p by the
/// minimum-norm correction onto φ(q, p, t) = 0 with ∂φ/∂p = A_p.
///
/// # Errors
/// As [`consistent_state`]; `NotPositiveDefinite` when H_pp is not.
pub fn consistent_hamiltonian_state<S, const N: usize, const M: usize>(
    system: &S,
    q: &SVector<f64, N>,
    p: &SVector<f64, N>,
    t: f64,
    options: &AssemblyOptions,
) -> Result<Assembly<SVector<f64, N>>, Error>
where
    S: HamiltonianSystem<N, M>,
{
    let levels = Levels {
        f: |q: &DVector<f64>| dynamic(&system.holonomic_residual(&fixed(q), t)),
        df: |q: &DVector<f64>, p: &DVector<f64>| {
            let terms = system.terms(&fixed(q), &fixed(p), t);
            hamiltonian_position_jacobian(
                dynamic_matrix(&terms.a_p),
                dynamic_matrix(&terms.h_pp),
                S::NUM_HOLONOMIC,
            )
        },
        r: |q: &DVector<f64>, p: &DVector<f64>| {
            dynamic(&system.constraint_residual(&fixed(q), &fixed(p), t))
        },
        dr: |q: &DVector<f64>, p: &DVector<f64>| {
            Ok(dynamic_matrix(&system.terms(&fixed(q), &fixed(p), t).a_p))
        },
    };
    let assembly = assemble(q.as_slice(), p.as_slice(), options, levels)?;
    Ok(assembly.into_fixed())
}
