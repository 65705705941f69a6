//! Loader tests: errors name the key and the line (sweeps, templates and
//! random starts are in `sweep_tests`).

use super::*;
use crate::spec::LinkAction;

/// A valid two-node scenario; tests edit one line of it.
pub(super) const BASE: &str = r#"[scenario]
name = "t"
duration = "10s"

[[node]]
name = "A"
[[node]]
name = "B"

[[link]]
between = ["A", "B"]
rate = "10Mbit/s"
delay = "20ms"
queue = 50

[[flow]]
protocol = "tcp-sack"
from = "A"
to = "B"
"#;

/// 1-based line of the first line of `text` containing `needle`.
pub(super) fn line_of_text(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("`{needle}` not in text"))
        + 1
}

/// `BASE` with the line containing `from` replaced by `to`.
pub(super) fn edit(from: &str, to: &str) -> String {
    assert!(BASE.contains(from), "{from}");
    BASE.replacen(from, to, 1)
}

/// Parses `text`, expecting an error whose key contains `key` and whose line
/// is the line of `at` in `text`.
pub(super) fn expect_error(text: &str, key: &str, at: &str) -> ScenarioError {
    let e = match Scenario::parse("bad.toml", text) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e,
    };
    assert!(
        e.key.contains(key),
        "key `{}` should name `{key}`: {e}",
        e.key
    );
    assert_eq!(e.line, Some(line_of_text(text, at)), "line of `{at}`: {e}");
    assert_eq!(e.file, "bad.toml");
    let shown = e.to_string();
    assert!(
        shown.starts_with(&format!("bad.toml:{}:", e.line.unwrap())),
        "{shown}"
    );
    assert!(shown.contains(&e.key), "{shown}");
    e
}

#[test]
fn base_scenario_is_valid() {
    let sc = Scenario::parse("ok.toml", BASE).unwrap();
    assert_eq!(sc.name, "t");
    assert_eq!(sc.seeds, vec![1]);
    let spec = sc.build(&sc.points()[0], 1).unwrap();
    assert_eq!(spec.nodes, vec!["A", "B"]);
    assert_eq!(spec.links[0].rate_forward.bps(), 10_000_000);
    assert_eq!(spec.links[0].delay, Duration::from_millis(20));
    assert_eq!(spec.links[0].queue, 50);
    assert_eq!(spec.flows[0].protocol.name(), "tcp-sack");
}

#[test]
fn unknown_key_in_a_link() {
    let text = edit("queue = 50", "queue = 50\nbandwidth = \"5Mbit/s\"");
    let e = expect_error(&text, "link[0].bandwidth", "bandwidth");
    assert!(e.message.contains("bandwidth"), "{e}");
}

#[test]
fn unknown_key_in_the_header_and_in_tcp() {
    let text = edit(
        "duration = \"10s\"",
        "duration = \"10s\"\ndurration = \"5s\"",
    );
    let e = expect_error(&text, "scenario.durration", "durration");
    assert!(e.message.contains("durration"), "{e}");
    let text = format!("{BASE}\n[tcp]\nwindow = 20\nwindwo = 30\n");
    let e = expect_error(&text, "tcp.windwo", "windwo");
    assert!(e.message.contains("windwo"), "{e}");
}

#[test]
fn bad_rate_unit() {
    let text = edit("rate = \"10Mbit/s\"", "rate = \"10Mbx\"");
    let e = expect_error(&text, "link[0].rate", "10Mbx");
    assert!(e.message.contains("unknown unit"), "{e}");
}

#[test]
fn missing_time_unit() {
    let text = edit("delay = \"20ms\"", "delay = 20");
    let e = expect_error(&text, "link[0].delay", "delay = 20");
    assert!(e.message.contains("no unit"), "{e}");
    let text = edit("delay = \"20ms\"", "delay = \"20\"");
    let e = expect_error(&text, "link[0].delay", "delay = \"20\"");
    assert!(e.message.contains("no unit"), "{e}");
}

