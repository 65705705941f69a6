//! `radial shell` for real: namespaces, TUN devices and the emulator's
//! links around real programs. Its paths are measured against their file
//! (delay within 1 ms, rate within 2 %, loss in its binomial interval), a
//! file crosses both paths with `radial get`, a scheduled handoff removes
//! and restores the interface's address, and nothing is left behind when
//! the shell ends, is stopped, or is killed.
//!
//! Needs root, iproute2 and /dev/net/tun. `.ci/run` sets
//! `RADIAL_REQUIRE_SHELL=1`, which makes their absence a failure; without
//! it the tests say why they check nothing here.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One shell test at a time: the measurements want the machine's
/// attention.
static SERIAL: Mutex<()> = Mutex::new(());

fn radial() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_radial"));
    c.env("XDG_CONFIG_HOME", scratch("config"));
    c
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("radial-shell-test-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// Whether this machine can open a shell; says why not, or fails when
/// `RADIAL_REQUIRE_SHELL` is set.
fn can_shell() -> bool {
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    let ip = Command::new("ip").arg("-V").output().is_ok();
    let tun = Path::new("/dev/net/tun").exists();
    let why = match (root, ip, tun) {
        (false, _, _) => "not root",
        (_, false, _) => "no `ip` (iproute2)",
        (_, _, false) => "no /dev/net/tun",
        _ => return true,
    };
    assert!(
        std::env::var_os("RADIAL_REQUIRE_SHELL").is_none(),
        "radial shell is required here (RADIAL_REQUIRE_SHELL is set), but: {why}"
    );
    eprintln!("radial shell cannot run here ({why}): this test checks nothing");
    false
}

/// The namespaces a shell with process id `pid` made that still exist.
fn namespaces_of(pid: u32) -> Vec<String> {
    std::fs::read_dir("/var/run/netns")
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().to_string())
                .filter(|n| n.starts_with(&format!("radial-{pid}-")))
                .collect()
        })
        .unwrap_or_default()
}

fn run(c: &mut Command) -> Output {
    let out = c.output().expect("radial runs");
    eprintln!("{}", String::from_utf8_lossy(&out.stderr));
    out
}

