//! `radial repro league`: every multipath protocol on the same grids —
//! goodput against the Ideal (the sum of single-path TCP-SACK flows alone
//! on each path) at two or three receive buffers, and the share of a
//! shared bottleneck each takes against one TCP flow — in one table and
//! one plot, written to `league.md`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use radial_sim::Scenario;

use crate::bars::{bar_plot, Bars};
use crate::bound::{self, BufferRow};
use crate::error::{io_err, CliError};
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
/// The paper modes stand beside the engines they are the base of.
const PROTOCOLS: [&str; 10] = [
    "r2cp",
    "r2cp-coupled",
    "r2cp-s",
    "r2cp-paper",
    "apps",
    "ptcp",
    "ptcp-paper",
    "mptcp-lia",
    "mptcp-olia",
    "prism",
];

/// Ours: the receiver-centric protocols.
const OURS: [&str; 2] = ["r2cp", "r2cp-coupled"];

/// The multipath peers R²CP is to lead: every scheme whose sender names
/// the segments each path carries.
const PEERS: [&str; 4] = ["ptcp", "mptcp-lia", "mptcp-olia", "prism"];

/// How close to PRISM `r2cp` must come in every column: PRISM's proxy
/// sits where the paths part and stripes one window over them, which no
/// end-to-end scheme has; R²CP is held to within 5 % of it.
const PRISM_WITHIN: f64 = 0.95;

pub(crate) fn param(r: &RunResult, name: &str) -> String {
    r.point.text(name).unwrap_or_default()
}

