//! Time of `derive` (parse, canonicalize, differentiate) for a model whose potential is a sum
//! of 1,000, 10,000 and 100,000 distinct terms `(x + k).sin()`, and of `Pool::add` of that
//! many terms alone: both should grow as n log n, not n². Run:
//! `cargo bench -p udk-symbolic --bench long_sums`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::hint::black_box;
use udk_symbolic::expr::{Pool, Symbol};
use udk_symbolic::{derive, ModelSpec};

/// One coordinate x with L = ½ m ẋ² − Σₖ sin(x + k), k = 1…n.
fn long_sum(n: usize) -> ModelSpec {
    let terms: Vec<String> = (1..=n).map(|k| format!("(x + {k}).sin()")).collect();
    let mut spec = ModelSpec {
        name: "LongSum".into(),
        coordinates: vec!["x".parse().expect("a name")],
        parameters: vec![udk_symbolic::Parameter {
            name: "m".parse().expect("a name"),
            value: None,
        }],
        ..ModelSpec::default()
    };
    let l = format!("0.5 * m * dot(x).powi(2) - ({})", terms.join(" + "));
    spec.lagrangian = Some(l.parse().expect("an expression"));
    spec
}

fn bench_long_sums(c: &mut Criterion) {
    // A 100,000-term sum is a `syn` tree 100,000 deep, which drops recursively.
    udk_symbolic::limits::on_large_stack(|| bench_on_this_stack(c));
}

fn bench_on_this_stack(c: &mut Criterion) {
    let mut group = c.benchmark_group("long_sums");
    group.sample_size(10);
    for n in [1_000, 10_000, 100_000] {
        let spec = long_sum(n);
        group.bench_with_input(BenchmarkId::new("derive", n), &spec, |b, spec| {
            b.iter(|| derive(black_box(spec)).expect("the model derives"))
        });
        group.bench_with_input(BenchmarkId::new("pool_add", n), &n, |b, &n| {
            b.iter(|| {
                let mut pool = Pool::new();
                let x = pool.symbol(Symbol::Coordinate(0));
                let terms: Vec<_> = (1..=n as i64)
                    .map(|k| {
                        let k = pool.integer(k);
                        let arg = pool.add(&[x, k]);
                        pool.call(udk_symbolic::expr::Func::Sin, &[arg])
                    })
                    .collect();
                black_box(pool.add(&terms))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench_long_sums);
criterion_main!(benches);
