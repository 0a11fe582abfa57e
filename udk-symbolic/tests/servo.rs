//! The `servo` key: servo constraints derived as the physical ones are, kept apart from them,
//! with the input matrix B = ∂(Q + C)/∂u; and its errors.

mod core_support;

use core_support::{derived, lagrangian, model, Point, Rng};
use udk_symbolic::derive;
use udk_symbolic::emit::{equations_latex, equations_text};

/// A particle in the plane pushed by a force (ux, uy) at its position, with a servo
/// constraint of each kind and the given extra TOML lines.
fn particle(servo: &str, extra: &str) -> String {
    format!(
        r#"
        name = "Particle"
        coordinates = ["x", "y"]
        parameters = [{{ name = "m" }}, {{ name = "c" }}]
        inputs = ["ux", "uy"]
        lagrangian = "0.5 * m * (dot(x).powi(2) + dot(y).powi(2))"
        servo = {servo}
        {extra}
        "#
    )
}

/// The particle on the track y = 0.5 x (a physical constraint) with a servo constraint of each
/// kind, written nonholonomic first, pushed through a generalized force and a load.
fn on_a_track() -> String {
    particle(
        r#"["nonholonomic(dot(y) - c * t)", "holonomic(x - t.powi(2))"]"#,
        r#"holonomic = ["y - 0.5 * x"]
        forces = ["c * ux", "0.0"]
        loads = ["force(vec3(0.0, uy, 0.0), vec3(x, y, 0.0))"]"#,
    )
}

/// The error messages of a model.
fn messages(toml_text: &str) -> Vec<String> {
    let errors = derive(&model(toml_text)).expect_err("the model has errors");
    errors.0.iter().map(|e| e.message.clone()).collect()
}

#[test]
fn servo_rows_are_derived_apart_from_the_physical_ones() {
    // Written nonholonomic first: the holonomic rows come first. The physical constraint
    // y = 0.5 x stays in A; the force enters through a load and a generalized force.
    let d = derived(&on_a_track());
    let eq = lagrangian(&d);
    assert_eq!(eq.constraint_rhs.len(), 1);
    let servo = eq.servo.as_ref().expect("servo equations");
    assert_eq!(servo.holonomic.len(), 1);
    let point = Point::random(&mut Rng(7), 2, 2);
    let (c, t, v) = (point.k[1], point.t, &point.v);
    let at = |ids: &[_]| point.eval_vec(&d.pool, ids);
    // e = x − t²: A_s row (1, 0), b_s = 2; φ = ẏ − c t: row (0, 1), b_s = c.
    assert_eq!(at(&servo.constraint_matrix.entries), [1.0, 0.0, 0.0, 1.0]);
    assert_eq!(at(&servo.constraint_rhs), [2.0, c]);
    assert_eq!(
        at(&servo.velocity_constraints),
        [v[0] - 2.0 * t, v[1] - c * t]
    );
    // Position residuals of all rows: f, then e, then 0 for φ.
    let (x, y) = (point.q[0], point.q[1]);
    let position = at(&servo.position_residual);
    assert_eq!(position.len(), 3);
    assert!((position[0] - (y - 0.5 * x)).abs() < 1e-15);
    assert!((position[1] - (x - t * t)).abs() < 1e-15);
    assert_eq!(position[2], 0.0);
    // B = ∂(Q + C)/∂u = [[c, 0], [0, 1]], and Q at u = 0 is zero.
    assert_eq!(at(&servo.input_matrix.entries), [c, 0.0, 0.0, 1.0]);
    assert_eq!(at(&servo.generalized_force), [0.0, 0.0]);
}

#[test]
fn the_equation_sheets_print_the_servo_rows_and_the_input_matrix() {
    let d = derived(&on_a_track());
    let sheet = equations_text(&d);
    // The servo rows and B next to the physical A and b, not inside them.
    for line in [
        "s = 2 servo constraints (1 holonomic, 1 nonholonomic), realized by the inputs (ux, uy)",
        "A, constraint matrix (1 x 2):",
        "A_s, servo constraint matrix (2 x 2):",
        "B, input matrix d(Q + C)/du (2 x 2):",
    ] {
        assert!(sheet.contains(line), "{line} in\n{sheet}");
    }
    insta::assert_snapshot!(format!("{sheet}\n{}", equations_latex(&d)));
}

/// The arm of the review paper's section 8.3 (`examples/models/flexible_joint_servo.toml`):
/// its sheets name the long subexpressions M and Q share, as for a model without servo rows.
#[test]
fn the_equation_sheets_of_the_flexible_joint_servo_arm() {
    let d = derived(include_str!(
        "../../examples/models/flexible_joint_servo.toml"
    ));
    insta::assert_snapshot!(format!("{}\n{}", equations_text(&d), equations_latex(&d)));
}

#[test]
fn servo_constraints_need_inputs() {
    let text = r#"
        name = "Particle"
        coordinates = ["x"]
        parameters = [{ name = "m" }]
        lagrangian = "0.5 * m * dot(x).powi(2)"
        servo = ["holonomic(x - t)"]
    "#;
    let found = messages(text);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("realized by the inputs"), "{found:?}");
}

#[test]
fn a_servo_entry_names_its_kind() {
    let found = messages(&particle(
        r#"["x - t", "rheonomic(y)"]"#,
        r#"forces = ["ux", "uy"]"#,
    ));
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(
        found.iter().all(|m| m.contains("`holonomic(e1, ...)`")),
        "{found:?}"
    );
}

