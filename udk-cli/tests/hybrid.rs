//! `[[events]]` in model files, run by `udk simulate`, and `udk limit-cycle`: the bouncing ball
//! against its closed-form impact times, the rimless wheel against its closed-form fixed point
//! and multiplier, the compass gait against the SciPy fixture of
//! `tests/fixtures/make_compass_gait.py`; bad events located in the file.

mod common;

use common::{close, fixture, json_output, model, numbers, read_csv, run, udk, Json};
use std::path::{Path, PathBuf};

/// A ball dropped from h = 1 m onto the ground y = 0, e = 0.8, with a record event at the apex
/// (ẏ falling through 0).
const BALL: &str = r#"name = "Ball"
coordinates = ["y"]
parameters = [{ name = "m", value = 1.0 }, { name = "g", value = 9.81 }, { name = "e", value = 0.8 }]
lagrangian = "0.5 * m * dot(y).powi(2) - m * g * y"

[[events]]
name = "ground"
guard = "y"
direction = "falling"
impact = ["y"]
restitution = 0.8

[[events]]
name = "apex"
guard = "dot(y)"
direction = "falling"

[initial]
q0 = [1.0]
qd0 = [0.0]
"#;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// One event of a log: its name, and its row's numbers (t, then q⁻, q̇⁻, q⁺, q̇⁺).
struct Logged {
    name: String,
    values: Vec<f64>,
}

/// `udk simulate path --t-end t_end extra… --events … --out …`, which must succeed: standard
/// output, the event log, and the trajectory's rows (t, q, q̇, residuals, energy).
fn simulate(path: &Path, t_end: &str, extra: &[&str]) -> (String, Vec<Logged>, Vec<Vec<f64>>) {
    let dir = tempfile::tempdir().unwrap();
    let (log, out) = (dir.path().join("events.csv"), dir.path().join("run.csv"));
    let output = udk()
        .args(["simulate".as_ref(), path.as_os_str(), "--t-end".as_ref()])
        .args([t_end.as_ref(), "--events".as_ref(), log.as_os_str()])
        .args(["--out".as_ref(), out.as_os_str()])
        .args(extra)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let csv = std::fs::read_to_string(&log).unwrap();
    let logged = (csv.lines().skip(1))
        .map(|line| {
            let (t, rest) = line.split_once(',').unwrap();
            let (name, values) = rest.split_once(',').unwrap();
            let numbers = std::iter::once(t).chain(values.split(','));
            Logged {
                name: name.to_string(),
                values: numbers.map(|x| x.parse().unwrap()).collect(),
            }
        })
        .collect();
    let (_, samples) = read_csv(&out);
    (String::from_utf8(output).unwrap(), logged, samples)
}

/// `udk command path args…`, which must fail with exit code `code`: standard error.
fn fails(command: &str, path: &Path, args: &[&str], code: i32) -> String {
    run(command, path, args, code).1
}

/// The multipliers of a `udk limit-cycle` report as (re, im) pairs.
fn multipliers(report: &Json) -> Vec<(f64, f64)> {
    (report["multipliers"].as_array().unwrap().iter())
        .map(|z| {
            let z = numbers(z);
            (z[0], z[1])
        })
        .collect()
}

#[test]
fn a_bouncing_ball_model_file_logs_its_impacts_at_the_closed_form_times() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "ball.toml", BALL);
    let (text, logged, _) = simulate(&path, "2.5", &[]);
    // Impact k at t_k = √(2h/g)(1 + 2(e + … + e^(k−1))), apexes halfway between.
    let (g, e, h) = (9.81_f64, 0.8_f64, 1.0_f64);
    let mut expected = Vec::new();
    let mut t = (2.0 * h / g).sqrt();
    for k in 1..=4 {
        expected.push(("ground", t));
        let flight = 2.0 * e.powi(k) * (2.0 * g * h).sqrt() / g;
        expected.push(("apex", t + flight / 2.0));
        t += flight;
    }
    expected.retain(|(_, t)| *t < 2.5);
    assert_eq!(logged.len(), expected.len());
    for (event, (name, t)) in logged.iter().zip(&expected) {
        assert_eq!(event.name, *name);
        let time = event.values[0];
        assert!((time - t).abs() < 1e-11, "{name}: {time} against {t}");
    }
    // The first impact: ẏ⁻ = −√(2gh), ẏ⁺ = e√(2gh), the position unchanged.
    let speed = (2.0 * g * h).sqrt();
    let first = &logged[0].values[1..];
    close(first, &[0.0, -speed, 0.0, e * speed], 1e-10, "first impact");
    // The log is printed too.
    assert!(
        text.contains(&format!("events: {}", expected.len())),
        "{text}"
    );
    assert!(text.contains("ground") && text.contains("apex"), "{text}");
}