pub(crate) fn reliable_goodput(r: &RunResult) -> f64 {
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

/// Whether `r2cp` leads every peer, and where it does not, whether the
/// peer is past what the buffer allows a receiver that reserves (the
/// engine's flow control).
fn lead_checks(columns: &[Column], rows: &[BufferRow]) -> Vec<Check> {
    let mut behind = Vec::new();
    let mut short_of_prism = Vec::new();
    let mut inside = Vec::new();
    for c in columns {
        let Some(&ours) = c.values.get("r2cp") else {
            continue;
        };
        let row = rows.iter().find(|r| r.label == c.label);
        for p in PEERS {
            let Some(&v) = c.values.get(p) else { continue };
            if v <= ours {
                continue;
            }
            let entry = format!("{} (`{p}` {v:.3}, `r2cp` {ours:.3})", c.label);
            if p == "prism" {
                if ours < PRISM_WITHIN * v {
                    short_of_prism.push(entry);
                }
            } else {
                behind.push(entry);
            }
            if let Some(row) = row {
                let measured = row.measured.get(p).copied().unwrap_or(0.0);
                if measured <= row.reserved {
                    inside.push(format!(
                        "{}: `{p}` {measured:.1} Mbit/s, reservation bound {:.1}",
                        c.label, row.reserved
                    ));
                }
            }
        }
    }
    let list = |v: &[String]| {
        if v.is_empty() {
            "none".to_string()
        } else {
            v.join("; ")
        }
    };
    let end_to_end = PEERS.iter().filter(|p| **p != "prism");
    vec![
        Check {
            what: format!(
                "`r2cp` at or ahead of every end-to-end sender-side peer ({}) in every column",
                end_to_end.map(|p| format!("`{p}`")).collect::<Vec<_>>().join(", ")
            ),
            holds: behind.is_empty(),
            detail: format!("behind in: {}", list(&behind)),
        },
        Check {
            what: format!(
                "`r2cp` within {:.0} % of `prism` (whose proxy sits where the paths part) in every column",
                100.0 * (1.0 - PRISM_WITHIN)
            ),
            holds: short_of_prism.is_empty(),
            detail: format!("further behind in: {}", list(&short_of_prism)),
        },
        Check {
            what: "where `r2cp` is behind a peer, the peer delivers more than the buffer allows a receiver that reserves (the loss is the buffer's, not the engine's)".into(),
            holds: inside.is_empty(),
            detail: format!("peers ahead within the bound: {}", list(&inside)),
        },
    ]
}

/// Where ours is best and worst, and where it loses to MPTCP.
fn standings(md: &mut String, columns: &[Column], rows: &[BufferRow]) {
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
        if let Some(row) = rows.iter().find(|r| r.label == c.label) {
            if let Some((p, v)) = bound::best_peer(row, &PEERS) {
                if v > row.reserved && c.values.get(p).copied().unwrap_or(0.0) > ours {
                    let _ = write!(
                        md,
                        "; `{p}`'s {v:.1} Mbit/s is past the {:.1} Mbit/s the buffer allows a receiver that reserves",
                        row.reserved
                    );
                }
            }
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
Written by `radial repro league` (into `radial-out/results/`; `--out docs/results` updates this page) from the scenarios in \
`scenarios/league/`. Every multipath protocol Radial has runs on the same \
paths from one server: R²CP (`r2cp`, ranked scheduling; `r2cp-coupled`, \
with LIA's coupled increase computed at the receiver; `r2cp-s`, first come \
first served; `r2cp-paper`, the paper's engine, every rule beyond the \
paper off and the buffer kept by reservation), application striping over RCP connections (`apps`), pTCP \
(`ptcp`; `ptcp-paper`, the paper's engine), MPTCP (`mptcp-lia`, `mptcp-olia`; minRTT scheduler, \
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
    let mut rows = Vec::new();
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
        rows.extend(bound::rows(case, &sc, &results));
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
    md.push_str("\n![league](league.png)\n\n## What the buffer allows\n\n");
    md.push_str(BUFFER);
    bound::table(&mut md, &rows, &PEERS);
    md.push_str("## Share of a shared bottleneck\n\n");
    let mut with_reference = PROTOCOLS.to_vec();
    with_reference.push("tcp-sack");
    table(&mut md, std::slice::from_ref(&shared), &with_reference);
    md.push_str("`tcp-sack`: a second TCP-SACK flow in the multipath connection's place.\n\n");
    md.push_str("## What it cost\n\n");
    cost_table(&mut md, &columns);
    md.push_str("## Standings\n\n");
    standings(&mut md, &columns, &rows);
    md.push_str(NOTES);
    md.push_str("\n## Checks\n\n");
    let mut checks = checks(&columns, &shared);
    checks.extend(lead_checks(&columns, &rows));
    write_checks(&mut md, &checks);

    crate::error::out_dir(out)?;
    let groups: Vec<String> = columns.iter().map(|c| c.label.clone()).collect();
    let series: Vec<(String, Vec<Option<f64>>)> = PROTOCOLS
        .iter()
        .map(|p| {
            let values = columns.iter().map(|c| c.values.get(*p).copied()).collect();
            (p.to_string(), values)
        })
        .collect();
    bar_plot(
        &out.join("league"),
        &Bars {
            title: "Goodput / Ideal, by case and receive buffer",
            y_label: "goodput / Ideal",
            groups: &groups,
            series: &series,
            reference: Some(1.0),
        },
    )?;
    let page = out.join("league.md");
    std::fs::write(&page, &md).map_err(|e| io_err(&page, e))?;
    print!("{md}");
    Ok(checks.iter().all(|c| c.holds))
}

/// What the buffer section's models are.
const BUFFER: &str = "\
A receive buffer of `B` bytes caps how far the stream may run ahead of \
its next in-order byte. A segment whose place in the stream is fixed a \
time `D` before it arrives holds that byte back until then, so a path set \
used without pause cannot deliver more than `B / D`. A receiver names a \
segment when its request leaves, a full round trip of its path before the \
segment lands; a sender names it when it sends, one way before it lands, \
against the window it learnt over the quickest path. Each bound is the \
best over every set of paths (a scheme may leave a slow path idle) of the \
smaller of the set's summed rates and `B / D` for its slowest path. The \
models count link rates and propagation delays alone (no headers, \
queueing, losses or cross traffic), computed from each run's own \
topology by `radial repro league`; measurements are goodput in Mbit/s, \
means over the grid and the seeds. Both bounds are flow control by span's \
(a TCP window is one): where a sender-side peer delivers more than the \
receiver-named bound, no receiver-named scheduler whose flow control is by \
span can match it with that buffer. A receiver whose flow control is by \
reservation (the engine's default and the papers' own: a segment's room \
held from its request until the application reads it) fixes no segment's \
place against the head; each request holds its room for at least its \
path's round trip, so a path used at rate `x` holds `x` times its round \
trip of the buffer (Little's law), and the reservation bound fills the \
buffer with the paths of shortest round trip first. Where that bound is \
above the measurements, the engine, not the scheme, sets the limit.\n\n";

/// Why the standings are what they are, from the mechanisms behind them.
const NOTES: &str = "\
**R²CP at the short buffers.** The engine keeps the buffer by \
reservation, so a buffer a quarter of what both paths need by span still \
carries the slow path: by span, a receiver that names a slow path's \
segment a slow round trip before it lands can add little to the quick \
path (the receiver-named bound above), where a sender names it one way \
before it lands. By reservation the slow pipe's segments lie further \
ahead of the read point than the buffer spans, and its sender must hold \
them: an R²CP sender's buffer grows to twice the span the receiver asks \
over (as Linux sizes a send buffer to twice its window), where a buffer \
fixed at twice the receive buffer froze the slow pipe for want of data. \
At 2 × Σ bandwidth × RTT and above, `r2cp` is at Ideal on every grid; \
over the three paths with Gilbert-Elliott channels the sender-side \
engines' subflows time out far more often than R²CP's pipes (the cost \
table).\n\n\
**Other things the table shows.** `apps` leads at the smallest buffers \
because each of its RCP connections has a receive buffer of the full size \
and the application's resequencing buffer is a third: it holds up to three \
times what the others may; over the three paths it falls far: round robin \
gives each path a third of the stream, so the slowest path sets the pace. \
`mptcp-olia` trails on two 20 Mbit/s paths with the largest buffer: OLIA \
moves window from the path with the largest window (the long one) to the \
presumed best path (the largest ℓ / rtt², the short one), which its own \
link already fills. `r2cp-coupled` is level with `r2cp` on two paths and \
the Figure 9 grids but trails over the three lossy paths: LIA moves \
traffic away from the paths that lose more, by design (RFC 6356's third \
goal), which on disjoint paths leaves capacity unused.\n\n\
**PRISM.** One sender window over both paths, given to them by ADAS in \
proportion to their bandwidth, brings the segments nearly in order, so \
the receive buffer never waits behind a slow path's head of line: it \
leads where the buffer is short and the paths alike. It falls behind \
wherever one window is the wrong tool: on two 20 Mbit/s paths a single \
Reno-like sawtooth spans both paths, and over the three lossy paths every \
Gilbert-Elliott burst on the WLAN cuts the whole connection's window, \
which never grows back to what the satellite path alone needs in flight. \
On the shared bottleneck it takes one TCP's share (its proxy is behind \
the bottleneck, so TCP-PRISM answers those losses as TCP does).\n";

#[cfg(test)]
mod tests {
    use super::*;

    fn column(values: &[(&str, f64)]) -> Column {
        Column {
            label: "case".into(),
            values: values.iter().map(|(p, v)| (p.to_string(), *v)).collect(),
            costs: BTreeMap::new(),
        }
    }

    fn row(reserved: f64, measured: &[(&str, f64)]) -> BufferRow {
        BufferRow {
            label: "case".into(),
            alone: 40.0,
            receiver: 20.0,
            sender: 34.0,
            reserved,
            measured: measured.iter().map(|(p, v)| (p.to_string(), *v)).collect(),
        }
    }

    #[test]
    fn the_lead_is_held_against_end_to_end_peers_and_within_reach_of_prism() {
        let held = |values: &[(&str, f64)], reserved: f64| -> Vec<bool> {
            let rows = [row(reserved, &[("prism", 30.0), ("ptcp", 29.0)])];
            lead_checks(&[column(values)], &rows)
                .iter()
                .map(|c| c.holds)
                .collect()
        };
        // Ahead of pTCP and MPTCP, within 5 % of PRISM: every check holds.
        let lead = [
            ("r2cp", 0.90),
            ("ptcp", 0.85),
            ("mptcp-lia", 0.80),
            ("prism", 0.94),
        ];
        assert_eq!(held(&lead, 36.0), [true, true, false]);
        assert_eq!(held(&lead, 25.0), [true, true, true]);
        // Behind pTCP: the first check fails; further than 5 % behind
        // PRISM: the second.
        let behind = [("r2cp", 0.80), ("ptcp", 0.85), ("prism", 0.90)];
        assert_eq!(held(&behind, 25.0), [false, false, true]);
        // Level with every peer: nothing to explain.
        let level = [("r2cp", 0.90), ("ptcp", 0.90), ("prism", 0.90)];
        assert_eq!(held(&level, 36.0), [true, true, true]);
    }
}
