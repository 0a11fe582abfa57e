//! The run-time evaluation tape: a flat instruction list over registers, for models loaded at
//! run time with no rustc.

use super::program::{Op, Program, Step};
use crate::expr::{ExprId, Func, Pool, Symbol};

/// The values of the model quantities a [`Tape`] reads.
///
/// Each slice must be at least as long as the highest index of its kind that the tape reads
/// (see [`Tape::required`]); slices of kinds the tape does not read may be empty.
#[derive(Clone, Copy, Debug, Default)]
pub struct TapeInputs<'a> {
    /// Generalized coordinates q, n entries.
    pub q: &'a [f64],
    /// Generalized velocities q̇, n entries.
    pub qd: &'a [f64],
    /// Generalized accelerations q̈, n entries (only velocity-level expressions read them).
    pub qdd: &'a [f64],
    /// Generalized momenta p, n entries (Hamiltonian models).
    pub p: &'a [f64],
    /// Time t (s).
    pub t: f64,
    /// Parameter values, in the model's order.
    pub params: &'a [f64],
    /// Run-time inputs u, k entries (models with `inputs`).
    pub u: &'a [f64],
    /// Constraint multipliers λ, m entries (only the residual Jacobians read them).
    pub lambda: &'a [f64],
}

/// How many entries of each input kind a tape reads: one more than the highest index read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TapeSizes {
    /// Entries of q read.
    pub q: usize,
    /// Entries of q̇ read.
    pub qd: usize,
    /// Entries of q̈ read.
    pub qdd: usize,
    /// Entries of p read.
    pub p: usize,
    /// Entries of the parameters read.
    pub params: usize,
    /// Entries of the inputs u read.
    pub u: usize,
    /// Entries of the multipliers λ read.
    pub lambda: usize,
}

/// A bad call of [`Tape::eval`]: a buffer or an input slice of the wrong length.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TapeError {
    /// An input slice is shorter than the tape needs.
    #[error("the tape reads {needed} entries of `{input}` but {given} were given")]
    Input {
        /// `q`, `qd`, `qdd`, `p`, `params`, `u` or `lambda`.
        input: &'static str,
        /// Entries needed.
        needed: usize,
        /// Entries given.
        given: usize,
    },
    /// The register buffer is shorter than [`Tape::registers`].
    #[error("the tape needs {needed} registers but {given} were given")]
    Registers {
        /// Registers needed.
        needed: usize,
        /// Registers given.
        given: usize,
    },
    /// The output buffer's length is not [`Tape::outputs`].
    #[error("the tape has {expected} outputs but the output buffer holds {given}")]
    Outputs {
        /// Number of outputs.
        expected: usize,
        /// Buffer length.
        given: usize,
    },
}

/// One arithmetic instruction: registers are indices into the register buffer, all below
/// [`Tape::registers`] by construction. 16 bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Instr {
    Add(u32, u32, u32),
    Sub(u32, u32, u32),
    Mul(u32, u32, u32),
    Div(u32, u32, u32),
    Neg(u32, u32),
    Powi(u32, u32, i32),
    /// d = a·a, which is `powi(a, 2)` exactly (and what rustc makes of it in the Rust code).
    Square(u32, u32),
    Powf(u32, u32, u32),
    Call(u32, Func, u32),
    Atan2(u32, u32, u32),
    SinCos {
        sin: u32,
        cos: u32,
        arg: u32,
    },
    /// d = a·b + c, rounded after the product as the unfused `a * b + c` of the Rust code
    /// (the product has no other use, so it needs no register).
    MulAdd([u32; 4]),
    /// d = a·b − c, likewise.
    MulSub([u32; 4]),
    /// d = c − a·b, likewise.
    SubMul([u32; 4]),
    /// d = −(a·b).
    NegMul(u32, u32, u32),
    /// d = (a + b)·c, the sum rounded first as in the Rust code (the sum has no other use).
    AddThenMul([u32; 4]),
    /// d = (a − b)·c, likewise.
    SubThenMul([u32; 4]),
    /// d = (a + b)², likewise.
    AddSquared(u32, u32, u32),
    /// d = (a − b)², likewise.
    SubSquared(u32, u32, u32),
}

