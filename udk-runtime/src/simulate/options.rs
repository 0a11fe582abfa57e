//! What a simulation run is asked to do: integrator, tolerances, output times, drift control.

use super::EventLimits;
use crate::{AssemblyOptions, Options};

/// The integration method.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Method {
    /// Dormand–Prince 8(5,3), adaptive, with 7th-order dense output (Hairer, Nørsett & Wanner,
    /// "Solving ODEs I", section II.10), from the `differential-equations` crate.
    Dop853,
    /// Dormand–Prince 5(4), adaptive, with 4th-order dense output, from `differential-equations`.
    Dopri5,
    /// The classical fixed-step 4th-order Runge–Kutta method with step `step` (s, > 0), from
    /// `differential-equations`; output between steps is cubic Hermite interpolation. `rtol`
    /// and `atol` are not used.
    Rk4 {
        /// The step size h (s).
        step: f64,
    },
    /// Radau IIA of order 5 (3 stages), implicit and L-stable, adaptive, with simplified
    /// Newton iterations (Hairer & Wanner, "Solving ODEs II", section IV.8), from
    /// `differential-equations`. For stiff systems.
    ///
    /// The Newton matrix uses the Jacobian of ẋ = (q̇, q̈(q, q̇, t)) from
    /// [`crate::LagrangianSystem::acceleration_jacobian_with`] (exact for generated models). It
    /// leaves out the Baumgarte terms, which changes the Newton convergence, not the accuracy
    /// (the error estimate uses the full right-hand side). Where that Jacobian is not
    /// available (`JacobianUnavailable`: a [`crate::ClosedLoop`], a Hamiltonian system, a
    /// hand-written system) or does not exist (`RankChange`), the crate's forward-difference
    /// Jacobian is used instead (2n extra right-hand sides each, counted in
    /// [`super::Stats::rhs_evaluations`]).
    Radau5,
    /// Variable-order (1–5), variable-step backward differentiation formulas in the NDF form
    /// of Shampine & Reichelt (1997, "The MATLAB ODE suite", as in SciPy's `BDF`), implicit,
    /// adaptive, with Newton iterations, from `differential-equations`. For stiff systems;
    /// Jacobian as for [`Method::Radau5`].
    Bdf,
}

/// When the trajectory is recorded.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OutputTimes {
    /// At t₀ and at the end of every accepted integrator step (dense in the integrator's own
    /// sense: every point it computes).
    Steps,
    /// At t₀, t₀ + Δt, t₀ + 2Δt, … and at t_f. The field is Δt (s, > 0). The integration is
    /// split at these times, so each output is a step end, at the method's full accuracy (no
    /// dense-output interpolation).
    Every(f64),
}

/// Baumgarte's stabilization of the constraint equations (Baumgarte 1972): A q̈ = b is
/// integrated as A q̈ = b̃ with
/// - b̃ᵢ = bᵢ − 2α ḟᵢ − β² fᵢ on a row from a holonomic constraint fᵢ(q, t) = 0, so that
///   f̈ + 2α ḟ + β² f = 0 and a drifted fᵢ decays instead of growing;
/// - b̃ᵢ = bᵢ − γ φᵢ on a row from a nonholonomic constraint φᵢ(q, q̇, t) = 0, so that
///   φ̇ + γ φ = 0.
///
/// For a Hamiltonian system the same is done with A_p ṗ = b_p: on a row from a holonomic f,
/// φᵢ = ḟᵢ through q̇ = H_p and b_p,ᵢ ← b_p,ᵢ − 2α φᵢ − β² fᵢ; on a row given as φᵢ(q, p, t) = 0,
/// b_p,ᵢ ← b_p,ᵢ − γ φᵢ. On the constraint manifold f = ḟ = φ = 0 the motion is unchanged.
///
/// The defaults α = β = γ = 5 s⁻¹ give critical damping of f with time constant 0.2 s: fast
/// next to the motions of the paper examples (periods of seconds), slow next to the steps
/// DOP853 takes at rtol 1e-10, so the equations do not become stiff. Scale them with the
/// fastest frequency of your system.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Baumgarte {
    /// α (1/s, ≥ 0): damping of the holonomic constraints.
    pub alpha: f64,
    /// β (1/s, ≥ 0): stiffness of the holonomic constraints.
    pub beta: f64,
    /// γ (1/s, ≥ 0): decay rate of the nonholonomic (and Hamiltonian φ) constraints.
    pub gamma: f64,
}

