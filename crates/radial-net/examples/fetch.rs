//! One stream, one direction: a server on loopback answers a request for
//! N bytes on a stream connection, and the client reads them, checks each
//! against the pattern both ends compute, and prints the goodput and the process's CPU time per
//! gigabyte (`tools/bench/net.sh` runs it beside iperf3 and quinn).
//!
//! Usage: `cargo run --release -p radial-net --example fetch -- [MB] [PATHS]
//! [SEGMENT] [insecure]` (default 300 MB over one path in segments of
//! 1,200 bytes, encrypted; each path from its own loopback address;
//! `insecure` runs the connection without encryption, as the kernel's TCP
//! it is compared with runs).

use std::io::{Read, Write};
use std::sync::mpsc;
use std::thread;
use std::time::Instant;

use radial_net::stream::{connect, ConnectConfig, Connection};
use radial_net::{PathConfig, Server, ServerOptions, Trust};

/// The bytes a request for `n` gets: a pattern both ends compute, four
/// bytes at a time. Byte `x` of the stream is byte `x % 4` of the
/// little-endian word `(x / 4) * K` (modulo 2^32, `K` odd), so a byte lost,
/// doubled or moved by less than 2^32 words (16 GiB) changes what follows
/// it. Consecutive words differ by `K`: one addition each, which the
/// compiler does many at a time, so making and checking the pattern cost
/// the benchmark little beside the transport it measures.
fn pattern(at: u64, out: &mut [u8]) {
    const K: u32 = 0x9e37_79b9;
    let word = |w: u64| (w as u32).wrapping_mul(K).to_le_bytes();
    let head = ((4 - at % 4) % 4).min(out.len() as u64) as usize;
    for (i, b) in out[..head].iter_mut().enumerate() {
        let x = at + i as u64;
        *b = word(x / 4)[(x % 4) as usize];
    }
    let first = (at + head as u64) / 4;
    let mut v = (first as u32).wrapping_mul(K);
    let mut words = out[head..].chunks_exact_mut(4);
    for w in &mut words {
        w.copy_from_slice(&v.to_le_bytes());
        v = v.wrapping_add(K);
    }
    let tail = words.into_remainder();
    let n = tail.len();
    tail.copy_from_slice(&v.to_le_bytes()[..n]);
}

/// Serves every stream: reads "n\n", writes n pattern bytes, finishes.
fn answer(conn: Connection) {
    while let Ok(s) = conn.accept_stream() {
        thread::spawn(move || {
            let (mut r, mut w) = s.split();
            let mut line = Vec::new();
            let mut b = [0u8; 1];
            while r.read(&mut b).unwrap_or(0) == 1 && b[0] != b'\n' {
                line.push(b[0]);
            }
            let n: u64 = String::from_utf8_lossy(&line).trim().parse().unwrap_or(0);
            let mut buf = vec![0u8; 64 * 1024];
            let mut at = 0;
            while at < n {
                let k = (n - at).min(buf.len() as u64) as usize;
                pattern(at, &mut buf[..k]);
                if w.write_all(&buf[..k]).is_err() {
                    return;
                }
                at += k as u64;
            }
            let _ = w.finish();
        });
    }
}

/// User and system CPU seconds of this process so far.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit(')')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    let ticks: f64 = [11, 12]
        .iter()
        .filter_map(|&i| fields.get(i).and_then(|f| f.parse::<f64>().ok()))
        .sum();
    ticks / 100.0
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mb: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(300);
    let paths: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1);
    let segment: u64 = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or(radial_net::config::MSS);
    let insecure = match args.next().as_deref() {
        None => false,
        Some("insecure") => true,
        Some(other) => {
            eprintln!("fetch: the fourth argument is `insecure` or nothing, not {other:?}");
            std::process::exit(2);
        }
    };
    let n = mb * 1_000_000;
    let (tx, rx) = mpsc::channel();
    let dir = std::env::temp_dir().join(format!("radial-fetch-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let opts = ServerOptions {
        streams: Some(tx),
        allow_insecure: insecure,
        ..ServerOptions::default()
    };
    let mut server = Server::with_options(&dir, &["127.0.0.1:0".parse().unwrap()], opts).unwrap();
    let addr = server.local_addrs()[0];
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let s = stop.clone();
    let srv = thread::spawn(move || server.run(&s));
    let (served_tx, served) = mpsc::channel();
    thread::spawn(move || {
        for conn in rx {
            let _ = served_tx.send(conn.clone());
            thread::spawn(move || answer(conn));
        }
    });
    let paths: Vec<PathConfig> = (0..paths)
        .map(|i| PathConfig {
            via: format!("127.0.1.{}:0", i + 1).parse().unwrap(),
            to: addr,
        })
        .collect();
    let mut cfg = ConnectConfig::new(&paths, Trust::Any);
    cfg.segment = segment;
    cfg.insecure = insecure;
    let conn = connect(&cfg).unwrap();
    let (cpu0, t0) = (cpu_seconds(), Instant::now());
    let (mut r, mut w) = conn.open_stream().unwrap().split();
    w.write_all(format!("{n}\n").as_bytes()).unwrap();
    w.finish().unwrap();
    let mut got = 0u64;
    let mut buf = vec![0u8; 64 * 1024];
    let mut expect = vec![0u8; 64 * 1024];
    loop {
        let k = r.read(&mut buf).unwrap();
        if k == 0 {
            break;
        }
        pattern(got, &mut expect[..k]);
        assert!(buf[..k] == expect[..k], "the bytes at {got} differ");
        got += k as u64;
    }
    let secs = t0.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - cpu0;
    assert_eq!(got, n, "every byte");
    let padded = served.try_recv().map_or(0, |c| c.padded());
    println!(
        "fetch: {mb} MB over {} path(s) in {secs:.2} s, segments of {segment} bytes{}: {:.1} Mbit/s, {:.2} CPU-s/GB (client and server); the server sent {padded} bytes of padding",
        paths.len(),
        if insecure { ", not encrypted" } else { "" },
        n as f64 * 8.0 / secs / 1e6,
        cpu / (n as f64 / 1e9)
    );
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let _ = srv.join();
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(test)]
mod tests {
    use super::pattern;

    #[test]
    fn the_pattern_is_the_same_cut_anywhere() {
        let mut whole = vec![0u8; 1000];
        pattern(3, &mut whole);
        for cut in [0, 1, 5, 8, 13, 999, 1000] {
            let mut a = vec![0u8; cut];
            let mut b = vec![0u8; 1000 - cut];
            pattern(3, &mut a);
            pattern(3 + cut as u64, &mut b);
            assert_eq!([a, b].concat(), whole, "cut at {cut}");
        }
        assert_ne!(whole[..4], whole[4..8], "words differ");
    }
}
