//! `radial bench`: wall-clock speed of the simulator on the S2 dumbbell
//! (20 flows, 300 s simulated), side by side with ns-2 in the same run when
//! `ns` is installed, plus peak memory against simulated duration.
//!
//! Every measurement runs in a child process (`radial bench-one`, or `ns`), so
//! peak resident memory is per run. Runs alternate between the two simulators
//! and the median of `--repeat` runs is reported.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant as WallClock;

use radial_core::Duration;
use radial_sim::{Scenario, Simulator};

use crate::error::CliError;

/// The S2 dumbbell, embedded so `radial bench` runs anywhere.
pub(crate) const S2: &str = include_str!("../../../scenarios/validation/s2-dumbbell.toml");

/// One timed run, as `bench-one` prints it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sample {
    /// Simulation alone, timed inside the child.
    pub wall_s: f64,
    /// The whole child process, timed from outside (as ns-2 is).
    pub process_s: f64,
    pub events: u64,
    pub max_rss_kb: u64,
    /// Packets that crossed a link, summed over links (packet-hops).
    pub hops: u64,
}

fn load(scenario: Option<&Path>) -> Result<Scenario, CliError> {
    Ok(match scenario {
        Some(p) => Scenario::load(p)?,
        None => Scenario::parse("scenarios/validation/s2-dumbbell.toml (embedded)", S2)?,
    })
}

/// Peak resident set of this process in kB (Linux `VmHWM`), 0 elsewhere.
fn own_max_rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

/// `radial bench-one`: one run, printed as `wall_s events max_rss_kb`.
pub fn bench_one(
    scenario: Option<&Path>,
    duration_s: Option<f64>,
    seed: u64,
) -> Result<(), CliError> {
    let sc = load(scenario)?;
    let mut spec = sc.build(&sc.point_with(&[])?, seed)?;
    if let Some(d) = duration_s {
        spec.duration = Duration::from_secs_f64(d);
    }
    spec.sample_interval = Duration::ZERO;
    let t = WallClock::now();
    let out = Simulator::new(spec).run();
    let wall = t.elapsed().as_secs_f64();
    let hops: u64 = out.summary.links.iter().map(|l| l.stats.tx_packets).sum();
    println!(
        "{wall:.6} {} {} {hops}",
        out.summary.events,
        own_max_rss_kb()
    );
    Ok(())
}

