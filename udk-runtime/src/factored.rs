//! The fundamental equation in factored form, for systems that supply M⁻¹ through an O(n)
//! algorithm (the articulated-body algorithm of a kinematic tree, Featherstone 2008,
//! Table 7.1) instead of M itself:
//!
//! q̈ = a + W (A W)⁺ (b − A a), a = M⁻¹(Q + C), W = M⁻¹Aᵀ,
//!
//! which is Udwadia & Kalaba 1993, eq 17 rewritten by X⁺ = Xᵀ(XXᵀ)⁺ with X = A M^-½, and
//! Udwadia & Phohomsiri 2006, eq 4.24 for non-ideal constraints (C inside a). The
//! Moore–Penrose inverse is only on the m × m matrix A W = A M⁻¹ Aᵀ. The constraint force
//! is Qᶜ = Aᵀλ + C with λ = (A W)⁺(b − A a) (Udwadia & Kalaba 1993, eq 16).
//!
//! Shapes: n coordinates, m constraints; a and C are n-vectors, W is n × m, A is m × n, b an
//! m-vector. As in [`crate::fundamental`], the rows of A q̈ = b are first equilibrated by
//! powers of two (the columns of W with them), redundant constraints take an SVD path whose
//! rank test is unit-free, inconsistent constraints are reported, and every answer passes
//! the a-posteriori residual check ([`Options::residual_tolerance`]). Allocation-free for
//! fixed sizes.

use nalgebra::allocator::Allocator;
use nalgebra::{DefaultAllocator, Dim, OMatrix, OVector, U1};

use crate::allocator::KernelAllocator;
use crate::cholesky::Cholesky;
use crate::pinv::{pinv_and_rank, Tolerance};
use crate::projection::{fast_tolerance, finite_acceleration, FACTOR_TOLERANCE};
use crate::validate::{finite, max_magnitude};
use crate::{residual, scaling, Error, Options};

/// The terms of the factored fundamental equation at one state, borrowed. `N` is n and `R`
/// is m, as nalgebra dimensions (`Const` for generated systems, `Dyn` for tests).
#[derive(Debug)]
pub struct FactoredView<'a, N: Dim, R: Dim>
where
    DefaultAllocator: Allocator<N, R> + Allocator<R, N> + Allocator<N> + Allocator<R>,
{
    /// a = M⁻¹(Q + C), the acceleration without the ideal constraint forces, n entries
    /// (units of q̈).
    pub unconstrained_acceleration: &'a OVector<f64, N>,
    /// W = M⁻¹Aᵀ, n × m.
    pub inverse_mass_constraint: &'a OMatrix<f64, N, R>,
    /// A, m × n, any rank.
    pub constraint_matrix: &'a OMatrix<f64, R, N>,
    /// b of A q̈ = b, m entries.
    pub constraint_rhs: &'a OVector<f64, R>,
    /// C, n entries, already inside a; `None` for ideal constraints. Only the constraint
    /// force reads it (Qᶜ = Aᵀλ + C).
    pub nonideal_force: Option<&'a OVector<f64, N>>,
}

/// (q̈, Qᶜ): the constrained acceleration and the constraint force, n entries each.
pub type AccelerationAndForce<N> = (OVector<f64, N>, OVector<f64, N>);

/// Whether the pivots Dᵢ = Sᵢᵀ Iᴬᵢ Sᵢ of an articulated-body algorithm (the joint-space
/// inertias of the articulated bodies, kg or kg·m²) allow its answer: every one finite and
/// above `FACTOR_TOLERANCE` (1e-8) times the largest, the relative threshold the dense
/// kernels' Cholesky factorization applies to M. A model whose pivots fail takes the dense
/// kernel ([`crate::acceleration`]), which handles a singular M.
pub fn pivots_usable(pivots: &[f64]) -> bool {
    // One pass: every pivot finite, and the smallest above the tolerance times the largest
    // (the largest taken as 0 when every pivot is negative). A NaN fails `finite`, so the
    // comparisons need not order it (one `minsd`/`maxsd` each).
    let (mut smallest, mut largest, mut finite) = (f64::INFINITY, 0.0_f64, true);
    for &d in pivots {
        finite &= d.is_finite();
        if d < smallest {
            smallest = d;
        }
        if d > largest {
            largest = d;
        }
    }
    finite && smallest > FACTOR_TOLERANCE * largest
}

