//! `radial repro`: re-creates a figure of the papers — runs its scenario
//! sweep, plots it, and writes a Markdown table beside the paper's claim, with
//! the acceptance checks we hold it to, evaluated on our numbers.
//!
//! Each target's section is written between markers in `<out>/<group>.md`
//! (for example `docs/results/rcp.md`), so re-running one target updates its
//! section only.

use std::fmt::Write as _;
use std::path::Path;

use radial_sim::Scenario;

use crate::cli::{io_err, jobs, CliError};
use crate::plot::{line_plot, Figure, Series};
use crate::run::write;
use crate::sweep::{run_sweep, RunResult};
use crate::timeseries::{binned, binned_sd, download, pipe_points, rate_between, share_near};

/// Mean per-flow goodput of the reliable flows of each run, by (series, x).
pub struct Table {
    /// Series names in sweep order.
    pub series: Vec<String>,
    /// X values in sweep order.
    pub xs: Vec<f64>,
    /// (series index, x index) → per-run values.
    cells: Vec<Vec<Vec<f64>>>,
}

impl Table {
    fn from_results(
        results: &[RunResult],
        series_param: &str,
        x_param: &str,
        metric: impl Fn(&RunResult) -> Option<f64>,
    ) -> Self {
        let mut t = Table {
            series: Vec::new(),
            xs: Vec::new(),
            cells: Vec::new(),
        };
        for r in results {
            let s = r.point.text(series_param).unwrap_or_default();
            let x: f64 = r
                .point
                .text(x_param)
                .and_then(|v| v.parse().ok())
                .unwrap_or(0.0);
            let si = match t.series.iter().position(|v| *v == s) {
                Some(i) => i,
                None => {
                    t.series.push(s);
                    t.cells.push(Vec::new());
                    t.series.len() - 1
                }
            };
            let xi = match t.xs.iter().position(|v| *v == x) {
                Some(i) => i,
                None => {
                    t.xs.push(x);
                    t.xs.len() - 1
                }
            };
            for row in &mut t.cells {
                row.resize(t.xs.len(), Vec::new());
            }
            if let Some(v) = metric(r) {
                t.cells[si][xi].push(v);
            }
        }
        t
    }

    /// One plot curve of means per series, x values scaled by `x_scale`.
    fn curves(&self, x_scale: f64) -> Vec<Series> {
        self.series
            .iter()
            .map(|s| Series {
                label: s.clone(),
                points: (0..self.xs.len())
                    .filter_map(|xi| self.stat(s, xi).map(|(m, _)| (self.xs[xi] * x_scale, m)))
                    .collect(),
            })
            .collect()
    }

    /// Mean and 95 % confidence half-width of series `s` at x index `xi`.
    pub fn stat(&self, s: &str, xi: usize) -> Option<(f64, f64)> {
        let si = self.series.iter().position(|v| v == s)?;
        let v = self.cells.get(si)?.get(xi)?;
        if v.is_empty() {
            return None;
        }
        let n = v.len() as f64;
        let mean = v.iter().sum::<f64>() / n;
        let sd = if v.len() > 1 {
            (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
        } else {
            0.0
        };
        Some((mean, t95(v.len()) * sd / n.sqrt()))
    }
}

/// Mean goodput of a run's reliable (non-UDP) flows.
fn flow_goodput(r: &RunResult) -> Option<f64> {
    let g: Vec<f64> = r
        .summary
        .flows
        .iter()
        .filter(|f| f.protocol != "udp")
        .map(|f| f.goodput_mbps)
        .collect();
    (!g.is_empty()).then(|| g.iter().sum::<f64>() / g.len() as f64)
}

/// The report of the flow called `name`.
fn named_flow<'a>(r: &'a RunResult, name: &str) -> Option<&'a radial_sim::metrics::FlowReport> {
    r.summary.flows.iter().find(|f| f.name == name)
}

/// Which flows a target's goodput is the mean of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measured {
    /// Every reliable flow.
    AllReliable,
    /// One flow, by name; the others are background.
    Flow(&'static str),
    /// The sum over the reliable flows (an aggregate, or the Ideal of
    /// separate flows on disjoint paths).
    SumReliable,
}

impl Measured {
    fn goodput(self, r: &RunResult) -> Option<f64> {
        match self {
            Measured::AllReliable => flow_goodput(r),
            Measured::Flow(name) => named_flow(r, name).map(|f| f.goodput_mbps),
            Measured::SumReliable => Some(
                r.summary
                    .flows
                    .iter()
                    .filter(|f| f.protocol != "udp")
                    .map(|f| f.goodput_mbps)
                    .sum(),
            ),
        }
    }
}

/// Joules per delivered megabyte at the (first) node that models energy.
fn energy_per_mb(r: &RunResult) -> Option<f64> {
    r.summary.nodes.first().and_then(|n| n.energy_per_mb_j)
}

/// Two-sided 95 % Student t quantile for `n` samples.
fn t95(n: usize) -> f64 {
    const T: [f64; 10] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    ];
    match n {
        0 | 1 => 0.0,
        n if n - 2 < T.len() => T[n - 2],
        _ => 1.96,
    }
}

/// One acceptance check, evaluated.
pub struct Check {
    /// What is checked.
    pub what: String,
    /// Whether our numbers satisfy it.
    pub holds: bool,
    /// The numbers behind the verdict.
    pub detail: String,
}

/// A reproducible figure.
pub struct Target {
    /// `rcp-fig5a`.
    pub name: &'static str,
    /// Results page group (`rcp` → `rcp.md`).
    pub group: &'static str,
    /// Figure title.
    pub title: &'static str,
    /// The scenario, embedded.
    pub scenario: &'static str,
    /// Scenario path in the repository (for the reproduce line).
    pub path: &'static str,
    /// The paper's claim, quoted or summarised with its section.
    pub claim: &'static str,
    /// Parameter on the x axis.
    pub x_param: &'static str,
    /// X-axis label.
    pub x_label: &'static str,
    /// Scale applied to x values for display (e.g. 100 for percent).
    pub x_scale: f64,
    /// Logarithmic x axis.
    pub log_x: bool,
    /// The acceptance checks the figure is held to.
    pub checks: fn(&Table) -> Vec<Check>,
    /// Notes on where our setup or numbers differ, and why.
    pub notes: &'static str,
    /// What is computed from the runs.
    pub kind: Kind,
    /// Whose goodput the figure shows.
    pub measured: Measured,
    /// Further tables under the main one (the costs behind the numbers).
    pub extra: fn(&[RunResult]) -> String,
}

/// How a target turns runs into a figure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Mean per-flow goodput against `x_param`, one curve per protocol.
    Curves,
    /// Mean and CoV of per-flow throughput at several times, against
    /// `x_param` (the number of RCP flows among 20).
    Friendliness,
    /// Energy per delivered megabyte and goodput against `x_param`, one
    /// curve per protocol.
    Energy,
    /// Sequence plots (bytes delivered against time) of the flow
    /// `download`, in total and per pipe, one set per value of `x_param`.
    Sequence,
}

/// Times (s) at which friendliness is measured: cumulative throughput since
/// each flow's start.
const FRIENDLINESS_TIMES: [f64; 4] = [10.0, 50.0, 150.0, 300.0];

/// Per (x, time): mean over seeds of the flows' mean throughput and CoV, plus
/// the mean throughput of TCP and RCP flows at the last time.
struct Friendliness {
    xs: Vec<f64>,
    /// [x][time] → (mean of means, mean of CoVs).
    cells: Vec<Vec<(f64, f64)>>,
    /// [x] → (TCP flows' mean, RCP flows' mean) at the last time.
    by_protocol: Vec<(Option<f64>, Option<f64>)>,
}

