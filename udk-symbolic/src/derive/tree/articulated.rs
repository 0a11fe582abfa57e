//! The articulated-body algorithm (Featherstone 2008, "Rigid Body Dynamics Algorithms",
//! Table 7.1) run symbolically over body-frame [`Link`]s: q̈ = M⁻¹(τ + Q₀) in O(n) operations
//! for a chain, and M⁻¹x for further right-hand sides x (the columns of M⁻¹Aᵀ) in O(n) each,
//! with the same articulated inertias.
//!
//! Spatial vectors are pairs of 3-vectors (angular, linear) about the body frame's origin;
//! an articulated inertia is the symmetric 6 × 6 matrix [[A, B], [Bᵀ, C]] (A and C
//! symmetric), so that the force of a motion (ω, v) is (A ω + B v, Bᵀ ω + C v). A rigid
//! body's is A = J, B = [h]×, C = m 1 (eq 2.63).

use super::links::{sum3, Inertia, Link};
use crate::derivation::ExprMatrix;
use crate::expr::{ExprId, Pool, Symbol};
use crate::parse::{add3, cross3, dot3, scale3};

/// A 3-vector of expressions.
type Vec3 = [ExprId; 3];

/// A 3 × 3 matrix of expressions, row-major.
type Mat3 = [ExprId; 9];

/// A spatial motion or force: (angular, linear) parts, about the frame's origin.
#[derive(Clone, Copy)]
struct Spatial {
    angular: Vec3,
    linear: Vec3,
}

/// The blocks of a symmetric 6 × 6 articulated inertia [[A, B], [Bᵀ, C]].
#[derive(Clone, Copy)]
struct Articulated {
    a: Mat3,
    b: Mat3,
    c: Mat3,
}

/// What one body's articulated inertia gives every solve: U = Iᴬ S (6-vector), the pivot
/// D = Sᵀ U, 1/D and U/D, each kept as one operand, so that the emitted code divides once per
/// body and multiplies by 1/D and U/D elsewhere.
struct Factor {
    u: Spatial,
    pivot: ExprId,
    inverse_pivot: ExprId,
    scaled_u: Spatial,
}

/// The velocity terms of the main solve of one body: c = v × S q̇ (the velocity-product
/// acceleration), p = v ×* I v (the bias force), and Iᵃ c, the articulated inertia passed to
/// the parent times c.
struct Bias {
    c: Spatial,
    p: Spatial,
    inertia_c: Spatial,
}

/// M⁻¹ of a tree, as the articulated-body algorithm forms it.
pub struct ArticulatedSolve {
    /// a = M⁻¹(τ + Q₀), n entries (Q₀ = −(C q̇ + g), the base accelerating at −gravity).
    pub acceleration: Vec<ExprId>,
    /// M⁻¹ xⱼ for each extra right-hand side xⱼ, as columns: n × (number of xⱼ).
    pub inverse_mass_columns: ExprMatrix,
    /// Dᵢ = Sᵢᵀ Iᴬᵢ Sᵢ, one per body (kg·m² revolute, kg prismatic); all positive exactly when
    /// M is positive definite.
    pub pivots: Vec<ExprId>,
}