#[test]
fn negative_rate() {
    let text = edit("rate = \"10Mbit/s\"", "rate = \"-10Mbit/s\"");
    let e = expect_error(&text, "link[0].rate", "-10Mbit/s");
    assert!(e.message.contains("positive"), "{e}");
}

#[test]
fn unknown_node_in_a_link() {
    let text = edit("between = [\"A\", \"B\"]", "between = [\"A\", \"C\"]");
    let e = expect_error(&text, "link[0].between", "between");
    assert!(e.message.contains("`C`"), "{e}");
}

#[test]
fn unknown_node_in_a_flow() {
    let text = edit("from = \"A\"", "from = \"Z\"");
    let e = expect_error(&text, "flow[0].from", "from = \"Z\"");
    assert!(e.message.contains("`Z`"), "{e}");
    let text = edit("to = \"B\"", "to = \"Y\"");
    let e = expect_error(&text, "flow[0].to", "to = \"Y\"");
    assert!(e.message.contains("`Y`"), "{e}");
}

#[test]
fn unknown_protocol() {
    let text = edit("protocol = \"tcp-sack\"", "protocol = \"tcp-vegas\"");
    let e = expect_error(&text, "flow[0].protocol", "tcp-vegas");
    assert!(e.message.contains("tcp-vegas"), "{e}");
}

#[test]
fn unknown_sweep_parameter() {
    let text = edit("delay = \"20ms\"", "delay = \"${nope}ms\"");
    let e = expect_error(&text, "nope", "${nope}");
    assert!(e.message.contains("not a sweep parameter"), "{e}");
    // Also when other parameters exist.
    let text = format!(
        "{}\n[sweep.params]\nloss = [0.1]\n",
        edit("queue = 50", "queue = 50\nloss = \"${lost}\"")
    );
    expect_error(&text, "lost", "${lost}");
}

#[test]
fn queue_below_two_packets() {
    let text = edit("queue = 50", "queue = 0");
    let e = expect_error(&text, "link[0].queue", "queue = 0");
    assert!(e.message.contains("at least 2"), "{e}");
    // ns-2 semantics would make a limit of 1 drop every packet.
    let text = edit("queue = 50", "queue = 1");
    expect_error(&text, "link[0].queue", "queue = 1");
    let text = edit("queue = 50", "queue = -3");
    expect_error(&text, "link[0].queue", "queue = -3");
}

#[test]
fn errors_point_at_the_right_table_of_several() {
    // The second link and second flow are wrong: the key says so.
    let text = format!(
        "{BASE}\n[[node]]\nname = \"C\"\n\n[[link]]\nbetween = [\"B\", \"C\"]\nrate = \"1Mbit/s\"\ndelay = \"1ms\"\nqueue = 0\n"
    );
    expect_error(&text, "link[1].queue", "queue = 0");
    let text = format!("{BASE}\n[[flow]]\nprotocol = \"udp\"\nfrom = \"A\"\nto = \"Q\"\n");
    expect_error(&text, "flow[1].to", "to = \"Q\"");
}

#[test]
fn pipes_only_for_r2cp_flows() {
    let text = format!("{BASE}pipes = [{{ via = \"B\" }}]\n");
    expect_error(&text, "flow[0].pipes", "protocol = \"tcp-sack\"");
}

#[test]
fn a_pipe_through_an_unknown_node() {
    let text = edit("protocol = \"tcp-sack\"", "protocol = \"r2cp\"")
        + "pipes = [{ via = \"Z\", from = \"A\" }]\n";
    expect_error(&text, "flow[0].pipes[0].via", "pipes = [");
}

#[test]
fn a_pipe_that_closes_before_it_opens() {
    let text = edit("protocol = \"tcp-sack\"", "protocol = \"r2cp\"")
        + "pipes = [{ via = \"B\", open = \"5s\", close = \"2s\" }]\n";
    expect_error(&text, "flow[0].pipes[0].close", "pipes = [");
}

