//! What one receive buffer lets a multipath connection reach, by who names
//! the segments each path carries.
//!
//! A connection whose receive buffer holds `B` bytes never has more than
//! `B` bytes between its next in-order byte (the head) and the furthest
//! byte it admits. A segment carried by a path with one-way delay `d`
//! keeps the head from passing it until it arrives, so the head moves at
//! most `B` bytes in the time between the moment the segment's place was
//! fixed (bounded by the head then) and its arrival:
//!
//! - **named by the receiver** (RCP, R²CP): a request names its segment
//!   when it leaves the receiver, a whole round trip `2d` before the
//!   segment arrives. A path used without pause therefore caps the
//!   connection at `B / 2d`;
//! - **named by the sender** (pTCP, MPTCP, PRISM): the sender places a
//!   segment when it sends it, against the head it learnt from the
//!   quickest acknowledgement path `a`, so the cap is `B / (d + a)`.
//!
//! A connection may leave its slow paths idle, so the bound is the best
//! over every set of paths: the smaller of the set's summed rates and the
//! buffer over the set's longest naming delay. With a buffer short of
//! the paths' summed rate times the slowest round trip, a receiver-named
//! scheme can do no better than leave the slow path out, while a sender
//! still gains from it: that difference is structural, not a matter of
//! scheduling. The model counts link rates and propagation delays only
//! (no queueing, headers, losses or cross traffic, each of which only
//! lowers what a path set delivers), and it bounds path sets used without
//! pause; a scheme that uses a slow path only now and then is not bounded
//! exactly by it.
//!
//! Both bounds are those of flow control by span (a TCP-like window from
//! the head). A receiver whose flow control is by reservation (a segment's
//! room held from its request until the application reads it) fixes no
//! segment's place against the head; its limit is how long each request
//! holds room: a path used at rate `x` holds at least `x · 2d` of the
//! buffer (Little's law), so the most it can deliver fills the buffer with
//! the paths of shortest round trip first, each up to its rate.

use radial_core::Duration;
use std::collections::BTreeMap;
use std::fmt::Write as _;

use radial_sim::routing::Routing;
use radial_sim::spec::{FlowProtocol, RunSpec};
use radial_sim::Scenario;

use crate::league::{param, reliable_goodput, Case};
use crate::sweep::RunResult;

/// One path of a multipath flow, as the bound sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct PathModel {
    /// Its narrowest link's rate, in bit/s.
    pub(crate) rate: f64,
    /// Its one-way propagation delay, in seconds.
    pub(crate) one_way: f64,
}

/// Who places a segment in the stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Naming {
    /// The receiver, when it requests the segment.
    Receiver,
    /// The sender, when it sends the segment.
    Sender,
}

/// The most a connection over `paths` with a receive buffer of
/// `buffer_bits` can deliver, in bit/s, when segments are named by
/// `naming`.
pub(crate) fn bound(paths: &[PathModel], buffer_bits: f64, naming: Naming) -> f64 {
    let n = paths.len().min(16);
    (1u32..(1 << n))
        .map(|set| {
            let used: Vec<&PathModel> = (0..n)
                .filter(|i| set & (1 << i) != 0)
                .map(|i| &paths[i])
                .collect();
            let rate: f64 = used.iter().map(|p| p.rate).sum();
            let slowest = used.iter().map(|p| p.one_way).fold(0.0, f64::max);
            let quickest = used.iter().map(|p| p.one_way).fold(f64::MAX, f64::min);
            let naming_delay = match naming {
                Naming::Receiver => 2.0 * slowest,
                Naming::Sender => slowest + quickest,
            };
            if naming_delay <= 0.0 {
                rate
            } else {
                rate.min(buffer_bits / naming_delay)
            }
        })
        .fold(0.0, f64::max)
}

/// The most a receiver whose flow control is by reservation can deliver
/// over `paths` with `buffer_bits`, in bit/s: each request holds its
/// segment's room for a round trip at least, so the paths are filled
/// quickest first while the buffer lasts.
pub(crate) fn reserved(paths: &[PathModel], buffer_bits: f64) -> f64 {
    let mut by_round_trip: Vec<&PathModel> = paths.iter().collect();
    by_round_trip.sort_by(|a, b| a.one_way.total_cmp(&b.one_way));
    let (mut left, mut total) = (buffer_bits, 0.0);
    for p in by_round_trip {
        let round_trip = 2.0 * p.one_way;
        let rate = if round_trip <= 0.0 {
            p.rate
        } else {
            p.rate.min(left / round_trip)
        };
        total += rate;
        left -= rate * round_trip;
    }
    total
}

/// The Ideal's counterpart: each path alone with a buffer of its own.
pub(crate) fn alone(paths: &[PathModel], buffer_bits: f64) -> f64 {
    paths
        .iter()
        .map(|p| bound(std::slice::from_ref(p), buffer_bits, Naming::Receiver))
        .sum()
}

