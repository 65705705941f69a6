//! Streams both ways: a server on loopback echoes every stream of every
//! stream connection; CLIENTS clients, each from its own loopback address,
//! open STREAMS streams at once and send KB kilobytes on each, and every
//! byte must come back in order. Prints the time, the goodput both ways,
//! the server's counters and its peak memory (the server runs in a process
//! of its own, this program run with `--serve`).
//!
//! Usage: `cargo run --release -p radial-net --example echo -- [CLIENTS] [STREAMS] [KB]`
//! (default 1 client, 8 streams of 1,000 KB; `echo 100 10 100` holds
//! 1,000 streams from 100 clients at once).

use std::io::{Read, Write};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::thread;
use std::time::Instant;

use radial_net::stream::{connect, ConnectConfig, Connection};
use radial_net::{PathConfig, Server, ServerOptions, Trust};

/// Threads here move a stream's bytes and little else.
const STACK: usize = 256 << 10;

fn spawn(f: impl FnOnce() + Send + 'static) -> thread::JoinHandle<()> {
    thread::Builder::new()
        .stack_size(STACK)
        .spawn(f)
        .expect("a thread")
}

/// Echoes every stream of `conn` until it ends.
fn echo(conn: Connection) {
    while let Ok(s) = conn.accept_stream() {
        spawn(move || {
            let (mut r, mut w) = s.split();
            let _ = std::io::copy(&mut r, &mut w);
            let _ = w.finish();
        });
    }
}

/// A stream's bytes: a pattern that tells a misplaced byte.
fn bytes_of(stream: usize, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| ((i as u32).wrapping_mul(2_654_435_761) >> 13) as u8 ^ stream as u8)
        .collect()
}

/// Peak resident memory of this process, in kB.
fn peak_rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// `--serve`: the server alone. Prints its address, serves until its
/// standard input closes, then prints its counters and peak memory.
fn serve() {
    let (tx, rx) = mpsc::channel();
    let dir = std::env::temp_dir().join(format!("radial-echo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let opts = ServerOptions {
        streams: Some(tx),
        ..ServerOptions::default()
    };
    let mut server = Server::with_options(&dir, &["127.0.0.1:0".parse().unwrap()], opts).unwrap();
    println!("{}", server.local_addrs()[0]);
    let stats = server.stats_handle();
    let stop = Arc::new(AtomicBool::new(false));
    let s = stop.clone();
    let srv = thread::spawn(move || server.run(&s));
    spawn(move || {
        for conn in rx {
            spawn(move || echo(conn));
        }
    });
    let _ = std::io::copy(&mut std::io::stdin(), &mut std::io::sink());
    // Let the counters catch up (a sweep is a quarter second).
    thread::sleep(std::time::Duration::from_millis(300));
    let st = *stats.lock().unwrap();
    println!(
        "{} sessions, {} bytes sent, {} malformed, {} dropped; peak memory {} MB",
        st.sessions,
        st.bytes_sent,
        st.malformed,
        st.dropped,
        peak_rss_kb() / 1000
    );
    stop.store(true, Ordering::Relaxed);
    let _ = srv.join();
    let _ = std::fs::remove_dir_all(&dir);
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("--serve") {
        return serve();
    }
    let mut args = std::env::args().skip(1);
    let clients: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1);
    let streams: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(8);
    let kb: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1000);
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .arg("--serve")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("the server starts");
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    std::io::BufRead::read_line(&mut out, &mut line).unwrap();
    let addr: SocketAddr = line.trim().parse().expect("the server's address");
    let started = Instant::now();
    let ok = Arc::new(AtomicU64::new(0));
    let handles: Vec<_> = (0..clients)
        .map(|c| {
            let ok = ok.clone();
            spawn(move || {
                let via: SocketAddr = format!("127.30.{}.{}:0", c / 250, 1 + c % 250)
                    .parse()
                    .unwrap();
                let conn = connect(&ConnectConfig::new(
                    &[PathConfig { via, to: addr }],
                    Trust::Any,
                ))
                .expect("connects");
                let each: Vec<_> = (0..streams)
                    .map(|k| {
                        let (mut r, mut w) = conn.open_stream().unwrap().split();
                        let ok = ok.clone();
                        spawn(move || {
                            let data = bytes_of(k, kb * 1000);
                            let sent = data.clone();
                            let writer = spawn(move || {
                                w.write_all(&sent).unwrap();
                                w.finish().unwrap();
                            });
                            let mut back = Vec::with_capacity(data.len());
                            r.read_to_end(&mut back).unwrap();
                            writer.join().unwrap();
                            if back == data {
                                ok.fetch_add(1, Ordering::Relaxed);
                            }
                        })
                    })
                    .collect();
                for h in each {
                    h.join().unwrap();
                }
                conn.close();
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let secs = started.elapsed().as_secs_f64();
    let n = clients * streams;
    let bytes = (n * kb * 1000) as f64;
    drop(child.stdin.take());
    let mut server = String::new();
    std::io::BufRead::read_line(&mut out, &mut server).unwrap();
    let _ = child.wait();
    println!(
        "echo: {} of {n} streams from {clients} client(s) came back whole in {secs:.2} s; \
         {:.1} Mbit/s each way; server: {}",
        ok.load(Ordering::Relaxed),
        bytes * 8.0 / secs / 1e6,
        server.trim()
    );
    assert_eq!(
        ok.load(Ordering::Relaxed) as usize,
        n,
        "every stream came back"
    );
}