#[test]
fn pipes_on_one_interface_and_server_one_after_the_other() {
    let pipes = |protocol: &str, second_opens: &str| {
        edit("protocol = \"tcp-sack\"", &format!("protocol = \"{protocol}\""))
            + &format!(
                "pipes = [{{ via = \"B\", drop = \"3s\" }},\n         {{ via = \"B\", open = \"{second_opens}\" }}]\n"
            )
    };
    // An R²CP flow: a new pipe once the first is gone (a new attachment).
    let sc = Scenario::parse("t.toml", &pipes("r2cp", "3s")).unwrap();
    let spec = sc.build(&sc.points()[0], 1).unwrap();
    assert_eq!(spec.flows[0].pipes.len(), 2);
    // Both at once is one path twice.
    let e = expect_error(
        &pipes("r2cp", "2s"),
        "flow[0].pipes[1].via",
        "{ via = \"B\", open",
    );
    assert!(e.message.contains("at the same time"), "{e}");
    // pTCP's pipes stay one per interface and server.
    expect_error(
        &pipes("ptcp", "3s"),
        "flow[0].pipes[1].via",
        "{ via = \"B\", open",
    );
}

#[test]
fn an_r2cp_flow_without_pipes_has_one_from_from_to_to() {
    let text = edit("protocol = \"tcp-sack\"", "protocol = \"r2cp-s\"");
    let sc = Scenario::parse("t.toml", &text).unwrap();
    let spec = sc.build(&sc.points()[0], 1).unwrap();
    let f = &spec.flows[0];
    assert_eq!(f.protocol.name(), "r2cp-s");
    assert_eq!(f.pipes.len(), 1);
    assert_eq!((f.pipes[0].server, f.pipes[0].via), (f.from, f.to));
}

#[test]
fn an_unknown_pipe_controller() {
    let text = edit("protocol = \"tcp-sack\"", "protocol = \"r2cp\"")
        + "pipes = [{ via = \"B\", controller = \"tcp-eln\" }]\n";
    expect_error(&text, "flow[0].pipes[0].controller", "pipes = [");
}

#[test]
fn a_policy_only_on_r2cp_flows() {
    let text = format!("{BASE}policy = {{ redundant_striping = false }}\n");
    expect_error(&text, "flow[0].policy", "policy = {");
}

#[test]
fn a_target_rate_preferring_a_pipe_that_does_not_exist() {
    let text = edit("protocol = \"tcp-sack\"", "protocol = \"r2cp\"")
        + "pipes = [{ via = \"B\" }]\npolicy = { target = \"1Mbit/s\", prefer = 1 }\n";
    let e = expect_error(&text, "flow[0].policy.prefer", "policy = {");
    assert!(e.message.contains("0 to 0"), "{e}");
}

#[test]
fn a_target_rate_needs_a_preferred_pipe() {
    let text = edit("protocol = \"tcp-sack\"", "protocol = \"r2cp\"")
        + "policy = { target = \"1Mbit/s\" }\n";
    expect_error(&text, "flow[0].policy.target", "policy = {");
}

#[test]
fn a_policy_sets_the_target_and_striping() {
    let text = edit("protocol = \"tcp-sack\"", "protocol = \"r2cp\"")
        + "policy = { target = \"2Mbit/s\", prefer = 0, period = \"50ms\", redundant_striping = false }\n";
    let sc = Scenario::parse("t.toml", &text).unwrap();
    let spec = sc.build(&sc.points()[0], 1).unwrap();
    let FlowProtocol::R2cp(c) = &spec.flows[0].protocol else {
        panic!("an R²CP flow");
    };
    assert!(!c.rules.redundant_striping);
    let t = c.target.expect("a target");
    assert_eq!(t.rate.bps(), 2_000_000);
    assert_eq!(t.prefer.0, 0);
    assert_eq!(t.period.as_secs_f64(), 0.05);
}

