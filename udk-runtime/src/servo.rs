//! Control by constraints: the inputs u that make a system follow its servo (task)
//! constraints, by the fundamental equation (review paper, Zhao, Chen, Zhao & Dong 2018,
//! section 8.3; Udwadia 2003, "A new perspective on the tracking control of nonlinear
//! structural and mechanical systems"; Chen 2009, "Constraint-following servo control design
//! for mechanical systems").
//!
//! A model with `servo(holonomic(..), nonholonomic(..))` and inputs u entering Q + C as
//! Q₀ + C₀ + B u implements [`ServoSystem`]: at a state it gives M, Q₀, C₀, B and the stacked
//! constraints [A; A_s] q̈ = [b; b_s], the m physical rows first, then the s = r − m servo rows,
//! with the servo errors e (holonomic rows) and β = ė or φ (all rows).
//!
//! [`control`] computes, with n coordinates and k inputs:
//! 1. q̈* by the fundamental equation on all r rows (Udwadia & Kalaba 1993, eq 17), with the
//!    servo right-hand side changed by the [`Convergence`] law when the state is off the task;
//! 2. q̈₀, the motion under the physical constraints alone at u = 0, and the servo part of the
//!    constraint force Qᶜ_s = M (q̈* − q̈₀) = Qᶜ(all rows) − Qᶜ(physical rows); without
//!    physical constraints it is the Qᶜ of the servo constraints, the paper's Fᶜ (eq 71);
//! 3. u minimizing Gauss's measure ‖M^½ (q̈(u) − q̈*)‖ of the motion q̈(u) = q̈₀ + G B u, with
//!    G = M⁻¹ − M⁻¹Aᵀ(AM⁻¹Aᵀ)⁺AM⁻¹ the map from an applied force to the acceleration under
//!    the physical constraints: the normal equations (BᵀGB) u = Bᵀ(q̈* − q̈₀), by Cholesky when
//!    BᵀGB is positive definite, else by its pseudoinverse (minimum-norm u). When Qᶜ_s is
//!    realizable, B u = Qᶜ_s up to forces the physical constraints absorb and the task holds
//!    exactly; when it is not (an underactuated system), u is the least-squares input and
//!    [`GenericServoControl::unrealized_force`] and [`GenericServoControl::task_residual`]
//!    say what is missing. They are always computed, never dropped.
//!    With [`Realization::Task`] u instead meets the task rows, A_s q̈(u) = A_s q̈*, in least
//!    squares (minimum-norm u): an underactuated system can often meet a task with a force
//!    that is not the ideal Qᶜ_s (a cart-pole's cart force moves the pole), at the price of a
//!    motion that differs from q̈* outside the task.
//!
//! Without physical constraints and with B square and invertible (a fully actuated arm), both
//! realizations give u = B⁻¹Qᶜ_s, taken from the constraint force of step 1 with no further
//! factorization. M must be positive definite (the controller needs M⁻¹); a singular M is
//! `Error::NotPositiveDefinite`.

use crate::allocator::KernelAllocator;
use crate::cholesky::Cholesky;
use crate::control::{ClosedLoop, ControlledLagrangianSystem};
use crate::fundamental::{solve, solve_factored};
use crate::projection::FACTOR_TOLERANCE;
use crate::{pinv, pinv_symmetric, Error, LagrangianView, Options};
use nalgebra::allocator::Allocator;
use nalgebra::{Const, DefaultAllocator, Dim, Dyn, OMatrix, OVector, SVector, U1};

/// The terms of a servo-controlled system at one state (q, q̇, t), with n coordinates,
/// r constraint rows (the m physical ones first, then the servo ones) and k inputs, for any
/// nalgebra dimensions (`DVector` ones for a run-time model); [`ServoTerms`] for fixed sizes.
#[derive(Clone, Debug, PartialEq)]
pub struct GenericServoTerms<N: Dim, R: Dim, K: Dim>
where
    DefaultAllocator:
        Allocator<N, N> + Allocator<N> + Allocator<N, K> + Allocator<R, N> + Allocator<R>,
{
    /// Mass matrix M(q, t), n × n.
    pub mass_matrix: OMatrix<f64, N, N>,
    /// Generalized force at u = 0, Q₀(q, q̇, t), n entries.
    pub generalized_force: OVector<f64, N>,
    /// Non-ideal constraint force at u = 0, C₀, n entries; `None` for ideal constraints.
    pub nonideal_force: Option<OVector<f64, N>>,
    /// Input matrix B = ∂(Q + C)/∂u, n × k.
    pub input_matrix: OMatrix<f64, N, K>,
    /// [A; A_s], r × n: the physical rows, then the servo rows.
    pub constraint_matrix: OMatrix<f64, R, N>,
    /// [b; b_s], r entries.
    pub constraint_rhs: OVector<f64, R>,
    /// The holonomic constraints f(q, t) and e(q, t) in their rows, 0 in the others.
    pub position_residual: OVector<f64, R>,
    /// All r constraints at velocity level (ḟ or φ, then ė or φ_s); the servo rows are the
    /// error β of the review paper, eq 72.
    pub velocity_residual: OVector<f64, R>,
}

impl GenericServoTerms<Dyn, Dyn, Dyn> {
    /// Terms of zeros for n coordinates, r rows and k inputs, with a non-ideal force C when
    /// `nonideal`: the buffers a run-time model's program fills through
    /// [`GenericServoTerms::blocks_mut`].
    pub fn zeros(n: usize, r: usize, k: usize, nonideal: bool) -> Self {
        GenericServoTerms {
            mass_matrix: OMatrix::zeros_generic(Dyn(n), Dyn(n)),
            generalized_force: OVector::zeros_generic(Dyn(n), U1),
            nonideal_force: nonideal.then(|| OVector::zeros_generic(Dyn(n), U1)),
            input_matrix: OMatrix::zeros_generic(Dyn(n), Dyn(k)),
            constraint_matrix: OMatrix::zeros_generic(Dyn(r), Dyn(n)),
            constraint_rhs: OVector::zeros_generic(Dyn(r), U1),
            position_residual: OVector::zeros_generic(Dyn(r), U1),
            velocity_residual: OVector::zeros_generic(Dyn(r), U1),
        }
    }

    /// The eight blocks as column-major slices, in the order of the fields: M, Q, C (empty
    /// when `None`), B, [A; A_s], [b; b_s], the position and the velocity residuals.
    pub fn blocks_mut(&mut self) -> [&mut [f64]; 8] {
        let nonideal = (self.nonideal_force.as_mut()).map_or(&mut [][..], |c| c.as_mut_slice());
        [
            self.mass_matrix.as_mut_slice(),
            self.generalized_force.as_mut_slice(),
            nonideal,
            self.input_matrix.as_mut_slice(),
            self.constraint_matrix.as_mut_slice(),
            self.constraint_rhs.as_mut_slice(),
            self.position_residual.as_mut_slice(),
            self.velocity_residual.as_mut_slice(),
        ]
    }
}

/// [`GenericServoTerms`] with n = `N` coordinates, r = `R` rows and k = `K` inputs, as
/// `#[lagrangian]` generates them (`servo_terms`).
pub type ServoTerms<const N: usize, const R: usize, const K: usize> =
    GenericServoTerms<Const<N>, Const<R>, Const<K>>;

