//! The checks of R²CP's Figure 8 and its blackout figure, with their
//! bounds stated from the scenario's own parameters (rates, delays, queues,
//! schedule), never from what the run measured. A variant without the
//! `download` flow fails its checks.

use radial_sim::spec::{LinkAction, RunSpec};

use super::*;

/// Bytes of a full data packet on a link: 1000 of payload, 20 of transport
/// header and the scenario's lower-layer overhead.
fn packet_bytes(spec: &RunSpec) -> u64 {
    1000 + 20 + u64::from(spec.overhead_bytes)
}

/// The link between nodes `a` and `b` (by name) in the direction a → b:
/// its rate (bit/s), one-way delay (s) and queue limit.
pub(super) fn hop(spec: &RunSpec, a: &str, b: &str) -> Option<(f64, f64, usize)> {
    let id = |n: &str| spec.nodes.iter().position(|m| m == n).map(|i| i as u32);
    let (a, b) = (id(a)?, id(b)?);
    spec.links.iter().find_map(|l| {
        let rate = if (l.a, l.b) == (a, b) {
            l.rate_forward
        } else if (l.a, l.b) == (b, a) {
            l.rate_reverse
        } else {
            return None;
        };
        Some((rate.bps() as f64, l.delay.as_secs_f64(), l.queue))
    })
}

/// A data path from the server to the host along `nodes`: its base round
/// trip (twice the propagation delay plus a data packet's transmission on
/// each hop; acknowledgments' transmission left out), the longest a packet
/// can wait at its bottleneck (the slowest hop's queue full of data
/// packets; the faster hops drain as fast as it feeds them), and the
/// payload rate of that hop (Mbit/s).
pub(super) struct PathBound {
    pub rtt: f64,
    pub queueing: f64,
    pub capacity_mbps: f64,
}

/// The first point of target `name`'s scenario, with its first seed: what
/// checks read the scenario's parameters from.
pub(super) fn first_spec(name: &str) -> Option<RunSpec> {
    let t = targets().iter().find(|t| t.name == name)?;
    let sc = Scenario::parse(t.path, t.scenario).ok()?;
    sc.build(sc.points().first()?, *sc.seeds.first()?).ok()
}

/// The run spec of the first point of `name`'s scenario whose `param` is
/// `value`, with its first seed.
pub(super) fn spec_where(name: &str, param: &str, value: &str) -> Option<RunSpec> {
    let t = targets().iter().find(|t| t.name == name)?;
    let sc = Scenario::parse(t.path, t.scenario).ok()?;
    let point = sc
        .points()
        .into_iter()
        .find(|p| p.text(param).as_deref() == Some(value))?;
    sc.build(&point, *sc.seeds.first()?).ok()
}

/// The spans of the scenario in which two pipes or more of flow `name` are
/// open, by the pipes' `open`, `close` and `drop` times: (start, end, the
/// pipes open throughout).
pub(super) fn shared_spans(
    spec: &RunSpec,
    name: &str,
) -> Option<Vec<(f64, f64, Vec<radial_sim::spec::PipeSpec>)>> {
    let flow = spec.flows.iter().find(|f| f.name == name)?;
    let end = spec.duration.as_secs_f64();
    let gone = |p: &radial_sim::spec::PipeSpec| p.drop.or(p.close).map(|t| t.as_secs_f64());
    let mut cuts: Vec<f64> = vec![0.0, end];
    for p in &flow.pipes {
        cuts.push(p.open.as_secs_f64());
        cuts.extend(gone(p));
    }
    cuts.sort_by(f64::total_cmp);
    cuts.dedup();
    let spans = cuts
        .windows(2)
        .filter_map(|w| {
            let (a, b) = (w[0], w[1]);
            let alive: Vec<_> = flow
                .pipes
                .iter()
                .filter(|p| p.open.as_secs_f64() <= a && gone(p).is_none_or(|t| t >= b))
                .copied()
                .collect();
            (alive.len() >= 2).then_some((a, b, alive))
        })
        .collect();
    Some(spans)
}

/// The spans in which the single-path flow `name` (one with hard
/// handoffs) is attached to each of the host's nodes: (start, end, node),
/// from its start node and its handoffs.
pub(super) fn attachments(spec: &RunSpec, name: &str) -> Option<Vec<(f64, f64, u32)>> {
    let flow = spec
        .flows
        .iter()
        .find(|f| f.name == name && f.pipes.is_empty())?;
    let mut spans = Vec::new();
    let (mut since, mut node) = (0.0, flow.to);
    for &(at, to) in &flow.handoffs {
        spans.push((since, at.as_secs_f64(), node));
        (since, node) = (at.as_secs_f64(), to);
    }
    spans.push((since, spec.duration.as_secs_f64(), node));
    Some(spans)
}

/// Bytes of a full data packet's transmission on the slowest hop of
/// `nodes` (s).
pub(super) fn packet_time(spec: &RunSpec, nodes: &[&str]) -> Option<f64> {
    let bits = packet_bytes(spec) as f64 * 8.0;
    nodes
        .windows(2)
        .map(|w| hop(spec, w[0], w[1]).map(|h| bits / h.0))
        .try_fold(0.0_f64, |m, t| t.map(|t| m.max(t)))
}

