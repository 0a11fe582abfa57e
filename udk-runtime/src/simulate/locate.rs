//! Where an event happens: its crossing bracketed by a step, first guessed on the integrator's
//! dense output by `differential-equations`' own Brent–Dekker search, refined there by Newton's
//! method (on DOP853's dense output corrected, [`Dop853Dense`]), then found on the flow by
//! Newton's method kept inside the bracket: one integration on the flow when the dense output's
//! crossing is within 10⁻⁷ of the time from the step start of the flow's.

use super::dynamics::{split, Phase};
use super::events::{Direction, Event};
use differential_equations::interpolate::Interpolation;
use differential_equations::solout::{CrossingDirection, EventConfig, EventSolout, Solout};
use differential_equations::solution::Solution;
use differential_equations::traits::State;
use std::cell::Cell;

/// The bracket is narrowed to this fraction of the step that holds the crossing, or to a few
/// units in the last place of t, whichever is wider (the guaranteed 10⁻¹² of the step, with
/// room for the error of the flow).
pub(super) const RELATIVE_TIME_TOLERANCE: f64 = 1e-14;

/// At most this many iterates (bisection alone halves a step to 10⁻¹² of it in 40).
const MAX_ITERATIONS: usize = 100;

/// One event watched during a run, as the `Event` of `differential-equations`: its g on the
/// first-order state, with the sign held before the crossing at a restart time where the event
/// just fired (see [`Event`]).
pub(super) struct Watched<'e, const N: usize> {
    pub(super) event: &'e Event<'e, N>,
    /// (restart time, sign of g before the crossing) after this event fired.
    pub(super) restart: Cell<Option<(f64, f64)>>,
}

impl<const N: usize> Watched<'_, N> {
    /// g at (t, x), seen as on its side before the crossing at the restart time.
    pub(super) fn value(&self, t: f64, x: &impl Phase<N>) -> f64 {
        let (q, v) = split(&x.motion());
        let g = self.event.value(t, &q, &v);
        match self.restart.get() {
            Some((restart, sign)) if t == restart && g * sign <= 0.0 => sign * f64::MIN_POSITIVE,
            _ => g,
        }
    }
}

impl<X: Phase<N>, const N: usize> differential_equations::solout::Event<f64, X> for Watched<'_, N> {
    fn config(&self) -> EventConfig {
        let direction = match self.event.direction {
            Direction::Rising => CrossingDirection::Positive,
            Direction::Falling => CrossingDirection::Negative,
            Direction::Both => CrossingDirection::Both,
        };
        EventConfig::new(direction, None)
    }

    fn event(&self, t: f64, y: &X) -> f64 {
        self.value(t, y)
    }
}

/// A crossing found in the step from (t_prev, y_prev) to (t_curr, y_curr).
#[derive(Clone, Debug)]
pub(super) struct Crossing<X> {
    /// The index of the event.
    pub(super) index: usize,
    /// The sign of g before the crossing.
    pub(super) sign: f64,
    /// Where the dense output puts it.
    pub(super) guess: f64,
    pub(super) t_prev: f64,
    pub(super) y_prev: X,
    pub(super) t_curr: f64,
    pub(super) y_curr: X,
}

/// The crossings of a step, one `EventSolout` of `differential-equations` per watched event.
pub(super) struct Detector<'w, X: Phase<N>, const N: usize> {
    watched: &'w [Watched<'w, N>],
    searches: Vec<EventSolout<'w, f64, X, Watched<'w, N>>>,
}