fn friendliness(results: &[RunResult], x_param: &str) -> Friendliness {
    let mut xs: Vec<f64> = Vec::new();
    let mut acc: Vec<Vec<(f64, f64, usize)>> = Vec::new();
    let mut proto: Vec<(f64, usize, f64, usize)> = Vec::new();
    for r in results {
        let x: f64 = r
            .point
            .text(x_param)
            .and_then(|v| v.parse().ok())
            .unwrap_or(0.0);
        let xi = match xs.iter().position(|v| *v == x) {
            Some(i) => i,
            None => {
                xs.push(x);
                acc.push(vec![(0.0, 0.0, 0); FRIENDLINESS_TIMES.len()]);
                proto.push((0.0, 0, 0.0, 0));
                xs.len() - 1
            }
        };
        for (ti, &t) in FRIENDLINESS_TIMES.iter().enumerate() {
            let thr: Vec<(f64, &str)> = r
                .series
                .iter()
                .filter(|p| (p.t - t).abs() < 1e-6)
                .map(|p| {
                    let f = &r.summary.flows[p.flow as usize];
                    let dt = (t - f.start_s).max(1e-9);
                    (p.delivered as f64 * 8.0 / dt / 1e6, f.protocol.as_str())
                })
                .collect();
            if thr.is_empty() {
                continue;
            }
            let n = thr.len() as f64;
            let mean = thr.iter().map(|v| v.0).sum::<f64>() / n;
            let var = thr.iter().map(|v| (v.0 - mean).powi(2)).sum::<f64>() / n;
            let cov = if mean > 0.0 { var.sqrt() / mean } else { 0.0 };
            let a = &mut acc[xi][ti];
            *a = (a.0 + mean, a.1 + cov, a.2 + 1);
            if ti == FRIENDLINESS_TIMES.len() - 1 {
                for (v, p) in &thr {
                    let q = &mut proto[xi];
                    if p.starts_with("rcp") {
                        q.2 += v;
                        q.3 += 1;
                    } else {
                        q.0 += v;
                        q.1 += 1;
                    }
                }
            }
        }
    }
    Friendliness {
        cells: acc
            .iter()
            .map(|row| {
                row.iter()
                    .map(|&(m, c, n)| (m / n.max(1) as f64, c / n.max(1) as f64))
                    .collect()
            })
            .collect(),
        by_protocol: proto
            .iter()
            .map(|&(t, nt, r, nr)| {
                (
                    (nt > 0).then(|| t / nt as f64),
                    (nr > 0).then(|| r / nr as f64),
                )
            })
            .collect(),
        xs,
    }
}

fn friendliness_checks(f: &Friendliness) -> Vec<Check> {
    let Some(base) = f.xs.iter().position(|&x| x == 0.0) else {
        return Vec::new();
    };
    let (mut worst_mean, mut at_mean) = (0.0_f64, (0.0, 0.0));
    let (mut worst_cov, mut at_cov) = (0.0_f64, (0.0, 0.0));
    for (xi, &x) in f.xs.iter().enumerate() {
        for (ti, &t) in FRIENDLINESS_TIMES.iter().enumerate() {
            let (m0, c0) = f.cells[base][ti];
            let (m, c) = f.cells[xi][ti];
            let dm = (m - m0).abs() / m0.max(1e-12);
            if dm > worst_mean {
                (worst_mean, at_mean) = (dm, (x, t));
            }
            if (c - c0).abs() > worst_cov {
                (worst_cov, at_cov) = ((c - c0).abs(), (x, t));
            }
        }
    }
    vec![
        Check {
            what: "replacing TCP flows with RCP flows changes the mean per-flow throughput by less than 5 %".into(),
            holds: worst_mean < 0.05,
            detail: format!(
                "largest change {:.2} % ({} RCP flows, t = {} s)",
                worst_mean * 100.0,
                at_mean.0,
                at_mean.1
            ),
        },
        Check {
            what: "… and the CoV by less than 0.05".into(),
            holds: worst_cov < 0.05,
            detail: format!(
                "largest change {:.4} ({} RCP flows, t = {} s)",
                worst_cov, at_cov.0, at_cov.1
            ),
        },
    ]
}

fn fig5a_checks(t: &Table) -> Vec<Check> {
    let mut out = Vec::new();
    let mut worst = (f64::INFINITY, 0.0);
    for (xi, &x) in t.xs.iter().enumerate() {
        if let (Some((r, _)), Some((s, _))) = (t.stat("rcp", xi), t.stat("tcp-sack", xi)) {
            if r / s < worst.0 {
                worst = (r / s, x);
            }
        }
    }
    out.push(Check {
        what: "`rcp` ≥ `tcp-sack` at every loss rate".into(),
        holds: worst.0 >= 1.0,
        detail: format!(
            "smallest ratio rcp / tcp-sack = {:.3} at loss {}",
            worst.0, worst.1
        ),
    });
    for (xi, &x) in t.xs.iter().enumerate().filter(|(_, &x)| x >= 0.05) {
        if let (Some((r, _)), Some((e, _))) = (t.stat("rcp-eln", xi), t.stat("tcp-eln", xi)) {
            out.push(Check {
                what: format!("`rcp-eln` ≥ 1.5 × `tcp-eln` at loss {x}"),
                holds: r >= 1.5 * e,
                detail: format!("ratio {:.2} ({r:.3} / {e:.3} Mbit/s)", r / e),
            });
        }
    }
    out
}

fn fig4c_checks(t: &Table) -> Vec<Check> {
    let mut worst = (0.0_f64, 0.0);
    for (xi, &x) in t.xs.iter().enumerate() {
        if let (Some((r, _)), Some((s, _))) = (t.stat("rcp", xi), t.stat("tcp-sack", xi)) {
            let d = (r - s).abs() / s;
            if d > worst.0 {
                worst = (d, x);
            }
        }
    }
    vec![Check {
        what: "`rcp` within 10 % of `tcp-sack` at every reverse-path load".into(),
        holds: worst.0 <= 0.10,
        detail: format!(
            "largest difference {:.1} % at {} on/off flows",
            worst.0 * 100.0,
            worst.1
        ),
    }]
}

fn fig5b_checks(t: &Table) -> Vec<Check> {
    let mut worst = (f64::INFINITY, 0.0, "");
    for (xi, &x) in t.xs.iter().enumerate() {
        let Some((sat, _)) = t.stat("rcp-sat", xi) else {
            continue;
        };
        for other in ["rcp", "tcp-sack"] {
            if let Some((o, _)) = t.stat(other, xi) {
                if sat / o < worst.0 {
                    worst = (sat / o, x, other);
                }
            }
        }
    }
    vec![Check {
        what: "`rcp-sat` ahead of `rcp` and `tcp-sack` at every delay".into(),
        holds: worst.0 > 1.0,
        detail: format!(
            "smallest ratio rcp-sat / {} = {:.2} at {} ms",
            worst.2, worst.0, worst.1
        ),
    }]
}

/// What the measured flow's goodput cost: its retransmissions per delivered
/// segment and timeouts, and the goodput left to the backlogged reverse flow.
fn fig5b_costs(results: &[RunResult]) -> String {
    fn measured(r: &RunResult) -> Option<&radial_sim::metrics::FlowReport> {
        named_flow(r, "measured")
    }
    let tables = [
        (
            "Retransmitted segments per delivered segment of the measured flow",
            Table::from_results(results, "protocol", "delay_ms", |r| {
                measured(r)
                    .map(|f| f.retransmits as f64 / (f.bytes_delivered as f64 / 1000.0).max(1.0))
            }),
        ),
        (
            "Retransmission timeouts of the measured flow",
            Table::from_results(results, "protocol", "delay_ms", |r| {
                measured(r).map(|f| f.timeouts as f64)
            }),
        ),
        (
            "Goodput of the backlogged reverse TCP flow (Mbit/s)",
            Table::from_results(results, "protocol", "delay_ms", |r| {
                named_flow(r, "reverse").map(|f| f.goodput_mbps)
            }),
        ),
    ];
    let mut md = String::new();
    for (title, t) in &tables {
        let _ = writeln!(md, "{title}:\n");
        table_markdown(&mut md, t, "delay_ms");
        let _ = writeln!(md);
    }
    md
}

