//! Property tests on random systems (n ≤ 12 coordinates, m ≤ n + 2 constraints, including
//! rank-deficient constraint matrices and inconsistent right-hand sides).

use nalgebra::{DMatrix, DVector, SMatrix, SVector, SymmetricEigen};
use proptest::prelude::*;
use udk_runtime::hamiltonian::momentum_rate_and_constraint_force_dyn;
use udk_runtime::{
    acceleration_and_constraint_force, acceleration_and_constraint_force_dyn, pinv, pinv_symmetric,
    rank, reference_acceleration_dyn, Error, LagrangianView, Options, Weighting,
};

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|c| c.parse().ok())
            .unwrap_or(64),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Entries uniform in [−1, 1].
fn entries(len: usize) -> impl Strategy<Value = Vec<f64>> {
    proptest::collection::vec(-1.0..1.0_f64, len)
}

/// An m × n matrix of rank ≤ r (exactly r generically): X (m × r) · Y (r × n).
fn low_rank(m: usize, n: usize, r: usize) -> impl Strategy<Value = DMatrix<f64>> {
    (entries(m * r), entries(r * n))
        .prop_map(move |(x, y)| DMatrix::from_vec(m, r, x) * DMatrix::from_vec(r, n, y))
}

/// A symmetric positive definite n × n matrix BᵀB + ½I.
fn positive_definite(n: usize) -> impl Strategy<Value = DMatrix<f64>> {
    entries(n * n).prop_map(move |v| {
        let b = DMatrix::from_vec(n, n, v);
        b.transpose() * &b + DMatrix::identity(n, n) * 0.5
    })
}

/// (n, m, r) with 1 ≤ n ≤ 12, 0 ≤ m ≤ n + 2, 0 ≤ r ≤ min(m, n).
fn sizes() -> impl Strategy<Value = (usize, usize, usize)> {
    (1..=12usize)
        .prop_flat_map(|n| (Just(n), 0..=n + 2))
        .prop_flat_map(|(n, m)| (Just(n), Just(m), 0..=m.min(n)))
}

/// A system with positive definite M and consistent, possibly redundant constraints.
#[derive(Debug, Clone)]
struct System {
    m: DMatrix<f64>,
    q: DVector<f64>,
    a: DMatrix<f64>,
    b: DVector<f64>,
}

fn consistent_system() -> impl Strategy<Value = System> {
    sizes().prop_flat_map(|(n, m, r)| {
        (
            positive_definite(n),
            entries(n),
            low_rank(m, n, r),
            entries(n),
        )
            .prop_map(move |(mass, q, a, x0)| {
                let x0 = DVector::from_vec(x0);
                let b = &a * x0;
                System {
                    m: mass,
                    q: DVector::from_vec(q),
                    a,
                    b,
                }
            })
    })
}

/// Whether every singular value of `a` is either numerically zero (≤ 1e-13·σ₁) or clearly
/// nonzero (≥ 1e-6·σ₁). In between, whether a constraint is redundant depends on the rank
/// tolerance, and kernels with different (valid) tolerances legitimately disagree; such
/// ill-conditioned constraint sets are left out of the comparisons.
fn well_separated(a: &DMatrix<f64>) -> bool {
    if a.is_empty() {
        return true;
    }
    let sv = a.singular_values();
    let largest = sv.max();
    sv.iter()
        .all(|s| *s <= 1e-13 * largest || *s >= 1e-6 * largest)
}

/// A with each row scaled by the power of two that brings its largest |Aᵢⱼ| into [1, 2): the
/// rows the kernels work with, and that the gauge G weights.
fn equilibrated(a: &DMatrix<f64>) -> DMatrix<f64> {
    let mut a = a.clone();
    for mut row in a.row_iter_mut() {
        let largest = row.amax();
        if largest > 0.0 {
            row *= 2f64.powi(-(largest.log2().floor() as i32));
        }
    }
    a
}

/// 2-norm condition number of a symmetric positive definite matrix.
fn condition(s: &DMatrix<f64>) -> f64 {
    let eig = SymmetricEigen::new(s.clone()).eigenvalues;
    eig.max() / eig.min()
}