#[test]
fn inputs_must_enter_linearly() {
    let found = messages(&particle(
        r#"["holonomic(x - t)"]"#,
        r#"forces = ["ux * ux", "uy"]"#,
    ));
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("nonlinearly"), "{found:?}");
}

#[test]
fn a_servo_constraint_holds_no_input_and_a_holonomic_one_no_velocity() {
    let found = messages(&particle(
        r#"["holonomic(x - ux)", "holonomic(dot(y))"]"#,
        r#"forces = ["ux", "uy"]"#,
    ));
    assert_eq!(found.len(), 2, "{found:?}");
}

#[test]
fn a_hamiltonian_model_takes_no_servo() {
    let text = r#"
        name = "Oscillator"
        coordinates = ["x"]
        momenta = ["p"]
        hamiltonian = "0.5 * p.powi(2) + 0.5 * x.powi(2)"
        servo = ["holonomic(x - t)"]
    "#;
    let found = messages(text);
    assert!(
        found.iter().any(|m| m.contains("takes no `servo`")),
        "{found:?}"
    );
}

/// The UR5 of `robots/ur5_robot.urdf` with the servo rows of `examples/ur5_circle.rs` (its
/// tool0 origin on a circle, its angular velocity zero), and `extra` servo entries.
fn ur5_circle(extra: &str) -> udk_symbolic::ModelSpec {
    let text = format!(
        r#"
        name = "Ur5Circle"
        urdf = {{ path = "robots/ur5_robot.urdf" }}
        parameters = [{{ name = "cx" }}, {{ name = "cy" }}, {{ name = "cz" }}, {{ name = "radius" }}, {{ name = "rate" }}]
        definitions = [
            {{ name = "tool", value = 'link_position("tool0")' }},
            {{ name = "tool_rotation", value = 'link_rotation("tool0")' }},
            {{ name = "target", value = "vec3(cx + radius * (rate * t).cos(), cy + radius * (rate * t).sin(), cz)" }},
        ]
        servo = ["holonomic(tool - target)", "nonholonomic(angular_velocity(tool_rotation))"{extra}]
        "#
    );
    let mut spec = model(&text);
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    udk_symbolic::urdf::expand(&mut spec, &root).expect("the URDF expands");
    spec
}

/// Checks the servo rows of `d` against finite differences along the motion
/// q(τ) = q + q̇ τ + ½ q̈ τ², t + τ from random states: for a holonomic row e, ė and ë = A q̈ − b
/// (central differences of e); for a nonholonomic row φ, φ̇ = A q̈ − b.
fn check_rows_by_differences(d: &udk_symbolic::Derivation, seed: u64) {
    let servo = lagrangian(d).servo.as_ref().expect("servo equations");
    let (n, holonomic) = (servo.constraint_matrix.cols, servo.holonomic.len());
    let mut rng = Rng(seed);
    for _ in 0..3 {
        let point = Point::random(&mut rng, n, 5);
        let along = |tau: f64| Point {
            q: (0..n)
                .map(|i| point.q[i] + point.v[i] * tau + 0.5 * point.a[i] * tau * tau)
                .collect(),
            v: (0..n).map(|i| point.v[i] + point.a[i] * tau).collect(),
            t: point.t + tau,
            ..point.clone()
        };
        let h = 1e-4;
        let (before, after) = (along(-h), along(h));
        let a = point.eval_matrix(&d.pool, &servo.constraint_matrix);
        let b = point.eval_vec(&d.pool, &servo.constraint_rhs);
        let velocity = point.eval_vec(&d.pool, &servo.velocity_constraints);
        let [e_before, e, e_after] =
            [&before, &point, &after].map(|p| p.eval_vec(&d.pool, &servo.holonomic));
        let [phi_before, phi_after] =
            [&before, &after].map(|p| p.eval_vec(&d.pool, &servo.velocity_constraints));
        for row in 0..servo.constraint_rhs.len() {
            let a_qdd: f64 = (0..n).map(|j| a[row][j] * point.a[j]).sum();
            let rate = if row < holonomic {
                let first = (e_after[row] - e_before[row]) / (2.0 * h);
                assert!((velocity[row] - first).abs() < 1e-6, "ė of row {row}");
                (e_after[row] - 2.0 * e[row] + e_before[row]) / (h * h)
            } else {
                (phi_after[row] - phi_before[row]) / (2.0 * h)
            };
            let expected = a_qdd - b[row];
            assert!(
                (rate - expected).abs() < 1e-5 * (1.0 + expected.abs()),
                "row {row}: A q̈ − b = {expected}, by differences {rate}"
            );
        }
    }
}

#[test]
fn the_servo_rows_of_link_frames_come_from_the_tree_kinematics() {
    // The tool's position and angular velocity, read with the tree's link velocities and
    // bias accelerations: A_s holds the geometric Jacobian, b_s the bias acceleration, and the
    // rows take 811 operations with the frames they use, where differentiating the frames'
    // world-frame expressions twice took 1519.
    let d = derive(&ur5_circle("")).expect("the model derives");
    let servo = lagrangian(&d).servo.as_ref().expect("servo equations");
    let rows = [
        &servo.constraint_matrix.entries[..],
        &servo.constraint_rhs,
        &servo.velocity_constraints,
    ]
    .concat();
    let size = d.pool.operation_count(&rows);
    assert!(size < 1000, "the servo rows take {size} operations");
    check_rows_by_differences(&d, 3);
    // A row the placeholders cannot read (`dot` differentiates the frames' expressions) falls
    // back to the expression as written, with the same values.
    let d = derive(&ur5_circle(r#", "nonholonomic(dot(tool).x() - radius)""#))
        .expect("the model derives");
    check_rows_by_differences(&d, 5);
}
