//! The figures `radial repro` re-creates: each paper figure's scenario,
//! claim, checks and notes.

use super::*;

/// What a target has unless it says otherwise: linear x, no scaling, no
/// acceptance checks, mean goodput of the reliable flows, no extra tables.
pub(super) const BASE: Target = Target {
    name: "",
    group: "",
    title: "",
    scenario: "",
    path: "",
    claim: "",
    x_param: "",
    x_label: "",
    x_scale: 1.0,
    log_x: false,
    checks: |_| Vec::new(),
    notes: "",
    kind: Kind::Curves,
    measured: Measured::AllReliable,
    extra: |_| String::new(),
};

/// Every target, in the order `repro all` runs them.
pub const TARGETS: &[Target] = &[
    Target {
        name: "rcp-fig5c",
        group: "rcp",
        title: "RCP Figure 5(c): energy and goodput with power management",
        scenario: include_str!("../../../../scenarios/papers/rcp-fig5c.toml"),
        path: "scenarios/papers/rcp-fig5c.toml",
        claim: "§3.4.4: \"the longer the mobile host stays in the sleep mode, the more energy savings it can achieve using RCP\"; \"for various conditions of the channel state, the throughput achieved using RCP is in fact no less than that when using TCP\".",
        x_param: "bad_mean_s",
        x_label: "mean duration of the bad channel state (s)",
        notes: "The RCP host sleeps as soon as the channel turns bad, wakes at the first 100 ms beacon that finds it good (2 ms beacons charged at receive power), freezes its timers while asleep and, on waking, requests again what was outstanding without a window cut; the TCP host stays awake. Idle power is taken equal to receive power (1.4 W), as the paper gives no idle figure. Point-to-point links are full duplex, so transmit and receive airtime may overlap and are both charged. The wired part is the S1 validation path (docs/validation.md).",
        kind: Kind::Energy,
        ..BASE
    },
    Target {
        name: "rcp-fig4ab",
        group: "rcp",
        title: "RCP Figures 4(a) and 4(b): TCP-friendliness",
        scenario: include_str!("../../../../scenarios/papers/rcp-fig4ab.toml"),
        path: "scenarios/papers/rcp-fig4ab.toml",
        claim: "§3.4.1: \"the impact of introducing RCP flows on existing TCP flows in terms of the throughput re-distribution is minimal, as evident from the 'flat' curve\"; \"TCP flows do not suffer from unfairness in the presence of RCP flows. (Otherwise, CoV would have increased with increasing number of RCP flows.)\"",
        x_param: "n_rcp",
        x_label: "RCP flows among the 20",
        notes: "Throughput at time t is each flow's in-order bytes by t over the time since its start (the paper does not say whether its instants are cumulative). Means and CoVs are over the 20 flows of a run, then averaged over the seeds. Why the CoV rises at t = 10 s with RCP: the flow that starts first ramps up alone and overshoots in slow start once the others join. Under `tcp-sack` (ns-2 Sack1) that flow usually loses a retransmission and times out, which cancels its head start; under RCP it recovers its holes without a timeout (§3.3.5) and keeps it. In seeds 1–6 with 20 flows of one kind, the first-starting TCP flow timed out in five runs (0–6 timeouts) and was the best-served flow at 10 s in three; the first-starting RCP flow never timed out and was the best-served flow at 10 s in all six, with 1.3–2.1 MB against a median of 0.5–0.6 MB (`radial run scenarios/papers/rcp-fig4ab.toml --seed S --set n_rcp=20 --set n_tcp=0`, and `n_rcp=0 n_tcp=20`). The head start fades as AIMD converges, hence the agreement from 50 s on.",
        kind: Kind::Friendliness,
        ..BASE
    },
    Target {
        name: "rcp-fig5a",
        group: "rcp",
        title: "RCP Figure 5(a): goodput against wireless loss",
        scenario: include_str!("../../../../scenarios/papers/rcp-fig5a.toml"),
        path: "scenarios/papers/rcp-fig5a.toml",
        claim: "§3.4.2: \"the performance of TCP improves substantially for loss rates between 0.2% and 2% when ELN is used. However, when the loss rate increases beyond 2%, the performance gain decreases rapidly\"; \"RCP with ELN ... shows a much better performance even when the loss rate is high\"; \"even in the absence of ELN, RCP constantly achieves better performance than TCP, with the performance gain increasing as the packet error rate increases.\"",
        x_param: "loss",
        x_label: "packet loss rate on the wireless link, both directions (%)",
        x_scale: 100.0,
        log_x: true,
        checks: fig5a_checks,
        notes: "The wired path is the S1 validation path of docs/validation.md (the paper's Figure 3 parameters are not in our copy). Our `tcp-sack` is ns-2's Sack1 as validated in docs/validation.md; the paper's TCP-SACK had two extra refinements (a better pipe estimate and no timeout for a lost retransmission), so our TCP baseline is the weaker one. Our `tcp-eln` is NewReno with the ELN bit on duplicate ACKs; `rcp-eln` re-requests a hole the moment the host reports it lost (the paper leaves the timing open). The paper says TCP-ELN's gain \"decreases rapidly\" beyond 2 % loss; compare the tcp-eln column: in our runs it declines more slowly (see the tcp-eln column against tcp-sack); we have not established which difference from the paper's ELN implementation causes this.",
        ..BASE
    },
    Target {
        name: "rcp-fig5b",
        group: "rcp",
        title: "RCP Figure 5(b): long-delay link with a tuned controller",
        scenario: include_str!("../../../../scenarios/papers/rcp-fig5b.toml"),
        path: "scenarios/papers/rcp-fig5b.toml",
        claim: "§3.4.3: \"the NewReno style of congestion control used in TCP (and RCP) does not perform well in the satellite environment, while STP and RCP-STP achieve a much better performance\"; \"the performance difference between STP and RCP-STP reinforces the benefits of receiver-centric protocols over sender-centric ones.\"",
        x_param: "delay_ms",
        x_label: "one-way propagation delay of the 1.5 Mbit/s link (ms)",
        checks: fig5b_checks,
        measured: Measured::Flow("measured"),
        extra: fig5b_costs,
        notes: FIG5B_NOTES,
        ..BASE
    },
    Target {
        name: "r2cp-fig8a",
        group: "r2cp",
        title: "R²CP Figure 8(a): seamless handoff",
        scenario: include_str!("../../../../scenarios/papers/r2cp-fig8a.toml"),
        path: "scenarios/papers/r2cp-fig8a.toml",
        claim: "§4.4.1: \"during t = 58s and t = 60s two pipes co-exist in the connection to collaboratively deliver data for the application. Even if there is some setup or ramp-up (e.g. due to slow start) delay for the RCP-2 pipe, the existence of the RCP-1 pipe allows the aggregate connection to continue progressing without being disrupted.\"",
        x_param: "variant",
        x_label: "time (s)",
        kind: Kind::Sequence,
        measured: Measured::Flow("download"),
        notes: "Handoff disruption is the longest gap between two in-order deliveries to the application that overlaps the 5 s after a pipe change; the median gap is taken over the 5 s before the first change. Both pipes come from Server-I, whose 2 Mbit/s access is the bottleneck of both paths, and the old pipe keeps that 50-packet queue full (200 ms of data). Break-before-make: the new pipe's SYN+ACK waits in that queue behind the old pipe's data, which no one wants any more, so its handshake takes some 234 ms instead of 78. Its PROBE (SEG.DEQ) and first requests leave together right after the SYN+ACK, the sender serves each pull once its application has sought to SEG.DEQ and written it, and delivery resumes one new-path round trip later. Make-before-break: the new pipe's slow start overflows the queue the old pipe keeps full, and the lost segments hold up in-order delivery until they are re-requested through that queue (no timeout). That stall is one loss episode on this path: one pipe alone stalls delivery 291 ms at each of its congestion losses, every 7.7 s before and after the handoff (`radial run scenarios/papers/r2cp-fig8a.toml`). Where the paths do not share a queue (`crates/radial-sim/tests/r2cp.rs`), make-before-break keeps delivery within twice the usual gap (8.3 ms against 4.2 ms with the preset overlap, 4.2 ms when the old pipe is retired once the new one is ready), and break-before-make stalls it 73.5 ms, within one new-path round trip plus the 34 ms handshake.",
        ..BASE
    },
    Target {
        name: "r2cp-fig8b",
        group: "r2cp",
        title: "R²CP Figure 8(b): server migration",
        scenario: include_str!("../../../../scenarios/papers/r2cp-fig8b.toml"),
        path: "scenarios/papers/r2cp-fig8b.toml",
        claim: "§4.4.2: \"After the new RCP pipe is established, the mobile host requests data that has not been delivered by Server-I, instead of requesting from the first byte of the data. The difference between the slopes of RCP-2 and RCP-3 indicates that RCP-3 provides a larger bandwidth than RCP-2\"; \"server migration using R²CP does not cause redundant transmissions\".",
        x_param: "variant",
        x_label: "time (s)",
        kind: Kind::Sequence,
        measured: Measured::Flow("download"),
        notes: "The replica is an unchanged RCP sender: the new pipe's first request (a PROBE with SEG.DEQ) makes it skip what the host holds (`SendBuffer::ack_to` past its end, and the file-serving application seeks there), and the engine asks it only for segments neither held nor outstanding on the old pipe, which is retired gracefully (no new requests, closed when its outstanding data has arrived).",
        ..BASE
    },
    Target {
        name: "r2cp-fig8c",
        group: "r2cp",
        title: "R²CP Figure 8(c): aggregation from two servers",
        scenario: include_str!("../../../../scenarios/papers/r2cp-fig8c.toml"),
        path: "scenarios/papers/r2cp-fig8c.toml",
        claim: "§4.4.3: \"the mobile host keeps both pipes open during the period it is within the coverage of both WLANs. As shown in Figure 8(c), R²CP can achieve the aggregate bandwidth of the two pipes.\"",
        x_param: "variant",
        x_label: "time (s)",
        kind: Kind::Sequence,
        measured: Measured::Flow("download"),
        notes: "Pipe 1 is limited by Server-I's 2 Mbit/s access, pipe 2 by WLAN B's 5 Mbit/s; with 1000-byte payloads in 1040-byte packets the most the two can carry is 1.92 and 4.81 Mbit/s.",
        ..BASE
    },
    Target {
        name: "r2cp-policy",
        group: "r2cp",
        title: "Policy-based aggregation (pTCP Figure 11) with R²CP",
        scenario: include_str!("../../../../scenarios/papers/r2cp-policy.toml"),
        path: "scenarios/papers/r2cp-policy.toml",
        claim: "pTCP §6.2.2: \"the aggregated bandwidth enjoyed by the mobile host stays at the desired data rate when the policy-based bandwidth aggregation is used. The data rate achieved through the WWAN interface 'fills' the deficient data rate that the WLAN interface fails to provide.\"",
        x_param: "variant",
        x_label: "time (s)",
        kind: Kind::Sequence,
        measured: Measured::Flow("download"),
        extra: rates_extra,
        notes: "Figure 10's token algorithm in R²CP's engine: every 100 ms (the paper gives no period) the engine makes 10 Mbit/s × 100 ms of request tokens that only the WLAN pipe may spend; what it leaves is spendable by either pipe in the next period; a pipe without a token freezes until then. Tokens count payload bytes; the WLAN's 8.5–9.5 Mbit/s link rates carry 8.2–9.1 Mbit/s of payload in 1040-byte packets, so the WWAN has 0.9–1.8 Mbit/s to fill. The standard deviation of the 1 s rates is not lower with the policy: it is dominated by the dips and bursts of in-order delivery around each loss recovery on the WLAN, which both variants have (the throughput plot).",
        ..BASE
    },
    Target {
        name: "r2cp-blackout",
        group: "r2cp",
        title: "Redundant striping through WLAN blackouts",
        scenario: include_str!("../../../../scenarios/papers/r2cp-blackout.toml"),
        path: "scenarios/papers/r2cp-blackout.toml",
        claim: "pTCP §4.1 (3): \"the data carried by the first virtual packet of a TCP-v pipe that recently suffered from blackouts will be bound to another TCP-v pipe, such that the application can continue receiving data while the concerned TCP-v pipe probes for the duration of blackouts\"; R²CP §4.4.1: \"the redundant striping technique proposed in [15] can also be used\".",
        x_param: "variant",
        x_label: "time (s)",
        kind: Kind::Sequence,
        measured: Measured::Flow("download"),
        notes: "The WLAN is down for 2 s at 20 s and for 6 s at 40 s. A pipe counts as probing a blackout from its retransmission timeout until something arrives on it again; while the other pipe works it takes nothing from it: with redundant striping its requests ask for the head of line without binding it (the probes' copies that do arrive are the bytes fetched twice), without it they are PROBEs that carry no pull. Either way it probes once per un-backed-off RTO, so the WLAN pipe is back within about 0.3 s of its link's return. (Before probes stopped taking segments, the plain variant held the head of line through each backed-off timeout: a 6.17 s stall in the 6 s blackout.) Handoff disruption does not apply (no pipe opens or closes); the longest stalls are `max_delivery_gap_s` in each run's summary.",
        ..BASE
    },
    Target {
        name: "r2cp-fig9a",
        group: "r2cp",
        title: "R²CP Figure 9(a): aggregation with a bandwidth mismatch",
        scenario: include_str!("../../../../scenarios/papers/r2cp-fig9a.toml"),
        path: "scenarios/papers/r2cp-fig9a.toml",
        claim: "§4.4.3: \"both R²CP and R²CP-s achieve the ideal performance irrespective of the bandwidth mismatches. The application striping approach fails to achieve the desired performance.\"",
        x_param: "bw2",
        x_label: "bottleneck bandwidth of pipe 2 (Mbit/s); pipe 1 at 4 Mbit/s",
        checks: fig9a_checks,
        measured: Measured::SumReliable,
        extra: |r| fig9_extra(r, "bw2"),
        notes: FIG9_NOTES,
        ..BASE
    },
    Target {
        name: "r2cp-fig9b",
        group: "r2cp",
        title: "R²CP Figures 9(b) and 9(c): aggregation with an RTT mismatch",
        scenario: include_str!("../../../../scenarios/papers/r2cp-fig9b.toml"),
        path: "scenarios/papers/r2cp-fig9b.toml",
        claim: "§4.4.3: \"while the performance of R²CP still closely tracks the ideal performance, R²CP-s fails to scale when the RTT mismatch increases beyond 3\"; Figure 9(c): \"R²CP-s manages to maintain a small queue size when the RTT mismatches are small, the queue builds up noticeably as the RTT mismatches increase.\"",
        x_param: "half_rtt2_ms",
        x_label: "round-trip propagation time of pipe 2 (ms); pipe 1 at 30 ms",
        x_scale: 2.0,
        checks: fig9b_checks,
        measured: Measured::SumReliable,
        extra: |r| fig9_extra(r, "half_rtt2_ms"),
        notes: FIG9_NOTES,
        ..BASE
    },
    Target {
        name: "r2cp-fig9b-buffer",
        group: "r2cp",
        title: "R²CP Figure 9(b) at a 7× RTT mismatch against the receive buffer",
        scenario: include_str!("../../../../scenarios/papers/r2cp-fig9b-buffer.toml"),
        path: "scenarios/papers/r2cp-fig9b-buffer.toml",
        claim: "§4.4.3: R²CP-s's fall is \"due to the scheduling used that does not take into consideration the round-trip times of different pipes ... Due to the limited space in the R²CP receive buffer, head-of-line blocking eventually triggers the flow control of R²CP and causes the progression of the aggregate connection to stall.\"",
        x_param: "window",
        x_label: "receive buffer (1000-byte segments); pipe 2's round trip 210 ms, pipe 1's 30 ms",
        measured: Measured::SumReliable,
        extra: |r| fig9_extra(r, "window"),
        notes: "The paper's buffer size is not in our copy; this sweep shows where the buffer starts to limit each scheme at the hardest point of Figure 9(b). Each Ideal connection has a buffer of the same size of its own. The paper's contrast shows where the buffer is short: at 32 and 64 KB `r2cp-s` gives the slow pipe the lowest segment every time it asks, the head of line then waits a 210 ms round trip with the buffer full behind it, and the connection runs at little more than the buffer per slow round trip (1.4 and 2.8 Mbit/s); ranked `r2cp` freezes the slow pipe whenever its rank puts its segment past the buffer (§4.3.1) and keeps the quick pipe's rate (3.7 and 3.6 Mbit/s). From 128 to 192 KB both fall short of Ideal, `r2cp` slightly more: the quick pipe's Reno window fills its 50-packet drop-tail queue, those queued bytes hold buffer too (65 KB in flight where 15 KB would carry its rate), and what is left is not enough for the slow pipe's rank, so it stays frozen more. Per-pipe limits on bytes queued in the network would do better; that is not in the paper.",
        ..BASE
    },
    Target {
        name: "rcp-fig4c",
        group: "rcp",
        title: "RCP Figure 4(c): per-flow goodput against reverse-path load",
        scenario: include_str!("../../../../scenarios/papers/rcp-fig4c.toml"),
        path: "scenarios/papers/rcp-fig4c.toml",
        claim: "§3.4.1: \"with 100 on/off traffic sources, each of the TCP (or RCP) flows experiences a packet drop rate of approximately 40% in the bottleneck link\"; \"despite the heavy losses in the reverse path, the performance of RCP closely tracks that of TCP.\"",
        x_param: "onoff",
        x_label: "Pareto on/off flows on the reverse path",
        checks: fig4c_checks,
        notes: "The S2 validation dumbbell (docs/validation.md); the on/off sources sit behind R2 and send to a sink behind R1, so they share the bottleneck's reverse direction with the ACKs (TCP) or REQs (RCP). Pareto shape 1.5. The y value is the mean goodput of the 20 forward flows. Calibration against the paper's 40 %: `radial run scenarios/papers/rcp-fig4c.toml --set protocol=rcp --set onoff=100` (seed 1) drops 39.8 % of the packets offered to the bottleneck's reverse direction (R2->R1 `drops_queue` over offered), REQs and on/off datagrams together.",
        ..BASE
    },
];

