//! `udk::Model::simulate` with the `[[events]]` and `[[contacts]]` of its spec
//! (`udk::model::Hybrid`, the code `udk simulate` runs): the event log against closed forms
//! (a bouncing ball, a block on an incline, a block on a conveyor belt, a ball on a rising
//! platform, the rimless wheel's strikes), coefficients that
//! follow the parameters set after the build, and the typed errors of bad events.

use std::f64::consts::PI;
use std::path::Path;
use udk::nalgebra::{dvector, DVector};
use udk::runtime::simulate::SimulationOptions;
use udk::{Model, ModelError, ModelSpec};

fn spec(text: &str) -> Result<Model, ModelError> {
    let spec: ModelSpec = toml::from_str(text).unwrap();
    Model::from_spec(spec, Path::new("."))
}

fn example(name: &str) -> Model {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("examples/models/{name}.toml"));
    Model::from_file(&path).unwrap()
}

/// A ball dropped from 1 m bouncing with restitution `e` (a parameter), and its apexes.
const BALL: &str = r#"
    name = "Ball"
    coordinates = ["y"]
    parameters = [{ name = "g", value = 9.81 }, { name = "e", value = 0.8 }]
    lagrangian = "0.5 * dot(y).powi(2) - g * y"
    [[events]]
    name = "ground"
    guard = "y"
    direction = "falling"
    impact = ["y"]
    restitution = "e"
    [[events]]
    name = "apex"
    guard = "dot(y)"
    direction = "falling"
"#;

#[test]
fn a_bouncing_ball_logs_its_impacts_and_apexes_at_the_closed_form_times() {
    let mut ball = spec(BALL).unwrap();
    let options = SimulationOptions::default();
    let (g, h) = (9.81_f64, 1.0_f64);
    for e in [0.8_f64, 0.5] {
        ball.set_parameter("e", e).unwrap();
        // The impacts accumulate at √(2h/g)(1 + e)/(1 − e): run to 0.9 of that.
        let tf = 0.9 * (2.0 * h / g).sqrt() * (1.0 + e) / (1.0 - e);
        let motion = (ball.simulate(&dvector![1.0], &dvector![0.0], 0.0, tf, &options)).unwrap();
        // Impact k at t_k = √(2h/g)(1 + 2(e + … + e^(k−1))), apexes halfway between.
        let mut expected = Vec::new();
        let mut t = (2.0 * h / g).sqrt();
        for k in 1..=40 {
            expected.push(("ground", t));
            let flight = 2.0 * e.powi(k) * (2.0 * g * h).sqrt() / g;
            expected.push(("apex", t + flight / 2.0));
            t += flight;
        }
        expected.retain(|(_, t)| *t < tf);
        let logged: Vec<(&str, f64)> = (motion.events.iter())
            .map(|event| (event.name.as_str(), event.t))
            .collect();
        assert_eq!(logged.len(), expected.len(), "{logged:?}");
        for ((name, t), (expected_name, expected_t)) in logged.iter().zip(&expected) {
            assert_eq!(name, expected_name);
            assert!(
                (t - expected_t).abs() < 1e-11,
                "{name}: {t} against {expected_t}"
            );
        }
        // The first impact: ẏ⁻ = −√(2gh), ẏ⁺ = e√(2gh), the position unchanged.
        let first = &motion.events[0];
        let speed = (2.0 * g * h).sqrt();
        assert!(first.q_before[0].abs() < 1e-12 && first.q_after == first.q_before);
        assert!((first.v_before[0] + speed).abs() < 1e-10);
        assert!((first.v_after[0] - e * speed).abs() < 1e-10);
    }
}

#[test]
fn a_bouncing_ball_run_past_its_accumulation_time_is_a_zeno_error_with_its_log() {
    let mut ball = spec(BALL).unwrap();
    ball.set_parameter("e", 0.5).unwrap();
    let options = SimulationOptions::default();
    let run = ball.simulate(&dvector![1.0], &dvector![0.0], 0.0, 2.5, &options);
    let Err(ModelError::Simulation {
        message,
        time: Some(time),
        motion: Some(motion),
    }) = run
    else {
        panic!("{run:?}");
    };
    let accumulation = (2.0f64 / 9.81).sqrt() * 3.0;
    assert!(message.contains("event 'ground' fired"), "{message}");
    assert!(
        (time - accumulation).abs() < 1e-6,
        "{time} against {accumulation}"
    );
    assert!(motion.events.len() > 50 && motion.events[0].name == "ground");
}

