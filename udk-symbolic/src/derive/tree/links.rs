//! The bodies of a tree as DAG nodes, with their quantities in body frames or in the world
//! frame, and the poses (world rotation and origin) of the body frames.

use super::constants::{numbers, BodyConstants};
use crate::expr::{ExprId, Pool, Symbol};
use crate::parse::{add3, axis_rotation, dot3, mat_mul, mat_t_vec, mat_vec, scale3, Matrix, Rates};

/// One body as the recursions see it, every vector in the body's working frame Fᵢ (its turned
/// body frame, or the world frame).
pub(super) struct Link {
    /// Index of the parent body, `None` for a body jointed to the root.
    pub parent: Option<usize>,
    /// Index of the joint's coordinate.
    pub coordinate: usize,
    /// Revolute (true) or prismatic joint.
    pub revolute: bool,
    /// The rotation from Fᵢ to the parent's working frame.
    pub rotation: Rotation,
    /// The origin of Fᵢ relative to the parent's origin, in the parent's working frame (m).
    pub offset: [ExprId; 3],
    /// The unit joint axis in Fᵢ.
    pub axis: [ExprId; 3],
    /// The mass properties about Fᵢ's origin in Fᵢ's axes, `None` for a massless body.
    pub inertia: Option<Inertia>,
}

/// The componentwise sum of the 3-vectors `terms`, each component kept as one operand
/// ([`Pool::shared_sum`]): these sums are what the recursions carry from body to body.
pub(super) fn sum3(pool: &mut Pool, terms: &[[ExprId; 3]]) -> [ExprId; 3] {
    [0, 1, 2].map(|k| {
        let components: Vec<ExprId> = terms.iter().map(|t| t[k]).collect();
        pool.shared_sum(&components)
    })
}

/// Mass m, first moment h = m c and rotational inertia J about a frame's origin (symmetric,
/// row-major), the rigid-body inertia in 3-vector form (Featherstone 2008, eq 2.63).
#[derive(Clone, Copy)]
pub(super) struct Inertia {
    /// m, kg.
    pub mass: ExprId,
    /// h = m c, kg·m.
    pub first_moment: [ExprId; 3],
    /// J = I_c + m(|c|² 1 − c cᵀ), kg·m².
    pub rotational: [ExprId; 9],
}

/// The rotation from a working frame to its parent's.
pub(super) enum Rotation {
    /// The same frame (world-frame recursions).
    Identity,
    /// K Rz(q) (revolute, with cos q and sin q) or K (prismatic), K constant, applied in two
    /// steps: where K is a signed permutation or turns about one coordinate axis, that is no
    /// dearer than one product with K Rz(q).
    Turn {
        /// K, row-major, constants.
        turn: [ExprId; 9],
        /// (cos q, sin q) of a revolute joint.
        joint: Option<(ExprId, ExprId)>,
    },
    /// E = K Rz(q), row-major, composed once per body (each entry K₀ cos q + K₁ sin q, or a
    /// constant of K, kept as one operand): for a generic K, one product with E costs
    /// 9 multiplications and 6 additions where K then Rz(q) costs 13 and 8.
    Composed([ExprId; 9]),
}

impl Rotation {
    /// The rotation K Rz(q) (revolute, `joint` = (cos q, sin q)) or K (prismatic), in whichever
    /// form takes fewer operations per product with a vector ([`product_cost`]): composed
    /// when it is strictly cheaper, else in two steps.
    pub fn turn(pool: &mut Pool, turn: [ExprId; 9], joint: Option<(ExprId, ExprId)>) -> Self {
        let Some((c, s)) = joint else {
            return Rotation::Turn { turn, joint };
        };
        // Column 0 of K Rz(q) is K₀ c + K₁ s, column 1 is K₁ c − K₀ s (Kⱼ column j of K).
        let composed: [ExprId; 9] = std::array::from_fn(|k| {
            let (r, j) = (k / 3, k % 3);
            let (first, second) = (turn[3 * r], turn[3 * r + 1]);
            let entry = match j {
                0 => combination(pool, &[(first, c), (second, s)], &[false, false]),
                1 => combination(pool, &[(second, c), (first, s)], &[false, true]),
                _ => turn[3 * r + 2],
            };
            pool.shared(entry)
        });
        const JOINT_COST: usize = 6;
        if product_cost(pool, &composed) < product_cost(pool, &turn) + JOINT_COST {
            Rotation::Composed(composed)
        } else {
            Rotation::Turn { turn, joint }
        }
    }

    /// E v: a child-frame vector in the parent's frame.
    pub fn to_parent(&self, pool: &mut Pool, v: [ExprId; 3]) -> [ExprId; 3] {
        let (turn, joint) = match self {
            Rotation::Identity => return v,
            Rotation::Composed(e) => return mat_vec(pool, &Matrix::plain(*e), v),
            Rotation::Turn { turn, joint } => (turn, joint),
        };
        let v = match *joint {
            Some((c, s)) => {
                let x = combination(pool, &[(c, v[0]), (s, v[1])], &[false, true]);
                let y = combination(pool, &[(s, v[0]), (c, v[1])], &[false, false]);
                [x, y, v[2]]
            }
            None => v,
        };
        mat_vec(pool, &Matrix::plain(*turn), v)
    }

