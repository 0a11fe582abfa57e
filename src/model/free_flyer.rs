//! [`FreeFlyerModel`]: a URDF robot on a floating base known only at run time, the
//! counterpart of `#[lagrangian(urdf = "..", floating_base = true)]` for a file chosen by the
//! user of a program (Talos, read from example-robot-data's directory, is one).

use super::ModelError;
use std::path::Path;
use udk_runtime::free_flyer::{check, check_length, integrate, FreeFlyerError};
use udk_symbolic::derive::tree::free_flyer::free_flyer;
use udk_symbolic::emit::{compile_tape, Tape, TapeError, TapeInputs};
use udk_symbolic::expr::Pool;
use udk_symbolic::urdf::{read, UrdfSource, DEFAULT_GRAVITY};

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
    coordinate_names: Vec<String>,
    velocity_names: Vec<String>,
    acceleration: Tape,
    mass_matrix: Tape,
    inverse_dynamics: Tape,
}

impl FreeFlyerModel {
    /// The robot of the URDF file `path` on a floating base, with `gravity` (m/s², world
    /// frame; [`DEFAULT_GRAVITY`] is Pinocchio's).
    ///
    /// # Errors
    /// [`ModelError::Read`] for a file that cannot be read; [`ModelError::Derivation`] for a
    /// URDF the reader refuses (one with a floating joint among them) or a tree that cannot be
    /// derived (a subtree with no mass).
    pub fn from_urdf(path: impl AsRef<Path>, gravity: [f64; 3]) -> Result<Self, ModelError> {
        let path = path.as_ref();
        let file = path.to_string_lossy().into_owned();
        let text = std::fs::read_to_string(path).map_err(|e| ModelError::Read {
            path: file.clone(),
            message: e.to_string(),
        })?;
        let source = UrdfSource {
            floating_base: true,
            gravity: Some(gravity),
            ..UrdfSource::new(file.clone())
        };
        let derivation = |messages: String| ModelError::Derivation {
            model: file.clone(),
            messages,
        };
        let mut robot = read(&text, &source).map_err(derivation)?;
        robot.tree.gravity = source.gravity.unwrap_or(DEFAULT_GRAVITY);
        let mut pool = Pool::new();
        let dynamics = free_flyer(&mut pool, &robot.tree, robot.base_inertia.as_ref())
            .map_err(|e| derivation(e.to_string()))?;
        let joints = robot.joints.iter().map(|j| j.name.clone());
        let base_q = [
            "base_x", "base_y", "base_z", "base_qx", "base_qy", "base_qz", "base_qw",
        ];
        let base_v = [
            "base_vx", "base_vy", "base_vz", "base_wx", "base_wy", "base_wz",
        ];
        Ok(FreeFlyerModel {
            coordinate_names: (base_q.iter().map(|s| s.to_string()))
                .chain(joints.clone())
                .collect(),
            velocity_names: (base_v.iter().map(|s| s.to_string()))
                .chain(joints)
                .collect(),
            acceleration: compile_tape(&pool, &dynamics.acceleration),
            mass_matrix: compile_tape(&pool, &dynamics.mass_matrix.entries),
            inverse_dynamics: compile_tape(&pool, &dynamics.inverse_dynamics),
        })
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
