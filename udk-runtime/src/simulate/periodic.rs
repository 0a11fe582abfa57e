//! Periodic orbits of hybrid systems (walkers, rolling wheels): the Poincaré return map at an
//! event, its fixed point by Newton's method, and the Floquet multipliers of the orbit from the
//! state transition matrix of the flow and the saltation matrix of the reset.

use super::dynamic::{DynamicLagrange, DynamicLagrangianSystem};
use super::dynamics::{finite, join, split, Dynamics, Lagrangian, Phase, State, WithOptions};
use super::events::{Action, Event};
use super::integrate::run_to_end;
use super::{OutputTimes, Projection, Sample, SimulationError, SimulationOptions};
use crate::linearize::sorted_eigenvalues;
use crate::{pinv, Error, LagrangianSystem};
use nalgebra::{Complex, Const, DMatrix, DVector, Dyn, OMatrix, SMatrix, SVector};
use std::ops::ControlFlow;

/// Options of [`periodic_orbit`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OrbitOptions {
    /// Newton stops when ‖P(x) − x‖∞ ≤ this, relative to max(1, ‖x‖∞). Default 1e-10.
    pub tolerance: f64,
    /// At most this many Newton iterations. Default 20.
    pub max_iterations: usize,
    /// The relative step of the central differences of the reset map, and of the guard of an
    /// event without [`Event::with_gradient`]. Default 1e-5.
    pub step: f64,
    /// A return must reach the event within this time (s). Default 100.
    pub max_period: f64,
}

impl Default for OrbitOptions {
    fn default() -> Self {
        Self {
            tolerance: 1e-10,
            max_iterations: 20,
            step: 1e-5,
            max_period: 100.0,
        }
    }
}

/// A periodic orbit through the section of an event, n = `N` coordinates.
#[derive(Clone, Debug, PartialEq)]
pub struct PeriodicOrbit<const N: usize> {
    /// The fixed point x* = (q, v) of the return map, on the section just after the reset.
    pub q: SVector<f64, N>,
    /// Its velocities q̇ (n entries).
    pub v: SVector<f64, N>,
    /// The period τ (s): the time from the section back to it.
    pub period: f64,
    /// The monodromy matrix S Φ (2n × 2n, state order (q, v)).
    pub monodromy: DMatrix<f64>,
    /// The Floquet multipliers: the 2n − 1 eigenvalues of the monodromy matrix besides the one
    /// nearest 1 (the flow direction), by decreasing magnitude. A reset onto a set of lower
    /// dimension adds zeros.
    pub multipliers: Vec<Complex<f64>>,
    /// The Newton iterations taken.
    pub iterations: usize,
}

/// Why [`periodic_orbit`] failed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum OrbitError<const N: usize> {
    /// A run failed.
    #[error("a return of the orbit failed: {0}")]
    Simulation(#[from] SimulationError<N>),
    /// The event did not fire within [`OrbitOptions::max_period`].
    #[error("the event did not fire within {max_period} s of the section")]
    NoReturn {
        /// The bound (s).
        max_period: f64,
    },
    /// The reset map, a pseudoinverse or the eigenvalues failed; the guard is not crossed
    /// transversally (∇g·f⁻ = 0); or the options are out of range.
    #[error("the orbit's linearization failed: {0}")]
    Kernel(#[from] Error),
    /// Newton's method did not bring ‖P(x) − x‖ under the tolerance.
    #[error("no periodic orbit found: ‖P(x) − x‖ = {residual:e} after {iterations} iterations")]
    NoConvergence {
        /// The iterations taken.
        iterations: usize,
        /// The last residual.
        residual: f64,
    },
}

/// One return from the section: the event time τ, the state x⁻ before the reset and x⁺ after,
/// and the state transition matrix Φ = ∂x(τ)/∂x(0) of the flow (2n × 2n).
struct Return {
    period: f64,
    before: DVector<f64>,
    after: DVector<f64>,
    transition: DMatrix<f64>,
}

/// What the variational equations integrate: n rows, the state (q, v) in columns 0 and 1, and
/// column j of Φ as columns 2 + 2j (its q part) and 3 + 2j (its v part), j < 2n.
type Tangents<const N: usize> = OMatrix<f64, Const<N>, Dyn>;

/// A system in first-order form with its variational equations: ẋ = f(t, x) and
/// Φ̇ = Df(t, x) Φ, with Df = [[0, I], [∂a/∂q, ∂a/∂v]] from the system's exact acceleration
/// Jacobian ([`Dynamics::jacobian`]). Integrated together, by the one method and step
/// control of the run, they give x(t) and Φ(t) = ∂x(t)/∂x(0).
///
/// The Jacobian leaves out Baumgarte's terms. They vanish to first order along the constraint
/// manifold (f = ḟ = 0 there, and so do their derivatives along it), so Φ is exact on the
/// manifold's tangent vectors, where the orbit's multipliers live.
struct Variational<'d, D>(&'d D);

