//! `udk.Model`: a [`udk::Model`] with the spec it was built from (for pickling and for
//! `equations()`), and `udk.Equations`, the derived equations as text and LaTeX.

use crate::batch::{vector, Block, States};
use crate::motion;
use crate::{BadInputError, MotionError};
use nalgebra::DMatrix;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use std::path::{Path, PathBuf};
use udk::runtime::linearize::{LinearizationOptions, Selection};
use udk::runtime::servo::{Convergence, Realization, ServoLaw};
use udk::runtime::Error as RuntimeError;
use udk::{ModelError, ModelSpec};
use udk_symbolic::InitialState;

/// The Python exception of a [`ModelError`], with its message: `MotionError` for a state
/// with no trustworthy motion (and a simulation that stopped after it started),
/// `RuntimeError` when the JIT fails, `BadInputError` for the rest: bad input.
pub(crate) fn exception(e: ModelError) -> PyErr {
    let message = e.to_string();
    let mut cause = &e;
    while let ModelError::Batch { source, .. } = cause {
        cause = source;
    }
    match cause {
        ModelError::Runtime(_) | ModelError::Simulation { time: Some(_), .. } => {
            MotionError::new_err(message)
        }
        ModelError::Jit(_) => PyRuntimeError::new_err(message),
        _ => BadInputError::new_err(message),
    }
}

/// Why a model was not built, off the GIL.
enum Built {
    /// A spec that does not parse.
    BadInput(String),
    /// An error of the model.
    Failed(ModelError),
}

use Built::{BadInput, Failed};

impl Built {
    fn into_exception(self) -> PyErr {
        match self {
            BadInput(message) => BadInputError::new_err(message),
            Failed(e) => exception(e),
        }
    }
}

/// A constrained mechanical system derived by udk and compiled to native code by its JIT.
///
/// Build one with `Model.from_file`, `Model.from_urdf`, `Model.from_spec` or
/// `Model.from_sympy`. Functions of the state take q and q̇ (p for a Hamiltonian model) as
/// 1-D arrays of n entries, or as 2-D arrays of states × n, evaluated in parallel with the GIL
/// released (bit for bit as one call per state). A model pickles as its spec, its parameter
/// values and its inputs, and is derived again where it is unpickled.
#[pyclass(module = "udk", name = "Model")]
#[derive(Clone)]
pub(crate) struct Model {
    pub(crate) model: udk::Model,
    /// The spec, as JSON.
    spec: String,
    /// The directory a URDF named by the spec is read from.
    base: PathBuf,
    hamiltonian: bool,
    /// The spec's `[initial]` state, the default start of `simulate`.
    initial: Option<InitialState>,
    /// The inputs u held by `model`, k entries.
    u: Vec<f64>,
}

impl Model {
    fn build(py: Python<'_>, spec: &str, base: PathBuf) -> PyResult<Self> {
        // The spec holds `syn` expressions, which stay on the thread that parses them.
        let built = py.detach(|| {
            let parsed: ModelSpec = serde_json::from_str(spec)
                .map_err(|e| BadInput(format!("the model spec does not parse: {e}")))?;
            let (hamiltonian, initial) = (parsed.hamiltonian.is_some(), parsed.initial.clone());
            let model = udk::Model::from_spec(parsed, &base).map_err(Failed)?;
            Ok((model, hamiltonian, initial))
        });
        let (model, hamiltonian, initial) = built.map_err(|e: Built| e.into_exception())?;
        Ok(Model {
            u: vec![0.0; model.inputs().len()],
            model,
            spec: spec.to_string(),
            base,
            hamiltonian,
            initial,
        })
    }

    /// The spec as JSON: `spec` itself when it is a `str`, `json.dumps(spec)` for a `dict`.
    fn json(spec: &Bound<'_, PyAny>) -> PyResult<String> {
        if let Ok(text) = spec.extract::<String>() {
            return Ok(text);
        }
        let json = spec.py().import("json")?;
        json.call_method1("dumps", (spec,))?.extract()
    }

    fn n(&self) -> usize {
        self.model.n()
    }

