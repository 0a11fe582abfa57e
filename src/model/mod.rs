//! [`Model`]: a model known only at run time (a model file, a [`ModelSpec`], a URDF read at
//! start-up), derived once and compiled to native code by the JIT of `udk-jit`, with dynamic
//! sizes (`DVector`, `DMatrix`).
//!
//! It evaluates the same straight-line program as the code `#[lagrangian]` generates, through
//! the same kernels of `udk-runtime`, so that its terms equal the tape's bit for bit and the
//! generated code's to rounding (1 ulp where rustc expands a constant `powi` into products).
//! Available with the default cargo feature `model`.

mod batch;
mod error;
mod free_flyer;
mod hybrid;
mod motion;
mod multipliers;
mod servo;
mod workspace;

pub use error::ModelError;
pub use free_flyer::{Efforts, FreeFlyerModel, FreeFlyerModelError};
pub use hybrid::{BoundHybrid, Hybrid, HybridRun, SpecSource, SpecText};
pub use motion::{EventRecord, Motion, System, MAX_SIMULATED_COORDINATES};
pub use udk_jit::Backend;
pub use udk_symbolic::ModelSpec;
pub use workspace::Workspace;

use nalgebra::{DMatrix, DVector};
use std::path::Path;
use std::sync::{Arc, OnceLock};
use udk_jit::{Block, Function, JitError, Scatter, Stacked};
use udk_runtime::jacobian::{
    acceleration_jacobian_dyn, AccelerationJacobianDyn, ResidualJacobiansDyn,
};
use udk_runtime::linearize::{
    check_operating_point, linearize_derivatives, Derivatives, Linearization, LinearizationOptions,
    Selection,
};
use udk_runtime::simulate::{DynamicHamiltonianTerms, DynamicLagrangianTerms};
use udk_runtime::Options;
use udk_symbolic::emit::TapeInputs;
use udk_symbolic::urdf::{InertiaCheck, UrdfSource};
use udk_symbolic::{Derivation, Equations};

/// The options of a robot read from a URDF file (the `urdf` key of a model file).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UrdfOptions {
    /// Gravitational acceleration in the root frame, m/s²; (0, 0, −9.81) when `None`.
    pub gravity: Option<[f64; 3]>,
    /// Whether each joint's `<dynamics damping>` d adds the force −d q̇.
    pub joint_damping: bool,
    /// Whether each `<mimic>` joint becomes a holonomic constraint.
    pub mimic: bool,
    /// What to do with an inertia tensor that is not positive semidefinite beyond rounding:
    /// refuse the file (the default) or repair the tensor
    /// ([`udk_symbolic::urdf::InertiaCheck`]).
    pub inertia: InertiaCheck,
}

/// The spec of the model file `path`: JSON if its name ends in `.json`, else TOML.
///
/// # Errors
/// [`ModelError::Read`] for a file that cannot be read or parsed.
fn read_spec(path: &Path) -> Result<ModelSpec, ModelError> {
    let read = |message: String| ModelError::Read {
        path: path.display().to_string(),
        message,
    };
    let text = std::fs::read_to_string(path).map_err(|e| read(e.to_string()))?;
    if path.extension().and_then(|e| e.to_str()) == Some("json") {
        serde_json::from_str(&text).map_err(|e| read(e.to_string()))
    } else {
        toml::from_str(&text).map_err(|e| read(e.to_string()))
    }
}

/// What a model compiles to: shared by the clones of a [`Model`].
#[derive(Debug)]
struct Compiled {
    name: String,
    coordinates: Vec<String>,
    parameters: Vec<String>,
    inputs: Vec<String>,
    output_columns: Vec<String>,
    /// Number of constraints m.
    m: usize,
    /// Number of holonomic constraints h: the first rows of A (or A_p).
    holonomic: usize,
    hamiltonian: bool,
    /// Whether C is not structurally zero.
    nonideal: bool,
    /// M, Q, A, b, C (Lagrangian) or H_p, H_q, H_pp, A_p, b_p (Hamiltonian), compiled on
    /// first use: q̈ of a kinematic tree does not need them.
    terms: Lazy<Scatter>,
    /// The model's outputs, their components concatenated.
    outputs: Function,
    /// The derivation, for the programs compiled on first use; by [`Model::from_spec`]
    /// without its residual Jacobians.
    derivation: Derivation,
    /// `derivation` with its residual Jacobians, formed on the first call that needs them
    /// when `derivation` does not hold them ([`Derivation::derive_jacobians`] on a copy).
    with_jacobians: OnceLock<Derivation>,
    backend: Backend,
    /// The residual Jacobians r_q, r_qd, r_u, g_q, g_qd, g_u (Lagrangian models), compiled on
    /// the first call of [`Model::acceleration_jacobian`]; `None` when not derived.
    jacobians: Lazy<Option<Scatter>>,
    /// ∂(velocity-level constraints)/∂q, m × n, for [`Model::linearize`]; `None` when the
    /// Jacobians were not derived.
    velocity_jacobian: Lazy<Option<Scatter>>,
    /// The energy h (or H), the h holonomic constraints f(q, t) and the m velocity-level rows,
    /// compiled on first use.
    monitor: Lazy<Function>,
    /// q̈₀ = M⁻¹(Q + C), W = M⁻¹Aᵀ, A, b, the articulated pivots and C of a kinematic tree
    /// (the articulated-body algorithm), compiled on first use; `None` for a model the
    /// algorithm does not apply to.
    factored: Lazy<Option<Stacked>>,
    /// The servo controller's terms (`servo.rs`), compiled on first use; `None` for a model
    /// without servo constraints.
    servo: Lazy<Option<Scatter>>,
    /// The task terms (A_s, b_s, e, β) and the inverse dynamics M v − Q − C of a model whose
    /// servo rows alone determine the motion with B = I (`servo.rs`, the controller's path
    /// by inverse dynamics), compiled on first use; `None` for other models.
    servo_inverse: Lazy<Option<[Scatter; 2]>>,
}