impl<'w, X: Phase<N>, const N: usize> Detector<'w, X, N> {
    /// Watches `watched` over a piece of the run from t₀ to t_f.
    pub(super) fn new(watched: &'w [Watched<'w, N>], t0: f64, tf: f64) -> Self {
        let searches = watched
            .iter()
            .map(|w| EventSolout::new(w, t0, tf))
            .collect();
        Self { watched, searches }
    }

    /// The earliest crossing of the step from (t_prev, y_prev) to (t_curr, y_curr), by the
    /// signs of g at the step ends; its guess from the dense output, or the secant between the
    /// ends where that search finds none. A crossing whose event's condition does not hold at
    /// the dense output's state at the guess is left out.
    pub(super) fn step<I>(
        &mut self,
        (t_prev, y_prev): (f64, &X),
        (t_curr, y_curr): (f64, &X),
        interpolator: &mut I,
    ) -> Option<Crossing<X>>
    where
        I: Interpolation<f64, X> + ?Sized,
    {
        let mut earliest: Option<Crossing<X>> = None;
        for (index, (watched, search)) in self.watched.iter().zip(&mut self.searches).enumerate() {
            let mut found = Solution::new();
            search.solout(t_curr, t_prev, y_curr, y_prev, interpolator, &mut found);
            if t_curr <= t_prev {
                continue;
            }
            let (before, after) = (watched.value(t_prev, y_prev), watched.value(t_curr, y_curr));
            let Some(sign) = watched.event.fires(before, after) else {
                continue;
            };
            let secant = t_prev + (t_curr - t_prev) * before / (before - after);
            // Where the event just fired at t_prev, g is 0 there, only taken as on its side
            // before the crossing: the search on the dense output and the secant would both
            // put the crossing at t_prev, ahead of any other event of a long step.
            let just_fired = (watched.restart.get()).is_some_and(|(restart, _)| restart == t_prev);
            let guess = match just_fired {
                true => first_crossing(watched, (t_prev, before), t_curr, interpolator),
                false => found.t.last().copied(),
            };
            let guess = guess
                .filter(|t| *t > t_prev && *t < t_curr)
                .unwrap_or(secant);
            // A crossing where the event's condition does not hold on the dense output is
            // passed through without being located (nor the integrator restarted).
            if let Ok(x) = interpolator.interpolate(guess) {
                let (q, v) = split(&x.motion());
                if !watched.event.holds(guess, &q, &v) {
                    continue;
                }
            }
            if earliest.as_ref().is_none_or(|e| guess < e.guess) {
                earliest = Some(Crossing {
                    index,
                    sign,
                    guess,
                    t_prev,
                    y_prev: y_prev.clone(),
                    t_curr,
                    y_curr: y_curr.clone(),
                });
            }
        }
        earliest
    }
}

/// Points of a step at which [`first_crossing`] samples g on the dense output.
const SCAN_POINTS: usize = 16;

/// The secant estimate of the first crossing of `watched` after t_prev (where g is `before`)
/// that fires it, from g on the dense output at [`SCAN_POINTS`] equally spaced times of the
/// step to t_curr; `None` when the dense output fails or shows none.
fn first_crossing<X: Phase<N>, I, const N: usize>(
    watched: &Watched<'_, N>,
    (t_prev, before): (f64, f64),
    t_curr: f64,
    interpolator: &mut I,
) -> Option<f64>
where
    I: Interpolation<f64, X> + ?Sized,
{
    let (mut a, mut g_a) = (t_prev, before);
    for k in 1..=SCAN_POINTS {
        let t = t_prev + (t_curr - t_prev) * k as f64 / SCAN_POINTS as f64;
        let g = watched.value(t, &interpolator.interpolate(t).ok()?);
        if watched.event.fires(g_a, g).is_some() {
            return Some(a + (t - a) * g_a / (g_a - g));
        }
        (a, g_a) = (t, g);
    }
    None
}

/// How the interpolant of a method of `differential-equations` gives the dense output of a
/// step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Dense {
    /// The interpolant is the dense output.
    Direct,
    /// DOP853's interpolant, corrected by [`Dop853Dense`].
    Dop853,
}