#[test]
fn a_block_thrown_up_an_incline_sticks_or_slides_back_as_its_closed_form() {
    let mut block = example("sliding_block");
    let (g, beta, v0, tf) = (9.81_f64, 0.3_f64, 3.0, 2.0);
    let (q0, qd0) = (
        dvector![0.0, 0.0],
        dvector![v0 * beta.cos(), v0 * beta.sin()],
    );
    for mu in [0.5_f64, 0.2] {
        block.set_parameter("mu", mu).unwrap();
        let options = SimulationOptions::default();
        let motion = block.simulate(&q0, &qd0, 0.0, tf, &options).unwrap();
        let t1 = v0 / (g * (beta.sin() + mu * beta.cos()));
        let s1 = 0.5 * v0 * t1;
        let s = match mu >= beta.tan() {
            true => s1,
            false => s1 - 0.5 * g * (beta.sin() - mu * beta.cos()) * (tf - t1).powi(2),
        };
        assert_eq!(motion.events.len(), 1);
        assert_eq!(motion.events[0].name, "ground stick");
        assert!((motion.events[0].t - t1).abs() < 1e-12);
        let last = motion.q.column(motion.t.len() - 1);
        let expected = [s * beta.cos(), s * beta.sin()];
        assert!((last[0] - expected[0]).abs() < 1e-12 && (last[1] - expected[1]).abs() < 1e-12);
    }
}

/// DOP853 at rtol 1e-12, atol 1e-14.
fn tight() -> SimulationOptions {
    SimulationOptions {
        rtol: 1e-12,
        atol: 1e-14,
        ..SimulationOptions::default()
    }
}

#[test]
fn a_block_dropped_on_the_conveyor_belt_sticks_at_the_belt_speed_as_its_closed_form() {
    let mut belt = example("conveyor_belt");
    let (g, v, h, tf) = (9.81_f64, 2.0, 0.05, 1.5);
    let (q0, qd0) = (dvector![0.0, h], dvector![0.0, 0.0]);
    let (td, u) = ((2.0 * h / g).sqrt(), (2.0 * g * h).sqrt());
    for mu in [0.3, 0.0] {
        belt.set_parameter("mu", mu).unwrap();
        let motion = belt.simulate(&q0, &qd0, 0.0, tf, &tight()).unwrap();
        let names: Vec<&str> = motion.events.iter().map(|e| e.name.as_str()).collect();
        let touchdown = &motion.events[0];
        assert!((touchdown.t - td).abs() < 1e-12);
        // Sliding through the impact (μu < v): the friction impulse μ m u along the belt.
        let after = mu * u;
        assert!((touchdown.v_after[0] - after).abs() < 1e-12 && touchdown.v_after[1].abs() < 1e-12);
        let last = motion.t.len() - 1;
        let (x, xd) = (motion.q[(0, last)], motion.v[(0, last)]);
        if mu > 0.0 {
            // Dragged at μg until it moves with the belt, then carried.
            assert_eq!(names, ["belt touchdown", "belt stick"]);
            let tau = (v - after) / (mu * g);
            let stick = td + tau;
            assert!(
                (motion.events[1].t - stick).abs() < 1e-12,
                "{}",
                motion.events[1].t
            );
            assert!((stick - 0.6795786612300373).abs() < 1e-12);
            let expected = after * tau + 0.5 * mu * g * tau * tau + v * (tf - stick);
            assert!((x - expected).abs() < 1e-11, "{x} against {expected}");
            assert!((xd - v).abs() < 1e-12);
        } else {
            assert_eq!(names, ["belt touchdown"]);
            assert!(x.abs() < 1e-12 && xd.abs() < 1e-12);
        }
    }
}

/// A ball dropped from 1 m onto a platform rising at v from y = 0 at t = 0, restitution e.
const PLATFORM: &str = r#"
    name = "PlatformBall"
    coordinates = ["y"]
    parameters = [
        { name = "g", value = 9.81 },
        { name = "v", value = 0.5 },
        { name = "e", value = 0.5 },
    ]
    lagrangian = "0.5 * dot(y).powi(2) - g * y"
    [[contacts]]
    name = "platform"
    gap = "y - v * t"
    restitution = "e"
"#;

/// The same platform as an `[[events]]` impact on the gap function.
const PLATFORM_EVENT: &str = r#"
    [[events]]
    name = "platform"
    guard = "y - v * t"
    direction = "falling"
    impact = ["y - v * t"]
    restitution = "e"
"#;

#[test]
fn a_ball_dropped_on_a_rising_platform_rebounds_relative_to_it() {
    let (without_contact, _) = PLATFORM.split_once("[[contacts]]").unwrap();
    for (text, name) in [
        (PLATFORM.to_string(), "platform touchdown"),
        (format!("{without_contact}{PLATFORM_EVENT}"), "platform"),
    ] {
        platform_bounces(&spec(&text).unwrap(), name);
    }
}