/// A program compiled on its first use, shared by the clones of a [`Model`].
type Lazy<T> = OnceLock<Result<T, JitError>>;

/// The program of `cell`, compiled by `compile` on the first call.
fn lazy<T>(
    cell: &Lazy<T>,
    compile: impl FnOnce() -> Result<T, JitError>,
) -> Result<&T, ModelError> {
    (cell.get_or_init(compile).as_ref()).map_err(|e| ModelError::Jit(e.clone()))
}

/// The values of a model's scalar h (or H), its holonomic constraints and its velocity-level
/// constraints at one state: what the simulator monitors.
#[derive(Clone, Debug, PartialEq)]
pub struct Residuals {
    /// The Jacobi integral h = q̇ᵀ ∂L/∂q̇ − L, or the Hamiltonian H (J for a model in SI).
    pub energy: f64,
    /// f(q, t), the h holonomic constraints.
    pub holonomic: DVector<f64>,
    /// The m velocity-level rows: (ḟ, φ(q, q̇, t)) of a Lagrangian model, φ(q, p, t) of a
    /// Hamiltonian one.
    pub velocity: DVector<f64>,
}

/// A derived model evaluated at run time by JIT-compiled code: q̈, the constraint force, the
/// terms and the outputs of a Lagrangian model, ṗ and the terms of a Hamiltonian one.
///
/// Cloning is cheap (the compiled code is shared), and a model is `Send + Sync`: one model
/// serves many threads. Parameters are set by name; inputs u are held by the model.
///
/// ```
/// let spec: udk::ModelSpec = toml::from_str(r#"
///     name = "Pendulum"
///     coordinates = ["theta"]
///     parameters = [{ name = "m", value = 1.0 }, { name = "l", value = 2.0 }, { name = "g" }]
///     lagrangian = "0.5 * m * l.powi(2) * dot(theta).powi(2) + m * g * l * theta.cos()"
/// "#).unwrap();
/// let mut model = udk::Model::from_spec(spec, std::path::Path::new(".")).unwrap();
/// model.set_parameter("g", 9.81).unwrap();
/// let (q, qd) = (udk::nalgebra::dvector![0.3], udk::nalgebra::dvector![0.0]);
/// let qdd = model.acceleration(&q, &qd, 0.0).unwrap();
/// assert!((qdd[0] + 9.81 / 2.0 * 0.3f64.sin()).abs() < 1e-15);
/// ```
#[derive(Clone, Debug)]
pub struct Model {
    compiled: Arc<Compiled>,
    values: Vec<Option<f64>>,
    u: Vec<f64>,
    /// The spec's events and contacts, when it has some ([`Model::simulate`] runs them).
    hybrid: Option<Arc<Hybrid>>,
}

impl Model {
    /// Derives and compiles `spec` by the JIT; a URDF it names is read relative to `base`.
    /// The residual Jacobians, which only [`Model::acceleration_jacobian`],
    /// [`Model::linearize`] and implicit integration need, are derived on the first such call
    /// (`udk_symbolic::Jacobians::OnDemand`): about 40% of a URDF robot's derivation.
    ///
    /// # Errors
    /// [`ModelError::Derivation`] with every message of the symbolic engine.
    pub fn from_spec(spec: ModelSpec, base: &Path) -> Result<Self, ModelError> {
        Self::from_spec_with(spec, base, Backend::Jit)
    }

    /// [`Model::from_spec`] evaluated by `backend` (the tape: interpreted, as a reference).
    ///
    /// # Errors
    /// As [`Model::from_spec`].
    pub fn from_spec_with(
        mut spec: ModelSpec,
        base: &Path,
        backend: Backend,
    ) -> Result<Self, ModelError> {
        let failed = |model: &str, e: udk_symbolic::error::Errors| ModelError::Derivation {
            model: model.to_string(),
            messages: e.to_string(),
        };
        let name = spec.name.clone();
        let d = udk_symbolic::limits::on_large_stack(|| {
            udk_symbolic::urdf::expand(&mut spec, base).map_err(|e| failed(&name, e))?;
            // q̈ and the terms do not need the residual Jacobians: they are formed on the
            // first call that does (`Model::jacobian_derivation`).
            let jacobians = udk_symbolic::Jacobians::OnDemand;
            udk_symbolic::derive_with(&spec, jacobians).map_err(|e| failed(&name, e))
        })?;
        let values: Vec<_> = spec.parameters.iter().map(|p| p.value).collect();
        let source = SpecText {
            model: d.name.clone(),
        };
        let hybrid = Hybrid::new(&spec, &d, &values, backend, &source)?;
        Ok(Model {
            hybrid: hybrid.map(Arc::new),
            ..Self::compile_owned(d, values, backend)?
        })
    }