    /// The robot of a URDF file on a fixed base, as `Model.from_urdf` documents.
    fn fixed_base(
        py: Python<'_>,
        path: PathBuf,
        gravity: Option<[f64; 3]>,
        joint_damping: bool,
        mimic: bool,
        inertia: &str,
    ) -> PyResult<Self> {
        let file = path
            .file_name()
            .map_or_else(String::new, |f| f.to_string_lossy().into_owned());
        let mut urdf = serde_json::json!({
            "path": file,
            "joint_damping": joint_damping,
            "mimic": mimic,
            "inertia": inertia,
        });
        if let Some(gravity) = gravity {
            urdf["gravity"] = serde_json::json!(gravity);
        }
        let spec = serde_json::json!({ "name": "Robot", "urdf": urdf });
        Self::build(py, &spec.to_string(), directory(&path))
    }
}

/// `matrix` in row-major order (numpy's) into `out`.
fn put_matrix(out: &mut [f64], matrix: &DMatrix<f64>) {
    for (i, row) in matrix.row_iter().enumerate() {
        for (j, x) in row.iter().enumerate() {
            out[i * matrix.ncols() + j] = *x;
        }
    }
}

#[pymethods]
impl Model {
    /// Builds a model from its spec: a JSON string or a dict with the fields of a model file
    /// (`name`, `coordinates`, `parameters`, `lagrangian`, `holonomic`, ...). A URDF it names
    /// is read relative to `base`.
    ///
    /// Raises BadInputError with every message of the derivation.
    #[staticmethod]
    #[pyo3(signature = (spec, base = None))]
    fn from_spec(py: Python<'_>, spec: &Bound<'_, PyAny>, base: Option<PathBuf>) -> PyResult<Self> {
        Self::build(
            py,
            &Self::json(spec)?,
            base.unwrap_or_else(|| PathBuf::from(".")),
        )
    }

    /// Reads a model file: TOML, JSON if its name ends in `.json`, or a URDF robot with the
    /// default options if it ends in `.urdf`. A file with `urdf = { .., floating_base = true }`
    /// gives a `FloatingBaseModel`, with its link points and ground contacts.
    ///
    /// Raises BadInputError for a file that cannot be read, does not parse or does not derive.
    #[staticmethod]
    fn from_file(py: Python<'_>, path: PathBuf) -> PyResult<Py<PyAny>> {
        let extension = path.extension().and_then(|e| e.to_str());
        if extension == Some("urdf") {
            let model = Self::fixed_base(py, path, None, false, false, "strict")?;
            return Ok(Py::new(py, model)?.into_any());
        }
        let read = |message: String| {
            exception(ModelError::Read {
                path: path.display().to_string(),
                message,
            })
        };
        let text = std::fs::read_to_string(&path).map_err(|e| read(e.to_string()))?;
        let spec: ModelSpec = if extension == Some("json") {
            serde_json::from_str(&text).map_err(|e| read(e.to_string()))?
        } else {
            toml::from_str(&text).map_err(|e| read(e.to_string()))?
        };
        if spec.urdf.as_ref().is_some_and(|u| u.floating_base) {
            let model = crate::floating::FloatingBaseModel::from_file(py, &path, spec.initial)?;
            return Ok(Py::new(py, model)?.into_any());
        }
        let json = serde_json::to_string(&spec).map_err(|e| read(e.to_string()))?;
        Ok(Py::new(py, Self::build(py, &json, directory(&path))?)?.into_any())
    }

