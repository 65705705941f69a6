//! `radial shell FILE [--server CMD]... [--measure] [-- COMMAND...]`: the
//! paths of an emulation file around any program (`radial_net::shell`),
//! its schedule played from the moment the command starts, and everything
//! removed when the command ends, fails, or the shell is told to stop.

use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use radial_net::shell::{self, measure, Shell};
use radial_net::EmuCommand;
use rustix::process::{kill_process, kill_process_group, Pid, Signal};

use crate::emulate::{load, Emulation};
use crate::error::CliError;

/// `radial shell`'s flags.
#[derive(Debug, clap::Args)]
pub struct ShellArgs {
    /// Emulation file (TOML; docs/scenarios.md, "Emulation files"); its
    /// `server` and `front` keys are for `radial emulate` and not used.
    file: std::path::PathBuf,
    /// A command to run in the servers' namespace (address 10.255.0.1)
    /// while the shell lives, through `sh -c` (repeatable).
    #[arg(long)]
    server: Vec<String>,
    /// Measure each path's delay, rate and loss against the file, print
    /// them, and exit 1 if any is outside its bound (no COMMAND).
    #[arg(long, conflicts_with = "command")]
    measure: bool,
    /// With --measure: print JSON.
    #[arg(long, requires = "measure")]
    json: bool,
    /// The command to run in the host's namespace (default: $SHELL).
    #[arg(last = true)]
    command: Vec<String>,
}

/// Signals that end the shell (the command first).
struct Stop {
    term: Arc<AtomicBool>,
}

impl Stop {
    fn install() -> Result<Self, CliError> {
        let term = Arc::new(AtomicBool::new(false));
        // Ctrl-C reaches the command, which shares our process group: the
        // shell lives on until the command ends, as a terminal's shell does.
        let interrupt = Arc::new(AtomicBool::new(false));
        let register = |sig, flag: &Arc<AtomicBool>| {
            signal_hook::flag::register(sig, flag.clone())
                .map_err(|e| CliError::Failed(format!("cannot catch signal {sig}: {e}")))
        };
        register(signal_hook::consts::SIGINT, &interrupt)?;
        register(signal_hook::consts::SIGTERM, &term)?;
        register(signal_hook::consts::SIGHUP, &term)?;
        Ok(Stop { term })
    }

    fn requested(&self) -> bool {
        self.term.load(Ordering::Relaxed)
    }
}

/// Why a shell could not open, said for someone who has to fix it.
fn open_error(e: std::io::Error) -> CliError {
    if e.kind() == std::io::ErrorKind::PermissionDenied || !rustix::process::geteuid().is_root() {
        CliError::Failed(format!(
            "radial shell needs root (or CAP_NET_ADMIN) to make network namespaces and TUN \
             devices; `radial emulate` runs on loopback without it ({e})"
        ))
    } else {
        CliError::Failed(format!("cannot open the shell: {e}"))
    }
}

/// Starts `cmd` with the shell's variables.
fn spawn(mut cmd: Command, shell: &Shell, group: bool) -> std::io::Result<Child> {
    let addresses: Vec<String> = (0..shell.paths())
        .map(|i| shell::host_address(i).to_string())
        .collect();
    cmd.env("RADIAL_SHELL_SERVER", shell::SERVER.to_string())
        .env("RADIAL_SHELL_ADDRESSES", addresses.join(" "))
        .env("RADIAL_SHELL_HOST_NS", shell.host().name())
        .env("RADIAL_SHELL_SERVER_NS", shell.server().name());
    if group {
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        cmd.stdin(Stdio::null());
    }
    cmd.spawn()
}

