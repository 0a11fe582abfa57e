//! The constraint projection shared by the Lagrangian and Hamiltonian kernels:
//! x = a + K⁻¹Aᵀ(A K⁻¹ Aᵀ)⁺(b − A a), evaluated through a square-root-free Cholesky
//! factorization K = L D Lᵀ.
//!
//! With K = M this is the fundamental equation (Udwadia & Kalaba 1993, eq 17, rewritten by
//! X⁺ = Xᵀ(XXᵀ)⁺ so that no matrix square root appears); with K = H_pp and a = −H_q it is
//! the constrained Hamilton equation (Udwadia 2016, eq 36).
//!
//! With W = L⁻¹Aᵀ (n × m), A K⁻¹ Aᵀ = Wᵀ D⁻¹ W, and with y = Wλ the constraint force is
//! Aᵀλ = L y and the change of acceleration K⁻¹Aᵀλ = L⁻ᵀ D⁻¹ y.
//! - Fast path (A of full row rank, well separated): λ = (Wᵀ D⁻¹ W)⁻¹ e, e = b − A a, by a
//!   Cholesky factorization of A K⁻¹ Aᵀ whose pivot ratios all exceed [`FAST_PATH_PIVOT`].
//! - General path (redundant or nearly redundant constraints): with B = D^-½ W (the matrix
//!   (A M^-½)ᵀ of the papers, up to an orthogonal factor), y = D^½ (Bᵀ)⁺ e, the
//!   pseudoinverse by SVD after scaling the rows of Bᵀ to unit norm (which leaves the
//!   solution of a consistent system unchanged and makes the rank test unit-free).
//!
//! Allocation-free for fixed sizes.

use nalgebra::{DefaultAllocator, Dim, OMatrix, OVector};

use crate::cholesky::Cholesky;
use crate::pinv::{pinv_and_rank, Tolerance};
use crate::{Error, KernelAllocator, Options};

/// Relative pivot threshold below which K (the mass matrix, the augmented mass matrix or
/// H_pp) is treated as singular. Conservative on purpose: a rejected K falls through to the
/// augmented or SVD-based paths, which stay exact.
pub(crate) const FACTOR_TOLERANCE: f64 = 1e-8;

/// Smallest pivot ratio sin²θ of A K⁻¹ Aᵀ accepted on the fast path: rows within
/// θ ≈ 10⁻³ rad of the span of the others take the SVD path, whose rank test is accurate to
/// ε·cond(A M^-½) instead of ε·cond(A M^-½)².
pub(crate) const FAST_PATH_PIVOT: f64 = 1e-6;

/// Two n-vectors: (acceleration or momentum rate, constraint force).
pub(crate) type VectorPair<N> = (OVector<f64, N>, OVector<f64, N>);

/// What the constraints act on.
pub(crate) enum Unconstrained<N: Dim>
where
    DefaultAllocator: nalgebra::allocator::Allocator<N>,
{
    /// A force f whose unconstrained acceleration is a = K⁻¹f (the Lagrangian kernels).
    Force(OVector<f64, N>),
    /// The unconstrained rate a itself (the Hamiltonian kernels: a = −H_q).
    Rate(OVector<f64, N>),
}

/// Result of [`project`].
pub(crate) struct Projection<N: Dim>
where
    DefaultAllocator: nalgebra::allocator::Allocator<N>,
{
    /// x = a + K⁻¹Aᵀλ (n-vector).
    pub(crate) acceleration: OVector<f64, N>,
    /// y = L⁻¹Aᵀλ (n-vector).
    y: OVector<f64, N>,
}

impl<N: Dim> Projection<N>
where
    DefaultAllocator: nalgebra::allocator::Allocator<N, N> + nalgebra::allocator::Allocator<N>,
{
    /// Aᵀλ = L y, the ideal constraint force acting on the system whose "mass" is K.
    pub(crate) fn force(&self, k: &Cholesky<N>) -> OVector<f64, N> {
        k.mul_unit_lower(&self.y)
    }

    /// K⁻¹Aᵀλ = L⁻ᵀ D⁻¹ y, the change of the rate caused by the constraints.
    pub(crate) fn correction(&self, k: &Cholesky<N>) -> OVector<f64, N> {
        let mut correction = self.y.clone();
        k.scale_inverse_pivots_mut(&mut correction);
        k.solve_unit_upper_mut(&mut correction);
        correction
    }
}

