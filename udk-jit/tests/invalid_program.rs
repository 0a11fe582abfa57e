//! A hand-built [`Program`] that is not well formed is a typed [`JitError::InvalidProgram`],
//! checked before any code is emitted: the compiled code would otherwise read memory the
//! caller's buffers do not cover (a value read before it is defined is read from a scratch
//! slot that does not exist).

use udk_jit::{JitError, JitFunction};
use udk_symbolic::emit::{Op, Program, Step, Val};
use udk_symbolic::expr::{Func, Symbol};

/// A program of `ops` with `steps` and `outputs`, its bookkeeping filled in.
fn program(ops: Vec<Op>, steps: Vec<Step>, outputs: Vec<Val>) -> Program {
    let count = ops.len();
    Program {
        ops,
        steps,
        uses: vec![1; count],
        paired: vec![false; count],
        outputs,
    }
}

/// The message of the `InvalidProgram` error of compiling `program`.
fn refusal(program: &Program) -> String {
    match JitFunction::from_program(program, "hand-built") {
        Err(JitError::InvalidProgram { function, message }) => {
            assert_eq!(function, "hand-built");
            message
        }
        other => panic!("not refused as invalid: {other:?}"),
    }
}

#[test]
fn a_value_read_before_its_step_is_refused() {
    // q0 + (q0 · q0), with the sum computed before the product it reads.
    let p = program(
        vec![
            Op::Load(Symbol::Coordinate(0)),
            Op::Mul(0, 0),
            Op::Add(0, 1),
        ],
        vec![Step::Op(0), Step::Op(2), Step::Op(1)],
        vec![2],
    );
    assert_eq!(refusal(&p), "step 1 reads value 1 before a step defines it");
    // The same program in order compiles and evaluates.
    let ok = program(
        p.ops.clone(),
        vec![Step::Op(0), Step::Op(1), Step::Op(2)],
        vec![2],
    );
    let jit = JitFunction::from_program(&ok, "in order").unwrap();
    let mut out = [0.0];
    let inputs = udk_symbolic::emit::TapeInputs {
        q: &[3.0],
        ..Default::default()
    };
    jit.eval(&inputs, &mut vec![0.0; jit.registers()], &mut out)
        .unwrap();
    assert_eq!(out[0], 12.0);
}

#[test]
fn an_output_never_computed_is_refused() {
    let p = program(
        vec![Op::Load(Symbol::Coordinate(0)), Op::Neg(0)],
        vec![Step::Op(0)],
        vec![1],
    );
    assert_eq!(
        refusal(&p),
        "output 0 reads value 1 before a step defines it"
    );
}

#[test]
fn a_leaf_without_its_step_is_refused() {
    // The load is not a step, so the input sizes the call checks would not cover it.
    let p = program(
        vec![Op::Load(Symbol::Parameter(5)), Op::Neg(0)],
        vec![Step::Op(1)],
        vec![1],
    );
    assert_eq!(refusal(&p), "step 0 reads value 0 before a step defines it");
}

#[test]
fn an_index_beyond_the_values_is_refused() {
    let p = program(vec![Op::Const(0)], vec![Step::Op(0), Step::Op(7)], vec![0]);
    assert_eq!(refusal(&p), "step 1 names value 7, beyond its 1 values");
    let p = program(vec![Op::Const(0)], vec![Step::Op(0)], vec![3]);
    assert_eq!(refusal(&p), "output 0 names value 3, beyond its 1 values");
}

#[test]
fn a_value_defined_twice_is_refused() {
    let p = program(
        vec![Op::Load(Symbol::Time)],
        vec![Step::Op(0), Step::Op(0)],
        vec![0],
    );
    assert_eq!(refusal(&p), "step 1 defines value 0 again");
}

#[test]
fn a_sin_cos_step_of_other_values_is_refused() {
    let p = program(
        vec![
            Op::Load(Symbol::Coordinate(0)),
            Op::Call(Func::Sin, 0),
            Op::Call(Func::Exp, 0),
        ],
        vec![
            Step::Op(0),
            Step::SinCos {
                arg: 0,
                sin: 1,
                cos: 2,
            },
        ],
        vec![1, 2],
    );
    assert_eq!(
        refusal(&p),
        "step 1 computes sin and cos of value 0 into values 1 and 2, which are not sin(0) and \
         cos(0)"
    );
}

#[test]
fn an_input_index_beyond_any_slice_is_refused() {
    let p = program(
        vec![Op::Load(Symbol::Coordinate(usize::MAX))],
        vec![Step::Op(0)],
        vec![0],
    );
    assert_eq!(
        refusal(&p),
        format!("step 0 reads input {}, beyond any slice", usize::MAX)
    );
}
