//! Emulated paths on loopback for the runtime's tests and its benchmark:
//! the scenarios, each returning what it measured. The tests assert what
//! holds however loaded the machine is; `examples/emulated.rs` (run by
//! `tools/bench/emulated.sh`) reports the timings.

#![allow(dead_code)]

use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::thread;
use std::time::Duration;

use radial_net::{
    get, hash_file, Control, EmuCommand, Emulator, GetConfig, LinkModel, PathConfig, PathModel,
    Summary, Trust,
};

use super::{serve, Fixture};

/// A symmetric path of `mbps` with `one_way_ms` each way and a queue of one
/// bandwidth-delay product.
pub fn path(mbps: u64, one_way_ms: u64) -> PathModel {
    let d = Duration::from_millis(one_way_ms);
    let l = LinkModel::with_bdp_queue(mbps * 1_000_000, d, 2 * d);
    PathModel {
        up: l,
        down: l,
        shared_channel: false,
    }
}

/// Two emulated paths (fronts on 127.0.0.11 and .12), one pipe through each
/// from 127.0.0.21 and .22.
pub fn two_paths(f: &Fixture, a: PathModel, b: PathModel) -> (Emulator, GetConfig) {
    let ips: [IpAddr; 2] = [[127, 0, 0, 11].into(), [127, 0, 0, 12].into()];
    let emu = Emulator::start(
        f.server,
        &[
            (SocketAddr::new(ips[0], 0), a),
            (SocketAddr::new(ips[1], 0), b),
        ],
        7,
    )
    .unwrap();
    let cfg = GetConfig {
        path: "data.bin".into(),
        paths: vec![
            PathConfig {
                via: "127.0.0.21:0".parse().unwrap(),
                to: emu.front(0),
            },
            PathConfig {
                via: "127.0.0.22:0".parse().unwrap(),
                to: emu.front(1),
            },
        ],
        standby: Vec::new(),
        target: None,
        out: f.dir.join("out.bin"),
        trust: Trust::Any,
        insecure: false,
        resume: false,
        buffer: None,
        max_size: radial_net::client::DEFAULT_MAX_SIZE,
        moderate_wakes: true,
        segment: radial_net::config::MSS,
    };
    (emu, cfg)
}

/// The highest rate over any `window` seconds of `(elapsed s, bytes)`
/// progress samples, in Mbit/s.
pub fn best_rate(marks: &[(f64, u64)], window: f64) -> f64 {
    let mut best: f64 = 0.0;
    let mut j = 0;
    for &(t, d) in marks {
        while j < marks.len() && marks[j].0 < t - window {
            j += 1;
        }
        let (t0, d0) = marks[j.saturating_sub(1).min(marks.len() - 1)];
        if t - t0 >= window {
            best = best.max((d - d0) as f64 * 8.0 / (t - t0) / 1e6);
        }
    }
    best
}

/// Two 20 Mbit/s paths of 10 and 60 ms one way, a 120 MB file: the
/// transfer's summary and its best 5-second rate.
pub fn aggregation() -> (Summary, f64) {
    // 1200-byte payloads in 1248-byte datagrams: the paths carry at most
    // 38.5 Mbit/s of file. Each pipe's NewReno overshoots in slow start and
    // the 120 ms path then climbs back at one segment per round trip, so the
    // rate is taken over the best 5 s of a 120 MB transfer.
    let f = serve("agg", 120_000_000);
    let (emu, cfg) = two_paths(&f, path(20, 10), path(20, 60));
    let mut marks = Vec::new();
    let s = get(&cfg, None, |p| marks.push((p.elapsed_s, p.delivered))).unwrap();
    emu.stop().expect("the emulator ran to the end");
    assert_eq!(hash_file(&cfg.out).unwrap(), hash_file(&f.file()).unwrap());
    (s, best_rate(&marks, 5.0))
}

