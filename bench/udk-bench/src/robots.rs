//! The URDF robots of `robots/` (UR5, Panda, Romeo, SO-100) and, with the `package-robots`
//! feature, G1 and TIAGo Pro from the installed example-robot-data package, as benchmark subjects, compiled by
//! `#[lagrangian(urdf = "...")]` as a user would: q̈ from the generated `acceleration` with the
//! joint efforts τ as inputs, M alone from `mass_matrix`, the bias alone from
//! `generalized_forces` at τ = 0, and ∂q̈/∂(q, q̇, τ) from `acceleration_jacobian`, on the states of a robot workload written by
//! `bench/robots.py` (the same states Pinocchio gets, in Pinocchio's joint order, mapped here by
//! joint name).

use crate::timing;
use serde::Deserialize;
use serde_json::{json, Value};
use std::error::Error;
use udk::nalgebra::SVector;

/// The UR5 of example-robot-data (6 revolute joints).
#[udk::lagrangian(urdf = "../../robots/ur5_robot.urdf")]
pub struct Ur5;

/// The Panda of example-robot-data (7 revolute joints, 2 prismatic fingers, independent).
#[udk::lagrangian(urdf = "../../robots/panda.urdf")]
pub struct Panda;

/// The Romeo humanoid of example-robot-data (`romeo_small`, 31 revolute joints, body fixed).
#[udk::lagrangian(urdf = "../../robots/romeo_small.urdf")]
pub struct RomeoSmall;

/// SO-100 of example-robot-data (6 revolute joints, generic joint frames; Apache-2.0).
#[udk::lagrangian(urdf = "../../robots/so100.urdf")]
pub struct So100;

/// The Unitree G1 of example-robot-data (`g1_29dof_rev_1_0`, 29 revolute joints, generic
/// joint frames, fixed base; BSD-3-Clause), copied from the installed package.
#[cfg(feature = "package-robots")]
#[udk::lagrangian(urdf = "package-robots/g1_29dof_rev_1_0.urdf")]
pub struct G1;

/// PAL's TIAGo Pro of example-robot-data (33 joints: revolute, continuous and a prismatic
/// torso, generic joint frames). Its licence does not allow redistribution: the file is read
/// from the installed package at bench time and never committed.
#[cfg(feature = "package-robots")]
#[udk::lagrangian(urdf = "package-robots/tiago_pro.urdf")]
pub struct TiagoPro;

/// One robot of the workload: its joints in Pinocchio's order and random states.
#[derive(Clone, Debug, Deserialize)]
pub struct RobotWorkload {
    /// `ur5_robot`, `panda`, `romeo_small`, or with `package-robots` `so100`,
    /// `g1_29dof_rev_1_0` or `tiago_pro`: the URDF file's stem.
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
            "panda" => measure_model!(Panda),
            "romeo_small" => measure_model!(RomeoSmall),
            "so100" => measure_model!(So100),
            #[cfg(feature = "package-robots")]
            "g1_29dof_rev_1_0" => measure_model!(G1),
            #[cfg(feature = "package-robots")]
            "tiago_pro" => measure_model!(TiagoPro),
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
