//! The Franka Emika Panda read from `robots/panda.urdf` with `mimic = true`: the file's
//! `<mimic joint="panda_finger_joint1"/>` on `panda_finger_joint2` (multiplier 1, offset 0)
//! becomes the holonomic constraint finger2 − finger1 = 0, so the two fingers move as one
//! (Pinocchio loads them as independent joints unless asked). A PD law holds the arm near
//! Franka's "ready" pose and drives finger 1 alone to a 1 cm opening; the constraint carries
//! finger 2 along.
//!
//! `tests/robots/mimic.rs` checks that the finger coordinates stay equal to 1e-12 m.
//!
//! Run with `cargo run --release --example panda_mimic`.

use udk::lagrangian;
use udk::nalgebra::SVector;
use udk::runtime::simulate::{simulate_lagrangian, Showcase, SimulationOptions, Summary};
use udk::runtime::ControlledLagrangianSystem;

/// The Panda: seven revolute joints and two prismatic fingers (coordinates named as the URDF
/// joints, rad and m), joint efforts (N m, N) as inputs, gravity −9.81 m/s² along z, and one
/// constraint row from the mimic tag.
#[lagrangian(urdf = "robots/panda.urdf", mimic = true)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PandaMimic;

impl PandaMimic {
    /// Index of `panda_finger_joint1` among the coordinates.
    pub const FINGER1: usize = 7;
    /// Index of `panda_finger_joint2`.
    pub const FINGER2: usize = 8;
    /// The opening finger 1 is driven to (m).
    pub const GRIP: f64 = 0.01;

    /// A consistent start: the arm in Franka's "ready" pose, at rest, both fingers open by
    /// 3 cm.
    pub fn ready() -> (SVector<f64, 9>, SVector<f64, 9>) {
        let q = SVector::from([0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785, 0.03, 0.03]);
        (q, SVector::zeros())
    }

    /// The efforts of the PD law at (q, q̇): on each arm joint 200 N m/rad · (ready − q) −
    /// 20 N m s/rad · q̇ (no gravity compensation, so the arm sags a little); on finger 1,
    /// 200 N/m · (GRIP − q) − 4 N s/m · q̇ (the two fingers' 0.03 kg, damping ratio ≈ 0.8);
    /// nothing on finger 2.
    pub fn hold(q: &SVector<f64, 9>, qd: &SVector<f64, 9>) -> SVector<f64, 9> {
        let (ready, _) = Self::ready();
        let mut tau = SVector::zeros();
        for i in 0..Self::FINGER1 {
            tau[i] = 200.0 * (ready[i] - q[i]) - 20.0 * qd[i];
        }
        let f = Self::FINGER1;
        tau[f] = 200.0 * (Self::GRIP - q[f]) - 4.0 * qd[f];
        tau
    }
}

fn main() {
    let (q, qd) = PandaMimic::ready();
    let held = PandaMimic.closed_loop(|_, q, qd| PandaMimic::hold(q, qd));
    println!(
        "coordinates {:?}, constraint rows: {}",
        PandaMimic::COORDINATE_NAMES,
        PandaMimic::NUM_CONSTRAINTS
    );
    let run = Showcase {
        energy_note: Some("the PD law does work on the arm and the fingers"),
        ..Showcase::new(
            env!("CARGO_MANIFEST_DIR"),
            "panda_mimic",
            "Panda with mimic fingers: the arm held by a PD law, finger 1 driven to 1 cm",
            &PandaMimic::COORDINATE_NAMES,
        )
    };
    let report = run.run(&SimulationOptions::every(0.01), |options| {
        simulate_lagrangian(&held, &q, &qd, 0.0, 2.0, options)
    });
    println!("{}\n{report}", Summary::header());
}
