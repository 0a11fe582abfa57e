//! `linearize` on two hand-written systems whose Jacobians are exact closed forms: a pendulum
//! in Cartesian coordinates (one holonomic constraint) and the textbook cart-pole (an input).

use nalgebra::{Matrix2, SMatrix, SVector, Vector1, Vector2};
use udk_runtime::linearize::{linearize, LinearizationOptions, OperatingPoint, Selection};
use udk_runtime::{
    AccelerationJacobian, ControlledLagrangianSystem, Error, LagrangianSystem, LagrangianTerms,
    ModelEquations, Options, WithoutInputs,
};

const NO_EQUATIONS: ModelEquations = ModelEquations {
    text: "",
    latex: "",
};

/// A point mass m on a massless rod of length l, in the plane (x, y), gravity g along −y:
/// f = (x² + y² − l²)/2 = 0, so A = (x, y), b = −(ẋ² + ẏ²), and
/// q̈ = (0, −g) + λ (x, y) with λ = (g y − |q̇|²)/|q|².
struct CartesianPendulum {
    m: f64,
    l: f64,
    g: f64,
}

impl CartesianPendulum {
    fn multiplier(&self, q: &Vector2<f64>, qd: &Vector2<f64>) -> f64 {
        (self.g * q.y - qd.norm_squared()) / q.norm_squared()
    }
}

impl LagrangianSystem<2, 1> for CartesianPendulum {
    const EQUATIONS: ModelEquations = NO_EQUATIONS;
    const NUM_HOLONOMIC: usize = 1;

    fn terms(&self, q: &Vector2<f64>, qd: &Vector2<f64>, _t: f64) -> LagrangianTerms<2, 1> {
        LagrangianTerms {
            mass_matrix: Matrix2::identity() * self.m,
            generalized_force: Vector2::new(0.0, -self.m * self.g),
            constraint_matrix: SMatrix::<f64, 1, 2>::new(q.x, q.y),
            constraint_rhs: Vector1::new(-qd.norm_squared()),
            nonideal_force: None,
        }
    }

    fn energy(&self, q: &Vector2<f64>, qd: &Vector2<f64>, _t: f64) -> f64 {
        0.5 * self.m * qd.norm_squared() + self.m * self.g * q.y
    }

    fn holonomic_residual(&self, q: &Vector2<f64>, _t: f64) -> Vector1<f64> {
        Vector1::new(0.5 * (q.norm_squared() - self.l * self.l))
    }

    fn velocity_residual(&self, q: &Vector2<f64>, qd: &Vector2<f64>, _t: f64) -> Vector1<f64> {
        Vector1::new(q.dot(qd))
    }

    fn acceleration_jacobian_with(
        &self,
        q: &Vector2<f64>,
        qd: &Vector2<f64>,
        _t: f64,
        _options: &Options,
    ) -> Result<AccelerationJacobian<2, 0>, Error> {
        let r2 = q.norm_squared();
        let lambda = self.multiplier(q, qd);
        let dlambda_dq = (Vector2::new(0.0, self.g) - 2.0 * lambda * q) / r2;
        let dlambda_dqd = -2.0 * qd / r2;
        Ok(AccelerationJacobian {
            acceleration: Vector2::new(0.0, -self.g) + lambda * q,
            wrt_q: Matrix2::identity() * lambda + q * dlambda_dq.transpose(),
            wrt_qd: q * dlambda_dqd.transpose(),
            wrt_u: SMatrix::zeros(),
        })
    }

    fn velocity_residual_jacobian(
        &self,
        _q: &Vector2<f64>,
        qd: &Vector2<f64>,
        _t: f64,
    ) -> Result<SMatrix<f64, 1, 2>, Error> {
        Ok(qd.transpose())
    }
}

/// The cart-pole: a cart of mass `cart` (kg) pushed by a force u (N), with a point mass
/// `bob` (kg) on a massless pole of length l (m) at angle θ from the upward vertical;
/// q = (x, θ), M q̈ = Q with M = [[M + m, m l cos θ], [m l cos θ, m l²]],
/// Q = (u + m l θ̇² sin θ, m g l sin θ).
struct CartPole {
    cart: f64,
    bob: f64,
    l: f64,
    g: f64,
}

