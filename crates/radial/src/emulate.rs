//! Emulation files (`docs/scenarios.md`, "Emulation files"): paths with the
//! simulator's units and link keys, and a timed schedule; and `radial
//! emulate FILE`, the loopback link emulator of `radial-net` driven by one.
//! `radial shell` reads the same files.

use std::net::{IpAddr, SocketAddr};
use std::path::Path;
use std::time::Duration;

use radial_net::emulator::GilbertElliott;
use radial_net::{EmuCommand, Emulator, LinkModel, PathModel};
use radial_sim::channel::GilbertElliottParams;
use radial_sim::scenario::units::{Rate, Time};
use radial_sim::scenario::{link_loss, LossValue};
use radial_sim::spec::LossSpec;
use serde::Deserialize;
use toml::Spanned;

use crate::error::CliError;

/// An emulation file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct EmuFile {
    /// The server the paths lead to (`radial emulate` only).
    #[serde(default)]
    server: Option<String>,
    /// Seed of the loss draws.
    #[serde(default)]
    seed: Option<u64>,
    #[serde(rename = "path")]
    paths: Vec<PathTable>,
    #[serde(default, rename = "schedule")]
    schedule: Vec<ScheduleTable>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PathTable {
    /// Where the client sends: an IP address (any port) or IP:PORT
    /// (`radial emulate` only).
    #[serde(default)]
    front: Option<String>,
    rate: Rate,
    #[serde(default)]
    rate_reverse: Option<Rate>,
    delay: Time,
    #[serde(default)]
    queue: Option<usize>,
    /// As a scenario file's `[[link]]` `loss` (read by the same code).
    #[serde(default)]
    loss: Option<Spanned<LossValue>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScheduleTable {
    at: Time,
    path: usize,
    action: String,
    #[serde(default)]
    rate: Option<Rate>,
}

/// A link of `rate` with `delay`, its queue one bandwidth-delay product of
/// the path's base round trip unless given.
fn link(
    rate: Rate,
    delay: Time,
    queue: Option<usize>,
    loss: f64,
    channel: Option<GilbertElliott>,
) -> LinkModel {
    let d = Duration::from_nanos(delay.0.as_nanos());
    let mut l = LinkModel::with_bdp_queue(rate.0.bps(), d, 2 * d);
    if let Some(q) = queue {
        l.queue = q;
    }
    l.loss = loss;
    l.channel = channel;
    l
}

/// A direction's loss as the emulator's link takes it: a probability, or a
/// Gilbert-Elliott channel.
fn emulated(loss: LossSpec, channels: &[GilbertElliottParams]) -> (f64, Option<GilbertElliott>) {
    let d = |t: radial_core::Duration| Duration::from_nanos(t.as_nanos());
    match loss {
        LossSpec::None => (0.0, None),
        LossSpec::Bernoulli(p) => (p, None),
        LossSpec::GilbertElliott(c) => {
            let g = channels[c as usize];
            (
                0.0,
                Some(GilbertElliott {
                    good_loss: g.good_loss,
                    bad_loss: g.bad_loss,
                    good_mean: d(g.good_mean),
                    bad_mean: d(g.bad_mean),
                }),
            )
        }
    }
}

fn duration(t: Time) -> Duration {
    Duration::from_nanos(t.0.as_nanos())
}

/// A checked emulation file.
#[derive(Debug)]
pub struct Emulation {
    /// The server, if the file names one.
    pub server: Option<SocketAddr>,
    /// Front address (if the file gives one) and model of each path.
    pub paths: Vec<(Option<SocketAddr>, PathModel)>,
    /// Changes, in time order.
    pub schedule: Vec<(Duration, EmuCommand)>,
    /// Seed of the loss draws.
    pub seed: u64,
}

/// Reads and checks an emulation file.
pub fn load(file: &Path) -> Result<Emulation, CliError> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| CliError::Input(format!("{}: {e}", file.display())))?;
    let bad = |m: String| CliError::Input(format!("{}: {m}", file.display()));
    // `file:line: key `k`: message`, as scenario files say it.
    let at = |key: String, m: String| {
        let line = key_line(&text, &key).map_or(String::new(), |l| format!(":{l}"));
        CliError::Input(format!("{}{line}: key `{key}`: {m}", file.display()))
    };
    let f: EmuFile = toml::from_str(&text).map_err(|e| {
        // The line the error points at, and the key written on it.
        let at = e
            .span()
            .map(|s| text[..s.start.min(text.len())].matches('\n').count());
        let line = at.map_or(String::new(), |n| format!(":{}", n + 1));
        let key = at
            .and_then(|n| text.lines().nth(n))
            .and_then(|l| l.split_once('='))
            .map_or(String::new(), |(k, _)| format!(" key `{}`:", k.trim()));
        CliError::Input(format!(
            "{}{line}:{key} {}",
            file.display(),
            e.message().trim()
        ))
    })?;
    let server = f
        .server
        .as_ref()
        .map(|s| {
            s.parse::<SocketAddr>()
                .map_err(|_| at("server".into(), format!("`{s}` is not IP:PORT")))
        })
        .transpose()?;
    if f.paths.is_empty() {
        return Err(bad("no [[path]]".into()));
    }
    let mut paths = Vec::new();
    for (i, p) in f.paths.iter().enumerate() {
        let front = p
            .front
            .as_ref()
            .map(|f| {
                f.parse::<SocketAddr>()
                    .or_else(|_| f.parse::<IpAddr>().map(|ip| SocketAddr::new(ip, 0)))
                    .map_err(|_| {
                        at(
                            format!("path[{i}].front"),
                            format!("`{f}` is not an IP address"),
                        )
                    })
            })
            .transpose()?;
        if p.queue.is_some_and(|q| q < 2) {
            return Err(at(format!("path[{i}].queue"), "must be at least 2 packets (a limit of N holds N - 1 waiting packets plus the one on the wire, as in scenario files)".into()));
        }
        // The loss of a scenario's link from the server (forward, the path's
        // `down`) to the client (reverse, `up`), checked by the same code.
        let packet_time = p.rate.0.transmission_time(1500);
        let (down_loss, up_loss, shared) = match &p.loss {
            None => ((0.0, None), (0.0, None), false),
            Some(v) => {
                let name = file.display().to_string();
                let (fwd, rev, channels) =
                    link_loss(&name, &text, v, &format!("path[{i}].loss"), packet_time)?;
                let shared = matches!((fwd, rev), (LossSpec::GilbertElliott(a), LossSpec::GilbertElliott(b)) if a == b);
                (emulated(fwd, &channels), emulated(rev, &channels), shared)
            }
        };
        let down = link(p.rate, p.delay, p.queue, down_loss.0, down_loss.1);
        let up = link(
            p.rate_reverse.unwrap_or(p.rate),
            p.delay,
            p.queue,
            up_loss.0,
            up_loss.1,
        );
        paths.push((
            front,
            PathModel {
                up,
                down,
                shared_channel: shared,
            },
        ));
    }
    let mut schedule = Vec::new();
    for (i, s) in f.schedule.iter().enumerate() {
        if s.path >= paths.len() {
            return Err(at(
                format!("schedule[{i}].path"),
                format!("no path {}", s.path),
            ));
        }
        let c = match (s.action.as_str(), s.rate) {
            ("down", None) => EmuCommand::SetUp(s.path, false),
            ("up", None) => EmuCommand::SetUp(s.path, true),
            ("rate", Some(r)) => EmuCommand::SetRate(s.path, r.0.bps()),
            ("rate", None) => {
                return Err(at(
                    format!("schedule[{i}].rate"),
                    "action `rate` needs `rate`".into(),
                ))
            }
            (a, _) => {
                return Err(at(
                    format!("schedule[{i}].action"),
                    format!("`{a}` (known: down, up, rate; `rate` only with action `rate`)"),
                ))
            }
        };
        schedule.push((duration(s.at), c));
    }
    schedule.sort_by_key(|(t, _)| *t);
    Ok(Emulation {
        server,
        paths,
        schedule,
        seed: f.seed.unwrap_or(1),
    })
}

