//! `radial`: run, sweep, reproduce and benchmark transport experiments.

mod bench;
mod cli;
mod demo;
mod plot;
mod repro;
mod run;
mod sweep;
mod timeseries;

use std::process::ExitCode;

fn main() -> ExitCode {
    cli::main()
}
