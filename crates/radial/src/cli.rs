//! Command-line parsing and dispatch. User errors exit with status 2.

use crate::error::CliError;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Radial: receiver-centric transport for multi-homed mobile hosts —
/// simulator, experiments, benchmarks, and file transfer over UDP.
#[derive(Parser, Debug)]
#[command(name = "radial", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run the flagship comparison on its embedded scenario and write a report
    /// to radial-out/demo/.
    Demo {
        /// Output directory.
        #[arg(long, default_value = "radial-out/demo")]
        out: PathBuf,
        /// Parallel simulations (default: available cores).
        #[arg(long)]
        jobs: Option<usize>,
    },
    /// Run one simulation of a scenario and write summary.json and series.csv.
    Run {
        /// Scenario file (TOML).
        scenario: PathBuf,
        /// Seed (default: the scenario's first seed).
        #[arg(long)]
        seed: Option<u64>,
        /// Set a sweep parameter: --set loss=0.01 (default: its first value; a zipped
        /// parameter's listed value brings its group's values along).
        #[arg(long = "set", value_name = "NAME=VALUE")]
        set: Vec<String>,
        /// Output directory.
        #[arg(long, default_value = "radial-out/run")]
        out: PathBuf,
        /// Capture the packets crossing this link (both directions) into
        /// OUT/LINK.pcap, as the scenario's `[trace] pcap` does; repeat for
        /// several links. Wireshark reads it with tools/wireshark/radial.lua.
        #[arg(long, value_name = "LINK")]
        pcap: Vec<String>,
    },
    /// Run every sweep point and seed of a scenario in parallel; write results.csv.
    Sweep {
        /// Scenario file (TOML).
        scenario: PathBuf,
        /// Output directory.
        #[arg(long)]
        out: PathBuf,
        /// Parallel simulations (default: available cores).
        #[arg(long)]
        jobs: Option<usize>,
        /// Run only share I of N of the sweep's runs (1 <= I <= N) and write
        /// OUT/results-shard-I-of-N.json; `radial merge` joins the shares
        /// into the results.csv of the whole sweep (docs/cluster.md).
        #[arg(long, value_name = "I/N")]
        shard: Option<String>,
    },
    /// Join the shards of a sweep (`radial sweep --shard I/N`) into the
    /// results.csv the whole sweep writes.
    Merge {
        /// Shard files, or directories holding results-shard-*.json.
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// Output directory.
        #[arg(long)]
        out: PathBuf,
    },
    /// Re-create a paper figure: plot, table beside the paper's claim, and the
    /// acceptance checks it is held to, in OUT/<group>.md (e.g.
    /// radial-out/results/rcp.md); `stress` runs R²CP's stress classes into
    /// OUT/stress.md, `league` every multipath protocol on the same grids
    /// into OUT/league.md, `ablation` R²CP with each of its rules beyond the
    /// paper switched off into OUT/ablation.md. `--out docs/results` updates
    /// the published pages.
    Repro {
        /// Figure name (rcp-fig5a, rcp-fig4c), `all`, `stress`, `league` or
        /// `ablation`.
        figure: String,
        /// Output directory (`docs/results` to update the published pages).
        #[arg(long, default_value = "radial-out/results")]
        out: PathBuf,
        /// Parallel simulations (default: available cores).
        #[arg(long)]
        jobs: Option<usize>,
    },
    /// Time the simulator on the S2 dumbbell (20 flows, 300 s) and compare with
    /// ns-2 when it is installed.
    Bench {
        /// Scenario to time (default: the embedded S2 dumbbell).
        #[arg(long)]
        scenario: Option<PathBuf>,
        /// Repetitions.
        #[arg(long, default_value_t = 3)]
        repeat: u32,
        /// Directory of ns-2's Tcl version (default: tools/ns2 if present).
        #[arg(long)]
        ns2_dir: Option<PathBuf>,
        /// The scaling curve instead: S2's dumbbell with 20, 200 and 2,000
        /// flows (bottleneck scaled with them), time per packet-hop beside
        /// ns-2's.
        #[arg(long, conflicts_with = "scenario")]
        scaling: bool,
    },
    /// Serve the files below a directory over UDP (RCP senders, one per pipe
    /// of each client). Servers with the same files are replicas.
    Serve {
        /// Directory whose files are served.
        #[arg(long)]
        root: PathBuf,
        /// Address to listen on, e.g. 0.0.0.0:7400 (repeatable).
        #[arg(long, required = true)]
        listen: Vec<String>,
        #[command(flatten)]
        flags: crate::net::ServeFlags,
    },
    /// Download radial://HOST[:PORT]/PATH with one R²CP pipe per local
    /// address, verify its SHA-256 and print a summary.
    Get {
        /// radial://HOST[:PORT]/PATH (port 7400 when not given)
        url: String,
        #[command(flatten)]
        flags: crate::net::GetFlags,
    },
    /// Emulate wireless paths on loopback between `radial get` and a server:
    /// each path of the file relays datagrams through links with a rate, a
    /// delay, a drop-tail queue and loss, with timed down/up and rate
    /// changes. Prints each path's address and runs until interrupted.
    Emulate {
        /// Emulation file (TOML; docs/scenarios.md, "Emulation files").
        file: PathBuf,
    },
    /// A shell whose network is an emulation file's paths (Linux, root):
    /// the command runs in a network namespace with one interface per path
    /// (10.0.I.2), the servers' namespace (10.255.0.1) behind them, and the
    /// file's schedule takes interfaces down and up. Exits with the
    /// command's status.
    Shell(crate::shell::ShellArgs),
    /// One timed run for `radial bench` (prints wall_s, events, peak RSS kB).
    #[command(hide = true)]
    BenchOne {
        /// Scenario to time (default: the embedded S2 dumbbell).
        #[arg(long)]
        scenario: Option<PathBuf>,
        /// Simulated duration in seconds (default: the scenario's).
        #[arg(long)]
        duration: Option<f64>,
        /// Seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
}

pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return match e.kind() {
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion => {
                    ExitCode::SUCCESS
                }
                _ => ExitCode::from(2),
            };
        }
    };
    let result = match cli.command {
        Command::Demo { out, jobs } => crate::demo::demo(&out, jobs),
        Command::Run {
            scenario,
            seed,
            set,
            out,
            pcap,
        } => crate::run::run(&scenario, seed, &set, &out, &pcap),
        Command::Sweep {
            scenario,
            out,
            jobs,
            shard,
        } => crate::sweep::sweep_cmd(&scenario, &out, jobs, shard.as_deref()),
        Command::Merge { inputs, out } => crate::shard::merge_cmd(&inputs, &out),
        Command::Repro { figure, out, jobs } => crate::repro::repro(&figure, &out, jobs),
        Command::Bench {
            scenario,
            repeat,
            ns2_dir,
            scaling,
        } => {
            if scaling {
                let dir = ns2_dir.or_else(|| {
                    let d = PathBuf::from("tools/ns2");
                    d.join("s2-dumbbell.tcl").exists().then_some(d)
                });
                crate::bench_scaling::scaling(repeat, dir.as_deref())
            } else {
                crate::bench::bench(scenario.as_deref(), repeat, ns2_dir.as_deref())
            }
        }
        Command::Serve {
            root,
            listen,
            flags,
        } => crate::net::serve(&root, &listen, &flags),
        Command::Get { url, flags } => crate::net::get(&url, &flags),
        Command::Emulate { file } => crate::emulate::emulate(&file),
        Command::Shell(args) => match crate::shell::shell(&args) {
            Ok(code) => return code,
            Err(e) => Err(e),
        },
        Command::BenchOne {
            scenario,
            duration,
            seed,
        } => crate::bench::bench_one(scenario.as_deref(), duration, seed),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(CliError::Input(m)) => {
            eprintln!("error: {m}");
            ExitCode::from(2)
        }
        Err(CliError::Failed(m)) => {
            eprintln!("error: {m}");
            ExitCode::from(1)
        }
    }
}
