//! The borrowed inputs (M, Q, A, b, C) of the fundamental equation, passed to every
//! Lagrangian kernel as one argument.

use nalgebra::allocator::Allocator;
use nalgebra::{DefaultAllocator, Dim, OMatrix, OVector};

/// The terms of M q̈ = Q + Qᶜ, A q̈ = b at one state, borrowed (Udwadia & Kalaba 1993,
/// eqs 16–19; Udwadia & Phohomsiri 2006, eq 2.14).
///
/// `N` is the number n of generalized coordinates and `R` the number m of constraints, as
/// nalgebra dimensions: `Const<n>, Const<m>` for the fixed-size kernels
/// ([`acceleration`](crate::acceleration) …), `Dyn, Dyn` for the `_dyn` ones, whose shapes
/// are checked at run time. [`LagrangianTerms::view`](crate::LagrangianTerms::view) borrows
/// the terms that a generated system computes.
///
/// # Example
/// ```
/// use nalgebra::{matrix, vector};
/// use udk_runtime::LagrangianView;
///
/// let (m, q) = (matrix![1.0, 0.0; 0.0, 1.0], vector![0.0, -9.81]);
/// let (a, b, c) = (matrix![1.2, -1.6], vector![0.0], vector![0.1, 0.0]);
/// let ideal = LagrangianView::new(&m, &q, &a, &b);
/// assert!(ideal.nonideal_force.is_none());
/// let nonideal = ideal.with_nonideal_force(&c);
/// assert_eq!(nonideal.nonideal_force, Some(&c));
/// ```
#[derive(Debug)]
pub struct LagrangianView<'a, N: Dim, R: Dim>
where
    DefaultAllocator: Allocator<N, N> + Allocator<R, N> + Allocator<N> + Allocator<R>,
{
    /// Mass matrix M, n × n, symmetric positive semidefinite (singular M is legal).
    pub mass_matrix: &'a OMatrix<f64, N, N>,
    /// Generalized force Q, n entries.
    pub generalized_force: &'a OVector<f64, N>,
    /// Constraint matrix A, m × n, any rank; m = 0 (no constraints) is allowed.
    pub constraint_matrix: &'a OMatrix<f64, R, N>,
    /// Right-hand side b of A q̈ = b, m entries.
    pub constraint_rhs: &'a OVector<f64, R>,
    /// Non-ideal constraint force C (n entries; virtual work wᵀQᶜ = wᵀC for every virtual
    /// displacement w of the constraints), or `None` for ideal constraints.
    pub nonideal_force: Option<&'a OVector<f64, N>>,
}

impl<'a, N: Dim, R: Dim> LagrangianView<'a, N, R>
where
    DefaultAllocator: Allocator<N, N> + Allocator<R, N> + Allocator<N> + Allocator<R>,
{
    /// The terms of a system with ideal constraints (C = `None`).
    pub fn new(
        mass_matrix: &'a OMatrix<f64, N, N>,
        generalized_force: &'a OVector<f64, N>,
        constraint_matrix: &'a OMatrix<f64, R, N>,
        constraint_rhs: &'a OVector<f64, R>,
    ) -> Self {
        Self {
            mass_matrix,
            generalized_force,
            constraint_matrix,
            constraint_rhs,
            nonideal_force: None,
        }
    }

    /// The same terms with the non-ideal constraint force C (n entries).
    pub fn with_nonideal_force(self, nonideal_force: &'a OVector<f64, N>) -> Self {
        Self {
            nonideal_force: Some(nonideal_force),
            ..self
        }
    }
}

impl<N: Dim, R: Dim> Clone for LagrangianView<'_, N, R>
where
    DefaultAllocator: Allocator<N, N> + Allocator<R, N> + Allocator<N> + Allocator<R>,
{
    fn clone(&self) -> Self {
        *self
    }
}

impl<N: Dim, R: Dim> Copy for LagrangianView<'_, N, R> where
    DefaultAllocator: Allocator<N, N> + Allocator<R, N> + Allocator<N> + Allocator<R>
{
}
