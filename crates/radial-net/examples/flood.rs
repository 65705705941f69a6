//! A flood against one server on loopback while a legitimate client
//! downloads: HELLOs from many addresses (each costs the server a key
//! agreement), sealed-looking datagrams for unknown connections, and
//! garbage, at a target rate for a fixed time. Prints what was sent, the
//! server's counters, the process's peak memory and whether the download
//! completed intact (`tools/bench/flood.sh`). Traffic goes to loopback
//! only and stops by itself.
//!
//! Usage: `cargo run --release -p radial-net --example flood -- [PPS] [SECONDS]`
//! (default 100000 datagrams a second for 10 s).

use std::net::UdpSocket;
use std::thread;
use std::time::{Duration, Instant};

use radial_net::crypto::ClientHandshake;
use radial_net::{get, hash_file, GetConfig};

#[path = "../tests/common/mod.rs"]
mod common;

fn main() {
    let mut args = std::env::args().skip(1);
    let pps: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let secs: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(10);
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
    let hellos: Vec<Vec<u8>> = (0..64).map(|_| ClientHandshake::start(false).1).collect();
    let end = Instant::now() + Duration::from_secs(secs);
    let flooders: Vec<_> = (0..2u64)
        .map(|t| {
            let hellos = hellos.clone();
            thread::spawn(move || {
                let socks: Vec<UdpSocket> = (0..50)
                    .map(|i| UdpSocket::bind(format!("127.30.{t}.{}:0", 1 + i)).unwrap())
                    .collect();
                let mut x: u64 = 0x2545_f491_4f6c_dd1d ^ t;
                let mut sent = 0u64;
                let per_thread = pps / 2;
                let start = Instant::now();
                while Instant::now() < end {
                    // Pace to the target rate, a millisecond at a time.
                    let due = start.elapsed().as_micros() as u64 * per_thread / 1_000_000;
                    while sent < due {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
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
                        sent += 1;
                    }
                    thread::sleep(Duration::from_millis(1));
                }
                sent
            })
        })
        .collect();
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
    println!("| flood datagrams sent | over s | handshakes answered | RETRYs | evicted | refused (caps) | malformed + unknown | peak RSS MB (whole process) | 10 MB download during the flood |");
    println!("|---|---|---|---|---|---|---|---|---|");
    println!(
        "| {sent} | {secs} | {} | {} | {} | {} | {} | {rss_mb} | {} in {took:.1} s |",
        stats.handshakes,
        stats.retries,
        stats.evicted,
        stats.refused_full,
        stats.malformed + stats.dropped,
        if intact { "intact" } else { "FAILED" }
    );
    if !intact {
        std::process::exit(1);
    }
}
