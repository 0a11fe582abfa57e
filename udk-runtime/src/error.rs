//! The typed error every kernel returns instead of a panic, a NaN or a wrong answer.

/// Why a kernel could not return a trustworthy result.
///
/// Every public function of this crate returns `Result<_, Error>`; none panics on bad
/// input and none returns a non-finite number.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The acceleration is not determined by the equations of motion: the (n + m) × n matrix
    /// [M; A] has rank `rank` < `n` (Udwadia & Phohomsiri 2006, Result 3 and Lemma 3.1).
    /// The minimum-norm solution is still available from
    /// [`reference_acceleration`](crate::reference_acceleration) (eq 2.14 with η = 0).
    #[error("the constrained acceleration is not unique: rank [M; A] = {rank} < n = {n}; {free}")]
    NonUniqueAcceleration {
        /// Numerical rank of [M; A].
        rank: usize,
        /// Number of generalized coordinates.
        n: usize,
        /// The coordinates whose acceleration the equations leave free.
        free: FreeCoordinates,
    },
    /// A q̈ = b (or A_p ṗ = b_p) has no solution: the residual of the best (least-squares)
    /// candidate exceeds
    /// [`Options::consistency_tolerance`](crate::Options::consistency_tolerance) relative to
    /// the scale of A q̈ and b. No least-squares answer is returned as if it were motion.
    #[error("the constraints are inconsistent: ‖A q̈ − b‖ = {residual:e}")]
    InconsistentConstraints {
        /// ‖A q̈ − b‖₂ of the least-squares candidate, for the rows of A q̈ = b equilibrated
        /// (each scaled by a power of two to max |Aᵢⱼ| ∈ [1, 2)).
        residual: f64,
    },
    /// The a-posteriori check failed: the answer violates its constraints A q̈ = b (or
    /// A_p ṗ = b_p). `residual` is ρ = ‖A q̈ − b‖_∞ / (‖A‖_∞ (‖q̈‖_∞ + ‖a‖_∞) + ‖b‖_∞) of the
    /// row-equilibrated constraints (a the unconstrained acceleration), above `tolerance`
    /// = [`Options::residual_tolerance`](crate::Options::residual_tolerance). Raised instead
    /// of returning an answer spoiled by overflow, underflow or a wrong rank decision.
    #[error(
        "the result violates A q̈ = b: relative residual {residual:e} > tolerance {tolerance:e}"
    )]
    ResidualTooLarge {
        /// The relative residual ρ (dimensionless; NaN if the answer overflowed).
        residual: f64,
        /// The tolerance it exceeded.
        tolerance: f64,
    },
    /// An input (or, after overflow, an output) contains NaN or ±∞.
    #[error("{what} contains a NaN or an infinite entry")]
    NonFinite {
        /// Which quantity, e.g. `"mass matrix M"`.
        what: &'static str,
    },
    /// A matrix that must be symmetric is not (relative asymmetry above 1e-10).
    #[error("{what} is not symmetric")]
    NotSymmetric {
        /// Which matrix, e.g. `"mass matrix M"`.
        what: &'static str,
    },
    /// A matrix that must be positive semidefinite has a negative eigenvalue.
    #[error("{what} is not positive semidefinite")]
    NotPositiveSemidefinite {
        /// Which matrix.
        what: &'static str,
    },
    /// A matrix that must be positive definite is (numerically) singular or indefinite.
    #[error("{what} is not positive definite")]
    NotPositiveDefinite {
        /// Which matrix, e.g. `"H_pp"` or `"weighting matrix G"`.
        what: &'static str,
    },
    /// A dynamically sized input has the wrong shape.
    #[error("{what} has shape {found:?}, expected {expected:?}")]
    DimensionMismatch {
        /// Which input.
        what: &'static str,
        /// Expected (rows, columns).
        expected: (usize, usize),
        /// Actual (rows, columns).
        found: (usize, usize),
    },
    /// A field of [`Options`](crate::Options) is out of range.
    #[error("invalid option: {what}")]
    InvalidOption {
        /// What is wrong.
        what: &'static str,
    },
    /// An iterative decomposition (SVD, symmetric eigendecomposition) did not converge.
    #[error("the {what} did not converge")]
    NoConvergence {
        /// Which decomposition.
        what: &'static str,
    },
    /// The system does not provide the derivative asked for: a hand-written system, or a
    /// closed loop whose control law has no derivative.
    #[error("{what} is not available for this system")]
    JacobianUnavailable {
        /// Which derivative, e.g. `"the acceleration Jacobian"`.
        what: &'static str,
    },
    /// The derivative does not exist at this state: the numerical rank of A (or of [M; A])
    /// is about to change, so q̈ is not differentiable there.
    #[error("{what} changes rank at this state: the derivative does not exist")]
    RankChange {
        /// Which matrix, e.g. `"constraint matrix A"`.
        what: &'static str,
    },
    /// The state violates a constraint: |residual| > `tolerance` (or NaN) in constraint row
    /// `row` (0-based, the rows of A). Raised by [`crate::linearize::linearize`] for an
    /// operating point off the constraint manifold.
    #[error(
        "constraint row {row} ({}, {} level) is violated: residual {residual:e} > tolerance {tolerance:e}",
        if *holonomic { "holonomic" } else { "nonholonomic" },
        if *velocity_level { "velocity" } else { "position" }
    )]
    ConstraintViolated {
        /// The row of A (and of the residuals) of the violated constraint.
        row: usize,
        /// Whether the row is one of the `NUM_HOLONOMIC` holonomic constraints f(q, t) = 0.
        holonomic: bool,
        /// `false`: f(q, t) itself is violated; `true`: its velocity-level row ḟ (or, for a
        /// nonholonomic row, φ(q, q̇, t)).
        velocity_level: bool,
        /// The residual (in the units of the constraint).
        residual: f64,
        /// The absolute tolerance it exceeded.
        tolerance: f64,
    },
    /// Coulomb friction leaves the forces of sliding contacts with no consistent solution, or
    /// with more than one: Painlevé's paradox (Génot & Brogliato 1999). Either the linear
    /// system of the sliding contacts' normal forces, whose friction −μλₙ feeds back on λₙ,
    /// is singular, or a sliding contact whose force would pull (λₙ < 0) would sink into its
    /// surface if it opened, at a start, where the tangential impact that resolves it during a
    /// run (an impulse that brings the contact to stick) would change the velocity given.
    #[error("Coulomb friction at {contacts} is indeterminate (Painlevé's paradox): {reason}")]
    IndeterminateFriction {
        /// The contacts concerned, by name, comma-separated.
        contacts: String,
        /// Which of the two cases.
        reason: &'static str,
    },
    /// A choice of independent, held or dependent coordinates (or velocities) cannot be used:
    /// `what` says why.
    #[error("invalid choice of coordinates: {what}")]
    InvalidSelection {
        /// Why, e.g. `"an index is repeated"`.
        what: &'static str,
    },
}

