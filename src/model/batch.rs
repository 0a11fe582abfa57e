//! Batch evaluation: q̈ at many states, or for many parameter sets, in parallel across the
//! cores of rayon's pool, each worker with its own [`super::Workspace`].

use super::{Model, ModelError, Workspace};
use nalgebra::DMatrix;
use rayon::prelude::*;

impl Model {
    /// q̈ at many states, in parallel: column j of the answer (n × count) is
    /// [`Model::acceleration`] at (column j of `q`, column j of `qd`, `t[j]`), bit for bit,
    /// with the model's parameters and inputs. The states are shared among rayon's threads
    /// (`RAYON_NUM_THREADS`, or a pool's `install`), each reusing one workspace: no allocation
    /// per state on an unconstrained kinematic tree ([`Model::acceleration_in`]).
    ///
    /// ```
    /// let spec: udk::ModelSpec = toml::from_str(r#"
    ///     name = "Pendulum"
    ///     coordinates = ["theta"]
    ///     parameters = [{ name = "g", value = 9.81 }]
    ///     lagrangian = "0.5 * dot(theta).powi(2) + g * theta.cos()"
    /// "#).unwrap();
    /// let model = udk::Model::from_spec(spec, std::path::Path::new(".")).unwrap();
    /// let q = udk::nalgebra::DMatrix::from_row_slice(1, 3, &[0.1, 0.2, 0.3]);
    /// let qd = udk::nalgebra::DMatrix::zeros(1, 3);
    /// let qdd = model.acceleration_batch(&q, &qd, &[0.0; 3]).unwrap();
    /// assert_eq!(qdd[(0, 2)], -9.81 * 0.3f64.sin());
    /// ```
    ///
    /// # Errors
    /// [`ModelError::Shape`] unless `q` and `qd` are n × count with count = `t.len()`;
    /// [`ModelError::WrongKind`], [`ModelError::MissingParameter`];
    /// [`ModelError::Batch`] with the lowest index of a state whose q̈ fails.
    pub fn acceleration_batch(
        &self,
        q: &DMatrix<f64>,
        qd: &DMatrix<f64>,
        t: &[f64],
    ) -> Result<DMatrix<f64>, ModelError> {
        self.batch(q, qd, t, None)
    }

    /// q̈ for many parameter sets, in parallel: column j of the answer (n × count) is
    /// [`Model::acceleration`] at (column j of `q`, column j of `qd`, `t[j]`) with the
    /// parameters of column j of `parameters` (p × count, in the order of
    /// [`Model::parameters`]), bit for bit. Threads and workspaces as
    /// [`Model::acceleration_batch`].
    ///
    /// # Errors
    /// As [`Model::acceleration_batch`] (no `MissingParameter`: every value is given), and
    /// [`ModelError::Shape`] unless `parameters` is p × count.
    pub fn acceleration_batch_parameters(
        &self,
        q: &DMatrix<f64>,
        qd: &DMatrix<f64>,
        t: &[f64],
        parameters: &DMatrix<f64>,
    ) -> Result<DMatrix<f64>, ModelError> {
        self.batch(q, qd, t, Some(parameters))
    }

    fn batch(
        &self,
        q: &DMatrix<f64>,
        qd: &DMatrix<f64>,
        t: &[f64],
        parameters: Option<&DMatrix<f64>>,
    ) -> Result<DMatrix<f64>, ModelError> {
        let (n, count) = (self.n(), t.len());
        let p = self.parameters().len();
        let shapes = [("q", q.shape(), n), ("qd", qd.shape(), n)];
        let given = parameters.map(|m| ("parameters", m.shape(), p));
        for (what, given, rows) in shapes.into_iter().chain(given) {
            if given != (rows, count) {
                return Err(ModelError::Shape {
                    what,
                    expected: (rows, count),
                    given,
                    model: self.name().to_string(),
                });
            }
        }
        let mut qdd = DMatrix::zeros(n, count);
        let parameters = parameters.map(DMatrix::as_slice);
        (self.batch_into(
            q.as_slice(),
            qd.as_slice(),
            t,
            parameters,
            qdd.as_mut_slice(),
        ))?;
        Ok(qdd)
    }

    /// How many states one call of the compiled code evaluates in a batch: 2 once the code
    /// for pairs of states is compiled, else 1.
    ///
    /// The batches of a kinematic tree without constraints (the articulated-body program,
    /// JIT-compiled) move to code that evaluates two states per call, in the two lanes of
    /// 128-bit vectors, once they have asked for `udk_jit::PAIRS_AFTER` (50 000) states in
    /// all: the batch call that reaches it compiles that code first, in about as long as the
    /// faster tier of the JIT takes (a few ms for a 6-joint arm). The results are the same bit
    /// for bit (`udk_jit::JitPair`); the time per state fell by 31 % on the UR5
    /// (`guide/jit.md`, "Batch evaluation"). Other models, and the tape, stay at 1.
    ///
    /// # Errors
    /// [`ModelError::WrongKind`] for a Hamiltonian model.
    pub fn batch_lanes(&self) -> Result<usize, ModelError> {
        self.kind(false)?;
        Ok(if self.pair(0)?.is_some() { 2 } else { 1 })
    }

