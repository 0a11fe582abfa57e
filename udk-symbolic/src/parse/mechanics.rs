//! Rotations and the mechanics helpers of the language: `rot_x`, `rot_y`, `rot_z`, `rot_axis`,
//! `quat_to_rot`, the total time derivative `dot(..)`, `angular_velocity`,
//! `body_angular_velocity` and `kinetic_energy`.
//!
//! Rotations are active and right-handed: `rot_z(θ)` turns the x axis towards the y axis. A
//! product R₁R₂ is frame 2 turned about frame 1's axes, and the columns of R are the turned
//! frame's unit vectors in world coordinates.

use super::value::{add3, cross3, dot3, mat_t_vec, mat_vec, scale3, Matrix, Rates, Value};
use crate::expr::{ExprId, Func, Pool};

/// The rotation by `angle` about coordinate axis `axis` (0 = x, 1 = y, 2 = z), with angular
/// velocity eₐₓᵢₛ θ̇ in both frames.
pub fn axis_rotation(pool: &mut Pool, axis: usize, angle: ExprId) -> Matrix {
    let (c, s) = (
        pool.call(Func::Cos, &[angle]),
        pool.call(Func::Sin, &[angle]),
    );
    let minus_s = pool.neg(s);
    let (zero, one) = (pool.zero(), pool.one());
    let entries = match axis {
        0 => [one, zero, zero, zero, c, minus_s, zero, s, c],
        1 => [c, zero, s, zero, one, zero, minus_s, zero, c],
        _ => [c, minus_s, zero, s, c, zero, zero, zero, one],
    };
    let rate = pool.convective_derivative(angle);
    let mut omega = [zero; 3];
    omega[axis] = rate;
    Matrix {
        entries,
        rates: Some(Rates {
            world: omega,
            body: omega,
        }),
    }
}

/// The matrix of `entries`, known as a constant rotation (angular velocity 0 in both frames,
/// so that products with rotations keep the composition rule) when every entry is a number
/// and the matrix is orthogonal with determinant 1 to 1e-12, as a URDF origin's rotation is;
/// otherwise a plain matrix.
pub fn constant_rotation(pool: &mut Pool, entries: [ExprId; 9]) -> Matrix {
    let numbers: Option<Vec<f64>> = (entries.iter())
        .map(|&id| match pool.get(id) {
            crate::expr::Node::Number(n) => Some(n.to_f64()),
            _ => None,
        })
        .collect();
    let is_rotation = numbers.is_some_and(|r| {
        let at = |i: usize, j: usize| r[3 * i + j];
        let orthogonal = (0..3).all(|i| {
            (0..3).all(|j| {
                let dot: f64 = (0..3).map(|k| at(k, i) * at(k, j)).sum();
                (dot - if i == j { 1.0 } else { 0.0 }).abs() <= 1e-12
            })
        });
        let det = at(0, 0) * (at(1, 1) * at(2, 2) - at(1, 2) * at(2, 1))
            - at(0, 1) * (at(1, 0) * at(2, 2) - at(1, 2) * at(2, 0))
            + at(0, 2) * (at(1, 0) * at(2, 1) - at(1, 1) * at(2, 0));
        orthogonal && det > 0.0
    });
    let zero = pool.zero();
    Matrix {
        entries,
        rates: is_rotation.then_some(Rates {
            world: [zero; 3],
            body: [zero; 3],
        }),
    }
}

/// Rodrigues' rotation by `angle` about the unit vector `axis`:
/// R = cos θ·I + sin θ·[a]× + (1 − cos θ)·a aᵀ. Its angular velocity is a θ̇ when the axis
/// depends on neither the coordinates nor time (`axis_is_fixed`); otherwise it is found from
/// Ṙ Rᵀ when asked for.
pub fn axis_angle_rotation(
    pool: &mut Pool,
    axis: [ExprId; 3],
    angle: ExprId,
    axis_is_fixed: bool,
) -> Matrix {
    let (c, s) = (
        pool.call(Func::Cos, &[angle]),
        pool.call(Func::Sin, &[angle]),
    );
    let one = pool.one();
    let one_minus_c = pool.sub(one, c);
    let mut entries = [ExprId(0); 9];
    for i in 0..3 {
        for j in 0..3 {
            let outer = pool.mul(&[one_minus_c, axis[i], axis[j]]);
            let mut terms = vec![outer];
            if i == j {
                terms.push(c);
            } else {
                // [a]× has −a_z at (0, 1), a_y at (0, 2), a_z at (1, 0), −a_x at (1, 2), ...
                let k = 3 - i - j;
                let sign = if (i + 1) % 3 == j { -1 } else { 1 };
                let coefficient = pool.integer(sign);
                terms.push(pool.mul(&[coefficient, s, axis[k]]));
            }
            entries[3 * i + j] = pool.add(&terms);
        }
    }
    let rates = axis_is_fixed.then(|| {
        let rate = pool.convective_derivative(angle);
        let omega = scale3(pool, rate, axis);
        Rates {
            world: omega,
            body: omega,
        }
    });
    Matrix { entries, rates }
}