    /// Reads a model file (TOML, JSON if its name ends in `.json`, or a URDF robot with the
    /// default options if it ends in `.urdf`) and compiles it by the JIT.
    ///
    /// # Errors
    /// [`ModelError::Read`] for a file that cannot be read or parsed; as [`Model::from_spec`].
    pub fn from_file(path: &Path) -> Result<Self, ModelError> {
        let extension = path.extension().and_then(|e| e.to_str());
        if extension == Some("urdf") {
            return Self::from_urdf(path, &UrdfOptions::default());
        }
        Self::from_spec(read_spec(path)?, path.parent().unwrap_or(Path::new("")))
    }

    /// The robot of a URDF file with `options`, named for the file, compiled by the JIT.
    ///
    /// # Errors
    /// As [`Model::from_spec`], the URDF's errors included.
    pub fn from_urdf(path: &Path, options: &UrdfOptions) -> Result<Self, ModelError> {
        let file = path
            .file_name()
            .map_or_else(String::new, |f| f.to_string_lossy().into_owned());
        let spec = ModelSpec {
            name: "Robot".into(),
            urdf: Some(UrdfSource {
                path: file,
                gravity: options.gravity,
                joint_damping: options.joint_damping,
                mimic: options.mimic,
                inertia: options.inertia,
                floating_base: false,
                root: None,
                span: proc_macro2::Span::call_site(),
            }),
            ..ModelSpec::default()
        };
        Self::from_spec(spec, path.parent().unwrap_or(Path::new("")))
    }

    /// Compiles a derived model for `backend`, with parameter values `values` (in the
    /// model's order, `None` for one to be set before evaluating): its outputs now, every
    /// other program (the terms included) on its first use.
    ///
    /// # Errors
    /// [`ModelError::Length`] when `values` does not have one entry per parameter.
    pub fn compile(
        d: &Derivation,
        values: Vec<Option<f64>>,
        backend: Backend,
    ) -> Result<Self, ModelError> {
        Self::compile_owned(d.clone(), values, backend)
    }

    /// [`Model::compile`] of a derivation the model takes over.
    fn compile_owned(
        d: Derivation,
        values: Vec<Option<f64>>,
        backend: Backend,
    ) -> Result<Self, ModelError> {
        if values.len() != d.parameters.len() {
            return Err(ModelError::Length {
                what: "parameters",
                expected: d.parameters.len(),
                given: values.len(),
                model: d.name.clone(),
            });
        }
        let pool = &d.pool;
        let name = |what: &str| format!("{what} of `{}`", d.name);
        let (m, holonomic, nonideal) = match &d.equations {
            Equations::Lagrangian(e) => (
                e.constraint_rhs.len(),
                e.holonomic.len(),
                !e.nonideal_force.iter().all(|&c| pool.is_zero(c)),
            ),
            Equations::Hamiltonian(e) => (e.b_p.len(), e.holonomic.len(), false),
        };
        let components: Vec<_> = (d.outputs.iter())
            .flat_map(|o| o.value.components().iter().copied())
            .collect();
        let outputs = Function::compile(pool, &components, &name("outputs"), backend)?;
        let compiled = Compiled {
            name: d.name.clone(),
            coordinates: d.coordinates.clone(),
            parameters: d.parameters.clone(),
            inputs: d.inputs.clone(),
            output_columns: d.output_columns(),
            m,
            holonomic,
            hamiltonian: matches!(d.equations, Equations::Hamiltonian(_)),
            nonideal,
            terms: OnceLock::new(),
            outputs,
            derivation: d,
            with_jacobians: OnceLock::new(),
            backend,
            jacobians: OnceLock::new(),
            velocity_jacobian: OnceLock::new(),
            monitor: OnceLock::new(),
            factored: OnceLock::new(),
            servo: OnceLock::new(),
            servo_inverse: OnceLock::new(),
        };
        Ok(Model {
            u: vec![0.0; compiled.inputs.len()],
            compiled: Arc::new(compiled),
            values,
            hybrid: None,
        })
    }

    /// The model's events and contacts (`[[events]]`, `[[contacts]]` of its spec), compiled;
    /// `None` for a model without (or built by [`Model::compile`] from a derivation alone).
    pub fn hybrid(&self) -> Option<&Hybrid> {
        self.hybrid.as_deref()
    }

    /// The model's name.
    pub fn name(&self) -> &str {
        &self.compiled.name
    }

    /// Number of generalized coordinates n.
    pub fn n(&self) -> usize {
        self.compiled.coordinates.len()
    }

    /// Number of constraints m.
    pub fn m(&self) -> usize {
        self.compiled.m
    }

    /// Number of holonomic constraints h ≤ m: the first rows of A (or A_p).
    pub fn num_holonomic(&self) -> usize {
        self.compiled.holonomic
    }

