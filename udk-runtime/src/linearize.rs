//! Linearization of the constrained motion about an operating point (q*, q̇*, u*, t*): the
//! state-space matrices (A_ss, B_ss) of the motion restricted to the constraint manifold, in
//! a state of independent coordinates and velocities, and the eigenvalues of A_ss.
//!
//! # Method
//! The linearization of constrained multibody equations in independent coordinates of
//! Peterson, Gede & Hubbard (2015), "Symbolic linearization of equations of motion of
//! constrained multibody systems", Multibody Syst. Dyn. 33, 143–161, sections 3–4, with the
//! constrained acceleration q̈(q, q̇, u, t) of the Udwadia–Kalaba equation in place of
//! Kane's equations. With n coordinates, h holonomic constraints f(q, t) = 0 and m
//! velocity-level constraints g(q, q̇, t) = 0 (ḟ for the holonomic rows, φ for the
//! nonholonomic ones):
//!
//! 1. **Coordinates.** The holonomic rows of A are F = ∂f/∂q (h × n). The coordinates split into
//!    independent I, dependent D and held H ones, with F_D of full column rank rank(F); on
//!    the manifold δf = F δq = 0 gives δq_D = −F_D⁺ F_I δq_I, and δq_H = 0. So
//!    δq = T_q δq_I.
//! 2. **Velocities.** ∂g/∂q̇ = A (m × n, the `constraint_matrix` of the terms) and
//!    ∂g/∂q = G_q (`velocity_residual_jacobian`). The velocities split into independent J,
//!    dependent D′ (A_D′ of full column rank rank(A)) and held H′ ones; δg = 0 gives
//!    δq̇_D′ = −A_D′⁺ (G_q δq + A_J δq̇_J), δq̇_H′ = 0. So δq̇ = T_v (δq_I, δq̇_J).
//! 3. **Dynamics.** With ∂q̈/∂q, ∂q̈/∂q̇ and ∂q̈/∂u from `acceleration_jacobian_with`, the state
//!    x = (δq_I, δq̇_J) moves by ẋ = A_ss x + B_ss δu with
//!    A_ss = [T_v[I, :]; (∂q̈/∂q T_q [I 0] + ∂q̈/∂q̇ T_v)[J, :]] and
//!    B_ss = [0; ∂q̈/∂u[J, :]].
//!
//! ⁺ is the Moore–Penrose inverse, so redundant constraints are allowed. Held coordinates and
//! velocities are those neither independent nor needed as dependent: ignorable coordinates
//! (the position and heading of a bicycle on flat ground, its wheel angles) and velocities
//! held by assumption (a bicycle's rear-wheel rate at constant speed). Holding a coordinate is
//! right only when q̈ does not depend on it.
//!
//! When no independent set is given, the dependent entries are chosen by column-pivoted QR of
//! F (coordinates) and A (velocities), and every other entry is independent. When it is given,
//! the dependent ones are chosen the same way among the entries neither independent nor held.
//!
//! # Models with and without inputs
//! [`linearize`] takes a [`ControlledLagrangianSystem`] (k inputs). A [`LagrangianSystem`]
//! (generated without `inputs`) is passed through the adapter
//! [`WithoutInputs`](crate::WithoutInputs), with k = 0 and an empty u.
//!
//! [`LagrangianSystem`]: crate::LagrangianSystem

mod partition;

pub use partition::Partition;

use crate::control::ControlledLagrangianSystem;
use crate::{Error, Options};
use nalgebra::{Complex, DMatrix, DVector, SMatrix, SVector};
use std::ops::AddAssign;

/// The operating point (q*, q̇*, u*, t*) with n = `N` coordinates and k = `K` inputs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OperatingPoint<const N: usize, const K: usize> {
    /// The coordinates q*, n entries.
    pub q: SVector<f64, N>,
    /// The velocities q̇*, n entries.
    pub qd: SVector<f64, N>,
    /// The inputs u*, k entries (empty for a model without inputs).
    pub u: SVector<f64, K>,
    /// The time t* (s).
    pub t: f64,
}

