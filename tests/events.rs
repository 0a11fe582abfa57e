//! Events of the simulator: guards located on the flow, stops, records, resets, and the bounds
//! that end a Zeno run; against closed forms.

use udk::lagrangian;
use udk::nalgebra::Vector1;
use udk::runtime::simulate::{
    simulate_lagrangian_with_events, Action, Direction, Event, OutputTimes, SimulationError,
    SimulationOptions, Trajectory,
};

/// A ball of mass m falling under gravity g, height y.
#[lagrangian(coordinates(y), lagrangian = 0.5 * m * dot(y).powi(2) - m * g * y)]
pub struct Ball {
    pub m: f64,
    pub g: f64,
}

/// A mass m on a spring of stiffness k.
#[lagrangian(coordinates(x), lagrangian = 0.5 * m * dot(x).powi(2) - 0.5 * k * x.powi(2))]
pub struct Oscillator {
    pub m: f64,
    pub k: f64,
}

const G: f64 = 9.81;

/// The ground at y = 0 with restitution e: ẏ⁺ = −e ẏ⁻.
fn ground(e: f64) -> Event<'static, 1> {
    Event::reset(
        "ground",
        Direction::Falling,
        |_, q: &Vector1<f64>, _| q[0],
        move |_, q, v| Ok((*q, -e * v)),
    )
}

/// A 1 kg ball dropped from rest at 1 m onto the ground with restitution e, run to t_f.
fn drop_ball(e: f64, tf: f64) -> Result<Trajectory<1>, SimulationError<1>> {
    let ball = Ball { m: 1.0, g: G };
    let options = SimulationOptions::default();
    let (q0, v0) = (Vector1::new(1.0), Vector1::zeros());
    simulate_lagrangian_with_events(&ball, &q0, &v0, 0.0, tf, &options, &[ground(e)])
}

#[test]
fn bouncing_ball_impacts_at_the_closed_form_times() {
    let run = drop_ball(0.8, 2.6).unwrap();
    // t₁ = √(2h/g), t_{k+1} = t_k + 2eᵏ√(2gh)/g (h = 1 m).
    let expected: Vec<f64> = (0..5)
        .scan((2.0 / G).sqrt(), |t, k| {
            let now = *t;
            *t += 2.0 * 0.8f64.powi(k + 1) * (2.0 * G).sqrt() / G;
            Some(now)
        })
        .collect();
    let times: Vec<f64> = run.events.iter().map(|e| e.t).collect();
    assert_eq!(times.len(), expected.len(), "{times:?}");
    for (k, (t, e)) in times.iter().zip(expected).enumerate() {
        assert!((t - e).abs() < 1e-12, "impact {k}: {t} against {e}");
        let speed = 0.8f64.powi(k as i32 + 1) * (2.0 * G).sqrt();
        let after = run.events[k].after.1[0];
        assert!(
            (after - speed).abs() < 1e-11,
            "speed after impact {k}: {after}"
        );
        let y = run.events[k].before.0[0];
        eprintln!("impact {k}: t error {:e}, y = {y:e}", t - e);
        assert!(y.abs() < 1e-11, "height at impact {k}: {y}");
    }
    assert_eq!(run.final_time(), Some(2.6));
}