/// The articulated-body algorithm on `links` (body frames, every coordinate 0..n moved by one
/// link): q̈ = M⁻¹(τ + Q₀) for the joint forces `tau` (n entries, by coordinate) with the base
/// accelerating at `base_acceleration`, and M⁻¹ of each of `right_hand_sides` (n entries each),
/// solved with zero velocity and base acceleration. `None` when the algorithm cannot apply:
/// a coordinate no link moves, or a body whose subtree has no mass (its articulated inertia
/// is zero, and so is its pivot).
pub(super) fn solve(
    pool: &mut Pool,
    links: &[Link],
    n: usize,
    tau: &[ExprId],
    base_acceleration: Vec3,
    right_hand_sides: &[Vec<ExprId>],
) -> Option<ArticulatedSolve> {
    if links.len() != n || !every_subtree_has_mass(links) {
        return None;
    }
    let bodies = rigid_inertias(pool, links);
    let (velocity_bias, own_bias) = kinematics(pool, links, &bodies, None);
    let (factors, bias, _) = factor(pool, links, &bodies, velocity_bias, own_bias, false);
    let zero = pool.zero();
    let base = Spatial {
        angular: [zero; 3],
        linear: base_acceleration,
    };
    let acceleration = forces(pool, links, &factors, tau, Some(&bias), Root::Fixed(base)).0;
    let at_rest = Spatial {
        angular: [zero; 3],
        linear: [zero; 3],
    };
    let columns: Vec<Vec<ExprId>> = (right_hand_sides.iter())
        .map(|x| forces(pool, links, &factors, x, None, Root::Fixed(at_rest)).0)
        .collect();
    let m = columns.len();
    let entries = (0..n * m).map(|k| columns[k % m][k / m]).collect();
    Some(ArticulatedSolve {
        acceleration,
        inverse_mass_columns: ExprMatrix {
            rows: n,
            cols: m,
            entries,
        },
        pivots: factors.iter().map(|f| f.pivot).collect(),
    })
}

/// Each body's rigid-body inertia about its origin (zero for a massless body).
fn rigid_inertias(pool: &mut Pool, links: &[Link]) -> Vec<Articulated> {
    (links.iter())
        .map(|link| rigid_inertia(pool, link.inertia.as_ref()))
        .collect()
}

/// The 6 × 6 rigid-body inertia of `inertia` (zero for `None`): A = J, B = [h]×, C = m 1.
fn rigid_inertia(pool: &mut Pool, inertia: Option<&Inertia>) -> Articulated {
    let zero = pool.zero();
    match inertia {
        None => Articulated {
            a: [zero; 9],
            b: [zero; 9],
            c: [zero; 9],
        },
        Some(i) => {
            let [hx, hy, hz] = i.first_moment;
            let (mhx, mhy, mhz) = (pool.neg(hx), pool.neg(hy), pool.neg(hz));
            Articulated {
                a: i.rotational,
                b: [zero, mhz, hy, hz, zero, mhx, mhy, hx, zero],
                c: [i.mass, zero, zero, zero, i.mass, zero, zero, zero, i.mass],
            }
        }
    }
}

/// The bias force v ×* I v = (ω × n + v × f, ω × f) of a body of inertia `inertia` moving
/// with `v`, (n, f) = I v its momentum.
fn velocity_product_force(pool: &mut Pool, inertia: &Articulated, v: &Spatial) -> Spatial {
    let momentum = apply(pool, inertia, v);
    let turning = cross3(pool, v.angular, momentum.angular);
    let sliding = cross3(pool, v.linear, momentum.linear);
    Spatial {
        angular: add3(pool, turning, sliding),
        linear: cross3(pool, v.angular, momentum.linear),
    }
}

/// I v for an articulated inertia and a motion.
fn apply(pool: &mut Pool, inertia: &Articulated, v: &Spatial) -> Spatial {
    let ab = mat_vec(pool, &inertia.a, v.angular);
    let bv = mat_vec(pool, &inertia.b, v.linear);
    let bt = mat_t_vec(pool, &inertia.b, v.angular);
    let cv = mat_vec(pool, &inertia.c, v.linear);
    Spatial {
        angular: add3(pool, ab, bv),
        linear: add3(pool, bt, cv),
    }
}

/// M v for a row-major 3 × 3 M.
fn mat_vec(pool: &mut Pool, m: &Mat3, v: Vec3) -> Vec3 {
    [0, 1, 2].map(|r| dot3(pool, [m[3 * r], m[3 * r + 1], m[3 * r + 2]], v))
}

/// Mᵀ v for a row-major 3 × 3 M.
fn mat_t_vec(pool: &mut Pool, m: &Mat3, v: Vec3) -> Vec3 {
    [0, 1, 2].map(|c| dot3(pool, [m[c], m[3 + c], m[6 + c]], v))
}

/// The joint's motion subspace times `rate`: (s rate, 0) revolute, (0, s rate) prismatic.
fn joint_motion(pool: &mut Pool, link: &Link, rate: ExprId) -> Spatial {
    let zero = pool.zero();
    let along = scale3(pool, rate, link.axis);
    if link.revolute {
        Spatial {
            angular: along,
            linear: [zero; 3],
        }
    } else {
        Spatial {
            angular: [zero; 3],
            linear: along,
        }
    }
}

