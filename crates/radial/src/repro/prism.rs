//! PRISM's figures: the acceptance checks and notes of `prism-fig7a` to
//! `prism-fig15`.

use super::*;

/// The mean of series `s` at x index `xi` (NaN when absent).
fn mean(t: &Table, s: &str, xi: usize) -> f64 {
    t.stat(s, xi).map_or(f64::NAN, |(m, _)| m)
}

/// The proxy's links to the community members of Figure 7's testbed.
const MEMBER_LINKS: [[&str; 2]; 2] = [["P", "R"], ["P", "M2"]];

/// The payload capacity (Mbit/s) of the proxy's links to the members, and
/// the one-way delay of the first (s), read from `target`'s scenario.
fn members(target: &str) -> Option<(f64, f64)> {
    let spec = first_spec(target)?;
    let capacity = MEMBER_LINKS
        .iter()
        .map(|l| path(&spec, l).map(|p| p.capacity_mbps))
        .sum::<Option<f64>>()?;
    let [a, b] = MEMBER_LINKS[0];
    Some((capacity, hop(&spec, a, b)?.1))
}

/// `prism` at `share` of the links' payload capacity or more at every x
/// that `within` admits; a failure when the scenario's links or the
/// series are missing.
fn near_capacity(
    t: &Table,
    capacity_mbps: Option<f64>,
    share: f64,
    within: impl Fn(f64) -> bool,
    what: String,
) -> Check {
    let Some(capacity) = capacity_mbps else {
        return missing(what, "the proxy's links to the members in the scenario");
    };
    let worst = (0..t.xs.len())
        .filter(|&xi| within(t.xs[xi]))
        .map(|xi| (t.xs[xi], mean(t, "prism", xi) / capacity))
        .min_by(|a, b| a.1.total_cmp(&b.1));
    let Some((x, e)) = worst else {
        return missing(what, "no point in the range");
    };
    Check {
        what,
        holds: e >= share,
        detail: format!(
            "smallest {:.1} % of the payload capacity ({capacity:.2} Mbit/s), at {x}",
            e * 100.0
        ),
    }
}

/// Series `a` at or above every one of `others` at every x, and strictly
/// above each somewhere.
fn leads(t: &Table, a: &str, others: &[&str], what: &str) -> Check {
    let mut holds = true;
    let mut worst = (f64::INFINITY, String::new(), 0.0);
    for o in others {
        let ratios: Vec<(f64, f64)> = (0..t.xs.len())
            .map(|xi| (t.xs[xi], mean(t, a, xi) / mean(t, o, xi)))
            .collect();
        holds &= ratios.iter().all(|r| r.1 >= 1.0) && ratios.iter().any(|r| r.1 > 1.0);
        for (x, r) in ratios {
            if r < worst.0 {
                worst = (r, o.to_string(), x);
            }
        }
    }
    Check {
        what: what.into(),
        holds,
        detail: format!(
            "smallest ratio {a} / {} = {:.3} at {}",
            worst.1, worst.0, worst.2
        ),
    }
}

/// Figure 7(a)'s claim: this share of the links' capacity while the delay
/// disparity is at most this (ms).
const FIG7A_SHARE: f64 = 0.95;
const FIG7A_DISPARITY_MS: f64 = 400.0;

pub(super) fn prism_fig7a_checks(t: &Table) -> Vec<Check> {
    let m = members("prism-fig7a");
    // x is member 2's one-way delay (ms); member 1's is fixed.
    let first_delay_ms = m.map_or(f64::NAN, |(_, d)| d * 1e3);
    vec![
        near_capacity(
            t,
            m.map(|(c, _)| c),
            FIG7A_SHARE,
            |x| x - first_delay_ms <= FIG7A_DISPARITY_MS + 1e-9,
            format!(
                "`prism` ≥ {:.0} % of the two links' capacity while the disparity is {FIG7A_DISPARITY_MS:.0} ms or less",
                FIG7A_SHARE * 100.0
            ),
        ),
        leads(
            t,
            "prism",
            &["prism-wrr", "prism-rr"],
            "ADAS at or above WRR and RR (all three with TCP-PRISM and full RPC)",
        ),
        leads(
            t,
            "prism",
            &["vanilla", "striped"],
            "`prism` above vanilla TCP (with Linux's reordering tolerance) and TCP-SACK, both striped without RPC",
        ),
        degrades(t, "vanilla", "vanilla TCP degrades as the disparity grows (spurious duplicate ACKs)"),
    ]
}