/// Applies the constraints A x = b to the unconstrained motion, with the metric K given by
/// its factorization. Inconsistent constraints are reported, never returned as a
/// least-squares answer (the fast path needs no test: full row rank is always consistent).
#[inline]
pub(crate) fn project<N: Dim, R: Dim>(
    k: &Cholesky<N>,
    unconstrained: Unconstrained<N>,
    constraint_matrix: &OMatrix<f64, R, N>,
    constraint_rhs: &OVector<f64, R>,
    options: &Options,
) -> Result<Projection<N>, Error>
where
    DefaultAllocator: KernelAllocator<N, R>,
{
    let mut w = constraint_matrix.transpose();
    k.solve_unit_lower_mut(&mut w);
    // For a force f, with h = D⁻¹L⁻¹f: A a = A K⁻¹ f = Wᵀh and a + K⁻¹Aᵀλ = L⁻ᵀ(h + D⁻¹y).
    let (h, e) = match &unconstrained {
        Unconstrained::Force(f) => {
            let mut h = f.clone();
            k.solve_unit_lower_mut(&mut h);
            k.scale_inverse_pivots_mut(&mut h);
            let e = constraint_rhs - w.tr_mul(&h);
            (Some(h), e)
        }
        Unconstrained::Rate(a) => (None, constraint_rhs - constraint_matrix * a),
    };
    let fast_tolerance = FAST_PATH_PIVOT.max(options.rank_tolerance().powi(2));
    let (y, fast) = match Cholesky::new(gram_lower(&w, k.inverse_pivots()), fast_tolerance) {
        Some(s) => (&w * s.solve(&e), true),
        None => (redundant(k, &w, &e, options)?, false),
    };
    let mut step = y.clone();
    k.scale_inverse_pivots_mut(&mut step);
    let acceleration = match (unconstrained, h) {
        (Unconstrained::Force(_), Some(h)) => {
            let mut x = h + step;
            k.solve_unit_upper_mut(&mut x);
            x
        }
        (Unconstrained::Force(f), None) | (Unconstrained::Rate(f), _) => {
            k.solve_unit_upper_mut(&mut step);
            f + step
        }
    };
    if !acceleration.iter().all(|v| v.is_finite()) {
        return Err(Error::NonFinite {
            what: "constrained acceleration (overflow)",
        });
    }
    let p = Projection { acceleration, y };
    if !fast {
        // Scale of the terms whose rounding enters A x − b: ‖A‖(‖a‖ + ‖x − a‖) + ‖b‖.
        let correction = p.correction(k);
        let a_norm = (&p.acceleration - &correction).norm();
        let scale = constraint_matrix.norm() * (a_norm + correction.norm()) + constraint_rhs.norm();
        let residual = (constraint_matrix * &p.acceleration - constraint_rhs).norm();
        if residual > options.consistency_tolerance * scale {
            return Err(Error::InconsistentConstraints { residual });
        }
    }
    Ok(p)
}

/// The lower triangle of Wᵀ D⁻¹ W = A K⁻¹ Aᵀ (the upper triangle is left zero; only the
/// lower one is read).
#[inline]
fn gram_lower<N: Dim, R: Dim>(
    w: &OMatrix<f64, N, R>,
    inverse_pivots: &OVector<f64, N>,
) -> OMatrix<f64, R, R>
where
    DefaultAllocator: KernelAllocator<N, R>,
{
    let (n, m) = w.shape();
    let (_, r) = w.shape_generic();
    let mut s = OMatrix::zeros_generic(r, r);
    if n == 0 {
        return s;
    }
    let columns = w.as_slice();
    let weights = inverse_pivots.as_slice();
    let out = s.as_mut_slice();
    for j in 0..m {
        let wj = &columns[j * n..(j + 1) * n];
        for i in j..m {
            let wi = &columns[i * n..(i + 1) * n];
            out[i + j * m] = wi
                .iter()
                .zip(wj)
                .zip(weights)
                .map(|((x, y), d)| x * y * d)
                .sum();
        }
    }
    s
}

/// y = D^½ (Bᵀ)⁺ e with B = D^-½ W and the rows of Bᵀ (one per constraint) scaled to unit
/// norm.
fn redundant<N: Dim, R: Dim>(
    k: &Cholesky<N>,
    w: &OMatrix<f64, N, R>,
    e: &OVector<f64, R>,
    options: &Options,
) -> Result<OVector<f64, N>, Error>
where
    DefaultAllocator: KernelAllocator<N, R>,
{
    let root_pivots = k.pivots().map(f64::sqrt);
    let mut b = w.clone();
    for mut column in b.column_iter_mut() {
        column.component_div_assign(&root_pivots);
    }
    let mut bt = b.transpose();
    let mut e = e.clone();
    for i in 0..bt.nrows() {
        let norm = bt.row(i).norm();
        if norm > 0.0 {
            bt.row_mut(i).unscale_mut(norm);
            e[i] /= norm;
        }
    }
    let (bt_pinv, _) = pinv_and_rank(&bt, Tolerance::Relative(options.rank_tolerance()))?;
    Ok((bt_pinv * e).component_mul(&root_pivots))
}