impl<D: Dynamics<N, Integrated = State<N>>, const N: usize> Dynamics<N> for Variational<'_, D> {
    type Integrated = Tangents<N>;

    fn kind(&self) -> super::StateKind {
        self.0.kind()
    }

    fn derivative(&self, t: f64, x: &Tangents<N>) -> Result<Tangents<N>, Error> {
        let state = x.motion();
        let (wrt_q, wrt_v) = self.0.jacobian(t, &state)?;
        let count = x.ncols() / 2 - 1;
        let mut xd = Tangents::<N>::zeros(x.ncols());
        xd.fixed_columns_mut::<2>(0)
            .copy_from(&self.0.derivative(t, &state)?);
        let (dq, dv) = (
            x.columns_with_step(2, count, 1),
            x.columns_with_step(3, count, 1),
        );
        let rate = wrt_q * dq + wrt_v * dv;
        xd.columns_with_step_mut(2, count, 1).copy_from(&dv);
        xd.columns_with_step_mut(3, count, 1).copy_from(&rate);
        finite(&xd, "variational equations Φ̇ = Df Φ")?;
        Ok(xd)
    }

    fn jacobian(
        &self,
        t: f64,
        x: &Tangents<N>,
    ) -> Result<(SMatrix<f64, N, N>, SMatrix<f64, N, N>), Error> {
        self.0.jacobian(t, &x.motion())
    }

    fn sample(&self, t: f64, x: &Tangents<N>) -> Sample<N> {
        self.0.sample(t, &x.motion())
    }

    fn state_columns(&self) -> Vec<String> {
        self.0.state_columns()
    }

    fn residuals(&self, t: f64, x: &Tangents<N>) -> (Vec<f64>, Vec<f64>) {
        self.0.residuals(t, &x.motion())
    }

    /// The state projected, Φ kept.
    fn project(
        &self,
        t: f64,
        x: &Tangents<N>,
        projection: &Projection,
    ) -> Result<Tangents<N>, Error> {
        Ok(x.with_motion(&self.0.project(t, &x.motion(), projection)?))
    }
}

/// The return map and its Jacobians for one system (in first-order form) and event.
struct ReturnMap<'s, D, const N: usize> {
    dynamics: &'s D,
    event: &'s Event<'s, N>,
    options: SimulationOptions,
    orbit: OrbitOptions,
}

/// x = (q, v) as one 2n-vector, and back.
fn stack<const N: usize>(q: &SVector<f64, N>, v: &SVector<f64, N>) -> DVector<f64> {
    DVector::from_iterator(2 * N, q.iter().chain(v.iter()).copied())
}

fn halves<const N: usize>(x: &DVector<f64>) -> (SVector<f64, N>, SVector<f64, N>) {
    (
        SVector::from_iterator(x.rows(0, N).iter().copied()),
        SVector::from_iterator(x.rows(N, N).iter().copied()),
    )
}

