//! pTCP's figures: the five-phase trajectory, aggregation against Ideal,
//! policy, soft and hard handoff, a controller per pipe; and their checks.

use super::*;

/// pTCP's two engines: the paper's, whose checks the paper's claims are
/// held to, and ours beside it; with the prefix of their variants in the
/// figures that name variants.
const ENGINES: [(&str, &str); 2] = [("ptcp-paper", "paper-"), ("ptcp", "")];

/// Figure 9(a)'s grid with pTCP: at 95 % of Ideal everywhere.
pub(super) fn ptcp_fig9a_checks(t: &Table) -> Vec<Check> {
    ENGINES
        .iter()
        .map(|&(p, _)| tracks_ideal(t, p, "Mbit/s"))
        .collect()
}

fn report<'a>(results: &'a [RunResult], param: &str, v: &str) -> Option<&'a RunResult> {
    results
        .iter()
        .find(|r| r.point.text(param).as_deref() == Some(v))
}

/// How long after phase IV begins its rate is measured (s): the new pipe's
/// slow start left out.
const PHASE_SETTLE_S: f64 = 5.0;

/// Figure 7: in phase IV pTCP's rate "closely follows x + y", what one
/// TCP gets on the WLAN-2 and on the WWAN alone (§5.1), and over the whole
/// trajectory it delivers more than the single-state transports.
pub(super) fn ptcp_fig7_checks(results: &[RunResult]) -> Vec<Check> {
    let rate = |v: &str, a: f64, b: f64| {
        report(results, "protocol", v)
            .and_then(download)
            .map(|(_, pts)| rate_between(&pts, a, b))
    };
    let goodput = |v: &str| {
        report(results, "protocol", v)
            .and_then(|r| named_flow(r, "download"))
            .map(|f| f.goodput_mbps)
    };
    // Phase IV: the longest span in which two pipes are open, from the
    // scenario, once the new pipe has left slow start.
    let phase = first_spec("ptcp-fig7")
        .and_then(|s| shared_spans(&s, "download"))
        .and_then(|v| {
            v.into_iter()
                .max_by(|x, y| (x.1 - x.0).total_cmp(&(y.1 - y.0)))
        });
    let (a, b) = phase
        .as_ref()
        .map_or((f64::NAN, f64::NAN), |&(a, b, _)| (a + PHASE_SETTLE_S, b));
    let x_plus_y = phase.and_then(|(_, _, pipes)| single_path_sum(results, &pipes));
    let mut checks = Vec::new();
    for (p, _) in ENGINES {
        let what = format!(
            "phase IV ({a}–{b} s): `{p}` follows x + y, the sum of what `tcp-sack` gets on each of its two paths alone, within {:.0} %",
            TRACKS_WITHIN * 100.0
        );
        checks.push(match (rate(p, a, b), x_plus_y) {
            (Some(p4), Some((x, y))) => Check {
                what,
                holds: p4 >= (1.0 - TRACKS_WITHIN) * (x + y),
                detail: format!(
                    "{p4:.2} against x + y = {x:.2} + {y:.2} = {:.2} Mbit/s ({:.1} %)",
                    x + y,
                    100.0 * p4 / (x + y)
                ),
            },
            _ => missing(
                what,
                format!("no `download` of `{p}`, or no `tcp-sack` run on both paths"),
            ),
        });
        let what = format!(
            "over the whole trajectory `{p}` delivers more than the single-state `tcp-sack` and `rcp`"
        );
        checks.push(match (goodput(p), goodput("tcp-sack"), goodput("rcp")) {
            (Some(g), Some(t), Some(r)) => Check {
                what,
                holds: g > t && g > r,
                detail: format!("{g:.2} against {t:.2} and {r:.2} Mbit/s"),
            },
            _ => missing(what, format!("no `download` of `{p}`, `tcp-sack` or `rcp`")),
        });
        checks.push(soft_handoff(results, p));
    }
    checks
}