/// The seventh-order dense output of a DOP853 step (Hairer, Nørsett & Wanner, *Solving Ordinary
/// Differential Equations I*, §II.6 and `dop853.f`'s `CONTD8`), from the interpolant of
/// `differential-equations` 0.7, which evaluates the polynomial's high-order part at 1 − s
/// instead of s = (t − t₀)/h. CONTD8 is y(s) = H(s) + s²(1−s)² V(s), H the cubic Hermite
/// polynomial of the step's ends (y₀, f₀, y₁, f₁) and V the high-order part; the crate gives
/// P(s) = H(s) + s²(1−s)² V(1−s), so y(s) = P(1−s) + H(s) − H(1−s), where
/// H(s) − H(1−s) = (2s − 1)(y₁ − y₀ + s(1−s)(2(y₁ − y₀) − h(f₀ + f₁))).
pub(super) struct Dop853Dense<'i, X, I: ?Sized> {
    interpolator: &'i mut I,
    t_prev: f64,
    t_curr: f64,
    /// y₁ − y₀.
    chord: X,
    /// 2(y₁ − y₀) − h(f₀ + f₁).
    cubic: X,
}

impl<'i, X: State<f64>, I: Interpolation<f64, X> + ?Sized> Dop853Dense<'i, X, I> {
    /// The dense output of the step of `crossing`, from the integrator's interpolant of that
    /// step and ẋ at its ends, (f₀, f₁).
    pub(super) fn new(interpolator: &'i mut I, crossing: &Crossing<X>, (f0, f1): (X, X)) -> Self {
        let h = crossing.t_curr - crossing.t_prev;
        let chord = crossing.y_curr.minus(&crossing.y_prev);
        let mut cubic = chord.scaled(2.0);
        cubic.add_scaled(-h, &f0).add_scaled(-h, &f1);
        Self {
            interpolator,
            t_prev: crossing.t_prev,
            t_curr: crossing.t_curr,
            chord,
            cubic,
        }
    }

    /// The state at t in the step; `None` outside it.
    pub(super) fn at(&mut self, t: f64) -> Option<X> {
        let (t0, t1) = (self.t_prev, self.t_curr);
        if !(t0..=t1).contains(&t) {
            return None;
        }
        let s = (t - t0) / (t1 - t0);
        let mirror = (t0 + t1 - t).clamp(t0, t1);
        let mut x = self.interpolator.interpolate(mirror).ok()?;
        x.add_scaled(2.0 * s - 1.0, &self.chord)
            .add_scaled((2.0 * s - 1.0) * s * (1.0 - s), &self.cubic);
        Some(x)
    }
}

/// At most this many Newton iterates on the dense output.
const DENSE_ITERATIONS: usize = 8;

/// The crossing's guess refined by Newton's method on g(t, y(t)), y(t) = `dense`(t) the dense
/// output of the step (ġ by a forward difference of 10⁻⁸ of the step), kept inside the step,
/// until the correction is under [`RELATIVE_TIME_TOLERANCE`] of the step; the last iterate
/// inside the step where g and its slope are finite (the crossing's guess when there is none).
pub(super) fn refine<X: Phase<N>, const N: usize>(
    watched: &Watched<'_, N>,
    crossing: &Crossing<X>,
    mut dense: impl FnMut(f64) -> Option<X>,
) -> f64 {
    let step = crossing.t_curr - crossing.t_prev;
    let delta = 1e-8 * step;
    let inside = |t: f64| t > crossing.t_prev && t < crossing.t_curr - delta;
    let mut g = |t: f64| dense(t).map(|x| watched.value(t, &x));
    let mut t = crossing.guess;
    for _ in 0..DENSE_ITERATIONS {
        let (Some(g_t), Some(g_ahead)) = (g(t), g(t + delta)) else {
            break;
        };
        let newton = -g_t * delta / (g_ahead - g_t);
        if !(newton.is_finite() && inside(t + newton)) {
            break;
        }
        t += newton;
        if newton.abs() <= RELATIVE_TIME_TOLERANCE * step {
            break;
        }
    }
    t
}

