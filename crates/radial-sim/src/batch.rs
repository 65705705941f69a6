//! Many simulations at once: every (point, seed) of a sweep on several
//! threads, results in sweep order whatever the threads' timing, and the
//! `results.csv` they make (one row per flow and run). The `radial` program
//! and the Python package both run sweeps through this module.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::metrics::{PipePoint, SeriesPoint, Summary};
use crate::scenario::Point;
use crate::spec::RunSpec;
use crate::{RunOutput, Scenario, ScenarioError, Simulator};

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

/// Runs `tasks` of `sc` on `jobs` threads, calling `done` after each run;
/// the results in the order of `tasks`. Every run's spec is built before
/// any runs, so a bad point is an error before any work.
pub fn run_tasks(
    sc: &Scenario,
    tasks: Vec<(Point, u64)>,
    jobs: usize,
    done: &(dyn Fn() + Sync),
) -> Result<Vec<RunResult>, ScenarioError> {
    run_tasks_adjusted(sc, tasks, jobs, done, &|_| {})
}

/// As [`run_tasks`], each run's spec changed by `adjust` before it runs
/// (e.g. an R²CP engine with a rule switched off, for an ablation).
pub fn run_tasks_adjusted(
    sc: &Scenario,
    tasks: Vec<(Point, u64)>,
    jobs: usize,
    done: &(dyn Fn() + Sync),
    adjust: &(dyn Fn(&mut RunSpec) + Sync),
) -> Result<Vec<RunResult>, ScenarioError> {
    let specs = tasks
        .iter()
        .map(|(p, seed)| {
            sc.build(p, *seed).map(|mut spec| {
                adjust(&mut spec);
                spec
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<RunOutput>>> = specs.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..jobs.min(specs.len()).max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(spec) = specs.get(i) else { break };
                let out = Simulator::new(spec.clone()).run();
                *slots[i].lock().expect("no poisoned slot") = Some(out);
                done();
            });
        }
    });
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
pub const RESULT_COLUMNS: [&str; 14] = [
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