/// Aggregation efficiency (R²CP §4.4.3): each scheme's mean goodput over
/// Ideal's at every x, and the smallest.
fn efficiency(t: &Table, scheme: &str) -> Vec<(f64, f64)> {
    (0..t.xs.len())
        .filter_map(|xi| {
            let (i, _) = t.stat("ideal", xi)?;
            let (g, _) = t.stat(scheme, xi)?;
            Some((t.xs[xi], g / i))
        })
        .collect()
}

fn r2cp_tracks_ideal(t: &Table, unit: &str) -> Check {
    let eff = efficiency(t, "r2cp");
    let worst = eff
        .iter()
        .copied()
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap_or((0.0, 0.0));
    Check {
        what: "`r2cp` ≥ 95 % of Ideal at every point (receive buffer 256 KB)".into(),
        holds: !eff.is_empty() && eff.iter().all(|&(_, e)| e >= 0.95),
        detail: format!("smallest {:.1} % at {} {unit}", worst.1 * 100.0, worst.0),
    }
}

/// `apps` below both R²CP variants at the point of largest mismatch (the
/// first x for Figure 9(a), the last for 9(b)).
fn apps_below_both(t: &Table, xi: usize, at: &str) -> Check {
    let m = |s: &str| t.stat(s, xi).map_or(f64::NAN, |(m, _)| m);
    let (apps, r, s) = (m("apps"), m("r2cp"), m("r2cp-s"));
    Check {
        what: format!("`apps` below `r2cp` and `r2cp-s` at {at}"),
        holds: apps < r && apps < s,
        detail: format!("apps {apps:.3}, r2cp {r:.3}, r2cp-s {s:.3} Mbit/s"),
    }
}

fn fig9a_checks(t: &Table) -> Vec<Check> {
    vec![
        r2cp_tracks_ideal(t, "Mbit/s"),
        apps_below_both(t, 0, "the largest bandwidth mismatch (1 against 4 Mbit/s)"),
    ]
}

fn fig9b_checks(t: &Table) -> Vec<Check> {
    // x is half of pipe 2's round trip; pipe 1's is 30 ms.
    let beyond_3x: Vec<(f64, f64)> = efficiency(t, "r2cp-s")
        .into_iter()
        .filter(|&(x, _)| 2.0 * x > 90.0)
        .collect();
    let worst = beyond_3x
        .iter()
        .copied()
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap_or((0.0, f64::INFINITY));
    let mut t2 = vec![
        r2cp_tracks_ideal(t, "ms (half of pipe 2's round trip)"),
        apps_below_both(
            t,
            t.xs.len().saturating_sub(1),
            "the largest RTT mismatch (210 against 30 ms)",
        ),
    ];
    t2.push(Check {
        what: "`r2cp-s` below 85 % of Ideal somewhere beyond a 3× RTT mismatch".into(),
        holds: worst.1 < 0.85,
        detail: format!(
            "smallest {:.1} % at a {} ms round trip",
            worst.1 * 100.0,
            2.0 * worst.0
        ),
    });
    t2
}

/// Figure 9(c): the share of arrivals that find the receive buffer at least
/// 75 % full, and the efficiency table.
fn fig9_extra(results: &[RunResult], x_param: &str) -> String {
    let share = Table::from_results(results, "protocol", x_param, |r| {
        named_flow(r, "aggregate").and_then(|f| f.buffer_75_share)
    });
    let goodput = Table::from_results(results, "protocol", x_param, |r| {
        Measured::SumReliable.goodput(r)
    });
    let mut md = String::new();
    let _ = writeln!(md, "Efficiency, goodput / Ideal:\n");
    let schemes = ["r2cp", "r2cp-s", "apps"];
    let _ = writeln!(md, "| {x_param} | {} |", schemes.join(" | "));
    let _ = writeln!(md, "|---|---|---|---|");
    let eff: Vec<Vec<(f64, f64)>> = schemes.iter().map(|s| efficiency(&goodput, s)).collect();
    for (i, (x, _)) in eff[0].iter().enumerate() {
        let cells: Vec<String> = eff
            .iter()
            .map(|e| {
                e.get(i)
                    .map_or("—".into(), |(_, v)| format!("{:.1} %", v * 100.0))
            })
            .collect();
        let _ = writeln!(md, "| {x} | {} |", cells.join(" | "));
    }
    let _ = writeln!(
        md,
        "\nShare of data arrivals that found the receive buffer at least 75 % full (Figure 9(c)):\n"
    );
    table_markdown(&mut md, &share, x_param);
    let _ = writeln!(md);
    md
}

/// What a target has unless it says otherwise: linear x, no scaling, no
/// acceptance checks, mean goodput of the reliable flows, no extra tables.
const BASE: Target = Target {
    name: "",
    group: "",
    title: "",
    scenario: "",
    path: "",
    claim: "",
    x_param: "",
    x_label: "",
    x_scale: 1.0,
    log_x: false,
    checks: |_| Vec::new(),
    notes: "",
    kind: Kind::Curves,
    measured: Measured::AllReliable,
    extra: |_| String::new(),
};

