//! `radial repro league`: every multipath protocol on the same grids —
//! goodput against the Ideal (the sum of single-path TCP-SACK flows alone
//! on each path) at two or three receive buffers, and the share of a
//! shared bottleneck each takes against one TCP flow — in one table and
//! one plot, written to `league.md`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use radial_sim::Scenario;

use crate::error::{io_err, CliError};
use crate::plot::{line_plot, Figure, Series};
use crate::stress::{write_checks, Check};
use crate::sweep::{run_sweep, RunResult};

/// One scenario of the league.
pub(crate) struct Case {
    /// Column label prefix.
    pub(crate) label: &'static str,
    /// What it is, for the legend.
    pub(crate) about: &'static str,
    pub(crate) path: &'static str,
    pub(crate) scenario: &'static str,
}

macro_rules! case {
    ($file:literal, $label:literal, $about:literal) => {
        Case {
            label: $label,
            about: $about,
            path: concat!("scenarios/league/", $file, ".toml"),
            scenario: include_str!(concat!("../../../scenarios/league/", $file, ".toml")),
        }
    };
}

/// The aggregation cases: each sweeps `protocol` (with `ideal`), `window`
/// and, for the grids, one more parameter.
pub(crate) const AGGREGATION: [Case; 4] = [
    case!(
        "two-paths",
        "two 20 Mbit/s",
        "two disjoint 20 Mbit/s paths, one-way 10 and 60 ms"
    ),
    case!(
        "fig9a",
        "R²CP fig. 9(a)",
        "R²CP Figure 9(a)'s grid: 4 Mbit/s and 1-6 Mbit/s, 30 ms round trips, on/off cross traffic"
    ),
    case!(
        "fig9b",
        "R²CP fig. 9(b)",
        "R²CP Figure 9(b)'s grid: 4 + 4 Mbit/s, round trips 30 ms and 30-210 ms, on/off cross traffic"
    ),
    case!(
        "three",
        "three paths",
        "WLAN 10 Mbit/s 30 ms + cellular 2 Mbit/s 100 ms + satellite 5 Mbit/s 300 ms one-way, Gilbert-Elliott channels"
    ),
];

const SHARED: Case = case!(
    "shared",
    "shared bottleneck",
    "two interfaces behind one 10 Mbit/s RED bottleneck against one TCP-SACK flow"
);

/// The protocols, in table order.
const PROTOCOLS: [&str; 8] = [
    "r2cp",
    "r2cp-coupled",
    "r2cp-s",
    "apps",
    "ptcp",
    "mptcp-lia",
    "mptcp-olia",
    "prism",
];

/// Ours: the receiver-centric protocols.
const OURS: [&str; 2] = ["r2cp", "r2cp-coupled"];

pub(crate) fn param(r: &RunResult, name: &str) -> String {
    r.point.text(name).unwrap_or_default()
}

fn reliable_goodput(r: &RunResult) -> f64 {
    r.summary
        .flows
        .iter()
        .filter(|f| f.protocol != "udp")
        .map(|f| f.goodput_mbps)
        .sum()
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

/// One column: its label, each protocol's mean value, and what the
/// multipath connection paid for it per run (timeouts, retransmitted
/// segments, megabytes that arrived twice).
pub(crate) struct Column {
    pub(crate) label: String,
    pub(crate) values: BTreeMap<String, f64>,
    costs: BTreeMap<String, [f64; 3]>,
}

/// Mean timeouts, retransmissions and duplicate megabytes per run.
fn costs(runs: &[&RunResult]) -> [f64; 3] {
    let mut sum = [0.0; 3];
    for r in runs {
        for f in r.summary.flows.iter().filter(|f| f.protocol != "udp") {
            sum[0] += f.timeouts as f64;
            sum[1] += f.retransmits as f64;
            sum[2] += f.duplicate_bytes as f64 / 1e6;
        }
    }
    sum.map(|v| v / runs.len().max(1) as f64)
}

/// Goodput / Ideal per protocol for each buffer of an aggregation case:
/// every run against the `ideal` run at the same point and seed, averaged
/// over the grid and the seeds.
pub(crate) fn aggregation_columns(case: &Case, results: &[RunResult]) -> Vec<Column> {
    // The point without the protocol: every other swept parameter and the
    // seed.
    let point = |r: &RunResult| {
        let mut k: Vec<String> = r
            .point
            .values
            .iter()
            .filter(|(name, _)| {
                !["protocol", "n_agg", "n_alone", "n_prism"].contains(&name.as_str())
            })
            .map(|(name, v)| format!("{name}={v}"))
            .collect();
        k.push(format!("seed={}", r.seed));
        k.join(",")
    };
    let ideal: BTreeMap<String, f64> = results
        .iter()
        .filter(|r| param(r, "protocol") == "ideal")
        .map(|r| (point(r), reliable_goodput(r)))
        .collect();
    type Runs<'a> = BTreeMap<String, Vec<(f64, &'a RunResult)>>;
    let mut by_window: BTreeMap<u64, Runs> = BTreeMap::new();
    for r in results {
        let protocol = param(r, "protocol");
        let Some(&i) = ideal.get(&point(r)) else {
            continue;
        };
        if protocol == "ideal" || i <= 0.0 {
            continue;
        }
        let window: u64 = param(r, "window").parse().unwrap_or(0);
        by_window
            .entry(window)
            .or_default()
            .entry(protocol)
            .or_default()
            .push((reliable_goodput(r) / i, r));
    }
    by_window
        .into_iter()
        .rev()
        .map(|(window, m)| Column {
            label: format!("{}, {} seg.", case.label, window),
            values: m
                .iter()
                .map(|(p, v)| (p.clone(), mean(&v.iter().map(|x| x.0).collect::<Vec<_>>())))
                .collect(),
            costs: m
                .iter()
                .map(|(p, v)| (p.clone(), costs(&v.iter().map(|x| x.1).collect::<Vec<_>>())))
                .collect(),
        })
        .collect()
}

