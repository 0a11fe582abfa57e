//! Square-root-free Cholesky factorization S = L D Lᵀ (L unit lower triangular, D diagonal)
//! of symmetric positive definite matrices, with a relative pivot threshold; in place and
//! allocation-free for fixed sizes.
//!
//! A pivot dₖ (the diagonal of the Schur complement) is accepted when dₖ > τ·Sₖₖ, i.e. when
//! row k is not (numerically) a combination of the rows before it: dₖ/Sₖₖ = sin²θₖ, θₖ being
//! the angle between row k and the span of the previous rows in the metric of S. The ratio
//! is invariant under diagonal scaling, so the test does not depend on units. Avoiding the
//! square roots of L Lᵀ shortens the dependency chain of small factorizations.

use nalgebra::allocator::Allocator;
use nalgebra::{DefaultAllocator, Dim, OMatrix, OVector, U1};

/// Factor S = L D Lᵀ.
pub(crate) struct Cholesky<D: Dim>
where
    DefaultAllocator: Allocator<D, D> + Allocator<D>,
{
    /// Strict lower triangle holds L (unit diagonal implied), the diagonal holds D; the
    /// strict upper triangle still holds the input and is never read.
    l: OMatrix<f64, D, D>,
    /// 1/dₖ.
    inverse_pivots: OVector<f64, D>,
}

impl<D: Dim> Cholesky<D>
where
    DefaultAllocator: Allocator<D, D> + Allocator<D>,
{
    /// Factors the lower triangle of `s`; `None` if some pivot ratio dₖ/Sₖₖ is ≤ `tolerance`
    /// (S singular, indefinite, or nearly so).
    ///
    /// Right-looking (outer-product) order: after each pivot the trailing lower triangle is
    /// updated column by column, independent updates that keep the dependency chain short.
    #[inline]
    pub(crate) fn new(mut s: OMatrix<f64, D, D>, tolerance: f64) -> Option<Self> {
        let n = s.nrows();
        let (d, _) = s.shape_generic();
        let original = OVector::<f64, D>::from_fn_generic(d, U1, |k, _| s[(k, k)]);
        let mut inverse_pivots = OVector::zeros_generic(d, U1);
        // Column-major: entry (i, j) at i + j·n.
        let x = s.as_mut_slice();
        for k in 0..n {
            let pivot = x[k + k * n];
            if !(original[k] > 0.0 && pivot > tolerance * original[k]) {
                return None;
            }
            let inverse = 1.0 / pivot;
            inverse_pivots[k] = inverse;
            for j in k + 1..n {
                let ljk = x[j + k * n] * inverse;
                for i in j..n {
                    x[i + j * n] -= x[i + k * n] * ljk;
                }
            }
            for i in k + 1..n {
                x[i + k * n] *= inverse;
            }
        }
        Some(Self {
            l: s,
            inverse_pivots,
        })
    }

    /// The reciprocal pivots 1/dₖ.
    pub(crate) fn inverse_pivots(&self) -> &OVector<f64, D> {
        &self.inverse_pivots
    }

    /// The pivots dₖ.
    pub(crate) fn pivots(&self) -> OVector<f64, D> {
        self.inverse_pivots.map(|v| 1.0 / v)
    }

    /// Overwrites the columns of `b` with L⁻¹ b.
    #[inline]
    pub(crate) fn solve_unit_lower_mut<C: Dim>(&self, b: &mut OMatrix<f64, D, C>)
    where
        DefaultAllocator: Allocator<D, C>,
    {
        let n = self.l.nrows();
        if n == 0 {
            return;
        }
        let l = self.l.as_slice();
        for column in b.as_mut_slice().chunks_exact_mut(n) {
            for k in 0..n {
                let bk = column[k];
                for i in k + 1..n {
                    column[i] -= l[i + k * n] * bk;
                }
            }
        }
    }

    /// Overwrites the columns of `b` with L⁻ᵀ b.
    #[inline]
    pub(crate) fn solve_unit_upper_mut<C: Dim>(&self, b: &mut OMatrix<f64, D, C>)
    where
        DefaultAllocator: Allocator<D, C>,
    {
        let n = self.l.nrows();
        if n == 0 {
            return;
        }
        let l = self.l.as_slice();
        for b in b.as_mut_slice().chunks_exact_mut(n) {
            for k in (0..n).rev() {
                let column = &l[k * n..(k + 1) * n];
                let mut v = b[k];
                for j in k + 1..n {
                    v -= column[j] * b[j];
                }
                b[k] = v;
            }
        }
    }

    /// Overwrites the rows of `b` with D⁻¹ b.
    #[inline]
    pub(crate) fn scale_inverse_pivots_mut<C: Dim>(&self, b: &mut OMatrix<f64, D, C>)
    where
        DefaultAllocator: Allocator<D, C>,
    {
        for mut column in b.column_iter_mut() {
            column.component_mul_assign(&self.inverse_pivots);
        }
    }

    /// Returns S⁻¹ b = L⁻ᵀ D⁻¹ L⁻¹ b.
    #[inline]
    pub(crate) fn solve(&self, b: &OVector<f64, D>) -> OVector<f64, D> {
        let mut x = b.clone();
        self.solve_unit_lower_mut(&mut x);
        self.scale_inverse_pivots_mut(&mut x);
        self.solve_unit_upper_mut(&mut x);
        x
    }

    /// Returns L y.
    #[inline]
    pub(crate) fn mul_unit_lower(&self, y: &OVector<f64, D>) -> OVector<f64, D> {
        let n = self.l.nrows();
        let l = self.l.as_slice();
        let mut x = y.clone();
        for i in 0..n {
            x[i] = y[i] + (0..i).map(|j| l[i + j * n] * y[j]).sum::<f64>();
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
        // L L⁻¹ b = b, and det S = Π dₖ.
        let mut z = f.mul_unit_lower(&b);
        f.solve_unit_lower_mut(&mut z);
        assert!((z - b).norm() < 1e-14);
        assert!((f.pivots().iter().product::<f64>() - s.determinant()).abs() < 1e-12);
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
