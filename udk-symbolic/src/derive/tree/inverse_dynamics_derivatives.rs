//! The partial derivatives ∂τ/∂q and ∂τ/∂q̇ of a tree's inverse dynamics
//! τ(q, q̇, v) = M(q) v − Q₀(q, q̇) (v the accelerations) by the analytic derivatives of
//! recursive Newton–Euler in the world frame (Carpentier & Mansard 2018, "Analytical
//! Derivatives of Rigid Body Dynamics Algorithms", RSS, §IV and Algorithm 1), as DAG nodes.
//!
//! Every spatial quantity is in world axes about the world origin (Featherstone 2008, §2.3
//! Plücker coordinates): a motion m = (ω, v) with v the velocity of the body point at the
//! origin, a force f = (n, f) with n the moment about the origin. Then the subtree force Fᵢ
//! is a plain sum of the bodies' forces and τᵢ = Sᵢᵀ Fᵢ. Moving qⱼ turns (or slides) the
//! subtree of j rigidly about Sⱼ, with the motion of j's parent λ fixed; with
//! Ψ̇ⱼ = v_λ × Sⱼ and Ψ̈ⱼ = a_λ × Sⱼ + v_λ × Ψ̇ⱼ:
//! - for i a strict ancestor of j, ∂τᵢ/∂qⱼ = Sᵢᵀ Dⱼ and ∂τᵢ/∂q̇ⱼ = Sᵢᵀ Eⱼ with
//!   Dⱼ = ∂Fⱼ/∂qⱼ = Sⱼ ×* Fⱼ + Iᶜⱼ Ψ̈ⱼ + İᶜⱼ Ψ̇ⱼ + Ψ̇ⱼ ×* Hᶜⱼ and
//!   Eⱼ = ∂Fⱼ/∂q̇ⱼ = İᶜⱼ Sⱼ + Sⱼ ×* Hᶜⱼ + 2 Iᶜⱼ Ψ̇ⱼ;
//! - for i in the subtree of j (i = j included), the rigid turn of Sᵢ and Fᵢ cancels in
//!   Sᵢᵀ Fᵢ, leaving ∂τᵢ/∂qⱼ = Pᵢᵀ Ψ̈ⱼ + Qᵢᵀ Ψ̇ⱼ and ∂τᵢ/∂q̇ⱼ = Qᵢᵀ Sⱼ + Pᵢᵀ (2 Ψ̇ⱼ), with
//!   the per-body vectors Pᵢ = Iᶜᵢ Sᵢ and Qᵢ = İᶜᵢ Sᵢ − Sᵢ ×* Hᶜᵢ;
//!
//! where Iᶜ, İᶜ = Σ (v ×* I − I v×) and Hᶜ = Σ I v are the subtree's composite inertia, its
//! time derivative and its momentum (plain sums in these coordinates). A pair (i, j) costs
//! one or two 6-vector products where forward-mode differentiation of body-frame Newton–Euler
//! carries ∂/∂qⱼ through a rotation and a lever arm at every ancestor.

use super::constants;
use super::links::{about_origin, congruence, poses, sum3, Inertia};
use super::TreeConstants;
use crate::derivation::ExprMatrix;
use crate::expr::{ExprId, Pool, Symbol};
use crate::parse::{add3, cross3, dot3, mat_vec, scale3};

/// A spatial motion in world axes: angular part ω and the linear velocity (or acceleration)
/// of the body point at the world origin.
#[derive(Clone, Copy)]
struct Motion {
    angular: [ExprId; 3],
    linear: [ExprId; 3],
}

/// A spatial force in world axes: its moment about the world origin and its resultant.
#[derive(Clone, Copy)]
struct Force {
    moment: [ExprId; 3],
    force: [ExprId; 3],
}

/// Every component of `v` kept as one operand ([`Pool::shared`]).
fn share(pool: &mut Pool, v: [ExprId; 3]) -> [ExprId; 3] {
    v.map(|x| pool.shared(x))
}

impl Motion {
    fn zero(pool: &mut Pool) -> Self {
        let zero = pool.zero();
        Motion {
            angular: [zero; 3],
            linear: [zero; 3],
        }
    }

    fn shared(self, pool: &mut Pool) -> Self {
        Motion {
            angular: share(pool, self.angular),
            linear: share(pool, self.linear),
        }
    }

