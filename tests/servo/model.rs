//! `udk::Model::control`, the servo controller of a model known at run time, against the
//! generated `servo_control` of the same model: the section 8.3 arm
//! (`examples/models/flexible_joint_servo.toml`), a cart with a physical constraint, and the
//! UR5 circle (`examples/ur5_circle.rs`), whose controller takes the path by inverse dynamics.

use crate::flexible_joint::example::FlexibleJointServo;
use crate::ur5_circle::example::Ur5Circle;
use std::path::Path;
use udk::lagrangian;
use udk::nalgebra::Dyn;
use udk::nalgebra::{DVector, SVector, Vector2, Vector4};
use udk::runtime::servo::{
    control_dyn, Convergence, GenericServoControl, Realization, ServoControl, ServoLaw,
};
use udk::runtime::Options;
use udk::{Model, ModelError};

/// A cart of mass `m` on the track y = x/2 (a physical constraint), pushed along x by `f` and
/// along y by `h`; the task: x follows a sin t.
#[lagrangian(
    coordinates(x, y),
    inputs(f, h),
    lagrangian = 0.5 * m * (dot(x).powi(2) + dot(y).powi(2)) - m * g * y,
    holonomic(y - 0.5 * x),
    forces(f, h),
    servo(holonomic(x - a * t.sin())),
)]
pub struct Cart {
    pub m: f64,
    pub g: f64,
    pub a: f64,
}

const CART: &str = r#"
    name = "Cart"
    coordinates = ["x", "y"]
    parameters = [{ name = "m", value = 2.0 }, { name = "g", value = 9.81 }, { name = "a", value = 0.3 }]
    inputs = ["f", "h"]
    lagrangian = "0.5 * m * (dot(x).powi(2) + dot(y).powi(2)) - m * g * y"
    holonomic = ["y - 0.5 * x"]
    forces = ["f", "h"]
    servo = ["holonomic(x - a * t.sin())"]
"#;

/// The laws the comparison runs through: each convergence term, both realizations.
fn laws() -> Vec<ServoLaw> {
    let convergences = [
        Convergence::None,
        Convergence::Paper { p: 0.25 },
        Convergence::TaskSpace {
            stiffness: 16.0,
            damping: 8.0,
        },
    ];
    let realizations = [Realization::Force, Realization::Task];
    (convergences.iter())
        .flat_map(|&convergence| {
            (realizations.iter()).map(move |&realization| ServoLaw {
                convergence,
                realization,
            })
        })
        .collect()
}

/// max |x − y| ≤ 1e-14 · max(1, max |y|), entry by entry.
fn close(x: &DVector<f64>, y: &[f64], what: &str) {
    assert_eq!(x.len(), y.len(), "{what}");
    let scale = y.iter().fold(1.0_f64, |m, v| m.max(v.abs()));
    let error = (x.iter().zip(y)).fold(0.0_f64, |m, (a, b)| m.max((a - b).abs()));
    assert!(error <= 1e-14 * scale, "{what}: {x} against {y:?}");
}

/// Every output of the run-time controller against the generated one, by [`close`].
fn agree<const N: usize, const R: usize, const K: usize>(
    found: &GenericServoControl<Dyn, Dyn, Dyn>,
    expected: &ServoControl<N, R, K>,
) {
    close(&found.input, expected.input.as_slice(), "u");
    close(&found.acceleration, expected.acceleration.as_slice(), "q̈");
    close(&found.servo_force, expected.servo_force.as_slice(), "Qᶜ_s");
    close(
        &found.unrealized_force,
        expected.unrealized_force.as_slice(),
        "unrealized",
    );
    close(
        &found.task_residual,
        expected.task_residual.as_slice(),
        "task residual",
    );
}

#[test]
fn the_model_controls_the_section_8_3_arm_as_the_generated_code() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/models/flexible_joint_servo.toml");
    let model = Model::from_file(&path).unwrap();
    assert_eq!((model.num_servo(), model.num_servo_holonomic()), (1, 0));
    let arm = FlexibleJointServo::EXAMPLE;
    let states = [
        (Vector4::zeros(), Vector4::new(0.0, 1.0, 0.0, -0.1), 0.0),
        (
            Vector4::new(0.3, -0.2, 1.1, 0.7),
            Vector4::new(0.5, -1.5, 0.2, 2.0),
            1.3,
        ),
    ];
    for (q, qd, t) in states {
        let (dq, dqd) = (
            DVector::from_column_slice(q.as_slice()),
            DVector::from_column_slice(qd.as_slice()),
        );
        for law in laws() {
            let expected = arm.servo_control(&q, &qd, t, law).unwrap();
            let found = model.control(&dq, &dqd, t, law).unwrap();
            agree(&found, &expected);
        }
        let terms = model.servo_terms(&dq, &dqd, t).unwrap();
        // β = q̇⁽²⁾ + q̇⁽⁴⁾ in the one servo row.
        assert_eq!(terms.velocity_residual.as_slice(), [qd[1] + qd[3]]);
    }
}

