//! [`Function`]: a program compiled by the JIT, or the tape where the JIT is not wanted or
//! has no back end for the host.

use crate::error::JitError;
use crate::function::JitFunction;
use std::sync::{Arc, Once};
use udk_symbolic::emit::{compile_tape, Tape, TapeError, TapeInputs, TapeSizes};
use udk_symbolic::expr::{ExprId, Pool};

/// Which code evaluates a program.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Backend {
    /// Native code from Cranelift ([`JitFunction`]); the tape, with a one-line notice on
    /// standard error, where Cranelift has no back end for the host.
    #[default]
    Jit,
    /// The run-time tape ([`Tape`]), interpreted: the reference the JIT is tested against.
    Tape,
}

/// A set of outputs compiled for evaluation: native code or the tape, with the same inputs,
/// buffers, errors and results (bit for bit; see [`JitFunction`]). Clones share the code.
#[derive(Clone, Debug)]
pub enum Function {
    /// Compiled by Cranelift.
    Native(Arc<JitFunction>),
    /// Interpreted.
    Tape(Tape),
}

static NOTICE: Once = Once::new();

impl Function {
    /// Compiles `outputs` of `pool` for `backend`; `name` names the program in errors.
    ///
    /// # Errors
    /// [`JitError::Compile`] when Cranelift fails on a part of the program. A host with no
    /// Cranelift back end is no error: the tape serves, and the first such fall-back prints
    /// one line on standard error.
    pub fn compile(
        pool: &Pool,
        outputs: &[ExprId],
        name: &str,
        backend: Backend,
    ) -> Result<Self, JitError> {
        if backend == Backend::Tape {
            return Ok(Function::Tape(compile_tape(pool, outputs)));
        }
        match JitFunction::compile(pool, outputs, name) {
            Ok(f) => Ok(Function::Native(Arc::new(f))),
            Err(JitError::Unsupported(why)) => {
                NOTICE.call_once(|| eprintln!("udk: {why}; models are evaluated by the tape"));
                Ok(Function::Tape(compile_tape(pool, outputs)))
            }
            Err(e) => Err(e),
        }
    }

    /// Number of outputs.
    pub fn outputs(&self) -> usize {
        match self {
            Function::Native(f) => f.outputs(),
            Function::Tape(t) => t.outputs(),
        }
    }

    /// Length of the scratch buffer [`Function::eval`] needs.
    pub fn registers(&self) -> usize {
        match self {
            Function::Native(f) => f.registers(),
            Function::Tape(t) => t.registers(),
        }
    }

    /// How many entries of each input kind the program reads.
    pub fn required(&self) -> TapeSizes {
        match self {
            Function::Native(f) => f.required(),
            Function::Tape(t) => t.required(),
        }
    }

    /// Evaluates the outputs at `inputs` into `out` (exactly [`Function::outputs`] entries),
    /// using `regs` (at least [`Function::registers`]) as scratch; allocates nothing.
    ///
    /// # Errors
    /// [`TapeError`] if a buffer or an input slice is too short; nothing is written then.
    #[inline(always)]
    pub fn eval(
        &self,
        inputs: &TapeInputs<'_>,
        regs: &mut [f64],
        out: &mut [f64],
    ) -> Result<(), TapeError> {
        match self {
            Function::Native(f) => f.eval(inputs, regs, out),
            Function::Tape(t) => t.eval(inputs, regs, out),
        }
    }
}
