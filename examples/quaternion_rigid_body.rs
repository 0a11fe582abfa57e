//! Rotational motion of a rigid body in unit quaternions (Udwadia & Wanichanon 2013, section 4,
//! eqs 4.1–4.6).
//!
//! Treating the four components of u as independent gives T = 2u̇ᵀEᵀJEu̇, whose mass matrix
//! M = 4EᵀJE has rank 3; the unit-norm constraint uᵀu = 1 completes it. The generated
//! `acceleration` reproduces eq 4.6,
//! ü = ½EᵀJ⁻¹(Γ_B − ω × Jω) − ¼|ω|²u with ω = 2Eu̇,
//! through the augmented mass matrix M + AᵀA, with no special handling.
//!
//! Run with `cargo run --example quaternion_rigid_body`.

use udk::lagrangian;
use udk::nalgebra::Vector4;
use udk::runtime::simulate::{simulate_lagrangian, Showcase, SimulationOptions, Summary};

/// A rigid body with principal moments of inertia `j1`, `j2`, `j3` (kg m²) under the body-frame
/// torque (`tau1`, `tau2`, `tau3`) (N m), in the unit quaternion u = (u0, u1, u2, u3). The
/// generalized torque is Γ_u = 2EᵀΓ_B (eq 4.4), with E of eq 4.2.
#[lagrangian(
    coordinates(u0, u1, u2, u3),
    lagrangian = 2.0 * (j1 * (-u1 * dot(u0) + u0 * dot(u1) + u3 * dot(u2) - u2 * dot(u3)).powi(2)
        + j2 * (-u2 * dot(u0) - u3 * dot(u1) + u0 * dot(u2) + u1 * dot(u3)).powi(2)
        + j3 * (-u3 * dot(u0) + u2 * dot(u1) - u1 * dot(u2) + u0 * dot(u3)).powi(2)),
    holonomic(u0.powi(2) + u1.powi(2) + u2.powi(2) + u3.powi(2) - 1.0),
    forces(
        2.0 * (-u1 * tau1 - u2 * tau2 - u3 * tau3),
        2.0 * (u0 * tau1 - u3 * tau2 + u2 * tau3),
        2.0 * (u3 * tau1 + u0 * tau2 - u1 * tau3),
        2.0 * (-u2 * tau1 + u1 * tau2 + u0 * tau3),
    ),
)]
pub struct QuaternionRigidBody {
    pub j1: f64,
    pub j2: f64,
    pub j3: f64,
    pub tau1: f64,
    pub tau2: f64,
    pub tau3: f64,
}

impl QuaternionRigidBody {
    /// The body this example runs: J = diag(1, 2, 3) kg m² under the body torque
    /// (0.1, −0.2, 0.3) N m.
    pub const EXAMPLE: Self = Self {
        j1: 1.0,
        j2: 2.0,
        j3: 3.0,
        tau1: 0.1,
        tau2: -0.2,
        tau3: 0.3,
    };
}

fn main() {
    let body = QuaternionRigidBody::EXAMPLE;
    let u = Vector4::new(0.5, 0.5, 0.5, 0.5);
    // A velocity tangent to the unit sphere: uᵀu̇ = 0.
    let ud = Vector4::new(0.1, -0.3, 0.2, 0.0);
    let m = body.mass_matrix(&u, 0.0);
    println!("M = 4EᵀJE = {m}");
    println!("rank M = {}", m.rank(1e-12));
    let udd = body
        .acceleration(&u, &ud, 0.0)
        .expect("[M; A] has full rank");
    println!("ü = {udd}");
    println!(
        "uᵀü + u̇ᵀu̇ = {:e} (the constraint at acceleration level)",
        u.dot(&udd) + ud.dot(&ud)
    );

    // 10 s under the constant body torque from this state.
    let run = Showcase {
        energy_note: Some("the applied torque does work"),
        ..Showcase::new(
            env!("CARGO_MANIFEST_DIR"),
            "quaternion_rigid_body",
            "Rigid body in quaternions under a body torque (Udwadia & Wanichanon 2013, eq 4.6)",
            &["u0", "u1", "u2", "u3"],
        )
    };
    let report = run.run(&SimulationOptions::every(0.01), |options| {
        simulate_lagrangian(&body, &u, &ud, 0.0, 10.0, options)
    });
    println!("\n{}\n{report}", Summary::header());
}