/// A compiled flat instruction list computing a set of outputs, from [`compile_tape`].
///
/// The same operations in the same order as the Rust code [`emit_rust`](super::emit_rust)
/// writes for the same outputs, so the two agree to rounding (usually bit for bit). Constants
/// and model quantities are written first (they depend on nothing), then one arithmetic
/// instruction per value, a value used once being computed inside its user where that
/// saves a dispatch (products in sums and negations, sums in products and squares, with the
/// roundings of the unfused operations); structurally zero
/// outputs are written as zeros, not copied from a register.
#[derive(Clone, Debug)]
pub struct Tape {
    constants: Vec<(u32, f64)>,
    loads: Vec<(u32, Symbol)>,
    instrs: Vec<Instr>,
    /// Distinct values computed (a fused product counting as one).
    values: usize,
    registers: usize,
    /// (output index, register) of the outputs that are not the constant 0.
    outputs: Vec<(u32, u32)>,
    /// Number of outputs.
    width: usize,
    sizes: TapeSizes,
}

/// Compiles `outputs` of `pool` into a [`Tape`].
pub fn compile_tape(pool: &Pool, outputs: &[ExprId]) -> Tape {
    Tape::from_program(&Program::new(pool, outputs))
}

impl Tape {
    /// The tape of `program` (lowered by [`Program::new`]), as [`compile_tape`] makes it.
    pub fn from_program(program: &Program) -> Tape {
        tape_of(program)
    }
}

/// The tape of `program`: see [`Tape::from_program`].
fn tape_of(program: &Program) -> Tape {
    let ops = &program.ops;
    // A value used once may be computed inside its user, saving one dispatch: a product in
    // a sum, a difference or a negation; a sum or difference in a product or a square. A
    // value that absorbs an operand is not absorbed itself.
    let mut fused = vec![false; ops.len()];
    let mut absorbs = vec![false; ops.len()];
    for step in &program.steps {
        let Step::Op(v) = *step else { continue };
        let once = |x: u32| program.uses[x as usize] == 1 && !absorbs[x as usize];
        let is_product = |x: u32| once(x) && matches!(ops[x as usize], Op::Mul(..));
        let is_sum = |x: u32| once(x) && matches!(ops[x as usize], Op::Add(..) | Op::Sub(..));
        let absorbed = match ops[v as usize] {
            Op::Add(x, y) | Op::Sub(x, y) => [x, y].into_iter().find(|&w| is_product(w)),
            Op::Neg(x) => Some(x).filter(|&w| is_product(w)),
            Op::Mul(x, y) => [x, y].into_iter().find(|&w| is_sum(w)),
            Op::Powi(x, 2) => Some(x).filter(|&w| is_sum(w)),
            _ => None,
        };
        if let Some(w) = absorbed {
            fused[w as usize] = true;
            absorbs[v as usize] = true;
        }
    }
    let mut reg = vec![u32::MAX; ops.len()];
    let mut next = 0u32;
    let mut tape = Tape {
        constants: Vec::new(),
        loads: Vec::new(),
        instrs: Vec::with_capacity(program.steps.len()),
        values: 0,
        registers: 0,
        outputs: Vec::new(),
        width: program.outputs.len(),
        sizes: program.required(),
    };
    for step in &program.steps {
        tape.values += 1;
        let instr = match *step {
            Step::SinCos { arg, sin, cos } => {
                (reg[sin as usize], reg[cos as usize]) = (next, next + 1);
                next += 2;
                Instr::SinCos {
                    sin: reg[sin as usize],
                    cos: reg[cos as usize],
                    arg: reg[arg as usize],
                }
            }
            Step::Op(v) if fused[v as usize] => continue,
            Step::Op(v) => {
                let d = next;
                next += 1;
                reg[v as usize] = d;
                let r = |w: u32| reg[w as usize];
                // The operands (a, b) of `x` if it is computed inside this instruction.
                let inner = |x: u32| match ops[x as usize] {
                    Op::Add(a, b) | Op::Sub(a, b) | Op::Mul(a, b) if fused[x as usize] => {
                        Some((r(a), r(b), matches!(ops[x as usize], Op::Sub(..))))
                    }
                    _ => None,
                };
                match ops[v as usize] {
                    Op::Const(bits) => {
                        tape.constants.push((d, f64::from_bits(bits)));
                        continue;
                    }
                    Op::Load(s) => {
                        tape.loads.push((d, s));
                        continue;
                    }
                    Op::Add(x, y) => match (inner(x), inner(y)) {
                        (Some((a, b, _)), _) => Instr::MulAdd([d, a, b, r(y)]),
                        (_, Some((a, b, _))) => Instr::MulAdd([d, a, b, r(x)]),
                        _ => Instr::Add(d, r(x), r(y)),
                    },
                    Op::Sub(x, y) => match (inner(x), inner(y)) {
                        (Some((a, b, _)), _) => Instr::MulSub([d, a, b, r(y)]),
                        (_, Some((a, b, _))) => Instr::SubMul([d, a, b, r(x)]),
                        _ => Instr::Sub(d, r(x), r(y)),
                    },
                    Op::Neg(x) => match inner(x) {
                        Some((a, b, _)) => Instr::NegMul(d, a, b),
                        None => Instr::Neg(d, r(x)),
                    },
                    Op::Mul(x, y) => match (inner(x), inner(y)) {
                        (Some((a, b, false)), _) => Instr::AddThenMul([d, a, b, r(y)]),
                        (Some((a, b, true)), _) => Instr::SubThenMul([d, a, b, r(y)]),
                        (_, Some((a, b, false))) => Instr::AddThenMul([d, a, b, r(x)]),
                        (_, Some((a, b, true))) => Instr::SubThenMul([d, a, b, r(x)]),
                        _ => Instr::Mul(d, r(x), r(y)),
                    },
                    Op::Powi(x, 2) => match inner(x) {
                        Some((a, b, false)) => Instr::AddSquared(d, a, b),
                        Some((a, b, true)) => Instr::SubSquared(d, a, b),
                        None => Instr::Square(d, r(x)),
                    },
                    Op::Div(a, b) => Instr::Div(d, r(a), r(b)),
                    Op::Powi(a, k) => Instr::Powi(d, r(a), k),
                    Op::Powf(a, b) => Instr::Powf(d, r(a), r(b)),
                    Op::Call(f, a) => Instr::Call(d, f, r(a)),
                    Op::Atan2(y, x) => Instr::Atan2(d, r(y), r(x)),
                }
            }
        };
        tape.instrs.push(instr);
    }
    tape.registers = next as usize;
    let zero = |v: u32| matches!(ops[v as usize], Op::Const(bits) if f64::from_bits(bits) == 0.0);
    tape.outputs = (program.outputs.iter().enumerate())
        .filter(|&(_, &v)| !zero(v))
        .map(|(k, &v)| (k as u32, reg[v as usize]))
        .collect();
    tape
}

