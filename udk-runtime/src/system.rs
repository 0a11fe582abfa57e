//! The system traits: what `#[lagrangian]` and `#[hamiltonian]` implement, so that generic code
//! (integrators, trajectories, checks) can simulate any generated system.
//!
//! A generated system supplies its derived terms at a state (M, Q, A, b, C for a Lagrangian
//! system; H_p, H_q, H_pp, A_p, b_p for a Hamiltonian one); the traits turn them into motion
//! with this crate's kernels. n is the number of generalized coordinates (`N`), m the number of
//! constraint equations (`M`).

use crate::{Error, LagrangianView, Options};
use nalgebra::{Const, SMatrix, SVector};

/// The derived equations of a model, as plain text and as LaTeX, one entry per line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModelEquations {
    /// M, Q, A, b and C (or H, H_p, H_q, H_pp, A_p, b_p), one entry per line, in Rust-like
    /// syntax.
    pub text: &'static str,
    /// The same entries as LaTeX.
    pub latex: &'static str,
}

/// The terms of the equations of motion M q̈ = Q + Qᶜ, A q̈ = b of a Lagrangian system at one
/// state (q, q̇, t) (Udwadia & Kalaba 1993, eqs 16–19; Udwadia & Phohomsiri 2006, eq 2.14).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LagrangianTerms<const N: usize, const M: usize> {
    /// Mass matrix M(q, t), n × n, symmetric positive semi-definite.
    pub mass_matrix: SMatrix<f64, N, N>,
    /// Generalized force Q(q, q̇, t), n entries.
    pub generalized_force: SVector<f64, N>,
    /// Constraint matrix A(q, q̇, t), m × n.
    pub constraint_matrix: SMatrix<f64, M, N>,
    /// Right-hand side b(q, q̇, t), m entries.
    pub constraint_rhs: SVector<f64, M>,
    /// Non-ideal constraint force C(q, q̇, t), n entries; `None` when the constraints are ideal.
    pub nonideal_force: Option<SVector<f64, N>>,
}

impl<const N: usize, const M: usize> LagrangianTerms<N, M> {
    /// The terms borrowed as the one argument of the kernels ([`crate::acceleration`] …).
    pub fn view(&self) -> LagrangianView<'_, Const<N>, Const<M>> {
        LagrangianView {
            mass_matrix: &self.mass_matrix,
            generalized_force: &self.generalized_force,
            constraint_matrix: &self.constraint_matrix,
            constraint_rhs: &self.constraint_rhs,
            nonideal_force: self.nonideal_force.as_ref(),
        }
    }
}

/// A Lagrangian system with n = `N` generalized coordinates and m = `M` constraint equations,
/// as `#[lagrangian]` generates it.
pub trait LagrangianSystem<const N: usize, const M: usize> {
    /// The derived M, Q, A, b and C as text and LaTeX.
    const EQUATIONS: ModelEquations;

    /// M, Q, A, b and C at (q, q̇, t), computed together (shared subexpressions once).
    fn terms(&self, q: &SVector<f64, N>, qd: &SVector<f64, N>, t: f64) -> LagrangianTerms<N, M>;

    /// The Jacobi integral h = q̇ᵀ ∂L/∂q̇ − L (the energy when L does not depend on t).
    fn energy(&self, q: &SVector<f64, N>, qd: &SVector<f64, N>, t: f64) -> f64;

    /// Number of holonomic constraints f(q, t) = 0: they are the first `NUM_HOLONOMIC` of the
    /// m rows of A, b and [`LagrangianSystem::velocity_residual`]; the remaining rows are the
    /// nonholonomic constraints φ(q, q̇, t) = 0.
    const NUM_HOLONOMIC: usize;

    /// The holonomic constraints f(q, t) aligned with the m rows of A: fᵢ in each of the first
    /// `NUM_HOLONOMIC` rows, 0 in the nonholonomic rows. Zero on the constraint manifold; these
    /// rows of A are ∂f/∂q.
    fn holonomic_residual(&self, q: &SVector<f64, N>, t: f64) -> SVector<f64, M>;

    /// Euclidean norm of the holonomic constraints f(q, t), 0 when there are none.
    fn position_residual_norm(&self, q: &SVector<f64, N>, t: f64) -> f64 {
        self.holonomic_residual(q, t).norm()
    }

