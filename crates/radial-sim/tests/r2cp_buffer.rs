//! R²CP with a receive buffer that cannot carry every pipe's
//! bandwidth-delay product: slow pipes must not hold up the quick one, so
//! the connection goes at least about as fast as its best path alone.

use radial_sim::{RunOutput, Scenario, Simulator};

fn run(text: &str) -> RunOutput {
    let sc = Scenario::parse("r2cp_buffer.toml", text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let spec = sc
        .build(&sc.points()[0], 1)
        .unwrap_or_else(|e| panic!("{e}"));
    Simulator::new(spec).run()
}

/// A server S and a mobile host with three interfaces: 2 Mbit/s with a
/// 30 ms one-way delay and a 50-packet queue, 500 kbit/s (100 ms, 50) and a
/// 20 Mbit/s WLAN (30 ms, a 400-packet queue). The buffer, 301 segments,
/// is twice the WLAN's bandwidth-delay product. `flows` is the `[[flow]]`
/// part.
fn three_paths(flows: &str) -> String {
    let mut text = String::from(
        "[scenario]\nname = \"slow-pipes-small-buffer\"\nduration = \"30s\"\n\
         [tcp]\npacket_size = 1000\nwindow = 301\n\
         [[node]]\nname = \"S\"\n[[node]]\nname = \"C\"\n\
         [[link]]\nbetween = [\"S\", \"C\"]\nrate = \"1Gbit/s\"\ndelay = \"1ms\"\n",
    );
    for (i, (rate, delay, queue)) in [(2000, 30, 50), (500, 100, 50), (20000, 30, 400)]
        .into_iter()
        .enumerate()
    {
        text += &format!(
            "[[node]]\nname = \"BS{i}\"\n[[node]]\nname = \"MH{i}\"\n\
             [[link]]\nbetween = [\"C\", \"BS{i}\"]\nrate = \"1Gbit/s\"\ndelay = \"{}ms\"\n\
             [[link]]\nbetween = [\"BS{i}\", \"MH{i}\"]\nrate = \"{rate}kbit/s\"\n\
             delay = \"1ms\"\nqueue = {queue}\n",
            delay - 1
        );
    }
    text + flows
}

#[test]
fn slow_pipes_do_not_hold_up_the_quick_one() {
    let alone = run(&three_paths(
        "[[flow]]\nname = \"wlan\"\nprotocol = \"rcp\"\nfrom = \"S\"\nto = \"MH2\"\n",
    ));
    let r2cp = run(&three_paths(
        "[[flow]]\nname = \"all\"\nprotocol = \"r2cp\"\nfrom = \"S\"\nto = \"MH0\"\n\
         pipes = [ { via = \"MH0\" }, { via = \"MH1\" }, { via = \"MH2\" } ]\n",
    ));
    let (best, all) = (&alone.summary.flows[0], &r2cp.summary.flows[0]);
    assert_eq!(all.corrupt_bytes, 0);
    // The WLAN alone carries about 18.9 Mbit/s. When the slow pipes' rank
    // counted only what the WLAN's pipe had outstanding (little, while the
    // buffer held it back), they were given segments near the head of
    // line, and R²CP fell to 7 Mbit/s; it now reaches 95 % of the WLAN
    // alone (the results pages check that bound; here, with a margin).
    assert!(
        best.goodput_mbps > 18.0,
        "WLAN alone: {:.2}",
        best.goodput_mbps
    );
    assert!(
        all.goodput_mbps >= 0.9 * best.goodput_mbps,
        "R²CP {:.2} Mbit/s against the WLAN alone {:.2}",
        all.goodput_mbps,
        best.goodput_mbps
    );
}