/// Every target, in the order `repro all` runs them.
pub const TARGETS: &[Target] = &[
    Target {
        name: "rcp-fig5c",
        group: "rcp",
        title: "RCP Figure 5(c): energy and goodput with power management",
        scenario: include_str!("../../../scenarios/papers/rcp-fig5c.toml"),
        path: "scenarios/papers/rcp-fig5c.toml",
        claim: "§3.4.4: \"the longer the mobile host stays in the sleep mode, the more energy savings it can achieve using RCP\"; \"for various conditions of the channel state, the throughput achieved using RCP is in fact no less than that when using TCP\".",
        x_param: "bad_mean_s",
        x_label: "mean duration of the bad channel state (s)",
        notes: "The RCP host sleeps as soon as the channel turns bad, wakes at the first 100 ms beacon that finds it good (2 ms beacons charged at receive power), freezes its timers while asleep and, on waking, requests again what was outstanding without a window cut; the TCP host stays awake. Idle power is taken equal to receive power (1.4 W), as the paper gives no idle figure. Point-to-point links are full duplex, so transmit and receive airtime may overlap and are both charged. The wired part is the S1 validation path (docs/validation.md).",
        kind: Kind::Energy,
        ..BASE
    },
    Target {
        name: "rcp-fig4ab",
        group: "rcp",
        title: "RCP Figures 4(a) and 4(b): TCP-friendliness",
        scenario: include_str!("../../../scenarios/papers/rcp-fig4ab.toml"),
        path: "scenarios/papers/rcp-fig4ab.toml",
        claim: "§3.4.1: \"the impact of introducing RCP flows on existing TCP flows in terms of the throughput re-distribution is minimal, as evident from the 'flat' curve\"; \"TCP flows do not suffer from unfairness in the presence of RCP flows. (Otherwise, CoV would have increased with increasing number of RCP flows.)\"",
        x_param: "n_rcp",
        x_label: "RCP flows among the 20",
        notes: "Throughput at time t is each flow's in-order bytes by t over the time since its start (the paper does not say whether its instants are cumulative). Means and CoVs are over the 20 flows of a run, then averaged over the seeds. Why the CoV rises at t = 10 s with RCP: the flow that starts first ramps up alone and overshoots in slow start once the others join. Under `tcp-sack` (ns-2 Sack1) that flow usually loses a retransmission and times out, which cancels its head start; under RCP it recovers its holes without a timeout (§3.3.5) and keeps it. In seeds 1–6 with 20 flows of one kind, the first-starting TCP flow timed out in five runs (0–6 timeouts) and was the best-served flow at 10 s in three; the first-starting RCP flow never timed out and was the best-served flow at 10 s in all six, with 1.3–2.1 MB against a median of 0.5–0.6 MB (`radial run scenarios/papers/rcp-fig4ab.toml --seed S --set n_rcp=20 --set n_tcp=0`, and `n_rcp=0 n_tcp=20`). The head start fades as AIMD converges, hence the agreement from 50 s on.",
        kind: Kind::Friendliness,
        ..BASE
    },
    Target {
        name: "rcp-fig5a",
        group: "rcp",
        title: "RCP Figure 5(a): goodput against wireless loss",
        scenario: include_str!("../../../scenarios/papers/rcp-fig5a.toml"),
        path: "scenarios/papers/rcp-fig5a.toml",
        claim: "§3.4.2: \"the performance of TCP improves substantially for loss rates between 0.2% and 2% when ELN is used. However, when the loss rate increases beyond 2%, the performance gain decreases rapidly\"; \"RCP with ELN ... shows a much better performance even when the loss rate is high\"; \"even in the absence of ELN, RCP constantly achieves better performance than TCP, with the performance gain increasing as the packet error rate increases.\"",
        x_param: "loss",
        x_label: "packet loss rate on the wireless link, both directions (%)",
        x_scale: 100.0,
        log_x: true,
        checks: fig5a_checks,
        notes: "The wired path is the S1 validation path of docs/validation.md (the paper's Figure 3 parameters are not in our copy). Our `tcp-sack` is ns-2's Sack1 as validated in docs/validation.md; the paper's TCP-SACK had two extra refinements (a better pipe estimate and no timeout for a lost retransmission), so our TCP baseline is the weaker one. Our `tcp-eln` is NewReno with the ELN bit on duplicate ACKs; `rcp-eln` re-requests a hole the moment the host reports it lost (the paper leaves the timing open). The paper says TCP-ELN's gain \"decreases rapidly\" beyond 2 % loss; compare the tcp-eln column: in our runs it declines more slowly (see the tcp-eln column against tcp-sack); we have not established which difference from the paper's ELN implementation causes this.",
        ..BASE
    },
    Target {
        name: "rcp-fig5b",
        group: "rcp",
        title: "RCP Figure 5(b): long-delay link with a tuned controller",
        scenario: include_str!("../../../scenarios/papers/rcp-fig5b.toml"),
        path: "scenarios/papers/rcp-fig5b.toml",
        claim: "§3.4.3: \"the NewReno style of congestion control used in TCP (and RCP) does not perform well in the satellite environment, while STP and RCP-STP achieve a much better performance\"; \"the performance difference between STP and RCP-STP reinforces the benefits of receiver-centric protocols over sender-centric ones.\"",
        x_param: "delay_ms",
        x_label: "one-way propagation delay of the 1.5 Mbit/s link (ms)",
        checks: fig5b_checks,
        measured: Measured::Flow("measured"),
        extra: fig5b_costs,
        notes: FIG5B_NOTES,
        ..BASE
    },
    Target {
        name: "r2cp-fig8a",
        group: "r2cp",
        title: "R²CP Figure 8(a): seamless handoff",
        scenario: include_str!("../../../scenarios/papers/r2cp-fig8a.toml"),
        path: "scenarios/papers/r2cp-fig8a.toml",
        claim: "§4.4.1: \"during t = 58s and t = 60s two pipes co-exist in the connection to collaboratively deliver data for the application. Even if there is some setup or ramp-up (e.g. due to slow start) delay for the RCP-2 pipe, the existence of the RCP-1 pipe allows the aggregate connection to continue progressing without being disrupted.\"",
        x_param: "variant",
        x_label: "time (s)",
        kind: Kind::Sequence,
        measured: Measured::Flow("download"),
        notes: "Handoff disruption is the longest gap between two in-order deliveries to the application that overlaps the 5 s after a pipe change; the median gap is taken over the 5 s before the first change. Both pipes come from Server-I, whose 2 Mbit/s access is the bottleneck of both paths, and the old pipe keeps that 50-packet queue full (200 ms of data). Break-before-make: the new pipe's SYN+ACK waits in that queue behind the old pipe's data, which no one wants any more, so its handshake takes some 234 ms instead of 78. Its PROBE (SEG.DEQ) and first requests leave together right after the SYN+ACK, the sender serves each pull once its application has sought to SEG.DEQ and written it, and delivery resumes one new-path round trip later. Make-before-break: the new pipe's slow start overflows the queue the old pipe keeps full, and the lost segments hold up in-order delivery until they are re-requested through that queue (no timeout). That stall is one loss episode on this path: one pipe alone stalls delivery 291 ms at each of its congestion losses, every 7.7 s before and after the handoff (`radial run scenarios/papers/r2cp-fig8a.toml`). Where the paths do not share a queue (`crates/radial-sim/tests/r2cp.rs`), make-before-break keeps delivery within twice the usual gap (8.3 ms against 4.2 ms with the preset overlap, 4.2 ms when the old pipe is retired once the new one is ready), and break-before-make stalls it 73.5 ms, within one new-path round trip plus the 34 ms handshake.",
        ..BASE
    },
    Target {
        name: "r2cp-fig8b",
        group: "r2cp",
        title: "R²CP Figure 8(b): server migration",
        scenario: include_str!("../../../scenarios/papers/r2cp-fig8b.toml"),
        path: "scenarios/papers/r2cp-fig8b.toml",
        claim: "§4.4.2: \"After the new RCP pipe is established, the mobile host requests data that has not been delivered by Server-I, instead of requesting from the first byte of the data. The difference between the slopes of RCP-2 and RCP-3 indicates that RCP-3 provides a larger bandwidth than RCP-2\"; \"server migration using R²CP does not cause redundant transmissions\".",
        x_param: "variant",
        x_label: "time (s)",
        kind: Kind::Sequence,
        measured: Measured::Flow("download"),
        notes: "The replica is an unchanged RCP sender: the new pipe's first request (a PROBE with SEG.DEQ) makes it skip what the host holds (`SendBuffer::ack_to` past its end, and the file-serving application seeks there), and the engine asks it only for segments neither held nor outstanding on the old pipe, which is retired gracefully (no new requests, closed when its outstanding data has arrived).",
        ..BASE
    },
    Target {
        name: "r2cp-fig8c",
        group: "r2cp",
        title: "R²CP Figure 8(c): aggregation from two servers",
        scenario: include_str!("../../../scenarios/papers/r2cp-fig8c.toml"),
        path: "scenarios/papers/r2cp-fig8c.toml",
        claim: "§4.4.3: \"the mobile host keeps both pipes open during the period it is within the coverage of both WLANs. As shown in Figure 8(c), R²CP can achieve the aggregate bandwidth of the two pipes.\"",
        x_param: "variant",
        x_label: "time (s)",
        kind: Kind::Sequence,
        measured: Measured::Flow("download"),
        notes: "Pipe 1 is limited by Server-I's 2 Mbit/s access, pipe 2 by WLAN B's 5 Mbit/s; with 1000-byte payloads in 1040-byte packets the most the two can carry is 1.92 and 4.81 Mbit/s.",
        ..BASE
    },
    Target {
        name: "r2cp-policy",
        group: "r2cp",
        title: "Policy-based aggregation (pTCP Figure 11) with R²CP",
        scenario: include_str!("../../../scenarios/papers/r2cp-policy.toml"),
        path: "scenarios/papers/r2cp-policy.toml",
        claim: "pTCP §6.2.2: \"the aggregated bandwidth enjoyed by the mobile host stays at the desired data rate when the policy-based bandwidth aggregation is used. The data rate achieved through the WWAN interface 'fills' the deficient data rate that the WLAN interface fails to provide.\"",
        x_param: "variant",
        x_label: "time (s)",
        kind: Kind::Sequence,
        measured: Measured::Flow("download"),
        extra: rates_extra,
        notes: "Figure 10's token algorithm in R²CP's engine: every 100 ms (the paper gives no period) the engine makes 10 Mbit/s × 100 ms of request tokens that only the WLAN pipe may spend; what it leaves is spendable by either pipe in the next period; a pipe without a token freezes until then. Tokens count payload bytes; the WLAN's 8.5–9.5 Mbit/s link rates carry 8.2–9.1 Mbit/s of payload in 1040-byte packets, so the WWAN has 0.9–1.8 Mbit/s to fill. The standard deviation of the 1 s rates is not lower with the policy: it is dominated by the dips and bursts of in-order delivery around each loss recovery on the WLAN, which both variants have (the throughput plot).",
        ..BASE
    },
    Target {
        name: "r2cp-blackout",
        group: "r2cp",
        title: "Redundant striping through WLAN blackouts",
        scenario: include_str!("../../../scenarios/papers/r2cp-blackout.toml"),
        path: "scenarios/papers/r2cp-blackout.toml",
        claim: "pTCP §4.1 (3): \"the data carried by the first virtual packet of a TCP-v pipe that recently suffered from blackouts will be bound to another TCP-v pipe, such that the application can continue receiving data while the concerned TCP-v pipe probes for the duration of blackouts\"; R²CP §4.4.1: \"the redundant striping technique proposed in [15] can also be used\".",
        x_param: "variant",
        x_label: "time (s)",
        kind: Kind::Sequence,
        measured: Measured::Flow("download"),
        notes: "The WLAN is down for 2 s at 20 s and for 6 s at 40 s. A pipe counts as probing a blackout from its retransmission timeout until something arrives on it again; while the other pipe works it takes nothing from it: with redundant striping its requests ask for the head of line without binding it (the probes' copies that do arrive are the bytes fetched twice), without it they are PROBEs that carry no pull. Either way it probes once per un-backed-off RTO, so the WLAN pipe is back within about 0.3 s of its link's return. (Before probes stopped taking segments, the plain variant held the head of line through each backed-off timeout: a 6.17 s stall in the 6 s blackout.) Handoff disruption does not apply (no pipe opens or closes); the longest stalls are `max_delivery_gap_s` in each run's summary.",
        ..BASE
    },
    Target {
        name: "r2cp-fig9a",
        group: "r2cp",
        title: "R²CP Figure 9(a): aggregation with a bandwidth mismatch",
        scenario: include_str!("../../../scenarios/papers/r2cp-fig9a.toml"),
        path: "scenarios/papers/r2cp-fig9a.toml",
        claim: "§4.4.3: \"both R²CP and R²CP-s achieve the ideal performance irrespective of the bandwidth mismatches. The application striping approach fails to achieve the desired performance.\"",
        x_param: "bw2",
        x_label: "bottleneck bandwidth of pipe 2 (Mbit/s); pipe 1 at 4 Mbit/s",
        checks: fig9a_checks,
        measured: Measured::SumReliable,
        extra: |r| fig9_extra(r, "bw2"),
        notes: FIG9_NOTES,
        ..BASE
    },
    Target {
        name: "r2cp-fig9b",
        group: "r2cp",
        title: "R²CP Figures 9(b) and 9(c): aggregation with an RTT mismatch",
        scenario: include_str!("../../../scenarios/papers/r2cp-fig9b.toml"),
        path: "scenarios/papers/r2cp-fig9b.toml",
        claim: "§4.4.3: \"while the performance of R²CP still closely tracks the ideal performance, R²CP-s fails to scale when the RTT mismatch increases beyond 3\"; Figure 9(c): \"R²CP-s manages to maintain a small queue size when the RTT mismatches are small, the queue builds up noticeably as the RTT mismatches increase.\"",
        x_param: "half_rtt2_ms",
        x_label: "round-trip propagation time of pipe 2 (ms); pipe 1 at 30 ms",
        x_scale: 2.0,
        checks: fig9b_checks,
        measured: Measured::SumReliable,
        extra: |r| fig9_extra(r, "half_rtt2_ms"),
        notes: FIG9_NOTES,
        ..BASE
    },
    Target {
        name: "r2cp-fig9b-buffer",
        group: "r2cp",
        title: "R²CP Figure 9(b) at a 7× RTT mismatch against the receive buffer",
        scenario: include_str!("../../../scenarios/papers/r2cp-fig9b-buffer.toml"),
        path: "scenarios/papers/r2cp-fig9b-buffer.toml",
        claim: "§4.4.3: R²CP-s's fall is \"due to the scheduling used that does not take into consideration the round-trip times of different pipes ... Due to the limited space in the R²CP receive buffer, head-of-line blocking eventually triggers the flow control of R²CP and causes the progression of the aggregate connection to stall.\"",
        x_param: "window",
        x_label: "receive buffer (1000-byte segments); pipe 2's round trip 210 ms, pipe 1's 30 ms",
        measured: Measured::SumReliable,
        extra: |r| fig9_extra(r, "window"),
        notes: "The paper's buffer size is not in our copy; this sweep shows where the buffer starts to limit each scheme at the hardest point of Figure 9(b). Each Ideal connection has a buffer of the same size of its own. The paper's contrast shows where the buffer is short: at 32 and 64 KB `r2cp-s` gives the slow pipe the lowest segment every time it asks, the head of line then waits a 210 ms round trip with the buffer full behind it, and the connection runs at little more than the buffer per slow round trip (1.4 and 2.8 Mbit/s); ranked `r2cp` freezes the slow pipe whenever its rank puts its segment past the buffer (§4.3.1) and keeps the quick pipe's rate (3.7 and 3.6 Mbit/s). From 128 to 192 KB both fall short of Ideal, `r2cp` slightly more: the quick pipe's Reno window fills its 50-packet drop-tail queue, those queued bytes hold buffer too (65 KB in flight where 15 KB would carry its rate), and what is left is not enough for the slow pipe's rank, so it stays frozen more. Per-pipe limits on bytes queued in the network would do better; that is not in the paper.",
        ..BASE
    },
    Target {
        name: "rcp-fig4c",
        group: "rcp",
        title: "RCP Figure 4(c): per-flow goodput against reverse-path load",
        scenario: include_str!("../../../scenarios/papers/rcp-fig4c.toml"),
        path: "scenarios/papers/rcp-fig4c.toml",
        claim: "§3.4.1: \"with 100 on/off traffic sources, each of the TCP (or RCP) flows experiences a packet drop rate of approximately 40% in the bottleneck link\"; \"despite the heavy losses in the reverse path, the performance of RCP closely tracks that of TCP.\"",
        x_param: "onoff",
        x_label: "Pareto on/off flows on the reverse path",
        checks: fig4c_checks,
        notes: "The S2 validation dumbbell (docs/validation.md); the on/off sources sit behind R2 and send to a sink behind R1, so they share the bottleneck's reverse direction with the ACKs (TCP) or REQs (RCP). Pareto shape 1.5. The y value is the mean goodput of the 20 forward flows. Calibration against the paper's 40 %: `radial run scenarios/papers/rcp-fig4c.toml --set protocol=rcp --set onoff=100` (seed 1) drops 39.8 % of the packets offered to the bottleneck's reverse direction (R2->R1 `drops_queue` over offered), REQs and on/off datagrams together.",
        ..BASE
    },
];

