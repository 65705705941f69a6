//! The `radial` program as a user meets it: exit statuses, error messages that
//! name the key, and byte-identical outputs for the same scenario and seed.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn radial(args: &[&str]) -> Output {
    radial_cmd().args(args).output().expect("radial runs")
}

/// The program, with its configuration directory (server key, known
/// servers) in a directory of the tests' own.
fn radial_cmd() -> Command {
    let config = std::env::temp_dir().join(format!("radial-cli-config-{}", std::process::id()));
    let mut c = Command::new(env!("CARGO_BIN_EXE_radial"));
    c.env("XDG_CONFIG_HOME", config);
    c
}

/// A fresh directory for one test; tests run in parallel, so each call gets
/// its own even when two tests pass the same name.
fn temp_dir(name: &str) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let d = std::env::temp_dir().join(format!("radial-cli-{}-{n}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

const GOOD: &str = r#"
[scenario]
name = "tiny"
duration = "5s"

[[node]]
name = "A"
[[node]]
name = "B"

[[link]]
between = ["A", "B"]
rate = "2Mbit/s"
delay = "10ms"
queue = 20
loss = 0.01

[[flow]]
protocol = "tcp-sack"
from = "A"
to = "B"
"#;

fn write_scenario(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write scenario");
    p
}

/// Runs a malformed variant of GOOD and checks status 2, the file, line and key.
fn assert_rejected(replace: (&str, &str), key: &str, line: usize) {
    let dir = temp_dir(key);
    let text = GOOD.replacen(replace.0, replace.1, 1);
    assert_ne!(text, GOOD, "the replacement applies");
    let path = write_scenario(&dir, "bad.toml", &text);
    let out = radial(&[
        "run",
        path.to_str().unwrap(),
        "--out",
        dir.join("o").to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert!(err.contains("bad.toml"), "names the file: {err}");
    assert!(err.contains(key), "names the key `{key}`: {err}");
    assert!(
        err.contains(&format!(":{line}:")),
        "names line {line}: {err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn unknown_key_is_rejected_with_status_2() {
    assert_rejected(
        ("queue = 20", "queue = 20\nqueue_size = 3"),
        "queue_size",
        16,
    );
}

#[test]
fn bad_unit_is_rejected_with_status_2() {
    assert_rejected(("rate = \"2Mbit/s\"", "rate = \"2Mbx\""), "rate", 13);
}

#[test]
fn negative_rate_is_rejected_with_status_2() {
    assert_rejected(("rate = \"2Mbit/s\"", "rate = \"-2Mbit/s\""), "rate", 13);
}

#[test]
fn unknown_node_is_rejected_with_status_2() {
    assert_rejected(("to = \"B\"", "to = \"C\""), "to", 21);
}

#[test]
fn bad_flags_exit_2() {
    assert_eq!(radial(&["run"]).status.code(), Some(2));
    assert_eq!(radial(&["frobnicate"]).status.code(), Some(2));
    let dir = temp_dir("set");
    let path = write_scenario(&dir, "ok.toml", GOOD);
    let out = radial(&["run", path.to_str().unwrap(), "--set", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    let out = radial(&["run", dir.join("missing.toml").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn same_scenario_and_seed_give_identical_summary() {
    let dir = temp_dir("determinism");
    let path = write_scenario(&dir, "ok.toml", GOOD);
    let run = |out: &str, seed: &str| {
        let o = dir.join(out);
        let r = radial(&[
            "run",
            path.to_str().unwrap(),
            "--seed",
            seed,
            "--out",
            o.to_str().unwrap(),
        ]);
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
        std::fs::read(o.join("summary.json")).expect("summary.json written")
    };
    let a = run("a", "7");
    let b = run("b", "7");
    let c = run("c", "8");
    assert_eq!(a, b, "same scenario and seed: byte-identical summary.json");
    assert_ne!(a, c, "a different seed changes the loss pattern");
    let summary: serde_json::Value = serde_json::from_slice(&a).unwrap();
    let flow = &summary["flows"][0];
    assert_eq!(flow["corrupt_bytes"], 0);
    assert!(flow["goodput_mbps"].as_f64().unwrap() > 0.5);
}

/// `radial sweep` over `text` in a fresh directory: its results.csv.
fn sweep_results(name: &str, text: &str) -> String {
    let dir = temp_dir(name);
    let path = write_scenario(&dir, "sweep.toml", text);
    let out = dir.join("o");
    let r = radial(&[
        "sweep",
        path.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--jobs",
        "2",
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    std::fs::read_to_string(out.join("results.csv")).unwrap()
}

#[test]
fn sweep_writes_one_column_per_parameter() {
    let text = GOOD.replace("loss = 0.01", "loss = \"${loss}\"")
        + "\n[sweep]\nseeds = [1, 2]\n[sweep.params]\nloss = [0.0, 0.05]\n";
    let csv = sweep_results("sweep", &text);
    let mut lines = csv.lines();
    assert!(lines
        .next()
        .unwrap()
        .starts_with("loss,seed,flow,protocol,goodput_mbps,"));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 4);
    let goodput = |loss: &str| -> f64 {
        rows.iter()
            .filter(|r| r[0] == loss)
            .map(|r| r[4].parse::<f64>().unwrap())
            .sum::<f64>()
            / 2.0
    };
    assert!(
        goodput("0.0") > 1.5 * goodput("0.05"),
        "5 % loss hurts TCP: {csv}"
    );
}

#[test]
fn a_parameter_named_like_an_output_column_is_written_once() {
    let text = GOOD.replace("protocol = \"tcp-sack\"", "protocol = \"${protocol}\"")
        + "\n[sweep]\n[sweep.params]\nprotocol = [\"tcp-sack\", \"rcp\"]\n";
    let csv = sweep_results("sweep-columns", &text);
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    assert_eq!(
        header.iter().filter(|c| **c == "protocol").count(),
        1,
        "{csv}"
    );
    for column in ["completion_time_s", "max_delivery_gap_s", "duplicate_bytes"] {
        assert!(header.contains(&column), "{column} missing: {csv}");
    }
    let protocols: Vec<&str> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(2).unwrap())
        .collect();
    assert_eq!(protocols, ["tcp-sack", "rcp"]);
}

#[test]
fn a_swept_protocol_beside_cross_traffic_keeps_its_own_column() {
    let text = GOOD.replace("protocol = \"tcp-sack\"", "protocol = \"${protocol}\"")
        + "\n[[flow]]\nname = \"cross\"\nprotocol = \"tcp-newreno\"\nfrom = \"A\"\nto = \"B\"\n"
        + "\n[sweep]\n[sweep.params]\nprotocol = [\"tcp-sack\", \"rcp\"]\n";
    let csv = sweep_results("sweep-cross", &text);
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    assert_eq!(header[0], "sweep_protocol", "{csv}");
    let rows: Vec<(String, String, String)> = csv
        .lines()
        .skip(1)
        .map(|l| {
            let c: Vec<&str> = l.split(',').collect();
            (c[0].into(), c[2].into(), c[3].into())
        })
        .collect();
    let expect = |p: &str, f: &str, q: &str| (p.to_string(), f.to_string(), q.to_string());
    assert_eq!(
        rows,
        [
            expect("tcp-sack", "0", "tcp-sack"),
            expect("tcp-sack", "cross", "tcp-newreno"),
            expect("rcp", "0", "rcp"),
            expect("rcp", "cross", "tcp-newreno"),
        ],
        "{csv}"
    );
}

#[test]
fn unknown_repro_figure_exits_2_and_lists_the_known_ones() {
    let out = radial(&[
        "repro",
        "fig99",
        "--out",
        temp_dir("repro").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("fig99") && err.contains("rcp-fig5a"), "{err}");
}

#[test]
fn a_flow_group_of_count_zero_makes_no_flow() {
    let dir = temp_dir("count0");
    let text = GOOD.to_string()
        + "\n[[flow]]\nname = \"x{i}\"\nprotocol = \"rcp\"\nfrom = \"A\"\nto = \"B\"\ncount = \"${n}\"\n"
        + "\n[sweep]\n[sweep.params]\nn = [0, 2]\n";
    let path = write_scenario(&dir, "count.toml", &text);
    let flows = |n: &str| {
        let o = dir.join(format!("o{n}"));
        let r = radial(&[
            "run",
            path.to_str().unwrap(),
            "--set",
            &format!("n={n}"),
            "--out",
            o.to_str().unwrap(),
        ]);
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
        let s: serde_json::Value =
            serde_json::from_slice(&std::fs::read(o.join("summary.json")).unwrap()).unwrap();
        s["flows"].as_array().unwrap().len()
    };
    assert_eq!(flows("0"), 1);
    assert_eq!(flows("2"), 3);
}

/// A `radial serve` child process, killed when dropped.
struct ServeProcess(std::process::Child);

impl Drop for ServeProcess {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `radial serve` on a free loopback port and returns it with the
/// address it printed.
fn serve(root: &Path) -> (ServeProcess, String) {
    use std::io::BufRead;
    let mut child = radial_cmd()
        .args([
            "serve",
            "--root",
            root.to_str().unwrap(),
            "--listen",
            "127.0.0.1:0",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("radial serve starts");
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line.trim().rsplit(' ').next().unwrap().to_string();
    (ServeProcess(child), addr)
}

#[test]
fn get_downloads_a_file_that_serve_serves_and_reports_json() {
    let dir = temp_dir("get");
    std::fs::create_dir_all(dir.join("root")).unwrap();
    let data: Vec<u8> = (0..3_000_000u32).map(|i| (i * 7 + i / 251) as u8).collect();
    std::fs::write(dir.join("root/f.bin"), &data).unwrap();
    let (_server, addr) = serve(&dir.join("root"));
    let out = dir.join("got.bin");
    let o = radial(&[
        "get",
        &format!("radial://{addr}/f.bin"),
        "--via",
        "127.0.0.1",
        "--via",
        "127.0.0.2",
        "-o",
        out.to_str().unwrap(),
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read(&out).unwrap(), data);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["bytes"], 3_000_000);
    assert_eq!(v["sha256_ok"], true);
    assert_eq!(v["pipes"].as_array().unwrap().len(), 2);
    // In segments as large as the loopback device carries.
    let large = dir.join("large.bin");
    let o = radial(&[
        "get",
        &format!("radial://{addr}/f.bin"),
        "--segment",
        "16000",
        "-o",
        large.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read(&large).unwrap(), data);
    // A missing file is an input error naming it.
    let o = radial(&[
        "get",
        &format!("radial://{addr}/missing.bin"),
        "-o",
        dir.join("missing.bin").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("missing.bin"));
}

#[test]
fn get_and_serve_reject_bad_addresses_with_status_2() {
    for args in [
        vec!["get", "http://127.0.0.1:1/x"],
        vec!["get", "radial://127.0.0.1:1/x", "--via", "eth0"],
        vec!["get", "radial://127.0.0.1:1/x", "--via", "::1"],
        vec!["get", "radial://127.0.0.1:1/x", "--replica", "nowhere"],
        vec!["serve", "--root", ".", "--listen", "localhost"],
        vec!["serve", "--root", "/no/such/dir", "--listen", "127.0.0.1:0"],
    ] {
        let o = radial(&args);
        assert_eq!(
            o.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(
            String::from_utf8_lossy(&o.stderr).starts_with("error: "),
            "{args:?}"
        );
    }
}

/// A directory with `root/f.bin` of `size` bytes made by `byte`, served by
/// `radial serve`: the directory, the bytes, the server and its address.
fn serve_file(
    name: &str,
    size: u32,
    byte: impl Fn(u32) -> u8,
) -> (PathBuf, Vec<u8>, ServeProcess, String) {
    let dir = temp_dir(name);
    std::fs::create_dir_all(dir.join("root")).unwrap();
    let data: Vec<u8> = (0..size).map(byte).collect();
    std::fs::write(dir.join("root/f.bin"), &data).unwrap();
    let (server, addr) = serve(&dir.join("root"));
    (dir, data, server, addr)
}

/// Starts `radial emulate` with one path per `(front, rate, delay)` to
/// `server`, and returns it with the front addresses it printed.
fn emulate(dir: &Path, server: &str, paths: &[(&str, &str, &str)]) -> (ServeProcess, Vec<String>) {
    use std::io::BufRead;
    let mut text = format!("server = \"{server}\"\n");
    for (front, rate, delay) in paths {
        text += &format!("[[path]]\nfront = \"{front}\"\nrate = \"{rate}\"\ndelay = \"{delay}\"\n");
    }
    let file = dir.join("paths.toml");
    std::fs::write(&file, text).unwrap();
    let mut child = radial_cmd()
        .args(["emulate", file.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("radial emulate starts");
    let lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let fronts = lines
        .take(paths.len())
        .map(|l| l.unwrap().split_whitespace().nth(2).unwrap().to_string())
        .collect();
    (ServeProcess(child), fronts)
}

#[test]
fn get_through_two_emulated_paths_uses_both() {
    let (dir, data, _server, addr) = serve_file("emulate", 4_000_000, |i| (i * 13 + i / 509) as u8);
    let (_emulator, fronts) = emulate(
        &dir,
        &addr,
        &[
            ("127.0.0.11", "20Mbit/s", "5ms"),
            ("127.0.0.12", "10Mbit/s", "20ms"),
        ],
    );
    let (f0, f1) = (&fronts[0], &fronts[1]);
    let out = dir.join("got.bin");
    let o = radial(&[
        "get",
        &format!("radial://{addr}/f.bin"),
        "--via",
        &format!("127.0.0.21@{f0}"),
        "--via",
        &format!("127.0.0.22@{f1}"),
        "-o",
        out.to_str().unwrap(),
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read(&out).unwrap(), data);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let pipes = v["pipes"].as_array().unwrap();
    assert_eq!(pipes.len(), 2);
    assert!(
        pipes.iter().all(|p| p["bytes"].as_u64().unwrap() > 0),
        "{v}"
    );
    assert_eq!(pipes[0]["server"], f0.as_str());
}

#[test]
fn emulate_binds_a_front_where_the_file_says() {
    // A front with a port is where clients are told to send
    // (scenarios/emulate/two-paths.toml): the relay must listen there.
    let dir = temp_dir("emulate-port");
    let port = std::net::UdpSocket::bind("127.0.0.15:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let front = format!("127.0.0.15:{port}");
    let (_emulator, fronts) = emulate(&dir, "127.0.0.1:1", &[(&front, "1Mbit/s", "5ms")]);
    assert_eq!(fronts, vec![front]);
}

#[test]
fn emulate_rejects_a_bad_file_naming_the_key() {
    let dir = temp_dir("emulate-bad");
    let file = dir.join("bad.toml");
    std::fs::write(
        &file,
        "server = \"127.0.0.1:1\"\n[[path]]\nfront = \"127.0.0.11\"\nrate = \"2Mbit/s\"\ndelay = \"5ms\"\nloss = 3.0\n",
    )
    .unwrap();
    let o = radial(&["emulate", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("bad.toml") && err.contains("path[0].loss"),
        "{err}"
    );
}

#[test]
fn emulate_reads_loss_as_scenario_files_do() {
    let dir = temp_dir("emulate-loss");
    let file = dir.join("loss.toml");
    let head = "server = \"127.0.0.1:1\"\n[[path]]\nfront = \"127.0.0.11\"\nrate = \"2Mbit/s\"\ndelay = \"5ms\"\n";
    std::fs::write(
        &file,
        format!("{head}loss = {{ model = \"gilbert-elliot\", good_loss = 0.0, bad_loss = 0.5, good_mean = \"1s\", bad_mean = \"1s\" }}\n"),
    )
    .unwrap();
    let o = radial(&["emulate", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("loss.toml:6: key `path[0].loss.model`") && err.contains("gilbert-elliott"),
        "{err}"
    );
    // A stay shorter than one packet is refused, as in scenario files.
    std::fs::write(
        &file,
        format!("{head}loss = {{ model = \"gilbert-elliott\", good_loss = 0.0, bad_loss = 0.5, good_mean = \"1us\", bad_mean = \"1s\", direction = \"forward\" }}\n"),
    )
    .unwrap();
    let o = radial(&["emulate", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("path[0].loss.good_mean"), "{err}");
    // A queue of one packet is refused as in scenario files (it would drop
    // everything), not silently enlarged.
    std::fs::write(&file, format!("{head}queue = 1\n")).unwrap();
    let o = radial(&["emulate", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("path[0].queue") && err.contains("at least 2"),
        "{err}"
    );
}

#[test]
fn get_hands_off_when_told_an_address_is_gone() {
    use std::io::Write;
    let (dir, data, _server, addr) = serve_file("drop", 6_000_000, |i| (i * 17 + i / 1013) as u8);
    let (_emulator, fronts) = emulate(
        &dir,
        &addr,
        &[
            ("127.0.0.13", "10Mbit/s", "5ms"),
            ("127.0.0.14", "10Mbit/s", "5ms"),
        ],
    );
    let (f0, f1) = (&fronts[0], &fronts[1]);
    let out = dir.join("got.bin");
    let mut get = radial_cmd()
        .args([
            "get",
            &format!("radial://{addr}/f.bin"),
            "--via",
            &format!("127.0.0.23@{f0}"),
            "--via",
            &format!("127.0.0.24@{f1}"),
            "-o",
            out.to_str().unwrap(),
            "--json",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1000));
    let mut stdin = get.stdin.take().unwrap();
    writeln!(stdin, "drop 127.0.0.9").unwrap();
    writeln!(stdin, "drop 127.0.0.23").unwrap();
    drop(stdin);
    let o = get.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read(&out).unwrap(), data);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let pipes = v["pipes"].as_array().unwrap();
    let (b0, b1) = (
        pipes[0]["bytes"].as_u64().unwrap(),
        pipes[1]["bytes"].as_u64().unwrap(),
    );
    // The paths carry 20 Mbit/s at most, so the drop came mid-transfer:
    // the first path brought less than 3.5 MB, the second the rest.
    assert!(b0 < 3_500_000 && b1 > 2_500_000, "{v}");
    assert_eq!(b0 + b1, 6_000_000);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("127.0.0.9 is not one of this transfer's addresses"),
        "{err}"
    );
}

#[test]
fn get_checks_its_flags_before_asking_any_server() {
    let dir = temp_dir("flags");
    let exists = dir.join("exists.bin");
    std::fs::write(&exists, b"keep me").unwrap();
    let missing_dir = dir.join("no/such/dir/f.bin");
    let cases: [(Vec<&str>, &str); 5] = [
        // 192.0.2.1 is a documentation address no host has: binding fails
        // locally, nothing is sent.
        (
            vec!["get", "radial://127.0.0.1:1/x", "--via", "192.0.2.1"],
            "--via `192.0.2.1:0`: this host has no such address",
        ),
        (
            vec![
                "get",
                "radial://127.0.0.1:1/x",
                "-o",
                missing_dir.to_str().unwrap(),
            ],
            "does not exist",
        ),
        (
            vec![
                "get",
                "radial://127.0.0.1:1/x",
                "-o",
                exists.to_str().unwrap(),
            ],
            "the file exists (--force replaces it)",
        ),
        (
            vec!["get", "radial://127.0.0.1:port/x"],
            "`port` is not a port",
        ),
        (
            vec!["get", "radial://127.0.0.1:1/x", "--segment", "100"],
            "--segment 100: segments are 1200 to 60000 bytes",
        ),
    ];
    for (args, expect) in cases {
        let o = radial(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(expect), "{args:?}: {err}");
    }
    assert_eq!(std::fs::read(&exists).unwrap(), b"keep me");
}

#[test]
fn get_from_a_silent_address_says_what_it_tried() {
    // Port 1 on loopback: nothing listens, nothing leaves the machine.
    let dir = temp_dir("silent");
    let out = dir.join("f.bin");
    let o = radial(&[
        "get",
        "radial://127.0.0.1:1/x",
        "--via",
        "127.0.0.1",
        "-o",
        out.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("no answer from 127.0.0.1:1 to 10 requests")
            && err.contains("from 127.0.0.1:"),
        "{err}"
    );
    assert!(!out.exists());
}

#[test]
fn serve_logs_each_transfer_and_prints_its_counters_on_request() {
    use std::io::{BufRead, Write};
    let dir = temp_dir("servelog");
    std::fs::create_dir_all(dir.join("root")).unwrap();
    std::fs::write(dir.join("root/f.bin"), vec![5u8; 300_000]).unwrap();
    let log = dir.join("serve.log");
    let mut child = radial_cmd()
        .args([
            "serve",
            "--root",
            dir.join("root").to_str().unwrap(),
            "--listen",
            "127.0.0.1:0",
            "--log",
            log.to_str().unwrap(),
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let addr = first.rsplit(' ').next().unwrap().to_string();
    let _server = ServeProcess(child);
    let out = dir.join("got.bin");
    let o = radial(&[
        "get",
        &format!("radial://{addr}/f.bin"),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // The transfer's line is written when the client closes its pipe.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let mut text = String::new();
    while std::time::Instant::now() < deadline && !text.contains("outcome=complete") {
        std::thread::sleep(std::time::Duration::from_millis(50));
        text = std::fs::read_to_string(&log).unwrap_or_default();
    }
    assert!(
        text.contains("file=\"f.bin\" size=300000") && text.contains("outcome=complete"),
        "{text}"
    );
    // The counters are those of the server's last sweep (four a second).
    let mut stats = serde_json::Value::Null;
    for _ in 0..50 {
        writeln!(stdin, "stats").unwrap();
        stats = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
        if stats["completed"] == 1 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert_eq!(stats["completed"], 1, "{stats}");
    assert!(stats["rss_bytes"].as_u64().unwrap() > 0, "{stats}");
    assert!(stats["dropped"]["malformed"].is_u64(), "{stats}");
}

#[test]
fn get_refuses_a_server_whose_key_is_not_the_trusted_one() {
    let (dir, data, _server, addr) = serve_file("trust", 100_000, |i| (i % 251) as u8);
    let known = dir.join("known_servers");
    let get = |out: &str, extra: &[&str]| {
        let url = format!("radial://{addr}/f.bin");
        let out = dir.join(out);
        let mut args = vec!["get", url.as_str(), "-o", out.to_str().unwrap()];
        args.extend_from_slice(extra);
        radial(&args)
    };
    // First contact: recorded, then required.
    let o = get("a.bin", &["--known-servers", known.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("first contact with"));
    assert_eq!(std::fs::read(dir.join("a.bin")).unwrap(), data);
    let line = std::fs::read_to_string(&known).unwrap();
    let key = line.split_whitespace().nth(1).unwrap().to_string();
    let o = get("b.bin", &["--known-servers", known.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!String::from_utf8_lossy(&o.stderr).contains("first contact"));
    // The key given on the command line must be the server's.
    let o = get("c.bin", &["--server-key", &key]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let other = "ab".repeat(32);
    for (out, args) in [
        ("d.bin", vec!["--server-key", other.as_str()]),
        ("e.bin", vec!["--known-servers", known.to_str().unwrap()]),
    ] {
        if out == "e.bin" {
            std::fs::write(&known, format!("{addr} {other}\n")).unwrap();
        }
        let o = get(out, &args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(
            err.contains(&format!("proved the key {key}, not the {other}")),
            "{err}"
        );
        assert!(!dir.join(out).exists());
    }
    let o = get("f.bin", &["--server-key", "12"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn get_continue_resumes_from_the_part_file() {
    let (dir, data, _server, addr) = serve_file("continue", 2_000_000, |i| (i * 31 + i / 7) as u8);
    let out = dir.join("got.bin");
    std::fs::write(dir.join("got.bin.part"), &data[..700_000]).unwrap();
    let o = radial(&[
        "get",
        &format!("radial://{addr}/f.bin"),
        "-o",
        out.to_str().unwrap(),
        "--continue",
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["resumed_from"], 700_000);
    assert_eq!(std::fs::read(&out).unwrap(), data);
}

#[test]
fn a_sweep_in_shards_merges_into_the_whole_sweeps_results_byte_for_byte() {
    // Two parameters (one named like an output column, so the column choice
    // depends on every row), two seeds, two flows: 12 runs in 3 shards.
    let text = GOOD
        .replace("loss = 0.01", "loss = \"${loss}\"")
        .replace("protocol = \"tcp-sack\"", "protocol = \"${protocol}\"")
        + "\n[[flow]]\nname = \"cross\"\nprotocol = \"tcp-newreno\"\nfrom = \"A\"\nto = \"B\"\n"
        + "\n[sweep]\nseeds = [1, 2]\n[sweep.params]\nloss = [0.0, 0.02, 0.05]\nprotocol = [\"tcp-sack\", \"rcp\"]\n";
    let whole = sweep_results("shard-whole", &text);
    let dir = temp_dir("shards");
    let path = write_scenario(&dir, "sweep.toml", &text);
    let shards = dir.join("shards");
    for i in 1..=3 {
        let r = radial(&[
            "sweep",
            path.to_str().unwrap(),
            "--out",
            shards.to_str().unwrap(),
            "--shard",
            &format!("{i}/3"),
        ]);
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    }
    // Missing a shard is an input error naming it.
    let partial = dir.join("partial");
    std::fs::create_dir_all(&partial).unwrap();
    for i in [1, 3] {
        let f = format!("results-shard-{i}-of-3.json");
        std::fs::copy(shards.join(&f), partial.join(&f)).unwrap();
    }
    let merged = dir.join("merged");
    let r = radial(&[
        "merge",
        partial.to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
    ]);
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stderr).contains("2/3"));
    let r = radial(&[
        "merge",
        shards.to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let joined = std::fs::read_to_string(merged.join("results.csv")).unwrap();
    assert_eq!(joined, whole);
    assert_eq!(whole.lines().count(), 1 + 12 * 2);
}

#[test]
fn a_bad_shard_exits_2() {
    let dir = temp_dir("bad-shard");
    let path = write_scenario(&dir, "s.toml", GOOD);
    let r = radial(&[
        "sweep",
        path.to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
        "--shard",
        "4/3",
    ]);
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stderr).contains("--shard"));
}

#[test]
fn inputs_and_output_directories_that_cannot_be_used_exit_2() {
    let dir = temp_dir("exit2");
    let missing = dir.join("nonexistent");
    let out = radial(&[
        "merge",
        missing.to_str().unwrap(),
        "--out",
        dir.join("m").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("nonexistent"));

    let path = write_scenario(&dir, "good.toml", GOOD);
    // A directory under a regular file cannot be made, whoever runs this.
    let blocker = write_scenario(&dir, "file", "");
    let out = radial(&[
        "run",
        path.to_str().unwrap(),
        "--out",
        blocker.join("out").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("output directory"), "{err}");

    for cmd in [
        &["demo", "--jobs", "0"][..],
        &["sweep", path.to_str().unwrap(), "--jobs", "0"],
    ] {
        let out = radial(cmd);
        assert_eq!(out.status.code(), Some(2), "{cmd:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("at least 1"));
    }
}

#[test]
fn a_finite_transfer_shows_when_it_completed_and_its_own_goodput() {
    let dir = temp_dir("finite");
    let scenario = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/trace/wlan-cellular.toml"
    );
    let out = radial(&["run", scenario, "--out", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("summary.json")).unwrap()).unwrap();
    for flow in summary["flows"].as_array().unwrap() {
        let name = flow["name"].as_str().unwrap();
        let done = flow["completion_time_s"]
            .as_f64()
            .expect("the transfer completes");
        let bytes = flow["bytes_delivered"].as_f64().unwrap();
        let line = text
            .lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("no line for {name}: {text}"));
        let cells: Vec<&str> = line.split_whitespace().collect();
        // flow, protocol, goodput over the duration, done, transfer goodput.
        let shown_done: f64 = cells[3].parse().unwrap();
        let shown_rate: f64 = cells[4].parse().unwrap();
        assert!((shown_done - done).abs() < 1e-3, "{line}");
        let rate = bytes * 8.0 / done / 1e6;
        assert!((shown_rate - rate).abs() < 1e-3 * rate.max(1.0), "{line}");
        // Over its own time, a transfer that finished early is faster than
        // over the whole scenario.
        assert!(shown_rate > cells[2].parse::<f64>().unwrap(), "{line}");
    }
}

#[test]
fn file_errors_name_no_key_and_unknown_names_list_the_known_ones() {
    let dir = temp_dir("errs");
    let missing = dir.join("missing.toml");
    let out = radial(&["run", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("missing.toml: cannot read"), "{err}");
    assert!(!err.contains("key"), "{err}");

    let bad = write_scenario(&dir, "bad.toml", "[scenario]\nname = \"x\n");
    let err = String::from_utf8_lossy(&radial(&["run", bad.to_str().unwrap()]).stderr).to_string();
    assert!(
        err.contains("bad.toml:2: ") && !err.contains("key"),
        "{err}"
    );

    let league = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/league/two-paths.toml"
    );
    let out = dir.join("o");
    let run = |set: &str| {
        let o = radial(&["run", league, "--set", set, "--out", out.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{set}");
        String::from_utf8_lossy(&o.stderr).to_string()
    };
    let err = run("nope=1");
    assert!(
        err.contains("known: protocol, n_agg, n_alone, n_prism, window"),
        "{err}"
    );
    let err = run("n_agg=5");
    assert!(err.contains("listed values (0, 1"), "{err}");
}
