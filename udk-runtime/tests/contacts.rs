//! Unilateral contact with Coulomb friction ([`ContactSet`]) against closed forms: a block
//! thrown up an incline stops, then sticks (μ ≥ tan β) or slides back; a block dropped onto
//! the incline touches down plastically, slides and sticks; moving surfaces: a block on a
//! conveyor belt, a block carried across its path by a belt in space (the lateral slip rate)
//! and a block dropped onto a rising platform.

use nalgebra::{DMatrix, DVector, SVector};
use std::ops::ControlFlow;
use udk_runtime::simulate::{
    simulate_dynamic_lagrangian_with_events, Contact, ContactGeometry, ContactMode, ContactRow,
    ContactSet, DynamicLagrangianSystem, DynamicLagrangianTerms, SimulationOptions, Trajectory,
};
use udk_runtime::{sliding_impact, Error, Options, SlidingFriction};

const G: f64 = 9.81;
const MASS: f64 = 2.0;

/// A block of mass m on an incline of angle β: s along the incline (uphill), h along its
/// normal, no constraint of its own.
struct Block {
    beta: f64,
}

impl DynamicLagrangianSystem for Block {
    fn num_holonomic(&self) -> usize {
        0
    }

    fn terms(&self, _: &[f64], _: &[f64], _: f64) -> DynamicLagrangianTerms {
        DynamicLagrangianTerms {
            mass_matrix: DMatrix::identity(2, 2) * MASS,
            generalized_force: DVector::from_vec(vec![
                -MASS * G * self.beta.sin(),
                -MASS * G * self.beta.cos(),
            ]),
            constraint_matrix: DMatrix::zeros(0, 2),
            constraint_rhs: DVector::zeros(0),
            nonideal_force: None,
        }
    }

    fn energy(&self, q: &[f64], qd: &[f64], _: f64) -> f64 {
        0.5 * MASS * (qd[0] * qd[0] + qd[1] * qd[1])
            + MASS * G * (q[0] * self.beta.sin() + q[1] * self.beta.cos())
    }

    fn holonomic_residual(&self, _: &[f64], _: f64) -> DVector<f64> {
        DVector::zeros(0)
    }

    fn velocity_residual(&self, _: &[f64], _: &[f64], _: f64) -> DVector<f64> {
        DVector::zeros(0)
    }
}

/// The row of a function of q alone with gradient `gradient`, constant along the flow.
fn fixed(gradient: Vec<f64>) -> ContactRow {
    ContactRow {
        gradient: DVector::from_vec(gradient),
        rate: 0.0,
        rhs: 0.0,
    }
}

/// The incline's surface h = 0, slip along s, restitution 0, friction μ.
fn ground<'a>(mu: f64) -> Contact<'a> {
    Contact::new("ground", 0.0, mu, |q: &[f64], _: &[f64], _| {
        ContactGeometry {
            gap: q[1],
            normal: fixed(vec![0.0, 1.0]),
            tangent: fixed(vec![1.0, 0.0]),
            lateral: None,
        }
    })
}

/// The run of `set` from (q₀, v₀) at t = 0 to `tf` under its contacts' events, with
/// `options`.
fn run_with_events<'a, S: DynamicLagrangianSystem, const N: usize>(
    set: &'a ContactSet<'a, S>,
    start: (&SVector<f64, N>, &SVector<f64, N>),
    tf: f64,
    options: &SimulationOptions,
) -> Trajectory<N> {
    let events = set.events::<N>();
    simulate_dynamic_lagrangian_with_events(set, start, (0.0, tf), options, &events, |_| {
        ControlFlow::Continue(())
    })
    .unwrap()
}

fn tight() -> SimulationOptions {
    SimulationOptions {
        rtol: 1e-12,
        atol: 1e-14,
        ..SimulationOptions::default()
    }
}

#[test]
fn a_block_thrown_up_an_incline_stops_then_sticks_or_slides_back() {
    let (beta, v0, tf) = (0.3_f64, 3.0, 2.0);
    // μ = 0.5 ≥ tan β = 0.309: it sticks; μ = 0.2 < tan β: it slides back.
    for mu in [0.5, 0.2] {
        let block = Block { beta };
        let set = ContactSet::new(&block, vec![ground(mu)]).unwrap();
        let (q0, v0) = (SVector::<f64, 2>::zeros(), SVector::<f64, 2>::new(v0, 0.0));
        set.settle(q0.as_slice(), v0.as_slice(), 0.0, 1e-12)
            .unwrap();
        assert_eq!(set.modes(), vec![ContactMode::Sliding(1.0)]);
        let run = run_with_events(&set, (&q0, &v0), tf, &tight());
        let up = G * (beta.sin() + mu * beta.cos());
        let t1 = v0[0] / up;
        let s1 = 0.5 * v0[0] * t1;
        assert_eq!(run.events.len(), 1, "{:?}", run.events);
        let stop = &run.events[0];
        assert_eq!(stop.name, "ground stick");
        assert!((stop.t - t1).abs() < 1e-12, "{} against {t1}", stop.t);
        assert!((stop.before.0[0] - s1).abs() < 1e-12);
        let last = run.samples.last().unwrap();
        let (q, qd) = (last.q.as_slice(), last.v.as_slice());
        let normal = MASS * G * beta.cos();
        let forces = set.forces(q, qd, tf).unwrap();
        assert_eq!(forces[0].name, "ground.normal");
        assert!((forces[0].value - normal).abs() < 1e-9, "{forces:?}");
        assert!(last.q[1].abs() < 1e-12 && last.v[1].abs() < 1e-12);
        if mu >= beta.tan() {
            assert_eq!(set.modes(), vec![ContactMode::Sticking]);
            assert!((last.q[0] - s1).abs() < 1e-12, "{} against {s1}", last.q[0]);
            assert!(last.v[0].abs() < 1e-12);
            // Static friction holds the block up the slope: λₜ = m g sin β.
            let holding = MASS * G * beta.sin();
            assert!((forces[1].value - holding).abs() < 1e-9, "{forces:?}");
        } else {
            assert_eq!(set.modes(), vec![ContactMode::Sliding(-1.0)]);
            let down = G * (beta.sin() - mu * beta.cos());
            let s = s1 - 0.5 * down * (tf - t1).powi(2);
            assert!((last.q[0] - s).abs() < 1e-11, "{} against {s}", last.q[0]);
            assert!((last.v[0] + down * (tf - t1)).abs() < 1e-11);
            // Sliding friction −μ|λₙ| sgn ṡ, up the slope.
            assert!((forces[1].value - mu * normal).abs() < 1e-9, "{forces:?}");
        }
    }
}

