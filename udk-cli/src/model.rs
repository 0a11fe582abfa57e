//! A derived model from a file, its parameter values, and its run-time evaluation tapes.

use crate::failure::Failure;
use crate::model_file::ModelFile;
use nalgebra::{DMatrix, DVector};
use std::path::Path;
pub(crate) use udk_jit::Block;
use udk_jit::{Backend, Buffers};
use udk_runtime::simulate::{DynamicHamiltonianTerms, DynamicLagrangianTerms};
use udk_symbolic::emit::{compile_tape, Tape, TapeInputs};
use udk_symbolic::expr::{ExprId, Pool};
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
        for warning in &derivation.warnings {
            eprintln!("udk: warning: {warning}");
        }
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

    /// The input values u of `given` (k entries), checked against the model's k inputs.
    ///
    /// # Errors
    /// [`Failure::BadInput`] when a model with inputs gets none or the wrong number, or a
    /// model without inputs gets some.
    pub fn input_values(&self, context: &str, given: Option<&[f64]>) -> Result<Vec<f64>, Failure> {
        let inputs = &self.derivation.inputs;
        match given {
            None | Some([]) if inputs.is_empty() => Ok(Vec::new()),
            None | Some([]) => Err(Failure::bad_input(format!(
                "{context}{}: the model has {} input{} ({}): give `u` (`--u` on the command line)",
                self.file.name(),
                inputs.len(),
                if inputs.len() == 1 { "" } else { "s" },
                list(inputs)
            ))),
            Some(_) if inputs.is_empty() => Err(Failure::bad_input(format!(
                "{context}{}: the model has no inputs, but `u` was given",
                self.file.name()
            ))),
            Some(u) if u.len() != inputs.len() => Err(Failure::bad_input(format!(
                "{context}`u` has {} entries; the model has {} input{} ({})",
                u.len(),
                inputs.len(),
                if inputs.len() == 1 { "" } else { "s" },
                list(inputs)
            ))),
            Some(u) => Ok(u.to_vec()),
        }
    }

    /// The model's run-time evaluator with parameter values `params` and inputs u = `inputs`
    /// (k entries, checked by [`Model::input_values`]).
    pub fn evaluator(&self, params: Vec<f64>, inputs: Vec<f64>) -> Evaluator {
        let d = &self.derivation;
        let (n, pool) = (self.n(), &d.pool);
        let components: Vec<ExprId> = (d.outputs.iter())
            .flat_map(|o| o.value.components().iter().copied())
            .collect();
        let outputs = Monitor::new(compile_tape(pool, &components));
        match &d.equations {
            Equations::Lagrangian(e) => {
                let m = e.constraint_rhs.len();
                let nonideal = !e.nonideal_force.iter().all(|&c| pool.is_zero(c));
                let monitor = [&[e.energy][..], &e.holonomic, &e.velocity_constraints].concat();
                Evaluator::Lagrangian(TapeEvaluator {
                    scatter: Scatter::new(pool, &Block::terms(&d.equations)),
                    terms: DynamicLagrangianTerms {
                        mass_matrix: DMatrix::zeros(n, n),
                        generalized_force: DVector::zeros(n),
                        constraint_matrix: DMatrix::zeros(m, n),
                        constraint_rhs: DVector::zeros(m),
                        nonideal_force: nonideal.then(|| DVector::zeros(n)),
                    },
                    monitor: Monitor::new(compile_tape(pool, &monitor)),
                    holonomic: e.holonomic.len(),
                    outputs,
                    params,
                    inputs,
                })
            }
            Equations::Hamiltonian(e) => {
                let m = e.b_p.len();
                let monitor = [&[e.hamiltonian][..], &e.holonomic, &e.constraints].concat();
                Evaluator::Hamiltonian(TapeEvaluator {
                    scatter: Scatter::new(pool, &Block::terms(&d.equations)),
                    terms: DynamicHamiltonianTerms {
                        h_p: DVector::zeros(n),
                        h_q: DVector::zeros(n),
                        h_pp: DMatrix::zeros(n, n),
                        a_p: DMatrix::zeros(m, n),
                        b_p: DVector::zeros(m),
                    },
                    monitor: Monitor::new(compile_tape(pool, &monitor)),
                    holonomic: e.holonomic.len(),
                    outputs,
                    params,
                    inputs,
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

impl Evaluator {
    /// The model's outputs at (q, v, t), as [`TapeEvaluator::outputs`].
    pub fn outputs(&mut self, q: &[f64], v: &[f64], t: f64) -> &[f64] {
        match self {
            Evaluator::Lagrangian(e) => e.outputs(q, v, t),
            Evaluator::Hamiltonian(e) => e.outputs(q, v, t),
        }
    }
}

/// A tape of a scalar (energy or H), the holonomic constraints f(q, t), and the constraints at
/// velocity level (Lagrangian) or φ(q, p, t) (Hamiltonian), with its buffers.
#[derive(Debug, Clone)]
pub(crate) struct Monitor {
    tape: Tape,
    regs: Vec<f64>,
    out: Vec<f64>,
}

impl Monitor {
    pub(crate) fn new(tape: Tape) -> Self {
        Monitor {
            regs: vec![0.0; tape.registers()],
            out: vec![0.0; tape.outputs()],
            tape,
        }
    }

    /// The tape's outputs at `inputs`.
    pub(crate) fn values(&mut self, inputs: &TapeInputs) -> &[f64] {
        self.tape
            .eval(inputs, &mut self.regs, &mut self.out)
            .expect("inputs of n entries and buffers sized for the tape");
        &self.out
    }

    /// (scalar, holonomic residuals, constraint residuals).
    fn eval(&mut self, inputs: &TapeInputs, holonomic: usize) -> (f64, Vec<f64>, Vec<f64>) {
        self.values(inputs);
        (
            self.out[0],
            self.out[1..=holonomic].to_vec(),
            self.out[1 + holonomic..].to_vec(),
        )
    }
}

/// The entries of several blocks compiled into one tape ([`udk_jit::Scatter`]), with its
/// buffers: structural zeros are never computed nor written, so the nalgebra buffers they sit
/// in, zeroed once, stay zero.
#[derive(Debug, Clone)]
pub(crate) struct Scatter {
    scatter: udk_jit::Scatter,
    buffers: Buffers,
}

impl Scatter {
    pub(crate) fn new(pool: &Pool, blocks: &[Block]) -> Self {
        let scatter = udk_jit::Scatter::new(pool, blocks, "the model", Backend::Tape)
            .expect("every program compiles to a tape");
        Scatter {
            buffers: scatter.buffers(),
            scatter,
        }
    }

    /// Evaluates the tape at `inputs` and writes each entry into its block of `blocks`
    /// (nalgebra's column-major storage).
    pub(crate) fn eval<const K: usize>(&mut self, inputs: &TapeInputs, blocks: [&mut [f64]; K]) {
        self.scatter
            .eval(inputs, &mut self.buffers, blocks)
            .expect("inputs of n entries and buffers sized for the tape");
    }
}

/// The terms a [`TapeEvaluator`] fills: M, Q, A, b, C of a Lagrangian model
/// ([`DynamicLagrangianTerms`]) or H_p, H_q, H_pp, A_p, b_p of a Hamiltonian one
/// ([`DynamicHamiltonianTerms`]).
pub trait TapeTerms {
    /// Number of constraints m.
    fn m(&self) -> usize;
    /// The tape inputs at (q, v, u, t): v is q̇ (Lagrangian) or p (Hamiltonian), u the model's
    /// inputs (none for a Hamiltonian model).
    fn inputs<'a>(
        q: &'a [f64],
        v: &'a [f64],
        u: &'a [f64],
        t: f64,
        params: &'a [f64],
    ) -> TapeInputs<'a>;
    /// The buffers of the five blocks, in the order of the scatter tape.
    fn blocks(&mut self) -> [&mut [f64]; 5];
}

impl TapeTerms for DynamicLagrangianTerms {
    fn m(&self) -> usize {
        self.constraint_rhs.len()
    }

    fn inputs<'a>(
        q: &'a [f64],
        qd: &'a [f64],
        u: &'a [f64],
        t: f64,
        params: &'a [f64],
    ) -> TapeInputs<'a> {
        TapeInputs {
            q,
            qd,
            u,
            t,
            params,
            ..TapeInputs::default()
        }
    }

    fn blocks(&mut self) -> [&mut [f64]; 5] {
        let nonideal = self
            .nonideal_force
            .as_mut()
            .map_or(&mut [][..], |c| c.as_mut_slice());
        [
            self.mass_matrix.as_mut_slice(),
            self.generalized_force.as_mut_slice(),
            self.constraint_matrix.as_mut_slice(),
            self.constraint_rhs.as_mut_slice(),
            nonideal,
        ]
    }
}

impl TapeTerms for DynamicHamiltonianTerms {
    fn m(&self) -> usize {
        self.b_p.len()
    }

    fn inputs<'a>(
        q: &'a [f64],
        p: &'a [f64],
        u: &'a [f64],
        t: f64,
        params: &'a [f64],
    ) -> TapeInputs<'a> {
        TapeInputs {
            q,
            p,
            u,
            t,
            params,
            ..TapeInputs::default()
        }
    }

    fn blocks(&mut self) -> [&mut [f64]; 5] {
        [
            self.h_p.as_mut_slice(),
            self.h_q.as_mut_slice(),
            self.h_pp.as_mut_slice(),
            self.a_p.as_mut_slice(),
            self.b_p.as_mut_slice(),
        ]
    }
}

