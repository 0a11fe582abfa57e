//! The mass properties of URDF links: each `<inertial>` in its body's frame, the links of one
//! body merged, and the check that each inertia tensor is positive semidefinite.
//!
//! A link with `mass="0"` keeps its rotational inertia: a spatial inertia with m = 0 and a
//! positive semidefinite tensor is legal, and Pinocchio uses it. Only a link with zero mass
//! and a zero tensor has no inertia.
//!
//! Real files round their tensors, and some give tiny links tensors that are slightly
//! indefinite. A tensor is compared with the scale of the body it is merged into: the largest
//! entry of that body's rotational inertia about its frame origin, Σ (I_c + m(|c|²1 − c cᵀ))
//! over its links. A smallest eigenvalue below 0 but above −[`TOLERANCE`] × that scale changes
//! the body's inertia by less than the rounding of a tensor printed to six digits. Such a
//! tensor is kept as the file writes it, as Pinocchio keeps it, with a warning that gives the
//! eigenvalue. A larger negative eigenvalue is an error. With [`InertiaCheck::Repair`] the
//! tensor is instead projected onto the nearest positive semidefinite tensor (negative
//! eigenvalues set to 0; nearest in the Frobenius norm, Higham 1988), with a warning that says
//! by how much.

use super::read::{compose, mat_mul, pose};
use super::InertiaCheck;
use crate::tree::{SpatialInertia, Transform};
use nalgebra::{Matrix3, SymmetricEigen};

/// How far below 0 a tensor's smallest eigenvalue may be, relative to its body's scale.
pub const TOLERANCE: f64 = 1e-6;

/// One link's inertia in its body's frame, before the check.
#[derive(Clone, Debug)]
pub struct LinkInertia {
    /// The link's name, for messages.
    pub link: String,
    /// Its mass properties in the body frame.
    pub inertia: SpatialInertia,
    /// The smallest eigenvalue of the tensor as the file writes it, kg·m².
    pub smallest: f64,
}

/// The link's mass properties in the frame `offset` places it in, `None` without `<inertial>`
/// or with zero mass and a zero tensor.
///
/// # Errors
/// A negative or non-finite mass, a non-finite tensor entry or inertial origin.
pub fn link_inertia(
    link: &urdf_rs::Link,
    offset: &Transform,
) -> Result<Option<LinkInertia>, String> {
    let inertial = &link.inertial;
    let mass = inertial.mass.value;
    if !mass.is_finite() || mass < 0.0 {
        return Err(format!("the mass {mass} is negative or not finite"));
    }
    let i = &inertial.inertia;
    let tensor = [
        [i.ixx, i.ixy, i.ixz],
        [i.ixy, i.iyy, i.iyz],
        [i.ixz, i.iyz, i.izz],
    ];
    let origin = [inertial.origin.xyz.0, inertial.origin.rpy.0].concat();
    if tensor
        .iter()
        .flatten()
        .chain(&origin)
        .any(|x| !x.is_finite())
    {
        return Err("the inertia tensor or the inertial origin has a non-finite entry".to_owned());
    }
    if mass == 0.0 && tensor.iter().flatten().all(|&x| x == 0.0) {
        return Ok(None);
    }
    let frame = compose(offset, &pose(&inertial.origin));
    let r = &frame.rotation;
    // R I Rᵀ: the tensor in the body's axes.
    let rotated = mat_mul(&mat_mul(r, &tensor), &transpose(r));
    Ok(Some(LinkInertia {
        link: link.name.clone(),
        inertia: SpatialInertia {
            mass,
            com: frame.translation,
            inertia: rotated,
        },
        smallest: smallest_eigenvalue(&tensor),
    }))
}

