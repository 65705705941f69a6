//! A flood against one server on loopback while a legitimate client
//! downloads, at a target rate for a fixed time. `handshakes` (the
//! default): HELLOs from many addresses (each costs the server a key
//! agreement), sealed-looking datagrams for unknown connections, and
//! garbage. `sessions`: 200 connections with keys of their own and an
//! open pipe each send, sealed, JOINs of ever new paths, SYNs, pulls of
//! 4 MB and GETs of new connection numbers. Prints what was sent, the
//! server's counters, the process's peak memory and whether the download
//! completed intact (`tools/bench/flood.sh`). Traffic goes to loopback
//! only and stops by itself.
//!
//! Usage: `cargo run --release -p radial-net --example flood -- [PPS] [SECONDS] [handshakes|sessions]`
//! (default 100000 datagrams a second for 10 s of handshakes).

use std::net::UdpSocket;
use std::thread;
use std::time::{Duration, Instant};

use radial_net::crypto::ClientHandshake;
use radial_net::session::Message;
use radial_net::{get, hash_file, GetConfig};

#[path = "../tests/common/mod.rs"]
mod common;

fn main() {
    let mut args = std::env::args().skip(1);
    let pps: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let secs: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(10);
    let sessions = match args.next().as_deref() {
        None | Some("handshakes") => false,
        Some("sessions") => true,
        Some(other) => {
            eprintln!("unknown flood `{other}` (handshakes or sessions)");
            std::process::exit(2);
        }
    };
    let fixture = common::serve("flood", 10_000_000);
    let (dir, addr) = (fixture.dir.clone(), fixture.server);
    // Warm the hash so the client's transfer starts at once.
    let warm = GetConfig::new(
        addr,
        "data.bin",
        &["127.0.0.1:0".parse().unwrap()],
        dir.join("warm.bin"),
    );
    get(&warm, None, |_| {}).unwrap();
    // The session flood's connections are made first, 100 per thread.
    let mut own: Vec<Vec<common::raw::Raw>> = (0..2u16)
        .map(|t| {
            (0..if sessions { 100u16 } else { 0 })
                .map(|k| session(addr, t * 100 + k + 1))
                .collect()
        })
        .collect();
    let end = Instant::now() + Duration::from_secs(secs);
    let flooders: Vec<_> = (0..2u64)
        .map(|t| {
            let conns = std::mem::take(&mut own[t as usize]);
            thread::spawn(move || {
                if sessions {
                    flood_sessions(conns, pps / 2, end, t)
                } else {
                    flood_handshakes(addr, pps / 2, end, t)
                }
            })
        })
        .collect();
    // The download starts halfway through the flood.
    thread::sleep(Duration::from_secs(secs) / 2);
    let t0 = Instant::now();
    let cfg = GetConfig::new(
        addr,
        "data.bin",
        &["127.0.0.1:0".parse().unwrap()],
        dir.join("out.bin"),
    );
    let result = get(&cfg, None, |_| {});
    let took = t0.elapsed().as_secs_f64();
    if let Err(e) = &result {
        eprintln!("the download failed: {e}");
    }
    let intact = result.is_ok() && hash_file(&cfg.out).ok() == hash_file(&fixture.file()).ok();
    let sent: u64 = flooders.into_iter().map(|h| h.join().unwrap()).sum();
    let stats = fixture.stats();
    let rss_mb = common::raw::peak_rss() >> 20;
    println!("| flood datagrams sent | over s | handshakes answered | RETRYs | refused or rejected | malformed + unknown | peak RSS MB (whole process) | 10 MB download during the flood |");
    println!("|---|---|---|---|---|---|---|---|");
    println!(
        "| {sent} | {secs} | {} | {} | {} | {} | {rss_mb} | {} in {took:.1} s |",
        stats.handshakes,
        stats.retries,
        stats.refused_full + stats.rejected,
        stats.malformed + stats.dropped,
        if intact { "intact" } else { "FAILED" }
    );
    if !intact {
        std::process::exit(1);
    }
}