fn rel(x: &DVector<f64>, y: &DVector<f64>) -> f64 {
    (x - y).norm() / y.norm().max(1e-300)
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn penrose_conditions((m, n, r) in sizes().prop_map(|(n, m, r)| (m, n, r)), seed in any::<u64>()) {
        let _ = seed;
        let a = low_rank_now(m, n, r, seed);
        let p = pinv(&a, None).unwrap();
        let kappa = 1.0 + a.norm() * p.norm();
        let tol = 1e-11 * kappa;
        prop_assert!((&a * &p * &a - &a).norm() <= tol * a.norm().max(1e-300) + 1e-300);
        prop_assert!((&p * &a * &p - &p).norm() <= tol * p.norm().max(1e-300) + 1e-300);
        let ap = &a * &p;
        let pa = &p * &a;
        prop_assert!((ap.transpose() - &ap).norm() <= tol);
        prop_assert!((pa.transpose() - &pa).norm() <= tol);
        if m > 0 && n > 0 {
            prop_assert_eq!(rank(&a, None).unwrap(), r);
        }
        // The symmetric pseudoinverse of S = A Aᵀ satisfies them too.
        if m > 0 {
            let s = &a * a.transpose();
            let sp = pinv_symmetric(&s, None).unwrap();
            let kappa = 1.0 + s.norm() * sp.norm();
            prop_assert!((&s * &sp * &s - &s).norm() <= 1e-10 * kappa * s.norm().max(1e-300) + 1e-300);
            prop_assert!((&sp * &s * &sp - &sp).norm() <= 1e-10 * kappa * sp.norm().max(1e-300) + 1e-300);
        }
    }

    #[test]
    fn constraints_hold_and_gauss_principle(sys in consistent_system(), w in entries(12)) {
        prop_assume!(well_separated(&sys.a));
        let o = Options::default();
        let n = sys.q.len();
        let (qdd, qc) = acceleration_and_constraint_force_dyn(LagrangianView::new(&sys.m, &sys.q, &sys.a, &sys.b), &o).unwrap();
        // A q̈ = b, relative to the size of the terms whose rounding enters A q̈ − b.
        let a_unc = sys.m.clone().cholesky().unwrap().solve(&sys.q);
        let scale = sys.a.norm() * (qdd.norm() + a_unc.norm()) + sys.b.norm();
        // (The kernel guarantees the documented consistency tolerance, 1e-8.)
        prop_assert!((&sys.a * &qdd - &sys.b).norm() <= 1e-8 * scale.max(1e-300) + 1e-300);
        // Qᶜ = M q̈ − Q.
        let qc_direct = &sys.m * &qdd - &sys.q;
        prop_assert!((&qc - &qc_direct).norm() <= 1e-9 * (sys.m.norm() * qdd.norm() + sys.q.norm()));
        // Gauss: q̈ minimizes (x − a)ᵀM(x − a) on {A x = b}. Along any v in null(A) the
        // gradient vᵀM(q̈ − a) = vᵀQᶜ vanishes, and the function does not decrease.
        let projector = DMatrix::identity(n, n) - pinv(&sys.a, None).unwrap() * &sys.a;
        let w = DVector::from_column_slice(&w[..n]);
        let v = projector * &w;
        let gauss = |x: &DVector<f64>| (x - &a_unc).dot(&(&sys.m * (x - &a_unc)));
        let slope = v.dot(&qc);
        prop_assert!(slope.abs() <= 1e-9 * w.norm() * (qc.norm() + sys.q.norm()) + 1e-300);
        for t in [1e-3, 0.1, 1.0] {
            let rounding = 1e-10 * (gauss(&qdd) + sys.m.norm() * (&qdd - &a_unc).norm_squared());
            prop_assert!(gauss(&(&qdd + &v * t)) >= gauss(&qdd) - rounding);
        }
    }

    #[test]
    fn nonideal_term_matches_eq_4_24(sys in consistent_system(), c in entries(12)) {
        // Eq 4.24 (eq 17 of Udwadia & Kalaba 1993 plus the non-ideal term) with the
        // symmetric square root M^-½, computed independently here.
        let n = sys.q.len();
        let c = DVector::from_column_slice(&c[..n]);
        let eig = SymmetricEigen::new(sys.m.clone());
        let m_inv_half = &eig.eigenvectors
            * DMatrix::from_diagonal(&eig.eigenvalues.map(|l| 1.0 / l.sqrt()))
            * eig.eigenvectors.transpose();
        let a_unc = &m_inv_half * &m_inv_half * &sys.q;
        let bm = &sys.a * &m_inv_half;
        prop_assume!(well_separated(&bm));
        let o = Options::default();
        let qdd = udk_runtime::acceleration_dyn(LagrangianView::new(&sys.m, &sys.q, &sys.a, &sys.b).with_nonideal_force(&c), &o).unwrap();
        let bp = pinv(&bm, Some(1e-10 * bm.norm())).unwrap();
        let expected = &a_unc
            + &m_inv_half * &bp * (&sys.b - &sys.a * &a_unc)
            + &m_inv_half * (DMatrix::identity(n, n) - &bp * &bm) * &m_inv_half * &c;
        prop_assert!(rel(&qdd, &expected) <= 1e-7, "relative {}", rel(&qdd, &expected));
    }

    #[test]
    fn inconsistent_constraints_are_rejected(
        (n, m, r) in sizes().prop_filter("needs r < m", |(_, m, r)| r < m),
        mass_seed in any::<u64>(),
        b in entries(14),
    ) {
        let mass = positive_definite_now(n, mass_seed);
        let a = low_rank_now(m, n, r, mass_seed.wrapping_add(1));
        let b = DVector::from_column_slice(&b[..m]) + DVector::from_element(m, 0.5);
        let q = DVector::from_element(n, 1.0);
        let o = Options::default();
        let result = udk_runtime::acceleration_dyn(LagrangianView::new(&mass, &q, &a, &b), &o);
        prop_assert!(matches!(result, Err(Error::InconsistentConstraints { .. })), "{:?}", result);
        let reference = reference_acceleration_dyn(LagrangianView::new(&mass, &q, &a, &b), &o);
        prop_assert!(matches!(reference, Err(Error::InconsistentConstraints { .. })), "{:?}", reference);
    }

    #[test]
    fn augmented_and_eq_2_15_agree_for_any_gauge(
        (n, k, r, m) in (2..=8usize)
            .prop_flat_map(|n| (Just(n), 1..n))
            .prop_flat_map(|(n, k)| (Just(n), Just(k), (n - k)..=n))
            .prop_flat_map(|(n, k, r)| (Just(n), Just(k), Just(r), r..=n + 2)),
        seed in any::<u64>(),
        gauge in (0.2..5.0_f64, proptest::collection::vec(0.2..3.0_f64, 10), entries(100)),
    ) {
        // Singular M = BᵀB of rank k; A of rank r ≥ n − k, so [M; A] has full column rank.
        let b_factor = DMatrix::from_vec(k, n, pseudo_random(k * n, seed));
        let mass = b_factor.transpose() * &b_factor;
        let a = low_rank_now(m, n, r, seed.wrapping_add(7));
        let x0 = DVector::from_vec(pseudo_random(n, seed.wrapping_add(3)));
        let b = &a * x0;
        let q = DVector::from_vec(pseudo_random(n, seed.wrapping_add(5)));
        let m_hat = DMatrix::from_fn(n + m, n, |i, j| if i < n { mass[(i, j)] } else { a[(i - n, j)] });
        prop_assume!(well_separated(&a) && well_separated(&m_hat));
        let reference = reference_acceleration_dyn(LagrangianView::new(&mass, &q, &a, &b), &Options::default()).unwrap();
        prop_assume!(reference.is_unique());
        // Rounding of both forms grows with κ_A = σ₁/σ_r of A and, for eq 2.15, with the
        // condition number of its stacked matrix 𝓜 = [(I − A⁺A)M; A], whose upper block is
        // rounding noise of size ε·κ_A where A leaves no null space; the kernels' with that of
        // the augmented mass matrix. Observed over 4000 random systems: eq 2.15 within
        // 100·ε·κ_A²·cond 𝓜, gauges within 4·ε·κ_A²·Σcond. (A poor gauge, α²G ≪ M, makes the
        // augmented matrix ill-conditioned; the generated gauges stay at α²G ≥ 0.008.)
        let mut sv: Vec<f64> = a.singular_values().iter().copied().collect();
        sv.sort_by(|x, y| y.total_cmp(x));
        let kappa_a = sv[0] / sv[r - 1];
        let projector = DMatrix::identity(n, n) - pinv(&a, Some(1e-10 * sv[0])).unwrap() * &a;
        let upper = projector * &mass;
        let stacked = DMatrix::from_fn(n + m, n, |i, j| if i < n { upper[(i, j)] } else { a[(i - n, j)] });
        let sv_stacked = stacked.singular_values();
        let cond_stacked = sv_stacked.max() / sv_stacked.min();
        let (alpha, diagonal, full) = gauge;
        let g_full = DMatrix::from_vec(10, 10, full);
        let g_full = g_full.transpose() * &g_full + DMatrix::identity(10, 10) * 0.2;
        let weightings = [
            Weighting::Identity,
            Weighting::Diagonal(diagonal[..m].to_vec()),
            Weighting::Matrix(g_full.view((0, 0), (m, m)).into_owned()),
        ];
        let (qdd_unit, _) = acceleration_and_constraint_force_dyn(LagrangianView::new(&mass, &q, &a, &b), &Options::default()).unwrap();
        let a_eq = equilibrated(&a);
        let cond_unit = condition(&(&mass + a_eq.transpose() * &a_eq));
        prop_assert!(rel(&qdd_unit, &reference.acceleration) <= 1e-13 * kappa_a.powi(2) * (cond_stacked + cond_unit),
            "q̈ vs eq 2.15: {:e}, κ_A {:e}, cond 𝓜 {:e}, cond(M + AᵀA) {:e}", rel(&qdd_unit, &reference.acceleration), kappa_a, cond_stacked, cond_unit);
        for weighting in weightings {
            let g = match &weighting {
                Weighting::Identity => DMatrix::identity(m, m),
                Weighting::Diagonal(d) => DMatrix::from_diagonal(&DVector::from_column_slice(d)),
                Weighting::Matrix(g) => g.clone(),
            };
            // Independence of the gauge (α, G) (Udwadia & Wanichanon 2013, Remark 1).
            let augmented = &mass + a_eq.transpose() * g * &a_eq * (alpha * alpha);
            let cond = cond_unit + condition(&augmented);
            let o = Options { alpha, weighting, ..Options::default() };
            let (qdd, qc) = acceleration_and_constraint_force_dyn(LagrangianView::new(&mass, &q, &a, &b), &o).unwrap();
            prop_assert!(rel(&qdd, &qdd_unit) <= 1e-14 * cond * kappa_a.powi(2),
                "q̈ gauge: {:e}, cond {:e}, κ_A {:e}", rel(&qdd, &qdd_unit), cond, kappa_a);
            // Eq 3.28 with z = α²b equals M q̈ − Q (eq 3.37). It is computed through the
            // augmented matrix M + α²AᵀGA and α²AᵀG b = α²AᵀGA q̈, so its rounding scales with
            // them, not with M alone (with M alone, about 1 system in 12 000 failed at 1.05–1.3
            // times the bound, well conditioned, with α²G ≫ M).
            let qc_scale = 2.0 * augmented.norm() * qdd.norm() + q.norm();
            let qc_error = (&qc - (&mass * &qdd - &q)).norm();
            prop_assert!(qc_error <= 1e-14 * cond * kappa_a.powi(2) * qc_scale,
                "Qᶜ: {:e}, cond {:e}, κ_A {:e}, scale {:e}", qc_error, cond, kappa_a, qc_scale);
        }
    }

    #[test]
    fn hamiltonian_constraint_force_does_no_virtual_work(sys in consistent_system(), w in entries(12)) {
        prop_assume!(well_separated(&sys.a));
        // Udwadia 2016: A_p ṗ = b_p, and wᵀQ^C = 0 for every w with A_p H_pp⁻¹ w = 0 (eqs 21–22).
        let n = sys.q.len();
        let h_pp = &sys.m;
        let (p_dot, qc) = momentum_rate_and_constraint_force_dyn(&sys.q, h_pp, &sys.a, &sys.b, &Options::default()).unwrap();
        let scale = sys.a.norm() * p_dot.norm() + sys.b.norm();
        prop_assert!((&sys.a * &p_dot - &sys.b).norm() <= 1e-10 * scale.max(1e-300) + 1e-300);
        prop_assert!((&p_dot + &sys.q - &qc).norm() <= 1e-12 * (p_dot.norm() + sys.q.norm() + qc.norm()));
        let h_inv = h_pp.clone().try_inverse().unwrap();
        let c = &sys.a * &h_inv;
        let w = DVector::from_column_slice(&w[..n]);
        let v = (DMatrix::identity(n, n) - pinv(&c, None).unwrap() * &c) * &w;
        prop_assert!(v.dot(&qc).abs() <= 1e-9 * w.norm() * (qc.norm() + sys.q.norm()) + 1e-300);
    }

    #[test]
    fn fixed_and_dynamic_kernels_agree(seed in any::<u64>(), rank_deficient in any::<bool>()) {
        check_fixed_dyn::<3, 2>(seed, rank_deficient)?;
        check_fixed_dyn::<6, 3>(seed, rank_deficient)?;
        check_fixed_dyn::<4, 6>(seed, rank_deficient)?;
        check_fixed_dyn::<12, 12>(seed, rank_deficient)?;
    }
}