#[test]
fn a_stop_event_ends_the_run_at_its_closed_form_time() {
    // The ball rises through y = 1/2 after its first bounce, at t₁ + (v − √(v² − g))/g with
    // v = e√(2gh), and the run stops there.
    let stop = "[[events]]\nname = \"half\"\nguard = \"y - 0.5\"\ndirection = \"rising\"\naction = \"stop\"\n";
    let text = BALL.replace("[initial]", &format!("{stop}\n[initial]"));
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "ball.toml", &text);
    let (_, logged, samples) = simulate(&path, "6", &[]);
    let (g, e) = (9.81_f64, 0.8_f64);
    let v = e * (2.0 * g).sqrt();
    let t = (2.0 / g).sqrt() + (v - (v * v - g).sqrt()) / g;
    let names: Vec<&str> = logged.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["ground", "half"]);
    let time = logged[1].values[0];
    assert!((time - t).abs() < 1e-11, "{time} against {t}");
    // The trajectory ends there.
    let end = samples.last().unwrap()[0];
    assert!((end - t).abs() < 1e-11, "{end} against {t}");
}

#[test]
fn rimless_wheel_limit_cycle_has_the_closed_form_fixed_point_and_multiplier() {
    for (spokes, slope) in [(8.0_f64, 0.08_f64), (10.0, 0.1)] {
        let sets = [format!("spokes={spokes}"), format!("slope={slope}")];
        let args = ["--set", &sets[0], "--set", &sets[1]];
        let report = json_output("limit-cycle", &model("rimless_wheel"), &args);
        let (g, l) = (9.81, 1.0);
        let alpha = std::f64::consts::PI / spokes;
        let omega = (4.0 * g / l * alpha.sin() * slope.sin()).sqrt() / (2.0 * alpha).tan();
        let state = numbers(&report["state"]);
        close(
            &state,
            &[0.0, 0.0, slope - alpha, 0.0, 0.0, omega],
            1e-10,
            "state",
        );
        // The step from θ = γ − α to γ + α at the fixed point: the period of an inverted
        // pendulum started at ω*, t = ∫ dθ / √(ω*² + 2(g/l)(cos(γ−α) − cos θ)), by Simpson.
        let speed = |theta: f64| {
            (omega * omega + 2.0 * g / l * ((slope - alpha).cos() - theta.cos())).sqrt()
        };
        let steps = 2000;
        let width = 2.0 * alpha / steps as f64;
        let period: f64 = (0..=steps)
            .map(|k| {
                let weight = match k {
                    0 => 1.0,
                    k if k == steps => 1.0,
                    k if k % 2 == 1 => 4.0,
                    _ => 2.0,
                };
                weight / speed(slope - alpha + k as f64 * width)
            })
            .sum::<f64>()
            * width
            / 3.0;
        let found = report["period"].as_f64().unwrap();
        assert!((found - period).abs() < 1e-10, "{found} against {period}");
        let multipliers = multipliers(&report);
        let expected = (2.0 * alpha).cos().powi(2);
        assert!(
            (multipliers[0].0 - expected).abs() < 1e-10 && multipliers[0].1 == 0.0,
            "{multipliers:?} against {expected}"
        );
        // The reset's image is the line x = y = ẋ = ẏ = 0, θ = γ − α: the others vanish.
        assert!(multipliers[1..].iter().all(|z| z.0.hypot(z.1) < 1e-9));
    }
}

