//! Where the rank of A changes, q̈ has no derivative: `RankChange`, never a number.

use udk::lagrangian;
use udk::nalgebra::Vector2;
use udk::Error;

/// A unit particle in the plane under φ₁ = ẏ and φ₂ = x ẋ + ẏ: the two constraints are
/// independent for x ≠ 0 and the same (rank 1) at x = 0, where they become parallel.
#[lagrangian(
    coordinates(x, y),
    lagrangian = 0.5 * (dot(x).powi(2) + dot(y).powi(2)),
    forces(fx, 0.0),
    nonholonomic(dot(y), x * dot(x) + dot(y)),
)]
struct ParallelConstraints {
    fx: f64,
}

#[test]
fn constraints_that_become_parallel_have_no_derivative() {
    let particle = ParallelConstraints { fx: 1.5 };
    let qd = Vector2::new(0.0, 0.0);
    // At x = 0 the acceleration exists (rank 1, consistent: b = 0) ...
    let at = Vector2::new(0.0, 0.2);
    let qdd = particle.acceleration(&at, &qd, 0.0).expect("consistent");
    assert!((qdd - Vector2::new(1.5, 0.0)).norm() < 1e-12, "{qdd}");
    // ... but not its derivative: nearby, A has rank 2 and ẍ = 0.
    assert_eq!(
        particle.acceleration_jacobian(&at, &qd, 0.0),
        Err(Error::RankChange {
            what: "constraint matrix A"
        })
    );
    // Within the ambiguous band (σ_min/σ_max ≈ x/2 between 1e-10 and 1e-5): refused too.
    let near = Vector2::new(1e-8, 0.2);
    assert!(matches!(
        particle.acceleration_jacobian(&near, &qd, 0.0),
        Err(Error::RankChange { .. })
    ));
    // Away from it the derivative exists and agrees with central differences.
    let away = Vector2::new(0.5, 0.2);
    crate::support::check_lagrangian(
        "parallel constraints, rank 2",
        &particle,
        &away,
        &Vector2::new(0.4, -0.1),
        0.0,
    );
}