#[test]
fn recorded_crossings_of_an_oscillator_are_its_closed_form_zeros() {
    // x = cos ωt with ω = 2: x = 0 at t = (2k + 1)π/4; ẋ = 0 (a rising or falling x) between.
    let oscillator = Oscillator { m: 2.0, k: 8.0 };
    let options = SimulationOptions {
        rtol: 1e-13,
        atol: 1e-15,
        output: OutputTimes::Every(0.3),
        ..SimulationOptions::default()
    };
    let zero = Event::new(
        "zero",
        Direction::Both,
        |_, q: &Vector1<f64>, _| q[0],
        Action::Record,
    );
    let rising = Event::new(
        "rising",
        Direction::Rising,
        |_, q: &Vector1<f64>, _| q[0] - 0.5,
        Action::Record,
    );
    let (q0, v0) = (Vector1::new(1.0), Vector1::zeros());
    let run = simulate_lagrangian_with_events(
        &oscillator,
        &q0,
        &v0,
        0.0,
        10.0,
        &options,
        &[zero, rising],
    )
    .unwrap();
    let zeros: Vec<f64> = (run.events.iter().filter(|e| e.index == 0))
        .map(|e| e.t)
        .collect();
    assert_eq!(zeros.len(), 6, "{zeros:?}");
    for (k, t) in zeros.iter().enumerate() {
        let expected = (2 * k + 1) as f64 * std::f64::consts::FRAC_PI_4;
        assert!(
            (t - expected).abs() < 1e-12,
            "zero {k}: {t} against {expected}"
        );
    }
    // x = 1/2 rising: cos 2t = 1/2 with sin 2t < 0, 2t = 2π − π/3 + 2πk.
    let rising: Vec<f64> = (run.events.iter().filter(|e| e.name == "rising"))
        .map(|e| e.t)
        .collect();
    assert_eq!(rising.len(), 3, "{rising:?}");
    for (k, t) in rising.iter().enumerate() {
        let expected = (5.0 / 6.0 + k as f64) * std::f64::consts::PI;
        assert!(
            (t - expected).abs() < 1e-12,
            "rising {k}: {t} against {expected}"
        );
    }
    // The output times are unchanged by the events.
    assert_eq!(run.samples.len(), 35);
    assert!(run
        .samples
        .iter()
        .enumerate()
        .all(|(k, s)| s.t == (k as f64 * 0.3).min(10.0)));
    assert!(run.events.windows(2).all(|w| w[0].t < w[1].t));
}

#[test]
fn a_stop_event_ends_the_run_at_its_crossing() {
    let ball = Ball { m: 1.0, g: G };
    let half = [Event::new(
        "half way",
        Direction::Falling,
        |_, q: &Vector1<f64>, _| q[0] - 0.5,
        Action::Stop,
    )];
    for output in [OutputTimes::Steps, OutputTimes::Every(0.1)] {
        let options = SimulationOptions {
            output,
            ..SimulationOptions::default()
        };
        let (q0, v0) = (Vector1::new(1.0), Vector1::zeros());
        let run =
            simulate_lagrangian_with_events(&ball, &q0, &v0, 0.0, 5.0, &options, &half).unwrap();
        let t = (1.0 / G).sqrt(); // 1 − g t²/2 = 1/2
        assert_eq!(run.events.len(), 1);
        assert!((run.events[0].t - t).abs() < 1e-14, "{:?}", run.events);
        let last = run.samples.last().unwrap();
        assert_eq!(last.t, run.events[0].t);
        assert!((last.q[0] - 0.5).abs() < 1e-14);
    }
}

#[test]
fn a_plastic_bounce_fires_again_at_once_and_stops_with_an_error_naming_it() {
    // e = 0: ẏ⁺ = 0 at y = 0, and gravity takes the ball through the ground again at once.
    let result = drop_ball(0.0, 5.0);
    let Err(error @ SimulationError::Zeno { .. }) = result else {
        panic!("{result:?}");
    };
    let SimulationError::Zeno {
        ref name,
        time,
        count,
        ref trajectory,
    } = error
    else {
        unreachable!()
    };
    assert_eq!((name.as_str(), count), ("ground", 51));
    assert!((time - (2.0 / G).sqrt()).abs() < 1e-9, "{time}");
    assert_eq!(trajectory.events.len(), 51);
    assert!(
        error
            .to_string()
            .contains("event 'ground' fired 51 times in a row"),
        "{error}"
    );
}

