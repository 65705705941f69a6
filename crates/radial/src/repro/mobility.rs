//! The sender-centric mobility schemes' figures and their checks: TCP-HO's
//! four kinds of handoff and its three mobility scenarios (with Table III's
//! cross traffic), Freeze-TCP across disconnections, and TCP-Probing's
//! completion time and overhead.

use super::*;

/// Names that run several targets: a figure drawn from several scenarios,
/// or a table taken from another figure's runs.
pub(super) const GROUPS: &[(&str, &[&str])] = &[
    ("tcpho-fig6", &["tcpho-fig6a", "tcpho-fig6b", "tcpho-fig6c"]),
    (
        "tcpho-table3",
        &["tcpho-fig6a", "tcpho-fig6b", "tcpho-fig6c"],
    ),
    (
        "prism",
        &[
            "prism-fig7a",
            "prism-fig7b",
            "prism-fig7c",
            "prism-fig9",
            "prism-fig10",
            "prism-fig11",
            "prism-fig12",
            "prism-fig13",
            "prism-fig14",
            "prism-fig15",
            "prism-fig15c",
        ],
    ),
];

/// One variant's row of Table III: Mbit/s at WAN delays of 10, 20, 50 and
/// 100 ms.
type PaperRow = (&'static str, [f64; 4]);

/// TCP-HO's Table III: the cross-traffic flow's throughput beside each
/// variant, per mobility scenario (by our scenario names).
const TABLE3: [(&str, [PaperRow; 4]); 3] = [
    (
        "tcpho-fig6a-wcdma",
        [
            ("tcp-newreno", [3.69, 3.323, 2.52, 1.653]),
            ("tcp-ho-immediate", [3.65, 3.287, 2.527, 1.633]),
            ("tcp-ho-aggressive", [3.66, 3.297, 2.537, 1.623]),
            ("tcp-ho", [3.657, 3.293, 2.533, 1.633]),
        ],
    ),
    (
        "tcpho-fig6b-wlan",
        [
            ("tcp-newreno", [3.46, 3.08, 2.317, 1.603]),
            ("tcp-ho-immediate", [3.33, 2.99, 2.26, 1.583]),
            ("tcp-ho-aggressive", [3.38, 3.09, 2.273, 1.563]),
            ("tcp-ho", [3.2, 2.9, 2.133, 1.527]),
        ],
    ),
    (
        "tcpho-fig6c-mixed",
        [
            ("tcp-newreno", [3.64, 3.27, 2.48, 1.63]),
            ("tcp-ho-immediate", [3.54, 3.21, 2.48, 1.63]),
            ("tcp-ho-aggressive", [3.56, 3.19, 2.38, 1.57]),
            ("tcp-ho", [3.52, 3.173, 2.433, 1.57]),
        ],
    ),
];

/// `a` at least `b` at every x: one check, with the worst ratio.
fn at_least(t: &Table, a: &str, b: &str, what: String, unit: &str) -> Check {
    let ps = match pairs(t, a, b) {
        Err(e) => return missing(what, e),
        Ok(ps) => ps,
    };
    let (x, va, vb) = ps
        .into_iter()
        .min_by(|p, q| (p.1 / p.2).total_cmp(&(q.1 / q.2)))
        .expect("pairs are never empty");
    let ratio = va / vb;
    Check {
        what,
        holds: ratio >= 1.0,
        detail: format!("closest at {x} {unit}: {va:.4} against {vb:.4}, {ratio:.3}×"),
    }
}

/// `t` with every value inverted (a time becomes a rate), so that
/// [`at_least`] checks "no later than".
fn inverted(t: &Table) -> Table {
    Table {
        series: t.series.clone(),
        xs: t.xs.clone(),
        cells: t
            .cells
            .iter()
            .map(|row| {
                row.iter()
                    .map(|v| v.iter().map(|x| 1.0 / x).collect())
                    .collect()
            })
            .collect(),
    }
}

/// Figure 6: TCP-HO's throughput at least NewReno's at every WAN delay.
pub(super) fn fig6_checks(t: &Table) -> Vec<Check> {
    vec![at_least(
        t,
        "tcp-ho",
        "tcp-newreno",
        "`tcp-ho` ≥ `tcp-newreno` at every WAN delay".into(),
        "ms",
    )]
}

/// Figure 6(b), the WLAN scenario, as §V-B reads it: TCP-HO above
/// NewReno, "TCP-HO-Immediate achieves trivial improvement" (read as: at
/// most half of TCP-HO's gain over NewReno, at every WAN delay) "and
/// TCP-HO-Aggressive is even worse than Newreno".
pub(super) fn fig6b_checks(t: &Table) -> Vec<Check> {
    let mut out = fig6_checks(t);
    out.push(at_least(
        t,
        "tcp-newreno",
        "tcp-ho-aggressive",
        "`tcp-ho-aggressive` no better than `tcp-newreno` at every WAN delay".into(),
        "ms",
    ));
    let what = "`tcp-ho-immediate` gains at most half of what `tcp-ho` gains over `tcp-newreno`, at every WAN delay";
    let triples = pairs(t, "tcp-ho", "tcp-newreno").and_then(|ho| {
        pairs(t, "tcp-ho-immediate", "tcp-newreno").map(|imm| {
            ho.into_iter()
                .zip(imm)
                .map(|(h, i)| (h.0, h.1, i.1, h.2))
                .collect::<Vec<_>>()
        })
    });
    out.push(match triples {
        Err(e) => missing(what, e),
        Ok(v) => {
            // The delay where Immediate's gain comes closest to TCP-HO's.
            let share = |&(_, ho, imm, nr): &(f64, f64, f64, f64)| {
                if ho > nr {
                    (imm - nr) / (ho - nr)
                } else {
                    f64::INFINITY
                }
            };
            let worst = v
                .iter()
                .max_by(|a, b| share(a).total_cmp(&share(b)))
                .expect("pairs are never empty");
            Check {
                what: what.into(),
                holds: share(worst) <= 0.5,
                detail: format!(
                    "at {} ms: `tcp-ho` {:.4}, `tcp-ho-immediate` {:.4}, `tcp-newreno` {:.4}",
                    worst.0, worst.1, worst.2, worst.3
                ),
            }
        }
    });
    out
}

fn cross_table(results: &[RunResult]) -> Table {
    Table::from_results(results, "protocol", "wan_delay_ms", |r| {
        named_flow(r, "cross").map(|f| f.goodput_mbps)
    })
}

/// Table III's "without adversely affecting cross traffic": the cross
/// traffic beside TCP-HO keeps at least this share of what it gets beside
/// NewReno.
const TABLE3_KEEPS: f64 = 0.95;

/// Table III: the cross traffic beside TCP-HO keeps [`TABLE3_KEEPS`] of
/// what it gets beside NewReno.
pub(super) fn table3_checks(results: &[RunResult]) -> Vec<Check> {
    let t = cross_table(results);
    let what = format!(
        "the cross traffic beside `tcp-ho` gets at least {:.0} % of what it gets beside `tcp-newreno`, at every WAN delay",
        TABLE3_KEEPS * 100.0
    );
    let ps = match pairs(&t, "tcp-ho", "tcp-newreno") {
        Err(e) => return vec![missing(what, e)],
        Ok(ps) => ps,
    };
    let (x, ho, nr) = ps
        .into_iter()
        .min_by(|p, q| (p.1 / p.2).total_cmp(&(q.1 / q.2)))
        .expect("pairs are never empty");
    vec![Check {
        what,
        holds: ho / nr >= TABLE3_KEEPS,
        detail: format!("lowest at {x} ms: {:.1} %", ho / nr * 100.0),
    }]
}

/// Table III beside the paper's, the handoffs the seeds drew, and how long
/// each protocol left the new link unused.
pub(super) fn table3_extra(results: &[RunResult]) -> String {
    let mut md = String::new();
    let t = cross_table(results);
    let name = results.first().map_or("", |r| r.summary.scenario.as_str());
    let paper = TABLE3
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, rows)| rows);
    let _ = writeln!(
        md,
        "Table III: throughput of the cross-traffic flow (Mbit/s), ours (mean over seeds) / the paper's:\n"
    );
    let _ = write!(md, "| protocol |");
    for x in &t.xs {
        let _ = write!(md, " {x} ms |");
    }
    let _ = writeln!(md, "\n|---|{}", "---|".repeat(t.xs.len()));
    for s in &t.series {
        let _ = write!(md, "| {s} |");
        let row = paper.and_then(|rows| rows.iter().find(|(p, _)| p == s));
        for xi in 0..t.xs.len() {
            let ours = t.stat(s, xi).map_or("—".into(), |(m, _)| format!("{m:.3}"));
            let theirs = row.map_or("—".into(), |(_, v)| format!("{:.3}", v[xi.min(3)]));
            let _ = write!(md, " {ours} / {theirs} |");
        }
        let _ = writeln!(md);
    }
    md.push_str(&handoff_mix(results));
    md.push_str(&resume_table(results, "wan_delay_ms", "ms"));
    md
}

