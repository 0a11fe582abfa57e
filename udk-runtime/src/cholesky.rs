//! Cholesky factorization S = L Lᵀ of symmetric positive definite matrices with a relative
//! pivot threshold, allocation-free for fixed sizes.
//!
//! A pivot dₖ (the diagonal of the Schur complement) is accepted when dₖ > τ·Sₖₖ, i.e. when
//! row k is not (numerically) a combination of the rows before it: dₖ/Sₖₖ = sin²θₖ, θₖ being
//! the angle between row k and the span of the previous rows in the metric of S. The ratio
//! is invariant under diagonal scaling, so the test does not depend on units.

use nalgebra::allocator::Allocator;
use nalgebra::{DefaultAllocator, Dim, OMatrix, OVector};

/// Lower factor L with L Lᵀ = S.
pub(crate) struct Cholesky<D: Dim>
where
    DefaultAllocator: Allocator<D, D> + Allocator<D>,
{
    /// Lower triangle holds L; the strict upper triangle still holds the input and is
    /// never read.
    l: OMatrix<f64, D, D>,
    /// 1/Lₖₖ, so that the triangular solves multiply instead of divide.
    inverse_diagonal: OVector<f64, D>,
}

impl<D: Dim> Cholesky<D>
where
    DefaultAllocator: Allocator<D, D> + Allocator<D>,
{
    /// Factors the lower triangle of `s`; `None` if some pivot ratio dₖ/Sₖₖ is ≤ `tolerance`
    /// (S singular, indefinite, or nearly so).
    #[inline]
    pub(crate) fn new(mut s: OMatrix<f64, D, D>, tolerance: f64) -> Option<Self> {
        let n = s.nrows();
        let mut inverse_diagonal = OVector::zeros_generic(s.shape_generic().0, nalgebra::U1);
        // Column-major: entry (i, j) at i + j·n.
        let x = s.as_mut_slice();
        for k in 0..n {
            let diagonal = x[k + k * n];
            let mut pivot = diagonal;
            for j in 0..k {
                pivot -= x[k + j * n] * x[k + j * n];
            }
            if !(diagonal > 0.0 && pivot > tolerance * diagonal) {
                return None;
            }
            // √d and 1/d are independent, so their latencies overlap: 1/√d = √d · (1/d).
            let reciprocal = 1.0 / pivot;
            let lkk = pivot.sqrt();
            let inverse = lkk * reciprocal;
            x[k + k * n] = lkk;
            inverse_diagonal[k] = inverse;
            for i in k + 1..n {
                let mut v = x[i + k * n];
                for j in 0..k {
                    v -= x[i + j * n] * x[k + j * n];
                }
                x[i + k * n] = v * inverse;
            }
        }
        Some(Self {
            l: s,
            inverse_diagonal,
        })
    }

    /// Overwrites `b` (length n) with L⁻¹ b.
    #[inline]
    fn forward(&self, b: &mut [f64]) {
        let n = self.l.nrows();
        let l = self.l.as_slice();
        for k in 0..n {
            let mut v = b[k];
            for j in 0..k {
                v -= l[k + j * n] * b[j];
            }
            b[k] = v * self.inverse_diagonal[k];
        }
    }

    /// Overwrites the columns of `b` with L⁻¹ b.
    #[inline]
    pub(crate) fn solve_lower_mut<C: Dim>(&self, b: &mut OMatrix<f64, D, C>)
    where
        DefaultAllocator: Allocator<D, C>,
    {
        let n = self.l.nrows();
        if n == 0 {
            return;
        }
        for column in b.as_mut_slice().chunks_exact_mut(n) {
            self.forward(column);
        }
    }

    /// Overwrites `b` with L⁻ᵀ b.
    #[inline]
    pub(crate) fn solve_upper_mut(&self, b: &mut OVector<f64, D>) {
        let n = self.l.nrows();
        let l = self.l.as_slice();
        let b = b.as_mut_slice();
        for k in (0..n).rev() {
            let column = &l[k * n..(k + 1) * n];
            let mut v = b[k];
            for j in k + 1..n {
                v -= column[j] * b[j];
            }
            b[k] = v * self.inverse_diagonal[k];
        }
    }

    /// Returns S⁻¹ b = L⁻ᵀ L⁻¹ b.
    #[inline]
    pub(crate) fn solve(&self, b: &OVector<f64, D>) -> OVector<f64, D> {
        let mut x = b.clone();
        self.forward(x.as_mut_slice());
        self.solve_upper_mut(&mut x);
        x
    }

    /// Returns L y.
    #[inline]
    pub(crate) fn mul_lower(&self, y: &OVector<f64, D>) -> OVector<f64, D> {
        let n = self.l.nrows();
        let l = self.l.as_slice();
        let mut x = y.clone();
        for i in 0..n {
            x[i] = (0..=i).map(|j| l[i + j * n] * y[j]).sum();
        }
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Matrix3, Vector3};

    #[test]
    fn factors_and_solves_positive_definite_matrix() {
        let s = Matrix3::new(4.0, 2.0, 0.6, 2.0, 5.0, 1.0, 0.6, 1.0, 3.0);
        let f = Cholesky::new(s, 1e-12).unwrap();
        let b = Vector3::new(1.0, -2.0, 0.5);
        assert!((s * f.solve(&b) - b).norm() < 1e-14);
        // L (Lᵀ x) = S x.
        let mut y = b;
        let l = s.cholesky().unwrap().l();
        y = l.transpose() * y;
        assert!((f.mul_lower(&y) - s * b).norm() < 1e-13);
    }

    #[test]
    fn rejects_dependent_rows_zero_and_negative_diagonals() {
        // Row 3 = row 1 + row 2.
        let dependent = Matrix3::new(2.0, 1.0, 3.0, 1.0, 2.0, 3.0, 3.0, 3.0, 6.0);
        assert!(Cholesky::new(dependent, 1e-12).is_none());
        let zero = Matrix3::from_diagonal(&Vector3::new(1.0, 0.0, 1.0));
        assert!(Cholesky::new(zero, 0.0).is_none());
        let negative = Matrix3::from_diagonal(&Vector3::new(1.0, 1.0, -1.0));
        assert!(Cholesky::new(negative, 0.0).is_none());
        // Pivot ratio 1 − 0.999² ≈ 2e-3 passes 1e-6 and fails 1e-2.
        let tilted = Matrix3::new(1.0, 0.999, 0.0, 0.999, 1.0, 0.0, 0.0, 0.0, 1.0);
        assert!(Cholesky::new(tilted, 1e-6).is_some());
        assert!(Cholesky::new(tilted, 1e-2).is_none());
    }
}
