//! The summary of a finished run.

use super::*;
use crate::spec::EnergyModel;

impl Simulator {
    pub(super) fn delivered(&self, flow: usize) -> u64 {
        let f = &self.flows[flow];
        if let Some(r) = &f.reseq {
            return r.sink.delivered;
        }
        match &self.agents[f.receiver as usize].sink {
            Some(s) => s.delivered,
            None => f.udp_bytes,
        }
    }

    /// The longest delivery gap and the handoff disruption of a flow,
    /// counting the stall that lasts to the end of the run when a flow that
    /// always had data to deliver (bulk or a file not finished) is stalled
    /// then: from its last in-order delivery, or from its start if nothing
    /// was delivered.
    pub(super) fn gaps_to_end(
        &self,
        fs: &FlowSpec,
        f: &FlowState,
    ) -> ((Duration, Instant), Option<Duration>) {
        let (mut max_gap, mut handoff_gap) = (f.max_gap, f.handoff_gap);
        let stalls = matches!(fs.traffic, Traffic::Bulk | Traffic::File(_))
            && !matches!(fs.protocol, FlowProtocol::Udp)
            && f.completed_at.is_none();
        let start = Instant::ZERO + fs.start;
        if !stalls || start >= self.end {
            return (max_gap, handoff_gap);
        }
        let last = f.last_delivery.unwrap_or(start);
        let gap = self.end - last;
        if gap > max_gap.0 {
            max_gap = (gap, last);
        }
        if f.handoffs
            .iter()
            .any(|&h| last <= h + HANDOFF_WATCH && self.end >= h)
        {
            handoff_gap = Some(handoff_gap.map_or(gap, |g| g.max(gap)));
        }
        (max_gap, handoff_gap)
    }

    pub(super) fn report(self) -> RunOutput {
        let duration = self.spec.duration.as_secs_f64();
        let mut flows = Vec::new();
        let mut reliable = Vec::new();
        for (i, (fs, f)) in self.spec.flows.iter().zip(&self.flows).enumerate() {
            let report = self.flow_report(i, fs, f);
            if !matches!(fs.protocol, FlowProtocol::Udp) {
                reliable.push(report.goodput_mbps);
            }
            flows.push(report);
        }
        let links = self.link_reports(duration);
        let nodes = self
            .spec
            .energy
            .iter()
            .map(|&(node, model)| self.node_report(node, model, duration))
            .collect();
        RunOutput {
            captures: Vec::new(),
            summary: Summary {
                scenario: self.spec.name.clone(),
                seed: self.spec.seed,
                duration_s: duration,
                events: self.net.events.processed(),
                flows,
                handoffs: self
                    .spec
                    .link_handoffs
                    .iter()
                    .map(|h| HandoffReport {
                        at_s: h.at.as_secs_f64(),
                        link: self.spec.links[h.link as usize].name.clone(),
                        outage_s: h.outage.as_secs_f64(),
                        kind: h.kind.name().to_string(),
                        rate_mbps: h.rate.mbps_f64(),
                    })
                    .collect(),
                aggregate: Aggregate::of(&reliable),
                links,
                nodes,
            },
            series: self.series,
            pipe_series: self.pipe_series,
        }
    }

