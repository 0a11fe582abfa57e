//! Criterion benchmarks of the acceleration kernel (fundamental equation), fixed and
//! dynamic sizes, n = 2, 6, 12, 24 coordinates with m = n/2 constraints, plus redundant
//! (rank-deficient) constraints and a singular mass matrix; and the diagonal mass matrix
//! and sparse constraint matrix of the Cartesian pendulum chain with 2, 5 and 10 links.
//!
//! Run: `cargo bench -p udk-runtime --bench acceleration -- --measurement-time 2 --warm-up-time 1`

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use nalgebra::{DMatrix, DVector, SMatrix, SVector};
use udk_runtime::{acceleration, acceleration_dyn, LagrangianView, Options};

/// (M, Q, A, b) with n = N coordinates and m = M constraints.
type System<const N: usize, const M: usize> = (
    SMatrix<f64, N, N>,
    SVector<f64, N>,
    SMatrix<f64, M, N>,
    SVector<f64, M>,
);

/// Deterministic entries in [−1, 1].
fn entry(i: usize, j: usize, salt: usize) -> f64 {
    (((i * 31 + j * 17 + salt * 7) % 23) as f64 / 11.0) - 1.0
}

/// (M, Q, A, b): M = BᵀB + I positive definite (or with its last row and column zeroed,
/// singular), A with m rows (the last one the sum of the first two if `redundant`), b = A x₀.
fn system<const N: usize, const M: usize>(redundant: bool, singular: bool) -> System<N, M> {
    let b = SMatrix::<f64, N, N>::from_fn(|i, j| entry(i, j, 1));
    let mut mass = b.transpose() * b + SMatrix::<f64, N, N>::identity();
    if singular {
        for k in 0..N {
            mass[(N - 1, k)] = 0.0;
            mass[(k, N - 1)] = 0.0;
        }
    }
    let q = SVector::<f64, N>::from_fn(|i, _| entry(i, 0, 2));
    let mut a =
        SMatrix::<f64, M, N>::from_fn(|i, j| entry(i, j, 3) + if i == j { 2.0 } else { 0.0 });
    if redundant && M >= 3 {
        let sum = a.row(0) + a.row(1);
        a.row_mut(M - 1).copy_from(&sum);
    }
    let x0 = SVector::<f64, N>::from_fn(|i, _| entry(i, 1, 4));
    let rhs = a * x0;
    (mass, q, a, rhs)
}

fn bench_case<const N: usize, const M: usize>(
    c: &mut Criterion,
    label: &str,
    redundant: bool,
    singular: bool,
) {
    let (mass, q, a, b) = system::<N, M>(redundant, singular);
    bench_fixed(c, label, (mass, q, a, b));
    let options = Options::default();
    let (mass, q, a, b) = (
        DMatrix::from_column_slice(N, N, mass.as_slice()),
        DVector::from_column_slice(q.as_slice()),
        DMatrix::from_column_slice(M, N, a.as_slice()),
        DVector::from_column_slice(b.as_slice()),
    );
    c.bench_function(&format!("acceleration/dyn/{label}/n={N},m={M}"), |bench| {
        bench.iter(|| {
            acceleration_dyn(
                LagrangianView::new(
                    black_box(&mass),
                    black_box(&q),
                    black_box(&a),
                    black_box(&b),
                ),
                &options,
            )
        })
    });
}

/// The Cartesian pendulum chain with M = N/2 links at a deterministic state: diagonal M
/// (point masses), A with the four nonzeros per row of the length constraints
/// |rₖ − rₖ₋₁|² = lₖ², Q gravity, b arbitrary (consistent: A has full row rank).
fn chain<const N: usize, const M: usize>() -> System<N, M> {
    let mass =
        SMatrix::<f64, N, N>::from_diagonal(&SVector::from_fn(|i, _| 1.0 + 0.1 * (i / 2) as f64));
    let q = SVector::<f64, N>::from_fn(|i, _| {
        if i % 2 == 1 {
            -9.81 * mass[(i, i)]
        } else {
            0.0
        }
    });
    let position =
        |k: usize, axis: usize| 0.3 * entry(k, axis, 5) + if axis == 1 { -(k as f64) } else { 0.0 };
    let mut a = SMatrix::<f64, M, N>::zeros();
    for k in 0..M {
        for axis in 0..2 {
            let previous = if k == 0 { 0.0 } else { position(k - 1, axis) };
            let d = 2.0 * (position(k, axis) - previous);
            a[(k, 2 * k + axis)] = d;
            if k > 0 {
                a[(k, 2 * k - 2 + axis)] = -d;
            }
        }
    }
    let rhs = SVector::<f64, M>::from_fn(|i, _| entry(i, 2, 6));
    (mass, q, a, rhs)
}

/// Times the fixed-size kernel on (M, Q, A, b), which must be well posed.
fn bench_fixed<const N: usize, const M: usize>(
    c: &mut Criterion,
    label: &str,
    (mass, q, a, b): System<N, M>,
) {
    let options = Options::default();
    // The benchmark must measure successful calls.
    acceleration(LagrangianView::new(&mass, &q, &a, &b), &options)
        .expect("benchmark system is well posed");
    c.bench_function(
        &format!("acceleration/fixed/{label}/n={N},m={M}"),
        |bench| {
            bench.iter(|| {
                acceleration(
                    LagrangianView::new(
                        black_box(&mass),
                        black_box(&q),
                        black_box(&a),
                        black_box(&b),
                    ),
                    &options,
                )
            })
        },
    );
}

fn benches(c: &mut Criterion) {
    bench_fixed(c, "diagonal-chain", chain::<4, 2>());
    bench_fixed(c, "diagonal-chain", chain::<10, 5>());
    bench_fixed(c, "diagonal-chain", chain::<20, 10>());
    bench_case::<2, 1>(c, "full-rank", false, false);
    bench_case::<6, 3>(c, "full-rank", false, false);
    bench_case::<12, 6>(c, "full-rank", false, false);
    bench_case::<24, 12>(c, "full-rank", false, false);
    bench_case::<6, 3>(c, "rank-deficient", true, false);
    bench_case::<12, 6>(c, "rank-deficient", true, false);
    bench_case::<6, 3>(c, "singular-mass", false, true);
}

criterion_group!(acceleration_benches, benches);
criterion_main!(acceleration_benches);