#[test]
fn a_policy_switches_rules_off_by_name() {
    let text = edit("protocol = \"tcp-sack\"", "protocol = \"r2cp\"")
        + "policy = { without = [\"pacing\", \"reinject\"] }\n";
    let sc = Scenario::parse("t.toml", &text).unwrap();
    let spec = sc.build(&sc.points()[0], 1).unwrap();
    let FlowProtocol::R2cp(c) = &spec.flows[0].protocol else {
        panic!("an R²CP flow");
    };
    assert!(!c.rules.pacing && !c.rules.reinject);
    assert_eq!(c.rules.on().len(), radial_core::r2cp::Rules::LIST.len() - 2);
    let bad = edit("protocol = \"tcp-sack\"", "protocol = \"r2cp\"")
        + "policy = { without = [\"pacing\", \"magic\"] }\n";
    let e = expect_error(&bad, "flow[0].policy.without", "policy = {");
    assert!(e.message.contains("unknown rule `magic`"), "{e}");
    assert!(
        e.message.contains("look_ahead"),
        "lists the known rules: {e}"
    );
    let ptcp = edit("protocol = \"tcp-sack\"", "protocol = \"ptcp\"")
        + "policy = { without = [\"pacing\"] }\n";
    expect_error(&ptcp, "flow[0].policy.without", "policy = {");
}

#[test]
fn an_r2cp_flow_controls_its_buffer_by_span_or_by_reservation() {
    use radial_core::r2cp::FlowControl;
    let flow = |protocol: &str, name: &str| {
        edit(
            "protocol = \"tcp-sack\"",
            &format!("protocol = \"{protocol}\""),
        ) + &format!("policy = {{ flow = \"{name}\" }}\n")
    };
    for (name, want) in [
        ("reserve", FlowControl::Reserve),
        ("span", FlowControl::Span),
    ] {
        let sc = Scenario::parse("t.toml", &flow("r2cp", name)).unwrap();
        let spec = sc.build(&sc.points()[0], 1).unwrap();
        let FlowProtocol::R2cp(c) = &spec.flows[0].protocol else {
            panic!("an R²CP flow");
        };
        assert_eq!(c.flow, want);
    }
    // The papers' engines keep the papers' flow control unless told.
    let paper = edit("protocol = \"tcp-sack\"", "protocol = \"r2cp-paper\"");
    let sc = Scenario::parse("t.toml", &paper).unwrap();
    let spec = sc.build(&sc.points()[0], 1).unwrap();
    let FlowProtocol::R2cp(c) = &spec.flows[0].protocol else {
        panic!("an R²CP flow");
    };
    assert_eq!(c.flow, FlowControl::Reserve);
    let sc = Scenario::parse("t.toml", &flow("r2cp-paper", "span")).unwrap();
    let spec = sc.build(&sc.points()[0], 1).unwrap();
    let FlowProtocol::R2cp(c) = &spec.flows[0].protocol else {
        panic!("an R²CP flow");
    };
    assert_eq!(c.flow, FlowControl::Span);
    let e = expect_error(&flow("r2cp", "loose"), "flow[0].policy.flow", "policy = {");
    assert!(e.message.contains("reserve, span"), "{e}");
    expect_error(
        &flow("ptcp", "reserve"),
        "flow[0].policy.flow",
        "policy = {",
    );
}

#[test]
fn handoffs_only_on_single_path_flows() {
    let text = edit("protocol = \"tcp-sack\"", "protocol = \"r2cp\"")
        + "handoffs = [{ at = \"5s\", to = \"A\" }]\n";
    expect_error(&text, "flow[0].handoffs[0]", "handoffs = [");
}

#[test]
fn handoffs_in_ascending_time() {
    let text = format!(
        "{BASE}handoffs = [{{ at = \"5s\", to = \"A\" }}, {{ at = \"4s\", to = \"B\" }}]\n"
    );
    expect_error(&text, "flow[0].handoffs[1].at", "handoffs = [");
}