impl<D: Dynamics<N, Integrated = State<N>>, const N: usize> ReturnMap<'_, D, N> {
    /// Integrates the flow and its variational equations from x⁺ (Φ = I) at t = 0 to the
    /// first firing of the event.
    fn step(&self, x: &DVector<f64>) -> Result<Return, OrbitError<N>> {
        let event = self.event;
        let stop = Event::new(
            event.name.clone(),
            event.direction,
            |t, q, v| event.value(t, q, v),
            Action::Stop,
        )
        .when(|t, q, v| event.holds(t, q, v));
        let max_period = self.orbit.max_period;
        let (q, v) = halves::<N>(x);
        let mut start = Tangents::<N>::zeros(2 + 4 * N);
        start.fixed_columns_mut::<2>(0).copy_from(&join(&q, &v));
        for j in 0..2 * N {
            start[(j % N, 2 + 2 * j + j / N)] = 1.0;
        }
        let (run, end) = run_to_end(
            &Variational(self.dynamics),
            (start, 0.0, max_period),
            &self.options,
            &[stop],
            &mut |_| ControlFlow::Continue(()),
        )?;
        let fired = run
            .events
            .first()
            .ok_or(OrbitError::NoReturn { max_period })?;
        let before = stack(&fired.before.0, &fired.before.1);
        let after = self.reset(fired.t, &before)?;
        let transition = DMatrix::from_fn(2 * N, 2 * N, |i, j| end[(i % N, 2 + 2 * j + i / N)]);
        Ok(Return {
            period: fired.t,
            before,
            after,
            transition,
        })
    }

    /// The event's reset map on a stacked state.
    fn reset(&self, t: f64, x: &DVector<f64>) -> Result<DVector<f64>, Error> {
        let (q, v) = halves::<N>(x);
        match &self.event.action {
            Action::Reset(reset) => reset(t, &q, &v).map(|(q, v)| stack(&q, &v)),
            Action::Stop | Action::Record => Ok(x.clone()),
        }
    }

    /// ẋ = (q̇, q̈) at x (on the constraint manifold, where stabilization changes nothing).
    fn flow(&self, t: f64, x: &DVector<f64>) -> Result<DVector<f64>, Error> {
        let (q, v) = halves::<N>(x);
        let (v, a) = split(&self.dynamics.derivative(t, &join(&q, &v))?);
        Ok(stack(&v, &a))
    }

    /// Central differences of the algebraic map `f` at x, one column per state entry.
    fn differences(
        &self,
        x: &DVector<f64>,
        mut f: impl FnMut(&DVector<f64>) -> Result<DVector<f64>, Error>,
    ) -> Result<DMatrix<f64>, Error> {
        let mut columns = Vec::with_capacity(2 * N);
        for j in 0..2 * N {
            let h = self.orbit.step * x[j].abs().max(1.0);
            let (mut plus, mut minus) = (x.clone(), x.clone());
            plus[j] += h;
            minus[j] -= h;
            columns.push((f(&plus)? - f(&minus)?) / (2.0 * h));
        }
        Ok(DMatrix::from_columns(&columns))
    }

    /// (DP, S Φ) of the return `back`.
    fn jacobians(&self, back: &Return) -> Result<(DMatrix<f64>, DMatrix<f64>), OrbitError<N>> {
        let tau = back.period;
        let (q, v) = halves::<N>(&back.before);
        let gradient = match self.event.gradient(tau, &q, &v) {
            Some((wrt_q, wrt_v)) => stack(&wrt_q, &wrt_v),
            None => {
                let guard = self.differences(&back.before, |x| {
                    let (q, v) = halves::<N>(x);
                    Ok(DVector::from_element(1, self.event.value(tau, &q, &v)))
                })?;
                guard.row(0).transpose()
            }
        };
        let reset = self.differences(&back.before, |x| self.reset(tau, x))?;
        let (before, after) = (self.flow(tau, &back.before)?, self.flow(tau, &back.after)?);
        let rate = gradient.dot(&before);
        if rate == 0.0 || !rate.is_finite() {
            return Err(OrbitError::Kernel(Error::NonFinite {
                what: "1/(∇g·f⁻): the orbit grazes the guard",
            }));
        }
        let transition = &back.transition;
        let jump = &reset * &before;
        let saltation = &reset + (&after - &jump) * gradient.transpose() / rate;
        let monodromy = &saltation * transition;
        let section = &after * (gradient.transpose() * transition) / rate;
        Ok((&monodromy - section, monodromy))
    }
}