    /// Whether the model is Hamiltonian (state (q, p)) rather than Lagrangian (state (q, q̇)).
    pub fn is_hamiltonian(&self) -> bool {
        self.compiled.hamiltonian
    }

    /// The coordinates' names, n of them.
    pub fn coordinates(&self) -> &[String] {
        &self.compiled.coordinates
    }

    /// The names of the n generalized speeds of a model with kinematic differential
    /// equations (`speeds`, `kinematics`): its second state is then u, its acceleration u̇.
    /// Empty for a model whose second state is q̇ (or p).
    pub fn speeds(&self) -> &[String] {
        &self.compiled.derivation.speeds
    }

    /// The rates q̇ of the coordinates at the state (q, v, t), n entries: the kinematic
    /// differential equations q̇ = N(q, t) u + c(q, t) of a model with generalized speeds
    /// (v = u), v itself for a model whose second state is q̇.
    ///
    /// # Errors
    /// As [`Model::residuals`].
    pub fn coordinate_rates(
        &self,
        q: &DVector<f64>,
        v: &DVector<f64>,
        t: f64,
    ) -> Result<DVector<f64>, ModelError> {
        if self.speeds().is_empty() {
            self.check_state(q.as_slice(), v.as_slice())?;
            return Ok(v.clone());
        }
        let values = self.monitor_values(q, v, t)?;
        let (n, start) = (self.n(), self.kinematics_offset());
        Ok(DVector::from_column_slice(&values[start..start + n]))
    }

    /// N(q, t) = ∂q̇/∂u of a model with generalized speeds, n × n; `None` for a model
    /// without speeds (N = I).
    ///
    /// # Errors
    /// As [`Model::residuals`].
    pub fn kinematic_matrix(
        &self,
        q: &DVector<f64>,
        t: f64,
    ) -> Result<Option<DMatrix<f64>>, ModelError> {
        if self.speeds().is_empty() {
            return Ok(None);
        }
        // N reads no speed; the program takes n entries.
        let values = self.monitor_values(q, q, t)?;
        let (n, start) = (self.n(), self.kinematics_offset() + self.n());
        Ok(Some(DMatrix::from_row_slice(
            n,
            n,
            &values[start..start + n * n],
        )))
    }

    /// Where q̇ = K(q, u, t) starts among the monitor's outputs (after the energy, f and the
    /// velocity-level rows); N follows it.
    pub(crate) fn kinematics_offset(&self) -> usize {
        1 + self.num_holonomic() + self.m()
    }

    /// The parameters' names, in order.
    pub fn parameters(&self) -> &[String] {
        &self.compiled.parameters
    }

    /// The value of parameter `name`, if it has one.
    ///
    /// # Errors
    /// [`ModelError::UnknownParameter`].
    pub fn parameter(&self, name: &str) -> Result<Option<f64>, ModelError> {
        Ok(self.values[self.parameter_index(name)?])
    }

    /// Sets parameter `name` to `value` for the following evaluations.
    ///
    /// # Errors
    /// [`ModelError::UnknownParameter`].
    pub fn set_parameter(&mut self, name: &str, value: f64) -> Result<(), ModelError> {
        let i = self.parameter_index(name)?;
        self.values[i] = Some(value);
        Ok(())
    }

    fn parameter_index(&self, name: &str) -> Result<usize, ModelError> {
        let c = &self.compiled;
        (c.parameters.iter().position(|p| p == name)).ok_or_else(|| ModelError::UnknownParameter {
            name: name.to_string(),
            model: c.name.clone(),
            parameters: c.parameters.join(", "),
        })
    }

    /// The inputs' names (joint efforts of a URDF robot, a model's `inputs`), k of them.
    pub fn inputs(&self) -> &[String] {
        &self.compiled.inputs
    }

    /// Sets the inputs u (k entries) held for the following evaluations; zero at first.
    ///
    /// # Errors
    /// [`ModelError::Length`] when `u` does not have k entries.
    pub fn set_inputs(&mut self, u: &[f64]) -> Result<(), ModelError> {
        self.check("u", self.u.len(), u.len())?;
        self.u.copy_from_slice(u);
        Ok(())
    }

    /// The names of the columns of [`Model::outputs`]: `name` for a scalar output,
    /// `name.x`, `name.y`, `name.z` for a vector one.
    pub fn output_columns(&self) -> &[String] {
        &self.compiled.output_columns
    }

    fn check(&self, what: &'static str, expected: usize, given: usize) -> Result<(), ModelError> {
        if expected == given {
            return Ok(());
        }
        Err(ModelError::Length {
            what,
            expected,
            given,
            model: self.compiled.name.clone(),
        })
    }

    fn kind(&self, hamiltonian: bool) -> Result<(), ModelError> {
        if self.compiled.hamiltonian == hamiltonian {
            return Ok(());
        }
        Err(ModelError::WrongKind {
            wanted: if hamiltonian {
                "Hamiltonian"
            } else {
                "Lagrangian"
            },
            model: self.compiled.name.clone(),
        })
    }

