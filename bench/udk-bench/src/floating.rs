//! Robots on a floating base (`#[lagrangian(urdf = "...", floating_base = true)]`) as benchmark
//! subjects for `bench/floating.py`: Solo12 (with its four feet as link points), ANYmal C and,
//! with the `package-robots` feature, Talos reduced (copied from the installed
//! example-robot-data package by `bench/compare.sh`). Per robot, on the states of a workload
//! written by `bench/floating.py` (Pinocchio's layout and joint order, mapped here by joint
//! name): v̇ from the generated `acceleration` (the articulated-body algorithm with a 6-DoF
//! root) and, on Solo12, the four-feet contact-constrained forward dynamics: the generated
//! `contact_dynamics`, and M, τ − h, the feet's J and −J̇ v from one program
//! (`contact_terms`) with v̇ by the kernel ([`udk::runtime::acceleration`], A = J, b = −J̇ v).

use crate::timing;
use serde::Deserialize;
use serde_json::{json, Value};
use std::error::Error;
use udk::nalgebra::SVector;
use udk::runtime::{acceleration, LagrangianView, Options};

/// Solo12 of example-robot-data (12 revolute joints), its feet as link points.
#[udk::lagrangian(
    urdf = "../../robots/example-robot-data/solo_description/robots/solo12.urdf",
    floating_base = true,
    outputs(
        FL = link_position("FL_FOOT"),
        FR = link_position("FR_FOOT"),
        HL = link_position("HL_FOOT"),
        HR = link_position("HR_FOOT"),
    )
)]
pub struct Solo12;

/// ANYmal C of example-robot-data (`anymal_c_simple_description`, 12 revolute joints).
#[udk::lagrangian(
    urdf = "../../robots/example-robot-data/anymal_c_simple_description/urdf/anymal.urdf",
    floating_base = true
)]
pub struct AnymalC;

/// Talos reduced of example-robot-data (32 revolute joints), copied from the installed
/// package by `bench/compare.sh`.
#[cfg(feature = "package-robots")]
#[udk::lagrangian(urdf = "package-robots/talos_reduced.urdf", floating_base = true)]
pub struct TalosReduced;

/// One robot of the workload: its joints in Pinocchio's order and random states.
#[derive(Clone, Debug, Deserialize)]
pub struct FloatingWorkload {
    /// `solo12`, `anymal_c` or, with `package-robots`, `talos_reduced`.
    pub name: String,
    /// The movable joints' URDF names, in Pinocchio's order.
    pub joints: Vec<String>,
    /// States in Pinocchio's layout: q (7 + n), v (6 + n), the n joint efforts.
    pub states: Vec<FloatingState>,
}

/// One state of a floating-base workload.
#[derive(Clone, Debug, Deserialize)]
pub struct FloatingState {
    /// Base position, quaternion (x, y, z, w), joint positions.
    pub q: Vec<f64>,
    /// Base linear and angular velocity (base frame), joint rates.
    pub v: Vec<f64>,
    /// Joint efforts.
    pub tau: Vec<f64>,
}

/// v̇ and the nanoseconds per call of the generated `acceleration` for each robot of
/// `workloads`, and on Solo12 of the contact-constrained forward dynamics (see the module
/// docs), every vector in the workload's order.
///
/// # Errors
/// A robot this crate does not hold, a joint name the model does not have, or an evaluation
/// error.
pub fn floating(workloads: &[FloatingWorkload]) -> Result<Value, Box<dyn Error>> {
    let mut rows = Vec::new();
    for robot in workloads {
        macro_rules! free {
            ($model:ident, $nq:literal, $nv:literal, $n:literal) => {
                measure::<$nq, $nv, $n>(robot, &$model::COORDINATE_NAMES, |q, v, tau| {
                    Ok($model.acceleration(q, v, tau, 0.0)?)
                })?
            };
        }
        let mut row = match robot.name.as_str() {
            "solo12" => free!(Solo12, 19, 18, 12),
            "anymal_c" => free!(AnymalC, 19, 18, 12),
            #[cfg(feature = "package-robots")]
            "talos_reduced" => free!(TalosReduced, 39, 38, 32),
            other => return Err(format!("no floating-base model of robot `{other}`").into()),
        };
        if robot.name == "solo12" {
            let contact = measure::<19, 18, 12>(robot, &Solo12::COORDINATE_NAMES, contact)?;
            row["contact_accelerations"] = contact["accelerations"].clone();
            row["contact_ns"] = contact["acceleration_ns"].clone();
            let kernel = measure::<19, 18, 12>(robot, &Solo12::COORDINATE_NAMES, contact_kernel)?;
            row["contact_kernel_accelerations"] = kernel["accelerations"].clone();
            row["contact_kernel_ns"] = kernel["acceleration_ns"].clone();
        }
        rows.push(row);
    }
    Ok(Value::Array(rows))
}

