//! Tapes of a whole derived model: M, Q, A, b, C (Lagrangian) or H_p, H_q, H_pp, A_p, b_p
//! (Hamiltonian) evaluated together, sharing every common subexpression.

use super::tape::{compile_tape, Tape, TapeError, TapeInputs};
use crate::derivation::{Derivation, Equations};
use std::marker::PhantomData;

/// Buffers for evaluating a [`Tape`] (registers and outputs), allocated once and reused by
/// every evaluation of a [`ModelTape`].
#[derive(Clone, Debug)]
pub struct Workspace {
    regs: Vec<f64>,
    out: Vec<f64>,
}

impl Workspace {
    /// Buffers sized for `tape`.
    pub fn new(tape: &Tape) -> Self {
        Workspace {
            regs: vec![0.0; tape.registers()],
            out: vec![0.0; tape.outputs()],
        }
    }
}

/// The outputs of a model tape as consecutive blocks of given lengths.
fn blocks<const K: usize>(out: &[f64], lengths: [usize; K]) -> [&[f64]; K] {
    let mut rest = out;
    lengths.map(|len| {
        let (block, tail) = rest.split_at(len);
        rest = tail;
        block
    })
}

/// Which kind of model a tape was asked for and what the derivation holds.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a {wanted} tape needs a {wanted} model, but `{model}` is not one")]
pub struct WrongModelKind {
    /// "Lagrangian" or "Hamiltonian".
    pub wanted: &'static str,
    /// The model's name.
    pub model: String,
}

/// The run-time form of a derived model with n coordinates and m constraints: its outputs
/// compiled into one [`Tape`], evaluated together with no rustc. `K` is the kind of model,
/// [`LagrangianKind`] ([`LagrangianTape`]) or [`HamiltonianKind`] ([`HamiltonianTape`]).
///
/// Agrees with the Rust code emitted for the same outputs to rounding (same operations in the
/// same order).
#[derive(Clone, Debug)]
pub struct ModelTape<K> {
    n: usize,
    m: usize,
    tape: Tape,
    kind: PhantomData<K>,
}

/// Marks a [`ModelTape`] of a Lagrangian model.
#[derive(Clone, Copy, Debug)]
pub enum LagrangianKind {}

/// Marks a [`ModelTape`] of a Hamiltonian model.
#[derive(Clone, Copy, Debug)]
pub enum HamiltonianKind {}

/// The run-time form of a Lagrangian model with n coordinates and m constraints: evaluates
/// M, Q, A, b and C at (q, q̇, t) with the model's parameters, with no rustc.
/// Inputs: `q`, `qd` n entries, `params` as many as the model has.
pub type LagrangianTape = ModelTape<LagrangianKind>;

/// The run-time form of a Hamiltonian model with n coordinates, n momenta and m constraints:
/// evaluates H_p, H_q, H_pp, A_p and b_p at (q, p, t) (Udwadia 2016, eqs 9–12), with no rustc.
pub type HamiltonianTape = ModelTape<HamiltonianKind>;

impl<K> ModelTape<K> {
    /// The tape of [`Equations::outputs`] of the derivation `d`, which has m constraints.
    fn compile(d: &Derivation, m: usize) -> Self {
        ModelTape {
            n: d.coordinates.len(),
            m,
            tape: compile_tape(&d.pool, &d.equations.outputs()),
            kind: PhantomData,
        }
    }

    /// Number of coordinates n.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Number of constraints m.
    pub fn m(&self) -> usize {
        self.m
    }

    /// The underlying tape (outputs concatenated in the order of the values of `eval`).
    pub fn tape(&self) -> &Tape {
        &self.tape
    }

    /// Buffers for `eval`.
    pub fn workspace(&self) -> Workspace {
        Workspace::new(&self.tape)
    }

    /// Evaluates the tape at `inputs` into `ws` and splits the outputs into five blocks, of
    /// the lengths that `lengths` gives for (n, m).
    fn run<'w>(
        &self,
        inputs: &TapeInputs,
        ws: &'w mut Workspace,
        lengths: fn(usize, usize) -> [usize; 5],
    ) -> Result<[&'w [f64]; 5], TapeError> {
        self.tape.eval(inputs, &mut ws.regs, &mut ws.out)?;
        Ok(blocks(&ws.out, lengths(self.n, self.m)))
    }
}

