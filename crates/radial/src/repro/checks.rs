//! The acceptance checks of the curve figures (goodput tables against a
//! swept x). A check whose data is missing fails and says what is missing:
//! no comparison holds by default.

use super::*;

/// A check that cannot be made because its data is missing: it fails.
pub(super) fn missing(what: impl Into<String>, detail: impl Into<String>) -> Check {
    Check {
        what: what.into(),
        holds: false,
        detail: format!("no data: {}", detail.into()),
    }
}

/// The means of series `a` and `b` at every x: `(x, a, b)`; `Err` names the
/// first series and x without data (or says there is no x at all).
pub(super) fn pairs(t: &Table, a: &str, b: &str) -> Result<Vec<(f64, f64, f64)>, String> {
    if t.xs.is_empty() {
        return Err("the table has no points".into());
    }
    t.xs.iter()
        .enumerate()
        .map(|(xi, &x)| {
            let m = |s: &str| t.stat(s, xi).map(|(m, _)| m).ok_or(format!("`{s}` at {x}"));
            Ok((x, m(a)?, m(b)?))
        })
        .collect()
}

/// Figure 5(a)'s claim of RCP-ELN over TCP-ELN: at least this gain at loss
/// rates from this one up (the paper shows 50–100 % more).
const ELN_GAIN: f64 = 1.5;
const HIGH_LOSS: f64 = 0.05;

pub(super) fn fig5a_checks(t: &Table) -> Vec<Check> {
    let mut out = Vec::new();
    let what = "`rcp` ≥ `tcp-sack` at every loss rate";
    match pairs(t, "rcp", "tcp-sack") {
        Err(e) => out.push(missing(what, e)),
        Ok(ps) => {
            let (x, r, s) = ps
                .into_iter()
                .min_by(|p, q| (p.1 / p.2).total_cmp(&(q.1 / q.2)))
                .expect("pairs are never empty");
            out.push(Check {
                what: what.into(),
                holds: r / s >= 1.0,
                detail: format!("smallest ratio rcp / tcp-sack = {:.3} at loss {}", r / s, x),
            });
        }
    }
    let high: Vec<(usize, f64)> =
        t.xs.iter()
            .copied()
            .enumerate()
            .filter(|&(_, x)| x >= HIGH_LOSS)
            .collect();
    if high.is_empty() {
        out.push(missing(
            format!(
                "`rcp-eln` ≥ {ELN_GAIN} × `tcp-eln` at loss {} % and above",
                HIGH_LOSS * 100.0
            ),
            format!("no loss rate of {} % or more", HIGH_LOSS * 100.0),
        ));
    }
    for (xi, x) in high {
        let what = format!("`rcp-eln` ≥ {ELN_GAIN} × `tcp-eln` at loss {x}");
        match (t.stat("rcp-eln", xi), t.stat("tcp-eln", xi)) {
            (Some((r, _)), Some((e, _))) => out.push(Check {
                what,
                holds: r >= ELN_GAIN * e,
                detail: format!("ratio {:.2} ({r:.3} / {e:.3} Mbit/s)", r / e),
            }),
            _ => out.push(missing(what, format!("`rcp-eln` or `tcp-eln` at {x}"))),
        }
    }
    out
}

/// What "closely tracks" (RCP Figure 4(c)) and "closely follows" (pTCP
/// Figure 7) are held to: within this share.
pub(super) const TRACKS_WITHIN: f64 = 0.10;

pub(super) fn fig4c_checks(t: &Table) -> Vec<Check> {
    let what = format!(
        "`rcp` within {:.0} % of `tcp-sack` at every reverse-path load",
        TRACKS_WITHIN * 100.0
    );
    let ps = match pairs(t, "rcp", "tcp-sack") {
        Err(e) => return vec![missing(what, e)],
        Ok(ps) => ps,
    };
    let (x, d) = ps
        .iter()
        .map(|&(x, r, s)| (x, (r - s).abs() / s))
        .max_by(|p, q| p.1.total_cmp(&q.1))
        .expect("pairs are never empty");
    vec![Check {
        what,
        holds: d <= TRACKS_WITHIN,
        detail: format!(
            "largest difference {:.1} % at {} on/off flows",
            d * 100.0,
            x
        ),
    }]
}

