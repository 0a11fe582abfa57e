//! The bodies of a tree as DAG nodes, with their quantities in body frames or in the world
//! frame, and the poses (world rotation and origin) of the body frames.

use super::constants::{numbers, snap_entry, BodyConstants};
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
    /// K Rz(q) (revolute, with cos q and sin q) or K (prismatic), K constant, applied to vectors
    /// in two steps: where K is a signed permutation or turns about one coordinate axis, that
    /// is no dearer than one product with K Rz(q).
    Turn {
        /// K, row-major, constants.
        turn: [ExprId; 9],
        /// (cos q, sin q) of a revolute joint.
        joint: Option<(ExprId, ExprId)>,
    },
    /// E = K Rz(q), row-major, composed once per body (each entry K₀ cos q + K₁ sin q, or a
    /// constant of K, kept as one operand), for vectors: for a generic K, one product with E
    /// costs 9 multiplications and 6 additions where K then Rz(q) costs 13 and 8. Congruences
    /// still take K and the joint in steps, as plane rotations.
    Composed {
        /// E, row-major.
        entries: [ExprId; 9],
        /// K, row-major, constants.
        turn: [ExprId; 9],
        /// (cos q, sin q) of the joint.
        joint: (ExprId, ExprId),
    },
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
            Rotation::Composed {
                entries: composed,
                turn,
                joint: (c, s),
            }
        } else {
            Rotation::Turn { turn, joint }
        }
    }

    /// E S Eᵀ for a symmetric S (row-major): a child-frame inertia in the parent's axes,
    /// exactly symmetric. The joint's Rz(q) and a constant K of numbers, as its z-x-z angles
    /// ([`plane_factors`]), are applied as rotations in coordinate planes ([`plane_turn`]).
    pub fn congruence(&self, pool: &mut Pool, s: &[ExprId; 9]) -> [ExprId; 9] {
        self.congruence_of(pool, s, true)
    }

    /// E B Eᵀ for a general B (row-major).
    pub fn general_congruence(&self, pool: &mut Pool, b: &[ExprId; 9]) -> [ExprId; 9] {
        self.congruence_of(pool, b, false)
    }

    /// [`Rotation::congruence`] (`symmetric`) or [`Rotation::general_congruence`].
    fn congruence_of(&self, pool: &mut Pool, m: &[ExprId; 9], symmetric: bool) -> [ExprId; 9] {
        let (turn, joint) = match self {
            Rotation::Identity => return *m,
            Rotation::Turn { turn, joint } => (turn, *joint),
            Rotation::Composed { turn, joint, .. } => (turn, Some(*joint)),
        };
        let mut m = match joint {
            Some(cs) => plane_turn(pool, m, [0, 1], cs, symmetric),
            None => *m,
        };
        match plane_factors(pool, turn) {
            Some(factors) => {
                for (plane, (c, s)) in factors {
                    let cs = (pool.number(c), pool.number(s));
                    m = plane_turn(pool, &m, plane, cs, symmetric);
                }
                m
            }
            None => product_congruence(pool, &m, &Matrix::plain(*turn), symmetric),
        }
    }

    /// E v: a child-frame vector in the parent's frame.
    pub fn to_parent(&self, pool: &mut Pool, v: [ExprId; 3]) -> [ExprId; 3] {
        let (turn, joint) = match self {
            Rotation::Identity => return v,
            Rotation::Composed { entries, .. } => {
                return mat_vec(pool, &Matrix::plain(*entries), v)
            }
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
            Rotation::Composed { entries, .. } => {
                return mat_t_vec(pool, &Matrix::plain(*entries), v)
            }
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

/// Q M Qᵀ (`symmetric`: exactly symmetric) for the rotation Q by the angle θ in the plane of
/// the coordinate axes `plane` (`cos_sin` = (cos θ, sin θ)): by [`plane_congruence`] where
/// M's block in that plane is full, else as products with Q, which multiply the zeros out
/// (and cost nothing when Q is a signed permutation).
fn plane_turn(
    pool: &mut Pool,
    m: &[ExprId; 9],
    [i, j]: [usize; 2],
    (c, s): (ExprId, ExprId),
    symmetric: bool,
) -> [ExprId; 9] {
    let full = [3 * i + i, 3 * i + j, 3 * j + i, 3 * j + j]
        .iter()
        .all(|&k| !pool.is_zero(m[k]));
    let quarter = pool.is_zero(c) || pool.is_zero(s);
    if full && !quarter {
        return plane_congruence(pool, m, [i, j], (c, s), symmetric);
    }
    let mut q: [ExprId; 9] = numbers(pool, &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]);
    q[3 * i + i] = c;
    q[3 * j + j] = c;
    q[3 * j + i] = s;
    q[3 * i + j] = pool.neg(s);
    product_congruence(pool, m, &Matrix::plain(q), symmetric)
}

/// E M Eᵀ by products with E: [`congruence`] (`symmetric`) or [`general_congruence`].
fn product_congruence(
    pool: &mut Pool,
    m: &[ExprId; 9],
    e: &Matrix,
    symmetric: bool,
) -> [ExprId; 9] {
    let apply = |pool: &mut Pool, v| mat_vec(pool, e, v);
    if symmetric {
        congruence(pool, m, apply)
    } else {
        general_congruence(pool, m, apply)
    }
}

/// A rotation in the plane of two coordinate axes [i, j] by θ, as (cos θ, sin θ).
type PlaneRotation = ([usize; 2], (f64, f64));

/// A constant turn K of numbers as its z-x-z angles, K = Rz(α) Rx(β) Rz(γ): the plane
/// rotations to apply to M for K M Kᵀ, innermost first (Rz(γ), then Rx(β), then Rz(α)), each
/// as its plane and (cos, sin) snapped to exact 0 and ±1 ([`snap_entry`]), the identities left
/// out. `None` for a K that is not all numbers. Three plane rotations of a symmetric M take
/// 54 operations at most, where products with a generic K take 90.
fn plane_factors(pool: &Pool, turn: &[ExprId; 9]) -> Option<Vec<PlaneRotation>> {
    let (gamma, l) = z_x_z(&numeric(pool, turn)?);
    // L = Rz(α) Rx(β) has the first column (cos α, sin α, 0) and the third row
    // (0, sin β, cos β).
    let (alpha, beta) = ((l[0], l[3]), (l[8], l[7]));
    let factors = [([0, 1], gamma), ([1, 2], beta), ([0, 1], alpha)]
        .into_iter()
        .map(|(plane, (c, s))| (plane, (snap_entry(c), snap_entry(s))))
        .filter(|&(_, cs)| cs != (1.0, 0.0))
        .collect();
    Some(factors)
}

/// The entries of `turn` (row-major) when they are all numbers.
fn numeric(pool: &Pool, turn: &[ExprId; 9]) -> Option<Vec<f64>> {
    (turn.iter())
        .map(|&x| pool.as_number(x).map(|n| n.to_f64()))
        .collect()
}

/// The rotation `k` (row-major) by its z-x-z angles, K = Rz(α) Rx(β) Rz(γ) = L Rz(γ): (cos γ,
/// sin γ), snapped ([`snap_entry`]), and L = K Rz(−γ) = Rz(α) Rx(β), its entries snapped and
/// its third row (0, sin β, cos β) starting with an exact 0, which γ makes it. K's third row
/// is (sin β sin γ, sin β cos γ, cos β); with sin β = 0, α = 0. Of the two solutions (γ and
/// γ + π, with β → −β and α → α + π), the one with cos α ≥ 0, so that a turn Rx(β) Rz(γ)
/// keeps α = 0.
fn z_x_z(k: &[f64]) -> ((f64, f64), [f64; 9]) {
    let gamma = match k[6].hypot(k[7]) > 0.0 {
        true => k[6].atan2(k[7]),
        // K = Rz(γ) Rx(β) with cos β = ±1: its first column is (cos γ, cos β sin γ, 0).
        false => (k[3] * k[8].signum()).atan2(k[0]),
    };
    let (mut sg, mut cg) = gamma.sin_cos();
    // cos α, the first entry of K Rz(−γ).
    if k[0] * cg - k[1] * sg < 0.0 {
        (sg, cg) = (-sg, -cg);
    }
    let (cg, sg) = (snap_entry(cg), snap_entry(sg));
    // Columns 0 and 1 of K turned back by γ.
    let mut l: [f64; 9] = std::array::from_fn(|index| {
        let (r, j) = (index / 3, index % 3);
        match j {
            0 => k[3 * r] * cg - k[3 * r + 1] * sg,
            1 => k[3 * r] * sg + k[3 * r + 1] * cg,
            _ => k[3 * r + 2],
        }
        .clamp(-1.0, 1.0)
    })
    .map(snap_entry);
    l[6] = 0.0;
    ((cg, sg), l)
}

/// Q M Qᵀ for the rotation Q by the angle θ (`cos_sin` = (cos θ, sin θ)) in the plane of the
/// coordinate axes `plane` = [i, j] (Q eᵢ = cos θ eᵢ + sin θ eⱼ), each entry kept as one operand.
/// The i-j block by the double angle: with m = (Mᵢᵢ + Mⱼⱼ)/2, u = (Mᵢᵢ − Mⱼⱼ)/2, h and k the
/// symmetric and antisymmetric parts of Mᵢⱼ, w = u cos 2θ − h sin 2θ: Mᵢᵢ' = m + w,
/// Mⱼⱼ' = m − w, Mᵢⱼ' = u sin 2θ + h cos 2θ + k, Mⱼᵢ' = the same − 2k; the third row and column
/// turned as vectors; 18 operations for a symmetric M where three products with Q and three
/// dot products take 33.
fn plane_congruence(
    pool: &mut Pool,
    m: &[ExprId; 9],
    [i, j]: [usize; 2],
    (c, s): (ExprId, ExprId),
    symmetric: bool,
) -> [ExprId; 9] {
    let k = 3 - i - j;
    let at = |r: usize, c: usize| 3 * r + c;
    let half = pool.rational(1, 2);
    let two = pool.integer(2);
    let squares = [pool.mul(&[c, c]), pool.mul(&[s, s])];
    let cos2 = pool.sub(squares[0], squares[1]);
    let cos2 = pool.shared(cos2);
    let sin2 = pool.mul(&[two, c, s]);
    let mean = pool.add(&[m[at(i, i)], m[at(j, j)]]);
    let mean = pool.mul(&[half, mean]);
    let mean = pool.shared(mean);
    let difference = pool.sub(m[at(i, i)], m[at(j, j)]);
    let u = pool.mul(&[half, difference]);
    let (h, skew) = if symmetric {
        (m[at(i, j)], None)
    } else {
        let sum = pool.add(&[m[at(i, j)], m[at(j, i)]]);
        let difference = pool.sub(m[at(i, j)], m[at(j, i)]);
        (pool.mul(&[half, sum]), Some(pool.mul(&[half, difference])))
    };
    let w = combination(pool, &[(u, cos2), (h, sin2)], &[false, true]);
    let w = pool.shared(w);
    let mut out = *m;
    out[at(i, i)] = pool.shared_sum(&[mean, w]);
    let minus_w = pool.neg(w);
    out[at(j, j)] = pool.shared_sum(&[mean, minus_w]);
    let off = combination(pool, &[(u, sin2), (h, cos2)], &[false, false]);
    let off = pool.shared(off);
    match skew {
        None => (out[at(i, j)], out[at(j, i)]) = (off, off),
        Some(k) => {
            out[at(i, j)] = pool.shared_sum(&[off, k]);
            let minus_k = pool.neg(k);
            out[at(j, i)] = pool.shared_sum(&[off, minus_k]);
        }
    }
    let turn = |pool: &mut Pool, x: ExprId, y: ExprId| {
        let first = combination(pool, &[(c, x), (s, y)], &[false, true]);
        let second = combination(pool, &[(s, x), (c, y)], &[false, false]);
        (pool.shared(first), pool.shared(second))
    };
    (out[at(i, k)], out[at(j, k)]) = turn(pool, m[at(i, k)], m[at(j, k)]);
    if symmetric {
        (out[at(k, i)], out[at(k, j)]) = (out[at(i, k)], out[at(j, k)]);
    } else {
        (out[at(k, i)], out[at(k, j)]) = turn(pool, m[at(k, i)], m[at(k, j)]);
    }
    out
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

/// The constant mass properties of `body` about its frame's origin ([`about_origin`]).
fn body_inertia(pool: &mut Pool, body: &BodyConstants) -> Option<Inertia> {
    Some(about_origin(pool, &body.inertia?))
}

/// Mass properties given about the centre of mass, about the frame's origin: h = m c and
/// J = I_c + m(|c|² 1 − c cᵀ) (the parallel-axis theorem; Featherstone 2008, eq 2.63).
pub(super) fn about_origin(pool: &mut Pool, inertia: &super::constants::Inertia) -> Inertia {
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
    Inertia {
        mass: m,
        first_moment: scale3(pool, m, c),
        rotational,
    }
}

/// A revolute body's constant turn K of numbers as L Rz(γ) with L = Rz(α) Rx(β) (its z-x-z
/// angles, [`z_x_z`]): L and (cos γ, sin γ), so that Rz(γ) joins the joint rotation,
/// E = L Rz(q + γ), and one plane rotation fewer turns each inertia. `constants` spins each
/// body's frame so that for its first child on another axis α = 0, and L = Rx(β) is one plane
/// rotation; for a child on a parallel axis L is the identity. K itself and `None` when γ = 0
/// or K is not all numbers.
fn split_turn(pool: &mut Pool, turn: &[ExprId; 9]) -> ([ExprId; 9], Option<(ExprId, ExprId)>) {
    let Some(k) = numeric(pool, turn) else {
        return (*turn, None);
    };
    let ((cg, sg), l) = z_x_z(&k);
    if (cg, sg) == (1.0, 0.0) {
        return (*turn, None);
    }
    let spin = [cg, sg].map(|x| pool.number(x));
    (numbers(pool, &l), Some((spin[0], spin[1])))
}

/// The links with every quantity in its own turned body frame: constant inertias, constant
/// axes e_z, and vectors passed between bodies through Kᵢ Rz(qᵢ).
pub(super) fn body_links(pool: &mut Pool, bodies: &[BodyConstants]) -> Vec<Link> {
    let ez = numbers(pool, &[0.0, 0.0, 1.0]);
    (bodies.iter())
        .map(|body| {
            let (turn, joint) = if body.revolute {
                let (turn, spin) = split_turn(pool, &body.turn);
                let q = pool.symbol(Symbol::Coordinate(body.coordinate));
                let c = pool.call(crate::expr::Func::Cos, &[q]);
                let s = pool.call(crate::expr::Func::Sin, &[q]);
                // (cos, sin) of q + γ.
                let joint = match spin {
                    None => (c, s),
                    Some((cg, sg)) => {
                        let c2 = combination(pool, &[(cg, c), (sg, s)], &[false, true]);
                        let s2 = combination(pool, &[(sg, c), (cg, s)], &[false, false]);
                        (pool.shared(c2), pool.shared(s2))
                    }
                };
                (turn, Some(joint))
            } else {
                (body.turn, None)
            };
            Link {
                parent: body.parent,
                coordinate: body.coordinate,
                revolute: body.revolute,
                rotation: Rotation::turn(pool, turn, joint),
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

/// E J Eᵀ for a symmetric J (row-major) and the map v ↦ E v ([`both_sides`]), the upper
/// triangle mirrored, so that the result is exactly symmetric.
pub(super) fn congruence(
    pool: &mut Pool,
    j: &[ExprId; 9],
    apply: impl FnMut(&mut Pool, [ExprId; 3]) -> [ExprId; 3],
) -> [ExprId; 9] {
    let rows = both_sides(pool, j, apply);
    std::array::from_fn(|index| {
        let (r, k) = (index / 3, index % 3);
        rows[r.max(k)][r.min(k)]
    })
}

/// E B Eᵀ for a general B (row-major) and the map v ↦ E v ([`both_sides`]).
fn general_congruence(
    pool: &mut Pool,
    b: &[ExprId; 9],
    apply: impl FnMut(&mut Pool, [ExprId; 3]) -> [ExprId; 3],
) -> [ExprId; 9] {
    let rows = both_sides(pool, b, apply);
    std::array::from_fn(|k| rows[k / 3][k % 3])
}

/// The rows of E M Eᵀ for a row-major M: E applied to the columns of M, then to the rows of
/// E M (row r of (E M) Eᵀ = (E (E M)ᵀ)ᵀ is E applied to row r of E M).
fn both_sides(
    pool: &mut Pool,
    m: &[ExprId; 9],
    mut apply: impl FnMut(&mut Pool, [ExprId; 3]) -> [ExprId; 3],
) -> [[ExprId; 3]; 3] {
    let columns = [0, 1, 2].map(|k| apply(pool, [m[k], m[3 + k], m[6 + k]]));
    [0, 1, 2].map(|r| apply(pool, [columns[0][r], columns[1][r], columns[2][r]]))
}
