//! What a run reports: `summary.json` (a pure function of scenario and seed)
//! and the time series.

use serde::Serialize;

use crate::link::LinkStats;

/// Each protocol's colour in every figure Radial draws (the CLI's and the
/// Python package's), as RGB.
pub const PROTOCOL_COLOURS: [(&str, [u8; 3]); 16] = [
    ("r2cp", [0, 90, 181]),
    ("r2cp-s", [90, 150, 220]),
    ("r2cp-coupled", [0, 50, 110]),
    ("ptcp", [150, 60, 170]),
    ("ptcp-paper", [200, 130, 215]),
    ("rcp", [220, 50, 32]),
    ("rcp-eln", [240, 130, 110]),
    ("tcp-sack", [0, 150, 80]),
    ("tcp-eln", [120, 190, 60]),
    ("tcp-reno", [120, 120, 120]),
    ("tcp-newreno", [0, 110, 60]),
    ("mptcp-lia", [230, 140, 0]),
    ("mptcp-olia", [200, 170, 0]),
    ("prism", [140, 90, 40]),
    ("apps", [0, 170, 190]),
    ("ideal", [60, 60, 60]),
];

/// The colour of `protocol` in figures, if it has one of its own.
pub fn protocol_colour(protocol: &str) -> Option<[u8; 3]> {
    PROTOCOL_COLOURS
        .iter()
        .find(|(p, _)| *p == protocol)
        .map(|(_, c)| *c)
}

/// One flow's results.
#[derive(Clone, Debug, Serialize)]
pub struct FlowReport {
    /// Flow name.
    pub name: String,
    /// Protocol name.
    pub protocol: String,
    /// Source node.
    pub from: String,
    /// Sink node.
    pub to: String,
    /// Start time in seconds.
    pub start_s: f64,
    /// Bytes delivered in order to the receiving application / duration.
    pub goodput_mbps: f64,
    /// Bytes delivered in order to the receiving application.
    pub bytes_delivered: u64,
    /// Delivered bytes that did not match what was sent (must be 0).
    pub corrupt_bytes: u64,
    /// Data segments sent again.
    pub retransmits: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// Fast-recovery episodes.
    pub fast_recoveries: u64,
    /// Datagrams the transport sent (data and control, both ends).
    pub datagrams_sent: u64,
    /// For finite transfers: seconds from start to the last byte delivered.
    pub completion_time_s: Option<f64>,
    /// The longest time between two in-order deliveries to the application
    /// (handoff disruption, R²CP §4.4.1).
    pub max_delivery_gap_s: f64,
    /// When that gap began.
    pub max_delivery_gap_at_s: f64,
    /// Share of data arrivals that found the receive buffer at least 75 %
    /// full, for receivers that count it (R²CP Figure 9(c)).
    pub buffer_75_share: Option<f64>,
    /// Payload bytes that reached the receiver twice (receivers that count
    /// it: R²CP).
    pub duplicate_bytes: u64,
    /// For flows with handoffs (R²CP pipes opening after the first, closing
    /// or dropped): the longest delivery gap overlapping the 5 s after a
    /// handoff (R²CP §4.4.1).
    pub handoff_disruption_s: Option<f64>,
    /// The median delivery gap in the 5 s before the first handoff.
    pub pre_handoff_median_gap_s: Option<f64>,
    /// For R²CP: how long each pipe's handshake took (first SYN to
    /// SYN+ACK), in the order of their paths; a pipe still opening is left
    /// out.
    pub pipe_handshakes_s: Vec<f64>,
    /// Bytes the flow's endpoints put on the wire (both directions, with
    /// headers and lower-layer overhead) beyond the payload delivered:
    /// headers, acknowledgments or requests, probes and retransmissions
    /// (the survey's overhead, §6.1.1).
    pub overhead_bytes: u64,
    /// For each handoff of an access link of the receiving host: seconds
    /// from the link's return to the next in-order delivery (how long the
    /// transport left the new link unused; TCP-HO §II's "silly waiting"),
    /// in handoff order; a handoff after which nothing was delivered is
    /// left out.
    pub handoff_resume_s: Vec<f64>,
    /// The sender's congestion window averaged over the samples taken
    /// while the flow ran (bytes; PRISM Figure 15(c)), if it has one and
    /// the run samples.
    pub mean_cwnd_bytes: Option<f64>,
    /// A PRISM flow's re-sequencing buffer at its proxy (bytes from the
    /// receiver's cumulative point to the highest byte it holds) averaged
    /// over the samples taken while the flow ran (Figure 14).
    pub mean_resequencing_bytes: Option<f64>,
}

/// One link direction's counters.
#[derive(Clone, Debug, Serialize)]
pub struct LinkReport {
    /// Link name.
    pub name: String,
    /// `A->B`.
    pub direction: String,
    /// Share of the run the transmitter spent on packets that crossed the link.
    pub utilization: f64,
    /// Counters.
    #[serde(flatten)]
    pub stats: LinkStats,
}

/// A node's radio energy (nodes with an `energy` model only).
///
/// The radio transmits while a link leaving the node carries one of its
/// packets and receives while a link entering it delivers one (lost frames
/// included: they were received, then failed); the rest of the run it is idle,
/// or asleep. Point-to-point links are full duplex, so transmit and receive
/// time may overlap; idle time is what remains, never negative.
#[derive(Clone, Debug, Serialize)]
pub struct NodeReport {
    /// Node name.
    pub name: String,
    /// Energy drawn over the run, in joules.
    pub energy_j: f64,
    /// Seconds transmitting.
    pub tx_s: f64,
    /// Seconds receiving.
    pub rx_s: f64,
    /// Seconds awake and idle.
    pub idle_s: f64,
    /// Seconds asleep.
    pub sleep_s: f64,
    /// Joules per megabyte delivered in order to the applications at this
    /// node (null when nothing was delivered).
    pub energy_per_mb_j: Option<f64>,
}