pub(super) fn fig5b_checks(t: &Table) -> Vec<Check> {
    let what = "`rcp-sat` ahead of `rcp` and `tcp-sack` at every delay";
    let mut worst = (f64::INFINITY, 0.0, "");
    for other in ["rcp", "tcp-sack"] {
        match pairs(t, "rcp-sat", other) {
            Err(e) => return vec![missing(what, e)],
            Ok(ps) => {
                for (x, sat, o) in ps {
                    if sat / o < worst.0 {
                        worst = (sat / o, x, other);
                    }
                }
            }
        }
    }
    vec![Check {
        what: what.into(),
        holds: worst.0 > 1.0,
        detail: format!(
            "smallest ratio rcp-sat / {} = {:.2} at {} ms",
            worst.2, worst.0, worst.1
        ),
    }]
}

/// Energy per MB below TCP's at every bad-state mean, and goodput not
/// lower: RCP's mean plus its 95 % half-width reaches TCP's mean minus its
/// own (the two intervals overlap or RCP's lies above).
pub(super) fn fig5c_checks(goodput: &Table, energy: &Table) -> Vec<Check> {
    if energy.xs.is_empty() {
        return vec![missing(
            "RCP's energy per MB below TCP's, with goodput no lower",
            "the table has no points",
        )];
    }
    let mut out = Vec::new();
    for (xi, &x) in energy.xs.iter().enumerate() {
        let what = format!(
            "bad-state mean {x} s: RCP's energy per MB below TCP's, with goodput no lower (the 95 % intervals overlap, or RCP's is above)"
        );
        let gi = goodput.xs.iter().position(|&g| g == x);
        let stats = (
            energy.stat("rcp", xi),
            energy.stat("tcp-sack", xi),
            gi.and_then(|g| goodput.stat("rcp", g)),
            gi.and_then(|g| goodput.stat("tcp-sack", g)),
        );
        let (Some((er, _)), Some((et, _)), Some((gr, hr)), Some((gt, ht))) = stats else {
            out.push(missing(what, format!("`rcp` or `tcp-sack` at {x} s")));
            continue;
        };
        out.push(Check {
            what,
            holds: er < et && gr + hr >= gt - ht,
            detail: format!(
                "{er:.2} vs {et:.2} J/MB; {gr:.4} ± {hr:.4} vs {gt:.4} ± {ht:.4} Mbit/s"
            ),
        });
    }
    out
}

/// Pipe 1's round trip (ms) in `figure`'s scenario: twice the one-way
/// delays from its server S1 through AP1 to the host's MH1.
fn pipe1_rtt_ms(figure: &str) -> Option<f64> {
    let spec = first_spec(figure)?;
    let one_way = hop(&spec, "S1", "AP1")?.1 + hop(&spec, "AP1", "MH1")?.1;
    Some(2.0 * one_way * 1e3)
}

/// Aggregation efficiency (R²CP §4.4.3): each scheme's mean goodput over
/// Ideal's at every x, and the smallest.
pub(super) fn efficiency(t: &Table, scheme: &str) -> Vec<(f64, f64)> {
    (0..t.xs.len())
        .filter_map(|xi| {
            let (i, _) = t.stat("ideal", xi)?;
            let (g, _) = t.stat(scheme, xi)?;
            Some((t.xs[xi], g / i))
        })
        .collect()
}

fn r2cp_tracks_ideal(t: &Table, unit: &str) -> Check {
    tracks_ideal(t, "r2cp", unit)
}

/// What "achieves the ideal performance" is held to (R²CP §4.4.3): this
/// share of Ideal's goodput.
const IDEAL_SHARE: f64 = 0.95;
/// What "fails to scale" is held to: below this share of Ideal.
const FAILS_BELOW: f64 = 0.85;
/// The round-trip mismatch beyond which R²CP-s fails to scale (§4.4.3).
const MISMATCH: f64 = 3.0;
/// The largest receive buffer (segments) the buffer sweep counts as short.
const SHORT_BUFFER: f64 = 64.0;

/// `scheme` at [`IDEAL_SHARE`] of Ideal or more at every point; any point
/// without both is a failure.
pub(super) fn tracks_ideal(t: &Table, scheme: &str, unit: &str) -> Check {
    at_share_of_ideal(t, scheme, IDEAL_SHARE, unit)
}