/// M, Q, A, b, C of a Lagrangian model at one state, borrowed from a [`Workspace`].
#[derive(Clone, Copy, Debug)]
pub struct LagrangianValues<'w> {
    /// Mass matrix M, n × n, row-major (kg, kg·m² or mixed, per the coordinates).
    pub mass_matrix: &'w [f64],
    /// Generalized force Q, n entries.
    pub generalized_force: &'w [f64],
    /// Constraint matrix A, m × n, row-major.
    pub constraint_matrix: &'w [f64],
    /// Right-hand side b of A q̈ = b, m entries.
    pub constraint_rhs: &'w [f64],
    /// Non-ideal constraint force C, n entries.
    pub nonideal_force: &'w [f64],
}

impl ModelTape<LagrangianKind> {
    /// Compiles the tape of a derived Lagrangian model (outputs M, Q, A, b, C).
    ///
    /// # Errors
    /// [`WrongModelKind`] when `d` is a Hamiltonian model.
    pub fn new(d: &Derivation) -> Result<Self, WrongModelKind> {
        let Equations::Lagrangian(e) = &d.equations else {
            return Err(WrongModelKind {
                wanted: "Lagrangian",
                model: d.name.clone(),
            });
        };
        Ok(Self::compile(d, e.constraint_rhs.len()))
    }

    /// Evaluates M, Q, A, b and C at (q, q̇, t); allocates nothing.
    ///
    /// # Errors
    /// [`TapeError`] when `q`, `qd` or `params` is too short or `ws` was made for another tape.
    pub fn eval<'w>(
        &self,
        q: &[f64],
        qd: &[f64],
        t: f64,
        params: &[f64],
        ws: &'w mut Workspace,
    ) -> Result<LagrangianValues<'w>, TapeError> {
        let inputs = TapeInputs {
            q,
            qd,
            t,
            params,
            ..TapeInputs::default()
        };
        let [mass_matrix, generalized_force, constraint_matrix, constraint_rhs, nonideal_force] =
            self.run(&inputs, ws, |n, m| [n * n, n, m * n, m, n])?;
        Ok(LagrangianValues {
            mass_matrix,
            generalized_force,
            constraint_matrix,
            constraint_rhs,
            nonideal_force,
        })
    }
}

/// H_p, H_q, H_pp, A_p, b_p of a Hamiltonian model at one state, borrowed from a [`Workspace`].
#[derive(Clone, Copy, Debug)]
pub struct HamiltonianValues<'w> {
    /// H_p = ∂H/∂p (= q̇), n entries.
    pub h_p: &'w [f64],
    /// H_q = ∂H/∂q, n entries.
    pub h_q: &'w [f64],
    /// H_pp = ∂²H/∂p², n × n, row-major.
    pub h_pp: &'w [f64],
    /// A_p = ∂φ/∂p, m × n, row-major.
    pub a_p: &'w [f64],
    /// b_p = −(∂φ/∂q) H_p − ∂φ/∂t, m entries.
    pub b_p: &'w [f64],
}

impl ModelTape<HamiltonianKind> {
    /// Compiles the tape of a derived Hamiltonian model (outputs H_p, H_q, H_pp, A_p, b_p).
    ///
    /// # Errors
    /// [`WrongModelKind`] when `d` is a Lagrangian model.
    pub fn new(d: &Derivation) -> Result<Self, WrongModelKind> {
        let Equations::Hamiltonian(e) = &d.equations else {
            return Err(WrongModelKind {
                wanted: "Hamiltonian",
                model: d.name.clone(),
            });
        };
        Ok(Self::compile(d, e.b_p.len()))
    }

    /// Evaluates H_p, H_q, H_pp, A_p and b_p at (q, p, t); allocates nothing.
    ///
    /// # Errors
    /// [`TapeError`] when `q`, `p` or `params` is too short or `ws` was made for another tape.
    pub fn eval<'w>(
        &self,
        q: &[f64],
        p: &[f64],
        t: f64,
        params: &[f64],
        ws: &'w mut Workspace,
    ) -> Result<HamiltonianValues<'w>, TapeError> {
        let inputs = TapeInputs {
            q,
            p,
            t,
            params,
            ..TapeInputs::default()
        };
        let [h_p, h_q, h_pp, a_p, b_p] = self.run(&inputs, ws, |n, m| [n, n, n * n, m * n, m])?;
        Ok(HamiltonianValues {
            h_p,
            h_q,
            h_pp,
            a_p,
            b_p,
        })
    }
}
