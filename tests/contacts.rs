//! Unilateral contacts written in `#[lagrangian]` (`contacts(..)`), run by the one simulator
//! through the generated `contact_set`: the bouncing ball's impact times against the closed
//! form, a closed contact's gap held at position level, a contact set whose impulses have no
//! solution, and moving surfaces (a ball on a rising platform, a block dropped on a conveyor
//! belt) against their closed forms.

use std::ops::ControlFlow;
use udk::lagrangian;
use udk::nalgebra::{SVector, Vector1, Vector2};
use udk::runtime::simulate::{
    simulate_dynamic_lagrangian_with_events, ContactMode, ContactSet, DynamicLagrangianSystem,
    SimulationError, SimulationOptions, Trajectory,
};
use udk::runtime::Error;

/// DOP853 at rtol 1e-12, atol 1e-14.
fn tight() -> SimulationOptions {
    SimulationOptions {
        rtol: 1e-12,
        atol: 1e-14,
        ..SimulationOptions::default()
    }
}

/// The run of `contacts` with their events from `start` at t = 0 to `tf`, under `options`.
fn simulate<'a, S: DynamicLagrangianSystem, const N: usize>(
    contacts: &'a ContactSet<'a, S>,
    start: (&SVector<f64, N>, &SVector<f64, N>),
    tf: f64,
    options: &SimulationOptions,
) -> Result<Trajectory<N>, SimulationError<N>> {
    let events = contacts.events::<N>();
    simulate_dynamic_lagrangian_with_events(contacts, start, (0.0, tf), options, &events, |_| {
        ControlFlow::Continue(())
    })
}

/// A ball of mass m falling under gravity g onto the ground y = 0, restitution e, coming to
/// rest when it would rebound slower than `rest`.
#[lagrangian(
    coordinates(y),
    lagrangian = 0.5 * m * dot(y).powi(2) - m * g * y,
    contacts(ground(gap = y, restitution = e, rest_speed = rest)),
)]
pub struct Ball {
    pub m: f64,
    pub g: f64,
    pub e: f64,
    pub rest: f64,
}

#[test]
fn a_ball_written_in_the_macro_bounces_at_the_closed_form_times_and_rests() {
    let ball = Ball {
        m: 0.5,
        g: 9.81,
        e: 0.8,
        rest: 0.01,
    };
    assert_eq!(Ball::CONTACT_NAMES, ["ground"]);
    let contacts = ball.contact_set().unwrap();
    let h = 1.0;
    let start = (&Vector1::new(h), &Vector1::zeros());
    let accumulation = (2.0 * h / ball.g).sqrt() * (1.0 + ball.e) / (1.0 - ball.e);
    let tf = accumulation + 1.0;
    let run = simulate(&contacts, start, tf, &tight()).unwrap();
    // t_k = √(2h/g) (1 + 2e + … + 2e^(k−1)); the last impact is plastic (e|v| < rest).
    let t1 = (2.0 * h / ball.g).sqrt();
    let mut expected = t1;
    let mut worst = 0.0f64;
    for (k, impact) in run.events.iter().enumerate() {
        assert_eq!(impact.name, "ground touchdown");
        worst = worst.max((impact.t - expected).abs());
        let speed = ball.g * t1 * ball.e.powi(k as i32);
        assert!((impact.before.1[0] + speed).abs() < 1e-9, "impact {k}");
        expected += 2.0 * t1 * ball.e.powi(k as i32 + 1);
    }
    assert!(worst < 1e-11, "impact times off by {worst:e}");
    // The first impact slower than rest/e closes the contact: g t1 e^k · e < rest.
    let resting = (0..).find(|&k| ball.g * t1 * ball.e.powi(k + 1) < ball.rest);
    assert_eq!(Some(run.events.len() as i32 - 1), resting);
    assert_eq!(contacts.modes(), [ContactMode::Sticking]);
    let last = run.samples.last().unwrap();
    assert!(
        last.q[0].abs() < 1e-12 && last.v[0].abs() < 1e-12,
        "{last:?}"
    );
    let forces = contacts
        .forces(last.q.as_slice(), last.v.as_slice(), tf)
        .unwrap();
    assert!(
        (forces[0].value - ball.m * ball.g).abs() < 1e-9,
        "{forces:?}"
    );
}