/// Sᵀ f: the joint's component of a force.
fn joint_component(pool: &mut Pool, link: &Link, f: &Spatial) -> ExprId {
    dot3(
        pool,
        link.axis,
        if link.revolute { f.angular } else { f.linear },
    )
}

/// A parent-frame motion in the child's frame: ω' = Eᵀω, v' = Eᵀ(v + ω × r).
fn motion_to_child(pool: &mut Pool, link: &Link, m: &Spatial) -> Spatial {
    let moved = cross3(pool, m.angular, link.offset);
    let at_child = add3(pool, m.linear, moved);
    Spatial {
        angular: link.rotation.to_child(pool, m.angular),
        linear: link.rotation.to_child(pool, at_child),
    }
}

/// A child-frame force in the parent's frame: f' = E f, n' = E n + r × E f.
fn force_to_parent(pool: &mut Pool, link: &Link, f: &Spatial) -> Spatial {
    let linear = link.rotation.to_parent(pool, f.linear);
    let turned = link.rotation.to_parent(pool, f.angular);
    let lever = cross3(pool, link.offset, linear);
    Spatial {
        angular: add3(pool, turned, lever),
        linear,
    }
}

/// The sum of spatial vectors.
fn sum(pool: &mut Pool, terms: &[Spatial]) -> Spatial {
    let angular: Vec<Vec3> = terms.iter().map(|t| t.angular).collect();
    let linear: Vec<Vec3> = terms.iter().map(|t| t.linear).collect();
    Spatial {
        angular: sum3(pool, &angular),
        linear: sum3(pool, &linear),
    }
}

/// Pass 1, outwards: each body's spatial velocity v, and c = v × S q̇ and p = v ×* I v.
/// The root moves with `root_velocity` (its own frame), or is fixed for `None`.
fn kinematics(
    pool: &mut Pool,
    links: &[Link],
    bodies: &[Articulated],
    root_velocity: Option<&Spatial>,
) -> (Vec<Spatial>, Vec<Spatial>) {
    let zero = pool.zero();
    let rest = Spatial {
        angular: [zero; 3],
        linear: [zero; 3],
    };
    let mut velocities: Vec<Spatial> = Vec::with_capacity(links.len());
    let mut c = Vec::with_capacity(links.len());
    let mut p = Vec::with_capacity(links.len());
    for (link, inertia) in links.iter().zip(bodies) {
        let rate = pool.symbol(Symbol::Velocity(link.coordinate));
        let joint = joint_motion(pool, link, rate);
        let carried = match (link.parent, root_velocity) {
            (Some(parent), _) => motion_to_child(pool, link, &velocities[parent]),
            (None, Some(root)) => motion_to_child(pool, link, root),
            (None, None) => rest,
        };
        let v = sum(pool, &[carried, joint]);
        // v × (ω_J, v_J) = (ω × ω_J, ω × v_J + v × ω_J).
        let angular = cross3(pool, v.angular, joint.angular);
        let spin = cross3(pool, v.angular, joint.linear);
        let drift = cross3(pool, v.linear, joint.angular);
        c.push(Spatial {
            angular,
            linear: add3(pool, spin, drift),
        });
        p.push(velocity_product_force(pool, inertia, &v));
        velocities.push(v);
    }
    (c, p)
}