fn json(out: &Output) -> serde_json::Value {
    let text = String::from_utf8_lossy(&out.stdout);
    let start = text
        .find('{')
        .unwrap_or_else(|| panic!("no JSON in {text}"));
    serde_json::from_str(&text[start..]).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[test]
fn the_paths_follow_their_file_within_the_bounds() {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    if !can_shell() {
        return;
    }
    let out = run(radial()
        .arg("shell")
        .arg(repo().join("scenarios/shell/two-paths.toml"))
        .args(["--measure", "--json"]));
    let v = json(&out);
    eprintln!("{v:#}");
    let paths = v["paths"].as_array().expect("paths");
    assert_eq!(paths.len(), 2);
    // Bounds that hold however loaded the machine is: the emulator never
    // delivers early, never faster than the rate, and a busy machine adds
    // milliseconds, not tens of them (the 1 ms and 2 % accuracy of an idle
    // machine is measured with `--measure` and stated in docs/shell.md; a
    // build running beside this test once moved a median by 1.03 ms). The
    // rate is timed from the first arrival the measuring thread saw: one
    // seen late shortens the span, hence 10 % above the rate allowed.
    for p in paths {
        let f = |k: &str| p[k].as_f64().unwrap_or_else(|| panic!("{k}: {p}"));
        let (set, got) = (f("delay_s"), f("measured_delay_s"));
        assert!(got >= set - 0.001 && got <= set + 0.025, "delay: {p}");
        let (set, got) = (f("rate_bps"), f("measured_rate_bps"));
        assert!(got <= set * 1.1 && got >= set * 0.7, "rate: {p}");
    }
    // The lossy path (1 %) lost about its share, the clean one nothing.
    assert_eq!(paths[0]["measured_loss"], 0.0);
    let lost = paths[1]["measured_loss"].as_f64().unwrap();
    assert!((0.002..0.03).contains(&lost), "loss: {}", paths[1]);
    // It measured (exit 1 only says a path missed the idle-machine bounds).
    assert!(matches!(out.status.code(), Some(0 | 1)), "{:?}", out.status);
}

#[test]
fn a_file_crosses_both_paths_with_radial_get_and_nothing_is_left_behind() {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    if !can_shell() {
        return;
    }
    let files = scratch("files");
    std::fs::create_dir_all(&files).unwrap();
    let data: Vec<u8> = (0..8_000_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(files.join("f.bin"), &data).unwrap();
    let out_file = scratch("f.out");
    let bin = env!("CARGO_BIN_EXE_radial");
    let child = radial()
        .arg("shell")
        .arg(repo().join("scenarios/shell/two-paths.toml"))
        .arg("--server")
        .arg(format!(
            "{bin} serve --root {} --listen 10.255.0.1:7400 >/dev/null 2>&1",
            files.display()
        ))
        .args(["--", bin, "get", "radial://10.255.0.1:7400/f.bin"])
        .args([
            "--via", "10.0.0.2", "--via", "10.0.1.2", "--json", "--force",
        ])
        .arg("-o")
        .arg(&out_file)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let out = child.wait_with_output().unwrap();
    eprintln!("{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "the shell exits with get's status");
    let v = json(&out);
    assert_eq!(v["sha256_ok"], true);
    assert_eq!(v["bytes"], data.len());
    assert_eq!(std::fs::read(&out_file).unwrap(), data, "intact");
    let pipes = v["pipes"].as_array().unwrap();
    for via in ["10.0.0.2", "10.0.1.2"] {
        let bytes: u64 = pipes
            .iter()
            .filter(|p| p["via"].as_str().unwrap().starts_with(&format!("{via}:")))
            .map(|p| p["bytes"].as_u64().unwrap())
            .sum();
        assert!(bytes > 0, "nothing came through {via}: {v}");
    }
    assert!(namespaces_of(pid).is_empty(), "{:?}", namespaces_of(pid));
}

/// A scenario file in the scratch directory.
fn scenario(name: &str, text: &str) -> PathBuf {
    let p = scratch(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn a_scheduled_handoff_takes_the_address_away_and_gives_it_back() {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    if !can_shell() {
        return;
    }
    let file = scenario(
        "handoff.toml",
        "[[path]]\nrate = \"10Mbit/s\"\ndelay = \"5ms\"\n\
         [[path]]\nrate = \"2Mbit/s\"\ndelay = \"50ms\"\n\
         [[schedule]]\nat = \"1s\"\npath = 0\naction = \"down\"\n\
         [[schedule]]\nat = \"4s\"\npath = 0\naction = \"up\"\n",
    );
    // Addresses on path0 before, during and after the outage (1.5 s and
    // 2 s from the events: margins for a loaded machine).
    let look = "ip -o -4 addr show dev path0 | wc -l";
    let out = run(radial().arg("shell").arg(&file).args([
        "--",
        "sh",
        "-c",
        &format!(
            "{look}; sleep 2.5; {look}; sleep 3.5; {look}; ip -o -4 addr show dev path1 | wc -l"
        ),
    ]));
    assert!(out.status.success());
    let counts: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .map(String::from)
        .collect();
    assert_eq!(
        counts,
        ["1", "0", "1", "1"],
        "path0 gone and back; path1 kept"
    );
}

#[test]
fn a_stopped_or_killed_shell_leaves_nothing_and_two_shells_do_not_collide() {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    if !can_shell() {
        return;
    }
    let file = repo().join("scenarios/shell/two-paths.toml");
    let open = |secs: &str| -> Child {
        radial()
            .arg("shell")
            .arg(&file)
            .args(["--", "sleep", secs])
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };
    let wait_for_namespaces = |pid: u32| {
        let deadline = Instant::now() + Duration::from_secs(20);
        while namespaces_of(pid).len() < 2 {
            assert!(Instant::now() < deadline, "the shell never opened");
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    // Stopped: SIGTERM ends the command and the shell cleans up.
    let mut a = open("30");
    wait_for_namespaces(a.id());
    // A second shell beside the first.
    let b = run(radial().arg("shell").arg(&file).args(["--", "true"]));
    assert!(b.status.success(), "a second shell opens beside the first");
    let _ = Command::new("kill").arg(a.id().to_string()).status();
    let status = a.wait().unwrap();
    assert!(!status.success(), "a stopped shell says it was stopped");
    assert!(namespaces_of(a.id()).is_empty());
    // Killed: it cannot clean up, so the next shell does.
    let mut k = open("1");
    wait_for_namespaces(k.id());
    k.kill().unwrap();
    k.wait().unwrap();
    assert_eq!(namespaces_of(k.id()).len(), 2, "a killed shell leaves them");
    std::thread::sleep(Duration::from_millis(1500));
    let next = run(radial().arg("shell").arg(&file).args(["--", "true"]));
    assert!(next.status.success());
    assert!(
        namespaces_of(k.id()).is_empty(),
        "the next shell removed them"
    );
}

#[test]
fn bad_files_are_input_errors() {
    let file = scenario(
        "bad.toml",
        "[[path]]\nrate = \"10Mbit/s\"\ndelay = \"5ms\"\nloss = 2.0\n",
    );
    let out = radial().arg("shell").arg(&file).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("path[0].loss"));
    let out = radial()
        .args(["shell", "/nonexistent.toml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn without_root_it_says_what_it_needs() {
    if !can_shell() || Command::new("setpriv").arg("--version").output().is_err() {
        return;
    }
    // Copies nobody can read wherever the checkout is.
    use std::os::unix::fs::PermissionsExt;
    let dir = std::env::temp_dir().join(format!("radial-shell-nobody-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (bin, file) = (dir.join("radial"), dir.join("two-paths.toml"));
    std::fs::copy(env!("CARGO_BIN_EXE_radial"), &bin).unwrap();
    std::fs::copy(repo().join("scenarios/shell/two-paths.toml"), &file).unwrap();
    for (p, mode) in [(&dir, 0o755), (&bin, 0o755), (&file, 0o644)] {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    let out = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(&bin)
        .arg("shell")
        .arg(&file)
        .args(["--", "true"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("needs root (or CAP_NET_ADMIN)"), "{err}");
    assert!(err.contains("radial emulate"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn curl_through_radial_tunnel_fetches_a_file_over_both_paths_and_through_an_outage() {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    if !can_shell() {
        return;
    }
    let files = scratch("tunnel-files");
    std::fs::create_dir_all(&files).unwrap();
    let data: Vec<u8> = (0..24_000_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8)
        .collect();
    std::fs::write(files.join("f.bin"), &data).unwrap();
    let key_file = scratch("tunnel-client.key");
    let key = radial_net::crypto::ClientKey::load_or_create(&key_file).unwrap();
    let clients = scratch("tunnel-clients");
    std::fs::write(&clients, radial_net::crypto::hex(&key.public()) + "\n").unwrap();
    // Path 0 goes down 3 s after the command starts, for 3 s: the 24 MB
    // take at least 9.6 s at both paths' 20 Mbit/s, 11 s with the outage.
    let file = scenario(
        "tunnel.toml",
        "[[path]]\nrate = \"10Mbit/s\"\ndelay = \"20ms\"\n\
         [[path]]\nrate = \"10Mbit/s\"\ndelay = \"40ms\"\n\
         [[schedule]]\nat = \"3s\"\npath = 0\naction = \"down\"\n\
         [[schedule]]\nat = \"6s\"\npath = 0\naction = \"up\"\n",
    );
    let bin = env!("CARGO_BIN_EXE_radial");
    let out_file = scratch("tunnel-f.out");
    let log = scratch("tunnel.out");
    let _ = std::fs::remove_file(&out_file);
    let host = format!(
        "{bin} tunnel radial://10.255.0.1:7400 --via 10.0.0.2 --via 10.0.1.2 \
             --socks 127.0.0.1:1080 --key {key} >{log} 2>&1 & t=$!; \
         for i in $(seq 100); do grep -q 'tunnel to' {log} && break; sleep 0.1; done; \
         curl -sS --retry 10 --retry-delay 1 --retry-all-errors \
             --socks5-hostname 127.0.0.1:1080 http://10.255.0.1:8080/f.bin -o {out} \
             -w '%{{time_total}}\\n'; s=$?; \
         cat /sys/class/net/path0/statistics/rx_bytes /sys/class/net/path1/statistics/rx_bytes; \
         kill $t; exit $s",
        key = key_file.display(),
        log = log.display(),
        out = out_file.display(),
    );
    let out = run(radial().arg("shell").arg(&file).args([
        "--server",
        &format!(
            "{bin} serve --root {files} --listen 10.255.0.1:7400 --tunnel \
             --tunnel-clients {clients} --tunnel-allow 10.255.0.0/24 >/dev/null 2>&1",
            files = files.display(),
            clients = clients.display()
        ),
        "--server",
        &format!(
            "cd {} && exec python3 -m http.server 8080 --bind 10.255.0.1 >/dev/null 2>&1",
            files.display()
        ),
        "--",
        "sh",
        "-c",
        &host,
    ]));
    let tunnel_log = std::fs::read_to_string(&log).unwrap_or_default();
    eprintln!("{tunnel_log}");
    // The tunnel followed the address: it closed the path as the address
    // went and opened one as it came back (it polls every second).
    assert!(tunnel_log.contains("10.0.0.2 gone"), "{tunnel_log}");
    assert!(tunnel_log.contains("10.0.0.2 back"), "{tunnel_log}");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "curl failed: {text}");
    assert!(
        std::fs::read(&out_file).unwrap() == data,
        "the file came whole"
    );
    let v: Vec<f64> = text
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    let [seconds, rx0, rx1] = v[..] else {
        panic!("expected the time and two byte counts: {text}")
    };
    assert!(
        seconds > 3.0,
        "the download spanned the outage: {seconds} s"
    );
    for (path, rx) in [(0, rx0), (1, rx1)] {
        assert!(rx > 2e6, "path {path} carried {rx} bytes");
    }
}
