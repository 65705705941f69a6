//! `radial repro stress`: R²CP beyond the papers' figures. Runs every
//! scenario of `scenarios/stress/`, holds each class to its acceptance
//! checks (never worse than the best path, no stall while a path works,
//! handoff storms and a fresh pipe per attachment at least as good as
//! hard-handoff RCP, small files in one round trip after the handshake)
//! and writes `stress.md`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use radial_sim::Scenario;

use crate::error::CliError;
use crate::sweep::{run_sweep, RunResult};

/// One stress class: its scenario, embedded, and its path in the repository.
pub(crate) struct Class {
    pub(crate) name: &'static str,
    pub(crate) path: &'static str,
    pub(crate) scenario: &'static str,
}

/// A class of `scenarios/stress/`, by file name.
macro_rules! class {
    ($name:literal) => {
        Class {
            name: $name,
            path: concat!("scenarios/stress/", $name, ".toml"),
            scenario: include_str!(concat!("../../../scenarios/stress/", $name, ".toml")),
        }
    };
}

pub(crate) const CLASSES: [Class; 8] = [
    class!("handoff-storm"),
    class!("fresh-attachments"),
    class!("dying-path"),
    class!("slow-path"),
    class!("migration-blackout"),
    class!("three-pipes"),
    class!("five-pipes"),
    class!("small-file"),
];

/// The stall bound of the pTCP topology's classes: 1 s plus the WWAN's RTO,
/// taken as three times its 200 ms round trip (as the random mobility test
/// takes it).
const WWAN_STALL_BOUND_S: f64 = 1.0 + 3.0 * 0.2;

/// One acceptance check and whether it holds.
pub(crate) struct Check {
    pub(crate) what: String,
    pub(crate) holds: bool,
    pub(crate) detail: String,
}

fn param(r: &RunResult, name: &str) -> String {
    r.point.text(name).unwrap_or_default()
}

/// Mean over seeds of a value per key.
fn mean_by<K: Ord + Clone>(
    results: &[RunResult],
    mut f: impl FnMut(&RunResult) -> Vec<(K, f64)>,
) -> BTreeMap<K, f64> {
    let mut acc: BTreeMap<K, (f64, usize)> = BTreeMap::new();
    for r in results {
        for (k, v) in f(r) {
            let e = acc.entry(k).or_default();
            e.0 += v;
            e.1 += 1;
        }
    }
    acc.into_iter()
        .map(|(k, (s, n))| (k, s / n as f64))
        .collect()
}

fn flows(r: &RunResult) -> impl Iterator<Item = &radial_sim::metrics::FlowReport> {
    r.summary.flows.iter()
}

/// Rows of `variant → goodput, longest gap, completion` per value of `x`.
fn variant_table(md: &mut String, results: &[RunResult], x: &str) {
    let _ = writeln!(
        md,
        "| {x} | variant | goodput (Mbit/s) | longest in-order gap (s) | completion (s) |\n|---|---|---|---|---|"
    );
    for r in results {
        for f in flows(r) {
            let _ = writeln!(
                md,
                "| {} | {} | {:.3} | {:.3} | {} |",
                param(r, x),
                param(r, "variant"),
                f.goodput_mbps,
                f.max_delivery_gap_s,
                f.completion_time_s
                    .map_or("—".to_string(), |t| format!("{t:.2}"))
            );
        }
    }
    md.push('\n');
}

fn goodput_of(r: &RunResult) -> f64 {
    flows(r).map(|f| f.goodput_mbps).sum()
}

fn gap_of(r: &RunResult) -> f64 {
    flows(r).map(|f| f.max_delivery_gap_s).fold(0.0, f64::max)
}

/// Per value of `x`: the runs of each variant.
fn by_x_variant<'a>(
    results: &'a [RunResult],
    x: &str,
) -> BTreeMap<String, BTreeMap<String, &'a RunResult>> {
    let mut m: BTreeMap<String, BTreeMap<String, &RunResult>> = BTreeMap::new();
    for r in results {
        m.entry(param(r, x))
            .or_default()
            .insert(param(r, "variant"), r);
    }
    m
}

