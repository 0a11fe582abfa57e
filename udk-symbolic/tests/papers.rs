//! The papers' models, written as model files would hold them, against the papers' closed
//! forms of M, Q, A, b (Lagrangian) and H_p, H_q, H_pp, A_p, b_p (Hamiltonian), at random
//! points, to 1e-12.

mod core_support;

use core_support::{
    assert_close, assert_close_matrix, derived, hamiltonian, lagrangian, Point, Rng,
};
use udk_symbolic::models;

const POINTS: usize = 20;

/// Udwadia & Phohomsiri 2006, example 1 (eqs 5.1–5.11): a wheel rolling down an incline,
/// coordinates (θ, y) treated as independent, so M is singular.
#[test]
fn wheel_on_incline() {
    let d = derived(
        r#"
        name = "Wheel"
        coordinates = ["theta", "y"]
        parameters = [{ name = "m" }, { name = "R" }, { name = "Ic" }, { name = "g" }, { name = "alpha" }]
        lagrangian = "0.5 * m * (R * dot(theta)).powi(2) + 0.5 * Ic * dot(theta).powi(2) + m * g * y"
        holonomic = ["y - R * theta * alpha.sin()"]
        "#,
    );
    let eq = lagrangian(&d);
    let mut rng = Rng(1);
    for _ in 0..POINTS {
        let x = Point::random(&mut rng, 2, 5);
        let [m, r, ic, g, alpha] = x.k[..] else {
            unreachable!()
        };
        let m_ = x.eval_matrix(&d.pool, &eq.mass_matrix);
        assert_close_matrix(&m_, &[vec![m * r * r + ic, 0.0], vec![0.0, 0.0]], "M (5.6)");
        let q_ = x.eval_vec(&d.pool, &eq.generalized_force);
        assert_close(&q_, &[0.0, m * g], "Q (5.7)");
        let a_ = x.eval_matrix(&d.pool, &eq.constraint_matrix);
        assert_close_matrix(&a_, &[vec![-r * alpha.sin(), 1.0]], "A (5.10)");
        assert_close(&x.eval_vec(&d.pool, &eq.constraint_rhs), &[0.0], "b (5.11)");
        assert_close(
            &x.eval_vec(&d.pool, &eq.nonideal_force),
            &[0.0, 0.0],
            "C (5.12)",
        );
    }
}

/// Udwadia & Phohomsiri 2006, example 3 (eqs 5.26–5.36): two masses and springs decomposed
/// into sub-systems joined by the connection constraint q₁ = x₁ + d.
#[test]
fn two_masses_with_springs() {
    let d = derived(
        r#"
        name = "TwoMasses"
        coordinates = ["x1", "q1", "q2"]
        parameters = [{ name = "m1" }, { name = "m2" }, { name = "k1" }, { name = "k2" }, { name = "d", value = 0.1 }]
        lagrangian = """0.5 * m1 * dot(x1).powi(2) + 0.5 * m2 * (dot(q1) + dot(q2)).powi(2)
                        - 0.5 * k1 * x1.powi(2) - 0.5 * k2 * q2.powi(2)"""
        holonomic = ["x1 + d - q1"]
        "#,
    );
    let eq = lagrangian(&d);
    let mut rng = Rng(2);
    for _ in 0..POINTS {
        let x = Point::random(&mut rng, 3, 5);
        let [m1, m2, k1, k2, _] = x.k[..] else {
            unreachable!()
        };
        let m_ = x.eval_matrix(&d.pool, &eq.mass_matrix);
        let expected = [vec![m1, 0.0, 0.0], vec![0.0, m2, m2], vec![0.0, m2, m2]];
        assert_close_matrix(&m_, &expected, "M (5.33)");
        let q_ = x.eval_vec(&d.pool, &eq.generalized_force);
        assert_close(&q_, &[-k1 * x.q[0], 0.0, -k2 * x.q[2]], "Q (5.34)");
        let a_ = x.eval_matrix(&d.pool, &eq.constraint_matrix);
        assert_close_matrix(&a_, &[vec![1.0, -1.0, 0.0]], "A (5.35)");
        assert_close(&x.eval_vec(&d.pool, &eq.constraint_rhs), &[0.0], "b (5.36)");
    }
}