/// A connection of the flood's own: keys, connection number `conn`, path 0
/// joined and proved, its pipe opened.
fn session(server: std::net::SocketAddr, conn: u16) -> common::raw::Raw {
    let mut raw =
        common::raw::Raw::from(&format!("127.31.{}.{}", conn / 200, 1 + conn % 200), server);
    raw.connect(conn);
    let challenge = raw.join(conn, 0).expect("joined");
    raw.validate(conn, 0, challenge);
    let isn = raw.open_pipe(conn, 0);
    raw.isn = Some(isn);
    raw.sock.set_nonblocking(true).unwrap();
    raw
}

/// Paces `per_thread` datagrams a second until `end`, a millisecond at a
/// time, each made by `next`: how many went out.
fn paced(per_thread: u64, end: Instant, mut next: impl FnMut(u64)) -> u64 {
    let start = Instant::now();
    let mut sent = 0u64;
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    while Instant::now() < end {
        let due = start.elapsed().as_micros() as u64 * per_thread / 1_000_000;
        while sent < due {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            next(x);
            sent += 1;
        }
        thread::sleep(Duration::from_millis(1));
    }
    sent
}

/// HELLOs, sealed-looking datagrams for no connection, and garbage, from
/// 50 addresses.
fn flood_handshakes(addr: std::net::SocketAddr, per_thread: u64, end: Instant, t: u64) -> u64 {
    let hellos: Vec<Vec<u8>> = (0..64).map(|_| ClientHandshake::start(false).1).collect();
    let socks: Vec<UdpSocket> = (0..50)
        .map(|i| UdpSocket::bind(format!("127.30.{t}.{}:0", 1 + i)).unwrap())
        .collect();
    paced(per_thread, end, |x| {
        let sock = &socks[(x % 50) as usize];
        let _ = match x % 3 {
            0 => sock.send_to(&hellos[(x >> 8) as usize % 64], addr),
            1 => {
                let mut d = [0u8; 80];
                d[0] = 0x15;
                d[1..9].copy_from_slice(&x.to_be_bytes());
                sock.send_to(&d, addr)
            }
            _ => sock.send_to(&x.to_be_bytes().repeat(4), addr),
        };
    })
}

/// Sealed JOINs of new paths, SYNs, pulls of 4 MB and GETs of new
/// connection numbers on the flood's own connections; nothing is read, so
/// what the server sends back is never echoed.
fn flood_sessions(mut conns: Vec<common::raw::Raw>, per_thread: u64, end: Instant, t: u64) -> u64 {
    let mut pull_id = 2u32;
    paced(per_thread, end, |x| {
        let n = conns.len();
        let raw = &mut conns[(x % n as u64) as usize];
        let conn = raw.conn;
        match (x >> 8) % 4 {
            0 => {
                let path = 1 + ((x >> 16) % 1000) as u16;
                raw.send_msg(path, &Message::Join { conn, path });
            }
            1 => {
                raw.send_sealed(0, &common::raw::syn(conn, 0));
            }
            2 => {
                let isn = raw.isn.expect("opened");
                let start = ((x >> 16) % 16) as u32 * 4_000_000;
                pull_id += 1;
                raw.send_sealed(
                    0,
                    &common::raw::pull(conn, isn, pull_id, start, start + 4_000_000),
                );
            }
            _ => {
                let other = 1000 + t as u16 * 20_000 + ((x >> 16) % 20_000) as u16;
                raw.send_msg(
                    common::raw::CONTROL,
                    &Message::Get {
                        conn: other,
                        segment: 1200,
                        path: "data.bin".into(),
                    },
                );
            }
        }
        // Drop what came back unread, as a flood would.
        let mut buf = [0u8; 2048];
        while raw.sock.recv_from(&mut buf).is_ok() {}
    })
}
