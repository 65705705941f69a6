//! PRISM end to end in the simulator: a proxy striping one TCP connection
//! over two community members' WWAN links. Aggregation with ADAS and RPC,
//! RPC hiding striping's reordering from the sender, ADAS against round
//! robin, TCP-PRISM against TCP-SACK under loss, members leaving and
//! joining, and outages on a member's link, each with every byte delivered
//! once and intact. Simulated time makes every number exact.

use radial_sim::metrics::{FlowReport, Summary};
use radial_sim::{Scenario, Simulator};

fn run(text: &str, seed: u64) -> Summary {
    let sc = Scenario::parse("t.toml", text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    Simulator::new(sc.build(&sc.points()[0], seed).unwrap())
        .run()
        .summary
}

fn flow<'a>(s: &'a Summary, name: &str) -> &'a FlowReport {
    let f = s.flows.iter().find(|f| f.name == name).unwrap();
    assert_eq!(f.corrupt_bytes, 0, "{f:?}");
    f
}

/// The server S, the proxy P, the receiver R (member 1, a 1800 kbit/s link)
/// and member M2 (a 600 kbit/s link, relaying over a 6 Mbit/s WLAN); both
/// links 500 ms one-way with 200-packet queues, a 512-segment window: no
/// congestion loss. `extra` goes into M2's link table; `flows` follow.
fn community(duration_s: u64, extra: &str, flows: &str) -> String {
    format!(
        "[scenario]\nname = \"community\"\nduration = \"{duration_s}s\"\nsample_interval = \"0s\"\n\n[tcp]\nwindow = 512\n\n\
         [[node]]\nname = \"S\"\n[[node]]\nname = \"P\"\n[[node]]\nname = \"R\"\n[[node]]\nname = \"M2\"\n\n\
         [[link]]\nbetween = [\"S\", \"P\"]\nrate = \"100Mbit/s\"\ndelay = \"1ms\"\n\n\
         [[link]]\nname = \"wwan1\"\nbetween = [\"P\", \"R\"]\nrate = \"1800kbit/s\"\ndelay = \"500ms\"\nqueue = 200\n\n\
         [[link]]\nname = \"wwan2\"\nbetween = [\"P\", \"M2\"]\nrate = \"600kbit/s\"\ndelay = \"500ms\"\nqueue = 200\n{extra}\n\n\
         [[link]]\nname = \"wlan\"\nbetween = [\"M2\", \"R\"]\nrate = \"6Mbit/s\"\ndelay = \"1ms\"\n\n{flows}"
    )
}

/// One PRISM flow over both members, with its `policy` and more keys.
fn striped(protocol: &str, policy: &str, more: &str) -> String {
    format!(
        "[[flow]]\nname = \"download\"\nprotocol = \"{protocol}\"\nfrom = \"S\"\nto = \"R\"\nproxy = \"P\"\n\
         pipes = [ {{ via = \"R\" }}, {{ via = \"M2\" }} ]\npolicy = {{ {policy} }}\n{more}\n"
    )
}

/// Payload capacity of the two links: 2.4 Mbit/s of 1040-byte packets.
const CAPACITY: f64 = 2.4 * 1000.0 / 1040.0;

#[test]
fn prism_aggregates_both_members_links() {
    let s = run(&community(200, "", &striped("prism", "", "")), 1);
    let prism = flow(&s, "download").goodput_mbps;
    assert!(prism >= 0.93 * CAPACITY, "{prism:.3} Mbit/s");
    let alone = run(
        &community(
            200,
            "",
            "[[flow]]\nname = \"alone\"\nprotocol = \"tcp-sack\"\nfrom = \"S\"\nto = \"R\"\n",
        ),
        1,
    );
    let one = flow(&alone, "alone").goodput_mbps;
    assert!(prism >= 1.25 * one, "{prism:.3} against {one:.3} Mbit/s");
}

#[test]
fn rpc_hides_the_reordering_striping_causes() {
    let with = run(
        &community(100, "", &striped("prism-tcp", "rpc = \"full\"", "")),
        1,
    );
    let without = run(
        &community(100, "", &striped("prism-tcp", "rpc = \"off\"", "")),
        1,
    );
    let (w, wo) = (flow(&with, "download"), flow(&without, "download"));
    // No loss but striping's: with RPC the sender never enters recovery.
    assert_eq!(w.fast_recoveries, 0, "{w:?}");
    assert_eq!(w.retransmits, 0, "{w:?}");
    assert!(wo.fast_recoveries >= 10, "{wo:?}");
    assert!(w.goodput_mbps >= 5.0 * wo.goodput_mbps, "{w:?}\n{wo:?}");
}

#[test]
fn adas_feeds_each_link_by_its_weight_where_round_robin_does_not() {
    let adas = run(&community(100, "", &striped("prism", "", "")), 1);
    let rr = run(
        &community(100, "", &striped("prism", "scheduler = \"rr\"", "")),
        1,
    );
    let (a, r) = (flow(&adas, "download"), flow(&rr, "download"));
    // Round robin gives the 600 kbit/s link half the packets: the whole is
    // held to twice its rate.
    assert!(r.goodput_mbps <= 2.0 * 0.6, "{r:?}");
    assert!(a.goodput_mbps >= 1.5 * r.goodput_mbps, "{a:?}\n{r:?}");
}

