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
    let sc = Scenario::parse("t.toml", &text).unwrap();
    let spec = sc.build(&sc.points()[0], 1).unwrap();
    Simulator::new(spec).run().summary.flows[0].clone()
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