/// Deterministic pseudo-random entries in [−1, 1] (splitmix64), for sizes fixed inside a test.
fn pseudo_random(len: usize, seed: u64) -> Vec<f64> {
    let mut state = seed;
    (0..len)
        .map(|_| {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            (z >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        })
        .collect()
}

fn low_rank_now(m: usize, n: usize, r: usize, seed: u64) -> DMatrix<f64> {
    DMatrix::from_vec(m, r, pseudo_random(m * r, seed))
        * DMatrix::from_vec(r, n, pseudo_random(r * n, seed.wrapping_add(11)))
}

fn positive_definite_now(n: usize, seed: u64) -> DMatrix<f64> {
    let b = DMatrix::from_vec(n, n, pseudo_random(n * n, seed));
    b.transpose() * &b + DMatrix::identity(n, n) * 0.5
}

/// Fixed and dynamic kernels run the same generic code; they differ only by the rounding of
/// nalgebra's fixed- and dynamic-size products, amplified by the conditioning of A M^-½.
fn check_fixed_dyn<const N: usize, const M: usize>(
    seed: u64,
    rank_deficient: bool,
) -> Result<(), TestCaseError> {
    let mass = positive_definite_now(N, seed);
    let r = if rank_deficient {
        M.min(N) / 2
    } else {
        M.min(N)
    };
    let a = low_rank_now(M, N, r, seed.wrapping_add(1));
    let x0 = DVector::from_vec(pseudo_random(N, seed.wrapping_add(2)));
    let b = &a * x0;
    let q = DVector::from_vec(pseudo_random(N, seed.wrapping_add(3)));
    let c = DVector::from_vec(pseudo_random(N, seed.wrapping_add(4)));
    let o = Options::default();
    let (qdd_dyn, qc_dyn) = acceleration_and_constraint_force_dyn(
        LagrangianView::new(&mass, &q, &a, &b).with_nonideal_force(&c),
        &o,
    )
    .unwrap();
    let (mass, q, a, b, c) = (
        SMatrix::<f64, N, N>::from_column_slice(mass.as_slice()),
        SVector::<f64, N>::from_column_slice(q.as_slice()),
        SMatrix::<f64, M, N>::from_column_slice(a.as_slice()),
        SVector::<f64, M>::from_column_slice(b.as_slice()),
        SVector::<f64, N>::from_column_slice(c.as_slice()),
    );
    let (qdd, qc) = acceleration_and_constraint_force(
        LagrangianView::new(&mass, &q, &a, &b).with_nonideal_force(&c),
        &o,
    )
    .unwrap();
    let qdd = DVector::from_column_slice(qdd.as_slice());
    let qc = DVector::from_column_slice(qc.as_slice());
    prop_assert!(
        rel(&qdd, &qdd_dyn) <= 1e-8,
        "q̈ N={} M={}: {:e}",
        N,
        M,
        rel(&qdd, &qdd_dyn)
    );
    prop_assert!(
        rel(&qc, &qc_dyn) <= 1e-8,
        "Qᶜ N={} M={}: {:e}",
        N,
        M,
        rel(&qc, &qc_dyn)
    );
    Ok(())
}
