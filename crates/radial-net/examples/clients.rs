//! Many clients at once against one server on loopback: each fetches the
//! same file through its own loopback address, and every download must
//! complete intact. Prints how many completed, the time, the aggregate
//! goodput and the process's peak memory (`tools/bench/clients.sh`).
//!
//! Usage: `cargo run --release -p radial-net --example clients -- [CLIENTS] [MB]`
//! (default 1000 clients of 10 MB each).

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Instant;

use radial_net::{get, GetConfig};

#[path = "../tests/common/mod.rs"]
mod common;

fn main() {
    let mut args = std::env::args().skip(1);
    let clients: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1000);
    let mb: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(10);
    let fixture = common::serve("clients", mb * 1_000_000);
    let (dir, addr) = (fixture.dir.clone(), fixture.server);
    let (size, sha) = radial_net::hash_file(&fixture.file()).unwrap();
    let started = Instant::now();
    let ok = Arc::new(AtomicU64::new(0));
    let handles: Vec<_> = (0..clients)
        .map(|i| {
            let (dir, ok) = (dir.clone(), ok.clone());
            // Each client from its own loopback address.
            let via: SocketAddr = format!("127.20.{}.{}:0", i / 250, 1 + i % 250)
                .parse()
                .unwrap();
            thread::Builder::new()
                .stack_size(256 << 10)
                .spawn(move || {
                    let out = dir.join(format!("out-{i}.bin"));
                    let cfg = GetConfig::new(addr, "data.bin", &[via], out.clone());
                    match get(&cfg, None, |_| {}) {
                        Ok(s) if s.bytes == size && s.sha256 == sha => {
                            ok.fetch_add(1, Ordering::Relaxed);
                        }
                        Ok(_) => eprintln!("client {i}: wrong file"),
                        Err(e) => eprintln!("client {i}: {e}"),
                    }
                    let _ = std::fs::remove_file(&out);
                })
                .unwrap()
        })
        .collect();
    for h in handles {
        let _ = h.join();
    }
    let secs = started.elapsed().as_secs_f64();
    let rss_mb = common::raw::peak_rss() >> 20;
    let stats = fixture.stats();
    let done = ok.load(Ordering::Relaxed);
    println!("| clients | MB each | completed intact | seconds | aggregate Mbit/s | peak RSS (clients + server) MB | server pipes opened |");
    println!("|---|---|---|---|---|---|---|");
    println!(
        "| {clients} | {mb} | {done} | {secs:.1} | {:.0} | {rss_mb} | {} |",
        done as f64 * size as f64 * 8.0 / secs / 1e6,
        stats.pipes
    );
    if done as usize != clients {
        std::process::exit(1);
    }
}