#[test]
fn compass_gait_limit_cycle_agrees_with_scipy() {
    let reference = fixture("compass_gait");
    for gait in reference["gaits"].as_array().unwrap() {
        let slope = gait["slope"].as_f64().unwrap();
        let set = format!("slope={slope}");
        let report = json_output("limit-cycle", &model("compass_gait"), &["--set", &set]);
        close(
            &numbers(&report["state"]),
            &numbers(&gait["state"]),
            1e-9,
            "state",
        );
        let period = report["period"].as_f64().unwrap();
        let expected = gait["period"].as_f64().unwrap();
        assert!(
            (period - expected).abs() < 1e-9,
            "{period} against {expected}"
        );
        let found = multipliers(&report);
        let expected: Vec<(f64, f64)> = multipliers(gait);
        // SciPy's come from the variational equations of the 4-state return map; udk's from
        // the 8-state monodromy matrix, whose other four vanish (the pinned foot's
        // coordinates). Both are exact to about the Newton tolerance on the state (1e-10).
        for (z, w) in found.iter().zip(&expected) {
            let matched = expected.iter().any(|w| (z.0 - w.0).hypot(z.1 - w.1) < 1e-9);
            assert!(matched, "{z:?} against {expected:?} (paired with {w:?})");
        }
        assert!(
            found[3..].iter().all(|z| z.0.hypot(z.1) < 1e-9),
            "{found:?}"
        );
    }
}

#[test]
fn a_compass_gait_walks_step_after_step_on_its_limit_cycle() {
    let report = json_output("limit-cycle", &model("compass_gait"), &[]);
    let state = numbers(&report["state"]);
    let period = report["period"].as_f64().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(model("compass_gait")).unwrap();
    let start = text.find("[initial]").unwrap();
    let walker = format!(
        "{}[initial]\nq0 = {:?}\nqd0 = {:?}\n",
        &text[..start],
        &state[..4],
        &state[4..]
    );
    let path = write(dir.path(), "walker.toml", &walker);
    let (_, logged, _) = simulate(&path, &format!("{}", 5.5 * period), &[]);
    assert_eq!(logged.len(), 5);
    for (k, step) in logged.iter().enumerate() {
        let t = (k + 1) as f64 * period;
        let found = step.values[0];
        assert!((found - t).abs() < 1e-8, "step {k}: {found} against {t}");
        // After each strike the state is back on the cycle.
        close(&step.values[9..17], &state, 1e-8, "state after the strike");
    }
}

#[test]
fn bad_events_are_located_in_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            BALL.replace("guard = \"y\"", "guard = \"t - 1.0 + 0.0 * y\""),
            "not a function of the state",
            "(in `events[0].guard`",
        ),
        (
            BALL.replace("guard = \"y\"", "guard = \"z\""),
            "unknown",
            "(in `events[0].guard`",
        ),
        (
            BALL.replace(
                "impact = [\"y\"]",
                "impact = [\"y\"]\nrelease = [\"holonomic[0]\"]",
            ),
            "release `holonomic[0]`",
            "event `ground`",
        ),
        (
            BALL.replace("impact = [\"y\"]", "q = [\"y\", \"y\"]"),
            "`q` has 2 entries",
            "event `ground`",
        ),
        (
            BALL.replace("restitution = 0.8", "restitution = -1.0"),
            "restitution",
            "event `ground`",
        ),
        (
            BALL.replace(
                "guard = \"dot(y)\"",
                "guard = \"dot(y)\"\naction = \"reset\"",
            ),
            "a reset needs",
            "event `apex`",
        ),
    ];
    for (text, message, location) in cases {
        let path = write(dir.path(), "bad.toml", &text);
        let err = fails("simulate", &path, &["--t-end", "1"], 2);
        assert!(err.contains(message), "{message}: {err}");
        assert!(err.contains(location), "{location}: {err}");
        assert!(err.contains("bad.toml"), "{err}");
    }
}

#[test]
fn limit_cycle_refuses_a_model_without_a_reset_or_an_unknown_section() {
    let dir = tempfile::tempdir().unwrap();
    let records = BALL.replace("impact = [\"y\"]\nrestitution = 0.8", "action = \"record\"");
    let path = write(dir.path(), "records.toml", &records);
    let err = fails("limit-cycle", &path, &[], 2);
    assert!(err.contains("no [[events]] with a reset"), "{err}");
    let err = fails(
        "limit-cycle",
        &model("rimless_wheel"),
        &["--section", "heel"],
        2,
    );
    assert!(
        err.contains("--section heel") && err.contains("strike"),
        "{err}"
    );
}

