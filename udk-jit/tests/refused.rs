//! A program Cranelift refuses is a typed [`JitError`] naming the function, never a crash: the
//! size limit of its register allocator provokes one. regalloc2 numbers the virtual registers
//! of a function in 21 bits, and Cranelift refuses a function that needs more
//! (`CodegenError::CodeTooLarge`). The JIT splits a program's computed values into functions of
//! a bounded size, but the outputs that are inputs themselves (a load each, one virtual
//! register) are all written by its first function: 2²¹ of them exceed the limit.
//!
//! The program is built directly (the lowering of a pool of 2²¹ symbols takes as long again
//! in a debug build); compiling it takes about 9 s of CPU and 0.7 GB in a debug build.

use udk_jit::{JitError, JitFunction};
use udk_symbolic::emit::{Op, Program, Step, Val};
use udk_symbolic::expr::Symbol;

#[test]
fn a_function_beyond_the_register_limit_is_a_typed_error_naming_it() {
    let count: Val = 1 << 21;
    let program = Program {
        ops: (0..count)
            .map(|i| Op::Load(Symbol::Parameter(i as usize)))
            .collect(),
        steps: (0..count).map(Step::Op).collect(),
        uses: vec![1; count as usize],
        paired: vec![false; count as usize],
        outputs: (0..count).collect(),
    };
    let refused = JitFunction::from_program(&program, "every parameter").unwrap_err();
    let JitError::Compile { function, message } = &refused else {
        panic!("not a compile error: {refused:?}");
    };
    assert_eq!(function, "every parameter, part 1 of 1");
    assert!(message.contains("CodeTooLarge"), "{message}");
    assert_eq!(
        refused.to_string(),
        "Cranelift failed to compile `every parameter, part 1 of 1`: Compilation(CodeTooLarge)"
    );
}