/// Pass 2 for the inertias, inwards: Iᴬ = I + Σ children's Iᵃ carried in, U = Iᴬ S,
/// D = Sᵀ U, and Iᵃ = Iᴬ − U Uᵀ / D (what a body passes to its parent). Returns the factors
/// and the main solve's bias terms, with Iᵃ c; with `carry_to_root`, also the Iᵃ of the
/// bodies jointed to the root, carried into the root frame.
fn factor(
    pool: &mut Pool,
    links: &[Link],
    bodies: &[Articulated],
    c: Vec<Spatial>,
    p: Vec<Spatial>,
    carry_to_root: bool,
) -> (Vec<Factor>, Vec<Bias>, Vec<Articulated>) {
    let mut root_parts = Vec::new();
    let mut parts: Vec<Vec<Articulated>> = bodies.iter().map(|b| vec![*b]).collect();
    let mut factors: Vec<Option<Factor>> = (0..links.len()).map(|_| None).collect();
    let mut passed: Vec<Option<Articulated>> = vec![None; links.len()];
    for (i, link) in links.iter().enumerate().rev() {
        let inertia = sum_articulated(pool, &parts[i]);
        let (s_angular, s_linear) = if link.revolute {
            (link.axis, [pool.zero(); 3])
        } else {
            ([pool.zero(); 3], link.axis)
        };
        let u = apply(
            pool,
            &inertia,
            &Spatial {
                angular: s_angular,
                linear: s_linear,
            },
        );
        let pivot = joint_component(pool, link, &u);
        let inverse_pivot = pool.shared_reciprocal(pivot);
        // The joint's own component of U is D (S = e_z): exactly 1 in U/D, so that the
        // update zeroes the articulated inertia along S exactly.
        let mut scale = |x: ExprId| match x == pivot {
            true => pool.one(),
            false => pool.mul(&[x, inverse_pivot]),
        };
        let scaled_u = Spatial {
            angular: u.angular.map(&mut scale),
            linear: u.linear.map(&mut scale),
        };
        // B − U_ω U_vᵀ/D with the 1 of U/D on the joint's side, so that its row (revolute)
        // or column (prismatic) along S cancels exactly.
        let (left, right) = match link.revolute {
            true => (scaled_u.angular, u.linear),
            false => (u.angular, scaled_u.linear),
        };
        let reduced = Articulated {
            a: outer_update(pool, &inertia.a, u.angular, scaled_u.angular, true),
            b: outer_update(pool, &inertia.b, left, right, false),
            c: outer_update(pool, &inertia.c, u.linear, scaled_u.linear, true),
        };
        match link.parent {
            Some(parent) => {
                let carried = inertia_to_parent(pool, link, &reduced);
                parts[parent].push(carried);
            }
            None if carry_to_root => root_parts.push(inertia_to_parent(pool, link, &reduced)),
            None => {}
        }
        passed[i] = Some(reduced);
        factors[i] = Some(Factor {
            u,
            pivot,
            inverse_pivot,
            scaled_u,
        });
    }
    let factors: Vec<Factor> = factors.into_iter().flatten().collect();
    let passed: Vec<Articulated> = passed.into_iter().flatten().collect();
    let bias = (c.into_iter().zip(p).zip(&passed))
        .map(|((c, p), reduced)| Bias {
            inertia_c: apply(pool, reduced, &c),
            c,
            p,
        })
        .collect();
    (factors, bias, root_parts)
}

/// X − u wᵀ (row-major), where u wᵀ is U Uᵀ/D or a block of it. With `symmetric` (X symmetric
/// and w = u/D) the upper triangle is mirrored, so that the result is exactly symmetric.
fn outer_update(pool: &mut Pool, x: &Mat3, u: Vec3, w: Vec3, symmetric: bool) -> Mat3 {
    let mut entries = *x;
    for r in 0..3 {
        for c in 0..3 {
            if symmetric && c < r {
                entries[3 * r + c] = entries[3 * c + r];
                continue;
            }
            let product = pool.mul(&[u[r], w[c]]);
            let minus = pool.neg(product);
            entries[3 * r + c] = pool.shared_sum(&[x[3 * r + c], minus]);
        }
    }
    entries
}

/// The sum of articulated inertias.
fn sum_articulated(pool: &mut Pool, parts: &[Articulated]) -> Articulated {
    let block = |pool: &mut Pool, pick: fn(&Articulated) -> &Mat3| -> Mat3 {
        std::array::from_fn(|k| {
            let terms: Vec<ExprId> = parts.iter().map(|p| pick(p)[k]).collect();
            pool.shared_sum(&terms)
        })
    };
    Articulated {
        a: block(pool, |p| &p.a),
        b: block(pool, |p| &p.b),
        c: block(pool, |p| &p.c),
    }
}