/// The periodic orbit through the section of `event` (whose action is a reset) of an autonomous
/// Lagrangian system, by Newton's method on P(x) = x from the guess (q, v) just after a reset:
/// x ← x − (DP − I)⁺ (P(x) − x), ⁺ the Moore–Penrose inverse; then its period, monodromy
/// matrix and Floquet multipliers.
///
/// The state is x = (q, v) (2n entries), the section is the event's surface just after its
/// reset, and the system must be autonomous (every return starts at t = 0). One return from x⁺
/// integrates to the event at time τ (state x⁻), then applies the reset R: P(x⁺) = R(x⁻). Its
/// Jacobian is DP = (DR − DR f⁻ ∇gᵀ / (∇g·f⁻)) Φ, and the monodromy matrix of the orbit is
/// S Φ with the saltation matrix S = DR + (f⁺ − DR f⁻) ∇gᵀ / (∇g·f⁻) (Aizerman & Gantmacher
/// 1958; Leine & Nijmeijer 2004, for a reset map), where Φ = ∂x(τ)/∂x(0) is the state
/// transition matrix of the flow from 0 to τ, f∓ = ẋ before and after the reset, and ∇g the
/// guard's gradient.
/// The monodromy matrix has the multiplier 1 along the flow (S f⁻ = f⁺); the others are the
/// Floquet multipliers of the orbit, and the eigenvalues of DP besides its 0 along the flow.
///
/// Φ is exact: the variational equations Φ̇ = Df Φ, Φ(0) = I, are integrated together with the
/// flow, by the same method and step control (so to the run's tolerance), with Df from the
/// system's exact acceleration Jacobian
/// ([`LagrangianSystem::acceleration_jacobian_with`]). One run per Newton iteration gives both
/// P(x) and DP, and Newton's method converges quadratically. ∇g is the event's own gradient
/// ([`Event::with_gradient`]; a model file's guards have their symbolic gradient), or central
/// differences of g without one. DR is central differences of the reset map (an algebraic map,
/// no integration: an impact and a change of coordinates), with relative step
/// [`OrbitOptions::step`]: its error is about the step squared times the map's third
/// derivative, plus the rounding error over the step (about 1e-11 each at the default step).
///
/// # Errors
/// [`OrbitError::Simulation`] for a failed run (with `JacobianUnavailable` for a system without
/// an acceleration Jacobian, or `RankChange` where it does not exist), [`OrbitError::NoReturn`]
/// when the event does not fire within [`OrbitOptions::max_period`], [`OrbitError::Kernel`] for
/// a failed reset, pseudoinverse or eigenvalue computation, a grazing orbit or bad options,
/// [`OrbitError::NoConvergence`] when Newton's method does not converge.
pub fn periodic_orbit<S, const N: usize, const M: usize>(
    system: &S,
    event: &Event<'_, N>,
    start: (&SVector<f64, N>, &SVector<f64, N>),
    options: &SimulationOptions,
    orbit: &OrbitOptions,
) -> Result<PeriodicOrbit<N>, OrbitError<N>>
where
    S: LagrangianSystem<N, M>,
{
    let dynamics: Lagrangian<_, N, M> = WithOptions::new(system, options);
    find_orbit(&dynamics, event, start, options, orbit)
}

/// [`periodic_orbit`] for a Lagrangian system of run-time size with n = `N` (a model file's
/// tapes, as `udk limit-cycle` runs them), with Df from
/// [`DynamicLagrangianSystem::acceleration_jacobian`].
///
/// # Errors
/// As [`periodic_orbit`].
pub fn periodic_dynamic_orbit<S: DynamicLagrangianSystem, const N: usize>(
    system: &S,
    event: &Event<'_, N>,
    start: (&SVector<f64, N>, &SVector<f64, N>),
    options: &SimulationOptions,
    orbit: &OrbitOptions,
) -> Result<PeriodicOrbit<N>, OrbitError<N>> {
    let dynamics: WithOptions<_, DynamicLagrange> = WithOptions::new(system, options);
    find_orbit(&dynamics, event, start, options, orbit)
}