/// The task terms of a system whose servo rows alone determine the motion (no physical rows,
/// s = n servo rows, the inputs the generalized forces: B = I), at one state: what
/// [`control_by_inverse_dynamics`] needs besides the inverse dynamics. n coordinates and r
/// rows (= n where the path applies), for any nalgebra dimensions (`DVector` ones for a
/// run-time model); [`ServoTask`] for fixed sizes.
#[derive(Clone, Debug, PartialEq)]
pub struct GenericServoTask<N: Dim, R: Dim>
where
    DefaultAllocator: Allocator<R, N> + Allocator<R>,
{
    /// A_s, r × n.
    pub constraint_matrix: OMatrix<f64, R, N>,
    /// b_s, r entries: the servo constraints hold when A_s q̈ = b_s.
    pub constraint_rhs: OVector<f64, R>,
    /// The holonomic servo constraints e(q, t) in their rows, 0 in the others.
    pub position_residual: OVector<f64, R>,
    /// The servo constraints at velocity level (ė or φ_s): the error β of the review paper,
    /// eq 72.
    pub velocity_residual: OVector<f64, R>,
}

/// [`GenericServoTask`] with n = `N` coordinates and r = `R` rows, as `#[lagrangian]`
/// generates it (`servo_task`).
pub type ServoTask<const N: usize, const R: usize> = GenericServoTask<Const<N>, Const<R>>;

impl GenericServoTask<Dyn, Dyn> {
    /// Task terms of zeros for n coordinates and r rows: the buffers a run-time model's
    /// program fills through [`GenericServoTask::blocks_mut`].
    pub fn zeros(n: usize, r: usize) -> Self {
        GenericServoTask {
            constraint_matrix: OMatrix::zeros_generic(Dyn(r), Dyn(n)),
            constraint_rhs: OVector::zeros_generic(Dyn(r), U1),
            position_residual: OVector::zeros_generic(Dyn(r), U1),
            velocity_residual: OVector::zeros_generic(Dyn(r), U1),
        }
    }

    /// The four blocks as column-major slices, in the order of the fields: A_s, b_s, the
    /// position and the velocity residuals.
    pub fn blocks_mut(&mut self) -> [&mut [f64]; 4] {
        [
            self.constraint_matrix.as_mut_slice(),
            self.constraint_rhs.as_mut_slice(),
            self.position_residual.as_mut_slice(),
            self.velocity_residual.as_mut_slice(),
        ]
    }
}

/// A [`ControlledLagrangianSystem`] with servo constraints, as `#[lagrangian]` generates it for
/// a model with `servo(..)`: n = `N` coordinates, m = `M` physical constraint rows, r = `R`
/// rows in all (s = r − m servo rows) and k = `K` inputs.
pub trait ServoSystem<const N: usize, const M: usize, const R: usize, const K: usize>:
    ControlledLagrangianSystem<N, M, K>
{
    /// The terms the controller needs at (q, q̇, t), computed together in one program.
    fn servo_terms(&self, q: &SVector<f64, N>, qd: &SVector<f64, N>, t: f64)
        -> ServoTerms<N, R, K>;

    /// The controller at (q, q̇, t) under `law` with the kernels' `options`: by default
    /// [`control`] on [`ServoSystem::servo_terms`]. `#[lagrangian]` overrides it for a model
    /// whose servo rows alone determine the motion and whose inputs are the generalized forces
    /// (B = I): [`control_by_inverse_dynamics`] first, without M, and [`control`] where that
    /// path does not apply.
    ///
    /// # Errors
    /// As [`control`].
    fn control(
        &self,
        q: &SVector<f64, N>,
        qd: &SVector<f64, N>,
        t: f64,
        law: ServoLaw,
        options: &Options,
    ) -> Result<ServoControl<N, R, K>, Error> {
        control::<N, M, R, K>(&self.servo_terms(q, qd, t), law, options)
    }
}

/// How the controller drives a state that violates the servo constraints back onto them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Convergence {
    /// None: only A_s q̈ = b_s, which keeps the error where it is (ë = 0, β̇ = 0).
    None,
    /// The review paper's eq 72: u = Fᶜ − M A_sᵀ(A_s A_sᵀ)⁻¹ P⁻¹ β with P = `p` I (s), which
    /// makes β̇ = −β/P when there are no physical constraints (the paper writes D, the link
    /// inertia, for M). `p` > 0 is a time constant in seconds.
    Paper {
        /// P, the time constant (s) of the error β.
        p: f64,
    },
    /// The task-space law ë = −K_d ė − K_p e in the holonomic servo rows and β̇ = −K_d β in
    /// the nonholonomic ones (the computed-torque law of task-space control; Siciliano,
    /// Sciavicco, Villani & Oriolo 2009, Robotics, eq 8.114; Baumgarte 1972 for the same terms
    /// on physical constraints): the servo rows of b become b_s − K_d β − K_p e.
    TaskSpace {
        /// K_p (s⁻²), ≥ 0.
        stiffness: f64,
        /// K_d (s⁻¹), ≥ 0.
        damping: f64,
    },
}

/// Which least-squares problem gives u when the servo force is not in range(B) (they agree
/// when it is).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Realization {
    /// u minimizes ‖M^½ (q̈(u) − q̈*)‖, Gauss's measure of the distance to the servo motion:
    /// B u is the least-squares image of Qᶜ_s (in the M⁻¹ metric). The default.
    #[default]
    Force,
    /// u minimizes ‖A_s (q̈(u) − q̈*)‖, the task acceleration error, with the smallest ‖u‖
    /// among the minimizers. A task direction whose gain through the inputs, a singular value
    /// of A_s G B, is at most 1e-8 ‖A_s‖ ‖G B‖ (Frobenius norms) counts as unreachable: the
    /// inputs leave it alone instead of growing without bound near a singular state.
    Task,
}

/// The controller's law: how the servo error converges and how u is chosen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ServoLaw {
    /// The convergence term for a state off the servo constraints.
    pub convergence: Convergence,
    /// The least-squares problem for u.
    pub realization: Realization,
}

impl From<Convergence> for ServoLaw {
    /// `convergence` with [`Realization::Force`].
    fn from(convergence: Convergence) -> Self {
        Self {
            convergence,
            realization: Realization::Force,
        }
    }
}

/// What [`control`] returns at one state, with n coordinates, r constraint rows and k inputs,
/// for any nalgebra dimensions; [`ServoControl`] for fixed sizes.
#[derive(Clone, Debug, PartialEq)]
pub struct GenericServoControl<N: Dim, R: Dim, K: Dim>
where
    DefaultAllocator: Allocator<N> + Allocator<R> + Allocator<K>,
{
    /// The input u, k entries.
    pub input: OVector<f64, K>,
    /// The acceleration q̈ under u and the physical constraints, n entries.
    pub acceleration: OVector<f64, N>,
    /// The servo part of the constraint force with the convergence term, Qᶜ_s = M (q̈* − q̈₀),
    /// n entries: the generalized force the inputs should supply.
    pub servo_force: OVector<f64, N>,
    /// M (q̈* − q̈(u)), n entries: the part of Qᶜ_s the inputs cannot supply (0 when the task
    /// is realizable).
    pub unrealized_force: OVector<f64, N>,
    /// A q̈(u) − b* in every row, r entries, with b* the servo right-hand side of the
    /// convergence law: 0 in the physical rows, and in the servo rows the task acceleration the
    /// inputs miss.
    pub task_residual: OVector<f64, R>,
}

/// [`GenericServoControl`] with n = `N` coordinates, r = `R` rows and k = `K` inputs.
pub type ServoControl<const N: usize, const R: usize, const K: usize> =
    GenericServoControl<Const<N>, Const<R>, Const<K>>;

impl<N: Dim, R: Dim, K: Dim> GenericServoControl<N, R, K>
where
    DefaultAllocator: Allocator<N> + Allocator<R> + Allocator<K>,
{
    /// Whether the servo force is realized by the inputs to `tolerance` relative to its size:
    /// ‖unrealized force‖ ≤ `tolerance` · max(1, ‖Qᶜ_s‖).
    pub fn realized(&self, tolerance: f64) -> bool {
        self.unrealized_force.norm() <= tolerance * self.servo_force.norm().max(1.0)
    }
}

