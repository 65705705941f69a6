//! PRISM's figures: the acceptance checks and notes of `prism-fig7a` to
//! `prism-fig15`.

use super::*;

/// Payload bytes per byte on a WWAN link: 1000-byte segments carry a
/// 20-byte TCP header and 20 bytes of IP.
const PAYLOAD_SHARE: f64 = 1000.0 / 1040.0;

/// The mean of series `s` at x index `xi` (NaN when absent).
fn mean(t: &Table, s: &str, xi: usize) -> f64 {
    t.stat(s, xi).map_or(f64::NAN, |(m, _)| m)
}

/// `prism` at `share` of the links' capacity (Mbit/s of payload) or more
/// at every x up to `up_to`.
fn near_capacity(t: &Table, capacity_mbps: f64, share: f64, up_to: f64, what: String) -> Check {
    let worst = (0..t.xs.len())
        .filter(|&xi| t.xs[xi] <= up_to + 1e-12)
        .map(|xi| {
            (
                t.xs[xi],
                mean(t, "prism", xi) / (capacity_mbps * PAYLOAD_SHARE),
            )
        })
        .min_by(|a, b| a.1.total_cmp(&b.1));
    let (x, e) = worst.unwrap_or((f64::NAN, 0.0));
    Check {
        what,
        holds: e >= share,
        detail: format!(
            "smallest {:.1} % of the payload capacity, at {x}",
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

pub(super) fn prism_fig7a_checks(t: &Table) -> Vec<Check> {
    vec![
        near_capacity(
            t,
            2.4,
            0.95,
            900.0,
            "`prism` ≥ 95 % of the two links' capacity while the disparity is 400 ms or less"
                .into(),
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
            &["striped"],
            "`prism` above TCP-SACK striped without RPC",
        ),
    ]
}

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
            1.44,
            0.94,
            0.0079,
            "`prism` ≥ 94 % of the two links' capacity below 0.8 % loss".into(),
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
    ]
}

/// Figure 7(c): PRISM's throughput over the striped TCP's while M1 and M2
/// collaborate (0–40 s) and while M1 and M3 do (60–90 s).
pub(super) fn prism_fig7c_checks(results: &[RunResult]) -> Vec<Check> {
    let rate = |v: &str, a: f64, b: f64| {
        results
            .iter()
            .find(|r| r.point.text("variant").as_deref() == Some(v))
            .and_then(download)
            .map_or(f64::NAN, |(_, pts)| rate_between(&pts, a, b))
    };
    [
        ("M1 and M2", 0.0, 40.0, 3.10),
        ("M1 and M3", 60.0, 90.0, 2.08),
    ]
    .into_iter()
    .map(|(who, a, b, paper)| {
        let (p, s) = (rate("prism", a, b), rate("striped", a, b));
        Check {
            what: format!(
                "{who} ({a}–{b} s): `prism` at least the paper's {:.0} % of the striped TCP",
                paper * 100.0
            ),
            holds: p >= paper * s,
            detail: format!("{p:.3} against {s:.3} Mbit/s ({:.0} %)", p / s * 100.0),
        }
    })
    .collect()
}

pub(super) fn prism_fig9_checks(t: &Table) -> Vec<Check> {
    let below_one = (0..t.xs.len())
        .filter(|&xi| t.xs[xi] >= 3.0)
        .map(|xi| (t.xs[xi], mean(t, "wrr", xi) / mean(t, "no-proxy", xi)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap_or((f64::NAN, f64::NAN));
    vec![
        tracks_ideal(t, "prism", "members"),
        Check {
            what: "WRR striping without ACK control falls below one member's TCP alone (three members or more)".into(),
            holds: below_one.1 < 1.0,
            detail: format!(
                "wrr / no-proxy = {:.2} at {} members",
                below_one.1, below_one.0
            ),
        },
    ]
}

pub(super) fn prism_fig10_checks(t: &Table) -> Vec<Check> {
    let first = mean(t, "adas", 1);
    let last = mean(t, "adas", t.xs.len().saturating_sub(1));
    vec![
        leads(
            t,
            "adas",
            &["rr", "random"],
            "ADAS at or above RR and random at every disparity (RPC off)",
        ),
        Check {
            what: "ADAS improves as the disparity grows (10 % → 70 %)".into(),
            holds: last > first,
            detail: format!("{first:.3} → {last:.3} Mbit/s"),
        },
    ]
}

pub(super) fn prism_fig11_checks(t: &Table) -> Vec<Check> {
    let last = t.xs.len().saturating_sub(1);
    let (adas, ideal) = (mean(t, "adas", last), mean(t, "ideal", last));
    vec![
        leads(
            t,
            "adas",
            &["wrr", "rr", "random", "hrtt", "nip"],
            "ADAS above every other scheduler at every burst time",
        ),
        Check {
            what: "ADAS within 97.1 % of the ideal at the longest bursts (the paper's figure)"
                .into(),
            holds: adas >= 0.971 * ideal,
            detail: format!(
                "{adas:.3} against {ideal:.3} Mbit/s ({:.1} %)",
                adas / ideal * 100.0
            ),
        },
    ]
}