    fn sum(pool: &mut Pool, terms: &[Motion]) -> Self {
        let angular: Vec<[ExprId; 3]> = terms.iter().map(|m| m.angular).collect();
        let linear: Vec<[ExprId; 3]> = terms.iter().map(|m| m.linear).collect();
        Motion {
            angular: sum3(pool, &angular),
            linear: sum3(pool, &linear),
        }
    }

    fn scale(self, pool: &mut Pool, s: ExprId) -> Self {
        Motion {
            angular: scale3(pool, s, self.angular),
            linear: scale3(pool, s, self.linear),
        }
    }

    /// The motion cross product self × m = (ω × ω_m, ω × v_m + v × ω_m).
    fn cross(self, pool: &mut Pool, m: Motion) -> Motion {
        let angular = cross3(pool, self.angular, m.angular);
        let a = cross3(pool, self.angular, m.linear);
        let b = cross3(pool, self.linear, m.angular);
        Motion {
            angular,
            linear: add3(pool, a, b),
        }
    }

    /// The force cross product self ×* f = (ω × n + v × f, ω × f).
    fn cross_force(self, pool: &mut Pool, f: Force) -> Force {
        let a = cross3(pool, self.angular, f.moment);
        let b = cross3(pool, self.linear, f.force);
        Force {
            moment: add3(pool, a, b),
            force: cross3(pool, self.angular, f.force),
        }
    }

    /// The power selfᵀ f = ω · n + v · f.
    fn power(self, pool: &mut Pool, f: Force) -> ExprId {
        let a = dot3(pool, self.angular, f.moment);
        let b = dot3(pool, self.linear, f.force);
        pool.add(&[a, b])
    }
}

impl Force {
    fn shared(self, pool: &mut Pool) -> Self {
        Force {
            moment: share(pool, self.moment),
            force: share(pool, self.force),
        }
    }

    fn sum(pool: &mut Pool, terms: &[Force]) -> Self {
        let moments: Vec<[ExprId; 3]> = terms.iter().map(|f| f.moment).collect();
        let forces: Vec<[ExprId; 3]> = terms.iter().map(|f| f.force).collect();
        Force {
            moment: sum3(pool, &moments),
            force: sum3(pool, &forces),
        }
    }
}

/// I m for a spatial inertia (mass m, first moment h, rotational J, all about the world
/// origin): (J ω + h × v, m v + ω × h) (Featherstone 2008, eq 2.63).
fn apply(pool: &mut Pool, inertia: &Inertia, m: Motion) -> Force {
    let j = crate::parse::Matrix::plain(inertia.rotational);
    let turning = mat_vec(pool, &j, m.angular);
    let offset = cross3(pool, inertia.first_moment, m.linear);
    let linear = scale3(pool, inertia.mass, m.linear);
    let swing = cross3(pool, m.angular, inertia.first_moment);
    Force {
        moment: add3(pool, turning, offset),
        force: add3(pool, linear, swing),
    }
}

/// The sum of `parts` with every entry shared, the zero inertia when there is none.
fn composite(pool: &mut Pool, parts: &[Inertia]) -> Inertia {
    let masses: Vec<ExprId> = parts.iter().map(|p| p.mass).collect();
    let moments: Vec<[ExprId; 3]> = parts.iter().map(|p| p.first_moment).collect();
    Inertia {
        mass: pool.shared_sum(&masses),
        first_moment: sum3(pool, &moments),
        rotational: std::array::from_fn(|k| {
            let terms: Vec<ExprId> = parts.iter().map(|p| p.rotational[k]).collect();
            pool.shared_sum(&terms)
        }),
    }
}

