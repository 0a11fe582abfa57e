//! [`FreeFlyerModel`]: a URDF robot on a floating base known only at run time, the
//! counterpart of `#[lagrangian(urdf = "..", floating_base = true)]` for a file chosen by the
//! user of a program (Talos, read from example-robot-data's directory, is one).

use super::{EventRecord, ModelError, Motion, MAX_SIMULATED_COORDINATES};
use nalgebra::{DMatrix, DVector, SVector};
use std::cell::RefCell;
use std::ops::ControlFlow;
use std::path::Path;
use udk_runtime::free_flyer::{check, check_length, integrate, FreeFlyerError, FreeFlyerSystem};
use udk_runtime::simulate::{
    ground_contacts_at, simulate_free_flyer, simulate_free_flyer_with_contacts, ContactSet,
    FreeFlyer, GroundContact, JointEfforts, OutputTable, SimulationError, SimulationOptions,
    StateKind, Trajectory,
};
use udk_symbolic::codegen::free_flyer::{
    derive_free_flyer, read_free_flyer, FreeFlyerRobot, BASE_COORDINATE_NAMES, BASE_VELOCITY_NAMES,
};
use udk_symbolic::emit::{compile_tape, Tape, TapeError, TapeInputs};
use udk_symbolic::error::Errors;
use udk_symbolic::expr::Pool;
use udk_symbolic::urdf::UrdfSource;
use udk_symbolic::ModelSpec;

/// The joint efforts τ(t, q, v) of [`FreeFlyerModel::simulate_with`], written into its last
/// argument (n entries; q has NQ entries, v NV).
pub type Efforts<'a> = dyn Fn(f64, &[f64], &[f64], &mut [f64]) + 'a;

