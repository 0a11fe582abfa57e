//! A compiled program whose outputs are the entries of several matrices, written into nalgebra
//! storage: the structural zeros are neither computed nor written.

use nalgebra::DMatrix;
use udk_jit::{Backend, Function, JitError};
use udk_symbolic::emit::{TapeError, TapeInputs};
use udk_symbolic::expr::{ExprId, Pool};
use udk_symbolic::ExprMatrix;

/// A block of derived expressions: row-major entries of a rows × cols matrix (cols = 1 for a
/// vector).
pub(crate) struct Block<'a> {
    entries: &'a [ExprId],
    rows: usize,
    cols: usize,
}

impl<'a> Block<'a> {
    pub(crate) fn matrix(m: &'a ExprMatrix) -> Self {
        Block {
            entries: &m.entries,
            rows: m.rows,
            cols: m.cols,
        }
    }

    pub(crate) fn vector(v: &'a [ExprId]) -> Self {
        Block {
            entries: v,
            rows: v.len(),
            cols: 1,
        }
    }
}

/// The program of the entries of several blocks that are not structurally zero, and where
/// each goes: (block, column-major index).
#[derive(Debug)]
pub(crate) struct Scatter {
    function: Function,
    targets: Vec<(usize, usize)>,
    shapes: Vec<(usize, usize)>,
}

impl Scatter {
    pub(crate) fn new(
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
            shapes: blocks.iter().map(|b| (b.rows, b.cols)).collect(),
        })
    }

    /// The blocks at `inputs`, as matrices (a vector is one column).
    pub(crate) fn eval(&self, inputs: &TapeInputs) -> Result<Vec<DMatrix<f64>>, TapeError> {
        let mut regs = vec![0.0; self.function.registers()];
        let mut out = vec![0.0; self.function.outputs()];
        self.function.eval(inputs, &mut regs, &mut out)?;
        let mut blocks: Vec<DMatrix<f64>> = (self.shapes.iter())
            .map(|&(rows, cols)| DMatrix::zeros(rows, cols))
            .collect();
        for (&value, &(b, index)) in out.iter().zip(&self.targets) {
            blocks[b].as_mut_slice()[index] = value;
        }
        Ok(blocks)
    }
}
