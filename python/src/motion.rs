//! The results of `Model.linearize` and `Model.simulate` as dicts of numpy arrays, and the
//! simulator's options from keyword arguments.

use crate::model::exception;
use crate::BadInputError;
use nalgebra::DMatrix;
use numpy::{PyArray1, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::{PyComplex, PyDict, PyList};
use udk::model::Motion;
use udk::runtime::linearize::Linearization;
use udk::runtime::simulate::{Method, OutputTimes, SimulationOptions};
use udk::ModelError;
use udk_symbolic::InitialState;

/// `values` (row-major) as a numpy array of `shape`.
pub(crate) fn numpy_array<'py>(
    py: Python<'py>,
    values: Vec<f64>,
    shape: &[usize],
) -> PyResult<Bound<'py, PyAny>> {
    Ok(PyArray1::from_vec(py, values)
        .reshape(shape.to_vec())?
        .into_any())
}

/// `matrix` as a 2-D numpy array.
pub(crate) fn numpy_matrix<'py>(
    py: Python<'py>,
    matrix: &DMatrix<f64>,
) -> PyResult<Bound<'py, PyAny>> {
    numpy_array(
        py,
        matrix.transpose().as_slice().to_vec(),
        &[matrix.nrows(), matrix.ncols()],
    )
}

/// A linearization as a dict: `A`, `B` (A_ss, B_ss), `eigenvalues` (complex, sorted by real
/// part, then imaginary part), and the partition of the coordinates and velocities.
pub(crate) fn linearization<'py>(
    py: Python<'py>,
    linear: &Linearization,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item("A", numpy_matrix(py, &linear.a)?)?;
    dict.set_item("B", numpy_matrix(py, &linear.b)?)?;
    let eigenvalues: Vec<Bound<'py, PyComplex>> = (linear.eigenvalues.iter())
        .map(|e| PyComplex::from_doubles(py, e.re, e.im))
        .collect();
    let numpy = py.import("numpy")?;
    dict.set_item(
        "eigenvalues",
        numpy.call_method1("array", (eigenvalues, "complex128"))?,
    )?;
    let (c, v) = (&linear.coordinates, &linear.velocities);
    dict.set_item("independent", c.independent.clone())?;
    dict.set_item("dependent", c.dependent.clone())?;
    dict.set_item("held", c.held.clone())?;
    dict.set_item("independent_velocities", v.independent.clone())?;
    dict.set_item("dependent_velocities", v.dependent.clone())?;
    dict.set_item("held_velocities", v.held.clone())?;
    Ok(dict)
}

/// A simulated motion as a dict: `t` (samples), `q` and `qd` (or `p`) (samples × n),
/// `energy`, `position_residual`, `velocity_residual` (samples), `outputs` (samples ×
/// columns), `output_columns`, `events` (the event log: one dict per event with `t`, `name`,
/// `q_before`, `qd_before`, `q_after`, `qd_after`; empty without events or contacts), and
/// `summary`: steps, rejected steps, right-hand sides,
/// final time, largest residuals and the energy drift.
pub(crate) fn motion<'py>(
    py: Python<'py>,
    motion: &Motion,
    velocity: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    let samples = motion.t.len();
    // n (NV for v on a floating base) × samples, column-major, is samples × n row-major.
    let (n, nv) = (motion.q.nrows(), motion.v.nrows());
    dict.set_item("t", numpy_array(py, motion.t.clone(), &[samples])?)?;
    dict.set_item(
        "q",
        numpy_array(py, motion.q.as_slice().to_vec(), &[samples, n])?,
    )?;
    dict.set_item(
        velocity,
        numpy_array(py, motion.v.as_slice().to_vec(), &[samples, nv])?,
    )?;
    dict.set_item(
        "energy",
        numpy_array(py, motion.energy.clone(), &[samples])?,
    )?;
    let residuals = [
        ("position_residual", &motion.position_residual),
        ("velocity_residual", &motion.velocity_residual),
    ];
    for (name, values) in residuals {
        dict.set_item(name, numpy_array(py, values.clone(), &[samples])?)?;
    }
    let columns = &motion.outputs.columns;
    let outputs = motion.outputs.values.clone();
    dict.set_item(
        "outputs",
        numpy_array(py, outputs, &[samples, columns.len()])?,
    )?;
    dict.set_item("output_columns", columns.clone())?;
    let events = PyList::empty(py);
    for event in &motion.events {
        let record = PyDict::new(py);
        record.set_item("t", event.t)?;
        record.set_item("name", &event.name)?;
        let states = [
            ("q_before".to_string(), &event.q_before),
            (format!("{velocity}_before"), &event.v_before),
            ("q_after".to_string(), &event.q_after),
            (format!("{velocity}_after"), &event.v_after),
        ];
        for (key, x) in states {
            record.set_item(key, numpy_array(py, x.as_slice().to_vec(), &[x.len()])?)?;
        }
        events.append(record)?;
    }
    dict.set_item("events", events)?;
    let summary = PyDict::new(py);
    let largest = |values: &[f64]| values.iter().fold(0.0f64, |a, &b| a.max(b));
    summary.set_item("steps", motion.stats.accepted_steps)?;
    summary.set_item("rejected_steps", motion.stats.rejected_steps)?;
    summary.set_item("rhs_evaluations", motion.stats.rhs_evaluations)?;
    summary.set_item("final_time", motion.t.last().copied())?;
    summary.set_item("max_position_residual", largest(&motion.position_residual))?;
    summary.set_item("max_velocity_residual", largest(&motion.velocity_residual))?;
    summary.set_item("energy_drift", motion.energy_drift())?;
    dict.set_item("summary", summary)?;
    Ok(dict)
}

