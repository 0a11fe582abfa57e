//! Per-call timing: the best of several runs, each long enough to dwarf the clock's resolution.

use std::hint::black_box;
use std::time::Instant;

/// Timed runs per figure; the fastest counts (the machine is shared and noisy).
pub const REPEATS: usize = 7;
/// Minimum duration of one timed run, in seconds.
const MIN_RUN: f64 = 0.05;

/// Nanoseconds per call of `call`, cycling through `inputs`: the best of [`REPEATS`] runs.
///
/// # Panics
/// When `inputs` is empty.
pub fn ns_per_call<T>(inputs: &[T], mut call: impl FnMut(&T) -> f64) -> f64 {
    assert!(!inputs.is_empty(), "nothing to time");
    let mut run = |rounds: usize| {
        let start = Instant::now();
        let mut sum = 0.0;
        for _ in 0..rounds {
            for input in inputs {
                sum += call(black_box(input));
            }
        }
        black_box(sum);
        start.elapsed().as_secs_f64()
    };
    let mut rounds = 1;
    while run(rounds) < MIN_RUN {
        rounds *= 2;
    }
    let best = (0..REPEATS)
        .map(|_| run(rounds))
        .fold(f64::INFINITY, f64::min);
    best * 1e9 / (rounds * inputs.len()) as f64
}

/// Seconds per call of `call` (for slow calls such as a derivation): the best of [`REPEATS`]
/// calls, or of fewer when one call takes longer than `budget` seconds in all.
pub fn seconds_per_call<R>(budget: f64, mut call: impl FnMut() -> R) -> f64 {
    let mut best = f64::INFINITY;
    let mut spent = 0.0;
    for _ in 0..REPEATS {
        let start = Instant::now();
        black_box(call());
        let elapsed = start.elapsed().as_secs_f64();
        best = best.min(elapsed);
        spent += elapsed;
        if spent > budget {
            break;
        }
    }
    best
}
