//! One state or a batch of states from numpy arrays, evaluated into numpy arrays: a batch in
//! parallel (rayon) with the GIL released, each state by the same function as a single call,
//! so that the results agree bit for bit.

use crate::model::{exception, Model};
use crate::BadInputError;
use numpy::ndarray::IxDyn;
use numpy::{AllowTypeChange, PyArrayLikeDyn, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::prelude::*;
use rayon::prelude::*;
use udk::ModelError;

/// The shape of one state's block of a result: `[n]` for a vector, `[rows, cols]` for a
/// matrix (row-major, as numpy).
pub(crate) struct Block(Vec<usize>);

impl Block {
    pub(crate) fn vector(n: usize) -> Self {
        Block(vec![n])
    }

    pub(crate) fn matrix(rows: usize, cols: usize) -> Self {
        Block(vec![rows, cols])
    }

    fn len(&self) -> usize {
        self.0.iter().product()
    }
}

/// States (t, q, v) read from Python: one (1-D arrays) or a batch (2-D arrays, states × n),
/// q and v borrowed from numpy (copied only when not already contiguous aligned f64).
pub(crate) struct States<'a, 'py> {
    model: &'a udk::Model,
    /// q, row after row.
    q: Numbers<'py>,
    /// q̇ or p, row after row.
    v: Numbers<'py>,
    /// t: one value for every state (`None` for 0), or one per state.
    t: Option<Numbers<'py>>,
    /// Number of states of a batch; `None` for one state.
    count: Option<usize>,
}

/// `x` as a vector.
pub(crate) fn vector(x: &[f64]) -> nalgebra::DVector<f64> {
    nalgebra::DVector::from_column_slice(x)
}

/// A numpy array of f64, borrowed read-only.
type Numbers<'py> = PyArrayLikeDyn<'py, f64, AllowTypeChange>;

/// An array argument `what`, contiguous and aligned: an array that is already so is borrowed,
/// one that is not (as unpickled from out-of-band buffers: Dask's, or a strided view) is
/// copied by numpy first.
fn array<'py>(what: &str, x: &Bound<'py, PyAny>) -> PyResult<Numbers<'py>> {
    let array = numbers(what, x)?;
    if array.is_contiguous() && array.data().is_aligned() {
        return Ok(array);
    }
    let numpy = x.py().import("numpy")?;
    let copy = numpy.call_method1("array", ((**array).as_any(), numpy.getattr("float64")?))?;
    numbers(what, &copy)
}

/// The entries of an array made by [`array`], in row-major order.
fn entries<'a>(array: &'a Numbers<'_>) -> &'a [f64] {
    array.as_slice().expect("an aligned contiguous array")
}

/// `x` as an array of f64, converted by numpy from any array-like of numbers.
fn numbers<'py>(what: &str, x: &Bound<'py, PyAny>) -> PyResult<Numbers<'py>> {
    x.extract()
        .map_err(|e| BadInputError::new_err(format!("`{what}` is not an array of numbers: {e}")))
}