impl TapeSizes {
    /// Checks a call of a compiled program that reads inputs of these sizes and has
    /// `registers` registers and `outputs` outputs (a [`Tape`], or the JIT's counterpart):
    /// every slice of `inputs` at least as long as these sizes, `regs` registers at least
    /// `registers`, `out` outputs exactly `outputs`.
    ///
    /// # Errors
    /// [`TapeError::Input`] naming the first slice that is too short, then
    /// [`TapeError::Registers`] or [`TapeError::Outputs`].
    #[inline]
    pub fn check_call(
        &self,
        inputs: &TapeInputs<'_>,
        (registers, regs): (usize, usize),
        (outputs, out): (usize, usize),
    ) -> Result<(), TapeError> {
        // The check of every evaluation, inlined: one pass of comparisons, the error named
        // out of line.
        if inputs.q.len() >= self.q
            && inputs.qd.len() >= self.qd
            && inputs.qdd.len() >= self.qdd
            && inputs.p.len() >= self.p
            && inputs.params.len() >= self.params
            && inputs.u.len() >= self.u
            && inputs.lambda.len() >= self.lambda
            && regs >= registers
            && out == outputs
        {
            return Ok(());
        }
        self.call_error(inputs, (registers, regs), (outputs, out))
    }

    /// The error of [`TapeSizes::check_call`] for a call that fails it.
    #[cold]
    #[inline(never)]
    fn call_error(
        &self,
        inputs: &TapeInputs<'_>,
        (registers, regs): (usize, usize),
        (outputs, out): (usize, usize),
    ) -> Result<(), TapeError> {
        for (input, needed, given) in [
            ("q", self.q, inputs.q.len()),
            ("qd", self.qd, inputs.qd.len()),
            ("qdd", self.qdd, inputs.qdd.len()),
            ("p", self.p, inputs.p.len()),
            ("params", self.params, inputs.params.len()),
            ("u", self.u, inputs.u.len()),
            ("lambda", self.lambda, inputs.lambda.len()),
        ] {
            if given < needed {
                return Err(TapeError::Input {
                    input,
                    needed,
                    given,
                });
            }
        }
        if regs < registers {
            return Err(TapeError::Registers {
                needed: registers,
                given: regs,
            });
        }
        if out != outputs {
            return Err(TapeError::Outputs {
                expected: outputs,
                given: out,
            });
        }
        Ok(())
    }
}

impl Tape {
    /// Number of outputs.
    pub fn outputs(&self) -> usize {
        self.width
    }

    /// Length of the register buffer [`Tape::eval`] needs.
    pub fn registers(&self) -> usize {
        self.registers
    }

    /// Number of instructions (distinct values computed, a `sin_cos` counting once).
    pub fn len(&self) -> usize {
        self.values
    }

