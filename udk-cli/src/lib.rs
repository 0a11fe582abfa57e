//! The `udk` command line: models as TOML or JSON files, derived, expanded, evaluated and
//! simulated with no rustc.
//!
//! - [`model_file`]: a `udk_symbolic::ModelSpec` (plus optional initial conditions) read from a
//!   file, with every error located at its file, line and column;
//! - [`model`]: the derived model with its parameter values, and its run-time evaluator, a
//!   `udk::Model` compiled by the JIT (or the tape with `--interpret`) that evaluates M, Q, A,
//!   b, C (or H_p, H_q, H_pp, A_p, b_p) at a state;
//! - [`eval`]: `udk eval`, the equations of motion at states as JSON;
//! - [`simulate`]: `udk simulate`, the udk-runtime simulator run on the compiled model;
//! - [`free_flyer`]: `udk eval` and `udk simulate` on a robot on a floating base
//!   (`urdf = { path = "..", floating_base = true }`);
//! - [`jacobian`]: `udk jacobian`, the exact Jacobian of the motion at a state as JSON;
//! - [`linearize`]: `udk linearize`, the linearized motion about an operating point as JSON;
//! - [`hybrid`]: the `[[events]]` of a model file, run by `udk simulate`;
//! - [`limit_cycle`]: `udk limit-cycle`, a periodic orbit through an event's reset as JSON;
//! - [`args`]: the command line; [`run`] runs it.

pub mod args;
pub mod eval;
mod failure;
pub mod free_flyer;
pub mod hybrid;
pub mod jacobian;
pub mod limit_cycle;
pub mod linearize;
pub mod model;
pub mod model_file;
mod servo;
pub mod simulate;

pub use args::{Args, Command};
pub use failure::Failure;

use std::io::Write;

/// Runs one command, printing its result on standard output.
///
/// # Errors
/// A [`Failure`] whose exit code is 2 for bad input, 3 for a state with no trustworthy motion,
/// 1 for an output that cannot be written.
pub fn run(args: &Args) -> Result<(), Failure> {
    let backend = match args.interpret {
        true => model::Backend::Tape,
        false => model::Backend::Jit,
    };
    match &args.command {
        Command::Derive { model, latex } => {
            let model = model::Model::load(model)?;
            for message in model.derivation.undetermined_messages() {
                eprintln!("udk: warning: {}: {message}", model.file.name());
            }
            let sheet = if *latex {
                udk_symbolic::emit::equations_latex(&model.derivation)
            } else {
                udk_symbolic::emit::equations_text(&model.derivation)
            };
            print(&sheet)
        }
        Command::Expand { model } => {
            let file = model_file::ModelFile::load(model)?;
            let source = udk_symbolic::codegen::expand(&file.spec).map_err(|e| file.locate(&e))?;
            print(&source)
        }
        Command::Eval(eval_args) => {
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            let result = eval::run(eval_args, backend, &mut out);
            let flushed = out
                .flush()
                .map_err(|e| Failure::Output(format!("cannot write to standard output: {e}")));
            result.and(flushed)
        }
        Command::Simulate(simulate_args) => print(&simulate::run(simulate_args, backend)?),
        Command::Jacobian(jacobian_args) => print(&jacobian::run(jacobian_args, backend)?),
        Command::Linearize(linearize_args) => print(&linearize::run(linearize_args, backend)?),
        Command::LimitCycle(limit_cycle_args) => {
            print(&limit_cycle::run(limit_cycle_args, backend)?)
        }
    }
}

/// Writes `text` to standard output.
fn print(text: &str) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| Failure::Output(format!("cannot write to standard output: {e}")))
}
