//! An underactuated cart-pole whose servo constraint holds the pole upright (th = 0): the
//! ideal servo force is a torque on the pole, which the cart force cannot supply, and where
//! the pole is horizontal the cart force cannot move it at all. The residuals say so.

#[allow(dead_code)]
#[path = "../../examples/cartpole_lqr.rs"]
mod example;

use example::CartPole;
use udk::nalgebra::{Vector1, Vector2};
use udk::runtime::servo::{Convergence, Realization, ServoLaw};

const GAINS: Convergence = Convergence::TaskSpace {
    stiffness: 25.0,
    damping: 10.0,
};

fn task(realization: Realization) -> ServoLaw {
    ServoLaw {
        convergence: GAINS,
        realization,
    }
}

#[test]
fn the_ideal_servo_force_is_not_realizable_and_is_reported() {
    let cart = CartPole::EXAMPLE;
    for th in [0.3, -1.0, std::f64::consts::FRAC_PI_2] {
        let (q, qd) = (Vector2::new(0.1, th), Vector2::new(-0.2, 0.4));
        let control = cart.servo_control(&q, &qd, 0.0, GAINS).unwrap();
        assert!(control.input.iter().all(|u| u.is_finite()));
        assert!(!control.realized(1e-6), "th = {th}: {control:?}");
        // The unrealized force is what the motion under u misses, M (q̈* − q̈(u)).
        let qdd = cart.acceleration(&q, &qd, &control.input, 0.0).unwrap();
        assert!((control.acceleration - qdd).norm() < 1e-12);
        let wanted = control.servo_force - control.unrealized_force;
        let achieved = cart.mass_matrix(&q, 0.0) * qdd
            - cart.generalized_forces(&q, &qd, &Vector1::zeros(), 0.0);
        assert!((wanted - achieved).norm() < 1e-12 * control.servo_force.norm().max(1.0));
    }
}

#[test]
fn the_task_is_met_by_the_cart_force_unless_the_pole_is_horizontal() {
    let cart = CartPole::EXAMPLE;
    let qd = Vector2::new(-0.2, 0.4);
    let q = Vector2::new(0.1, 0.3);
    let control = cart
        .servo_control(&q, &qd, 0.0, task(Realization::Task))
        .unwrap();
    let qdd = cart.acceleration(&q, &qd, &control.input, 0.0).unwrap();
    // θ̈ = −K_d θ̇ − K_p θ through the cart alone.
    assert!((qdd[1] + 10.0 * qd[1] + 25.0 * q[1]).abs() < 1e-12, "{qdd}");
    assert!(control.task_residual.norm() < 1e-12);
    // Horizontal pole: the cart force does not reach θ̈; the missed task acceleration is
    // reported, the input stays finite.
    let q = Vector2::new(0.1, std::f64::consts::FRAC_PI_2);
    let control = cart
        .servo_control(&q, &qd, 0.0, task(Realization::Task))
        .unwrap();
    let qdd = cart.acceleration(&q, &qd, &control.input, 0.0).unwrap();
    assert!(control.input.iter().all(|u| u.is_finite()));
    let missed = qdd[1] - (-10.0 * qd[1] - 25.0 * q[1]);
    assert!(missed.abs() > 1.0);
    assert!(
        (control.task_residual[0] - missed).abs() < 1e-9,
        "{control:?} {missed}"
    );
}