    /// The robot of a URDF file: gravity (3 entries, m/s², default (0, 0, −9.81)), whether
    /// each joint's `<dynamics damping>` adds −d q̇, whether `<mimic>` joints become
    /// holonomic constraints, and `inertia` "strict" (refuse a tensor that is not positive
    /// semidefinite) or "repair". With `floating_base=True`, the robot on a free-flying base
    /// as a `FloatingBaseModel` (Pinocchio's `JointModelFreeFlyer` layout: q of 7 + n
    /// entries, v of 6 + n), with the default options only.
    ///
    /// Raises BadInputError with the URDF's errors, or for `joint_damping`, `mimic` or
    /// `inertia="repair"` with a floating base.
    #[staticmethod]
    #[pyo3(signature = (path, gravity = None, joint_damping = false, mimic = false,
        inertia = "strict", floating_base = false))]
    fn from_urdf(
        py: Python<'_>,
        path: PathBuf,
        gravity: Option<[f64; 3]>,
        joint_damping: bool,
        mimic: bool,
        inertia: &str,
        floating_base: bool,
    ) -> PyResult<Py<PyAny>> {
        if floating_base {
            if joint_damping || mimic || inertia != "strict" {
                return Err(BadInputError::new_err(
                    "a floating-base robot takes only `gravity`: joint_damping, mimic and \
                     inertia=\"repair\" are for a fixed base",
                ));
            }
            let gravity = gravity.unwrap_or(udk_symbolic::urdf::DEFAULT_GRAVITY);
            let model = crate::floating::FloatingBaseModel::from_urdf(py, path, gravity)?;
            return Ok(Py::new(py, model)?.into_any());
        }
        Ok(Py::new(
            py,
            Self::fixed_base(py, path, gravity, joint_damping, mimic, inertia)?,
        )?
        .into_any())
    }

    /// A model from SymPy expressions: see `udk.sympy.spec` for the arguments.
    #[staticmethod]
    #[pyo3(signature = (*args, **kwargs))]
    fn from_sympy(
        py: Python<'_>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let spec = py
            .import("udk.sympy")?
            .getattr("spec")?
            .call(args, kwargs)?;
        Self::build(py, &Self::json(&spec)?, PathBuf::from("."))
    }

    /// The model as pickle rebuilds it: its spec, parameter values and inputs.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let this = slf.borrow();
        let values: Vec<Option<f64>> = (this.model.parameters().iter())
            .map(|p| this.model.parameter(p).expect("a parameter of the model"))
            .collect();
        let state = (this.spec.clone(), this.base.clone(), values, this.u.clone());
        let restore = slf.get_type().getattr("_restore")?;
        (restore, state).into_pyobject(py)
    }

    /// Rebuilds a pickled model (see `__reduce__`).
    #[staticmethod]
    fn _restore(
        py: Python<'_>,
        spec: &str,
        base: PathBuf,
        values: Vec<Option<f64>>,
        u: Vec<f64>,
    ) -> PyResult<Self> {
        let mut model = Self::build(py, spec, base)?;
        let names = model.model.parameters().to_vec();
        for (name, value) in names.iter().zip(values) {
            if let Some(value) = value {
                model.model.set_parameter(name, value).map_err(exception)?;
            }
        }
        model.set_u(u)?;
        Ok(model)
    }

    /// A copy with its own parameter values and inputs, sharing the compiled code (cheap).
    fn copy(&self) -> Self {
        self.clone()
    }

    fn __copy__(&self) -> Self {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self {
        self.clone()
    }

    fn __repr__(&self) -> String {
        format!(
            "udk.Model('{}', n={}, m={}, {})",
            self.model.name(),
            self.n(),
            self.model.m(),
            if self.hamiltonian {
                "Hamiltonian"
            } else {
                "Lagrangian"
            }
        )
    }

    /// The model's name.
    #[getter]
    fn name(&self) -> &str {
        self.model.name()
    }

    /// Number of generalized coordinates n.
    #[getter(n)]
    fn get_n(&self) -> usize {
        self.n()
    }

    /// Number of constraints m.
    #[getter]
    fn m(&self) -> usize {
        self.model.m()
    }

    /// Whether the model is Hamiltonian (its functions then take p in place of q̇).
    #[getter]
    fn hamiltonian(&self) -> bool {
        self.hamiltonian
    }

    /// The coordinates' names, n of them.
    #[getter]
    fn coordinates(&self) -> Vec<String> {
        self.model.coordinates().to_vec()
    }

    /// The spec the model was built from, as JSON (what pickling stores).
    #[getter]
    fn spec(&self) -> &str {
        &self.spec
    }

    /// The parameters and their values (None for one not set yet), in the model's order.
    #[getter]
    fn parameters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        for name in self.model.parameters() {
            dict.set_item(name, self.model.parameter(name).map_err(exception)?)?;
        }
        Ok(dict)
    }

    /// Sets parameters by name: `model.set_parameters(m=1.0, g=9.81)` or a dict.
    ///
    /// Raises BadInputError naming an unknown parameter (and listing the model's).
    #[pyo3(signature = (values = None, **kwargs))]
    fn set_parameters(
        &mut self,
        values: Option<&Bound<'_, PyDict>>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<()> {
        for dict in [values, kwargs].into_iter().flatten() {
            for (name, value) in dict.iter() {
                let (name, value): (String, f64) = (name.extract()?, value.extract()?);
                self.model.set_parameter(&name, value).map_err(exception)?;
            }
        }
        Ok(())
    }

    /// The inputs' names (joint efforts of a URDF robot), k of them.
    #[getter]
    fn input_names(&self) -> Vec<String> {
        self.model.inputs().to_vec()
    }

    /// The inputs u (k entries) held for every evaluation; zero at first.
    #[getter]
    fn u(&self) -> Vec<f64> {
        self.u.clone()
    }

    /// Sets the inputs u, k entries.
    ///
    /// Raises BadInputError for a wrong length.
    #[setter]
    fn set_u(&mut self, u: Vec<f64>) -> PyResult<()> {
        self.model.set_inputs(&u).map_err(exception)?;
        self.u = u;
        Ok(())
    }

    /// The names of the columns of `outputs`: `name` for a scalar output, `name.x`, `name.y`,
    /// `name.z` for a vector one.
    #[getter]
    fn output_columns(&self) -> Vec<String> {
        self.model.output_columns().to_vec()
    }

    /// The constrained acceleration q̈ (Udwadia & Kalaba 1993, eq 16; Udwadia & Phohomsiri
    /// 2006, eq 2.14 with non-ideal constraints) at (q, q̇, t): n entries, or states × n.
    ///
    /// A batch may take `parameters`, states × p (in the order of `model.parameters`): state
    /// i is then evaluated with row i's values (a parameter sweep on this machine's cores).
    ///
    /// Raises BadInputError for a wrong shape or a missing parameter value, MotionError where
    /// the acceleration is not unique or the constraints are inconsistent.
    #[pyo3(signature = (q, qd, t = None, parameters = None))]
    fn acceleration<'py>(
        &self,
        py: Python<'py>,
        q: &Bound<'py, PyAny>,
        qd: &Bound<'py, PyAny>,
        t: Option<&Bound<'py, PyAny>>,
        parameters: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        States::read(self, q, qd, t, "qd")?.acceleration(py, parameters)
    }

    /// The constraint force Qᶜ = M q̈ − Q − C at (q, q̇, t): n entries, or states × n.
    ///
    /// Raises as `acceleration`.
    #[pyo3(signature = (q, qd, t = None))]
    fn constraint_force<'py>(
        &self,
        py: Python<'py>,
        q: &Bound<'py, PyAny>,
        qd: &Bound<'py, PyAny>,
        t: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        States::read(self, q, qd, t, "qd")?.vector(py, self.n(), udk::Model::constraint_force)
    }

    /// The terms of a Lagrangian model at (q, q̇, t), a dict: `M` (n × n), `Q` (n), `A`
    /// (m × n), `b` (m) and `C` (n, zeros for ideal constraints); each with a leading axis of
    /// states for a batch.
    ///
    /// Raises BadInputError for a wrong shape, a missing parameter or a Hamiltonian model.
    #[pyo3(signature = (q, qd, t = None))]
    fn terms<'py>(
        &self,
        py: Python<'py>,
        q: &Bound<'py, PyAny>,
        qd: &Bound<'py, PyAny>,
        t: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let states = States::read(self, q, qd, t, "qd")?;
        let (n, m) = (self.n(), self.model.m());
        let blocks = [
            Block::matrix(n, n),
            Block::vector(n),
            Block::matrix(m, n),
            Block::vector(m),
            Block::vector(n),
        ];
        let arrays = states.evaluate(py, blocks, |model, q, qd, t, [mm, qq, a, b, c]| {
            let terms = model.terms(&vector(q), &vector(qd), t)?;
            put_matrix(mm, &terms.mass_matrix);
            qq.copy_from_slice(terms.generalized_force.as_slice());
            put_matrix(a, &terms.constraint_matrix);
            b.copy_from_slice(terms.constraint_rhs.as_slice());
            if let Some(nonideal) = &terms.nonideal_force {
                c.copy_from_slice(nonideal.as_slice());
            }
            Ok(())
        })?;
        named(py, ["M", "Q", "A", "b", "C"], arrays)
    }

    /// q̈ and its exact Jacobians at (q, q̇, t), a dict: `acceleration` (n), `wrt_q` and
    /// `wrt_qd` (n × n), `wrt_u` (n × k); a leading axis of states for a batch.
    ///
    /// Raises as `acceleration`; MotionError where the rank of A or [M; A] changes.
    #[pyo3(signature = (q, qd, t = None))]
    fn jacobian<'py>(
        &self,
        py: Python<'py>,
        q: &Bound<'py, PyAny>,
        qd: &Bound<'py, PyAny>,
        t: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let states = States::read(self, q, qd, t, "qd")?;
        let (n, k) = (self.n(), self.model.inputs().len());
        let blocks = [
            Block::vector(n),
            Block::matrix(n, n),
            Block::matrix(n, n),
            Block::matrix(n, k),
        ];
        let arrays = states.evaluate(py, blocks, |model, q, qd, t, [qdd, wq, wqd, wu]| {
            let j = model.acceleration_jacobian(&vector(q), &vector(qd), t)?;
            qdd.copy_from_slice(j.acceleration.as_slice());
            put_matrix(wq, &j.wrt_q);
            put_matrix(wqd, &j.wrt_qd);
            put_matrix(wu, &j.wrt_u);
            Ok(())
        })?;
        named(py, ["acceleration", "wrt_q", "wrt_qd", "wrt_u"], arrays)
    }

    /// The terms of a Hamiltonian model at (q, p, t), a dict: `H_p`, `H_q` (n), `H_pp`
    /// (n × n), `A_p` (m × n), `b_p` (m); a leading axis of states for a batch.
    ///
    /// Raises BadInputError for a wrong shape, a missing parameter or a Lagrangian model.
    #[pyo3(signature = (q, p, t = None))]
    fn hamiltonian_terms<'py>(
        &self,
        py: Python<'py>,
        q: &Bound<'py, PyAny>,
        p: &Bound<'py, PyAny>,
        t: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let states = States::read(self, q, p, t, "p")?;
        let (n, m) = (self.n(), self.model.m());
        let blocks = [
            Block::vector(n),
            Block::vector(n),
            Block::matrix(n, n),
            Block::matrix(m, n),
            Block::vector(m),
        ];
        let arrays = states.evaluate(py, blocks, |model, q, p, t, [hp, hq, hpp, ap, bp]| {
            let h = model.hamiltonian_terms(&vector(q), &vector(p), t)?;
            hp.copy_from_slice(h.h_p.as_slice());
            hq.copy_from_slice(h.h_q.as_slice());
            put_matrix(hpp, &h.h_pp);
            put_matrix(ap, &h.a_p);
            bp.copy_from_slice(h.b_p.as_slice());
            Ok(())
        })?;
        named(py, ["H_p", "H_q", "H_pp", "A_p", "b_p"], arrays)
    }

    /// The momentum rate ṗ of a Hamiltonian model at (q, p, t) (Udwadia 2016, eq 36): n
    /// entries, or states × n.
    ///
    /// Raises as `hamiltonian_terms`, and MotionError as `acceleration`.
    #[pyo3(signature = (q, p, t = None))]
    fn momentum_rate<'py>(
        &self,
        py: Python<'py>,
        q: &Bound<'py, PyAny>,
        p: &Bound<'py, PyAny>,
        t: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        States::read(self, q, p, t, "p")?.vector(py, self.n(), udk::Model::momentum_rate)
    }

    /// The servo controller of a model with `servo` constraints at (q, q̇, t), as
    /// `udk::Model::control` and the `servo` object of `udk eval` (review paper, Zhao, Chen,
    /// Zhao & Dong 2018, section 8.3; Udwadia 2003): a dict with `input` (the inputs u, k),
    /// `acceleration` (q̈ under u and the physical constraints, n), `servo_force` (Qᶜ_s, n,
    /// the generalized force the inputs should supply), `unrealized_force` (the part of Qᶜ_s
    /// the inputs cannot supply, n; zeros when the task is realizable) and `task_residual`
    /// (A q̈(u) − b* in every row, physical then servo, m + s); a leading axis of states for
    /// a batch. The inputs held by the model (`model.u`) play no part.
    ///
    /// The convergence law for a state off the servo constraints: `gain` P (s, > 0) of the
    /// paper's eq 72 (β̇ = −β/P), or the task-space law ë = −K_d ė − K_p e with `stiffness`
    /// K_p (s⁻²) and `damping` K_d (s⁻¹), both ≥ 0; none of them keeps the error where it is.
    /// `realization` is "force" (u minimizes Gauss's measure of the distance to the servo
    /// motion, the default) or "task" (u minimizes the task acceleration error).
    ///
    /// Raises BadInputError for a model without servo constraints, a wrong shape, a missing
    /// parameter or a bad law; MotionError where the controller fails (a singular M,
    /// inconsistent constraints).
    #[pyo3(signature = (q, qd, t = None, gain = None, stiffness = None, damping = None,
        realization = "force"))]
    #[allow(clippy::too_many_arguments)]
    fn control<'py>(
        &self,
        py: Python<'py>,
        q: &Bound<'py, PyAny>,
        qd: &Bound<'py, PyAny>,
        t: Option<&Bound<'py, PyAny>>,
        gain: Option<f64>,
        stiffness: Option<f64>,
        damping: Option<f64>,
        realization: &str,
    ) -> PyResult<Bound<'py, PyDict>> {
        if self.model.num_servo() == 0 {
            return Err(exception(ModelError::NoServo {
                model: self.model.name().to_string(),
            }));
        }
        let law = ServoLaw {
            convergence: convergence(gain, stiffness, damping)?,
            realization: match realization {
                "force" => Realization::Force,
                "task" => Realization::Task,
                other => {
                    return Err(BadInputError::new_err(format!(
                        "unknown realization `{other}`: \"force\" or \"task\""
                    )))
                }
            },
        };
        let states = States::read(self, q, qd, t, "qd")?;
        let (n, k) = (self.n(), self.model.inputs().len());
        let r = self.model.m() + self.model.num_servo();
        let blocks = [
            Block::vector(k),
            Block::vector(n),
            Block::vector(n),
            Block::vector(n),
            Block::vector(r),
        ];
        let arrays = states.evaluate(py, blocks, |model, q, qd, t, [u, qdd, qs, qu, e]| {
            let c = model.control(&vector(q), &vector(qd), t, law)?;
            u.copy_from_slice(c.input.as_slice());
            qdd.copy_from_slice(c.acceleration.as_slice());
            qs.copy_from_slice(c.servo_force.as_slice());
            qu.copy_from_slice(c.unrealized_force.as_slice());
            e.copy_from_slice(c.task_residual.as_slice());
            Ok(())
        })?;
        let names = [
            "input",
            "acceleration",
            "servo_force",
            "unrealized_force",
            "task_residual",
        ];
        named(py, names, arrays)
    }

    /// The model's outputs at (q, v, t), v = q̇ (or p): one entry per `output_columns`, or
    /// states × columns.
    ///
    /// Raises BadInputError for a wrong shape or a missing parameter.
    #[pyo3(signature = (q, v, t = None))]
    fn outputs<'py>(
        &self,
        py: Python<'py>,
        q: &Bound<'py, PyAny>,
        v: &Bound<'py, PyAny>,
        t: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let states = States::read(self, q, v, t, if self.hamiltonian { "p" } else { "qd" })?;
        states.vector(py, self.model.output_columns().len(), udk::Model::outputs)
    }

    /// The motion of a Lagrangian model linearized about the operating point (q, q̇, t), with
    /// the model's inputs u, on its constraint manifold (Peterson, Gede & Hubbard 2015), as
    /// `udk linearize`: a dict with `A` and `B` (ẋ = A x + B δu in x = (δq_I, δq̇_J)),
    /// `eigenvalues` of A, and the partition: `independent`, `dependent`, `held` coordinates
    /// and `independent_velocities`, `dependent_velocities`, `held_velocities` (0-based
    /// indices). `independent` (and `independent_velocities`, by default the same) choose
    /// the state; None chooses by pivoted QR.
    ///
    /// Raises BadInputError for a wrong length, a Hamiltonian model, a point off the
    /// constraints by more than `constraint_tolerance` (naming the row) or a bad selection;
    /// MotionError where q̈ is not differentiable (the rank of A or [M; A] changes).
    #[pyo3(signature = (q, qd, t = 0.0, independent = None, independent_velocities = None,
        held = Vec::new(), held_velocities = Vec::new(), constraint_tolerance = 1e-8))]
    #[allow(clippy::too_many_arguments)]
    fn linearize<'py>(
        &self,
        py: Python<'py>,
        q: Vec<f64>,
        qd: Vec<f64>,
        t: f64,
        independent: Option<Vec<usize>>,
        independent_velocities: Option<Vec<usize>>,
        held: Vec<usize>,
        held_velocities: Vec<usize>,
        constraint_tolerance: f64,
    ) -> PyResult<Bound<'py, PyDict>> {
        let selection = Selection {
            velocities: independent_velocities.or_else(|| independent.clone()),
            coordinates: independent,
            held_coordinates: held,
            held_velocities,
        };
        let options = LinearizationOptions {
            constraint_tolerance,
            ..LinearizationOptions::default()
        };
        let linear = self
            .model
            .linearize(&vector(&q), &vector(&qd), t, &selection, &options)
            .map_err(|e| match e {
                ModelError::Runtime(
                    RuntimeError::ConstraintViolated { .. } | RuntimeError::InvalidSelection { .. },
                ) => BadInputError::new_err(e.to_string()),
                e => exception(e),
            })?;
        motion::linearization(py, &linear)
    }

    /// Simulates the model from (q0, v0) at t0 to t_end, v = q̇ (or p), with the inputs u
    /// held, by the udk-runtime simulator, the GIL released; q0, v0 and t0 default to the
    /// spec's `initial`. `method` is "dop853" (default), "dopri5", "rk4" (with `step`),
    /// "radau5" or "bdf"; samples every `dt` (every step when None).
    ///
    /// Returns a dict: `t`, `q`, `qd` (or `p`), `energy`, `position_residual`,
    /// `velocity_residual`, `outputs` with `output_columns`, and `summary` (steps, rejected
    /// steps, right-hand sides, final time, largest residuals, energy drift).
    ///
    /// Raises BadInputError for a missing or wrong-length start, bad options or a start off
    /// the constraints (the simulator's message naming each row); MotionError when the run
    /// stops (non-unique acceleration, inconsistent constraints, integrator failure), with
    /// the attributes `time` and `motion` (the dict up to then).
    #[pyo3(signature = (t_end, q0 = None, v0 = None, t0 = None, method = "dop853", step = None,
        rtol = 1e-10, atol = 1e-12, dt = None, stabilization = true, constraint_tolerance = 1e-8,
        max_steps = 100_000))]
    #[allow(clippy::too_many_arguments)]
    fn simulate<'py>(
        &self,
        py: Python<'py>,
        t_end: f64,
        q0: Option<Vec<f64>>,
        v0: Option<Vec<f64>>,
        t0: Option<f64>,
        method: &str,
        step: Option<f64>,
        rtol: f64,
        atol: f64,
        dt: Option<f64>,
        stabilization: bool,
        constraint_tolerance: f64,
        max_steps: usize,
    ) -> PyResult<Bound<'py, PyDict>> {
        let velocity = if self.hamiltonian { "p" } else { "qd" };
        let options = motion::options(
            method,
            step,
            rtol,
            atol,
            dt,
            stabilization,
            constraint_tolerance,
            max_steps,
        )?;
        let (q0, v0, t0) = motion::start(self.initial.as_ref(), q0, v0, t0, self.hamiltonian)?;
        let model = &self.model;
        let result = py.detach(|| model.simulate(&vector(&q0), &vector(&v0), t0, t_end, &options));
        match result {
            Ok(m) => motion::motion(py, &m, velocity),
            Err(e) => Err(motion::simulation_error(py, e, velocity)),
        }
    }

    /// The derived equations: M, Q, A, b, C (or H_p, H_q, H_pp, A_p, b_p) entry by entry, as
    /// text (`str()`) and LaTeX (`.latex`, shown by Jupyter).
    fn equations(&self, py: Python<'_>) -> PyResult<Equations> {
        let (spec, base, name) = (&self.spec, &self.base, self.model.name());
        // The spec holds `syn` expressions, which stay on the thread that parses them.
        let sheets = py.detach(|| {
            let mut spec: ModelSpec =
                serde_json::from_str(spec).map_err(|e| BadInput(e.to_string()))?;
            udk_symbolic::limits::on_large_stack(|| {
                udk_symbolic::urdf::expand(&mut spec, base)?;
                udk_symbolic::derive(&spec)
            })
            .map(|d| {
                (
                    udk_symbolic::emit::equations_text(&d),
                    udk_symbolic::emit::equations_latex(&d),
                )
            })
            .map_err(|e| {
                Failed(ModelError::Derivation {
                    model: name.to_string(),
                    messages: e.to_string(),
                })
            })
        });
        let (text, latex) = sheets.map_err(|e: Built| e.into_exception())?;
        Ok(Equations { text, latex })
    }
}