/// E(u) of Udwadia & Wanichanon 2013, eq 4.2.
fn quaternion_e(u: &[f64]) -> [[f64; 4]; 3] {
    [
        [-u[1], u[0], u[3], -u[2]],
        [-u[2], -u[3], u[0], u[1]],
        [-u[3], u[2], -u[1], u[0]],
    ]
}

/// Udwadia & Wanichanon 2013, eqs 4.1–4.5: the rigid body in quaternions, M = 4EᵀJE,
/// Q = −8ĖᵀJEu̇, and the unit-norm constraint gives A = uᵀ, b = −u̇ᵀu̇ (written as
/// ½(uᵀu − 1) = 0 so that the scale matches the paper's).
#[test]
fn quaternion_rigid_body() {
    let omega = |k: usize| {
        let rows = [
            ["-u1", "u0", "u3", "-u2"],
            ["-u2", "-u3", "u0", "u1"],
            ["-u3", "u2", "-u1", "u0"],
        ];
        let terms: Vec<String> = (0..4)
            .map(|j| format!("{} * dot(u{j})", rows[k][j]))
            .collect();
        format!("2 * ({})", terms.join(" + "))
    };
    let toml_text = format!(
        r#"
        name = "Quaternion"
        coordinates = ["u0", "u1", "u2", "u3"]
        parameters = [{{ name = "J1" }}, {{ name = "J2" }}, {{ name = "J3" }}]
        lagrangian = "0.5 * (J1 * ({}).powi(2) + J2 * ({}).powi(2) + J3 * ({}).powi(2))"
        holonomic = ["0.5 * (u0.powi(2) + u1.powi(2) + u2.powi(2) + u3.powi(2) - 1)"]
        "#,
        omega(0),
        omega(1),
        omega(2)
    );
    let d = derived(&toml_text);
    let eq = lagrangian(&d);
    let mut rng = Rng(3);
    for _ in 0..POINTS {
        let x = Point::random(&mut rng, 4, 3);
        let e = quaternion_e(&x.q);
        let e_dot = quaternion_e(&x.v);
        let j = &x.k;
        let mut m = vec![vec![0.0; 4]; 4];
        let mut q = vec![0.0; 4];
        for r in 0..4 {
            for c in 0..4 {
                m[r][c] = 4.0 * (0..3).map(|k| e[k][r] * j[k] * e[k][c]).sum::<f64>();
            }
            // −8 Ėᵀ J E u̇
            q[r] = -8.0
                * (0..3)
                    .map(|k| e_dot[k][r] * j[k] * (0..4).map(|c| e[k][c] * x.v[c]).sum::<f64>())
                    .sum::<f64>();
        }
        assert_close_matrix(
            &x.eval_matrix(&d.pool, &eq.mass_matrix),
            &m,
            "M = 4EᵀJE (4.3)",
        );
        assert_close(
            &x.eval_vec(&d.pool, &eq.generalized_force),
            &q,
            "Q = −8ĖᵀJEu̇ (4.3)",
        );
        let a = x.eval_matrix(&d.pool, &eq.constraint_matrix);
        assert_close_matrix(&a, std::slice::from_ref(&x.q), "A = uᵀ");
        let b = -x.v.iter().map(|v| v * v).sum::<f64>();
        assert_close(&x.eval_vec(&d.pool, &eq.constraint_rhs), &[b], "b = −u̇ᵀu̇");
    }
}

/// Review paper, section 8.1 (eqs 53–57): a unit mass on the logarithmic spiral r = e^(0.1θ)
/// with θ = −t + 30, in polar coordinates under gravity.
#[test]
fn spiral_particle() {
    let d = derived(
        r#"
        name = "Spiral"
        coordinates = ["r", "theta"]
        parameters = [{ name = "g", value = 9.81 }]
        lagrangian = "0.5 * (dot(r).powi(2) + r.powi(2) * dot(theta).powi(2)) - g * r * theta.sin()"
        holonomic = ["r - (0.1 * theta).exp()", "theta + t - 30"]
        "#,
    );
    let eq = lagrangian(&d);
    let mut rng = Rng(4);
    for _ in 0..POINTS {
        let mut x = Point::random(&mut rng, 2, 1);
        x.q[0] += 2.0; // r > 0
        let (r, th, rd, thd, g) = (x.q[0], x.q[1], x.v[0], x.v[1], x.k[0]);
        let m = x.eval_matrix(&d.pool, &eq.mass_matrix);
        assert_close_matrix(&m, &[vec![1.0, 0.0], vec![0.0, r * r]], "M");
        let q = x.eval_vec(&d.pool, &eq.generalized_force);
        // The paper's a₀ = M⁻¹Q.
        let a0 = [q[0] / m[0][0], q[1] / m[1][1]];
        let expected = [
            r * thd * thd - g * th.sin(),
            (-2.0 * rd * thd - g * th.cos()) / r,
        ];
        assert_close(&a0, &expected, "a₀");
        let e = (0.1 * th).exp();
        let a = x.eval_matrix(&d.pool, &eq.constraint_matrix);
        assert_close_matrix(&a, &[vec![1.0, -0.1 * e], vec![0.0, 1.0]], "A");
        let b = x.eval_vec(&d.pool, &eq.constraint_rhs);
        assert_close(&b, &[0.01 * e * thd * thd, 0.0], "b");
    }
}