impl CartPole {
    fn mass(&self, theta: f64) -> Matrix2<f64> {
        let c = self.bob * self.l * theta.cos();
        Matrix2::new(self.cart + self.bob, c, c, self.bob * self.l * self.l)
    }
}

impl ControlledLagrangianSystem<2, 0, 1> for CartPole {
    const EQUATIONS: ModelEquations = NO_EQUATIONS;
    const NUM_HOLONOMIC: usize = 0;

    fn terms(
        &self,
        q: &Vector2<f64>,
        qd: &Vector2<f64>,
        u: &Vector1<f64>,
        _t: f64,
    ) -> LagrangianTerms<2, 0> {
        let (s, ml) = (q.y.sin(), self.bob * self.l);
        LagrangianTerms {
            mass_matrix: self.mass(q.y),
            generalized_force: Vector2::new(u.x + ml * qd.y * qd.y * s, ml * self.g * s),
            constraint_matrix: SMatrix::zeros(),
            constraint_rhs: SVector::zeros(),
            nonideal_force: None,
        }
    }

    fn energy(&self, q: &Vector2<f64>, qd: &Vector2<f64>, _u: &Vector1<f64>, _t: f64) -> f64 {
        0.5 * qd.dot(&(self.mass(q.y) * qd)) + self.bob * self.g * self.l * q.y.cos()
    }

    fn holonomic_residual(&self, _q: &Vector2<f64>, _t: f64) -> SVector<f64, 0> {
        SVector::zeros()
    }

    fn velocity_residual(
        &self,
        _q: &Vector2<f64>,
        _qd: &Vector2<f64>,
        _u: &Vector1<f64>,
        _t: f64,
    ) -> SVector<f64, 0> {
        SVector::zeros()
    }

    /// ∂q̈/∂q = M⁻¹ (∂Q/∂q − ∂M/∂θ q̈ e_θᵀ), ∂q̈/∂q̇ = M⁻¹ ∂Q/∂q̇, ∂q̈/∂u = M⁻¹ e_x.
    fn acceleration_jacobian_with(
        &self,
        q: &Vector2<f64>,
        qd: &Vector2<f64>,
        u: &Vector1<f64>,
        t: f64,
        _options: &Options,
    ) -> Result<AccelerationJacobian<2, 1>, Error> {
        let inverse = self
            .mass(q.y)
            .try_inverse()
            .ok_or(Error::NotPositiveDefinite {
                what: "mass matrix M",
            })?;
        let terms = self.terms(q, qd, u, t);
        let qdd = inverse * terms.generalized_force;
        let (s, c, ml) = (q.y.sin(), q.y.cos(), self.bob * self.l);
        let dmass = Matrix2::new(0.0, -ml * s, -ml * s, 0.0);
        let dforce = Vector2::new(ml * qd.y * qd.y * c, ml * self.g * c) - dmass * qdd;
        Ok(AccelerationJacobian {
            acceleration: qdd,
            wrt_q: inverse * Matrix2::new(0.0, dforce.x, 0.0, dforce.y),
            wrt_qd: inverse * Matrix2::new(0.0, 2.0 * ml * qd.y * s, 0.0, 0.0),
            wrt_u: inverse * SMatrix::<f64, 2, 1>::new(1.0, 0.0),
        })
    }

    fn velocity_residual_jacobian(
        &self,
        _q: &Vector2<f64>,
        _qd: &Vector2<f64>,
        _u: &Vector1<f64>,
        _t: f64,
    ) -> Result<SMatrix<f64, 0, 2>, Error> {
        Ok(SMatrix::zeros())
    }
}

const PENDULUM: CartesianPendulum = CartesianPendulum {
    m: 0.7,
    l: 1.3,
    g: 9.81,
};

fn at_rest(q: Vector2<f64>, qd: Vector2<f64>) -> OperatingPoint<2, 0> {
    OperatingPoint {
        q,
        qd,
        u: SVector::zeros(),
        t: 0.0,
    }
}

