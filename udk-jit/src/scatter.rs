//! A compiled program whose outputs are the entries of several matrices, written into
//! nalgebra's column-major storage; structural zeros are neither computed nor written, so
//! buffers zeroed once stay zero there.

use crate::backend::{Backend, Function};
use crate::error::JitError;
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
        Buffers {
            regs: vec![0.0; self.function.registers()],
            out: vec![0.0; self.function.outputs()],
        }
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