/// Review paper, section 8.3 (eqs 65–70): the two-link flexible-joint manipulator with
/// coordinates (q⁽¹⁾ joint 1, q⁽²⁾ link 1, q⁽³⁾ joint 2, q⁽⁴⁾ link 2) and the velocity
/// constraint q̇⁽²⁾ + q̇⁽⁴⁾ = 0. The Coriolis matrix is the one that Lagrange's equations
/// give, c₁₁ = −m₂l₁l_c2 sin q⁽⁴⁾ q̇⁽⁴⁾ (the paper prints m₁ in c₁₁, a typo: its c₁₂ and
/// c₂₁ have m₂).
#[test]
fn flexible_joint_manipulator() {
    let d = derived(
        r#"
        name = "FlexibleJoint"
        coordinates = ["q1", "q2", "q3", "q4"]
        parameters = [
            { name = "m1" }, { name = "m2" }, { name = "l1" }, { name = "lc1" }, { name = "lc2" },
            { name = "I1" }, { name = "I2" }, { name = "J11" }, { name = "J22" },
            { name = "K1" }, { name = "K2" }, { name = "g" },
        ]
        lagrangian = """
            0.5 * (m2 * (l1.powi(2) + lc2.powi(2) + 2 * l1 * lc2 * q4.cos()) + m1 * lc1.powi(2) + I1 + I2) * dot(q2).powi(2)
            + (m2 * (lc2.powi(2) + l1 * lc2 * q4.cos()) + I2) * dot(q2) * dot(q4)
            + 0.5 * (m2 * lc2.powi(2) + I2) * dot(q4).powi(2)
            + 0.5 * J11 * dot(q1).powi(2) + 0.5 * J22 * dot(q3).powi(2)
            + (m1 * lc1 + m2 * l1) * g * q2.cos() + m2 * lc2 * g * (q2 + q4).cos()
            - 0.5 * K1 * (q2 - q1).powi(2) - 0.5 * K2 * (q4 - q3).powi(2)"""
        nonholonomic = ["dot(q2) + dot(q4)"]
        "#,
    );
    let eq = lagrangian(&d);
    let mut rng = Rng(5);
    for _ in 0..POINTS {
        let x = Point::random(&mut rng, 4, 12);
        let [m1, m2, l1, lc1, lc2, i1, i2, j11, j22, k1, k2, g] = x.k[..] else {
            unreachable!()
        };
        let (q2, q4) = (x.q[1], x.q[3]);
        let (v2, v4) = (x.v[1], x.v[3]);
        let d11 = m2 * (l1 * l1 + lc2 * lc2 + 2.0 * l1 * lc2 * q4.cos()) + m1 * lc1 * lc1 + i1 + i2;
        let d12 = m2 * (lc2 * lc2 + l1 * lc2 * q4.cos()) + i2;
        let d22 = m2 * lc2 * lc2 + i2;
        let m = [
            vec![j11, 0.0, 0.0, 0.0],
            vec![0.0, d11, 0.0, d12],
            vec![0.0, 0.0, j22, 0.0],
            vec![0.0, d12, 0.0, d22],
        ];
        assert_close_matrix(&x.eval_matrix(&d.pool, &eq.mass_matrix), &m, "M (D, J)");
        let h = -m2 * l1 * lc2 * q4.sin();
        let c = [[h * v4, h * (v2 + v4)], [-h * v2, 0.0]];
        let gr = [
            (m1 * lc1 + m2 * l1) * g * q2.sin() + m2 * lc2 * g * (q2 + q4).sin(),
            m2 * lc2 * g * (q2 + q4).sin(),
        ];
        let spring = [k1 * (q2 - x.q[0]), k2 * (q4 - x.q[2])];
        let link = |i: usize| -(c[i][0] * v2 + c[i][1] * v4) - gr[i] - spring[i];
        let q = [spring[0], link(0), spring[1], link(1)];
        assert_close(&x.eval_vec(&d.pool, &eq.generalized_force), &q, "Q (65)");
        let a = x.eval_matrix(&d.pool, &eq.constraint_matrix);
        assert_close_matrix(&a, &[vec![0.0, 1.0, 0.0, 1.0]], "A = [1 1] on the links");
        assert_close(&x.eval_vec(&d.pool, &eq.constraint_rhs), &[0.0], "b");
    }
}