fn section(
    target: &Target,
    sc: &Scenario,
    duration_s: f64,
    table: &Table,
    checks: &[Check],
    extra: &str,
) -> String {
    let mut md = String::new();
    heading(&mut md, target);
    let _ = writeln!(
        md,
        "**Ours.** {} in Mbit/s ± 95 % confidence half-width over {} seeds, {duration_s} s each (`{}`).\n",
        match target.measured {
            Measured::AllReliable => "Mean per-flow goodput".to_string(),
            Measured::Flow(name) => format!("Goodput of the flow `{name}`"),
            Measured::SumReliable => "Aggregate goodput (for `ideal`: the sum of one RCP flow alone on each path)".to_string(),
        },
        sc.seeds.len(),
        target.path
    );
    table_markdown(&mut md, table, target.x_param);
    let _ = writeln!(md, "\n![{}]({}.png)\n", target.title, target.name);
    md.push_str(extra);
    checks_and_notes(&mut md, target, checks);
    md
}

/// A section's title and the paper's claim.
fn heading(md: &mut String, target: &Target) {
    let _ = writeln!(md, "## {}\n", target.title);
    let _ = writeln!(md, "**Paper.** {}\n", target.claim);
}

/// A table of `table`'s means ± 95 % half-widths, one row per x value.
fn table_markdown(md: &mut String, table: &Table, x_param: &str) {
    let _ = write!(md, "| {x_param} |");
    for s in &table.series {
        let _ = write!(md, " {s} |");
    }
    let _ = writeln!(md);
    let _ = writeln!(md, "|---|{}", "---|".repeat(table.series.len()));
    for (xi, x) in table.xs.iter().enumerate() {
        let _ = write!(md, "| {x} |");
        for s in &table.series {
            match table.stat(s, xi) {
                Some((m, c)) => {
                    let _ = write!(md, " {m:.4} ± {c:.4} |");
                }
                None => {
                    let _ = write!(md, " — |");
                }
            }
        }
        let _ = writeln!(md);
    }
}

