//! The real client and server through emulated paths on loopback
//! (`radial_net::emulator`): aggregation across two paths of different
//! delay, and handoffs when a path goes away mid-transfer.

use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex, MutexGuard};
use std::thread;
use std::time::Duration;

use radial_net::{
    get, hash_file, Control, EmuCommand, Emulator, GetConfig, LinkModel, PathConfig, PathModel,
    Trust,
};

/// The tests here time real transfers: one at a time, so they do not share
/// the machine's cores.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

mod common;
use common::{serve, Fixture};

/// A symmetric path of `mbps` with `one_way_ms` each way and a queue of one
/// bandwidth-delay product.
fn path(mbps: u64, one_way_ms: u64) -> PathModel {
    let d = Duration::from_millis(one_way_ms);
    let l = LinkModel::with_bdp_queue(mbps * 1_000_000, d, 2 * d);
    PathModel { up: l, down: l }
}

/// Two emulated paths (fronts on 127.0.0.11 and .12), one pipe through each
/// from 127.0.0.21 and .22.
fn two_paths(f: &Fixture, a: PathModel, b: PathModel) -> (Emulator, GetConfig) {
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
    };
    (emu, cfg)
}

/// The highest rate over any `window` seconds of `(elapsed s, bytes)`
/// progress samples, in Mbit/s.
fn best_rate(marks: &[(f64, u64)], window: f64) -> f64 {
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

#[test]
fn two_20_mbit_paths_of_10_and_60_ms_aggregate_to_90_percent_of_40() {
    let _one_at_a_time = serial();
    // 1200-byte payloads in 1248-byte datagrams: the paths carry at most
    // 38.5 Mbit/s of file. Each pipe's NewReno overshoots in slow start and
    // the 120 ms path then climbs back at one segment per round trip, so the
    // rate is taken over the best 5 s of a 120 MB transfer.
    let f = serve("agg", 120_000_000);
    let (emu, cfg) = two_paths(&f, path(20, 10), path(20, 60));
    let mut marks = Vec::new();
    let s = get(&cfg, None, |p| marks.push((p.elapsed_s, p.delivered))).unwrap();
    let counters = emu.stop();
    assert_eq!(hash_file(&cfg.out).unwrap(), hash_file(&f.file()).unwrap());
    let best = best_rate(&marks, 5.0);
    eprintln!(
        "best 5 s {best:.2} Mbit/s, whole transfer {:.2} Mbit/s, pipes {:?}, paths {counters:?}",
        s.mbps(),
        s.pipes
    );
    assert!(
        best >= 36.0,
        "best 5 s {best:.2} Mbit/s, whole {:.2}: {:?}",
        s.mbps(),
        s.pipes
    );
    assert!(
        s.pipes.iter().all(|p| p.bytes > 40_000_000),
        "{:?}",
        s.pipes
    );
}

#[test]
fn a_path_lost_mid_transfer_hands_off_and_the_file_arrives_intact() {
    let _one_at_a_time = serial();
    // The interface of path 0 goes away at 8 MB: its emulated link drops
    // everything and the client is told (an address lost).
    let f = serve("handoff", 20_000_000);
    let (emu, cfg) = two_paths(&f, path(20, 10), path(20, 30));
    let (tx, rx) = mpsc::channel();
    let mut gone = false;
    let s = get(&cfg, Some(&rx), |p| {
        if !gone && p.delivered > 8_000_000 {
            emu.command(EmuCommand::SetUp(0, false));
            tx.send(Control::Drop(0)).unwrap();
            gone = true;
        }
    })
    .unwrap();
    assert!(gone);
    assert_eq!(hash_file(&cfg.out).unwrap(), hash_file(&f.file()).unwrap());
    assert!(s.pipes[1].bytes > 12_000_000 - 2_000_000, "{:?}", s.pipes);
}

#[test]
fn a_blackout_nobody_announces_is_ridden_out_on_the_other_path() {
    let _one_at_a_time = serial();
    // Path 0 goes silent for 3 s and nothing tells the client: its pipe
    // times out, redundant striping keeps the head of line moving on path 1.
    let f = serve("blackout", 20_000_000);
    let (emu, cfg) = two_paths(&f, path(20, 10), path(20, 30));
    let emu = Arc::new(emu);
    let e = emu.clone();
    let mut down = false;
    let s = get(&cfg, None, |p| {
        if !down && p.delivered > 5_000_000 {
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
    assert!(s.seconds < 15.0, "took {:.1} s", s.seconds);
}

#[test]
fn a_target_rate_is_served_from_the_preferred_path_first() {
    // pTCP Figure 10 over real sockets: two 10 Mbit/s paths, a 6 Mbit/s
    // target preferring path 0. The transfer runs near 6 Mbit/s, not the
    // 19 the two could carry, and path 0 carries most of it.
    let _one_at_a_time = serial();
    let f = serve("target", 6_000_000);
    let (emu, mut cfg) = two_paths(&f, path(10, 10), path(10, 10));
    cfg.target = Some((radial_core::BitRate::from_mbps(6), 0));
    let s = get(&cfg, None, |_| {}).unwrap();
    drop(emu);
    assert_eq!(hash_file(&cfg.out).unwrap(), hash_file(&f.file()).unwrap());
    assert!(
        (5.0..6.6).contains(&s.mbps()),
        "{:.2} Mbit/s: {:?}",
        s.mbps(),
        s.pipes
    );
    assert!(s.pipes[0].bytes > 4 * s.pipes[1].bytes, "{:?}", s.pipes);
}

#[test]
fn garbage_at_the_server_does_not_slow_a_transfer() {
    // The same 5 MB through an emulated 10 Mbit/s path, once quietly and
    // once while another socket sprays the server with malformed and
    // forged datagrams: the two take about as long.
    let _one_at_a_time = serial();
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
            d[0] = [0x10, 0x11, 0x12, 0x13][(x % 4) as usize];
            let _ = sock.send_to(&d, target);
            thread::sleep(Duration::from_micros(200));
        }
    });
    let noisy = run("noisy");
    stop.store(true, Ordering::Relaxed);
    noise.join().unwrap();
    assert!(
        noisy < 1.25 * quiet + 0.2,
        "{noisy:.2} s with garbage, {quiet:.2} s without"
    );
}
