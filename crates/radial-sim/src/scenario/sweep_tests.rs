//! Sweeps: parameters, zip groups, templates and `--set` overrides.

use super::tests::{edit, expect_error, line_of_text};
use super::*;

const SWEEP: &str = r#"[scenario]
name = "sweep"
duration = "10s"

[[node]]
name = "A"
[[node]]
name = "B"

[[link]]
between = ["A", "B"]
rate = "10Mbit/s"
delay = "${delay_ms}ms"
queue = 50
loss = "${loss}"

[[flow]]
protocol = "${variant}"
from = "A"
to = "B"

[sweep]
seeds = [3, 4]

[sweep.params]
loss = [0.0, 0.01, 0.05]
delay_ms = [10, 250]
variant = ["tcp-sack", "tcp-newreno"]
"#;

#[test]
fn sweep_expands_to_the_product_of_its_lists() {
    let sc = Scenario::parse("sweep.toml", SWEEP).unwrap();
    assert_eq!(sc.seeds, vec![3, 4]);
    let names: Vec<&str> = sc.params.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, vec!["loss", "delay_ms", "variant"]);
    let points = sc.points();
    assert_eq!(points.len(), 3 * 2 * 2);
    // The first parameter varies slowest.
    let texts: Vec<(String, String, String)> = points
        .iter()
        .map(|p| {
            (
                p.text("loss").unwrap(),
                p.text("delay_ms").unwrap(),
                p.text("variant").unwrap(),
            )
        })
        .collect();
    assert_eq!(
        texts[..3],
        [
            ("0.0".into(), "10".into(), "tcp-sack".into()),
            ("0.0".into(), "10".into(), "tcp-newreno".into()),
            ("0.0".into(), "250".into(), "tcp-sack".into()),
        ]
    );
    assert_eq!(
        texts[11],
        ("0.05".into(), "250".into(), "tcp-newreno".into())
    );
    let unique: std::collections::BTreeSet<_> = texts.iter().collect();
    assert_eq!(unique.len(), 12);
    // "${loss}" became a number, "${delay_ms}ms" a time, "${variant}" a name.
    for (p, t) in points.iter().zip(&texts) {
        let spec = sc.build(p, 4).unwrap();
        assert_eq!(spec.seed, 4);
        let loss: f64 = t.0.parse().unwrap();
        assert_eq!(spec.links[0].loss_forward, LossSpec::Bernoulli(loss));
        assert_eq!(spec.links[0].loss_reverse, LossSpec::Bernoulli(loss));
        let ms: u64 = t.1.parse().unwrap();
        assert_eq!(spec.links[0].delay, Duration::from_millis(ms));
        assert_eq!(spec.flows[0].protocol.name(), t.2);
    }
}

#[test]
fn sweep_values_of_the_wrong_type_are_errors() {
    // A string where a number belongs: "${loss}" is replaced by the quoted
    // value and the loss must then be a number.
    let text = SWEEP.replace("loss = [0.0, 0.01, 0.05]", "loss = [\"x\"]");
    let e = Scenario::parse("sweep.toml", &text).unwrap_err();
    assert!(e.key.contains("loss"), "{e}");
    // A loss probability out of range is caught after substitution.
    let text = SWEEP.replace("loss = [0.0, 0.01, 0.05]", "loss = [0.5, 1.5]");
    let e = Scenario::parse("sweep.toml", &text).unwrap_err();
    assert!(e.key.contains("loss"), "{e}");
    assert!(e.message.contains("1.5"), "{e}");
}

#[test]
fn a_value_of_none_of_its_forms_says_which_forms_it_may_take() {
    let text = edit("queue = 50", "queue = 50\nloss = [0.1]");
    let e = expect_error(&text, "link[0].loss", "loss = [0.1]");
    assert_eq!(e.key, "link[0].loss", "no internal key segments: {e}");
    assert!(e.message.contains("loss probability"), "{e}");
    let text = edit("to = \"B\"", "to = \"B\"\nstart = 3");
    let e = expect_error(&text, "flow[0].start", "start = 3");
    assert!(e.message.contains("uniform"), "{e}");
}

#[test]
fn sweep_parameters_keep_declaration_order() {
    // Declared rate_mbps first, loss second. `loss` is also a link key
    // written at the start of a line earlier in the file.
    let text = SWEEP
        .replace("rate = \"10Mbit/s\"", "rate = \"${rate_mbps}Mbit/s\"")
        .replace(
            "loss = [0.0, 0.01, 0.05]\ndelay_ms = [10, 250]\nvariant = [\"tcp-sack\", \"tcp-newreno\"]",
            "rate_mbps = [1, 2]\nloss = [0.0, 0.01, 0.05]",
        )
        .replace("delay = \"${delay_ms}ms\"", "delay = \"10ms\"")
        .replace("protocol = \"${variant}\"", "protocol = \"tcp-sack\"");
    let sc = Scenario::parse("order.toml", &text).unwrap();
    let names: Vec<&str> = sc.params.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, vec!["rate_mbps", "loss"], "declaration order");
    let first = sc.points()[1].clone();
    assert_eq!(
        first.text("rate_mbps").as_deref(),
        Some("1"),
        "first varies slowest"
    );
}

