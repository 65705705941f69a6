//! Command-line parsing and dispatch. User errors exit with status 2.

use crate::error::CliError;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Radial: receiver-centric transport for multi-homed mobile hosts —
/// simulator, experiments, benchmarks, and file transfer over UDP.
#[derive(Parser, Debug)]
#[command(
    name = "radial",
    version,
    about,
    after_help = "Documentation: README.md and docs/ in the source tree \
(docs/scenarios.md for scenario files, docs/runtime.md for serve and get, \
docs/results/ for the reproduced figures).\n\n\
Exit status: 0 done; 1 the work failed; 2 bad input (files, flags, \
addresses); 3 `repro` ran but some acceptance checks do not hold."
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run the flagship comparison on its embedded scenario and write a report
    /// to radial-out/demo/.
    #[command(after_help = "Example:\n  radial demo\n  radial demo --out /tmp/demo --jobs 2")]
    Demo {
        /// Output directory.
        #[arg(long, default_value = "radial-out/demo")]
        out: PathBuf,
        /// Parallel simulations (default: available cores).
        #[arg(long, value_parser = jobs_count)]
        jobs: Option<usize>,
    },
    /// Run one simulation of a scenario.
    ///
    /// Writes OUT/summary.json (a pure function of scenario and seed),
    /// OUT/series.csv (in-order delivery per flow over time), OUT/timing.json
    /// (wall-clock time and events), OUT/pipes.csv for multipath flows (each
    /// pipe's delivery over time) and OUT/LINK.pcap for each captured link.
    #[command(after_help = "Examples:\n  \
radial run scenarios/validation/s1-wireless-loss.toml --set loss=0.01 --seed 3 --out out/s1\n  \
radial run scenarios/trace/wlan-cellular.toml --pcap wlan --out out/trace")]
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
    #[command(after_help = "Examples:\n  \
radial sweep scenarios/validation/s2-dumbbell.toml --out out/s2 --jobs 2\n  \
radial sweep scenarios/validation/s2-dumbbell.toml --out out/s2 --shard 1/4")]
    Sweep {
        /// Scenario file (TOML).
        scenario: PathBuf,
        /// Output directory.
        #[arg(long)]
        out: PathBuf,
        /// Parallel simulations (default: available cores).
        #[arg(long, value_parser = jobs_count)]
        jobs: Option<usize>,
        /// Run only share I of N of the sweep's runs (1 <= I <= N) and write
        /// OUT/results-shard-I-of-N.json; `radial merge` joins the shares
        /// into the results.csv of the whole sweep (docs/cluster.md).
        #[arg(long, value_name = "I/N")]
        shard: Option<String>,
    },
    /// Join the shards of a sweep (`radial sweep --shard I/N`) into the
    /// results.csv the whole sweep writes.
    #[command(after_help = "Example:\n  radial merge out/shards --out out/s2")]
    Merge {
        /// Shard files, or directories holding results-shard-*.json.
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// Output directory.
        #[arg(long)]
        out: PathBuf,
    },
    /// Re-create a paper figure, or run the stress classes, the league or the
    /// ablation.
    ///
    /// A figure writes its plot, its table beside the paper's claim and the
    /// acceptance checks it is held to into OUT/<group>.md (e.g.
    /// radial-out/results/rcp.md); `stress` runs R²CP's stress classes into
    /// OUT/stress.md, `league` every multipath protocol on the same grids
    /// into OUT/league.md, `ablation` R²CP with each of its rules beyond the
    /// paper switched off into OUT/ablation.md. `--out docs/results` updates
    /// the published pages. Exits with status 3 when the run completed but
    /// some checks do not hold.
    #[command(after_help = crate::repro::figure_help())]
    Repro {
        /// Figure name, a group of figures, `all`, `stress`, `league` or
        /// `ablation` (the list is below).
        figure: String,
        /// Output directory (`docs/results` to update the published pages).
        #[arg(long, default_value = "radial-out/results")]
        out: PathBuf,
        /// Parallel simulations (default: available cores).
        #[arg(long, value_parser = jobs_count)]
        jobs: Option<usize>,
    },
    /// Time the simulator on the S2 dumbbell (20 flows, 300 s) and compare with
    /// ns-2 when it is installed.
    #[command(after_help = "Examples:\n  radial bench\n  radial bench --scaling")]
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
    #[command(after_help = "Example:\n  radial serve --root ./files --listen 0.0.0.0:7400")]
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
    #[command(after_help = "Examples:\n  \