/// q̈ (n entries) and the constraint force Qᶜ = Aᵀλ + C (n entries) of the factored form.
/// With m = 0, q̈ = a and Qᶜ = C (or 0).
///
/// # Errors
/// `NonFinite` for a NaN or infinite input, or an overflowing answer;
/// `InconsistentConstraints` when A q̈ = b has no solution; `ResidualTooLarge` when the
/// answer fails the a-posteriori check; `InvalidOption` for a bad rank tolerance;
/// `NoConvergence` if the SVD does not converge.
pub fn factored_acceleration_and_constraint_force<N: Dim, R: Dim>(
    terms: FactoredView<'_, N, R>,
    options: &Options,
) -> Result<AccelerationAndForce<N>, Error>
where
    DefaultAllocator: Allocator<N, N>
        + Allocator<R, N>
        + Allocator<N, R>
        + Allocator<R, R>
        + Allocator<N>
        + Allocator<R>,
{
    options.validate()?;
    let FactoredView {
        unconstrained_acceleration: a,
        inverse_mass_constraint: w,
        constraint_matrix,
        constraint_rhs,
        nonideal_force,
    } = terms;
    finite(a, "unconstrained acceleration M⁻¹(Q + C)")?;
    finite(w, "M⁻¹Aᵀ")?;
    finite(constraint_matrix, "constraint matrix A")?;
    finite(constraint_rhs, "constraint vector b")?;
    if let Some(c) = nonideal_force {
        finite(c, "non-ideal force C")?;
    }
    let (n, _) = a.shape_generic();
    let mut force = match nonideal_force {
        Some(c) => c.clone(),
        None => OVector::zeros_generic(n, U1),
    };
    if constraint_rhs.is_empty() {
        return Ok((a.clone(), force));
    }
    let (scaled_matrix, scaled_rhs) = scaling::equilibrate_rows(constraint_matrix, constraint_rhs)?;
    // S A and S b with S = diag(sᵢ): W S = M⁻¹(S A)ᵀ, recovered from the row ratios.
    let mut w = w.clone();
    for (i, mut column) in w.column_iter_mut().enumerate() {
        let row = constraint_matrix.row(i).amax();
        if row > 0.0 {
            column *= scaled_matrix.row(i).amax() / row;
        }
    }
    let e = &scaled_rhs - &scaled_matrix * a;
    let gram = &scaled_matrix * &w;
    finite(&gram, "A M⁻¹ Aᵀ (overflow)")?;
    let (lambda, fast) = match Cholesky::new(gram.clone(), fast_tolerance(options)) {
        Some(s) => (s.solve(&e), true),
        None => (redundant(gram, &e, options)?, false),
    };
    let x = a + &w * &lambda;
    finite_acceleration(&x)?;
    let rho =
        residual::relative_residual(&scaled_matrix, &scaled_rhs, &x, max_magnitude(a.as_slice()));
    if !fast && rho > options.consistency_tolerance {
        return Err(Error::InconsistentConstraints {
            residual: (&scaled_matrix * &x - &scaled_rhs).norm(),
        });
    }
    residual::check(rho, options)?;
    force += scaled_matrix.tr_mul(&lambda);
    finite(&force, "constraint force Qᶜ (overflow)")?;
    Ok((x, force))
}