/// The input that realizes the servo constraints of `terms` (m = `M` physical rows first)
/// under `law` (a [`Convergence`] alone takes [`Realization::Force`]), with the kernels'
/// `options`, for fixed sizes; [`control_dyn`] for dynamic ones. See the module documentation
/// for the method.
///
/// # Errors
/// The kernel's errors for the motion on all rows or on the physical ones
/// ([`crate::acceleration`]): inconsistent constraints, a non-finite term...;
/// `DimensionMismatch` when m > r or the shapes disagree; `NotPositiveDefinite` when M is
/// singular; `InvalidOption` for a negative or non-finite gain or `p` ≤ 0; `NonFinite` when
/// the result is not finite.
pub fn control<const N: usize, const M: usize, const R: usize, const K: usize>(
    terms: &ServoTerms<N, R, K>,
    law: impl Into<ServoLaw>,
    options: &Options,
) -> Result<ServoControl<N, R, K>, Error> {
    control_generic(terms, Const::<M>, law, options)
}

/// [`control`] for dynamic sizes, as a run-time model (the `udk` command line) holds its
/// terms: n = `terms.mass_matrix.nrows()` coordinates, r = `terms.constraint_rhs.len()` rows
/// of which the first `physical` (m) are the physical constraints, k =
/// `terms.input_matrix.ncols()` inputs.
///
/// # Errors
/// As [`control`].
pub fn control_dyn(
    terms: &GenericServoTerms<Dyn, Dyn, Dyn>,
    physical: usize,
    law: impl Into<ServoLaw>,
    options: &Options,
) -> Result<GenericServoControl<Dyn, Dyn, Dyn>, Error> {
    control_generic(terms, Dyn(physical), law, options)
}

/// The controller for any nalgebra dimensions, behind [`control`] and [`control_dyn`]: n
/// coordinates, r rows of which the first `physical` (m) are the physical constraints, k
/// inputs.
///
/// # Errors
/// The kernel's errors for the motion on all rows or on the physical ones
/// ([`crate::acceleration`]): inconsistent constraints, a non-finite term...;
/// `DimensionMismatch` when m > r or the shapes disagree; `NotPositiveDefinite` when M is
/// singular; `InvalidOption` for a negative or non-finite gain or `p` ≤ 0; `NonFinite` when
/// the result is not finite.
pub(crate) fn control_generic<N: Dim, P: Dim, R: Dim, K: Dim>(
    terms: &GenericServoTerms<N, R, K>,
    physical: P,
    law: impl Into<ServoLaw>,
    options: &Options,
) -> Result<GenericServoControl<N, R, K>, Error>
where
    DefaultAllocator: KernelAllocator<N, R>
        + KernelAllocator<N, P>
        + KernelAllocator<N, K>
        + KernelAllocator<R, K>
        + KernelAllocator<P, K>
        + Allocator<K, R>
        + Allocator<U1, N>,
{
    let ServoLaw {
        convergence,
        realization,
    } = law.into();
    let (n, r, k, m) = (
        terms.mass_matrix.nrows(),
        terms.constraint_matrix.nrows(),
        terms.input_matrix.ncols(),
        physical.value(),
    );
    let shapes = [
        ("physical rows m", (m, 1), (m.min(r), 1)),
        ("input matrix B", terms.input_matrix.shape(), (n, k)),
        (
            "constraint matrix [A; A_s]",
            terms.constraint_matrix.shape(),
            (r, n),
        ),
        ("position residual", terms.position_residual.shape(), (r, 1)),
        ("velocity residual", terms.velocity_residual.shape(), (r, 1)),
    ];
    for (what, found, expected) in shapes {
        if found != expected {
            return Err(Error::DimensionMismatch {
                what,
                expected,
                found,
            });
        }
    }
    let rhs = servo_rhs(
        &terms.constraint_rhs,
        (&terms.position_residual, &terms.velocity_residual),
        m,
        convergence,
    )?;
    if m == 0 && r == n && k == n {
        if let Some(control) = determined(terms, convergence, &rhs, options)? {
            return finite(control);
        }
    }
    let mass = &terms.mass_matrix;
    let all = LagrangianView {
        mass_matrix: mass,
        generalized_force: &terms.generalized_force,
        constraint_matrix: &terms.constraint_matrix,
        constraint_rhs: &rhs,
        nonideal_force: terms.nonideal_force.as_ref(),
    };
    let ((target, constraint_force), factor) = solve_factored(all, options, m == 0)?;
    let factor = factor
        .or_else(|| Cholesky::new(mass.clone(), FACTOR_TOLERANCE))
        .ok_or(Error::NotPositiveDefinite {
            what: "the mass matrix (the servo controller needs M⁻¹)",
        })?;
    if let (Some(force), true) = (constraint_force, m == 0 && k == n) {
        if let Some(control) = fully_actuated(terms, convergence, &factor, &target, force)? {
            return finite(control);
        }
    }
    // The servo rows alone: [A; A_s] with the physical rows zeroed, so that every product
    // keeps the fixed sizes (the zero rows add nothing to a product or a pseudoinverse).
    let mut servo = terms.constraint_matrix.clone();
    servo.rows_mut(0, m).fill(0.0);
    // q̈₀ and, with physical rows, what G = M⁻¹ − M⁻¹Aᵀ(AM⁻¹Aᵀ)⁺AM⁻¹ needs.
    let rows: OMatrix<f64, P, N> = terms
        .constraint_matrix
        .rows_generic(0, physical)
        .into_owned();
    let (rest, projector) = if m == 0 {
        let mut free_force = terms.generalized_force.clone();
        if let Some(c) = &terms.nonideal_force {
            free_force += c;
        }
        (factor.solve(&free_force), None)
    } else {
        let physical_rhs: OVector<f64, P> = rhs.rows_generic(0, physical).into_owned();
        let view = LagrangianView {
            mass_matrix: mass,
            generalized_force: &terms.generalized_force,
            constraint_matrix: &rows,
            constraint_rhs: &physical_rhs,
            nonideal_force: terms.nonideal_force.as_ref(),
        };
        let (rest, _) = solve(view, options, false)?;
        let mut inverse_mass_at = rows.transpose();
        factor.solve_scaled_mut(&mut inverse_mass_at, 1.0);
        let gram = &rows * &inverse_mass_at;
        let multiplier = pinv_symmetric(&gram, None)?;
        (rest, Some((inverse_mass_at, multiplier)))
    };
    let mut wanted = target - &rest;
    if let Convergence::Paper { p } = convergence {
        // −M A_sᵀ(A_s A_sᵀ)⁻¹ P⁻¹ β applied through G: M⁻¹ of it is −A_sᵀ(A_s A_sᵀ)⁺β/P.
        let mut beta = terms.velocity_residual.clone();
        beta.rows_mut(0, m).fill(0.0);
        let gram = &servo * servo.transpose();
        let mut correction = -(servo.tr_mul(&(pinv(&gram, None)? * beta))) / p;
        if let Some((w, multiplier)) = &projector {
            correction -= w * (multiplier * (&rows * &correction));
        }
        wanted += correction;
    }
    let servo_force = mass * &wanted;
    let input_matrix = &terms.input_matrix;
    // G B.
    let mut response = input_matrix.clone();
    factor.solve_scaled_mut(&mut response, 1.0);
    if let Some((w, multiplier)) = &projector {
        response -= w * (multiplier * (&rows * &response));
    }
    let input = match realization {
        Realization::Force => {
            let normal = input_matrix.tr_mul(&response);
            let normal = (&normal + normal.transpose()) * 0.5;
            let projected = input_matrix.tr_mul(&wanted);
            match Cholesky::new(normal.clone(), FACTOR_TOLERANCE) {
                Some(normal_factor) => normal_factor.solve(&projected),
                None => pinv_symmetric(&normal, None)? * projected,
            }
        }
        Realization::Task => {
            let task = &servo * &response;
            let cutoff = FACTOR_TOLERANCE * servo.norm() * response.norm();
            pinv(&task, Some(cutoff))? * (&servo * &wanted)
        }
    };
    let achieved = &response * &input;
    let missing = wanted - &achieved;
    let unrealized_force = mass * &missing;
    let task_residual = -(&servo * &missing);
    finite(GenericServoControl {
        input,
        acceleration: rest + achieved,
        servo_force,
        unrealized_force,
        task_residual,
    })
}

