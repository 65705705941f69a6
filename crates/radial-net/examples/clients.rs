//! Many clients at once against one server on loopback: each fetches the
//! same file through its own loopback address, and every download must
//! complete intact. Prints how many completed, the time, the aggregate
//! goodput and the process's peak memory (`tools/bench/clients.sh`).
//!
//! Usage: `cargo run --release -p radial-net --example clients -- [CLIENTS] [MB]`
//! (default 1000 clients of 10 MB each).

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Instant;

use radial_net::{get, GetConfig, Server};

fn main() {
    let mut args = std::env::args().skip(1);
    let clients: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1000);
    let mb: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(10);
    let dir = std::env::temp_dir().join(format!("radial-clients-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("root")).unwrap();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let data: Vec<u8> = (0..mb * 1_000_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    std::fs::write(dir.join("root/f.bin"), &data).unwrap();
    let (size, sha) = radial_net::hash_file(&dir.join("root/f.bin")).unwrap();
    let mut server = Server::bind(&dir.join("root"), &["127.0.0.1:0".parse().unwrap()]).unwrap();
    let addr = server.local_addrs()[0];
    let stop = Arc::new(AtomicBool::new(false));
    let s = stop.clone();
    let srv = thread::spawn(move || {
        server.run(&s).unwrap();
        server.stats()
    });
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
                    let cfg = GetConfig::new(addr, "f.bin", &[via], out.clone());
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
    stop.store(true, Ordering::Relaxed);
    let stats = srv.join().unwrap();
    let rss_mb = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .map_or(0, |kb| kb / 1024);
    let done = ok.load(Ordering::Relaxed);
    println!("| clients | MB each | completed intact | seconds | aggregate Mbit/s | peak RSS (clients + server) MB | server pipes opened |");
    println!("|---|---|---|---|---|---|---|");
    println!(
        "| {clients} | {mb} | {done} | {secs:.1} | {:.0} | {rss_mb} | {} |",
        done as f64 * size as f64 * 8.0 / secs / 1e6,
        stats.pipes
    );
    let _ = std::fs::remove_dir_all(&dir);
    if done as usize != clients {
        std::process::exit(1);
    }
}