#[test]
fn sweep_parameter_named_like_the_prefix_of_a_key_keeps_its_place() {
    // `proto` is declared last; `protocol = ...` starts a line earlier.
    let text = SWEEP
        .replace("${variant}", "${proto}")
        .replace("variant = [", "proto = [");
    let sc = Scenario::parse("prefix.toml", &text).unwrap();
    let names: Vec<&str> = sc.params.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        vec!["loss", "delay_ms", "proto"],
        "declaration order"
    );
}

#[test]
fn point_with_overrides_one_parameter() {
    let sc = Scenario::parse("sweep.toml", SWEEP).unwrap();
    let p = sc
        .point_with(&[
            ("delay_ms".into(), "250".into()),
            ("loss".into(), "0.02".into()),
        ])
        .unwrap();
    assert_eq!(p.text("loss").as_deref(), Some("0.02"));
    assert_eq!(p.text("variant").as_deref(), Some("tcp-sack"));
    let spec = sc.build(&p, 1).unwrap();
    assert_eq!(spec.links[0].delay, Duration::from_millis(250));
    assert_eq!(spec.links[0].loss_forward, LossSpec::Bernoulli(0.02));
    let e = sc.point_with(&[("nope".into(), "1".into())]).unwrap_err();
    assert_eq!(e.key, "nope");
}

const TEMPLATES: &str = r#"[scenario]
name = "tpl"
duration = "10s"

[[node]]
name = "R"
[[node]]
name = "S{i}"
count = 4
[[node]]
name = "D"

[[link]]
name = "acc{i}"
between = ["S{i}", "R"]
rate = "100Mbit/s"
delay = "1ms"
count = 4

[[link]]
between = ["R", "D"]
rate = "10Mbit/s"
delay = "20ms"

[[flow]]
name = "f{i}"
protocol = "tcp-newreno"
from = "S{i}"
to = "D"
start = { uniform = ["0s", "1s"] }
count = 4
"#;

#[test]
fn count_templates_expand_nodes_links_and_flows() {
    let sc = Scenario::parse("tpl.toml", TEMPLATES).unwrap();
    let spec = sc.build(&sc.points()[0], 1).unwrap();
    assert_eq!(spec.nodes, vec!["R", "S1", "S2", "S3", "S4", "D"]);
    assert_eq!(spec.links.len(), 5);
    for i in 0..4 {
        let l = &spec.links[i];
        assert_eq!(l.name, format!("acc{}", i + 1));
        assert_eq!(spec.nodes[l.a as usize], format!("S{}", i + 1));
        assert_eq!(spec.nodes[l.b as usize], "R");
        assert_eq!(l.queue, 1000, "default queue");
        let f = &spec.flows[i];
        assert_eq!(f.name, format!("f{}", i + 1));
        assert_eq!(spec.nodes[f.from as usize], format!("S{}", i + 1));
        assert_eq!(spec.nodes[f.to as usize], "D");
    }
    assert_eq!(spec.links[4].name, "R-D", "default name: the two ends");
    assert_eq!(spec.flows.len(), 4);
    // A template that names a node the count does not create is an error.
    let text = TEMPLATES.replace(
        "count = 4\n\n[[link]]\nbetween = [\"R\", \"D\"]",
        "count = 5\n\n[[link]]\nbetween = [\"R\", \"D\"]",
    );
    assert_ne!(text, TEMPLATES);
    let e = Scenario::parse("tpl.toml", &text).unwrap_err();
    assert_eq!(e.key, "link[0].between");
    assert!(e.message.contains("S5"), "{e}");
    assert_eq!(e.line, Some(line_of_text(&text, "between = [\"S{i}\"")));
}

