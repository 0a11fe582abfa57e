//! Emitters: the derived equations as Rust tokens, as LaTeX or plain text, and as a run-time
//! evaluation tape.
//!
//! The code emitters lower the DAG outputs through one straight-line program, so the Rust code
//! of [`emit_rust`] and the [`Tape`] of [`compile_tape`] perform the same operations in the
//! same order: each distinct value once (common-subexpression elimination falls out of the
//! hash-consed DAG), integer powers by `powi`, negative powers as divisions, and sin and cos
//! of one argument by one `sin_cos`. [`count_ops`] reports the operation counts before and
//! after CSE. [`latex`] and [`text`] print single expressions; [`equations_text`] and
//! [`equations_latex`] print a whole derivation.

mod equations;
mod latex;
mod model_tape;
mod names;
mod program;
mod rust;
mod subexpressions;
mod tape;
mod terms;

pub use equations::{equations_latex, equations_text, value_text};
pub use latex::{latex, text};
pub use model_tape::{
    HamiltonianKind, HamiltonianTape, HamiltonianValues, LagrangianKind, LagrangianTape,
    LagrangianValues, ModelTape, Workspace, WrongModelKind,
};
pub use names::Names;
pub use program::{count_ops, Op, OpCounts, OpReport, Program, Step, Val};
pub use rust::{emit_rust, emit_rust_in_phases, RustBlock};
pub use tape::{compile_tape, Tape, TapeError, TapeInputs, TapeSizes};
