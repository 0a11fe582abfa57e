//! The hybrid examples against the published values of /work/shared/references/hybrid.md: the
//! bouncing ball (impact times, the Zeno accumulation time, rest with a closed contact), the
//! rimless wheel (step-to-step map, fixed point, multiplier) and the simplest walker (its
//! long-gait fixed point and step period).

#![allow(dead_code)]

#[path = "../examples/bouncing_ball.rs"]
mod bouncing_ball;
#[path = "../examples/rimless_wheel.rs"]
mod rimless_wheel;
#[path = "../examples/simplest_walker.rs"]
mod simplest_walker;

use bouncing_ball::ContactBall;
use rimless_wheel::RimlessWheel;
use simplest_walker::SimplestWalker;
use udk::nalgebra::Vector1;
use udk::runtime::simulate::{
    periodic_orbit, simulate_lagrangian_with_events, OrbitOptions, SimulationOptions,
};

/// DOP853 at rtol 1e-12, atol 1e-14.
fn tight() -> SimulationOptions {
    SimulationOptions {
        rtol: 1e-12,
        atol: 1e-14,
        ..SimulationOptions::default()
    }
}

#[test]
fn bouncing_ball_comes_to_rest_at_the_zeno_time_with_a_closed_contact() {
    let ball = ContactBall::example();
    let (h, g, e) = (1.0, ball.g, ball.e);
    let run = ball.drop(h, 6.0).unwrap();
    let expected = [
        0.4515236409857309,
        1.1739614665629003,
        1.7519117270246358,
        2.2142719353940246,
        2.5841601020895353,
    ];
    for (k, (event, t)) in run.events.iter().zip(expected).enumerate() {
        assert!(
            (event.t - t).abs() < 1e-12,
            "impact {}: {} against {t}",
            k + 1,
            event.t
        );
    }
    // Impact k (from 1) meets the ball at eᵏ⁻¹√(2gh); the contact closes at the first k with
    // eᵏ√(2gh) below the rest speed.
    let speed = (2.0 * g * h).sqrt();
    let closing = (1..200)
        .find(|k| e.powi(*k) * speed < ContactBall::REST_SPEED)
        .unwrap();
    assert_eq!(run.events.len(), closing as usize);
    let rest = run.events.last().unwrap();
    // The closed-form time of impact k, and the bounces the closed contact leaves out.
    let t_k = (2.0 * h / g).sqrt() * (1.0 + 2.0 * (e - e.powi(closing)) / (1.0 - e));
    let left_out = 2.0 * e.powi(closing) * speed / (g * (1.0 - e));
    let accumulation = 4.063712768871578; // √(2h/g)(1+e)/(1−e)
    assert!((rest.t - t_k).abs() < 1e-11, "{} against {t_k}", rest.t);
    assert!(
        (rest.t + left_out - accumulation).abs() < 1e-11,
        "{}",
        rest.t
    );
    assert!(accumulation - rest.t < 2.0 * ContactBall::REST_SPEED / (g * (1.0 - e)));
    assert_eq!(rest.after.1[0], 0.0);
    assert!(ball.closed.get());
    // Resting: no event after the contact closed, on the ground with no speed to the end.
    let last = run.samples.last().unwrap();
    assert_eq!(last.t, 6.0);
    let resting = run.samples.iter().filter(|s| s.t > rest.t);
    assert!(resting.clone().count() > 0);
    for sample in resting {
        assert!(
            sample.q[0].abs() < 1e-12 && sample.v[0].abs() < 1e-12,
            "{sample:?}"
        );
    }
}

#[test]
fn rimless_wheel_steps_follow_the_closed_form_map_to_its_fixed_point() {
    let wheel = RimlessWheel::EXAMPLE;
    let options = tight();
    let a = wheel.alpha();
    let omega_star = wheel.fixed_point();
    assert!((omega_star - 1.0954628396).abs() < 1e-10, "{omega_star}");
    let start = |omega: f64, steps: f64| {
        let (q0, v0) = (Vector1::new(wheel.slope - a), Vector1::new(omega));
        let tf = steps * 2.0 * a / omega_star; // a step takes longer than 2α/ω*
        simulate_lagrangian_with_events(&wheel, &q0, &v0, 0.0, tf, &options, &[wheel.strike()])
            .unwrap()
    };
    let run = start(2.0, 60.0);
    assert!(run.events.len() >= 40, "{}", run.events.len());
    let mut omega = 2.0;
    for (k, event) in run.events.iter().enumerate() {
        let expected = wheel.return_map(omega);
        let after = event.after.1[0];
        assert!(
            (after - expected).abs() < 1e-11,
            "step {k}: {after} against {expected}"
        );
        assert!((event.before.0[0] - (wheel.slope + a)).abs() < 1e-12);
        assert!((event.after.0[0] - (wheel.slope - a)).abs() < 1e-12);
        omega = after;
    }
    assert!(
        (omega - omega_star).abs() < 1e-10,
        "{omega} against {omega_star}"
    );
    // The multiplier: one step from ω* + δ lands at ω* + cos²(2α) δ + O(δ²).
    let delta = 1e-5;
    let near = start(omega_star + delta, 1.5);
    let multiplier = (near.events[0].after.1[0] - omega_star) / delta;
    let expected = (2.0 * a).cos().powi(2);
    assert!(
        (multiplier - expected).abs() < 1e-5,
        "{multiplier} against {expected}"
    );
}

