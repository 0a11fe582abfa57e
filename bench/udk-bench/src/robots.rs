//! Sixteen URDF robots of example-robot-data, n = 6…44, with axis-aligned and generic joint
//! frames, as benchmark subjects compiled by `#[lagrangian(urdf = "...")]` as a user would: q̈
//! from the generated `acceleration` with the joint efforts τ as inputs, M alone from
//! `mass_matrix`, the bias alone from `generalized_forces` at τ = 0, and ∂q̈/∂(q, q̇, τ) from
//! `acceleration_jacobian`, on the states of a robot workload written by `bench/robots.py` (the
//! same states Pinocchio gets, in Pinocchio's joint order, mapped here by joint name).
//!
//! Fifteen files are vendored in `robots/`; Talos (CC BY-NC-ND 3.0, not redistributable) is
//! read, with the `package-robots` feature, from the installed example-robot-data package,
//! which `bench/compare.sh` copies into `package-robots/`. Every robot is on a fixed base, and
//! mimic joints are independent (both as Pinocchio reads the files by default).

use crate::timing;
use serde::Deserialize;
use serde_json::{json, Value};
use std::error::Error;
use udk::nalgebra::SVector;

/// The UR5 (6 revolute joints, axis-aligned frames).
#[udk::lagrangian(urdf = "../../robots/ur5_robot.urdf")]
pub struct Ur5;

/// SO-100 (6 revolute joints, generic joint frames).
#[udk::lagrangian(urdf = "../../robots/so100.urdf")]
pub struct So100;

/// Kinova's arm (6 revolute joints, generic joint frames).
#[udk::lagrangian(urdf = "../../robots/example-robot-data/kinova_description/robots/kinova.urdf")]
pub struct Kinova;

/// UFactory's xArm 7 (7 revolute joints).
#[udk::lagrangian(urdf = "../../robots/example-robot-data/xarm_description/urdf/xarm7.urdf")]
pub struct Xarm7;

/// The Panda (7 revolute joints, 2 prismatic fingers, independent).
#[udk::lagrangian(urdf = "../../robots/panda.urdf")]
pub struct Panda;

/// Unitree's A1 quadruped (12 revolute joints, 4 legs, body fixed).
#[udk::lagrangian(urdf = "../../robots/a1.urdf")]
pub struct A1;

/// Wonik's Allegro right hand (16 revolute joints, 4 fingers).
#[udk::lagrangian(
    urdf = "../../robots/example-robot-data/allegro_hand_description/urdf/allegro_right_hand.urdf"
)]
pub struct AllegroRightHand;

/// Rethink's Baxter (19 joints: two 7-joint arms, the head, grippers).
#[udk::lagrangian(urdf = "../../robots/example-robot-data/baxter_description/urdf/baxter.urdf")]
pub struct Baxter;

/// The Unitree G1 (`g1_29dof_rev_1_0`, 29 revolute joints, generic joint frames).
#[udk::lagrangian(
    urdf = "../../robots/example-robot-data/g1_description/urdf/g1_29dof_rev_1_0.urdf"
)]
pub struct G1;

/// Willow Garage's PR2 (30 joints: revolute, continuous and prismatic).
#[udk::lagrangian(urdf = "../../robots/example-robot-data/pr2_description/urdf/pr2.urdf")]
pub struct Pr2;

/// The Romeo humanoid (`romeo_small`, 31 revolute joints, body fixed).
#[udk::lagrangian(urdf = "../../robots/romeo_small.urdf")]
pub struct RomeoSmall;

/// PAL's TIAGo Pro (33 joints: revolute, continuous and a prismatic torso, generic frames).
#[udk::lagrangian(
    urdf = "../../robots/example-robot-data/tiago_pro_description/robots/tiago_pro.urdf"
)]
pub struct TiagoPro;

/// The human model of example-robot-data (36 revolute joints).
#[udk::lagrangian(urdf = "../../robots/example-robot-data/human_description/robots/human.urdf")]
pub struct Human;