/// A block dropped from rest onto an incline reaches it with a slip speed tan β times its
/// normal speed, so the touchdown is a sticking impact where μ ≥ tan β (the tangential impulse
/// that stops the slip is inside the friction cone) and a sliding one otherwise, with the
/// tangential impulse μλₙ; either way the normal speed goes to 0 (plastic impact).
#[test]
fn a_block_dropped_on_an_incline_sticks_or_slides_through_its_touchdown() {
    let (beta, h0) = (0.2_f64, 0.5);
    for mu in [0.6, 0.1] {
        let block = Block { beta };
        let set = ContactSet::new(&block, vec![ground(mu)]).unwrap();
        let (q0, v0) = (SVector::<f64, 2>::new(0.0, h0), SVector::<f64, 2>::zeros());
        set.settle(q0.as_slice(), v0.as_slice(), 0.0, 1e-12)
            .unwrap();
        assert_eq!(set.modes(), vec![ContactMode::Open]);
        let tf = 2.0;
        let run = run_with_events(&set, (&q0, &v0), tf, &tight());
        let names: Vec<&str> = run.events.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["ground touchdown"], "μ = {mu}");
        // Free fall to h = 0: the normal speed g cos β t_d and the slip speed g sin β t_d.
        let td = (2.0 * h0 / (G * beta.cos())).sqrt();
        let (slip, normal) = (-G * beta.sin() * td, G * beta.cos() * td);
        let s_td = -0.5 * G * beta.sin() * td * td;
        let touchdown = &run.events[0];
        assert!(
            (touchdown.t - td).abs() < 1e-12,
            "{} against {td}",
            touchdown.t
        );
        assert!((touchdown.before.1[0] - slip).abs() < 1e-12);
        assert!(touchdown.after.1[1].abs() < 1e-12);
        let last = run.samples.last().unwrap();
        if mu >= beta.tan() {
            assert!(
                touchdown.after.1[0].abs() < 1e-12,
                "{:?}",
                touchdown.after.1
            );
            assert_eq!(set.modes(), vec![ContactMode::Sticking]);
            assert!(
                (last.q[0] - s_td).abs() < 1e-11,
                "{} against {s_td}",
                last.q[0]
            );
        } else {
            // The slip loses μ times the normal speed, then slides down at g(sin β − μ cos β).
            let after = slip + mu * normal;
            assert!(
                (touchdown.after.1[0] - after).abs() < 1e-12,
                "{:?}",
                touchdown.after.1
            );
            let down = G * (beta.sin() - mu * beta.cos());
            let s = s_td + after * (tf - td) - 0.5 * down * (tf - td).powi(2);
            assert!((last.q[0] - s).abs() < 1e-11, "{} against {s}", last.q[0]);
            assert_eq!(set.modes(), vec![ContactMode::Sliding(-1.0)]);
        }
    }
}

/// The top of a conveyor belt, h = 0, moving at `speed` along +s: the slip relative to it is
/// s = x − v t, so ∂s/∂t = −v; restitution 0, friction μ.
fn belt<'a>(mu: f64, speed: f64) -> Contact<'a> {
    Contact::new("belt", 0.0, mu, move |q: &[f64], _: &[f64], _| {
        ContactGeometry {
            gap: q[1],
            normal: fixed(vec![0.0, 1.0]),
            tangent: ContactRow {
                rate: -speed,
                ..fixed(vec![1.0, 0.0])
            },
            lateral: None,
        }
    })
}