/// Solo12's v̇ with its four feet held in place (12 rows): M v̇ = τ − h + Jᵀλ, J v̇ = −J̇ v,
/// by the generated `contact_dynamics` (the fundamental equation's fast path written out
/// over the terms' zeros).
fn contact(
    q: &SVector<f64, 19>,
    v: &SVector<f64, 18>,
    tau: &SVector<f64, 12>,
) -> Result<SVector<f64, 18>, Box<dyn Error>> {
    Ok(Solo12.contact_dynamics(q, v, tau, 0.0)?.0)
}

/// The same v̇ from `contact_terms` and the kernel ([`udk::runtime::acceleration`]), the path
/// of a contact set that changes from call to call.
fn contact_kernel(
    q: &SVector<f64, 19>,
    v: &SVector<f64, 18>,
    tau: &SVector<f64, 12>,
) -> Result<SVector<f64, 18>, Box<dyn Error>> {
    let (mass, force, jacobian, rhs) = Solo12.contact_terms(q, v, tau, 0.0)?;
    let terms = LagrangianView::new(&mass, &force, &jacobian, &rhs);
    Ok(acceleration(terms, &Options::default())?)
}

/// A floating-base evaluation: v̇ at (q, v, τ).
type Evaluation<const NQ: usize, const NV: usize, const N: usize> =
    fn(
        &SVector<f64, NQ>,
        &SVector<f64, NV>,
        &SVector<f64, N>,
    ) -> Result<SVector<f64, NV>, Box<dyn Error>>;

/// v̇ at every state (in the workload's order) and the nanoseconds per call of `evaluate`,
/// for a model whose q has the base entries then the joints `names` (udk's order).
fn measure<const NQ: usize, const NV: usize, const N: usize>(
    robot: &FloatingWorkload,
    names: &[&str; NQ],
    evaluate: Evaluation<NQ, NV, N>,
) -> Result<Value, Box<dyn Error>> {
    // position[j]: where udk's joint j sits in the workload's joint order.
    let position = (names[7..].iter())
        .map(|name| {
            (robot.joints.iter().position(|c| c == name))
                .ok_or_else(|| format!("{}: no joint `{name}` in the workload", robot.name))
        })
        .collect::<Result<Vec<usize>, _>>()?;
    if robot.joints.len() != N {
        return Err(format!(
            "{}: {} joints in the workload, {N} in the model",
            robot.name,
            robot.joints.len()
        )
        .into());
    }
    let states: Vec<(SVector<f64, NQ>, SVector<f64, NV>, SVector<f64, N>)> = (robot.states.iter())
        .map(|s| {
            let q = SVector::from_fn(|i, _| {
                if i < 7 {
                    s.q[i]
                } else {
                    s.q[7 + position[i - 7]]
                }
            });
            let v = SVector::from_fn(|i, _| {
                if i < 6 {
                    s.v[i]
                } else {
                    s.v[6 + position[i - 6]]
                }
            });
            let tau = SVector::from_fn(|j, _| s.tau[position[j]]);
            (q, v, tau)
        })
        .collect();
    let mut accelerations = Vec::new();
    for (q, v, tau) in &states {
        let a = evaluate(q, v, tau)?;
        let mut theirs = a.as_slice()[..6].to_vec();
        theirs.resize(NV, 0.0);
        for (j, &p) in position.iter().enumerate() {
            theirs[6 + p] = a[6 + j];
        }
        accelerations.push(theirs);
    }
    let acceleration_ns = timing::ns_per_call(&states, |(q, v, tau)| {
        evaluate(q, v, tau).map_or(f64::NAN, |a| a[0])
    });
    eprintln!("floating {}: {acceleration_ns:.0} ns", robot.name);
    Ok(json!({
        "name": robot.name,
        "accelerations": accelerations,
        "acceleration_ns": acceleration_ns,
    }))
}