/// A bead of mass m in a circular bowl of radius r (gap r − |p|, no friction), under gravity.
#[lagrangian(
    coordinates(x, y),
    lagrangian = 0.5 * m * (dot(x).powi(2) + dot(y).powi(2)) - m * g * y,
    contacts(wall(gap = r - (x.powi(2) + y.powi(2)).sqrt())),
)]
pub struct Bowl {
    pub m: f64,
    pub g: f64,
    pub r: f64,
}

/// The largest |gap| over a run of the bead sliding along the closed wall of the bowl for
/// `tf` seconds at rtol `rtol`.
fn bowl_drift(tf: f64, rtol: f64) -> f64 {
    let bowl = Bowl {
        m: 1.0,
        g: 9.81,
        r: 0.5,
    };
    let contacts = bowl.contact_set().unwrap();
    // On the wall at 60° from the bottom, moving along it at 1 m/s.
    let (s, c) = f64::sin_cos(1.0);
    let q = Vector2::new(bowl.r * s, -bowl.r * c);
    let qd = Vector2::new(c, s);
    contacts
        .settle(q.as_slice(), qd.as_slice(), 0.0, 1e-12)
        .unwrap();
    assert_eq!(contacts.modes(), [ContactMode::Sticking]);
    let options = SimulationOptions {
        rtol,
        atol: rtol * 1e-2,
        ..SimulationOptions::default()
    };
    let run = simulate(&contacts, (&q, &qd), tf, &options).unwrap();
    assert!(run.events.is_empty(), "{:?}", run.events);
    (run.samples.iter())
        .map(|s| (bowl.r - s.q.norm()).abs())
        .fold(0.0, f64::max)
}

#[test]
fn a_closed_contacts_gap_does_not_drift() {
    // Held at position level by the simulator's Baumgarte stabilization, as the model's own
    // holonomic rows are: the gap stays at the integrator's tolerance over 50 oscillations.
    let drift = bowl_drift(50.0, 1e-8);
    assert!(drift < 1e-9, "the gap drifted to {drift:e}");
}

/// A ball driven up at speed w by a holonomic constraint y = w t, under a ceiling at height h
/// with restitution e: the impact would need ẏ⁺ = 0 (the drive persists) and a rebound from
/// the ceiling at once.
#[lagrangian(
    coordinates(y),
    lagrangian = 0.5 * m * dot(y).powi(2) - m * g * y,
    holonomic(y - w * t),
    contacts(ceiling(gap = h - y, restitution = e)),
)]
pub struct Driven {
    pub m: f64,
    pub g: f64,
    pub w: f64,
    pub h: f64,
    pub e: f64,
}

#[test]
fn contacts_whose_impulses_have_no_solution_give_the_typed_error() {
    let driven = Driven {
        m: 1.0,
        g: 9.81,
        w: 2.0,
        h: 1.0,
        e: 0.5,
    };
    let contacts = driven.contact_set().unwrap();
    let start = (&Vector1::zeros(), &Vector1::new(driven.w));
    let run = simulate(&contacts, start, 2.0, &tight());
    match run {
        Err(SimulationError::Reset {
            name, time, source, ..
        }) => {
            assert_eq!(name, "ceiling touchdown");
            assert!((time - driven.h / driven.w).abs() < 1e-12, "{time}");
            assert!(
                matches!(source, Error::InconsistentConstraints { .. }),
                "{source:?}"
            );
        }
        other => panic!("expected the impact's typed error, got {other:?}"),
    }
}

/// A block of mass m on a frictionless floor y = 0 (μ = 0, the default), pushed along it by
/// the force k t that starts at zero.
#[lagrangian(
    coordinates(x, y),
    lagrangian = 0.5 * m * (dot(x).powi(2) + dot(y).powi(2)) - m * g * y,
    forces(k * t, 0.0),
    contacts(floor(gap = y, slip = x)),
)]
pub struct Pushed {
    pub m: f64,
    pub g: f64,
    pub k: f64,
}

