//! Compiled programs whose outputs are the entries of several matrices in nalgebra's
//! column-major storage: a [`Scatter`] computes only the entries that are not structurally
//! zero and copies them into the caller's matrices (buffers zeroed once stay zero there); a
//! [`Stacked`] program writes every entry, zeros included, into one buffer that holds the
//! blocks one after the other, so that its results need no copy.

use crate::backend::{Backend, Function};
use crate::error::JitError;
use crate::pair::JitPair;
use udk_symbolic::emit::{TapeError, TapeInputs};
use udk_symbolic::expr::{ExprId, Pool};
use udk_symbolic::{Equations, ExprMatrix, LagrangianEquations, ServoRows};

/// A block of derived expressions: the row-major entries of a rows × cols matrix (cols = 1 for
/// a vector).
#[derive(Clone, Copy, Debug)]
pub struct Block<'a> {
    entries: &'a [ExprId],
    rows: usize,
    cols: usize,
}

impl<'a> Block<'a> {
    /// The entries of `m`.
    pub fn matrix(m: &'a ExprMatrix) -> Self {
        Block {
            entries: &m.entries,
            rows: m.rows,
            cols: m.cols,
        }
    }

    /// The entries of `v`, one column.
    pub fn vector(v: &'a [ExprId]) -> Self {
        Block {
            entries: v,
            rows: v.len(),
            cols: 1,
        }
    }

    /// The terms the kernels need: M, Q, A, b, C of a Lagrangian model (n × n, n, m × n, m,
    /// n), H_p, H_q, H_pp, A_p, b_p of a Hamiltonian one (n, n, n × n, m × n, m).
    pub fn terms(equations: &'a Equations) -> [Self; 5] {
        match equations {
            Equations::Lagrangian(e) => [
                Block::matrix(&e.mass_matrix),
                Block::vector(&e.generalized_force),
                Block::matrix(&e.constraint_matrix),
                Block::vector(&e.constraint_rhs),
                Block::vector(&e.nonideal_force),
            ],
            Equations::Hamiltonian(e) => [
                Block::vector(&e.h_p),
                Block::vector(&e.h_q),
                Block::matrix(&e.h_pp),
                Block::matrix(&e.a_p),
                Block::vector(&e.b_p),
            ],
        }
    }

    /// The terms of the servo controller of a Lagrangian model with servo constraints, in the
    /// order of the fields of `udk_runtime::servo::GenericServoTerms`: M (n × n), Q and C at
    /// u = 0 (n, n), B (n × k), then the stacked `rows` [A; A_s] (r × n), [b; b_s] (r), the
    /// holonomic residuals (r) and the velocity-level residuals (r); `None` without servo
    /// constraints.
    pub fn servo_terms(
        equations: &'a LagrangianEquations,
        rows: &'a ServoRows,
    ) -> Option<[Self; 8]> {
        let servo = equations.servo.as_ref()?;
        Some([
            Block::matrix(&equations.mass_matrix),
            Block::vector(&servo.generalized_force),
            Block::vector(&servo.nonideal_force),
            Block::matrix(&servo.input_matrix),
            Block::matrix(&rows.constraint_matrix),
            Block::vector(&rows.constraint_rhs),
            Block::vector(&servo.position_residual),
            Block::vector(&rows.velocity_residual),
        ])
    }
}

/// The scratch and output buffers of one evaluation of a [`Scatter`], made by
/// [`Scatter::buffers`] and reused.
#[derive(Clone, Debug)]
pub struct Buffers {
    regs: Vec<f64>,
    out: Vec<f64>,
}

impl Buffers {
    /// Scratch and outputs sized for `function`.
    fn new(function: &Function) -> Self {
        Buffers {
            regs: vec![0.0; function.registers()],
            out: vec![0.0; function.outputs()],
        }
    }
}

/// The entries of several [`Block`]s that are not structurally zero, compiled together, and
/// where each goes: (block, column-major index). Clones share the code.
#[derive(Clone, Debug)]
pub struct Scatter {
    function: Function,
    targets: Vec<(usize, usize)>,
}