fn storm_checks(results: &[RunResult]) -> Vec<Check> {
    let mut checks = Vec::new();
    for (period, v) in by_x_variant(results, "period") {
        let Some(rcp) = v.get("rcp-hard").map(|r| goodput_of(r)) else {
            continue;
        };
        for variant in ["r2cp-signalled", "r2cp-silent"] {
            let Some(r) = v.get(variant) else { continue };
            let g = goodput_of(r);
            checks.push(Check {
                what: format!(
                    "storm every {period} s: `{variant}` at least as fast as hard-handoff RCP"
                ),
                holds: g >= rcp,
                detail: format!("{g:.2} against {rcp:.2} Mbit/s"),
            });
            // One of the two links is up at any time; the bound is taken
            // with the slower one's RTO.
            let gap = gap_of(r);
            checks.push(Check {
                what: format!(
                    "storm every {period} s: `{variant}` never stalls beyond {WWAN_STALL_BOUND_S:.1} s"
                ),
                holds: gap <= WWAN_STALL_BOUND_S,
                detail: format!("{gap:.3} s"),
            });
        }
    }
    checks
}

/// `scenarios/stress/fresh-attachments.toml`'s turns: each link is up
/// this long in turn, the WLAN first, then the WWAN, at these rates.
const FRESH_TURN_S: f64 = 2.0;
const FRESH_RATES_MBPS: [f64; 2] = [9.0, 2.0];
/// A path's rate is reached when the in-order goodput over this window
/// first comes to three quarters of the link's rate.
const RAMP_WINDOW_S: f64 = 0.2;