/// x and y of Figure 7: on each of two pipes' interfaces, the rate of
/// `tcp-sack` (which hands off hard along the same trajectory) over its
/// longest attachment there, once it has left slow start.
fn single_path_sum(
    results: &[RunResult],
    pipes: &[radial_sim::spec::PipeSpec],
) -> Option<(f64, f64)> {
    let spans = attachments(
        &spec_where("ptcp-fig7", "protocol", "tcp-sack")?,
        "download",
    )?;
    let (_, pts) = download(report(results, "protocol", "tcp-sack")?)?;
    let alone = |via: u32| {
        let &(a, b, _) = spans
            .iter()
            .filter(|s| s.2 == via && s.1 - s.0 > PHASE_SETTLE_S)
            .max_by(|s, t| (s.1 - s.0).total_cmp(&(t.1 - t.0)))?;
        Some(rate_between(&pts, a + PHASE_SETTLE_S, b))
    };
    match pipes {
        [first, second] => Some((alone(second.via)?, alone(first.via)?)),
        _ => None,
    }
}

/// How long after the new pipe of Figure 8's soft handoff opens both pipes
/// are watched (s).
const FIG8_WINDOW_S: f64 = 2.0;

/// Figure 8: at the soft handoff (the pipe that retires when the next is
/// ready, and that next pipe, from the scenario), both pipes deliver data
/// in the seconds after the new one opens.
fn soft_handoff(results: &[RunResult], p: &str) -> Check {
    let handoff = spec_where("ptcp-fig7", "protocol", p).and_then(|spec| {
        let flow = spec
            .flows
            .iter()
            .find(|f| f.name == "download" && !f.pipes.is_empty())?;
        let old = flow.pipes.iter().position(|x| x.handoff_to_next)?;
        Some((old, flow.pipes.get(old + 1)?.open.as_secs_f64()))
    });
    let what = |at: f64| {
        format!(
            "Figure 8: at the soft handoff (the new pipe opens at {at} s) `{p}`'s old and new pipes both deliver data in the {FIG8_WINDOW_S} s after"
        )
    };
    let Some((old, at)) = handoff else {
        return missing(
            what(f64::NAN),
            "no pipe that hands off to the next in the scenario",
        );
    };
    let Some((r, fi)) = report(results, "protocol", p).and_then(|r| Some((r, download(r)?.0)))
    else {
        return missing(what(at), format!("no `download` of `{p}`"));
    };
    let rate = |k: usize| rate_between(&pipe_points(r, fi, k as u16), at, at + FIG8_WINDOW_S);
    let (a, b) = (rate(old), rate(old + 1));
    Check {
        what: what(at),
        holds: a > 0.0 && b > 0.0,
        detail: format!("old pipe {a:.2} Mbit/s, new pipe {b:.2} Mbit/s"),
    }
}

/// Figure 13: soft handoff within twice the usual gap; hard handoff about a
/// round trip plus the handshake.
pub(super) fn ptcp_fig13_checks(results: &[RunResult]) -> Vec<Check> {
    let nodes = ["server", "AP2", "MH2"];
    let bound =
        first_spec("ptcp-fig13").and_then(|s| Some((path(&s, &nodes)?, packet_time(&s, &nodes)?)));
    let mut checks = Vec::new();
    for (p, prefix) in ENGINES {
        checks.extend(handoff_checks(results, p, prefix, bound.as_ref()));
    }
    checks
}