    /// The names of the n coordinates, as written in the model (`coordinates(x, y)` gives
    /// `["x", "y"]`); they name the trajectory's CSV columns and plot curves
    /// (see `simulate::state_columns`). Empty (the default) for `q1`…`qn`.
    const COORDINATE_NAMES: &'static [&'static str] = &[];

    /// The names of the n generalized speeds of a model with kinematic differential equations
    /// (`speeds(wx, wy, wz)`), which name the second half of the trajectory's columns; empty
    /// (the default) for a model whose second state is q̇.
    const VELOCITY_NAMES: &'static [&'static str] = &[];

    /// The columns of the model's `outputs`, in order: `name` for a scalar output,
    /// `name.x`, `name.y`, `name.z` for a vector one. Empty for a model without outputs.
    const OUTPUT_COLUMNS: &'static [&'static str] = &[];

    /// The outputs at (q, q̇, t) into `out`, one entry per [`LagrangianSystem::OUTPUT_COLUMNS`]
    /// entry (`out` has exactly that many).
    fn output_values(&self, q: &SVector<f64, N>, qd: &SVector<f64, N>, t: f64, out: &mut [f64]) {
        let _ = (q, qd, t, out);
    }

    /// The rates q̇ (n entries) of the coordinates at the state (q, v, t): the kinematic
    /// differential equations q̇ = N(q, t) v + c(q, t) of a model with generalized speeds v
    /// (Kane & Levinson 1985, ch. 2), whose M, Q, A, b, C are then taken with respect to v̇
    /// and whose `acceleration` is v̇; v itself (the default) when v is q̇.
    fn coordinate_rates(
        &self,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
        t: f64,
    ) -> SVector<f64, N> {
        let _ = (q, t);
        *v
    }

    /// N(q, t) = ∂q̇/∂v of [`LagrangianSystem::coordinate_rates`], n × n; `None` (the
    /// default) when it is the identity. The assembly steps q along N, since the holonomic rows
    /// of A are then (∂f/∂q) N.
    fn kinematic_matrix(&self, q: &SVector<f64, N>, t: f64) -> Option<SMatrix<f64, N, N>> {
        let _ = (q, t);
        None
    }

    /// The m constraints at velocity level: ḟ(q, q̇, t) for each holonomic constraint, then
    /// φ(q, q̇, t) for each nonholonomic one; zero on a consistent state.
    fn velocity_residual(
        &self,
        q: &SVector<f64, N>,
        qd: &SVector<f64, N>,
        t: f64,
    ) -> SVector<f64, M>;

    /// The constrained acceleration q̈ (n entries) by the fundamental equation, with `options`.
    ///
    /// # Errors
    /// As [`crate::acceleration`]: a non-unique acceleration ([M; A] rank-deficient),
    /// inconsistent constraints, or a non-finite term.
    fn acceleration_with(
        &self,
        q: &SVector<f64, N>,
        qd: &SVector<f64, N>,
        t: f64,
        options: &Options,
    ) -> Result<SVector<f64, N>, Error> {
        crate::acceleration(self.terms(q, qd, t).view(), options)
            .map_err(|e| e.with_coordinate_names(Self::COORDINATE_NAMES))
    }

    /// The constrained acceleration q̈ (n entries) with the default [`Options`].
    ///
    /// # Errors
    /// As [`LagrangianSystem::acceleration_with`].
    fn acceleration(
        &self,
        q: &SVector<f64, N>,
        qd: &SVector<f64, N>,
        t: f64,
    ) -> Result<SVector<f64, N>, Error> {
        self.acceleration_with(q, qd, t, &Options::default())
    }

    /// q̈ and its exact Jacobians ∂q̈/∂q and ∂q̈/∂q̇ (n × n each) at (q, q̇, t), with `options`.
    /// Generated models implement it from symbolic derivatives of M, Q, A, b and C.
    ///
    /// # Errors
    /// `JacobianUnavailable` for a system that does not provide it (the default);
    /// `RankChange` where the rank of A or [M; A] changes (q̈ is not differentiable there);
    /// otherwise as [`LagrangianSystem::acceleration_with`].
    fn acceleration_jacobian_with(
        &self,
        q: &SVector<f64, N>,
        qd: &SVector<f64, N>,
        t: f64,
        options: &Options,
    ) -> Result<crate::AccelerationJacobian<N, 0>, Error> {
        let _ = (q, qd, t, options);
        Err(Error::JacobianUnavailable {
            what: "the acceleration Jacobian",
        })
    }

    /// q̈ and its exact Jacobians with the default [`Options`].
    ///
    /// # Errors
    /// As [`LagrangianSystem::acceleration_jacobian_with`].
    fn acceleration_jacobian(
        &self,
        q: &SVector<f64, N>,
        qd: &SVector<f64, N>,
        t: f64,
    ) -> Result<crate::AccelerationJacobian<N, 0>, Error> {
        self.acceleration_jacobian_with(q, qd, t, &Options::default())
    }

    /// ∂/∂q of [`LagrangianSystem::velocity_residual`], m × n (its ∂/∂q̇ is A).
    ///
    /// # Errors
    /// `JacobianUnavailable` for a system that does not provide it (the default).
    fn velocity_residual_jacobian(
        &self,
        q: &SVector<f64, N>,
        qd: &SVector<f64, N>,
        t: f64,
    ) -> Result<SMatrix<f64, M, N>, Error> {
        let _ = (q, qd, t);
        Err(Error::JacobianUnavailable {
            what: "the velocity-residual Jacobian",
        })
    }

    /// The constraint force Qᶜ = M q̈ − Q (n entries; includes C when the constraints are
    /// non-ideal), with the default [`Options`].
    ///
    /// # Errors
    /// As [`LagrangianSystem::acceleration_with`].
    fn constraint_force(
        &self,
        q: &SVector<f64, N>,
        qd: &SVector<f64, N>,
        t: f64,
    ) -> Result<SVector<f64, N>, Error> {
        crate::constraint_force(self.terms(q, qd, t).view(), &Options::default())
            .map_err(|e| e.with_coordinate_names(Self::COORDINATE_NAMES))
    }
}