/// IIT's Centauro (39 joints: four wheeled legs, two arms, torso).
#[udk::lagrangian(urdf = "../../robots/example-robot-data/centauro_description/urdf/centauro.urdf")]
pub struct Centauro;

/// The Unitree G1 with hands (`g1_29dof_with_hand_rev_1_0`, 43 revolute joints).
#[udk::lagrangian(
    urdf = "../../robots/example-robot-data/g1_description/urdf/g1_29dof_with_hand_rev_1_0.urdf"
)]
pub struct G1WithHands;

/// PAL's Talos (`talos_full_v2`, 44 joints with the grippers), read from the installed
/// package (its licence does not allow redistribution).
#[cfg(feature = "package-robots")]
#[udk::lagrangian(urdf = "package-robots/talos_full_v2.urdf")]
pub struct TalosFull;

/// One robot of the workload: its joints in Pinocchio's order and random states.
#[derive(Clone, Debug, Deserialize)]
pub struct RobotWorkload {
    /// The URDF file's stem (`ur5_robot`, `tiago_pro`, …).
    pub name: String,
    /// The movable joints' URDF names, in Pinocchio's order.
    pub coordinates: Vec<String>,
    /// States (q in rad or m, q̇, τ in N m or N), each in the order of `coordinates`.
    pub states: Vec<RobotState>,
}

/// One state of a robot workload.
#[derive(Clone, Debug, Deserialize)]
pub struct RobotState {
    /// Joint positions.
    pub q: Vec<f64>,
    /// Joint rates.
    pub qd: Vec<f64>,
    /// Joint efforts.
    pub tau: Vec<f64>,
}

/// The robot workload file.
#[derive(Clone, Debug, Deserialize)]
pub struct RobotsWorkload {
    /// The robots, each with its states.
    pub robots: Vec<RobotWorkload>,
}

/// q̈ at every state (in the workload's joint order) and the nanoseconds per call of the
/// generated `acceleration`, `terms` (M, Q, A, b together), `mass_matrix`,
/// `generalized_forces` and `acceleration_jacobian` of `robot`, for each robot of
/// `workload` that this crate holds.
///
/// # Errors
/// A robot this crate does not hold, a joint name the model does not have, or a kernel error.
pub fn robots(workload: &RobotsWorkload) -> Result<Value, Box<dyn Error>> {
    let mut rows = Vec::new();
    for robot in &workload.robots {
        // The same six calls for each generated model (the models differ in type and size).
        macro_rules! measure_model {
            ($model:ident) => {
                measure(
                    robot,
                    &$model::COORDINATE_NAMES,
                    |q, qd, tau| $model.acceleration(q, qd, tau, 0.0),
                    |q, qd, tau| $model.terms(q, qd, tau, 0.0).mass_matrix[(0, 0)],
                    |q| $model.mass_matrix(q, 0.0)[(0, 0)],
                    |q, qd, tau| $model.generalized_forces(q, qd, tau, 0.0)[0],
                    |q, qd, tau| {
                        $model
                            .acceleration_jacobian(q, qd, tau, 0.0)
                            .map_or(f64::NAN, |j| j.acceleration[0])
                    },
                )?
            };
        }
        let row = match robot.name.as_str() {
            "ur5_robot" => measure_model!(Ur5),
            "so100" => measure_model!(So100),
            "kinova" => measure_model!(Kinova),
            "xarm7" => measure_model!(Xarm7),
            "panda" => measure_model!(Panda),
            "a1" => measure_model!(A1),
            "allegro_right_hand" => measure_model!(AllegroRightHand),
            "baxter" => measure_model!(Baxter),
            "g1_29dof_rev_1_0" => measure_model!(G1),
            "pr2" => measure_model!(Pr2),
            "romeo_small" => measure_model!(RomeoSmall),
            "tiago_pro" => measure_model!(TiagoPro),
            "human" => measure_model!(Human),
            "centauro" => measure_model!(Centauro),
            "g1_29dof_with_hand_rev_1_0" => measure_model!(G1WithHands),
            #[cfg(feature = "package-robots")]
            "talos_full_v2" => measure_model!(TalosFull),
            other => return Err(format!("no generated model of robot `{other}`").into()),
        };
        rows.push(row);
    }
    Ok(Value::Array(rows))
}