#[test]
fn a_block_thrown_up_an_incline_stops_then_sticks_or_slides_back() {
    let (g, beta, v0, tf) = (9.81_f64, 0.3_f64, 3.0, 2.0);
    for mu in [0.5_f64, 0.2] {
        let set = format!("mu={mu}");
        let (_, logged, samples) = simulate(&model("sliding_block"), "2", &["--set", &set]);
        let t1 = v0 / (g * (beta.sin() + mu * beta.cos()));
        let s1 = 0.5 * v0 * t1;
        let s = match mu >= beta.tan() {
            true => s1,
            false => s1 - 0.5 * g * (beta.sin() - mu * beta.cos()) * (tf - t1).powi(2),
        };
        assert_eq!(logged.len(), 1);
        assert_eq!(logged[0].name, "ground stick");
        let t = logged[0].values[0];
        assert!((t - t1).abs() < 1e-12, "{t} against {t1}");
        let last = samples.last().unwrap();
        close(
            &last[..3],
            &[tf, s * beta.cos(), s * beta.sin()],
            1e-12,
            "final state",
        );
    }
}

#[test]
fn a_contact_whose_gap_reads_velocities_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(model("sliding_block")).unwrap();
    for (bad, message) in [
        (
            "gap = \"-x * beta.sin() + dot(y)\"",
            "cannot appear in a contact's gap or slip coordinate, a function of (q, t)",
        ),
        ("gap = \"beta\"", "depends on no coordinate"),
    ] {
        let text = text.replace("gap = \"-x * beta.sin() + y * beta.cos()\"", bad);
        let path = write(dir.path(), "block.toml", &text);
        let err = fails("simulate", &path, &["--t-end", "1"], 2);
        assert!(
            err.contains(message) && err.contains("contacts[0].gap"),
            "{err}"
        );
    }
}

/// A ball on the contact `ground` (gap y), e = 0.8.
const BALL_CONTACT: &str = r#"name = "Ball"
coordinates = ["y"]
parameters = [{ name = "m", value = 1.0 }, { name = "g", value = 9.81 }]
lagrangian = "0.5 * m * dot(y).powi(2) - m * g * y"

[[contacts]]
name = "ground"
gap = "y"
restitution = 0.8

[initial]
q0 = [1.0]
qd0 = [0.0]
"#;