impl Error {
    /// The error with the model's coordinate names (n of them, in order) attached to a
    /// [`Error::NonUniqueAcceleration`], so that its message names the free coordinates;
    /// any other error, or names of the wrong count, is returned unchanged.
    #[must_use]
    pub fn with_coordinate_names<S: AsRef<str>>(self, names: &[S]) -> Self {
        match self {
            Error::NonUniqueAcceleration { rank, n, free } if names.len() == n => {
                Error::NonUniqueAcceleration {
                    rank,
                    n,
                    free: free.named(names),
                }
            }
            other => other,
        }
    }
}

/// The coordinates whose acceleration a rank-deficient [M; A] leaves free: those with a
/// nonzero diagonal entry in the projector I − 𝓜⁺𝓜 onto the null space of
/// 𝓜 = [(I − A⁺A)M; A] (which has the null space of [M; A]; Udwadia & Phohomsiri 2006,
/// Lemma 3.1). Adding a null vector to q̈ changes exactly these entries.
///
/// Shown as `free coordinates: psi, phi` (by name once the model's names are attached with
/// [`Error::with_coordinate_names`], else `q3, q1`, one-based). With two or more, the message
/// adds that angles of one rotation at a singularity (gimbal lock) give this, and that Euler
/// parameters (`quat_to_rot`) have none.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FreeCoordinates {
    indices: Vec<usize>,
    names: Vec<String>,
}

impl FreeCoordinates {
    /// The free coordinates with zero-based `indices`, unnamed.
    pub fn new(indices: Vec<usize>) -> Self {
        Self {
            indices,
            names: Vec::new(),
        }
    }

    /// Their zero-based indices, in increasing order.
    pub fn indices(&self) -> &[usize] {
        &self.indices
    }

    /// Their names, one per index, once attached; empty before.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Named by `coordinates`, the names of all n coordinates.
    fn named<S: AsRef<str>>(self, coordinates: &[S]) -> Self {
        let names = (self.indices.iter())
            .filter_map(|&i| coordinates.get(i).map(|c| c.as_ref().to_string()))
            .collect();
        Self { names, ..self }
    }
}

impl std::fmt::Display for FreeCoordinates {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let listed: Vec<String> = match self.names.len() == self.indices.len() {
            true => self.names.clone(),
            false => self.indices.iter().map(|i| format!("q{}", i + 1)).collect(),
        };
        match listed.len() {
            0 => write!(f, "the free coordinates could not be told apart"),
            1 => write!(f, "free coordinate: {}", listed[0]),
            _ => write!(
                f,
                "free coordinates: {}; if these are angles of one rotation, it is at a \
                 singularity (gimbal lock), which Euler parameters (`quat_to_rot`) do not have",
                listed.join(", ")
            ),
        }
    }
}