    /// Eᵀ v: a parent-frame vector in the child's frame.
    pub fn to_child(&self, pool: &mut Pool, v: [ExprId; 3]) -> [ExprId; 3] {
        let (turn, joint) = match self {
            Rotation::Identity => return v,
            Rotation::Composed(e) => return mat_t_vec(pool, &Matrix::plain(*e), v),
            Rotation::Turn { turn, joint } => (turn, joint),
        };
        let v = mat_t_vec(pool, &Matrix::plain(*turn), v);
        match *joint {
            Some((c, s)) => {
                let x = combination(pool, &[(c, v[0]), (s, v[1])], &[false, false]);
                let y = combination(pool, &[(c, v[1]), (s, v[0])], &[false, true]);
                [x, y, v[2]]
            }
            None => v,
        }
    }
}

/// The operations of one product of the row-major 3 × 3 `m` with a generic vector: per row, a
/// multiplication for each entry that is not 0 or ±1 and an addition for each nonzero entry
/// after the first.
fn product_cost(pool: &Pool, m: &[ExprId; 9]) -> usize {
    (m.chunks(3))
        .map(|row| {
            let nonzero = row.iter().filter(|&&x| !pool.is_zero(x)).count();
            let scaled = (row.iter())
                .filter(|&&x| {
                    pool.as_number(x)
                        .is_none_or(|n| !n.is_zero() && !n.is_one() && !(-n).is_one())
                })
                .count();
            scaled + nonzero.saturating_sub(1)
        })
        .sum()
}

/// Σ ± aₖ bₖ, with − where `negative[k]`.
fn combination(pool: &mut Pool, products: &[(ExprId, ExprId)], negative: &[bool]) -> ExprId {
    let terms: Vec<ExprId> = (products.iter().zip(negative))
        .map(|(&(a, b), &minus)| {
            let p = pool.mul(&[a, b]);
            if minus {
                pool.neg(p)
            } else {
                p
            }
        })
        .collect();
    pool.add(&terms)
}

/// Where a body frame Fᵢ is: its rotation to the world (with its angular velocities, so that
/// `kinetic_energy` can use it) and its origin in the world frame.
pub(super) struct Pose {
    /// Rᵢ, Fᵢ → world.
    pub rotation: Matrix,
    /// The origin of Fᵢ in the world frame, m.
    pub origin: [ExprId; 3],
}

/// The constant `entries` (row-major) as a matrix with zero angular velocity.
fn constant_matrix(pool: &mut Pool, entries: [ExprId; 9]) -> Matrix {
    let zero = pool.zero();
    Matrix {
        entries,
        rates: Some(Rates {
            world: [zero; 3],
            body: [zero; 3],
        }),
    }
}

/// The joint's offset in the parent's turned frame: t, plus K e_z q for a prismatic joint.
fn local_offset(pool: &mut Pool, body: &BodyConstants) -> [ExprId; 3] {
    let q = pool.symbol(Symbol::Coordinate(body.coordinate));
    [0, 1, 2].map(|r| {
        let t = body.offset[r];
        if body.revolute {
            t
        } else {
            let slide = pool.mul(&[body.turn[3 * r + 2], q]);
            pool.add(&[t, slide])
        }
    })
}

/// The joint rotation of a revolute body, Rz(qᵢ) with its rates, or the identity.
fn joint_rotation(pool: &mut Pool, body: &BodyConstants) -> Option<Matrix> {
    body.revolute.then(|| {
        let q = pool.symbol(Symbol::Coordinate(body.coordinate));
        axis_rotation(pool, 2, q)
    })
}

/// The poses of the turned body frames, from the root outwards:
/// Rᵢ = R_parent Kᵢ Rz(qᵢ), oᵢ = o_parent + R_parent (tᵢ + Kᵢ e_z qᵢ).
pub(super) fn poses(pool: &mut Pool, bodies: &[BodyConstants]) -> Vec<Pose> {
    let mut poses: Vec<Pose> = Vec::with_capacity(bodies.len());
    for body in bodies {
        let offset = local_offset(pool, body);
        let turn = constant_matrix(pool, body.turn);
        let (rotation, origin) = match body.parent {
            Some(p) => {
                let parent = &poses[p];
                let shift = mat_vec(pool, &parent.rotation, offset);
                let rotation = mat_mul(pool, &parent.rotation, &turn);
                (rotation, add3(pool, parent.origin, shift))
            }
            None => (turn, offset),
        };
        let rotation = match joint_rotation(pool, body) {
            Some(joint) => mat_mul(pool, &rotation, &joint),
            None => rotation,
        };
        poses.push(shared_pose(pool, rotation, origin));
    }
    poses
}