/// Xᵀ* I X for the motion transform X from the parent to the child: each block turned by
/// E (E A Eᵀ, E B Eᵀ, E C Eᵀ), then moved to the parent's origin by r:
/// B' = B + P with P = [r]× C, and A' = A + [r]× Bᵀ + B [r]×ᵀ + [r]× C [r]×ᵀ, which is
/// A + [r]× B'ᵀ + B [r]×ᵀ: A'ᵢⱼ = Aᵢⱼ + (r × B'ⱼ)ᵢ + (r × Bᵢ)ⱼ (Bᵢ row i of B), formed for i ≤ j
/// and mirrored. Off the diagonal B'ⱼ enters as shared operands; on the diagonal, and in the
/// B' passed on, it stays a sum, whose products merge with like terms: (r × B'ᵢ)ᵢ holds those
/// of (r × Bᵢ)ᵢ (emitted operations of q̈: TIAGo Pro 11 723 against 11 843 with sums only and
/// 11 630 with shared operands only, which make a planar chain of 10 links 686 → 783).
fn inertia_to_parent(pool: &mut Pool, link: &Link, inertia: &Articulated) -> Articulated {
    let a = link.rotation.congruence(pool, &inertia.a);
    let c = link.rotation.congruence(pool, &inertia.c);
    let b = link.rotation.general_congruence(pool, &inertia.b);
    let r = link.offset;
    let row = |m: &Mat3, i: usize| [m[3 * i], m[3 * i + 1], m[3 * i + 2]];
    // Column j of P is r × (column j of C).
    let p_columns = [0, 1, 2].map(|j| cross3(pool, r, [c[j], c[3 + j], c[6 + j]]));
    let sums: Mat3 = std::array::from_fn(|k| {
        let (row, col) = (k / 3, k % 3);
        pool.add(&[b[k], p_columns[col][row]])
    });
    let shared = sums.map(|x| pool.shared(x));
    let turned_rows = [0, 1, 2].map(|i| cross3(pool, r, row(&b, i)));
    let diagonal_rows = [0, 1, 2].map(|j| cross3(pool, r, row(&sums, j)));
    let shifted_rows = [0, 1, 2].map(|j| cross3(pool, r, row(&shared, j)));
    let shifted_a = std::array::from_fn(|k| {
        let (i, j) = (k / 3, k % 3);
        let (i, j) = (i.min(j), i.max(j));
        let rows = if i == j {
            &diagonal_rows
        } else {
            &shifted_rows
        };
        pool.add(&[a[3 * i + j], rows[j][i], turned_rows[i][j]])
    });
    Articulated {
        a: shifted_a,
        b: sums,
        c,
    }
}

