//! The constraint projection shared by the Lagrangian and Hamiltonian kernels:
//! x = a + K⁻¹Aᵀ(A K⁻¹ Aᵀ)⁺(b − A a), evaluated through a square-root-free Cholesky
//! factorization K = L D Lᵀ.
//!
//! With K = M this is the fundamental equation (Udwadia & Kalaba 1993, eq 17, rewritten by
//! X⁺ = Xᵀ(XXᵀ)⁺ so that no matrix square root appears); with K = H_pp and a = −H_q it is
//! the constrained Hamilton equation (Udwadia 2016, eq 36).
//!
//! With W = L⁻¹Aᵀ (n × m), A K⁻¹ Aᵀ = Wᵀ D⁻¹ W, and with y = Wλ the constraint force is
//! Aᵀλ = L y and the change of acceleration K⁻¹Aᵀλ = L⁻ᵀ D⁻¹ y. Wᵀ = A L⁻ᵀ is solved in the
//! storage of a copy of A (its columns are the rows of W), and for a tree it keeps the zeros
//! of a point's Jacobian, which the accumulation of A K⁻¹ Aᵀ skips (see `gram`).
//! - Fast path (A of full row rank, well separated): λ = (Wᵀ D⁻¹ W)⁻¹ e, e = b − A a, by a
//!   Cholesky factorization of A K⁻¹ Aᵀ (for K = M the Delassus matrix), in place, whose
//!   pivot ratios all exceed [`FAST_PATH_PIVOT`]: this pivot test is the rank test, at no
//!   cost beyond the factorization.
//! - General path (redundant or nearly redundant constraints): with B = D^-½ W (the matrix
//!   (A M^-½)ᵀ of the papers, up to an orthogonal factor), y = D^½ (Bᵀ)⁺ e, the
//!   pseudoinverse by SVD after scaling the rows of Bᵀ to unit norm (which leaves the
//!   solution of a consistent system unchanged and makes the rank test unit-free).
//!
//! Allocation-free for fixed sizes.

use nalgebra::{DefaultAllocator, Dim, OMatrix, OVector, U1};

use crate::allocator::KernelAllocator;
use crate::cholesky::Cholesky;
use crate::pinv::{pinv_and_rank, Tolerance};
use crate::validate::max_magnitude;
use crate::{residual, Error, Options};

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
        k.mul_factor(&self.y)
    }

    /// K⁻¹Aᵀλ = L⁻ᵀ D⁻¹ y, the change of the rate caused by the constraints.
    pub(crate) fn correction(&self, k: &Cholesky<N>) -> OVector<f64, N> {
        let mut correction = self.y.clone();
        k.scale_inverse_pivots_mut(&mut correction);
        k.solve_factor_transpose_vector_mut(&mut correction);
        correction
    }
}

