//! The fundamental equation's positive definite path as DAG nodes, for terms M, Q, A and b
//! that are DAG nodes themselves: q̈ = a + M⁻¹Aᵀ(A M⁻¹ Aᵀ)⁻¹(b − A a), a = M⁻¹Q (Udwadia &
//! Kalaba 1993, eq 17, rewritten by X⁺ = Xᵀ(XXᵀ)⁺ with X = A M^-½ for A of full row rank),
//! evaluated as `udk_runtime`'s kernel evaluates its fast path: M = U D Uᵀ (U unit upper
//! triangular) by square-root-free Cholesky elimination from the last index, Wᵀ = A U⁻ᵀ,
//! h = D⁻¹U⁻¹Q, the Delassus matrix G = A M⁻¹ Aᵀ = Wᵀ D⁻¹ W = V E Vᵀ factored the same way,
//! λ = G⁻¹(b − Wᵀh) and q̈ = U⁻ᵀ(h + D⁻¹Wλ).
//!
//! Built in the DAG, every product with an entry that is exactly zero is left out when the
//! code is generated, not tested at run time: a tree numbered parents first keeps the zeros of
//! M in U (the elimination from the leaves makes no fill-in; Featherstone 2008, §6.5), and a
//! point's Jacobian keeps its zeros off the point's branch in Wᵀ. Generated code evaluates
//! the path in straight lines and returns its answer only where the tests of
//! `udk_runtime::fast_path::holds` pass on the pivots and the residual given here; anywhere
//! else it calls the kernel on M, Q, A and b.

use crate::derivation::ExprMatrix;
use crate::expr::{ExprId, Pool};

/// The fast path of the fundamental equation as DAG nodes (see the module docs), for n
/// coordinates and m constraints.
pub(crate) struct FastPath {
    /// q̈, n entries.
    pub(crate) acceleration: Vec<ExprId>,
    /// λ = (A M⁻¹ Aᵀ)⁻¹(b − A M⁻¹Q), m entries: the constraint force is Aᵀλ.
    pub(crate) multipliers: Vec<ExprId>,
    /// A q̈ − b, m entries.
    pub(crate) residual: Vec<ExprId>,
    /// (dₖ, Mₖₖ) for each pivot of M = U D Uᵀ, n pairs.
    pub(crate) mass_pivots: Vec<(ExprId, ExprId)>,
    /// (eₖ, Gₖₖ) for each pivot of G = A M⁻¹ Aᵀ = V E Vᵀ, m pairs.
    pub(crate) delassus_pivots: Vec<(ExprId, ExprId)>,
}

impl FastPath {
    /// Every node the generated code reads: q̈, λ, the residual and the pivot pairs.
    pub(crate) fn outputs(&self) -> Vec<ExprId> {
        (self.acceleration.iter())
            .chain(&self.multipliers)
            .chain(&self.residual)
            .copied()
            .chain(
                (self.mass_pivots.iter())
                    .chain(&self.delassus_pivots)
                    .flat_map(|&(pivot, diagonal)| [pivot, diagonal]),
            )
            .collect()
    }
}

/// S = U D Uᵀ: `upper[j][k]` is Uⱼₖ for j < k, `inverse[k]` is 1/dₖ.
struct Factor {
    upper: Vec<Vec<ExprId>>,
    inverse: Vec<ExprId>,
    /// (dₖ, Sₖₖ).
    pivots: Vec<(ExprId, ExprId)>,
}