/// Pass 2 for the forces (inwards) and pass 3 (outwards) of one solve: with u = τ − Sᵀpᴬ,
/// pᵃ = pᴬ + Iᵃ c + U u / D carried to the parent, then a' = X a_parent + c,
/// q̈ = (u − Uᵀ a') / D, a = a' + S q̈. Without `bias` the velocity terms are zero. Returns q̈
/// and the root's acceleration (solved for a [`Root::Floating`]).
fn forces(
    pool: &mut Pool,
    links: &[Link],
    factors: &[Factor],
    tau: &[ExprId],
    bias: Option<&[Bias]>,
    root: Root,
) -> (Vec<ExprId>, Spatial) {
    let mut root_parts = match &root {
        Root::Fixed(_) => Vec::new(),
        Root::Floating { bias, .. } => vec![*bias],
    };
    let zero = pool.zero();
    let mut parts: Vec<Vec<Spatial>> = (0..links.len())
        .map(|i| bias.map(|b| vec![b[i].p]).unwrap_or_default())
        .collect();
    let mut joint_force = vec![zero; links.len()];
    for (i, link) in links.iter().enumerate().rev() {
        let total = sum(pool, &parts[i]);
        let component = joint_component(pool, link, &total);
        let tau_i = tau.get(link.coordinate).copied().unwrap_or(zero);
        let u = pool.sub(tau_i, component);
        joint_force[i] = u;
        let floating = matches!(root, Root::Floating { .. });
        if link.parent.is_some() || floating {
            let f = &factors[i];
            let along = Spatial {
                angular: scale3(pool, u, f.scaled_u.angular),
                linear: scale3(pool, u, f.scaled_u.linear),
            };
            let mut terms = vec![total, along];
            if let Some(b) = bias {
                terms.push(b[i].inertia_c);
            }
            let carried = sum(pool, &terms);
            let carried = force_to_parent(pool, link, &carried);
            match link.parent {
                Some(parent) => parts[parent].push(carried),
                None => root_parts.push(carried),
            }
        }
    }
    let base = match root {
        Root::Fixed(acceleration) => acceleration,
        // Iᴬ₀ a₀ + pᴬ₀ = 0 (Featherstone 2008, ch. 9: the floating base has no joint force).
        Root::Floating { inertia, .. } => {
            let total = sum(pool, &root_parts);
            let minus = Spatial {
                angular: total.angular.map(|x| pool.neg(x)),
                linear: total.linear.map(|x| pool.neg(x)),
            };
            solve_spatial(pool, &inertia, &minus)
        }
    };
    let mut accelerations: Vec<Spatial> = Vec::with_capacity(links.len());
    let mut qdd = vec![zero; links.len()];
    for (i, link) in links.iter().enumerate() {
        let parent_acceleration = link.parent.map_or(base, |p| accelerations[p]);
        let carried = motion_to_child(pool, link, &parent_acceleration);
        let a_prime = match bias {
            Some(b) => sum(pool, &[carried, b[i].c]),
            None => carried,
        };
        let f = &factors[i];
        let projected = dot3(pool, f.u.angular, a_prime.angular);
        let projected_linear = dot3(pool, f.u.linear, a_prime.linear);
        let minus = pool.add(&[projected, projected_linear]);
        let free = pool.sub(joint_force[i], minus);
        let rate = pool.mul(&[free, f.inverse_pivot]);
        qdd[link.coordinate] = rate;
        let joint = joint_motion(pool, link, rate);
        accelerations.push(sum(pool, &[a_prime, joint]));
    }
    (qdd, base)
}

/// How the root of a solve moves.
enum Root {
    /// A fixed root frame accelerating at the given spatial acceleration (−gravity).
    Fixed(Spatial),
    /// A free root with its articulated inertia Iᴬ₀ (its own inertia plus the Iᵃ its children
    /// pass) and its own bias force p₀ = v₀ ×* I₀ v₀; its acceleration is solved for.
    Floating { inertia: Articulated, bias: Spatial },
}

/// The articulated-body algorithm with a floating base, as [`ArticulatedSolve`] but for a root
/// free in space.
pub(super) struct FloatingSolve {
    /// The root's spatial acceleration in its own frame (angular, then the linear acceleration
    /// of its origin's spatial velocity, rad/s² and m/s²), without gravity: the motion
    /// relative to a frame falling freely.
    pub root_angular: Vec3,
    /// See `root_angular`.
    pub root_linear: Vec3,
    /// q̈ of the joints, n entries by coordinate.
    pub joints: Vec<ExprId>,
}

/// The articulated-body algorithm with a floating base (Featherstone 2008, ch. 9): the root
/// moves with the spatial velocity `root_velocity` = (angular, linear) in its own frame and has the
/// mass properties `root_inertia` (about its origin; `None` for none), the joints carry the
/// forces `tau` (n entries by coordinate), and no gravity acts (the caller adds it to the
/// root's acceleration: in uniform gravity every body's acceleration relative to a freely
/// falling frame is that of the same system without gravity). O(n) operations, with one
/// 6 × 6 solve at the root. `None` when the algorithm cannot apply: a coordinate no link
/// moves, or a body whose subtree has no mass.
pub(super) fn solve_floating(
    pool: &mut Pool,
    links: &[Link],
    n: usize,
    tau: &[ExprId],
    root_velocity: (Vec3, Vec3),
    root_inertia: Option<&Inertia>,
) -> Option<FloatingSolve> {
    if links.len() != n || !every_subtree_has_mass(links) {
        return None;
    }
    let root_velocity = Spatial {
        angular: root_velocity.0,
        linear: root_velocity.1,
    };
    let bodies = rigid_inertias(pool, links);
    let (velocity_bias, own_bias) = kinematics(pool, links, &bodies, Some(&root_velocity));
    let (factors, bias, children) = factor(pool, links, &bodies, velocity_bias, own_bias, true);
    let own = rigid_inertia(pool, root_inertia);
    let root_bias = velocity_product_force(pool, &own, &root_velocity);
    let mut parts = vec![own];
    parts.extend(children);
    let inertia = sum_articulated(pool, &parts);
    let root = Root::Floating {
        inertia,
        bias: root_bias,
    };
    let (joints, a) = forces(pool, links, &factors, tau, Some(&bias), root);
    Some(FloatingSolve {
        root_angular: a.angular,
        root_linear: a.linear,
        joints,
    })
}