#[test]
fn a_bouncing_contact_ends_as_zeno_at_the_accumulation_time_or_comes_to_rest() {
    let dir = tempfile::tempdir().unwrap();
    let (g, e, h) = (9.81_f64, 0.8_f64, 1.0_f64);
    let accumulation = (2.0 * h / g).sqrt() * (1.0 + e) / (1.0 - e);
    // Without a rest speed: the bound on events in a row ends the run, naming the event.
    let path = write(dir.path(), "ball.toml", BALL_CONTACT);
    let err = fails("simulate", &path, &["--t-end", "6"], 3);
    assert!(
        err.contains("'ground touchdown'") && err.contains("Zeno"),
        "{err}"
    );
    let at: f64 = (err
        .split("at t = ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap())
    .parse()
    .unwrap();
    assert!(
        (at - accumulation).abs() < 1e-8,
        "{at} against {accumulation}"
    );
    // With rest_speed = 0.01 m/s: impact k meets the ball at e^(k−1)√(2gh); it rests at the
    // first k whose rebound e^k√(2gh) is below 0.01, and stays on the ground.
    let text = BALL_CONTACT.replace("restitution = 0.8", "restitution = 0.8\nrest_speed = 0.01");
    let path = write(dir.path(), "resting.toml", &text);
    let (_, logged, samples) = simulate(&path, "6", &[]);
    let speed = (2.0 * g * h).sqrt();
    let closing = (1..200).find(|k| e.powi(*k) * speed < 0.01).unwrap();
    assert_eq!(logged.len(), closing as usize);
    let t_k = (2.0 * h / g).sqrt() * (1.0 + 2.0 * (e - e.powi(closing)) / (1.0 - e));
    let rest = &logged.last().unwrap().values;
    assert!((rest[0] - t_k).abs() < 1e-10, "{} against {t_k}", rest[0]);
    assert_eq!(rest[4], 0.0);
    for sample in samples.iter().filter(|s| s[0] > rest[0]) {
        assert!(
            sample[1].abs() < 1e-12 && sample[2].abs() < 1e-12,
            "{sample:?}"
        );
    }
}

#[test]
fn a_rod_dropped_at_an_angle_touches_down_by_the_closed_form_and_comes_to_rest_flat() {
    let (_, logged, samples) = simulate(&model("falling_rod"), "1", &["--dt-out", "0.01"]);
    let names: Vec<&str> = logged.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names[0], "end_a touchdown", "{names:?}");
    assert!(names.contains(&"end_b touchdown"), "{names:?}");
    // Free fall of the lower end from 0.6 − ½ sin 0.5, then a plastic impact with friction
    // μ = 0.3. Sticking would need the tangential impulse Pₜ = 0.748 Pₙ, outside the friction
    // cone, so the end slides through the impact with Pₜ = μ Pₙ. Newton–Euler on the rod
    // (I = mL²/12, the end at r = L/2, k = r²/I): Pₙ = v / (1/m + k c² − μ k s c) and the
    // spin ω⁺ = r (s Pₜ − c Pₙ) / I, with (s, c) = (sin θ, cos θ).
    let (g, m, l, theta, mu) = (9.81_f64, 1.0, 1.0, 0.5_f64, 0.3);
    let drop = 0.6 - 0.5 * l * theta.sin();
    let t = (2.0 * drop / g).sqrt();
    let v = g * t;
    let inertia = m * l * l / 12.0;
    let (r, (s, c)) = (0.5 * l, theta.sin_cos());
    let k = r * r / inertia;
    let ratio = k * s * c / (1.0 / m + k * s * s);
    assert!((ratio - 0.748).abs() < 1e-3, "{ratio}");
    let normal = v / (1.0 / m + k * c * c - mu * k * s * c);
    let tangential = mu * normal;
    let first = &logged[0].values;
    assert!((first[0] - t).abs() < 1e-12, "{} against {t}", first[0]);
    let after = [
        tangential / m,
        -v + normal / m,
        r * (s * tangential - c * normal) / inertia,
    ];
    close(
        &first[10..13],
        &after,
        1e-12,
        "velocities after the touchdown",
    );
    // Neither end goes through the table; the energy never rises; the rod ends flat at rest.
    let mut energy = f64::INFINITY;
    for s in &samples {
        let lowest = s[2] - 0.5 * l * s[3].sin().abs();
        assert!(lowest > -1e-9, "{s:?}");
        assert!(s[9] <= energy + 1e-9, "{s:?}");
        energy = s[9];
    }
    let last = samples.last().unwrap();
    close(&last[2..7], &[0.0; 5], 1e-9, "at rest, flat");
}

/// A point held on the z axis by one 3-vector holonomic constraint (three rows, the third
/// redundant), falling, with an elastic bounce at z = 0.5 that releases a holonomic row by
/// name.
const PINNED: &str = r#"name = "Pinned"
coordinates = ["x", "y", "z"]
parameters = [{ name = "m", value = 1.0 }, { name = "g", value = 9.81 }]
lagrangian = "0.5 * m * (dot(x).powi(2) + dot(y).powi(2) + dot(z).powi(2)) - m * g * z"
holonomic = ["vec3(x, y, x + y)"]

[[events]]
name = "tick"
guard = "z - 0.5"
direction = "falling"
impact = ["z"]
restitution = 1.0
release = ["ROW"]

[initial]
q0 = [0.0, 0.0, 1.0]
qd0 = [0.0, 0.0, 0.0]
"#;

#[test]
fn impact_rows_are_named_by_the_rows_of_a_vector_constraint() {
    let dir = tempfile::tempdir().unwrap();
    // The third row of the one 3-vector constraint is `holonomic[2]`, as `udk eval` names
    // its multiplier.
    let path = write(
        dir.path(),
        "pinned.toml",
        &PINNED.replace("ROW", "holonomic[2]"),
    );
    let (_, logged, _) = simulate(&path, "0.9", &[]);
    assert_eq!(logged.len(), 1);
    assert_eq!(logged[0].name, "tick");
    assert!((logged[0].values[0] - (1.0 / 9.81f64).sqrt()).abs() < 1e-12);
    let output = udk()
        .args(["eval".as_ref(), path.as_os_str()])
        .output()
        .unwrap();
    let report: Json = serde_json::from_slice(&output.stdout).unwrap();
    let multipliers = report["constraint_multipliers"].as_object().unwrap();
    let names: Vec<&String> = multipliers.keys().collect();
    assert_eq!(names, ["holonomic[0]", "holonomic[1]", "holonomic[2]"]);
    assert!(multipliers
        .values()
        .all(|v| v.as_f64().unwrap().abs() < 1e-12));
    let path = write(
        dir.path(),
        "pinned.toml",
        &PINNED.replace("ROW", "holonomic[3]"),
    );
    let err = fails("simulate", &path, &["--t-end", "1"], 2);
    assert!(err.contains("release `holonomic[3]`"), "{err}");
}
