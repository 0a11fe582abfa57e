//! Unilateral contact with Coulomb friction ([`ContactSet`]) against closed forms: a block
//! thrown up an incline stops, then sticks (μ ≥ tan β) or slides back; a block dropped onto
//! the incline touches down plastically, slides and sticks.

use nalgebra::{DMatrix, DVector, SVector};
use std::ops::ControlFlow;
use udk_runtime::simulate::{
    simulate_dynamic_lagrangian_with_events, Contact, ContactGeometry, ContactMode, ContactSet,
    DynamicLagrangianSystem, DynamicLagrangianTerms, SimulationOptions,
};

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

/// The incline's surface h = 0, slip along s, restitution 0, friction μ.
fn ground<'a>(mu: f64) -> Contact<'a> {
    Contact::new("ground", 0.0, mu, |q: &[f64], _: &[f64], _| {
        ContactGeometry {
            gap: q[1],
            normal: DVector::from_vec(vec![0.0, 1.0]),
            normal_rhs: 0.0,
            tangent: DVector::from_vec(vec![1.0, 0.0]),
            tangent_rhs: 0.0,
            lateral: None,
        }
    })
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
        let events = set.events::<2>();
        let run = simulate_dynamic_lagrangian_with_events(
            &set,
            (&q0, &v0),
            (0.0, tf),
            &tight(),
            &events,
            |_| ControlFlow::Continue(()),
        )
        .unwrap();
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
        let events = set.events::<2>();
        let tf = 2.0;
        let run = simulate_dynamic_lagrangian_with_events(
            &set,
            (&q0, &v0),
            (0.0, tf),
            &tight(),
            &events,
            |_| ControlFlow::Continue(()),
        )
        .unwrap();
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

#[test]
fn contacts_with_a_negative_friction_are_refused() {
    let block = Block { beta: 0.1 };
    assert!(ContactSet::new(&block, vec![ground(-0.1)]).is_err());
}