    /// Every parameter's value, in order, written into `params` (one entry per parameter).
    #[inline]
    fn parameter_values_into(&self, params: &mut [f64]) -> Result<(), ModelError> {
        let c = &self.compiled;
        for ((slot, value), name) in params.iter_mut().zip(&self.values).zip(&c.parameters) {
            *slot = value.ok_or_else(|| ModelError::MissingParameter {
                name: name.clone(),
                model: c.name.clone(),
            })?;
        }
        Ok(())
    }

    /// Every parameter's value, in order.
    fn parameter_values(&self) -> Result<Vec<f64>, ModelError> {
        let mut params = vec![0.0; self.values.len()];
        self.parameter_values_into(&mut params)?;
        Ok(params)
    }

    /// Checks that q and v = q̇ or p have n entries.
    fn check_state(&self, q: &[f64], v: &[f64]) -> Result<(), ModelError> {
        self.check("q", self.n(), q.len())?;
        let what = if self.compiled.hamiltonian { "p" } else { "qd" };
        self.check(what, self.n(), v.len())
    }

    /// The tape inputs at (q, v, t), v = q̇ or p by the model's kind, with `params` and the
    /// model's inputs u.
    fn tape_inputs<'a>(
        &'a self,
        q: &'a [f64],
        v: &'a [f64],
        t: f64,
        params: &'a [f64],
    ) -> TapeInputs<'a> {
        let (qd, p) = if self.compiled.hamiltonian {
            (&[][..], v)
        } else {
            (v, &[][..])
        };
        TapeInputs {
            q,
            qd,
            p,
            t,
            params,
            u: &self.u,
            ..TapeInputs::default()
        }
    }

    /// Runs `f` with the tape inputs at (q, v, t), v = q̇ or p, after checking the lengths,
    /// the kind (when given) and the parameters.
    fn at<R>(
        &self,
        q: &[f64],
        v: &[f64],
        t: f64,
        hamiltonian: Option<bool>,
        f: impl FnOnce(&TapeInputs) -> R,
    ) -> Result<R, ModelError> {
        self.check_state(q, v)?;
        if let Some(hamiltonian) = hamiltonian {
            self.kind(hamiltonian)?;
        }
        let params = self.parameter_values()?;
        Ok(f(&self.tape_inputs(q, v, t, &params)))
    }

    /// The program of the terms, compiled on the first call.
    fn terms_program(&self) -> Result<&Scatter, ModelError> {
        let c = &self.compiled;
        lazy(&c.terms, || {
            let name = format!("terms of `{}`", c.name);
            let blocks = Block::terms(&c.derivation.equations);
            Scatter::new(&c.derivation.pool, &blocks, &name, c.backend)
        })
    }

    /// The five blocks of the terms (M, Q, A, b, C or H_p, H_q, H_pp, A_p, b_p) at `inputs`,
    /// checked against the model.
    fn term_blocks(&self, inputs: &TapeInputs) -> Result<[DMatrix<f64>; 5], ModelError> {
        let (n, m) = (self.n(), self.m());
        let shapes = if self.compiled.hamiltonian {
            [(n, 1), (n, 1), (n, n), (m, n), (m, 1)]
        } else {
            [(n, n), (n, 1), (m, n), (m, 1), (n, 1)]
        };
        Ok(matrices(self.terms_program()?, inputs, shapes))
    }

    /// The Lagrangian terms at `inputs`, checked against the model.
    fn lagrangian_terms(&self, inputs: &TapeInputs) -> Result<DynamicLagrangianTerms, ModelError> {
        let [mass_matrix, generalized_force, constraint_matrix, constraint_rhs, nonideal_force] =
            self.term_blocks(inputs)?;
        Ok(DynamicLagrangianTerms {
            mass_matrix,
            generalized_force: generalized_force.column(0).into_owned(),
            constraint_matrix,
            constraint_rhs: constraint_rhs.column(0).into_owned(),
            nonideal_force: (self.compiled.nonideal).then(|| nonideal_force.column(0).into_owned()),
        })
    }

    /// The Hamiltonian terms at `inputs`, checked against the model.
    fn hamiltonian_blocks(
        &self,
        inputs: &TapeInputs,
    ) -> Result<DynamicHamiltonianTerms, ModelError> {
        let [h_p, h_q, h_pp, a_p, b_p] = self.term_blocks(inputs)?;
        Ok(DynamicHamiltonianTerms {
            h_p: h_p.column(0).into_owned(),
            h_q: h_q.column(0).into_owned(),
            h_pp,
            a_p,
            b_p: b_p.column(0).into_owned(),
        })
    }

    /// M, Q, A, b and C of a Lagrangian model at (q, q̇, t): n × n, n, m × n, m, n (C `None`
    /// for ideal constraints).
    ///
    /// # Errors
    /// [`ModelError::Length`], [`ModelError::MissingParameter`], [`ModelError::WrongKind`].
    pub fn terms(
        &self,
        q: &DVector<f64>,
        qd: &DVector<f64>,
        t: f64,
    ) -> Result<DynamicLagrangianTerms, ModelError> {
        self.at(q.as_slice(), qd.as_slice(), t, Some(false), |inputs| {
            self.lagrangian_terms(inputs)
        })?
    }

    /// The generalized acceleration q̈ at (q, q̇, t) by the Udwadia–Kalaba equation, n
    /// entries: for a kinematic tree, q̈₀ = M⁻¹(Q + C) and W = M⁻¹Aᵀ by the articulated-body
    /// algorithm (Featherstone 2008, Table 7.1) and `udk_runtime::factored_acceleration_and_constraint_force`,
    /// as the generated `acceleration`; otherwise (or where an articulated pivot is not positive)
    /// `udk_runtime::acceleration_dyn` on M, Q, A, b, C; default kernel options. The same
    /// as [`Model::acceleration_in`], which reuses its buffers.
    ///
    /// # Errors
    /// As [`Model::terms`], and the kernel's [`udk_runtime::Error`] (a singular M with A, …).
    pub fn acceleration(
        &self,
        q: &DVector<f64>,
        qd: &DVector<f64>,
        t: f64,
    ) -> Result<DVector<f64>, ModelError> {
        let mut workspace = self.workspace()?;
        let mut qdd = DVector::zeros(self.n());
        self.acceleration_in(
            &mut workspace,
            q.as_slice(),
            qd.as_slice(),
            t,
            qdd.as_mut_slice(),
        )?;
        Ok(qdd)
    }

    /// The constraint force Qᶜ = M q̈ − Q − C at (q, q̇, t), n entries, on the path of
    /// [`Model::acceleration`] (Udwadia & Kalaba 1993, eq 16).
    ///
    /// # Errors
    /// As [`Model::acceleration`].
    pub fn constraint_force(
        &self,
        q: &DVector<f64>,
        qd: &DVector<f64>,
        t: f64,
    ) -> Result<DVector<f64>, ModelError> {
        let (q, qd) = (q.as_slice(), qd.as_slice());
        self.check_state(q, qd)?;
        let mut workspace = self.workspace()?;
        self.parameter_values_into(&mut workspace.params)?;
        let (mut qdd, mut force) = (DVector::zeros(self.n()), DVector::zeros(self.n()));
        self.solve(
            &mut workspace,
            q,
            qd,
            t,
            qdd.as_mut_slice(),
            Some(force.as_mut_slice()),
        )?;
        Ok(force)
    }

    /// q̈ and its exact Jacobians ∂q̈/∂q, ∂q̈/∂q̇ (n × n) and ∂q̈/∂u (n × k) at (q, q̇, t), from
    /// the symbolic residual Jacobians (derived, when the derivation did not, and compiled on
    /// the first call) through
    /// `udk_runtime::jacobian::acceleration_jacobian_dyn`, as the generated
    /// `acceleration_jacobian`; default kernel options.
    ///
    /// # Errors
    /// As [`Model::acceleration`]; `RankChange` where the rank of A or [M; A] changes;
    /// `JacobianUnavailable` for a model beyond `udk_symbolic::limits::MAX_JACOBIAN_COST`.
    pub fn acceleration_jacobian(
        &self,
        q: &DVector<f64>,
        qd: &DVector<f64>,
        t: f64,
    ) -> Result<AccelerationJacobianDyn, ModelError> {
        self.acceleration_jacobian_with(q, qd, t, &Options::default())
    }

    /// [`Model::acceleration_jacobian`] with the kernel options `options`.
    ///
    /// # Errors
    /// As [`Model::acceleration_jacobian`]; `InvalidOption` for bad options.
    pub fn acceleration_jacobian_with(
        &self,
        q: &DVector<f64>,
        qd: &DVector<f64>,
        t: f64,
        options: &Options,
    ) -> Result<AccelerationJacobianDyn, ModelError> {
        let terms = self.terms(q, qd, t)?;
        let c = &self.compiled;
        let jacobians = lazy(&c.jacobians, || {
            let Some((pool, j)) = self.jacobian_expressions() else {
                return Ok(None);
            };
            let blocks = j.residual_blocks().map(|(_, m)| Block::matrix(m));
            let name = format!("residual Jacobians of `{}`", c.name);
            Scatter::new(pool, &blocks, &name, c.backend).map(Some)
        })?;
        let jacobians = jacobians.as_ref().ok_or(unavailable())?;
        let params = self.parameter_values()?;
        let jacobian = acceleration_jacobian_dyn(terms.view(), options, |qdd, lambda| {
            let inputs = TapeInputs {
                qdd: qdd.as_slice(),
                lambda: lambda.as_slice(),
                ..self.tape_inputs(q.as_slice(), qd.as_slice(), t, &params)
            };
            let (n, m, k) = (self.n(), self.m(), self.u.len());
            let [r_q, r_qd, r_u, g_q, g_qd, g_u] = matrices(
                jacobians,
                &inputs,
                [(n, n), (n, n), (n, k), (m, n), (m, n), (m, k)],
            );
            ResidualJacobiansDyn {
                r_q,
                r_qd,
                r_u,
                g_q,
                g_qd,
                g_u,
            }
        })?;
        Ok(jacobian)
    }

    /// The symbolic Jacobians of a Lagrangian model with the pool that holds them, formed on
    /// the first call; `None` for a model beyond `udk_symbolic::limits::MAX_JACOBIAN_COST`
    /// and for a Hamiltonian one.
    fn jacobian_expressions(
        &self,
    ) -> Option<(
        &udk_symbolic::expr::Pool,
        &udk_symbolic::derivation::LagrangianJacobians,
    )> {
        let c = &self.compiled;
        // Whether the derivation holds all the Jacobians it can (a model with generalized
        // speeds and a Hamiltonian one have none here).
        let complete = |d: &Derivation| match &d.equations {
            Equations::Lagrangian(e) => e.jacobians.is_some() || e.kinematics.is_some(),
            Equations::Hamiltonian(_) => true,
        };
        let d = match complete(&c.derivation) {
            true => &c.derivation,
            false => c.with_jacobians.get_or_init(|| {
                let mut d = c.derivation.clone();
                d.derive_jacobians();
                d
            }),
        };
        match &d.equations {
            Equations::Lagrangian(e) => Some((&d.pool, e.jacobians.as_ref()?)),
            Equations::Hamiltonian(_) => None,
        }
    }

    /// The energy, the holonomic constraints f(q, t) and the velocity-level constraints at
    /// (q, v, t), v = q̇ or p ([`Residuals`]); the program is compiled on the first call.
    ///
    /// # Errors
    /// [`ModelError::Length`], [`ModelError::MissingParameter`].
    pub fn residuals(
        &self,
        q: &DVector<f64>,
        v: &DVector<f64>,
        t: f64,
    ) -> Result<Residuals, ModelError> {
        let values = self.monitor_values(q, v, t)?;
        let (h, m) = (self.num_holonomic(), self.m());
        Ok(Residuals {
            energy: values[0],
            holonomic: DVector::from_column_slice(&values[1..=h]),
            velocity: DVector::from_column_slice(&values[1 + h..1 + h + m]),
        })
    }

    /// The monitor's outputs at (q, v, t) ([`Model::monitor`]).
    fn monitor_values(
        &self,
        q: &DVector<f64>,
        v: &DVector<f64>,
        t: f64,
    ) -> Result<Vec<f64>, ModelError> {
        let (q, v) = (q.as_slice(), v.as_slice());
        self.check_state(q, v)?;
        let params = self.parameter_values()?;
        let monitor = self.monitor()?;
        let mut values = vec![0.0; monitor.outputs()];
        let mut regs = vec![0.0; monitor.registers()];
        (monitor.eval(&self.tape_inputs(q, v, t, &params), &mut regs, &mut values))
            .expect("inputs checked against the model");
        Ok(values)
    }

    /// The program of the energy (h or H), the holonomic constraints and the velocity-level
    /// rows, then, for a model with generalized speeds, q̇ = K(q, u, t) and N (row-major),
    /// compiled on the first call.
    fn monitor(&self) -> Result<&Function, ModelError> {
        let c = &self.compiled;
        lazy(&c.monitor, || {
            let monitor = match &c.derivation.equations {
                Equations::Lagrangian(e) => {
                    let kinematics = e.kinematics.as_ref();
                    let rates = kinematics.map_or(&[][..], |k| &k.rates);
                    let matrix = kinematics.map_or(&[][..], |k| &k.matrix.entries);
                    [
                        &[e.energy][..],
                        &e.holonomic,
                        &e.velocity_constraints,
                        rates,
                        matrix,
                    ]
                    .concat()
                }
                Equations::Hamiltonian(e) => {
                    [&[e.hamiltonian][..], &e.holonomic, &e.constraints].concat()
                }
            };
            let name = format!("energy and constraint residuals of `{}`", c.name);
            Function::compile(&c.derivation.pool, &monitor, &name, c.backend)
        })
    }

    /// The motion of a Lagrangian model linearized about the operating point (q, q̇, t) with
    /// the model's inputs u, on its constraint manifold, in the independent coordinates and
    /// velocities of `selection`: `udk_runtime::linearize::linearize_derivatives` (Peterson,
    /// Gede & Hubbard 2015, sections 3–4) from f, the velocity-level constraints, A, their
    /// ∂/∂q and [`Model::acceleration_jacobian_with`], as the runtime's `linearize` does for
    /// generated code.
    ///
    /// # Errors
    /// [`ModelError::Length`], [`ModelError::MissingParameter`], [`ModelError::WrongKind`] (a
    /// Hamiltonian model); `NonFinite` for a non-finite point; `ConstraintViolated` naming the
    /// first constraint row the point violates by more than the options' tolerance;
    /// `InvalidSelection`; `RankChange`; `JacobianUnavailable`.
    pub fn linearize(
        &self,
        q: &DVector<f64>,
        qd: &DVector<f64>,
        t: f64,
        selection: &Selection,
        options: &LinearizationOptions,
    ) -> Result<Linearization, ModelError> {
        self.check_state(q.as_slice(), qd.as_slice())?;
        self.kind(false)?;
        let point = q.iter().chain(qd.iter()).chain(&self.u);
        if !(point.copied().all(f64::is_finite) && t.is_finite()) {
            return Err(udk_runtime::Error::NonFinite {
                what: "operating point (q, q̇, u, t)",
            }
            .into());
        }
        let residuals = self.residuals(q, qd, t)?;
        let h = self.num_holonomic();
        check_operating_point(
            &residuals.holonomic,
            &residuals.velocity,
            h,
            options.constraint_tolerance,
        )?;
        let c = &self.compiled;
        let velocity_jacobian = lazy(&c.velocity_jacobian, || {
            let Some((pool, j)) = self.jacobian_expressions() else {
                return Ok(None);
            };
            let name = format!("velocity-constraint Jacobian of `{}`", c.name);
            let blocks = [Block::matrix(&j.velocity_constraints_q)];
            Scatter::new(pool, &blocks, &name, c.backend).map(Some)
        })?;
        let velocity_jacobian = velocity_jacobian.as_ref().ok_or(unavailable())?;
        let params = self.parameter_values()?;
        let inputs = self.tape_inputs(q.as_slice(), qd.as_slice(), t, &params);
        let [velocity_residual_jacobian] =
            matrices(velocity_jacobian, &inputs, [(self.m(), self.n())]);
        let jacobian = self.acceleration_jacobian_with(q, qd, t, &options.kernel)?;
        let derivatives = Derivatives {
            holonomic: h,
            holonomic_residual: residuals.holonomic,
            velocity_residual: residuals.velocity,
            constraint_matrix: self.terms(q, qd, t)?.constraint_matrix,
            velocity_residual_jacobian,
            wrt_q: jacobian.wrt_q,
            wrt_qd: jacobian.wrt_qd,
            wrt_u: jacobian.wrt_u,
        };
        Ok(linearize_derivatives(&derivatives, selection, options)?)
    }

    /// H_p, H_q, H_pp, A_p and b_p of a Hamiltonian model at (q, p, t).
    ///
    /// # Errors
    /// [`ModelError::Length`], [`ModelError::MissingParameter`], [`ModelError::WrongKind`].
    pub fn hamiltonian_terms(
        &self,
        q: &DVector<f64>,
        p: &DVector<f64>,
        t: f64,
    ) -> Result<DynamicHamiltonianTerms, ModelError> {
        self.at(q.as_slice(), p.as_slice(), t, Some(true), |inputs| {
            self.hamiltonian_blocks(inputs)
        })?
    }

    /// The momentum rate ṗ of a Hamiltonian model at (q, p, t) (Udwadia 2016, eq 36), n
    /// entries.
    ///
    /// # Errors
    /// As [`Model::hamiltonian_terms`], and the kernel's [`udk_runtime::Error`].
    pub fn momentum_rate(
        &self,
        q: &DVector<f64>,
        p: &DVector<f64>,
        t: f64,
    ) -> Result<DVector<f64>, ModelError> {
        let h = self.hamiltonian_terms(q, p, t)?;
        Ok(udk_runtime::hamiltonian::momentum_rate_dyn(
            &h.h_q,
            &h.h_pp,
            &h.a_p,
            &h.b_p,
            &Options::default(),
        )?)
    }

    /// The model's outputs at (q, v, t), v = q̇ or p: the components of each, in the order
    /// of [`Model::output_columns`].
    ///
    /// # Errors
    /// [`ModelError::Length`], [`ModelError::MissingParameter`].
    pub fn outputs(
        &self,
        q: &DVector<f64>,
        v: &DVector<f64>,
        t: f64,
    ) -> Result<DVector<f64>, ModelError> {
        let function = &self.compiled.outputs;
        let mut out = DVector::zeros(function.outputs());
        self.at(q.as_slice(), v.as_slice(), t, None, |inputs| {
            let mut regs = vec![0.0; function.registers()];
            function.eval(inputs, &mut regs, out.as_mut_slice())
        })?
        .expect("inputs checked against the model");
        Ok(out)
    }
}

