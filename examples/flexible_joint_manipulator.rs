//! A two-link manipulator with flexible joints whose link velocities must satisfy
//! q̇⁽²⁾ + q̇⁽⁴⁾ = 0 (review paper, section 8.3, eqs 65–72).
//!
//! q⁽¹⁾, q⁽³⁾ are the motor (joint) angles, q⁽²⁾, q⁽⁴⁾ the link angles; the links obey
//! D(q)q̈ + C(q, q̇)q̇ + G(q) + K(q_link − q_motor) = 0 and the motors J q̈ − K(q_link − q_motor) = 0
//! (no motor input here). D, C and G are those of section 8.3; the Lagrangian below reproduces
//! them, with m₂ in c₁₁ where the paper prints m₁ (the textbook two-link arm has m₂).
//!
//! Run with `cargo run --example flexible_joint_manipulator`.

use udk::lagrangian;
use udk::nalgebra::{Matrix2, Vector2, Vector4};
use udk::runtime::servo::{servo_loop, Convergence};
use udk::runtime::simulate::{simulate_lagrangian, Showcase, SimulationOptions, Summary};
use udk::runtime::Options;

/// The flexible-joint arm of section 8.3 with the keys `$keys` after its Lagrangian, as the
/// struct `$name` (one Lagrangian for the arm under a physical constraint and for the arm
/// under servo control).
macro_rules! flexible_joint_arm {
    ($(#[$doc:meta])* $name:ident, $($keys:tt)*) => {
        $(#[$doc])*
        /// Link masses `m1`, `m2` (kg), first link length `l1` (m), centres of mass `lc1`,
        /// `lc2` (m), link moments of inertia `i1`, `i2` (kg m²), motor inertias `j11`, `j22`
        /// (kg m²), joint stiffnesses `k1`, `k2` (N m/rad), gravity `g` (m/s²).
        #[lagrangian(
            coordinates(q1, q2, q3, q4),
            lagrangian = 0.5 * (m2 * (l1.powi(2) + lc2.powi(2) + 2.0 * l1 * lc2 * q4.cos()) + m1 * lc1.powi(2) + i1 + i2)
                    * dot(q2).powi(2)
                + (m2 * (lc2.powi(2) + l1 * lc2 * q4.cos()) + i2) * dot(q2) * dot(q4)
                + 0.5 * (m2 * lc2.powi(2) + i2) * dot(q4).powi(2)
                + 0.5 * (j11 * dot(q1).powi(2) + j22 * dot(q3).powi(2))
                + (m1 * lc1 + m2 * l1) * g * q2.cos() + m2 * lc2 * g * (q2 + q4).cos()
                - 0.5 * k1 * (q2 - q1).powi(2) - 0.5 * k2 * (q4 - q3).powi(2),
            $($keys)*
        )]
        pub struct $name {
            pub m1: f64,
            pub m2: f64,
            pub l1: f64,
            pub lc1: f64,
            pub lc2: f64,
            pub i1: f64,
            pub i2: f64,
            pub j11: f64,
            pub j22: f64,
            pub k1: f64,
            pub k2: f64,
            pub g: f64,
        }

        impl $name {
            /// The paper's simulation parameters (all 1 in SI units, g = 9.81 m/s², centres of
            /// mass at mid-link).
            pub const EXAMPLE: Self = Self {
                m1: 1.0,
                m2: 1.0,
                l1: 1.0,
                lc1: 0.5,
                lc2: 0.5,
                i1: 1.0,
                i2: 1.0,
                j11: 1.0,
                j22: 1.0,
                k1: 1.0,
                k2: 1.0,
                g: 9.81,
            };
        }
    };
}

flexible_joint_arm!(
    /// The arm with q̇⁽²⁾ + q̇⁽⁴⁾ = 0 as a physical constraint, enforced from the start.
    FlexibleJointManipulator,
    nonholonomic(dot(q2) + dot(q4)),
);

flexible_joint_arm!(
    /// The arm with q̇⁽²⁾ + q̇⁽⁴⁾ = 0 as a servo constraint, realized by torques `tau2`, `tau4`
    /// on the links (N m). The paper's motor torques cannot realize it: see
    /// [`FlexibleJointMotorServo`].
    FlexibleJointServo,
    inputs(tau2, tau4),
    forces(0.0, tau2, 0.0, tau4),
    servo(nonholonomic(dot(q2) + dot(q4))),
    outputs(beta = dot(q2) + dot(q4)),
);

flexible_joint_arm!(
    /// The arm with the same servo constraint and the paper's inputs, the motor torques `u1`,
    /// `u3` (N m, eq 66). A motor torque reaches the links only through the springs, so it
    /// does not change q̈⁽²⁾ + q̈⁽⁴⁾ at the instant it is applied: the servo force is not
    /// realizable by these inputs, and the controller says so in its residual.
    FlexibleJointMotorServo,
    inputs(u1, u3),
    forces(u1, 0.0, u3, 0.0),
    servo(nonholonomic(dot(q2) + dot(q4))),
);

