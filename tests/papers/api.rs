//! The generated API beyond the papers' examples: forces, non-ideal constraints,
//! time-dependent terms, the constants and `EQUATIONS`, and the system traits.

use crate::{assert_close, samples};
use udk::lagrangian;
use udk::nalgebra::{Vector2, Vector3};
use udk::{LagrangianSystem, Options};

/// A particle in the plane on the line y = h sin ωt, pushed by (fx, fy), with viscous
/// friction −c ẋ along the line as a non-ideal constraint force (Udwadia & Phohomsiri 2006,
/// eq 2.14).
#[lagrangian(
    coordinates(x, y),
    lagrangian = 0.5 * m * (dot(x).powi(2) + dot(y).powi(2)),
    holonomic(y - h * (omega * t).sin()),
    forces(fx, fy),
    nonideal(-c * dot(x), 0.0),
)]
struct SlidingParticle {
    m: f64,
    h: f64,
    omega: f64,
    fx: f64,
    fy: f64,
    c: f64,
}

#[test]
fn forces_nonideal_force_and_time_dependence_reach_the_acceleration() {
    for seed in 0..6 {
        let s = samples(seed, 10, -1.0, 1.0);
        let p = SlidingParticle {
            m: 1.5 + s[0],
            h: s[1],
            omega: 2.0 + s[2],
            fx: s[3],
            fy: s[4],
            c: 0.5 + s[5],
        };
        let t = 3.0 * s[6];
        let (sin, cos) = (p.omega * t).sin_cos();
        let q = Vector2::new(s[7], p.h * sin);
        let qd = Vector2::new(s[8], p.h * p.omega * cos);
        // ÿ follows the line; ẍ feels fx and the friction.
        let expected = [(p.fx - p.c * qd[0]) / p.m, -p.h * p.omega * p.omega * sin];
        assert_close(p.acceleration(&q, &qd, t).unwrap().as_slice(), &expected);
        // Qᶜ = M q̈ − Q: the friction along x, the normal force along y.
        let force = [-p.c * qd[0], p.m * expected[1] - p.fy];
        assert_close(p.constraint_force(&q, &qd, t).unwrap().as_slice(), &force);
        assert_close(
            p.nonideal_force(&q, &qd, t).as_slice(),
            &[-p.c * qd[0], 0.0],
        );
        assert_close(p.generalized_forces(&q, &qd, t).as_slice(), &[p.fx, p.fy]);
        assert_close(
            p.constraint_rhs(&q, &qd, t).as_slice(),
            &[-p.h * p.omega * p.omega * sin],
        );
        assert_close(p.constraint_matrix(&q, &qd, t).as_slice(), &[0.0, 1.0]);
        assert_close(p.position_residual(&q, t).as_slice(), &[0.0]);
        assert_close(p.velocity_residual(&q, &qd, t).as_slice(), &[0.0]);
        // The generated inherent functions and the trait agree.
        let terms = LagrangianSystem::terms(&p, &q, &qd, t);
        assert_eq!(terms.mass_matrix, p.mass_matrix(&q, t));
        assert_eq!(terms.nonideal_force, Some(p.nonideal_force(&q, &qd, t)));
        let via_trait = LagrangianSystem::acceleration_with(&p, &q, &qd, t, &Options::default());
        assert_eq!(via_trait, p.acceleration(&q, &qd, t));
    }
}

#[test]
fn constants_and_equations_describe_the_model() {
    assert_eq!(SlidingParticle::DOF, 2);
    assert_eq!(SlidingParticle::NUM_CONSTRAINTS, 1);
    assert_eq!(SlidingParticle::NUM_HOLONOMIC, 1);
    let equations = SlidingParticle::EQUATIONS;
    for quantity in ["M", "Q", "A", "b", "C"] {
        assert!(
            equations.text.contains(&format!("{quantity}[")),
            "{quantity}:\n{}",
            equations.text
        );
    }
    assert!(
        equations.text.contains("m = 1 constraint"),
        "{}",
        equations.text
    );
    assert!(
        equations.latex.contains("\\begin{aligned}"),
        "{}",
        equations.latex
    );
    assert_eq!(
        <SlidingParticle as LagrangianSystem<2, 1>>::EQUATIONS,
        equations
    );
}

/// Generic code over any generated Lagrangian system: the acceleration satisfies A q̈ = b.
fn satisfies_constraints<S: LagrangianSystem<N, M>, const N: usize, const M: usize>(
    system: &S,
    q: &udk::nalgebra::SVector<f64, N>,
    qd: &udk::nalgebra::SVector<f64, N>,
) -> bool {
    let terms = system.terms(q, qd, 0.0);
    let qdd = system.acceleration(q, qd, 0.0).unwrap();
    (terms.constraint_matrix * qdd - terms.constraint_rhs).norm() < 1e-10
}

#[test]
fn generic_code_runs_any_generated_system() {
    let p = SlidingParticle {
        m: 1.0,
        h: 0.3,
        omega: 2.0,
        fx: 0.1,
        fy: -1.0,
        c: 0.2,
    };
    assert!(satisfies_constraints(
        &p,
        &Vector2::new(0.1, 0.0),
        &Vector2::new(0.2, 0.6)
    ));
    let pendulum = crate::udwadia_2016::spherical_pendulum::SphericalPendulumLagrangian {
        m: 1.0,
        g: 9.81,
        l: 2.0,
    };
    assert!(satisfies_constraints(
        &pendulum,
        &Vector3::new(1.2, 0.0, 1.6),
        &Vector3::new(0.0, 0.7, 0.0)
    ));
}

/// Names that clash with the generated code's own: the argument `q`, the output local
/// `mass_matrix`, the velocity local `x_dot` of `x`, and `p`.
#[lagrangian(
    coordinates(q, mass_matrix, x),
    lagrangian = 0.5 * p * (dot(q).powi(2) + dot(mass_matrix).powi(2) + dot(x).powi(2)) - x_dot * x,
    holonomic(q - mass_matrix),
)]
struct ClashingNames {
    p: f64,
    x_dot: f64,
}

#[test]
fn names_that_clash_with_generated_locals_still_work() {
    let model = ClashingNames { p: 2.0, x_dot: 3.0 };
    let (q, qd) = (Vector3::new(0.5, 0.5, 1.0), Vector3::new(0.1, 0.1, 0.2));
    assert_close(
        model.mass_matrix(&q, 0.0).as_slice(),
        &[2.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 2.0],
    );
    assert_close(
        model.acceleration(&q, &qd, 0.0).unwrap().as_slice(),
        &[0.0, 0.0, -1.5],
    );
    assert_close(
        &[model.energy(&q, &qd, 0.0)],
        &[0.5 * 2.0 * (0.01 + 0.01 + 0.04) + 3.0],
    );
}