/// The rotation matrix of the Euler parameters (e₀, e₁, e₂, e₃), scalar first, with world angular velocity ω = 2(e₀ ė − ė₀ e + e × ė) for the vector part e. Both
/// hold for unit quaternions, so a model keeps |e| = 1 with a holonomic constraint.
pub fn quaternion_rotation(pool: &mut Pool, e: [ExprId; 4]) -> Matrix {
    let sq = e.map(|x| pool.powi(x, 2));
    let two = pool.integer(2);
    let twice = |pool: &mut Pool, a: usize, b: usize, sign: i64, c: usize, d: usize| {
        let ab = pool.mul(&[e[a], e[b]]);
        let cd = pool.mul(&[e[c], e[d]]);
        let cd = if sign < 0 { pool.neg(cd) } else { cd };
        let sum = pool.add(&[ab, cd]);
        pool.mul(&[two, sum])
    };
    let diagonal = |pool: &mut Pool, plus: usize| {
        let terms: Vec<ExprId> = (0..4)
            .map(|k| {
                if k == 0 || k == plus {
                    sq[k]
                } else {
                    pool.neg(sq[k])
                }
            })
            .collect();
        pool.add(&terms)
    };
    let entries = [
        diagonal(pool, 1),
        twice(pool, 1, 2, -1, 0, 3),
        twice(pool, 1, 3, 1, 0, 2),
        twice(pool, 1, 2, 1, 0, 3),
        diagonal(pool, 2),
        twice(pool, 2, 3, -1, 0, 1),
        twice(pool, 1, 3, -1, 0, 2),
        twice(pool, 2, 3, 1, 0, 1),
        diagonal(pool, 3),
    ];
    let rate = e.map(|x| pool.convective_derivative(x));
    let vector = [e[1], e[2], e[3]];
    let vector_rate = [rate[1], rate[2], rate[3]];
    let a = scale3(pool, e[0], vector_rate);
    let minus_rate0 = pool.neg(rate[0]);
    let b = scale3(pool, minus_rate0, vector);
    let c = cross3(pool, vector, vector_rate);
    let minus_c = c.map(|x| pool.neg(x));
    let sum = add3(pool, a, b);
    let world = add3(pool, sum, c);
    let body = add3(pool, sum, minus_c);
    Matrix {
        entries,
        rates: Some(Rates {
            world: scale3(pool, two, world),
            body: scale3(pool, two, body),
        }),
    }
}

/// The total time derivative of a value of (q, t), componentwise: ∂/∂t + Σ q̇ᵢ ∂/∂qᵢ.
pub fn time_derivative(pool: &mut Pool, value: &Value) -> Value {
    value.map(pool, |p, x| p.convective_derivative(x))
}

/// The world-frame angular velocity ω of R, with Ṙ Rᵀ = \[ω\]×: from the composition rule when R
/// is built from rotations, else vee of the skew part of Ṙ Rᵀ.
pub fn angular_velocity(pool: &mut Pool, r: &Matrix) -> [ExprId; 3] {
    if let Some(rates) = r.rates {
        return rates.world;
    }
    let rate = r.entries.map(|x| pool.convective_derivative(x));
    let rate = Matrix::plain(rate);
    // W = Ṙ Rᵀ; ω = ½ (W₃₂ − W₂₃, W₁₃ − W₃₁, W₂₁ − W₁₂).
    let w = |pool: &mut Pool, i: usize, j: usize| {
        dot3(
            pool,
            [rate.get(i, 0), rate.get(i, 1), rate.get(i, 2)],
            [r.get(j, 0), r.get(j, 1), r.get(j, 2)],
        )
    };
    let half = pool.rational(1, 2);
    [(2, 1), (0, 2), (1, 0)].map(|(i, j)| {
        let a = w(pool, i, j);
        let b = w(pool, j, i);
        let d = pool.sub(a, b);
        pool.mul(&[half, d])
    })
}

/// The body-frame angular velocity Ω = Rᵀ ω, with Rᵀ Ṙ = \[Ω\]×: from the composition rule when
/// R is built from rotations.
pub fn body_angular_velocity(pool: &mut Pool, r: &Matrix) -> [ExprId; 3] {
    if let Some(rates) = r.rates {
        return rates.body;
    }
    let omega = angular_velocity(pool, r);
    mat_t_vec(pool, r, omega)
}

/// T = ½ m ṗ·ṗ + ½ Ωᵀ I Ω for a rigid body of mass m, inertia I about its centre of mass in
/// body axes, centre of mass p (world frame) and orientation R.
pub fn kinetic_energy(
    pool: &mut Pool,
    m: ExprId,
    inertia: &Matrix,
    p: [ExprId; 3],
    r: &Matrix,
) -> ExprId {
    let v = p.map(|x| pool.convective_derivative(x));
    let translation = dot3(pool, v, v);
    let omega = body_angular_velocity(pool, r);
    let momentum = mat_vec(pool, inertia, omega);
    let rotation = dot3(pool, omega, momentum);
    let half = pool.rational(1, 2);
    let mass_term = pool.mul(&[m, translation]);
    let sum = pool.add(&[mass_term, rotation]);
    pool.mul(&[half, sum])
}
