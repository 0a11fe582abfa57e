//! [`Function`]: a program compiled by the JIT, or the tape where the JIT is not wanted or
//! has no back end for the host.

use crate::error::JitError;
use crate::function::{JitFunction, Tier};
use crate::pair::JitPair;
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Once, OnceLock};
use udk_symbolic::emit::{compile_tape, Program, Tape, TapeError, TapeInputs, TapeSizes};
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
///
/// Native code comes in two tiers ([`Tier`]): the first call runs code that Cranelift compiled
/// quickly, and the call that makes [`UPGRADE_AFTER`] compiles the faster code, which every
/// later call runs. A model evaluated once (the first q̈ of a model made at run time) pays
/// only the quick compilation, one evaluated many times the faster code's; the values are the
/// same either way.
#[derive(Clone, Debug)]
pub struct Function(Code);

/// What evaluates a [`Function`].
#[derive(Clone, Debug)]
enum Code {
    /// Compiled by Cranelift.
    Native(Arc<Tiered>),
    /// Interpreted.
    Tape(Tape),
}

/// Calls of a [`Function`]'s quick code ([`Tier::Quick`]) after which its faster code
/// ([`Tier::Optimized`]) is compiled: about the number of calls whose extra time in the quick
/// code equals the faster code's compile time, which bounds a model's JIT time (compilation
/// and calls) by twice the least either choice could have made it. On the release build
/// (`jit_timing`, `guide/jit.md`, "Two tiers") that number was 16 000–37 000 calls for
/// programs of 347 to 9154 values: 27 000 for the terms of a 5-link pendulum on a cart (0.95 ms
/// to compile, 35 ns a call saved) and for the UR5's articulated-body program (3.4 ms, 126 ns).
pub const UPGRADE_AFTER: usize = 25_000;

/// States asked of a [`Function`]'s batches ([`Function::pair`]) after which its code for
/// pairs of states ([`JitPair`]) is compiled: twice [`UPGRADE_AFTER`], since the pair code
/// saves less per state over the faster code (about 80 ns of 265 for the UR5's
/// articulated-body program, `guide/jit.md`, "Batch evaluation") than the faster code over
/// the quick one (126 ns), and takes about as long to compile (3.5 ms): past 50 000 states,
/// the saving has paid for the compilation.
pub const PAIRS_AFTER: usize = 2 * UPGRADE_AFTER;

/// Native code in two tiers: the quick code until the faster code is compiled; and the code
/// for pairs of states, once batches have asked for enough states.
struct Tiered {
    quick: JitFunction,
    optimized: OnceLock<JitFunction>,
    /// Calls of the quick code so far.
    calls: AtomicUsize,
    /// The code for pairs of states (`None` should Cranelift fail on it).
    pair: OnceLock<Option<JitPair>>,
    /// States asked of batches so far.
    batched: AtomicUsize,
    /// The program and its name, kept to compile the faster code and the pair code from.
    source: Mutex<(Program, String)>,
}

impl fmt::Debug for Tiered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.optimized.get() {
            Some(optimized) => f.debug_tuple("Optimized").field(optimized).finish(),
            None => f.debug_tuple("Quick").field(&self.quick).finish(),
        }
    }
}

impl Tiered {
    /// The code for this call: the faster code once compiled; the quick code before, the call
    /// that makes [`UPGRADE_AFTER`] compiling the faster code first. Other threads go on with
    /// the quick code meanwhile. Should Cranelift fail on the faster code, the quick code,
    /// which computes the same values, serves on.
    #[inline(always)]
    fn code(&self) -> &JitFunction {
        match self.optimized.get() {
            Some(optimized) => optimized,
            None => self.quick_or_upgrade(),
        }
    }

    fn quick_or_upgrade(&self) -> &JitFunction {
        if self.calls.fetch_add(1, Ordering::Relaxed) + 1 != UPGRADE_AFTER {
            return &self.quick;
        }
        if let Ok(source) = self.source.lock() {
            let (program, name) = &*source;
            if let Ok(optimized) = JitFunction::from_program_in(program, name, Tier::Optimized) {
                return self.optimized.get_or_init(|| optimized);
            }
        }
        &self.quick
    }

    /// The pair code, once batches have asked for [`PAIRS_AFTER`] states with these
    /// `states`, compiled by the call that reaches it (others wait for it).
    fn pair(&self, states: usize) -> Option<&JitPair> {
        if let Some(pair) = self.pair.get() {
            return pair.as_ref();
        }
        if self.batched.fetch_add(states, Ordering::Relaxed) + states < PAIRS_AFTER {
            return None;
        }
        (self.pair)
            .get_or_init(|| {
                let source = self.source.lock().ok()?;
                JitPair::from_program(&source.0, &source.1).ok()
            })
            .as_ref()
    }
}

static NOTICE: Once = Once::new();

impl Function {
    /// Compiles `outputs` of `pool` for `backend`; `name` names the program in errors. The
    /// native code is the quick tier, the faster one compiled later (see [`Function`]); a
    /// program without outputs, which computes nothing, is given the empty tape rather than a
    /// JIT module of its own.
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
        if backend == Backend::Tape || outputs.is_empty() {
            return Ok(Function(Code::Tape(compile_tape(pool, outputs))));
        }
        let program = Program::new(pool, outputs);
        match JitFunction::from_program_in(&program, name, Tier::Quick) {
            Ok(quick) => Ok(Function(Code::Native(Arc::new(Tiered {
                quick,
                optimized: OnceLock::new(),
                calls: AtomicUsize::new(0),
                pair: OnceLock::new(),
                batched: AtomicUsize::new(0),
                source: Mutex::new((program, name.to_string())),
            })))),
            Err(JitError::Unsupported(why)) => {
                NOTICE.call_once(|| eprintln!("udk: {why}; models are evaluated by the tape"));
                Ok(Function(Code::Tape(compile_tape(pool, outputs))))
            }
            Err(e) => Err(e),
        }
    }

    /// The code for pairs of states ([`JitPair`]) for a batch of `states` states: `None` until
    /// batches have asked for [`PAIRS_AFTER`] states in all (the call that reaches it compiles
    /// the code, in about as long as the faster tier takes), and for the tape or should
    /// Cranelift fail on it. Its outputs are those of [`Function::eval`] bit for bit.
    pub fn pair(&self, states: usize) -> Option<&JitPair> {
        match &self.0 {
            Code::Native(t) => t.pair(states),
            Code::Tape(_) => None,
        }
    }

    /// Which tier of native code the next call runs; `None` for the tape.
    pub fn tier(&self) -> Option<Tier> {
        match &self.0 {
            Code::Native(t) if t.optimized.get().is_some() => Some(Tier::Optimized),
            Code::Native(_) => Some(Tier::Quick),
            Code::Tape(_) => None,
        }
    }

    /// Number of outputs.
    pub fn outputs(&self) -> usize {
        match &self.0 {
            Code::Native(f) => f.quick.outputs(),
            Code::Tape(t) => t.outputs(),
        }
    }

    /// Length of the scratch buffer [`Function::eval`] needs.
    pub fn registers(&self) -> usize {
        match &self.0 {
            Code::Native(f) => f.quick.registers(),
            Code::Tape(t) => t.registers(),
        }
    }

    /// How many entries of each input kind the program reads.
    pub fn required(&self) -> TapeSizes {
        match &self.0 {
            Code::Native(f) => f.quick.required(),
            Code::Tape(t) => t.required(),
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
        match &self.0 {
            Code::Native(f) => f.code().eval(inputs, regs, out),
            Code::Tape(t) => t.eval(inputs, regs, out),
        }
    }
}
