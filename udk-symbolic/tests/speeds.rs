//! Generalized speeds in the derivation: a polar particle with speeds scaled from q̇ has
//! M_u = Nᵀ M N and Q_u = Nᵀ(Q − M Ṅu) at a state, and each unsupported or malformed use of
//! `speeds` and `kinematics` is an error that says what is wrong.

mod core_support;

use core_support::{derived, lagrangian, model};
use udk_symbolic::expr::Symbol;

/// A particle in polar coordinates (r, θ) in a radial spring, with the speeds
/// u₁ = 2ṙ, u₂ = r θ̇ (the transverse speed): q̇ = N u with N = diag(1/2, 1/r).
const POLAR: &str = r#"
name = "polar"
coordinates = ["r", "th"]
speeds = ["u1", "u2"]
kinematics = ["u1 / 2.0", "u2 / r"]
lagrangian = "0.5 * m * (dot(r).powi(2) + r.powi(2) * dot(th).powi(2)) - 0.5 * k * r.powi(2)"
forces = ["-c * dot(r)", "0.0"]
parameters = [{ name = "m" }, { name = "k" }, { name = "c" }]
"#;

#[test]
fn speeds_give_the_mass_matrix_and_force_of_the_chain_rule() {
    let d = derived(POLAR);
    let e = lagrangian(&d);
    let (m, k, c, r, th, u1, u2) = (2.0, 3.0, 0.5, 1.5, 0.7, 0.8, -1.1);
    let value = |s: Symbol| match s {
        Symbol::Parameter(0) => m,
        Symbol::Parameter(1) => k,
        Symbol::Parameter(2) => c,
        Symbol::Coordinate(0) => r,
        Symbol::Coordinate(1) => th,
        Symbol::Velocity(0) => u1,
        Symbol::Velocity(1) => u2,
        other => panic!("{other:?}"),
    };
    let at = |id| d.pool.eval(id, &value);
    // M = diag(m, m r²), N = diag(1/2, 1/r): M_u = diag(m/4, m).
    let mass: Vec<f64> = e.mass_matrix.entries.iter().map(|&x| at(x)).collect();
    assert!((mass[0] - m / 4.0).abs() < 1e-15 && mass[1] == 0.0 && mass[2] == 0.0);
    assert!((mass[3] - m).abs() < 1e-15);
    // q̇ = (u1/2, u2/r); Q = (m r θ̇² − k r − c ṙ, −2 m r ṙ θ̇); Ṅu = (0, −u2 ṙ / r²).
    let (rd, thd) = (u1 / 2.0, u2 / r);
    let q = [m * r * thd * thd - k * r - c * rd, -2.0 * m * r * rd * thd];
    let bias = [0.0, -u2 * rd / (r * r)];
    let mass_q = [m, m * r * r];
    let expected = [
        0.5 * (q[0] - mass_q[0] * bias[0]),
        (q[1] - mass_q[1] * bias[1]) / r,
    ];
    for (i, &f) in e.generalized_force.iter().enumerate() {
        assert!((at(f) - expected[i]).abs() < 1e-14, "Q_u[{i}]");
    }
    let kinematics = e.kinematics.as_ref().expect("a model with speeds");
    assert!((at(kinematics.rates[1]) - thd).abs() < 1e-15);
    assert!((at(kinematics.matrix.get(1, 1)) - 1.0 / r).abs() < 1e-15);
    assert!(e.jacobians.is_none() && e.articulated.is_none());
    assert_eq!(d.speeds, ["u1", "u2"]);
}

/// The derivation's messages for `toml_text`, joined.
fn errors(toml_text: &str) -> String {
    match udk_symbolic::derive(&model(toml_text)) {
        Ok(_) => panic!("the model derived"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn malformed_speeds_are_errors_that_say_why() {
    let cases = [
        (
            POLAR.replace("r.powi(2) * dot(th)", "r.powi(2) * u2 / r * dot(th)"),
            "L is written in the generalized velocities",
        ),
        (
            POLAR.replace(r#"speeds = ["u1", "u2"]"#, r#"speeds = ["u1"]"#),
            "the model has 1 speeds and 2 coordinates",
        ),
        (
            POLAR.replace(r#""u2 / r"]"#, r#""u2 * u1"]"#),
            "must be linear in the speeds",
        ),
        (
            POLAR.replace(r#""u2 / r"]"#, r#""dot(r)"]"#),
            "it may not hold a velocity",
        ),
        (
            POLAR.replace(r#"kinematics = ["u1 / 2.0", "u2 / r"]"#, ""),
            "`speeds` need their kinematic differential equations",
        ),
        (
            POLAR.replace(
                r#"kinematics = ["u1 / 2.0", "u2 / r"]"#,
                r#"kinematics = ["u1"]"#,
            ),
            "`kinematics` has 1 entries",
        ),
        (
            format!("{POLAR}\nholonomic = [\"r - u1\"]\n"),
            "speed `u1` is a velocity, which cannot appear in a holonomic constraint",
        ),
        (
            format!("{POLAR}\n[[contacts]]\nname = \"floor\"\ngap = \"r - 1.0\"\n"),
            "contacts are not supported in a model with speeds",
        ),
    ];
    for (text, message) in cases {
        let found = errors(&text);
        assert!(found.contains(message), "expected `{message}` in: {found}");
    }
}