impl FlexibleJointManipulator {
    /// The spring deflections δ = link − motor angle at which motor and link accelerate
    /// alike, at the link angles `links` and rates `rates` (motors turning with their links):
    /// r(δ) = 0, r the link-minus-motor accelerations, by three Newton steps with a difference
    /// Jacobian (r is affine in δ: the springs are linear).
    fn balanced_deflection(
        &self,
        links: [f64; 2],
        rates: [f64; 2],
    ) -> Result<Vector2<f64>, udk::Error> {
        let qd = Vector4::new(rates[0], rates[0], rates[1], rates[1]);
        let relative = |d: &Vector2<f64>| -> Result<Vector2<f64>, udk::Error> {
            let q = Vector4::new(links[0] - d[0], links[0], links[1] - d[1], links[1]);
            let qdd = self.acceleration(&q, &qd, 0.0)?;
            Ok(Vector2::new(qdd[1] - qdd[0], qdd[3] - qdd[2]))
        };
        let mut deflection = Vector2::zeros();
        for _ in 0..3 {
            let r = relative(&deflection)?;
            let step = 1e-6 * (1.0 + deflection.amax());
            let mut slope = Matrix2::zeros();
            for j in 0..2 {
                let column = (relative(&(deflection + Vector2::ith(j, step)))? - r) / step;
                slope.set_column(j, &column);
            }
            let inverse = slope.try_inverse().ok_or(udk::Error::NonFinite {
                what: "deflection Newton step",
            })?;
            deflection -= inverse * r;
        }
        Ok(deflection)
    }

    /// A start on the slow manifold at the link angles (q⁽²⁾, q⁽⁴⁾) = `links` and link rates
    /// `rates` (`rates[0] + rates[1] = 0`): each motor is offset from its link by the deflection
    /// δ that gives both the same acceleration, and turns at the link rate minus δ̇ (δ̇ by a
    /// central difference along the motion), so the fast joint mode (√(k/j) rad/s) is barely
    /// excited and stiff joints make a stiff, not an oscillatory, problem.
    ///
    /// # Errors
    /// As [`FlexibleJointManipulator::acceleration`].
    pub fn slow_start(
        &self,
        links: [f64; 2],
        rates: [f64; 2],
    ) -> Result<(Vector4<f64>, Vector4<f64>), udk::Error> {
        let deflection = self.balanced_deflection(links, rates)?;
        let h = 1e-4;
        let moved = |sign: f64| {
            [
                links[0] + sign * h * rates[0],
                links[1] + sign * h * rates[1],
            ]
        };
        let rate = (self.balanced_deflection(moved(1.0), rates)?
            - self.balanced_deflection(moved(-1.0), rates)?)
            / (2.0 * h);
        let q = Vector4::new(
            links[0] - deflection[0],
            links[0],
            links[1] - deflection[1],
            links[1],
        );
        let qd = Vector4::new(rates[0] - rate[0], rates[0], rates[1] - rate[1], rates[1]);
        Ok((q, qd))
    }
}

fn main() {
    let arm = FlexibleJointManipulator::EXAMPLE;
    let q = Vector4::new(0.1, 0.2, -0.1, 0.3);
    let qd = Vector4::new(0.0, 1.0, 0.0, -1.0);
    println!("M = {}", arm.mass_matrix(&q, 0.0));
    let qdd = arm.acceleration(&q, &qd, 0.0).expect("unique");
    println!("q̈ = {:?}", qdd.as_slice());
    println!("q̈⁽²⁾ + q̈⁽⁴⁾ = {:e}", qdd[1] + qdd[3]);
    println!(
        "constraint force = {:?}",
        arm.constraint_force(&q, &qd, 0.0)
            .expect("unique")
            .as_slice()
    );

    // 10 s from this state (q̇⁽²⁾ + q̇⁽⁴⁾ = 0).
    let run = Showcase::new(
        env!("CARGO_MANIFEST_DIR"),
        "flexible_joint_manipulator",
        "Flexible-joint manipulator, q̇₂ + q̇₄ = 0 (review paper, section 8.3)",
        &["q1", "q2", "q3", "q4"],
    );
    let report = run.run(&SimulationOptions::every(0.01), |options| {
        simulate_lagrangian(&arm, &q, &qd, 0.0, 10.0, options)
    });
    println!("\n{}\n{report}", Summary::header());

    // Control by the same constraint (section 8.3, Figures 10 and 11): the paper's start
    // q̇⁽²⁾(0) = 1, q̇⁽⁴⁾(0) = −0.1, so β(0) = 0.9, driven to zero by eq 72 with P = 0.25 s.
    let servo = FlexibleJointServo::EXAMPLE;
    let (q0, qd0) = (Vector4::zeros(), Vector4::new(0.0, 1.0, 0.0, -0.1));
    let law = Convergence::Paper { p: PAPER_GAIN };
    let control = servo
        .servo_control(&q0, &qd0, 0.0, law)
        .expect("M is positive definite");
    println!(
        "\nservo: u(0) = {:?}, β(0) = {}",
        control.input.as_slice(),
        servo.beta(&q0, &qd0, &control.input, 0.0)
    );
    let run = Showcase {
        columns: &["beta", "qd2", "qd4"],
        energy_note: Some("the servo torques do work"),
        ..Showcase::new(
            env!("CARGO_MANIFEST_DIR"),
            "flexible_joint_servo",
            "Flexible-joint manipulator under servo control, eq 72 (Figures 10 and 11)",
            &["q1", "q2", "q3", "q4"],
        )
    };
    let report = run.run(&SimulationOptions::every(0.01), |options| {
        let closed = servo_loop(&servo, law, Options::default());
        simulate_lagrangian(&closed, &q0, &qd0, 0.0, 5.0, options)
    });
    println!("{report}");

    // The paper's motor torques cannot realize the constraint at an instant: the residual.
    let motors = FlexibleJointMotorServo::EXAMPLE;
    let control = motors
        .servo_control(&q0, &qd0, 0.0, law)
        .expect("M is positive definite");
    println!(
        "motor torques: u = {:?}, unrealized force {:?}",
        control.input.as_slice(),
        control.unrealized_force.as_slice()
    );
}

/// The gain P (s) of eq 72 in the examples and tests: the paper does not print its value;
/// with P = 0.25 s, β(t) = 0.9 e^(−4t) is below 0.01 before t = 2 s, as in its Figure 10.
pub const PAPER_GAIN: f64 = 0.25;
