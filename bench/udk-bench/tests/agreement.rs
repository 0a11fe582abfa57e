//! The benchmark subjects compute the same thing: the generated code, the run-time tape and
//! the closed-form double pendulum agree, and the Cartesian and minimal chains describe the
//! same motion (ẍₖ = Σ_{j≤k} lⱼ (cos θⱼ θ̈ⱼ − sin θⱼ θ̇ⱼ²), ÿₖ = Σ_{j≤k} lⱼ (sin θⱼ θ̈ⱼ + cos θⱼ θ̇ⱼ²)).

use udk_bench::{models, Accelerator, Chain, ChainState, DoublePendulum, Form, TapeModel};
use udk_symbolic::models::{pendulum_chain_cartesian, pendulum_chain_minimal};

fn chain(links: usize) -> Chain {
    let masses: Vec<f64> = (0..links).map(|k| 0.7 + 0.3 * k as f64).collect();
    let lengths: Vec<f64> = (0..links).map(|k| 1.2 - 0.1 * k as f64).collect();
    let theta: Vec<f64> = (0..links).map(|k| 0.4 - 0.35 * k as f64).collect();
    let omega: Vec<f64> = (0..links).map(|k| -0.8 + 0.5 * k as f64).collect();
    let state = ChainState::from_angles(&lengths, &theta, &omega);
    Chain {
        masses,
        lengths,
        g: 9.81,
        states: vec![state],
    }
}

fn max_difference(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

fn tape(chain: &Chain, form: Form) -> TapeModel {
    let spec = match form {
        Form::Cartesian => pendulum_chain_cartesian(chain.links()),
        Form::Minimal => pendulum_chain_minimal(chain.links()),
    };
    TapeModel::new(&spec, |p| match (p, p[1..].parse::<usize>()) {
        ("g", _) => chain.g,
        (_, Ok(k)) if p.starts_with('m') => chain.masses[k - 1],
        (_, Ok(k)) => chain.lengths[k - 1],
        _ => unreachable!("chain parameters are m<k>, l<k> and g"),
    })
    .expect("the chain derives")
}

fn generated(chain: &Chain, form: Form) -> Vec<f64> {
    let (q, qd) = &chain.states_in(form)[0];
    let generated = models::generated(chain, form)
        .expect("n = 2 and 5 are always generated")
        .acceleration(q, qd)
        .expect("a unique acceleration");
    let taped = tape(chain, form)
        .acceleration(q, qd)
        .expect("a unique acceleration");
    assert!(
        max_difference(&generated, &taped) < 1e-12,
        "{form:?} {}: generated {generated:?}, tape {taped:?}",
        chain.links()
    );
    generated
}

#[test]
fn generated_and_tape_agree_and_both_forms_describe_one_motion() {
    for links in [2, 5] {
        let chain = chain(links);
        let angular = generated(&chain, Form::Minimal);
        let cartesian = generated(&chain, Form::Cartesian);
        let ChainState { theta, omega, .. } = &chain.states[0];
        let (mut ax, mut ay) = (0.0, 0.0);
        let mut expected = Vec::new();
        for j in 0..links {
            let (s, c) = theta[j].sin_cos();
            let w2 = omega[j] * omega[j];
            ax += chain.lengths[j] * (c * angular[j] - s * w2);
            ay += chain.lengths[j] * (s * angular[j] + c * w2);
            expected.extend([ax, ay]);
        }
        assert!(
            max_difference(&cartesian, &expected) < 1e-10,
            "{links} links: Cartesian {cartesian:?}, from the angles {expected:?}"
        );
    }
}

#[test]
fn closed_form_double_pendulum_agrees_with_generated() {
    let chain = chain(2);
    let (q, qd) = &chain.states_in(Form::Minimal)[0];
    let closed = DoublePendulum::new(&chain)
        .acceleration(q, qd)
        .expect("closed form");
    let generated = generated(&chain, Form::Minimal);
    assert!(
        max_difference(&closed, &generated) < 1e-12,
        "closed form {closed:?}, generated {generated:?}"
    );
}