#[test]
fn max_rto_below_min_rto() {
    let text = BASE.replace(
        "[[node]]\nname = \"A\"",
        "[tcp]\nmin_rto = \"1s\"\nmax_rto = \"200ms\"\n\n[[node]]\nname = \"A\"",
    );
    let e = expect_error(&text, "max_rto", "max_rto =");
    assert!(e.message.contains("below min_rto"), "{e}");
}

#[test]
fn an_initial_rto_outside_min_rto_to_max_rto() {
    for rto in ["1ns", "100000s"] {
        let text = BASE.replace(
            "[[node]]\nname = \"A\"",
            &format!("[tcp]\ninitial_rto = \"{rto}\"\n\n[[node]]\nname = \"A\""),
        );
        let e = expect_error(&text, "initial_rto", "initial_rto =");
        assert!(e.message.contains("outside min_rto to max_rto"), "{e}");
    }
}

#[test]
fn a_packet_larger_than_ip_carries_or_a_window_larger_than_tcp_has() {
    // Both once ran until memory ran out: the sender's buffer holds two
    // windows.
    let tcp = |line: &str| {
        BASE.replace(
            "[[node]]\nname = \"A\"",
            &format!("[tcp]\n{line}\n\n[[node]]\nname = \"A\""),
        )
    };
    let e = expect_error(
        &tcp("packet_size = 100000000000"),
        "packet_size",
        "packet_size =",
    );
    assert!(e.message.contains("largest IPv4 packet"), "{e}");
    assert!(Scenario::parse("ok.toml", &tcp("packet_size = 65495")).is_ok());
    let e = expect_error(&tcp("window = 1000000000000"), "window", "window =");
    assert!(e.message.contains("at most 1073741 segments"), "{e}");
    assert!(Scenario::parse("ok.toml", &tcp("window = 1073741")).is_ok());
}

#[test]
fn a_channel_state_shorter_than_a_packet() {
    // 1040-byte packets at 10 Mbit/s take 0.83 ms.
    let loss = "loss = { model = \"gilbert-elliott\", good_loss = 0.0, bad_loss = 1.0, good_mean = \"10s\", bad_mean = \"500us\" }";
    let text = edit("queue = 50", &format!("queue = 50\n{loss}"));
    let e = expect_error(&text, "link[0].loss.bad_mean", "loss = {");
    assert!(e.message.contains("shorter than one packet"), "{e}");
    let ok = text.replace("500us", "1ms");
    assert!(Scenario::parse("ok.toml", &ok).is_ok());
}

#[test]
fn a_sample_interval_of_millions_of_samples() {
    // A microsecond for a millisecond: ten million samples of a 10 s run.
    let line = "[scenario]\nsample_interval = \"1us\"";
    let text = BASE.replacen("[scenario]", line, 1);
    let e = expect_error(&text, "sample_interval", "sample_interval =");
    assert!(e.message.contains("at most 1000000"), "{e}");
    for ok in ["10us", "0s"] {
        let text = text.replace("1us", ok);
        assert!(Scenario::parse("ok.toml", &text).is_ok(), "{ok}");
    }
}

#[test]
fn a_pipe_dropped_before_it_is_closed() {
    let text = edit("protocol = \"tcp-sack\"", "protocol = \"r2cp\"")
        + "pipes = [{ via = \"B\", close = \"5s\", drop = \"3s\" }]\n";
    expect_error(&text, "flow[0].pipes[0].close", "pipes = [");
}

#[test]
fn a_flow_starting_after_the_end() {
    let text = format!("{BASE}start = \"12s\"\n");
    expect_error(&text, "flow[0].start", "protocol = \"tcp-sack\"");
}