/// [b; b_s] with the servo rows (`m`.. of `rhs`) changed by the task-space law of
/// `convergence` (b_s − K_d β − K_p e, from the `residuals` (e, β)); eq 72's term, which
/// depends on the path, is left to the caller.
///
/// # Errors
/// `InvalidOption` for a negative or non-finite gain or `p` ≤ 0.
fn servo_rhs<R: Dim>(
    rhs: &OVector<f64, R>,
    (position, velocity): (&OVector<f64, R>, &OVector<f64, R>),
    m: usize,
    convergence: Convergence,
) -> Result<OVector<f64, R>, Error>
where
    DefaultAllocator: Allocator<R>,
{
    let mut rhs = rhs.clone();
    match convergence {
        Convergence::None => {}
        Convergence::Paper { p } => {
            if !(p > 0.0 && p.is_finite()) {
                return Err(Error::InvalidOption {
                    what: "the gain P of eq 72 must be positive and finite",
                });
            }
        }
        Convergence::TaskSpace { stiffness, damping } => {
            if !(stiffness >= 0.0 && damping >= 0.0 && stiffness.is_finite() && damping.is_finite())
            {
                return Err(Error::InvalidOption {
                    what: "servo stiffness K_p and damping K_d must be finite and ≥ 0",
                });
            }
            for i in m..rhs.len() {
                rhs[i] -= damping * velocity[i] + stiffness * position[i];
            }
        }
    }
    Ok(rhs)
}

/// b* with eq 72's term for a square A_s: −β/P in every row for [`Convergence::Paper`]
/// (β = `velocity`), so that q̈* = A_s⁻¹b* carries −A_s⁻¹β/P; `rhs` unchanged for the other
/// laws.
fn with_paper_term<R: Dim>(
    mut rhs: OVector<f64, R>,
    velocity: &OVector<f64, R>,
    convergence: Convergence,
) -> OVector<f64, R>
where
    DefaultAllocator: Allocator<R>,
{
    if let Convergence::Paper { p } = convergence {
        rhs -= velocity / p;
    }
    rhs
}

/// q̈* = A_s⁻¹b* for a square A_s (`servo`, n × n) and b* (`rhs`), by [`solve_square`],
/// checked by [`check_backward_error`]. `None` when a pivot ratio is at most 1e-8 (A_s
/// singular or nearly so).
///
/// # Errors
/// As [`check_backward_error`].
fn task_acceleration<N: Dim, R: Dim>(
    n: N,
    servo: &OMatrix<f64, R, N>,
    rhs: &OVector<f64, R>,
    options: &Options,
) -> Result<Option<OVector<f64, N>>, Error>
where
    DefaultAllocator: Allocator<N, N> + Allocator<N> + Allocator<R, N> + Allocator<R>,
{
    let Some(target) = solve_square(n, servo, rhs) else {
        return Ok(None);
    };
    check_backward_error(servo, rhs, &target, options)?;
    Ok(Some(target))
}

/// The controller when the servo rows alone determine the motion and the inputs are the
/// generalized forces: no physical rows, A_s square (r = n) and B = I (k = n; a robot's joint
/// efforts, which the caller guarantees). It gives what [`control`] gives on the same
/// system, without M: q̈* = A_s⁻¹b* by one elimination with partial pivoting (b* of the
/// convergence law; eq 72's term is −A_s⁻¹β/P there, see [`control`]), then
/// u = Qᶜ_s = M q̈* − Q₀ − C₀ from `inverse_dynamics`, the system's inverse dynamics at u = 0
/// (v ↦ M v − Q₀ − C₀; recursive Newton–Euler for a kinematic tree, Featherstone 2008, Table
/// 5.1: O(n) operations, M never formed nor factored). This u realizes the task: the
/// acceleration under it is q̈* (to the rounding of the inverse dynamics), the unrealized
/// force and the task residual are 0. `Ok(None)` (for [`control`] on the full terms) when
/// r ≠ n or k ≠ n, or when a pivot of the elimination is at most 1e-8 times the largest (A_s
/// singular or nearly so). M is not formed, so it is not checked to be positive definite
/// either; u does not need M⁻¹.
///
/// # Errors
/// `InvalidOption` for bad `options` or gains (as [`control`]); `NonFinite` when A_s, b*,
/// q̈* or u is not finite; `ResidualTooLarge` when the componentwise backward error of q̈*
/// exceeds `options.residual_tolerance`.
pub fn control_by_inverse_dynamics<const N: usize, const R: usize, const K: usize>(
    task: &ServoTask<N, R>,
    inverse_dynamics: impl FnOnce(&SVector<f64, N>) -> SVector<f64, N>,
    law: impl Into<ServoLaw>,
    options: &Options,
) -> Result<Option<ServoControl<N, R, K>>, Error> {
    control_by_inverse_dynamics_generic(task, inverse_dynamics, Const::<K>, law, options)
}

/// [`control_by_inverse_dynamics`] for dynamic sizes, as a run-time model holds its task
/// terms: n = `task.constraint_matrix.ncols()` coordinates, r = `task.constraint_rhs.len()`
/// rows and `inputs` (k) inputs.
///
/// # Errors
/// As [`control_by_inverse_dynamics`]; `DimensionMismatch` when b_s or a residual has other
/// than r entries or `inverse_dynamics` returns other than n.
pub fn control_by_inverse_dynamics_dyn(
    task: &GenericServoTask<Dyn, Dyn>,
    inverse_dynamics: impl FnOnce(&OVector<f64, Dyn>) -> OVector<f64, Dyn>,
    inputs: usize,
    law: impl Into<ServoLaw>,
    options: &Options,
) -> Result<Option<GenericServoControl<Dyn, Dyn, Dyn>>, Error> {
    control_by_inverse_dynamics_generic(task, inverse_dynamics, Dyn(inputs), law, options)
}

/// The path by inverse dynamics for any nalgebra dimensions, behind
/// [`control_by_inverse_dynamics`] and [`control_by_inverse_dynamics_dyn`]: n coordinates,
/// r rows, k = `inputs` inputs. `inverse_dynamics` must return n entries.
///
/// # Errors
/// As [`control_by_inverse_dynamics`]; `DimensionMismatch` when b_s or a residual has other
/// than r entries or `inverse_dynamics` returns other than n.
fn control_by_inverse_dynamics_generic<N: Dim, R: Dim, K: Dim>(
    task: &GenericServoTask<N, R>,
    inverse_dynamics: impl FnOnce(&OVector<f64, N>) -> OVector<f64, N>,
    inputs: K,
    law: impl Into<ServoLaw>,
    options: &Options,
) -> Result<Option<GenericServoControl<N, R, K>>, Error>
where
    DefaultAllocator:
        Allocator<N, N> + Allocator<N> + Allocator<R, N> + Allocator<R> + Allocator<K>,
{
    let servo = &task.constraint_matrix;
    let (r, n) = servo.shape_generic();
    let vectors = [
        ("servo constraint vector b_s", &task.constraint_rhs),
        ("position residual", &task.position_residual),
        ("velocity residual", &task.velocity_residual),
    ];
    for (what, vector) in vectors {
        if vector.len() != r.value() {
            return Err(Error::DimensionMismatch {
                what,
                expected: (r.value(), 1),
                found: vector.shape(),
            });
        }
    }
    if r.value() != n.value() || inputs.value() != n.value() {
        return Ok(None);
    }
    options.validate()?;
    let convergence = law.into().convergence;
    let rhs = servo_rhs(
        &task.constraint_rhs,
        (&task.position_residual, &task.velocity_residual),
        0,
        convergence,
    )?;
    let rhs = with_paper_term(rhs, &task.velocity_residual, convergence);
    let Some(target) = task_acceleration(n, servo, &rhs, options)? else {
        return Ok(None);
    };
    let servo_force = inverse_dynamics(&target);
    if servo_force.len() != n.value() {
        return Err(Error::DimensionMismatch {
            what: "inverse dynamics M v − Q − C",
            expected: (n.value(), 1),
            found: servo_force.shape(),
        });
    }
    crate::validate::finite(&servo_force, "servo input u")?;
    Ok(Some(GenericServoControl {
        input: OVector::from_fn_generic(inputs, U1, |i, _| servo_force[i]),
        acceleration: target,
        servo_force,
        unrealized_force: OVector::zeros_generic(n, U1),
        task_residual: OVector::zeros_generic(r, U1),
    }))
}