/// A block on a conveyor belt (speed v, friction μ): set on it at rest, it slips backwards
/// relative to the belt, so friction drags it forward at μg until it moves with the belt, at
/// t = v/(μg), and sticks; dropped from h, it touches down at u = √(2gh) with the slip −v, and
/// slides through the impact (μu < v) with ẋ⁺ = μu, then sticks at τ = (v − μu)/(μg) after.
/// Without friction it keeps its speed. With the slip taken as ẋ (no ∂s/∂t) the block would
/// stick at once at rest.
#[test]
fn a_block_on_a_conveyor_belt_is_dragged_until_it_moves_with_the_belt() {
    let (speed, mu, h0, tf) = (2.0, 0.3, 0.05, 2.0);
    let block = Block { beta: 0.0 };
    let run = |mu: f64, q0: SVector<f64, 2>, v0: SVector<f64, 2>| {
        let set = ContactSet::new(&block, vec![belt(mu, speed)]).unwrap();
        set.settle(q0.as_slice(), v0.as_slice(), 0.0, 1e-12)
            .unwrap();
        let run = run_with_events(&set, (&q0, &v0), tf, &tight());
        let last = *run.samples.last().unwrap();
        (run.events, last, set.modes())
    };
    // At rest on the belt.
    let (events, last, modes) = run(mu, SVector::zeros(), SVector::zeros());
    let names: Vec<&str> = events.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["belt stick"]);
    let t_stick = speed / (mu * G);
    assert!((events[0].t - t_stick).abs() < 1e-12, "{}", events[0].t);
    let x_stick = 0.5 * speed * t_stick;
    assert!((events[0].before.0[0] - x_stick).abs() < 1e-12);
    assert_eq!(modes, [ContactMode::Sticking]);
    assert!((last.v[0] - speed).abs() < 1e-12, "{:?}", last.v);
    let x = x_stick + speed * (tf - t_stick);
    assert!((last.q[0] - x).abs() < 1e-11, "{} against {x}", last.q[0]);
    assert!(last.q[1].abs() < 1e-12 && last.v[1].abs() < 1e-12);
    // Dropped onto it.
    let (events, last, modes) = run(mu, SVector::<f64, 2>::new(0.0, h0), SVector::zeros());
    let names: Vec<&str> = events.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["belt touchdown", "belt stick"]);
    let td = (2.0 * h0 / G).sqrt();
    let u = G * td;
    assert!(mu * u < speed);
    assert!((events[0].t - td).abs() < 1e-12);
    let after = events[0].after.1;
    assert!(
        (after[0] - mu * u).abs() < 1e-12 && after[1].abs() < 1e-12,
        "{after:?}"
    );
    let tau = (speed - mu * u) / (mu * G);
    assert!(
        (events[1].t - (td + tau)).abs() < 1e-12,
        "{} against {}",
        events[1].t,
        td + tau
    );
    let x_stick = mu * u * tau + 0.5 * mu * G * tau * tau;
    let x = x_stick + speed * (tf - td - tau);
    assert_eq!(modes, [ContactMode::Sticking]);
    assert!((last.q[0] - x).abs() < 1e-11, "{} against {x}", last.q[0]);
    assert!((last.v[0] - speed).abs() < 1e-12);
    // Frictionless: the belt does not drag it.
    let v0 = SVector::<f64, 2>::new(0.7, 0.0);
    let (events, last, _) = run(0.0, SVector::<f64, 2>::new(0.0, h0), v0);
    let names: Vec<&str> = events.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["belt touchdown"]);
    assert!((last.v[0] - 0.7).abs() < 1e-12 && (last.q[0] - 0.7 * tf).abs() < 1e-11);
}

/// The platform h = v t rising at v, restitution e: φ = h − v t, ∂φ/∂t = −v.
fn platform<'a>(restitution: f64, speed: f64) -> Contact<'a> {
    Contact::new(
        "platform",
        restitution,
        0.0,
        move |q: &[f64], _: &[f64], t| ContactGeometry {
            gap: q[1] - speed * t,
            normal: ContactRow {
                rate: -speed,
                ..fixed(vec![0.0, 1.0])
            },
            tangent: fixed(vec![0.0, 0.0]),
            lateral: None,
        },
    )
}

/// A block dropped from h onto a platform rising at v meets it at t₁ = (√(v² + 2gh) − v)/g and
/// leaves it at ḣ⁺ = v + e(v − ḣ⁻) (Newton's law on the speed relative to the platform,
/// φ̇⁺ = −e φ̇⁻). With the law on J q̇ alone it would leave at −e ḣ⁻.
#[test]
fn a_block_dropped_on_a_rising_platform_rebounds_relative_to_it() {
    let (speed, e, h0) = (0.5, 0.5, 1.0);
    let block = Block { beta: 0.0 };
    let set = ContactSet::new(&block, vec![platform(e, speed)]).unwrap();
    let (q0, v0) = (SVector::<f64, 2>::new(0.0, h0), SVector::<f64, 2>::zeros());
    let run = run_with_events(&set, (&q0, &v0), 0.8, &tight());
    let t1 = ((speed * speed + 2.0 * G * h0).sqrt() - speed) / G;
    let impact = &run.events[0];
    assert_eq!(impact.name, "platform touchdown");
    assert!((impact.t - t1).abs() < 1e-12, "{} against {t1}", impact.t);
    let before = -G * t1;
    assert!((impact.before.1[1] - before).abs() < 1e-11);
    let after = speed + e * (speed - before);
    assert!(
        (impact.after.1[1] - after).abs() < 1e-11,
        "{} against {after}",
        impact.after.1[1]
    );
    assert_eq!(set.modes(), [ContactMode::Open]);
}