/// The terms of the constrained Hamilton equations of a system at one state (q, p, t)
/// (Udwadia 2016, eqs 9–12, 35–36).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HamiltonianTerms<const N: usize, const M: usize> {
    /// H_p = ∂H/∂p = q̇, n entries.
    pub h_p: SVector<f64, N>,
    /// H_q = ∂H/∂q, n entries.
    pub h_q: SVector<f64, N>,
    /// H_pp = ∂²H/∂p², n × n, positive definite.
    pub h_pp: SMatrix<f64, N, N>,
    /// A_p = ∂φ/∂p, m × n.
    pub a_p: SMatrix<f64, M, N>,
    /// b_p = −(∂φ/∂q) H_p − ∂φ/∂t, m entries.
    pub b_p: SVector<f64, M>,
}

/// A Hamiltonian system with n = `N` coordinates and momenta and m = `M` constraints
/// φ(q, p, t) = 0, as `#[hamiltonian]` generates it.
pub trait HamiltonianSystem<const N: usize, const M: usize> {
    /// The derived H, H_p, H_q, H_pp, A_p and b_p as text and LaTeX.
    const EQUATIONS: ModelEquations;

    /// H_p, H_q, H_pp, A_p and b_p at (q, p, t), computed together.
    fn terms(&self, q: &SVector<f64, N>, p: &SVector<f64, N>, t: f64) -> HamiltonianTerms<N, M>;

    /// The Hamiltonian H(q, p, t).
    fn hamiltonian(&self, q: &SVector<f64, N>, p: &SVector<f64, N>, t: f64) -> f64;

    /// Number of holonomic constraints f(q, t) = 0: the first `NUM_HOLONOMIC` of the m rows of
    /// A_p, b_p and [`HamiltonianSystem::constraint_residual`] are φ = (∂f/∂q) H_p + ∂f/∂t
    /// (Udwadia 2016, eq 9); the remaining rows are constraints given as φ(q, p, t) = 0.
    const NUM_HOLONOMIC: usize;

    /// The holonomic constraints f(q, t) aligned with the m rows of A_p: fᵢ in each of the first
    /// `NUM_HOLONOMIC` rows, 0 in the other rows. Zero on the constraint manifold.
    fn holonomic_residual(&self, q: &SVector<f64, N>, t: f64) -> SVector<f64, M>;

    /// Euclidean norm of the holonomic constraints f(q, t), 0 when there are none.
    fn position_residual_norm(&self, q: &SVector<f64, N>, t: f64) -> f64 {
        self.holonomic_residual(q, t).norm()
    }