impl<'a, 'py> States<'a, 'py> {
    /// Reads q, v (named `second`: `qd` or `p`) and t (None for 0, a number, or one per
    /// state of a batch), checking the shapes against the model.
    ///
    /// # Errors
    /// `BadInputError` for an array of the wrong shape, with the model's message.
    pub(crate) fn read(
        model: &'a Model,
        q: &Bound<'py, PyAny>,
        v: &Bound<'py, PyAny>,
        t: Option<&Bound<'py, PyAny>>,
        second: &'static str,
    ) -> PyResult<Self> {
        let m = &model.model;
        let n = m.n();
        let check = |what: &'static str, given: usize| match given == n {
            true => Ok(()),
            false => Err(exception(ModelError::Length {
                what,
                expected: n,
                given,
                model: m.name().to_string(),
            })),
        };
        let (q, v) = (array("q", q)?, array(second, v)?);
        let (q_shape, v_shape) = (q.shape(), v.shape());
        let count = match (q_shape, v_shape) {
            ([qn], [vn]) => {
                check("q", *qn)?;
                check(second, *vn)?;
                None
            }
            ([rows, qn], [v_rows, vn]) => {
                check("q", *qn)?;
                check(second, *vn)?;
                if rows != v_rows {
                    return Err(BadInputError::new_err(format!(
                        "`q` has {rows} states (rows) but `{second}` has {v_rows}"
                    )));
                }
                Some(*rows)
            }
            _ => {
                return Err(BadInputError::new_err(format!(
                    "`q` and `{second}` must both be 1-D arrays of n = {n} entries or both \
                     2-D arrays of states × {n}, not of shapes {q_shape:?} and {v_shape:?}"
                )))
            }
        };
        let t = match t {
            None => None,
            Some(t) => {
                let t = array("t", t)?;
                let shape = t.shape();
                let fits = match (shape, count) {
                    ([], _) => true,
                    ([rows], Some(count)) => *rows == count,
                    _ => false,
                };
                if !fits {
                    return Err(BadInputError::new_err(format!(
                        "`t` must be a number{}, not of shape {shape:?}",
                        match count {
                            Some(count) => format!(" or a 1-D array of the {count} states' times"),
                            None => String::new(),
                        }
                    )));
                }
                Some(t)
            }
        };
        Ok(States {
            model: m,
            q,
            v,
            t,
            count,
        })
    }

    /// The times: one shared by every state, or one per state of a batch.
    fn times(&self) -> &[f64] {
        self.t.as_ref().map_or(&[0.0], entries)
    }

    /// q̈ at every state: [`udk::Model::acceleration`] for one,
    /// [`udk::Model::acceleration_batch_into`] for a batch (rayon, one workspace per thread, no
    /// allocation per state on an unconstrained tree), with the GIL released, reading numpy's
    /// arrays in place and writing into the answer's; bit for bit the same. With `parameters`
    /// (states × p, in the order of the model's parameters), state i takes row i's values.
    ///
    /// # Errors
    /// The exception of the model's error (of the lowest failing state of a batch);
    /// `BadInputError` for `parameters` with one state or of the wrong shape.
    pub(crate) fn acceleration(
        &self,
        py: Python<'py>,
        parameters: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let n = self.model.n();
        let parameters = match (parameters, self.count) {
            (None, _) => None,
            (Some(_), None) => {
                return Err(BadInputError::new_err(
                    "`parameters` (states × p) goes with a batch of states: set the values of \
                     one state with `set_parameters`",
                ))
            }
            (Some(values), Some(count)) => {
                let values = array("parameters", values)?;
                let (shape, p) = (values.shape(), self.model.parameters().len());
                if shape != [count, p] {
                    return Err(exception(ModelError::Shape {
                        what: "parameters",
                        expected: (count, p),
                        given: (
                            shape.first().copied().unwrap_or(1),
                            shape.get(1).copied().unwrap_or(1),
                        ),
                        model: self.model.name().to_string(),
                    }));
                }
                Some(values)
            }
        };
        let Some(count) = self.count else {
            return self.vector(py, n, udk::Model::acceleration);
        };
        // Row-major states × n (and states × p) is column-major n × states: the model's
        // layout. q̈ is written straight into the answer.
        let qdd = numpy::PyArray2::<f64>::zeros(py, [count, n], false);
        {
            let mut out = qdd.readwrite();
            let out = out.as_slice_mut().expect("a new contiguous array");
            let (q, qd) = (entries(&self.q), entries(&self.v));
            let parameters = parameters.as_ref().map(entries);
            let (model, t) = (self.model, self.times());
            // One t shared by every state is passed once, not repeated per state.
            py.detach(|| model.acceleration_batch_into(q, qd, t, parameters, out))
                .map_err(exception)?;
        }
        Ok(qdd.into_any())
    }

    /// Evaluates `f`, a function of the model at (q, v, t) into a vector of `width` entries
    /// (`udk::Model::constraint_force`, ...), at every state: one array of `width` entries,
    /// or states × `width` for a batch. As [`States::evaluate`] with one block.
    ///
    /// # Errors
    /// As [`States::evaluate`].
    pub(crate) fn vector<F>(
        &self,
        py: Python<'py>,
        width: usize,
        f: F,
    ) -> PyResult<Bound<'py, PyAny>>
    where
        F: Fn(
                &udk::Model,
                &nalgebra::DVector<f64>,
                &nalgebra::DVector<f64>,
                f64,
            ) -> Result<nalgebra::DVector<f64>, ModelError>
            + Sync,
    {
        let [values] = self.evaluate(py, [Block::vector(width)], |model, q, v, t, [out]| {
            out.copy_from_slice(f(model, &vector(q), &vector(v), t)?.as_slice());
            Ok(())
        })?;
        Ok(values)
    }

    /// Evaluates `f` at every state into `K` blocks of the shapes `blocks`, returned as
    /// numpy arrays (with a leading axis of states for a batch). `f` gets the model, q, v, t
    /// and the blocks of its state to fill.
    ///
    /// # Errors
    /// The exception of `f`'s error at the first state that fails (by index), its message
    /// prefixed by the state's index in a batch.
    pub(crate) fn evaluate<const K: usize, F>(
        &self,
        py: Python<'py>,
        blocks: [Block; K],
        f: F,
    ) -> PyResult<[Bound<'py, PyAny>; K]>
    where
        F: Fn(&udk::Model, &[f64], &[f64], f64, [&mut [f64]; K]) -> Result<(), ModelError> + Sync,
    {
        let (n, model, times) = (self.model.n(), self.model, self.times());
        let (q, v) = (entries(&self.q), entries(&self.v));
        let lengths: [usize; K] = std::array::from_fn(|k| blocks[k].len());
        // One row per state holding its K blocks (at least one entry, for chunking).
        let width = lengths.iter().sum::<usize>().max(1);
        let count = self.count.unwrap_or(1);
        let mut rows = vec![0.0; count * width];
        let state = |i: usize, row: &mut [f64]| {
            let t = times[if times.len() == 1 { 0 } else { i }];
            let (q, v) = (&q[i * n..(i + 1) * n], &v[i * n..(i + 1) * n]);
            let mut rest = row;
            let parts: [&mut [f64]; K] = std::array::from_fn(|k| {
                let (part, tail) = std::mem::take(&mut rest).split_at_mut(lengths[k]);
                rest = tail;
                part
            });
            f(model, q, v, t, parts)
        };
        match self.count {
            None => state(0, &mut rows).map_err(exception)?,
            Some(_) => {
                let failed = py.detach(|| {
                    (rows.par_chunks_mut(width).enumerate())
                        .filter_map(|(i, row)| state(i, row).err().map(|e| (i, e)))
                        .min_by_key(|(i, _)| *i)
                });
                if let Some((index, e)) = failed {
                    return Err(exception(ModelError::Batch {
                        index,
                        source: Box::new(e),
                    }));
                }
            }
        }
        let mut offset = 0;
        let mut arrays = Vec::with_capacity(K);
        for block in blocks {
            let length = block.len();
            let values: Vec<f64> = (rows.chunks(width))
                .flat_map(|row| &row[offset..offset + length])
                .copied()
                .collect();
            offset += length;
            let shape: Vec<usize> = match self.count {
                Some(count) => [&[count][..], &block.0].concat(),
                None => block.0,
            };
            let array = numpy::PyArray1::from_vec(py, values);
            arrays.push(match shape.len() {
                // A vector of one state is already of its shape.
                1 => array.into_any(),
                _ => array.reshape(IxDyn(&shape))?.into_any(),
            });
        }
        Ok(arrays.try_into().expect("one array per block"))
    }
}