/// `control`, or `NonFinite` when its input or unrealized force is not finite.
fn finite<N: Dim, R: Dim, K: Dim>(
    control: GenericServoControl<N, R, K>,
) -> Result<GenericServoControl<N, R, K>, Error>
where
    DefaultAllocator: Allocator<N> + Allocator<R> + Allocator<K>,
{
    let all = |x: &[f64]| x.iter().all(|v| v.is_finite());
    if all(control.input.as_slice()) && all(control.unrealized_force.as_slice()) {
        Ok(control)
    } else {
        Err(Error::NonFinite {
            what: "servo input u or its unrealized force",
        })
    }
}

/// The controller of a system without physical constraints whose input matrix B is square and
/// invertible (fully actuated), where both realizations give u = B⁻¹Qᶜ_s: Qᶜ_s is the
/// kernel's constraint force `force` (C + A_sᵀλ) less C₀, plus the eq 72 term, so that no
/// other solve with M is needed than the residuals'; u by [`realize_square`]. `None` when B
/// is singular or nearly so, for the general path.
fn fully_actuated<N: Dim, R: Dim, K: Dim>(
    terms: &GenericServoTerms<N, R, K>,
    convergence: Convergence,
    factor: &Cholesky<N>,
    target: &OVector<f64, N>,
    force: OVector<f64, N>,
) -> Result<Option<GenericServoControl<N, R, K>>, Error>
where
    DefaultAllocator:
        KernelAllocator<N, R> + KernelAllocator<N, K> + KernelAllocator<R, K> + Allocator<U1, N>,
{
    let mut servo_force = force;
    if let Some(c) = &terms.nonideal_force {
        servo_force -= c;
    }
    let mut target = target.clone();
    if let Convergence::Paper { p } = convergence {
        // −M A_sᵀ(A_s A_sᵀ)⁻¹ P⁻¹ β, and M⁻¹ of it for the acceleration.
        let servo = &terms.constraint_matrix;
        let gram = servo * servo.transpose();
        let step = -(servo.tr_mul(&(pinv(&gram, None)? * &terms.velocity_residual))) / p;
        servo_force += &terms.mass_matrix * &step;
        target += step;
    }
    Ok(realize_square(terms, factor, target, servo_force))
}

/// The controller when the servo rows alone determine the motion: no physical rows, A_s
/// square (s = n) and B square (k = n). Then the fundamental equation gives q̈* = A_s⁻¹b*
/// whatever M (Udwadia & Kalaba 1993, eq 17 with A M^-½ invertible: (A M^-½)⁺ = M^½A⁻¹), and
/// eq 72's term −A_sᵀ(A_s A_sᵀ)⁻¹β/P is −A_s⁻¹β/P, so that one elimination on A_s
/// ([`solve_square`]) gives q̈* and Qᶜ_s = M q̈* − Q₀ − C₀, and one on B gives u = B⁻¹Qᶜ_s
/// (none for B = I):
/// no A_s M⁻¹ A_sᵀ is formed, and M is factored once, for the acceleration under u. `None`
/// (for the general path) when a pivot of either elimination is at most 1e-8 times the
/// largest (A_s or B singular or nearly so).
///
/// # Errors
/// As [`control`]: the kernel's validation of M, Q, C, A, b ([`crate::acceleration`]),
/// `NotPositiveDefinite` for a singular M, `ResidualTooLarge` when the componentwise backward
/// error of q̈* in A_s q̈* = b* ([`check_backward_error`]) exceeds `options.residual_tolerance`.
fn determined<N: Dim, R: Dim, K: Dim>(
    terms: &GenericServoTerms<N, R, K>,
    convergence: Convergence,
    rhs: &OVector<f64, R>,
    options: &Options,
) -> Result<Option<GenericServoControl<N, R, K>>, Error>
where
    DefaultAllocator:
        KernelAllocator<N, R> + KernelAllocator<N, K> + KernelAllocator<R, K> + Allocator<U1, N>,
{
    let mass = &terms.mass_matrix;
    let rhs = with_paper_term(rhs.clone(), &terms.velocity_residual, convergence);
    crate::validate::lagrangian_inputs(
        LagrangianView {
            mass_matrix: mass,
            generalized_force: &terms.generalized_force,
            constraint_matrix: &terms.constraint_matrix,
            constraint_rhs: &rhs,
            nonideal_force: terms.nonideal_force.as_ref(),
        },
        options,
    )?;
    let factor =
        Cholesky::new(mass.clone(), FACTOR_TOLERANCE).ok_or(Error::NotPositiveDefinite {
            what: "the mass matrix (the servo controller needs M⁻¹)",
        })?;
    let (n, _) = mass.shape_generic();
    let servo = &terms.constraint_matrix;
    let Some(target) = task_acceleration(n, servo, &rhs, options)? else {
        return Ok(None);
    };
    let mut servo_force = mass * &target - &terms.generalized_force;
    if let Some(c) = &terms.nonideal_force {
        servo_force -= c;
    }
    // u = B⁻¹Qᶜ_s (Qᶜ_s itself when B = I: the inputs are the generalized forces, as a URDF
    // robot's joint efforts), and the rounding it leaves, M⁻¹ of which the acceleration
    // under u lacks.
    let input_matrix = &terms.input_matrix;
    let identity = (input_matrix.column_iter().enumerate()).all(|(j, column)| {
        column
            .iter()
            .enumerate()
            .all(|(i, &b)| b == f64::from(i == j))
    });
    let square = match identity {
        true => servo_force.clone(),
        false => match solve_square(n, input_matrix, &servo_force) {
            Some(square) => square,
            None => return Ok(None),
        },
    };
    let (_, k) = input_matrix.shape_generic();
    let input = OVector::from_fn_generic(k, U1, |i, _| square[i]);
    let unrealized_force = &servo_force - input_matrix * &input;
    let missing = factor.solve(&unrealized_force);
    Ok(Some(GenericServoControl {
        input,
        acceleration: target - &missing,
        servo_force,
        task_residual: -(servo * &missing),
        unrealized_force,
    }))
}