/// The run-time evaluator of a model: the tape of its terms `T` (structural zeros left out)
/// and the tape of the energy (or H) and constraint residuals, with their buffers and the
/// parameter values.
#[derive(Debug, Clone)]
pub struct TapeEvaluator<T> {
    scatter: Scatter,
    terms: T,
    monitor: Monitor,
    holonomic: usize,
    /// The tape of the model's outputs, their components concatenated.
    outputs: Monitor,
    params: Vec<f64>,
    /// The inputs u, k entries, held for every evaluation (a constant input).
    inputs: Vec<f64>,
}

/// The evaluator of a Lagrangian model: M, Q, A, b, C.
pub type LagrangianEvaluator = TapeEvaluator<DynamicLagrangianTerms>;

/// The evaluator of a Hamiltonian model: H_p, H_q, H_pp, A_p, b_p.
pub type HamiltonianEvaluator = TapeEvaluator<DynamicHamiltonianTerms>;

impl<T: TapeTerms> TapeEvaluator<T> {
    /// Number of constraints m.
    pub fn m(&self) -> usize {
        self.terms.m()
    }

    /// The model's outputs at (q, v, t), their components (1 or 3 each) concatenated in the
    /// model's order.
    pub fn outputs(&mut self, q: &[f64], v: &[f64], t: f64) -> &[f64] {
        let inputs = T::inputs(q, v, &self.inputs, t, &self.params);
        self.outputs.values(&inputs)
    }

    /// Sets the inputs u held for the following evaluations (k entries, checked by
    /// [`Model::input_values`]).
    pub fn set_inputs(&mut self, u: &[f64]) {
        self.inputs.clear();
        self.inputs.extend_from_slice(u);
    }

    /// Number of holonomic constraints, the first rows of A (or A_p).
    pub fn num_holonomic(&self) -> usize {
        self.holonomic
    }

    /// The terms at (q, v, t), v = q̇ or p; `q` and `v` must have n entries (checked by the
    /// caller). Allocates nothing.
    pub fn terms(&mut self, q: &[f64], v: &[f64], t: f64) -> &T {
        let inputs = T::inputs(q, v, &self.inputs, t, &self.params);
        self.scatter.eval(&inputs, self.terms.blocks());
        &self.terms
    }

    /// (Jacobi integral h or H, holonomic residuals f(q, t), the m constraints at velocity
    /// level: (ḟ, φ(q, q̇, t)) or φ(q, p, t)).
    pub fn residuals(&mut self, q: &[f64], v: &[f64], t: f64) -> (f64, Vec<f64>, Vec<f64>) {
        let inputs = T::inputs(q, v, &self.inputs, t, &self.params);
        self.monitor.eval(&inputs, self.holonomic)
    }
}