/// The double pendulum in minimal coordinates against the textbook M(θ), Q and energy.
#[test]
fn double_pendulum_minimal_coordinates() {
    let d = udk_symbolic::derive(&models::pendulum_chain_minimal(2)).expect("derives");
    let eq = lagrangian(&d);
    assert_eq!(d.parameters, ["m1", "m2", "l1", "l2", "g"]);
    let mut rng = Rng(6);
    for _ in 0..POINTS {
        let x = Point::random(&mut rng, 2, 5);
        let [m1, m2, l1, l2, g] = x.k[..] else {
            unreachable!()
        };
        let (t1, t2, w1, w2) = (x.q[0], x.q[1], x.v[0], x.v[1]);
        let c12 = (t1 - t2).cos();
        let s12 = (t1 - t2).sin();
        let m = [
            vec![(m1 + m2) * l1 * l1, m2 * l1 * l2 * c12],
            vec![m2 * l1 * l2 * c12, m2 * l2 * l2],
        ];
        assert_close_matrix(&x.eval_matrix(&d.pool, &eq.mass_matrix), &m, "M(θ)");
        let q = [
            -m2 * l1 * l2 * w2 * w2 * s12 - (m1 + m2) * g * l1 * t1.sin(),
            m2 * l1 * l2 * w1 * w1 * s12 - m2 * g * l2 * t2.sin(),
        ];
        assert_close(&x.eval_vec(&d.pool, &eq.generalized_force), &q, "Q");
        let kinetic = 0.5 * (m[0][0] * w1 * w1 + 2.0 * m[0][1] * w1 * w2 + m[1][1] * w2 * w2);
        let potential = -(m1 + m2) * g * l1 * t1.cos() - m2 * g * l2 * t2.cos();
        assert_close(
            &[x.eval(&d.pool, eq.energy)],
            &[kinetic + potential],
            "h = T + V",
        );
        assert!(eq.constraint_matrix.rows == 0 && eq.constraint_rhs.is_empty());
    }
}

/// The Cartesian chain of two links: M = diag(m), Q = gravity, and the length constraints
/// differentiated twice.
#[test]
fn pendulum_chain_cartesian_two_links() {
    let d = udk_symbolic::derive(&models::pendulum_chain_cartesian(2)).expect("derives");
    let eq = lagrangian(&d);
    let mut rng = Rng(7);
    for _ in 0..POINTS {
        let x = Point::random(&mut rng, 4, 5);
        let [m1, m2, _, _, g] = x.k[..] else {
            unreachable!()
        };
        let mut m = vec![vec![0.0; 4]; 4];
        for (i, mass) in [m1, m1, m2, m2].into_iter().enumerate() {
            m[i][i] = mass;
        }
        assert_close_matrix(&x.eval_matrix(&d.pool, &eq.mass_matrix), &m, "M");
        let q = [0.0, -m1 * g, 0.0, -m2 * g];
        assert_close(&x.eval_vec(&d.pool, &eq.generalized_force), &q, "Q");
        let (q, v) = (&x.q, &x.v);
        let (dx, dy) = (q[2] - q[0], q[3] - q[1]);
        let (dvx, dvy) = (v[2] - v[0], v[3] - v[1]);
        let a = [
            vec![2.0 * q[0], 2.0 * q[1], 0.0, 0.0],
            vec![-2.0 * dx, -2.0 * dy, 2.0 * dx, 2.0 * dy],
        ];
        assert_close_matrix(&x.eval_matrix(&d.pool, &eq.constraint_matrix), &a, "A");
        let b = [
            -2.0 * (v[0] * v[0] + v[1] * v[1]),
            -2.0 * (dvx * dvx + dvy * dvy),
        ];
        assert_close(&x.eval_vec(&d.pool, &eq.constraint_rhs), &b, "b");
        let fdot = [
            2.0 * (q[0] * v[0] + q[1] * v[1]),
            2.0 * (dx * dvx + dy * dvy),
        ];
        assert_close(&x.eval_vec(&d.pool, &eq.velocity_constraints), &fdot, "ḟ");
    }
}

