//! The composite-rigid-body algorithm and recursive Newton–Euler over [`Link`]s, with 3-vector
//! spatial quantities (Featherstone 2008, Tables 6.2 and 5.1; Craig 2005, §6.5): angular and
//! linear parts of motions and forces, each in its body's working frame, moments about the
//! frame's origin.

use super::links::{sum3, Inertia, Link};
use crate::derivation::ExprMatrix;
use crate::expr::{ExprId, Pool, Symbol};
use crate::parse::{add3, cross3, dot3, mat_vec, scale3, Matrix};

/// The bias force Q₀ = −(C(q, q̇) q̇ + g(q)), n entries: recursive Newton–Euler with q̈ = 0 and
/// the root accelerating at `base_acceleration` = −gravity (Featherstone 2008, Table 5.1, the
/// gravity trick of §5.3), each entry −(joint force) of its coordinate; 0 for coordinates no
/// body moves. With `accelerations` (q̈, n entries by coordinate), the same recursion gives
/// Q₀ − M q̈, minus the inverse dynamics.
///
/// Outward, for body i with parent λ, axis s, joint rate q̇ and offset r (in λ's frame):
/// ωᵢ = Eᵀω_λ (+ s q̇, revolute), ω̇ᵢ = Eᵀω̇_λ (+ (ωᵢ × s) q̇, revolute),
/// aᵢ = Eᵀ(a_λ + ω̇_λ × r + ω_λ × (ω_λ × r)) (+ 2 (ωᵢ × s) q̇, prismatic), for the origin's
/// acceleration aᵢ. Each body then needs fᵢ = m aᵢ + ω̇ᵢ × h + ωᵢ × (ωᵢ × h) and
/// nᵢ = J ω̇ᵢ + ωᵢ × J ωᵢ + h × aᵢ. Inward: Fᵢ = fᵢ + Σ E F_child,
/// Nᵢ = nᵢ + Σ (E N_child + r_child × E F_child), and the joint force is s·Nᵢ (revolute) or
/// s·Fᵢ (prismatic).
pub(super) fn bias(
    pool: &mut Pool,
    links: &[Link],
    n: usize,
    base_acceleration: [ExprId; 3],
    accelerations: Option<&[ExprId]>,
) -> Vec<ExprId> {
    let zero = pool.zero();
    let root = RootMotion {
        omega: [zero; 3],
        omega_dot: [zero; 3],
        acceleration: base_acceleration,
    };
    newton_euler(pool, links, n, &root, accelerations, false).0
}

/// How the root frame moves, in its own axes: angular velocity ω₀ (rad/s), angular
/// acceleration ω̇₀ (rad/s²) and its origin's acceleration a₀ (m/s², minus gravity).
pub(super) struct RootMotion {
    pub omega: [ExprId; 3],
    pub omega_dot: [ExprId; 3],
    pub acceleration: [ExprId; 3],
}

/// The force (N) and moment about the root's origin (N·m), in the root frame, that the
/// bodies jointed to the root pass to it.
pub(super) struct Wrench {
    pub force: [ExprId; 3],
    pub moment: [ExprId; 3],
}

