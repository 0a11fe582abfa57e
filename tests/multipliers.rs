//! The multipliers λ of a model's own constraints, by row name: Aᵀλ = Qᶜ − C on the papers'
//! examples, the minimum-norm λ of redundant rows, and a pendulum's rod force against its
//! closed form m(g cos θ + l θ̇²), through the generated code and `udk::Model`.

use std::path::Path;
use udk::lagrangian;
use udk::nalgebra::{SVector, Vector2, Vector4};
use udk::runtime::{
    acceleration_and_constraint_force, constraint_multipliers, pinv, LagrangianSystem, Options,
};

#[allow(dead_code)]
#[path = "../examples/spiral_particle.rs"]
mod spiral_particle;

#[allow(dead_code)]
#[path = "../examples/wheel_on_incline.rs"]
mod wheel_on_incline;

#[allow(dead_code)]
#[path = "../examples/quaternion_rigid_body.rs"]
mod quaternion_rigid_body;

#[allow(dead_code)]
#[path = "../examples/swarm_robots.rs"]
mod swarm_robots;

#[allow(dead_code)]
#[path = "../examples/four_bar.rs"]
mod four_bar;

/// λ of `system` at (q, q̇, t) by the kernel, after checking Aᵀλ = Qᶜ − C to 1e-12 (relative
/// to the larger of 1 and |Qᶜ − C|).
fn multipliers<S: LagrangianSystem<N, M>, const N: usize, const M: usize>(
    system: &S,
    q: &SVector<f64, N>,
    qd: &SVector<f64, N>,
    t: f64,
) -> SVector<f64, M> {
    let terms = system.terms(q, qd, t);
    let options = Options::default();
    let (_, force) = acceleration_and_constraint_force(terms.view(), &options).unwrap();
    let ideal = force - terms.nonideal_force.unwrap_or_else(SVector::zeros);
    let lambda = constraint_multipliers(terms.view(), &options).unwrap();
    let residual = (terms.constraint_matrix.transpose() * lambda - ideal).norm();
    assert!(
        residual <= 1e-12 * ideal.norm().max(1.0),
        "|Aᵀλ − Qᶜ| = {residual:e} for Qᶜ − C = {ideal}"
    );
    lambda
}

#[test]
fn the_multipliers_rebuild_the_constraint_force_on_the_papers_examples() {
    // The spiral particle of the review paper (eq 57) at its initial state.
    let particle = spiral_particle::SpiralParticle { g: 9.81 };
    let e3 = 3.0f64.exp();
    let (q, qd) = (Vector2::new(e3, 30.0), Vector2::new(-0.1 * e3, -1.0));
    let lambda = multipliers(&particle, &q, &qd, 0.0);
    let generated = particle.constraint_multipliers(&q, &qd, 0.0).unwrap();
    assert_eq!(lambda, generated);
    assert_eq!(
        spiral_particle::SpiralParticle::CONSTRAINT_NAMES,
        ["holonomic[0]", "holonomic[1]"]
    );

    // Udwadia & Phohomsiri 2006, eqs 5.6–5.7: a singular M. The row y − Rθ sin α carries the
    // whole weight: Qᶜ = (d θ̈, −m g) = Aᵀλ with A = (−R sin α, 1), so λ = −m g.
    let wheel = wheel_on_incline::WheelOnIncline {
        m: 2.0,
        r: 0.3,
        ic: 0.09,
        g: 9.81,
        alpha: 0.4,
    };
    let (q, qd) = (
        Vector2::new(0.7, 0.3 * 0.7 * 0.4f64.sin()),
        Vector2::zeros(),
    );
    let lambda = multipliers(&wheel, &q, &qd, 0.0);
    assert!((lambda[0] + 2.0 * 9.81).abs() < 1e-12, "{lambda}");

    // Udwadia & Wanichanon 2013, section 4: the quaternion body (the unit-norm row).
    let body = quaternion_rigid_body::QuaternionRigidBody::EXAMPLE;
    let (u, ud) = (
        Vector4::new(0.5, 0.5, 0.5, 0.5),
        Vector4::new(0.1, -0.3, 0.2, 0.0),
    );
    multipliers(&body, &u, &ud, 0.0);

    // The review paper's swarm (eqs 60–64): ten nonholonomic rows.
    let swarm = swarm_robots::SwarmOfFiveRobots { m: 2.0 };
    let q = SVector::<f64, 10>::from_column_slice(&[
        0.0, 0.0, 3.0, 1.0, -2.0, 2.5, 1.5, -3.0, -1.0, -1.5,
    ]);
    let qd = SVector::<f64, 10>::from_column_slice(&[
        0.2, -0.1, 0.0, 0.3, -0.4, 0.1, 0.2, 0.2, -0.3, 0.0,
    ]);
    multipliers(&swarm, &q, &qd, 0.0);
    assert!(swarm_robots::SwarmOfFiveRobots::CONSTRAINT_NAMES
        .iter()
        .enumerate()
        .all(|(i, name)| *name == format!("nonholonomic[{i}]")));
}

