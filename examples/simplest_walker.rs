//! The simplest walking model of Garcia, Chatterjee, Ruina & Coleman (1998): a point-mass hip on
//! massless legs with infinitesimal point-mass feet, walking down a slope γ, in units where
//! l = g = 1. θ is the stance leg's angle from the slope normal, φ the angle between the legs.
//!
//! Swing: θ̈ = sin(θ − γ), φ̈ = sin φ (θ̇² − cos(θ − γ)) + sin(θ − γ): the limit of a vanishing
//! foot mass, written here as two unit-mass coordinates driven by these generalized forces.
//! Heel strike: φ − 2θ crosses 0 upwards with θ < 0. The event's condition θ < 0 passes through
//! the crossings at θ > 0: the scuffing of the swing foot near θ = 0, and the start of each step,
//! where φ − 2θ = 0 and rises. The impact swaps the
//! legs: θ⁺ = −θ⁻, θ̇⁺ = cos(2θ⁻) θ̇⁻, φ⁺ = −2θ⁻, φ̇⁺ = (1 − cos 2θ⁺) θ̇⁺.
//!
//! At γ = 0.009 the long, stable gait has the fixed point θ* = 0.20031090049483,
//! θ̇* = −0.19983247291764 just after heel strike, and the step period τ = 3.882463752851374
//! (/work/shared/references/hybrid.md).
//!
//! Run with `cargo run --example simplest_walker`.

use udk::lagrangian;
use udk::nalgebra::Vector2;
use udk::runtime::simulate::{
    simulate_lagrangian_with_events, Direction, Event, SimulationError, SimulationOptions,
    Trajectory,
};

/// The swing phase of the simplest walker on the slope `gamma` (rad), coordinates (θ, φ).
#[lagrangian(
    coordinates(theta, phi),
    lagrangian = 0.5 * dot(theta).powi(2) + 0.5 * dot(phi).powi(2),
    forces(
        (theta - gamma).sin(),
        phi.sin() * (dot(theta).powi(2) - (theta - gamma).cos()) + (theta - gamma).sin()
    ),
)]
pub struct SimplestWalker {
    pub gamma: f64,
}

impl SimplestWalker {
    /// The published long-gait fixed point (θ*, θ̇*) at γ = 0.009.
    pub const FIXED_POINT: (f64, f64) = (0.20031090049483, -0.19983247291764);

    /// The full state (θ, φ), (θ̇, φ̇) just after heel strike with stance angle θ and rate θ̇.
    pub fn after_strike(theta: f64, rate: f64) -> (Vector2<f64>, Vector2<f64>) {
        let swing = (1.0 - (2.0 * theta).cos()) * rate;
        (Vector2::new(theta, 2.0 * theta), Vector2::new(rate, swing))
    }

    /// The walker started just after a heel strike with stance angle θ and rate θ̇, run to `tf`
    /// (in units of √(l/g)) by DOP853 at rtol 1e-12, atol 1e-14.
    ///
    /// # Errors
    /// As [`simulate_lagrangian_with_events`].
    pub fn walk(
        &self,
        theta: f64,
        rate: f64,
        tf: f64,
    ) -> Result<Trajectory<2>, SimulationError<2>> {
        let options = SimulationOptions {
            rtol: 1e-12,
            atol: 1e-14,
            ..SimulationOptions::default()
        };
        let (q0, v0) = Self::after_strike(theta, rate);
        let strike = [Self::heel_strike()];
        simulate_lagrangian_with_events(self, &q0, &v0, 0.0, tf, &options, &strike)
    }

    /// The heel strike and its leg swap.
    pub fn heel_strike() -> Event<'static, 2> {
        Event::reset(
            "heel strike",
            Direction::Rising,
            |_, q: &Vector2<f64>, _| q[1] - 2.0 * q[0],
            |_, q, v| {
                let theta = -q[0];
                Ok(Self::after_strike(theta, (2.0 * q[0]).cos() * v[0]))
            },
        )
        .when(|_, q, _| q[0] < 0.0)
    }
}

#[allow(dead_code)]
fn main() {
    let walker = SimplestWalker { gamma: 0.009 };
    let (theta, rate) = SimplestWalker::FIXED_POINT;
    let run = walker
        .walk(theta, rate, 4.0 * 3.9)
        .expect("the walker walks");
    println!("step   t (s)              θ⁺                 θ̇⁺");
    for (k, event) in run.events.iter().enumerate() {
        println!(
            "{:>4}   {:.12}   {:.14}   {:.14}",
            k + 1,
            event.t,
            event.after.0[0],
            event.after.1[0]
        );
    }
    println!("published fixed point: θ* = {theta}, θ̇* = {rate}; step period 3.882463752851374");
}