/// Newton's method of [`periodic_orbit`] on any system in first-order form.
fn find_orbit<D: Dynamics<N, Integrated = State<N>>, const N: usize>(
    dynamics: &D,
    event: &Event<'_, N>,
    (q, v): (&SVector<f64, N>, &SVector<f64, N>),
    options: &SimulationOptions,
    orbit: &OrbitOptions,
) -> Result<PeriodicOrbit<N>, OrbitError<N>> {
    let valid = |x: f64| x.is_finite() && x > 0.0;
    if !(valid(orbit.tolerance) && valid(orbit.step) && valid(orbit.max_period)) {
        return Err(OrbitError::Kernel(Error::InvalidOption {
            what: "the orbit tolerance, step and max_period must be finite and positive",
        }));
    }
    // Newton's iterates start off the constraints by their steps: the runs do not check the
    // start (Baumgarte stabilization brings them back). They record no samples but the ends.
    let options = SimulationOptions {
        constraint_tolerance: f64::MAX,
        output: OutputTimes::Every(orbit.max_period),
        projection: None,
        ..options.clone()
    };
    let map = ReturnMap {
        dynamics,
        event,
        options,
        orbit: *orbit,
    };
    let mut x = stack(q, v);
    let mut residual = f64::INFINITY;
    for iterations in 0..=orbit.max_iterations {
        let back = map.step(&x)?;
        let defect = &back.after - &x;
        residual = defect.amax();
        let (jacobian, monodromy) = map.jacobians(&back)?;
        if residual <= orbit.tolerance * x.amax().max(1.0) {
            let mut multipliers = sorted_eigenvalues(&monodromy)?;
            let trivial = (0..multipliers.len())
                .min_by(|&a, &b| {
                    let distance = |z: Complex<f64>| (z - 1.0).norm();
                    distance(multipliers[a]).total_cmp(&distance(multipliers[b]))
                })
                .ok_or(Error::InvalidOption {
                    what: "a system with no coordinates has no orbit",
                })?;
            multipliers.remove(trivial);
            multipliers.sort_by(|a, b| b.norm().total_cmp(&a.norm()));
            let (q, v) = halves::<N>(&x);
            return Ok(PeriodicOrbit {
                q,
                v,
                period: back.period,
                monodromy,
                multipliers,
                iterations,
            });
        }
        let newton = jacobian - DMatrix::identity(2 * N, 2 * N);
        x -= pinv(&newton, None)? * defect;
    }
    Err(OrbitError::NoConvergence {
        iterations: orbit.max_iterations,
        residual,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jacobian::AccelerationJacobianDyn;
    use crate::simulate::{Direction, DynamicLagrangianTerms, SimulationError};
    use crate::Options;

    /// Two unit masses under the nonlinear forces Q = (−sin q₁ + q₁ q̇₂, −q₂³ − q̇₁ cos q₂),
    /// with their Jacobian by hand, or without one.
    struct Forced {
        jacobian: bool,
    }

    fn force(q: &[f64], qd: &[f64]) -> DVector<f64> {
        DVector::from_vec(vec![
            -q[0].sin() + q[0] * qd[1],
            -q[1].powi(3) - qd[0] * q[1].cos(),
        ])
    }

    impl DynamicLagrangianSystem for Forced {
        fn num_holonomic(&self) -> usize {
            0
        }

        fn terms(&self, q: &[f64], qd: &[f64], _: f64) -> DynamicLagrangianTerms {
            DynamicLagrangianTerms {
                mass_matrix: DMatrix::identity(2, 2),
                generalized_force: force(q, qd),
                constraint_matrix: DMatrix::zeros(0, 2),
                constraint_rhs: DVector::zeros(0),
                nonideal_force: None,
            }
        }

        fn energy(&self, _: &[f64], _: &[f64], _: f64) -> f64 {
            0.0
        }

        fn holonomic_residual(&self, _: &[f64], _: f64) -> DVector<f64> {
            DVector::zeros(0)
        }

        fn velocity_residual(&self, _: &[f64], _: &[f64], _: f64) -> DVector<f64> {
            DVector::zeros(0)
        }

        fn acceleration_jacobian(
            &self,
            q: &[f64],
            qd: &[f64],
            _: f64,
            _: &Options,
        ) -> Result<AccelerationJacobianDyn, Error> {
            if !self.jacobian {
                return Err(Error::JacobianUnavailable { what: "a test" });
            }
            Ok(AccelerationJacobianDyn {
                acceleration: force(q, qd),
                wrt_q: DMatrix::from_row_slice(
                    2,
                    2,
                    &[
                        -q[0].cos() + qd[1],
                        0.0,
                        0.0,
                        -3.0 * q[1].powi(2) + qd[0] * q[1].sin(),
                    ],
                ),
                wrt_qd: DMatrix::from_row_slice(2, 2, &[0.0, q[0], -q[1].cos(), 0.0]),
                wrt_u: DMatrix::zeros(2, 0),
            })
        }
    }

    /// x(T) from x at 0, and with `tangents` the integrated state with Φ(T).
    fn end(x: &Tangents<2>, tangents: bool) -> Tangents<2> {
        let options = SimulationOptions {
            rtol: 1e-12,
            atol: 1e-14,
            output: OutputTimes::Every(2.0),
            ..SimulationOptions::default()
        };
        let system = Forced { jacobian: true };
        let dynamics: WithOptions<_, DynamicLagrange> = WithOptions::new(&system, &options);
        let run = |x: Tangents<2>| {
            let observe = &mut |_: &Sample<2>| ControlFlow::Continue(());
            match tangents {
                true => run_to_end(
                    &Variational(&dynamics),
                    (x, 0.0, 2.0),
                    &options,
                    &[],
                    observe,
                )
                .map(|(_, end)| end),
                false => run_to_end(&dynamics, (x.motion(), 0.0, 2.0), &options, &[], observe)
                    .map(|(_, end)| Tangents::<2>::from_column_slice(end.as_slice())),
            }
        };
        run(x.clone()).unwrap()
    }

    #[test]
    fn variational_equations_give_the_central_differences_of_the_flow() {
        let mut start = Tangents::<2>::zeros(10);
        start
            .fixed_columns_mut::<2>(0)
            .copy_from(&State::<2>::new(0.4, 0.9, -0.3, 0.5));
        for j in 0..4 {
            start[(j % 2, 2 + 2 * j + j / 2)] = 1.0;
        }
        let exact = end(&start, true);
        let h = 1e-5;
        let mut largest: f64 = 0.0;
        for j in 0..4 {
            let (mut plus, mut minus) = (start.clone(), start.clone());
            plus[(j % 2, j / 2)] += h;
            minus[(j % 2, j / 2)] -= h;
            let column = (end(&plus, false) - end(&minus, false)) / (2.0 * h);
            for i in 0..4 {
                let phi = exact[(i % 2, 2 + 2 * j + i / 2)];
                let difference = column[(i % 2, i / 2)];
                largest = largest.max((phi - difference).abs());
                assert!(
                    (phi - difference).abs() < 1e-7 * phi.abs().max(1.0),
                    "Φ[{i}][{j}] = {phi} against {difference}"
                );
            }
        }
        // Φ(2) is far from the identity, so the comparison says something.
        let phi = DMatrix::from_fn(4, 4, |i, j| exact[(i % 2, 2 + 2 * j + i / 2)]);
        assert!((phi - DMatrix::identity(4, 4)).amax() > 0.5);
        assert!(largest > 0.0);
    }

    #[test]
    fn a_system_without_an_acceleration_jacobian_has_no_orbit() {
        let system = Forced { jacobian: false };
        let event = Event::new("q1", Direction::Falling, |_, q, _| q[0], Action::Stop);
        let (q, v) = (SVector::<f64, 2>::new(0.4, 0.1), SVector::<f64, 2>::zeros());
        let options = SimulationOptions::default();
        let error = periodic_dynamic_orbit(
            &system,
            &event,
            (&q, &v),
            &options,
            &OrbitOptions::default(),
        )
        .unwrap_err();
        match error {
            OrbitError::Simulation(SimulationError::Dynamics { source, .. }) => {
                assert!(
                    matches!(source, Error::JacobianUnavailable { .. }),
                    "{source}"
                )
            }
            other => panic!("{other}"),
        }
    }
}