pub fn emulate(file: &Path) -> Result<(), CliError> {
    let Emulation {
        server,
        paths,
        schedule,
        seed,
    } = load(file)?;
    let bad = |m: &str| CliError::Input(format!("{}: {m}", file.display()));
    let server =
        server.ok_or_else(|| bad("key `server`: radial emulate needs the server's IP:PORT"))?;
    let paths = paths
        .into_iter()
        .enumerate()
        .map(|(i, (front, model))| {
            front.map(|f| (f, model)).ok_or_else(|| {
                bad(&format!(
                    "key `path[{i}].front`: radial emulate needs each path's front address"
                ))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let emu = Emulator::start(server, &paths, seed)
        .map_err(|e| CliError::Failed(format!("emulator: {e}")))?;
    for (i, (_, m)) in paths.iter().enumerate() {
        println!(
            "path {i}: {} -> {server} ({:.3} Mbit/s, {} ms, queue {})",
            emu.front(i),
            m.down.rate_bps as f64 / 1e6,
            m.down.delay.as_millis(),
            m.down.queue
        );
    }
    let start = std::time::Instant::now();
    for (at, c) in schedule {
        if let Some(wait) = at.checked_sub(start.elapsed()) {
            std::thread::sleep(wait);
        }
        println!("{:.3} s: {c:?}", start.elapsed().as_secs_f64());
        emu.command(c);
    }
    loop {
        std::thread::park();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(text: &str) -> std::path::PathBuf {
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let p = std::env::temp_dir().join(format!("radial-emu-{}-{n}.toml", std::process::id()));
        std::fs::write(&p, text).unwrap();
        p
    }

    const GOOD: &str = r#"
server = "127.0.0.1:7400"
[[path]]
front = "127.0.0.11"
rate = "20Mbit/s"
delay = "10ms"
[[path]]
front = "127.0.0.12:7412"
rate = "2Mbit/s"
rate_reverse = "1Mbit/s"
delay = "100ms"
queue = 50
loss = 0.01
[[schedule]]
at = "10s"
path = 1
action = "rate"
rate = "1Mbit/s"
[[schedule]]
at = "5s"
path = 0
action = "down"
"#;

    #[test]
    fn an_emulation_file_gives_paths_and_a_timed_schedule() {
        let Emulation {
            server,
            paths,
            schedule,
            seed,
        } = load(&write(GOOD)).unwrap();
        assert_eq!(server, Some("127.0.0.1:7400".parse().unwrap()));
        assert_eq!(seed, 1);
        assert_eq!(paths[0].0, Some("127.0.0.11:0".parse().unwrap()));
        // One BDP of 20 Mbit/s × 20 ms in 1500-byte packets.
        assert_eq!(paths[0].1.down.queue, 34);
        assert_eq!(paths[1].1.up.rate_bps, 1_000_000);
        assert_eq!(paths[1].1.down.rate_bps, 2_000_000);
        assert_eq!(paths[1].1.down.loss, 0.01);
        assert_eq!(
            schedule,
            vec![
                (Duration::from_secs(5), EmuCommand::SetUp(0, false)),
                (Duration::from_secs(10), EmuCommand::SetRate(1, 1_000_000)),
            ]
        );
    }

    #[test]
    fn a_gilbert_elliott_loss_table() {
        let text = GOOD.replacen(
            "loss = 0.01",
            "loss = { model = \"gilbert-elliott\", good_loss = 0.0001, bad_loss = 0.1, good_mean = \"10s\", bad_mean = \"2s\" }",
            1,
        );
        let e = load(&write(&text)).unwrap();
        let ge = e.paths[1].1.down.channel.expect("a channel");
        assert_eq!((ge.good_loss, ge.bad_loss), (0.0001, 0.1));
        assert_eq!(ge.bad_mean, Duration::from_secs(2));
        let bad = text.replacen("gilbert-elliott", "markov", 1);
        let Err(CliError::Input(m)) = load(&write(&bad)) else {
            panic!("accepted");
        };
        assert!(m.contains("path[1].loss.model"), "{m}");
    }

    #[test]
    fn errors_name_the_key() {
        for (from, to, key) in [
            (
                "front = \"127.0.0.11\"",
                "front = \"wlan0\"",
                "path[0].front",
            ),
            ("loss = 0.01", "loss = 2.0", "path[1].loss"),
            ("path = 1", "path = 7", "schedule[0].path"),
            (
                "action = \"down\"",
                "action = \"flap\"",
                "schedule[1].action",
            ),
            ("delay = \"10ms\"", "delay = 10", "delay"),
            ("queue = 50", "queue = 50\ncolour = 1", "colour"),
        ] {
            let text = GOOD.replacen(from, to, 1);
            let Err(CliError::Input(m)) = load(&write(&text)) else {
                panic!("{key}: accepted");
            };
            assert!(m.contains(key), "{key}: {m}");
        }
    }
}

/// The line of `key` (`server`, `path[2].rate`, `schedule[0].at`) in an
/// emulation file: a top-level key before the first table, or a key of
/// the N-th `[[table]]` (that table's header when the key is absent).
fn key_line(text: &str, key: &str) -> Option<usize> {
    let (table, index, name) = match key.split_once('.') {
        Some((t, name)) => {
            let (t, i) = t.split_once('[')?;
            (
                Some(t),
                i.trim_end_matches(']').parse::<usize>().ok()?,
                name,
            )
        }
        None => (None, 0, key),
    };
    let header = table.map(|t| format!("[[{t}]]"));
    // Headers of `table` seen so far, and whether the line is in the N-th.
    let (mut count, mut inside, mut header_line) = (0, table.is_none(), None);
    for (n, line) in text.lines().enumerate() {
        let l = line.trim();
        if l.starts_with('[') {
            table?;
            inside = header.as_deref() == Some(l) && count == index;
            if header.as_deref() == Some(l) {
                if inside {
                    header_line = Some(n + 1);
                }
                count += 1;
            }
            continue;
        }
        let is_key = l
            .strip_prefix(name)
            .is_some_and(|rest| rest.trim_start().starts_with('='));
        if inside && is_key {
            return Some(n + 1);
        }
    }
    header_line
}

#[cfg(test)]
mod key_lines {
    use super::key_line;

    #[test]
    fn keys_are_found_in_their_table() {
        let text = "server = \"127.0.0.1:1\"\n[[path]]\nrate = \"1Mbit/s\"\n\n[[path]]\ndelay = \"1ms\"\nrate = \"2Mbit/s\"\n[[schedule]]\nat = \"1s\"\n";
        assert_eq!(key_line(text, "server"), Some(1));
        assert_eq!(key_line(text, "path[0].rate"), Some(3));
        assert_eq!(key_line(text, "path[1].rate"), Some(7));
        assert_eq!(key_line(text, "path[1].queue"), Some(5));
        assert_eq!(key_line(text, "schedule[0].rate"), Some(8));
        assert_eq!(key_line(text, "path[2].rate"), None);
    }
}