#[test]
fn tcp_prism_beats_tcp_sack_behind_the_proxy_under_loss() {
    let lossy = "loss = { model = \"bernoulli\", rate = 0.004, direction = \"forward\" }";
    let mut ratio = 0.0;
    for seed in 1..=2 {
        let prism = run(&community(150, lossy, &striped("prism", "", "")), seed);
        let sack = run(&community(150, lossy, &striped("prism-tcp", "", "")), seed);
        let (p, s) = (flow(&prism, "download"), flow(&sack, "download"));
        ratio += p.goodput_mbps / s.goodput_mbps / 2.0;
    }
    assert!(ratio >= 1.3, "prism / prism-tcp = {ratio:.2}");
}

#[test]
fn members_leave_and_join_and_every_byte_arrives() {
    // M2 leaves at 20 s with what is on its link; M3 (its own 1200 kbit/s
    // link) joins at 30 s.
    let text = "[scenario]\nname = \"join\"\nduration = \"400s\"\nsample_interval = \"1s\"\n\n\
         [[node]]\nname = \"S\"\n[[node]]\nname = \"P\"\n[[node]]\nname = \"R\"\n[[node]]\nname = \"M2\"\n[[node]]\nname = \"M3\"\n\n\
         [[link]]\nbetween = [\"S\", \"P\"]\nrate = \"100Mbit/s\"\ndelay = \"1ms\"\n\
         [[link]]\nbetween = [\"P\", \"R\"]\nrate = \"400kbit/s\"\ndelay = \"150ms\"\nqueue = 50\n\
         [[link]]\nname = \"wwan2\"\nbetween = [\"P\", \"M2\"]\nrate = \"1Mbit/s\"\ndelay = \"50ms\"\nqueue = 50\nloss = 0.005\n\
         [[link]]\nname = \"wwan3\"\nbetween = [\"P\", \"M3\"]\nrate = \"1200kbit/s\"\ndelay = \"50ms\"\nqueue = 50\n\
         [[link]]\nbetween = [\"M2\", \"R\"]\nrate = \"6Mbit/s\"\ndelay = \"1ms\"\n\
         [[link]]\nbetween = [\"M3\", \"R\"]\nrate = \"6Mbit/s\"\ndelay = \"1ms\"\n\n\
         [[flow]]\nname = \"download\"\nprotocol = \"prism\"\nfrom = \"S\"\nto = \"R\"\nproxy = \"P\"\nsize = \"6MB\"\n\
         pipes = [ { via = \"R\" }, { via = \"M2\", drop = \"20s\" }, { via = \"M3\", open = \"30s\" } ]\n";
    for seed in 1..=3 {
        let s = run(text, seed);
        let f = flow(&s, "download");
        assert_eq!(f.bytes_delivered, 6_000_000, "{f:?}");
        assert!(f.completion_time_s.is_some(), "{f:?}");
        let m3 = s.links.iter().find(|l| l.direction == "P->M3").unwrap();
        assert!(
            m3.stats.tx_packets > 1000,
            "the joining member is used: {m3:?}"
        );
    }
}

#[test]
fn outages_on_a_members_link_lose_no_byte() {
    let schedule = "[[schedule]]\nat = \"5s\"\nlink = \"wwan2\"\naction = \"down\"\n\
                    [[schedule]]\nat = \"9s\"\nlink = \"wwan2\"\naction = \"up\"\n\
                    [[schedule]]\nat = \"12s\"\nlink = \"wwan2\"\ndirection = \"forward\"\naction = \"delay\"\ndelay = \"50ms\"\n";
    for protocol in ["prism", "prism-tcp"] {
        for seed in 1..=3 {
            let text = community(
                600,
                "loss = 0.02",
                &format!("{}{schedule}", striped(protocol, "", "size = \"1234567B\"")),
            );
            let s = run(&text, seed);
            let f = flow(&s, "download");
            assert_eq!(
                f.bytes_delivered, 1_234_567,
                "{protocol} seed {seed}: {f:?}"
            );
            assert!(
                f.completion_time_s.is_some(),
                "{protocol} seed {seed}: {f:?}"
            );
        }
    }
}

/// The error a PRISM flow's scenario, built from `flow`, is refused with.
fn refusal(flow: String) -> String {
    let text = community(10, "", &flow);
    Scenario::parse("t.toml", &text)
        .and_then(|sc| sc.build(&sc.points()[0], 1).map(|_| ()))
        .unwrap_err()
        .to_string()
}

#[test]
fn a_prism_flow_without_a_proxy_or_with_the_proxy_as_member_is_refused() {
    let e = refusal(striped("prism", "", "").replace("proxy = \"P\"\n", ""));
    assert!(
        e.contains("flow[0].proxy") && e.contains("needs a `proxy`"),
        "{e}"
    );
    let e = refusal(striped("prism", "", "").replace("via = \"M2\"", "via = \"P\""));
    assert!(
        e.contains("pipes[1].via") && e.contains("other than the proxy"),
        "{e}"
    );
    let e = refusal(striped("prism", "scheduler = \"min-rtt\"", ""));
    assert!(
        e.contains("policy.scheduler") && e.contains("adas, wrr, rr"),
        "{e}"
    );
    let e = refusal(striped("mptcp-lia", "", ""));
    assert!(
        e.contains("flow[0].proxy") && e.contains("PRISM flows only"),
        "{e}"
    );
}
