//! The motion of a [`Model`]: [`System`], the model with its parameters fixed as the
//! simulator's dynamic-size system, and [`Model::simulate`] on the udk-runtime simulator.

use super::{Model, ModelError};
use nalgebra::{DMatrix, DVector, SVector};
use std::ops::ControlFlow;
use udk_jit::Function;
use udk_runtime::jacobian::AccelerationJacobianDyn;
use udk_runtime::simulate::{
    consistent_dynamic_hamiltonian_state, consistent_dynamic_lagrangian_state,
    simulate_dynamic_hamiltonian, simulate_dynamic_lagrangian, DynamicHamiltonianSystem,
    DynamicHamiltonianTerms, DynamicLagrangianSystem, DynamicLagrangianTerms, OutputTable,
    RecordedSample, Recording, SimulationOptions, StateKind, Stats, Trajectory,
};
use udk_runtime::{Assembly, AssemblyOptions};

/// The largest n [`Model::simulate`] handles, and the most joints
/// [`FreeFlyerModel::simulate`](super::FreeFlyerModel::simulate) does (Talos reduced has 32):
/// the simulator's state has a compile-time size (`differential-equations` needs a `Copy`
/// state), so the method is built for each exact size up to this. Sizes are not padded: the
/// integrator's error norm is a mean over the state's entries, so padding would change the
/// steps taken.
pub const MAX_SIMULATED_COORDINATES: usize = 32;

/// A model with every parameter set, as the udk-runtime simulator's system of run-time size:
/// a [`DynamicLagrangianSystem`] for a Lagrangian model, a [`DynamicHamiltonianSystem`] for a
/// Hamiltonian one (calling the other trait's methods panics). Made by [`Model::system`].
///
/// The trait methods cannot return errors: each panics when `q` or the velocities (momenta)
/// do not have n entries. The simulator always passes n.
#[derive(Debug)]
pub struct System<'a> {
    model: &'a Model,
    params: Vec<f64>,
    monitor: &'a Function,
}

