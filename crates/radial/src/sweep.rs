//! `radial sweep`: every point and seed of a scenario, in parallel, with a
//! progress bar; `results.csv` with one row per flow and run
//! ([`radial_sim::batch`] runs them and writes the table).

use std::path::Path;

use indicatif::{ProgressBar, ProgressStyle};
use radial_sim::scenario::Point;
use radial_sim::Scenario;

pub use radial_sim::batch::{render, results_csv, rows, run_tasks_adjusted, tasks, Row, RunResult};

use crate::error::CliError;
use crate::options::jobs;
use crate::run::write;
use crate::shard::{Shard, ShardFile};

/// Runs every (point, seed) of `sc` on `jobs` threads. Results come back in
/// sweep order whatever the thread timing, so outputs are deterministic.
pub fn run_sweep(sc: &Scenario, jobs: usize, label: &str) -> Result<Vec<RunResult>, CliError> {
    run_share(sc, jobs, label, None)
}

/// As [`run_sweep`], only the runs `shard` owns (all without one).
pub fn run_share(
    sc: &Scenario,
    jobs: usize,
    label: &str,
    shard: Option<Shard>,
) -> Result<Vec<RunResult>, CliError> {
    let tasks: Vec<(Point, u64)> = tasks(sc)
        .into_iter()
        .enumerate()
        .filter(|(i, _)| shard.is_none_or(|s| s.owns(*i)))
        .map(|(_, t)| t)
        .collect();
    run_chosen(sc, tasks, jobs, label, &|_| {})
}

/// Runs the chosen `tasks` of `sc`, each spec changed by `adjust`, with a
/// progress bar labelled `label`.
pub fn run_chosen(
    sc: &Scenario,
    tasks: Vec<(Point, u64)>,
    jobs: usize,
    label: &str,
    adjust: &(dyn Fn(&mut radial_sim::spec::RunSpec) + Sync),
) -> Result<Vec<RunResult>, CliError> {
    let bar = ProgressBar::new(tasks.len() as u64);
    bar.set_style(
        ProgressStyle::with_template(
            "{prefix} [{bar:40}] {pos}/{len} runs, {elapsed} elapsed, ETA {eta}",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    bar.set_prefix(label.to_string());
    let results = run_tasks_adjusted(sc, tasks, jobs, &|| bar.inc(1), adjust)?;
    bar.finish_and_clear();
    Ok(results)
}

/// Mean goodput per (point, protocol) over seeds and flows, in sweep order.
pub fn means(results: &[RunResult]) -> Vec<(Point, String, f64, f64, usize)> {
    let mut rows: Vec<(Point, String, Vec<f64>)> = Vec::new();
    for r in results {
        for f in &r.summary.flows {
            match rows
                .iter_mut()
                .find(|(p, proto, _)| *p == r.point && *proto == f.protocol)
            {
                Some(row) => row.2.push(f.goodput_mbps),
                None => rows.push((r.point.clone(), f.protocol.clone(), vec![f.goodput_mbps])),
            }
        }
    }
    rows.into_iter()
        .map(|(p, proto, g)| {
            let n = g.len() as f64;
            let mean = g.iter().sum::<f64>() / n;
            let sd =
                (g.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0)).sqrt();
            (p, proto, mean, sd, g.len())
        })
        .collect()
}

pub fn sweep_cmd(
    scenario: &Path,
    out: &Path,
    jobs_flag: Option<usize>,
    shard: Option<&str>,
) -> Result<(), CliError> {
    let sc = Scenario::load(scenario)?;
    let shard = shard.map(Shard::parse).transpose()?;
    if let Some(p) = sc.points().first() {
        if !sc.build(p, sc.seeds[0])?.pcap.is_empty() {
            eprintln!(
                "note: a sweep writes no packet captures; `radial run` writes those of [trace]"
            );
        }
    }
    let results = run_share(&sc, jobs(jobs_flag), &sc.name, shard)?;
    crate::error::out_dir(out)?;
    let written = match shard {
        None => {
            let path = out.join("results.csv");
            write(&path, &results_csv(&sc, &results))?;
            path
        }
        Some(s) => {
            let names = sc.params.iter().map(|(n, _)| n.clone()).collect();
            let rows = rows(&sc, &results, s.index - 1, s.count);
            let file = ShardFile::new(&sc.name, s, tasks(&sc).len(), names, rows);
            let path = out.join(s.file_name());
            let json = serde_json::to_string(&file)
                .map_err(|e| CliError::Failed(format!("shard file: {e}")))?;
            write(&path, &json)?;
            path
        }
    };
    let corrupt: u64 = results
        .iter()
        .flat_map(|r| &r.summary.flows)
        .map(|f| f.corrupt_bytes)
        .sum();
    println!("{}: {} runs", sc.name, results.len());
    println!(
        "{:<28} {:<12} {:>10} {:>8} {:>6}",
        "point", "protocol", "mean Mb/s", "sd", "n"
    );
    for (p, proto, mean, sd, n) in means(&results) {
        let label = crate::run::describe_point(&p);
        let label = if label.is_empty() {
            "-".to_string()
        } else {
            label.trim().to_string()
        };
        println!("{label:<28} {proto:<12} {mean:>10.4} {sd:>8.4} {n:>6}");
    }
    if corrupt > 0 {
        return Err(CliError::Failed(format!(
            "{corrupt} bytes were delivered corrupted"
        )));
    }
    println!("wrote {}", written.display());
    Ok(())
}