    /// The names of the n coordinates, as [`LagrangianSystem::COORDINATE_NAMES`].
    const COORDINATE_NAMES: &'static [&'static str] = &[];

    /// The names of the n momenta, as written in the model (`momenta(px, py)`); empty (the
    /// default) for `p1`…`pn`.
    const MOMENTUM_NAMES: &'static [&'static str] = &[];

    /// The columns of the model's `outputs`, as [`LagrangianSystem::OUTPUT_COLUMNS`].
    const OUTPUT_COLUMNS: &'static [&'static str] = &[];

    /// The outputs at (q, p, t) into `out`, one entry per
    /// [`HamiltonianSystem::OUTPUT_COLUMNS`] entry.
    fn output_values(&self, q: &SVector<f64, N>, p: &SVector<f64, N>, t: f64, out: &mut [f64]) {
        let _ = (q, p, t, out);
    }

    /// The m constraints φ(q, p, t) (holonomic ones turned into φ through q̇ = H_p); zero on a
    /// consistent state.
    fn constraint_residual(
        &self,
        q: &SVector<f64, N>,
        p: &SVector<f64, N>,
        t: f64,
    ) -> SVector<f64, M>;

    /// (q̇, ṗ) = (H_p, −H_q + Fᶜ), each n entries, by Udwadia 2016 eqs 35–36, with `options`.
    ///
    /// # Errors
    /// As [`crate::hamiltonian::momentum_rate`]: inconsistent constraints, a singular H_pp or a
    /// non-finite term.
    fn state_derivative_with(
        &self,
        q: &SVector<f64, N>,
        p: &SVector<f64, N>,
        t: f64,
        options: &Options,
    ) -> Result<(SVector<f64, N>, SVector<f64, N>), Error> {
        let terms = self.terms(q, p, t);
        let momentum_rate = crate::hamiltonian::momentum_rate(
            &terms.h_q,
            &terms.h_pp,
            &terms.a_p,
            &terms.b_p,
            options,
        )?;
        Ok((terms.h_p, momentum_rate))
    }

    /// (q̇, ṗ) with the default [`Options`].
    ///
    /// # Errors
    /// As [`HamiltonianSystem::state_derivative_with`].
    fn state_derivative(
        &self,
        q: &SVector<f64, N>,
        p: &SVector<f64, N>,
        t: f64,
    ) -> Result<(SVector<f64, N>, SVector<f64, N>), Error> {
        self.state_derivative_with(q, p, t, &Options::default())
    }

    /// (q̇, ṗ) and their exact Jacobian ∂(q̇, ṗ)/∂(q, p) at (q, p, t), with `options`.
    /// Generated models implement it from symbolic derivatives of H_p, H_q, H_pp, A_p and b_p
    /// ([`crate::jacobian::state_jacobian`]).
    ///
    /// # Errors
    /// `JacobianUnavailable` for a system that does not provide it (the default);
    /// `RankChange` where the rank of A_p changes (ṗ is not differentiable there);
    /// otherwise as [`HamiltonianSystem::state_derivative_with`].
    fn state_jacobian_with(
        &self,
        q: &SVector<f64, N>,
        p: &SVector<f64, N>,
        t: f64,
        options: &Options,
    ) -> Result<crate::StateJacobian<N>, Error> {
        let _ = (q, p, t, options);
        Err(Error::JacobianUnavailable {
            what: "the state Jacobian",
        })
    }

    /// (q̇, ṗ) and their exact Jacobian with the default [`Options`].
    ///
    /// # Errors
    /// As [`HamiltonianSystem::state_jacobian_with`].
    fn state_jacobian(
        &self,
        q: &SVector<f64, N>,
        p: &SVector<f64, N>,
        t: f64,
    ) -> Result<crate::StateJacobian<N>, Error> {
        self.state_jacobian_with(q, p, t, &Options::default())
    }

    /// The constraint force on ṗ, Fᶜ = ṗ + H_q (n entries; Udwadia 2016, eqs 13 and 36), with
    /// the default [`Options`].
    ///
    /// # Errors
    /// As [`HamiltonianSystem::state_derivative_with`].
    fn constraint_force(
        &self,
        q: &SVector<f64, N>,
        p: &SVector<f64, N>,
        t: f64,
    ) -> Result<SVector<f64, N>, Error> {
        let terms = self.terms(q, p, t);
        crate::hamiltonian::momentum_rate_and_constraint_force(
            &terms.h_q,
            &terms.h_pp,
            &terms.a_p,
            &terms.b_p,
            &Options::default(),
        )
        .map(|(_, force)| force)
    }
}
