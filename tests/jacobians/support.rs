//! Central differences and the comparison every Jacobian test makes.

use udk::nalgebra::{SMatrix, SVector};

/// Relative agreement required of every Jacobian block with central differences.
pub const TOLERANCE: f64 = 1e-6;

/// The central-difference Jacobian of `f` at `x`, with steps 1e-5·max(1, |xⱼ|).
pub fn central<const R: usize, const C: usize>(
    f: impl Fn(&SVector<f64, C>) -> SVector<f64, R>,
    x: &SVector<f64, C>,
) -> SMatrix<f64, R, C> {
    let mut j = SMatrix::<f64, R, C>::zeros();
    for k in 0..C {
        let h = 1e-5 * x[k].abs().max(1.0);
        let (mut plus, mut minus) = (*x, *x);
        plus[k] += h;
        minus[k] -= h;
        j.set_column(k, &((f(&plus) - f(&minus)) / (2.0 * h)));
    }
    j
}

/// Asserts that `exact` agrees with `numeric` to [`TOLERANCE`] relative to `scale` (the
/// largest entry of the quantities compared, at least 1).
#[track_caller]
pub fn assert_agrees<const R: usize, const C: usize>(
    what: &str,
    exact: &SMatrix<f64, R, C>,
    numeric: &SMatrix<f64, R, C>,
    scale: f64,
) {
    let error = (exact - numeric).amax();
    assert!(
        error <= TOLERANCE * scale.max(1.0),
        "{what}: exact and central differences differ by {error:e} (scale {scale:e})\nexact {exact}\nnumeric {numeric}"
    );
}

/// Checks the three blocks of ∂q̈/∂(q, q̇, u) of `jacobian` against central differences of
/// `acceleration(q, q̇, u)` at (q, q̇, u), and that it carries q̈ itself.
#[track_caller]
pub fn check_acceleration<const N: usize, const K: usize>(
    what: &str,
    jacobian: &udk::runtime::AccelerationJacobian<N, K>,
    acceleration: impl Fn(&SVector<f64, N>, &SVector<f64, N>, &SVector<f64, K>) -> SVector<f64, N>,
    q: &SVector<f64, N>,
    qd: &SVector<f64, N>,
    u: &SVector<f64, K>,
) {
    assert_eq!(jacobian.acceleration, acceleration(q, qd, u), "{what}: q̈");
    let wrt_q = central(|x| acceleration(x, qd, u), q);
    let wrt_qd = central(|x| acceleration(q, x, u), qd);
    let wrt_u = central(|x| acceleration(q, qd, x), u);
    let scale = [
        jacobian.wrt_q.amax(),
        jacobian.wrt_qd.amax(),
        jacobian.wrt_u.amax(),
    ]
    .into_iter()
    .fold(0.0, f64::max);
    assert_agrees(&format!("{what}: ∂q̈/∂q"), &jacobian.wrt_q, &wrt_q, scale);
    assert_agrees(&format!("{what}: ∂q̈/∂q̇"), &jacobian.wrt_qd, &wrt_qd, scale);
    assert_agrees(&format!("{what}: ∂q̈/∂u"), &jacobian.wrt_u, &wrt_u, scale);
}

/// Checks a Lagrangian system without inputs, through [`check_controlled`] with k = 0.
#[track_caller]
pub fn check_lagrangian<S, const N: usize, const M: usize>(
    what: &str,
    system: &S,
    q: &SVector<f64, N>,
    qd: &SVector<f64, N>,
    t: f64,
) where
    S: udk::LagrangianSystem<N, M>,
{
    check_controlled(
        what,
        &udk::runtime::WithoutInputs(system),
        q,
        qd,
        &SVector::zeros(),
        t,
    );
}

/// Checks a Lagrangian system with k inputs at u: ∂q̈/∂(q, q̇, u) and ∂(velocity residual)/∂q.
#[track_caller]
pub fn check_controlled<S, const N: usize, const M: usize, const K: usize>(
    what: &str,
    system: &S,
    q: &SVector<f64, N>,
    qd: &SVector<f64, N>,
    u: &SVector<f64, K>,
    t: f64,
) where
    S: udk::runtime::ControlledLagrangianSystem<N, M, K>,
{
    let jacobian = system
        .acceleration_jacobian(q, qd, u, t)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let acceleration = |q: &SVector<f64, N>, qd: &SVector<f64, N>, u: &SVector<f64, K>| {
        system
            .acceleration(q, qd, u, t)
            .unwrap_or_else(|e| panic!("{what} (nearby): {e}"))
    };
    check_acceleration(what, &jacobian, acceleration, q, qd, u);
    let exact = system
        .velocity_residual_jacobian(q, qd, u, t)
        .expect("generated");
    let numeric = central(|x| system.velocity_residual(x, qd, u, t), q);
    assert_agrees(
        &format!("{what}: ∂(velocity residual)/∂q"),
        &exact,
        &numeric,
        exact.amax(),
    );
}

/// Checks ∂(q̇, ṗ)/∂(q, p) of a Hamiltonian system against central differences of
/// `state_derivative`.
#[track_caller]
pub fn check_hamiltonian<S, const N: usize, const M: usize>(
    what: &str,
    system: &S,
    q: &SVector<f64, N>,
    p: &SVector<f64, N>,
    t: f64,
) where
    S: udk::HamiltonianSystem<N, M>,
{
    let jacobian = system
        .state_jacobian(q, p, t)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let rates = |q: &SVector<f64, N>, p: &SVector<f64, N>| {
        system
            .state_derivative(q, p, t)
            .unwrap_or_else(|e| panic!("{what} (nearby): {e}"))
    };
    let (velocity, momentum_rate) = rates(q, p);
    assert_eq!(jacobian.velocity, velocity, "{what}: q̇");
    assert_eq!(jacobian.momentum_rate, momentum_rate, "{what}: ṗ");
    let blocks = [
        (
            "∂q̇/∂q",
            jacobian.velocity_wrt_q,
            central(|x| rates(x, p).0, q),
        ),
        (
            "∂q̇/∂p",
            jacobian.velocity_wrt_p,
            central(|x| rates(q, x).0, p),
        ),
        (
            "∂ṗ/∂q",
            jacobian.momentum_rate_wrt_q,
            central(|x| rates(x, p).1, q),
        ),
        (
            "∂ṗ/∂p",
            jacobian.momentum_rate_wrt_p,
            central(|x| rates(q, x).1, p),
        ),
    ];
    let scale = blocks.iter().map(|b| b.1.amax()).fold(0.0, f64::max);
    for (name, exact, numeric) in &blocks {
        assert_agrees(&format!("{what}: {name}"), exact, numeric, scale);
    }
}