#[test]
fn repeating_schedule_entries_expand_until_the_end() {
    let text = format!(
        "{BASE}\n[[schedule]]\nat = \"1s\"\nevery = \"4s\"\nlink = \"A-B\"\naction = \"down\"\nsignal = true\n\n[[schedule]]\nat = \"3s\"\nevery = \"4s\"\nuntil = \"8s\"\nlink = \"A-B\"\naction = \"up\"\n"
    );
    let sc = Scenario::parse("t.toml", &text).unwrap();
    let spec = sc.build(&sc.points()[0], 1).unwrap();
    let got: Vec<(u64, bool, bool)> = spec
        .schedule
        .iter()
        .map(|e| (e.at.as_millis(), e.action == LinkAction::Down, e.signal))
        .collect();
    assert_eq!(
        got,
        [
            (1000, true, true),
            (3000, false, false),
            (5000, true, true),
            (7000, false, false),
            (9000, true, true)
        ]
    );
    // A period of nothing, an `until` before `at`, and a signal on a rate
    // change are errors.
    let zero = text.replacen("every = \"4s\"", "every = \"0s\"", 1);
    expect_error(&zero, "schedule[0].every", "action = \"down\"");
    let before = text.replace("until = \"8s\"", "until = \"2s\"");
    expect_error(&before, "schedule[1].every", "action = \"up\"");
    let rate = text.replace(
        "action = \"down\"\nsignal = true",
        "action = \"rate\"\nrate = \"1Mbit/s\"\nsignal = true",
    );
    expect_error(&rate, "schedule[0].signal", "action = \"rate\"");
}

#[test]
fn repeating_handoffs_merge_in_time_order() {
    let text = edit("to = \"B\"", "to = \"B\"\nhandoffs = [{ at = \"2s\", every = \"4s\", to = \"A\" }, { at = \"4s\", every = \"4s\", to = \"B\" }]");
    let sc = Scenario::parse("t.toml", &text).unwrap();
    let spec = sc.build(&sc.points()[0], 1).unwrap();
    let times: Vec<u64> = spec.flows[0]
        .handoffs
        .iter()
        .map(|h| h.0.as_millis())
        .collect();
    assert_eq!(times, [2000, 4000, 6000, 8000]);
    let clash = text.replace("at = \"4s\"", "at = \"6s\"");
    let e = Scenario::parse("t.toml", &clash).unwrap_err();
    assert_eq!(e.key, "flow[0].handoffs");
}

#[test]
fn several_zip_groups_each_advance_together() {
    let text = BASE.to_string()
        + "\n[sweep]\nzip = [[\"a\", \"b\"], [\"c\", \"d\"]]\n[sweep.params]\na = [1, 2]\nb = [10, 20]\nc = [true, false]\nd = [\"x\", \"y\"]\n";
    let sc = Scenario::parse("zip.toml", &text).unwrap();
    let points: Vec<String> = sc
        .points()
        .iter()
        .map(|p| ["a", "b", "c", "d"].map(|n| p.text(n).unwrap()).join(" "))
        .collect();
    assert_eq!(
        points,
        ["1 10 true x", "1 10 false y", "2 20 true x", "2 20 false y"]
    );
    let twice = text.replace("[\"c\", \"d\"]]", "[\"c\", \"a\"]]");
    assert_eq!(
        Scenario::parse("zip.toml", &twice).unwrap_err().key,
        "sweep.zip"
    );
}

#[test]
fn mptcp_and_coupled_protocols_by_name() {
    for (name, pipes) in [
        ("mptcp-lia", true),
        ("mptcp-olia", true),
        ("mptcp-uncoupled", true),
        ("r2cp-coupled", true),
    ] {
        let text = edit("protocol = \"tcp-sack\"", &format!("protocol = \"{name}\""));
        let sc = Scenario::parse("t.toml", &text).unwrap();
        let spec = sc.build(&sc.points()[0], 1).unwrap();
        assert_eq!(spec.flows[0].protocol.name(), name);
        assert_eq!(!spec.flows[0].pipes.is_empty(), pipes);
    }
    let e = expect_error(
        &edit("protocol = \"tcp-sack\"", "protocol = \"mptcp\""),
        "flow[0].protocol",
        "protocol = \"mptcp\"",
    );
    assert!(e.message.contains("mptcp-lia"), "{e}");
}