impl Default for Baumgarte {
    fn default() -> Self {
        Self {
            alpha: 5.0,
            beta: 5.0,
            gamma: 5.0,
        }
    }
}

/// Projection of the state back onto the constraint manifold at the output times, by
/// [`crate::consistent_state`] (or [`crate::consistent_hamiltonian_state`]) with no coordinate
/// held fixed.
///
/// Lagrangian systems: the coordinates by Gauss–Newton steps q ← q − A_f⁺ f(q, t) (A_f the
/// holonomic rows of A, which are ∂f/∂q), then the velocities by q̇ ← q̇ − A⁺ r(q, q̇, t) with r
/// the velocity-level residual (ḟ, φ) and A the whole constraint matrix (rows ∂f/∂q and
/// ∂φ/∂q̇). Hamiltonian systems: the coordinates with ∂f/∂q = A_p,f H_pp⁻¹ (eq 9 of Udwadia
/// 2016), then the momenta by p ← p − A_p⁺ φ(q, p, t). ⁺ is the Moore–Penrose inverse
/// ([`crate::pinv`]), so each correction is the smallest one.
///
/// Each piece of the run between output times starts from the projected state. Needs
/// [`OutputTimes::Every`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Projection {
    /// Stop iterating when the Euclidean norm of the residual is ≤ this (absolute, in the
    /// units of f or φ). Default 1e-13.
    pub tolerance: f64,
    /// At most this many Gauss–Newton steps per level. Default 8.
    pub max_iterations: usize,
}

impl Projection {
    /// The same tolerance and iteration limit for [`crate::consistent_state`], no coordinate
    /// held fixed.
    pub(crate) fn assembly_options(&self) -> AssemblyOptions {
        AssemblyOptions {
            tolerance: self.tolerance,
            max_iterations: self.max_iterations,
            fixed: Vec::new(),
        }
    }
}

impl Default for Projection {
    fn default() -> Self {
        Self {
            tolerance: 1e-13,
            max_iterations: 8,
        }
    }
}

/// Options of [`crate::simulate::simulate_lagrangian`] and
/// [`crate::simulate::simulate_hamiltonian`].
///
/// The default: DOP853, rtol 1e-10, atol 1e-12, output at every step, Baumgarte stabilization
/// with the default gains, no projection, initial state within 1e-8 of each constraint, at most
/// 10⁵ steps and 10⁶ samples, default kernel [`Options`] and [`EventLimits`].
#[derive(Clone, Debug, PartialEq)]
pub struct SimulationOptions {
    /// The integrator.
    pub method: Method,
    /// Relative tolerance of the adaptive methods (> 0).
    pub rtol: f64,
    /// Absolute tolerance of the adaptive methods (> 0), in the units of each state entry.
    pub atol: f64,
    /// When to record the trajectory.
    pub output: OutputTimes,
    /// Drift control inside the equations; `None` integrates A q̈ = b as derived.
    pub stabilization: Option<Baumgarte>,
    /// Projection onto the constraint manifold at the output times; `None` (the default)
    /// leaves the integrated state as it is.
    pub projection: Option<Projection>,
    /// How far the initial state may violate each constraint (absolute, ≥ 0): every holonomic
    /// fᵢ(q₀, t₀) and every velocity-level row (ḟᵢ, φᵢ, or φᵢ(q₀, p₀, t₀)) must be within it,
    /// after the projection when [`SimulationOptions::projection`] is set. Default 1e-8. A
    /// rough start can be made consistent first by [`crate::consistent_state`].
    pub constraint_tolerance: f64,
    /// The run stops with an integrator error after this many integrator steps (accepted and
    /// rejected, over the whole run). Default 10⁵, as DifferentialEquations.jl's `maxiters`:
    /// seconds on a large robot, so that a run that cannot finish (an end time of 10⁹ s at
    /// rtol 10⁻¹⁴) stops with a message naming this option instead of running for hours.
    pub max_steps: usize,
    /// The most samples a trajectory may hold (≥ 2): [`OutputTimes::Every`] with more output
    /// times is refused before the run, and an [`OutputTimes::Steps`] run stops with an
    /// integrator error when it reaches this many. Bounds the memory of a run
    /// (`(2n + 4) · 8` bytes a sample). Default 10⁶.
    pub max_samples: usize,
    /// Options of the acceleration kernels (tolerances, α and G of the augmented mass matrix).
    pub kernel: Options,
    /// Bounds on the events of a run with events ([`super::simulate_lagrangian_with_events`]).
    pub events: EventLimits,
}

