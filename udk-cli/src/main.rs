//! The `udk` binary: see the `udk_cli` library and `udk --help`.

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args = udk_cli::Args::parse();
    // Parsing and deriving recurse into expressions, as deep as udk_symbolic::limits allows.
    match udk_symbolic::limits::on_large_stack(|| udk_cli::run(&args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            for line in failure.lines() {
                eprintln!("udk: error: {line}");
            }
            ExitCode::from(failure.exit_code())
        }
    }
}