#[test]
fn the_model_controls_a_cart_on_a_track_as_the_generated_code() {
    let spec: udk::ModelSpec = toml::from_str(CART).unwrap();
    let model = Model::from_spec(spec, Path::new(".")).unwrap();
    assert_eq!(
        (model.m(), model.num_servo(), model.num_servo_holonomic()),
        (1, 1, 1)
    );
    let cart = Cart {
        m: 2.0,
        g: 9.81,
        a: 0.3,
    };
    let (q, qd, t) = (Vector2::new(0.1, 0.05), Vector2::new(0.4, 0.2), 0.7);
    let (dq, dqd) = (
        DVector::from_column_slice(q.as_slice()),
        DVector::from_column_slice(qd.as_slice()),
    );
    for law in laws() {
        let expected = cart.servo_control(&q, &qd, t, law).unwrap();
        let found = model.control(&dq, &dqd, t, law).unwrap();
        agree(&found, &expected);
    }
    let terms = model.servo_terms(&dq, &dqd, t).unwrap();
    let generated = cart.servo_terms(&q, &qd, t);
    close(
        &terms.input_matrix.column(0).into_owned(),
        generated.input_matrix.column(0).as_slice(),
        "B",
    );
    close(
        &terms.constraint_rhs,
        generated.constraint_rhs.as_slice(),
        "[b; b_s]",
    );
}

/// The UR5 circle of `examples/ur5_circle.rs` as a model file, with its parameters.
fn ur5_circle_spec() -> String {
    let arm = Ur5Circle::EXAMPLE;
    let urdf = Path::new(env!("CARGO_MANIFEST_DIR")).join("robots/ur5_robot.urdf");
    format!(
        r#"
        name = "Ur5Circle"
        urdf = "{urdf}"
        parameters = [
            {{ name = "cx", value = {cx:?} }}, {{ name = "cy", value = {cy:?} }},
            {{ name = "cz", value = {cz:?} }}, {{ name = "radius", value = {radius:?} }},
            {{ name = "rate", value = {rate:?} }},
        ]
        definitions = [
            {{ name = "tool", value = 'link_position("tool0")' }},
            {{ name = "tool_rotation", value = 'link_rotation("tool0")' }},
            {{ name = "target", value = "vec3(cx + radius * (rate * t).cos(), cy + radius * (rate * t).sin(), cz)" }},
        ]
        servo = ["holonomic(tool - target)", "nonholonomic(angular_velocity(tool_rotation))"]
        "#,
        urdf = urdf.display(),
        cx = arm.cx,
        cy = arm.cy,
        cz = arm.cz,
        radius = arm.radius,
        rate = arm.rate,
    )
}

/// max |x − y| ≤ 1e-12 · max(1, max |y|).
fn within_1e12(x: &DVector<f64>, y: &[f64], what: &str) {
    let scale = y.iter().fold(1.0_f64, |m, v| m.max(v.abs()));
    let error = (x.iter().zip(y)).fold(0.0_f64, |m, (a, b)| m.max((a - b).abs()));
    assert!(error <= 1e-12 * scale, "{what}: {x} against {y:?}");
}

#[test]
fn the_model_controls_the_ur5_circle_by_inverse_dynamics() {
    // Fully actuated (B = I) with s = n = 6 servo rows: Model::control takes the path by
    // inverse dynamics; it must equal the general path (control_dyn on the full terms, with
    // M) and the generated servo_control.
    let spec: udk::ModelSpec = toml::from_str(&ur5_circle_spec()).unwrap();
    let model = Model::from_spec(spec, Path::new(".")).unwrap();
    assert_eq!((model.n(), model.m(), model.num_servo()), (6, 0, 6));
    let arm = Ur5Circle::EXAMPLE;
    let states = [
        (Ur5Circle::START, [0.0; 6], 0.0),
        (
            [0.32, -1.18, 1.63, -1.87, -1.52, 0.21],
            [0.1, -0.2, 0.3, 0.05, -0.1, 0.2],
            0.3,
        ),
    ];
    let laws = [
        Convergence::None,
        Convergence::Paper { p: 0.25 },
        Ur5Circle::GAINS,
    ];
    for (q, qd, t) in states {
        let (q, qd) = (SVector::from(q), SVector::from(qd));
        let (dq, dqd) = (
            DVector::from_column_slice(q.as_slice()),
            DVector::from_column_slice(qd.as_slice()),
        );
        for law in laws {
            let found = model.control(&dq, &dqd, t, law).unwrap();
            let terms = model.servo_terms(&dq, &dqd, t).unwrap();
            let general = control_dyn(&terms, 0, law, &Options::default()).unwrap();
            let generated = arm.servo_control(&q, &qd, t, law).unwrap();
            for (x, y, what) in [
                (
                    &found.input,
                    general.input.as_slice(),
                    "u against the general path",
                ),
                (
                    &found.input,
                    generated.input.as_slice(),
                    "u against the generated code",
                ),
                (
                    &found.acceleration,
                    general.acceleration.as_slice(),
                    "q̈ (general)",
                ),
                (
                    &found.acceleration,
                    generated.acceleration.as_slice(),
                    "q̈ (generated)",
                ),
            ] {
                within_1e12(x, y, &format!("{law:?}: {what}"));
            }
            assert!(found.realized(1e-12), "{law:?}");
        }
    }
}

#[test]
fn a_model_without_servo_constraints_says_so() {
    let spec: udk::ModelSpec = toml::from_str(
        r#"
        name = "Slider"
        coordinates = ["x"]
        parameters = [{ name = "m", value = 1.0 }]
        inputs = ["f"]
        lagrangian = "0.5 * m * dot(x).powi(2)"
        forces = ["f"]
        "#,
    )
    .unwrap();
    let model = Model::from_spec(spec, Path::new(".")).unwrap();
    let (q, qd) = (DVector::from_element(1, 0.0), DVector::from_element(1, 0.0));
    let error = model.control(&q, &qd, 0.0, Convergence::None).unwrap_err();
    assert_eq!(
        error,
        ModelError::NoServo {
            model: "Slider".into()
        }
    );
    assert_eq!(model.num_servo(), 0);
}