/// Ends a server's whole process group: asked, then told.
fn stop_group(child: &mut Child) {
    let Some(pid) = Pid::from_raw(child.id() as i32) else {
        return;
    };
    let _ = kill_process_group(pid, Signal::TERM);
    let deadline = Instant::now() + Duration::from_secs(2);
    while Instant::now() < deadline {
        if matches!(child.try_wait(), Ok(Some(_))) {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = kill_process_group(pid, Signal::KILL);
    let _ = child.wait();
}

pub fn shell(args: &ShellArgs) -> Result<ExitCode, CliError> {
    let Emulation {
        paths,
        schedule,
        seed,
        ..
    } = load(&args.file)?;
    if paths.len() > shell::MAX_PATHS {
        return Err(CliError::Input(format!(
            "{}: a shell has at most {} paths",
            args.file.display(),
            shell::MAX_PATHS
        )));
    }
    let models: Vec<_> = paths.iter().map(|p| p.1).collect();
    let stop = Stop::install()?;
    let mut sh = Shell::open(&models, seed).map_err(open_error)?;
    describe(&sh, &models);
    if args.measure {
        return measure_paths(&sh, &models, args.json);
    }
    let mut servers = Vec::new();
    for s in &args.server {
        let child = spawn(sh.server_command(["sh", "-c", s]), &sh, true)
            .map_err(|e| CliError::Failed(format!("--server `{s}`: {e}")))?;
        servers.push(child);
    }
    let argv = if args.command.is_empty() {
        vec![std::env::var("SHELL").unwrap_or_else(|_| "/bin/sh".into())]
    } else {
        args.command.clone()
    };
    let result = run(&mut sh, &argv, &schedule, &stop);
    for s in &mut servers {
        stop_group(s);
    }
    let counters = sh
        .close()
        .map_err(|e| CliError::Failed(format!("emulator: {e}")))?;
    for (i, c) in counters.iter().enumerate() {
        eprintln!(
            "radial shell: path {i}: {} packets delivered, {} dropped by the queue, {} lost",
            c.delivered, c.queue_drops, c.lost
        );
    }
    result
}

/// Runs the command, playing the schedule, until it ends; its exit status.
fn run(
    sh: &mut Shell,
    argv: &[String],
    schedule: &[(Duration, EmuCommand)],
    stop: &Stop,
) -> Result<ExitCode, CliError> {
    let mut child = spawn(sh.host_command(argv), sh, false)
        .map_err(|e| CliError::Failed(format!("`{}`: {e}", argv.join(" "))))?;
    let start = Instant::now();
    let mut next = 0;
    loop {
        if let Some(status) = child
            .try_wait()
            .map_err(|e| CliError::Failed(e.to_string()))?
        {
            let code = status.code().unwrap_or(1).clamp(0, 255) as u8;
            return Ok(ExitCode::from(code));
        }
        if stop.requested() || sh.failed() {
            if let Some(pid) = Pid::from_raw(child.id() as i32) {
                let _ = kill_process(pid, Signal::TERM);
            }
            let _ = child.wait();
            let why = if sh.failed() {
                "the emulator stopped"
            } else {
                "stopped by a signal"
            };
            return Err(CliError::Failed(why.into()));
        }
        while let Some((at, c)) = schedule.get(next).filter(|(at, _)| *at <= start.elapsed()) {
            eprintln!(
                "radial shell: {:.3} s: {}",
                at.as_secs_f64(),
                describe_command(c)
            );
            if let Err(e) = sh.apply(*c) {
                eprintln!("radial shell: {e}");
            }
            next += 1;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn describe_command(c: &EmuCommand) -> String {
    match c {
        EmuCommand::SetUp(i, true) => format!("path {i} up"),
        EmuCommand::SetUp(i, false) => format!("path {i} down"),
        EmuCommand::SetRate(i, bps) => format!("path {i} at {:.3} Mbit/s", *bps as f64 / 1e6),
    }
}

/// Prints the shell's addresses and paths on standard error.
fn describe(sh: &Shell, models: &[radial_net::PathModel]) {
    eprintln!(
        "radial shell: host namespace {}, servers' namespace {} at {}{}",
        sh.host().name(),
        sh.server().name(),
        shell::SERVER,
        if sh.mptcp() {
            " (MPTCP endpoints on every path)"
        } else {
            ""
        }
    );
    for (i, m) in models.iter().enumerate() {
        eprintln!(
            "radial shell: path {i}: {} on {} ({:.3} Mbit/s down, {:.3} up, {} ms one way, queue {})",
            shell::host_address(i),
            shell::device_name(i),
            m.down.rate_bps as f64 / 1e6,
            m.up.rate_bps as f64 / 1e6,
            m.down.delay.as_secs_f64() * 1e3,
            m.down.queue
        );
    }
}

/// `--measure`: each path against its model.
fn measure_paths(
    sh: &Shell,
    models: &[radial_net::PathModel],
    json: bool,
) -> Result<ExitCode, CliError> {
    let rows = measure::measure(sh, models)
        .map_err(|e| CliError::Failed(format!("measuring the paths: {e}")))?;
    let ok = rows
        .iter()
        .all(|m| m.delay_ok() && m.rate_ok() != Some(false) && m.loss_ok() != Some(false));
    if json {
        let rows: Vec<_> = rows
            .iter()
            .map(|m| {
                serde_json::json!({
                    "path": m.path,
                    "delay_s": m.delay_s,
                    "measured_delay_s": m.measured_delay_s,
                    "delay_ok": m.delay_ok(),
                    "rate_bps": m.rate_bps,
                    "measured_rate_bps": m.measured_rate_bps,
                    "rate_ok": m.rate_ok(),
                    "loss": m.loss,
                    "measured_loss": m.measured_loss,
                    "loss_probes": m.loss_probes,
                    "loss_ok": m.loss_ok(),
                })
            })
            .collect();
        println!("{}", serde_json::json!({ "paths": rows, "ok": ok }));
    } else {
        println!("path  delay set/measured (ms)   rate set/measured (Mbit/s)   loss set/measured (99.9 % interval)");
        let verdict = |ok: bool| if ok { "ok" } else { "OFF" };
        for m in &rows {
            let k = (m.measured_loss * m.loss_probes as f64).round() as usize;
            let (lo, hi) = measure::wilson(k, m.loss_probes);
            println!(
                "{:>4}  {:>7.3} {:>8.3} {:<4}     {:>8.3} {:>8.3} {:<4}     {:.4} {:.4} [{:.4}, {:.4}] {}",
                m.path,
                m.delay_s * 1e3,
                m.measured_delay_s * 1e3,
                verdict(m.delay_ok()),
                m.rate_bps / 1e6,
                m.measured_rate_bps / 1e6,
                m.rate_ok().map_or("--", verdict),
                m.loss,
                m.measured_loss,
                lo,
                hi,
                m.loss_ok().map_or("bursty: no verdict", verdict)
            );
        }
    }
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