/// İ = v ×* I − I v× of a body with inertia `inertia` (about the world origin) moving with
/// `velocity` (ω, v): the inertia with mass 0, first moment ḣ = m v + ω × h and rotational
/// J̇ = [ω]× J − J [ω]× + 2 (h·v) 1 − v hᵀ − h vᵀ.
fn inertia_rate(pool: &mut Pool, inertia: &Inertia, velocity: Motion) -> Inertia {
    let (w, v, h) = (velocity.angular, velocity.linear, inertia.first_moment);
    let linear = scale3(pool, inertia.mass, v);
    let swing = cross3(pool, w, h);
    let j = &inertia.rotational;
    // Column c of [ω]× J.
    let columns = [0, 1, 2].map(|c| cross3(pool, w, [j[c], j[3 + c], j[6 + c]]));
    let h_dot_v = dot3(pool, h, v);
    let two = pool.integer(2);
    let rotational = std::array::from_fn(|k| {
        let (a, b) = (k / 3, k % 3);
        let (a, b) = (a.min(b), a.max(b));
        let mut terms = vec![
            columns[b][a],
            columns[a][b],
            pool.mul(&[v[a], h[b]]),
            pool.mul(&[h[a], v[b]]),
        ];
        terms[2] = pool.neg(terms[2]);
        terms[3] = pool.neg(terms[3]);
        if a == b {
            terms.push(pool.mul(&[two, h_dot_v]));
        }
        pool.add(&terms)
    });
    Inertia {
        mass: pool.zero(),
        first_moment: add3(pool, linear, swing),
        rotational,
    }
}