/// The time and state of `crossing` on the flow: Newton's method on g(t, φ(t)), with φ(t) and
/// φ̇(t) from `flow` (the state integrated from the step start to t, and its derivative) and ġ
/// a forward difference along φ̇, each iterate kept inside the bracket by bisection.
///
/// As soon as Newton's correction τ = −g/ġ at a flow point (t, φ(t)) is under
/// √[`RELATIVE_TIME_TOLERANCE`] of t − t_prev (the time integrated from the step start, a
/// scale of the motion that a step far longer than the motion's, as between the bounces of a
/// Zeno run, does not inflate), and the first-order Taylor states φ(t) + (t' − t) φ̇(t) have g
/// on either side of the crossing half the tolerance before and after t + τ, the crossing is
/// taken there, past it (their error, ½(t' − t)²φ̈, is under 10⁻¹⁴ (t − t_prev)² φ̈, and
/// Newton's error in t as small), so that a guess from an accurate dense output costs one
/// integration on the flow. Otherwise the iteration goes on until the bracket is narrower than
/// [`RELATIVE_TIME_TOLERANCE`] of the step (or 8 ulps of t), and the bracket end past the
/// crossing is returned.
///
/// The returned state is always past the crossing (g on the side after it, or 0).
///
/// # Errors
/// Whatever `flow` returns.
pub(super) fn locate<E, X: Phase<N>, const N: usize>(
    watched: &Watched<'_, N>,
    crossing: &Crossing<X>,
    guess: f64,
    mut flow: impl FnMut(f64) -> Result<(X, X), E>,
) -> Result<(f64, X), E> {
    let step = crossing.t_curr - crossing.t_prev;
    let tolerance =
        (RELATIVE_TIME_TOLERANCE * step).max(8.0 * f64::EPSILON * crossing.t_curr.abs());
    let (mut lo, mut hi, mut x_hi) = (crossing.t_prev, crossing.t_curr, crossing.y_curr.clone());
    let inside = |t: f64, lo: f64, hi: f64| t > lo && t < hi;
    let mut t = match inside(guess, lo, hi) {
        true => guess,
        false => 0.5 * (lo + hi),
    };
    for _ in 0..MAX_ITERATIONS {
        if hi - lo <= tolerance {
            break;
        }
        let (x, xd) = flow(t)?;
        let g = watched.value(t, &x);
        let delta = 1e-8 * step;
        let mut ahead = x.clone();
        ahead.add_scaled(delta, &xd);
        let slope = (watched.value(t + delta, &ahead) - g) / delta;
        let newton = -g / slope;
        if newton.abs() <= RELATIVE_TIME_TOLERANCE.sqrt() * (t - crossing.t_prev) {
            let bracket = (hi, tolerance);
            if let Some(past) = taylor_past(watched, crossing.sign, (t, &x, &xd), newton, bracket) {
                return Ok(past);
            }
        }
        if g * crossing.sign > 0.0 {
            lo = t;
        } else {
            (hi, x_hi) = (t, x);
        }
        let next = t + newton + (0.5 * tolerance).copysign(newton);
        t = match newton.is_finite() && inside(next, lo, hi) {
            true => next,
            false => 0.5 * (lo + hi),
        };
    }
    Ok((hi, x_hi))
}

