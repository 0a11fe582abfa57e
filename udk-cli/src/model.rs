//! A derived model from a file, its parameter values, and its run-time evaluator: a
//! [`udk::Model`] compiled by the JIT, or by the tape with `--interpret`.

use crate::failure::Failure;
use crate::model_file::ModelFile;
use nalgebra::{DMatrix, DVector};
use std::path::Path;
pub use udk_jit::Backend;
pub(crate) use udk_jit::Block;
use udk_jit::Buffers;
use udk_runtime::simulate::{DynamicHamiltonianTerms, DynamicLagrangianTerms};
use udk_symbolic::emit::TapeInputs;
use udk_symbolic::expr::Pool;
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
        Self::derive(ModelFile::load(path)?)
    }

    /// Derives the equations of the model file `file`.
    ///
    /// # Errors
    /// As [`Model::load`]; a robot on a floating base ([`ModelFile::is_free_flyer`]), which
    /// only `udk eval` and `udk simulate` take.
    pub fn derive(file: ModelFile) -> Result<Self, Failure> {
        if file.is_free_flyer() {
            return Err(Failure::bad_input(format!(
                "{}: a robot on a floating base (`floating_base = true`) is taken by `udk eval` \
                 and `udk simulate`; this command does not support it yet",
                file.name()
            )));
        }
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
    /// (k entries checked by [`Model::input_values`], or none: zero until
    /// [`ModelEvaluator::set_inputs`]): a [`udk::Model`] compiled for `backend` (the JIT, or
    /// the tape with `--interpret`).
    ///
    /// # Errors
    /// [`Failure::BadInput`] for an error of the JIT, naming the function; none arises since
    /// a failure of Cranelift became a line on standard error with the tape serving on.
    pub fn evaluator(
        &self,
        params: Vec<f64>,
        inputs: Vec<f64>,
        backend: Backend,
    ) -> Result<Evaluator, Failure> {
        let values = params.into_iter().map(Some).collect();
        let failed = |e: udk::ModelError| {
            Failure::bad_input(format!(
                "{}: {e}; `--interpret` evaluates the model by the tape instead",
                self.file.name()
            ))
        };
        let mut model = udk::Model::compile(&self.derivation, values, backend).map_err(failed)?;
        if !inputs.is_empty() {
            model.set_inputs(&inputs).map_err(failed)?;
        }
        // Compiles the residuals' program now, so that no later evaluation can fail.
        model.system().map_err(failed)?;
        let (n, m) = (self.n(), model.m());
        Ok(match &self.derivation.equations {
            Equations::Lagrangian(_) => Evaluator::Lagrangian(ModelEvaluator {
                model,
                terms: DynamicLagrangianTerms {
                    mass_matrix: DMatrix::zeros(n, n),
                    generalized_force: DVector::zeros(n),
                    constraint_matrix: DMatrix::zeros(m, n),
                    constraint_rhs: DVector::zeros(m),
                    nonideal_force: None,
                },
                outputs: Vec::new(),
            }),
            Equations::Hamiltonian(_) => Evaluator::Hamiltonian(ModelEvaluator {
                model,
                terms: DynamicHamiltonianTerms {
                    h_p: DVector::zeros(n),
                    h_q: DVector::zeros(n),
                    h_pp: DMatrix::zeros(n, n),
                    a_p: DMatrix::zeros(m, n),
                    b_p: DVector::zeros(m),
                },
                outputs: Vec::new(),
            }),
        })
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
    /// The model's outputs at (q, v, t), as [`ModelEvaluator::outputs`].
    pub fn outputs(&mut self, q: &[f64], v: &[f64], t: f64) -> &[f64] {
        match self {
            Evaluator::Lagrangian(e) => e.outputs(q, v, t),
            Evaluator::Hamiltonian(e) => e.outputs(q, v, t),
        }
    }
}

/// The entries of several blocks compiled into one program ([`udk_jit::Scatter`]), with its
/// buffers: structural zeros are never computed nor written, so the nalgebra buffers they sit
/// in, zeroed once, stay zero.
#[derive(Debug, Clone)]
pub(crate) struct Scatter {
    scatter: udk_jit::Scatter,
    buffers: Buffers,
}

impl Scatter {
    /// Compiles `blocks` for `backend`, `name` naming them in errors.
    ///
    /// # Errors
    /// [`Failure::BadInput`] for an error of the JIT (none arises: see
    /// [`Model::evaluator`]).
    pub(crate) fn new(
        pool: &Pool,
        blocks: &[Block],
        name: &str,
        backend: Backend,
    ) -> Result<Self, Failure> {
        let scatter = udk_jit::Scatter::new(pool, blocks, name, backend).map_err(|e| {
            Failure::bad_input(format!(
                "{e}; `--interpret` evaluates the model by the tape instead"
            ))
        })?;
        Ok(Scatter {
            buffers: scatter.buffers(),
            scatter,
        })
    }

    /// Evaluates the program at `inputs` and writes each entry into its block of `blocks`
    /// (nalgebra's column-major storage).
    pub(crate) fn eval<const K: usize>(&mut self, inputs: &TapeInputs, blocks: [&mut [f64]; K]) {
        self.scatter
            .eval(inputs, &mut self.buffers, blocks)
            .expect("inputs of n entries and buffers sized for the program");
    }
}

/// The terms a [`ModelEvaluator`] holds: M, Q, A, b, C of a Lagrangian model
/// ([`DynamicLagrangianTerms`]) or H_p, H_q, H_pp, A_p, b_p of a Hamiltonian one
/// ([`DynamicHamiltonianTerms`]).
pub trait Terms: Sized {
    /// The terms of `model` (of this kind, every parameter set) at (q, v, t), v = q̇ or p of n
    /// entries each.
    fn of(model: &udk::Model, q: &DVector<f64>, v: &DVector<f64>, t: f64) -> Self;
}

impl Terms for DynamicLagrangianTerms {
    fn of(model: &udk::Model, q: &DVector<f64>, qd: &DVector<f64>, t: f64) -> Self {
        model.terms(q, qd, t).expect(CHECKED)
    }
}

impl Terms for DynamicHamiltonianTerms {
    fn of(model: &udk::Model, q: &DVector<f64>, p: &DVector<f64>, t: f64) -> Self {
        model.hamiltonian_terms(q, p, t).expect(CHECKED)
    }
}

/// Why the evaluations of a [`ModelEvaluator`] cannot fail.
pub(crate) const CHECKED: &str =
    "lengths checked by the command, every parameter set, programs compiled";

/// The run-time evaluator of a model: a [`udk::Model`] compiled by the JIT (or the tape) with
/// every parameter set, and the terms `T` of its last evaluation.
#[derive(Debug, Clone)]
pub struct ModelEvaluator<T> {
    model: udk::Model,
    terms: T,
    /// The outputs of the last call of [`ModelEvaluator::outputs`].
    outputs: Vec<f64>,
}

/// The evaluator of a Lagrangian model: M, Q, A, b, C.
pub type LagrangianEvaluator = ModelEvaluator<DynamicLagrangianTerms>;

/// The evaluator of a Hamiltonian model: H_p, H_q, H_pp, A_p, b_p.
pub type HamiltonianEvaluator = ModelEvaluator<DynamicHamiltonianTerms>;

impl<T: Terms> ModelEvaluator<T> {
    /// The compiled model, with the parameters and inputs of the evaluator.
    pub fn model(&self) -> &udk::Model {
        &self.model
    }

    /// Number of constraints m.
    pub fn m(&self) -> usize {
        self.model.m()
    }

    /// The model's outputs at (q, v, t), their components (1 or 3 each) concatenated in the
    /// model's order; `q` and `v` must have n entries (checked by the caller).
    pub fn outputs(&mut self, q: &[f64], v: &[f64], t: f64) -> &[f64] {
        let (q, v) = (DVector::from_column_slice(q), DVector::from_column_slice(v));
        let outputs = self.model.outputs(&q, &v, t).expect(CHECKED);
        self.outputs.clear();
        self.outputs.extend_from_slice(outputs.as_slice());
        &self.outputs
    }

    /// Sets the inputs u held for the following evaluations (k entries, checked by
    /// [`Model::input_values`]).
    pub fn set_inputs(&mut self, u: &[f64]) {
        if !u.is_empty() {
            self.model.set_inputs(u).expect(CHECKED);
        }
    }

    /// Number of holonomic constraints, the first rows of A (or A_p).
    pub fn num_holonomic(&self) -> usize {
        self.model.num_holonomic()
    }

    /// The terms at (q, v, t), v = q̇ or p; `q` and `v` must have n entries (checked by the
    /// caller).
    pub fn terms(&mut self, q: &[f64], v: &[f64], t: f64) -> &T {
        let (q, v) = (DVector::from_column_slice(q), DVector::from_column_slice(v));
        self.terms = T::of(&self.model, &q, &v, t);
        &self.terms
    }

    /// The terms at (q, v, t) into `terms` (replacing them), as [`ModelEvaluator::terms`]
    /// without keeping a copy.
    pub fn terms_into(&mut self, q: &[f64], v: &[f64], t: f64, terms: &mut T) {
        let (q, v) = (DVector::from_column_slice(q), DVector::from_column_slice(v));
        *terms = T::of(&self.model, &q, &v, t);
    }

    /// (Jacobi integral h or H, holonomic residuals f(q, t), the m constraints at velocity
    /// level: (ḟ, φ(q, q̇, t)) or φ(q, p, t)).
    pub fn residuals(&mut self, q: &[f64], v: &[f64], t: f64) -> (f64, Vec<f64>, Vec<f64>) {
        let (q, v) = (DVector::from_column_slice(q), DVector::from_column_slice(v));
        let r = self.model.residuals(&q, &v, t).expect(CHECKED);
        (
            r.energy,
            r.holonomic.as_slice().to_vec(),
            r.velocity.as_slice().to_vec(),
        )
    }
}