/// `scheme` at `share` of Ideal or more at every point; any point without
/// both is a failure.
pub(super) fn at_share_of_ideal(t: &Table, scheme: &str, share: f64, unit: &str) -> Check {
    let what = format!(
        "`{scheme}` ≥ {:.0} % of Ideal at every point",
        share * 100.0
    );
    if let Err(e) = pairs(t, scheme, "ideal") {
        return missing(what, e);
    }
    let eff = efficiency(t, scheme);
    let worst = eff
        .iter()
        .copied()
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .expect("pairs are never empty");
    Check {
        what,
        holds: eff.iter().all(|&(_, e)| e >= share),
        detail: format!("smallest {:.1} % at {} {unit}", worst.1 * 100.0, worst.0),
    }
}

/// `apps` below both R²CP variants at the point of largest mismatch (the
/// first x for Figure 9(a), the last for 9(b)).
fn apps_below_both(t: &Table, xi: usize, at: &str) -> Check {
    let what = format!("`apps` below `r2cp` and `r2cp-s` at {at}");
    let m = |s: &str| t.stat(s, xi).map(|(m, _)| m);
    let (Some(apps), Some(r), Some(s)) = (m("apps"), m("r2cp"), m("r2cp-s")) else {
        return missing(what, "`apps`, `r2cp` or `r2cp-s` at that point");
    };
    Check {
        what,
        holds: apps < r && apps < s,
        detail: format!("apps {apps:.3}, r2cp {r:.3}, r2cp-s {s:.3} Mbit/s"),
    }
}

/// Figure 9(a): "both R²CP and R²CP-s achieve the ideal performance" — the
/// paper's engines (`r2cp-paper`, `r2cp-s-paper`), and ours beside them.
pub(super) fn fig9a_checks(t: &Table) -> Vec<Check> {
    vec![
        tracks_ideal(t, "r2cp-paper", "Mbit/s"),
        tracks_ideal(t, "r2cp-s-paper", "Mbit/s"),
        r2cp_tracks_ideal(t, "Mbit/s"),
        tracks_ideal(t, "r2cp-coupled", "Mbit/s"),
        apps_below_both(
            t,
            0,
            &format!(
                "the largest bandwidth mismatch (pipe 2 at {} Mbit/s)",
                t.xs.first().copied().unwrap_or(f64::NAN)
            ),
        ),
    ]
}

/// Figure 9(b): the paper's R²CP tracks the Ideal while its R²CP-s falls
/// below beyond a 3× RTT mismatch (held against `r2cp-paper` and
/// `r2cp-s-paper`); ours beside them.
pub(super) fn fig9b_checks(t: &Table) -> Vec<Check> {
    // x is half of pipe 2's round trip (ms); pipe 1's from the scenario.
    let rtt1_ms = pipe1_rtt_ms("r2cp-fig9b").unwrap_or(f64::NAN);
    let beyond: Vec<(f64, f64)> = efficiency(t, "r2cp-s-paper")
        .into_iter()
        .filter(|&(x, _)| 2.0 * x > MISMATCH * rtt1_ms)
        .collect();
    let unit = "ms (half of pipe 2's round trip)";
    let mut out = vec![
        tracks_ideal(t, "r2cp-paper", unit),
        r2cp_tracks_ideal(t, unit),
        tracks_ideal(t, "r2cp-coupled", unit),
        apps_below_both(
            t,
            t.xs.len().saturating_sub(1),
            &format!(
                "the largest RTT mismatch ({} against {rtt1_ms} ms)",
                2.0 * t.xs.last().copied().unwrap_or(f64::NAN)
            ),
        ),
    ];
    let what = format!(
        "`r2cp-s-paper` below {:.0} % of Ideal somewhere beyond a {MISMATCH}× RTT mismatch",
        FAILS_BELOW * 100.0
    );
    match beyond.iter().copied().min_by(|a, b| a.1.total_cmp(&b.1)) {
        None => out.push(missing(
            what,
            format!("no point beyond a {MISMATCH}× mismatch with `r2cp-s-paper` and Ideal"),
        )),
        Some((x, e)) => out.push(Check {
            what,
            holds: e < FAILS_BELOW,
            detail: format!("smallest {:.1} % at a {} ms round trip", e * 100.0, 2.0 * x),
        }),
    }
    out
}