/// Figure 13's checks on one engine's variants `{prefix}soft` and
/// `{prefix}hard`, given the new path and its packet time.
fn handoff_checks(
    results: &[RunResult],
    p: &str,
    prefix: &str,
    bound: Option<&(PathBound, f64)>,
) -> Vec<Check> {
    let f = |v: &str| {
        report(results, "variant", &format!("{prefix}{v}")).and_then(|r| named_flow(r, "download"))
    };
    let mut checks = Vec::new();
    let what = format!(
        "`{p}` soft handoff: in-order delivery pauses at most {SEAMLESS}× its median gap before the handoff"
    );
    checks.push(seamless(&what, f("soft"), &format!("{prefix}soft")));
    let lower = format!("`{p}` hard handoff: the service disruption is at least one round trip of the new path (pTCP §6.3.1: \"at least one round-trip time\")");
    let what = format!("`{p}` hard handoff: delivery resumes within one round trip plus the new pipe's handshake (and the usual gap and a packet)");
    match (f("hard"), bound) {
        (None, _) => {
            let no = format!("no `download` flow in variant `{prefix}hard`");
            checks.push(missing(lower, &no));
            checks.push(missing(what, no));
        }
        (_, None) => {
            checks.push(missing(lower, "no path server → AP2 → MH2 in the scenario"));
            checks.push(missing(what, "no path server → AP2 → MH2 in the scenario"));
        }
        (Some(f), Some((p, packet))) => {
            // From the scenario: the new path carried nothing before, so
            // the handshake takes one of its round trips; then one more for
            // the first data, and one packet time, as the re-assigned head
            // of line follows the new pipe's first segment.
            let gap = f.handoff_disruption_s.unwrap_or(f64::NAN);
            let usual = f.pre_handoff_median_gap_s.unwrap_or(f64::NAN);
            let bound = usual + 2.0 * p.rtt + packet;
            checks.push(Check {
                what: lower,
                holds: gap >= p.rtt,
                detail: format!(
                    "{:.1} ms against a round trip of {:.1} ms",
                    gap * 1e3,
                    p.rtt * 1e3
                ),
            });
            checks.push(Check {
                what,
                holds: gap <= bound,
                detail: format!(
                    "{:.1} ms against {:.1} ms: the usual gap {:.1} ms, a handshake and a round trip of {:.1} ms each, a packet {:.1} ms",
                    gap * 1e3,
                    bound * 1e3,
                    usual * 1e3,
                    p.rtt * 1e3,
                    packet * 1e3
                ),
            });
        }
    }
    checks
}

/// Figure 14: TCP-ELN on the lossy pipe carries more there, and the
/// connection gets the pipes' sum either way.
pub(super) fn ptcp_fig14_checks(results: &[RunResult]) -> Vec<Check> {
    let runs = |v: &str| -> Vec<&RunResult> {
        results
            .iter()
            .filter(|r| r.point.text("variant").as_deref() == Some(v))
            .collect()
    };
    let pipe2 = |v: &str| {
        let rates: Vec<f64> = runs(v)
            .into_iter()
            .filter_map(|r| {
                let (fi, _) = download(r)?;
                let pts = pipe_points(r, fi, 1);
                Some(rate_between(&pts, 5.0, r.summary.duration_s))
            })
            .collect();
        mean_of(&rates)
    };
    let total = |v: &str| {
        let rates: Vec<f64> = runs(v)
            .into_iter()
            .filter_map(|r| named_flow(r, "download").map(|f| f.goodput_mbps))
            .collect();
        mean_of(&rates)
    };
    // A variant without runs is a failed check, never a mean of zero.
    let compare = |what: String, a: Option<f64>, b: Option<f64>, detail: &str| match (a, b) {
        (Some(a), Some(b)) => Check {
            what,
            holds: a > b,
            detail: format!("{a:.2} against {b:.2} Mbit/s{detail}"),
        },
        _ => missing(what, "a variant (`eln` or `tcp`) has no runs"),
    };
    let mut checks = Vec::new();
    for (p, prefix) in ENGINES {
        let (eln, tcp) = (format!("{prefix}eln"), format!("{prefix}tcp"));
        checks.push(compare(
            format!("`{p}`: TCP-ELN on the lossy WLAN-2 pipe carries more there than TCP"),
            pipe2(&eln),
            pipe2(&tcp),
            " (mean over seeds, after 5 s)",
        ));
        checks.push(compare(
            format!("`{p}`: and the connection gains with it"),
            total(&eln),
            total(&tcp),
            "",
        ));
    }
    checks
}

/// The mean of `v`, none when it is empty.
fn mean_of(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}
