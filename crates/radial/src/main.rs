//! `radial`: run, sweep, reproduce and benchmark transport experiments, and
//! move real files over UDP (`serve`, `get`).

mod ablation;
mod bars;
mod bench;
mod bench_scaling;
mod bound;
mod cli;
mod demo;
mod emulate;
mod error;
mod league;
mod net;
mod options;
mod plot;
mod repro;
mod run;
mod shard;
mod shell;
mod stress;
mod sweep;
mod timeseries;
mod tunnel;

use std::process::ExitCode;

fn main() -> ExitCode {
    cli::main()
}