/// The multipath connection's goodput over the TCP flow's, per protocol.
fn shared_column(results: &[RunResult]) -> Column {
    let mut m: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for r in results {
        let of = |name: &str| {
            r.summary
                .flows
                .iter()
                .find(|f| f.name == name)
                .map(|f| f.goodput_mbps)
        };
        if let (Some(multi), Some(tcp)) = (of("multipath"), of("tcp")) {
            if tcp > 0.0 {
                m.entry(param(r, "protocol")).or_default().push(multi / tcp);
            }
        }
    }
    Column {
        label: "shared bottleneck (× one TCP)".into(),
        values: m.into_iter().map(|(p, v)| (p, mean(&v))).collect(),
        costs: BTreeMap::new(),
    }
}

fn value(columns: &[Column], label: &str, protocol: &str) -> Option<f64> {
    columns
        .iter()
        .find(|c| c.label == label)
        .and_then(|c| c.values.get(protocol).copied())
}

fn checks(columns: &[Column], shared: &Column) -> Vec<Check> {
    let mut out = Vec::new();
    let large = "two 20 Mbit/s, 6000 seg.";
    if let Some(v) = value(columns, large, "mptcp-lia") {
        out.push(Check {
            what: "`mptcp-lia` reaches 90 % of Ideal on two disjoint 20 Mbit/s paths with a large (6 MB) buffer".into(),
            holds: v >= 0.90,
            detail: format!("{:.1} %", 100.0 * v),
        });
    }
    let share = |p: &str| shared.values.get(p).copied();
    if let Some(v) = share("mptcp-lia") {
        out.push(Check {
            what: "`mptcp-lia` takes one TCP's share of a shared bottleneck, within 20 %".into(),
            holds: (0.8..=1.2).contains(&v),
            detail: format!("{v:.2} × the TCP flow"),
        });
    }
    if let Some(v) = share("r2cp-coupled") {
        out.push(Check {
            what: "`r2cp-coupled` takes no more than 1.1 × the TCP flow's goodput on a shared bottleneck".into(),
            holds: v <= 1.1,
            detail: format!(
                "{v:.2} ×; uncoupled `r2cp` {:.2} ×",
                share("r2cp").unwrap_or(f64::NAN)
            ),
        });
    }
    if let Some(v) = share("tcp-sack") {
        out.push(Check {
            what: "the measurement is fair: a second TCP-SACK flow in the multipath connection's place takes one share, within 10 %".into(),
            holds: (0.9..=1.1).contains(&v),
            detail: format!("{v:.2} ×"),
        });
    }
    out
}

/// Where ours is best and worst, and where it loses to MPTCP.
fn standings(md: &mut String, columns: &[Column]) {
    for ours in OURS {
        let mut vals: Vec<(&str, f64)> = columns
            .iter()
            .filter_map(|c| c.values.get(ours).map(|&v| (c.label.as_str(), v)))
            .collect();
        vals.sort_by(|a, b| a.1.total_cmp(&b.1));
        if let (Some(worst), Some(best)) = (vals.first(), vals.last()) {
            let _ = writeln!(
                md,
                "- `{ours}`: best on {} ({:.1} % of Ideal), worst on {} ({:.1} %).",
                best.0,
                100.0 * best.1,
                worst.0,
                100.0 * worst.1
            );
        }
    }
    for c in columns {
        let top = c
            .values
            .iter()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .map(|(p, v)| format!("`{p}` ({:.1} %)", 100.0 * v));
        let ours = OURS
            .iter()
            .filter_map(|p| c.values.get(*p))
            .copied()
            .fold(f64::NAN, f64::max);
        let mptcp = ["mptcp-lia", "mptcp-olia"]
            .iter()
            .filter_map(|p| c.values.get(*p))
            .copied()
            .fold(f64::NAN, f64::max);
        let _ = write!(md, "- {}: first {}", c.label, top.unwrap_or_default());
        if mptcp > ours {
            let _ = write!(
                md,
                "; **R²CP loses to MPTCP** ({:.1} % against {:.1} %)",
                100.0 * ours,
                100.0 * mptcp
            );
        }
        md.push_str(".\n");
    }
    md.push('\n');
}