/// (∂τ/∂q, ∂τ/∂q̇), each n × n (row = τ's coordinate, column = the variable's), of the
/// inverse dynamics of the tree of `constants` at the accelerations `accelerations` (n
/// entries by coordinate): the derivatives of
/// [`constant_inverse_dynamics`](super::constant_inverse_dynamics), equal in value. Entries
/// of coordinates no body moves are 0. See the module docs for the algorithm.
pub(crate) fn constant_inverse_dynamics_derivatives(
    pool: &mut Pool,
    constants: &TreeConstants,
    n: usize,
    accelerations: &[ExprId],
) -> (ExprMatrix, ExprMatrix) {
    let bodies = &constants.bodies;
    let poses = poses(pool, bodies);
    let zero = pool.zero();
    let two = pool.integer(2);
    let gravity = constants.gravity.map(|g| pool.neg(g));
    let base_acceleration = Motion {
        angular: [zero; 3],
        linear: gravity,
    };
    let at_rest = Motion::zero(pool);
    // Outward: axes, velocities, accelerations, Ψ̇, Ψ̈, and each body's inertia, its rate,
    // momentum and force.
    let count = bodies.len();
    let mut axes: Vec<Motion> = Vec::with_capacity(count);
    let mut velocities: Vec<Motion> = Vec::with_capacity(count);
    let mut body_accelerations: Vec<Motion> = Vec::with_capacity(count);
    let mut psi_dot: Vec<Motion> = Vec::with_capacity(count);
    let mut psi_ddot: Vec<Motion> = Vec::with_capacity(count);
    let mut inertias: Vec<Vec<Inertia>> = vec![Vec::new(); count];
    let mut rates: Vec<Vec<Inertia>> = vec![Vec::new(); count];
    let mut momenta: Vec<Vec<Force>> = vec![Vec::new(); count];
    let mut forces: Vec<Vec<Force>> = vec![Vec::new(); count];
    for (k, (body, pose)) in bodies.iter().zip(&poses).enumerate() {
        let (parent_velocity, parent_acceleration) = match body.parent {
            Some(p) => (velocities[p], body_accelerations[p]),
            None => (at_rest, base_acceleration),
        };
        let direction = [0, 1, 2].map(|r| pose.rotation.get(r, 2));
        let axis = if body.revolute {
            let moment = cross3(pool, pose.origin, direction);
            Motion {
                angular: direction,
                linear: share(pool, moment),
            }
        } else {
            Motion {
                angular: [zero; 3],
                linear: direction,
            }
        };
        let rate = pool.symbol(Symbol::Velocity(body.coordinate));
        let turning = parent_velocity.cross(pool, axis).shared(pool);
        let carried = parent_acceleration.cross(pool, axis);
        let coupling = parent_velocity.cross(pool, turning);
        let turning_rate = Motion::sum(pool, &[carried, coupling]);
        let joint_velocity = axis.scale(pool, rate);
        let velocity = Motion::sum(pool, &[parent_velocity, joint_velocity]);
        let joint_acceleration = axis.scale(pool, accelerations[body.coordinate]);
        let coriolis = turning.scale(pool, rate);
        let acceleration = Motion::sum(pool, &[parent_acceleration, joint_acceleration, coriolis]);
        if let Some(inertia) = &body.inertia {
            let r = &pose.rotation;
            let arm = mat_vec(pool, r, inertia.com);
            let centre = add3(pool, pose.origin, arm);
            let turned = congruence(pool, &inertia.about_com, |p, v| mat_vec(p, r, v));
            // About the world origin: (m, m c, I_c + m(|c|² 1 − c cᵀ)).
            let in_world = constants::Inertia {
                mass: inertia.mass,
                com: centre,
                about_com: turned,
            };
            let own = about_origin(pool, &in_world);
            let own = Inertia {
                mass: own.mass,
                first_moment: share(pool, own.first_moment),
                rotational: own.rotational.map(|x| pool.shared(x)),
            };
            let momentum = apply(pool, &own, velocity).shared(pool);
            let needed = apply(pool, &own, acceleration);
            let gyroscopic = velocity.cross_force(pool, momentum);
            rates[k].push(inertia_rate(pool, &own, velocity));
            inertias[k].push(own);
            momenta[k].push(momentum);
            forces[k].push(Force::sum(pool, &[needed, gyroscopic]));
        }
        axes.push(axis);
        velocities.push(velocity);
        body_accelerations.push(acceleration);
        psi_dot.push(turning);
        psi_ddot.push(turning_rate);
    }
    // Inward: the subtrees' sums, then for each body the vectors P, Q and the columns D, E.
    let mut per_body: Vec<[Force; 4]> = Vec::with_capacity(count);
    for k in (0..count).rev() {
        let inertia = composite(pool, &inertias[k]);
        let inertia_dot = composite(pool, &rates[k]);
        let momentum = Force::sum(pool, &momenta[k]);
        let force = Force::sum(pool, &forces[k]);
        if let Some(p) = bodies[k].parent {
            inertias[p].push(inertia);
            rates[p].push(inertia_dot);
            momenta[p].push(momentum);
            forces[p].push(force);
        }
        let (s, turning, turning_rate) = (axes[k], psi_dot[k], psi_ddot[k]);
        let projected = apply(pool, &inertia, s).shared(pool);
        let spun = apply(pool, &inertia_dot, s);
        let carried = s.cross_force(pool, momentum);
        let against = Force {
            moment: carried.moment.map(|x| pool.neg(x)),
            force: carried.force.map(|x| pool.neg(x)),
        };
        let q_vector = Force::sum(pool, &[spun, against]).shared(pool);
        let turned = s.cross_force(pool, force);
        let accelerated = apply(pool, &inertia, turning_rate);
        let rated = apply(pool, &inertia_dot, turning);
        let swept = turning.cross_force(pool, momentum);
        let d_column = Force::sum(pool, &[turned, accelerated, rated, swept]).shared(pool);
        let doubled = turning.scale(pool, two);
        let pushed = apply(pool, &inertia, doubled);
        let e_column = Force::sum(pool, &[spun, carried, pushed]).shared(pool);
        per_body.push([projected, q_vector, d_column, e_column]);
    }
    per_body.reverse();
    let mut by_q = vec![zero; n * n];
    let mut by_qd = vec![zero; n * n];
    for (i, body) in bodies.iter().enumerate() {
        let [p_i, q_i, d_i, e_i] = per_body[i];
        let row = body.coordinate;
        let mut j = Some(i);
        while let Some(ancestor) = j {
            let column = bodies[ancestor].coordinate;
            // i in the subtree of `ancestor`.
            let a = psi_ddot[ancestor].power(pool, p_i);
            let b = psi_dot[ancestor].power(pool, q_i);
            by_q[row * n + column] = pool.add(&[a, b]);
            let doubled = psi_dot[ancestor].scale(pool, two);
            let a = axes[ancestor].power(pool, q_i);
            let b = doubled.power(pool, p_i);
            by_qd[row * n + column] = pool.add(&[a, b]);
            if ancestor != i {
                // `ancestor` a strict ancestor of i.
                by_q[column * n + row] = axes[ancestor].power(pool, d_i);
                by_qd[column * n + row] = axes[ancestor].power(pool, e_i);
            }
            j = bodies[ancestor].parent;
        }
    }
    let matrix = |entries| ExprMatrix {
        rows: n,
        cols: n,
        entries,
    };
    (matrix(by_q), matrix(by_qd))
}