/// One handoff of an access link.
#[derive(Clone, Debug, Serialize)]
pub struct HandoffReport {
    /// When the old link went down, in seconds.
    pub at_s: f64,
    /// The link.
    pub link: String,
    /// How long the host had no link, in seconds.
    pub outage_s: f64,
    /// TCP-HO's kind (L-HH, H-HH, U-VH, D-VH).
    pub kind: String,
    /// The new link's rate in Mbit/s.
    pub rate_mbps: f64,
}

/// Across flows.
#[derive(Clone, Debug, Serialize)]
pub struct Aggregate {
    /// Sum of flow goodputs.
    pub total_goodput_mbps: f64,
    /// Mean flow goodput.
    pub mean_goodput_mbps: f64,
    /// Coefficient of variation of flow goodput (population standard
    /// deviation over mean).
    pub cov_goodput: f64,
    /// Jain's fairness index of flow goodput.
    pub jain_index: f64,
}

/// `summary.json`.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// Scenario name.
    pub scenario: String,
    /// Seed.
    pub seed: u64,
    /// Simulated seconds.
    pub duration_s: f64,
    /// Events processed.
    pub events: u64,
    /// Per-flow results (reliable flows first, in scenario order).
    pub flows: Vec<FlowReport>,
    /// The access-link handoffs of the run (`[[handoff]]` entries and those
    /// `[mobility]` drew), in time order.
    pub handoffs: Vec<HandoffReport>,
    /// Over the reliable (non-UDP) flows.
    pub aggregate: Aggregate,
    /// Per-link-direction counters.
    pub links: Vec<LinkReport>,
    /// Radio energy of the nodes that model it.
    pub nodes: Vec<NodeReport>,
}

impl Aggregate {
    /// Statistics of a set of goodputs.
    pub fn of(goodputs: &[f64]) -> Self {
        let n = goodputs.len() as f64;
        if goodputs.is_empty() {
            return Aggregate {
                total_goodput_mbps: 0.0,
                mean_goodput_mbps: 0.0,
                cov_goodput: 0.0,
                jain_index: 0.0,
            };
        }
        let total: f64 = goodputs.iter().sum();
        let mean = total / n;
        let var = goodputs.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / n;
        let sq: f64 = goodputs.iter().map(|g| g * g).sum();
        Aggregate {
            total_goodput_mbps: total,
            mean_goodput_mbps: mean,
            cov_goodput: if mean > 0.0 { var.sqrt() / mean } else { 0.0 },
            jain_index: if sq > 0.0 {
                total * total / (n * sq)
            } else {
                0.0
            },
        }
    }
}

/// A time series sample: bytes delivered in order to one flow's application
/// by time `t`.
#[derive(Clone, Copy, Debug)]
pub struct SeriesPoint {
    /// Seconds.
    pub t: f64,
    /// Flow index.
    pub flow: u32,
    /// Bytes delivered in order so far (the highest in-order sequence number).
    pub delivered: u64,
}

/// One sample of one path of a multi-path flow.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PipePoint {
    /// Seconds.
    pub t: f64,
    /// Flow index.
    pub flow: u32,
    /// The path (pipe) of the flow.
    pub path: u16,
    /// New bytes the pipe brought into the receive buffer so far.
    pub delivered: u64,
}

/// Writes the per-pipe series as CSV:
/// `time_s,flow,pipe,delivered_bytes,throughput_mbps`.
pub fn pipes_csv(points: &[PipePoint], flow_names: &[String]) -> String {
    let mut out = String::from("time_s,flow,pipe,delivered_bytes,throughput_mbps\n");
    let mut last: std::collections::BTreeMap<(u32, u16), (f64, u64)> = Default::default();
    for p in points {
        let (t0, b0) = last.get(&(p.flow, p.path)).copied().unwrap_or((0.0, 0));
        let dt = p.t - t0;
        let thr = if dt > 0.0 {
            p.delivered.saturating_sub(b0) as f64 * 8.0 / dt / 1e6
        } else {
            0.0
        };
        last.insert((p.flow, p.path), (p.t, p.delivered));
        out.push_str(&format!(
            "{:.3},{},{},{},{:.6}\n",
            p.t, flow_names[p.flow as usize], p.path, p.delivered, thr
        ));
    }
    out
}

/// Writes the series as CSV: `time_s,flow,delivered_bytes,throughput_mbps`,
/// throughput being the rate over the preceding bin.
pub fn series_csv(points: &[SeriesPoint], flow_names: &[String]) -> String {
    let mut out = String::from("time_s,flow,delivered_bytes,throughput_mbps\n");
    let mut last: Vec<(f64, u64)> = vec![(0.0, 0); flow_names.len()];
    for p in points {
        let (t0, b0) = last[p.flow as usize];
        let dt = p.t - t0;
        let thr = if dt > 0.0 {
            (p.delivered - b0) as f64 * 8.0 / dt / 1e6
        } else {
            0.0
        };
        last[p.flow as usize] = (p.t, p.delivered);
        out.push_str(&format!(
            "{:.3},{},{},{:.6}\n",
            p.t, flow_names[p.flow as usize], p.delivered, thr
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aggregate_of_equal_flows_is_fair() {
        let a = Aggregate::of(&[2.0, 2.0, 2.0]);
        assert_eq!(a.cov_goodput, 0.0);
        assert!((a.jain_index - 1.0).abs() < 1e-12);
        let b = Aggregate::of(&[1.0, 3.0]);
        assert!((b.cov_goodput - 0.5).abs() < 1e-12);
        assert!((b.jain_index - 0.8).abs() < 1e-12);
    }
}
