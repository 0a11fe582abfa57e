//! The compass-gait walker of Goswami, Thuilot & Espiau (1996) written with `#[lagrangian]`:
//! the static-size path of the walker bench (`bench/compass_gait.py`), the same model as
//! `examples/models/compass_gait.toml` (the stance foot pinned by two holonomic constraints, the
//! heel strike an event whose reset is the plastic impact of the fundamental equation at
//! velocity level, `udk_runtime::impact`, then the swap of the legs), run by the same simulator
//! (`simulate_lagrangian_with_events`, DOP853 at rtol 1e-10, atol 1e-12) from the gait of
//! `tests/fixtures/compass_gait.json` (3° slope).
//!
//! Prints JSON: the time per step of a 100-step walk (the difference between a 100.5-step and
//! a 0.5-step run, over 100; best of `REPEAT`; wall-clock and the thread's CPU time), the number of steps, the largest difference of
//! the state after the last strike from the fixture's gait, the right-hand-side evaluations
//! and the integrator's accepted and rejected steps (those of the event location included)
//! per step, and the time of a limit-cycle search with multipliers (`periodic_orbit` from the
//! model file's guess) with its largest differences from the fixture's state, period and
//! multipliers.
//!
//! `cargo run --release -p udk-bench --bin walker [-- FIXTURE]`

use serde_json::{json, Value};
use std::error::Error;
use std::time::Instant;
use udk::lagrangian;
use udk::nalgebra::{Matrix2x4, SVector, Vector2, Vector4};
use udk::runtime::simulate::{
    periodic_orbit, simulate_lagrangian_with_events, Direction, Event, OrbitOptions, OutputTimes,
    SimulationOptions,
};
use udk::runtime::{impact, Options};

/// Goswami's compass gait on the slope `slope` (rad): the stance foot (x, y), pinned, and the
/// legs' angles from the vertical, counterclockwise (θ_s, θ_ns).
#[lagrangian(
    coordinates(x, y, theta_s, theta_ns),
    let foot = vec3(x, y, 0.0),
    let hip = foot + l * vec3(-theta_s.sin(), theta_s.cos(), 0.0),
    let stance_mass = foot + a * vec3(-theta_s.sin(), theta_s.cos(), 0.0),
    let swing_mass = hip + b * vec3(theta_ns.sin(), -theta_ns.cos(), 0.0),
    lagrangian = 0.5 * m * dot(stance_mass).norm_squared() + 0.5 * m_h * dot(hip).norm_squared()
        + 0.5 * m * dot(swing_mass).norm_squared()
        - g * (m * stance_mass.y() + m_h * hip.y() + m * swing_mass.y()),
    holonomic(x, y),
)]
struct CompassGait {
    m: f64,
    m_h: f64,
    a: f64,
    b: f64,
    l: f64,
    g: f64,
    slope: f64,
}

/// Runs of the bench and their best.
const REPEAT: usize = 7;
/// Steps of the timed walk.
const STEPS: usize = 100;

impl CompassGait {
    /// The swing foot relative to the stance foot, (x, y).
    fn spread(&self, q: &Vector4<f64>) -> Vector2<f64> {
        let (ts, tns) = (q[2], q[3]);
        self.l * Vector2::new(tns.sin() - ts.sin(), ts.cos() - tns.cos())
    }

    /// The heel strike: the swing foot's height above the slope falls through 0 ahead of the
    /// stance foot; the reset pins the swing foot by a plastic impact (the stance foot
    /// released), then swaps the legs and moves the coordinates to the new stance foot.
    fn heel_strike(&self) -> Event<'_, 4> {
        let (normal, downhill) = (
            Vector2::new(self.slope.sin(), self.slope.cos()),
            Vector2::new(self.slope.cos(), -self.slope.sin()),
        );
        Event::reset(
            "heel_strike",
            Direction::Falling,
            move |_, q: &Vector4<f64>, _| self.spread(q).dot(&normal),
            move |t, q, v| {
                let (ts, tns) = (q[2], q[3]);
                // ∂(swing foot)/∂q.
                let rows = Matrix2x4::new(
                    1.0,
                    0.0,
                    -self.l * ts.cos(),
                    self.l * tns.cos(),
                    0.0,
                    1.0,
                    -self.l * ts.sin(),
                    self.l * tns.sin(),
                );
                let mass_matrix = self.terms(q, v, t).mass_matrix;
                let plastic = Vector2::zeros();
                let after = impact(&mass_matrix, &rows, &plastic, v, &Options::default())?;
                let w = after.velocity;
                Ok((
                    Vector4::new(0.0, 0.0, tns, ts),
                    Vector4::new(0.0, 0.0, w[3], w[2]),
                ))
            },
        )
        .when(move |_, q, _| self.spread(q).dot(&downhill) > 0.0)
    }
}

/// The CPU time of this thread (s), from Linux's `/proc/thread-self/schedstat` (ns on the
/// CPU); NaN elsewhere. On a loaded machine it leaves out the time the thread waited.
fn cpu_seconds() -> f64 {
    let schedstat = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    let on_cpu = schedstat.split_whitespace().next().map(str::parse::<f64>);
    on_cpu.and_then(Result::ok).map_or(f64::NAN, |ns| ns * 1e-9)
}

