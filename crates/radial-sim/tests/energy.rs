//! The radio energy model: time in each state follows the packets the node
//! sent and received, and energy is power × time per state.

use radial_sim::{Scenario, Simulator};

const SCENARIO: &str = r#"
[scenario]
name = "energy"
duration = "60s"

[[node]]
name = "S"
[[node]]
name = "MH"
energy = { tx = "1.65W", rx = "1.4W", idle = "1.2W", sleep = "45mW" }

[[link]]
between = ["S", "MH"]
rate = "2Mbit/s"
delay = "15ms"
queue = 50
loss = 0.01

[[flow]]
protocol = "tcp-sack"
from = "S"
to = "MH"
size = "1MB"
"#;

#[test]
fn energy_is_power_times_time_in_each_state() {
    let sc = Scenario::parse("energy.toml", SCENARIO).unwrap();
    let spec = sc.build(&sc.points()[0], 1).unwrap();
    let out = Simulator::new(spec).run();
    let s = &out.summary;
    assert_eq!(s.nodes.len(), 1, "only MH models energy");
    let mh = &s.nodes[0];
    assert_eq!(mh.name, "MH");
    let down = s.links.iter().find(|l| l.direction == "S->MH").unwrap();
    let up = s.links.iter().find(|l| l.direction == "MH->S").unwrap();
    // Receive time: every frame that crossed the link into MH, lost or not.
    let rx = down.stats.tx_bytes as f64 * 8.0 / 2e6;
    let tx = up.stats.tx_bytes as f64 * 8.0 / 2e6;
    assert!((mh.rx_s - rx).abs() < 1e-6, "{} vs {rx}", mh.rx_s);
    assert!((mh.tx_s - tx).abs() < 1e-6, "{} vs {tx}", mh.tx_s);
    assert!(
        down.stats.drops_channel > 0,
        "lost frames count as received airtime"
    );
    assert!((mh.idle_s - (60.0 - rx - tx)).abs() < 1e-6);
    assert_eq!(mh.sleep_s, 0.0);
    let want = 1.65 * tx + 1.4 * rx + 1.2 * mh.idle_s;
    assert!((mh.energy_j - want).abs() < 1e-9);
    // 1 MB delivered: joules per megabyte is the whole energy.
    assert_eq!(s.flows[0].bytes_delivered, 1_000_000);
    assert!((mh.energy_per_mb_j.unwrap() - mh.energy_j).abs() < 1e-9);
}

#[test]
fn bad_power_units_name_the_key() {
    let text = SCENARIO.replace("sleep = \"45mW\"", "sleep = \"45\"");
    let e = Scenario::parse("energy.toml", &text).unwrap_err();
    assert!(e.key.contains("energy"), "{e}");
    assert!(e.message.contains("no unit"), "{e}");
}

/// A two-state channel whose bad state lasts seconds: the RCP host with power
/// saving sleeps through it (and keeps every byte intact), the TCP host never
/// sleeps, and sleeping costs less energy per megabyte.
#[test]
fn rcp_host_sleeps_in_bad_states_and_tcp_host_does_not() {
    let text = |proto: &str| {
        format!(
            r#"
[scenario]
name = "sleep"
duration = "120s"

[tcp]
power_save = true

[[node]]
name = "S"
[[node]]
name = "MH"
energy = {{ tx = "1.65W", rx = "1.4W", idle = "1.4W", sleep = "45mW" }}

[[link]]
between = ["S", "MH"]
rate = "2Mbit/s"
delay = "15ms"
queue = 50
loss = {{ model = "gilbert-elliott", good_loss = 0.0001, bad_loss = 0.1, good_mean = "10s", bad_mean = "8s" }}

[[flow]]
protocol = "{proto}"
from = "S"
to = "MH"
"#
        )
    };
    let run = |proto: &str| {
        let sc = Scenario::parse("sleep.toml", &text(proto)).unwrap();
        let spec = sc.build(&sc.points()[0], 3).unwrap();
        Simulator::new(spec).run().summary
    };
    let rcp = run("rcp");
    let tcp = run("tcp-sack");
    let (r, t) = (&rcp.nodes[0], &tcp.nodes[0]);
    assert!(r.sleep_s > 10.0, "the RCP host slept: {} s", r.sleep_s);
    assert_eq!(t.sleep_s, 0.0, "TCP keeps the interface awake");
    let asleep_drops: u64 = rcp.links.iter().map(|l| l.stats.drops_asleep).sum();
    assert_eq!(
        tcp.links.iter().map(|l| l.stats.drops_asleep).sum::<u64>(),
        0
    );
    assert!(
        asleep_drops < 200,
        "little is in flight when the host falls asleep: {asleep_drops}"
    );
    assert_eq!(rcp.flows[0].corrupt_bytes, 0);
    assert!(rcp.flows[0].bytes_delivered > 5_000_000);
    assert!(
        r.energy_per_mb_j.unwrap() < t.energy_per_mb_j.unwrap(),
        "{:?} vs {:?}",
        r.energy_per_mb_j,
        t.energy_per_mb_j
    );
    assert_eq!(rcp.flows[0].timeouts, 0, "timers are frozen while asleep");
}