/// Whether every body's subtree (the body and its descendants) has mass.
fn every_subtree_has_mass(links: &[Link]) -> bool {
    let mut has_mass: Vec<bool> = links.iter().map(|l| l.inertia.is_some()).collect();
    for (i, link) in links.iter().enumerate().rev() {
        if let (Some(p), true) = (link.parent, has_mass[i]) {
            has_mass[p] = true;
        }
    }
    !has_mass.contains(&false)
}

/// x with I x = `rhs` for the symmetric positive definite articulated inertia I, by LDLᵀ
/// without pivoting (the symmetric form of Gaussian elimination), in the order (linear, angular),
/// each intermediate kept as one operand.
fn solve_spatial(pool: &mut Pool, inertia: &Articulated, rhs: &Spatial) -> Spatial {
    // Index k < 3: linear component k; k ≥ 3: angular component k − 3.
    let entry = |r: usize, c: usize| match (r < 3, c < 3) {
        (true, true) => inertia.c[3 * r + c],
        (false, false) => inertia.a[3 * (r - 3) + c - 3],
        // The force of a linear motion on the moment: B; of an angular one on the force: Bᵀ.
        (false, true) => inertia.b[3 * (r - 3) + c],
        (true, false) => inertia.b[3 * (c - 3) + r],
    };
    let mut l = [[pool.zero(); 6]; 6];
    let mut d = [pool.zero(); 6];
    let mut inverse_d = [pool.zero(); 6];
    for j in 0..6 {
        let mut terms = vec![entry(j, j)];
        for k in 0..j {
            let minus = pool.integer(-1);
            terms.push(pool.mul(&[minus, l[j][k], l[j][k], d[k]]));
        }
        d[j] = pool.shared_sum(&terms);
        inverse_d[j] = pool.recip(d[j]);
        inverse_d[j] = pool.shared(inverse_d[j]);
        for i in j + 1..6 {
            let mut terms = vec![entry(i, j)];
            for k in 0..j {
                let minus = pool.integer(-1);
                terms.push(pool.mul(&[minus, l[i][k], l[j][k], d[k]]));
            }
            let numerator = pool.shared_sum(&terms);
            let value = pool.mul(&[numerator, inverse_d[j]]);
            l[i][j] = pool.shared(value);
        }
    }
    let b: [ExprId; 6] = std::array::from_fn(|k| {
        if k < 3 {
            rhs.linear[k]
        } else {
            rhs.angular[k - 3]
        }
    });
    let mut y = [pool.zero(); 6];
    for i in 0..6 {
        let mut terms = vec![b[i]];
        for k in 0..i {
            let minus = pool.integer(-1);
            terms.push(pool.mul(&[minus, l[i][k], y[k]]));
        }
        y[i] = pool.shared_sum(&terms);
    }
    let mut x = [pool.zero(); 6];
    for i in (0..6).rev() {
        let mut terms = vec![pool.mul(&[y[i], inverse_d[i]])];
        for k in i + 1..6 {
            let minus = pool.integer(-1);
            terms.push(pool.mul(&[minus, l[k][i], x[k]]));
        }
        x[i] = pool.shared_sum(&terms);
    }
    Spatial {
        angular: [x[3], x[4], x[5]],
        linear: [x[0], x[1], x[2]],
    }
}
