//! R²CP end to end in the simulator: whatever handoffs, pipe losses,
//! blackouts and server migrations happen, the application gets every byte
//! once and in order, and the transfer finishes while a path is up.

use proptest::prelude::*;
use radial_sim::metrics::FlowReport;
use radial_sim::{RunOutput, Scenario, Simulator};

mod random_runs;

fn run(text: &str, seed: u64) -> RunOutput {
    let sc = Scenario::parse("r2cp.toml", text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let mut spec = sc
        .build(&sc.points()[0], seed)
        .unwrap_or_else(|e| panic!("{e}"));
    random_runs::ablate(&mut spec);
    Simulator::new(spec).run()
}

/// Two replicas S1, S2 behind a core router C; two interfaces of the mobile
/// host, MH1 behind AP1 and MH2 behind AP2 (each a wireless last hop).
fn topology(rate1: u64, rate2: u64, delay1: u64, delay2: u64, loss: f64, window: u64) -> String {
    format!(
        r#"
[scenario]
name = "r2cp"
duration = "600s"
sample_interval = "100ms"

[tcp]
window = {window}

[[node]]
name = "S1"
[[node]]
name = "S2"
[[node]]
name = "C"
[[node]]
name = "AP1"
[[node]]
name = "AP2"
[[node]]
name = "MH1"
[[node]]
name = "MH2"

[[link]]
between = ["S1", "C"]
rate = "100Mbit/s"
delay = "5ms"
[[link]]
between = ["S2", "C"]
rate = "100Mbit/s"
delay = "1ms"
[[link]]
between = ["C", "AP1"]
rate = "100Mbit/s"
delay = "{delay1}ms"
[[link]]
between = ["C", "AP2"]
rate = "100Mbit/s"
delay = "{delay2}ms"
[[link]]
name = "w1"
between = ["AP1", "MH1"]
rate = "{rate1}kbit/s"
delay = "2ms"
queue = 50
loss = {loss:.5}
[[link]]
name = "w2"
between = ["AP2", "MH2"]
rate = "{rate2}kbit/s"
delay = "2ms"
queue = 50
loss = {loss:.5}
"#
    )
}

#[derive(Clone, Debug)]
struct Case {
    rate1: u64,
    rate2: u64,
    delay1: u64,
    delay2: u64,
    loss: f64,
    size: u64,
    /// Pipe 1 (MH1 from S1) is retired at this time (ms), if at all.
    close1: Option<u64>,
    /// Pipe 1's interface is lost instead (break before make).
    hard: bool,
    /// Pipe 2 (MH2) opens at this time (ms), from S2 (migration) or S1.
    open2: u64,
    replica: bool,
    /// A blackout of w1: (down at, duration) in ms.
    blackout: Option<(u64, u64)>,
    fcfs: bool,
    /// Receive buffer in segments.
    window: u64,
    seed: u64,
}

fn scenario(c: &Case) -> String {
    let mut s = topology(c.rate1, c.rate2, c.delay1, c.delay2, c.loss, c.window);
    let key = if c.hard { "drop" } else { "close" };
    let close1 = c
        .close1
        .map_or(String::new(), |t| format!(", {key} = \"{t}ms\""));
    let from2 = if c.replica { "S2" } else { "S1" };
    s.push_str(&format!(
        r#"
[[flow]]
name = "f"
protocol = "{}"
from = "S1"
to = "MH1"
size = "{}B"
pipes = [
  {{ via = "MH1", from = "S1"{close1} }},
  {{ via = "MH2", from = "{from2}", open = "{}ms" }},
]
"#,
        if c.fcfs { "r2cp-s" } else { "r2cp" },
        c.size,
        c.open2
    ));
    if let Some((at, len)) = c.blackout {
        s.push_str(&format!(
            "\n[[schedule]]\nat = \"{at}ms\"\nlink = \"w1\"\naction = \"down\"\n\n[[schedule]]\nat = \"{}ms\"\nlink = \"w1\"\naction = \"up\"\n",
            at + len
        ));
    }
    s
}

fn case_strategy() -> impl Strategy<Value = Case> {
    (
        (500u64..20_000, 500u64..20_000, 1u64..100, 1u64..100),
        (0.0..0.03f64, 50_000u64..3_000_000),
        (
            proptest::option::of(100u64..20_000),
            0u64..10_000,
            any::<bool>(),
            any::<bool>(),
        ),
        (
            proptest::option::of((0u64..10_000, 1u64..5_000)),
            any::<bool>(),
            any::<u64>(),
            4u64..300,
        ),
    )
        .prop_map(
            |(
                (rate1, rate2, delay1, delay2),
                (loss, size),
                (close1, open2, replica, hard),
                (blackout, fcfs, seed, window),
            )| Case {
                rate1,
                rate2,
                delay1,
                delay2,
                loss,
                size,
                close1,
                hard,
                open2,
                replica,
                blackout,
                fcfs,
                window,
                seed,
            },
        )
}

fn flow(out: &RunOutput) -> &FlowReport {
    &out.summary.flows[0]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    /// Pipe 2 never closes and its path never fails, so the transfer must
    /// finish with every byte once, in order, whatever happened to pipe 1.
    #[test]
    fn every_byte_arrives_once_in_order_through_handoffs(c in case_strategy()) {
        let out = run(&scenario(&c), c.seed);
        let f = flow(&out);
        prop_assert_eq!(f.corrupt_bytes, 0, "{:?}", f);
        prop_assert!(f.completion_time_s.is_some(), "stalled: {:?}\n{:?}", f, c);
        prop_assert_eq!(f.bytes_delivered, c.size, "{:?}", f);
    }
}

/// The first counter-example the property test above found (a loss rate
/// of 1.9 %, a slow second pipe opening at 394 ms), recorded before the
/// strategy gained `hard` and `window` (the buffer then was the default
/// 256 segments): pinned here, since the recorded seed no longer replays
/// it.
#[test]
fn the_first_recorded_counter_example_finishes() {
    let c = Case {
        rate1: 4016,
        rate2: 500,
        delay1: 5,
        delay2: 1,
        loss: 0.019_140_668_044_422_64,
        size: 54_001,
        close1: None,
        hard: false,
        open2: 394,
        replica: false,
        blackout: None,
        fcfs: false,
        window: 256,
        seed: 5_674_171_630_736_419_497,
    };
    let out = run(&scenario(&c), c.seed);
    let f = flow(&out);
    assert_eq!(f.corrupt_bytes, 0);
    assert_eq!(f.bytes_delivered, c.size, "{f:?}");
    assert!(f.completion_time_s.is_some(), "{f:?}");
}

fn handoff_case() -> Case {
    Case {
        rate1: 2000,
        rate2: 2000,
        delay1: 10,
        delay2: 10,
        loss: 0.0,
        size: 20_000_000,
        close1: Some(30_000),
        hard: false,
        open2: 28_000,
        replica: false,
        blackout: None,
        fcfs: false,
        // A receive buffer of 32 segments keeps both pipes below what fills
        // the 50-packet queues (BDP about 8 packets), so there is no
        // congestion loss: what is measured is the handoff alone.
        window: 32,
        seed: 1,
    }
}

/// RTT of the second path from S1: 2 × (5 + 10 + 2) ms of propagation plus
/// a 1040-byte packet at 2 Mbit/s and the 100 Mbit/s hops.
const RTT2: f64 = 0.034 + 0.00416 + 0.0003;

/// `text` with its R²CP flow's buffer kept by `flow` (`"span"` or
/// `"reserve"`).
fn with_flow(text: &str, flow: &str) -> String {
    let policy = format!("\n]\npolicy = {{ flow = \"{flow}\" }}\n");
    let out = text.replacen("\n]\n", &policy, 1);
    assert!(out.contains("policy"), "{text}");
    out
}

fn disruption(c: &Case) -> (f64, f64, FlowReport) {
    disruption_of(&scenario(c), c.size)
}

fn disruption_of(text: &str, size: u64) -> (f64, f64, FlowReport) {
    let out = run(text, 1);
    let f = flow(&out).clone();
    assert_eq!(f.corrupt_bytes, 0);
    assert_eq!(f.bytes_delivered, size);
    assert_eq!(f.duplicate_bytes, 0, "nothing fetched twice");
    (
        f.handoff_disruption_s.expect("handoffs watched"),
        f.pre_handoff_median_gap_s.expect("deliveries before"),
        f,
    )
}

#[test]
fn make_before_break_handoff_keeps_delivery_going() {
    // Pipe 2 opens two seconds before pipe 1 is retired (R²CP §4.4.1). The
    // two share the 32-segment buffer while both are up, so the new pipe's
    // window opens during the overlap, and delivery pauses far less than
    // in a break-before-make handoff: by span, never for more than twice
    // its usual gap (our bound); by reservation (the default), for less
    // than a round trip of the new path, as the old pipe's draining queue
    // lets it place a segment or two further ahead than the buffer's span
    // (docs/protocols.md, "Flow control by reservation").
    let mut hard = handoff_case();
    hard.open2 = 30_000;
    hard.hard = true;
    let (hard_gap, _, _) = disruption(&hard);
    for fc in ["span", "reserve"] {
        let c = handoff_case();
        let (mbb, usual, _) = disruption_of(&with_flow(&scenario(&c), fc), c.size);
        // One 1040-byte packet at 2 Mbit/s takes 4.2 ms.
        assert!(
            usual > 0.003 && usual < 0.006,
            "{fc}: median gap {usual:.4} s"
        );
        let bound = handoff_bound(fc, usual);
        assert!(
            mbb <= bound,
            "{fc}: disruption {mbb:.4} s, median gap {usual:.4} s"
        );
        assert!(mbb < hard_gap, "{fc}: {mbb:.4} s against {hard_gap:.4} s");
    }
}

/// The longest pause a make-before-break handoff of [`handoff_case`] may
/// cause, with flow control `flow`, when delivery's usual gap is `usual`:
/// twice that gap by span, a round trip of the new path by reservation.
fn handoff_bound(flow: &str, usual: f64) -> f64 {
    if flow == "span" {
        2.0 * usual
    } else {
        RTT2
    }
}

#[test]
fn hard_handoff_gap_is_the_new_pipe_setup() {
    // Break before make: pipe 1's interface is lost at 30 s and pipe 2
    // opens then. Delivery resumes one round trip after the new pipe's
    // handshake: its PROBE (SEG.DEQ, which the receiver can name in the
    // sender's sequence space only after the SYN+ACK) and its first
    // requests leave together, and the sender serves them once its
    // application has sought to SEG.DEQ. The bound: one new-path RTT
    // plus the handshake (plus the first segment's transmission).
    let mut c = handoff_case();
    c.open2 = 30_000;
    c.hard = true;
    let (gap, _, _) = disruption(&c);
    assert!(gap > 1.5 * RTT2, "disruption {gap:.4} s");
    assert!(gap <= 2.0 * RTT2 + 0.005, "disruption {gap:.4} s");
}

/// Both 2 Mbit/s paths of [`handoff_case`] kept open, pipe 2 from `open2`
/// ms, with a receive buffer of `window` segments, for `secs` seconds.
fn aggregate(open2: u64, window: u64, secs: u64) -> RunOutput {
    let c = Case {
        close1: None,
        open2,
        size: 100_000_000,
        window,
        ..handoff_case()
    };
    let text = scenario(&c).replace("duration = \"600s\"", &format!("duration = \"{secs}s\""));
    run(&text, 1)
}

#[test]
fn aggregation_uses_both_paths() {
    // Two 2 Mbit/s paths, both open throughout: close to 4 Mbit/s of
    // payload (2 × 2 Mbit/s × 1000/1040).
    let out = aggregate(0, 256, 60);
    let f = flow(&out);
    assert_eq!(f.corrupt_bytes, 0);
    assert!(
        f.goodput_mbps > 0.95 * 4.0 * 1000.0 / 1040.0,
        "goodput {:.3}",
        f.goodput_mbps
    );
}

#[test]
fn a_buffer_smaller_than_one_window_is_shared_by_both_pipes() {
    // Two 2 Mbit/s paths with some 40 ms round trips; the buffer holds 32
    // segments, less than either window grows to. The pipe with the fewest
    // requests outstanding asks first, so the one whose window could cover
    // the whole buffer does not keep the other out; the ranked scheduler
    // still freezes a pipe whose rank puts its segment past the buffer
    // (§4.3.1), and the queue each window builds makes the two trade the
    // lead. Both carry a good part of their path, and together well over
    // one path.
    let out = aggregate(5_000, 32, 40);
    assert_eq!(flow(&out).corrupt_bytes, 0);
    let carried = |path: u16, from: f64, to: f64| {
        let at = |t: f64| {
            out.pipe_series
                .iter()
                .filter(|p| p.path == path && p.t <= t + 1e-9)
                .map(|p| p.delivered)
                .max()
                .unwrap_or(0)
        };
        (at(to) - at(from)) as f64 * 8.0 / (to - from) / 1e6
    };
    let full = 2.0 * 1000.0 / 1040.0;
    let rates = [carried(0, 10.0, 40.0), carried(1, 10.0, 40.0)];
    for (path, rate) in rates.iter().enumerate() {
        assert!(*rate > 0.6 * full, "pipe {path}: {rate:.3} Mbit/s");
    }
    assert!(rates[0] + rates[1] > 1.4 * full, "{rates:?}");
}

#[test]
fn migration_fetches_nothing_twice() {
    // Pipe 2 to the replica S2 opens at 28 s; pipe 1 to S1 is retired at
    // 30 s (R²CP §4.4.2). The replica is asked only for what is neither held nor
    // outstanding, and the retired pipe's data still arrives: no byte
    // reaches the host twice, and every segment the servers sent that was not
    // lost in a queue was delivered once.
    let mut c = handoff_case();
    c.replica = true;
    let out = run(&scenario(&c), 1);
    let f = flow(&out);
    assert_eq!(f.corrupt_bytes, 0);
    assert_eq!(f.bytes_delivered, c.size);
    // Nothing is fetched twice but the head of line, re-requested on the
    // replica's pipe when the buffer blocks it while the retiring pipe
    // still holds that segment.
    assert!(f.duplicate_bytes <= 2 * 1000, "{f:?}");
    let (sent, dropped): (u64, u64) = out
        .summary
        .links
        .iter()
        .filter(|l| l.direction == "AP1->MH1" || l.direction == "AP2->MH2")
        .fold((0, 0), |(s, d), l| {
            (s + l.stats.tx_packets, d + l.stats.drops_queue)
        });
    let data_packets = c.size.div_ceil(1000);
    let control = 20; // handshakes, probes, FIN answers
    assert!(
        sent <= data_packets + control,
        "{sent} packets carried to the host ({dropped} dropped before) for {data_packets} segments"
    );
}

#[test]
fn a_second_pipe_through_the_same_bottleneck_fetches_nothing_twice() {
    // Make-before-break to the same server: both pipes cross its one
    // 2 Mbit/s access, whose 50-packet queue the first pipe keeps full. The
    // second pipe's slow start lengthens that queue, so the first pipe's
    // answers come a little later than its estimate said; they still come,
    // in order, every few milliseconds. The head of line it holds is waited
    // for, not asked of the second pipe, whose round trip crosses the same
    // queue (it once was, and one segment arrived twice).
    let s = "[scenario]\nname = \"same-server\"\nduration = \"70s\"\n\
             [tcp]\npacket_size = 1000\nwindow = 256\n\
             [[node]]\nname = \"S1\"\n[[node]]\nname = \"R\"\n[[node]]\nname = \"APA\"\n\
             [[node]]\nname = \"APB\"\n[[node]]\nname = \"MHA\"\n[[node]]\nname = \"MHB\"\n\
             [[link]]\nbetween = [\"S1\", \"R\"]\nrate = \"2Mbit/s\"\ndelay = \"20ms\"\nqueue = 50\n\
             [[link]]\nbetween = [\"R\", \"APA\"]\nrate = \"100Mbit/s\"\ndelay = \"1ms\"\n\
             [[link]]\nbetween = [\"R\", \"APB\"]\nrate = \"100Mbit/s\"\ndelay = \"1ms\"\n\
             [[link]]\nbetween = [\"APA\", \"MHA\"]\nrate = \"5Mbit/s\"\ndelay = \"15ms\"\nqueue = 50\n\
             [[link]]\nbetween = [\"APB\", \"MHB\"]\nrate = \"5Mbit/s\"\ndelay = \"15ms\"\nqueue = 50\n\
             [[flow]]\nprotocol = \"r2cp\"\nfrom = \"S1\"\nto = \"MHA\"\n\
             pipes = [ { via = \"MHA\", close = \"60s\" }, { via = \"MHB\", open = \"58s\" } ]\n";
    let out = run(s, 1);
    let f = flow(&out);
    assert_eq!(f.corrupt_bytes, 0);
    assert!(f.bytes_delivered > 15_000_000, "{f:?}");
    assert_eq!(f.duplicate_bytes, 0, "{f:?}");
}

#[test]
fn same_seed_same_summary() {
    let mut c = handoff_case();
    c.loss = 0.01;
    c.replica = true;
    let a = run(&scenario(&c), 7);
    let b = run(&scenario(&c), 7);
    assert_eq!(
        serde_json::to_string(&a.summary).unwrap(),
        serde_json::to_string(&b.summary).unwrap()
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    /// Application striping over two lossy paths: the resequenced stream is
    /// the file, every byte once and in order, and the transfer finishes.
    #[test]
    fn application_striping_delivers_the_stream_in_order(
        rate1 in 500u64..10_000,
        rate2 in 500u64..10_000,
        loss in 0.0..0.02f64,
        size in 10_000u64..2_000_000,
        window in 4u64..256,
        seed in any::<u64>(),
    ) {
        let mut s = topology(rate1, rate2, 5, 40, loss, window);
        s.push_str(&format!(
            "\n[[flow]]\nname = \"f\"\nprotocol = \"apps\"\nfrom = \"S1\"\nto = \"MH1\"\nsize = \"{size}B\"\npipes = [{{ via = \"MH1\" }}, {{ via = \"MH2\", from = \"S2\" }}]\n"
        ));
        let out = run(&s, seed);
        let f = flow(&out);
        prop_assert_eq!(&f.protocol, "apps");
        prop_assert_eq!(f.corrupt_bytes, 0, "{:?}", f);
        prop_assert_eq!(f.bytes_delivered, size, "{:?}", f);
        prop_assert!(f.completion_time_s.is_some(), "{:?}", f);
    }
}

#[test]
fn each_pipe_runs_the_controller_of_its_interface() {
    // Pipe 2 crosses a 250 ms (one way) satellite-like path that loses 1 %
    // of its packets. With the long-delay controller on that interface
    // alone (R²CP §4.3.3), pipe 2's window grows per unit of time, not per
    // round trip, and it brings far more data in the first 20 s than with
    // NewReno, whose window random loss keeps small on a long round trip;
    // pipe 1 is unchanged in kind.
    let pipe2_by = |controller: &str| {
        let mut s = topology(4000, 4000, 5, 250, 0.01, 1000);
        s.push_str(&format!(
            "\n[[flow]]\nname = \"f\"\nprotocol = \"r2cp\"\nfrom = \"S1\"\nto = \"MH1\"\npipes = [{{ via = \"MH1\" }}, {{ via = \"MH2\", from = \"S2\", controller = \"{controller}\" }}]\n"
        ));
        let s = s.replace("duration = \"600s\"", "duration = \"20s\"");
        let out = run(&s, 1);
        assert_eq!(flow(&out).corrupt_bytes, 0);
        out.pipe_series
            .iter()
            .filter(|p| p.path == 1)
            .map(|p| p.delivered)
            .max()
            .unwrap_or(0)
    };
    // 12× here (4.9 against 0.39 MB). Without the loss the pipes' pacing
    // and queue cap let NewReno fill the path as well (7.0 MB each).
    let (reno, hybla) = (pipe2_by("rcp"), pipe2_by("rcp-sat"));
    assert!(
        hybla > 4 * reno,
        "pipe 2 delivered {hybla} bytes with rcp-sat against {reno} with rcp"
    );
}

#[test]
fn an_eln_pipe_hears_the_losses_of_its_own_interface() {
    // Pipe 2's WLAN (w2) loses 3 % of its frames; pipe 1's is clean. With
    // RCP-ELN on pipe 2's interface, the host's reports of w2's losses reach
    // pipe 2, which re-requests without cutting its window: it brings far
    // more than with plain RCP. ELN on pipe 1 instead changes nothing for
    // pipe 2: the reports are for the pipe of the interface that lost the
    // frame, not for the first pipe.
    let pipes_by = |c1: &str, c2: &str| {
        let s = topology(4000, 4000, 5, 5, 0.0, 1000);
        let at = s.rfind("loss = 0.00000").unwrap();
        let mut s = format!(
            "{}loss = 0.03{}",
            &s[..at],
            &s[at + "loss = 0.00000".len()..]
        );
        s.push_str(&format!(
            "\n[[flow]]\nname = \"f\"\nprotocol = \"r2cp\"\nfrom = \"S1\"\nto = \"MH1\"\npipes = [{{ via = \"MH1\", controller = \"{c1}\" }}, {{ via = \"MH2\", from = \"S2\", controller = \"{c2}\" }}]\n"
        ));
        let s = s.replace("duration = \"600s\"", "duration = \"30s\"");
        let out = run(&s, 1);
        assert_eq!(flow(&out).corrupt_bytes, 0);
        let by = |path| {
            out.pipe_series
                .iter()
                .filter(|p| p.path == path)
                .map(|p| p.delivered)
                .max()
                .unwrap_or(0) as f64
        };
        (by(0), by(1))
    };
    let (_, plain) = pipes_by("rcp", "rcp");
    let (_, eln) = pipes_by("rcp", "rcp-eln");
    let (_, misplaced) = pipes_by("rcp-eln", "rcp");
    // Plain RCP cuts its window once per window of losses (NewReno's
    // recovery point), so ELN's gain is the cuts of 3 % random loss alone.
    assert!(
        eln > 1.3 * plain,
        "pipe 2: {eln} bytes with ELN, {plain} without"
    );
    assert!(
        (misplaced - plain).abs() < 0.1 * plain,
        "ELN on pipe 1 moved pipe 2 from {plain} to {misplaced} bytes"
    );
}

#[test]
fn handing_over_when_the_new_pipe_is_ready() {
    // The same overlap, but pipe 1 is retired once pipe 2 can take over
    // (R²CP §4.4.1's "close the old pipe once the new one leaves slow
    // start", or its window alone holds what both have in flight). Pipe 2,
    // as the pipe taking over, gets the buffer space pipe 1's arrivals free
    // first, so its window opens although pipe 1 held the whole 32-segment
    // buffer: pipe 1 goes well before the fixed 30 s, and the disruption is
    // no worse.
    for fc in ["span", "reserve"] {
        let c = handoff_case();
        let fixed_text = with_flow(&scenario(&c), fc);
        let text = fixed_text.replace(", close = \"30000ms\"", ", retire = \"when-next-ready\"");
        assert!(text.contains("when-next-ready"));
        let out = run(&text, 1);
        let f = flow(&out);
        assert_eq!(f.corrupt_bytes, 0);
        assert_eq!(f.bytes_delivered, c.size);
        assert_eq!(f.duplicate_bytes, 0);
        let ready = f.handoff_disruption_s.expect("handoff watched");
        let usual = f.pre_handoff_median_gap_s.expect("deliveries before");
        assert!(
            ready <= handoff_bound(fc, usual),
            "{fc}: disruption {ready:.4} s, median gap {usual:.4} s"
        );
        let (fixed, _, _) = disruption_of(&fixed_text, c.size);
        assert!(
            ready <= fixed,
            "{fc}: when ready {ready:.4} s, fixed overlap {fixed:.4} s"
        );
        pipe_one_goes_early(&out, fc);
    }
}

/// Pipe 1 of a handoff retired when pipe 2 was ready delivered its last
/// byte well before the fixed 30 s, and pipe 2 carried the rest.
fn pipe_one_goes_early(out: &RunOutput, flow: &str) {
    // When pipe 1 delivered its last byte.
    let total = |path: u16| {
        out.pipe_series
            .iter()
            .filter(|p| p.path == path)
            .map(|p| p.delivered)
            .max()
            .unwrap_or(0)
    };
    let done1 = out
        .pipe_series
        .iter()
        .find(|p| p.path == 0 && p.delivered == total(0))
        .map(|p| p.t)
        .expect("pipe 1 sampled");
    assert!(
        (28.0..29.0).contains(&done1),
        "{flow}: pipe 1 done at {done1} s"
    );
    assert_eq!(total(0) + total(1), handoff_case().size, "{flow}");
}

/// Both pipes open throughout and pipe 1's link blacks out for 5 s at 20 s.
fn blackout_case() -> Case {
    Case {
        close1: None,
        open2: 0,
        blackout: Some((20_000, 5_000)),
        window: 64,
        ..handoff_case()
    }
}

#[test]
fn a_blacked_out_pipe_does_not_hold_the_head_of_line() {
    // After its timeout the blacked-out pipe takes nothing from the other
    // pipe while that one works. With redundant striping (pTCP §4.1 (3)) it
    // probes with the head-of-line segment, which the other pipe fetches
    // too; without, with a PROBE that carries no pull. Either way the
    // application keeps receiving through the blackout (before probes
    // stopped taking segments, the plain probe held the head of line
    // through every backed-off timeout until the link returned).
    let c = blackout_case();
    let with = run(&scenario(&c), 1);
    let without = run(
        &scenario(&c).replace(
            "protocol = \"r2cp\"",
            "protocol = \"r2cp\"\npolicy = { redundant_striping = false }",
        ),
        1,
    );
    for out in [&with, &without] {
        let f = flow(out);
        assert_eq!(f.corrupt_bytes, 0);
        assert_eq!(f.bytes_delivered, c.size);
        assert!(f.timeouts > 0, "the blackout times pipe 1 out: {f:?}");
        assert!(
            f.max_delivery_gap_s < 1.5,
            "gap {:.3} s at {:.3} s",
            f.max_delivery_gap_s,
            f.max_delivery_gap_at_s
        );
    }
    // The link is back at 25 s: within a probe interval pipe 1 delivers
    // again, in both.
    for out in [&with, &without] {
        let at = |t: f64| {
            out.pipe_series
                .iter()
                .filter(|p| p.path == 0 && p.t <= t + 1e-9)
                .map(|p| p.delivered)
                .max()
                .unwrap_or(0)
        };
        assert!(at(27.0) > at(25.0), "pipe 1 silent after its link returned");
    }
}

#[test]
fn a_target_rate_is_met_from_the_preferred_pipe_first() {
    // pTCP §6.2.2, Figure 10: a 3 Mbit/s target with pipe 1 (a 2 Mbit/s
    // path, 1.92 Mbit/s of payload) preferred; pipe 0 (4 Mbit/s) makes up
    // the rest instead of adding all it could.
    let mut c = handoff_case();
    c.rate1 = 4000;
    c.close1 = None;
    c.open2 = 0;
    c.size = 100_000_000;
    c.window = 256;
    let text = scenario(&c)
        .replace("duration = \"600s\"", "duration = \"60s\"")
        .replace(
            "protocol = \"r2cp\"",
            "protocol = \"r2cp\"\npolicy = { target = \"3Mbit/s\", prefer = 1 }",
        );
    let out = run(&text, 1);
    let f = flow(&out);
    assert_eq!(f.corrupt_bytes, 0);
    assert!(
        (2.85..3.1).contains(&f.goodput_mbps),
        "goodput {:.3}",
        f.goodput_mbps
    );
    let last = |p: u16| {
        out.pipe_series
            .iter()
            .rev()
            .find(|s| s.path == p)
            .map(|s| s.delivered as f64 * 8.0 / 60e6)
            .unwrap()
    };
    assert!(last(1) > 0.9 * 1.92, "preferred pipe {:.3} Mbit/s", last(1));
    assert!(
        (0.9..1.3).contains(&last(0)),
        "the other pipe fills the gap: {:.3} Mbit/s",
        last(0)
    );
}

#[test]
fn a_single_state_connection_follows_a_hard_handoff() {
    // The comparison transports of the demo: one TCP-SACK (or RCP)
    // connection whose receiving end moves from MH1 to MH2 at 21 s, a second
    // after MH1's link went down. It recovers by its own timers (nothing
    // tells it), delivers every byte intact, and the rest arrives over w2.
    for protocol in ["tcp-sack", "rcp"] {
        let mut text = topology(2000, 2000, 10, 10, 0.0, 64);
        text.push_str(&format!(
            r#"
[[flow]]
name = "f"
protocol = "{protocol}"
from = "S1"
to = "MH1"
size = "20000000B"
handoffs = [{{ at = "21s", to = "MH2" }}]

[[schedule]]
at = "20s"
link = "w1"
action = "down"
"#
        ));
        let out = run(&text, 1);
        let f = flow(&out);
        assert_eq!(f.corrupt_bytes, 0, "{protocol}");
        assert_eq!(f.bytes_delivered, 20_000_000, "{protocol}: {f:?}");
        let gap = f.handoff_disruption_s.expect("the handoff is watched");
        assert!(gap >= 1.0, "{protocol}: disruption {gap:.3} s");
        assert!(f.timeouts > 0, "{protocol}: recovered by a timeout");
        let over_w2: u64 = out
            .summary
            .links
            .iter()
            .filter(|l| l.name == "w2" && l.direction == "AP2->MH2")
            .map(|l| l.stats.delivered)
            .sum();
        assert!(over_w2 > 5_000, "{protocol}: {over_w2} packets over w2");
    }
}

#[test]
fn a_stall_that_lasts_to_the_end_counts_as_the_longest_gap() {
    // The only path goes dark at 10 s for good: the flow delivers nothing
    // for the remaining 590 s, and that is its longest gap, begun at about
    // 10 s.
    for protocol in ["r2cp", "rcp"] {
        let mut text = topology(2000, 2000, 10, 10, 0.0, 32);
        text.push_str(&format!(
            "\n[[flow]]\nprotocol = \"{protocol}\"\nfrom = \"S1\"\nto = \"MH1\"\n\n[[schedule]]\nat = \"10s\"\nlink = \"w1\"\naction = \"down\"\n"
        ));
        let out = run(&text, 1);
        let f = flow(&out);
        assert!(f.completion_time_s.is_none());
        assert!(
            f.max_delivery_gap_s > 589.0 && f.max_delivery_gap_s < 590.01,
            "{protocol}: {f:?}"
        );
        assert!(
            (9.5..10.0).contains(&f.max_delivery_gap_at_s),
            "{protocol}: {f:?}"
        );
    }
}

#[test]
fn one_pipe_cuts_its_window_once_for_a_window_of_losses() {
    // One 20 Mbit/s path of 60 ms one way with a 200-packet queue: the
    // slow start overshoots it and loses hundreds of segments in one
    // window. A pipe recovers from that as the RCP receiver does, with one
    // window cut (NewReno's recovery point): a re-request answered early
    // must not end the recovery and let the window's other holes, detected
    // later, cut it again (which left one pipe at 17.4 Mbit/s over 60 s
    // against RCP's 18.75).
    let by = |protocol: &str| {
        let s = format!(
            "[scenario]\nname = \"long\"\nduration = \"60s\"\noverhead_bytes = 40\n\
             [tcp]\npacket_size = 1200\nwindow = 3500\ninitial_window = 10\ntick = \"1ms\"\ninitial_rto = \"1s\"\n\
             [[node]]\nname = \"S\"\n[[node]]\nname = \"R\"\n\
             [[link]]\nbetween = [\"S\", \"R\"]\nrate = \"20Mbit/s\"\ndelay = \"60ms\"\nqueue = 200\n\
             [[flow]]\nfrom = \"S\"\nto = \"R\"\nprotocol = \"{protocol}\"\n"
        );
        let out = run(&s, 1);
        let f = flow(&out);
        assert_eq!(f.corrupt_bytes, 0);
        (f.goodput_mbps, f.fast_recoveries)
    };
    let (rcp, rcp_cuts) = by("rcp");
    let (pipe, pipe_cuts) = by("r2cp");
    assert!(
        pipe >= 0.99 * rcp,
        "one pipe {pipe:.2} Mbit/s against RCP's {rcp:.2}"
    );
    assert_eq!(pipe_cuts, rcp_cuts, "window cuts: pipe against RCP");
}