/// The buffer sweep at the hardest point of Figure 9(b) (x: the receive
/// buffer in segments): where the buffer is short, ranking
/// keeps `r2cp` ahead of `r2cp-s`, whose head-of-line blocking the paper
/// describes; and the paper's contrast itself, held against the paper's
/// engines: `r2cp-paper` at 95 % of Ideal where `r2cp-s-paper` is below
/// 85 %, at some buffer size.
pub(super) fn fig9b_buffer_checks(t: &Table) -> Vec<Check> {
    let mut out = Vec::new();
    let what = format!(
        "with a buffer of {SHORT_BUFFER} segments or fewer, `r2cp` ahead of `r2cp-s` (head-of-line blocking)"
    );
    match pairs(t, "r2cp", "r2cp-s") {
        Err(e) => out.push(missing(what, e)),
        Ok(ps) => {
            let short: Vec<(f64, f64, f64)> =
                ps.into_iter().filter(|p| p.0 <= SHORT_BUFFER).collect();
            match short.iter().min_by(|p, q| (p.1 / p.2).total_cmp(&(q.1 / q.2))) {
                None => out.push(missing(
                    what,
                    format!("no buffer of {SHORT_BUFFER} segments or fewer"),
                )),
                Some(&(x, r, s)) => out.push(Check {
                    what,
                    holds: short.iter().all(|p| p.1 > p.2),
                    detail: format!(
                        "smallest ratio r2cp / r2cp-s = {:.2} at {x} segments ({r:.2} / {s:.2} Mbit/s)",
                        r / s
                    ),
                }),
            }
        }
    }
    let what = format!(
        "at some buffer size `r2cp-paper` ≥ {:.0} % of Ideal while `r2cp-s-paper` is below {:.0} % (the paper's contrast)",
        IDEAL_SHARE * 100.0,
        FAILS_BELOW * 100.0
    );
    let (r, s) = (efficiency(t, "r2cp-paper"), efficiency(t, "r2cp-s-paper"));
    if r.is_empty() || r.len() != s.len() {
        out.push(missing(
            what,
            "`r2cp-paper`, `r2cp-s-paper` or Ideal at some buffer",
        ));
    } else {
        let both: Vec<(f64, f64, f64)> = r
            .iter()
            .zip(&s)
            .map(|(&(x, a), &(_, b))| (x, a, b))
            .collect();
        let hit = both
            .iter()
            .find(|p| p.1 >= IDEAL_SHARE && p.2 < FAILS_BELOW);
        let best = both
            .iter()
            .max_by(|p, q| (p.1 - p.2).total_cmp(&(q.1 - q.2)))
            .expect("not empty");
        out.push(Check {
            what,
            holds: hit.is_some(),
            detail: format!(
                "largest gap at {} segments: r2cp-paper {:.1} %, r2cp-s-paper {:.1} % of Ideal",
                best.0,
                best.1 * 100.0,
                best.2 * 100.0
            ),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table of one value per (series, x).
    fn table(xs: &[f64], series: &[(&str, &[f64])]) -> Table {
        Table {
            series: series.iter().map(|(s, _)| s.to_string()).collect(),
            cells: series
                .iter()
                .map(|(_, v)| {
                    v.iter()
                        .map(|&m| if m.is_nan() { vec![] } else { vec![m] })
                        .collect()
                })
                .collect(),
            xs: xs.to_vec(),
        }
    }

    #[test]
    fn no_figure_passes_a_check_without_data() {
        let empty = table(&[], &[]);
        for t in super::super::targets() {
            let mut checks = (t.checks)(&empty);
            checks.extend((t.run_checks)(&[]));
            if t.kind == Kind::Sequence {
                let spec = first_spec(t.name).expect("the figure's scenario builds");
                checks.extend(fig8_checks(t.name, &[], &spec));
            }
            let passing: Vec<&Check> = checks.iter().filter(|c| c.holds).collect();
            assert!(passing.is_empty(), "{}: {passing:?}", t.name);
        }
    }

    #[test]
    fn a_missing_series_fails_every_comparison() {
        let t = table(&[0.01, 0.1], &[("rcp", &[1.0, 1.0])]);
        let c = fig5a_checks(&t);
        assert!(c.iter().all(|c| !c.holds), "{c:?}");
        assert!(c[0].detail.contains("no data"), "{c:?}");
        assert!(fig4c_checks(&t).iter().all(|c| !c.holds));
        assert!(fig5b_checks(&t).iter().all(|c| !c.holds));
        let empty = table(&[], &[]);
        assert!(!tracks_ideal(&empty, "r2cp", "x").holds);
        assert!(fig9a_checks(&empty).iter().all(|c| !c.holds));
        assert!(fig9b_checks(&empty).iter().all(|c| !c.holds));
        assert!(fig9b_buffer_checks(&empty).iter().all(|c| !c.holds));
        assert!(fig5c_checks(&empty, &empty).iter().all(|c| !c.holds));
    }

    #[test]
    fn a_hole_at_one_point_fails_too() {
        let t = table(
            &[0.01, 0.1],
            &[("rcp", &[1.0, f64::NAN]), ("tcp-sack", &[0.5, 0.5])],
        );
        assert!(!fig5a_checks(&t)[0].holds);
        let t = table(
            &[1.0, 2.0],
            &[("r2cp", &[10.0, 10.0]), ("ideal", &[10.0, f64::NAN])],
        );
        assert!(!tracks_ideal(&t, "r2cp", "x").holds);
    }

    #[test]
    fn the_checks_hold_and_fail_on_the_numbers() {
        let xs = [0.01, 0.05, 0.1];
        let good = table(
            &xs,
            &[
                ("rcp", &[1.9, 1.0, 0.5]),
                ("tcp-sack", &[1.8, 0.9, 0.4]),
                ("rcp-eln", &[1.9, 1.8, 1.7]),
                ("tcp-eln", &[1.9, 1.0, 0.3]),
            ],
        );
        assert!(fig5a_checks(&good).iter().all(|c| c.holds));
        let bad = table(
            &xs,
            &[
                ("rcp", &[1.9, 0.8, 0.5]),
                ("tcp-sack", &[1.8, 0.9, 0.4]),
                ("rcp-eln", &[1.9, 1.4, 1.7]),
                ("tcp-eln", &[1.9, 1.0, 0.3]),
            ],
        );
        let c = fig5a_checks(&bad);
        assert_eq!(
            c.iter().map(|c| c.holds).collect::<Vec<_>>(),
            [false, false, true]
        );
        let t = table(&[1.0], &[("rcp", &[1.11]), ("tcp-sack", &[1.0])]);
        assert!(!fig4c_checks(&t)[0].holds);
        let t = table(&[1.0], &[("rcp", &[1.09]), ("tcp-sack", &[1.0])]);
        assert!(fig4c_checks(&t)[0].holds);
    }

    #[test]
    fn goodput_no_lower_allows_for_the_confidence_intervals() {
        let xs = vec![1.0];
        let energy = table(&xs, &[("rcp", &[1.0]), ("tcp-sack", &[2.0])]);
        let goodput = Table {
            series: vec!["rcp".into(), "tcp-sack".into()],
            cells: vec![vec![vec![0.98, 1.0, 1.02]], vec![vec![1.0, 1.01, 1.02]]],
            xs: xs.clone(),
        };
        assert!(fig5c_checks(&goodput, &energy)[0].holds);
        let goodput = Table {
            series: vec!["rcp".into(), "tcp-sack".into()],
            cells: vec![vec![vec![0.80, 0.80, 0.80]], vec![vec![1.0, 1.0, 1.0]]],
            xs,
        };
        assert!(!fig5c_checks(&goodput, &energy)[0].holds);
    }

    #[test]
    fn the_buffer_sweep_checks_ranking_where_the_buffer_is_short() {
        let t = table(
            &[32.0, 64.0, 256.0],
            &[
                ("r2cp", &[3.7, 3.6, 7.0]),
                ("r2cp-s", &[1.4, 2.8, 7.0]),
                ("r2cp-paper", &[3.7, 3.6, 7.0]),
                ("r2cp-s-paper", &[1.4, 2.8, 7.0]),
                ("ideal", &[7.0, 7.0, 7.0]),
            ],
        );
        let c = fig9b_buffer_checks(&t);
        assert!(c[0].holds);
        assert!(!c[1].holds, "no buffer gives both 95 % and below 85 %");
        let t = table(
            &[32.0, 64.0],
            &[
                ("r2cp", &[6.9, 3.0]),
                ("r2cp-s", &[5.0, 3.5]),
                ("r2cp-paper", &[6.9, 3.0]),
                ("r2cp-s-paper", &[5.0, 3.5]),
                ("ideal", &[7.0, 7.0]),
            ],
        );
        let c = fig9b_buffer_checks(&t);
        assert!(!c[0].holds);
        assert!(c[1].holds);
    }
}