/// The servo controller's convergence law from `Model.control`'s arguments, checked as the
/// command line's `--servo-gain`, `--servo-stiffness` and `--servo-damping`.
///
/// # Errors
/// `BadInputError` for a gain with a task-space gain, a gain P that is not positive and
/// finite, or a task-space gain that is negative or not finite.
fn convergence(
    gain: Option<f64>,
    stiffness: Option<f64>,
    damping: Option<f64>,
) -> PyResult<Convergence> {
    let task = stiffness.is_some() || damping.is_some();
    match (gain, task) {
        (Some(_), true) => Err(BadInputError::new_err(
            "`gain` (eq 72) and `stiffness`/`damping` (task space) are two laws: give one",
        )),
        (Some(p), false) if p > 0.0 && p.is_finite() => Ok(Convergence::Paper { p }),
        (Some(p), false) => Err(BadInputError::new_err(format!(
            "gain {p}: the gain P of eq 72 is a time constant, positive and finite"
        ))),
        (None, true) => {
            let (stiffness, damping) = (stiffness.unwrap_or(0.0), damping.unwrap_or(0.0));
            if !(stiffness >= 0.0 && damping >= 0.0 && (stiffness + damping).is_finite()) {
                return Err(BadInputError::new_err(
                    "`stiffness` and `damping` must be finite and ≥ 0",
                ));
            }
            Ok(Convergence::TaskSpace { stiffness, damping })
        }
        (None, false) => Ok(Convergence::None),
    }
}