#[test]
fn a_frictionless_contact_slides_under_any_tangential_force() {
    let block = Pushed {
        m: 2.0,
        g: 9.81,
        k: 3.0,
    };
    for h in [0.0, 0.2] {
        // At rest on the floor (no tangential force at t = 0, so it would stick if it could),
        // then dropped from h: a plastic touchdown with no slip.
        let contacts = block.contact_set().unwrap();
        let (q, qd) = (Vector2::new(0.0, h), Vector2::zeros());
        contacts
            .settle(q.as_slice(), qd.as_slice(), 0.0, 1e-12)
            .unwrap();
        let tf = 1.5;
        let run = simulate(&contacts, (&q, &qd), tf, &tight()).unwrap();
        let names: Vec<&str> = run.events.iter().map(|e| e.name.as_str()).collect();
        let expected: &[&str] = if h > 0.0 { &["floor touchdown"] } else { &[] };
        assert_eq!(names, expected);
        assert!(matches!(contacts.modes()[..], [ContactMode::Sliding(_)]));
        // ẍ = k t / m whatever the floor does: x = k t³ / (6 m).
        let last = run.samples.last().unwrap();
        let x = block.k * tf.powi(3) / (6.0 * block.m);
        assert!(
            (last.q[0] - x).abs() < 1e-10,
            "x = {} against {x}",
            last.q[0]
        );
        assert!(last.q[1].abs() < 1e-12, "{last:?}");
    }
}

/// A rod of mass m and length l, its centre at (x, y) and its angle θ from the horizontal,
/// dropped onto a table y = 0 with friction μ at each end (restitution 0), as
/// `examples/models/falling_rod.toml`.
#[lagrangian(
    coordinates(x, y, theta),
    lagrangian = 0.5 * m * (dot(x).powi(2) + dot(y).powi(2))
        + 0.5 * (m * l.powi(2) / 12.0) * dot(theta).powi(2) - m * g * y,
    contacts(
        end_a(gap = y - 0.5 * l * theta.sin(), slip = x - 0.5 * l * theta.cos(), friction = mu),
        end_b(gap = y + 0.5 * l * theta.sin(), slip = x + 0.5 * l * theta.cos(), friction = mu),
    ),
)]
pub struct Rod {
    pub m: f64,
    pub l: f64,
    pub g: f64,
    pub mu: f64,
}

/// The lower end's touchdown by Newton–Euler impulses on the rigid rod, dropped from rest at
/// angle θ with its lower end at height `drop`: the impulse (Pₜ, Pₙ) at the end, at r = l/2
/// from the centre, changes the centre's velocity by P/m and the spin by (r × P)/I. Plastic
/// (the end's normal velocity after is 0); sticking when the Pₜ that stops the end's slip
/// (|Pₜ| ≤ μPₙ), else sliding with Pₜ = μPₙ in that direction. Returns (ẋ, ẏ, θ̇) after.
fn rod_touchdown(rod: &Rod, theta: f64, drop: f64) -> [f64; 3] {
    let v = (2.0 * rod.g * drop).sqrt();
    let (r, inertia) = (0.5 * rod.l, rod.m * rod.l * rod.l / 12.0);
    let (s, c) = theta.sin_cos();
    // The end is at (−r cos θ, −r sin θ) from the centre; a spin ω moves it at ω r (sin θ,
    // −cos θ). Its velocity after: (Pₜ/m + r s ω⁺, −v + Pₙ/m − r c ω⁺), ω⁺ = r (s Pₜ − c Pₙ)/I.
    let k = r * r / inertia;
    // Sticking: the end's slip 0 gives Pₜ (1/m + k s²) = k s c Pₙ.
    let ratio = k * s * c / (1.0 / rod.m + k * s * s);
    let tangential = match ratio.abs() <= rod.mu {
        true => ratio,
        false => rod.mu * ratio.signum(),
    };
    // The end's normal velocity 0: −v + Pₙ (1/m + k c²) − k s c Pₜ = 0.
    let normal = v / (1.0 / rod.m + k * c * c - k * s * c * tangential);
    let pt = tangential * normal;
    [
        pt / rod.m,
        -v + normal / rod.m,
        r * (s * pt - c * normal) / inertia,
    ]
}