impl Model {
    /// The model with its current parameters as a system for the simulator
    /// (`udk_runtime::simulate::simulate_dynamic_lagrangian` and its Hamiltonian
    /// counterpart), for callers that drive the simulator themselves.
    ///
    /// # Errors
    /// [`ModelError::MissingParameter`].
    pub fn system(&self) -> Result<System<'_>, ModelError> {
        // Compiled now, so that the system's terms cannot fail later.
        self.terms_program()?;
        Ok(System {
            model: self,
            params: self.parameter_values()?,
            monitor: self.monitor()?,
        })
    }

    /// (q, v) at time t projected onto the constraints, v = q̇ or p:
    /// `udk_runtime::simulate::consistent_dynamic_lagrangian_state` or its Hamiltonian
    /// counterpart (Gauss–Newton on the position level, then the velocity level).
    ///
    /// # Errors
    /// [`ModelError::Length`], [`ModelError::MissingParameter`]; the
    /// kernel's errors (a failed pseudoinverse, an index of `options.fixed` ≥ n).
    pub fn consistent_state(
        &self,
        q: &DVector<f64>,
        v: &DVector<f64>,
        t: f64,
        options: &AssemblyOptions,
    ) -> Result<Assembly<DVector<f64>>, ModelError> {
        let (q, v) = (q.as_slice(), v.as_slice());
        self.check_state(q, v)?;
        let system = self.system()?;
        Ok(match self.is_hamiltonian() {
            true => consistent_dynamic_hamiltonian_state(&system, q, v, t, options),
            false => consistent_dynamic_lagrangian_state(&system, q, v, t, options),
        }?)
    }

    /// Simulates the model from (q₀, v₀) at t₀ to t_f, v = q̇ (Lagrangian) or p (Hamiltonian),
    /// with the model's inputs u held, by the udk-runtime simulator
    /// (`simulate_dynamic_lagrangian`, `simulate_dynamic_hamiltonian`: the integrator,
    /// stabilization, projection and output times of `options`), and evaluates the model's
    /// outputs at each sample. A model with events or contacts ([`Model::hybrid`]) runs them
    /// as `udk simulate` does ([`BoundHybrid::simulate`](super::BoundHybrid::simulate)), and
    /// [`Motion::events`] logs each event.
    ///
    /// ```
    /// let spec: udk::ModelSpec = toml::from_str(r#"
    ///     name = "Ball"
    ///     coordinates = ["y"]
    ///     parameters = [{ name = "g", value = 9.81 }]
    ///     lagrangian = "0.5 * dot(y).powi(2) - g * y"
    ///     [[contacts]]
    ///     name = "floor"
    ///     gap = "y"
    ///     restitution = 0.5
    /// "#).unwrap();
    /// let model = udk::Model::from_spec(spec, std::path::Path::new(".")).unwrap();
    /// let (q0, v0) = (udk::nalgebra::dvector![1.0], udk::nalgebra::dvector![0.0]);
    /// let options = udk::runtime::simulate::SimulationOptions::default();
    /// let motion = model.simulate(&q0, &v0, 0.0, 1.0, &options).unwrap();
    /// // The ball falls from 1 m: it touches the floor at t = √(2/g).
    /// let first = &motion.events[0];
    /// assert_eq!(first.name, "floor touchdown");
    /// assert!((first.t - (2.0f64 / 9.81).sqrt()).abs() < 1e-9);
    /// assert!((first.v_after[0] + 0.5 * first.v_before[0]).abs() < 1e-9);
    /// ```
    ///
    /// # Errors
    /// [`ModelError::Length`] when q₀ or v₀ do not have n entries, or n is above
    /// [`MAX_SIMULATED_COORDINATES`]; [`ModelError::MissingParameter`];
    /// [`ModelError::Events`] for a coefficient of an event or contact that is negative or not
    /// finite at the parameters; [`ModelError::Runtime`] when the contacts cannot be settled
    /// at the start; [`ModelError::Simulation`] when the run stops (bad options, an
    /// inconsistent start, the dynamics, a reset or the integrator failing, Zeno events),
    /// with the motion up to then.
    pub fn simulate(
        &self,
        q0: &DVector<f64>,
        v0: &DVector<f64>,
        t0: f64,
        tf: f64,
        options: &SimulationOptions,
    ) -> Result<Motion, ModelError> {
        self.check_state(q0.as_slice(), v0.as_slice())?;
        let system = self.system()?;
        let n = self.n();
        macro_rules! dispatch {
            ($($size:literal)*) => {
                match n {
                    $($size => self.simulate_sized::<$size>(&system, q0, v0, t0, tf, options),)*
                    _ => Err(ModelError::Length {
                        what: "q (coordinates Model::simulate handles)",
                        expected: MAX_SIMULATED_COORDINATES,
                        given: n,
                        model: self.compiled.name.clone(),
                    }),
                }
            };
        }
        dispatch!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32)
    }

    /// [`Model::simulate`] with n = `N`.
    fn simulate_sized<const N: usize>(
        &self,
        system: &System,
        q0: &DVector<f64>,
        v0: &DVector<f64>,
        t0: f64,
        tf: f64,
        options: &SimulationOptions,
    ) -> Result<Motion, ModelError> {
        let (q0, v0) = (
            SVector::<f64, N>::from_column_slice(q0.as_slice()),
            SVector::<f64, N>::from_column_slice(v0.as_slice()),
        );
        let observe = |_: &_| ControlFlow::Continue(());
        let bound = match &self.hybrid {
            Some(hybrid) => Some(hybrid.bind(&system.params, &self.u)?),
            None => None,
        };
        let result = match (self.is_hamiltonian(), bound) {
            (true, _) => simulate_dynamic_hamiltonian(system, &q0, &v0, t0, tf, options, observe),
            (false, Some(bound)) => {
                bound.simulate(system, (&q0, &v0), (t0, tf), options, observe)?
            }
            (false, None) => {
                simulate_dynamic_lagrangian(system, &q0, &v0, t0, tf, options, observe)
            }
        };
        match result {
            Ok(trajectory) => self.motion(&trajectory),
            Err(error) => Err(ModelError::stopped(&error, |t| self.motion(t))),
        }
    }

    /// The samples of `trajectory` as columns, with the model's outputs at each.
    fn motion<const N: usize>(&self, trajectory: &Trajectory<N>) -> Result<Motion, ModelError> {
        let samples = &trajectory.samples;
        let columns = |f: fn(&_) -> &SVector<f64, N>| {
            DMatrix::from_iterator(
                N,
                samples.len(),
                samples.iter().flat_map(|s| f(s).iter().copied()),
            )
        };
        let mut outputs = OutputTable {
            columns: self.output_columns().to_vec(),
            values: Vec::with_capacity(samples.len() * self.output_columns().len()),
        };
        for s in samples {
            let q = DVector::from_column_slice(s.q.as_slice());
            let v = DVector::from_column_slice(s.v.as_slice());
            outputs.values.extend(self.outputs(&q, &v, s.t)?.iter());
        }
        Ok(Motion {
            kind: trajectory.kind,
            state_columns: Recording::state_columns(trajectory),
            t: samples.iter().map(|s| s.t).collect(),
            q: columns(|s| &s.q),
            v: columns(|s| &s.v),
            position_residual: samples.iter().map(|s| s.position_residual).collect(),
            velocity_residual: samples.iter().map(|s| s.velocity_residual).collect(),
            energy: samples.iter().map(|s| s.energy).collect(),
            outputs,
            events: (trajectory.events.iter())
                .map(|e| EventRecord {
                    t: e.t,
                    name: e.name.clone(),
                    q_before: DVector::from_column_slice(e.before.0.as_slice()),
                    v_before: DVector::from_column_slice(e.before.1.as_slice()),
                    q_after: DVector::from_column_slice(e.after.0.as_slice()),
                    v_after: DVector::from_column_slice(e.after.1.as_slice()),
                })
                .collect(),
            stats: trajectory.stats,
        })
    }
}