/// A table with one row per protocol and one column per `columns`, each
/// cell written by `cell` (or a dash when it gives nothing).
fn table_by(
    md: &mut String,
    columns: &[Column],
    protocols: &[&str],
    cell: impl Fn(&Column, &str) -> Option<String>,
) {
    let _ = write!(md, "| protocol |");
    for c in columns {
        let _ = write!(md, " {} |", c.label);
    }
    let _ = write!(md, "\n|---|");
    for _ in columns {
        md.push_str("---|");
    }
    md.push('\n');
    for p in protocols {
        let _ = write!(md, "| `{p}` |");
        for c in columns {
            let _ = write!(md, " {} |", cell(c, p).unwrap_or_else(|| "—".into()));
        }
        md.push('\n');
    }
    md.push('\n');
}

/// Each protocol's mean value per column.
fn table(md: &mut String, columns: &[Column], protocols: &[&str]) {
    table_by(md, columns, protocols, |c, p| {
        c.values.get(p).map(|v| format!("{v:.3}"))
    });
}

/// What each protocol paid per run in each column.
fn cost_table(md: &mut String, columns: &[Column]) {
    md.push_str("Per run of the multipath connection: timeouts / retransmitted segments / megabytes that arrived twice.\n\n");
    table_by(md, columns, &PROTOCOLS, |c, p| {
        c.costs
            .get(p)
            .map(|[t, r, d]| format!("{t:.1} / {r:.0} / {d:.2}"))
    });
}

const INTRO: &str = "# Results: the aggregation league\n\n\
Written by `radial repro league --out docs/results` from the scenarios in \
`scenarios/league/`. Every multipath protocol Radial has runs on the same \
paths from one server: R²CP (`r2cp`, ranked scheduling; `r2cp-coupled`, \
with LIA's coupled increase computed at the receiver; `r2cp-s`, first come \
first served), application striping over RCP connections (`apps`), pTCP \
(`ptcp`), MPTCP (`mptcp-lia`, `mptcp-olia`; minRTT scheduler, \
opportunistic retransmission and penalisation) and PRISM (`prism`: one \
TCP-PRISM connection striped by a proxy where the paths part, ADAS and full \
RPC; the host's interfaces pass what they receive to the receiving one over \
a link of their own, links no other protocol's route uses). The aggregation columns are \
goodput over the Ideal: TCP-SACK alone on each path at once, with the same \
receive buffer, summed; each is the mean over the grid's points and three \
seeds. The receive buffers are 2 × the sum of the bandwidths × the largest \
round trip and a quarter of that (for two 20 Mbit/s paths also Linux's \
6 MB largest receive buffer). The last column is the multipath \
connection's goodput over that of one TCP-SACK flow through the same \
bottleneck (mean over two access delays and five seeds; a RED queue, \
since a drop-tail queue's phase effects decide a deterministic simulation's \
split by packet size alone; PRISM's proxy sits behind that bottleneck, as \
in PRISM's own topology).\n\n";

/// Runs the league and writes `league.md`, `league.png` and `league.svg`
/// into `out`. Returns whether every check holds.
pub fn run(out: &Path, jobs: usize) -> Result<bool, CliError> {
    let mut columns = Vec::new();
    let mut legend = String::new();
    for case in &AGGREGATION {
        let sc = Scenario::parse(case.path, case.scenario)?;
        let results = run_sweep(&sc, jobs, case.path)?;
        let _ = writeln!(
            legend,
            "- {}: {} (`{}`).",
            case.label, case.about, case.path
        );
        columns.extend(aggregation_columns(case, &results));
    }
    let sc = Scenario::parse(SHARED.path, SHARED.scenario)?;
    let shared = shared_column(&run_sweep(&sc, jobs, SHARED.path)?);
    let _ = writeln!(
        legend,
        "- {}: {} (`{}`).",
        SHARED.label, SHARED.about, SHARED.path
    );

    let mut md = INTRO.to_string();
    md.push_str("## Goodput / Ideal\n\n");
    table(&mut md, &columns, &PROTOCOLS);
    md.push_str(&legend);
    md.push_str("\n![league](league.png)\n\n## Share of a shared bottleneck\n\n");
    let mut with_reference = PROTOCOLS.to_vec();
    with_reference.push("tcp-sack");
    table(&mut md, std::slice::from_ref(&shared), &with_reference);
    md.push_str("`tcp-sack`: a second TCP-SACK flow in the multipath connection's place.\n\n");
    md.push_str("## What it cost\n\n");
    cost_table(&mut md, &columns);
    md.push_str("## Standings\n\n");
    standings(&mut md, &columns);
    md.push_str(NOTES);
    md.push_str("\n## Checks\n\n");
    let checks = checks(&columns, &shared);
    write_checks(&mut md, &checks);

    std::fs::create_dir_all(out).map_err(|e| io_err(out, e))?;
    let series: Vec<Series> = PROTOCOLS
        .iter()
        .map(|p| Series {
            label: p.to_string(),
            points: columns
                .iter()
                .enumerate()
                .filter_map(|(i, c)| c.values.get(*p).map(|&v| ((i + 1) as f64, v)))
                .collect(),
        })
        .collect();
    line_plot(
        &out.join("league"),
        &Figure {
            title: "Goodput / Ideal, by case (columns of the table, left to right)",
            x_label: "case (table column)",
            y_label: "goodput / Ideal",
            log_x: false,
            series: &series,
        },
    )?;
    let page = out.join("league.md");
    std::fs::write(&page, &md).map_err(|e| io_err(&page, e))?;
    print!("{md}");
    Ok(checks.iter().all(|c| c.holds))
}

