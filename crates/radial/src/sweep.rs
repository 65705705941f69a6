//! `radial sweep`: every point and seed of a scenario, in parallel, with a
//! progress bar; `results.csv` with one row per flow and run.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use indicatif::{ProgressBar, ProgressStyle};
use radial_sim::metrics::{PipePoint, SeriesPoint, Summary};
use radial_sim::scenario::Point;
use radial_sim::{RunOutput, Scenario, Simulator};

use crate::cli::{io_err, jobs, CliError};
use crate::run::write;
use crate::shard::{Shard, ShardFile};

/// One finished run of a sweep.
pub struct RunResult {
    /// The sweep point.
    pub point: Point,
    /// The seed.
    pub seed: u64,
    /// Its summary.
    pub summary: Summary,
    /// Its time series.
    pub series: Vec<SeriesPoint>,
    /// Its per-pipe time series (multi-path flows).
    pub pipe_series: Vec<PipePoint>,
}

/// Runs every (point, seed) of `sc` on `jobs` threads. Results come back in
/// sweep order whatever the thread timing, so outputs are deterministic.
pub fn run_sweep(sc: &Scenario, jobs: usize, label: &str) -> Result<Vec<RunResult>, CliError> {
    run_share(sc, jobs, label, None)
}

/// Every run of `sc` in sweep order, with its index.
pub fn tasks(sc: &Scenario) -> Vec<(Point, u64)> {
    let mut tasks = Vec::new();
    for p in sc.points() {
        for &seed in &sc.seeds {
            tasks.push((p.clone(), seed));
        }
    }
    tasks
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
    // Build every spec up front: input errors surface before any work.
    let specs = tasks
        .iter()
        .map(|(p, seed)| sc.build(p, *seed))
        .collect::<Result<Vec<_>, _>>()?;
    let bar = ProgressBar::new(tasks.len() as u64);
    bar.set_style(
        ProgressStyle::with_template(
            "{prefix} [{bar:40}] {pos}/{len} runs, {elapsed} elapsed, ETA {eta}",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    bar.set_prefix(label.to_string());
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<RunOutput>>> = specs.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..jobs.min(specs.len()).max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(spec) = specs.get(i) else { break };
                let out = Simulator::new(spec.clone()).run();
                *slots[i].lock().expect("no poisoned slot") = Some(out);
                bar.inc(1);
            });
        }
    });
    bar.finish_and_clear();
    Ok(tasks
        .into_iter()
        .zip(slots)
        .map(|((point, seed), slot)| {
            let out = slot
                .into_inner()
                .expect("no poisoned slot")
                .expect("every run finished");
            RunResult {
                point,
                seed,
                summary: out.summary,
                series: out.series,
                pipe_series: out.pipe_series,
            }
        })
        .collect())
}

/// The output columns of `results.csv`, after the swept parameters.
const RESULT_COLUMNS: [&str; 14] = [
    "seed",
    "flow",
    "protocol",
    "goodput_mbps",
    "bytes_delivered",
    "retransmits",
    "timeouts",
    "fast_recoveries",
    "corrupt_bytes",
    "completion_time_s",
    "max_delivery_gap_s",
    "duplicate_bytes",
    "handoff_disruption_s",
    "overhead_bytes",
];

/// One row of `results.csv` before the columns are chosen: the run's index
/// in sweep order, every swept parameter's value, and the output columns
/// formatted.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The run's index in sweep order (points × seeds).
    pub task: usize,
    /// The swept parameters' values, in the scenario's order.
    pub params: Vec<String>,
    /// [`RESULT_COLUMNS`], formatted.
    pub fields: Vec<String>,
}

/// One row per flow and run; `first_task` is the first run's index in the
/// whole sweep and `stride` the step between runs (a shard's share).
pub fn rows(sc: &Scenario, results: &[RunResult], first_task: usize, stride: usize) -> Vec<Row> {
    let opt = |v: Option<f64>| v.map_or(String::new(), |t| format!("{t:.6}"));
    let mut out = Vec::new();
    for (i, r) in results.iter().enumerate() {
        for f in &r.summary.flows {
            out.push(Row {
                task: first_task + i * stride,
                params: sc
                    .params
                    .iter()
                    .map(|(n, _)| r.point.text(n).unwrap_or_default())
                    .collect(),
                fields: vec![
                    r.seed.to_string(),
                    f.name.clone(),
                    f.protocol.clone(),
                    format!("{:.6}", f.goodput_mbps),
                    f.bytes_delivered.to_string(),
                    f.retransmits.to_string(),
                    f.timeouts.to_string(),
                    f.fast_recoveries.to_string(),
                    f.corrupt_bytes.to_string(),
                    opt(f.completion_time_s),
                    format!("{:.6}", f.max_delivery_gap_s),
                    f.duplicate_bytes.to_string(),
                    opt(f.handoff_disruption_s),
                    f.overhead_bytes.to_string(),
                ],
            });
        }
    }
    out
}

/// `results.csv`: swept parameters, `seed`, `flow`, `protocol`,
/// `goodput_mbps`, then further metrics (docs/scenarios.md lists them). A
/// swept parameter named like an output column is not repeated when the
/// output column always equals it (a swept `protocol` with a single flow);
/// otherwise it is written as `sweep_<name>`.
pub fn results_csv(sc: &Scenario, results: &[RunResult]) -> String {
    let names: Vec<String> = sc.params.iter().map(|(n, _)| n.clone()).collect();
    render(&names, &rows(sc, results, 0, 1))
}

/// `results.csv` from rows in sweep order.
pub fn render(names: &[String], rows: &[Row]) -> String {
    let same_as_output = |k: usize| {
        let column = match names[k].as_str() {
            "seed" => 0,
            "flow" => 1,
            "protocol" => 2,
            _ => return false,
        };
        rows.iter().all(|r| r.params[k] == r.fields[column])
    };
    let kept: Vec<usize> = (0..names.len())
        .filter(|&k| !(RESULT_COLUMNS.contains(&names[k].as_str()) && same_as_output(k)))
        .collect();
    let mut out = String::new();
    for &k in &kept {
        if RESULT_COLUMNS.contains(&names[k].as_str()) {
            out.push_str("sweep_");
        }
        out.push_str(&names[k]);
        out.push(',');
    }
    out.push_str(&RESULT_COLUMNS.join(","));
    out.push('\n');
    for r in rows {
        for &k in &kept {
            out.push_str(&r.params[k]);
            out.push(',');
        }
        out.push_str(&r.fields.join(","));
        out.push('\n');
    }
    out
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
    std::fs::create_dir_all(out).map_err(|e| io_err(out, e))?;
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