/// Series `s` lower at the last x than at the first.
fn degrades(t: &Table, s: &str, what: &str) -> Check {
    let last = t.xs.len().saturating_sub(1);
    match (t.stat(s, 0), t.stat(s, last)) {
        (Some((first, _)), Some((end, _))) if last > 0 => Check {
            what: what.into(),
            holds: end < first,
            detail: format!(
                "{first:.3} at {} → {end:.3} Mbit/s at {}",
                t.xs[0], t.xs[last]
            ),
        },
        _ => missing(what, format!("`{s}` at the first or last point")),
    }
}

/// Figure 7(b)'s claim: this share of the links' capacity while the loss
/// rate is below this.
const FIG7B_SHARE: f64 = 0.94;
const FIG7B_LOSS: f64 = 0.008;

pub(super) fn prism_fig7b_checks(t: &Table) -> Vec<Check> {
    let lossy: Vec<usize> = (0..t.xs.len()).filter(|&xi| t.xs[xi] >= 0.001).collect();
    let worst = lossy
        .iter()
        .map(|&xi| (t.xs[xi], mean(t, "prism", xi) / mean(t, "prism-tcp", xi)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap_or((f64::NAN, 0.0));
    vec![
        near_capacity(
            t,
            members("prism-fig7b").map(|(c, _)| c),
            FIG7B_SHARE,
            |x| x < FIG7B_LOSS,
            format!(
                "`prism` ≥ {:.0} % of the two links' capacity below {} % loss",
                FIG7B_SHARE * 100.0,
                FIG7B_LOSS * 100.0
            ),
        ),
        Check {
            what: "TCP-PRISM above TCP-SACK behind the same proxy at every loss rate from 0.1 %"
                .into(),
            holds: worst.1 > 1.0,
            detail: format!(
                "smallest ratio prism / prism-tcp = {:.2} at loss {}",
                worst.1, worst.0
            ),
        },
        leads(
            t,
            "prism",
            &["prism-wrr", "prism-rr"],
            "ADAS at or above WRR and RR (all three with TCP-PRISM and full RPC)",
        ),
        near_capacity_of(
            t,
            "vanilla",
            members("prism-fig7b").map(|(c, _)| c),
            FIG7B_VANILLA,
            format!(
                "vanilla TCP at the paper's {:.0} % of the links' capacity at the lowest loss rate",
                FIG7B_VANILLA * 100.0
            ),
        ),
        degrades(t, "vanilla", "vanilla TCP degrades as the loss rate grows"),
    ]
}

/// Figure 7(b): vanilla TCP's "relatively good performance (i.e., 90%) at
/// a low loss rate".
const FIG7B_VANILLA: f64 = 0.9;

/// Series `s` at `share` of the links' payload capacity or more at the
/// first x.
fn near_capacity_of(t: &Table, s: &str, capacity: Option<f64>, share: f64, what: String) -> Check {
    match (capacity, t.stat(s, 0)) {
        (Some(c), Some((v, _))) => Check {
            what,
            holds: v >= share * c,
            detail: format!(
                "{v:.3} of {c:.3} Mbit/s ({:.1} %) at {}",
                v / c * 100.0,
                t.xs[0]
            ),
        },
        _ => missing(
            what,
            format!("`{s}` at the first point, or the links in the scenario"),
        ),
    }
}

/// Figure 7(c)'s claims: PRISM's throughput over vanilla TCP's while two
/// members collaborate, in the order the phases come (the paper's 310 %
/// from 0 to 40 s and 208 % from 60 to 90 s); and "the aggregated
/// bandwidth of all WWAN links", held to this share of their capacity.
const FIG7C_GAINS: [f64; 2] = [3.10, 2.08];
const FIG7C_AGGREGATE: f64 = 0.9;

/// The phases of `target`'s `download` flow in which two members or more
/// collaborate: (start, end, the payload capacity of their links), from
/// the scenario's pipe times and links.
fn phases(target: &str) -> Option<Vec<(f64, f64, f64)>> {
    let spec = first_spec(target)?;
    let via = |n: u32| spec.nodes.get(n as usize).map(String::as_str);
    shared_spans(&spec, "download")?
        .into_iter()
        .map(|(a, b, alive)| {
            let capacity = alive
                .iter()
                .map(|p| Some(path(&spec, &["P", via(p.via)?])?.capacity_mbps))
                .sum::<Option<f64>>()?;
            Some((a, b, capacity))
        })
        .collect()
}

/// Figure 7(c): in each phase in which two members collaborate, PRISM's
/// throughput over vanilla TCP's (TCP-SACK with Linux's reordering
/// tolerance, striped without RPC) at least the paper's gain, and PRISM at
/// [`FIG7C_AGGREGATE`] of the members' links.
pub(super) fn prism_fig7c_checks(results: &[RunResult]) -> Vec<Check> {
    let rate = |v: &str, a: f64, b: f64| {
        results
            .iter()
            .find(|r| r.point.text("variant").as_deref() == Some(v))
            .and_then(download)
            .map(|(_, pts)| rate_between(&pts, a, b))
    };
    let Some(phases) = phases("prism-fig7c").filter(|p| p.len() == FIG7C_GAINS.len()) else {
        return vec![missing(
            "Figure 7(c)'s checks",
            format!(
                "the scenario does not have {} phases of two collaborating members",
                FIG7C_GAINS.len()
            ),
        )];
    };
    let mut checks = Vec::new();
    for (&(a, b, capacity), gain) in phases.iter().zip(FIG7C_GAINS) {
        let what = format!(
            "{a}–{b} s: `prism` at least the paper's {:.0} % of vanilla TCP",
            gain * 100.0
        );
        checks.push(match (rate("prism", a, b), rate("vanilla", a, b)) {
            (Some(p), Some(v)) => Check {
                what,
                holds: p >= gain * v,
                detail: format!("{p:.3} against {v:.3} Mbit/s ({:.0} %)", p / v * 100.0),
            },
            _ => missing(what, "no `download` in variant `prism` or `vanilla`"),
        });
        let what = format!(
            "{a}–{b} s: `prism` achieves the aggregated bandwidth of the members' links (at least {:.0} % of their payload capacity)",
            FIG7C_AGGREGATE * 100.0
        );
        checks.push(match rate("prism", a, b) {
            Some(p) => Check {
                what,
                holds: p >= FIG7C_AGGREGATE * capacity,
                detail: format!(
                    "{p:.3} of {capacity:.3} Mbit/s ({:.0} %)",
                    p / capacity * 100.0
                ),
            },
            None => missing(what, "no `download` in variant `prism`"),
        });
    }
    checks
}

/// Figure 9's claim that WRR striping falls below one member's TCP: from
/// this many members up.
const FIG9_WRR_FROM_MEMBERS: f64 = 3.0;

pub(super) fn prism_fig9_checks(t: &Table) -> Vec<Check> {
    let below_one = (0..t.xs.len())
        .filter(|&xi| t.xs[xi] >= FIG9_WRR_FROM_MEMBERS)
        .map(|xi| (t.xs[xi], mean(t, "wrr", xi) / mean(t, "no-proxy", xi)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap_or((f64::NAN, f64::NAN));
    vec![
        tracks_ideal(t, "prism", "members"),
        Check {
            what: format!(
                "WRR striping without ACK control falls below one member's TCP alone ({FIG9_WRR_FROM_MEMBERS} members or more)"
            ),
            holds: below_one.1 < 1.0,
            detail: format!(
                "wrr / no-proxy = {:.2} at {} members",
                below_one.1, below_one.0
            ),
        },
    ]
}

pub(super) fn prism_fig10_checks(t: &Table) -> Vec<Check> {
    let last = t.xs.len().saturating_sub(1);
    // From the first disparity above none.
    let (first, end) = (mean(t, "adas", 1), mean(t, "adas", last));
    let at = |xi: usize| t.xs.get(xi).copied().unwrap_or(f64::NAN);
    vec![
        leads(
            t,
            "adas",
            &["rr", "random"],
            "ADAS at or above RR and random at every disparity (RPC off)",
        ),
        Check {
            what: format!(
                "ADAS improves as the disparity grows ({} % → {} %)",
                at(1),
                at(last)
            ),
            holds: end > first,
            detail: format!("{first:.3} → {end:.3} Mbit/s"),
        },
    ]
}

/// Figure 11's claims: ADAS "outperforms the other scheduling algorithms by
/// 12–47%" (held to the smaller margin, against every other scheduler at
/// every burst time) and "achieves 97.1% of the ideal performance in the
/// presence of maximum background traffic".
const FIG11_MARGIN: f64 = 0.12;
const FIG11_IDEAL: f64 = 0.971;

pub(super) fn prism_fig11_checks(t: &Table) -> Vec<Check> {
    let last = t.xs.len().saturating_sub(1);
    let (adas, ideal) = (mean(t, "adas", last), mean(t, "ideal", last));
    let others = ["wrr", "rr", "random", "hrtt", "nip"];
    // No point is no lead: NaN, which fails the check.
    let mut margin = (
        if t.xs.is_empty() {
            f64::NAN
        } else {
            f64::INFINITY
        },
        "",
        f64::NAN,
    );
    for o in others {
        for xi in 0..t.xs.len() {
            let m = mean(t, "adas", xi) / mean(t, o, xi) - 1.0;
            if !margin.0.is_nan() && (m.is_nan() || m < margin.0) {
                margin = (m, o, t.xs[xi]);
            }
        }
    }
    vec![
        leads(
            t,
            "adas",
            &others,
            "ADAS above every other scheduler at every burst time",
        ),
        Check {
            what: format!(
                "ADAS ahead of every other scheduler by at least the paper's {:.0} % at every burst time",
                FIG11_MARGIN * 100.0
            ),
            holds: margin.0 >= FIG11_MARGIN,
            detail: format!(
                "smallest lead {:.1} % over `{}` at {} s",
                margin.0 * 100.0,
                margin.1,
                margin.2
            ),
        },
        Check {
            what: format!(
                "ADAS within {:.1} % of the ideal at the longest bursts (the paper's figure)",
                FIG11_IDEAL * 100.0
            ),
            holds: adas >= FIG11_IDEAL * ideal,
            detail: format!(
                "{adas:.3} against {ideal:.3} Mbit/s ({:.1} %)",
                adas / ideal * 100.0
            ),
        },
    ]
}

/// Figure 13's claims: with full RPC "maximum network utilization", held
/// to this share of the ideal; without RPC "less than 50% of the ideal".
const FIG13_FULL: f64 = 0.95;
const FIG13_NONE: f64 = 0.5;

/// Figure 13: full RPC near the ideal and no RPC below half of it at every
/// disparity; partial RPC better than none on average (the paper: by 50 %)
/// and below full at every disparity.
pub(super) fn prism_fig13_checks(t: &Table) -> Vec<Check> {
    let share = |s: &str| -> Option<Vec<(f64, f64)>> {
        let ps = pairs(t, s, "ideal").ok()?;
        Some(ps.into_iter().map(|(x, v, i)| (x, v / i)).collect())
    };
    let mut out = vec![at_share_of_ideal(t, "full", FIG13_FULL, "%")];
    let what = format!(
        "without RPC below {:.0} % of the ideal at every disparity",
        FIG13_NONE * 100.0
    );
    out.push(match share("none") {
        None => missing(what, "`none` or `ideal` at some disparity"),
        Some(v) => {
            let (x, e) = v
                .iter()
                .copied()
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .expect("pairs are never empty");
            Check {
                what,
                holds: e < FIG13_NONE,
                detail: format!("largest {:.1} % at {x} %", e * 100.0),
            }
        }
    });
    let what = "partial RPC better than none on average (the paper: by 50 %) and below full RPC at every disparity";
    out.push(
        match (pairs(t, "partial", "none"), pairs(t, "partial", "full")) {
            (Ok(pn), Ok(pf)) => {
                let gain = pn.iter().map(|&(_, p, n)| p / n).sum::<f64>() / pn.len() as f64 - 1.0;
                let below = pf.iter().all(|&(_, p, f)| p < f);
                Check {
                    what: what.into(),
                    holds: gain > 0.0 && below,
                    detail: format!(
                        "mean gain over none {:.0} %; below full at every disparity: {below}",
                        gain * 100.0
                    ),
                }
            }
            (Err(e), _) | (_, Err(e)) => missing(what, e),
        },
    );
    out
}

/// Figure 15(c): the paper's three PRISM flows' average windows (segments).
const FIG15C_PAPER: [f64; 3] = [19.5, 18.4, 21.8];

/// The average windows (segments) of each seed's run with `n` flows, by
/// seed, flows in name order.
fn windows(results: &[RunResult], n: usize) -> Vec<(u64, Vec<f64>)> {
    results
        .iter()
        .filter(|r| r.point.text("flows").as_deref() == Some(&n.to_string()))
        .map(|r| {
            let mss = 1000.0;
            let w = r
                .summary
                .flows
                .iter()
                .filter_map(|f| f.mean_cwnd_bytes.map(|b| b / mss))
                .collect();
            (r.seed, w)
        })
        .collect()
}

/// Figure 15(c): with the paper's three flows, in every seed, the flows'
/// average windows lie no further apart than the paper's (largest over
/// smallest).
pub(super) fn prism_fig15c_checks(results: &[RunResult]) -> Vec<Check> {
    let spread = |w: &[f64]| {
        let (lo, hi) = w.iter().fold((f64::INFINITY, 0.0_f64), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        });
        hi / lo
    };
    let paper = spread(&FIG15C_PAPER);
    let what = format!(
        "{} PRISM flows share fairly: their average windows no further apart than the paper's (largest / smallest ≤ {paper:.3}) in every seed",
        FIG15C_PAPER.len()
    );
    let runs = windows(results, FIG15C_PAPER.len());
    if runs.is_empty() || runs.iter().any(|(_, w)| w.len() != FIG15C_PAPER.len()) {
        return vec![missing(
            what,
            "no run with three flows that all report a window",
        )];
    }
    let worst = runs
        .iter()
        .map(|(seed, w)| (*seed, spread(w)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .expect("not empty");
    vec![Check {
        what,
        holds: worst.1 <= paper,
        detail: format!("largest spread {:.3} (seed {})", worst.1, worst.0),
    }]
}

/// Each flow's average window with the paper's three flows, beside the
/// paper's.
pub(super) fn prism_fig15c_extra(results: &[RunResult]) -> String {
    let mut md = String::from("Average congestion windows (segments) with three flows:\n\n| | flow 1 | flow 2 | flow 3 |\n|---|---|---|---|\n");
    let cells = |w: &[f64]| {
        w.iter()
            .map(|v| format!("{v:.1}"))
            .collect::<Vec<_>>()
            .join(" | ")
    };
    let _ = writeln!(md, "| paper | {} |", cells(&FIG15C_PAPER));
    for (seed, w) in windows(results, FIG15C_PAPER.len()) {
        let _ = writeln!(md, "| seed {seed} | {} |", cells(&w));
    }
    md.push('\n');
    md
}

/// Figure 12's claims: ADAS's share of the ideal at the shortest bursts
/// ("96.1% ... on average") and at the longest ("91.3%").
const FIG12_SHORT: f64 = 0.961;
const FIG12_LONG: f64 = 0.913;

/// Figure 12: ADAS at the paper's shares of the ideal at the shortest and
/// the longest bursts (the mean over the congestion levels), and ahead of
/// NIP only and WRR at every burst time and level.
pub(super) fn prism_fig12_checks(t: &Table) -> Vec<Check> {
    let levels: Vec<String> = t
        .series
        .iter()
        .filter_map(|s| s.strip_prefix("adas, ").map(str::to_string))
        .collect();
    let mut out = Vec::new();
    let last = t.xs.len().saturating_sub(1);
    for (xi, share, when) in [(0, FIG12_SHORT, "shortest"), (last, FIG12_LONG, "longest")] {
        let what = format!(
            "ADAS at {:.1} % of the ideal or more at the {when} bursts (the mean over the congestion levels)",
            share * 100.0
        );
        let shares: Option<Vec<f64>> = levels
            .iter()
            .map(|l| {
                let a = t.stat(&format!("adas, {l}"), xi)?.0;
                let i = t.stat(&format!("ideal, {l}"), xi)?.0;
                Some(a / i)
            })
            .collect();
        out.push(match shares.filter(|s| !s.is_empty()) {
            None => missing(what, "`adas` or `ideal` at some level"),
            Some(s) => {
                let mean = s.iter().sum::<f64>() / s.len() as f64;
                Check {
                    what,
                    holds: mean >= share,
                    detail: format!("{:.1} % at {} s", mean * 100.0, t.xs[xi]),
                }
            }
        });
    }
    if levels.is_empty() {
        out.push(missing(
            "ADAS ahead of NIP only and WRR",
            "no `adas` series",
        ));
    }
    for l in &levels {
        out.push(not_below(
            t,
            &format!("adas, {l}"),
            &[&format!("nip, {l}"), &format!("wrr, {l}")],
            &format!("ADAS no lower than NIP only and WRR at every burst time ({l}; the 95 % intervals overlap, or ADAS's is above)"),
        ));
    }
    out
}

/// Series `a` no lower than each of `others` at every x: its mean plus
/// its 95 % half-width reaches the other's mean less its own.
fn not_below(t: &Table, a: &str, others: &[&str], what: &str) -> Check {
    let mut worst: Option<(f64, String, f64)> = None;
    for o in others {
        for xi in 0..t.xs.len() {
            let (Some((ma, ha)), Some((mo, ho))) = (t.stat(a, xi), t.stat(o, xi)) else {
                return missing(what, format!("`{a}` or `{o}` at {}", t.xs[xi]));
            };
            let margin = (ma + ha) - (mo - ho);
            if worst.as_ref().is_none_or(|w| margin < w.0) {
                worst = Some((margin, o.to_string(), t.xs[xi]));
            }
        }
    }
    match worst {
        None => missing(what, "no point"),
        Some((m, o, x)) => Check {
            what: what.into(),
            holds: m >= 0.0,
            detail: format!("closest to `{o}` at {x}: upper bound of `{a}` minus lower bound of `{o}` = {m:.3} Mbit/s"),
        },
    }
}

/// Figure 14's claims: ADAS's average re-sequencing buffer this many times
/// smaller than WRR's; its throughput above WRR's (2.9 against 2.5 Mbit/s).
const FIG14_SMALLER: f64 = 1.5;

/// The mean over seeds of `f` of variant `v`'s `download` flow.
fn download_mean(
    results: &[RunResult],
    v: &str,
    f: impl Fn(&radial_sim::metrics::FlowReport) -> Option<f64>,
) -> Option<f64> {
    let xs: Vec<f64> = results
        .iter()
        .filter(|r| r.point.text("variant").as_deref() == Some(v))
        .filter_map(|r| f(named_flow(r, "download")?))
        .collect();
    (!xs.is_empty()).then(|| xs.iter().sum::<f64>() / xs.len() as f64)
}

/// Figure 14: ADAS's average re-sequencing buffer at least
/// [`FIG14_SMALLER`] times smaller than WRR's, and its throughput above
/// WRR's (means over seeds).
pub(super) fn prism_fig14_checks(results: &[RunResult]) -> Vec<Check> {
    let span = |v| download_mean(results, v, |f| f.mean_resequencing_bytes);
    let rate = |v| download_mean(results, v, |f| Some(f.goodput_mbps));
    let what = format!(
        "ADAS's average re-sequencing buffer at least {FIG14_SMALLER} times smaller than WRR's"
    );
    let buffer = match (span("adas"), span("wrr")) {
        (Some(a), Some(w)) => Check {
            what,
            holds: w >= FIG14_SMALLER * a,
            detail: format!("{:.1} against {:.1} KB ({:.2}×)", a / 1e3, w / 1e3, w / a),
        },
        _ => missing(what, "no re-sequencing buffer of `adas` or `wrr`"),
    };
    let what = "ADAS's throughput above WRR's";
    let throughput = match (rate("adas"), rate("wrr")) {
        (Some(a), Some(w)) => Check {
            what: what.into(),
            holds: a > w,
            detail: format!("{a:.3} against {w:.3} Mbit/s"),
        },
        _ => missing(what, "no `download` of `adas` or `wrr`"),
    };
    vec![buffer, throughput]
}

/// The average re-sequencing buffer and throughput per scheduler.
pub(super) fn prism_fig14_extra(results: &[RunResult]) -> String {
    let mut md = String::from(
        "Means over seeds:\n\n| scheduler | average re-sequencing buffer (KB) | throughput (Mbit/s) |\n|---|---|---|\n",
    );
    for v in ["adas", "wrr"] {
        let span = download_mean(results, v, |f| f.mean_resequencing_bytes);
        let rate = download_mean(results, v, |f| Some(f.goodput_mbps));
        let cell = |x: Option<f64>, k: f64| x.map_or("—".into(), |x| format!("{:.2}", x / k));
        let _ = writeln!(md, "| {v} | {} | {} |", cell(span, 1e3), cell(rate, 1.0));
    }
    md.push('\n');
    md
}