#[test]
fn zeno_bouncing_ends_with_an_error_at_the_accumulation_time() {
    // Without a contact that closes, e = 0.8 bounces accumulate at t∞ = √(2h/g)(1+e)/(1−e).
    let result = drop_ball(0.8, 10.0);
    let Err(SimulationError::Zeno { name, time, .. }) = result else {
        panic!("{result:?}");
    };
    assert_eq!(name, "ground");
    assert!((time - 4.063712768871578).abs() < 1e-5, "{time}");
}

#[test]
fn bad_event_limits_are_refused() {
    let ball = Ball { m: 1.0, g: G };
    let mut options = SimulationOptions::default();
    options.events.max_rate = 0.0;
    let (q0, v0) = (Vector1::new(1.0), Vector1::zeros());
    let result = simulate_lagrangian_with_events(&ball, &q0, &v0, 0.0, 1.0, &options, &[]);
    assert!(
        matches!(result, Err(SimulationError::InvalidOptions { what }) if what.contains("event rate")),
        "{result:?}"
    );
}

#[test]
fn a_full_event_log_stops_the_run() {
    let mut options = SimulationOptions::default();
    options.events.max_events = 3;
    let ball = Ball { m: 1.0, g: G };
    let (q0, v0) = (Vector1::new(1.0), Vector1::zeros());
    let result =
        simulate_lagrangian_with_events(&ball, &q0, &v0, 0.0, 5.0, &options, &[ground(0.8)]);
    let Err(SimulationError::Integrator {
        time,
        reason,
        trajectory,
    }) = result
    else {
        panic!("{result:?}");
    };
    assert!(reason.contains("max_events = 3"), "{reason}");
    assert_eq!(trajectory.events.len(), 3);
    // The fourth impact, t₄ of the reference, is the one that found the log full.
    assert!((time - 2.2142719353940246).abs() < 1e-12, "{time}");
}

#[test]
fn a_failed_reset_stops_the_run_with_an_error_naming_its_event() {
    let ball = Ball { m: 1.0, g: G };
    let options = SimulationOptions::default();
    let (q0, v0) = (Vector1::new(1.0), Vector1::zeros());
    // A non-finite state after the reset.
    let bad = Event::reset(
        "ground",
        Direction::Falling,
        |_, q: &Vector1<f64>, _| q[0],
        |_, q, _| Ok((*q, Vector1::new(f64::NAN))),
    );
    let result = simulate_lagrangian_with_events(&ball, &q0, &v0, 0.0, 5.0, &options, &[bad]);
    let Err(error @ SimulationError::Reset { .. }) = result else {
        panic!("{result:?}");
    };
    assert!(
        error
            .to_string()
            .starts_with("the reset of event 'ground' failed at t = 0.45"),
        "{error}"
    );
    assert_eq!(error.trajectory().unwrap().events.len(), 0);
}

#[test]
fn a_reset_that_leaves_the_state_as_it_was_lets_the_motion_go_on_through_the_surface() {
    // A no-op impact at y = 0: the ball falls on through the ground as after a record, with
    // one event, instead of firing again at once until the run ends as Zeno.
    let ball = Ball { m: 1.0, g: G };
    let no_op = Event::reset(
        "ground",
        Direction::Falling,
        |_, q: &Vector1<f64>, _| q[0],
        |_, q, v| Ok((*q, *v)),
    );
    let (q0, v0) = (Vector1::new(1.0), Vector1::zeros());
    let options = SimulationOptions::default();
    let tf = 1.0;
    let run =
        simulate_lagrangian_with_events(&ball, &q0, &v0, 0.0, tf, &options, &[no_op]).unwrap();
    assert_eq!(run.events.len(), 1, "{:?}", run.events);
    assert!((run.events[0].t - (2.0 / G).sqrt()).abs() < 1e-12);
    let last = run.samples.last().unwrap();
    assert_eq!(last.t, tf);
    assert!(
        (last.q[0] - (1.0 - 0.5 * G * tf * tf)).abs() < 1e-12,
        "{last:?}"
    );
}