const PARTICLE_H: &str = "(px.powi(2) + py.powi(2) + pz.powi(2)) / (2 * m)";

/// Udwadia 2016, section 4.1 (eqs 37–41): the spherical pendulum; z points down. The
/// holonomic qᵀq − L² = 0 becomes φ = (2/m) qᵀp through q̇ = H_p (eq 9), so A_p and b_p are
/// the paper's qᵀ and −pᵀp/m times 2/m; written directly as φ = qᵀp they are the paper's.
#[test]
fn spherical_pendulum_hamiltonian() {
    let header = format!(
        r#"
        name = "SphericalPendulum"
        coordinates = ["x", "y", "z"]
        momenta = ["px", "py", "pz"]
        parameters = [{{ name = "m" }}, {{ name = "g" }}, {{ name = "L" }}]
        hamiltonian = "{PARTICLE_H} - m * g * z"
        "#
    );
    let from_f = derived(&format!(
        "{header}holonomic = [\"x.powi(2) + y.powi(2) + z.powi(2) - L.powi(2)\"]"
    ));
    let from_phi = derived(&format!(
        "{header}constraints = [\"x * px + y * py + z * pz\"]"
    ));
    let mut rng = Rng(8);
    for _ in 0..POINTS {
        let x = Point::random(&mut rng, 3, 3);
        let [m, g, _] = x.k[..] else { unreachable!() };
        let pp: f64 = x.p.iter().map(|p| p * p).sum();
        for (d, scale) in [(&from_f, 2.0 / m), (&from_phi, 1.0)] {
            let eq = hamiltonian(d);
            let h_p: Vec<f64> = x.p.iter().map(|p| p / m).collect();
            assert_close(&x.eval_vec(&d.pool, &eq.h_p), &h_p, "H_p = p/m (38)");
            assert_close(
                &x.eval_vec(&d.pool, &eq.h_q),
                &[0.0, 0.0, -m * g],
                "H_q (38)",
            );
            let h_pp: Vec<Vec<f64>> = (0..3)
                .map(|i| (0..3).map(|j| if i == j { 1.0 / m } else { 0.0 }).collect())
                .collect();
            assert_close_matrix(&x.eval_matrix(&d.pool, &eq.h_pp), &h_pp, "H_pp = I/m");
            let a_p: Vec<f64> = x.q.iter().map(|q| scale * q).collect();
            assert_close_matrix(&x.eval_matrix(&d.pool, &eq.a_p), &[a_p], "A_p (41)");
            assert_close(
                &x.eval_vec(&d.pool, &eq.b_p),
                &[-scale * pp / m],
                "b_p (41)",
            );
        }
    }
}

/// Udwadia 2016, section 4.2 (eqs 43–45): a free particle with φ = z²p_x − p_y = 0.
#[test]
fn nonholonomic_particle_hamiltonian() {
    let d = derived(&format!(
        r#"
        name = "NonholonomicParticle"
        coordinates = ["x", "y", "z"]
        momenta = ["px", "py", "pz"]
        parameters = [{{ name = "m" }}]
        hamiltonian = "{PARTICLE_H}"
        constraints = ["z.powi(2) * px - py"]
        "#
    ));
    let eq = hamiltonian(&d);
    let mut rng = Rng(9);
    for _ in 0..POINTS {
        let x = Point::random(&mut rng, 3, 1);
        let m = x.k[0];
        let (z, px, pz) = (x.q[2], x.p[0], x.p[2]);
        assert_close(&x.eval_vec(&d.pool, &eq.h_q), &[0.0; 3], "H_q");
        let a_p = x.eval_matrix(&d.pool, &eq.a_p);
        assert_close_matrix(&a_p, &[vec![z * z, -1.0, 0.0]], "A_p (45)");
        let b_p = x.eval_vec(&d.pool, &eq.b_p);
        assert_close(&b_p, &[-2.0 * z * px * pz / m], "b_p (45)");
    }
}

