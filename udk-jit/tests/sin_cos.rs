//! The sine and cosine of one argument, which the JIT-compiled code computes by one call of the
//! C library's `sincos` (glibc's on Linux), against Rust's `f64::sin` and `f64::cos` called
//! separately and against the tape: bit for bit, over arguments of every magnitude (zeros,
//! subnormals, tiny, near multiples of π/2, large, the largest finite, infinities, NaN) and
//! over random bit patterns, which cover every exponent.

use std::hint::black_box;
use udk_jit::JitFunction;
use udk_symbolic::emit::{compile_tape, Program, Step, TapeInputs};
use udk_symbolic::expr::{Func, Pool, Symbol};

/// The arguments: special and boundary values, neighbours of multiples of π/2, uniform draws
/// at several scales and random bit patterns (a xorshift generator, fixed seed).
fn arguments() -> Vec<f64> {
    let mut xs = vec![
        0.0,
        -0.0,
        f64::MIN_POSITIVE,
        f64::MIN_POSITIVE / 2.0,
        f64::from_bits(1),
        1e-300,
        1e-20,
        2f64.powi(-27),
        2f64.powi(-26),
        1e22,
        1e300,
        2f64.powi(1023),
        f64::MAX,
        f64::INFINITY,
        f64::NAN,
        std::f64::consts::FRAC_PI_4,
        0.855469,
        2.426265,
        105414350.0,
        281474976710656.0,
    ];
    for k in (0..2000u64).chain([1_000_000, 1 << 30, 1 << 52]) {
        let x = k as f64 * std::f64::consts::FRAC_PI_2;
        xs.extend([x, x.next_up(), x.next_down()]);
    }
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for scale in [1e-8, 1.0, 10.0, 1e3, 1e6, 1e15, 1e100] {
        for _ in 0..20_000 {
            let unit = (next() >> 11) as f64 / (1u64 << 53) as f64;
            xs.push(scale * (2.0 * unit - 1.0));
        }
    }
    xs.extend((0..100_000).map(|_| f64::from_bits(next())));
    let negated: Vec<f64> = xs.iter().map(|x| -x).collect();
    xs.extend(negated);
    xs
}

/// Whether two results are the same: equal bits, or both NaN.
fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

#[test]
fn sincos_of_the_jit_is_sin_and_cos_bit_for_bit() {
    let mut pool = Pool::new();
    let q = pool.symbol(Symbol::Coordinate(0));
    let outputs = [pool.call(Func::Sin, &[q]), pool.call(Func::Cos, &[q])];
    let program = Program::new(&pool, &outputs);
    assert!(
        (program.steps.iter()).any(|s| matches!(s, Step::SinCos { .. })),
        "the program pairs the sine and the cosine into one step"
    );
    let jit = JitFunction::from_program(&program, "sin and cos").unwrap();
    let tape = compile_tape(&pool, &outputs);
    let (mut regs, mut tape_regs) = (vec![0.0; jit.registers()], vec![0.0; tape.registers()]);
    let (mut out, mut tape_out) = ([0.0; 2], [0.0; 2]);
    let xs = arguments();
    assert!(xs.len() > 400_000);
    let mut differ = Vec::new();
    for &x in &xs {
        let q = [x];
        let inputs = TapeInputs {
            q: &q,
            ..TapeInputs::default()
        };
        jit.eval(&inputs, &mut regs, &mut out).unwrap();
        tape.eval(&inputs, &mut tape_regs, &mut tape_out).unwrap();
        // Through `black_box`, so that the compiler cannot merge the two calls into a
        // `sincos`: these are the C library's `sin` and `cos`.
        let (s, c) = (black_box(x).sin(), black_box(x).cos());
        let agree =
            same(out[0], s) && same(out[1], c) && same(tape_out[0], s) && same(tape_out[1], c);
        if !agree {
            differ.push((x, out, tape_out, [s, c]));
        }
    }
    assert!(
        differ.is_empty(),
        "{} of {} arguments differ, the first: {:?}",
        differ.len(),
        xs.len(),
        &differ[..differ.len().min(5)]
    );
}