/// The paths and receive buffer (in bits) of the first multipath flow of
/// `spec` that has a receive buffer (R²CP or `apps`): each pipe's route
/// from its server to its interface.
pub(crate) fn multipath_flow(spec: &RunSpec) -> Option<(Vec<PathModel>, f64)> {
    let flow = spec.flows.iter().find(|f| {
        !f.pipes.is_empty() && matches!(f.protocol, FlowProtocol::R2cp(_) | FlowProtocol::Apps(_))
    })?;
    let buffer_bits = match &flow.protocol {
        FlowProtocol::R2cp(c) => (c.pipe.window * c.pipe.mss * 8) as f64,
        FlowProtocol::Apps(c) => (c.window * c.mss * 8) as f64,
        _ => return None,
    };
    // Each link twice, as the simulator routes: a to b, then b to a.
    let ends: Vec<(u32, u32)> = spec
        .links
        .iter()
        .flat_map(|l| [(l.a, l.b), (l.b, l.a)])
        .collect();
    let routing = Routing::compute(spec.nodes.len(), &ends);
    let paths = flow
        .pipes
        .iter()
        .map(|p| path(spec, &routing, p.server, p.via))
        .collect::<Option<Vec<_>>>()?;
    Some((paths, buffer_bits))
}

/// The route from `from` to `to`: its narrowest rate (in the direction of
/// travel) and its summed delay.
fn path(spec: &RunSpec, routing: &Routing, from: u32, to: u32) -> Option<PathModel> {
    let (mut at, mut rate, mut delay) = (from, f64::MAX, Duration::ZERO);
    for _ in 0..spec.nodes.len() {
        if at == to {
            return Some(PathModel {
                rate,
                one_way: delay.as_secs_f64(),
            });
        }
        let directed = routing.next_hop(at, to)? as usize;
        let link = spec.links.get(directed / 2)?;
        let (r, next) = if directed.is_multiple_of(2) {
            (link.rate_forward, link.b)
        } else {
            (link.rate_reverse, link.a)
        };
        rate = rate.min(r.bps() as f64);
        delay += link.delay;
        at = next;
    }
    None
}

/// One buffer of one aggregation case: what the models allow and what
/// the runs measured, means over the grid and the seeds, in Mbit/s.
pub(crate) struct BufferRow {
    /// The league's column label.
    pub(crate) label: String,
    /// Every path alone with the whole buffer: the Ideal's model.
    pub(crate) alone: f64,
    /// The bound when the receiver names segments.
    pub(crate) receiver: f64,
    /// The bound when the sender names segments.
    pub(crate) sender: f64,
    /// The bound of a receiver whose flow control is by reservation.
    pub(crate) reserved: f64,
    /// Measured goodput per protocol (`ideal` included).
    pub(crate) measured: BTreeMap<String, f64>,
}

/// The rows of one aggregation case, largest buffer first, computed from
/// each run's own topology (the multipath flow of its `r2cp` run).
pub(crate) fn rows(case: &Case, sc: &Scenario, results: &[RunResult]) -> Vec<BufferRow> {
    #[derive(Default)]
    struct Sums {
        models: [f64; 4],
        n_models: usize,
        measured: BTreeMap<String, (f64, usize)>,
    }
    let mut by_window: BTreeMap<u64, Sums> = BTreeMap::new();
    for r in results {
        let window: u64 = param(r, "window").parse().unwrap_or(0);
        let sums = by_window.entry(window).or_default();
        let protocol = param(r, "protocol");
        let m = sums.measured.entry(protocol.clone()).or_default();
        m.0 += reliable_goodput(r);
        m.1 += 1;
        if protocol != "r2cp" {
            continue;
        }
        let Some((paths, b)) = sc
            .build(&r.point, r.seed)
            .ok()
            .as_ref()
            .and_then(multipath_flow)
        else {
            continue;
        };
        let models = [
            alone(&paths, b),
            bound(&paths, b, Naming::Receiver),
            bound(&paths, b, Naming::Sender),
            reserved(&paths, b),
        ];
        for (sum, v) in sums.models.iter_mut().zip(models) {
            *sum += v / 1e6;
        }
        sums.n_models += 1;
    }
    by_window
        .into_iter()
        .rev()
        .filter(|(_, s)| s.n_models > 0)
        .map(|(window, s)| {
            let [alone, receiver, sender, reserved] = s.models.map(|v| v / s.n_models as f64);
            BufferRow {
                label: format!("{}, {} seg.", case.label, window),
                alone,
                receiver,
                sender,
                reserved,
                measured: s
                    .measured
                    .into_iter()
                    .map(|(p, (sum, n))| (p, sum / n.max(1) as f64))
                    .collect(),
            }
        })
        .collect()
}