/// The pose with every entry of its rotation, rates and origin shared ([`Pool::shared`]):
/// the children multiply them by constants, which would otherwise distribute each entry's
/// terms into theirs, one generation more per body (O(n²) operations along a chain).
fn shared_pose(pool: &mut Pool, rotation: Matrix, origin: [ExprId; 3]) -> Pose {
    let mut share = |v: [ExprId; 3]| v.map(|x| pool.shared(x));
    let rates = rotation.rates.map(|r| Rates {
        world: share(r.world),
        body: share(r.body),
    });
    let origin = share(origin);
    Pose {
        rotation: Matrix {
            entries: rotation.entries.map(|x| pool.shared(x)),
            rates,
        },
        origin,
    }
}

/// The constant mass properties of `body` about its frame's origin: h = m c and
/// J = I_c + m(|c|² 1 − c cᵀ) (the parallel-axis theorem; Featherstone 2008, eq 2.63).
fn body_inertia(pool: &mut Pool, body: &BodyConstants) -> Option<Inertia> {
    let inertia = body.inertia?;
    let (m, c) = (inertia.mass, inertia.com);
    let squared = dot3(pool, c, c);
    let rotational = std::array::from_fn(|k| {
        let (i, j) = (k / 3, k % 3);
        let product = pool.mul(&[c[i], c[j]]);
        let outer = pool.neg(product);
        let shift = if i == j {
            pool.add(&[squared, outer])
        } else {
            outer
        };
        let moved = pool.mul(&[m, shift]);
        pool.add(&[inertia.about_com[k], moved])
    });
    Some(Inertia {
        mass: m,
        first_moment: scale3(pool, m, c),
        rotational,
    })
}

/// The links with every quantity in its own turned body frame: constant inertias, constant
/// axes e_z, and vectors passed between bodies through Kᵢ Rz(qᵢ).
pub(super) fn body_links(pool: &mut Pool, bodies: &[BodyConstants]) -> Vec<Link> {
    let ez = numbers(pool, &[0.0, 0.0, 1.0]);
    (bodies.iter())
        .map(|body| {
            let joint = body.revolute.then(|| {
                let q = pool.symbol(Symbol::Coordinate(body.coordinate));
                let c = pool.call(crate::expr::Func::Cos, &[q]);
                let s = pool.call(crate::expr::Func::Sin, &[q]);
                (c, s)
            });
            Link {
                parent: body.parent,
                coordinate: body.coordinate,
                revolute: body.revolute,
                rotation: Rotation::turn(pool, body.turn, joint),
                offset: local_offset(pool, body),
                axis: ez,
                inertia: body_inertia(pool, body),
            }
        })
        .collect()
}

/// The links with every quantity in the world frame: no rotation between bodies, but the
/// axes Rᵢ e_z, offsets R_parent (tᵢ + Kᵢ e_z qᵢ) and inertias Rᵢ J Rᵢᵀ turn with the bodies.
pub(super) fn world_links(pool: &mut Pool, bodies: &[BodyConstants], poses: &[Pose]) -> Vec<Link> {
    (bodies.iter().zip(poses))
        .map(|(body, pose)| {
            let offset = match body.parent {
                Some(p) => {
                    let local = local_offset(pool, body);
                    mat_vec(pool, &poses[p].rotation, local)
                }
                None => local_offset(pool, body),
            };
            let r = &pose.rotation;
            let inertia = body_inertia(pool, body).map(|i| Inertia {
                mass: i.mass,
                first_moment: mat_vec(pool, r, i.first_moment),
                rotational: congruence(pool, &i.rotational, |p, v| mat_vec(p, r, v)),
            });
            Link {
                parent: body.parent,
                coordinate: body.coordinate,
                revolute: body.revolute,
                rotation: Rotation::Identity,
                offset,
                axis: [r.get(0, 2), r.get(1, 2), r.get(2, 2)],
                inertia,
            }
        })
        .collect()
}

/// E J Eᵀ for a symmetric J (row-major) and the map v ↦ E v: E applied to the columns of J,
/// then to the rows of E J (E J Eᵀ = E (E J)ᵀ); the upper triangle mirrored, so that the
/// result is exactly symmetric.
pub(super) fn congruence(
    pool: &mut Pool,
    j: &[ExprId; 9],
    mut apply: impl FnMut(&mut Pool, [ExprId; 3]) -> [ExprId; 3],
) -> [ExprId; 9] {
    let columns = [0, 1, 2].map(|k| apply(pool, [j[k], j[3 + k], j[6 + k]]));
    // Row k of E J is (columns[0][k], columns[1][k], columns[2][k]).
    let result = [0, 1, 2].map(|k| apply(pool, [columns[0][k], columns[1][k], columns[2][k]]));
    std::array::from_fn(|index| {
        let (r, k) = (index / 3, index % 3);
        let (r, k) = (r.min(k), r.max(k));
        result[k][r]
    })
}
