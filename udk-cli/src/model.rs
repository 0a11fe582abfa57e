//! A derived model from a file, its parameter values, and its run-time evaluation tapes.

use crate::failure::Failure;
use crate::model_file::ModelFile;
use nalgebra::{DMatrix, DVector};
use std::path::Path;
use udk_symbolic::emit::{
    compile_tape, HamiltonianTape, LagrangianTape, Tape, TapeInputs, Workspace,
};
use udk_symbolic::{Derivation, Equations};

/// A model file and its derivation.
#[derive(Debug)]
pub struct Model {
    /// The file.
    pub file: ModelFile,
    /// Its derived equations.
    pub derivation: Derivation,
}

impl Model {
    /// Reads the model file at `path` and derives its equations.
    ///
    /// # Errors
    /// [`Failure::BadInput`] for a file that does not parse and for every derivation error
    /// (unknown symbol, wrong count, L not quadratic in q̇, ...), each located in the file.
    pub fn load(path: &Path) -> Result<Self, Failure> {
        let file = ModelFile::load(path)?;
        let derivation = udk_symbolic::derive(&file.spec).map_err(|e| file.locate(&e))?;
        Ok(Model { file, derivation })
    }

    /// Number of generalized coordinates n.
    pub fn n(&self) -> usize {
        self.derivation.coordinates.len()
    }

    /// Whether the model is Hamiltonian.
    pub fn is_hamiltonian(&self) -> bool {
        matches!(self.derivation.equations, Equations::Hamiltonian(_))
    }

    /// The parameter values, in the model's order: the file's values overridden by `sets`
    /// (`name=value` each).
    ///
    /// # Errors
    /// [`Failure::BadInput`] for a malformed `--set`, an unknown parameter name, and a
    /// parameter with no value.
    pub fn parameter_values(&self, sets: &[String]) -> Result<Vec<f64>, Failure> {
        let names = &self.derivation.parameters;
        let mut values: Vec<Option<f64>> =
            self.file.spec.parameters.iter().map(|p| p.value).collect();
        let mut problems = Vec::new();
        for set in sets {
            let parsed = set
                .split_once('=')
                .map(|(name, value)| (name.trim(), value.trim().parse::<f64>()));
            match parsed {
                Some((name, Ok(value))) => match names.iter().position(|p| p == name) {
                    Some(i) => values[i] = Some(value),
                    None => problems.push(format!(
                        "--set {set}: `{name}` is not a parameter of `{}` (parameters: {})",
                        self.derivation.name,
                        list(names)
                    )),
                },
                _ => problems.push(format!(
                    "--set {set}: expected NAME=VALUE with a number VALUE"
                )),
            }
        }
        for (name, value) in names.iter().zip(&values) {
            if value.is_none() {
                problems.push(format!(
                    "{}: parameter `{name}` has no value: give one in the file or with --set {name}=VALUE",
                    self.file.name()
                ));
            }
        }
        if problems.is_empty() {
            Ok(values.into_iter().flatten().collect())
        } else {
            Err(Failure::BadInput(problems))
        }
    }

    /// Checks that the vector `what` (e.g. `--q`) has n entries.
    ///
    /// # Errors
    /// [`Failure::BadInput`] naming `context`, `what`, its length and n.
    pub fn check_length(&self, context: &str, what: &str, v: &[f64]) -> Result<(), Failure> {
        if v.len() == self.n() {
            return Ok(());
        }
        Err(Failure::bad_input(format!(
            "{context}{what} has {} entries, but `{}` has n = {} coordinates ({})",
            v.len(),
            self.derivation.name,
            self.n(),
            list(&self.derivation.coordinates)
        )))
    }

    /// The model's run-time evaluator with parameter values `params`.
    pub fn evaluator(&self, params: Vec<f64>) -> Evaluator {
        let d = &self.derivation;
        match &d.equations {
            Equations::Lagrangian(e) => {
                let tape = LagrangianTape::new(d).expect("a Lagrangian derivation");
                let monitor = [&[e.energy][..], &e.holonomic, &e.velocity_constraints].concat();
                Evaluator::Lagrangian(LagrangianEvaluator {
                    workspace: tape.workspace(),
                    tape,
                    monitor: Monitor::new(compile_tape(&d.pool, &monitor)),
                    nonideal: !e.nonideal_force.iter().all(|&c| d.pool.is_zero(c)),
                    holonomic: e.holonomic.len(),
                    params,
                })
            }
            Equations::Hamiltonian(e) => {
                let tape = HamiltonianTape::new(d).expect("a Hamiltonian derivation");
                let monitor = [&[e.hamiltonian][..], &e.holonomic, &e.constraints].concat();
                Evaluator::Hamiltonian(HamiltonianEvaluator {
                    workspace: tape.workspace(),
                    tape,
                    monitor: Monitor::new(compile_tape(&d.pool, &monitor)),
                    holonomic: e.holonomic.len(),
                    params,
                })
            }
        }
    }
}

/// `a, b, c`.
pub(crate) fn list(names: &[String]) -> String {
    names.join(", ")
}

/// The evaluator of either kind of model.
#[derive(Debug, Clone)]
pub enum Evaluator {
    /// Of a Lagrangian model.
    Lagrangian(LagrangianEvaluator),
    /// Of a Hamiltonian model.
    Hamiltonian(HamiltonianEvaluator),
}

/// A tape of a scalar (energy or H), the holonomic constraints f(q, t), and the constraints at
/// velocity level (Lagrangian) or φ(q, p, t) (Hamiltonian), with its buffers.
#[derive(Debug, Clone)]
struct Monitor {
    tape: Tape,
    regs: Vec<f64>,
    out: Vec<f64>,
}