/// A point mass in the plane under a force (fx, fy), held by x = 0 twice (rows (1, 0) and
/// (2, 0)) with a non-ideal constraint force (cx, 0): λ is not unique, and the kernel gives
/// the minimum-norm one.
#[lagrangian(
    coordinates(x, y),
    lagrangian = 0.5 * m * (dot(x).powi(2) + dot(y).powi(2)),
    holonomic(x, 2.0 * x),
    forces(fx, fy),
    nonideal(cx, 0.0),
)]
pub struct TwiceHeld {
    pub m: f64,
    pub fx: f64,
    pub fy: f64,
    pub cx: f64,
}

#[test]
fn redundant_rows_get_the_minimum_norm_multipliers() {
    let held = TwiceHeld {
        m: 3.0,
        fx: 5.0,
        fy: -1.0,
        cx: 1.0,
    };
    let (q, qd) = (Vector2::zeros(), Vector2::zeros());
    let lambda = multipliers(&held, &q, &qd, 0.0);
    // Aᵀλ = (λ₁ + 2λ₂, 0) = (−fx − cx, 0): the minimum-norm solution is −(fx + cx) (1, 2)/5.
    let expected = Vector2::new(-1.2, -2.4);
    assert!((lambda - expected).norm() < 1e-12, "{lambda}");

    // The four-bar of `examples/four_bar.rs`: a 3-vector loop closure in a tilted plane,
    // three rows of rank two. λ equals (A M⁻¹ Aᵀ)⁺ (b − A a), the formula itself.
    let bar = four_bar::FourBar::EXAMPLE;
    let (q, qd) = bar.start(0.6, 1.3);
    let lambda = multipliers(&bar, &q, &qd, 0.0);
    let terms = bar.terms(&q, &qd, 0.0);
    let a = terms.constraint_matrix;
    let inverse = terms.mass_matrix.try_inverse().unwrap();
    let free = inverse * terms.generalized_force;
    let gram = a * inverse * a.transpose();
    assert_eq!(udk::runtime::rank(&a, None).unwrap(), 2);
    let formula = pinv(&gram, None).unwrap() * (terms.constraint_rhs - a * free);
    let scale = formula.norm().max(1.0);
    assert!(
        (lambda - formula).norm() < 1e-10 * scale,
        "{lambda} against {formula}"
    );
}

/// A pendulum of mass m on a rod of length l in Cartesian coordinates, with the constraint
/// written as a distance, √(x² + y²) − l, so that its λ is the rod's force in newtons.
#[lagrangian(
    coordinates(x, y),
    lagrangian = 0.5 * m * (dot(x).powi(2) + dot(y).powi(2)) - m * g * y,
    holonomic((x.powi(2) + y.powi(2)).sqrt() - l),
)]
pub struct RodPendulum {
    pub m: f64,
    pub g: f64,
    pub l: f64,
}

const ROD_PENDULUM: &str = r#"
name = "RodPendulum"
coordinates = ["x", "y"]
parameters = [{ name = "m", value = 1.5 }, { name = "g", value = 9.81 }, { name = "l", value = 0.8 }]
lagrangian = "0.5 * m * (dot(x).powi(2) + dot(y).powi(2)) - m * g * y"
holonomic = ["(x.powi(2) + y.powi(2)).sqrt() - l"]
"#;

#[test]
fn a_pendulums_rod_force_is_m_g_cos_theta_plus_m_l_theta_dot_squared() {
    let pendulum = RodPendulum {
        m: 1.5,
        g: 9.81,
        l: 0.8,
    };
    let spec: udk::ModelSpec = toml::from_str(ROD_PENDULUM).unwrap();
    let model = udk::Model::from_spec(spec, Path::new(".")).unwrap();
    assert_eq!(model.constraint_names(), ["holonomic[0]"]);
    assert_eq!(RodPendulum::CONSTRAINT_NAMES, ["holonomic[0]"]);
    let RodPendulum { m, g, l } = pendulum;
    for (theta, rate) in [(0.0, 0.0), (0.3, 1.2), (-1.1, -2.5), (2.5, 4.0)] {
        // θ from the downward vertical.
        let (s, c) = f64::sin_cos(theta);
        let q = Vector2::new(l * s, -l * c);
        let qd = Vector2::new(l * c * rate, l * s * rate);
        let tension = m * (g * c + l * rate * rate);
        // Qᶜ = λ ∂f/∂q = λ (x, y)/l: a rod that pulls has λ = −tension.
        let lambda = multipliers(&pendulum, &q, &qd, 0.0)[0];
        assert!(
            (lambda + tension).abs() < 1e-12 * tension.abs().max(1.0),
            "θ = {theta}: λ = {lambda}, tension {tension}"
        );
        let generated = pendulum.constraint_multipliers(&q, &qd, 0.0).unwrap()[0];
        assert!((generated + tension).abs() < 1e-12 * tension.abs().max(1.0));
        let dynamic = udk::nalgebra::DVector::from_column_slice(q.as_slice());
        let rates = udk::nalgebra::DVector::from_column_slice(qd.as_slice());
        let jit = model.constraint_multipliers(&dynamic, &rates, 0.0).unwrap();
        assert!(
            (jit[0] + tension).abs() < 1e-12 * tension.abs().max(1.0),
            "{jit}"
        );
    }
}
