//! The command line, parsed by clap.

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// udk: constrained mechanical systems by the Udwadia–Kalaba equation, from model files
/// (TOML, or JSON when the name ends in `.json`), with no recompiling.
///
/// Exit codes: 0 success; 2 bad input (malformed file, unknown symbol, wrong vector length, an
/// initial state off the constraints); 3 no trustworthy motion at a state (non-unique
/// acceleration, inconsistent constraints); 1 an output that cannot be written.
#[derive(Debug, Parser)]
#[command(name = "udk", version)]
pub struct Args {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
    /// Evaluate the model by the run-time tape, interpreted (the reference), instead of the
    /// native code the JIT compiles it to; the output is the same, byte for byte.
    #[arg(long, global = true)]
    pub interpret: bool,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print n, m and the derived M, Q, A, b and C (H_p, H_q, H_pp, A_p and b_p for a
    /// Hamiltonian model), entry by entry.
    Derive {
        /// The model file.
        model: PathBuf,
        /// Print LaTeX instead of plain text.
        #[arg(long)]
        latex: bool,
    },
    /// Print the Rust code `#[lagrangian]` / `#[hamiltonian]` generates for the model, formatted
    /// as `UDK_EXPAND_DIR` writes it (for `pub struct <name> { pub <parameter>: f64, … }`).
    Expand {
        /// The model file.
        model: PathBuf,
    },
    /// Evaluate the equations of motion at one state (or many) and print JSON: the acceleration
    /// (ṗ for a Hamiltonian model), the constraint force, M, Q, A, b, C and ranks.
    Eval(EvalArgs),
    /// Simulate the model from its initial state with the udk-runtime simulator.
    Simulate(SimulateArgs),
    /// Print the exact Jacobian of the motion at one state as JSON: q̈ and ∂q̈/∂q, ∂q̈/∂q̇,
    /// ∂q̈/∂u (rows as arrays) of a Lagrangian model; (q̇, ṗ) and ∂(q̇, ṗ)/∂q, ∂(q̇, ṗ)/∂p of a
    /// Hamiltonian one. Exit code 3 where the derivative does not exist (the rank of A
    /// changes).
    Jacobian(JacobianArgs),
    /// Linearize a Lagrangian model about an operating point on its constraints and print
    /// JSON: the independent, dependent and held coordinates and velocities, A_ss and B_ss in
    /// the state (q_I, q̇_J), and the eigenvalues of A_ss as [re, im] sorted by real part, then
    /// imaginary part. Exit code 2 for a point off the constraints (naming the row), 3 where
    /// the derivative does not exist.
    Linearize(LinearizeArgs),
    /// Find a periodic orbit through the section of a reset event (a walker's heel strike)
    /// from the file's initial guess, by Newton's method on the return map, and print JSON
    /// `{"state": [q…, q̇…], "period": T, "multipliers": [[re, im], …], "iterations": k}`: the
    /// state on the section just after the reset, the Floquet multipliers by decreasing
    /// magnitude.
    LimitCycle(LimitCycleArgs),
}

/// Arguments of `udk limit-cycle`.
#[derive(Debug, clap::Args)]
pub struct LimitCycleArgs {
    /// The model file; its `[initial]` table is the guess on the section.
    pub model: PathBuf,
    /// The event whose reset is the section (default: the file's only reset event).
    #[arg(long)]
    pub section: Option<String>,
    /// Set a parameter's value, overriding the file's: `--set name=value`, repeatable.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub set: Vec<String>,
    /// Relative tolerance of the integrator (DOP853).
    #[arg(long, default_value_t = 1e-12)]
    pub rtol: f64,
    /// Absolute tolerance of the integrator.
    #[arg(long, default_value_t = 1e-14)]
    pub atol: f64,
    /// A return must reach the section within this time (s).
    #[arg(long, default_value_t = 100.0)]
    pub max_period: f64,
}

/// Arguments of `udk linearize`.
#[derive(Debug, clap::Args)]
pub struct LinearizeArgs {
    /// The model file.
    pub model: PathBuf,
    /// The operating point (q*, q̇*, u*, t*) (default: the file's initial state).
    #[command(flatten)]
    pub state: StateOptions,
    /// Independent coordinates (0-based indices, comma-separated), the state's first entries;
    /// also the independent velocities unless --independent-velocities is given. Default:
    /// chosen by pivoted QR of the constraint Jacobian.
    #[arg(long, value_delimiter = ',', num_args = 1)]
    pub independent: Vec<usize>,
    /// Independent velocities (0-based indices), the state's last entries.
    #[arg(long, value_delimiter = ',', num_args = 1)]
    pub independent_velocities: Vec<usize>,
    /// Coordinates held at their operating values (ignorable ones), never dependent.
    #[arg(long, value_delimiter = ',', num_args = 1)]
    pub held: Vec<usize>,
    /// Velocities held at their operating values (e.g. a wheel rate at constant speed).
    #[arg(long, value_delimiter = ',', num_args = 1)]
    pub held_velocities: Vec<usize>,
    /// Set a parameter's value, overriding the file's: `--set name=value`, repeatable.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub set: Vec<String>,
}

/// Arguments of `udk jacobian`.
#[derive(Debug, clap::Args)]
pub struct JacobianArgs {
    /// The model file.
    pub model: PathBuf,
    /// The state (default: the file's initial state).
    #[command(flatten)]
    pub state: StateOptions,
    /// Set a parameter's value, overriding the file's: `--set name=value`, repeatable.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub set: Vec<String>,
}

/// The state options of `udk eval` and `udk jacobian`: `--q`, `--qd` or `--p`, `--t`, `--u`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct StateOptions {
    /// Generalized coordinates q, n comma-separated numbers (default: the file's initial q0).
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true, num_args = 1)]
    pub q: Vec<f64>,
    /// Generalized velocities q̇ of a Lagrangian model, n comma-separated numbers.
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true, num_args = 1)]
    pub qd: Vec<f64>,
    /// Generalized momenta p of a Hamiltonian model, n comma-separated numbers.
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true, num_args = 1)]
    pub p: Vec<f64>,
    /// Time t (s).
    #[arg(long, allow_hyphen_values = true)]
    pub t: Option<f64>,
    /// Inputs u of a model with `inputs`, k comma-separated numbers.
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true, num_args = 1)]
    pub u: Vec<f64>,
}

