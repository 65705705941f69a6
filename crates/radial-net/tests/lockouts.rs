//! Nobody is locked out: floods that fill the server's tables, or that
//! spoof a victim's address, leave room for an honest client from an
//! address that is not flooding. Loopback only; every flood is bounded in
//! count, and its keep-alives stop with the test.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use radial_net::crypto::ClientHandshake;
use radial_net::{get, hash_file, GetConfig, Limits};

mod common;
use common::raw::{pull_on, syn, Raw};
use common::{serve, serve_with, Fixture};

/// Downloads the fixture's file from local address `via`, checked end to
/// end.
fn download_from(f: &Fixture, via: &str) {
    let via: SocketAddr = format!("{via}:0").parse().unwrap();
    let cfg = GetConfig::new(f.server, "data.bin", &[via], f.dir.join("out.bin"));
    let s = get(&cfg, None, |_| {}).unwrap_or_else(|e| panic!("the honest get failed: {e}"));
    assert_eq!(hash_file(&cfg.out).unwrap(), hash_file(&f.file()).unwrap());
    assert_eq!(s.bytes, f.file().metadata().unwrap().len());
}

/// Pipes opened by one attacker address: connections × paths, each joined,
/// validated and opened.
struct Flooder {
    raws: Vec<(u16, Raw)>,
    paths: u16,
    /// Each pipe's initial sequence number, by connection and path.
    isns: Vec<Vec<radial_core::seq::SeqNum>>,
}

impl Flooder {
    fn open(ip: &str, server: SocketAddr, conns: std::ops::Range<u16>, paths: u16) -> Flooder {
        let mut raws = Vec::new();
        let mut isns = Vec::new();
        for conn in conns {
            let mut raw = Raw::from(ip, server);
            raw.connect(conn);
            let mut mine = Vec::new();
            for path in 0..paths {
                let challenge = raw.join(conn, path).expect("joined");
                raw.validate(conn, path, challenge);
                mine.push(raw.open_pipe(conn, path));
            }
            raws.push((conn, raw));
            isns.push(mine);
        }
        Flooder { raws, paths, isns }
    }

    /// Keeps every pipe alive (a SYN on an open pipe counts as hearing its
    /// receiver) every 300 ms until `stop`, at most for 60 s.
    fn keep_alive(mut self, stop: Arc<AtomicBool>) -> thread::JoinHandle<()> {
        thread::spawn(move || {
            for _ in 0..200 {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                for (conn, raw) in &mut self.raws {
                    for path in 0..self.paths {
                        raw.send_sealed(path, &syn(*conn, path));
                    }
                    let _ = raw.collect(Duration::ZERO);
                }
                thread::sleep(Duration::from_millis(300));
            }
        })
    }
}

#[test]
fn pipes_from_many_addresses_of_other_networks_lock_no_client_out() {
    // Sixteen addresses, each in a network of its own, open as many pipes
    // as one address may (8 connections × 8 paths) and keep them alive:
    // together they fill the server's pipe table. An honest client from a
    // network that is not flooding still gets its file: at the cap its
    // pipe takes the place of the oldest pipe of the largest holder.
    let limits = Limits {
        pipes: 1024,
        pipes_per_address: 64,
        ..Limits::default()
    };
    let f = serve_with("pipecap", 2_000_000, limits);
    let mut flooders = Vec::new();
    for a in 0..16u16 {
        let ip = format!("127.1.{a}.1");
        flooders.push(Flooder::open(&ip, f.server, 8 * a + 1..8 * a + 9, 8));
    }
    let full = f.when(|s| s.live_pipes == 1024);
    assert_eq!(full.live_pipes, 1024, "{full:?}");
    let stop = Arc::new(AtomicBool::new(false));
    let alive: Vec<_> = flooders
        .into_iter()
        .map(|fl| fl.keep_alive(stop.clone()))
        .collect();
    download_from(&f, "127.0.0.1");
    stop.store(true, Ordering::Relaxed);
    for h in alive {
        h.join().unwrap();
    }
    let stats = f.stats();
    assert_eq!(stats.completed, 1, "{stats:?}");
    assert!(stats.evicted >= 1, "{stats:?}");
    assert!(stats.live_pipes <= 1024, "{stats:?}");
}

#[test]
fn unanswered_pipes_give_way_before_a_new_pipe_is_refused() {
    // One address of the honest client's own network fills the pipe table
    // with pipes that pull data and never echo a receipt (kept alive
    // otherwise): a guard window later they count as unanswered, and the
    // honest client's pipe takes the place of one of them.
    let limits = Limits {
        pipes: 32,
        ..Limits::default()
    };
    let f = serve_with("unanswered", 2_000_000, limits);
    let mut fl = Flooder::open("127.0.0.9", f.server, 1..5, 8);
    for ((conn, raw), isns) in fl.raws.iter_mut().zip(&fl.isns) {
        for (path, isn) in (0..).zip(isns) {
            raw.send_sealed(path, &pull_on(*conn, path, *isn, 1, 0, 1_000_000));
        }
    }
    thread::sleep(Duration::from_millis(300));
    assert_eq!(f.when(|s| s.live_pipes == 32).live_pipes, 32);
    let stop = Arc::new(AtomicBool::new(false));
    let alive = fl.keep_alive(stop.clone());
    thread::sleep(Duration::from_millis(1500));
    download_from(&f, "127.0.0.1");
    stop.store(true, Ordering::Relaxed);
    alive.join().unwrap();
    let stats = f.stats();
    assert_eq!(stats.completed, 1, "{stats:?}");
    assert!(stats.evicted >= 1, "{stats:?}");
}

#[test]
fn hellos_spoofing_a_victims_address_do_not_lock_it_out() {
    // HELLOs sent under the victim's address (here from a socket of its
    // own, which is what the server sees of a spoofed source) past the
    // address's share of half-open connections: the victim's own client
    // gets a RETRY, comes back with its token, and downloads.
    let f = serve("spoof", 1_000_000);
    let victim = "127.0.7.7";
    let mut spoofer = Raw::from(victim, f.server);
    for _ in 0..3 * Limits::default().half_open_per_address {
        let (_, hello) = ClientHandshake::start(false);
        spoofer.send(&hello);
    }
    // A spoofer never sees the replies; they are drained here.
    let _ = spoofer.collect(Duration::from_millis(200));
    download_from(&f, victim);
    let stats = f.stats();
    assert_eq!(stats.completed, 1, "{stats:?}");
    assert!(stats.retries > 0, "{stats:?}");
    assert!(
        stats.handshakes as usize <= Limits::default().half_open_per_address + 1,
        "{stats:?}"
    );
}