/// Checks the links of one body against the body's scale and merges them into its mass
/// properties (`None` when no link has inertia); appends (link, warning) for each tensor kept
/// or repaired.
///
/// # Errors
/// A tensor whose smallest eigenvalue is below −[`TOLERANCE`] × the body's scale, with
/// [`InertiaCheck::Strict`]: (the link, a message that gives the tensor, the eigenvalue and the
/// opt-in that repairs it).
pub fn merge(
    links: Vec<LinkInertia>,
    check: InertiaCheck,
    warnings: &mut Vec<(String, String)>,
) -> Result<Option<SpatialInertia>, (String, String)> {
    let scale = (links.iter())
        .flat_map(|l| about(&l.inertia, [0.0; 3]).into_iter().flatten())
        .fold(0.0_f64, |m, x| m.max(x.abs()));
    let mut merged: Option<SpatialInertia> = None;
    for mut link in links {
        if link.smallest < 0.0 {
            let name = link.link.clone();
            let smallest = link.smallest;
            let relative = -smallest / scale;
            if relative <= TOLERANCE {
                warnings.push((
                    name,
                    format!(
                        "the inertia tensor has the eigenvalue {smallest:e} kg·m², \
                     below 0 by {relative:.1e} of its body's scale {scale:e} kg·m² (within \
                     the tolerance {TOLERANCE:e}): kept as written"
                    ),
                ));
            } else if check == InertiaCheck::Repair {
                let (repaired, change) = nearest_semidefinite(&link.inertia.inertia);
                link.inertia.inertia = repaired;
                warnings.push((
                    name,
                    format!(
                        "the inertia tensor has the eigenvalue {smallest:e} kg·m² \
                     ({relative:.1e} of its body's scale {scale:e} kg·m²); repaired to the \
                     nearest positive semidefinite tensor, which differs by {change:e} kg·m² \
                     (Frobenius norm)"
                    ),
                ));
            } else {
                return Err((
                    name,
                    format!(
                        "the inertia tensor (ixx, ixy, ixz, iyy, iyz, izz) = ({}) is not positive \
                     semidefinite: its smallest eigenvalue is {smallest:e} kg·m², {relative:.1e} \
                     of its body's scale {scale:e} kg·m² (the tolerance is {TOLERANCE:e}); \
                     `inertia = \"repair\"` projects it onto the nearest positive semidefinite \
                     tensor",
                        tensor_entries(&link.inertia.inertia)
                    ),
                ));
            }
        }
        merged = Some(match merged {
            Some(earlier) => combine(&earlier, &link.inertia),
            None => link.inertia,
        });
    }
    Ok(merged)
}

/// The six distinct entries of a symmetric tensor, comma-separated.
fn tensor_entries(a: &[[f64; 3]; 3]) -> String {
    [a[0][0], a[0][1], a[0][2], a[1][1], a[1][2], a[2][2]]
        .map(|x| x.to_string())
        .join(", ")
}

/// The smallest eigenvalue of the symmetric `a`, 0 when it is below 0 by no more than the
/// eigensolver's own rounding (8 ε of the largest entry): a tensor such as HyQ's feet, exactly
/// semidefinite, is not reported.
fn smallest_eigenvalue(a: &[[f64; 3]; 3]) -> f64 {
    let smallest = eigen(a).eigenvalues.min();
    let noise = 8.0 * f64::EPSILON * a.iter().flatten().fold(0.0_f64, |m, x| m.max(x.abs()));
    if smallest < 0.0 && -smallest <= noise {
        0.0
    } else {
        smallest
    }
}

fn eigen(a: &[[f64; 3]; 3]) -> SymmetricEigen<f64, nalgebra::U3> {
    SymmetricEigen::new(Matrix3::from_fn(|i, j| a[i][j]))
}

/// The nearest positive semidefinite tensor to the symmetric `a` in the Frobenius norm (its
/// negative eigenvalues set to 0), and that distance.
fn nearest_semidefinite(a: &[[f64; 3]; 3]) -> ([[f64; 3]; 3], f64) {
    let e = eigen(a);
    let change = e
        .eigenvalues
        .iter()
        .map(|l| l.min(0.0).powi(2))
        .sum::<f64>();
    let clipped = e.eigenvalues.map(|l| l.max(0.0));
    let repaired = e.eigenvectors * Matrix3::from_diagonal(&clipped) * e.eigenvectors.transpose();
    (
        [0, 1, 2].map(|i| [0, 1, 2].map(|j| 0.5 * (repaired[(i, j)] + repaired[(j, i)]))),
        change.sqrt(),
    )
}

fn transpose(a: &[[f64; 3]; 3]) -> [[f64; 3]; 3] {
    [0, 1, 2].map(|i| [0, 1, 2].map(|j| a[j][i]))
}

/// The rotational inertia of `body` about `point` (same frame), by the parallel-axis theorem:
/// I_c + m (|d|² 1 − d dᵀ) with d = c − point.
fn about(body: &SpatialInertia, point: [f64; 3]) -> [[f64; 3]; 3] {
    let d = [0, 1, 2].map(|k| body.com[k] - point[k]);
    let d2: f64 = d.iter().map(|x| x * x).sum();
    [0, 1, 2].map(|i| {
        [0, 1, 2].map(|j| {
            let identity = if i == j { d2 } else { 0.0 };
            body.inertia[i][j] + body.mass * (identity - d[i] * d[j])
        })
    })
}

/// The mass properties of two bodies joined rigidly (both in one frame): masses add, the
/// centre of mass is their weighted mean (either's when both masses are 0), and the inertias
/// are moved to it by [`about`].
fn combine(a: &SpatialInertia, b: &SpatialInertia) -> SpatialInertia {
    let mass = a.mass + b.mass;
    let com = if mass > 0.0 {
        [0, 1, 2].map(|k| (a.mass * a.com[k] + b.mass * b.com[k]) / mass)
    } else {
        a.com
    };
    let (ia, ib) = (about(a, com), about(b, com));
    SpatialInertia {
        mass,
        com,
        inertia: [0, 1, 2].map(|i| [0, 1, 2].map(|j| ia[i][j] + ib[i][j])),
    }
}