/// Arguments of `udk eval`.
#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    /// The model file.
    pub model: PathBuf,
    /// The state (default: the file's initial state).
    #[command(flatten)]
    pub state: StateOptions,
    /// Set a parameter's value, overriding the file's: `--set name=value`, repeatable.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub set: Vec<String>,
    /// A file of states `{"t": …, "q": […], "qd": […]}` (`"p"` for a Hamiltonian model): a
    /// JSON array, whose output is a JSON array in the same order, or JSON Lines (a name ending
    /// in `.jsonl`, one state a line), whose output is one report a line. Both are streamed:
    /// each report is written as its state is read, so memory does not grow with the count.
    /// `-` reads JSON Lines from standard input and writes (and flushes) each report line as
    /// soon as its state line is read, for a program on the other end of a pipe.
    #[arg(long, conflicts_with_all = ["q", "qd", "p", "t", "u"])]
    pub states: Option<PathBuf>,
    /// The servo law for the `servo` object of a model with `servo` constraints (the
    /// controller's u, servo force, unrealized force and task residual at each state).
    #[command(flatten)]
    pub servo: ServoOptions,
}

/// Arguments of `udk simulate`.
#[derive(Debug, clap::Args)]
pub struct SimulateArgs {
    /// The model file; its `[initial]` table gives t0, q0 and qd0 (or p0).
    pub model: PathBuf,
    /// Final time (s).
    #[arg(long, allow_hyphen_values = true)]
    pub t_end: f64,
    /// Relative tolerance of the adaptive integrators.
    #[arg(long, default_value_t = 1e-10)]
    pub rtol: f64,
    /// Absolute tolerance of the adaptive integrators.
    #[arg(long, default_value_t = 1e-12)]
    pub atol: f64,
    /// The integrator.
    #[arg(long, value_enum, default_value_t = Method::Dop853)]
    pub method: Method,
    /// Step of the fixed-step RK4 integrator (s).
    #[arg(long, default_value_t = 1e-3)]
    pub step: f64,
    /// Output times every this many seconds (default: (t_end − t0) / 1000).
    #[arg(long)]
    pub dt_out: Option<f64>,
    /// Integrate A q̈ = b as derived, without Baumgarte stabilization (the simulator's default
    /// gains otherwise).
    #[arg(long)]
    pub no_stabilization: bool,
    /// How far the initial state may violate a constraint.
    #[arg(long, default_value_t = 1e-8)]
    pub constraint_tol: f64,
    /// Project the file's initial state onto the constraints first (minimum-norm Gauss–Newton
    /// on q, then the minimum-norm correction of q̇ or p), so that a rough guess can start a
    /// closed loop; prints the assembled state.
    #[arg(long)]
    pub assemble: bool,
    /// With --assemble: coordinates (by name) whose q and q̇ (or p) are kept as given,
    /// comma-separated.
    #[arg(long, value_delimiter = ',', num_args = 1, requires = "assemble")]
    pub fixed: Vec<String>,
    /// Stop after this many integrator steps (accepted and rejected) over the whole run, with a
    /// message naming this option; raise it for a long or tight run.
    #[arg(long, default_value_t = 100_000)]
    pub max_steps: usize,
    /// Inputs u of a model with `inputs`, k comma-separated numbers, held constant.
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true, num_args = 1)]
    pub u: Vec<f64>,
    /// Set a parameter's value, overriding the file's: `--set name=value`, repeatable.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub set: Vec<String>,
    /// Write the trajectory as CSV, one row per output time as the run goes (flushed each row,
    /// so that an interrupted run keeps what it computed).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Write the event log of the model's `[[events]]` as CSV: t, the event, then q and q̇
    /// before and after it.
    #[arg(long)]
    pub events: Option<PathBuf>,
    /// Plot the trajectory as SVG.
    #[arg(long)]
    pub plot: Option<PathBuf>,
    /// With --plot: the curves of the top panel, comma-separated: coordinate names, or CSV
    /// columns (`q2`, `qd1` or `p1`, `energy`, ...). Default: every coordinate.
    #[arg(long, value_delimiter = ',', num_args = 1, requires = "plot")]
    pub plot_columns: Vec<String>,
    /// The servo law of a model with `servo` constraints.
    #[command(flatten)]
    pub servo: ServoOptions,
}

