//! Where an event happens: its crossing bracketed by a step, first guessed on the integrator's
//! dense output by `differential-equations`' own Brent–Dekker search, then found on the flow by
//! Newton's method kept inside the bracket.

use super::dynamics::{split, Phase};
use super::events::{Direction, Event};
use differential_equations::interpolate::Interpolation;
use differential_equations::solout::{CrossingDirection, EventConfig, EventSolout, Solout};
use differential_equations::solution::Solution;
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

/// The time and state of `crossing` on the flow: Newton's method on g(t, φ(t)), with φ(t) and
/// φ̇(t) from `flow` (the state integrated from the step start to t, and its derivative) and ġ
/// a forward difference along φ̇, each iterate kept inside the bracket by bisection and taken
/// half the tolerance past Newton's point (so that the bracket closes from both sides), until
/// the bracket is narrower than [`RELATIVE_TIME_TOLERANCE`] of the step (or 8 ulps of t).
/// Returns the bracket end
/// past the crossing.
///
/// # Errors
/// Whatever `flow` returns.
pub(super) fn locate<E, X: Phase<N>, const N: usize>(
    watched: &Watched<'_, N>,
    crossing: &Crossing<X>,
    mut flow: impl FnMut(f64) -> Result<(X, X), E>,
) -> Result<(f64, X), E> {
    let step = crossing.t_curr - crossing.t_prev;
    let tolerance =
        (RELATIVE_TIME_TOLERANCE * step).max(8.0 * f64::EPSILON * crossing.t_curr.abs());
    let (mut lo, mut hi, mut x_hi) = (crossing.t_prev, crossing.t_curr, crossing.y_curr.clone());
    let inside = |t: f64, lo: f64, hi: f64| t > lo && t < hi;
    let mut t = match inside(crossing.guess, lo, hi) {
        true => crossing.guess,
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
        if g * crossing.sign > 0.0 {
            lo = t;
        } else {
            (hi, x_hi) = (t, x);
        }
        let newton = -g / slope;
        let next = t + newton + (0.5 * tolerance).copysign(newton);
        t = match newton.is_finite() && inside(next, lo, hi) {
            true => next,
            false => 0.5 * (lo + hi),
        };
    }
    Ok((hi, x_hi))
}