/// The acceptance checks, the notes and the command, closing a section.
fn checks_and_notes(md: &mut String, target: &Target, checks: &[Check]) {
    let _ = writeln!(md, "**Acceptance.**\n");
    for c in checks {
        let verdict = if c.holds { "holds" } else { "does not hold" };
        let _ = writeln!(md, "- {} — **{verdict}** ({})", c.what, c.detail);
    }
    let _ = writeln!(md, "\n**Notes.** {}\n", target.notes);
    let _ = writeln!(
        md,
        "Reproduce: `radial repro {} --out docs/results`.",
        target.name
    );
}

/// Replaces (or appends) the section between this target's markers.
fn splice(doc: &str, name: &str, body: &str) -> String {
    let start = format!("<!-- repro:{name}:start -->");
    let end = format!("<!-- repro:{name}:end -->");
    let block = format!("{start}\n{body}{end}");
    match (doc.find(&start), doc.find(&end)) {
        (Some(a), Some(b)) if b > a => format!("{}{}{}", &doc[..a], block, &doc[b + end.len()..]),
        _ => format!("{}\n{}\n", doc.trim_end(), block),
    }
}

fn friendliness_section(
    target: &Target,
    sc: &Scenario,
    f: &Friendliness,
    checks: &[Check],
) -> String {
    let mut md = String::new();
    heading(&mut md, target);
    let _ = writeln!(
        md,
        "**Ours.** Mean and CoV of the per-flow throughput (Mbit/s) at several times, averaged over {} seeds (`{}`); the last two columns split the flows by protocol at t = 300 s.\n",
        sc.seeds.len(),
        target.path
    );
    let _ = write!(md, "| RCP flows |");
    for t in FRIENDLINESS_TIMES {
        let _ = write!(md, " mean @{t} s |");
    }
    for t in FRIENDLINESS_TIMES {
        let _ = write!(md, " CoV @{t} s |");
    }
    let _ = writeln!(md, " TCP flows | RCP flows |");
    let _ = writeln!(
        md,
        "|---|{}",
        "---|".repeat(2 * FRIENDLINESS_TIMES.len() + 2)
    );
    for (xi, x) in f.xs.iter().enumerate() {
        let _ = write!(md, "| {x} |");
        for (m, _) in &f.cells[xi] {
            let _ = write!(md, " {m:.4} |");
        }
        for (_, c) in &f.cells[xi] {
            let _ = write!(md, " {c:.4} |");
        }
        let cell = |v: Option<f64>| v.map_or("—".to_string(), |v| format!("{v:.4}"));
        let (t, r) = f.by_protocol[xi];
        let _ = writeln!(md, " {} | {} |", cell(t), cell(r));
    }
    let _ = writeln!(
        md,
        "\n![mean]({}-mean.png) ![CoV]({}-cov.png)\n",
        target.name, target.name
    );
    checks_and_notes(&mut md, target, checks);
    md
}

fn run_friendliness(
    target: &Target,
    sc: &Scenario,
    results: &[RunResult],
    out: &Path,
) -> Result<(String, bool), CliError> {
    let f = friendliness(results, target.x_param);
    let checks = friendliness_checks(&f);
    for (suffix, y_label, pick) in [
        ("mean", "mean per-flow throughput (Mbit/s)", 0usize),
        ("cov", "CoV of per-flow throughput", 1),
    ] {
        let series: Vec<Series> = FRIENDLINESS_TIMES
            .iter()
            .enumerate()
            .map(|(ti, t)| Series {
                label: format!("t = {t} s"),
                points: f
                    .xs
                    .iter()
                    .enumerate()
                    .map(|(xi, &x)| {
                        let (m, c) = f.cells[xi][ti];
                        (x, if pick == 0 { m } else { c })
                    })
                    .collect(),
            })
            .collect();
        line_plot(
            &out.join(format!("{}-{suffix}", target.name)),
            &Figure {
                title: target.title,
                x_label: target.x_label,
                y_label,
                log_x: false,
                series: &series,
            },
        )?;
    }
    let holds = checks.iter().all(|c| c.holds);
    Ok((friendliness_section(target, sc, &f, &checks), holds))
}

fn fig5c_checks(goodput: &Table, energy: &Table) -> Vec<Check> {
    let mut out = Vec::new();
    for (xi, &x) in energy.xs.iter().enumerate() {
        if let (Some((er, _)), Some((et, _)), Some((gr, _)), Some((gt, _))) = (
            energy.stat("rcp", xi),
            energy.stat("tcp-sack", xi),
            goodput.stat("rcp", xi),
            goodput.stat("tcp-sack", xi),
        ) {
            out.push(Check {
                what: format!(
                    "bad-state mean {x} s: RCP's energy per MB below TCP's, with goodput no lower"
                ),
                holds: er < et && gr >= gt,
                detail: format!("{er:.2} vs {et:.2} J/MB; {gr:.4} vs {gt:.4} Mbit/s"),
            });
        }
    }
    out
}

fn run_energy(
    target: &Target,
    sc: &Scenario,
    goodput: &Table,
    energy: &Table,
    out: &Path,
) -> Result<(String, bool), CliError> {
    let checks = fig5c_checks(goodput, energy);
    for (suffix, y_label, t) in [
        (
            "energy",
            "energy per delivered MB at the mobile host (J)",
            energy,
        ),
        ("goodput", "goodput (Mbit/s)", goodput),
    ] {
        let series = t.curves(target.x_scale);
        line_plot(
            &out.join(format!("{}-{suffix}", target.name)),
            &Figure {
                title: target.title,
                x_label: target.x_label,
                y_label,
                log_x: target.log_x,
                series: &series,
            },
        )?;
    }
    let mut md = String::new();
    heading(&mut md, target);
    let _ = writeln!(
        md,
        "**Ours.** Energy per delivered megabyte at the mobile host (J) and goodput (Mbit/s), mean ± 95 % confidence half-width over {} seeds, 300 s each (`{}`).\n",
        sc.seeds.len(),
        target.path
    );
    let _ = write!(md, "| {} |", target.x_param);
    for s in &energy.series {
        let _ = write!(md, " {s} J/MB | {s} Mbit/s |");
    }
    let _ = writeln!(md);
    let _ = writeln!(md, "|---|{}", "---|".repeat(2 * energy.series.len()));
    for (xi, x) in energy.xs.iter().enumerate() {
        let _ = write!(md, "| {x} |");
        for s in &energy.series {
            let cell = |t: &Table, p: usize| {
                t.stat(s, xi)
                    .map_or("—".to_string(), |(m, c)| format!("{m:.p$} ± {c:.p$}"))
            };
            let _ = write!(md, " {} | {} |", cell(energy, 2), cell(goodput, 4));
        }
        let _ = writeln!(md);
    }
    let _ = writeln!(
        md,
        "\n![energy]({}-energy.png) ![goodput]({}-goodput.png)\n",
        target.name, target.name
    );
    checks_and_notes(&mut md, target, &checks);
    let holds = checks.iter().all(|c| c.holds);
    Ok((md, holds))
}