/// The law of the servo controller of a model with `servo` constraints: `--servo-gain` for the
/// review paper's eq 72, `--servo-stiffness`/`--servo-damping` for the task-space law, none of
/// them for no convergence term.
#[derive(Debug, Clone, Copy, Default, clap::Args)]
pub struct ServoOptions {
    /// A model with `servo` constraints: the gain P (s) of the review paper's eq 72, which
    /// drives the servo error β as β̇ = −β/P (see the guide's "Control by constraints").
    #[arg(long)]
    pub servo_gain: Option<f64>,
    /// A model with `servo` constraints: K_p (s⁻²) of the task-space law ë = −K_d ė − K_p e.
    #[arg(long)]
    pub servo_stiffness: Option<f64>,
    /// A model with `servo` constraints: K_d (s⁻¹) of the task-space law.
    #[arg(long)]
    pub servo_damping: Option<f64>,
}

/// The integrators of the simulator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Method {
    /// Adaptive Dormand–Prince 8(5,3).
    Dop853,
    /// Adaptive Dormand–Prince 5(4).
    Dopri5,
    /// Classical fixed-step Runge–Kutta 4.
    Rk4,
    /// Implicit Radau IIA of order 5, adaptive, for stiff models (exact Jacobian from the
    /// tapes is not wired in: forward differences).
    Radau5,
    /// Implicit variable-order BDF (NDF), adaptive, for stiff models (forward-difference
    /// Jacobian).
    Bdf,
}