#[test]
fn the_hand_written_pendulum_jacobian_is_its_finite_difference() {
    let (q, qd) = (Vector2::new(0.6, -1.1), Vector2::new(0.3, 0.2));
    let exact = PENDULUM
        .acceleration_jacobian_with(&q, &qd, 0.0, &Options::default())
        .unwrap();
    let qdd = |q: &Vector2<f64>, qd: &Vector2<f64>| PENDULUM.acceleration(q, qd, 0.0).unwrap();
    let h = 1e-6;
    for j in 0..2 {
        let e = Vector2::ith(j, h);
        let by_q = (qdd(&(q + e), &qd) - qdd(&(q - e), &qd)) / (2.0 * h);
        let by_qd = (qdd(&q, &(qd + e)) - qdd(&q, &(qd - e))) / (2.0 * h);
        assert!(
            (by_q - exact.wrt_q.column(j)).norm() < 1e-7,
            "{by_q} {}",
            exact.wrt_q
        );
        assert!((by_qd - exact.wrt_qd.column(j)).norm() < 1e-7);
    }
}

#[test]
fn cartesian_pendulum_at_the_bottom_oscillates_at_sqrt_g_over_l() {
    let point = at_rest(Vector2::new(0.0, -PENDULUM.l), Vector2::zeros());
    let options = LinearizationOptions::default();
    let system = WithoutInputs(&PENDULUM);
    let result = linearize(&system, &point, &Selection::default(), &options).unwrap();
    // The constraint row ∂f/∂q = (0, −l) is solved for y; x and ẋ are the state.
    assert_eq!(result.coordinates.independent, vec![0]);
    assert_eq!(result.coordinates.dependent, vec![1]);
    assert_eq!(result.velocities.independent, vec![0]);
    let omega2 = PENDULUM.g / PENDULUM.l;
    assert!((result.a[(0, 1)] - 1.0).abs() < 1e-15 && result.a[(0, 0)] == 0.0);
    assert!((result.a[(1, 0)] + omega2).abs() < 1e-14 && result.a[(1, 1)].abs() < 1e-15);
    assert_eq!(result.b.shape(), (2, 0));
    let [low, high] = [result.eigenvalues[0], result.eigenvalues[1]];
    assert!(
        low.re.abs() < 1e-14 && (low.im + omega2.sqrt()).abs() < 1e-14,
        "{low}"
    );
    assert!(
        high.re.abs() < 1e-14 && (high.im - omega2.sqrt()).abs() < 1e-14,
        "{high}"
    );
}

#[test]
fn cartesian_pendulum_away_from_equilibrium_matches_differences_along_the_circle() {
    // At 40° from the bottom, moving, with y and ẏ independent (x and ẋ dependent): the rows
    // of A_ss are the derivatives of (ẏ, ÿ) along the constraint manifold parametrized by
    // (y, ẏ), checked by central differences.
    let (angle, rate) = (0.7f64, 0.4f64);
    let l = PENDULUM.l;
    let q = Vector2::new(l * angle.sin(), -l * angle.cos());
    let qd = Vector2::new(l * angle.cos(), l * angle.sin()) * rate;
    let selection = Selection {
        coordinates: Some(vec![1]),
        velocities: Some(vec![1]),
        ..Selection::default()
    };
    let system = WithoutInputs(&PENDULUM);
    let options = LinearizationOptions::default();
    let result = linearize(&system, &at_rest(q, qd), &selection, &options).unwrap();
    assert_eq!(result.coordinates.dependent, vec![0]);
    assert_eq!(result.velocities.dependent, vec![0]);
    // Finite differences of ÿ along the manifold, parametrized by (y, ẏ):
    // x = √(l² − y²), ẋ = −y ẏ / x.
    let on_manifold = |y: f64, yd: f64| {
        let x = (l * l - y * y).sqrt();
        let (q, qd) = (Vector2::new(x, y), Vector2::new(-y * yd / x, yd));
        PENDULUM.acceleration(&q, &qd, 0.0).unwrap().y
    };
    let h = 1e-6;
    let d_dy = (on_manifold(q.y + h, qd.y) - on_manifold(q.y - h, qd.y)) / (2.0 * h);
    let d_dyd = (on_manifold(q.y, qd.y + h) - on_manifold(q.y, qd.y - h)) / (2.0 * h);
    assert!(
        (result.a[(1, 0)] - d_dy).abs() < 1e-7,
        "{} {d_dy}",
        result.a
    );
    assert!(
        (result.a[(1, 1)] - d_dyd).abs() < 1e-7,
        "{} {d_dyd}",
        result.a
    );
    assert_eq!((result.a[(0, 0)], result.a[(0, 1)]), (0.0, 1.0));
}