/// A motion simulated by [`Model::simulate`]: one sample per output time, the first at t₀;
/// sample j is column j of [`Motion::q`] and [`Motion::v`].
#[derive(Clone, Debug, PartialEq)]
pub struct Motion {
    /// Whether [`Motion::v`] holds velocities q̇ or momenta p.
    pub kind: StateKind,
    /// The names of the state's columns: the rows of [`Motion::q`], then those of
    /// [`Motion::v`] (`theta`, `theta_dot`; a floating base's `base_x` … `base_qw`, the joints,
    /// `base_vx` … `base_wz`, `<joint>_dot`), as the CSV names them.
    pub state_columns: Vec<String>,
    /// The times of the samples (s), increasing.
    pub t: Vec<f64>,
    /// The coordinates, n × samples.
    pub q: DMatrix<f64>,
    /// The velocities q̇ or momenta p, n × samples.
    pub v: DMatrix<f64>,
    /// ‖f(q, t)‖ at each sample (units of f).
    pub position_residual: Vec<f64>,
    /// The norm of the velocity-level constraints at each sample.
    pub velocity_residual: Vec<f64>,
    /// The Jacobi integral h (or H) at each sample (J for a model in SI).
    pub energy: Vec<f64>,
    /// The model's outputs at each sample ([`Model::output_columns`]).
    pub outputs: OutputTable,
    /// The events of the run, in order (empty for a model without events or contacts).
    pub events: Vec<EventRecord>,
    /// Steps and right-hand-side evaluations of the run.
    pub stats: Stats,
}

/// One event of a [`Motion`]: its time, its name (an `[[events]]` name, or a contact's
/// `<name> touchdown`, `lift-off`, `slip`, `stick`, `turn`) and the state just before and after it
/// (the reset map's image, or the same state for a record or stop).
#[derive(Clone, Debug, PartialEq)]
pub struct EventRecord {
    /// The event time (s).
    pub t: f64,
    /// The event's name.
    pub name: String,
    /// q just before the event, n entries.
    pub q_before: DVector<f64>,
    /// q̇ just before the event, n entries.
    pub v_before: DVector<f64>,
    /// q just after the event, n entries.
    pub q_after: DVector<f64>,
    /// q̇ just after the event, n entries.
    pub v_after: DVector<f64>,
}