/// Which coordinates and velocities are independent (the linearized state) and which are held
/// at their operating values; indices into q (0-based). The default chooses automatically and
/// holds nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    /// The independent coordinates q_I, in the order of the state; `None`: chosen by pivoted
    /// QR of ∂f/∂q.
    pub coordinates: Option<Vec<usize>>,
    /// The independent velocities q̇_J, in the order of the state; `None`: chosen by pivoted QR
    /// of A.
    pub velocities: Option<Vec<usize>>,
    /// Coordinates held at their operating values (never dependent).
    pub held_coordinates: Vec<usize>,
    /// Velocities held at their operating values (never dependent).
    pub held_velocities: Vec<usize>,
}

/// Options of [`linearize`].
#[derive(Clone, Debug, PartialEq)]
pub struct LinearizationOptions {
    /// How far the operating point may violate each constraint (absolute, in its units, ≥ 0):
    /// every holonomic fᵢ(q*, t*) and every velocity-level row gᵢ(q*, q̇*, t*). Default 1e-8.
    pub constraint_tolerance: f64,
    /// Options of the acceleration kernels; its rank tolerance also decides the rank of the
    /// constraint Jacobians in the pivoted QR.
    pub kernel: Options,
}

impl Default for LinearizationOptions {
    fn default() -> Self {
        Self {
            constraint_tolerance: 1e-8,
            kernel: Options::default(),
        }
    }
}

/// The linearized motion ẋ = A_ss x + B_ss δu in the state x = (δq_I, δq̇_J).
#[derive(Clone, Debug, PartialEq)]
pub struct Linearization {
    /// The coordinates: q_I (the first p entries of x), the dependent and the held ones.
    pub coordinates: Partition,
    /// The velocities: q̇_J (the last r entries of x), the dependent and the held ones.
    pub velocities: Partition,
    /// A_ss, (p + r) × (p + r), in units of 1/s (rows of δq̇) and 1/s² (rows of δq̈).
    pub a: DMatrix<f64>,
    /// B_ss, (p + r) × k: zero in the p rows of δq̇, ∂q̈_J/∂u below.
    pub b: DMatrix<f64>,
    /// The p + r eigenvalues of A_ss (1/s), sorted by real part, then imaginary part.
    pub eigenvalues: Vec<Complex<f64>>,
}

/// What the linearization needs at the operating point, for n coordinates, m constraints
/// (h holonomic) and k inputs, in dynamic sizes: what [`linearize`] gathers from a system, or
/// a caller with run-time sizes (the `udk` CLI's tapes) from its own evaluation.
#[derive(Clone, Debug, PartialEq)]
pub struct Derivatives {
    /// h, the number of holonomic constraints: the first h rows of A and of `velocity_residual`.
    pub holonomic: usize,
    /// f(q*, t*), the h holonomic constraints.
    pub holonomic_residual: DVector<f64>,
    /// g(q*, q̇*, t*), the m velocity-level constraints (ḟ, then φ).
    pub velocity_residual: DVector<f64>,
    /// A = ∂g/∂q̇, m × n; its first h rows are ∂f/∂q.
    pub constraint_matrix: DMatrix<f64>,
    /// G_q = ∂g/∂q, m × n.
    pub velocity_residual_jacobian: DMatrix<f64>,
    /// ∂q̈/∂q, n × n (1/s²).
    pub wrt_q: DMatrix<f64>,
    /// ∂q̈/∂q̇, n × n (1/s).
    pub wrt_qd: DMatrix<f64>,
    /// ∂q̈/∂u, n × k.
    pub wrt_u: DMatrix<f64>,
}

