//! Exact derivatives of the constrained motion: the Jacobian of the Udwadia–Kalaba
//! acceleration q̈(q, q̇, u, t) with respect to q, q̇ and the inputs u.

use nalgebra::{SMatrix, SVector};

/// q̈ and its exact first derivatives at one state (q, q̇, u, t), for n = `N` coordinates and
/// k = `K` inputs (k = 0 for a model without inputs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AccelerationJacobian<const N: usize, const K: usize> {
    /// The constrained acceleration q̈, n entries (as `acceleration` returns it).
    pub acceleration: SVector<f64, N>,
    /// ∂q̈/∂q, n × n: entry (i, j) is ∂q̈ᵢ/∂qⱼ.
    pub wrt_q: SMatrix<f64, N, N>,
    /// ∂q̈/∂q̇, n × n.
    pub wrt_qd: SMatrix<f64, N, N>,
    /// ∂q̈/∂u, n × k.
    pub wrt_u: SMatrix<f64, N, K>,
}