impl Motion {
    /// The largest |(E(t) − E(t₀)) / E(t₀)| over the samples (the absolute change when
    /// E(t₀) = 0), as `Trajectory::energy_drift`; 0 without samples.
    pub fn energy_drift(&self) -> f64 {
        Recording::energy_drift(self)
    }
}

/// Column `i` of `m` (column-major, so contiguous).
fn column(m: &DMatrix<f64>, i: usize) -> &[f64] {
    &m.as_slice()[i * m.nrows()..(i + 1) * m.nrows()]
}

/// The motion as the simulator's recordings are written: `Recording::write_csv` (the columns
/// `t`, [`Motion::state_columns`], the residuals, the energy, the outputs) and
/// `Recording::plot_svg`.
///
/// ```
/// use udk::runtime::simulate::{Recording, SimulationOptions};
///
/// let spec: udk::ModelSpec = toml::from_str(r#"
///     name = "Oscillator"
///     coordinates = ["x"]
///     lagrangian = "0.5 * dot(x).powi(2) - 0.5 * x.powi(2)"
/// "#).unwrap();
/// let model = udk::Model::from_spec(spec, std::path::Path::new(".")).unwrap();
/// let (q0, v0) = (udk::nalgebra::dvector![1.0], udk::nalgebra::dvector![0.0]);
/// let motion = model.simulate(&q0, &v0, 0.0, 1.0, &SimulationOptions::every(0.5)).unwrap();
/// let mut csv = Vec::new();
/// motion.write_csv_to(&mut csv).unwrap();
/// let csv = String::from_utf8(csv).unwrap();
/// assert!(csv.starts_with("t,x,x_dot,position_residual,velocity_residual,energy\n0.0,1.0,0.0,"));
/// assert_eq!(csv.lines().count(), 4);
/// ```
impl Recording for Motion {
    fn kind(&self) -> StateKind {
        self.kind
    }

    fn coordinates(&self) -> usize {
        self.q.nrows()
    }

    fn state_columns(&self) -> Vec<String> {
        self.state_columns.clone()
    }

    fn samples(&self) -> usize {
        self.t.len()
    }

    fn sample(&self, i: usize) -> RecordedSample<'_> {
        RecordedSample {
            t: self.t[i],
            q: column(&self.q, i),
            v: column(&self.v, i),
            position_residual: self.position_residual[i],
            velocity_residual: self.velocity_residual[i],
            energy: self.energy[i],
        }
    }

    fn outputs(&self) -> &OutputTable {
        &self.outputs
    }

    fn stats(&self) -> Stats {
        self.stats
    }
}

impl System<'_> {
    /// The monitor's outputs (energy, f, velocity-level rows) at (q, v, t); panics unless q
    /// and v have n entries.
    fn values(&self, q: &[f64], v: &[f64], t: f64) -> Vec<f64> {
        self.inputs_ok(q, v);
        let monitor = self.monitor;
        let mut values = vec![0.0; monitor.outputs()];
        let mut regs = vec![0.0; monitor.registers()];
        let inputs = self.model.tape_inputs(q, v, t, &self.params);
        (monitor.eval(&inputs, &mut regs, &mut values)).expect("q and v of n entries");
        values
    }

    /// f(q, t) of the holonomic rows followed by zeros: aligned with the m rows.
    fn aligned_holonomic(&self, q: &[f64], t: f64) -> DVector<f64> {
        let h = self.model.num_holonomic();
        // f(q, t) reads neither q̇ nor p; the program needs one of n entries all the same.
        let values = self.values(q, q, t);
        let mut aligned = DVector::zeros(self.model.m());
        aligned.as_mut_slice()[..h].copy_from_slice(&values[1..=h]);
        aligned
    }

    /// The m velocity-level rows.
    fn velocity_rows(&self, q: &[f64], v: &[f64], t: f64) -> DVector<f64> {
        let values = self.values(q, v, t);
        let start = 1 + self.model.num_holonomic();
        DVector::from_column_slice(&values[start..start + self.model.m()])
    }

    /// q̇ = K(q, u, t) (n entries) and N (row-major, n × n) of a model with generalized speeds,
    /// after the monitor's other outputs.
    fn kinematics(&self, q: &[f64], u: &[f64], t: f64) -> (DVector<f64>, DMatrix<f64>) {
        let values = self.values(q, u, t);
        let (n, start) = (self.model.n(), self.model.kinematics_offset());
        (
            DVector::from_column_slice(&values[start..start + n]),
            DMatrix::from_row_slice(n, n, &values[start + n..start + n + n * n]),
        )
    }

    /// Checks the lengths of q and v.
    fn inputs_ok(&self, q: &[f64], v: &[f64]) {
        let n = self.model.n();
        assert!(
            q.len() == n && v.len() == n,
            "a state of {} and {} entries given to a system of n = {n}",
            q.len(),
            v.len()
        );
    }
}