/// Wall-clock and CPU seconds of the fastest of `REPEAT` calls of `f` (each its own best),
/// and the last result.
fn best<T>(mut f: impl FnMut() -> T) -> ((f64, f64), T) {
    let (mut wall, mut cpu) = (f64::INFINITY, f64::INFINITY);
    let mut result = None;
    for _ in 0..REPEAT {
        let (start, cpu_start) = (Instant::now(), cpu_seconds());
        result = Some(std::hint::black_box(f()));
        wall = wall.min(start.elapsed().as_secs_f64());
        cpu = cpu.min(cpu_seconds() - cpu_start);
    }
    ((wall, cpu), result.expect("REPEAT > 0"))
}

/// The largest absolute difference of two sequences.
fn largest_difference(a: impl IntoIterator<Item = f64>, b: impl IntoIterator<Item = f64>) -> f64 {
    a.into_iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

fn main() -> Result<(), Box<dyn Error>> {
    let path = std::env::args().nth(1).unwrap_or_else(|| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/fixtures/compass_gait.json"
        )
        .into()
    });
    let fixture: Value = serde_json::from_str(&std::fs::read_to_string(path)?)?;
    let numbers = |v: &Value| -> Vec<f64> {
        v.as_array()
            .map(|a| a.iter().filter_map(Value::as_f64).collect())
            .unwrap_or_default()
    };
    let parameter = |name: &str| fixture["parameters"][name].as_f64().unwrap_or(f64::NAN);
    let gait = &fixture["gaits"][0];
    let state = numbers(&gait["state"]);
    let period = gait["period"].as_f64().unwrap_or(f64::NAN);
    let walker = CompassGait {
        m: parameter("m"),
        m_h: parameter("m_h"),
        a: parameter("a"),
        b: parameter("b"),
        l: parameter("l"),
        g: parameter("g"),
        slope: gait["slope"].as_f64().unwrap_or(f64::NAN),
    };
    let (q0, v0) = (
        Vector4::from_column_slice(&state[..4]),
        Vector4::from_column_slice(&state[4..]),
    );
    let strike = [walker.heel_strike()];
    // Output at the end only, as `udk simulate --dt-out T_END`.
    let walk = |steps: f64| {
        let tf = steps * period;
        let options = SimulationOptions {
            rtol: 1e-10,
            atol: 1e-12,
            output: OutputTimes::Every(tf),
            ..SimulationOptions::default()
        };
        simulate_lagrangian_with_events(&walker, &q0, &v0, 0.0, tf, &options, &strike)
    };
    let (long, run) = best(|| walk(STEPS as f64 + 0.5));
    let run = run?;
    let (short, start_run) = best(|| walk(0.5));
    start_run?;
    let last = run.events.last().ok_or("the walker did not strike")?;
    let after: Vec<f64> = last
        .after
        .0
        .iter()
        .chain(last.after.1.iter())
        .copied()
        .collect();

    // The limit-cycle search from the model file's guess.
    let guess = (
        Vector4::new(0.0, 0.0, 0.2187, -0.3234),
        Vector4::new(0.0, 0.0, -1.0918, -0.3772),
    );
    let search_options = SimulationOptions {
        rtol: 1e-12,
        atol: 1e-14,
        ..SimulationOptions::default()
    };
    let (search, orbit) = best(|| {
        periodic_orbit(
            &walker,
            &strike[0],
            (&guess.0, &guess.1),
            &search_options,
            &OrbitOptions::default(),
        )
    });
    let orbit = orbit?;
    let found: SVector<f64, 8> =
        SVector::from_iterator(orbit.q.iter().chain(orbit.v.iter()).copied());
    // The multipliers besides the zeros of the pinned foot, and the fixture's, in one order.
    let sorted = |mut pairs: Vec<[f64; 2]>| {
        pairs.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
        pairs.concat()
    };
    let multipliers = sorted(
        (orbit.multipliers.iter())
            .filter(|z| z.norm() > 1e-6)
            .map(|z| [z.re, z.im])
            .collect(),
    );
    let expected = sorted(
        (gait["multipliers"].as_array().into_iter().flatten())
            .map(|z| {
                let z = numbers(z);
                [z[0], z[1]]
            })
            .collect(),
    );
    let report = json!({
        "steps": run.events.len(),
        "step_us": (long.0 - short.0) / STEPS as f64 * 1e6,
        "step_cpu_us": (long.1 - short.1) / STEPS as f64 * 1e6,
        "whole_ms": long.0 * 1e3,
        "whole_cpu_ms": long.1 * 1e3,
        "evaluations_per_step": run.stats.rhs_evaluations as f64 / (STEPS as f64 + 0.5),
        "accepted_per_step": run.stats.accepted_steps as f64 / (STEPS as f64 + 0.5),
        "rejected_per_step": run.stats.rejected_steps as f64 / (STEPS as f64 + 0.5),
        "last_strike_time_error": (last.t - STEPS as f64 * period).abs(),
        "state_error": largest_difference(after, state.iter().copied()),
        "search_ms": search.0 * 1e3,
        "search_cpu_ms": search.1 * 1e3,
        "search_iterations": orbit.iterations,
        "search_state_error": largest_difference(found.iter().copied(), state.iter().copied()),
        "search_period_error": (orbit.period - period).abs(),
        "search_multipliers": multipliers.len() / 2,
        "search_multiplier_error": largest_difference(multipliers, expected),
    });
    println!("{report}");
    Ok(())
}