/// λ = T (T G T)⁺ T e for the symmetric positive semidefinite G = A M⁻¹ Aᵀ (rows of A
/// redundant or nearly so), with T = diag(Gᵢᵢ^-½) (1 for a zero row), so that the rank test
/// is unit-free as the dense kernels' scaling of the rows of A M^-½ makes it. The eigenvalues
/// of T G T are the squared singular values of that scaled matrix: the cutoff is the square
/// of the rank tolerance, but no lower than the rounding of G (64 (m + 1) ε).
fn redundant<R: Dim>(
    mut gram: OMatrix<f64, R, R>,
    e: &OVector<f64, R>,
    options: &Options,
) -> Result<OVector<f64, R>, Error>
where
    DefaultAllocator: KernelAllocator<R, R>,
{
    let m = e.len();
    let t = gram
        .diagonal()
        .map(|g| if g > 0.0 { 1.0 / g.sqrt() } else { 1.0 });
    for (j, mut column) in gram.column_iter_mut().enumerate() {
        column.component_mul_assign(&t);
        column *= t[j];
    }
    let symmetric = (&gram + gram.transpose()) * 0.5;
    let tolerance = options
        .rank_tolerance()
        .powi(2)
        .max(64.0 * (m as f64 + 1.0) * f64::EPSILON);
    let (inverse, _) = pinv_and_rank(&symmetric, Tolerance::Relative(tolerance))?;
    Ok((inverse * e.component_mul(&t)).component_mul(&t))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{acceleration_and_constraint_force_dyn, LagrangianView};
    use nalgebra::{DMatrix, DVector};
    use proptest::prelude::*;

    /// A positive definite M (n ≤ 10), Q, C (or none), and an m × n A (m ≤ n) whose last row
    /// is the sum of the first two when `redundant` and m ≥ 3; b = A x₀.
    #[allow(clippy::type_complexity)]
    fn system(
        redundant: bool,
    ) -> impl Strategy<
        Value = (
            DMatrix<f64>,
            DVector<f64>,
            Option<DVector<f64>>,
            DMatrix<f64>,
            DVector<f64>,
        ),
    > {
        (1..=10usize)
            .prop_flat_map(|n| (Just(n), 0..=n))
            .prop_flat_map(move |(n, m)| {
                (
                    proptest::collection::vec(-1.0..1.0_f64, n * n),
                    proptest::collection::vec(-1.0..1.0_f64, n),
                    proptest::option::of(proptest::collection::vec(-1.0..1.0_f64, n)),
                    proptest::collection::vec(-1.0..1.0_f64, m * n),
                    proptest::collection::vec(-1.0..1.0_f64, n),
                )
                    .prop_map(move |(l, q, c, a, x0)| {
                        let l = DMatrix::from_vec(n, n, l);
                        let mass = &l * l.transpose() + DMatrix::identity(n, n) * 0.5;
                        let mut a = DMatrix::from_vec(m, n, a);
                        if redundant && m >= 3 {
                            let sum = a.row(0) + a.row(1);
                            a.row_mut(m - 1).copy_from(&sum);
                        }
                        let b = &a * DVector::from_vec(x0);
                        (mass, DVector::from_vec(q), c.map(DVector::from_vec), a, b)
                    })
            })
    }

    /// The factored kernel on (M⁻¹(Q + C), M⁻¹Aᵀ).
    fn factored(
        mass: &DMatrix<f64>,
        q: &DVector<f64>,
        c: Option<&DVector<f64>>,
        a: &DMatrix<f64>,
        b: &DVector<f64>,
    ) -> Result<(DVector<f64>, DVector<f64>), Error> {
        let inverse = mass.clone().cholesky().unwrap();
        let total = c.map_or_else(|| q.clone(), |c| q + c);
        let acceleration = inverse.solve(&total);
        let w = inverse.solve(&a.transpose());
        factored_acceleration_and_constraint_force(
            FactoredView {
                unconstrained_acceleration: &acceleration,
                inverse_mass_constraint: &w,
                constraint_matrix: a,
                constraint_rhs: b,
                nonideal_force: c,
            },
            &Options::default(),
        )
    }

    fn close(x: &DVector<f64>, y: &DVector<f64>) -> bool {
        (x - y).norm() <= 1e-9 * (1.0 + y.norm())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

        /// The factored form gives the dense kernel's q̈ and Qᶜ, with and without C, for
        /// independent and redundant constraints, and M q̈ = Q + Qᶜ, A q̈ = b hold.
        #[test]
        fn factored_form_matches_dense_kernel(
            (mass, q, c, a, b) in prop_oneof![system(false), system(true)]
        ) {
            let dense = LagrangianView::new(&mass, &q, &a, &b);
            let dense = match &c {
                Some(c) => dense.with_nonideal_force(c),
                None => dense,
            };
            let expected = acceleration_and_constraint_force_dyn(dense, &Options::default());
            let got = factored(&mass, &q, c.as_ref(), &a, &b);
            match (got, expected) {
                (Ok((x, force)), Ok((ex, eforce))) => {
                    prop_assert!(close(&x, &ex), "{x} vs {ex}");
                    prop_assert!(close(&force, &eforce), "{force} vs {eforce}");
                    prop_assert!(close(&(&mass * &x), &(&q + &force)));
                    prop_assert!((&a * &x - &b).norm() <= 1e-9 * (1.0 + b.norm()));
                }
                // Random A can be ill-conditioned enough for both kernels to refuse it.
                (Err(_), Err(_)) => {}
                (got, expected) => prop_assert!(false, "{got:?} vs {expected:?}"),
            }
        }
    }

    #[test]
    fn inconsistent_constraints_are_reported() {
        let mass = DMatrix::identity(2, 2);
        let q = DVector::from_vec(vec![0.0, -9.81]);
        let a = DMatrix::from_row_slice(2, 2, &[1.0, 0.0, 2.0, 0.0]);
        let b = DVector::from_vec(vec![1.0, 1.0]);
        assert!(matches!(
            factored(&mass, &q, None, &a, &b),
            Err(Error::InconsistentConstraints { .. })
        ));
    }

    #[test]
    fn unconstrained_is_the_unconstrained_acceleration() {
        let mass = DMatrix::from_row_slice(2, 2, &[2.0, 0.5, 0.5, 1.0]);
        let q = DVector::from_vec(vec![1.0, -9.81]);
        let (a, b) = (DMatrix::zeros(0, 2), DVector::zeros(0));
        let (x, force) = factored(&mass, &q, None, &a, &b).unwrap();
        assert!((&mass * &x - &q).norm() < 1e-14);
        assert_eq!(force, DVector::zeros(2));
    }

    #[test]
    fn non_finite_terms_and_pivots_are_refused() {
        let (x, w) = (DVector::from_vec(vec![f64::NAN]), DMatrix::zeros(1, 0));
        let (a, b) = (DMatrix::zeros(0, 1), DVector::zeros(0));
        let terms = FactoredView {
            unconstrained_acceleration: &x,
            inverse_mass_constraint: &w,
            constraint_matrix: &a,
            constraint_rhs: &b,
            nonideal_force: None,
        };
        assert!(matches!(
            factored_acceleration_and_constraint_force(terms, &Options::default()),
            Err(Error::NonFinite { .. })
        ));
        assert!(pivots_usable(&[1.0, 0.5]));
        assert!(!pivots_usable(&[1.0, 0.0]));
        assert!(!pivots_usable(&[1.0, -1e-3]));
        assert!(!pivots_usable(&[1.0, f64::NAN]));
        assert!(!pivots_usable(&[1.0, 1e-12]));
        assert!(!pivots_usable(&[f64::INFINITY, 1.0]));
        assert!(!pivots_usable(&[-1.0, -2.0]));
        assert!(pivots_usable(&[2e-8, 1.0]));
        assert!(!pivots_usable(&[1e-8, 1.0]));
        assert!(pivots_usable(&[]));
    }
}