#[test]
fn a_rod_touches_down_with_a_sliding_or_a_sticking_frictional_impact_by_newton_euler() {
    // The sticking impulse ratio at θ = 0.5 is 0.748: μ = 0.3 slides through the impact, μ = 0.9
    // sticks. μ = 0 is the frictionless impact.
    for (mu, sticks) in [(0.3, false), (0.9, true), (0.0, false)] {
        let rod = Rod {
            m: 1.0,
            l: 1.0,
            g: 9.81,
            mu,
        };
        let contacts = rod.contact_set().unwrap();
        let (theta, height) = (0.5_f64, 0.6);
        let drop = height - 0.5 * rod.l * theta.sin();
        let t1 = (2.0 * drop / rod.g).sqrt();
        let (q, qd) = (
            udk::nalgebra::Vector3::new(0.0, height, theta),
            udk::nalgebra::Vector3::zeros(),
        );
        let run = simulate(&contacts, (&q, &qd), t1 + 1e-3, &tight()).unwrap();
        let touchdown = &run.events[0];
        assert_eq!(touchdown.name, "end_a touchdown");
        assert!(
            (touchdown.t - t1).abs() < 1e-12,
            "{} against {t1}",
            touchdown.t
        );
        let expected = rod_touchdown(&rod, touchdown.before.0[2], drop);
        let after = touchdown.after.1;
        for (j, value) in expected.iter().enumerate() {
            assert!(
                (after[j] - value).abs() < 1e-11,
                "μ = {mu}: q̇⁺ = {after} against {expected:?}"
            );
        }
        // The end's slip after: 0 when it sticks (then the forces decide whether it goes on
        // sticking), else it slides on, closed.
        let slip = after[0] + 0.5 * rod.l * theta.sin() * after[2];
        assert_eq!(slip.abs() < 1e-12, sticks, "μ = {mu}: slip {slip}");
        if !sticks {
            let sliding = ContactMode::Sliding(slip.signum());
            assert_eq!(contacts.modes()[0], sliding, "μ = {mu}");
        }
        // The impact does not add energy.
        let energy = |v: &udk::nalgebra::Vector3<f64>| {
            0.5 * rod.m * (v[0] * v[0] + v[1] * v[1])
                + 0.5 * rod.m * rod.l.powi(2) / 12.0 * v[2] * v[2]
        };
        let (before, after) = (energy(&touchdown.before.1), energy(&touchdown.after.1));
        assert!(
            after < before,
            "μ = {mu}: {after} J after, {before} J before"
        );
    }
}

/// A ball of mass m falling onto a platform that rises at speed v from y = 0 at t = 0: the gap
/// y − v t moves, restitution e, coming to rest when it would rebound slower than `rest`
/// relative to the platform.
#[lagrangian(
    coordinates(y),
    lagrangian = 0.5 * m * dot(y).powi(2) - m * g * y,
    contacts(platform(gap = y - v * t, restitution = e, rest_speed = rest)),
)]
pub struct PlatformBall {
    pub m: f64,
    pub g: f64,
    pub v: f64,
    pub e: f64,
    pub rest: f64,
}

#[test]
fn a_ball_on_a_rising_platform_bounces_relative_to_it_and_rides_it() {
    let ball = PlatformBall {
        m: 0.5,
        g: 9.81,
        v: 0.5,
        e: 0.5,
        rest: 0.05,
    };
    let (g, v, e, h, tf) = (ball.g, ball.v, ball.e, 1.0, 2.0);
    let contacts = ball.contact_set().unwrap();
    let start = (&Vector1::new(h), &Vector1::zeros());
    let run = simulate(&contacts, start, tf, &tight()).unwrap();
    // The first impact at g t²/2 + v t = h, meeting the platform at w₁ = v + g t₁ relative to
    // it; the platform's frame is inertial, so impact k + 1 meets it at eᵏ w₁ and leaves it at
    // ẏ⁺ = v + eᵏ⁺¹ w₁ (= v + e(v − ẏ⁻)), the next coming 2 eᵏ⁺¹ w₁ / g later.
    let t1 = ((v * v + 2.0 * g * h).sqrt() - v) / g;
    let w1 = v + g * t1;
    let resting = (0..).find(|&k| e * e.powi(k) * w1 < ball.rest).unwrap();
    assert_eq!(run.events.len(), resting as usize + 1, "{:?}", run.events);
    let mut expected = t1;
    for (k, impact) in run.events.iter().enumerate() {
        let k = k as i32;
        assert_eq!(impact.name, "platform touchdown");
        assert!(
            (impact.t - expected).abs() < 1e-11,
            "impact {k}: {} against {expected}",
            impact.t
        );
        let before = v - e.powi(k) * w1;
        assert!((impact.before.1[0] - before).abs() < 1e-9, "impact {k}");
        let after = match k == resting {
            true => v,
            false => v + e * (v - before),
        };
        assert!(
            (impact.after.1[0] - after).abs() < 1e-9,
            "impact {k}: {} against {after}",
            impact.after.1[0]
        );
        expected += 2.0 * e.powi(k + 1) * w1 / g;
    }
    // At rest on the platform, carried up with it: y = v t, ẏ = v, the normal force m g.
    assert_eq!(contacts.modes(), [ContactMode::Sticking]);
    let last = run.samples.last().unwrap();
    assert!(
        (last.q[0] - v * tf).abs() < 1e-11 && (last.v[0] - v).abs() < 1e-12,
        "{last:?}"
    );
    let forces = contacts
        .forces(last.q.as_slice(), last.v.as_slice(), tf)
        .unwrap();
    assert!((forces[0].value - ball.m * g).abs() < 1e-9, "{forces:?}");
}

