//! pTCP end to end in the simulator: soft and hard handoff, aggregation
//! against the paths alone, a controller per pipe. Simulated time makes
//! every bound exact.

use radial_sim::metrics::{FlowReport, Summary};
use radial_sim::{Scenario, Simulator};

/// A server S with two paths to the host's interfaces MH1 and MH2, through
/// access points that share nothing: `rate` kbit/s and `delay` ms one way
/// on each, 50-packet queues; `loss2` random loss on the second; a receive
/// buffer of `window` segments; then `flows`.
fn topology(rate: [u64; 2], delay: [u64; 2], loss2: f64, window: u64, flows: &str) -> String {
    let mut s = format!(
        "[scenario]\nname = \"t\"\nduration = \"60s\"\nsample_interval = \"0s\"\n\n[tcp]\nwindow = {window}\n\n\
         [[node]]\nname = \"S\"\n[[node]]\nname = \"AP1\"\n[[node]]\nname = \"AP2\"\n[[node]]\nname = \"MH1\"\n[[node]]\nname = \"MH2\"\n"
    );
    for k in 0..2 {
        let loss = if k == 1 { loss2 } else { 0.0 };
        s.push_str(&format!(
            "\n[[link]]\nbetween = [\"S\", \"AP{n}\"]\nrate = \"100Mbit/s\"\ndelay = \"{d}ms\"\n\n\
             [[link]]\nname = \"w{n}\"\nbetween = [\"AP{n}\", \"MH{n}\"]\nrate = \"{r}kbit/s\"\ndelay = \"1ms\"\nqueue = 50\nloss = {{ model = \"bernoulli\", rate = {loss}, direction = \"forward\" }}\n",
            n = k + 1,
            d = delay[k],
            r = rate[k],
        ));
    }
    s.push_str(flows);
    s
}

fn run(text: &str) -> Summary {
    let sc = Scenario::parse("t.toml", text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    Simulator::new(sc.build(&sc.points()[0], 1).unwrap())
        .run()
        .summary
}

fn flow<'a>(s: &'a Summary, name: &str) -> &'a FlowReport {
    s.flows.iter().find(|f| f.name == name).unwrap()
}

/// Two 2 Mbit/s paths of 10 ms; a buffer of 32 segments keeps both below
/// what fills their queues, so there is no congestion loss and what is
/// measured is the handoff alone. `pipes` is the flow's pipe list.
fn handoff(pipes: &str, down: Option<&str>) -> FlowReport {
    let mut flows = format!(
        "\n[[flow]]\nname = \"f\"\nprotocol = \"ptcp\"\nfrom = \"S\"\nto = \"MH1\"\nsize = \"5000000B\"\npipes = [ {pipes} ]\n"
    );
    if let Some(at) = down {
        flows.push_str(&format!(
            "\n[[schedule]]\nat = \"{at}\"\nlink = \"w1\"\naction = \"down\"\n"
        ));
    }
    let s = run(&topology([2000, 2000], [10, 10], 0.0, 32, &flows));
    let f = flow(&s, "f").clone();
    assert_eq!(f.corrupt_bytes, 0);
    assert_eq!(f.bytes_delivered, 5_000_000);
    f
}

#[test]
fn soft_handoff_keeps_delivery_within_twice_its_usual_gap() {
    // pTCP §6.3.1: the second pipe opens at 8 s, the first is retired at
    // 10 s and its link goes a second later: no timeout, nothing lost. The
    // old pipe's window holds most of the 32-segment buffer in its queue
    // when the new one opens; the new pipe is offered data first while it
    // has fewer bytes out, and the window the receiver advertises counts
    // what it holds out of order inside it, so delivery never pauses for
    // more than twice its usual gap (as R²CP's make-before-break on the
    // same paths). Before, the old pipe kept its queue, data bound to the
    // new one arrived ahead of it, and the window closed on what the
    // receiver held out of order: 26 ms of stall.
    let f = handoff(
        "{ via = \"MH1\", close = \"10s\" }, { via = \"MH2\", open = \"8s\" }",
        Some("11s"),
    );
    let (gap, usual) = (
        f.handoff_disruption_s.unwrap(),
        f.pre_handoff_median_gap_s.unwrap(),
    );
    // One 1040-byte packet at 2 Mbit/s takes 4.2 ms.
    assert!(usual > 0.003 && usual < 0.006, "median gap {usual}");
    assert_eq!(f.timeouts, 0);
    assert!(
        gap <= 2.0 * usual + 1e-6,
        "disruption {gap} s, usual {usual} s"
    );
}

