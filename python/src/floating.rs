//! `udk.FloatingBaseModel`: a URDF robot on a free-flying base ([`udk::model::FreeFlyerModel`]),
//! in Pinocchio's `JointModelFreeFlyer` layout, as `Model.from_urdf(path, floating_base=True)`
//! returns it.

use crate::BadInputError;
use numpy::{PyArray1, PyArray2};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::{Path, PathBuf};
use udk::model::{FreeFlyerModel, FreeFlyerModelError};
use udk_symbolic::InitialState;

/// The exception of a failed evaluation: BadInputError (a wrong length, a zero quaternion,
/// a non-finite entry), MotionError where M is singular.
fn exception(e: FreeFlyerModelError) -> PyErr {
    match &e {
        FreeFlyerModelError::State(udk::runtime::free_flyer::FreeFlyerError::NotDetermined) => {
            crate::MotionError::new_err(e.to_string())
        }
        _ => BadInputError::new_err(e.to_string()),
    }
}

/// A URDF robot on a floating base, in Pinocchio's `JointModelFreeFlyer` layout: q has
/// NQ = 7 + n entries (base position in the world frame, then its orientation as a unit
/// quaternion x, y, z, w, then the joints), v has NV = 6 + n (the base's linear and angular
/// velocity in its own frame, then the joint rates). Its functions are Pinocchio's `aba`
/// (`acceleration`), `crba` (`mass_matrix`), `rnea` (`inverse_dynamics`) and `integrate`.
#[pyclass(module = "udk", name = "FloatingBaseModel", frozen)]
pub(crate) struct FloatingBaseModel {
    model: FreeFlyerModel,
    /// The model file's `[initial]` state, the default start of `simulate`.
    initial: Option<InitialState>,
}

impl FloatingBaseModel {
    /// The robot of the URDF file `path` with `gravity` (m/s², world frame).
    pub(crate) fn from_urdf(py: Python<'_>, path: PathBuf, gravity: [f64; 3]) -> PyResult<Self> {
        let model = py
            .detach(|| FreeFlyerModel::from_urdf(&path, gravity))
            .map_err(crate::model::exception)?;
        Ok(FloatingBaseModel {
            model,
            initial: None,
        })
    }

    /// The robot of the model file `path` (its spec already read: `initial`).
    pub(crate) fn from_file(
        py: Python<'_>,
        path: &Path,
        initial: Option<InitialState>,
    ) -> PyResult<Self> {
        let model = py
            .detach(|| FreeFlyerModel::from_file(path))
            .map_err(crate::model::exception)?;
        Ok(FloatingBaseModel { model, initial })
    }
}

#[pymethods]
impl FloatingBaseModel {
    /// NQ = 7 + n, the entries of q.
    #[getter]
    fn nq(&self) -> usize {
        self.model.nq()
    }

    /// NV = 6 + n, the entries of v.
    #[getter]
    fn nv(&self) -> usize {
        self.model.nv()
    }

    /// The names of q's entries: `base_x` … `base_qw`, then the joints.
    #[getter]
    fn coordinates(&self) -> Vec<String> {
        self.model.coordinate_names().to_vec()
    }

    /// The names of v's entries: `base_vx` … `base_wz`, then the joints.
    #[getter]
    fn velocities(&self) -> Vec<String> {
        self.model.velocity_names().to_vec()
    }