/// Udwadia 2016, section 4.4 (eqs 67–72): the double pendulum with p₁ = α p₂ sin(ωt).
#[test]
fn constrained_double_pendulum_hamiltonian() {
    let d = derived(
        r#"
        name = "DoublePendulumH"
        coordinates = ["th1", "th2"]
        momenta = ["p1", "p2"]
        parameters = [
            { name = "m1" }, { name = "m2" }, { name = "l1" }, { name = "l2" }, { name = "g" },
            { name = "alpha" }, { name = "omega" },
        ]
        hamiltonian = """
            0.5 * ((m1 + m2) * l1.powi(2) * p2.powi(2) + m2 * l2.powi(2) * p1.powi(2)
                   - 2 * m2 * l1 * l2 * p1 * p2 * (th1 - th2).cos())
                / (m2 * l1.powi(2) * l2.powi(2) * (m1 + m2 * (th1 - th2).sin().powi(2)))
            - m1 * g * l1 * th1.cos() - m2 * g * (l1 * th1.cos() + l2 * th2.cos())"""
        constraints = ["p1 - alpha * p2 * (omega * t).sin()"]
        "#,
    );
    let eq = hamiltonian(&d);
    let mut rng = Rng(10);
    for _ in 0..POINTS {
        let x = Point::random(&mut rng, 2, 7);
        let [m1, m2, l1, l2, g, alpha, omega] = x.k[..] else {
            unreachable!()
        };
        let (t1, t2, p1, p2, t) = (x.q[0], x.q[1], x.p[0], x.p[1], x.t);
        let th12 = t1 - t2;
        let delta = m1 + m2 * th12.sin().powi(2);
        let h_p = [
            (l2 * p1 - l1 * p2 * th12.cos()) / (l1 * l1 * l2 * delta),
            ((m1 + m2) * l1 * p2 - m2 * l2 * p1 * th12.cos()) / (m2 * l1 * l2 * l2 * delta),
        ];
        assert_close(&x.eval_vec(&d.pool, &eq.h_p), &h_p, "H_p (69)");
        let kinetic = 0.5
            * ((m1 + m2) * l1 * l1 * p2 * p2 + m2 * l2 * l2 * p1 * p1
                - 2.0 * m2 * l1 * l2 * p1 * p2 * th12.cos())
            / (m2 * l1 * l1 * l2 * l2 * delta);
        let sigma = (m2 * l1 * l2 * kinetic * (2.0 * th12).sin() - p1 * p2 * th12.sin())
            / (l1 * l2 * delta);
        let h_q = [
            -(sigma - (m1 + m2) * l1 * g * t1.sin()),
            -(-sigma - m2 * l2 * g * t2.sin()),
        ];
        assert_close(&x.eval_vec(&d.pool, &eq.h_q), &h_q, "H_q = −(70), Σ (71)");
        // H_pp⁻¹ is the matrix of eq 68.
        let inverse = [
            [(m1 + m2) * l1 * l1, m2 * l1 * l2 * th12.cos()],
            [m2 * l1 * l2 * th12.cos(), m2 * l2 * l2],
        ];
        let h_pp = x.eval_matrix(&d.pool, &eq.h_pp);
        let product: Vec<Vec<f64>> = (0..2)
            .map(|i| {
                (0..2)
                    .map(|j| (0..2).map(|k| h_pp[i][k] * inverse[k][j]).sum())
                    .collect()
            })
            .collect();
        assert_close_matrix(&product, &[vec![1.0, 0.0], vec![0.0, 1.0]], "H_pp · (68)");
        let a_p = x.eval_matrix(&d.pool, &eq.a_p);
        assert_close_matrix(&a_p, &[vec![1.0, -alpha * (omega * t).sin()]], "A_p (72)");
        let b_p = x.eval_vec(&d.pool, &eq.b_p);
        assert_close(&b_p, &[omega * alpha * (omega * t).cos() * p2], "b_p (72)");
    }
}