/// Linearizes `system` (n = `N` coordinates, m = `M` constraints, k = `K` inputs) about
/// `point`, in the independent coordinates and velocities of `selection`, by the method of the
/// [module documentation](self) (Peterson, Gede & Hubbard 2015).
///
/// # Errors
/// - `NonFinite` for a non-finite operating point; `InvalidOption` for bad options.
/// - `ConstraintViolated` naming the first constraint row the point violates by more than
///   [`LinearizationOptions::constraint_tolerance`] (position level first).
/// - From the system: `JacobianUnavailable` when it has no Jacobians, `RankChange` where q̈ is
///   not differentiable, or the acceleration's own errors.
/// - As [`linearize_derivatives`] otherwise.
pub fn linearize<S, const N: usize, const M: usize, const K: usize>(
    system: &S,
    point: &OperatingPoint<N, K>,
    selection: &Selection,
    options: &LinearizationOptions,
) -> Result<Linearization, Error>
where
    S: ControlledLagrangianSystem<N, M, K> + ?Sized,
{
    let OperatingPoint { q, qd, u, t } = point;
    let (q, qd, u, t) = (q, qd, u, *t);
    let finite = q
        .iter()
        .chain(qd.iter())
        .chain(u.iter())
        .all(|x| x.is_finite());
    if !(finite && t.is_finite()) {
        return Err(Error::NonFinite {
            what: "operating point (q, q̇, u, t)",
        });
    }
    options.validate()?;
    let h = S::NUM_HOLONOMIC.min(M);
    let holonomic_residual =
        DVector::from_iterator(h, system.holonomic_residual(q, t).iter().take(h).copied());
    let velocity_residual =
        DVector::from_column_slice(system.velocity_residual(q, qd, u, t).as_slice());
    check_operating_point(
        &holonomic_residual,
        &velocity_residual,
        h,
        options.constraint_tolerance,
    )?;
    let jacobian = system.acceleration_jacobian_with(q, qd, u, t, &options.kernel)?;
    let derivatives = Derivatives {
        holonomic: h,
        holonomic_residual,
        velocity_residual,
        constraint_matrix: dynamic(&system.terms(q, qd, u, t).constraint_matrix),
        velocity_residual_jacobian: dynamic(&system.velocity_residual_jacobian(q, qd, u, t)?),
        wrt_q: dynamic(&jacobian.wrt_q),
        wrt_qd: dynamic(&jacobian.wrt_qd),
        wrt_u: dynamic(&jacobian.wrt_u),
    };
    linearize_derivatives(&derivatives, selection, options)
}

/// `m` with run-time sizes.
fn dynamic<const R: usize, const C: usize>(m: &SMatrix<f64, R, C>) -> DMatrix<f64> {
    DMatrix::from_column_slice(R, C, m.as_slice())
}

impl LinearizationOptions {
    /// `Err(InvalidOption)` for a bad field.
    fn validate(&self) -> Result<(), Error> {
        self.kernel.validate()?;
        if !(self.constraint_tolerance.is_finite() && self.constraint_tolerance >= 0.0) {
            return Err(Error::InvalidOption {
                what: "constraint_tolerance must be finite and non-negative",
            });
        }
        Ok(())
    }
}