    /// v̇ (NV entries) at q (NQ), v (NV) under the joint efforts `tau` (n entries, zero when
    /// None): Pinocchio's `aba`.
    ///
    /// Raises BadInputError for a wrong length, a zero quaternion or a non-finite entry,
    /// MotionError where M is singular.
    #[pyo3(signature = (q, v, tau = None))]
    fn acceleration<'py>(
        &self,
        py: Python<'py>,
        q: Vec<f64>,
        v: Vec<f64>,
        tau: Option<Vec<f64>>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let tau = tau.unwrap_or_else(|| vec![0.0; self.model.nv().saturating_sub(6)]);
        let a = (self.model.acceleration(&q, &v, &tau)).map_err(exception)?;
        Ok(PyArray1::from_vec(py, a))
    }

    /// M(q), NV × NV: Pinocchio's `crba` (both triangles).
    ///
    /// Raises as `acceleration`.
    fn mass_matrix<'py>(
        &self,
        py: Python<'py>,
        q: Vec<f64>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let nv = self.model.nv();
        let m = self.model.mass_matrix(&q).map_err(exception)?;
        let rows: Vec<Vec<f64>> = m.chunks(nv).map(<[f64]>::to_vec).collect();
        Ok(PyArray2::from_vec2(py, &rows)?)
    }

    /// M(q) a + h(q, v), NV entries (the base wrench in its frame, then the joint efforts):
    /// Pinocchio's `rnea`.
    ///
    /// Raises as `acceleration`.
    fn inverse_dynamics<'py>(
        &self,
        py: Python<'py>,
        q: Vec<f64>,
        v: Vec<f64>,
        a: Vec<f64>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let tau = (self.model.inverse_dynamics(&q, &v, &a)).map_err(exception)?;
        Ok(PyArray1::from_vec(py, tau))
    }

    /// q ⊕ v dt (NQ entries): the base moved by the twist v dt on SE(3), the joints by
    /// v dt: Pinocchio's `integrate(model, q, v * dt)`.
    ///
    /// Raises BadInputError for a wrong length, a zero quaternion or a non-finite entry.
    fn integrate<'py>(
        &self,
        py: Python<'py>,
        q: Vec<f64>,
        v: Vec<f64>,
        dt: f64,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let next = (self.model.integrate(&q, &v, dt))
            .map_err(|e| BadInputError::new_err(e.to_string()))?;
        Ok(PyArray1::from_vec(py, next))
    }

    /// The names of the link points (the file's `outputs`, then its contacts' points).
    #[getter]
    fn points(&self) -> Vec<String> {
        self.model.point_names().to_vec()
    }

    /// The names of the ground contacts (the file's `[[contacts]]`).
    #[getter]
    fn contacts(&self) -> Vec<String> {
        self.model.contact_names().to_vec()
    }

    /// Simulates the robot from (q0, v0) at t0 to t_end under the joint efforts `tau` (n
    /// entries, held; zeros when None), with the model file's ground contacts (touchdowns,
    /// lift-off, stick and slip as events), the GIL released; q0, v0 and t0 default to the
    /// file's `initial`. `method`, `step`, `rtol`, `atol`, `dt`, `constraint_tolerance` and
    /// `max_steps` are `Model.simulate`'s.
    ///
    /// Returns `Model.simulate`'s dict with `v` (samples × NV) for the velocities: its
    /// `outputs` are the link points' positions (`FL.x`, ...) and the contact forces by name
    /// (`FL.normal`, `FL.tangent` along x, `FL.lateral` along y, N; 0 while open), and
    /// `events` the contacts' events.
    ///
    /// Raises BadInputError for a missing or wrong-length start, bad options, a quaternion
    /// off unit norm; MotionError when the run stops, with `time` and `motion`.
    #[pyo3(signature = (t_end, q0 = None, v0 = None, tau = None, t0 = None, method = "dop853",
        step = None, rtol = 1e-10, atol = 1e-12, dt = None, constraint_tolerance = 1e-8,
        max_steps = 100_000))]
    #[allow(clippy::too_many_arguments)]
    fn simulate<'py>(
        &self,
        py: Python<'py>,
        t_end: f64,
        q0: Option<Vec<f64>>,
        v0: Option<Vec<f64>>,
        tau: Option<Vec<f64>>,
        t0: Option<f64>,
        method: &str,
        step: Option<f64>,
        rtol: f64,
        atol: f64,
        dt: Option<f64>,
        constraint_tolerance: f64,
        max_steps: usize,
    ) -> PyResult<Bound<'py, PyDict>> {
        let options = crate::motion::options(
            method,
            step,
            rtol,
            atol,
            dt,
            false,
            constraint_tolerance,
            max_steps,
        )?;
        let (q0, v0, t0) = crate::motion::start(self.initial.as_ref(), q0, v0, t0, false)?;
        let tau = tau.unwrap_or_else(|| vec![0.0; self.model.nv().saturating_sub(6)]);
        let model = &self.model;
        let result = py.detach(|| model.simulate(&q0, &v0, &tau, (t0, t_end), &options));
        match result {
            Ok(m) => crate::motion::motion(py, &m, "v"),
            Err(e) => Err(crate::motion::simulation_error(py, e, "v")),
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "udk.FloatingBaseModel(nq={}, nv={})",
            self.model.nq(),
            self.model.nv()
        )
    }
}
