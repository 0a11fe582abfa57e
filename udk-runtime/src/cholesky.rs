//! Cholesky factorization of symmetric positive semidefinite matrices with a relative pivot
//! threshold, in place and allocation-free for fixed sizes.
//!
//! A pivot dₖ (the diagonal of the Schur complement) is accepted when dₖ > τ·Sₖₖ, i.e. when
//! row k is not (numerically) a combination of the rows before it. Rejected pivots leave a
//! zero column in L, so the factor solves the independent subsystem and returns a basic
//! solution with zeros in the rejected positions. The ratio dₖ/Sₖₖ is invariant under
//! diagonal scaling, so the test does not depend on units.

use nalgebra::allocator::Allocator;
use nalgebra::{DefaultAllocator, Dim, OMatrix, OVector};

/// Lower factor L with L Lᵀ = S on the accepted rows and columns.
pub(crate) struct SemidefiniteCholesky<D: Dim>
where
    DefaultAllocator: Allocator<D, D>,
{
    /// Lower triangle holds L; rejected pivots have a zero column. The strict upper
    /// triangle still holds the input and is never read.
    l: OMatrix<f64, D, D>,
    rank: usize,
}

impl<D: Dim> SemidefiniteCholesky<D>
where
    DefaultAllocator: Allocator<D, D>,
{
    /// Factors the lower triangle of `s`; `tolerance` is the relative pivot threshold τ.
    pub(crate) fn new(mut s: OMatrix<f64, D, D>, tolerance: f64) -> Self {
        let n = s.nrows();
        let mut rank = 0;
        for k in 0..n {
            let diagonal = s[(k, k)];
            let mut pivot = diagonal;
            for j in 0..k {
                pivot -= s[(k, j)] * s[(k, j)];
            }
            if !(diagonal > 0.0 && pivot > tolerance * diagonal) {
                for i in k..n {
                    s[(i, k)] = 0.0;
                }
                continue;
            }
            let lkk = pivot.sqrt();
            s[(k, k)] = lkk;
            for i in k + 1..n {
                let mut v = s[(i, k)];
                for j in 0..k {
                    v -= s[(i, j)] * s[(k, j)];
                }
                s[(i, k)] = v / lkk;
            }
            rank += 1;
        }
        Self { l: s, rank }
    }

    /// Number of accepted pivots.
    #[cfg(test)]
    pub(crate) fn rank(&self) -> usize {
        self.rank
    }

    /// Whether every pivot was accepted (the matrix is numerically positive definite).
    pub(crate) fn is_full_rank(&self) -> bool {
        self.rank == self.l.nrows()
    }

    /// Overwrites the columns of `b` with L⁻¹ b (rejected rows set to zero).
    pub(crate) fn solve_lower_mut<C: Dim>(&self, b: &mut OMatrix<f64, D, C>)
    where
        DefaultAllocator: Allocator<D, C>,
    {
        let n = self.l.nrows();
        for c in 0..b.ncols() {
            for k in 0..n {
                let lkk = self.l[(k, k)];
                if lkk == 0.0 {
                    b[(k, c)] = 0.0;
                    continue;
                }
                let mut v = b[(k, c)];
                for j in 0..k {
                    v -= self.l[(k, j)] * b[(j, c)];
                }
                b[(k, c)] = v / lkk;
            }
        }
    }

    /// Overwrites the columns of `b` with L⁻ᵀ b (rejected rows set to zero).
    pub(crate) fn solve_upper_mut<C: Dim>(&self, b: &mut OMatrix<f64, D, C>)
    where
        DefaultAllocator: Allocator<D, C>,
    {
        let n = self.l.nrows();
        for c in 0..b.ncols() {
            for k in (0..n).rev() {
                let lkk = self.l[(k, k)];
                if lkk == 0.0 {
                    b[(k, c)] = 0.0;
                    continue;
                }
                let mut v = b[(k, c)];
                for j in k + 1..n {
                    v -= self.l[(j, k)] * b[(j, c)];
                }
                b[(k, c)] = v / lkk;
            }
        }
    }

    /// Returns a basic solution x of S x = b, i.e. (L Lᵀ)⁻¹ b on the accepted subsystem.
    pub(crate) fn solve(&self, b: &OVector<f64, D>) -> OVector<f64, D>
    where
        DefaultAllocator: Allocator<D>,
    {
        let mut x = b.clone();
        self.solve_lower_mut(&mut x);
        self.solve_upper_mut(&mut x);
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Matrix3, Vector3};

    #[test]
    fn factors_positive_definite_matrix() {
        let s = Matrix3::new(4.0, 2.0, 0.6, 2.0, 5.0, 1.0, 0.6, 1.0, 3.0);
        let f = SemidefiniteCholesky::new(s, 1e-12);
        assert!(f.is_full_rank());
        let b = Vector3::new(1.0, -2.0, 0.5);
        let x = f.solve(&b);
        assert!((s * x - b).norm() < 1e-14);
    }

    #[test]
    fn rejects_dependent_rows_and_returns_basic_solution() {
        // Row 3 = row 1 + row 2.
        let s = Matrix3::new(2.0, 1.0, 3.0, 1.0, 2.0, 3.0, 3.0, 3.0, 6.0);
        let f = SemidefiniteCholesky::new(s, 1e-12);
        assert_eq!(f.rank(), 2);
        let b = s * Vector3::new(0.3, -0.7, 0.2);
        let x = f.solve(&b);
        assert_eq!(x[2], 0.0);
        assert!((s * x - b).norm() < 1e-13);
    }

    #[test]
    fn rejects_zero_and_negative_diagonals() {
        let s = Matrix3::new(1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1.0);
        assert_eq!(SemidefiniteCholesky::new(s, 0.0).rank(), 1);
    }
}