#[test]
fn simplest_walker_returns_to_its_published_fixed_point() {
    let walker = SimplestWalker { gamma: 0.009 };
    // The published fixed point (Garcia's code) and the recomputed one of the reference.
    let fixed_points = [
        (SimplestWalker::FIXED_POINT, 1e-9, 1e-8),
        ((0.2003109005442471, -0.1998324730049524), 1e-11, 1e-10),
    ];
    for ((theta, rate), tolerance, period_tolerance) in fixed_points {
        let run = walker.walk(theta, rate, 4.0).unwrap();
        assert_eq!(run.events.len(), 1, "{:?}", run.events);
        let event = &run.events[0];
        let (after_theta, after_rate) = (event.after.0[0], event.after.1[0]);
        assert!(
            (after_theta - theta).abs() < tolerance,
            "θ⁺ = {after_theta} against {theta}"
        );
        assert!(
            (after_rate - rate).abs() < tolerance,
            "θ̇⁺ = {after_rate} against {rate}"
        );
        let period = 3.882463752851374;
        assert!(
            (event.t - period).abs() < period_tolerance,
            "τ = {} against {period}",
            event.t
        );
        assert!(event.before.0[0] < 0.0);
    }
}

#[test]
fn rimless_wheel_orbit_by_newton_has_the_closed_form_fixed_point_and_multiplier() {
    let wheel = RimlessWheel::EXAMPLE;
    let options = tight();
    let a = wheel.alpha();
    let strike = wheel.strike();
    let guess = (&Vector1::new(wheel.slope - a), &Vector1::new(2.0));
    let orbit = periodic_orbit(&wheel, &strike, guess, &options, &OrbitOptions::default()).unwrap();
    let omega_star = wheel.fixed_point();
    assert!(
        (orbit.v[0] - omega_star).abs() < 1e-10,
        "{} against {omega_star}",
        orbit.v[0]
    );
    assert!((orbit.q[0] - (wheel.slope - a)).abs() < 1e-12);
    assert_eq!(orbit.multipliers.len(), 1);
    let expected = (2.0 * a).cos().powi(2);
    let multiplier = orbit.multipliers[0];
    eprintln!(
        "rimless wheel: ω* error {:.1e}, multiplier error {:.1e}, {} Newton iterations",
        orbit.v[0] - omega_star,
        multiplier.re - expected,
        orbit.iterations
    );
    // Φ from the variational equations: the multiplier to the integration tolerance, and
    // Newton's method converges quadratically from ω = 2 (about twice ω*).
    assert!(
        (multiplier.re - expected).abs() < 1e-10 && multiplier.im == 0.0,
        "{multiplier} against {expected}"
    );
    assert!((2..=5).contains(&orbit.iterations), "{}", orbit.iterations);
}

#[test]
fn simplest_walker_orbit_by_newton_has_the_recomputed_fixed_point_and_multipliers() {
    let walker = SimplestWalker { gamma: 0.009 };
    let options = tight();
    // A guess 1e-3 off the gait, from which Newton's method finds it.
    let (q, v) = SimplestWalker::after_strike(0.2, -0.2);
    let strike = SimplestWalker::heel_strike();
    let orbit = periodic_orbit(
        &walker,
        &strike,
        (&q, &v),
        &options,
        &OrbitOptions::default(),
    )
    .unwrap();
    // Recomputed (/work/shared/references/hybrid.md): θ*, θ̇*, τ, λ.
    let (theta, rate, period) = (0.2003109005442471, -0.1998324730049524, 3.882463752851374);
    assert!((orbit.q[0] - theta).abs() < 1e-10, "θ* = {}", orbit.q[0]);
    assert!((orbit.v[0] - rate).abs() < 1e-10, "θ̇* = {}", orbit.v[0]);
    assert!((orbit.q[1] - 2.0 * theta).abs() < 1e-10);
    assert!((orbit.period - period).abs() < 1e-9, "τ = {}", orbit.period);
    let (re, im) = (-0.1900998410658881, 0.5575987766820683);
    let pair = &orbit.multipliers[..2];
    eprintln!(
        "simplest walker: θ* error {:.1e}, θ̇* error {:.1e}, τ error {:.1e}, multipliers {:?}, {} Newton iterations",
        orbit.q[0] - theta,
        orbit.v[0] - rate,
        orbit.period - period,
        orbit.multipliers,
        orbit.iterations
    );
    // The reference agrees with variational equations to 10 digits.
    for m in pair {
        assert!(
            (m.re - re).abs() < 1e-9 && (m.im.abs() - im).abs() < 1e-9,
            "{pair:?}"
        );
    }
    assert!(orbit.iterations <= 4, "{}", orbit.iterations);
    assert!(pair[0].im * pair[1].im < 0.0, "a complex pair: {pair:?}");
    // The reset's image is two-dimensional (φ⁺ = 2θ⁺, φ̇⁺ from θ⁺, θ̇⁺): the last multiplier is 0.
    assert!(
        orbit.multipliers[2].norm() < 1e-12,
        "{:?}",
        orbit.multipliers
    );
}