/// x (n entries) with A x = b for an A of n rows and n columns (`R` and `C` the storage's
/// dimensions), by Gaussian elimination with partial pivoting (Golub & Van Loan 2013,
/// Algorithm 3.4.1) on the rows equilibrated by powers of two (exact), in an n × n copy.
/// `None` when a pivot |uₖₖ| is at most 1e-8 times the largest (A singular or nearly so).
///
/// The copy holds A's rows contiguously (the storage of Aᵀ) and each step subtracts whole
/// rows, so that for fixed n every inner loop has a constant length and compiles to
/// straight-line vector code. The pivot search exchanges row k with each candidate that beats
/// the largest so far, as it goes (the same pivot as a search then one exchange: the first
/// of the largest): every exchange is a branch and its rows' addresses are loop indices, not
/// the searched index, so a predicted branch lets the loads of the following update start
/// before the search is done (an exchange at a searched address kept them waiting for the
/// search, or for its stores: a third of the solve's time on the UR5 circle's A_s). The
/// reciprocal of each candidate is taken beside the search, off its chain, and the back
/// substitution goes by columns (each xₖ, once known, leaves the rows above), a chain of one
/// product and one difference per step.
fn solve_square<N: Dim, R: Dim, C: Dim>(
    n: N,
    a: &OMatrix<f64, R, C>,
    b: &OVector<f64, R>,
) -> Option<OVector<f64, N>>
where
    DefaultAllocator: Allocator<N, N> + Allocator<N> + Allocator<R, C> + Allocator<R>,
{
    let size = n.value();
    let mut x = OVector::<f64, N>::from_fn_generic(n, U1, |i, _| b[i]);
    let mut work = OMatrix::<f64, N, N>::from_fn_generic(n, n, |j, i| a[(i, j)]);
    let (w, x_slice) = (work.as_mut_slice(), x.as_mut_slice());
    // Row i is w[i n..(i + 1) n].
    for (row, xi) in w.chunks_exact_mut(size).zip(x_slice.iter_mut()) {
        let scale = crate::scaling::unit_scale(crate::validate::max_magnitude(row));
        for v in row.iter_mut() {
            *v *= scale;
        }
        *xi *= scale;
    }
    let (mut smallest, mut largest) = (f64::INFINITY, 0.0_f64);
    // 1/uₖₖ, for the back substitution too: a product instead of a division on its chain.
    let mut inverses = OVector::<f64, N>::zeros_generic(n, U1);
    for k in 0..size {
        let first = w[k * size + k];
        let (mut best, mut inverse) = (first.abs(), 1.0 / first);
        for i in k + 1..size {
            let value = w[i * size + k];
            let reciprocal = 1.0 / value;
            if value.abs() > best {
                (best, inverse) = (value.abs(), reciprocal);
                let (upper, lower) = w.split_at_mut(i * size);
                upper[k * size..(k + 1) * size].swap_with_slice(&mut lower[..size]);
                x_slice.swap(k, i);
            }
        }
        // Plain comparisons (one each) where f64::min/max would also sort out NaNs, which
        // the backward error catches.
        if best < smallest {
            smallest = best;
        }
        if best > largest {
            largest = best;
        }
        if best == 0.0 {
            return None;
        }
        inverses[k] = inverse;
        let (upper, lower) = w.split_at_mut((k + 1) * size);
        let (pivot_row, xk) = (&upper[k * size..], x_slice[k]);
        // The whole row: the entries left of k are never read again.
        for (row, xi) in lower.chunks_exact_mut(size).zip(&mut x_slice[k + 1..]) {
            let l = row[k] * inverse;
            for (t, u) in row.iter_mut().zip(pivot_row) {
                *t -= l * u;
            }
            *xi -= l * xk;
        }
    }
    if smallest <= FACTOR_TOLERANCE * largest {
        return None;
    }
    for k in (0..size).rev() {
        let xk = x_slice[k] * inverses[k];
        x_slice[k] = xk;
        for (i, xi) in x_slice[..k].iter_mut().enumerate() {
            *xi -= w[i * size + k] * xk;
        }
    }
    Some(x)
}

/// Checks x against A x = b (A square, here A_s q̈* = b*) by its componentwise backward error
/// (Oettli & Prager 1964), maxᵢ |(A x − b)ᵢ| / (|A| |x| + |b|)ᵢ, free of the rows' units (0
/// for rows that are 0). The residual and |A| |x| + |b| are accumulated column by column
/// (A's storage order) and compared without a division; the error itself is formed only
/// when a row fails.
///
/// # Errors
/// `NonFinite` when an entry of A, b or x is not finite (then a row's |A| |x| + |b| is ∞ or
/// NaN); `ResidualTooLarge` when the backward error exceeds `options.residual_tolerance`.
fn check_backward_error<N: Dim, R: Dim>(
    a: &OMatrix<f64, R, N>,
    b: &OVector<f64, R>,
    x: &OVector<f64, N>,
    options: &Options,
) -> Result<(), Error>
where
    DefaultAllocator: Allocator<R, N> + Allocator<R> + Allocator<N>,
{
    let mut residual = -b;
    let mut size = b.abs();
    let (residual, size) = (residual.as_mut_slice(), size.as_mut_slice());
    for (column, &xj) in a.as_slice().chunks_exact(b.len()).zip(x.as_slice()) {
        for ((r, s), &aij) in residual.iter_mut().zip(size.iter_mut()).zip(column) {
            let term = aij * xj;
            *r += term;
            *s += term.abs();
        }
    }
    let tolerance = options.residual_tolerance;
    let rows = || residual.iter().zip(size.iter());
    // Every row at once (no early exit: a few lanes of vector compares).
    let within =
        |ok: bool, (r, s): (&f64, &f64)| ok & (r.abs() <= tolerance * s) & (*s <= f64::MAX);
    if rows().fold(true, within) {
        return Ok(());
    }
    if rows().any(|(_, s)| !s.is_finite()) {
        return Err(Error::NonFinite {
            what: "servo constraints A_s, b* or acceleration q̈*",
        });
    }
    let error = rows()
        .map(|(r, s)| if *s == 0.0 { 0.0 } else { r.abs() / s })
        .fold(0.0, f64::max);
    crate::residual::check(error, options)
}

/// u = (BᵀB)⁻¹BᵀQᶜ_s for a square B, the unrealized force Qᶜ_s − B u (rounding when B is
/// invertible), and the acceleration under u, q̈* less M⁻¹ of it (`factor` is M's). `None`
/// when B is singular or nearly so (a pivot ratio of BᵀB at most 1e-8), for the general path.
fn realize_square<N: Dim, R: Dim, K: Dim>(
    terms: &GenericServoTerms<N, R, K>,
    factor: &Cholesky<N>,
    target: OVector<f64, N>,
    servo_force: OVector<f64, N>,
) -> Option<GenericServoControl<N, R, K>>
where
    DefaultAllocator:
        KernelAllocator<N, R> + KernelAllocator<N, K> + KernelAllocator<R, K> + Allocator<U1, N>,
{
    let input_matrix = &terms.input_matrix;
    let gram = Cholesky::new(input_matrix.tr_mul(input_matrix), FACTOR_TOLERANCE)?;
    let input = gram.solve(&input_matrix.tr_mul(&servo_force));
    let unrealized_force = &servo_force - input_matrix * &input;
    let missing = factor.solve(&unrealized_force);
    Some(GenericServoControl {
        input,
        acceleration: target - &missing,
        servo_force,
        task_residual: -(&terms.constraint_matrix * &missing),
        unrealized_force,
    })
}

/// The servo input of `system` at (q, q̇, t) under `law` ([`ServoSystem::control`]: [`control`]
/// on [`ServoSystem::servo_terms`], or the path by inverse dynamics where it applies).
///
/// # Errors
/// As [`control`].
pub fn servo_control<S, const N: usize, const M: usize, const R: usize, const K: usize>(
    system: &S,
    q: &SVector<f64, N>,
    qd: &SVector<f64, N>,
    t: f64,
    law: impl Into<ServoLaw>,
    options: &Options,
) -> Result<ServoControl<N, R, K>, Error>
where
    S: ServoSystem<N, M, R, K> + ?Sized,
{
    system.control(q, qd, t, law.into(), options)
}

