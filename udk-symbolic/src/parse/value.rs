//! The values of the expression language: scalars, 3-vectors and 3×3 matrices, each scalarized
//! into DAG nodes (a vector is three nodes, a matrix nine, row-major), and their algebra.
//!
//! A matrix built from rotations (`rot_x`, `rot_y`, `rot_z`, `rot_axis`, `quat_to_rot`, their
//! products and transposes, `eye()`) carries its angular velocity in the world frame, ω, and
//! in the body frame, Ω = Rᵀω, found by the composition rules ω(R₁R₂) = ω₁ + R₁ω₂ and
//! Ω(R₁R₂) = R₂ᵀΩ₁ + Ω₂ rather than from Ṙ Rᵀ, so that the angular velocity of a chain of
//! joints is as short as the chain and Ω has no Rᵀ R left to cancel.

use crate::expr::{ExprId, Pool};

/// A value of the expression language.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value {
    /// A scalar.
    Scalar(ExprId),
    /// A 3-vector (x, y, z).
    Vector([ExprId; 3]),
    /// A 3×3 matrix.
    Matrix(Matrix),
}

/// A 3×3 matrix, row-major, with what is known of it as a rotation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Matrix {
    /// Entries (i, j) at 3i + j.
    pub entries: [ExprId; 9],
    /// When the matrix is built from rotations only: its angular velocities.
    pub rates: Option<Rates>,
}

/// The angular velocity of a rotation R, with Ṙ Rᵀ = \[ω\]× and Rᵀ Ṙ = \[Ω\]×.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rates {
    /// ω, in the world frame.
    pub world: [ExprId; 3],
    /// Ω = Rᵀ ω, in the body frame.
    pub body: [ExprId; 3],
}

impl Matrix {
    /// A matrix of which nothing is known as a rotation.
    pub fn plain(entries: [ExprId; 9]) -> Self {
        Matrix {
            entries,
            rates: None,
        }
    }

    /// Entry (i, j).
    pub fn get(&self, i: usize, j: usize) -> ExprId {
        self.entries[3 * i + j]
    }
}

impl Value {
    /// How messages name the value's type.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Scalar(_) => "a scalar",
            Value::Vector(_) => "a 3-vector",
            Value::Matrix(_) => "a 3×3 matrix",
        }
    }

    /// The scalar DAG nodes of the value (1, 3 or 9 of them).
    pub fn components(&self) -> &[ExprId] {
        match self {
            Value::Scalar(x) => std::slice::from_ref(x),
            Value::Vector(v) => v,
            Value::Matrix(m) => &m.entries,
        }
    }

    /// The value with each component replaced by `f(component)`; what is known of a matrix as
    /// a rotation is dropped.
    pub fn map(&self, pool: &mut Pool, mut f: impl FnMut(&mut Pool, ExprId) -> ExprId) -> Value {
        match *self {
            Value::Scalar(x) => Value::Scalar(f(pool, x)),
            Value::Vector(v) => Value::Vector(v.map(|x| f(pool, x))),
            Value::Matrix(m) => Value::Matrix(Matrix::plain(m.entries.map(|x| f(pool, x)))),
        }
    }
}

/// u + v, componentwise.
pub fn add3(pool: &mut Pool, u: [ExprId; 3], v: [ExprId; 3]) -> [ExprId; 3] {
    [0, 1, 2].map(|i| pool.add(&[u[i], v[i]]))
}

/// s·v.
pub fn scale3(pool: &mut Pool, s: ExprId, v: [ExprId; 3]) -> [ExprId; 3] {
    v.map(|x| pool.mul(&[s, x]))
}

/// u·v.
pub fn dot3(pool: &mut Pool, u: [ExprId; 3], v: [ExprId; 3]) -> ExprId {
    let terms = [0, 1, 2].map(|i| pool.mul(&[u[i], v[i]]));
    pool.add(&terms)
}

