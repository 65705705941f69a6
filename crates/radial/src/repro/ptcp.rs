//! pTCP's figures: the five-phase trajectory, aggregation against Ideal,
//! policy, soft and hard handoff, a controller per pipe; and their checks.

use super::*;

/// Figure 9(a)'s grid with pTCP: at 95 % of Ideal everywhere.
pub(super) fn ptcp_fig9a_checks(t: &Table) -> Vec<Check> {
    vec![tracks_ideal(t, "ptcp", "Mbit/s")]
}

fn report<'a>(results: &'a [RunResult], param: &str, v: &str) -> Option<&'a RunResult> {
    results
        .iter()
        .find(|r| r.point.text(param).as_deref() == Some(v))
}

/// Figure 7: pTCP aggregates the WWAN and WLAN-2 in phase IV and loses no
/// more at its handoffs than the single-state transports.
pub(super) fn ptcp_fig7_checks(results: &[RunResult]) -> Vec<Check> {
    let rate = |v: &str, a: f64, b: f64| {
        report(results, "protocol", v)
            .and_then(download)
            .map(|(_, pts)| rate_between(&pts, a, b))
            .unwrap_or(f64::NAN)
    };
    let goodput = |v: &str| {
        report(results, "protocol", v)
            .and_then(|r| named_flow(r, "download"))
            .map_or(f64::NAN, |f| f.goodput_mbps)
    };
    let (p4, s4) = (rate("ptcp", 65.0, 100.0), rate("tcp-sack", 65.0, 100.0));
    vec![
        Check {
            what: "phase IV: `ptcp` aggregates the WWAN and WLAN-2 (more than `tcp-sack` on WLAN-2 alone, 65–100 s)".into(),
            holds: p4 > s4,
            detail: format!("{p4:.2} against {s4:.2} Mbit/s"),
        },
        Check {
            what: "over the whole trajectory `ptcp` delivers more than the single-state `tcp-sack` and `rcp`".into(),
            holds: goodput("ptcp") > goodput("tcp-sack") && goodput("ptcp") > goodput("rcp"),
            detail: format!(
                "{:.2} against {:.2} and {:.2} Mbit/s (`r2cp` {:.2})",
                goodput("ptcp"),
                goodput("tcp-sack"),
                goodput("rcp"),
                goodput("r2cp")
            ),
        },
    ]
}

/// Figure 13: soft handoff within twice the usual gap; hard handoff about a
/// round trip plus the handshake.
pub(super) fn ptcp_fig13_checks(results: &[RunResult]) -> Vec<Check> {
    let f = |v: &str| report(results, "variant", v).and_then(|r| named_flow(r, "download"));
    let mut checks = Vec::new();
    let what =
        "soft handoff: in-order delivery pauses at most twice its median gap before the handoff";
    checks.push(seamless(what, f("soft"), "soft"));
    let lower = "hard handoff: the service disruption is at least one round trip of the new path (pTCP §6.3.1: \"at least one round-trip time\")";
    let what = "hard handoff: delivery resumes within one round trip plus the new pipe's handshake (and the usual gap and a packet)";
    let nodes = ["server", "AP2", "MH2"];
    let bound =
        first_spec("ptcp-fig13").and_then(|s| Some((path(&s, &nodes)?, packet_time(&s, &nodes)?)));
    match (f("hard"), bound) {
        (None, _) => {
            checks.push(missing(lower, "no `download` flow in variant `hard`"));
            checks.push(missing(what, "no `download` flow in variant `hard`"));
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
                what: lower.into(),
                holds: gap >= p.rtt,
                detail: format!(
                    "{:.1} ms against a round trip of {:.1} ms",
                    gap * 1e3,
                    p.rtt * 1e3
                ),
            });
            checks.push(Check {
                what: what.into(),
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
    let pipe2 = |v: &str| {
        let runs: Vec<f64> = results
            .iter()
            .filter(|r| r.point.text("variant").as_deref() == Some(v))
            .filter_map(|r| {
                let (fi, _) = download(r)?;
                let pts = pipe_points(r, fi, 1);
                Some(rate_between(&pts, 5.0, r.summary.duration_s))
            })
            .collect();
        mean_of(&runs)
    };
    let total = |v: &str| {
        let runs: Vec<f64> = results
            .iter()
            .filter(|r| r.point.text("variant").as_deref() == Some(v))
            .filter_map(|r| named_flow(r, "download").map(|f| f.goodput_mbps))
            .collect();
        mean_of(&runs)
    };
    // A variant without runs is a failed check, never a mean of zero.
    let compare = |what: &str, a: Option<f64>, b: Option<f64>, detail: &str| match (a, b) {
        (Some(a), Some(b)) => Check {
            what: what.into(),
            holds: a > b,
            detail: format!("{a:.2} against {b:.2} Mbit/s{detail}"),
        },
        _ => missing(what, "a variant (`eln` or `tcp`) has no runs"),
    };
    vec![
        compare(
            "TCP-ELN on the lossy WLAN-2 pipe carries more there than TCP",
            pipe2("eln"),
            pipe2("tcp"),
            " (mean over seeds, after 5 s)",
        ),
        compare(
            "and the connection gains with it",
            total("eln"),
            total("tcp"),
            "",
        ),
    ]
}

/// The mean of `v`, none when it is empty.
fn mean_of(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}