/// The kernel on a moving row: a unit mass moving at (1, −1) m/s hits a floor rising at
/// 0.5 m/s (φ = y − 0.5 t), plastic, μ = 0.5. The normal impulse brings ẏ to the floor's
/// 0.5 m/s, 1.5 N·s; friction takes μ·1.5 = 0.75 N·s from ẋ (sticking needs 1 N·s).
#[test]
fn a_sliding_impact_on_a_rising_floor_stops_the_fall_relative_to_it() {
    let mass_matrix = DMatrix::identity(2, 2);
    let floor = DMatrix::from_row_slice(1, 2, &[0.0, 1.0]);
    let against_slip = DVector::from_vec(vec![-1.0, 0.0]);
    let friction = SlidingFriction {
        normal_row: 0,
        coefficient: 0.5,
        direction: &against_slip,
    };
    let (rate, plastic) = (DVector::from_vec(vec![-0.5]), DVector::zeros(1));
    let velocity = DVector::from_vec(vec![1.0, -1.0]);
    let options = Options::default();
    let jump = sliding_impact(
        &mass_matrix,
        &floor,
        &rate,
        &plastic,
        &velocity,
        friction,
        &options,
    )
    .unwrap();
    let expected = [0.25, 0.5];
    assert!(
        (jump.velocity[0] - expected[0]).abs() < 1e-14
            && (jump.velocity[1] - expected[1]).abs() < 1e-14,
        "{}",
        jump.velocity
    );
    assert!((jump.impulse[0] - 1.5).abs() < 1e-14);
    // A rate of the wrong length is a typed error.
    let short = DVector::zeros(2);
    let wrong = sliding_impact(
        &mass_matrix,
        &floor,
        &short,
        &plastic,
        &velocity,
        friction,
        &options,
    );
    assert!(
        matches!(wrong, Err(Error::DimensionMismatch { .. })),
        "{wrong:?}"
    );
}

#[test]
fn contacts_with_a_negative_friction_are_refused() {
    let block = Block { beta: 0.1 };
    assert!(ContactSet::new(&block, vec![ground(-0.1)]).is_err());
}

/// A point mass m in space, (x, y) horizontal, z up, under gravity and a constant horizontal
/// push (N); no constraint of its own.
struct Point {
    push: [f64; 2],
}

impl DynamicLagrangianSystem for Point {
    fn num_holonomic(&self) -> usize {
        0
    }

    fn terms(&self, _: &[f64], _: &[f64], _: f64) -> DynamicLagrangianTerms {
        DynamicLagrangianTerms {
            mass_matrix: DMatrix::identity(3, 3) * MASS,
            generalized_force: DVector::from_vec(vec![self.push[0], self.push[1], -MASS * G]),
            constraint_matrix: DMatrix::zeros(0, 3),
            constraint_rhs: DVector::zeros(0),
            nonideal_force: None,
        }
    }

    fn energy(&self, q: &[f64], qd: &[f64], _: f64) -> f64 {
        let push = self.push[0] * q[0] + self.push[1] * q[1];
        0.5 * MASS * qd.iter().map(|v| v * v).sum::<f64>() + MASS * G * q[2] - push
    }

    fn holonomic_residual(&self, _: &[f64], _: f64) -> DVector<f64> {
        DVector::zeros(0)
    }

    fn velocity_residual(&self, _: &[f64], _: &[f64], _: f64) -> DVector<f64> {
        DVector::zeros(0)
    }
}

/// A horizontal belt z = 0 moving at (uₓ, u_y) in its own plane: the slip coordinates relative
/// to it are s = x − uₓ t and r = y − u_y t, so ∂s/∂t = −uₓ (tangent) and ∂r/∂t = −u_y
/// (lateral); restitution 0, friction μ.
fn belt_in_space<'a>(mu: f64, surface: [f64; 2]) -> Contact<'a> {
    Contact::new("belt", 0.0, mu, move |q: &[f64], _: &[f64], _| {
        ContactGeometry {
            gap: q[2],
            normal: fixed(vec![0.0, 0.0, 1.0]),
            tangent: ContactRow {
                rate: -surface[0],
                ..fixed(vec![1.0, 0.0, 0.0])
            },
            lateral: Some(ContactRow {
                rate: -surface[1],
                ..fixed(vec![0.0, 1.0, 0.0])
            }),
        }
    })
}

