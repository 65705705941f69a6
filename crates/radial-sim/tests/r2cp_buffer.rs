//! R²CP over unlike paths and a bounded receive buffer: slow pipes must not
//! hold up the quick one, so the connection goes at least about as fast as
//! its best path alone, and with a buffer that can carry every path it
//! goes as fast as the paths alone together.

use radial_sim::{RunOutput, Scenario, Simulator};

fn run(text: &str) -> RunOutput {
    let sc = Scenario::parse("r2cp_buffer.toml", text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let spec = sc
        .build(&sc.points()[0], 1)
        .unwrap_or_else(|e| panic!("{e}"));
    Simulator::new(spec).run()
}

/// A server S and a mobile host with one interface MH`i` per path, each a
/// last hop of (kbit/s, one-way delay in ms, queue in packets), for
/// `secs` seconds with a receive buffer of `window` segments. Returns the
/// goodput of RCP on each path alone (all at once: the paths share
/// nothing) and of R²CP over all of them.
fn alone_and_r2cp(paths: &[(u64, u64, u64)], window: u64, secs: u64) -> (Vec<f64>, f64) {
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
             [[link]]\nbetween = [\"BS{i}\", \"MH{i}\"]\nrate = \"{rate}kbit/s\"\n\
             delay = \"1ms\"\nqueue = {queue}\n",
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
    let alone = run(&alone);
    let r2cp = run(&text);
    let all = &r2cp.summary.flows[0];
    assert_eq!(all.corrupt_bytes, 0);
    let each = alone.summary.flows.iter().map(|f| f.goodput_mbps).collect();
    (each, all.goodput_mbps)
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