/// A block of mass m on a conveyor belt y = 0 that moves at speed v along x, friction μ: the
/// slip relative to the belt is x − v t.
#[lagrangian(
    coordinates(x, y),
    lagrangian = 0.5 * m * (dot(x).powi(2) + dot(y).powi(2)) - m * g * y,
    contacts(belt(gap = y, slip = x - v * t, friction = mu)),
)]
pub struct BeltBlock {
    pub m: f64,
    pub g: f64,
    pub v: f64,
    pub mu: f64,
}

#[test]
fn a_block_dropped_on_a_conveyor_belt_is_carried_at_the_belt_speed() {
    let (h, tf) = (0.05, 2.0);
    for mu in [0.3, 0.0] {
        let block = BeltBlock {
            m: 2.0,
            g: 9.81,
            v: 2.0,
            mu,
        };
        let (g, v) = (block.g, block.v);
        let contacts = block.contact_set().unwrap();
        let (q, qd) = (Vector2::new(0.0, h), Vector2::new(0.4, 0.0));
        let run = simulate(&contacts, (&q, &qd), tf, &tight()).unwrap();
        // Touchdown at u = √(2gh), slipping at 0.4 − v relative to the belt: sticking would
        // need the tangential impulse m (v − 0.4) > μ m u, so friction gives μ m u and the
        // block slides on, dragged at μ g until it moves with the belt.
        let td = (2.0 * h / g).sqrt();
        let u = g * td;
        let last = run.samples.last().unwrap();
        let names: Vec<&str> = run.events.iter().map(|e| e.name.as_str()).collect();
        let touchdown = &run.events[0];
        assert!((touchdown.t - td).abs() < 1e-12);
        let after = 0.4 + mu * u;
        assert!((touchdown.after.1[0] - after).abs() < 1e-12);
        assert!(touchdown.after.1[1].abs() < 1e-12);
        if mu > 0.0 {
            assert_eq!(names, ["belt touchdown", "belt stick"]);
            let tau = (v - after) / (mu * g);
            let stick = td + tau;
            assert!(
                (run.events[1].t - stick).abs() < 1e-12,
                "{} against {stick}",
                run.events[1].t
            );
            assert_eq!(contacts.modes(), [ContactMode::Sticking]);
            let x = 0.4 * td + after * tau + 0.5 * mu * g * tau * tau + v * (tf - stick);
            assert!((last.q[0] - x).abs() < 1e-11, "{} against {x}", last.q[0]);
            assert!((last.v[0] - v).abs() < 1e-12);
            // Sticking on the belt at constant speed: no tangential force.
            let forces = contacts
                .forces(last.q.as_slice(), last.v.as_slice(), tf)
                .unwrap();
            assert!((forces[0].value - block.m * g).abs() < 1e-9, "{forces:?}");
            assert!(forces[1].value.abs() < 1e-9, "{forces:?}");
        } else {
            // Frictionless, the belt does not drag it: it keeps its speed.
            assert_eq!(names, ["belt touchdown"]);
            assert!((last.v[0] - 0.4).abs() < 1e-12 && (last.q[0] - 0.4 * tf).abs() < 1e-11);
        }
    }
}