/// A block set on a belt that moves in its plane at u = (uₓ, u_y), with its own velocity v₀
/// across it: the slip velocity relative to the belt, w = v − u, starts at w₀ = v₀ − u, and
/// sliding friction μ m g against ŵ₀ keeps it on that line, w(t) = w₀ − μ g t ŵ₀, so the block
/// moves as x(t) = v₀ t − ½ μ g t² ŵ₀ until it sticks at t* = |w₀|/(μ g), then with the belt.
/// The lateral slip coordinate's rate ∂r/∂t = −u_y enters every step of this: taken as 0, the
/// slip would be v₀ − (uₓ, 0), in another direction, and the block would stick elsewhere.
#[test]
fn a_block_on_a_belt_moving_across_its_path_slides_against_the_lateral_slip_rate() {
    let (mu, surface, start): (f64, [f64; 2], [f64; 2]) = (0.4, [1.2, -1.6], [0.5, 0.9]);
    let block = Point { push: [0.0; 2] };
    let w0 = [start[0] - surface[0], start[1] - surface[1]];
    let speed = w0[0].hypot(w0[1]);
    let direction = w0.map(|w| w / speed);
    let t_stick = speed / (mu * G);
    let sliding = |t: f64, i: usize| {
        let x = start[i] * t - 0.5 * mu * G * t * t * direction[i];
        (x, start[i] - mu * G * t * direction[i])
    };
    let run = |tf: f64| {
        let set = ContactSet::new(&block, vec![belt_in_space(mu, surface)]).unwrap();
        let q0 = SVector::<f64, 3>::zeros();
        let v0 = SVector::<f64, 3>::new(start[0], start[1], 0.0);
        set.settle(q0.as_slice(), v0.as_slice(), 0.0, 1e-12)
            .unwrap();
        assert_eq!(set.modes(), [ContactMode::Sliding(w0[0].signum())]);
        let run = run_with_events(&set, (&q0, &v0), tf, &tight());
        let last = *run.samples.last().unwrap();
        let forces = set
            .forces(last.q.as_slice(), last.v.as_slice(), tf)
            .unwrap();
        (run.events, last, set.modes(), forces)
    };
    // Halfway through the slide: the state and the friction force against the slip.
    let tf = 0.5 * t_stick;
    let (events, last, modes, forces) = run(tf);
    assert!(events.is_empty(), "{events:?}");
    assert_eq!(modes, [ContactMode::Sliding(w0[0].signum())]);
    for i in 0..2 {
        let (x, v) = sliding(tf, i);
        assert!((last.q[i] - x).abs() < 1e-11, "{} against {x}", last.q[i]);
        assert!((last.v[i] - v).abs() < 1e-11, "{} against {v}", last.v[i]);
    }
    assert!(last.q[2].abs() < 1e-12 && last.v[2].abs() < 1e-12);
    let names: Vec<&str> = forces.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["belt.normal", "belt.tangent", "belt.lateral"]);
    let normal = MASS * G;
    assert!((forces[0].value - normal).abs() < 1e-9, "{forces:?}");
    for i in 0..2 {
        let friction = -mu * normal * direction[i];
        assert!(
            (forces[1 + i].value - friction).abs() < 1e-9,
            "{forces:?} against {friction}"
        );
    }
    // Past the stick: the stick time, then the block carried by the belt without friction.
    let tf = 1.5 * t_stick;
    let (events, last, modes, forces) = run(tf);
    let names: Vec<&str> = events.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["belt stick"]);
    // The stick time is |ṡ₀| / (μ g): the integrator's relative error in ṡ (rtol 1e-12,
    // accumulated over the slide) is the error of the time, at 1e-12 of it.
    assert!(
        (events[0].t - t_stick).abs() < 3e-12,
        "{} against {t_stick}",
        events[0].t
    );
    assert_eq!(modes, [ContactMode::Sticking]);
    for (i, u) in surface.into_iter().enumerate() {
        let x = sliding(t_stick, i).0 + u * (tf - t_stick);
        assert!((last.q[i] - x).abs() < 1e-11, "{} against {x}", last.q[i]);
        assert!((last.v[i] - u).abs() < 1e-11, "{:?}", last.v);
    }
    assert!(
        forces[1].value.abs() < 1e-9 && forces[2].value.abs() < 1e-9,
        "{forces:?}"
    );
}

/// The ground z = 0, fixed, with friction μ: slip coordinates x and y (the belt at rest).
fn floor_in_space<'a>(mu: f64) -> Contact<'a> {
    belt_in_space(mu, [0.0; 2])
}

/// A block sliding on the floor at v₀ along x, pushed by a constant horizontal force F at 135°
/// from its path, |F| = 0.6 μ m g: its slip turns toward F as it slows, past the right angle
/// from where it started, and it stops where its velocity lines up with F. With θ the angle
/// from F to the velocity, m v̇ = F cos θ − μ m g and m v θ̇ = −F sin θ give the closed form
/// v sin θ = C tan^k(θ/2), k = μ m g / F, and the stop at
/// t* = (m C / F) ∫₀^θ₀ tan^k(θ/2) / sin²θ dθ. Then it sticks: the push lies in the cone.
/// A reference direction kept from the start of the slide would end it where the velocity
/// turns past 90° (v·x̂ = 0), still sliding at 5 cm/s.
#[test]
fn a_block_pushed_sideways_while_it_slides_turns_and_stops_as_its_closed_form() {
    let (mu, v0, theta0) = (0.5, 1.0, 0.75 * std::f64::consts::PI);
    let push = 0.6 * mu * MASS * G;
    let block = Point {
        push: [push * theta0.cos(), push * theta0.sin()],
    };
    let k = mu * MASS * G / push;
    let invariant = |v: [f64; 2]| {
        let theta = (v[0] * block.push[1] - v[1] * block.push[0])
            .atan2(v[0] * block.push[0] + v[1] * block.push[1])
            .abs();
        v[0].hypot(v[1]) * theta.sin() / (0.5 * theta).tan().powf(k)
    };
    let c = invariant([v0, 0.0]);
    // θ = u³ makes the integrand smooth at 0 (it goes as θ^(k−2)): Simpson's rule on u.
    let integrand = |u: f64| {
        let theta = u.powi(3);
        (0.5 * theta).tan().powf(k) / theta.sin().powi(2) * 3.0 * u * u
    };
    let (intervals, end) = (4000, theta0.cbrt());
    let h = end / intervals as f64;
    let simpson: f64 = (1..intervals)
        .map(|j| integrand(j as f64 * h) * if j % 2 == 1 { 4.0 } else { 2.0 })
        .sum::<f64>()
        + integrand(end);
    let t_stop = MASS * c / push * simpson * h / 3.0;
    let set = ContactSet::new(&block, vec![floor_in_space(mu)]).unwrap();
    let q0 = SVector::<f64, 3>::zeros();
    let v0 = SVector::<f64, 3>::new(v0, 0.0, 0.0);
    set.settle(q0.as_slice(), v0.as_slice(), 0.0, 1e-12)
        .unwrap();
    let options = SimulationOptions {
        rtol: 1e-12,
        atol: 1e-14,
        ..SimulationOptions::every(0.01)
    };
    let run = run_with_events(&set, (&q0, &v0), 0.5, &options);
    // While it slides, the closed form's invariant holds.
    for sample in run.samples.iter().filter(|s| s.t < t_stop - 0.01) {
        let slip = invariant([sample.v[0], sample.v[1]]);
        assert!(
            (slip - c).abs() < 1e-9 * c,
            "{slip} against {c} at {}",
            sample.t
        );
    }
    // Its slip turned by 60° twice (past the right angle), then it stopped at t*.
    let names: Vec<&str> = run.events.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["belt turn", "belt turn", "belt stick"]);
    let stop = &run.events[2];
    assert!(
        (stop.t - t_stop).abs() < 1e-10,
        "{} against {t_stop}",
        stop.t
    );
    assert!(stop.before.1.norm() < 1e-12, "{}", stop.before.1);
    assert_eq!(set.modes(), [ContactMode::Sticking]);
    let last = run.samples.last().unwrap();
    assert!(last.v.norm() < 1e-12, "{}", last.v);
    // The floor holds the push: the friction is −F, inside the cone.
    let forces = set
        .forces(last.q.as_slice(), last.v.as_slice(), 0.5)
        .unwrap();
    for i in 0..2 {
        let friction = forces[1 + i].value;
        assert!((friction + block.push[i]).abs() < 1e-9, "{forces:?}");
    }
}