/// The [`FastPath`] of M (n × n, symmetric), Q (n), A (m × n) and b (m).
pub(crate) fn fast_path(
    pool: &mut Pool,
    mass: &ExprMatrix,
    force: &[ExprId],
    constraint: &ExprMatrix,
    rhs: &[ExprId],
) -> FastPath {
    let (n, m) = (force.len(), rhs.len());
    let rows: Vec<&[ExprId]> = (0..m)
        .map(|i| &constraint.entries[i * n..(i + 1) * n])
        .collect();
    let mass_factor = factor(pool, n, |i, j| mass.get(i, j));
    // h = D⁻¹U⁻¹Q; the rows of Wᵀ = A U⁻ᵀ are U⁻¹ times the rows of A.
    let mut h = solve_upper(pool, &mass_factor, force.to_vec());
    for (hk, &inverse) in h.iter_mut().zip(&mass_factor.inverse) {
        *hk = product(pool, *hk, inverse);
    }
    let wt: Vec<Vec<ExprId>> = (rows.iter())
        .map(|row| solve_upper(pool, &mass_factor, row.to_vec()))
        .collect();
    // e = b − Wᵀh; G = Wᵀ D⁻¹ W (its upper triangle, which the factorization reads).
    let e: Vec<ExprId> = (0..m)
        .map(|i| {
            let wh = dot(pool, &wt[i], &h);
            pool.sub(rhs[i], wh)
        })
        .collect();
    let scaled: Vec<Vec<ExprId>> = (wt.iter())
        .map(|row| {
            (row.iter().zip(&mass_factor.inverse))
                .map(|(&w, &inverse)| product(pool, w, inverse))
                .collect()
        })
        .collect();
    let mut delassus = vec![vec![pool.zero(); m]; m];
    for i in 0..m {
        for l in i..m {
            delassus[i][l] = dot(pool, &wt[i], &scaled[l]);
        }
    }
    let delassus_factor = factor(pool, m, |i, l| delassus[i][l]);
    // λ = V⁻ᵀ E⁻¹ V⁻¹ e; q̈ = U⁻ᵀ(h + D⁻¹ Wλ).
    let mut z = solve_upper(pool, &delassus_factor, e);
    for (zk, &inverse) in z.iter_mut().zip(&delassus_factor.inverse) {
        *zk = product(pool, *zk, inverse);
    }
    let lambda = solve_upper_transpose(pool, &delassus_factor, z);
    let shifted: Vec<ExprId> = (0..n)
        .map(|k| {
            let column: Vec<ExprId> = wt.iter().map(|row| row[k]).collect();
            let y = dot(pool, &column, &lambda);
            let step = product(pool, y, mass_factor.inverse[k]);
            pool.add(&[h[k], step])
        })
        .collect();
    let acceleration = solve_upper_transpose(pool, &mass_factor, shifted);
    let residual = (rows.iter().zip(rhs))
        .map(|(row, &b)| {
            let ax = dot(pool, row, &acceleration);
            pool.sub(ax, b)
        })
        .collect();
    FastPath {
        acceleration,
        multipliers: lambda,
        residual,
        mass_pivots: mass_factor.pivots,
        delassus_pivots: delassus_factor.pivots,
    }
}

/// x·y, 0 when either is exactly 0 (no node built).
fn product(pool: &mut Pool, x: ExprId, y: ExprId) -> ExprId {
    if pool.is_zero(x) || pool.is_zero(y) {
        pool.zero()
    } else {
        pool.mul(&[x, y])
    }
}

/// Σ xᵢ yᵢ over the pairs with no exact zero, kept as one operand.
fn dot(pool: &mut Pool, x: &[ExprId], y: &[ExprId]) -> ExprId {
    let pairs: Vec<(ExprId, ExprId)> = (x.iter().zip(y))
        .filter(|(&a, &b)| !(pool.is_zero(a) || pool.is_zero(b)))
        .map(|(&a, &b)| (a, b))
        .collect();
    let terms: Vec<ExprId> = pairs.iter().map(|&(a, b)| pool.mul(&[a, b])).collect();
    pool.shared_sum(&terms)
}

/// S = U D Uᵀ of the symmetric n × n matrix whose upper triangle `entry(i, j)` gives (i ≤ j;
/// the lower one is never read), eliminating from the last index as the kernel does; 1/dₖ is
/// one shared operand, and each column is kept as one operand once it is final, so that no
/// sum grows with the depth of the elimination.
fn factor(pool: &mut Pool, n: usize, entry: impl Fn(usize, usize) -> ExprId) -> Factor {
    let zero = pool.zero();
    let mut upper: Vec<Vec<ExprId>> = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| if i <= j { entry(i, j) } else { zero })
                .collect()
        })
        .collect();
    let mut inverse = vec![pool.zero(); n];
    let mut pivots = vec![(pool.zero(), pool.zero()); n];
    for k in (0..n).rev() {
        for row in upper.iter_mut().take(k + 1) {
            row[k] = pool.shared(row[k]);
        }
        let pivot = upper[k][k];
        let reciprocal = pool.shared_reciprocal(pivot);
        (inverse[k], pivots[k]) = (reciprocal, (pivot, entry(k, k)));
        for j in 0..k {
            let multiplier = product(pool, upper[j][k], reciprocal);
            if pool.is_zero(multiplier) {
                continue;
            }
            for row in upper.iter_mut().take(j + 1) {
                let update = product(pool, row[k], multiplier);
                if !pool.is_zero(update) {
                    row[j] = pool.sub(row[j], update);
                }
            }
        }
        for row in upper.iter_mut().take(k) {
            row[k] = product(pool, row[k], reciprocal);
        }
    }
    Factor {
        upper,
        inverse,
        pivots,
    }
}

/// U⁻¹x (backward substitution), each entry kept as one operand.
fn solve_upper(pool: &mut Pool, factor: &Factor, mut x: Vec<ExprId>) -> Vec<ExprId> {
    for j in (0..x.len()).rev() {
        let (head, solved) = x.split_at_mut(j + 1);
        let coefficients = factor.upper[j][j + 1..].iter().copied();
        head[j] = eliminated(pool, head[j], coefficients.zip(solved.iter().copied()));
    }
    x
}