/// [`bias`] with the root moving by `root`; with `carry_to_root`, also the wrench the root's
/// children pass to it (Featherstone 2008, Table 5.1 with a floating base, ch. 9).
pub(super) fn newton_euler(
    pool: &mut Pool,
    links: &[Link],
    n: usize,
    root: &RootMotion,
    accelerations: Option<&[ExprId]>,
    carry_to_root: bool,
) -> (Vec<ExprId>, Option<Wrench>) {
    let zero = pool.zero();
    let mut omega: Vec<[ExprId; 3]> = Vec::with_capacity(links.len());
    let mut omega_dot: Vec<[ExprId; 3]> = Vec::with_capacity(links.len());
    let mut acceleration: Vec<[ExprId; 3]> = Vec::with_capacity(links.len());
    for link in links {
        let (w, wd, a) = match link.parent {
            Some(p) => (omega[p], omega_dot[p], acceleration[p]),
            None => (root.omega, root.omega_dot, root.acceleration),
        };
        let r = link.offset;
        let tangential = cross3(pool, wd, r);
        let spin = cross3(pool, w, r);
        let centripetal = cross3(pool, w, spin);
        let a = sum3(pool, &[a, tangential, centripetal]);
        let (w, wd, a) = (
            link.rotation.to_child(pool, w),
            link.rotation.to_child(pool, wd),
            link.rotation.to_child(pool, a),
        );
        let rate = pool.symbol(Symbol::Velocity(link.coordinate));
        let joint_rate = scale3(pool, rate, link.axis);
        let joint_acceleration = match accelerations {
            Some(qdd) => scale3(pool, qdd[link.coordinate], link.axis),
            None => [pool.zero(); 3],
        };
        if link.revolute {
            let w = sum3(pool, &[w, joint_rate]);
            let turning = cross3(pool, w, joint_rate);
            omega.push(w);
            omega_dot.push(sum3(pool, &[wd, turning, joint_acceleration]));
            acceleration.push(a);
        } else {
            let two = pool.integer(2);
            let coriolis = cross3(pool, w, joint_rate);
            let coriolis = scale3(pool, two, coriolis);
            omega.push(w);
            omega_dot.push(wd);
            acceleration.push(sum3(pool, &[a, coriolis, joint_acceleration]));
        }
    }
    // The forces each body needs, then their sums over the subtrees, leaves first.
    let mut forces: Vec<Vec<[ExprId; 3]>> = vec![Vec::new(); links.len()];
    let mut moments: Vec<Vec<[ExprId; 3]>> = vec![Vec::new(); links.len()];
    for (i, link) in links.iter().enumerate() {
        let Some(inertia) = link.inertia else {
            continue;
        };
        let needed = body_wrench(pool, &inertia, omega[i], omega_dot[i], acceleration[i]);
        forces[i].push(needed.force);
        moments[i].push(needed.moment);
    }
    let mut bias = vec![zero; n];
    let (mut root_forces, mut root_moments) = (Vec::new(), Vec::new());
    for (i, link) in links.iter().enumerate().rev() {
        let force = sum3(pool, &forces[i]);
        let moment = sum3(pool, &moments[i]);
        let joint_force = if link.revolute {
            dot3(pool, link.axis, moment)
        } else {
            dot3(pool, link.axis, force)
        };
        bias[link.coordinate] = pool.neg(joint_force);
        let (forces_to, moments_to) = match link.parent {
            Some(p) => (&mut forces[p], &mut moments[p]),
            None if carry_to_root => (&mut root_forces, &mut root_moments),
            None => continue,
        };
        let force = link.rotation.to_parent(pool, force);
        let moment = link.rotation.to_parent(pool, moment);
        let lever = cross3(pool, link.offset, force);
        forces_to.push(force);
        moments_to.push(moment);
        moments_to.push(lever);
    }
    let wrench = carry_to_root.then(|| Wrench {
        force: sum3(pool, &root_forces),
        moment: sum3(pool, &root_moments),
    });
    (bias, wrench)
}

/// The wrench a body of `inertia` (about its origin, in its frame) needs to move with angular
/// velocity `w`, angular acceleration `wd` and origin acceleration `a`:
/// f = m a + ω̇ × h + ω × (ω × h), n = J ω̇ + ω × J ω + h × a (Newton–Euler about the origin).
pub(super) fn body_wrench(
    pool: &mut Pool,
    inertia: &Inertia,
    w: [ExprId; 3],
    wd: [ExprId; 3],
    a: [ExprId; 3],
) -> Wrench {
    let h = inertia.first_moment;
    let linear = scale3(pool, inertia.mass, a);
    let tangential = cross3(pool, wd, h);
    let spin = cross3(pool, w, h);
    let centripetal = cross3(pool, w, spin);
    let force = sum3(pool, &[linear, tangential, centripetal]);
    let j = Matrix::plain(inertia.rotational);
    let angular = mat_vec(pool, &j, wd);
    let momentum = mat_vec(pool, &j, w);
    let gyroscopic = cross3(pool, w, momentum);
    let offset = cross3(pool, h, a);
    Wrench {
        force,
        moment: sum3(pool, &[angular, gyroscopic, offset]),
    }
}

/// The joint-space inertia matrix M, n × n, by the composite-rigid-body algorithm
/// (Featherstone 2008, Table 6.2): the composite inertia of each subtree, summed leaves first
/// with the shift of an inertia to the parent's origin,
/// h' = E h + m r, J' = E J Eᵀ + 2(r·E h) 1 − (E h) rᵀ − r (E h)ᵀ + m(|r|² 1 − r rᵀ)
/// (the parallel-axis theorem for a displaced first moment); then for each body the force
/// Fᵢ = Iᶜᵢ Sᵢ carried inward, Mᵢⱼ = Sⱼᵀ F at each ancestor j. Entries of coordinates no body
/// moves are 0; M is exactly symmetric.
pub(super) fn mass_matrix(pool: &mut Pool, links: &[Link], n: usize) -> ExprMatrix {
    composite_rigid_body(pool, links, n, false).0
}

/// What the bodies jointed to a moving root give its rows of M: the composite inertias of
/// their subtrees about the root's origin, in the root frame, and for each coordinate the
/// force Xᵀ Iᶜ S carried to the root (the root's rows of that coordinate's column).
pub(super) struct RootCoupling {
    /// The subtrees' composite inertias, one per body jointed to the root that has mass.
    pub composites: Vec<Inertia>,
    /// (coordinate, force at the root's origin) for each coordinate a massive subtree moves.
    pub columns: Vec<(usize, Wrench)>,
}