/// A rod of mass m and length L (centroidal inertia m L²/12) in the plane, q = (x, y, θ) of
/// its centre, under gravity and a torque τ + τ̇ t about its centre.
struct Rod {
    torque: f64,
    ramp: f64,
}

const LENGTH: f64 = 0.8;

impl DynamicLagrangianSystem for Rod {
    fn num_holonomic(&self) -> usize {
        0
    }

    fn terms(&self, _: &[f64], _: &[f64], t: f64) -> DynamicLagrangianTerms {
        let inertia = MASS * LENGTH * LENGTH / 12.0;
        let torque = self.torque + self.ramp * t;
        DynamicLagrangianTerms {
            mass_matrix: DMatrix::from_diagonal(&DVector::from_vec(vec![MASS, MASS, inertia])),
            generalized_force: DVector::from_vec(vec![0.0, -MASS * G, torque]),
            constraint_matrix: DMatrix::zeros(0, 3),
            constraint_rhs: DVector::zeros(0),
            nonideal_force: None,
        }
    }

    fn energy(&self, q: &[f64], qd: &[f64], _: f64) -> f64 {
        let inertia = MASS * LENGTH * LENGTH / 12.0;
        0.5 * MASS * (qd[0] * qd[0] + qd[1] * qd[1])
            + 0.5 * inertia * qd[2] * qd[2]
            + MASS * G * q[1]
    }

    fn holonomic_residual(&self, _: &[f64], _: f64) -> DVector<f64> {
        DVector::zeros(0)
    }

    fn velocity_residual(&self, _: &[f64], _: &[f64], _: f64) -> DVector<f64> {
        DVector::zeros(0)
    }
}

/// The frictionless contact of the rod's end at `side` (−1 or +1) L/2 from its centre with
/// the ground y = 0: φ = y + side (L/2) sin θ, with its rows at θ = 0 and rest.
fn rod_end<'a>(name: &str, side: f64) -> Contact<'a> {
    Contact::new(name, 0.0, 0.0, move |q: &[f64], _: &[f64], _| {
        ContactGeometry {
            gap: q[1] + side * 0.5 * LENGTH * q[2].sin(),
            normal: fixed(vec![0.0, 1.0, side * 0.5 * LENGTH * q[2].cos()]),
            tangent: fixed(vec![0.0, 0.0, 0.0]),
            lateral: None,
        }
    })
}

#[test]
fn a_contact_whose_force_would_pull_opens_when_the_modes_are_set() {
    // The rod lies flat on both ends, turned by τ = m g L: holding both ends would take
    // λ_B = m g / 2 − τ / L = −m g / 2, a pull. B opens; A alone holds the rod, which turns
    // about it with θ̈ = (τ − m g L / 2) / (m L² / 3) and λ_A = m g + m (L / 2) θ̈ = 7 m g / 4.
    let rod = Rod {
        torque: MASS * G * LENGTH,
        ramp: 0.0,
    };
    let set = ContactSet::new(&rod, vec![rod_end("A", -1.0), rod_end("B", 1.0)]).unwrap();
    let (q, v) = ([0.0; 3], [0.0; 3]);
    set.settle(&q, &v, 0.0, 1e-12).unwrap();
    assert_eq!(set.modes()[1], ContactMode::Open);
    assert_ne!(set.modes()[0], ContactMode::Open);
    let forces = set.forces(&q, &v, 0.0).unwrap();
    assert_eq!(forces[0].name, "A.normal");
    assert!(
        (forces[0].value - 1.75 * MASS * G).abs() < 1e-12,
        "{forces:?}"
    );
    assert!(
        forces.iter().all(|f| !f.name.starts_with("B.")),
        "{forces:?}"
    );
    // With τ = 0 both ends hold m g / 2.
    let flat = Rod {
        torque: 0.0,
        ramp: 0.0,
    };
    let set = ContactSet::new(&flat, vec![rod_end("A", -1.0), rod_end("B", 1.0)]).unwrap();
    set.settle(&q, &v, 0.0, 1e-12).unwrap();
    let forces = set.forces(&q, &v, 0.0).unwrap();
    let normal = |name: &str| forces.iter().find(|f| f.name == name).map(|f| f.value);
    assert!((normal("A.normal").unwrap() - 0.5 * MASS * G).abs() < 1e-12);
    assert!((normal("B.normal").unwrap() - 0.5 * MASS * G).abs() < 1e-12);
}

