//! A wheel rolling without slipping down an incline, described with one coordinate too many
//! (Udwadia & Phohomsiri 2006, example 1, eqs 5.1–5.17).
//!
//! With θ and y taken as independent, the mass matrix diag(mR² + I_c, 0) is singular; the
//! rolling constraint y = Rθ sin α makes [M; A] full rank, so the acceleration is unique, and
//! the generated `acceleration` finds it with no special handling:
//! θ̈ = mgR sin α / (mR² + I_c), ÿ = mgR² sin² α / (mR² + I_c) (eq 5.17).
//!
//! Run with `cargo run --example wheel_on_incline`.

use udk::lagrangian;
use udk::nalgebra::Vector2;
use udk::runtime::simulate::{simulate_lagrangian, Showcase, SimulationOptions, Summary};

/// Wheel of mass `m` (kg), radius `r` (m) and central moment of inertia `ic` (kg m²) on a plane
/// inclined at `alpha` (rad), under gravity `g` (m/s²). Coordinates: the rotation θ and the
/// downward displacement y of the centre.
#[lagrangian(
    coordinates(theta, y),
    lagrangian = 0.5 * m * (r * dot(theta)).powi(2) + 0.5 * ic * dot(theta).powi(2) + m * g * y,
    holonomic(y - r * theta * alpha.sin()),
)]
pub struct WheelOnIncline {
    pub m: f64,
    pub r: f64,
    pub ic: f64,
    pub g: f64,
    pub alpha: f64,
}

impl WheelOnIncline {
    /// The wheel this example runs: 2 kg, radius 0.3 m, I_c = 0.09 kg m², on an incline of
    /// 0.4 rad under g = 9.81 m/s².
    pub const EXAMPLE: Self = Self {
        m: 2.0,
        r: 0.3,
        ic: 0.09,
        g: 9.81,
        alpha: 0.4,
    };
}

fn main() {
    let wheel = WheelOnIncline::EXAMPLE;
    println!("Derived equations:\n{}\n", WheelOnIncline::EQUATIONS.text);
    let (q, qd) = (
        Vector2::new(1.0, 0.3 * 0.4f64.sin()),
        Vector2::new(0.5, 0.15 * 0.4f64.sin()),
    );
    println!("M = {}", wheel.mass_matrix(&q, 0.0));
    let qdd = wheel
        .acceleration(&q, &qd, 0.0)
        .expect("[M; A] has full rank");
    println!("(θ̈, ÿ) = ({:.12}, {:.12})", qdd[0], qdd[1]);
    let WheelOnIncline { m, r, ic, g, alpha } = wheel;
    let d = m * r * r + ic;
    println!(
        "eq 5.17:  ({:.12}, {:.12})",
        m * g * r * alpha.sin() / d,
        m * g * (r * alpha.sin()).powi(2) / d
    );
    let force = wheel.constraint_force(&q, &qd, 0.0).expect("unique");
    println!("constraint force Qᶜ = ({:.12}, {:.12})", force[0], force[1]);

    // Rolling for 5 s from this state; writes target/udk/wheel_on_incline.csv and .svg.
    let run = Showcase::new(
        env!("CARGO_MANIFEST_DIR"),
        "wheel_on_incline",
        "Wheel on an incline, singular M (Udwadia & Phohomsiri 2006, eq 5.17)",
        &["θ", "y"],
    );
    let report = run.run(&SimulationOptions::every(0.01), |options| {
        simulate_lagrangian(&wheel, &q, &qd, 0.0, 5.0, options)
    });
    println!("\n{}\n{report}", Summary::header());
}