/// For each attachment after the first (all variants start alike): seconds
/// from its link coming up until the in-order goodput over
/// [`RAMP_WINDOW_S`] first reaches ¾ of its link's rate (the turn's length
/// if it never does).
fn ramps(r: &RunResult) -> Vec<f64> {
    let s = &r.series;
    let at = |t: f64| {
        s.iter()
            .take_while(|p| p.t <= t + 1e-9)
            .last()
            .map_or(0, |p| p.delivered)
    };
    let end = s.last().map_or(0.0, |p| p.t);
    let mut out = Vec::new();
    let mut k = 1;
    while (k + 1) as f64 * FRESH_TURN_S <= end + 1e-9 {
        let (up, rate) = (k as f64 * FRESH_TURN_S, FRESH_RATES_MBPS[k % 2]);
        let reached = s
            .iter()
            .filter(|p| p.t >= up + RAMP_WINDOW_S - 1e-9 && p.t <= up + FRESH_TURN_S + 1e-9)
            .find(|p| {
                let bytes = p.delivered.saturating_sub(at(p.t - RAMP_WINDOW_S));
                bytes as f64 * 8.0 / RAMP_WINDOW_S / 1e6 >= 0.75 * rate
            });
        out.push(reached.map_or(FRESH_TURN_S, |p| p.t - up));
        k += 1;
    }
    out
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

/// Fresh pipes against hard-handoff RCP: goodput, and how soon each new
/// attachment reaches its path's rate.
fn fresh_checks(md: &mut String, results: &[RunResult]) -> Vec<Check> {
    let by: BTreeMap<String, &RunResult> =
        results.iter().map(|r| (param(r, "variant"), r)).collect();
    let _ = writeln!(
        md,
        "Ramp: seconds from each link's return until the in-order goodput over {RAMP_WINDOW_S} s first reaches ¾ of the link's rate, per attachment after the first (the turn's {FRESH_TURN_S} s if never).\n\n| variant | goodput (Mbit/s) | longest in-order gap (s) | ramp: median (s) | longest (s) | each attachment's (s) |\n|---|---|---|---|---|---|"
    );
    for (v, r) in &by {
        let each = ramps(r);
        let longest = each.iter().copied().fold(0.0, f64::max);
        let list: Vec<String> = each.iter().map(|x| format!("{x:.1}")).collect();
        let _ = writeln!(
            md,
            "| {v} | {:.3} | {:.3} | {:.2} | {longest:.2} | {} |",
            goodput_of(r),
            gap_of(r),
            median(each.clone()),
            list.join(" ")
        );
    }
    md.push('\n');
    let (Some(rcp), Some(r2cp)) = (by.get("rcp-hard"), by.get("r2cp")) else {
        return Vec::new();
    };
    let (g, g_rcp) = (goodput_of(r2cp), goodput_of(rcp));
    let (ramp, ramp_rcp) = (median(ramps(r2cp)), median(ramps(rcp)));
    vec![
        Check {
            what: "fresh pipe per attachment: `r2cp` at least as fast as hard-handoff RCP".into(),
            holds: g >= g_rcp,
            detail: format!("{g:.2} against {g_rcp:.2} Mbit/s"),
        },
        Check {
            what: "fresh pipe per attachment: `r2cp` reaches its path's rate no later than hard-handoff RCP (median over attachments)".into(),
            holds: ramp <= ramp_rcp,
            detail: format!("{ramp:.2} s against {ramp_rcp:.2} s"),
        },
    ]
}

/// R²CP variants against the single path alone (`alone` names its
/// variant), and their stalls against `bound`.
fn against_alone(results: &[RunResult], x: &str, alone: &str, bound: f64) -> Vec<Check> {
    let mut checks = Vec::new();
    for (xv, v) in by_x_variant(results, x) {
        let Some(a) = v.get(alone) else { continue };
        for (variant, r) in &v {
            if variant == alone {
                continue;
            }
            let f = &r.summary.flows[0];
            let fa = &a.summary.flows[0];
            let (holds, detail) = match (f.completion_time_s, fa.completion_time_s) {
                (Some(t), Some(ta)) => (t <= ta, format!("{t:.1} s against {ta:.1} s")),
                (None, Some(ta)) => (false, format!("unfinished against {ta:.1} s")),
                _ => (
                    f.goodput_mbps >= 0.95 * fa.goodput_mbps,
                    format!(
                        "{:.2} against {:.2} Mbit/s",
                        f.goodput_mbps, fa.goodput_mbps
                    ),
                ),
            };
            checks.push(Check {
                what: format!("{x} = {xv}: `{variant}` no worse than the working path alone"),
                holds,
                detail,
            });
            checks.push(Check {
                what: format!("{x} = {xv}: `{variant}` never stalls beyond {bound:.1} s"),
                holds: f.max_delivery_gap_s <= bound,
                detail: format!(
                    "{:.3} s at {:.1} s",
                    f.max_delivery_gap_s, f.max_delivery_gap_at_s
                ),
            });
        }
    }
    checks
}

/// The aggregation classes: per buffer, R²CP against the best path alone
/// and against Ideal (the sum of the paths alone).
fn aggregation(
    md: &mut String,
    results: &[RunResult],
    best_bdp_segments: f64,
    ideal_buffer: u64,
) -> Vec<Check> {
    let agg = mean_by(results, |r| {
        if param(r, "mode") != "aggregate" {
            return Vec::new();
        }
        let w: u64 = param(r, "window").parse().unwrap_or(0);
        vec![(w, goodput_of(r))]
    });
    let alone = mean_by(results, |r| {
        if param(r, "mode") != "alone" {
            return Vec::new();
        }
        let w: u64 = param(r, "window").parse().unwrap_or(0);
        flows(r)
            .map(|f| ((w, f.name.clone()), f.goodput_mbps))
            .collect()
    });
    let _ = writeln!(
        md,
        "| buffer (segments) | R²CP (Mbit/s) | best path alone | R²CP / best | Ideal | R²CP / Ideal |\n|---|---|---|---|---|---|"
    );
    let mut checks = Vec::new();
    for (&w, &g) in &agg {
        let paths: Vec<(&String, f64)> = alone
            .iter()
            .filter(|((x, _), _)| *x == w)
            .map(|((_, n), &v)| (n, v))
            .collect();
        let best = paths.iter().map(|p| p.1).fold(0.0, f64::max);
        let ideal: f64 = paths.iter().map(|p| p.1).sum();
        let _ = writeln!(
            md,
            "| {w} | {g:.3} | {best:.3} | {:.1} % | {ideal:.3} | {:.1} % |",
            100.0 * g / best,
            100.0 * g / ideal
        );
        if w as f64 >= 2.0 * best_bdp_segments {
            checks.push(Check {
                what: format!("buffer {w}: at least 95 % of the best path alone"),
                holds: g >= 0.95 * best,
                detail: format!("{:.1} %", 100.0 * g / best),
            });
        }
        if w >= ideal_buffer {
            checks.push(Check {
                what: format!("buffer {w}: at least 95 % of Ideal"),
                holds: g >= 0.95 * ideal,
                detail: format!("{:.1} %", 100.0 * g / ideal),
            });
        }
    }
    md.push('\n');
    checks
}

fn small_file_checks(md: &mut String, results: &[RunResult]) -> Vec<Check> {
    // WLAN round trip: 2 × 30 ms of propagation plus a 1040-byte packet at
    // 10 Mbit/s and the 1 Gbit/s hops.
    const WLAN_RTT_S: f64 = 0.0617;
    // The bound: two such round trips (the handshake's, the request's), and
    // 2 ms for the packets' times at the host and the senders.
    const BOUND_S: f64 = 2.0 * WLAN_RTT_S + 0.002;
    let _ = writeln!(
        md,
        "| size (bytes) | variant | completion (s) |\n|---|---|---|"
    );
    let mut checks = Vec::new();
    for r in results {
        let f = &r.summary.flows[0];
        let size: u64 = param(r, "size").parse().unwrap_or(0);
        let t = f.completion_time_s.unwrap_or(f64::INFINITY);
        let _ = writeln!(md, "| {size} | {} | {t:.4} |", param(r, "variant"));
        if size <= 1000 && param(r, "variant").starts_with("r2cp") {
            checks.push(Check {
                what: format!(
                    "{size} bytes over `{}`: the handshake plus one round trip",
                    param(r, "variant")
                ),
                holds: t <= BOUND_S && f.bytes_delivered == size,
                detail: format!(
                    "{:.1} ms against {:.1} ms: two round trips of {:.1} ms and 2 ms",
                    t * 1e3,
                    BOUND_S * 1e3,
                    WLAN_RTT_S * 1e3
                ),
            });
        }
    }
    md.push('\n');
    checks
}

/// The checks as a Markdown list.
pub(crate) fn write_checks(md: &mut String, checks: &[Check]) {
    for c in checks {
        let _ = writeln!(
            md,
            "- {} — **{}** ({})",
            c.what,
            if c.holds { "holds" } else { "does not hold" },
            c.detail
        );
    }
    md.push('\n');
}

const INTRO: &str = "# Results: R²CP beyond the papers' figures\n\n\
Written by `radial repro stress` from the scenarios in `scenarios/stress/`: \
handoff storms with and without signals, a new pipe at every attachment \
(the interface back with a new address), paths that go dark or fade for good, \
a path slowing 1000×, a migration during a blackout, three and five unlike \
paths with bursty (Gilbert-Elliott) losses and buffers from 4 segments up, and \
files of one segment or less. Each class is held to its acceptance checks; \
the mechanisms behind them are described in docs/protocols.md (R²CP, \
\"The rules beyond the paper\"). The random mobility property test \
(`cargo test --release -p radial-sim --test mobility`, 10,000 cases, run by \
CI) checks on unseen cases of the same classes that every byte arrives once, \
in order, that the transfer finishes, and that in-order delivery never waits \
longer than 1 s plus the working path's RTO. More cases are drawn with \
`RADIAL_MOBILITY_SEED` (`RADIAL_MOBILITY_TALLY=1` lists every case over the \
stall bound instead of stopping at the first; `RADIAL_MOBILITY_DUMP=DIR` \
writes their scenario files); cases that once broke a bound are regular \
tests now.\n\n";

/// Runs every stress class and writes `stress.md` into `out`. Returns
/// whether every check holds.
pub fn run(out: &Path, jobs: usize) -> Result<bool, CliError> {
    let mut md = INTRO.to_string();
    let mut all = true;
    for class in &CLASSES {
        let sc = Scenario::parse(class.path, class.scenario)?;
        let results = run_sweep(&sc, jobs, class.name)?;
        let _ = writeln!(md, "## {}\n", class.name);
        let checks = class_checks(class.name, &mut md, &results);
        write_checks(&mut md, &checks);
        let _ = writeln!(
            md,
            "Reproduce: `radial sweep {} --out out/{}`.\n",
            class.path, class.name
        );
        all &= checks.iter().all(|c| c.holds);
    }
    crate::error::out_dir(out)?;
    let page = out.join("stress.md");
    std::fs::write(&page, &md).map_err(|e| crate::error::io_err(&page, e))?;
    print!("{md}");
    Ok(all)
}

/// The checks of stress class `name` on its `results`, with its table
/// written to `md`.
pub(crate) fn class_checks(name: &str, md: &mut String, results: &[RunResult]) -> Vec<Check> {
    match name {
        "handoff-storm" => {
            variant_table(md, results, "period");
            storm_checks(results)
        }
        "fresh-attachments" => fresh_checks(md, results),
        "dying-path" => {
            variant_table(md, results, "fate");
            against_alone(results, "fate", "wwan-alone", WWAN_STALL_BOUND_S)
        }
        "slow-path" => {
            variant_table(md, results, "slow_at");
            against_alone(results, "slow_at", "wwan-alone", WWAN_STALL_BOUND_S)
        }
        "migration-blackout" => {
            variant_table(md, results, "back_at");
            against_alone(results, "back_at", "wwan-alone", WWAN_STALL_BOUND_S)
        }
        // Best path: the WLAN, 10 Mbit/s × 60 ms = 75 segments. Ideal
        // buffer: 2 × Σ bandwidth × the satellite's 600 ms.
        "three-pipes" => aggregation(md, results, 75.0, 2550),
        "five-pipes" => aggregation(md, results, 75.0, 3450),
        "small-file" => small_file_checks(md, results),
        _ => Vec::new(),
    }
}