#[test]
fn hard_handoff_costs_about_a_round_trip_and_the_handshake() {
    // The first link goes at 10 s with what is on it; the second pipe is
    // created only then. Its handshake takes one round trip; the sender
    // learns the first pipe is gone with the second's first request and
    // re-assigns what it carried; delivery resumes about a round trip
    // later.
    let f = handoff(
        "{ via = \"MH1\", drop = \"10s\" }, { via = \"MH2\", open = \"10s\" }",
        Some("10s"),
    );
    // Round trip: 2 × (10 + 1) ms, a packet at 2 Mbit/s and the fast hop.
    let rtt = 0.022 + 0.00416 + 0.0001;
    let gap = f.handoff_disruption_s.unwrap();
    let usual = f.pre_handoff_median_gap_s.unwrap();
    let handshake = f.pipe_handshakes_s[1];
    assert!(
        gap <= usual + handshake + rtt + 0.005,
        "disruption {gap} s: handshake {handshake} s, rtt {rtt} s"
    );
    assert!(gap > handshake, "{gap}");
}

#[test]
fn aggregation_reaches_the_sum_of_the_paths_alone() {
    // A 4 and a 2 Mbit/s path, 15 and 60 ms one way (R²CP Figure 9's
    // kind of mismatch), against TCP-SACK alone on each (Ideal).
    let flows = "\n[[flow]]\nname = \"agg\"\nprotocol = \"ptcp\"\nfrom = \"S\"\nto = \"MH1\"\npipes = [ { via = \"MH1\" }, { via = \"MH2\" } ]\n";
    let agg = flow(
        &run(&topology([4000, 2000], [15, 60], 0.0, 256, flows)),
        "agg",
    )
    .goodput_mbps;
    let mut ideal = 0.0;
    for mh in ["MH1", "MH2"] {
        let alone = format!(
            "\n[[flow]]\nname = \"a\"\nprotocol = \"tcp-sack\"\nfrom = \"S\"\nto = \"{mh}\"\n"
        );
        ideal += flow(
            &run(&topology([4000, 2000], [15, 60], 0.0, 256, &alone)),
            "a",
        )
        .goodput_mbps;
    }
    assert!(agg >= 0.95 * ideal, "{agg} Mbit/s against {ideal}");
}

#[test]
fn a_tcp_eln_pipe_keeps_its_window_through_random_loss() {
    // pTCP §6.3.2: the lossy second pipe runs TCP-ELN; the aggregate gains.
    let with = |controller: &str| {
        let flows = format!(
            "\n[[flow]]\nname = \"f\"\nprotocol = \"ptcp\"\nfrom = \"S\"\nto = \"MH1\"\npipes = [ {{ via = \"MH1\" }}, {{ via = \"MH2\", controller = \"{controller}\" }} ]\n"
        );
        flow(
            &run(&topology([5000, 5000], [10, 10], 0.02, 256, &flows)),
            "f",
        )
        .clone()
    };
    let (sack, eln) = (with("tcp-sack"), with("tcp-eln"));
    assert_eq!(eln.corrupt_bytes, 0);
    assert!(
        eln.goodput_mbps > 1.1 * sack.goodput_mbps,
        "{} against {}",
        eln.goodput_mbps,
        sack.goodput_mbps
    );
}