#[test]
fn an_mptcp_scheduler_in_the_policy() {
    let text = edit("protocol = \"tcp-sack\"", "protocol = \"mptcp-lia\"")
        + "policy = { scheduler = \"ecf\" }\n";
    let sc = Scenario::parse("t.toml", &text).unwrap();
    let spec = sc.build(&sc.points()[0], 1).unwrap();
    let FlowProtocol::Ptcp(c) = &spec.flows[0].protocol else {
        panic!("not the sender-side engine");
    };
    assert_eq!(
        c.mptcp.map(|m| m.scheduler),
        Some(radial_core::mptcp::Scheduler::Ecf)
    );
    // MPTCP does not stripe redundantly unless the policy says so.
    assert!(!c.redundant_striping);
    let bad = edit("protocol = \"tcp-sack\"", "protocol = \"mptcp-lia\"")
        + "policy = { scheduler = \"blest\" }\n";
    expect_error(&bad, "flow[0].policy.scheduler", "policy = {");
    let not_mptcp = edit("protocol = \"tcp-sack\"", "protocol = \"ptcp\"")
        + "policy = { scheduler = \"ecf\" }\n";
    expect_error(&not_mptcp, "flow[0].policy.scheduler", "policy = {");
    let r2cp = edit("protocol = \"tcp-sack\"", "protocol = \"r2cp\"")
        + "policy = { scheduler = \"ecf\" }\n";
    expect_error(&r2cp, "flow[0].policy.scheduler", "policy = {");
}

#[test]
fn red_on_a_link() {
    let text = edit("queue = 50", "queue = 50\nred = { max_p = 0.2 }");
    let sc = Scenario::parse("t.toml", &text).unwrap();
    let spec = sc.build(&sc.points()[0], 1).unwrap();
    let red = spec.links[0].red.expect("RED");
    assert_eq!(red.max_p, 0.2);
    assert_eq!(red.min_thresh, 5.0);
    let bad = edit(
        "queue = 50",
        "queue = 50\nred = { min_thresh = 20, max_thresh = 10 }",
    );
    let e = expect_error(&bad, "link[0].red", "red = {");
    assert!(e.message.contains("max_thresh"), "{e}");
    let unknown = edit("queue = 50", "queue = 50\nred = { gentle = false }");
    expect_error(&unknown, "gentle", "red = {");
}

#[test]
fn a_figure_table_is_read_as_words_and_checked() {
    let text = format!(
        "{BASE}\n[figure]\ntitle = \"T\"\nclaim = \"\"\"\nthe paper \\\n  says\"\"\"\nnotes = \"N\"\n"
    );
    let sc = Scenario::parse("f.toml", &text).unwrap();
    let figure = sc.figure.expect("read");
    assert_eq!((figure.title.as_str(), figure.x_label.as_str()), ("T", ""));
    assert_eq!(figure.claim, "the paper says");
    assert!(Scenario::parse("f.toml", BASE).unwrap().figure.is_none());
    let e = Scenario::parse(
        "f.toml",
        &format!("{BASE}\n[figure]\ntitle = \"T\"\nclaim = \"C\"\nnotes = \"N\"\nlegend = \"x\"\n"),
    )
    .unwrap_err();
    assert_eq!(e.key, "figure.legend");
    assert_eq!(
        e.line,
        Some(line_of_text(&format!("{BASE}\n[figure]"), "[figure]"))
    );
    let e = Scenario::parse(
        "f.toml",
        &format!("{BASE}\n[figure]\ntitle = 3\nclaim = \"C\"\nnotes = \"N\"\n"),
    )
    .unwrap_err();
    assert_eq!(
        (e.key.as_str(), e.message.as_str()),
        ("figure.title", "must be a string")
    );
    let e = Scenario::parse(
        "f.toml",
        &format!("{BASE}\n[figure]\ntitle = \"T\"\nnotes = \"N\"\n"),
    )
    .unwrap_err();
    assert_eq!(e.key, "figure.claim");
}
