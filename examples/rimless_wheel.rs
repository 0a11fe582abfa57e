//! McGeer's rimless wheel (1990): a point mass m at the hub of N massless spokes of length l,
//! rolling down a slope γ. Between impacts the stance spoke is an inverted pendulum about its
//! foot, θ̈ = (g/l) sin θ (θ from the vertical); the next spoke strikes at θ = γ + α, α = π/N.
//! The impact is the fundamental equation at velocity level ([`udk::runtime::impact`]): the hub,
//! moving with velocity v⁻, meets the constraint that the new spoke's length does not change,
//! plastically (e = 0), so v⁺ is v⁻ without its component along the new spoke and θ̇⁺ =
//! cos(2α) θ̇⁻; the new spoke becomes the stance spoke, θ⁺ = θ⁻ − 2α.
//!
//! The step-to-step map of the speed just after impact is ω_{n+1} = cos 2α·√(ω_n² + 4(g/l) sin α
//! sin γ), with the fixed point ω* = cot(2α)·√(4(g/l) sin α sin γ) and the multiplier cos²(2α)
//! (/work/shared/references/hybrid.md).
//!
//! Run with `cargo run --example rimless_wheel`.

use udk::lagrangian;
use udk::nalgebra::{Matrix1x2, Matrix2, Vector1, Vector2};
use udk::runtime::simulate::{
    simulate_lagrangian_with_events, Direction, Event, SimulationOptions,
};
use udk::runtime::{impact, Options};

/// The stance phase of a rimless wheel: hub mass `m` (kg), spoke length `l` (m), gravity `g`
/// (m/s²), `spokes` spokes, slope `slope` (rad). Coordinate: the stance spoke's angle θ from
/// the vertical, positive downhill.
#[lagrangian(
    coordinates(theta),
    lagrangian = 0.5 * m * (l * dot(theta)).powi(2) - m * g * l * theta.cos(),
)]
pub struct RimlessWheel {
    pub m: f64,
    pub l: f64,
    pub g: f64,
    pub spokes: f64,
    pub slope: f64,
}

impl RimlessWheel {
    /// The wheel of the reference: m = 1 kg, l = 1 m, g = 9.81 m/s², 8 spokes, γ = 0.08 rad.
    pub const EXAMPLE: Self = Self {
        m: 1.0,
        l: 1.0,
        g: 9.81,
        spokes: 8.0,
        slope: 0.08,
    };

    /// Half the angle between spokes, α = π/N (rad).
    pub fn alpha(&self) -> f64 {
        std::f64::consts::PI / self.spokes
    }

    /// The closed-form fixed point ω* = cot(2α)·√(4(g/l) sin α sin γ) (rad/s).
    pub fn fixed_point(&self) -> f64 {
        let a = self.alpha();
        (4.0 * self.g / self.l * a.sin() * self.slope.sin()).sqrt() / (2.0 * a).tan()
    }

    /// The closed-form step-to-step map ω ↦ cos 2α·√(ω² + 4(g/l) sin α sin γ).
    pub fn return_map(&self, omega: f64) -> f64 {
        let a = self.alpha();
        (2.0 * a).cos()
            * (omega * omega + 4.0 * self.g / self.l * a.sin() * self.slope.sin()).sqrt()
    }

    /// The heel strike: θ crosses γ + α upwards; the reset is the impact of the new spoke,
    /// computed on the hub's velocity in the plane and mapped back to θ̇ about the new foot.
    pub fn strike(&self) -> Event<'_, 1> {
        Event::reset(
            "strike",
            Direction::Rising,
            |_, q: &Vector1<f64>, _| q[0] - (self.slope + self.alpha()),
            |_, q, v| {
                let (theta, l) = (q[0], self.l);
                // Hub velocity, the derivative of l (sin θ, cos θ) about the stance foot.
                let hub = Vector2::new(theta.cos(), -theta.sin()) * (l * v[0]);
                let after = theta - 2.0 * self.alpha();
                let spoke = Matrix1x2::new(after.sin(), after.cos());
                let mass_matrix = Matrix2::identity() * self.m;
                let options = Options::default();
                let jump = impact(&mass_matrix, &spoke, &Vector1::new(0.0), &hub, &options)?;
                let rate = jump.velocity.dot(&Vector2::new(after.cos(), -after.sin())) / l;
                Ok((Vector1::new(after), Vector1::new(rate)))
            },
        )
    }
}

#[allow(dead_code)]
fn main() {
    let wheel = RimlessWheel::EXAMPLE;
    let options = SimulationOptions::default();
    let (q0, v0) = (Vector1::new(wheel.slope - wheel.alpha()), Vector1::new(2.0));
    let run =
        simulate_lagrangian_with_events(&wheel, &q0, &v0, 0.0, 8.0, &options, &[wheel.strike()])
            .expect("the wheel rolls");
    println!("step   ω after impact (rad/s)   closed-form map");
    let mut omega = v0[0];
    for (k, event) in run.events.iter().enumerate() {
        println!(
            "{:>4}   {:.15}        {:.15}",
            k + 1,
            event.after.1[0],
            wheel.return_map(omega)
        );
        omega = event.after.1[0];
    }
    let a = wheel.alpha();
    println!(
        "ω* = {:.12} rad/s, multiplier cos²(2α) = {}",
        wheel.fixed_point(),
        (2.0 * a).cos().powi(2)
    );
}