radial get radial://server.example:7400/big.iso -o big.iso\n  \
radial get radial://server.example/big.iso --via 192.168.1.20 --via 10.20.0.7 -o big.iso")]
    Get {
        /// radial://HOST[:PORT]/PATH (port 7400 when not given)
        url: String,
        #[command(flatten)]
        flags: crate::net::GetFlags,
    },
    /// Let unmodified programs use every local address: a SOCKS5 proxy on
    /// loopback whose connections go, one stream each, through a stream
    /// connection to a `radial serve --tunnel` server, which opens them.
    #[command(after_help = "Examples:\n  \
radial tunnel radial://server.example:7400 --via 192.168.1.20 --via 10.20.0.7\n  \
curl --socks5-hostname 127.0.0.1:1080 https://example.org/")]
    Tunnel {
        /// radial://HOST[:PORT] (port 7400 when not given)
        url: String,
        #[command(flatten)]
        flags: crate::tunnel::TunnelFlags,
    },
    /// Emulate wireless paths on loopback between `radial get` and a server.
    ///
    /// Each path of the file relays datagrams through links with a rate, a
    /// delay, a drop-tail queue and loss, with timed down/up and rate
    /// changes. Prints each path's address and runs until interrupted.
    #[command(after_help = "Example:\n  radial emulate scenarios/emulate/two-paths.toml")]
    Emulate {
        /// Emulation file (TOML; docs/scenarios.md, "Emulation files").
        file: PathBuf,
    },
    /// Run a command whose network is an emulation file's paths (Linux, root).
    ///
    /// The command runs in a network namespace with one interface per path
    /// (10.0.I.2), the servers' namespace (10.255.0.1) behind them, and the
    /// file's schedule takes interfaces down and up. Exits with the
    /// command's status.
    #[command(after_help = "Examples:\n  \
radial shell scenarios/shell/two-paths.toml --measure\n  \
radial shell scenarios/shell/two-paths.toml --server 'radial serve --root ./files --listen 10.255.0.1:7400' \\\n      \
-- radial get radial://10.255.0.1:7400/big.bin --via 10.0.0.2 --via 10.0.1.2")]
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

/// `--jobs`: a count of parallel simulations, at least one.
fn jobs_count(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(format!("not a count: {e}")),
    }
}

/// The exit status of an error: 2 for bad input, 1 for a failure of the
/// work, 3 when checks do not hold.
fn status(e: &CliError) -> u8 {
    match e {
        CliError::Input(_) => 2,
        CliError::Failed(_) => 1,
        CliError::ChecksFail(_) => 3,
    }
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
        Command::Tunnel { url, flags } => crate::tunnel::tunnel(&url, &flags),
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
        Err(e) => {
            let kind = if matches!(e, CliError::ChecksFail(_)) {
                "note"
            } else {
                "error"
            };
            eprintln!("{kind}: {e}");
            ExitCode::from(status(&e))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_of_error_has_its_own_status() {
        assert_eq!(status(&CliError::Input(String::new())), 2);
        assert_eq!(status(&CliError::Failed(String::new())), 1);
        assert_eq!(status(&CliError::ChecksFail(String::new())), 3);
    }

    #[test]
    fn jobs_must_be_a_positive_count() {
        assert_eq!(jobs_count("3"), Ok(3));
        assert!(jobs_count("0").is_err());
        assert!(jobs_count("x").is_err());
    }
}