/// U⁻ᵀx (forward substitution), each entry kept as one operand.
fn solve_upper_transpose(pool: &mut Pool, factor: &Factor, mut x: Vec<ExprId>) -> Vec<ExprId> {
    for k in 0..x.len() {
        let (solved, tail) = x.split_at_mut(k);
        let coefficients = factor.upper.iter().map(|row| row[k]);
        tail[0] = eliminated(pool, tail[0], coefficients.zip(solved.iter().copied()));
    }
    x
}

/// x − Σ uᵢ yᵢ over the `pairs` (uᵢ, yᵢ) with no exact zero, kept as one operand: one step
/// of a triangular solve.
fn eliminated(pool: &mut Pool, x: ExprId, pairs: impl Iterator<Item = (ExprId, ExprId)>) -> ExprId {
    let mut terms = vec![x];
    for (u, y) in pairs {
        let update = product(pool, u, y);
        if !pool.is_zero(update) {
            terms.push(pool.neg(update));
        }
    }
    pool.shared_sum(&terms)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::Symbol;
    use nalgebra::{DMatrix, DVector};

    /// A tree of five joints numbered parents first: 0 the root, 1 and 2 its children, 3 a
    /// child of 1, 4 a child of 2.
    const PARENT: [Option<usize>; 5] = [None, Some(0), Some(0), Some(1), Some(2)];

    fn ancestor_or_self(i: usize, mut j: usize) -> bool {
        loop {
            if i == j {
                return true;
            }
            match PARENT[j] {
                Some(p) => j = p,
                None => return false,
            }
        }
    }

    /// M = U D Uᵀ with U unit upper triangular on the tree's pattern (Uⱼₖ ≠ 0 only for j an
    /// ancestor of k), so that Mᵢⱼ ≠ 0 only for i, j on one path from the root; its pivots D.
    fn tree_mass() -> (DMatrix<f64>, Vec<f64>) {
        let pivots = vec![2.0, 1.5, 0.7, 1.2, 0.4];
        let u = DMatrix::from_fn(5, 5, |j, k| match (j, k) {
            _ if j == k => 1.0,
            _ if j < k && ancestor_or_self(j, k) => 0.3 + 0.1 * (j + 2 * k) as f64,
            _ => 0.0,
        });
        let mass = &u * DMatrix::from_diagonal(&DVector::from_vec(pivots.clone())) * u.transpose();
        (mass, pivots)
    }

    /// The DAG terms of (M, Q, A, b): one symbol per entry, and the constant 0 where the value
    /// is exactly 0; the values the symbols take.
    fn symbolic(
        pool: &mut Pool,
        (mass, force, a, b): (&DMatrix<f64>, &DVector<f64>, &DMatrix<f64>, &DVector<f64>),
    ) -> (ExprMatrix, Vec<ExprId>, ExprMatrix, Vec<ExprId>, Vec<f64>) {
        let mut values = Vec::new();
        let mut entry = |pool: &mut Pool, x: f64| {
            if x == 0.0 {
                return pool.zero();
            }
            values.push(x);
            pool.symbol(Symbol::Coordinate(values.len() - 1))
        };
        let matrix =
            |pool: &mut Pool, x: &DMatrix<f64>, entry: &mut dyn FnMut(&mut Pool, f64) -> ExprId| {
                ExprMatrix {
                    rows: x.nrows(),
                    cols: x.ncols(),
                    entries: (0..x.nrows())
                        .flat_map(|i| (0..x.ncols()).map(move |j| (i, j)))
                        .map(|(i, j)| entry(pool, x[(i, j)]))
                        .collect(),
                }
            };
        let m = matrix(pool, mass, &mut entry);
        let q = force.iter().map(|&x| entry(pool, x)).collect();
        let a_ids = matrix(pool, a, &mut entry);
        let b_ids = b.iter().map(|&x| entry(pool, x)).collect();
        (m, q, a_ids, b_ids, values)
    }

    fn evaluate(pool: &Pool, ids: &[ExprId], values: &[f64]) -> Vec<f64> {
        pool.eval_all(ids, &|s| match s {
            Symbol::Coordinate(k) => values[k],
            _ => f64::NAN,
        })
    }

    /// Two point-like rows: on joints 0, 1, 3 (a leaf's branch) and on 0, 2, 4.
    fn branch_rows() -> DMatrix<f64> {
        DMatrix::from_row_slice(2, 5, &[0.8, -0.5, 0.0, 1.1, 0.0, 0.3, 0.0, 0.9, 0.0, -0.7])
    }

    #[test]
    fn the_fast_path_is_the_fundamental_equation_and_keeps_the_tree_zeros() {
        let (mass, pivots) = tree_mass();
        let force = DVector::from_vec(vec![0.4, -1.0, 2.5, 0.3, -0.8]);
        let a = branch_rows();
        let b = DVector::from_vec(vec![0.6, -0.2]);
        let mut pool = Pool::new();
        let (m, q, a_ids, b_ids, values) = symbolic(&mut pool, (&mass, &force, &a, &b));
        let path = fast_path(&mut pool, &m, &q, &a_ids, &b_ids);
        // q̈ = a + M⁻¹Aᵀ(A M⁻¹ Aᵀ)⁻¹(b − A a), a = M⁻¹Q, in dense arithmetic.
        let inverse = mass.clone().try_inverse().expect("M is regular");
        let free = &inverse * &force;
        let delassus = &a * &inverse * a.transpose();
        let lambda = delassus.clone().try_inverse().expect("G is regular") * (&b - &a * &free);
        let expected = &free + &inverse * a.transpose() * &lambda;
        let qdd = DVector::from_vec(evaluate(&pool, &path.acceleration, &values));
        assert!(
            (&qdd - &expected).amax() <= 1e-13 * expected.amax(),
            "{qdd} {expected}"
        );
        let multipliers = DVector::from_vec(evaluate(&pool, &path.multipliers, &values));
        assert!(
            (&multipliers - &lambda).amax() <= 1e-13 * lambda.amax(),
            "{multipliers}"
        );
        let residual = evaluate(&pool, &path.residual, &values);
        let scale = a.amax() * qdd.amax();
        assert!(
            residual.iter().all(|r| r.abs() <= 1e-14 * scale),
            "{residual:?}"
        );
        for (k, &(pivot, diagonal)) in path.mass_pivots.iter().enumerate() {
            let [d, s] = evaluate(&pool, &[pivot, diagonal], &values)[..] else {
                unreachable!()
            };
            assert!((d - pivots[k]).abs() <= 1e-14 * pivots[k], "d{k} = {d}");
            assert_eq!(s, mass[(k, k)]);
        }
        for (k, &(pivot, diagonal)) in path.delassus_pivots.iter().enumerate() {
            let [e, g] = evaluate(&pool, &[pivot, diagonal], &values)[..] else {
                unreachable!()
            };
            assert!((g - delassus[(k, k)]).abs() <= 1e-13 * g, "G{k}{k} = {g}");
            assert!(e > 0.1 * g, "a well-separated pair of rows: e{k} = {e}");
        }
        // The same path on a dense M of the same size takes more operations: the tree's zeros
        // (no fill-in from the leaves) and the rows' zeros are left out.
        let dense_mass = DMatrix::from_fn(5, 5, |i, j| mass[(i, j)] + 0.01 * (i + j + 1) as f64);
        let dense_rows = a.map(|x| x + 0.05);
        let mut dense_pool = Pool::new();
        let (m, q, a_ids, b_ids, _) =
            symbolic(&mut dense_pool, (&dense_mass, &force, &dense_rows, &b));
        let dense = fast_path(&mut dense_pool, &m, &q, &a_ids, &b_ids);
        let (sparse_ops, dense_ops) = (
            pool.operation_count(&path.outputs()),
            dense_pool.operation_count(&dense.outputs()),
        );
        assert!(
            3 * sparse_ops < 2 * dense_ops,
            "{sparse_ops} against {dense_ops}"
        );
    }

    #[test]
    fn redundant_rows_leave_a_vanishing_delassus_pivot() {
        let (mass, _) = tree_mass();
        let force = DVector::from_vec(vec![0.4, -1.0, 2.5, 0.3, -0.8]);
        let row = branch_rows().row(0).clone_owned();
        let a = DMatrix::from_rows(&[row.clone(), row * 2.0]);
        let b = DVector::from_vec(vec![0.6, 1.2]);
        let mut pool = Pool::new();
        let (m, q, a_ids, b_ids, values) = symbolic(&mut pool, (&mass, &force, &a, &b));
        let path = fast_path(&mut pool, &m, &q, &a_ids, &b_ids);
        let ratios: Vec<f64> = (path.delassus_pivots.iter())
            .map(|&(pivot, diagonal)| {
                let [e, g] = evaluate(&pool, &[pivot, diagonal], &values)[..] else {
                    unreachable!()
                };
                e / g
            })
            .collect();
        // The kernel's fast-path test (a ratio above 1e-6) fails on the second pivot, so the
        // generated code hands these terms to the kernel.
        assert!(ratios[1] > 0.5 && ratios[0].abs() < 1e-12, "{ratios:?}");
    }
}