impl DynamicLagrangianSystem for System<'_> {
    fn num_holonomic(&self) -> usize {
        self.model.num_holonomic()
    }

    fn coordinate_names(&self) -> Vec<String> {
        self.model.coordinates().to_vec()
    }

    fn terms(&self, q: &[f64], qd: &[f64], t: f64) -> DynamicLagrangianTerms {
        self.inputs_ok(q, qd);
        assert!(!self.model.is_hamiltonian(), "a Hamiltonian model");
        (self.model)
            .lagrangian_terms(&self.model.tape_inputs(q, qd, t, &self.params))
            .expect("the terms compiled with the system")
    }

    fn energy(&self, q: &[f64], qd: &[f64], t: f64) -> f64 {
        self.values(q, qd, t)[0]
    }

    fn holonomic_residual(&self, q: &[f64], t: f64) -> DVector<f64> {
        self.aligned_holonomic(q, t)
    }

    fn velocity_residual(&self, q: &[f64], qd: &[f64], t: f64) -> DVector<f64> {
        self.velocity_rows(q, qd, t)
    }

    /// [`Model::acceleration_jacobian_with`]; a Cranelift failure on its program is
    /// `JacobianUnavailable`.
    fn acceleration_jacobian(
        &self,
        q: &[f64],
        qd: &[f64],
        t: f64,
        options: &udk_runtime::Options,
    ) -> Result<AccelerationJacobianDyn, udk_runtime::Error> {
        self.inputs_ok(q, qd);
        let (q, qd) = (
            DVector::from_column_slice(q),
            DVector::from_column_slice(qd),
        );
        (self.model.acceleration_jacobian_with(&q, &qd, t, options))
            .map_err(ModelError::into_jacobian_error)
    }

    fn velocity_names(&self) -> Vec<String> {
        self.model.speeds().to_vec()
    }

    fn coordinate_rates(&self, q: &[f64], v: &[f64], t: f64) -> DVector<f64> {
        self.inputs_ok(q, v);
        match self.model.speeds().is_empty() {
            true => DVector::from_column_slice(v),
            false => self.kinematics(q, v, t).0,
        }
    }

    fn kinematic_matrix(&self, q: &[f64], t: f64) -> Option<DMatrix<f64>> {
        self.inputs_ok(q, q);
        // N(q, t) reads no speed; the program needs n entries.
        (!self.model.speeds().is_empty()).then(|| self.kinematics(q, q, t).1)
    }
}

impl DynamicHamiltonianSystem for System<'_> {
    fn num_holonomic(&self) -> usize {
        self.model.num_holonomic()
    }

    fn coordinate_names(&self) -> Vec<String> {
        self.model.coordinates().to_vec()
    }

    fn terms(&self, q: &[f64], p: &[f64], t: f64) -> DynamicHamiltonianTerms {
        self.inputs_ok(q, p);
        assert!(self.model.is_hamiltonian(), "a Lagrangian model");
        (self.model)
            .hamiltonian_blocks(&self.model.tape_inputs(q, p, t, &self.params))
            .expect("the terms compiled with the system")
    }

    fn hamiltonian(&self, q: &[f64], p: &[f64], t: f64) -> f64 {
        self.values(q, p, t)[0]
    }

    fn holonomic_residual(&self, q: &[f64], t: f64) -> DVector<f64> {
        self.aligned_holonomic(q, t)
    }

    fn constraint_residual(&self, q: &[f64], p: &[f64], t: f64) -> DVector<f64> {
        self.velocity_rows(q, p, t)
    }
}