    /// [`Model::acceleration_batch`], or with `parameters` [`Model::acceleration_batch_parameters`],
    /// on slices and into `qdd`, for a caller that holds its own arrays (numpy's): `q`, `qd`
    /// and `qdd` hold count states of n entries one after the other (n × count column-major,
    /// which is states × n row-major), `parameters` count rows of p. `t` holds one time per
    /// state (count = `t.len()`), or a single time that every state shares (count = `q.len()`
    /// / n, for n > 0). Bit for bit as [`Model::acceleration`] at each state; nothing is
    /// allocated for the answer, nor per state on an unconstrained kinematic tree.
    ///
    /// ```
    /// let spec: udk::ModelSpec = toml::from_str(r#"
    ///     name = "Pendulum"
    ///     coordinates = ["theta"]
    ///     parameters = [{ name = "g", value = 9.81 }]
    ///     lagrangian = "0.5 * dot(theta).powi(2) + g * theta.cos()"
    /// "#).unwrap();
    /// let model = udk::Model::from_spec(spec, std::path::Path::new(".")).unwrap();
    /// let (q, qd, t) = ([0.1, 0.2, 0.3], [0.0; 3], [0.0; 3]);
    /// let mut qdd = [0.0; 3];
    /// model.acceleration_batch_into(&q, &qd, &t, None, &mut qdd).unwrap();
    /// assert_eq!(qdd[2], -9.81 * 0.3f64.sin());
    /// // One time shared by the three states: the same q̈.
    /// let mut shared = [0.0; 3];
    /// model.acceleration_batch_into(&q, &qd, &[0.0], None, &mut shared).unwrap();
    /// assert_eq!(shared, qdd);
    /// assert!(model.acceleration_batch_into(&q, &qd, &t, None, &mut [0.0; 2]).is_err());
    /// ```
    ///
    /// # Errors
    /// [`ModelError::Length`] unless `q`, `qd` and `qdd` have n · count entries and
    /// `parameters` p · count (with one shared time, count is `q.len()` / n rounded down);
    /// otherwise as [`Model::acceleration_batch_parameters`].
    pub fn acceleration_batch_into(
        &self,
        q: &[f64],
        qd: &[f64],
        t: &[f64],
        parameters: Option<&[f64]>,
        qdd: &mut [f64],
    ) -> Result<(), ModelError> {
        let n = self.n();
        let count = match t.len() {
            1 if n > 0 => q.len() / n,
            count => count,
        };
        let p = self.parameters().len();
        let lengths = [
            ("q", q.len(), n),
            ("qd", qd.len(), n),
            ("qdd", qdd.len(), n),
        ];
        let given = parameters.map(|v| ("parameters", v.len(), p));
        for (what, given, rows) in lengths.into_iter().chain(given) {
            self.check(what, rows.saturating_mul(count), given)?;
        }
        self.batch_into(q, qd, t, parameters, qdd)
    }

    /// The parallel loop of the batches, on slices of checked lengths: `t` holds one time per
    /// state, or one that every state shares.
    fn batch_into(
        &self,
        q: &[f64],
        qd: &[f64],
        t: &[f64],
        parameters: Option<&[f64]>,
        qdd: &mut [f64],
    ) -> Result<(), ModelError> {
        let (n, p) = (self.n(), self.parameters().len());
        let mut template = self.workspace()?;
        if parameters.is_none() {
            self.parameter_values_into(&mut template.params)?;
        }
        if n == 0 {
            return Ok(());
        }
        let shared = t.len() == 1;
        let time = |j: usize| if shared { t[0] } else { t[j] };
        // State j alone, with the parameter values of column j when they are given.
        let one = |workspace: &mut Workspace, j: usize, out: &mut [f64]| {
            if let Some(parameters) = parameters {
                workspace.params.copy_from_slice(column(parameters, j, p));
            }
            let (q, qd) = (column(q, j, n), column(qd, j, n));
            (self.solve(workspace, q, qd, time(j), out, None)).map_err(|e| (j, e))
        };
        let failed = match self.pair(qdd.len() / n)? {
            None => (qdd.par_chunks_mut(n).enumerate())
                .map_init(
                    || template.clone(),
                    |workspace, (j, out)| one(workspace, j, out),
                )
                .filter_map(Result::err)
                .min_by_key(|(j, _)| *j),
            // Two states per call of the pair code, bit for bit as one each.
            Some(pair) => (qdd.par_chunks_mut(2 * n).enumerate())
                .map_init(
                    || (template.clone(), pair.buffers()),
                    |(workspace, buffers), (k, out)| {
                        let j = 2 * k;
                        if out.len() == n {
                            // The last state of an odd count.
                            return one(workspace, j, out);
                        }
                        let columns = |m, rows| [column(m, j, rows), column(m, j + 1, rows)];
                        let values = match parameters {
                            Some(parameters) => columns(parameters, p),
                            None => [&template.params[..]; 2],
                        };
                        let states = [columns(q, n), columns(qd, n)];
                        let (first, second) = out.split_at_mut(n);
                        let times = [time(j), time(j + 1)];
                        (self.solve_pair(
                            pair,
                            buffers,
                            workspace,
                            states,
                            times,
                            values,
                            [first, second],
                        ))
                        .map_err(|(s, e)| (j + s, e))
                    },
                )
                .filter_map(Result::err)
                .min_by_key(|(j, _)| *j),
        };
        match failed {
            None => Ok(()),
            Some((index, source)) => Err(ModelError::Batch {
                index,
                source: Box::new(source),
            }),
        }
    }
}

/// Column j of `m`, column-major with `rows` rows.
fn column(m: &[f64], j: usize, rows: usize) -> &[f64] {
    &m[j * rows..(j + 1) * rows]
}
