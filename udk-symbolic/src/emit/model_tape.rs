//! Tapes of a whole derived model: M, Q, A, b, C (Lagrangian) or H_p, H_q, H_pp, A_p, b_p
//! (Hamiltonian) evaluated together, sharing every common subexpression.

use super::tape::{compile_tape, Tape, TapeError, TapeInputs};
use crate::derivation::{Derivation, Equations};
use crate::expr::ExprId;

/// Buffers for evaluating a [`Tape`] (registers and outputs), allocated once and reused by
/// every call of [`LagrangianTape::eval`] or [`HamiltonianTape::eval`].
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

/// The run-time form of a Lagrangian model with n coordinates and m constraints: evaluates
/// M, Q, A, b and C at (q, q̇, t) with the model's parameters, with no rustc.
///
/// Agrees with the Rust code emitted for the same outputs to rounding (same operations in the
/// same order). Inputs: `q`, `qd` n entries, `params` as many as the model has.
#[derive(Clone, Debug)]
pub struct LagrangianTape {
    n: usize,
    m: usize,
    tape: Tape,
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

impl LagrangianTape {
    /// Compiles the tape of a derived Lagrangian model.
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
        let outputs: Vec<ExprId> = [
            &e.mass_matrix.entries[..],
            &e.generalized_force,
            &e.constraint_matrix.entries,
            &e.constraint_rhs,
            &e.nonideal_force,
        ]
        .concat();
        Ok(LagrangianTape {
            n: d.coordinates.len(),
            m: e.constraint_rhs.len(),
            tape: compile_tape(&d.pool, &outputs),
        })
    }

    /// Number of coordinates n.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Number of constraints m.
    pub fn m(&self) -> usize {
        self.m
    }

    /// The underlying tape (outputs M, Q, A, b, C concatenated).
    pub fn tape(&self) -> &Tape {
        &self.tape
    }

    /// Buffers for [`Self::eval`].
    pub fn workspace(&self) -> Workspace {
        Workspace::new(&self.tape)
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
        self.tape.eval(&inputs, &mut ws.regs, &mut ws.out)?;
        let (n, m) = (self.n, self.m);
        let [mass_matrix, generalized_force, constraint_matrix, constraint_rhs, nonideal_force] =
            blocks(&ws.out, [n * n, n, m * n, m, n]);
        Ok(LagrangianValues {
            mass_matrix,
            generalized_force,
            constraint_matrix,
            constraint_rhs,
            nonideal_force,
        })
    }
}

/// The run-time form of a Hamiltonian model with n coordinates, n momenta and m constraints:
/// evaluates H_p, H_q, H_pp, A_p and b_p at (q, p, t) (Udwadia 2016, eqs 9–12), with no rustc.
#[derive(Clone, Debug)]
pub struct HamiltonianTape {
    n: usize,
    m: usize,
    tape: Tape,
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

impl HamiltonianTape {
    /// Compiles the tape of a derived Hamiltonian model.
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
        let outputs: Vec<ExprId> =
            [&e.h_p[..], &e.h_q, &e.h_pp.entries, &e.a_p.entries, &e.b_p].concat();
        Ok(HamiltonianTape {
            n: d.coordinates.len(),
            m: e.b_p.len(),
            tape: compile_tape(&d.pool, &outputs),
        })
    }

    /// Number of coordinates n.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Number of constraints m.
    pub fn m(&self) -> usize {
        self.m
    }

    /// The underlying tape (outputs H_p, H_q, H_pp, A_p, b_p concatenated).
    pub fn tape(&self) -> &Tape {
        &self.tape
    }

    /// Buffers for [`Self::eval`].
    pub fn workspace(&self) -> Workspace {
        Workspace::new(&self.tape)
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
        self.tape.eval(&inputs, &mut ws.regs, &mut ws.out)?;
        let (n, m) = (self.n, self.m);
        let [h_p, h_q, h_pp, a_p, b_p] = blocks(&ws.out, [n, n, n * n, m * n, m]);
        Ok(HamiltonianValues {
            h_p,
            h_q,
            h_pp,
            a_p,
            b_p,
        })
    }
}