pub(super) fn path(spec: &RunSpec, nodes: &[&str]) -> Option<PathBound> {
    let bits = packet_bytes(spec) as f64 * 8.0;
    let (mut rtt, mut queueing, mut slowest) = (0.0, 0.0, f64::INFINITY);
    for w in nodes.windows(2) {
        let (rate, delay, queue) = hop(spec, w[0], w[1])?;
        rtt += 2.0 * delay + bits / rate;
        if rate < slowest {
            slowest = rate;
            queueing = queue.saturating_sub(1) as f64 * bits / rate;
        }
    }
    Some(PathBound {
        rtt,
        queueing,
        capacity_mbps: slowest * 1000.0 / packet_bytes(spec) as f64 / 1e6,
    })
}

/// The longest time link `name` spends down between a `down` and the next
/// `up` of the scenario's schedule (s).
fn longest_outage(spec: &RunSpec, name: &str) -> Option<f64> {
    let link = spec.links.iter().position(|l| l.name == name)? as u32;
    let mut down_at = None;
    let mut longest: Option<f64> = None;
    for s in spec.schedule.iter().filter(|s| s.link == link) {
        match s.action {
            LinkAction::Down => down_at = Some(s.at.as_secs_f64()),
            LinkAction::Up => {
                if let Some(d) = down_at.take() {
                    let o = s.at.as_secs_f64() - d;
                    longest = Some(longest.map_or(o, |l: f64| l.max(o)));
                }
            }
            _ => {}
        }
    }
    longest
}

/// The R²CP figures' checks (Figure 8, blackouts), on the runs of one seed
/// of the scenario whose first point is `spec`.
pub(super) fn fig8_checks(name: &str, runs: &[(&str, &RunResult)], spec: &RunSpec) -> Vec<Check> {
    let report = |v: &str| {
        runs.iter()
            .find(|(x, _)| *x == v)
            .and_then(|(_, r)| named_flow(r, "download"))
    };
    let no_flow =
        |what: &str, v: &str| missing(what, format!("no `download` flow in variant `{v}`"));
    let mut checks = Vec::new();
    match name {
        "r2cp-fig8a" => {
            let what = format!(
                "make-before-break disruption at most {SEAMLESS}× the median inter-arrival gap before the handoff"
            );
            checks.push(seamless(
                &what,
                report("make-before-break"),
                "make-before-break",
            ));
            checks.push(hard_handoff(report("break-before-make"), spec));
        }
        "r2cp-fig8b" => {
            for (v, r) in runs {
                let what = format!("{v}: no byte fetched twice");
                match named_flow(r, "download") {
                    None => checks.push(no_flow(&what, v)),
                    Some(f) => checks.push(Check {
                        what,
                        holds: f.duplicate_bytes == 0,
                        detail: format!("{} duplicate bytes", f.duplicate_bytes),
                    }),
                }
            }
        }
        "r2cp-fig8c" => checks.push(two_servers(runs, spec)),
        "r2cp-policy" => checks.extend(policy_checks(name, runs, "")),
        "ptcp-fig11" => {
            // The paper's engine first, ours beside it.
            checks.extend(policy_checks(name, runs, "paper-"));
            checks.extend(policy_checks(name, runs, ""));
        }
        "r2cp-blackout" => {
            let blackout = longest_outage(spec, "wlan").unwrap_or(f64::NAN);
            let texts = [
                ("redundant", format!("with redundant striping the application keeps receiving through a blackout (longest stall under {BLACKOUT_STALL_S} s)")),
                ("plain", format!("without it too, since the silent pipe probes with requests that take nothing from the working one (longest stall under {BLACKOUT_STALL_S} s)")),
            ];
            for (v, what) in texts {
                match report(v) {
                    None => checks.push(no_flow(&what, v)),
                    Some(f) => {
                        let gap = f.max_delivery_gap_s;
                        let detail = if v == "plain" {
                            format!("{:.0} ms against a {blackout:.0} s blackout", gap * 1e3)
                        } else {
                            format!("{:.0} ms", gap * 1e3)
                        };
                        checks.push(Check {
                            what,
                            holds: gap < BLACKOUT_STALL_S,
                            detail,
                        });
                    }
                }
            }
        }
        _ => {}
    }
    checks
}

/// What "without being disrupted" is held to: the longest delivery gap
/// around a handoff at most this many times the usual one.
pub(super) const SEAMLESS: f64 = 2.0;
/// What "keeps receiving through a blackout" is held to: no stall this long.
const BLACKOUT_STALL_S: f64 = 1.0;

