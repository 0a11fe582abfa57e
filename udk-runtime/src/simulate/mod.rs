//! Simulation of any generated system: integration with DOP853, DOPRI5 or RK4 (from the
//! `differential-equations` crate), Baumgarte stabilization, projection onto the constraint
//! manifold, and the resulting [`Trajectory`] with CSV and SVG output; the [`Summary`] table
//! row of a run, and [`Showcase`], a named run timed, summarized and saved.
//!
//! Behind the default cargo feature `simulate`; `default-features = false` leaves it out.
//!
//! ```ignore
//! use udk::simulate::{simulate_lagrangian, OutputTimes, SimulationOptions};
//! let options = SimulationOptions { output: OutputTimes::Every(0.01), ..Default::default() };
//! let trajectory = simulate_lagrangian(&pendulum, &q0, &qd0, 0.0, 10.0, &options)?;
//! println!("max |f| = {:e}", trajectory.max_position_residual());
//! trajectory.write_csv("target/udk/pendulum.csv")?;
//! let plot = PlotOptions::new("spherical pendulum", &["x", "y", "z"]);
//! trajectory.plot_svg("target/udk/pendulum.svg", &plot)?;
//! ```

mod csv;
mod dynamic;
mod dynamics;
mod error;
mod integrate;
mod options;
mod plot;
mod stabilization;
mod summary;
mod trajectory;

pub use self::csv::{csv_header, CsvWriter, OutputError};
pub use dynamic::{
    consistent_dynamic_hamiltonian_state, consistent_dynamic_lagrangian_state,
    simulate_dynamic_hamiltonian, simulate_dynamic_lagrangian, DynamicHamiltonianSystem,
    DynamicHamiltonianTerms, DynamicLagrangianSystem, DynamicLagrangianTerms,
};
pub use error::{ConstraintLevel, FailedState, SimulationError, Violation};
pub use integrate::{simulate_hamiltonian, simulate_lagrangian};
pub use options::{Baumgarte, Method, OutputTimes, Projection, SimulationOptions};
pub use plot::PlotOptions;
pub use summary::{Report, Showcase, Summary};
pub use trajectory::{Sample, StateKind, Stats, Trajectory};
