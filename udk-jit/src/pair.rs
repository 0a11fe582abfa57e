//! [`JitPair`]: a program compiled to evaluate two states per call, in the two lanes of
//! 128-bit vectors, for batches of states.

use crate::error::JitError;
use crate::function::{JitFunction, Lanes, Tier};
use udk_symbolic::emit::{Program, TapeError, TapeInputs, TapeSizes};

/// A [`Program`] compiled by Cranelift to evaluate two states per call: every arithmetic
/// value is a pair of f64 in one 128-bit vector (SSE2 on x86-64, NEON on AArch64), and each
/// call of the math library (`sincos`, `powi`, …) is made once per state.
///
/// Its outputs are bit for bit those of two calls of the [`JitFunction`] of the same program
/// (tested on random programs): each vector operation (add, subtract, multiply, divide,
/// negate, square root, absolute value) rounds each lane exactly as the scalar operation
/// does, in the same order, and the calls are the same. What it saves is the instructions:
/// one vector operation computes a value of both states.
///
/// Compiled in the faster tier ([`Tier::Optimized`]). [`Function::pair`](crate::Function::pair)
/// compiles it for a batch once enough states have been asked for.
///
/// ```
/// use udk_symbolic::emit::{Program, TapeInputs};
/// use udk_symbolic::expr::{Func, Pool, Symbol};
///
/// let mut pool = Pool::new();
/// let q = pool.symbol(Symbol::Coordinate(0));
/// let l = pool.symbol(Symbol::Parameter(0));
/// let s = pool.call(Func::Sin, &[q]);
/// let e = pool.mul(&[l, s]);
/// let program = Program::new(&pool, &[e]);
/// let pair = udk_jit::JitPair::from_program(&program, "l sin q").unwrap();
/// let first = TapeInputs { q: &[0.3], params: &[2.0], ..TapeInputs::default() };
/// let second = TapeInputs { q: &[-1.2], params: &[0.5], ..TapeInputs::default() };
/// let mut buffers = pair.buffers();
/// let [a, b] = pair.eval([&first, &second], &mut buffers).unwrap();
/// assert_eq!((a[0], b[0]), (2.0 * 0.3f64.sin(), 0.5 * (-1.2f64).sin()));
/// // A state without the parameter the program reads is an error.
/// let short = TapeInputs { q: &[0.3], ..TapeInputs::default() };
/// assert!(pair.eval([&first, &short], &mut buffers).is_err());
/// ```
pub struct JitPair {
    code: JitFunction,
}

impl std::fmt::Debug for JitPair {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("JitPair").field(&self.code).finish()
    }
}

/// The buffers of [`JitPair::eval`]: the scratch (pairs of f64) and the outputs of each state.
/// Made by [`JitPair::buffers`]; one per thread.
#[derive(Clone, Debug)]
pub struct PairBuffers {
    regs: Vec<f64>,
    /// The outputs of the first and of the second state.
    outputs: [Vec<f64>; 2],
}

impl JitPair {
    /// Compiles `program` to evaluate two states per call; `name` names the result in errors.
    ///
    /// # Errors
    /// As [`JitFunction::from_program`].
    pub fn from_program(program: &Program, name: &str) -> Result<Self, JitError> {
        let code = JitFunction::build(program, name, Tier::Optimized, Lanes::Two)?;
        Ok(JitPair { code })
    }

    /// Number of outputs of one state.
    pub fn outputs(&self) -> usize {
        self.code.outputs()
    }

    /// How many entries of each input kind the code reads (of each state).
    pub fn required(&self) -> TapeSizes {
        self.code.required()
    }

    /// Buffers sized for this program.
    pub fn buffers(&self) -> PairBuffers {
        PairBuffers {
            regs: vec![0.0; 2 * self.code.registers()],
            outputs: [vec![0.0; self.outputs()], vec![0.0; self.outputs()]],
        }
    }

    /// Evaluates the outputs of the two states `inputs` into `buffers` and returns those of
    /// each ([`JitPair::outputs`] entries each), borrowed from `buffers`; allocates nothing.
    /// Bit for bit the outputs of [`JitFunction::eval`] at each state.
    ///
    /// # Errors
    /// [`TapeError`] when an input slice of either state is too short, or `buffers` were made
    /// for another program; nothing is written then.
    #[inline]
    pub fn eval<'b>(
        &self,
        inputs: [&TapeInputs<'_>; 2],
        buffers: &'b mut PairBuffers,
    ) -> Result<[&'b [f64]; 2], TapeError> {
        let sizes = self.required();
        let registers = (self.code.registers(), buffers.regs.len() / 2);
        for (state, out) in inputs.into_iter().zip(&buffers.outputs) {
            sizes.check_call(state, registers, (self.outputs(), out.len()))?;
        }
        let [a, b] = inputs.map(fields);
        let times = [inputs[0].t, inputs[1].t];
        let mut pointers = [std::ptr::null(); 15];
        for (pointer, input) in pointers.iter_mut().zip(a.iter().chain(&b)) {
            *pointer = input.as_ptr();
        }
        pointers[14] = times.as_ptr();
        let [first, second] = &mut buffers.outputs;
        let outputs = [first.as_mut_ptr(), second.as_mut_ptr()];
        for chunk in &self.code.chunks {
            // SAFETY: the code reads entry i of an input kind of each state only for i below
            // `self.required()` (checked above against both states), the two times, scratch
            // pairs below `self.code.registers()` (`buffers.regs` holds twice as many f64) and
            // writes each state's outputs below `self.outputs()` (their lengths, checked).
            unsafe {
                chunk(
                    pointers.as_ptr(),
                    0.0,
                    buffers.regs.as_mut_ptr(),
                    outputs.as_ptr().cast_mut().cast(),
                )
            };
        }
        Ok([&buffers.outputs[0], &buffers.outputs[1]])
    }
}

/// The input slices of `s` in the order of the code's input pointers.
fn fields<'a>(s: &TapeInputs<'a>) -> [&'a [f64]; 7] {
    [s.q, s.qd, s.qdd, s.p, s.params, s.u, s.lambda]
}