impl Scatter {
    /// Compiles the entries of `blocks` over `pool` for `backend`; `name` names the program
    /// in errors.
    ///
    /// # Errors
    /// As [`Function::compile`].
    pub fn new(
        pool: &Pool,
        blocks: &[Block],
        name: &str,
        backend: Backend,
    ) -> Result<Self, JitError> {
        let mut ids = Vec::new();
        let mut targets = Vec::new();
        for (b, block) in blocks.iter().enumerate() {
            for (k, &id) in block.entries.iter().enumerate() {
                if !pool.is_zero(id) {
                    ids.push(id);
                    let (i, j) = (k / block.cols, k % block.cols);
                    targets.push((b, j * block.rows + i));
                }
            }
        }
        Ok(Scatter {
            function: Function::compile(pool, &ids, name, backend)?,
            targets,
        })
    }

    /// Buffers for [`Scatter::eval`].
    pub fn buffers(&self) -> Buffers {
        Buffers::new(&self.function)
    }

    /// Evaluates the program at `inputs` and writes each entry into its block of `blocks`
    /// (column-major storage of the blocks' shapes, in order); allocates nothing.
    ///
    /// # Errors
    /// [`TapeError`] when an input slice is too short or `buffers` were made for another
    /// scatter; nothing is written then.
    ///
    /// # Panics
    /// When a block of `blocks` is smaller than the block it stands for.
    pub fn eval<const K: usize>(
        &self,
        inputs: &TapeInputs,
        buffers: &mut Buffers,
        blocks: [&mut [f64]; K],
    ) -> Result<(), TapeError> {
        (self.function).eval(inputs, &mut buffers.regs, &mut buffers.out)?;
        for (&value, &(b, index)) in buffers.out.iter().zip(&self.targets) {
            blocks[b][index] = value;
        }
        Ok(())
    }
}

/// The entries of several [`Block`]s, structural zeros included, compiled together as one
/// program whose outputs are the blocks' column-major storage (nalgebra's) one block after
/// the other: the program writes its results in place, where a [`Scatter`] copies each entry
/// into a separate matrix. Meant for blocks with few structural zeros on a hot path (the
/// articulated-body program's q̈₀, pivots, W, A, b, C), each zero costing one store per call.
/// Clones share the code.
#[derive(Clone, Debug)]
pub struct Stacked {
    function: Function,
    /// Where each block starts among the outputs, then where the last one ends.
    offsets: Vec<usize>,
}

impl Stacked {
    /// Compiles the entries of `blocks` over `pool` for `backend`; `name` names the program
    /// in errors.
    ///
    /// # Errors
    /// As [`Function::compile`].
    pub fn new(
        pool: &Pool,
        blocks: &[Block],
        name: &str,
        backend: Backend,
    ) -> Result<Self, JitError> {
        let mut ids = Vec::new();
        let mut offsets = vec![0];
        for block in blocks {
            for j in 0..block.cols {
                ids.extend((0..block.rows).map(|i| block.entries[i * block.cols + j]));
            }
            offsets.push(ids.len());
        }
        Ok(Stacked {
            function: Function::compile(pool, &ids, name, backend)?,
            offsets,
        })
    }

    /// Buffers for [`Stacked::eval`].
    pub fn buffers(&self) -> Buffers {
        Buffers::new(&self.function)
    }

    /// Evaluates the program at `inputs` into `buffers` and returns its outputs, the blocks'
    /// storage one after the other ([`Stacked::split`] cuts them), borrowed from `buffers`;
    /// allocates nothing.
    ///
    /// # Errors
    /// [`TapeError`] when an input slice is too short or `buffers` were made for another
    /// program; nothing is written then.
    #[inline(always)]
    pub fn eval<'b>(
        &self,
        inputs: &TapeInputs,
        buffers: &'b mut Buffers,
    ) -> Result<&'b [f64], TapeError> {
        (self.function).eval(inputs, &mut buffers.regs, &mut buffers.out)?;
        Ok(&buffers.out)
    }

    /// The code evaluating two states per call ([`JitPair`]) for a batch of `states`, as
    /// [`Function::pair`] gives it: its outputs are [`Stacked::eval`]'s, in the same order.
    pub fn pair(&self, states: usize) -> Option<&JitPair> {
        self.function.pair(states)
    }

    /// The K blocks' column-major storage in `outputs` (of [`Stacked::eval`]).
    ///
    /// # Panics
    /// When the program was compiled from other than K blocks, or `outputs` are not this
    /// program's.
    pub fn split<'o, const K: usize>(&self, outputs: &'o [f64]) -> [&'o [f64]; K] {
        assert_eq!(K + 1, self.offsets.len(), "one slice per block");
        std::array::from_fn(|k| &outputs[self.offsets[k]..self.offsets[k + 1]])
    }
}
