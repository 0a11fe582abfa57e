//! The `udk` binary: see the `udk_cli` library and `udk --help`.

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args = udk_cli::Args::parse();
    match udk_cli::run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            for line in failure.lines() {
                eprintln!("udk: error: {line}");
            }
            ExitCode::from(failure.exit_code())
        }
    }
}