/// `system` closed by its servo controller: the [`ClosedLoop`] whose law is the input of
/// [`servo_control`] at each state, a `LagrangianSystem` for the simulator.
///
/// Where the controller fails (a singular M, inconsistent constraints), the law returns NaN
/// inputs, and the simulator stops the run there with its `NonFinite` dynamics error: no
/// sample after it is recorded.
// The law's type is a closure: it can only be named as `impl Fn(..)`, inside the ClosedLoop.
#[allow(clippy::type_complexity)]
pub fn servo_loop<S, const N: usize, const M: usize, const R: usize, const K: usize>(
    system: &S,
    law: impl Into<ServoLaw>,
    options: Options,
) -> ClosedLoop<'_, S, impl Fn(f64, &SVector<f64, N>, &SVector<f64, N>) -> SVector<f64, K> + '_, K>
where
    S: ServoSystem<N, M, R, K>,
{
    let law = law.into();
    system.closed_loop(move |t, q, qd| {
        servo_control::<S, N, M, R, K>(system, q, qd, t, law, &options)
            .map_or_else(|_| SVector::repeat(f64::NAN), |c| c.input)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{matrix, vector, Matrix2x3, SMatrix};

    /// Each convergence law, with gains of order 1.
    const LAWS: [Convergence; 3] = [
        Convergence::None,
        Convergence::Paper { p: 0.5 },
        Convergence::TaskSpace {
            stiffness: 4.0,
            damping: 3.0,
        },
    ];

    /// A planar point of mass diag(2, 3) with the servo rows x = 0 (holonomic) and ẏ = 1.
    fn terms<const K: usize>(input_matrix: SMatrix<f64, 2, K>) -> ServoTerms<2, 2, K> {
        ServoTerms {
            mass_matrix: matrix![2.0, 0.0; 0.0, 3.0],
            generalized_force: vector![0.5, -9.81 * 3.0],
            nonideal_force: None,
            input_matrix,
            constraint_matrix: matrix![1.0, 0.0; 0.0, 1.0],
            constraint_rhs: vector![0.0, 0.0],
            position_residual: vector![0.2, 0.0],
            velocity_residual: vector![-0.1, 0.4],
        }
    }

    #[test]
    fn the_fully_actuated_path_agrees_with_the_general_one() {
        for law in LAWS {
            // B square: the fast path; B with a third, idle column: the general one.
            let b = matrix![1.0, 0.5; 0.0, 2.0];
            let fast = control::<2, 0, 2, 2>(&terms(b), law, &Options::default()).unwrap();
            let wide = Matrix2x3::new(b[(0, 0)], b[(0, 1)], 0.0, b[(1, 0)], b[(1, 1)], 0.0);
            let general = control::<2, 0, 2, 3>(&terms(wide), law, &Options::default()).unwrap();
            assert!(
                (fast.input - general.input.rows(0, 2)).norm() < 1e-12,
                "{law:?}"
            );
            assert!(general.input[2].abs() < 1e-12);
            for (x, y) in [
                (fast.acceleration, general.acceleration),
                (fast.servo_force, general.servo_force),
                (fast.unrealized_force, general.unrealized_force),
            ] {
                assert!((x - y).norm() < 1e-12, "{law:?}: {x} against {y}");
            }
            assert!(fast.realized(1e-12) && general.realized(1e-12));
            // The servo rows under u: ẍ = −K_d ẋ − K_p x and ÿ = −K_d (ẏ − 1) for the
            // task-space law.
            if let Convergence::TaskSpace { stiffness, damping } = law {
                let expected = vector![-damping * -0.1 - stiffness * 0.2, -damping * 0.4];
                assert!((fast.acceleration - expected).norm() < 1e-12);
            }
        }
    }

    /// Three coordinates with a full M, three servo rows of different scales (a square A_s)
    /// and a full B; K = 4 adds an idle fourth input (which takes the general path).
    fn determined_terms<const K: usize>() -> ServoTerms<3, 3, K> {
        let b = matrix![1.0, 0.5, 0.0; -0.3, 2.0, 0.1; 0.2, 0.0, 1.5];
        ServoTerms {
            mass_matrix: matrix![4.0, 1.0, 0.5; 1.0, 3.0, -0.2; 0.5, -0.2, 2.0],
            generalized_force: vector![0.5, -9.81, 1.25],
            nonideal_force: Some(vector![0.1, 0.0, -0.3]),
            input_matrix: SMatrix::from_fn(|i, j| if j < 3 { b[(i, j)] } else { 0.0 }),
            constraint_matrix: matrix![1e3, 2e3, 0.0; 0.0, 1.0, 1.0; 1e-3, 0.0, 4e-3],
            constraint_rhs: vector![5.0, -0.25, 1e-3],
            position_residual: vector![0.02, 0.0, 0.0],
            velocity_residual: vector![-0.1, 0.4, 0.3],
        }
    }

    /// Asserts that `fast` (3 inputs) is `general` (the same terms with an idle fourth input),
    /// relative to |u|, |q̈|, |Qᶜ_s| and, for the task rows, ‖A_s‖_∞ |q̈| (rounding).
    fn assert_agree(
        law: Convergence,
        fast: &ServoControl<3, 3, 3>,
        general: &ServoControl<3, 3, 4>,
    ) {
        assert!(general.input[3].abs() < 1e-12);
        let (force, acceleration) = (general.servo_force.amax(), general.acceleration.amax());
        let pairs = [
            (fast.input.as_slice(), &general.input.as_slice()[..3], force),
            (
                fast.acceleration.as_slice(),
                general.acceleration.as_slice(),
                acceleration,
            ),
            (
                fast.servo_force.as_slice(),
                general.servo_force.as_slice(),
                force,
            ),
            (
                fast.unrealized_force.as_slice(),
                general.unrealized_force.as_slice(),
                force,
            ),
            (
                fast.task_residual.as_slice(),
                general.task_residual.as_slice(),
                3e3 * acceleration,
            ),
        ];
        for (x, y, scale) in pairs {
            let error = (x.iter().zip(y)).fold(0.0_f64, |e, (a, b)| e.max((a - b).abs()));
            assert!(
                error < 1e-12 * scale.max(1.0),
                "{law:?}: {x:?} against {y:?}"
            );
        }
    }

    #[test]
    fn the_determined_path_agrees_with_the_general_one() {
        for law in LAWS {
            let options = Options::default();
            let fast = control::<3, 0, 3, 3>(&determined_terms(), law, &options).unwrap();
            let general = control::<3, 0, 3, 4>(&determined_terms(), law, &options).unwrap();
            assert_agree(law, &fast, &general);
            let acceleration = general.acceleration.amax();
            // The task rows hold under u: A_s q̈ = b*, with eq 72's −β/P in b*.
            let terms = determined_terms::<3>();
            let mut expected = terms.constraint_rhs;
            match law {
                Convergence::None => {}
                Convergence::Paper { p } => expected -= terms.velocity_residual / p,
                Convergence::TaskSpace { stiffness, damping } => {
                    expected -=
                        terms.velocity_residual * damping + terms.position_residual * stiffness
                }
            }
            let found = terms.constraint_matrix * fast.acceleration;
            assert!(
                (found - expected).amax() < 1e-12 * 3e3 * acceleration,
                "{law:?}"
            );
        }
    }

    #[test]
    fn the_determined_path_with_dynamic_sizes_is_the_fixed_one() {
        let terms = determined_terms::<3>();
        let dynamic = GenericServoTerms {
            mass_matrix: nalgebra::DMatrix::from_column_slice(3, 3, terms.mass_matrix.as_slice()),
            generalized_force: nalgebra::DVector::from_column_slice(
                terms.generalized_force.as_slice(),
            ),
            nonideal_force: (terms.nonideal_force.as_ref())
                .map(|c| nalgebra::DVector::from_column_slice(c.as_slice())),
            input_matrix: nalgebra::DMatrix::from_column_slice(3, 3, terms.input_matrix.as_slice()),
            constraint_matrix: nalgebra::DMatrix::from_column_slice(
                3,
                3,
                terms.constraint_matrix.as_slice(),
            ),
            constraint_rhs: nalgebra::DVector::from_column_slice(terms.constraint_rhs.as_slice()),
            position_residual: nalgebra::DVector::from_column_slice(
                terms.position_residual.as_slice(),
            ),
            velocity_residual: nalgebra::DVector::from_column_slice(
                terms.velocity_residual.as_slice(),
            ),
        };
        for law in LAWS {
            let fixed = control::<3, 0, 3, 3>(&terms, law, &Options::default()).unwrap();
            let found = control_dyn(&dynamic, 0, law, &Options::default()).unwrap();
            // The same operations in the same order, up to nalgebra's summation order.
            for (x, y) in [
                (found.input.as_slice(), fixed.input.as_slice()),
                (found.acceleration.as_slice(), fixed.acceleration.as_slice()),
            ] {
                let scale = y.iter().fold(1.0_f64, |m, v| m.max(v.abs()));
                let error = (x.iter().zip(y)).fold(0.0_f64, |e, (a, b)| e.max((a - b).abs()));
                assert!(error <= 1e-15 * scale, "{law:?}: {x:?} against {y:?}");
            }
        }
    }

    #[test]
    fn a_singular_task_leaves_the_determined_path() {
        // The third row is twice the first: rank 2, and b consistent with it.
        let mut terms = determined_terms::<3>();
        terms.constraint_matrix = matrix![1.0, 2.0, 0.0; 0.0, 1.0, 1.0; 2.0, 4.0, 0.0];
        terms.constraint_rhs = vector![1.0, -0.25, 2.0];
        let law = Convergence::None;
        let control = control::<3, 0, 3, 3>(&terms, law, &Options::default()).unwrap();
        let rows = terms.constraint_matrix * control.acceleration;
        assert!((rows - terms.constraint_rhs).amax() < 1e-12, "{rows}");
        assert!(control.realized(1e-12));
    }

    /// The task of [`determined_terms`].
    fn task_of<const K: usize>(terms: &ServoTerms<3, 3, K>) -> ServoTask<3, 3> {
        ServoTask {
            constraint_matrix: terms.constraint_matrix,
            constraint_rhs: terms.constraint_rhs,
            position_residual: terms.position_residual,
            velocity_residual: terms.velocity_residual,
        }
    }

    /// v ↦ M v − Q₀ − C₀ of `terms`.
    fn inverse_dynamics<const K: usize>(
        terms: &ServoTerms<3, 3, K>,
    ) -> impl Fn(&SVector<f64, 3>) -> SVector<f64, 3> + '_ {
        |v| {
            let c = terms.nonideal_force.unwrap_or_default();
            terms.mass_matrix * v - terms.generalized_force - c
        }
    }

    #[test]
    fn the_path_by_inverse_dynamics_agrees_with_the_general_one() {
        // B = I: the inputs are the generalized forces; the general path gets an idle fourth.
        let mut terms = determined_terms::<4>();
        terms.input_matrix = SMatrix::identity();
        for law in LAWS {
            let options = Options::default();
            let task = task_of(&terms);
            let fast = control_by_inverse_dynamics::<3, 3, 3>(
                &task,
                inverse_dynamics(&terms),
                law,
                &options,
            )
            .unwrap()
            .expect("A_s is nonsingular");
            let general = control::<3, 0, 3, 4>(&terms, law, &options).unwrap();
            assert_agree(law, &fast, &general);
        }
    }

    #[test]
    fn the_path_by_inverse_dynamics_steps_aside_or_refuses() {
        let terms = determined_terms::<3>();
        let options = Options::default();
        let law = Convergence::None;
        // A singular task (the third row twice the first): the general path's business.
        let mut task = task_of(&terms);
        task.constraint_matrix = matrix![1.0, 2.0, 0.0; 0.0, 1.0, 1.0; 2.0, 4.0, 0.0];
        let found =
            control_by_inverse_dynamics::<3, 3, 3>(&task, inverse_dynamics(&terms), law, &options);
        assert_eq!(found, Ok(None));
        // Fewer inputs than coordinates: not this path.
        let found = control_by_inverse_dynamics::<3, 3, 2>(
            &task_of(&terms),
            inverse_dynamics(&terms),
            law,
            &options,
        );
        assert_eq!(found, Ok(None));
        // A NaN in b_s, bad gains.
        let mut task = task_of(&terms);
        task.constraint_rhs[1] = f64::NAN;
        let found =
            control_by_inverse_dynamics::<3, 3, 3>(&task, inverse_dynamics(&terms), law, &options);
        assert!(matches!(found, Err(Error::NonFinite { .. })), "{found:?}");
        let found = control_by_inverse_dynamics::<3, 3, 3>(
            &task_of(&terms),
            inverse_dynamics(&terms),
            Convergence::Paper { p: -1.0 },
            &options,
        );
        assert!(
            matches!(found, Err(Error::InvalidOption { .. })),
            "{found:?}"
        );
    }

    #[test]
    fn the_path_by_inverse_dynamics_pivots() {
        // A_s with a zero leading entry (rows of the well-posed task swapped): elimination
        // without row exchanges meets a zero pivot at once and would leave the path.
        let mut terms = determined_terms::<3>();
        terms.constraint_matrix = matrix![0.0, 1.0, 1.0; 1e3, 2e3, 0.0; 1e-3, 0.0, 4e-3];
        terms.constraint_rhs = vector![-0.25, 5.0, 1e-3];
        let law = Convergence::None;
        let fast = control_by_inverse_dynamics::<3, 3, 3>(
            &task_of(&terms),
            inverse_dynamics(&terms),
            law,
            &Options::default(),
        )
        .unwrap()
        .expect("A_s is nonsingular");
        let rows = terms.constraint_matrix * fast.acceleration;
        let scale = 3e3 * fast.acceleration.amax();
        assert!(
            (rows - terms.constraint_rhs).amax() < 1e-14 * scale,
            "{rows}"
        );
        let general = control::<3, 0, 3, 3>(&terms, law, &Options::default()).unwrap();
        let (found, expected) = (fast.servo_force, general.servo_force);
        assert!(
            (found - expected).amax() < 1e-12 * expected.amax(),
            "{found}"
        );
    }

    #[test]
    fn a_non_finite_task_leaves_the_path_or_is_refused() {
        let terms = determined_terms::<3>();
        let run = |task: &ServoTask<3, 3>| {
            let (law, options) = (Convergence::None, Options::default());
            control_by_inverse_dynamics::<3, 3, 3>(task, inverse_dynamics(&terms), law, &options)
        };
        // An infinite entry of A_s: its pivot makes the pivot ratio 0, so the general path
        // (which validates its inputs) answers.
        let mut task = task_of(&terms);
        task.constraint_matrix[(0, 0)] = f64::INFINITY;
        assert_eq!(run(&task), Ok(None));
        // An infinite entry of b_s: q̈* is not finite, the backward error is NaN.
        let mut task = task_of(&terms);
        task.constraint_rhs[2] = f64::NEG_INFINITY;
        assert!(matches!(run(&task), Err(Error::NonFinite { .. })));
    }

    #[test]
    fn bad_gains_are_refused() {
        let t = terms(matrix![1.0, 0.0; 0.0, 1.0]);
        for law in [
            Convergence::Paper { p: 0.0 },
            Convergence::Paper { p: f64::NAN },
            Convergence::TaskSpace {
                stiffness: -1.0,
                damping: 0.0,
            },
        ] {
            let error = control::<2, 0, 2, 2>(&t, law, &Options::default()).unwrap_err();
            assert!(matches!(error, Error::InvalidOption { .. }), "{error}");
        }
    }
}