pub(super) const FIG5B_NOTES: &str = "STP's algorithm is not given in the paper, so the long-delay controller is TCP Hybla (Caini & Firrincieli 2004) at the sender (`tcp-sat`, with ns-2 Sack1 recovery) and at the receiver (`rcp-sat`); docs/protocols.md. The paper's HTTP sources are modelled as Pareto on/off applications over TCP-SACK with the on/off parameters of Figure 4(c), as the paper gives none. \
Hybla opens the window by 2^ρ − 1 segments per arrival in slow start and ρ² segments per round trip in congestion avoidance (ρ = RTT / 25 ms, 4–21 here) against a 50-packet queue, without the pacing its authors pair it with; it therefore overshoots the link every few round trips and loses a large share of what it sends (the first cost table). \
`rcp-sat` comes out ahead because RCP repulls a lost retransmission without a timeout (§3.3.5). `tcp-sat` collapses: after a timeout Hybla's slow start refills the window to ssthresh within one round trip, the burst overflows the queue, the lost retransmissions can only be recovered by further timeouts with exponential back-off (ns-2 Sack1, Karn), and the flow spends most of the run waiting (the timeout table). So the paper's \"STP much better than TCP\" does not reproduce with Hybla at the sender; the gap between `tcp-sat` and `rcp-sat` is the receiver's loss recovery, exaggerated by Hybla's aggressiveness, rather than a controller difference. `rcp-sat`'s lead is also taken partly from the background: the backlogged reverse TCP flow gets less with `rcp-sat` than with `rcp` (last table), because its ACKs share the congested forward queue.";

pub(super) const FIG9_NOTES: &str = "Two pipes from two servers over disjoint paths, each with a 50-packet drop-tail queue at its bottleneck and one Pareto on/off source across it (§3.4's parameters). Ideal is the sum of what one RCP connection gets alone on each path, in the same run (our definition; the paper's is the sum of the two bandwidths). The receive buffer is 256 segments of 1000 bytes (256 KB) for the aggregate connection and for each Ideal connection; the paper's size is not in our copy. `apps` stripes the stream one segment at a time, round robin, over two independent RCP connections (as the application striping of [15]); the receiving application resequences it in a buffer of the same 256 KB and always reads the connection whose chunk it waits for. Each of its connections also has its own 256 KB receive buffer, so `apps` holds up to three times the buffer of `r2cp`.";