pub(crate) fn child(args: &[String]) -> Result<Sample, CliError> {
    let exe = std::env::current_exe().map_err(|e| CliError::Failed(format!("current_exe: {e}")))?;
    let t = WallClock::now();
    let out = Command::new(exe)
        .arg("bench-one")
        .args(args)
        .output()
        .map_err(|e| CliError::Failed(format!("bench-one: {e}")))?;
    let process_s = t.elapsed().as_secs_f64();
    if !out.status.success() {
        return Err(CliError::Failed(
            String::from_utf8_lossy(&out.stderr).into_owned(),
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let v: Vec<&str> = text.split_whitespace().collect();
    let parse = |i: usize| v.get(i).and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0);
    Ok(Sample {
        wall_s: parse(0),
        process_s,
        events: parse(1) as u64,
        max_rss_kb: parse(2) as u64,
        hops: parse(3) as u64,
    })
}

/// Times `ns s2-dumbbell.tcl 1`; memory via GNU time when it is installed.
fn ns2_run(dir: &Path) -> Option<(f64, Option<u64>)> {
    let script = dir.join("s2-dumbbell.tcl");
    let gnu_time = Path::new("/usr/bin/time");
    let t = WallClock::now();
    let out = if gnu_time.exists() {
        Command::new(gnu_time)
            .args(["-f", "maxrss_kb=%M", "ns"])
            .arg(&script)
            .arg("1")
            .output()
            .ok()?
    } else {
        Command::new("ns").arg(&script).arg("1").output().ok()?
    };
    let wall = t.elapsed().as_secs_f64();
    if !out.status.success() {
        return None;
    }
    let rss = String::from_utf8_lossy(&out.stderr).lines().find_map(|l| {
        l.strip_prefix("maxrss_kb=")
            .and_then(|v| v.trim().parse().ok())
    });
    Some((wall, rss))
}

/// Wall time of `ns` running a script that exits at once: the start-up cost
/// included in every ns-2 measurement.
fn ns2_startup() -> Option<f64> {
    let script = std::env::temp_dir().join(format!("radial-bench-{}.tcl", std::process::id()));
    std::fs::write(&script, "exit 0\n").ok()?;
    let t = WallClock::now();
    let ok = Command::new("ns")
        .arg(&script)
        .output()
        .ok()?
        .status
        .success();
    let wall = t.elapsed().as_secs_f64();
    let _ = std::fs::remove_file(&script);
    ok.then_some(wall)
}

pub(crate) fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

pub fn bench(scenario: Option<&Path>, repeat: u32, ns2_dir: Option<&Path>) -> Result<(), CliError> {
    let sc = load(scenario)?;
    let scen_args: Vec<String> = scenario
        .map(|p| vec!["--scenario".to_string(), p.display().to_string()])
        .unwrap_or_default();
    let ns2_dir: Option<PathBuf> = ns2_dir.map(Path::to_path_buf).or_else(|| {
        let d = PathBuf::from("tools/ns2");
        d.join("s2-dumbbell.tcl").exists().then_some(d)
    });
    let have_ns = Command::new("ns").arg("-version").output().is_ok();
    println!(
        "benchmark: {} (seed 1), {} repetitions, median reported",
        sc.name,
        repeat.max(1)
    );
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    let mut startup = Vec::new();
    for _ in 0..repeat.max(1) {
        ours.push(child(&scen_args)?);
        if let (true, Some(dir)) = (have_ns, ns2_dir.as_deref()) {
            if let Some(r) = ns2_run(dir) {
                theirs.push(r);
            }
            startup.extend(ns2_startup());
        }
    }
    let wall = median(ours.iter().map(|s| s.wall_s).collect());
    let process = median(ours.iter().map(|s| s.process_s).collect());
    let events = ours[0].events;
    let rss = ours.iter().map(|s| s.max_rss_kb).max().unwrap_or(0);
    println!(
        "radial : simulation {wall:.3} s (whole process {process:.3} s), {events} events, {:.2} M events/s, peak RSS {rss} kB",
        events as f64 / wall / 1e6
    );
    if theirs.is_empty() {
        println!("ns-2   : not measured (install with tools/ns2/install-ns2.sh; run from the repository root)");
    } else {
        let nwall = median(theirs.iter().map(|r| r.0).collect());
        let nrss = theirs.iter().filter_map(|r| r.1).max();
        let start = if startup.is_empty() {
            0.0
        } else {
            median(startup)
        };
        println!(
            "ns-2   : wall {nwall:.3} s (whole process; start-up alone {start:.3} s), peak RSS {}",
            nrss.map_or("n/a (no /usr/bin/time)".into(), |k| format!("{k} kB"))
        );
        println!(
            "speed-up: {:.2}x (whole processes), {:.2}x (simulation alone against ns-2 less its start-up)",
            nwall / process,
            (nwall - start) / wall
        );
    }
    println!("peak memory against simulated duration:");
    let full = sc.build(&sc.point_with(&[])?, 1)?.duration.as_secs_f64();
    for frac in [0.25, 0.5, 1.0, 2.0] {
        let d = full * frac;
        let mut args = scen_args.clone();
        args.extend(["--duration".to_string(), format!("{d}")]);
        let s = child(&args)?;
        println!(
            "  {d:>6.0} s simulated: peak RSS {:>7} kB, wall {:.3} s",
            s.max_rss_kb, s.wall_s
        );
    }
    Ok(())
}