/// The sender-side peers R²CP is measured against, with the best of them
/// in `row`: its name and goodput.
pub(crate) fn best_peer<'a>(row: &'a BufferRow, peers: &[&'a str]) -> Option<(&'a str, f64)> {
    peers
        .iter()
        .filter_map(|p| row.measured.get(*p).map(|&v| (*p, v)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
}

/// The table of `rows`: models beside measurements.
pub(crate) fn table(md: &mut String, rows: &[BufferRow], peers: &[&str]) {
    md.push_str(
        "| case, buffer | each path alone (model) | receiver names (bound) | \
         sender names (bound) | receiver reserves (bound) | Ideal (measured) | `r2cp` | \
         best sender-side peer |\n\
         |---|---|---|---|---|---|---|---|\n",
    );
    for row in rows {
        let get = |p: &str| row.measured.get(p).copied().unwrap_or(f64::NAN);
        let peer = best_peer(row, peers)
            .map(|(p, v)| format!("{v:.1} (`{p}`)"))
            .unwrap_or_else(|| "—".into());
        let _ = writeln!(
            md,
            "| {} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {peer} |",
            row.label,
            row.alone,
            row.receiver,
            row.sender,
            row.reserved,
            get("ideal"),
            get("r2cp"),
        );
    }
    md.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mbps(rate: f64, one_way_ms: f64) -> PathModel {
        PathModel {
            rate: rate * 1e6,
            one_way: one_way_ms / 1e3,
        }
    }

    #[test]
    fn a_short_buffer_leaves_a_receiver_the_quick_path_alone() {
        // Two 20 Mbit/s paths, one-way 10 and 60 ms, 300 segments of
        // 1000 bytes: the slow path's round trip times the sum of the rates
        // is four times the buffer.
        let paths = [mbps(20.0, 10.0), mbps(20.0, 60.0)];
        let b = 300.0 * 8000.0;
        assert!((bound(&paths, b, Naming::Receiver) - 20e6).abs() < 1.0);
        // The sender names the slow path's segment 70 ms before it lands.
        let s = bound(&paths, b, Naming::Sender);
        assert!((s - b / 0.070).abs() < 1.0, "{s}");
        assert!((alone(&paths, b) - 40e6).abs() < 1.0);
    }

    #[test]
    fn a_reserving_receiver_fills_the_buffer_quickest_path_first() {
        // 300 segments: the quick path holds 20 Mbit/s × 20 ms, the slow
        // one the rest over its 120 ms round trip.
        let paths = [mbps(20.0, 60.0), mbps(20.0, 10.0)];
        let b = 300.0 * 8000.0;
        let want = 20e6 + (b - 20e6 * 0.020) / 0.120;
        assert!(
            (reserved(&paths, b) - want).abs() < 1.0,
            "{}",
            reserved(&paths, b)
        );
        assert!(reserved(&paths, b) > bound(&paths, b, Naming::Receiver));
        // A buffer of the summed rates times the round trips: every path full.
        let full = 20e6 * 0.020 + 20e6 * 0.120;
        assert!((reserved(&paths, full) - 40e6).abs() < 1.0);
        assert!((reserved(&paths, 10.0 * full) - 40e6).abs() < 1.0);
        // A buffer short of the quick path's product: that path's share.
        assert!((reserved(&paths, 100_000.0) - 100_000.0 / 0.020).abs() < 1.0);
    }

    #[test]
    fn a_buffer_of_the_summed_rate_times_the_round_trip_reaches_both() {
        let paths = [mbps(20.0, 10.0), mbps(20.0, 60.0)];
        let b = 40e6 * 0.120;
        for naming in [Naming::Receiver, Naming::Sender] {
            assert!((bound(&paths, b, naming) - 40e6).abs() < 1.0);
        }
    }

    #[test]
    fn equal_delays_name_alike() {
        let paths = [mbps(4.0, 15.0), mbps(4.0, 15.0)];
        let b = 19.0 * 8000.0;
        let r = bound(&paths, b, Naming::Receiver);
        assert_eq!(r, bound(&paths, b, Naming::Sender));
        assert!((r - b / 0.030).abs() < 1.0);
    }

    #[test]
    fn the_bound_never_falls_as_the_buffer_grows() {
        let paths = [mbps(10.0, 30.0), mbps(2.0, 100.0), mbps(5.0, 300.0)];
        let mut last = [0.0; 2];
        for k in 1..200 {
            let b = k as f64 * 50_000.0;
            for (i, naming) in [Naming::Receiver, Naming::Sender].into_iter().enumerate() {
                let v = bound(&paths, b, naming);
                assert!(v >= last[i] && v <= 17e6 + 1.0);
                last[i] = v;
            }
            assert!(last[0] <= last[1] + 1e-6, "a sender never names later");
        }
    }
}

#[cfg(test)]
mod topology {
    use super::*;
    use crate::league::AGGREGATION;

    #[test]
    fn the_two_path_league_case_reads_as_two_20_mbit_paths() {
        let case = &AGGREGATION[0];
        let sc = Scenario::parse(case.path, case.scenario).unwrap();
        let point = sc
            .points()
            .into_iter()
            .find(|p| p.text("protocol").as_deref() == Some("r2cp"))
            .unwrap();
        let spec = sc.build(&point, 1).unwrap();
        let (paths, b) = multipath_flow(&spec).expect("an R²CP flow");
        assert_eq!(paths.len(), 2);
        assert!((paths[0].rate - 20e6).abs() < 1.0 && (paths[1].rate - 20e6).abs() < 1.0);
        assert!((paths[0].one_way - 0.010).abs() < 1e-9, "{paths:?}");
        assert!((paths[1].one_way - 0.060).abs() < 1e-9, "{paths:?}");
        assert!(b > 0.0);
    }
}