/// u × v.
pub fn cross3(pool: &mut Pool, u: [ExprId; 3], v: [ExprId; 3]) -> [ExprId; 3] {
    [(1, 2), (2, 0), (0, 1)].map(|(i, j)| {
        let a = pool.mul(&[u[i], v[j]]);
        let b = pool.mul(&[u[j], v[i]]);
        pool.sub(a, b)
    })
}

/// A v.
pub fn mat_vec(pool: &mut Pool, a: &Matrix, v: [ExprId; 3]) -> [ExprId; 3] {
    [0, 1, 2].map(|i| dot3(pool, [a.get(i, 0), a.get(i, 1), a.get(i, 2)], v))
}

/// Aᵀ v.
pub fn mat_t_vec(pool: &mut Pool, a: &Matrix, v: [ExprId; 3]) -> [ExprId; 3] {
    [0, 1, 2].map(|j| dot3(pool, [a.get(0, j), a.get(1, j), a.get(2, j)], v))
}

/// A B, with ω(AB) = ω(A) + A ω(B) and Ω(AB) = Bᵀ Ω(A) + Ω(B) when both are rotations.
pub fn mat_mul(pool: &mut Pool, a: &Matrix, b: &Matrix) -> Matrix {
    let mut entries = [ExprId(0); 9];
    for i in 0..3 {
        for j in 0..3 {
            entries[3 * i + j] = dot3(
                pool,
                [a.get(i, 0), a.get(i, 1), a.get(i, 2)],
                [b.get(0, j), b.get(1, j), b.get(2, j)],
            );
        }
    }
    let rates = match (a.rates, b.rates) {
        (Some(ra), Some(rb)) => {
            let world = mat_vec(pool, a, rb.world);
            let body = mat_t_vec(pool, b, ra.body);
            Some(Rates {
                world: add3(pool, ra.world, world),
                body: add3(pool, body, rb.body),
            })
        }
        _ => None,
    };
    Matrix { entries, rates }
}

/// Aᵀ, with ω(Rᵀ) = −Ω(R) and Ω(Rᵀ) = −ω(R) when A is a rotation.
pub fn transpose(pool: &mut Pool, a: &Matrix) -> Matrix {
    let entries = [0, 3, 6, 1, 4, 7, 2, 5, 8].map(|k| a.entries[k]);
    let rates = a.rates.map(|r| Rates {
        world: r.body.map(|x| pool.neg(x)),
        body: r.world.map(|x| pool.neg(x)),
    });
    Matrix { entries, rates }
}

/// The sum of two values of one type, `None` when the types differ.
pub fn add_values(pool: &mut Pool, a: &Value, b: &Value) -> Option<Value> {
    Some(match (a, b) {
        (Value::Scalar(x), Value::Scalar(y)) => Value::Scalar(pool.add(&[*x, *y])),
        (Value::Vector(u), Value::Vector(v)) => Value::Vector(add3(pool, *u, *v)),
        (Value::Matrix(p), Value::Matrix(q)) => {
            let mut entries = [ExprId(0); 9];
            for (k, e) in entries.iter_mut().enumerate() {
                *e = pool.add(&[p.entries[k], q.entries[k]]);
            }
            Value::Matrix(Matrix::plain(entries))
        }
        _ => return None,
    })
}

/// The product of two values (scalar·anything, matrix·vector, matrix·matrix), `None` for the
/// products the language does not define (vector·vector, vector·matrix).
pub fn mul_values(pool: &mut Pool, a: &Value, b: &Value) -> Option<Value> {
    Some(match (a, b) {
        (Value::Scalar(x), Value::Scalar(y)) => Value::Scalar(pool.mul(&[*x, *y])),
        (Value::Scalar(s), other) | (other, Value::Scalar(s)) => {
            other.map(pool, |p, x| p.mul(&[*s, x]))
        }
        (Value::Matrix(m), Value::Vector(v)) => Value::Vector(mat_vec(pool, m, *v)),
        (Value::Matrix(p), Value::Matrix(q)) => Value::Matrix(mat_mul(pool, p, q)),
        _ => return None,
    })
}
