//! R²CP over unlike paths and a bounded receive buffer: slow pipes must not
//! hold up the quick one, so the connection goes at least about as fast as
//! its best path alone, and with a buffer that can carry every path it
//! goes as fast as the paths alone together.

use radial_sim::{RunOutput, Scenario, Simulator};

mod random_runs;

fn run(text: &str) -> RunOutput {
    run_seed(text, 1)
}

fn run_seed(text: &str, seed: u64) -> RunOutput {
    let sc = Scenario::parse("r2cp_buffer.toml", text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let mut spec = sc
        .build(&sc.points()[0], seed)
        .unwrap_or_else(|e| panic!("{e}"));
    random_runs::ablate(&mut spec);
    Simulator::new(spec).run()
}

/// A server S and a mobile host with one interface MH`i` per path, each a
/// last hop `path{i}` of (kbit/s, one-way delay in ms, queue in packets),
/// for `secs` seconds with a receive buffer of `window` segments. Returns
/// the goodput of RCP on each path alone (all at once: the paths share
/// nothing) and of R²CP over all of them.
fn alone_and_r2cp(paths: &[(u64, u64, u64)], window: u64, secs: u64) -> (Vec<f64>, f64) {
    let (alone, r2cp) = alone_and_r2cp_run(paths, window, secs);
    (alone, r2cp.summary.flows[0].goodput_mbps)
}

/// [`alone_and_r2cp`], with the whole R²CP run.
fn alone_and_r2cp_run(paths: &[(u64, u64, u64)], window: u64, secs: u64) -> (Vec<f64>, RunOutput) {
    let (alone, text) = scenarios(paths, "", window, secs);
    let alone = run(&alone);
    let r2cp = run(&text);
    let all = &r2cp.summary.flows[0];
    assert_eq!(all.corrupt_bytes, 0);
    let each = alone.summary.flows.iter().map(|f| f.goodput_mbps).collect();
    (each, r2cp)
}

/// The scenarios of [`alone_and_r2cp`]: RCP on each path alone, and R²CP
/// over all of them; `loss` is added to every path's last hop.
fn scenarios(paths: &[(u64, u64, u64)], loss: &str, window: u64, secs: u64) -> (String, String) {
    let mut text = format!(
        "[scenario]\nname = \"unlike-paths\"\nduration = \"{secs}s\"\n\
         [tcp]\npacket_size = 1000\nwindow = {window}\n\
         [[node]]\nname = \"S\"\n[[node]]\nname = \"C\"\n\
         [[link]]\nbetween = [\"S\", \"C\"]\nrate = \"1Gbit/s\"\ndelay = \"1ms\"\n"
    );
    for (i, (rate, delay, queue)) in paths.iter().enumerate() {
        text += &format!(
            "[[node]]\nname = \"BS{i}\"\n[[node]]\nname = \"MH{i}\"\n\
             [[link]]\nbetween = [\"C\", \"BS{i}\"]\nrate = \"1Gbit/s\"\ndelay = \"{}ms\"\n\
             [[link]]\nname = \"path{i}\"\nbetween = [\"BS{i}\", \"MH{i}\"]\nrate = \"{rate}kbit/s\"\n\
             delay = \"1ms\"\nqueue = {queue}\n{loss}\n",
            delay - 1
        );
    }
    let mut alone = text.clone();
    for i in 0..paths.len() {
        alone += &format!(
            "[[flow]]\nname = \"alone{i}\"\nprotocol = \"rcp\"\nfrom = \"S\"\nto = \"MH{i}\"\n"
        );
    }
    let pipes: Vec<String> = (0..paths.len())
        .map(|i| format!("{{ via = \"MH{i}\" }}"))
        .collect();
    text += &format!(
        "[[flow]]\nname = \"all\"\nprotocol = \"r2cp\"\nfrom = \"S\"\nto = \"MH0\"\n\
         pipes = [ {} ]\n",
        pipes.join(", ")
    );
    (alone, text)
}

#[test]
fn slow_pipes_do_not_hold_up_the_quick_one() {
    // A 20 Mbit/s WLAN (30 ms one way, a 400-packet queue) beside 2 Mbit/s
    // and 500 kbit/s paths; 301 segments of buffer, twice the WLAN's
    // bandwidth-delay product. When the slow pipes' rank counted only what
    // the WLAN's pipe had outstanding (little, while the buffer held it
    // back), they were given segments near the head of line, and R²CP fell
    // to 7 Mbit/s against the WLAN's 18.9 alone; it now reaches 95 % of it
    // (the results pages check that bound; here, with a margin).
    let (alone, r2cp) =
        alone_and_r2cp(&[(2000, 30, 50), (500, 100, 50), (20000, 30, 400)], 301, 30);
    assert!(alone[2] > 18.0, "WLAN alone: {:.2}", alone[2]);
    assert!(
        r2cp >= 0.9 * alone[2],
        "R²CP {r2cp:.2} Mbit/s against the WLAN alone {:.2}",
        alone[2]
    );
}

#[test]
fn a_pipe_less_than_twice_as_slow_leaves_the_quick_one_its_segments() {
    // A 5 Mbit/s WLAN (20 ms one way, a 50-packet queue) beside a 2 Mbit/s
    // path (50 ms, 100 packets), with 51 segments of buffer, twice the
    // WLAN's bandwidth-delay product. The WLAN's queue makes the round
    // trip it shows more than half the other's, so when a quicker pipe
    // counted what its window could ask for only from twice as quick on,
    // the WLAN counted only its outstanding requests: the slow pipe took
    // segments the WLAN was about to ask for, and R²CP ran at 91 % of the
    // WLAN alone (4.36 against 4.79 Mbit/s). Counted in proportion to the
    // difference of the two round trips, it keeps up with it.
    let (alone, r2cp) = alone_and_r2cp(&[(5000, 20, 50), (2000, 50, 100)], 51, 30);
    assert!(alone[0] > 4.5, "WLAN alone: {:.2}", alone[0]);
    assert!(
        r2cp >= 0.97 * alone[0],
        "R²CP {r2cp:.2} Mbit/s against the WLAN alone {:.2}",
        alone[0]
    );
}

#[test]
fn a_penalised_pipe_cuts_its_window_from_what_it_had_in_flight() {
    // A 5 Mbit/s satellite path (250 ms one way, a 100-packet queue) beside
    // a 2 Mbit/s one (50 ms, 50 packets); the buffer, 876 segments, is
    // twice the sum of the bandwidths times the largest round trip. After
    // its slow start overflows its queue, the satellite pipe holds the
    // head of line while the other waits for buffer, and is penalised
    // (its window halved); its next loss halved what was left, as if the
    // path had carried only that, and the pipe ran at half its rate alone
    // for the rest of the minute (3.59 Mbit/s in all against 4.39). Cut
    // from what it had in flight, it keeps pace with the paths alone.
    let (alone, r2cp) = alone_and_r2cp(&[(5000, 250, 100), (2000, 50, 50)], 876, 60);
    let ideal: f64 = alone.iter().sum();
    assert!(ideal > 4.3, "paths alone: {alone:?}");
    assert!(
        r2cp >= 0.95 * ideal,
        "R²CP {r2cp:.2} Mbit/s against Ideal {ideal:.2}"
    );
}

#[test]
fn a_deep_queue_on_a_slow_path_does_not_hold_the_buffer() {
    // Four paths, one of them 1 Mbit/s with a 400-packet queue (3.2 s of
    // it), with twice the sum of the bandwidths times the largest round
    // trip of buffer (451 segments). Each pipe's window used to fill its
    // queue as RCP's does alone, and the rank took its round trip as its
    // path's propagation: the deep-queued pipe held hundreds of segments
    // of buffer for seconds and the others waited, 5.0 Mbit/s against 8.3
    // for the paths alone. Either of two changes now prevents it: the queue
    // cap (no pipe holds more than twice its bandwidth-delay product or its
    // rate's share of half the buffer), and ranking each pipe by the round
    // trip it shows, its own queue included.
    let (alone, r2cp) = alone_and_r2cp(
        &[
            (1000, 100, 400),
            (2000, 50, 100),
            (5000, 100, 100),
            (1000, 100, 100),
        ],
        451,
        30,
    );
    let ideal: f64 = alone.iter().sum();
    assert!(ideal > 8.0, "paths alone: {alone:?}");
    assert!(
        r2cp >= 0.95 * ideal,
        "R²CP {r2cp:.2} Mbit/s against Ideal {ideal:.2}"
    );
}

#[test]
fn slow_pipes_keep_their_queues_short_beside_a_quick_one() {
    // A 2 Mbit/s path with the 100 ms propagation round trip of the 20
    // Mbit/s WLAN beside it, and a 50-packet queue (200 ms more), and a
    // third at 2 Mbit/s with 300 ms and a 400-packet queue; 501 segments of
    // buffer, twice the WLAN's bandwidth-delay product. Their windows kept
    // their queues full, their segments came late, and the WLAN waited for
    // them: 11.1 Mbit/s against its 13.0 alone (9.9 with the other changes
    // but no queue cap). Held to twice its bandwidth-delay product, a slow
    // pipe's round trip stays within twice its propagation.
    let (alone, r2cp) = alone_and_r2cp(
        &[(20000, 50, 50), (2000, 150, 400), (2000, 50, 50)],
        501,
        30,
    );
    assert!(alone[0] > 12.0, "WLAN alone: {:.2}", alone[0]);
    assert!(
        r2cp >= 0.95 * alone[0],
        "R²CP {r2cp:.2} Mbit/s against the WLAN alone {:.2}",
        alone[0]
    );
}

#[test]
fn requests_are_paced_when_the_buffer_opens_at_once() {
    // A 10 Mbit/s path beside 2 and 5 Mbit/s ones (the last a 500 ms round
    // trip), all with shallow queues, and twice the quick path's
    // bandwidth-delay product of buffer. When a slow pipe's segment let the
    // in-order point jump, the quick pipe asked for the whole opening at
    // once, and its 50-packet queue on the way up dropped a hundred
    // requests a run (each loss a window cut): 82 % of the path alone.
    // Paced, its requests leave at most ten at a time.
    let (alone, run) = alone_and_r2cp_run(
        &[(10000, 50, 50), (2000, 100, 100), (5000, 250, 50)],
        251,
        30,
    );
    let r2cp = run.summary.flows[0].goodput_mbps;
    assert!(alone[0] > 8.5, "quick path alone: {:.2}", alone[0]);
    assert!(
        r2cp >= 0.95 * alone[0],
        "R²CP {r2cp:.2} Mbit/s against the quick path alone {:.2}",
        alone[0]
    );
    let up = run
        .summary
        .links
        .iter()
        .find(|l| l.name == "path0" && l.direction == "MH0->BS0")
        .expect("the quick path's uplink");
    assert!(
        up.stats.drops_queue <= 5,
        "{} requests dropped on the way up",
        up.stats.drops_queue
    );
}

#[test]
fn capped_pipes_on_bursty_satellite_paths_with_deep_queues_keep_up_with_the_paths_alone() {
    // Three satellite paths (5, 1 and 5 Mbit/s, 250 ms one way, 400-packet
    // queues) with bursty Gilbert-Elliott channels, and a buffer of twice
    // the sum of their bandwidths times the round trip. RCP alone on each
    // overshoots its slow start into the deep queue and keeps half the
    // overshoot, more than the path's bandwidth-delay product; R²CP's pipes
    // are capped at twice that product. When a loss halved a pipe's capped
    // window, every later halving started from less than RCP's, and a
    // window regrows one segment per half-second round trip: 91 % of the
    // paths alone over these ten seeds. Halving the congestion window, as
    // Linux does for a sender its window does not limit, 99 %; 98.3 % since
    // a window below its path's product lets the request an answer clocks
    // leave unpaced (99.5 % over seeds 1 to 200).
    let loss = "loss = { model = \"gilbert-elliott\", good_loss = 0.0001, bad_loss = 0.05, \
                good_mean = \"10s\", bad_mean = \"1s\", direction = \"forward\" }";
    let (alone, text) = scenarios(
        &[(5000, 250, 400), (1000, 250, 400), (5000, 250, 400)],
        loss,
        1376,
        30,
    );
    let (mut ideal, mut r2cp) = (0.0, 0.0);
    for seed in 1..=10 {
        ideal += run_seed(&alone, seed)
            .summary
            .flows
            .iter()
            .map(|f| f.goodput_mbps)
            .sum::<f64>();
        let all = run_seed(&text, seed);
        assert_eq!(all.summary.flows[0].corrupt_bytes, 0);
        r2cp += all.summary.flows[0].goodput_mbps;
    }
    assert!(
        r2cp >= 0.95 * ideal,
        "R²CP {:.2} Mbit/s against Ideal {:.2} (means over ten seeds)",
        r2cp / 10.0,
        ideal / 10.0
    );
}

#[test]
fn by_reservation_a_short_buffer_carries_the_slow_path_too() {
    // Two 20 Mbit/s paths with round trips of about 24 and 124 ms and a
    // buffer of 300 segments, a quarter of the connection's rate times the
    // slow round trip (the league's shortest buffer on these paths). By
    // span no request ends past the read point plus the buffer, and a slow
    // path's segment is named a slow round trip before it lands: the
    // connection runs at about the quick path's rate. By reservation a
    // request holds its segment's room only while it is out and until the
    // segment is read, so the buffer holds what each path has in flight
    // (Little's law): the quick path's product and most of the slow one's.
    // Its senders' buffers grow to twice the span the receiver asks over,
    // so the slow pipe is not frozen for want of data its sender has.
    let paths = [(20_000, 10, 100), (20_000, 60, 100)];
    let (alone, text) = scenarios(&paths, "", 300, 20);
    let ideal: f64 = run(&alone)
        .summary
        .flows
        .iter()
        .map(|f| f.goodput_mbps)
        .sum();
    let by = |flow: &str| {
        let out = run(&format!("{text}policy = {{ flow = \"{flow}\" }}\n"));
        let f = &out.summary.flows[0];
        assert_eq!(f.corrupt_bytes, 0, "{flow}");
        f.goodput_mbps
    };
    let (span, reserve) = (by("span"), by("reserve"));
    // Each path alone, with the whole buffer, carries more than one path.
    assert!(ideal > 25.0, "the paths alone: {ideal:.2} Mbit/s");
    assert!(span < 21.0, "by span: {span:.2} Mbit/s");
    assert!(
        reserve >= 0.95 * ideal,
        "by reservation: {reserve:.2} Mbit/s against Ideal {ideal:.2}"
    );
}