/// The directory of `path`, "." for a bare file name.
fn directory(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// `arrays` as a dict under `names`.
fn named<'py, const K: usize>(
    py: Python<'py>,
    names: [&str; K],
    arrays: [Bound<'py, PyAny>; K],
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (name, array) in names.into_iter().zip(arrays) {
        dict.set_item(name, array)?;
    }
    Ok(dict)
}

/// A model's derived equations (`Model.equations()`): `str()` gives the text sheet of
/// `udk derive`, `latex` the LaTeX of `udk derive --latex`, which Jupyter shows.
#[pyclass(module = "udk", frozen)]
pub(crate) struct Equations {
    /// The text sheet.
    #[pyo3(get)]
    text: String,
    /// The LaTeX sheet: comment lines, then one `aligned` environment.
    #[pyo3(get)]
    latex: String,
}

#[pymethods]
impl Equations {
    fn __str__(&self) -> &str {
        &self.text
    }

    fn __repr__(&self) -> String {
        self.text.clone()
    }

    /// The equations in display math, without the comment lines, for Jupyter.
    fn _repr_latex_(&self) -> String {
        let math: Vec<&str> = (self.latex.lines())
            .filter(|line| !line.trim_start().starts_with('%'))
            .collect();
        format!("$$\n{}\n$$", math.join("\n"))
    }
}