/// Applies the constraints A x = b to the unconstrained motion, with the metric K given by
/// its factorization. Inconsistent constraints are reported, never returned as a
/// least-squares answer (the fast path needs no such test: full row rank is always
/// consistent), and every answer passes the a-posteriori [`residual::check`].
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
    if constraint_rhs.is_empty() {
        // No constraints: x = a, with no product of the empty W.
        let acceleration = match unconstrained {
            Unconstrained::Force(f) => k.solve(&f),
            Unconstrained::Rate(a) => a,
        };
        finite_acceleration(&acceleration)?;
        let y = OVector::zeros_generic(acceleration.shape_generic().0, U1);
        return Ok(Projection { acceleration, y });
    }
    // Wᵀ = A L⁻ᵀ (m × n), solved in A's own layout.
    let mut wt = constraint_matrix.clone();
    k.solve_factor_rows_mut(&mut wt);
    // For a force f, with h = D⁻¹L⁻¹f: A a = A K⁻¹ f = Wᵀh and a + K⁻¹Aᵀλ = L⁻ᵀ(h + D⁻¹y).
    // ‖a‖_∞ (the residual's scale) is known at once for a rate; for a force it needs
    // a = L⁻ᵀh, formed only when the residual test asks for it (below).
    let (h, e, known_norm) = match &unconstrained {
        Unconstrained::Force(f) => {
            let mut h = f.clone();
            k.solve_factor_vector_mut(&mut h);
            k.scale_inverse_pivots_mut(&mut h);
            let e = constraint_rhs - &wt * &h;
            (Some(h), e, None)
        }
        Unconstrained::Rate(a) => (
            None,
            constraint_rhs - constraint_matrix * a,
            Some(max_magnitude(a.as_slice())),
        ),
    };
    // The Delassus matrix A K⁻¹ Aᵀ, factored in place; a pivot ratio at or below the fast-path
    // threshold (redundant or nearly redundant rows) sends the constraints to the SVD.
    let mut delassus = Cholesky::unfactored(gram(&wt, k.inverse_pivots()));
    let fast = delassus.factor(fast_tolerance(options));
    let y = if fast {
        wt.tr_mul(&delassus.solve(&e))
    } else {
        redundant(k, &wt, &e, options)?
    };
    let mut step = y.clone();
    k.scale_inverse_pivots_mut(&mut step);
    let acceleration = match (unconstrained, &h) {
        (Unconstrained::Force(_), Some(h)) => {
            let mut x = h + step;
            k.solve_factor_transpose_vector_mut(&mut x);
            x
        }
        (Unconstrained::Force(f), None) | (Unconstrained::Rate(f), _) => {
            k.solve_factor_transpose_vector_mut(&mut step);
            f + step
        }
    };
    finite_acceleration(&acceleration)?;
    // ‖a‖ only enlarges the scale of ρ, so ρ taken without it is an upper bound: when that
    // bound passes the test on the fast path, ρ passes too and a = L⁻ᵀh is never formed.
    // Otherwise ρ is taken exactly, so every decision and every reported ρ is the exact one.
    let residual_with = |norm: f64| {
        residual::relative_residual(constraint_matrix, constraint_rhs, &acceleration, norm)
    };
    let rho = match known_norm {
        Some(norm) => residual_with(norm),
        None => {
            let bound = residual_with(0.0);
            if fast && bound <= options.residual_tolerance {
                bound
            } else {
                residual_with(h.map_or(0.0, |mut a| {
                    k.solve_factor_transpose_vector_mut(&mut a);
                    max_magnitude(a.as_slice())
                }))
            }
        }
    };
    if !fast && rho > options.consistency_tolerance {
        // The pseudoinverse returned a least-squares answer: b is off the range of A.
        return Err(Error::InconsistentConstraints {
            residual: (constraint_matrix * &acceleration - constraint_rhs).norm(),
        });
    }
    residual::check(rho, options)?;
    Ok(Projection { acceleration, y })
}

/// Smallest pivot ratio of A K⁻¹ Aᵀ accepted on the fast path, given the rank tolerance.
pub(crate) fn fast_tolerance(options: &Options) -> f64 {
    FAST_PATH_PIVOT.max(options.rank_tolerance().powi(2))
}

/// `Err(NonFinite)` if the projected acceleration overflowed.
pub(crate) fn finite_acceleration<N: Dim>(acceleration: &OVector<f64, N>) -> Result<(), Error>
where
    DefaultAllocator: nalgebra::allocator::Allocator<N>,
{
    if acceleration.iter().all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(Error::NonFinite {
            what: "constrained acceleration (overflow)",
        })
    }
}