/// The error of a model whose Jacobians were not derived (beyond
/// `udk_symbolic::limits::MAX_JACOBIAN_COST`, or Hamiltonian).
fn unavailable() -> udk_runtime::Error {
    udk_runtime::Error::JacobianUnavailable {
        what: "the acceleration Jacobian",
    }
}

/// `scatter` evaluated at `inputs` (checked against the model) into matrices of `shapes`.
fn matrices<const K: usize>(
    scatter: &Scatter,
    inputs: &TapeInputs,
    shapes: [(usize, usize); K],
) -> [DMatrix<f64>; K] {
    let mut blocks = shapes.map(|(rows, cols)| DMatrix::zeros(rows, cols));
    let mut buffers = scatter.buffers();
    scatter
        .eval(
            inputs,
            &mut buffers,
            blocks.each_mut().map(|b| b.as_mut_slice()),
        )
        .expect("inputs checked against the model");
    blocks
}

/// The five blocks of Lagrangian terms as the column-major slices the terms program writes.
fn term_slices(terms: &mut DynamicLagrangianTerms) -> [&mut [f64]; 5] {
    let nonideal = (terms.nonideal_force.as_mut()).map_or(&mut [][..], |c| c.as_mut_slice());
    [
        terms.mass_matrix.as_mut_slice(),
        terms.generalized_force.as_mut_slice(),
        terms.constraint_matrix.as_mut_slice(),
        terms.constraint_rhs.as_mut_slice(),
        nonideal,
    ]
}