/// Two 20 Mbit/s paths; path 0's interface goes at the first progress
/// report past a quarter of the file (its link drops everything and the
/// client is told): the summary and what was delivered in order by then.
pub fn handoff() -> (Summary, u64) {
    let f = serve("handoff", 20_000_000);
    let (emu, cfg) = two_paths(&f, path(20, 10), path(20, 30));
    let (tx, rx) = mpsc::channel();
    let mut gone = None;
    let s = get(&cfg, Some(&rx), |p| {
        if gone.is_none() && p.delivered > p.size / 4 && p.delivered < p.size {
            emu.command(EmuCommand::SetUp(0, false));
            tx.send(Control::Drop(0)).unwrap();
            gone = Some(p.delivered);
        }
    })
    .unwrap();
    assert_eq!(hash_file(&cfg.out).unwrap(), hash_file(&f.file()).unwrap());
    (s, gone.expect("a report before the end"))
}

/// Path 0 goes silent for 3 s at the first progress report past a quarter
/// of the file, and nothing tells the client: the summary.
pub fn blackout() -> Summary {
    let f = serve("blackout", 20_000_000);
    let (emu, cfg) = two_paths(&f, path(20, 10), path(20, 30));
    let emu = Arc::new(emu);
    let e = emu.clone();
    let mut down = false;
    let s = get(&cfg, None, |p| {
        if !down && p.delivered > p.size / 4 && p.delivered < p.size {
            e.command(EmuCommand::SetUp(0, false));
            let e2 = e.clone();
            thread::spawn(move || {
                thread::sleep(Duration::from_secs(3));
                e2.command(EmuCommand::SetUp(0, true));
            });
            down = true;
        }
    })
    .unwrap();
    assert!(down);
    assert_eq!(hash_file(&cfg.out).unwrap(), hash_file(&f.file()).unwrap());
    s
}

/// pTCP Figure 10 over real sockets: two 10 Mbit/s paths, a 6 Mbit/s
/// target preferring path 0, a 6 MB file.
pub fn target_rate() -> Summary {
    let f = serve("target", 6_000_000);
    let (emu, mut cfg) = two_paths(&f, path(10, 10), path(10, 10));
    cfg.target = Some((radial_core::BitRate::from_mbps(6), 0));
    let s = get(&cfg, None, |_| {}).unwrap();
    drop(emu);
    assert_eq!(hash_file(&cfg.out).unwrap(), hash_file(&f.file()).unwrap());
    s
}

/// The same 5 MB through an emulated 10 Mbit/s path, once quietly and
/// once while another socket sprays the server with malformed and forged
/// datagrams: the two transfers' seconds.
pub fn under_garbage() -> (f64, f64) {
    let f = serve("noise", 5_000_000);
    let run = |name: &str| {
        let ips: [IpAddr; 1] = [[127, 0, 0, 15].into()];
        let emu =
            Emulator::start(f.server, &[(SocketAddr::new(ips[0], 0), path(10, 10))], 3).unwrap();
        let cfg = GetConfig {
            path: "data.bin".into(),
            paths: vec![PathConfig {
                via: "127.0.0.25:0".parse().unwrap(),
                to: emu.front(0),
            }],
            standby: Vec::new(),
            target: None,
            out: f.dir.join(format!("{name}.bin")),
            trust: Trust::Any,
            insecure: false,
            resume: false,
            buffer: None,
            max_size: radial_net::client::DEFAULT_MAX_SIZE,
            moderate_wakes: true,
            segment: radial_net::config::MSS,
        };
        let s = get(&cfg, None, |_| {}).unwrap();
        assert_eq!(hash_file(&cfg.out).unwrap(), hash_file(&f.file()).unwrap());
        s.seconds
    };
    let quiet = run("quiet");
    let stop = Arc::new(AtomicBool::new(false));
    let s = stop.clone();
    let target = f.server;
    let noise = thread::spawn(move || {
        let sock = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let mut x: u64 = 0x9e37_79b9;
        while !s.load(Ordering::Relaxed) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let mut d = x.to_be_bytes().repeat(8);
            d[0] = [0x10, 0x11, 0x14, 0x15][(x % 4) as usize];
            let _ = sock.send_to(&d, target);
            thread::sleep(Duration::from_micros(200));
        }
    });
    let noisy = run("noisy");
    stop.store(true, Ordering::Relaxed);
    noise.join().unwrap();
    (quiet, noisy)
}