/// The crossing where Newton's correction τ at the flow point (t, x, ẋ) puts it, on the Taylor
/// states x + (t' − t) ẋ: the first of t + τ + ½ tol, t + τ + 1½ tol, t + τ + 2½ tol inside
/// the bracket (…, `hi`) past the crossing (g·sign ≤ 0), provided g is on its side before the
/// crossing at t + τ − ½ tol (so that the crossing is resolved to tol there); `None` otherwise.
fn taylor_past<X: Phase<N>, const N: usize>(
    watched: &Watched<'_, N>,
    sign: f64,
    (t, x, xd): (f64, &X, &X),
    newton: f64,
    (hi, tolerance): (f64, f64),
) -> Option<(f64, X)> {
    let taylor = |at: f64| {
        let mut state = x.clone();
        state.add_scaled(at - t, xd);
        let before = watched.value(at, &state) * sign > 0.0;
        (before, state)
    };
    if !taylor(t + newton - 0.5 * tolerance).0 {
        return None;
    }
    (0..3).find_map(|k| {
        let at = t + newton + (0.5 + k as f64) * tolerance;
        let (before, state) = taylor(at);
        (at < hi && !before).then_some((at, state))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use differential_equations::methods::{DormandPrince, ExplicitRungeKutta, Ordinary};
    use differential_equations::ode::{OrdinaryNumericalMethod, ODE};
    use differential_equations::status::Status;
    use nalgebra::Vector2;

    /// The harmonic oscillator ẍ = −x, whose flow from (1, 0) is (cos t, −sin t).
    struct Oscillator;

    impl ODE<f64, Vector2<f64>> for Oscillator {
        fn diff(&self, _t: f64, y: &Vector2<f64>, dydt: &mut Vector2<f64>) {
            *dydt = Vector2::new(y[1], -y[0]);
        }
    }

    /// DOP853 on the oscillator.
    type Dop853 = ExplicitRungeKutta<Ordinary, DormandPrince, f64, Vector2<f64>, 8, 12, 16>;

    /// One accepted DOP853 step from (1, 0) at t = 0, its ends as a crossing and its
    /// interpolator.
    fn one_step() -> (Crossing<Vector2<f64>>, Dop853) {
        let mut solver = ExplicitRungeKutta::dop853().rtol(1e-12).atol(1e-14).h0(0.4);
        solver
            .init(&Oscillator, 0.0, 10.0, &Vector2::new(1.0, 0.0))
            .unwrap();
        solver.set_status(Status::Solving);
        while solver.t() == 0.0 {
            solver.step(&Oscillator).unwrap();
        }
        let crossing = Crossing {
            index: 0,
            sign: 1.0,
            guess: 0.5 * solver.t(),
            t_prev: solver.t_prev(),
            y_prev: *solver.y_prev(),
            t_curr: solver.t(),
            y_curr: *solver.y(),
        };
        (crossing, solver)
    }

    #[test]
    fn dop853_dense_output_is_seventh_order_where_the_interpolant_is_not() {
        let (crossing, mut solver) = one_step();
        let h = crossing.t_curr - crossing.t_prev;
        assert!(h > 0.1, "a step of {h}");
        let mut largest = (0.0_f64, 0.0_f64);
        for k in 1..10 {
            let t = crossing.t_prev + h * k as f64 / 10.0;
            let exact = Vector2::new(t.cos(), -t.sin());
            let interpolated = solver.interpolate(t).unwrap();
            largest.0 = largest.0.max((interpolated - exact).amax());
        }
        let derivative = |t, y: &Vector2<f64>| {
            let mut dydt = Vector2::zeros();
            Oscillator.diff(t, y, &mut dydt);
            dydt
        };
        let ends = (
            derivative(crossing.t_prev, &crossing.y_prev),
            derivative(crossing.t_curr, &crossing.y_curr),
        );
        let mut dense = Dop853Dense::new(&mut solver, &crossing, ends);
        for k in 0..=10 {
            let t = crossing.t_prev + h * k as f64 / 10.0;
            let exact = Vector2::new(t.cos(), -t.sin());
            largest.1 = largest.1.max((dense.at(t).unwrap() - exact).amax());
        }
        assert!(dense.at(crossing.t_curr + h).is_none());
        // The crate's interpolant, with its high-order part at 1 − s, is off by far more than
        // the step's error; when a release of `differential-equations` fixes it, this fails and
        // `Dense::Dop853` should become `Dense::Direct`.
        let (interpolant, dense) = largest;
        assert!(dense < 1e-11, "the dense output is off by {dense:e}");
        assert!(
            interpolant > 1e3 * dense,
            "the interpolant is off by {interpolant:e}"
        );
    }
}