impl Default for SimulationOptions {
    fn default() -> Self {
        Self {
            method: Method::Dop853,
            rtol: 1e-10,
            atol: 1e-12,
            output: OutputTimes::Steps,
            stabilization: Some(Baumgarte::default()),
            projection: None,
            constraint_tolerance: 1e-8,
            max_steps: 100_000,
            max_samples: 1_000_000,
            kernel: Options::default(),
            events: EventLimits::default(),
        }
    }
}

impl SimulationOptions {
    /// The default options with output every `dt` seconds ([`OutputTimes::Every`]).
    pub fn every(dt: f64) -> Self {
        Self {
            output: OutputTimes::Every(dt),
            ..Self::default()
        }
    }

    /// Checks every field; `what` names the first bad one.
    pub(crate) fn validate(&self, t0: f64, tf: f64) -> Result<(), &'static str> {
        let positive = |x: f64| x.is_finite() && x > 0.0;
        let non_negative = |x: f64| x.is_finite() && x >= 0.0;
        if !(t0.is_finite() && tf.is_finite() && tf > t0) {
            return Err("the final time must be finite and after the initial time");
        }
        if !(positive(self.rtol) && positive(self.atol)) {
            return Err("rtol and atol must be finite and positive");
        }
        if let Method::Rk4 { step } = self.method {
            if !positive(step) {
                return Err("the RK4 step must be finite and positive");
            }
        }
        if self.max_samples < 2 {
            return Err("max_samples must be at least 2");
        }
        match self.output {
            OutputTimes::Every(dt) if !positive(dt) => {
                return Err("the output interval must be finite and positive");
            }
            // The output times t₀ + kΔt, a time within 10⁻⁹Δt of t_f being t_f.
            OutputTimes::Every(dt)
                if ((tf - t0) / dt - 1e-9).ceil() + 1.0 > self.max_samples as f64 =>
            {
                return Err("the output interval gives more output times than max_samples");
            }
            OutputTimes::Every(dt) if dt < 4.0 * f64::EPSILON * t0.abs().max(tf.abs()) => {
                return Err("the output interval is too small to tell the output times apart");
            }
            OutputTimes::Steps if self.projection.is_some() => {
                return Err("projection needs fixed output times (OutputTimes::Every)");
            }
            _ => {}
        }
        if let Some(gains) = self.stabilization {
            if ![gains.alpha, gains.beta, gains.gamma]
                .into_iter()
                .all(non_negative)
            {
                return Err("the Baumgarte gains must be finite and non-negative");
            }
        }
        if let Some(projection) = self.projection {
            if !non_negative(projection.tolerance) {
                return Err("the projection tolerance must be finite and non-negative");
            }
        }
        if !non_negative(self.constraint_tolerance) {
            return Err("the constraint tolerance must be finite and non-negative");
        }
        if self.max_steps == 0 {
            return Err("max_steps must be positive");
        }
        self.events.validate()?;
        self.kernel.validate().map_err(|_| "invalid kernel options")
    }
}