/// The first two impacts of the ball of [`PLATFORM`] against the closed form.
fn platform_bounces(ball: &Model, name: &str) {
    let (g, v, e, h) = (9.81_f64, 0.5, 0.5, 1.0);
    let motion = (ball.simulate(&dvector![h], &dvector![0.0], 0.0, 1.0, &tight())).unwrap();
    // Impact 1 at g t²/2 + v t = h; ẏ⁺ = v + e(v − ẏ⁻); impact 2 when the relative rebound
    // e(v − ẏ⁻) has come back, 2e(v − ẏ⁻)/g later.
    let t1 = ((v * v + 2.0 * g * h).sqrt() - v) / g;
    let before = -g * t1;
    let after = v + e * (v - before);
    let t2 = t1 + 2.0 * e * (v - before) / g;
    let logged: Vec<(&str, f64)> = (motion.events.iter())
        .map(|event| (event.name.as_str(), event.t))
        .collect();
    assert_eq!(logged.len(), 2, "{logged:?}");
    assert!(logged.iter().all(|(logged, _)| *logged == name));
    assert!((logged[0].1 - t1).abs() < 1e-12 && (logged[1].1 - t2).abs() < 1e-11);
    let first = &motion.events[0];
    assert!((first.v_before[0] - before).abs() < 1e-10);
    assert!(
        (first.v_after[0] - after).abs() < 1e-10,
        "{} against {after}",
        first.v_after[0]
    );
}

#[test]
fn the_rimless_wheel_strikes_move_the_stance_foot() {
    let wheel = example("rimless_wheel");
    let q0 = dvector![0.0, 0.0, -0.3126990816987241];
    let qd0 = dvector![0.0, 0.0, 2.0];
    let motion = (wheel.simulate(&q0, &qd0, 0.0, 3.0, &SimulationOptions::default())).unwrap();
    assert!(motion.events.len() >= 3);
    let (slope, spokes) = (0.08, 8.0);
    for event in &motion.events {
        assert_eq!(event.name, "strike");
        let theta = event.q_before[2];
        assert!((theta - (slope + PI / spokes)).abs() < 1e-9, "{theta}");
        let after = dvector![0.0, 0.0, theta - 2.0 * PI / spokes];
        assert!((&event.q_after - after).amax() < 1e-12);
        // The new stance foot is pinned: ẋ⁺ = ẏ⁺ = 0.
        assert!(event.v_after.rows(0, 2).amax() < 1e-12);
    }
}

#[test]
fn a_coefficient_set_out_of_range_after_the_build_is_a_typed_error() {
    let mut ball = spec(BALL).unwrap();
    ball.set_parameter("e", -0.5).unwrap();
    let run = ball.simulate(
        &dvector![1.0],
        &dvector![0.0],
        0.0,
        1.0,
        &SimulationOptions::default(),
    );
    let Err(ModelError::Events { model, problems }) = run else {
        panic!("{run:?}");
    };
    assert_eq!(model, "Ball");
    assert_eq!(
        problems,
        ["event `ground`: the restitution must be finite and non-negative"]
    );
}

#[test]
fn bad_events_are_typed_errors_naming_the_model() {
    let guard = BALL.replace(r#"guard = "y""#, r#"guard = "g""#);
    let Err(ModelError::Events { problems, .. }) = spec(&guard) else {
        panic!("a guard of the parameters only is refused");
    };
    assert_eq!(problems.len(), 1);
    assert!(
        problems[0].starts_with("model `Ball`: ")
            && problems[0].contains("the guard depends on neither q nor q̇"),
        "{problems:?}"
    );
    let negative = BALL.replace(
        r#"{ name = "e", value = 0.8 }"#,
        r#"{ name = "e", value = -1.0 }"#,
    );
    let error = spec(&negative).unwrap_err();
    assert_eq!(
        error.to_string(),
        "model `Ball`: event `ground`: the restitution must be finite and non-negative"
    );
    let hamiltonian = r#"
        name = "Oscillator"
        coordinates = ["x"]
        momenta = ["p"]
        hamiltonian = "0.5 * p.powi(2) + 0.5 * x.powi(2)"
        [[events]]
        name = "zero"
        guard = "x"
    "#;
    let error = spec(hamiltonian).unwrap_err();
    assert!(
        error.to_string().contains("need a Lagrangian model"),
        "{error}"
    );
}

#[test]
fn a_model_without_events_logs_none() {
    let pendulum = example("double_pendulum_minimal");
    assert!(pendulum.hybrid().is_none());
    let (q0, qd0) = (DVector::from_element(2, 0.3), DVector::zeros(2));
    let motion = (pendulum.simulate(&q0, &qd0, 0.0, 0.5, &SimulationOptions::default())).unwrap();
    assert!(motion.events.is_empty());
    let ball = spec(BALL).unwrap();
    assert_eq!(ball.hybrid().unwrap().event_names(), ["ground", "apex"]);
    assert_eq!(ball.hybrid().unwrap().resets(), [0]);
}