/// [`mass_matrix`], and with `carry_to_root` the [`RootCoupling`] of a moving root
/// (Featherstone 2008, Table 6.2 with a floating base, ch. 9).
pub(super) fn composite_rigid_body(
    pool: &mut Pool,
    links: &[Link],
    n: usize,
    carry_to_root: bool,
) -> (ExprMatrix, Option<RootCoupling>) {
    let zero = pool.zero();
    let mut parts: Vec<Vec<Inertia>> = (links.iter())
        .map(|link| link.inertia.into_iter().collect())
        .collect();
    let mut composite: Vec<Option<Inertia>> = vec![None; links.len()];
    let mut root = RootCoupling {
        composites: Vec::new(),
        columns: Vec::new(),
    };
    for (i, link) in links.iter().enumerate().rev() {
        let Some(total) = sum_inertias(pool, &parts[i]) else {
            continue;
        };
        composite[i] = Some(total);
        match link.parent {
            Some(p) => {
                let shifted = shift(pool, link, &total);
                parts[p].push(shifted);
            }
            None if carry_to_root => {
                let shifted = shift(pool, link, &total);
                root.composites.push(shifted);
            }
            None => {}
        }
    }
    let mut entries = vec![zero; n * n];
    for (i, link) in links.iter().enumerate() {
        let Some(inertia) = composite[i] else {
            continue;
        };
        let s = link.axis;
        let (mut moment, mut force) = if link.revolute {
            let j = Matrix::plain(inertia.rotational);
            (mat_vec(pool, &j, s), cross3(pool, s, inertia.first_moment))
        } else {
            (
                cross3(pool, inertia.first_moment, s),
                scale3(pool, inertia.mass, s),
            )
        };
        let row = link.coordinate;
        let mut body = i;
        loop {
            let current = &links[body];
            let projected = if current.revolute { moment } else { force };
            let entry = dot3(pool, current.axis, projected);
            entries[row * n + current.coordinate] = entry;
            entries[current.coordinate * n + row] = entry;
            if current.parent.is_none() && !carry_to_root {
                break;
            }
            // Shared like the moment: a component the joint rotation leaves alone would
            // otherwise be distributed into the next sum, one more term per ancestor.
            force = current
                .rotation
                .to_parent(pool, force)
                .map(|f| pool.shared(f));
            let turned = current.rotation.to_parent(pool, moment);
            let lever = cross3(pool, current.offset, force);
            moment = sum3(pool, &[turned, lever]);
            match current.parent {
                Some(p) => body = p,
                None => {
                    root.columns.push((row, Wrench { force, moment }));
                    break;
                }
            }
        }
    }
    let matrix = ExprMatrix {
        rows: n,
        cols: n,
        entries,
    };
    (matrix, carry_to_root.then_some(root))
}

/// The sum of `parts`, `None` when there is none.
pub(super) fn sum_inertias(pool: &mut Pool, parts: &[Inertia]) -> Option<Inertia> {
    match parts {
        [] => None,
        [one] => Some(*one),
        _ => {
            let masses: Vec<ExprId> = parts.iter().map(|p| p.mass).collect();
            let moments: Vec<[ExprId; 3]> = parts.iter().map(|p| p.first_moment).collect();
            let rotational = std::array::from_fn(|k| {
                let terms: Vec<ExprId> = parts.iter().map(|p| p.rotational[k]).collect();
                pool.shared_sum(&terms)
            });
            Some(Inertia {
                mass: pool.shared_sum(&masses),
                first_moment: sum3(pool, &moments),
                rotational,
            })
        }
    }
}

/// The inertia `inertia` of `link`'s subtree (about its origin, in its frame) about the
/// parent's origin, in the parent's frame.
fn shift(pool: &mut Pool, link: &Link, inertia: &Inertia) -> Inertia {
    let m = inertia.mass;
    let r = link.offset;
    let h = link.rotation.to_parent(pool, inertia.first_moment);
    let turned = link.rotation.congruence(pool, &inertia.rotational);
    let r_dot_h = dot3(pool, r, h);
    let r_squared = dot3(pool, r, r);
    let two = pool.integer(2);
    let minus_one = pool.integer(-1);
    let rotational = std::array::from_fn(|k| {
        let (i, j) = (k / 3, k % 3);
        let (i, j) = (i.min(j), i.max(j));
        let mut terms = vec![
            turned[3 * i + j],
            pool.mul(&[minus_one, h[i], r[j]]),
            pool.mul(&[minus_one, r[i], h[j]]),
            pool.mul(&[minus_one, m, r[i], r[j]]),
        ];
        if i == j {
            terms.push(pool.mul(&[two, r_dot_h]));
            terms.push(pool.mul(&[m, r_squared]));
        }
        pool.add(&terms)
    });
    let moved = scale3(pool, m, r);
    Inertia {
        mass: m,
        first_moment: add3(pool, h, moved),
        rotational,
    }
}