/// The linearization from the derivatives at the operating point, by the method of the
/// [module documentation](self): [`linearize`] for callers that evaluate the system
/// themselves.
///
/// # Errors
/// - `DimensionMismatch` when the shapes of `derivatives` disagree; `NonFinite` for a
///   non-finite entry; `InvalidOption` for bad options.
/// - `ConstraintViolated` naming the first constraint row violated by more than
///   [`LinearizationOptions::constraint_tolerance`] (position level first).
/// - `InvalidSelection` for an index ≥ n or repeated, or a selection that leaves the
///   constraints unsolvable for the dependent entries.
/// - `NoConvergence` if the eigenvalue iteration (real Schur form) does not converge.
pub fn linearize_derivatives(
    derivatives: &Derivatives,
    selection: &Selection,
    options: &LinearizationOptions,
) -> Result<Linearization, Error> {
    options.validate()?;
    let d = derivatives;
    let (n, m, k, h) = (
        d.wrt_q.nrows(),
        d.constraint_matrix.nrows(),
        d.wrt_u.ncols(),
        d.holonomic,
    );
    if h > m {
        return Err(Error::DimensionMismatch {
            what: "holonomic constraint count h (more than the m rows of A)",
            expected: (m, 1),
            found: (h, 1),
        });
    }
    for (what, found, expected) in [
        ("holonomic residual f", d.holonomic_residual.shape(), (h, 1)),
        ("velocity residual g", d.velocity_residual.shape(), (m, 1)),
        ("constraint matrix A", d.constraint_matrix.shape(), (m, n)),
        (
            "velocity-residual Jacobian",
            d.velocity_residual_jacobian.shape(),
            (m, n),
        ),
        ("∂q̈/∂q", d.wrt_q.shape(), (n, n)),
        ("∂q̈/∂q̇", d.wrt_qd.shape(), (n, n)),
        ("∂q̈/∂u", d.wrt_u.shape(), (n, k)),
    ] {
        if found != expected {
            return Err(Error::DimensionMismatch {
                what,
                expected,
                found,
            });
        }
    }
    let all = [
        &d.constraint_matrix,
        &d.velocity_residual_jacobian,
        &d.wrt_q,
        &d.wrt_qd,
        &d.wrt_u,
    ];
    if !all.iter().all(|x| x.iter().all(|v| v.is_finite())) {
        return Err(Error::NonFinite {
            what: "derivatives at the operating point",
        });
    }
    check_operating_point(
        &d.holonomic_residual,
        &d.velocity_residual,
        h,
        options.constraint_tolerance,
    )?;

    let a = &d.constraint_matrix;
    let f_q = a.rows(0, h).into_owned();
    let tolerance = options.kernel.rank_tolerance();
    let coordinates = partition::partition(
        &f_q,
        selection.coordinates.as_deref(),
        &selection.held_coordinates,
        tolerance,
    )?;
    let velocities = partition::partition(
        a,
        selection.velocities.as_deref(),
        &selection.held_velocities,
        tolerance,
    )?;
    let (p, r) = (coordinates.independent.len(), velocities.independent.len());

    // δq = T_q δq_I, n × p.
    let mut t_q = DMatrix::zeros(n, p);
    let f_independent = f_q.select_columns(&coordinates.independent);
    let dependent = solve_dependent(&f_q, &coordinates, &f_independent)?;
    place(&mut t_q, &coordinates, &DMatrix::identity(p, p), &dependent);

    // δq̇ = T_v (δq_I, δq̇_J), n × (p + r): the columns of δq_I, then those of δq̇_J.
    let mut known = DMatrix::zeros(m, p + r);
    known
        .columns_mut(0, p)
        .copy_from(&(&d.velocity_residual_jacobian * &t_q));
    known
        .columns_mut(p, r)
        .copy_from(&a.select_columns(&velocities.independent));
    let mut own = DMatrix::zeros(r, p + r);
    own.columns_mut(p, r).fill_with_identity();
    let mut t_v = DMatrix::zeros(n, p + r);
    let dependent = solve_dependent(a, &velocities, &known)?;
    place(&mut t_v, &velocities, &own, &dependent);

    // δq̈ = ∂q̈/∂q δq + ∂q̈/∂q̇ δq̇ + ∂q̈/∂u δu.
    let mut qdd = &d.wrt_qd * &t_v;
    qdd.columns_mut(0, p).add_assign(&(&d.wrt_q * &t_q));
    let mut a_ss = DMatrix::zeros(p + r, p + r);
    a_ss.rows_mut(0, p)
        .copy_from(&t_v.select_rows(&coordinates.independent));
    a_ss.rows_mut(p, r)
        .copy_from(&qdd.select_rows(&velocities.independent));
    let mut b_ss = DMatrix::zeros(p + r, k);
    b_ss.rows_mut(p, r)
        .copy_from(&d.wrt_u.select_rows(&velocities.independent));
    if !a_ss.iter().chain(b_ss.iter()).all(|x| x.is_finite()) {
        return Err(Error::NonFinite {
            what: "linearized state matrices (A_ss, B_ss)",
        });
    }
    let eigenvalues = sorted_eigenvalues(&a_ss)?;
    Ok(Linearization {
        coordinates,
        velocities,
        a: a_ss,
        b: b_ss,
        eigenvalues,
    })
}