#[test]
fn uniform_starts_are_in_range_distinct_and_reproducible() {
    let sc = Scenario::parse("tpl.toml", TEMPLATES).unwrap();
    let starts = |seed: u64| -> Vec<Duration> {
        let spec = sc.build(&sc.points()[0], seed).unwrap();
        spec.flows.iter().map(|f| f.start).collect()
    };
    let a = starts(1);
    assert_eq!(a.len(), 4);
    for s in &a {
        assert!(*s <= Duration::from_secs(1), "{s}");
    }
    let distinct: std::collections::BTreeSet<_> = a.iter().collect();
    assert_eq!(distinct.len(), 4, "flows start at different times: {a:?}");
    assert_eq!(a, starts(1), "reproducible per seed");
    let b = starts(2);
    assert_ne!(a, b, "another seed draws other starts");
    // Over many seeds the draws cover the range.
    let all: Vec<f64> = (0..50).flat_map(starts).map(|d| d.as_secs_f64()).collect();
    let mean = all.iter().sum::<f64>() / all.len() as f64;
    assert!((mean - 0.5).abs() < 0.06, "{mean}");
    assert!(all.iter().any(|&s| s < 0.1) && all.iter().any(|&s| s > 0.9));
    // A fixed start and a reversed range.
    let fixed = TEMPLATES.replace(
        "start = { uniform = [\"0s\", \"1s\"] }",
        "start = \"1500ms\"",
    );
    let sc = Scenario::parse("tpl.toml", &fixed).unwrap();
    let spec = sc.build(&sc.points()[0], 9).unwrap();
    assert!(spec
        .flows
        .iter()
        .all(|f| f.start == Duration::from_millis(1500)));
    let reversed = TEMPLATES.replace("[\"0s\", \"1s\"]", "[\"2s\", \"1s\"]");
    let e = Scenario::parse("tpl.toml", &reversed).unwrap_err();
    assert!(e.key.contains("start"), "{e}");
}

#[test]
fn zipped_parameters_advance_together() {
    let text = edit("protocol = \"tcp-sack\"", "protocol = \"${proto}\"")
        + "\n[sweep]\nzip = [\"a\", \"b\"]\n[sweep.params]\nproto = [\"tcp-sack\", \"rcp\"]\na = [1, 2, 3]\nb = [30, 20, 10]\n";
    let sc = Scenario::parse("zip.toml", &text).unwrap();
    let points = sc.points();
    assert_eq!(
        points.len(),
        2 * 3,
        "zip pairs a and b instead of crossing them"
    );
    let pairs: Vec<(String, String)> = points
        .iter()
        .map(|p| (p.text("a").unwrap(), p.text("b").unwrap()))
        .collect();
    assert_eq!(
        &pairs[..3],
        &[
            ("1".into(), "30".into()),
            ("2".into(), "20".into()),
            ("3".into(), "10".into())
        ]
    );
    assert_eq!(points[0].text("proto").as_deref(), Some("tcp-sack"));
    assert_eq!(points[3].text("proto").as_deref(), Some("rcp"));
    // Unequal lengths and unknown names are errors naming sweep.zip.
    let bad = text.replace("b = [30, 20, 10]", "b = [30, 20]");
    let e = Scenario::parse("zip.toml", &bad).unwrap_err();
    assert_eq!(e.key, "sweep.zip");
    let bad = text.replace("zip = [\"a\", \"b\"]", "zip = [\"a\", \"c\"]");
    assert_eq!(
        Scenario::parse("zip.toml", &bad).unwrap_err().key,
        "sweep.zip"
    );
}

#[test]
fn setting_a_zipped_parameter_brings_its_group_along() {
    let text = edit("protocol = \"tcp-sack\"", "protocol = \"${proto}\"")
        + "\n[sweep]\nzip = [\"a\", \"b\"]\n[sweep.params]\nproto = [\"tcp-sack\", \"rcp\"]\na = [1, 2.5, 3]\nb = [30, 20, 10]\n";
    let sc = Scenario::parse("zip.toml", &text).unwrap();
    let set = |pairs: &[(&str, &str)]| {
        let o: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        sc.point_with(&o)
    };
    let pair = |p: &Point| (p.text("a").unwrap(), p.text("b").unwrap());
    // A listed value picks its place in the group.
    let p = set(&[("b", "10")]).unwrap();
    assert_eq!(pair(&p), ("3".into(), "10".into()));
    let p = set(&[("a", "2.5")]).unwrap();
    assert_eq!(pair(&p), ("2.5".into(), "20".into()));
    // `3.0` is the listed `3`.
    assert_eq!(pair(&set(&[("a", "3.0")]).unwrap()).1, "10");
    // An explicit partner wins; unzipped parameters stay alone.
    let p = set(&[("a", "2.5"), ("b", "5"), ("proto", "rcp")]).unwrap();
    assert_eq!(pair(&p), ("2.5".into(), "5".into()));
    assert_eq!(p.text("proto").as_deref(), Some("rcp"));
    // An unlisted value needs the whole group.
    let e = set(&[("a", "7")]).unwrap_err();
    assert_eq!(e.key, "a");
    assert!(e.message.contains("`b`"), "{e}");
    let p = set(&[("a", "7"), ("b", "1")]).unwrap();
    assert_eq!(pair(&p), ("7".into(), "1".into()));
}