    /// What flow `i` (`fs` as specified, `f` as run) delivered and how.
    fn flow_report(&self, i: usize, fs: &FlowSpec, f: &FlowState) -> FlowReport {
        let duration = self.spec.duration.as_secs_f64();
        let delivered = self.delivered(i);
        let goodput = delivered as f64 * 8.0 / duration / 1e6;
        let (mut retransmits, mut timeouts, mut fast, mut sent) = (0, 0, 0, f.udp_sent);
        let (mut arrivals, mut arrivals_75, mut duplicate, mut wire) = (0, 0, 0, 0);
        for &a in [f.sender, f.receiver].iter().chain(&f.more_agents) {
            wire += self.agents[a as usize].wire_bytes;
            if let Some(ep) = &self.agents[a as usize].endpoint {
                let st = ep.stats();
                // An R²CP sender answers nothing but pulls; the
                // receiver counts the segments it requested again.
                if !(matches!(fs.protocol, FlowProtocol::R2cp(_)) && a != f.receiver) {
                    retransmits += st.retransmits;
                }
                timeouts += st.timeouts;
                fast += st.fast_recoveries;
                sent += st.datagrams_sent;
                arrivals += st.data_arrivals;
                arrivals_75 += st.arrivals_buffer_75;
                duplicate += st.duplicate_bytes;
            }
        }
        let (max_gap, handoff_gap) = self.gaps_to_end(fs, f);
        let corrupt = match &f.reseq {
            Some(r) => r.sink.corrupt,
            None => self.agents[f.receiver as usize]
                .sink
                .as_ref()
                .map_or(0, |s| s.corrupt),
        };
        FlowReport {
            name: fs.name.clone(),
            protocol: fs.protocol.name().to_string(),
            from: self.spec.nodes[fs.from as usize].clone(),
            to: self.spec.nodes[fs.to as usize].clone(),
            start_s: fs.start.as_secs_f64(),
            goodput_mbps: goodput,
            bytes_delivered: delivered,
            corrupt_bytes: corrupt,
            retransmits,
            timeouts,
            fast_recoveries: fast,
            datagrams_sent: sent,
            completion_time_s: f
                .completed_at
                .map(|t| (t - (Instant::ZERO + fs.start)).as_secs_f64()),
            max_delivery_gap_s: max_gap.0.as_secs_f64(),
            max_delivery_gap_at_s: max_gap.1.as_secs_f64(),
            buffer_75_share: (arrivals > 0).then(|| arrivals_75 as f64 / arrivals as f64),
            duplicate_bytes: duplicate,
            handoff_disruption_s: handoff_gap.map(|g| g.as_secs_f64()),
            pre_handoff_median_gap_s: median(&f.pre_handoff_gaps).map(|g| g.as_secs_f64()),
            pipe_handshakes_s: self.agents[f.receiver as usize].endpoint.as_ref().map_or(
                Vec::new(),
                |ep| {
                    ep.path_stats()
                        .iter()
                        .filter_map(|p| p.handshake)
                        .map(Duration::as_secs_f64)
                        .collect()
                },
            ),
            overhead_bytes: wire.saturating_sub(delivered),
            handoff_resume_s: f
                .link_returns
                .iter()
                .filter_map(|&(up, first)| first.map(|t| (t - up).as_secs_f64()))
                .collect(),
            mean_cwnd_bytes: (f.cwnd_samples.1 > 0)
                .then(|| f.cwnd_samples.0 as f64 / f.cwnd_samples.1 as f64),
            mean_resequencing_bytes: (f.span_samples.1 > 0)
                .then(|| f.span_samples.0 as f64 / f.span_samples.1 as f64),
        }
    }

    /// Each direction of each link: its utilisation over `duration` seconds
    /// and its counters.
    fn link_reports(&self, duration: f64) -> Vec<LinkReport> {
        self.net
            .links
            .iter()
            .map(|l| LinkReport {
                name: l.name.clone(),
                direction: format!(
                    "{}->{}",
                    self.spec.nodes[l.from as usize], self.spec.nodes[l.to as usize]
                ),
                utilization: l.busy().as_secs_f64() / duration,
                stats: l.stats,
            })
            .collect()
    }

    /// Node `node`'s energy by its model, from its time sending,
    /// receiving, idle and asleep over `duration` seconds.
    fn node_report(&self, node: u32, model: EnergyModel, duration: f64) -> NodeReport {
        let busy = |dir: fn(&Link) -> u32| -> f64 {
            self.net
                .links
                .iter()
                .filter(|l| dir(l) == node)
                .map(|l| l.busy().as_secs_f64())
                .sum()
        };
        let sl = &self.sleep[node as usize];
        let (mut sleep, mut beacons) = (sl.total, sl.beacons);
        if let Some(since) = sl.since {
            sleep += self.end - since;
            beacons += beacons_in(since, self.end);
        }
        let sleep = sleep.as_secs_f64();
        let beacon = (BEACON_LISTEN.as_secs_f64() * beacons as f64).min(sleep);
        let tx = busy(|l| l.from);
        let rx = (busy(|l| l.to) - sl.rx_asleep.as_secs_f64()).max(0.0);
        let idle = (duration - tx - rx - sleep).max(0.0);
        let energy = model.tx * tx
            + model.rx * (rx + beacon)
            + model.sleep * (sleep - beacon)
            + model.idle * idle;
        let delivered: u64 = self
            .spec
            .flows
            .iter()
            .enumerate()
            .filter(|(_, f)| f.to == node)
            .map(|(i, _)| self.delivered(i))
            .sum();
        NodeReport {
            name: self.spec.nodes[node as usize].clone(),
            energy_j: energy,
            tx_s: tx,
            rx_s: rx,
            idle_s: idle,
            sleep_s: sleep,
            energy_per_mb_j: (delivered > 0).then(|| energy / (delivered as f64 / 1e6)),
        }
    }
}

fn median(v: &[Duration]) -> Option<Duration> {
    let mut v = v.to_vec();
    v.sort();
    v.get(v.len() / 2).copied()
}