/// The fast path of [`project`] for a diagonal K = diag(d), dₖ > 0, and a force f:
/// a = D⁻¹f, G = A D⁻¹ Aᵀ accumulated column by column of A over its nonzero entries only
/// (the constraint matrices of Cartesian and multibody models are sparse), e = b − A a,
/// λ = G⁻¹e by the Cholesky factorization of G, x = a + D⁻¹Aᵀλ. Returns (x, Aᵀλ).
///
/// This is [`project`] with L = I, so it gives the same result up to the order of the
/// roundings, and the same decision: `None` when G fails the fast-path pivot test
/// (redundant or nearly redundant constraints), for the caller to take the general path.
#[inline]
pub(crate) fn project_diagonal<N: Dim, R: Dim>(
    inverse_diagonal: &OVector<f64, N>,
    force: &OVector<f64, N>,
    constraint_matrix: &OMatrix<f64, R, N>,
    constraint_rhs: &OVector<f64, R>,
    options: &Options,
) -> Option<Result<VectorPair<N>, Error>>
where
    DefaultAllocator: KernelAllocator<N, R>,
{
    let a = force.component_mul(inverse_diagonal);
    let m = constraint_rhs.len();
    if m == 0 {
        let (n, _) = force.shape_generic();
        return Some(finite_acceleration(&a).map(|()| (a, OVector::zeros_generic(n, U1))));
    }
    let (r, _) = constraint_matrix.shape_generic();
    let mut gram = OMatrix::<f64, R, R>::zeros_generic(r, r);
    let mut e = constraint_rhs.clone();
    {
        let g = gram.as_mut_slice();
        let e = e.as_mut_slice();
        let columns = constraint_matrix.as_slice().chunks_exact(m);
        for ((column, ak), dk) in columns.zip(a.iter()).zip(inverse_diagonal.iter()) {
            for (j, &ajk) in column.iter().enumerate() {
                if ajk == 0.0 {
                    continue;
                }
                e[j] -= ajk * ak;
                // The upper triangle, which the factorization reads, rounded as `gram` rounds
                // it (Aⱼₖ (Aᵢₖ / dₖ) for row j, column i): with L = I the same matrix.
                for (i, &aik) in column.iter().enumerate().skip(j) {
                    if aik != 0.0 {
                        g[j + i * m] += ajk * (aik * dk);
                    }
                }
            }
        }
    }
    let s = Cholesky::new(gram, fast_tolerance(options))?;
    let y = constraint_matrix.tr_mul(&s.solve(&e));
    let x = &a + y.component_mul(inverse_diagonal);
    let checked = finite_acceleration(&x).and_then(|()| {
        let a_norm = max_magnitude(a.as_slice());
        let rho = residual::relative_residual(constraint_matrix, constraint_rhs, &x, a_norm);
        residual::check(rho, options)
    });
    Some(checked.map(|()| (x, y)))
}

/// Wᵀ D⁻¹ W = A K⁻¹ Aᵀ (m × m, both triangles; the Delassus matrix for K = M) from Wᵀ
/// (m × n): the rank-one updates G += wₖ wₖᵀ / dₖ, wₖ being column k of Wᵀ (coordinate k),
/// where column j of G takes wₖ Wₖⱼ / dₖ only for Wₖⱼ ≠ 0 (a whole column: its fixed length
/// vectorizes). For a tree numbered parents first, L⁻¹ only mixes a joint into its
/// ancestors, so a row of A whose nonzeros lie on the joints from the root to one link (a
/// point's Jacobian) keeps its zeros in Wᵀ = A L⁻ᵀ: a held foot's rows stay zero off the
/// base and that foot's leg.
#[inline]
fn gram<N: Dim, R: Dim>(
    wt: &OMatrix<f64, R, N>,
    inverse_pivots: &OVector<f64, N>,
) -> OMatrix<f64, R, R>
where
    DefaultAllocator: KernelAllocator<N, R>,
{
    let (m, _) = wt.shape();
    let (r, _) = wt.shape_generic();
    let mut s = OMatrix::zeros_generic(r, r);
    if m == 0 {
        return s;
    }
    let out = s.as_mut_slice();
    for (column, dk) in wt.as_slice().chunks_exact(m).zip(inverse_pivots.iter()) {
        for (j, &wkj) in column.iter().enumerate() {
            if wkj != 0.0 {
                let scaled = wkj * dk;
                for (target, wki) in out[j * m..(j + 1) * m].iter_mut().zip(column) {
                    *target += wki * scaled;
                }
            }
        }
    }
    s
}