/// The R²CP figures' checks (Figure 8), on the runs of the first seed.
fn fig8_checks(name: &str, runs: &[(&str, &RunResult)]) -> Vec<Check> {
    let report = |v: &str| {
        runs.iter()
            .find(|(x, _)| *x == v)
            .and_then(|(_, r)| named_flow(r, "download"))
    };
    let mut checks = Vec::new();
    match name {
        "r2cp-fig8a" => {
            if let Some(f) = report("make-before-break") {
                let (gap, usual) = (
                    f.handoff_disruption_s.unwrap_or(f64::NAN),
                    f.pre_handoff_median_gap_s.unwrap_or(f64::NAN),
                );
                checks.push(Check {
                    what: "make-before-break disruption at most 2× the median inter-arrival gap before the handoff".into(),
                    holds: gap <= 2.0 * usual,
                    detail: format!("{:.1} ms against a median gap of {:.1} ms", gap * 1e3, usual * 1e3),
                });
            }
            if let Some(f) = report("break-before-make") {
                // Network B's path from Server-I: 2 × (20 + 1 + 15) ms of
                // propagation plus a 1040-byte packet at 2 and 5 Mbit/s.
                let rtt = 0.072 + 0.00416 + 0.00166;
                let gap = f.handoff_disruption_s.unwrap_or(f64::NAN);
                // The new pipe's handshake as it happened; the gap counts
                // from the last delivery before network A is lost, up to one
                // usual gap earlier.
                let handshake = f.pipe_handshakes_s.get(1).copied().unwrap_or(f64::NAN);
                let usual = f.pre_handoff_median_gap_s.unwrap_or(f64::NAN);
                checks.push(Check {
                    what:
                        "hard-handoff disruption at most one new-path RTT plus the pipe handshake"
                            .into(),
                    holds: gap <= usual + handshake + rtt,
                    detail: format!(
                        "{:.1} ms: the handshake took {:.1} ms, the new-path RTT is {:.1} ms, the median gap before {:.1} ms",
                        gap * 1e3,
                        handshake * 1e3,
                        rtt * 1e3,
                        usual * 1e3
                    ),
                });
            }
        }
        "r2cp-fig8b" => {
            for (v, r) in runs {
                if let Some(f) = named_flow(r, "download") {
                    checks.push(Check {
                        what: format!("{v}: no byte fetched twice"),
                        holds: f.duplicate_bytes == 0,
                        detail: format!("{} duplicate bytes", f.duplicate_bytes),
                    });
                }
            }
        }
        "r2cp-policy" => {
            let get = |v: &str| {
                runs.iter()
                    .find(|(x, _)| *x == v)
                    .and_then(|(_, r)| download(r).map(|(fi, pts)| (*r, fi, pts)))
            };
            if let (Some((rb, fb, best)), Some((rt, ft, target))) =
                (get("best-effort"), get("target"))
            {
                let (a, b) = (POLICY_FROM_S, rt.summary.duration_s);
                let mean = rate_between(&target, a, b);
                checks.push(Check {
                    what: "with the policy the aggregate holds the 10 Mbit/s target (within 5 %)"
                        .into(),
                    holds: (mean - 10.0).abs() <= 0.5,
                    detail: format!("{mean:.2} Mbit/s from {a:.0} s on"),
                });
                let near = |pts: &[(f64, u64)]| share_near(pts, a, b, 10.0, 0.05);
                let (nt, nb) = (near(&target), near(&best));
                checks.push(Check {
                    what: "the aggregate stays at the target: more of its 1 s rates are within 5 % of 10 Mbit/s than best effort's".into(),
                    holds: nt > nb,
                    detail: format!("{:.0} % of the seconds against {:.0} %", nt * 100.0, nb * 100.0),
                });
                let wwan = |r: &RunResult, fi| rate_between(&pipe_points(r, fi, 1), a, b);
                let (wt, wb) = (wwan(rt, ft), wwan(rb, fb));
                checks.push(Check {
                    what: "the WWAN only fills the gap: it carries less than best effort".into(),
                    holds: wt < wb,
                    detail: format!("{wt:.2} against {wb:.2} Mbit/s"),
                });
            }
        }
        "r2cp-blackout" => {
            let gap = |v: &str| report(v).map(|f| f.max_delivery_gap_s);
            if let (Some(red), Some(plain)) = (gap("redundant"), gap("plain")) {
                checks.push(Check {
                    what: "with redundant striping the application keeps receiving through a blackout (longest stall under 1 s)".into(),
                    holds: red < 1.0,
                    detail: format!("{:.0} ms", red * 1e3),
                });
                checks.push(Check {
                    what: "without it too, since the silent pipe probes with requests that take nothing from the working one (longest stall under 1 s)".into(),
                    holds: plain < 1.0,
                    detail: format!("{:.0} ms against a {BLACKOUT_S:.0} s blackout", plain * 1e3),
                });
            }
        }
        _ => {}
    }
    checks
}

/// Where the policy figure's rates are taken from (after start-up).
const POLICY_FROM_S: f64 = 10.0;
/// The longer WLAN blackout of `r2cp-blackout.toml`.
const BLACKOUT_S: f64 = 6.0;

/// Rates of the `download` flow and its pipes per variant, from
/// `POLICY_FROM_S` to the end (Figure 11's comparison).
fn rates_extra(results: &[RunResult]) -> String {
    let mut md = format!(
        "Rates from {POLICY_FROM_S:.0} s to the end (Mbit/s of payload):\n\n| variant | aggregate | standard deviation of 1 s rates | pipe 1 (WLAN) | pipe 2 (WWAN) |\n|---|---|---|---|---|\n"
    );
    for r in results {
        let Some((fi, pts)) = download(r) else {
            continue;
        };
        let b = r.summary.duration_s;
        let pipe = |p| rate_between(&pipe_points(r, fi, p), POLICY_FROM_S, b);
        let _ = writeln!(
            md,
            "| {} | {:.2} | {:.2} | {:.2} | {:.2} |",
            r.point.text("variant").unwrap_or_default(),
            rate_between(&pts, POLICY_FROM_S, b),
            binned_sd(&pts, POLICY_FROM_S, b),
            pipe(0),
            pipe(1)
        );
    }
    md.push('\n');
    md
}