/// Why the standings are what they are, from the runs behind them.
const NOTES: &str = "\
**Where and why R²CP loses to MPTCP.** Only at the small buffers (a \
quarter of 2 × Σ bandwidth × the largest round trip), where pTCP leads \
both of them on two 20 Mbit/s paths (82 % of Ideal against MPTCP's 71 % \
and R²CP's 53 %). R²CP's pipes no longer time out there (none per run on \
the Figure 9 grids and on the two 20 Mbit/s paths, where they timed out \
two to four times before the queue cap and the paced requests, \
docs/protocols.md); what is left is a choice. The rank freezes the slow \
pipe whenever its segment would land past what the quick pipe fetches \
while that segment travels (R²CP's guard against running below its best \
path), so with a buffer a quarter of what both paths need R²CP runs on \
little more than the quick path, where the sender-side engines take a \
share of the slow path at the price of some head-of-line blocking. At \
2 × Σ bandwidth × RTT and above, `r2cp` is at Ideal on every grid and \
leads most over the three paths with Gilbert-Elliott channels, where \
MPTCP's subflows and pTCP's pipes time out 21 to 26 times per run against \
R²CP's pipes' 1 to 3.\n\n\
**Other things the table shows.** `apps` leads at the smallest buffers \
because each of its RCP connections has a receive buffer of the full size \
and the application's resequencing buffer is a third: it holds up to three \
times what the others may; over the three paths it falls to a quarter of \
Ideal: round robin gives each path a third of the stream, so the 2 Mbit/s \
cellular path sets the pace. `mptcp-olia` \
falls to 75 % on two 20 Mbit/s paths with the largest buffer: OLIA moves \
window from the path with the largest window (the 120 ms one) to the \
presumed best path (the largest ℓ / rtt², the 20 ms one), which its own \
link already fills. At the large buffers `r2cp-coupled` is within 2 % of `r2cp` on two paths \
and on Figure 9(b)'s grid (and at Ideal on both Figure 9 grids with the \
paper's 256 segments, docs/results/r2cp.md), but at 80 % over the three \
lossy paths: LIA moves traffic away from the paths that lose more, by \
design (RFC 6356's third goal), which on disjoint paths leaves capacity \
unused.\n\n\
**PRISM.** It leads on Figure 9(b)'s grid with 105 segments (99 % of \
Ideal, `r2cp` 79 %) and on Figure 9(a)'s with 19 (69 %, `r2cp` 61 %), and \
is level with `r2cp` on Figure 9(a)'s with 75 (100 %): one sender window \
over both paths, given to them by ADAS in proportion to their bandwidth, \
brings the segments nearly in order, so the receive buffer never waits \
behind a slow path's head of line, and it had no timeout there. R²CP \
loses to it there for the reason it loses to MPTCP: with a buffer that \
short, its rank keeps the slow pipe frozen rather than hold up the quick \
one. PRISM \
falls behind wherever one window is the wrong tool: 86 % on two \
20 Mbit/s paths (a single Reno-like sawtooth across both paths, cut by a \
quarter at each loss on a 100-packet queue and regrown one segment per \
round trip) and 15–19 % over the three lossy paths: every Gilbert-Elliott \
burst on the WLAN cuts the whole connection's window (to 71 %), about 55 \
times per run, and the window never grows back to what the satellite path \
alone needs in flight (375 segments). On the shared bottleneck it takes one \
TCP's share (its proxy is behind the bottleneck, so TCP-PRISM answers \
those losses as TCP does).\n";
