//! [`Function`]'s tape and two tiers of native code: the tape first, the quick code from the
//! call that makes [`COMPILE_AFTER`] on, the faster code from the call that makes
//! [`UPGRADE_AFTER`] on, the same values bit for bit throughout; and a program without
//! outputs, which gets no native code.

use udk_jit::{Backend, Function, Tier, COMPILE_AFTER, UPGRADE_AFTER};
use udk_symbolic::emit::TapeInputs;
use udk_symbolic::expr::{Func, Pool, Symbol};

#[test]
fn a_function_runs_the_tape_then_the_quick_code_then_the_faster_code_with_the_same_values() {
    // l sin q cos q̇ + q̇² / l and l cos q: a sin/cos pair, a call, a division.
    let mut pool = Pool::new();
    let q = pool.symbol(Symbol::Coordinate(0));
    let qd = pool.symbol(Symbol::Velocity(0));
    let l = pool.symbol(Symbol::Parameter(0));
    let (sin_q, cos_q, cos_qd) = (
        pool.call(Func::Sin, &[q]),
        pool.call(Func::Cos, &[q]),
        pool.call(Func::Cos, &[qd]),
    );
    let first = pool.mul(&[l, sin_q, cos_qd]);
    let qd2 = pool.powi(qd, 2);
    let inverse = pool.powi(l, -1);
    let second = pool.mul(&[qd2, inverse]);
    let sum = pool.add(&[first, second]);
    let product = pool.mul(&[l, cos_q]);
    let f = Function::compile(&pool, &[sum, product], "tiers", Backend::Jit).unwrap();
    assert_eq!(f.tier(), None);

    let (qs, qds, ls) = ([0.3, -2.5], [0.7, 1e-3], [1.5]);
    let expected = [
        1.5 * 0.3f64.sin() * 0.7f64.cos() + 0.7 * 0.7 / 1.5,
        1.5 * 0.3f64.cos(),
    ];
    let inputs = TapeInputs {
        q: &qs,
        qd: &qds,
        params: &ls,
        ..TapeInputs::default()
    };
    let mut regs = vec![0.0; f.registers()];
    let mut out = [0.0; 2];
    let mut eval = |f: &Function| {
        f.eval(&inputs, &mut regs, &mut out).unwrap();
        out
    };
    let tape = eval(&f);
    assert!((tape[0] - expected[0]).abs() < 1e-14, "{tape:?}");
    assert_eq!(tape[1].to_bits(), expected[1].to_bits());
    // A clone shares the code and the count of its calls.
    let clone = f.clone();
    for _ in 1..COMPILE_AFTER - 1 {
        assert_eq!(eval(&clone).map(f64::to_bits), tape.map(f64::to_bits));
    }
    assert_eq!(f.tier(), None);
    // The call that makes `COMPILE_AFTER` compiles the quick code and runs it.
    let quick = eval(&f);
    assert_eq!(clone.tier(), Some(Tier::Quick));
    assert_eq!(quick.map(f64::to_bits), tape.map(f64::to_bits));
    for _ in COMPILE_AFTER..UPGRADE_AFTER - 1 {
        assert_eq!(eval(&clone).map(f64::to_bits), quick.map(f64::to_bits));
    }
    assert_eq!(f.tier(), Some(Tier::Quick));
    // The call that makes `UPGRADE_AFTER` compiles the faster code and runs it.
    assert_eq!(eval(&f).map(f64::to_bits), quick.map(f64::to_bits));
    assert_eq!(clone.tier(), Some(Tier::Optimized));
    assert_eq!(eval(&clone).map(f64::to_bits), quick.map(f64::to_bits));
}

#[test]
fn the_tape_and_a_program_without_outputs_have_no_tier() {
    let mut pool = Pool::new();
    let q = pool.symbol(Symbol::Coordinate(0));
    let tape = Function::compile(&pool, &[q], "tape", Backend::Tape).unwrap();
    assert_eq!(tape.tier(), None);
    let empty = Function::compile(&pool, &[], "no outputs", Backend::Jit).unwrap();
    assert_eq!(empty.tier(), None);
    assert_eq!((empty.outputs(), empty.registers()), (0, 0));
    let inputs = TapeInputs::default();
    empty.eval(&inputs, &mut [], &mut []).unwrap();
}