/// Sequence plots and a table per variant (Figure 8).
fn run_sequence(
    target: &Target,
    results: &[RunResult],
    seed: u64,
    out: &Path,
) -> Result<(String, bool), CliError> {
    let runs: Vec<(String, &RunResult)> = results
        .iter()
        .filter(|r| r.seed == seed)
        .map(|r| (r.point.text(target.x_param).unwrap_or_default(), r))
        .collect();
    let mut series = Vec::new();
    let mut md = String::new();
    heading(&mut md, target);
    let _ = writeln!(
        md,
        "**Ours.** Seed {seed} of `{}`: bytes delivered in order to the application, and by each pipe, against time.\n",
        target.path
    );
    let _ = writeln!(md, "| {} | goodput (Mbit/s) | per pipe (MB) | handoff disruption (ms) | median gap before (ms) | re-requested segments | bytes fetched twice |", target.x_param);
    let _ = writeln!(md, "|---|---|---|---|---|---|---|");
    for (v, r) in &runs {
        let Some(fi) = r.summary.flows.iter().position(|f| f.name == "download") else {
            continue;
        };
        let f = &r.summary.flows[fi];
        series.push(Series {
            label: format!("{v}: all"),
            points: r
                .series
                .iter()
                .filter(|p| p.flow == fi as u32)
                .map(|p| (p.t, p.delivered as f64 / 1e6))
                .collect(),
        });
        let mut paths: Vec<u16> = r.pipe_series.iter().map(|p| p.path).collect();
        paths.sort_unstable();
        paths.dedup();
        let mut per_pipe = Vec::new();
        for path in paths {
            let pts: Vec<(f64, f64)> = r
                .pipe_series
                .iter()
                .filter(|p| p.flow == fi as u32 && p.path == path)
                .map(|p| (p.t, p.delivered as f64 / 1e6))
                .collect();
            per_pipe.push(format!(
                "pipe {}: {:.1}",
                path + 1,
                pts.last().map_or(0.0, |p| p.1)
            ));
            series.push(Series {
                label: format!("{v}: pipe {}", path + 1),
                points: pts,
            });
        }
        let ms = |x: Option<f64>| x.map_or("—".to_string(), |v| format!("{:.1}", v * 1e3));
        let _ = writeln!(
            md,
            "| {v} | {:.3} | {} | {} | {} | {} | {} |",
            f.goodput_mbps,
            per_pipe.join(", "),
            ms(f.handoff_disruption_s),
            ms(f.pre_handoff_median_gap_s),
            f.retransmits,
            f.duplicate_bytes
        );
    }
    line_plot(
        &out.join(target.name),
        &Figure {
            title: target.title,
            x_label: target.x_label,
            y_label: "delivered in order (MB)",
            log_x: false,
            series: &series,
        },
    )?;
    let rates: Vec<Series> = series
        .iter()
        .map(|sr| Series {
            label: sr.label.clone(),
            points: binned(
                &sr.points
                    .iter()
                    .map(|&(t, mb)| (t, (mb * 1e6).round() as u64))
                    .collect::<Vec<_>>(),
            ),
        })
        .collect();
    let rate_stem = format!("{}-rate", target.name);
    line_plot(
        &out.join(&rate_stem),
        &Figure {
            title: target.title,
            x_label: target.x_label,
            y_label: "throughput, 1 s bins (Mbit/s)",
            log_x: false,
            series: &rates,
        },
    )?;
    let _ = writeln!(
        md,
        "\n![{}]({}.png)\n\n![{} (throughput)]({rate_stem}.png)\n",
        target.title, target.name, target.title
    );
    md.push_str(&(target.extra)(results));
    let named: Vec<(&str, &RunResult)> = runs.iter().map(|(v, r)| (v.as_str(), *r)).collect();
    let checks = fig8_checks(target.name, &named);
    checks_and_notes(&mut md, target, &checks);
    let holds = checks.iter().all(|c| c.holds);
    Ok((md, holds))
}

fn run_target(target: &Target, out: &Path, jobs_n: usize) -> Result<bool, CliError> {
    let sc = Scenario::parse(target.path, target.scenario)?;
    let results = run_sweep(&sc, jobs_n, target.name)?;
    std::fs::create_dir_all(out).map_err(|e| io_err(out, e))?;
    if target.kind == Kind::Sequence {
        let (body, holds) = run_sequence(target, &results, sc.seeds[0], out)?;
        publish(target, out, &body)?;
        return Ok(holds);
    }
    if target.kind == Kind::Friendliness {
        let (body, holds) = run_friendliness(target, &sc, &results, out)?;
        publish(target, out, &body)?;
        return Ok(holds);
    }
    let table = Table::from_results(&results, "protocol", target.x_param, |r| {
        target.measured.goodput(r)
    });
    if target.kind == Kind::Energy {
        let energy = Table::from_results(&results, "protocol", target.x_param, energy_per_mb);
        let (body, holds) = run_energy(target, &sc, &table, &energy, out)?;
        publish(target, out, &body)?;
        return Ok(holds);
    }
    let checks = (target.checks)(&table);
    let series = table.curves(target.x_scale);
    line_plot(
        &out.join(target.name),
        &Figure {
            title: target.title,
            x_label: target.x_label,
            y_label: "goodput per flow (Mbit/s)",
            log_x: target.log_x,
            series: &series,
        },
    )?;
    let duration_s = results.first().map_or(0.0, |r| r.summary.duration_s);
    let body = section(
        target,
        &sc,
        duration_s,
        &table,
        &checks,
        &(target.extra)(&results),
    );
    publish(target, out, &body)?;
    Ok(checks.iter().all(|c| c.holds))
}

/// Writes the target's section into its group page and prints it.
fn publish(target: &Target, out: &Path, body: &str) -> Result<(), CliError> {
    let page = out.join(format!("{}.md", target.group));
    let doc = std::fs::read_to_string(&page).unwrap_or_else(|_| {
        format!(
            "# Results: {}\n\nEach section below is written by `radial repro`; the command is under each table.\n",
            target.group
        )
    });
    write(&page, &splice(&doc, target.name, body))?;
    print!("{body}");
    Ok(())
}

pub fn repro(which: &str, out: &Path, jobs_flag: Option<usize>) -> Result<(), CliError> {
    if which == "stress" {
        if !crate::stress::run(out, jobs(jobs_flag))? {
            println!("note: some acceptance checks do not hold; see stress.md.");
        }
        return Ok(());
    }
    let selected: Vec<&Target> = if which == "all" {
        TARGETS.iter().collect()
    } else {
        match TARGETS.iter().find(|t| t.name == which) {
            Some(t) => vec![t],
            None => {
                let names: Vec<&str> = TARGETS.iter().map(|t| t.name).collect();
                return Err(CliError::Input(format!(
                    "unknown figure `{which}` (known: {}, all, stress)",
                    names.join(", ")
                )));
            }
        }
    };
    let mut all_hold = true;
    for t in selected {
        all_hold &= run_target(t, out, jobs(jobs_flag))?;
    }
    if !all_hold {
        println!("note: some acceptance checks do not hold; see the sections written above.");
    }
    Ok(())
}

const FIG5B_NOTES: &str = "STP's algorithm is not given in the paper, so the long-delay controller is TCP Hybla (Caini & Firrincieli 2004) at the sender (`tcp-sat`, with ns-2 Sack1 recovery) and at the receiver (`rcp-sat`); docs/protocols.md. The paper's HTTP sources are modelled as Pareto on/off applications over TCP-SACK with the on/off parameters of Figure 4(c), as the paper gives none. \
Hybla opens the window by 2^ρ − 1 segments per arrival in slow start and ρ² segments per round trip in congestion avoidance (ρ = RTT / 25 ms, 4–21 here) against a 50-packet queue, without the pacing its authors pair it with; it therefore overshoots the link every few round trips and loses a large share of what it sends (the first cost table). \
`rcp-sat` comes out ahead because RCP repulls a lost retransmission without a timeout (§3.3.5). `tcp-sat` collapses: after a timeout Hybla's slow start refills the window to ssthresh within one round trip, the burst overflows the queue, the lost retransmissions can only be recovered by further timeouts with exponential back-off (ns-2 Sack1, Karn), and the flow spends most of the run waiting (the timeout table). So the paper's \"STP much better than TCP\" does not reproduce with Hybla at the sender; the gap between `tcp-sat` and `rcp-sat` is the receiver's loss recovery, exaggerated by Hybla's aggressiveness, rather than a controller difference. `rcp-sat`'s lead is also taken partly from the background: the backlogged reverse TCP flow gets less with `rcp-sat` than with `rcp` (last table), because its ACKs share the congested forward queue.";

const FIG9_NOTES: &str = "Two pipes from two servers over disjoint paths, each with a 50-packet drop-tail queue at its bottleneck and one Pareto on/off source across it (§3.4's parameters). Ideal is the sum of what one RCP connection gets alone on each path, in the same run (our definition; the paper's is the sum of the two bandwidths). The receive buffer is 256 segments of 1000 bytes (256 KB) for the aggregate connection and for each Ideal connection; the paper's size is not in our copy. `apps` stripes the stream one segment at a time, round robin, over two independent RCP connections (as the application striping of [15]); the receiving application resequences it in a buffer of the same 256 KB and always reads the connection whose chunk it waits for. Each of its connections also has its own 256 KB receive buffer, so `apps` holds up to three times the buffer of `r2cp`.";
