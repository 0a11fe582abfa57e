//! [`Function`]: a program compiled by the JIT, or the tape where the JIT is not wanted or
//! has no back end for the host.

use crate::error::JitError;
use crate::function::{self, JitFunction, Tier};
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
/// Native code comes in two tiers ([`Tier`]), after the tape: the first [`COMPILE_AFTER`] − 1
/// calls run the tape (compiled in a tenth of the time Cranelift takes), the call that makes
/// [`COMPILE_AFTER`] compiles code quickly with Cranelift, and the call that makes
/// [`UPGRADE_AFTER`] compiles the faster code, which every later call runs. A model evaluated
/// once (the first q̈ of a model made at run time) pays only the tape's compilation, one
/// evaluated many times the faster code's; the values are the same either way. Should
/// Cranelift fail on a tier, a line on standard error says so and the code before it serves
/// on.
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

/// Calls of a [`Function`] after which its faster code ([`Tier::Optimized`]) is compiled:
/// about the number of calls whose extra time in the quick code equals the faster code's
/// compile time, which bounds a model's JIT time (compilation and calls) by twice the least
/// either choice could have made it. On the release build (`jit_timing`, `guide/jit.md`, "Two
/// tiers") that number was 16 000–37 000 calls for programs of 347 to 9154 values: 27 000 for
/// the terms of a 5-link pendulum on a cart (0.95 ms to compile, 35 ns a call saved) and for
/// the UR5's articulated-body program (3.4 ms, 126 ns).
pub const UPGRADE_AFTER: usize = 25_000;

/// Calls of a [`Function`] on the tape after which its quick code ([`Tier::Quick`]) is
/// compiled: by the same measure as [`UPGRADE_AFTER`], the number of calls whose extra time on
/// the tape equals the quick code's compile time. On the release build (`jit_timing`,
/// 2026-12-07) that was 352 for the terms of a 5-link pendulum on a cart (334 µs to compile,
/// 1.1 µs a call on the tape against 155 ns), 324 for the UR5's terms and 274 for its
/// articulated-body program (765 µs, 3.2 µs against 413 ns).
pub const COMPILE_AFTER: usize = 300;

/// States asked of a [`Function`]'s batches ([`Function::pair`]) after which its code for
/// pairs of states ([`JitPair`]) is compiled: twice [`UPGRADE_AFTER`], since the pair code
/// saves less per state over the faster code (about 80 ns of 265 for the UR5's
/// articulated-body program, `guide/jit.md`, "Batch evaluation") than the faster code over
/// the quick one (126 ns), and takes about as long to compile (3.5 ms): past 50 000 states,
/// the saving has paid for the compilation.
pub const PAIRS_AFTER: usize = 2 * UPGRADE_AFTER;

/// The tape, then native code in two tiers: the quick code until the faster code is compiled;
/// and the code for pairs of states, once batches have asked for enough states.
struct Tiered {
    tape: Tape,
    /// The quick code (`None` should Cranelift fail on it).
    quick: OnceLock<Option<JitFunction>>,
    optimized: OnceLock<JitFunction>,
    /// Calls so far, until the faster code is compiled.
    calls: AtomicUsize,
    /// Length of the scratch buffer either code needs.
    registers: usize,
    /// The code for pairs of states (`None` should Cranelift fail on it).
    pair: OnceLock<Option<JitPair>>,
    /// States asked of batches so far.
    batched: AtomicUsize,
    /// The program and its name, kept to compile the faster code and the pair code from.
    source: Mutex<(Program, String)>,
}

impl fmt::Debug for Tiered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.optimized.get(), self.quick.get()) {
            (Some(optimized), _) => f.debug_tuple("Optimized").field(optimized).finish(),
            (None, Some(Some(quick))) => f.debug_tuple("Quick").field(quick).finish(),
            _ => f.debug_tuple("Tape").field(&self.tape).finish(),
        }
    }
}

impl Tiered {
    /// The native code for this call, `None` for the tape: the faster code once compiled;
    /// before, the quick code once compiled, the call that makes [`COMPILE_AFTER`] compiling
    /// it first and the call that makes [`UPGRADE_AFTER`] the faster code. Other threads go
    /// on with the code before meanwhile.
    #[inline(always)]
    fn code(&self) -> Option<&JitFunction> {
        match self.optimized.get() {
            Some(optimized) => Some(optimized),
            None => self.before_optimized(),
        }
    }

