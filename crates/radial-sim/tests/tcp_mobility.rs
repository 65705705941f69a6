//! The sender-centric mobility schemes end to end in the simulator: the
//! host's link signals reach the receivers, which notify their senders.
//! Timings are simulated, so the bounds are exact properties of the runs.

use radial_sim::metrics::FlowReport;
use radial_sim::{Scenario, Simulator};

/// A server behind a 10 Mbit/s, 20 ms wired path and a 2 Mbit/s wireless
/// hop whose 50-packet queue holds a whole 20-segment window (so a round
/// trip stays under 0.14 s, and a resumed window's burst is not lost); the
/// link goes down for `outage` at 10 s and at 20 s, warned 200 ms ahead,
/// and comes back at 2 Mbit/s.
fn run(protocol: &str, outage: &str) -> FlowReport {
    let text = format!(
        r#"[scenario]
name = "t"
duration = "30s"
sample_interval = "0s"

[tcp]
window = 20

[[node]]
name = "S"
[[node]]
name = "BS"
[[node]]
name = "M"

[[link]]
between = ["S", "BS"]
rate = "10Mbit/s"
delay = "20ms"
[[link]]
name = "w"
between = ["BS", "M"]
rate = "2Mbit/s"
delay = "5ms"
queue = 50

[[flow]]
name = "f"
protocol = "{protocol}"
from = "S"
to = "M"

[[handoff]]
at = "10s"
link = "w"
outage = "{outage}"
warning = "200ms"
[[handoff]]
at = "20s"
link = "w"
outage = "{outage}"
warning = "200ms"
"#
    );
    first_flow(&text, 1)
}

/// The report of the first flow of scenario `text` run with `seed`.
fn first_flow(text: &str, seed: u64) -> FlowReport {
    let sc = Scenario::parse("t.toml", text).unwrap();
    let spec = sc.build(&sc.points()[0], seed).unwrap();
    Simulator::new(spec).run().summary.flows.remove(0)
}

#[test]
fn newreno_waits_out_its_timer_after_each_outage() {
    let f = run("tcp-newreno", "4s");
    assert_eq!(f.handoff_resume_s.len(), 2);
    for r in &f.handoff_resume_s {
        assert!(*r > 1.0, "resumed {r} s after the return: {f:?}");
    }
    assert!(f.timeouts >= 2);
}

#[test]
fn tcp_ho_and_rcp_resume_within_a_round_trip_of_the_return() {
    // One round trip: 2 × (20 + 5) ms plus a packet at 2 and 10 Mbit/s,
    // plus the ACK's way; 100 ms bounds it.
    for protocol in [
        "tcp-ho",
        "tcp-ho-immediate",
        "tcp-ho-aggressive",
        "rcp",
        "r2cp",
    ] {
        let f = run(protocol, "4s");
        assert_eq!(f.handoff_resume_s.len(), 2, "{protocol}");
        for r in &f.handoff_resume_s {
            assert!(*r < 0.1, "{protocol} resumed {r} s after the return");
        }
        assert_eq!(f.corrupt_bytes, 0);
    }
}

#[test]
fn freeze_tcp_waits_without_a_timeout_and_resumes_at_once() {
    let f = run("freeze-tcp", "4s");
    let newreno = run("tcp-newreno", "4s");
    assert_eq!(f.timeouts, 0, "{f:?}");
    assert!(newreno.timeouts >= 2, "{newreno:?}");
    for r in &f.handoff_resume_s {
        assert!(*r < 0.1, "resumed {r} s after the return");
    }
    assert!(f.bytes_delivered > newreno.bytes_delivered);
}

/// A server behind a 100 Mbit/s, 20 ms wired path and a 2 Mbit/s hop with a
/// 50-packet drop-tail queue, a 256-segment window (so the congestion
/// window grows until it overflows the queue), and `loss` on the hop.
fn congested(protocol: &str, loss: f64, seed: u64) -> FlowReport {
    let text = format!(
        r#"[scenario]
name = "t"
duration = "60s"
sample_interval = "0s"

[tcp]
packet_size = 1000
window = 256

[[node]]
name = "S"
[[node]]
name = "R"
[[node]]
name = "M"

[[link]]
between = ["S", "R"]
rate = "100Mbit/s"
delay = "20ms"
[[link]]
between = ["R", "M"]
rate = "2Mbit/s"
delay = "5ms"
queue = 50
loss = {loss}

[[flow]]
name = "f"
protocol = "{protocol}"
from = "S"
to = "M"
"#
    );
    first_flow(&text, seed)
}

#[test]
fn tcp_probing_backs_off_when_its_own_window_overflows_the_queue() {
    // Within 10 % of NewReno, with losses from the queue alone and with
    // random losses on the hop as well.
    for (loss, share) in [(0.0, 0.9), (0.001, 0.9)] {
        for seed in 1..=3 {
            let reno = congested("tcp-newreno", loss, seed);
            let probing = congested("tcp-probing", loss, seed);
            assert!(
                probing.goodput_mbps >= share * reno.goodput_mbps,
                "loss {loss}, seed {seed}: {:.3} against NewReno's {:.3}",
                probing.goodput_mbps,
                reno.goodput_mbps
            );
            assert!(probing.max_delivery_gap_s < 1.0, "{probing:?}");
            // The survey's rule alone restores the window that overflowed
            // the queue after every cycle (and after a timeout resends it
            // whole), and lives in probe cycles: it loses at least 40 % of
            // NewReno's goodput.
            let paper = congested("tcp-probing-paper", loss, seed);
            assert!(
                paper.goodput_mbps < 0.6 * reno.goodput_mbps,
                "{:.3}",
                paper.goodput_mbps
            );
        }
    }
}
