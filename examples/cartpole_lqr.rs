//! Balancing a cart-pole with a linear-quadratic regulator designed from `linearize`.
//!
//! The cart (mass `mc`) moves along x, pushed by the force u; a point mass `m` sits on a
//! massless pole of length `l` at angle th from the upward vertical. `linearize` gives
//! (A_ss, B_ss) about upright rest in the state (x, θ, ẋ, θ̇) (θ = th) (the textbook A and B:
//! `tests/multibody/cartpole.rs`), `lqr` the gain K, and the closed loop u = −K x balances the
//! pole from a 0.2 rad lean.
//!
//! Run with `cargo run --release --example cartpole_lqr`; writes
//! `target/udk/cartpole_lqr.csv` and `.svg`.

use udk::lagrangian;
use udk::nalgebra::{DMatrix, SVector, Vector1, Vector2};
use udk::runtime::linearize::{linearize, Linearization, LinearizationOptions, OperatingPoint};
use udk::runtime::lqr::{lqr, Lqr};
use udk::runtime::simulate::{simulate_lagrangian, Showcase, SimulationOptions, Summary};
use udk::runtime::ControlledLagrangianSystem;

/// Cart mass `mc` (kg), pole mass `m` (kg) at the pole's end, pole length `l` (m), gravity
/// `g` (m/s²). Input: the horizontal force u on the cart (N). Servo constraint: the pole
/// upright, th = 0 (`servo_control`; not realizable by the cart force alone as an ideal
/// constraint force, and not at all where the pole is horizontal: `tests/servo/cartpole.rs`).
#[lagrangian(
    coordinates(x, th),
    inputs(u),
    lagrangian = 0.5 * (mc + m) * dot(x).powi(2) + m * l * dot(x) * dot(th) * th.cos()
        + 0.5 * m * l.powi(2) * dot(th).powi(2)
        - m * g * l * th.cos(),
    forces(u, 0.0),
    servo(holonomic(th)),
)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CartPole {
    pub mc: f64,
    pub m: f64,
    pub l: f64,
    pub g: f64,
}

impl CartPole {
    /// The cart-pole of the example.
    pub const EXAMPLE: Self = Self {
        mc: 1.0,
        m: 0.3,
        l: 0.5,
        g: 9.81,
    };

    /// (A_ss, B_ss) about upright rest (x = th = 0, at rest, u = 0), in the state
    /// (x, θ, ẋ, θ̇), θ = th: every coordinate and velocity is independent (no constraints).
    ///
    /// # Errors
    /// As [`linearize`].
    pub fn upright(&self) -> Result<Linearization, udk::Error> {
        let point = OperatingPoint {
            q: Vector2::zeros(),
            qd: Vector2::zeros(),
            u: Vector1::zeros(),
            t: 0.0,
        };
        linearize(
            self,
            &point,
            &Default::default(),
            &LinearizationOptions::default(),
        )
    }

    /// The LQR gain K (1 × 4) about upright for the weights Q = diag(1, 10, 1, 1) on
    /// (x, θ, ẋ, θ̇) and R = 0.1 on u.
    ///
    /// # Errors
    /// As [`CartPole::upright`] and [`lqr`].
    pub fn balancing_gain(&self) -> Result<Lqr, udk::Error> {
        let linear = self.upright()?;
        let weights =
            DMatrix::from_diagonal(&udk::nalgebra::DVector::from_vec(vec![1.0, 10.0, 1.0, 1.0]));
        lqr(
            &linear.a,
            &linear.b,
            &weights,
            &DMatrix::from_element(1, 1, 0.1),
        )
    }
}

/// The control law u = −K (x, θ, ẋ, θ̇) for [`ControlledLagrangianSystem::closed_loop`].
pub fn state_feedback(
    gain: DMatrix<f64>,
) -> impl Fn(f64, &SVector<f64, 2>, &SVector<f64, 2>) -> Vector1<f64> {
    move |_, q, qd| {
        let state = udk::nalgebra::DVector::from_vec(vec![q[0], q[1], qd[0], qd[1]]);
        Vector1::new(-(&gain * state)[0])
    }
}

fn main() {
    let model = CartPole::EXAMPLE;
    let linear = model.upright().expect("upright rest linearizes");
    println!("A = {}B = {}", linear.a, linear.b);
    println!("open-loop eigenvalues: {:?}", linear.eigenvalues);
    let design = model
        .balancing_gain()
        .expect("the cart-pole is stabilizable");
    println!("K = {}", design.gain);
    println!(
        "closed-loop eigenvalues: {:?}",
        design.closed_loop_eigenvalues
    );

    let controlled = model.closed_loop(state_feedback(design.gain));
    let (q0, qd0) = (Vector2::new(0.0, 0.2), Vector2::zeros());
    let run = Showcase {
        energy_note: Some("the controller does work on the cart"),
        ..Showcase::new(
            env!("CARGO_MANIFEST_DIR"),
            "cartpole_lqr",
            "Cart-pole balanced by LQR from a 0.2 rad lean",
            &CartPole::COORDINATE_NAMES,
        )
    };
    let report = run.run(&SimulationOptions::every(0.01), |options| {
        simulate_lagrangian(&controlled, &q0, &qd0, 0.0, 5.0, options)
    });
    println!("{}\n{report}", Summary::header());
}