    fn before_optimized(&self) -> Option<&JitFunction> {
        match self.calls.fetch_add(1, Ordering::Relaxed) + 1 {
            COMPILE_AFTER => {
                self.quick.get_or_init(|| self.compile(Tier::Quick));
            }
            UPGRADE_AFTER => {
                if let Some(optimized) = self.compile(Tier::Optimized) {
                    return Some(self.optimized.get_or_init(|| optimized));
                }
            }
            _ => {}
        }
        self.quick.get().and_then(Option::as_ref)
    }

    /// The program compiled as `tier` says; `None`, with a line on standard error, should
    /// Cranelift fail on it.
    fn compile(&self, tier: Tier) -> Option<JitFunction> {
        let source = self.source.lock().ok()?;
        let (program, name) = &*source;
        JitFunction::from_program_in(program, name, tier)
            .inspect_err(|e| eprintln!("udk: {e}; the code compiled before serves on"))
            .ok()
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
                JitPair::from_program(&source.0, &source.1)
                    .inspect_err(|e| eprintln!("udk: {e}; batches go on one state per call"))
                    .ok()
            })
            .as_ref()
    }
}

static NOTICE: Once = Once::new();

impl Function {
    /// Compiles `outputs` of `pool` for `backend`; `name` names the program in errors. For
    /// the JIT this lowers the program and compiles its tape, which the first calls run; the
    /// native code is compiled by later calls (see [`Function`]). A program without outputs,
    /// which computes nothing, is given the empty tape rather than a JIT module of its own.
    ///
    /// # Errors
    /// None at present: Cranelift runs on later calls, and should it fail there the code
    /// before serves on (with a line on standard error). A host with no Cranelift back end is
    /// no error either: the tape serves, and the first such fall-back prints one line on
    /// standard error.
    pub fn compile(
        pool: &Pool,
        outputs: &[ExprId],
        name: &str,
        backend: Backend,
    ) -> Result<Self, JitError> {
        if backend == Backend::Tape || outputs.is_empty() {
            return Ok(Function(Code::Tape(compile_tape(pool, outputs))));
        }
        if let Err(why) = function::check_host() {
            NOTICE.call_once(|| eprintln!("udk: {why}; models are evaluated by the tape"));
            return Ok(Function(Code::Tape(compile_tape(pool, outputs))));
        }
        let program = Program::new(pool, outputs);
        let tape = Tape::from_program(&program);
        Ok(Function(Code::Native(Arc::new(Tiered {
            registers: tape.registers().max(function::scratch_len(&program)),
            tape,
            quick: OnceLock::new(),
            optimized: OnceLock::new(),
            calls: AtomicUsize::new(0),
            pair: OnceLock::new(),
            batched: AtomicUsize::new(0),
            source: Mutex::new((program, name.to_string())),
        }))))
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

    /// Which tier of native code the next call runs; `None` for the tape (the backend, or the
    /// first [`COMPILE_AFTER`] calls).
    pub fn tier(&self) -> Option<Tier> {
        match &self.0 {
            Code::Native(t) if t.optimized.get().is_some() => Some(Tier::Optimized),
            Code::Native(t) if matches!(t.quick.get(), Some(Some(_))) => Some(Tier::Quick),
            Code::Native(_) | Code::Tape(_) => None,
        }
    }

    /// Number of outputs.
    pub fn outputs(&self) -> usize {
        match &self.0 {
            Code::Native(f) => f.tape.outputs(),
            Code::Tape(t) => t.outputs(),
        }
    }

    /// Length of the scratch buffer [`Function::eval`] needs.
    pub fn registers(&self) -> usize {
        match &self.0 {
            Code::Native(f) => f.registers,
            Code::Tape(t) => t.registers(),
        }
    }

    /// How many entries of each input kind the program reads.
    pub fn required(&self) -> TapeSizes {
        match &self.0 {
            Code::Native(f) => f.tape.required(),
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
            Code::Native(f) => match f.code() {
                Some(native) => native.eval(inputs, regs, out),
                None => f.tape.eval(inputs, regs, out),
            },
            Code::Tape(t) => t.eval(inputs, regs, out),
        }
    }
}