/// A seamless handoff: the longest delivery gap around it at most [`SEAMLESS`] times
/// the median gap before it (variant `v`'s `download` flow `f`).
pub(super) fn seamless(what: &str, f: Option<&radial_sim::metrics::FlowReport>, v: &str) -> Check {
    let Some(f) = f else {
        return missing(what, format!("no `download` flow in variant `{v}`"));
    };
    let gap = f.handoff_disruption_s.unwrap_or(f64::NAN);
    let usual = f.pre_handoff_median_gap_s.unwrap_or(f64::NAN);
    Check {
        what: what.into(),
        holds: gap <= SEAMLESS * usual,
        detail: format!(
            "{:.1} ms against a median gap of {:.1} ms",
            gap * 1e3,
            usual * 1e3
        ),
    }
}

/// Figure 8(a), break-before-make: the stall is at most the median gap
/// before, plus the new pipe's handshake (a round trip of network B's path
/// from Server-I, whose bottleneck queue, shared with the old pipe, may be
/// full of its data), plus one more round trip for the first request's
/// data.
fn hard_handoff(f: Option<&radial_sim::metrics::FlowReport>, spec: &RunSpec) -> Check {
    let what = "hard-handoff disruption at most one new-path RTT plus the pipe handshake";
    let Some(f) = f else {
        return missing(what, "no `download` flow in variant `break-before-make`");
    };
    let Some(p) = path(spec, &["S1", "R", "APB", "MHB"]) else {
        return missing(what, "no path S1 → R → APB → MHB in the scenario");
    };
    let gap = f.handoff_disruption_s.unwrap_or(f64::NAN);
    let usual = f.pre_handoff_median_gap_s.unwrap_or(f64::NAN);
    let handshake = p.rtt + p.queueing;
    Check {
        what: what.into(),
        holds: gap <= usual + handshake + p.rtt,
        detail: format!(
            "{:.1} ms against {:.1} ms: the median gap before, a handshake of at most {:.1} ms (a {:.1} ms round trip and a full bottleneck queue, {:.1} ms), one more round trip",
            gap * 1e3,
            (usual + handshake + p.rtt) * 1e3,
            handshake * 1e3,
            p.rtt * 1e3,
            p.queueing * 1e3,
        ),
    }
}

/// Figure 8(c)'s "the aggregate bandwidth of the two pipes": once the
/// second pipe has had this long to grow, at least this share of what the
/// two servers' paths can carry.
const AGGREGATE_AFTER_S: f64 = 10.0;
const AGGREGATE_SHARE: f64 = 0.95;

/// Figure 8(c): once the second pipe has had [`AGGREGATE_AFTER_S`] to grow,
/// the aggregate carries [`AGGREGATE_SHARE`] of what the two servers' paths
/// can (each path's slowest hop, in payload).
fn two_servers(runs: &[(&str, &RunResult)], spec: &RunSpec) -> Check {
    let what = format!(
        "from {AGGREGATE_AFTER_S} s after the second pipe opens, the aggregate at {:.0} % or more of the two paths' capacity",
        AGGREGATE_SHARE * 100.0
    );
    let Some((_, r)) = runs.first() else {
        return missing(what, "no run");
    };
    let (Some(a), Some(b)) = (
        path(spec, &["S1", "R", "APA", "MHA"]),
        path(spec, &["S2", "APB", "MHB"]),
    ) else {
        return missing(what, "the paths S1 → R → APA → MHA and S2 → APB → MHB");
    };
    let Some(open) = spec
        .flows
        .iter()
        .find(|f| f.name == "download")
        .and_then(|f| f.pipes.get(1))
        .map(|p| p.open.as_secs_f64())
    else {
        return missing(what, "no second pipe of `download`");
    };
    let Some((_, pts)) = download(r) else {
        return missing(what, "no `download` flow");
    };
    let from = open + AGGREGATE_AFTER_S;
    let rate = rate_between(&pts, from, r.summary.duration_s);
    let cap = a.capacity_mbps + b.capacity_mbps;
    Check {
        what,
        holds: rate >= AGGREGATE_SHARE * cap,
        detail: format!(
            "{rate:.2} Mbit/s from {from:.0} s against {:.2} + {:.2} = {cap:.2} Mbit/s ({:.1} %)",
            a.capacity_mbps,
            b.capacity_mbps,
            rate / cap * 100.0
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_single_path_flow_is_attached_to_one_node_at_a_time_from_start_to_end() {
        let spec = spec_where("ptcp-fig7", "protocol", "tcp-sack").expect("the scenario builds");
        let spans = attachments(&spec, "download").expect("a single-path download");
        let at: Vec<(f64, f64)> = spans.iter().map(|s| (s.0, s.1)).collect();
        assert_eq!(
            at,
            [
                (0.0, 24.1),
                (24.1, 43.0),
                (43.0, 60.0),
                (60.0, 100.0),
                (100.0, 120.0)
            ]
        );
        // Back on the WWAN after the WLAN-2: the same node, twice.
        assert_eq!(spans[2].2, spans[4].2);
        assert_ne!(spans[2].2, spans[3].2);
        // A multipath flow has pipes, not attachments.
        let multi = spec_where("ptcp-fig7", "multi", "ptcp").expect("the scenario builds");
        assert!(attachments(&multi, "download").is_none());
    }
}
