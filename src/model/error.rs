//! The errors of building and evaluating a [`Model`](super::Model).

/// A model that cannot be built, or a bad call of one.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// The model file cannot be read or does not parse.
    #[error("{path}: {message}")]
    Read {
        /// The file.
        path: String,
        /// What went wrong.
        message: String,
    },
    /// The model does not derive (or its URDF does not expand): every message of the
    /// symbolic engine, one per line.
    #[error("model `{model}`: {messages}")]
    Derivation {
        /// The model's name.
        model: String,
        /// The messages, one per line.
        messages: String,
    },
    /// The events or contacts of the model are wrong (see `udk::model::Hybrid::new`): one
    /// problem a line, each naming its event or contact.
    #[error("{}", problems.join("\n"))]
    Events {
        /// The model's name.
        model: String,
        /// The problems, one a line.
        problems: Vec<String>,
    },
    /// The JIT failed on a function of the model. `Model` no longer returns it: its programs
    /// run on the tape until Cranelift's code is compiled, and a failure of Cranelift is a
    /// line on standard error while the code before serves on (`udk_jit::Function`). Kept so
    /// that code matching on it still compiles.
    #[error(transparent)]
    Jit(#[from] udk_jit::JitError),
    /// No parameter of this name.
    #[error("`{name}` is not a parameter of `{model}` (parameters: {parameters})")]
    UnknownParameter {
        /// The name given.
        name: String,
        /// The model's name.
        model: String,
        /// The model's parameters, comma-separated.
        parameters: String,
    },
    /// A parameter with no value was needed.
    #[error("parameter `{name}` of `{model}` has no value: set it with `set_parameter`")]
    MissingParameter {
        /// The parameter.
        name: String,
        /// The model's name.
        model: String,
    },
    /// A vector of the wrong length.
    #[error("`{what}` has {given} entries but `{model}` needs {expected}")]
    Length {
        /// `q`, `qd`, `p` or `u`.
        what: &'static str,
        /// Entries needed.
        expected: usize,
        /// Entries given.
        given: usize,
        /// The model's name.
        model: String,
    },
    /// A Lagrangian function asked of a Hamiltonian model, or the reverse.
    #[error("`{model}` is not a {wanted} model")]
    WrongKind {
        /// "Lagrangian" or "Hamiltonian".
        wanted: &'static str,
        /// The model's name.
        model: String,
    },
    /// A servo function asked of a model without servo constraints.
    #[error("`{model}` has no servo constraints")]
    NoServo {
        /// The model's name.
        model: String,
    },
    /// The error of the kernels, as the generated code returns it.
    #[error(transparent)]
    Runtime(#[from] udk_runtime::Error),
    /// A simulation that stopped before its final time (or did not start): the simulator's
    /// message, with the motion recorded up to then.
    #[error("{message}")]
    Simulation {
        /// The simulator's message (`udk_runtime::simulate::SimulationError`).
        message: String,
        /// The time the run stopped (s); `None` when it did not start.
        time: Option<f64>,
        /// The motion up to the last good output time; `None` when the run did not start.
        motion: Option<Box<super::Motion>>,
    },
    /// A matrix of the wrong shape given to a batch evaluation.
    #[error("`{what}` is {}×{} but `{model}` needs {}×{}", given.0, given.1, expected.0, expected.1)]
    Shape {
        /// `q`, `qd` or `parameters`.
        what: &'static str,
        /// Rows and columns needed.
        expected: (usize, usize),
        /// Rows and columns given.
        given: (usize, usize),
        /// The model's name.
        model: String,
    },
    /// The evaluation of one state of a batch failed (the failure of the lowest index).
    #[error("state {index} of the batch: {source}")]
    Batch {
        /// The state's index: its column in the batch.
        index: usize,
        /// Why it failed.
        source: Box<ModelError>,
    },
}

impl ModelError {
    /// This error as the simulator's error, where a simulator asks a model for its
    /// acceleration Jacobian (variational equations, Floquet multipliers): a run-time error
    /// stays itself, any other (Cranelift failing on the Jacobians' program) becomes
    /// `udk_runtime::Error::JacobianUnavailable`, which the simulator reports by name.
    pub fn into_jacobian_error(self) -> udk_runtime::Error {
        match self {
            ModelError::Runtime(e) => e,
            _ => udk_runtime::Error::JacobianUnavailable {
                what: "the acceleration Jacobian (its program did not compile)",
            },
        }
    }
}

impl ModelError {
    /// A run that stopped with `error`, as [`ModelError::Simulation`]: its message and time,
    /// with the motion up to the stop made from its trajectory by `motion` (whose own error is
    /// returned instead when it fails).
    pub(crate) fn stopped<const N: usize>(
        error: &udk_runtime::simulate::SimulationError<N>,
        motion: impl FnOnce(&udk_runtime::simulate::Trajectory<N>) -> Result<super::Motion, ModelError>,
    ) -> ModelError {
        match error.trajectory().map(motion).transpose() {
            Ok(motion) => ModelError::Simulation {
                message: error.to_string(),
                time: error.time(),
                motion: motion.map(Box::new),
            },
            Err(e) => e,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ModelError;

    #[test]
    fn a_simulator_sees_run_time_errors_as_they_are_and_others_as_jacobian_unavailable() {
        let runtime = udk_runtime::Error::NonFinite {
            what: "mass matrix M",
        };
        assert_eq!(
            ModelError::Runtime(runtime.clone()).into_jacobian_error(),
            runtime
        );
        let missing = ModelError::MissingParameter {
            name: "m".into(),
            model: "pendulum".into(),
        };
        assert!(matches!(
            missing.into_jacobian_error(),
            udk_runtime::Error::JacobianUnavailable { .. }
        ));
    }
}