#[test]
fn an_operating_point_off_the_constraints_names_the_violated_row() {
    let system = WithoutInputs(&PENDULUM);
    let options = LinearizationOptions::default();
    let off = at_rest(Vector2::new(0.1, -PENDULUM.l), Vector2::zeros());
    let error = linearize(&system, &off, &Selection::default(), &options).unwrap_err();
    assert!(
        matches!(
            error,
            Error::ConstraintViolated {
                row: 0,
                holonomic: true,
                velocity_level: false,
                ..
            }
        ),
        "{error}"
    );
    let moving = at_rest(Vector2::new(0.0, -PENDULUM.l), Vector2::new(0.0, 0.5));
    let error = linearize(&system, &moving, &Selection::default(), &options).unwrap_err();
    match error {
        Error::ConstraintViolated {
            row: 0,
            holonomic: true,
            velocity_level: true,
            residual,
            ..
        } => assert!((residual + 0.5 * PENDULUM.l).abs() < 1e-15),
        other => panic!("{other}"),
    }
}

#[test]
fn a_selection_that_leaves_the_constraint_unsolvable_is_refused() {
    let system = WithoutInputs(&PENDULUM);
    let point = at_rest(Vector2::new(0.0, -PENDULUM.l), Vector2::zeros());
    // y is the only coordinate the constraint can be solved for; making it independent
    // and holding x leaves nothing to solve.
    let selection = Selection {
        coordinates: Some(vec![1]),
        held_coordinates: vec![0],
        ..Selection::default()
    };
    let options = LinearizationOptions::default();
    let error = linearize(&system, &point, &selection, &options).unwrap_err();
    assert!(matches!(error, Error::InvalidSelection { .. }), "{error}");
}

#[test]
fn cart_pole_upright_gives_the_textbook_a_and_b() {
    let model = CartPole {
        cart: 1.5,
        bob: 0.4,
        l: 0.8,
        g: 9.81,
    };
    let point = OperatingPoint {
        q: Vector2::zeros(),
        qd: Vector2::zeros(),
        u: Vector1::zeros(),
        t: 0.0,
    };
    let options = LinearizationOptions::default();
    let result = linearize(&model, &point, &Selection::default(), &options).unwrap();
    assert_eq!(result.coordinates.independent, vec![0, 1]);
    let (big, m, l, g) = (model.cart, model.bob, model.l, model.g);
    #[rustfmt::skip]
    let expected_a = [
        0.0, 0.0, 1.0, 0.0,
        0.0, 0.0, 0.0, 1.0,
        0.0, -m * g / big, 0.0, 0.0,
        0.0, (big + m) * g / (big * l), 0.0, 0.0,
    ];
    let expected_b = [0.0, 0.0, 1.0 / big, -1.0 / (big * l)];
    for i in 0..4 {
        for j in 0..4 {
            assert!(
                (result.a[(i, j)] - expected_a[4 * i + j]).abs() < 1e-14,
                "{}",
                result.a
            );
        }
        assert!(
            (result.b[(i, 0)] - expected_b[i]).abs() < 1e-14,
            "{}",
            result.b
        );
    }
    // One unstable pole, √((M + m) g / (M l)), its mirror image, and a double zero.
    let pole = ((big + m) * g / (big * l)).sqrt();
    let re: Vec<f64> = result.eigenvalues.iter().map(|e| e.re).collect();
    assert!(
        (re[0] + pole).abs() < 1e-12 && (re[3] - pole).abs() < 1e-12,
        "{re:?}"
    );
    assert!(re[1].abs() < 1e-12 && re[2].abs() < 1e-12);
}

#[test]
fn a_system_without_jacobians_reports_it() {
    let model = CartPole {
        cart: 1.0,
        bob: 1.0,
        l: 1.0,
        g: 9.81,
    };
    // A closed loop has no Jacobian; as a model without inputs it is refused by name.
    let closed = model.closed_loop(|_, _, _| Vector1::zeros());
    let point = at_rest(Vector2::zeros(), Vector2::zeros());
    let options = LinearizationOptions::default();
    let error = linearize(
        &WithoutInputs(&closed),
        &point,
        &Selection::default(),
        &options,
    )
    .unwrap_err();
    assert!(
        matches!(error, Error::JacobianUnavailable { .. }),
        "{error}"
    );
}