type State<const N: usize> = (SVector<f64, N>, SVector<f64, N>, SVector<f64, N>);

/// The rows of [`robots`] for one model with joints `names` (udk's order).
fn measure<const N: usize>(
    robot: &RobotWorkload,
    names: &[&str; N],
    acceleration: impl Fn(
        &SVector<f64, N>,
        &SVector<f64, N>,
        &SVector<f64, N>,
    ) -> Result<SVector<f64, N>, udk::runtime::Error>,
    terms: impl Fn(&SVector<f64, N>, &SVector<f64, N>, &SVector<f64, N>) -> f64,
    mass_matrix: impl Fn(&SVector<f64, N>) -> f64,
    generalized_forces: impl Fn(&SVector<f64, N>, &SVector<f64, N>, &SVector<f64, N>) -> f64,
    acceleration_jacobian: impl Fn(&SVector<f64, N>, &SVector<f64, N>, &SVector<f64, N>) -> f64,
) -> Result<Value, Box<dyn Error>> {
    // position[i]: where udk's coordinate i sits in the workload's order.
    let position = (names.iter())
        .map(|name| {
            (robot.coordinates.iter().position(|c| c == name))
                .ok_or_else(|| format!("{}: no joint `{name}` in the workload", robot.name))
        })
        .collect::<Result<Vec<usize>, _>>()?;
    if robot.coordinates.len() != N {
        return Err(format!(
            "{}: the workload has {} joints, the model {N}",
            robot.name,
            robot.coordinates.len()
        )
        .into());
    }
    let ours = |values: &[f64]| SVector::<f64, N>::from_fn(|i, _| values[position[i]]);
    let states: Vec<State<N>> = (robot.states.iter())
        .map(|s| (ours(&s.q), ours(&s.qd), ours(&s.tau)))
        .collect();
    let mut accelerations = Vec::new();
    for (q, qd, tau) in &states {
        let qdd = acceleration(q, qd, tau)?;
        let mut theirs = vec![0.0; N];
        for (i, &p) in position.iter().enumerate() {
            theirs[p] = qdd[i];
        }
        accelerations.push(theirs);
    }
    let zero = SVector::<f64, N>::zeros();
    let acceleration_ns = timing::ns_per_call(&states, |(q, qd, tau)| {
        acceleration(q, qd, tau).map_or(f64::NAN, |qdd| qdd[0])
    });
    let terms_ns = timing::ns_per_call(&states, |(q, qd, tau)| terms(q, qd, tau));
    let mass_matrix_ns = timing::ns_per_call(&states, |(q, _, _)| mass_matrix(q));
    let bias_ns = timing::ns_per_call(&states, |(q, qd, _)| generalized_forces(q, qd, &zero));
    let jacobian_ns =
        timing::ns_per_call(&states, |(q, qd, tau)| acceleration_jacobian(q, qd, tau));
    eprintln!(
        "robot {}: acceleration {acceleration_ns:.0} ns, terms {terms_ns:.0} ns, M {mass_matrix_ns:.0} ns, bias {bias_ns:.0} ns, Jacobian {jacobian_ns:.0} ns",
        robot.name
    );
    Ok(json!({
        "name": robot.name,
        "accelerations": accelerations,
        "acceleration_ns": acceleration_ns,
        "terms_ns": terms_ns,
        "mass_matrix_ns": mass_matrix_ns,
        "bias_ns": bias_ns,
        "jacobian_ns": jacobian_ns,
    }))
}