/// The contact of the rod's lower end, L/2 from its centre at (x − (L/2) cos θ,
/// y − (L/2) sin θ), with the ground y = 0, with friction μ: the gap φ = y − (L/2) sin θ and
/// the slip s = x − (L/2) cos θ, with their rows at (q, q̇).
fn rod_lower_end<'a>(mu: f64) -> Contact<'a> {
    let half = 0.5 * LENGTH;
    Contact::new("end", 0.0, mu, move |q: &[f64], qd: &[f64], _| {
        let (sin, cos) = q[2].sin_cos();
        let row = |gradient: Vec<f64>, rhs: f64| ContactRow {
            gradient: DVector::from_vec(gradient),
            rate: 0.0,
            rhs,
        };
        ContactGeometry {
            gap: q[1] - half * sin,
            normal: row(vec![0.0, 1.0, -half * cos], -half * sin * qd[2] * qd[2]),
            tangent: row(vec![1.0, 0.0, half * sin], -half * cos * qd[2] * qd[2]),
            lateral: None,
        }
    })
}

/// The rod's state (q, q̇) with its lower end on the ground at angle θ, turning at θ̇, the end
/// slipping at ṡ.
fn rod_on_its_end(theta: f64, rate: f64, slip: f64) -> ([f64; 3], [f64; 3]) {
    let half = 0.5 * LENGTH;
    let (sin, cos) = theta.sin_cos();
    let q = [0.0, half * sin, theta];
    let qd = [slip - half * sin * rate, half * cos * rate, rate];
    (q, qd)
}

/// λₙ of the rod sliding on its lower end with ṡ of sign σ, in closed form: Newton–Euler with
/// the end's force (−μσλₙ, λₙ) and ÿ − (L/2)(cos θ θ̈ − sin θ θ̇²) = 0 give
/// λₙ (1 + 3 cos θ (cos θ + μσ sin θ)) = m (g − (L/2) sin θ θ̇²), with m (L/2)² / I = 3. The
/// bracket is the sliding system's determinant, negative in Painlevé's paradox.
fn sliding_rod_normal_force(theta: f64, rate: f64, sign: f64, mu: f64) -> (f64, f64) {
    let (sin, cos) = theta.sin_cos();
    let determinant = 1.0 + 3.0 * cos * (cos + mu * sign * sin);
    let load = MASS * (G - 0.5 * LENGTH * sin * rate * rate);
    (load / determinant, determinant)
}

#[test]
fn a_rod_sliding_on_its_end_has_the_forces_and_acceleration_of_its_closed_form() {
    let rod = Rod {
        torque: 0.0,
        ramp: 0.0,
    };
    // (θ, θ̇, ṡ, μ): at 45° with μ = 2 sliding forward, the friction feeds back on λₙ with a
    // gain of −1.2, where fixed-point passes diverge.
    let cases = [
        (std::f64::consts::FRAC_PI_4, 0.0, 1.0, 0.5),
        (std::f64::consts::FRAC_PI_4, 0.0, -1.0, 0.5),
        (std::f64::consts::FRAC_PI_4, 0.0, 1.0, 2.0),
        (1.0, 2.0, -0.5, 0.3),
        (0.4, -3.0, 0.7, 1.0),
    ];
    for (theta, rate, slip, mu) in cases {
        let set = ContactSet::new(&rod, vec![rod_lower_end(mu)]).unwrap();
        let (q, qd) = rod_on_its_end(theta, rate, slip);
        set.settle(&q, &qd, 0.0, 1e-9).unwrap();
        let sign = slip.signum();
        assert_eq!(set.modes(), [ContactMode::Sliding(sign)], "θ = {theta}");
        let (normal, determinant) = sliding_rod_normal_force(theta, rate, sign, mu);
        assert!(determinant > 0.0 && normal > 0.0);
        let forces = set.forces(&q, &qd, 0.0).unwrap();
        let value = |name: &str| forces.iter().find(|f| f.name == name).unwrap().value;
        let close = |x: f64, y: f64| (x - y).abs() <= 1e-12 * y.abs().max(1.0);
        assert!(
            close(value("end.normal"), normal),
            "{forces:?} against {normal}"
        );
        assert!(
            close(value("end.tangent"), -mu * sign * normal),
            "{forces:?}"
        );
        // q̈ of the set: Newton's law with that force, the end kept on the ground.
        let terms = set.terms(&q, &qd, 0.0);
        let qdd = udk_runtime::acceleration_dyn(terms.view(), &Options::default()).unwrap();
        let inertia = MASS * LENGTH * LENGTH / 12.0;
        let (sin, cos) = theta.sin_cos();
        let torque = -0.5 * LENGTH * normal * (cos + mu * sign * sin);
        let expected = [
            -mu * sign * normal / MASS,
            normal / MASS - G,
            torque / inertia,
        ];
        for (got, want) in qdd.iter().zip(expected) {
            assert!(
                (got - want).abs() < 1e-11 * want.abs().max(1.0),
                "{qdd} against {expected:?}"
            );
        }
    }
}