/// How many handoffs of each kind the seeds drew.
fn handoff_mix(results: &[RunResult]) -> String {
    let mut seeds: Vec<(u64, Vec<String>)> = Vec::new();
    for r in results {
        if seeds.iter().any(|(s, _)| *s == r.seed) {
            continue;
        }
        let kinds = ["L-HH", "H-HH", "U-VH", "D-VH"]
            .iter()
            .map(|k| {
                let n = r.summary.handoffs.iter().filter(|h| h.kind == *k).count();
                format!("{n} {k}")
            })
            .collect();
        seeds.push((r.seed, kinds));
    }
    let mut md =
        String::from("\nHandoffs drawn (every protocol sees the same ones for a seed):\n\n");
    for (seed, kinds) in seeds {
        let _ = writeln!(md, "- seed {seed}: {}", kinds.join(", "));
    }
    md
}

/// Mean time from a link's return to the next in-order delivery, per
/// protocol and x value, with the timeouts per run.
fn resume_table(results: &[RunResult], x_param: &str, unit: &str) -> String {
    let resume = Table::from_results(results, "protocol", x_param, |r| {
        let v = &named_flow(r, "download")?.handoff_resume_s;
        (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
    });
    let timeouts = Table::from_results(results, "protocol", x_param, |r| {
        named_flow(r, "download").map(|f| f.timeouts as f64)
    });
    let mut md = String::from(
        "\nTime from the link's return to the next in-order delivery (s, mean over handoffs and seeds), and retransmission timeouts per run:\n\n| protocol |",
    );
    for x in &resume.xs {
        let _ = write!(md, " {x} {unit} |");
    }
    let _ = writeln!(md, "\n|---|{}", "---|".repeat(resume.xs.len()));
    for s in &resume.series {
        let _ = write!(md, "| {s} |");
        for xi in 0..resume.xs.len() {
            let r = resume
                .stat(s, xi)
                .map_or("—".into(), |(m, _)| format!("{m:.2}"));
            let t = timeouts
                .stat(s, xi)
                .map_or("—".into(), |(m, _)| format!("{m:.0}"));
            let _ = write!(md, " {r} s, {t} timeouts |");
        }
        let _ = writeln!(md);
    }
    md.push('\n');
    md
}

/// Figure 3: TCP-HO delivers more than NewReno and resumes sooner after
/// every handoff.
pub(super) fn fig3_checks(results: &[RunResult]) -> Vec<Check> {
    let flow = |p: &str| {
        results
            .iter()
            .find(|r| r.point.text("protocol").as_deref() == Some(p))
            .and_then(|r| named_flow(r, "download"))
    };
    let (Some(ho), Some(nr)) = (flow("tcp-ho"), flow("tcp-newreno")) else {
        return Vec::new();
    };
    let sooner = ho
        .handoff_resume_s
        .iter()
        .zip(&nr.handoff_resume_s)
        .all(|(a, b)| a <= b);
    vec![
        Check {
            what: "`tcp-ho` delivers more than `tcp-newreno` through the four handoffs".into(),
            holds: ho.bytes_delivered > nr.bytes_delivered,
            detail: format!(
                "{:.2} MB against {:.2} MB",
                ho.bytes_delivered as f64 / 1e6,
                nr.bytes_delivered as f64 / 1e6
            ),
        },
        Check {
            what: "`tcp-ho` resumes no later than `tcp-newreno` after every handoff (no silly waiting)".into(),
            holds: sooner && ho.handoff_resume_s.len() == nr.handoff_resume_s.len(),
            detail: format!(
                "{} s against {} s",
                seconds(&ho.handoff_resume_s),
                seconds(&nr.handoff_resume_s)
            ),
        },
    ]
}

fn seconds(v: &[f64]) -> String {
    v.iter()
        .map(|x| format!("{x:.2}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Figure 3's table: each handoff, and how long each protocol took to
/// deliver again after it.
pub(super) fn fig3_extra(results: &[RunResult]) -> String {
    let Some(first) = results.first() else {
        return String::new();
    };
    let mut md = String::from(
        "Time from the link's return to the next in-order delivery (s):\n\n| protocol |",
    );
    for h in &first.summary.handoffs {
        let _ = write!(
            md,
            " {} at {:.0} s ({:.0} s out, to {:.2} Mbit/s) |",
            h.kind, h.at_s, h.outage_s, h.rate_mbps
        );
    }
    let _ = writeln!(
        md,
        " timeouts |\n|---|{}---|",
        "---|".repeat(first.summary.handoffs.len())
    );
    for r in results {
        let Some(f) = named_flow(r, "download") else {
            continue;
        };
        let _ = write!(md, "| {} |", r.point.text("protocol").unwrap_or_default());
        for i in 0..first.summary.handoffs.len() {
            let v = f
                .handoff_resume_s
                .get(i)
                .map_or("—".into(), |x| format!("{x:.2}"));
            let _ = write!(md, " {v} |");
        }
        let _ = writeln!(md, " {} |", f.timeouts);
    }
    md.push('\n');
    md
}

/// Freeze-TCP at least NewReno at every outage.
pub(super) fn freeze_checks(t: &Table) -> Vec<Check> {
    vec![at_least(
        t,
        "freeze-tcp",
        "tcp-newreno",
        "`freeze-tcp` ≥ `tcp-newreno` at every disconnection length".into(),
        "s",
    )]
}

/// Freeze-TCP resumes sooner than NewReno after the disconnections (it
/// has no backed-off timer to wait out).
pub(super) fn freeze_run_checks(results: &[RunResult]) -> Vec<Check> {
    let resume = Table::from_results(results, "protocol", "outage_s", |r| {
        let v = &named_flow(r, "download")?.handoff_resume_s;
        (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
    });
    let mut c = at_least(
        &inverted(&resume),
        "freeze-tcp",
        "tcp-newreno",
        "`freeze-tcp` delivers again sooner than `tcp-newreno` after the link returns, at every disconnection length (no timer to wait out)".into(),
        "s",
    );
    c.detail = format!("in 1/s of the mean time to resume: {}", c.detail);
    vec![c]
}

/// The resume table for the Freeze-TCP figure.
pub(super) fn freeze_extra(results: &[RunResult]) -> String {
    resume_table(results, "outage_s", "s outages")
}

/// TCP-Probing's two engines, the survey's and ours; the paper's claims are
/// held against both.
const PROBING_ENGINES: [&str; 2] = ["tcp-probing-paper", "tcp-probing"];

/// Each engine and the baseline the survey measured it against (Reno),
/// without and with the extra delay.
fn survey_series() -> Vec<(String, String)> {
    PROBING_ENGINES
        .iter()
        .flat_map(|p| {
            ["1", "101"].map(|d| {
                (
                    format!("{p}, delay_ms {d}"),
                    format!("tcp-reno, delay_ms {d}"),
                )
            })
        })
        .collect()
}

/// The survey's Figures 5 and 6: TCP-Probing finishes no later than Reno,
/// with and without the extra delay (so `at_least` on the inverse).
pub(super) fn probing_checks(t: &Table) -> Vec<Check> {
    let inverse = inverted(t);
    survey_series()
        .iter()
        .map(|(probing, reno)| {
            let mut c = at_least(
                &inverse,
                probing,
                reno,
                format!("`{probing}` finishes no later than `{reno}` at every error rate"),
                "error",
            );
            c.detail = format!("in 1/s: {}", c.detail);
            c
        })
        .collect()
}

/// The survey's Figure 7: with congestion too, TCP-Probing finishes no
/// later than Reno at every error rate.
pub(super) fn survey_fig7_checks(t: &Table) -> Vec<Check> {
    let inverse = inverted(t);
    PROBING_ENGINES
        .iter()
        .map(|p| {
            let mut c = at_least(
                &inverse,
                p,
                "tcp-reno",
                format!("`{p}` finishes no later than `tcp-reno` at every error rate, beside a backlogged TCP flow"),
                "error",
            );
            c.detail = format!("in 1/s: {}", c.detail);
            c
        })
        .collect()
}

fn overhead_table(results: &[RunResult]) -> Table {
    Table::from_results_by(results, &["protocol", "delay_ms"], "error", |r| {
        named_flow(r, "download").map(|f| f.overhead_bytes as f64 / 1e3)
    })
}

/// The survey's Figures 8 and 9: TCP-Probing's overhead never exceeds
/// NewReno's.
pub(super) fn probing_run_checks(results: &[RunResult]) -> Vec<Check> {
    let t = overhead_table(results);
    // No error rate measured is no evidence: the check fails.
    let inverse_ok = |p: &str, r: &str| {
        !t.xs.is_empty()
            && (0..t.xs.len()).all(|xi| match (t.stat(p, xi), t.stat(r, xi)) {
                (Some((a, _)), Some((b, _))) => a <= b,
                _ => false,
            })
    };
    survey_series()
        .iter()
        .map(|(p, r)| Check {
            what: format!("the overhead of `{p}` never exceeds that of `{r}`"),
            holds: inverse_ok(p, r),
            detail: format!(
                "KB at each error rate: {} against {}",
                means(&t, p),
                means(&t, r)
            ),
        })
        .collect()
}

fn means(t: &Table, s: &str) -> String {
    (0..t.xs.len())
        .map(|xi| t.stat(s, xi).map_or("—".into(), |(m, _)| format!("{m:.0}")))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Overhead and the goodput/overhead ratio (the survey's §6.1.1).
pub(super) fn probing_extra(results: &[RunResult]) -> String {
    let overhead = overhead_table(results);
    let ratio = Table::from_results_by(results, &["protocol", "delay_ms"], "error", |r| {
        let f = named_flow(r, "download")?;
        (f.overhead_bytes > 0).then(|| f.bytes_delivered as f64 / f.overhead_bytes as f64)
    });
    let mut md = String::from("Overhead (KB on the wire beyond the 5 MB delivered) and the goodput/overhead ratio (bytes delivered per byte of overhead), means over seeds:\n\n| error rate |");
    for s in &overhead.series {
        let _ = write!(md, " {s} |");
    }
    let _ = writeln!(md, "\n|---|{}", "---|".repeat(overhead.series.len()));
    for (xi, x) in overhead.xs.iter().enumerate() {
        let _ = write!(md, "| {:.0} % |", x * 100.0);
        for s in &overhead.series {
            let o = overhead
                .stat(s, xi)
                .map_or("—".into(), |(m, _)| format!("{m:.0} KB"));
            let q = ratio
                .stat(s, xi)
                .map_or("—".into(), |(m, _)| format!("{m:.1}"));
            let _ = write!(md, " {o}, {q} |");
        }
        let _ = writeln!(md);
    }
    md.push('\n');
    md
}

/// TCP-HO Figure 7: what immediate transmission saves of a disconnection,
/// "about (2 ln 2 − 1) of the link disconnection time", held to this
/// relative margin.
const FIG7_SAVING: f64 = 2.0 * std::f64::consts::LN_2 - 1.0;
const FIG7_MARGIN: f64 = 0.2;

/// Figure 7: over the disconnection lengths (x, s) whose return falls
/// between two expiries of NewReno's timer both inside the sweep (its time
/// to deliver again jumps up at each expiry, and falls between them), the
/// mean of what `tcp-ho-immediate` saves against `tcp-newreno` in time to
/// deliver again, as a share of the disconnection, is (2 ln 2 − 1) within
/// [`FIG7_MARGIN`]; and it never resumes later anywhere.
pub(super) fn tcpho_fig7_checks(t: &Table) -> Vec<Check> {
    let what = format!(
        "immediate transmission saves about (2 ln 2 − 1) = {FIG7_SAVING:.3} of the disconnection (the mean over returns between two expiries, within {:.0} %)",
        FIG7_MARGIN * 100.0
    );
    let what_never = "`tcp-ho-immediate` never delivers again later than `tcp-newreno`";
    let ps = match pairs(t, "tcp-newreno", "tcp-ho-immediate") {
        Err(e) => return vec![missing(what, &e), missing(what_never, e)],
        Ok(ps) => ps,
    };
    // An expiry between two lengths: NewReno's wait grows with the length
    // instead of shrinking by it.
    let expiries: Vec<usize> = (1..ps.len())
        .filter(|&i| ps[i].1 > ps[i - 1].1 + (ps[i].0 - ps[i - 1].0) / 2.0)
        .collect();
    let later = ps.iter().find(|&&(_, nr, imm)| imm > nr + 1e-9);
    let never = Check {
        what: what_never.into(),
        holds: later.is_none(),
        detail: match later {
            Some((x, nr, imm)) => format!("at {x} s: {imm:.2} against {nr:.2} s"),
            None => format!("at all {} lengths", ps.len()),
        },
    };
    let (Some(&first), Some(&last)) = (expiries.first(), expiries.last()) else {
        return vec![
            missing(what, "no two expiries of NewReno's timer in the sweep"),
            never,
        ];
    };
    if first == last {
        return vec![
            missing(what, "no two expiries of NewReno's timer in the sweep"),
            never,
        ];
    }
    let within = &ps[first..last];
    let mean = within
        .iter()
        .map(|&(x, nr, imm)| (nr - imm) / x)
        .sum::<f64>()
        / within.len() as f64;
    vec![
        Check {
            what,
            holds: (mean - FIG7_SAVING).abs() <= FIG7_MARGIN * FIG7_SAVING,
            detail: format!(
                "mean saving {mean:.3} of the disconnection over {} lengths from {} to {} s ({} whole intervals between expiries)",
                within.len(),
                within[0].0,
                within[within.len() - 1].0,
                expiries.len() - 1
            ),
        },
        never,
    ]
}