/// Why an evaluation of a [`FreeFlyerModel`] failed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum FreeFlyerModelError {
    /// A zero quaternion, a non-finite entry or a wrong length.
    #[error(transparent)]
    State(#[from] FreeFlyerError),
    /// The tape refused its buffers (a length the checks above let through).
    #[error(transparent)]
    Tape(#[from] TapeError),
}

/// A URDF robot on a free-flying base (Pinocchio's `JointModelFreeFlyer` layout: see
/// `udk_symbolic::derive::tree::free_flyer`), its v̇, M and inverse dynamics compiled to
/// tapes and evaluated by the interpreter.
///
/// ```
/// use udk::model::FreeFlyerModel;
///
/// let hector = FreeFlyerModel::from_urdf(
///     "robots/example-robot-data/hector_description/robots/quadrotor_base.urdf",
///     [0.0, 0.0, -9.81],
/// )?;
/// assert_eq!((hector.nq(), hector.nv()), (7, 6));
/// let q = [0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
/// let a = hector.acceleration(&q, &[0.0; 6], &[])?;
/// assert!((a[2] + 9.81).abs() < 1e-12); // a free body falls at g
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct FreeFlyerModel {
    name: String,
    gravity: [f64; 3],
    coordinate_names: Vec<String>,
    velocity_names: Vec<String>,
    point_names: Vec<String>,
    contacts: Vec<GroundContact>,
    joint_pd: Option<JointServo>,
    acceleration: Tape,
    mass_matrix: Tape,
    inverse_dynamics: Tape,
    points: Tape,
}

impl FreeFlyerModel {
    /// The robot of the URDF file `path` on a floating base, with `gravity` (m/s², world
    /// frame; [`DEFAULT_GRAVITY`](udk_symbolic::urdf::DEFAULT_GRAVITY) is Pinocchio's), named `Robot`, with no link points.
    ///
    /// # Errors
    /// [`ModelError::Read`] for a file that cannot be read; [`ModelError::Derivation`] for a
    /// URDF the reader refuses (one that already has a floating joint among them) or a tree
    /// that cannot be derived (a subtree with no mass).
    pub fn from_urdf(path: impl AsRef<Path>, gravity: [f64; 3]) -> Result<Self, ModelError> {
        let path = path.as_ref();
        std::fs::metadata(path).map_err(|e| ModelError::Read {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        let spec = ModelSpec {
            name: "Robot".into(),
            urdf: Some(UrdfSource {
                floating_base: true,
                gravity: Some(gravity),
                ..UrdfSource::new(path.to_string_lossy())
            }),
            ..ModelSpec::default()
        };
        Self::from_spec(&spec, Path::new(""))
    }

    /// The floating-base model of a model file (TOML, or JSON if its name ends in `.json`)
    /// whose `urdf = { path = "..", floating_base = true }` names the robot, read relative to
    /// the model file: its `gravity` and `inertia` options, and `outputs` of link points
    /// `{ name = "FL", value = "link_position(\"FL_FOOT\")" }`.
    ///
    /// ```
    /// let solo = udk::model::FreeFlyerModel::from_file(std::path::Path::new(
    ///     "tests/fixtures/solo12_floating.toml",
    /// ))?;
    /// assert_eq!((solo.nq(), solo.nv()), (19, 18));
    /// assert_eq!(solo.point_names(), ["FL", "FR", "HL", "HR"]);
    /// # Ok::<(), udk::ModelError>(())
    /// ```
    ///
    /// # Errors
    /// [`ModelError::Read`] for a file that cannot be read or parsed; as
    /// [`FreeFlyerModel::from_spec`].
    pub fn from_file(path: &Path) -> Result<Self, ModelError> {
        let spec = super::read_spec(path)?;
        Self::from_spec(&spec, path.parent().unwrap_or(Path::new("")))
    }

    /// The floating-base model `spec` (its `urdf` with `floating_base = true`), the URDF read
    /// relative to `base`: the same derivation as `#[lagrangian(urdf = "..",
    /// floating_base = true)]` (`udk_symbolic::codegen::free_flyer::read_free_flyer`),
    /// compiled to tapes.
    ///
    /// # Errors
    /// [`ModelError::Derivation`] with the messages of
    /// `udk_symbolic::codegen::free_flyer::read_free_flyer` (a spec with anything but the URDF
    /// and its link points, a URDF that cannot be read or that already has a floating joint,
    /// an unknown link) or of a tree that cannot be derived.
    pub fn from_spec(spec: &ModelSpec, base: &Path) -> Result<Self, ModelError> {
        let derivation = |e: Errors| ModelError::Derivation {
            model: spec.name.clone(),
            messages: e.to_string(),
        };
        let FreeFlyerRobot {
            robot,
            mut points,
            contacts,
            joint_pd,
            ..
        } = read_free_flyer(spec, base).map_err(derivation)?;
        let contacts = (contacts.into_iter().enumerate())
            .map(|(k, c)| {
                let contact = GroundContact {
                    point: points.len() + k,
                    height: c.height,
                    restitution: c.restitution,
                    friction: c.friction,
                    rest_speed: c.rest_speed,
                };
                (contact, c.point)
            })
            .collect::<Vec<_>>();
        let (contacts, contact_points): (Vec<_>, Vec<_>) = contacts.into_iter().unzip();
        points.extend(contact_points);
        let mut pool = Pool::new();
        let (dynamics, kinematics) =
            derive_free_flyer(&mut pool, spec, &robot, &points).map_err(derivation)?;
        let point_ids: Vec<_> = (kinematics.iter())
            .flat_map(|p| p.position.iter().chain(&p.jacobian.entries).chain(&p.bias))
            .copied()
            .collect();
        let joints = robot.joints.iter().map(|j| j.name.clone());
        Ok(FreeFlyerModel {
            name: spec.name.clone(),
            gravity: robot.tree.gravity,
            coordinate_names: (BASE_COORDINATE_NAMES.iter().map(|s| s.to_string()))
                .chain(joints.clone())
                .collect(),
            velocity_names: (BASE_VELOCITY_NAMES.iter().map(|s| s.to_string()))
                .chain(joints)
                .collect(),
            point_names: points.into_iter().map(|p| p.name).collect(),
            contacts,
            joint_pd: joint_pd.map(|[stiffness, damping, posture]| JointServo {
                stiffness,
                damping,
                posture,
            }),
            acceleration: compile_tape(&pool, &dynamics.acceleration),
            mass_matrix: compile_tape(&pool, &dynamics.mass_matrix.entries),
            inverse_dynamics: compile_tape(&pool, &dynamics.inverse_dynamics),
            points: compile_tape(&pool, &point_ids),
        })
    }

    /// The model's name (`Robot` for [`FreeFlyerModel::from_urdf`]).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Gravitational acceleration in the world frame, m/s².
    pub fn gravity(&self) -> [f64; 3] {
        self.gravity
    }

    /// The names of the link points: the model's `outputs`, then the points of its ground
    /// `contacts` (named as the contacts), in the order of [`FreeFlyerModel::points`].
    pub fn point_names(&self) -> &[String] {
        &self.point_names
    }

    /// The names of the model's ground contacts (its `[[contacts]]`, each at the link point of
    /// the same name), in order.
    pub fn contact_names(&self) -> &[String] {
        &self.point_names[self.point_names.len() - self.contacts.len()..]
    }

    /// Whether the model file gives a PD law on the joints (`[joint_pd]`,
    /// `udk_symbolic::JointPd`), which the simulations add to the joint efforts.
    pub fn has_joint_pd(&self) -> bool {
        self.joint_pd.is_some()
    }

    /// The link points at (q, v), 6 + 3 NV entries a point in the order of
    /// [`FreeFlyerModel::point_names`]: its world position p (m), its Jacobian J (3 × NV,
    /// row-major; ṗ = J v) and J̇ v (m/s², p̈ = J v̇ + J̇ v), as
    /// `udk_runtime::free_flyer::PointMotion::write_into` lays them out
    /// (`udk_symbolic::derive::tree::free_flyer::point_kinematics`).
    ///
    /// # Errors
    /// As [`FreeFlyerModel::acceleration`].
    pub fn points(&self, q: &[f64], v: &[f64]) -> Result<Vec<f64>, FreeFlyerModelError> {
        let len = self.point_names.len() * (6 + 3 * self.nv());
        self.run(&self.points, q, v, &[], &[], len)
    }

    /// NQ = 7 + n, the entries of q.
    pub fn nq(&self) -> usize {
        self.coordinate_names.len()
    }

    /// NV = 6 + n, the entries of v.
    pub fn nv(&self) -> usize {
        self.velocity_names.len()
    }

    /// The entries of q: `base_x` … `base_qw`, then the joints as the URDF names them.
    pub fn coordinate_names(&self) -> &[String] {
        &self.coordinate_names
    }

    /// The entries of v: `base_vx` … `base_wz`, then the joints.
    pub fn velocity_names(&self) -> &[String] {
        &self.velocity_names
    }

    /// v̇ (NV entries) at `q` (NQ), `v` (NV) under the joint efforts `tau` (n): Pinocchio's
    /// `aba`.
    ///
    /// # Errors
    /// A wrong length, a zero quaternion or a non-finite entry; `NotDetermined` where M is
    /// singular.
    pub fn acceleration(
        &self,
        q: &[f64],
        v: &[f64],
        tau: &[f64],
    ) -> Result<Vec<f64>, FreeFlyerModelError> {
        check_length("tau", tau, self.nv() - 6)?;
        let a = self.run(&self.acceleration, q, v, &[], tau, self.nv())?;
        Ok(udk_runtime::free_flyer::determined(a)?)
    }

    /// M(q), NV × NV row-major: Pinocchio's `crba`, mirrored.
    ///
    /// # Errors
    /// As [`FreeFlyerModel::acceleration`].
    pub fn mass_matrix(&self, q: &[f64]) -> Result<Vec<f64>, FreeFlyerModelError> {
        let zero = vec![0.0; self.nv()];
        self.run(&self.mass_matrix, q, &zero, &[], &[], self.nv() * self.nv())
    }

    /// M(q) a + h(q, v) (NV entries: the base wrench, then the joint efforts): Pinocchio's
    /// `rnea`.
    ///
    /// # Errors
    /// As [`FreeFlyerModel::acceleration`].
    pub fn inverse_dynamics(
        &self,
        q: &[f64],
        v: &[f64],
        a: &[f64],
    ) -> Result<Vec<f64>, FreeFlyerModelError> {
        check_length("a", a, self.nv())?;
        self.run(&self.inverse_dynamics, q, v, a, &[], self.nv())
    }

    /// q ⊕ v dt on SE(3) × ℝⁿ (see `udk_runtime::free_flyer::integrate`).
    ///
    /// # Errors
    /// As [`FreeFlyerModel::acceleration`].
    pub fn integrate(&self, q: &[f64], v: &[f64], dt: f64) -> Result<Vec<f64>, FreeFlyerError> {
        check_length("q", q, self.nq())?;
        let mut out = vec![0.0; self.nq()];
        integrate(q, v, dt, &mut out)?;
        Ok(out)
    }

    /// Evaluates `tape` (`len` outputs) at the checked state.
    fn run(
        &self,
        tape: &Tape,
        q: &[f64],
        v: &[f64],
        a: &[f64],
        tau: &[f64],
        len: usize,
    ) -> Result<Vec<f64>, FreeFlyerModelError> {
        check_length("q", q, self.nq())?;
        check_length("v", v, self.nv())?;
        check(q, &[("v", v), ("a", a), ("tau", tau)])?;
        let inputs = TapeInputs {
            q,
            qd: v,
            qdd: a,
            u: tau,
            ..TapeInputs::default()
        };
        let mut registers = vec![0.0; tape.registers()];
        let mut out = vec![0.0; len];
        tape.eval(&inputs, &mut registers, &mut out)?;
        Ok(out)
    }
}

/// The length error of a tape as the free-flyer state's error (the lengths are checked
/// before every evaluation, so the tape never refuses one).
fn state_error(e: FreeFlyerModelError) -> FreeFlyerError {
    match e {
        FreeFlyerModelError::State(e) => e,
        FreeFlyerModelError::Tape(TapeError::Input {
            input,
            needed,
            given,
        }) => FreeFlyerError::WrongLength {
            argument: input,
            len: given,
            expected: needed,
        },
        FreeFlyerModelError::Tape(TapeError::Outputs { expected, given }) => {
            FreeFlyerError::WrongLength {
                argument: "out",
                len: given,
                expected,
            }
        }
        // The registers are allocated for the tape, and `TapeError` has no other kind today.
        FreeFlyerModelError::Tape(_) => FreeFlyerError::WrongLength {
            argument: "registers",
            len: 0,
            expected: 0,
        },
    }
}

/// The model as the simulator's system (`udk_runtime::simulate::simulate_free_flyer`, and
/// `FreeFlyer` for contacts at its link points) for the `NQ` of its q: any other `NQ` gets
/// [`FreeFlyerError::WrongLength`] at the first call.
impl<const NQ: usize> FreeFlyerSystem<NQ> for FreeFlyerModel {
    fn gravity(&self) -> [f64; 3] {
        self.gravity
    }

    fn state_columns(&self) -> Vec<String> {
        let rates = (self.velocity_names.iter().enumerate()).map(|(i, name)| match i {
            0..6 => name.clone(),
            _ => format!("{name}_dot"),
        });
        self.coordinate_names.iter().cloned().chain(rates).collect()
    }

    fn acceleration_into(
        &self,
        q: &SVector<f64, NQ>,
        v: &[f64],
        tau: &[f64],
        _: f64,
        out: &mut [f64],
    ) -> Result<(), FreeFlyerError> {
        check_length("out", out, self.nv())?;
        let a = self
            .acceleration(q.as_slice(), v, tau)
            .map_err(state_error)?;
        out.copy_from_slice(&a);
        Ok(())
    }

    fn mass_matrix_into(
        &self,
        q: &SVector<f64, NQ>,
        out: &mut [f64],
    ) -> Result<(), FreeFlyerError> {
        check_length("out", out, self.nv() * self.nv())?;
        out.copy_from_slice(&self.mass_matrix(q.as_slice()).map_err(state_error)?);
        Ok(())
    }

    fn point_names(&self) -> Vec<String> {
        self.point_names.clone()
    }

    fn points_into(
        &self,
        q: &SVector<f64, NQ>,
        v: &[f64],
        out: &mut [f64],
    ) -> Result<(), FreeFlyerError> {
        check_length("out", out, self.point_names.len() * (6 + 3 * self.nv()))?;
        out.copy_from_slice(&self.points(q.as_slice(), v).map_err(state_error)?);
        Ok(())
    }
}

impl FreeFlyerModel {
    /// The output columns of a [`Motion`] of the model: `<point>.x`, `.y`, `.z` for each link
    /// point ([`FreeFlyerModel::point_names`]), its world position (m); then
    /// `<contact>.normal`, `.tangent` (along x) and `.lateral` (along y) for each ground
    /// contact, the ground's force on the point (N, world frame; 0 while the contact is open).
    pub fn output_columns(&self) -> Vec<String> {
        let positions = (self.point_names.iter())
            .flat_map(|name| ["x", "y", "z"].map(|c| format!("{name}.{c}")));
        positions.chain(self.force_columns()).collect()
    }

    /// The contact forces' columns: `<contact>.normal`, `.tangent`, `.lateral`.
    fn force_columns(&self) -> Vec<String> {
        (self.contact_names().iter())
            .flat_map(|name| ["normal", "tangent", "lateral"].map(|k| format!("{name}.{k}")))
            .collect()
    }

    /// Simulates the robot from (q₀, v₀) at t₀ to t_f under the joint efforts `tau` (n
    /// entries, held; the model file's `[joint_pd]` law adds to them):
    /// [`FreeFlyerModel::simulate_with`] with τ constant.
    ///
    /// ```
    /// use udk::model::FreeFlyerModel;
    /// use udk::runtime::simulate::SimulationOptions;
    ///
    /// let solo = FreeFlyerModel::from_file(std::path::Path::new(
    ///     "tests/fixtures/solo12_floating.toml",
    /// ))?;
    /// let mut q0 = vec![0.0; 19];
    /// (q0[2], q0[6]) = (0.3, 1.0);
    /// let motion = solo.simulate(&q0, &[0.0; 18], &[0.0; 12], (0.0, 0.1), &SimulationOptions::every(0.05))?;
    /// // No contact: the robot falls freely, ½ g t² in 0.1 s.
    /// assert!((motion.q[(2, 2)] - (0.3 - 0.5 * 9.81 * 0.01)).abs() < 1e-9);
    /// # Ok::<(), udk::ModelError>(())
    /// ```
    ///
    /// # Errors
    /// [`ModelError::Length`] when `tau` does not have n entries; as
    /// [`FreeFlyerModel::simulate_with`].
    pub fn simulate(
        &self,
        q0: &[f64],
        v0: &[f64],
        tau: &[f64],
        (t0, tf): (f64, f64),
        options: &SimulationOptions,
    ) -> Result<Motion, ModelError> {
        if tau.len() != self.nv() - 6 {
            return Err(ModelError::Length {
                what: "tau",
                expected: self.nv() - 6,
                given: tau.len(),
                model: self.name.clone(),
            });
        }
        let efforts = |_: f64, _: &[f64], _: &[f64], out: &mut [f64]| out.copy_from_slice(tau);
        self.simulate_with(q0, v0, &efforts, (t0, tf), options)
    }

    /// Simulates the robot from (q₀, v₀) at t₀ to t_f under the joint efforts
    /// `efforts(t, q, v, τ)` (writing the n entries of τ; a PD law on the joints is one) plus,
    /// when the model file has one, its `[joint_pd]` law K_p (q* − q) − K_d q̇ of the joints, by
    /// `udk_runtime::simulate::simulate_free_flyer`, or with the model's ground contacts by
    /// `simulate_free_flyer_with_contacts` on `ground_contacts_at` (touchdowns as impacts by
    /// the fundamental equation, lift-off, stick and slip as events; the contacts touching
    /// at rest at t₀ closed by `ContactSet::settle`): the integrator and output times of
    /// `options`, the base quaternion divided by its norm at every output time. A start whose
    /// quaternion differs from unit norm by more than `options.constraint_tolerance` is
    /// refused, not normalized. The [`Motion`] holds q (NQ rows) and v (NV rows),
    /// |quaternion| − 1 as the position residual, the energy ½ vᵀ M v − m g·c, the outputs of
    /// [`FreeFlyerModel::output_columns`] (the points' positions, the contact forces by name)
    /// and the contacts' events (`FL touchdown`, `FL lift-off`, `FL slip`, `FL stick`, `FL turn`;
    /// q and v before and after each).
    ///
    /// # Errors
    /// [`ModelError::Length`] when q₀ or v₀ do not have NQ and NV entries, or n is above
    /// [`MAX_SIMULATED_COORDINATES`]; [`ModelError::Simulation`] when the run stops (a
    /// refused start, bad options, contacts that cannot be settled, the dynamics, an impact or
    /// the integrator failing, Zeno events), with the motion up to then.
    pub fn simulate_with(
        &self,
        q0: &[f64],
        v0: &[f64],
        efforts: &Efforts<'_>,
        (t0, tf): (f64, f64),
        options: &SimulationOptions,
    ) -> Result<Motion, ModelError> {
        let length = |what, expected, given| ModelError::Length {
            what,
            expected,
            given,
            model: self.name.clone(),
        };
        for (what, given, expected) in [("q", q0.len(), self.nq()), ("v", v0.len(), self.nv())] {
            if given != expected {
                return Err(length(what, expected, given));
            }
        }
        macro_rules! dispatch {
            ($($size:literal)*) => {
                match self.nq() {
                    $($size => self.simulate_sized::<$size>(q0, v0, efforts, (t0, tf), options),)*
                    nq => Err(length(
                        "joints (Model::simulate handles)",
                        MAX_SIMULATED_COORDINATES,
                        nq - 7,
                    )),
                }
            };
        }
        dispatch!(7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34
            35 36 37 38 39)
    }

    /// [`FreeFlyerModel::simulate_with`] with NQ = `NQ`.
    fn simulate_sized<const NQ: usize>(
        &self,
        q0: &[f64],
        v0: &[f64],
        efforts: &Efforts<'_>,
        (t0, tf): (f64, f64),
        options: &SimulationOptions,
    ) -> Result<Motion, ModelError> {
        let efforts = |t: f64, q: &SVector<f64, NQ>, v: &[f64], out: &mut [f64]| {
            efforts(t, q.as_slice(), v, out);
        };
        let q0 = SVector::<f64, NQ>::from_column_slice(q0);
        let (result, forces) = self.trajectory(&efforts, (&q0, v0), (t0, tf), options);
        let motion = |trajectory: &Trajectory<NQ>| self.motion(trajectory, &forces);
        match result {
            Ok(trajectory) => motion(&trajectory),
            Err(SimulationError::InconsistentStart { violations, .. }) => {
                Err(ModelError::Simulation {
                    message: format!(
                        "the base quaternion of q0 has norm 1 {:+.3e}, off unit norm by more \
                         than the constraint tolerance {:e}: a non-unit start is refused, not \
                         normalized",
                        violations.first().map_or(f64::NAN, |v| v.residual),
                        options.constraint_tolerance
                    ),
                    time: None,
                    motion: None,
                })
            }
            Err(error) => Err(ModelError::stopped(&error, motion)),
        }
    }

    /// The run of [`FreeFlyerModel::simulate_with`] for NQ = `NQ`, under `efforts` (plus the
    /// model file's `[joint_pd]` law, when it has one), as the
    /// simulator returns it, with the contact forces at each of its samples (the columns
    /// `<contact>.normal`, `.tangent`, `.lateral`, one row a sample; no columns without
    /// contacts): [`FreeFlyerModel::outputs`] joins them to the points' positions.
    ///
    /// # Errors
    /// The simulator's (in the result): those of `simulate_free_flyer`, and for a model with
    /// contacts those of `simulate_free_flyer_with_contacts`, with a failed settling of the
    /// contacts at t₀ as [`SimulationError::Dynamics`] at t₀ and a failed force solve at a
    /// sample as [`SimulationError::Interrupted`].
    pub fn trajectory<const NQ: usize>(
        &self,
        efforts: &JointEfforts<'_, NQ>,
        (q0, v0): (&SVector<f64, NQ>, &[f64]),
        (t0, tf): (f64, f64),
        options: &SimulationOptions,
    ) -> (Result<Trajectory<NQ>, SimulationError<NQ>>, OutputTable) {
        let with_servo = |t: f64, q: &SVector<f64, NQ>, v: &[f64], tau: &mut [f64]| {
            efforts(t, q, v, tau);
            if let Some(servo) = &self.joint_pd {
                servo.add(&q.as_slice()[7..], &v[6..], tau);
            }
        };
        let efforts: &JointEfforts<'_, NQ> = &with_servo;
        let columns = self.force_columns();
        if self.contacts.is_empty() {
            let result = simulate_free_flyer(self, efforts, q0, v0, t0, tf, options);
            return (result, OutputTable::default());
        }
        let contacts = match ground_contacts_at::<_, NQ>(self, &self.contacts) {
            Ok(contacts) => contacts,
            Err(source) => {
                return (
                    Err(failed_start(q0, v0, t0, source)),
                    OutputTable::default(),
                )
            }
        };
        let set = match ContactSet::new(FreeFlyer::new(self, efforts), contacts) {
            Ok(set) => set,
            Err(source) => {
                return (
                    Err(failed_start(q0, v0, t0, source)),
                    OutputTable::default(),
                )
            }
        };
        if v0.len() + 1 == NQ {
            let settled = set.settle(q0.as_slice(), v0, t0, options.constraint_tolerance);
            if let Err(source) = settled {
                return (
                    Err(failed_start(q0, v0, t0, source)),
                    OutputTable::default(),
                );
            }
        }
        let forces = RefCell::new(OutputTable {
            values: Vec::new(),
            columns,
        });
        let observe = |sample: &udk_runtime::simulate::Sample<NQ>| {
            let v = &sample.v.as_slice()[..NQ - 1];
            let Ok(now) = set.forces(sample.q.as_slice(), v, sample.t) else {
                return ControlFlow::Break(());
            };
            let mut table = forces.borrow_mut();
            let row: Vec<f64> = (table.columns.iter())
                .map(|c| now.iter().find(|f| &f.name == c).map_or(0.0, |f| f.value))
                .collect();
            table.values.extend(row);
            ControlFlow::Continue(())
        };
        let result = simulate_free_flyer_with_contacts(&set, (q0, v0), (t0, tf), options, observe);
        (result, forces.into_inner())
    }

    /// The outputs of [`FreeFlyerModel::output_columns`] at each sample of `trajectory`: the
    /// points' positions, then the contact forces of `forces` ([`FreeFlyerModel::trajectory`]'s,
    /// one row a sample).
    ///
    /// # Errors
    /// As [`FreeFlyerModel::points`] at a sample; [`FreeFlyerError::WrongLength`] when
    /// `forces` does not have a row for each sample and a column for each contact force.
    pub fn outputs<const NQ: usize>(
        &self,
        trajectory: &Trajectory<NQ>,
        forces: &OutputTable,
    ) -> Result<OutputTable, FreeFlyerModelError> {
        let samples = &trajectory.samples;
        let nv = self.nv();
        let size = 6 + 3 * nv;
        let width = 3 * self.contacts.len();
        check_length("forces", &forces.values, samples.len() * width)?;
        let mut outputs = OutputTable {
            columns: self.output_columns(),
            values: Vec::with_capacity(samples.len() * (3 * self.point_names.len() + width)),
        };
        for (j, s) in samples.iter().enumerate() {
            let points = self.points(s.q.as_slice(), &s.v.as_slice()[..nv])?;
            (outputs.values).extend(points.chunks(size).flat_map(|p| p[..3].iter().copied()));
            (outputs.values).extend_from_slice(&forces.values[j * width..(j + 1) * width]);
        }
        Ok(outputs)
    }

    /// The samples of `trajectory` as columns (v without its padding entry), with the
    /// outputs ([`FreeFlyerModel::outputs`]) and the events.
    fn motion<const NQ: usize>(
        &self,
        trajectory: &Trajectory<NQ>,
        forces: &OutputTable,
    ) -> Result<Motion, ModelError> {
        let samples = &trajectory.samples;
        let nv = self.nv();
        let outputs = self
            .outputs(trajectory, forces)
            .map_err(|e| ModelError::Simulation {
                message: format!("the outputs of the motion: {e}"),
                time: samples.last().map(|s| s.t),
                motion: None,
            })?;
        let velocities = |v: &SVector<f64, NQ>| DVector::from_column_slice(&v.as_slice()[..nv]);
        Ok(Motion {
            kind: StateKind::Velocities,
            state_columns: FreeFlyerSystem::<NQ>::state_columns(self),
            t: samples.iter().map(|s| s.t).collect(),
            q: DMatrix::from_iterator(
                NQ,
                samples.len(),
                samples.iter().flat_map(|s| s.q.iter().copied()),
            ),
            v: DMatrix::from_iterator(
                nv,
                samples.len(),
                samples.iter().flat_map(|s| s.v.iter().take(nv).copied()),
            ),
            position_residual: samples.iter().map(|s| s.position_residual).collect(),
            velocity_residual: samples.iter().map(|s| s.velocity_residual).collect(),
            energy: samples.iter().map(|s| s.energy).collect(),
            outputs,
            events: (trajectory.events.iter())
                .map(|e| EventRecord {
                    t: e.t,
                    name: e.name.clone(),
                    q_before: DVector::from_column_slice(e.before.0.as_slice()),
                    v_before: velocities(&e.before.1),
                    q_after: DVector::from_column_slice(e.after.0.as_slice()),
                    v_after: velocities(&e.after.1),
                })
                .collect(),
            stats: trajectory.stats,
        })
    }
}

/// A failure before the first step of a run with contacts (contacts that cannot be made or
/// settled at the start) as the simulator's error at t₀, with an empty trajectory.
fn failed_start<const NQ: usize>(
    q0: &SVector<f64, NQ>,
    v0: &[f64],
    t0: f64,
    source: udk_runtime::Error,
) -> SimulationError<NQ> {
    let mut v = SVector::<f64, NQ>::zeros();
    let len = v0.len().min(NQ);
    v.as_mut_slice()[..len].copy_from_slice(&v0[..len]);
    SimulationError::Dynamics {
        time: t0,
        state: Box::new(udk_runtime::simulate::FailedState { q: *q0, v }),
        source,
        trajectory: Box::new(Trajectory {
            kind: StateKind::Velocities,
            state_columns: Vec::new(),
            samples: Vec::new(),
            stats: Default::default(),
            outputs: OutputTable::default(),
            events: Vec::new(),
        }),
    }
}

/// The model file's `[joint_pd]` law, per joint (`udk_symbolic::JointPd`).
struct JointServo {
    /// K_p (N·m/rad or N/m).
    stiffness: Vec<f64>,
    /// K_d (N·m·s/rad or N·s/m).
    damping: Vec<f64>,
    /// q* (rad or m).
    posture: Vec<f64>,
}

impl JointServo {
    /// Adds K_p (q* − q) − K_d q̇ of the joints' positions `q` and rates `v` to `tau`.
    fn add(&self, q: &[f64], v: &[f64], tau: &mut [f64]) {
        for (j, tau) in tau.iter_mut().enumerate() {
            *tau += self.stiffness[j] * (self.posture[j] - q[j]) - self.damping[j] * v[j];
        }
    }
}