#[test]
fn a_rod_started_in_painleves_paradox_is_refused() {
    // At θ = 1.3 with μ = 2, sliding backwards (ṡ < 0): the sliding system's determinant is
    // −0.33, so sliding would pull (λₙ < 0), and with the end open its gap would fall.
    let (theta, mu) = (1.3, 2.0);
    let (normal, determinant) = sliding_rod_normal_force(theta, 0.0, -1.0, mu);
    assert!(determinant < -0.3 && normal < 0.0);
    let rod = Rod {
        torque: 0.0,
        ramp: 0.0,
    };
    let set = ContactSet::new(&rod, vec![rod_lower_end(mu)]).unwrap();
    let (q, qd) = rod_on_its_end(theta, 0.0, -1.0);
    match set.settle(&q, &qd, 0.0, 1e-9) {
        Err(Error::IndeterminateFriction { contacts, .. }) => assert_eq!(contacts, "end"),
        other => panic!("{other:?}"),
    }
    // Sliding forward at the same angle is consistent.
    let (q, qd) = rod_on_its_end(theta, 0.0, 1.0);
    set.settle(&q, &qd, 0.0, 1e-9).unwrap();
    assert_eq!(set.modes(), [ContactMode::Sliding(1.0)]);
}

#[test]
fn a_rod_sliding_into_painleves_paradox_sticks_by_a_tangential_impact() {
    // At θ = 1.3 with μ = 2, sliding backwards, the sliding system's determinant is −0.33.
    // With a torque τ below −m g L / (6 cos θ) (−9.8 N·m), the load λₙ · determinant =
    // m (g + (L/2) cos θ τ / I) is negative, so sliding pushes (λₙ > 0). τ rises at 300 N·m/s:
    // when the load passes 0, λₙ falls through 0, and opening would make the end sink. The
    // paradox's resolution is an impulse that stops the slip: the end sticks, the impulse
    // in the friction cone (its tangential part is 1.57 of its normal part at θ = 1.3).
    let (theta, mu) = (1.3, 2.0);
    let rod = Rod {
        torque: -11.0,
        ramp: 300.0,
    };
    let set = ContactSet::new(&rod, vec![rod_lower_end(mu)]).unwrap();
    let (q, qd) = rod_on_its_end(theta, 0.0, -1.0);
    set.settle(&q, &qd, 0.0, 1e-9).unwrap();
    assert_eq!(set.modes(), [ContactMode::Sliding(-1.0)]);
    let (normal, determinant) = sliding_rod_normal_force(theta, 0.0, -1.0, mu);
    assert!(
        determinant < 0.0 && normal < 0.0,
        "without the torque, sliding pulls"
    );
    // With it, sliding pushes: λₙ = m (g + (L/2) cos θ τ / I) / determinant.
    let inertia = MASS * LENGTH * LENGTH / 12.0;
    let half = 0.5 * LENGTH;
    let pushing = MASS * (G + half * theta.cos() * rod.torque / inertia) / determinant;
    let pushed = set.forces(&q, &qd, 0.0).unwrap()[0].value;
    assert!(
        pushing > 7.0 && (pushed - pushing).abs() < 1e-12 * pushing,
        "λₙ = {pushed}"
    );
    let start = (SVector::from(q), SVector::from(qd));
    let run = run_with_events(&set, (&start.0, &start.1), 0.05, &tight());
    let names: Vec<&str> = run.events.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names[0], "end lift-off", "{names:?}");
    let event = &run.events[0];
    // At the event the load m (g − (L/2) sin θ θ̇² + (L/2) cos θ τ / I) is 0.
    let (q, v) = (&event.before.0, &event.before.1);
    let torque = rod.torque + rod.ramp * event.t;
    let load = MASS * (G - half * q[2].sin() * v[2] * v[2] + half * q[2].cos() * torque / inertia);
    assert!(
        load.abs() < 1e-6 * MASS * G,
        "load {load} at t = {}",
        event.t
    );
    // Near (τ* − τ₀) / τ̇ = 0.0041 s, τ* = −9.78 N·m the torque of zero load at the start's
    // θ, which has moved a little by then.
    assert!(event.t > 0.0041 && event.t < 0.0045, "t = {}", event.t);
    // The impulse: the end's slip and gap rate are 0 after it, and it lies in the cone.
    let (after, before) = (&event.after.1, &event.before.1);
    let (sin, cos) = event.after.0[2].sin_cos();
    let slip = after[0] + half * sin * after[2];
    let gap_rate = after[1] - half * cos * after[2];
    assert!(slip.abs() < 1e-12 && gap_rate.abs() < 1e-12, "{after}");
    let impulse = [MASS * (after[0] - before[0]), MASS * (after[1] - before[1])];
    assert!(impulse[1] > 0.0 && impulse[0] > 0.0, "{impulse:?}");
    assert!(impulse[0] <= mu * impulse[1], "{impulse:?}");
    // The angular momentum about the end is kept by an impulse through it.
    let about_end =
        |v: &SVector<f64, 3>| inertia * v[2] + MASS * (half * cos * v[1] - half * sin * v[0]);
    assert!(
        (about_end(after) - about_end(before)).abs() < 1e-12,
        "{after} {before}"
    );
    assert_ne!(set.modes()[0], ContactMode::Open);
}