impl Monitor {
    fn new(tape: Tape) -> Self {
        Monitor {
            regs: vec![0.0; tape.registers()],
            out: vec![0.0; tape.outputs()],
            tape,
        }
    }

    /// (scalar, holonomic residuals, constraint residuals).
    fn eval(&mut self, inputs: &TapeInputs, holonomic: usize) -> (f64, Vec<f64>, Vec<f64>) {
        self.tape
            .eval(inputs, &mut self.regs, &mut self.out)
            .expect("inputs of n entries and buffers sized for the tape");
        (
            self.out[0],
            self.out[1..=holonomic].to_vec(),
            self.out[1 + holonomic..].to_vec(),
        )
    }
}

/// M, Q, A, b and C of a Lagrangian model at one state, as nalgebra dynamic matrices.
#[derive(Debug, Clone)]
pub struct LagrangianTerms {
    /// Mass matrix M, n × n.
    pub mass_matrix: DMatrix<f64>,
    /// Generalized force Q, n.
    pub generalized_force: DVector<f64>,
    /// Constraint matrix A, m × n.
    pub constraint_matrix: DMatrix<f64>,
    /// b of A q̈ = b, m.
    pub constraint_rhs: DVector<f64>,
    /// Non-ideal constraint force C, n; `None` when the model's C is identically 0 (as in the
    /// generated code).
    pub nonideal_force: Option<DVector<f64>>,
}

/// The run-time evaluator of a Lagrangian model: the tape of M, Q, A, b, C and the tape of the
/// energy and constraint residuals, with their buffers and the parameter values.
#[derive(Debug, Clone)]
pub struct LagrangianEvaluator {
    tape: LagrangianTape,
    workspace: Workspace,
    monitor: Monitor,
    nonideal: bool,
    holonomic: usize,
    params: Vec<f64>,
}

impl LagrangianEvaluator {
    /// Number of constraints m.
    pub fn m(&self) -> usize {
        self.tape.m()
    }

    /// M, Q, A, b, C at (q, q̇, t); `q` and `qd` must have n entries (checked by the caller).
    pub fn terms(&mut self, q: &[f64], qd: &[f64], t: f64) -> LagrangianTerms {
        let (n, m) = (self.tape.n(), self.tape.m());
        let v = self
            .tape
            .eval(q, qd, t, &self.params, &mut self.workspace)
            .expect("inputs of n entries and a workspace made for the tape");
        LagrangianTerms {
            mass_matrix: DMatrix::from_row_slice(n, n, v.mass_matrix),
            generalized_force: DVector::from_column_slice(v.generalized_force),
            constraint_matrix: DMatrix::from_row_slice(m, n, v.constraint_matrix),
            constraint_rhs: DVector::from_column_slice(v.constraint_rhs),
            nonideal_force: self
                .nonideal
                .then(|| DVector::from_column_slice(v.nonideal_force)),
        }
    }

    /// (Jacobi integral h, holonomic residuals f(q, t), velocity-level residuals (m)).
    pub fn residuals(&mut self, q: &[f64], qd: &[f64], t: f64) -> (f64, Vec<f64>, Vec<f64>) {
        let inputs = TapeInputs {
            q,
            qd,
            t,
            params: &self.params,
            ..TapeInputs::default()
        };
        self.monitor.eval(&inputs, self.holonomic)
    }
}

/// H_p, H_q, H_pp, A_p and b_p of a Hamiltonian model at one state.
#[derive(Debug, Clone)]
pub struct HamiltonianTerms {
    /// H_p = q̇, n.
    pub h_p: DVector<f64>,
    /// H_q, n.
    pub h_q: DVector<f64>,
    /// H_pp, n × n.
    pub h_pp: DMatrix<f64>,
    /// A_p, m × n.
    pub a_p: DMatrix<f64>,
    /// b_p, m.
    pub b_p: DVector<f64>,
}

/// The run-time evaluator of a Hamiltonian model.
#[derive(Debug, Clone)]
pub struct HamiltonianEvaluator {
    tape: HamiltonianTape,
    workspace: Workspace,
    monitor: Monitor,
    holonomic: usize,
    params: Vec<f64>,
}

impl HamiltonianEvaluator {
    /// Number of constraints m.
    pub fn m(&self) -> usize {
        self.tape.m()
    }

    /// H_p, H_q, H_pp, A_p, b_p at (q, p, t); `q` and `p` must have n entries.
    pub fn terms(&mut self, q: &[f64], p: &[f64], t: f64) -> HamiltonianTerms {
        let (n, m) = (self.tape.n(), self.tape.m());
        let v = self
            .tape
            .eval(q, p, t, &self.params, &mut self.workspace)
            .expect("inputs of n entries and a workspace made for the tape");
        HamiltonianTerms {
            h_p: DVector::from_column_slice(v.h_p),
            h_q: DVector::from_column_slice(v.h_q),
            h_pp: DMatrix::from_row_slice(n, n, v.h_pp),
            a_p: DMatrix::from_row_slice(m, n, v.a_p),
            b_p: DVector::from_column_slice(v.b_p),
        }
    }

    /// (H, holonomic residuals f(q, t), constraint residuals φ(q, p, t) (m)).
    pub fn residuals(&mut self, q: &[f64], p: &[f64], t: f64) -> (f64, Vec<f64>, Vec<f64>) {
        let inputs = TapeInputs {
            q,
            p,
            t,
            params: &self.params,
            ..TapeInputs::default()
        };
        self.monitor.eval(&inputs, self.holonomic)
    }
}