/// Checks an operating point against its constraints: `f` the h = `holonomic` holonomic
/// constraints f(q*, t*), `g` the m velocity-level rows g(q*, q̇*, t*) (ḟ, then φ), each in its
/// own units, against the absolute `tolerance`. [`linearize`] and [`linearize_derivatives`]
/// call it; a caller can call it before computing the derivatives.
///
/// # Errors
/// `ConstraintViolated` for the first entry of `f`, then of `g`, whose magnitude exceeds
/// `tolerance` or is NaN (its row, whether the row is holonomic, and the level).
pub fn check_operating_point(
    f: &DVector<f64>,
    g: &DVector<f64>,
    holonomic: usize,
    tolerance: f64,
) -> Result<(), Error> {
    let h = holonomic;
    let rows = (f.iter().enumerate().map(|(row, &r)| (row, false, r)))
        .chain(g.iter().enumerate().map(|(row, &r)| (row, true, r)));
    for (row, velocity_level, residual) in rows {
        if residual.is_nan() || residual.abs() > tolerance {
            return Err(Error::ConstraintViolated {
                row,
                holonomic: row < h,
                velocity_level,
                residual,
                tolerance,
            });
        }
    }
    Ok(())
}

/// The dependent entries in terms of the state: −c_D⁺ `known` (|D| × columns of `known`),
/// where c δx = 0 reads c_D δx_D + known · (state) = 0. c_D has full column rank (the
/// partition chose it so), and the least-squares solution is exact on the manifold.
fn solve_dependent(
    c: &DMatrix<f64>,
    split: &Partition,
    known: &DMatrix<f64>,
) -> Result<DMatrix<f64>, Error> {
    if split.dependent.is_empty() {
        return Ok(DMatrix::zeros(0, known.ncols()));
    }
    let c_d = c.select_columns(&split.dependent);
    let svd = c_d.svd(true, true);
    let solution = svd.solve(known, 0.0).map_err(|_| Error::NoConvergence {
        what: "SVD of the dependent constraint columns",
    })?;
    Ok(-solution)
}

/// Writes the rows of the independent entries (`own`) and of the dependent ones into
/// `target` (n × columns); the rows of the held entries stay zero.
fn place(
    target: &mut DMatrix<f64>,
    split: &Partition,
    own: &DMatrix<f64>,
    dependent: &DMatrix<f64>,
) {
    for (k, &i) in split.independent.iter().enumerate() {
        target.row_mut(i).copy_from(&own.row(k));
    }
    for (k, &i) in split.dependent.iter().enumerate() {
        target.row_mut(i).copy_from(&dependent.row(k));
    }
}

/// The eigenvalues of the square matrix `a` from its real Schur form, sorted by real part,
/// then imaginary part.
///
/// # Errors
/// `NoConvergence` if the QR iteration does not converge within 1000 · (size + 1) sweeps.
pub(crate) fn sorted_eigenvalues(a: &DMatrix<f64>) -> Result<Vec<Complex<f64>>, Error> {
    if a.is_empty() {
        return Ok(Vec::new());
    }
    let iterations = 1000 * (a.nrows() + 1);
    let schur = nalgebra::linalg::Schur::try_new(a.clone(), f64::EPSILON, iterations).ok_or(
        Error::NoConvergence {
            what: "real Schur decomposition (eigenvalues of A_ss)",
        },
    )?;
    let mut eigenvalues: Vec<Complex<f64>> = schur.complex_eigenvalues().iter().copied().collect();
    eigenvalues.sort_by(|x, y| x.re.total_cmp(&y.re).then(x.im.total_cmp(&y.im)));
    Ok(eigenvalues)
}