    /// Whether the tape has no instruction (no outputs).
    pub fn is_empty(&self) -> bool {
        self.values == 0
    }

    /// How many entries of each input kind the tape reads.
    pub fn required(&self) -> TapeSizes {
        self.sizes
    }

    /// Evaluates the outputs at `inputs` into `out`, using `regs` as scratch; allocates nothing.
    ///
    /// `regs` needs at least [`Tape::registers`] entries and `out` exactly [`Tape::outputs`].
    ///
    /// # Errors
    /// [`TapeError`] if a buffer or an input slice is too short; nothing is written then.
    pub fn eval(
        &self,
        inputs: &TapeInputs<'_>,
        regs: &mut [f64],
        out: &mut [f64],
    ) -> Result<(), TapeError> {
        self.check(inputs, regs.len(), out.len())?;
        let regs = &mut regs[..self.registers];
        for &(d, x) in &self.constants {
            regs[d as usize] = x;
        }
        for &(d, s) in &self.loads {
            regs[d as usize] = load(inputs, s);
        }
        for instr in &self.instrs {
            match *instr {
                Instr::Add(d, a, b) => regs[d as usize] = regs[a as usize] + regs[b as usize],
                Instr::Sub(d, a, b) => regs[d as usize] = regs[a as usize] - regs[b as usize],
                Instr::Mul(d, a, b) => regs[d as usize] = regs[a as usize] * regs[b as usize],
                Instr::Div(d, a, b) => regs[d as usize] = regs[a as usize] / regs[b as usize],
                Instr::Neg(d, a) => regs[d as usize] = -regs[a as usize],
                Instr::Powi(d, a, k) => regs[d as usize] = regs[a as usize].powi(k),
                Instr::Square(d, a) => regs[d as usize] = regs[a as usize] * regs[a as usize],
                Instr::Powf(d, a, b) => regs[d as usize] = regs[a as usize].powf(regs[b as usize]),
                Instr::Call(d, f, a) => regs[d as usize] = f.apply(&[regs[a as usize]]),
                Instr::Atan2(d, y, x) => {
                    regs[d as usize] = regs[y as usize].atan2(regs[x as usize])
                }
                Instr::SinCos { sin, cos, arg } => {
                    (regs[sin as usize], regs[cos as usize]) = regs[arg as usize].sin_cos();
                }
                Instr::MulAdd([d, a, b, c]) => {
                    regs[d as usize] = regs[a as usize] * regs[b as usize] + regs[c as usize]
                }
                Instr::MulSub([d, a, b, c]) => {
                    regs[d as usize] = regs[a as usize] * regs[b as usize] - regs[c as usize]
                }
                Instr::SubMul([d, a, b, c]) => {
                    regs[d as usize] = regs[c as usize] - regs[a as usize] * regs[b as usize]
                }
                Instr::NegMul(d, a, b) => regs[d as usize] = -(regs[a as usize] * regs[b as usize]),
                Instr::AddThenMul([d, a, b, c]) => {
                    regs[d as usize] = (regs[a as usize] + regs[b as usize]) * regs[c as usize]
                }
                Instr::SubThenMul([d, a, b, c]) => {
                    regs[d as usize] = (regs[a as usize] - regs[b as usize]) * regs[c as usize]
                }
                Instr::AddSquared(d, a, b) => {
                    let x = regs[a as usize] + regs[b as usize];
                    regs[d as usize] = x * x;
                }
                Instr::SubSquared(d, a, b) => {
                    let x = regs[a as usize] - regs[b as usize];
                    regs[d as usize] = x * x;
                }
            }
        }
        if self.outputs.len() < out.len() {
            out.fill(0.0);
        }
        for &(k, r) in &self.outputs {
            out[k as usize] = regs[r as usize];
        }
        Ok(())
    }

    fn check(&self, inputs: &TapeInputs<'_>, regs: usize, out: usize) -> Result<(), TapeError> {
        (self.sizes).check_call(inputs, (self.registers, regs), (self.width, out))
    }
}

fn load(inputs: &TapeInputs<'_>, s: Symbol) -> f64 {
    match s {
        Symbol::Time => inputs.t,
        Symbol::Coordinate(i) => inputs.q[i],
        Symbol::Velocity(i) | Symbol::Speed(i) => inputs.qd[i],
        Symbol::Acceleration(i) => inputs.qdd[i],
        Symbol::Momentum(i) => inputs.p[i],
        Symbol::Parameter(i) => inputs.params[i],
        Symbol::Input(i) => inputs.u[i],
        Symbol::Multiplier(i) => inputs.lambda[i],
    }
}
