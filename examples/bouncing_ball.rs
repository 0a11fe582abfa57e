//! A ball dropped onto the ground, bouncing with restitution e until it comes to rest: an event
//! (the gap y crossing 0 downwards), an impact by the fundamental equation at velocity level
//! ([`udk::runtime::impact`]) as its reset map, and a contact that closes when the rebound
//! becomes too small to matter.
//!
//! From height h at rest, the impacts are at t₁ = √(2h/g), t_{k+1} = t_k + 2eᵏ√(2gh)/g, and they
//! accumulate (Zeno) at t∞ = √(2h/g)(1+e)/(1−e) (/work/shared/references/hybrid.md). The ball
//! cannot be integrated through infinitely many bounces: when the speed after an impact would
//! be below [`ContactBall::REST_SPEED`], the impact is made plastic and the contact closes, as
//! the constraint y = 0 (A q̈ = b with A = [1], b = 0). The ball then rests on the ground. The
//! bounces left out would have lasted 2v⁺/(g(1−e)) < 2·REST_SPEED/(g(1−e)) in all.
//!
//! Run with `cargo run --example bouncing_ball`.

use std::cell::Cell;
use udk::nalgebra::{Matrix1, SVector, Vector1};
use udk::runtime::simulate::{
    simulate_lagrangian_with_events, Direction, Event, SimulationError, SimulationOptions,
    Trajectory,
};
use udk::runtime::{impact, LagrangianSystem, LagrangianTerms, ModelEquations, Options};

/// A ball of mass `m` (kg) at height y (m) under gravity `g` (m/s²), above the ground y = 0
/// with restitution `e`. The contact with the ground is open (free flight, no constraint) or
/// closed (the constraint y = 0); the impact of [`ContactBall::ground`] closes it.
#[derive(Debug)]
pub struct ContactBall {
    pub m: f64,
    pub g: f64,
    pub e: f64,
    /// Whether the contact is closed.
    pub closed: Cell<bool>,
}

impl ContactBall {
    /// A rebound slower than this (m/s) closes the contact instead.
    pub const REST_SPEED: f64 = 1e-6;

    /// The ball of the reference: 1 kg, g = 9.81 m/s², e = 0.8, in flight.
    pub fn example() -> Self {
        Self {
            m: 1.0,
            g: 9.81,
            e: 0.8,
            closed: Cell::new(false),
        }
    }

    /// The ball dropped from rest at height `h` (m), run to `tf` (s) with the default options.
    ///
    /// # Errors
    /// As [`simulate_lagrangian_with_events`].
    pub fn drop(&self, h: f64, tf: f64) -> Result<Trajectory<1>, SimulationError<1>> {
        let options = SimulationOptions::default();
        let (q0, v0) = (Vector1::new(h), Vector1::zeros());
        simulate_lagrangian_with_events(self, &q0, &v0, 0.0, tf, &options, &[self.ground()])
    }

    /// 1 while the contact is closed, 0 while it is open: the constraint row A.
    fn contact(&self) -> f64 {
        f64::from(u8::from(self.closed.get()))
    }

    /// The touchdown event: the gap y crosses 0 downwards while the contact is open (the gap
    /// is not watched once it is closed). Its reset is the impact ẏ⁺ = −e ẏ⁻ by
    /// [`udk::runtime::impact`], plastic (e = 0) when e|ẏ⁻| < [`Self::REST_SPEED`], and then the
    /// contact closes.
    pub fn ground(&self) -> Event<'_, 1> {
        Event::reset(
            "ground",
            Direction::Falling,
            |_, q: &Vector1<f64>, _| if self.closed.get() { 1.0 } else { q[0] },
            |_, q, v| {
                let rest = self.e * v[0].abs() < Self::REST_SPEED;
                let e = if rest { 0.0 } else { self.e };
                let mass_matrix = Matrix1::new(self.m);
                let gap = Matrix1::new(1.0);
                let jump = impact(&mass_matrix, &gap, &Vector1::new(e), v, &Options::default())?;
                self.closed.set(rest);
                Ok((*q, jump.velocity))
            },
        )
    }
}

impl LagrangianSystem<1, 1> for ContactBall {
    const EQUATIONS: ModelEquations = ModelEquations {
        text: "m ÿ = −m g + λ, λ ẏ = 0 while the contact is closed (A = [1], b = 0)",
        latex: r"m \ddot y = -m g + \lambda",
    };
    const NUM_HOLONOMIC: usize = 1;

    fn terms(&self, _: &SVector<f64, 1>, _: &SVector<f64, 1>, _: f64) -> LagrangianTerms<1, 1> {
        LagrangianTerms {
            mass_matrix: Matrix1::new(self.m),
            generalized_force: Vector1::new(-self.m * self.g),
            constraint_matrix: Matrix1::new(self.contact()),
            constraint_rhs: Vector1::zeros(),
            nonideal_force: None,
        }
    }

    fn energy(&self, q: &SVector<f64, 1>, qd: &SVector<f64, 1>, _: f64) -> f64 {
        0.5 * self.m * qd[0] * qd[0] + self.m * self.g * q[0]
    }

    fn holonomic_residual(&self, q: &SVector<f64, 1>, _: f64) -> SVector<f64, 1> {
        Vector1::new(self.contact() * q[0])
    }

    fn velocity_residual(
        &self,
        _: &SVector<f64, 1>,
        qd: &SVector<f64, 1>,
        _: f64,
    ) -> SVector<f64, 1> {
        Vector1::new(self.contact() * qd[0])
    }
}

#[allow(dead_code)]
fn main() {
    let ball = ContactBall::example();
    let (h, g, e) = (1.0, ball.g, ball.e);
    let run = ball.drop(h, 6.0).expect("the ball comes to rest");
    println!("impact   t (s)                 closed form           ẏ⁺ (m/s)");
    let mut t = (2.0 * h / g).sqrt();
    for (k, event) in run.events.iter().enumerate().take(5) {
        println!(
            "{:>6}   {:.17}   {:.17}   {:.12}",
            k + 1,
            event.t,
            t,
            event.after.1[0]
        );
        t += 2.0 * e.powi(k as i32 + 1) * (2.0 * g * h).sqrt() / g;
    }
    let rest = run.events.last().expect("impacts");
    let accumulation = (2.0 * h / g).sqrt() * (1.0 + e) / (1.0 - e);
    println!(
        "{} impacts; the contact closes at t = {:.12} s, t∞ = {accumulation:.12} s",
        run.events.len(),
        rest.t
    );
    let last = run.samples.last().expect("samples");
    println!(
        "at t = {} s: y = {:.3e} m, ẏ = {:.3e} m/s",
        last.t, last.q[0], last.v[0]
    );
}