/// The exception of a failed simulation: as [`exception`], with the attributes `time` (where
/// the run stopped, None if it did not start) and `motion` (the motion up to then, as
/// [`motion`], or None).
pub(crate) fn simulation_error(py: Python<'_>, e: ModelError, velocity: &str) -> PyErr {
    let ModelError::Simulation {
        time,
        motion: partial,
        ..
    } = &e
    else {
        return exception(e);
    };
    let (time, partial) = (*time, partial.clone());
    let error = exception(e);
    let value = error.value(py);
    let recorded = partial.map(|m| motion(py, &m, velocity)).transpose();
    let set = recorded.and_then(|recorded| {
        value.setattr("time", time)?;
        value.setattr("motion", recorded)
    });
    match set {
        Ok(()) => error,
        Err(e) => e,
    }
}

/// The start (q0, v0, t0) of a simulation: each as given, or else from the model's `[initial]`
/// table (v0 from its `qd0`, or `p0` for a Hamiltonian model), t0 = 0 when neither gives it.
/// An empty list in the table counts as not given.
///
/// # Errors
/// `BadInputError` naming q0 or v0 when neither the call nor the table gives it.
pub(crate) fn start(
    initial: Option<&InitialState>,
    q0: Option<Vec<f64>>,
    v0: Option<Vec<f64>>,
    t0: Option<f64>,
    hamiltonian: bool,
) -> PyResult<(Vec<f64>, Vec<f64>, f64)> {
    let given = |value: Option<Vec<f64>>, argument: &str, entry: &str, table: Option<&[f64]>| {
        value
            .or_else(|| table.filter(|x| !x.is_empty()).map(<[f64]>::to_vec))
            .ok_or_else(|| {
                BadInputError::new_err(format!(
                    "no `{argument}`: give it, or an [initial] table with {entry} in the model"
                ))
            })
    };
    let q0 = given(q0, "q0", "q0", initial.map(|i| i.q0.as_slice()))?;
    let v0 = match hamiltonian {
        true => given(v0, "v0", "p0", initial.map(|i| i.p0.as_slice()))?,
        false => given(v0, "v0", "qd0", initial.map(|i| i.qd0.as_slice()))?,
    };
    Ok((q0, v0, t0.or(initial.map(|i| i.t0)).unwrap_or(0.0)))
}

/// The simulator's options: `method` ("dop853", "dopri5", "rk4" with `step`, "radau5",
/// "bdf"), tolerances, output every `dt` (at every step when None), Baumgarte stabilization
/// on or off, the start's constraint tolerance and the step limit.
///
/// # Errors
/// `BadInputError` for an unknown method or "rk4" without `step`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn options(
    method: &str,
    step: Option<f64>,
    rtol: f64,
    atol: f64,
    dt: Option<f64>,
    stabilization: bool,
    constraint_tolerance: f64,
    max_steps: usize,
) -> PyResult<SimulationOptions> {
    let method = match (method, step) {
        ("dop853", _) => Method::Dop853,
        ("dopri5", _) => Method::Dopri5,
        ("rk4", Some(step)) => Method::Rk4 { step },
        ("rk4", None) => {
            return Err(BadInputError::new_err(
                "method \"rk4\" needs `step`, the fixed step (s)",
            ))
        }
        ("radau5", _) => Method::Radau5,
        ("bdf", _) => Method::Bdf,
        (other, _) => {
            return Err(BadInputError::new_err(format!(
                "unknown method \"{other}\": dop853, dopri5, rk4, radau5 or bdf"
            )))
        }
    };
    let defaults = SimulationOptions::default();
    Ok(SimulationOptions {
        method,
        rtol,
        atol,
        output: dt.map_or(OutputTimes::Steps, OutputTimes::Every),
        stabilization: if stabilization {
            defaults.stabilization
        } else {
            None
        },
        constraint_tolerance,
        max_steps,
        ..defaults
    })
}
