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
}

/// A bad call of [`Tape::eval`]: a buffer or an input slice of the wrong length.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TapeError {
    /// An input slice is shorter than the tape needs.
    #[error("the tape reads {needed} entries of `{input}` but {given} were given")]
    Input {
        /// `q`, `qd`, `qdd`, `p` or `params`.
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

/// One instruction: registers are indices into the register buffer.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Instr {
    Const(u32, f64),
    Load(u32, Symbol),
    Add(u32, u32, u32),
    Sub(u32, u32, u32),
    Mul(u32, u32, u32),
    Div(u32, u32, u32),
    Neg(u32, u32),
    Powi(u32, u32, i32),
    Powf(u32, u32, u32),
    Call(u32, Func, u32),
    Atan2(u32, u32, u32),
    SinCos { sin: u32, cos: u32, arg: u32 },
}

/// A compiled flat instruction list computing a set of outputs, from [`compile_tape`].
///
/// One instruction per distinct value, in the same order and with the same operations as the
/// Rust code [`emit_rust`](super::emit_rust) writes for the same outputs, so the two agree to
/// rounding (usually bit for bit).
#[derive(Clone, Debug)]
pub struct Tape {
    instrs: Vec<Instr>,
    registers: usize,
    outputs: Vec<u32>,
    sizes: TapeSizes,
}

/// Compiles `outputs` of `pool` into a [`Tape`].
pub fn compile_tape(pool: &Pool, outputs: &[ExprId]) -> Tape {
    let program = Program::new(pool, outputs);
    let mut reg = vec![u32::MAX; program.ops.len()];
    let mut next = 0u32;
    let mut sizes = TapeSizes::default();
    let mut instrs = Vec::with_capacity(program.steps.len());
    for step in &program.steps {
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
            Step::Op(v) => {
                let d = next;
                next += 1;
                let r = |w: u32| reg[w as usize];
                let instr = match program.ops[v as usize] {
                    Op::Const(bits) => Instr::Const(d, f64::from_bits(bits)),
                    Op::Load(s) => {
                        sizes.grow(s);
                        Instr::Load(d, s)
                    }
                    Op::Add(a, b) => Instr::Add(d, r(a), r(b)),
                    Op::Sub(a, b) => Instr::Sub(d, r(a), r(b)),
                    Op::Mul(a, b) => Instr::Mul(d, r(a), r(b)),
                    Op::Div(a, b) => Instr::Div(d, r(a), r(b)),
                    Op::Neg(a) => Instr::Neg(d, r(a)),
                    Op::Powi(a, k) => Instr::Powi(d, r(a), k),
                    Op::Powf(a, b) => Instr::Powf(d, r(a), r(b)),
                    Op::Call(f, a) => Instr::Call(d, f, r(a)),
                    Op::Atan2(y, x) => Instr::Atan2(d, r(y), r(x)),
                };
                reg[v as usize] = d;
                instr
            }
        };
        instrs.push(instr);
    }
    Tape {
        instrs,
        registers: next as usize,
        outputs: program.outputs.iter().map(|&v| reg[v as usize]).collect(),
        sizes,
    }
}

impl TapeSizes {
    fn grow(&mut self, s: Symbol) {
        let (slot, i) = match s {
            Symbol::Time => return,
            Symbol::Coordinate(i) => (&mut self.q, i),
            Symbol::Velocity(i) => (&mut self.qd, i),
            Symbol::Acceleration(i) => (&mut self.qdd, i),
            Symbol::Momentum(i) => (&mut self.p, i),
            Symbol::Parameter(i) => (&mut self.params, i),
        };
        *slot = (*slot).max(i + 1);
    }
}

impl Tape {
    /// Number of outputs.
    pub fn outputs(&self) -> usize {
        self.outputs.len()
    }

    /// Length of the register buffer [`Tape::eval`] needs.
    pub fn registers(&self) -> usize {
        self.registers
    }

    /// Number of instructions (distinct values computed, a `sin_cos` counting once).
    pub fn len(&self) -> usize {
        self.instrs.len()
    }

    /// Whether the tape has no instruction (no outputs).
    pub fn is_empty(&self) -> bool {
        self.instrs.is_empty()
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
        for instr in &self.instrs {
            match *instr {
                Instr::Const(d, x) => regs[d as usize] = x,
                Instr::Load(d, s) => regs[d as usize] = load(inputs, s),
                Instr::Add(d, a, b) => regs[d as usize] = regs[a as usize] + regs[b as usize],
                Instr::Sub(d, a, b) => regs[d as usize] = regs[a as usize] - regs[b as usize],
                Instr::Mul(d, a, b) => regs[d as usize] = regs[a as usize] * regs[b as usize],
                Instr::Div(d, a, b) => regs[d as usize] = regs[a as usize] / regs[b as usize],
                Instr::Neg(d, a) => regs[d as usize] = -regs[a as usize],
                Instr::Powi(d, a, k) => regs[d as usize] = regs[a as usize].powi(k),
                Instr::Powf(d, a, b) => regs[d as usize] = regs[a as usize].powf(regs[b as usize]),
                Instr::Call(d, f, a) => regs[d as usize] = f.apply(&[regs[a as usize]]),
                Instr::Atan2(d, y, x) => {
                    regs[d as usize] = regs[y as usize].atan2(regs[x as usize])
                }
                Instr::SinCos { sin, cos, arg } => {
                    (regs[sin as usize], regs[cos as usize]) = regs[arg as usize].sin_cos();
                }
            }
        }
        for (o, &r) in out.iter_mut().zip(&self.outputs) {
            *o = regs[r as usize];
        }
        Ok(())
    }

    fn check(&self, inputs: &TapeInputs<'_>, regs: usize, out: usize) -> Result<(), TapeError> {
        let s = self.sizes;
        for (input, needed, given) in [
            ("q", s.q, inputs.q.len()),
            ("qd", s.qd, inputs.qd.len()),
            ("qdd", s.qdd, inputs.qdd.len()),
            ("p", s.p, inputs.p.len()),
            ("params", s.params, inputs.params.len()),
        ] {
            if given < needed {
                return Err(TapeError::Input {
                    input,
                    needed,
                    given,
                });
            }
        }
        if regs < self.registers {
            return Err(TapeError::Registers {
                needed: self.registers,
                given: regs,
            });
        }
        if out != self.outputs.len() {
            return Err(TapeError::Outputs {
                expected: self.outputs.len(),
                given: out,
            });
        }
        Ok(())
    }
}

fn load(inputs: &TapeInputs<'_>, s: Symbol) -> f64 {
    match s {
        Symbol::Time => inputs.t,
        Symbol::Coordinate(i) => inputs.q[i],
        Symbol::Velocity(i) => inputs.qd[i],
        Symbol::Acceleration(i) => inputs.qdd[i],
        Symbol::Momentum(i) => inputs.p[i],
        Symbol::Parameter(i) => inputs.params[i],
    }
}