/// y = D^½ (Bᵀ)⁺ e with Bᵀ = Wᵀ D^-½ and the rows of Bᵀ (one per constraint) scaled to unit
/// norm.
fn redundant<N: Dim, R: Dim>(
    k: &Cholesky<N>,
    wt: &OMatrix<f64, R, N>,
    e: &OVector<f64, R>,
    options: &Options,
) -> Result<OVector<f64, N>, Error>
where
    DefaultAllocator: KernelAllocator<N, R>,
{
    let root_pivots = k.pivots().map(f64::sqrt);
    let mut bt = wt.clone();
    for (mut column, root) in bt.column_iter_mut().zip(root_pivots.iter()) {
        column /= *root;
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{acceleration_and_constraint_force_dyn, LagrangianView};
    use nalgebra::{DMatrix, DVector};
    use proptest::prelude::*;

    /// A diagonal mass matrix with entries in [0.1, 10], Q, and an m × n constraint matrix
    /// with about `density` of its entries nonzero; `redundant` replaces the last row by
    /// the sum of the first two (rank-deficient A) when m ≥ 3. b = A x₀ + `inconsistency`
    /// in its last entry.
    fn system(
        density: f64,
        redundant: bool,
        inconsistency: f64,
    ) -> impl Strategy<Value = (DVector<f64>, DVector<f64>, DMatrix<f64>, DVector<f64>)> {
        (1..=12usize)
            .prop_flat_map(|n| (Just(n), 0..=n))
            .prop_flat_map(move |(n, m)| {
                let entry =
                    (-1.0..1.0_f64, 0.0..1.0_f64).prop_map(
                        move |(v, keep)| {
                            if keep < density {
                                v
                            } else {
                                0.0
                            }
                        },
                    );
                (
                    proptest::collection::vec(0.1..10.0_f64, n),
                    proptest::collection::vec(-1.0..1.0_f64, n),
                    proptest::collection::vec(entry, m * n),
                    proptest::collection::vec(-1.0..1.0_f64, n),
                )
                    .prop_map(move |(d, q, a, x0)| {
                        let mut a = DMatrix::from_vec(m, n, a);
                        if redundant && m >= 3 {
                            let sum = a.row(0) + a.row(1);
                            a.row_mut(m - 1).copy_from(&sum);
                        }
                        let mut b = &a * DVector::from_vec(x0);
                        if m > 0 {
                            b[m - 1] += inconsistency;
                        }
                        (DVector::from_vec(d), DVector::from_vec(q), a, b)
                    })
            })
    }

    /// [`project`] through the Cholesky factorization of diag(d): the general path, on the
    /// row-equilibrated constraints as the kernel sees them.
    fn general(
        d: &DVector<f64>,
        q: &DVector<f64>,
        a: &DMatrix<f64>,
        b: &DVector<f64>,
    ) -> Result<(DVector<f64>, DVector<f64>), Error> {
        let factor = Cholesky::new(DMatrix::from_diagonal(d), FACTOR_TOLERANCE).unwrap();
        let (a, b) = crate::scaling::equilibrate_rows(a, b)?;
        let p = project(
            &factor,
            Unconstrained::Force(q.clone()),
            &a,
            &b,
            &Options::default(),
        )?;
        let force = p.force(&factor);
        Ok((p.acceleration, force))
    }

    fn close(x: &DVector<f64>, y: &DVector<f64>) -> bool {
        (x - y).norm() <= 1e-11 * (1.0 + y.norm())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 128, failure_persistence: None, ..ProptestConfig::default() })]

        /// The diagonal fast path (taken by the public kernel for diagonal M) agrees with the
        /// general path, for sparse and dense A, and A q̈ = b holds.
        #[test]
        fn diagonal_path_matches_general_path(
            (d, q, a, b) in prop_oneof![system(0.3, false, 0.0), system(1.0, false, 0.0)]
        ) {
            let options = Options::default();
            let inverse = d.map(|v| 1.0 / v);
            let expected = general(&d, &q, &a, &b);
            let mass = DMatrix::from_diagonal(&d);
            let got = acceleration_and_constraint_force_dyn(LagrangianView::new(&mass, &q, &a, &b), &options);
            match (project_diagonal(&inverse, &q, &a, &b, &options), expected) {
                (Some(diagonal), Ok((x, force))) => {
                    let (dx, dforce) = diagonal.unwrap();
                    prop_assert!(close(&dx, &x) && close(&dforce, &force));
                    let (gx, gforce) = got.unwrap();
                    prop_assert_eq!((&gx, &gforce), (&dx, &dforce));
                    prop_assert!((&a * &gx - &b).norm() <= 1e-9 * (1.0 + b.norm()));
                }
                // Random sparse A may have dependent rows: the general path takes over.
                (None, expected) => prop_assert_eq!(got, expected),
                (Some(_), Err(e)) => prop_assert!(false, "general path failed: {e:?}"),
            }
        }

        /// Redundant constraints (last row = sum of the first two): the diagonal path
        /// declines, and the kernel returns the general path's answer, or its
        /// `InconsistentConstraints` error when b is off the range of A.
        #[test]
        fn redundant_constraints_take_the_general_path(
            (d, q, a, b) in prop_oneof![
                system(0.4, true, 0.0),
                system(1.0, true, 0.0),
                system(1.0, true, 0.5),
            ]
        ) {
            prop_assume!(a.nrows() >= 3);
            let options = Options::default();
            let inverse = d.map(|v| 1.0 / v);
            prop_assert!(project_diagonal(&inverse, &q, &a, &b, &options).is_none());
            let mass = DMatrix::from_diagonal(&d);
            let got = acceleration_and_constraint_force_dyn(LagrangianView::new(&mass, &q, &a, &b), &options);
            prop_assert_eq!(got, general(&d, &q, &a, &b));
        }
    }

    /// A positive definite M = BᵀB + I (n ≤ 12, B with entries in [−1, 1]), Q, and an m × n
    /// A (m ≤ n) = R + 3 [I 0], R with entries in [−1, 1], whose rows are independent and
    /// well separated; with `redundant`, m ≥ 3 and the last row is the sum of the first two
    /// (rank m − 1). b = A x₀.
    #[allow(clippy::type_complexity)]
    fn dense_system(
        redundant: bool,
    ) -> impl Strategy<Value = (DMatrix<f64>, DVector<f64>, DMatrix<f64>, DVector<f64>)> {
        (if redundant { 3..=12usize } else { 1..=12 })
            .prop_flat_map(move |n| (Just(n), if redundant { 3..=n } else { 0..=n }))
            .prop_flat_map(move |(n, m)| {
                (
                    proptest::collection::vec(-1.0..1.0_f64, n * n),
                    proptest::collection::vec(-1.0..1.0_f64, n),
                    proptest::collection::vec(-1.0..1.0_f64, m * n),
                    proptest::collection::vec(-1.0..1.0_f64, n),
                )
                    .prop_map(move |(b, q, r, x0)| {
                        let b = DMatrix::from_vec(n, n, b);
                        let mass = b.tr_mul(&b) + DMatrix::identity(n, n);
                        let mut a = DMatrix::from_vec(m, n, r) + DMatrix::identity(m, n) * 3.0;
                        if redundant {
                            let sum = a.row(0) + a.row(1);
                            a.row_mut(m - 1).copy_from(&sum);
                        }
                        let rhs = &a * DVector::from_vec(x0);
                        (mass, DVector::from_vec(q), a, rhs)
                    })
            })
    }

    /// M^-½ of a symmetric positive definite M, by its eigendecomposition.
    fn inverse_root(mass: &DMatrix<f64>) -> DMatrix<f64> {
        let eigen = mass.clone().symmetric_eigen();
        let scale = eigen.eigenvalues.map(|v| 1.0 / v.sqrt());
        &eigen.eigenvectors * DMatrix::from_diagonal(&scale) * eigen.eigenvectors.transpose()
    }

    /// X⁺ by nalgebra's SVD, refined by one Newton–Schulz step P ← 2P − P X P (Ben-Israel and
    /// Cohen 1966). The SVD alone can leave X X⁺ − I at 1e-11 for a well-conditioned 3 × 6 X
    /// (CI met one), which is looser than the kernel under test; the step brings the Penrose
    /// residual to round-off.
    fn svd_pseudo_inverse(x: &DMatrix<f64>) -> DMatrix<f64> {
        let p = x.clone().pseudo_inverse(1e-14).unwrap();
        &p * 2.0 - &p * x * &p
    }

    fn relative(x: &DVector<f64>, y: &DVector<f64>) -> f64 {
        (x - y).norm() / (1.0 + y.norm())
    }

    /// A constraint that cancels almost all of a large unconstrained acceleration
    /// (a = 1e6 M⁻¹Aᵀ plus a small part): ‖a‖ ≈ 1e6 against ‖q̈‖ ≈ 1, so ρ taken without ‖a‖
    /// (the bound the projection tries first) is about 1e6 times ρ. With a tolerance between
    /// the two, the bound fails and the exact ρ passes; below ρ, the error reports the exact ρ,
    /// not the bound.
    #[test]
    fn the_residual_test_takes_the_unconstrained_norm_when_the_bound_fails() {
        let mass = DMatrix::from_row_slice(3, 3, &[2.0, 0.5, 0.0, 0.5, 1.0, 0.0, 0.0, 0.0, 1.0]);
        let a = DMatrix::from_row_slice(1, 3, &[1.0, 1.7320508075688772, 0.25]);
        let small = DVector::from_vec(vec![0.37, -0.21, 0.5]);
        let force = a.transpose() * 1e6 + &mass * &small;
        let b = DVector::from_vec(vec![0.3]);
        let terms = LagrangianView::new(&mass, &force, &a, &b);
        let (qdd, _) = acceleration_and_constraint_force_dyn(terms, &Options::default())
            .expect("the default tolerance passes");
        let free = mass.clone().lu().solve(&force).expect("M is regular");
        let (exact, bound) = (
            residual::relative_residual(&a, &b, &qdd, free.amax()),
            residual::relative_residual(&a, &b, &qdd, 0.0),
        );
        assert!(
            exact > 0.0 && bound > 1e5 * exact,
            "ρ = {exact:e}, bound {bound:e}"
        );
        let between = Options {
            residual_tolerance: (exact * bound).sqrt(),
            ..Options::default()
        };
        let (again, _) =
            acceleration_and_constraint_force_dyn(terms, &between).expect("the exact ρ passes");
        assert_eq!(again, qdd);
        let below = Options {
            residual_tolerance: exact / 10.0,
            ..Options::default()
        };
        match acceleration_and_constraint_force_dyn(terms, &below) {
            Err(Error::ResidualTooLarge { residual, .. }) => {
                assert!(
                    (residual - exact).abs() <= 1e-6 * exact,
                    "{residual:e} against {exact:e}"
                );
            }
            other => panic!("expected ResidualTooLarge, got {other:?}"),
        }
    }

    /// The case CI met (proptest, 2026-12): the kernel's q̈ against the exact q̈ = M⁻¹Aᵀ(AM⁻¹Aᵀ)⁻¹b
    /// of this data (Q = 0), computed by mpmath at 40 digits, to 1e-15; and the refined SVD
    /// pseudoinverse's reference to 1e-14, where nalgebra's SVD alone was 1.2e-12 off.
    #[test]
    fn the_kernel_and_the_refined_reference_meet_the_exact_answer() {
        let mass = DMatrix::from_vec(
            6,
            6,
            vec![
                1.9119049149723981,
                -0.515474902041009,
                -0.7574151463173975,
                0.10829157616240923,
                -0.261714946166557,
                0.20132323083335316,
                -0.515474902041009,
                2.4245821661679616,
                0.8337812137228624,
                -1.0456662837489024,
                0.4810806248860813,
                0.6505665103848792,
                -0.7574151463173975,
                0.8337812137228624,
                3.563697562567545,
                0.0006812375266932458,
                0.19131447085881492,
                1.65014270980953,
                0.10829157616240923,
                -1.0456662837489024,
                0.0006812375266932458,
                3.2697574443520967,
                0.9958153308176734,
                0.44057826676517164,
                -0.261714946166557,
                0.4810806248860813,
                0.19131447085881492,
                0.9958153308176734,
                4.319159769558835,
                0.706004686343664,
                0.20132323083335316,
                0.6505665103848792,
                1.65014270980953,
                0.44057826676517164,
                0.706004686343664,
                3.2740729917782336,
            ],
        );
        let a = DMatrix::from_vec(
            3,
            6,
            vec![
                2.439160751530009,
                -0.4758423737815309,
                -0.4041313562527255,
                -0.4493782235844664,
                2.3067412741000313,
                0.7852155176502836,
                0.2088685168752308,
                0.0,
                2.8588186516868963,
                -0.5627019398317695,
                -0.7267304211996997,
                0.0,
                0.9837896836235074,
                -0.5689630614036653,
                0.4303644478263778,
                0.9597606486521408,
                -0.5161063918143887,
                -0.8666820029588084,
            ],
        );
        let b = DVector::from_vec(vec![-0.4133982531170547, -0.5339044800535008, 0.0]);
        let q = DVector::zeros(6);
        let exact = DVector::from_vec(vec![
            -0.23219671719196402,
            -0.2711719139659711,
            0.04483642872497447,
            0.006564920813880544,
            0.010526335789596,
            0.01571390521140161,
        ]);
        let (qdd, _) = acceleration_and_constraint_force_dyn(
            LagrangianView::new(&mass, &q, &a, &b),
            &Options::default(),
        )
        .unwrap();
        assert!((&qdd - &exact).norm() <= 1e-15, "{qdd}");
        let root = inverse_root(&mass);
        let reference = &root * svd_pseudo_inverse(&(&a * &root)) * &b;
        assert!((&reference - &exact).norm() <= 1e-14, "{reference}");
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 128, failure_persistence: None, ..ProptestConfig::default() })]

        /// A of full row rank: the Delassus matrix A M⁻¹ Aᵀ passes the pivot test (the fast
        /// path is taken); its λ gives the same Aᵀλ as the SVD path (`redundant`) to 1e-12;
        /// X⁺ = Xᵀ(A M⁻¹ Aᵀ)⁻¹ built from `gram` satisfies the four Penrose conditions for
        /// X = A M^-½; and the kernel's q̈ is the fundamental equation as Udwadia and Kalaba
        /// wrote it, q̈ = a + M^-½ (A M^-½)⁺ (b − A a) (1993, eq 17, with the refined SVD
        /// pseudoinverse of `svd_pseudo_inverse`), to 1e-12, with M q̈ = Q + Qᶜ and A q̈ = b.
        #[test]
        fn delassus_path_is_the_fundamental_equation((mass, q, a, b) in dense_system(false)) {
            let options = Options::default();
            let (n, m) = (q.len(), b.len());
            let k = Cholesky::new(mass.clone(), FACTOR_TOLERANCE).unwrap();
            let mut wt = a.clone();
            k.solve_factor_rows_mut(&mut wt);
            let gram_matrix = gram(&wt, k.inverse_pivots());
            let delassus = Cholesky::new(gram_matrix.clone(), fast_tolerance(&options));
            prop_assert!(delassus.is_some());
            let mut h = q.clone();
            k.solve_factor_vector_mut(&mut h);
            k.scale_inverse_pivots_mut(&mut h);
            let e = &b - &wt * &h;
            if let (Some(delassus), true) = (&delassus, m > 0) {
                let fast = wt.tr_mul(&delassus.solve(&e));
                let svd = redundant(&k, &wt, &e, &options).unwrap();
                prop_assert!(relative(&fast, &svd) <= 1e-12, "{fast} vs {svd}");
                // X⁺ = Xᵀ G⁻¹, G = X Xᵀ = A M⁻¹ Aᵀ from `gram`.
                let root = inverse_root(&mass);
                let x = &a * &root;
                let mut g_inverse = DMatrix::identity(m, m);
                delassus.solve_scaled_mut(&mut g_inverse, 1.0);
                let pinv = x.transpose() * &g_inverse;
                let tolerance = 1e-12 * (1.0 + x.norm() * pinv.norm()).powi(2);
                prop_assert!((&x * &pinv * &x - &x).norm() <= tolerance * x.norm());
                prop_assert!((&pinv * &x * &pinv - &pinv).norm() <= tolerance * pinv.norm());
                let (xp, px) = (&x * &pinv, &pinv * &x);
                prop_assert!((&xp - xp.transpose()).norm() <= tolerance);
                prop_assert!((&px - px.transpose()).norm() <= tolerance);
                // A M⁻¹ Aᵀ itself, both triangles.
                let expected = &x * x.transpose();
                prop_assert!((&gram_matrix - &expected).norm() <= 1e-12 * expected.norm());
            }
            let (qdd, force) = acceleration_and_constraint_force_dyn(
                LagrangianView::new(&mass, &q, &a, &b),
                &options,
            ).unwrap();
            let root = inverse_root(&mass);
            let unconstrained = mass.clone().cholesky().unwrap().solve(&q);
            let expected = if m == 0 {
                unconstrained
            } else {
                let pinv = svd_pseudo_inverse(&(&a * &root));
                &unconstrained + &root * pinv * (&b - &a * &unconstrained)
            };
            prop_assert!(relative(&qdd, &expected) <= 1e-12, "{qdd} vs {expected}");
            prop_assert!(relative(&(&mass * &qdd), &(&q + &force)) <= 1e-12);
            prop_assert!((&a * &qdd - &b).norm() <= 1e-12 * (1.0 + b.norm() + a.norm() * qdd.norm()));
            prop_assert_eq!(qdd.len(), n);
        }

        /// Redundant rows (the last the sum of the first two): the Delassus matrix fails the
        /// pivot test, the kernel takes the SVD path, and its q̈ satisfies A q̈ = b and equals
        /// the eq 2.15 reference (Udwadia & Phohomsiri 2006) to 1e-10.
        #[test]
        fn redundant_rows_leave_the_delassus_path((mass, q, a, b) in dense_system(true)) {
            let options = Options::default();
            let k = Cholesky::new(mass.clone(), FACTOR_TOLERANCE).unwrap();
            let (a_scaled, _) = crate::scaling::equilibrate_rows(&a, &b).unwrap();
            let mut wt = a_scaled;
            k.solve_factor_rows_mut(&mut wt);
            prop_assert!(Cholesky::new(gram(&wt, k.inverse_pivots()), fast_tolerance(&options)).is_none());
            let terms = LagrangianView::new(&mass, &q, &a, &b);
            let (qdd, force) = acceleration_and_constraint_force_dyn(terms, &options).unwrap();
            prop_assert!((&a * &qdd - &b).norm() <= 1e-10 * (1.0 + b.norm() + a.norm() * qdd.norm()));
            prop_assert!(relative(&(&mass * &qdd), &(&q + &force)) <= 1e-10);
            let reference = crate::singular::reference_acceleration_dyn(terms, &options).unwrap();
            prop_assert!(reference.is_unique());
            prop_assert!(relative(&qdd, &reference.acceleration) <= 1e-10);
        }
    }
}
