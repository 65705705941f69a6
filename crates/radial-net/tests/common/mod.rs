//! A file server on loopback for the runtime's tests.

#![allow(dead_code)]

pub mod paths;
pub mod raw;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;

use radial_net::{Server, ServerStats};

/// A server thread on 127.0.0.1 serving `root/data.bin`, stopped and its
/// directory removed when dropped.
pub struct Fixture {
    /// The test's directory (the served root is `root/` in it).
    pub dir: PathBuf,
    /// The server's address.
    pub server: SocketAddr,
    /// Set to stop the server.
    pub stop: Arc<AtomicBool>,
    /// The server's counters as of its last sweep (four times a second).
    pub live: Arc<Mutex<ServerStats>>,
    handle: Option<thread::JoinHandle<ServerStats>>,
}

impl Fixture {
    /// The served file.
    pub fn file(&self) -> PathBuf {
        self.dir.join("root/data.bin")
    }

    /// The server's counters now (as of its last sweep, at most a quarter
    /// of a second ago).
    pub fn now(&self) -> ServerStats {
        *self.live.lock().unwrap()
    }

    /// The server's counters once `ready` holds of them, polled for at
    /// most 10 s (then the last ones, for the caller's assertion).
    pub fn when(&self, ready: impl Fn(&ServerStats) -> bool) -> ServerStats {
        let end = std::time::Instant::now() + std::time::Duration::from_secs(10);
        loop {
            let s = self.now();
            if ready(&s) || std::time::Instant::now() > end {
                return s;
            }
            thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    /// Stops the server and returns its counters.
    pub fn stats(mut self) -> ServerStats {
        self.stop.store(true, Ordering::Relaxed);
        self.handle.take().unwrap().join().unwrap()
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Serves a file of `size` pseudo-random bytes from a fresh directory
/// named after `name`.
pub fn serve(name: &str, size: usize) -> Fixture {
    serve_with(name, size, radial_net::Limits::default())
}

/// As [`serve`], with other caps on the server's state.
pub fn serve_with(name: &str, size: usize, limits: radial_net::Limits) -> Fixture {
    serve_opts(
        name,
        size,
        radial_net::ServerOptions {
            limits,
            ..radial_net::ServerOptions::default()
        },
    )
}

/// The pseudo-random bytes of a served file of `size` bytes.
pub fn file_bytes(size: usize) -> Vec<u8> {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    (0..size)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

/// As [`serve`], with the server's options.
pub fn serve_opts(name: &str, size: usize, opts: radial_net::ServerOptions) -> Fixture {
    let dir = std::env::temp_dir().join(format!("radial-net-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("root")).unwrap();
    std::fs::write(dir.join("root/data.bin"), file_bytes(size)).unwrap();
    let mut server =
        Server::with_options(&dir.join("root"), &["127.0.0.1:0".parse().unwrap()], opts).unwrap();
    let addr = server.local_addrs()[0];
    let live = server.stats_handle();
    let stop = Arc::new(AtomicBool::new(false));
    let s = stop.clone();
    let handle = thread::spawn(move || {
        server.run(&s).unwrap();
        server.stats()
    });
    Fixture {
        dir,
        server: addr,
        stop,
        live,
        handle: Some(handle),
    }
}

/// A server whose application echoes every stream of every stream
/// connection, admitting only the clients of `listed` if given.
pub fn stream_echo_server(name: &str, listed: Option<Vec<[u8; 32]>>) -> Fixture {
    use std::io::{Read, Write};
    let (tx, rx) = std::sync::mpsc::channel::<radial_net::stream::Connection>();
    thread::spawn(move || {
        for conn in rx {
            thread::spawn(move || {
                while let Ok(s) = conn.accept_stream() {
                    thread::spawn(move || {
                        let (mut r, mut w) = s.split();
                        let mut buf = vec![0u8; 32 * 1024];
                        while let Ok(n @ 1..) = r.read(&mut buf) {
                            if w.write_all(&buf[..n]).is_err() {
                                return;
                            }
                        }
                        let _ = w.finish();
                    });
                }
            });
        }
    });
    serve_opts(
        name,
        1,
        radial_net::ServerOptions {
            streams: Some(tx),
            stream_clients: listed,
            ..radial_net::ServerOptions::default()
        },
    )
}

/// `n` paths to `server` on loopback, from 127.0.0.21, .22, …
pub fn loopback_paths(server: SocketAddr, n: usize) -> Vec<radial_net::PathConfig> {
    (0..n)
        .map(|i| radial_net::PathConfig {
            via: SocketAddr::from(([127, 0, 0, 21 + i as u8], 0)),
            to: server,
        })
        .collect()
}
