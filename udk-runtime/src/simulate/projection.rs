//! Projection of a state onto the constraint manifold by minimum-norm Gauss–Newton steps (see
//! [`super::Projection`]).

use super::Projection;
use crate::{Error, HamiltonianSystem, LagrangianSystem};
use nalgebra::{DMatrix, DVector, SMatrix, SVector};

/// The minimum-norm solution δ of J δ = r, J⁺ r, for an m × n Jacobian J.
fn minimum_norm_step<const M: usize, const N: usize>(
    jacobian: &SMatrix<f64, M, N>,
    residual: &SVector<f64, M>,
) -> Result<SVector<f64, N>, Error> {
    let j = DMatrix::from_column_slice(M, N, jacobian.as_slice());
    let step = crate::pinv(&j, None)? * DVector::from_column_slice(residual.as_slice());
    Ok(SVector::from_column_slice(step.as_slice()))
}

/// Repeats x ← x − J(x)⁺ r(x) until ‖r‖ ≤ tolerance, ‖r‖ stops decreasing, or
/// `max_iterations` steps; returns the best iterate.
fn gauss_newton<const M: usize, const N: usize>(
    mut x: SVector<f64, N>,
    projection: &Projection,
    residual: impl Fn(&SVector<f64, N>) -> SVector<f64, M>,
    jacobian: impl Fn(&SVector<f64, N>) -> Result<SMatrix<f64, M, N>, Error>,
) -> Result<SVector<f64, N>, Error> {
    let mut r = residual(&x);
    for _ in 0..projection.max_iterations {
        if r.norm() <= projection.tolerance {
            break;
        }
        let candidate = x - minimum_norm_step(&jacobian(&x)?, &r)?;
        let r_candidate = residual(&candidate);
        let improved = r_candidate.norm() < r.norm();
        if !improved {
            break;
        }
        (x, r) = (candidate, r_candidate);
    }
    Ok(x)
}

/// The rows of `a` from holonomic constraints (the first `num_holonomic`); the others zeroed.
fn holonomic_rows<const M: usize, const N: usize>(
    mut a: SMatrix<f64, M, N>,
    num_holonomic: usize,
) -> SMatrix<f64, M, N> {
    for i in num_holonomic..M {
        a.row_mut(i).fill(0.0);
    }
    a
}

/// (q, v) projected: q by Gauss–Newton steps on f(q) = 0 with the Jacobian `df`, then v on the
/// velocity-level constraints r(q, v) = 0 (linear in v) with the Jacobian `dr` = ∂r/∂v, at the
/// projected q.
fn project_state<const M: usize, const N: usize>(
    (q, v): (SVector<f64, N>, SVector<f64, N>),
    projection: &Projection,
    f: impl Fn(&SVector<f64, N>) -> SVector<f64, M>,
    df: impl Fn(&SVector<f64, N>) -> Result<SMatrix<f64, M, N>, Error>,
    r: impl Fn(&SVector<f64, N>, &SVector<f64, N>) -> SVector<f64, M>,
    dr: impl Fn(&SVector<f64, N>, &SVector<f64, N>) -> SMatrix<f64, M, N>,
) -> Result<(SVector<f64, N>, SVector<f64, N>), Error> {
    let q = gauss_newton(q, projection, f, df)?;
    let v = gauss_newton(v, projection, |v| r(&q, v), |v| Ok(dr(&q, v)))?;
    Ok((q, v))
}

/// (q, q̇) projected: q with the holonomic rows of A (= ∂f/∂q), then q̇ with all of A.
///
/// # Errors
/// A failed pseudoinverse (non-finite A, no SVD convergence).
pub(crate) fn project_lagrangian<S, const N: usize, const M: usize>(
    system: &S,
    t: f64,
    state: (SVector<f64, N>, SVector<f64, N>),
    projection: &Projection,
) -> Result<(SVector<f64, N>, SVector<f64, N>), Error>
where
    S: LagrangianSystem<N, M>,
{
    let qd = state.1;
    project_state(
        state,
        projection,
        |q| system.holonomic_residual(q, t),
        |q| {
            let a = system.terms(q, &qd, t).constraint_matrix;
            Ok(holonomic_rows(a, S::NUM_HOLONOMIC))
        },
        |q, qd| system.velocity_residual(q, qd, t),
        |q, qd| system.terms(q, qd, t).constraint_matrix,
    )
}

/// (q, p) projected: q with ∂f/∂q = A_p,f H_pp⁻¹ (Udwadia 2016, eq 9: the row of A_p of a
/// holonomic f is (∂f/∂q) H_pp), then p with A_p = ∂φ/∂p.
///
/// # Errors
/// `NotPositiveDefinite` when H_pp is not, or a failed pseudoinverse.
pub(crate) fn project_hamiltonian<S, const N: usize, const M: usize>(
    system: &S,
    t: f64,
    state: (SVector<f64, N>, SVector<f64, N>),
    projection: &Projection,
) -> Result<(SVector<f64, N>, SVector<f64, N>), Error>
where
    S: HamiltonianSystem<N, M>,
{
    let p = state.1;
    project_state(
        state,
        projection,
        |q| system.holonomic_residual(q, t),
        |q| {
            let terms = system.terms(q, &p, t);
            let h_pp = DMatrix::from_column_slice(N, N, terms.h_pp.as_slice());
            let cholesky = h_pp
                .cholesky()
                .ok_or(Error::NotPositiveDefinite { what: "H_pp" })?;
            let a_p = holonomic_rows(terms.a_p, S::NUM_HOLONOMIC);
            // (∂f/∂q)ᵀ = H_pp⁻¹ A_pᵀ, H_pp being symmetric.
            let jt = cholesky.solve(&DMatrix::from_column_slice(M, N, a_p.as_slice()).transpose());
            Ok(SMatrix::from_column_slice(jt.transpose().as_slice()))
        },
        |q, p| system.constraint_residual(q, p, t),
        |q, p| system.terms(q, p, t).a_p,
    )
}
