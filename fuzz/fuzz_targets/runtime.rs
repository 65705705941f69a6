//! Fuzzes the file server through arbitrary datagram sequences, from
//! outside and from inside an authenticated connection: the harness runs a
//! real handshake with the server, then seals whatever plaintext the input
//! says (session messages, RCP requests, bundles, garbage) on whatever path,
//! replays and corrupts datagrams, and sends raw bytes from other
//! addresses. No input may panic the server or grow its state past its
//! caps. Each input also drives a receipt guard through arbitrary sends,
//! echoes and expiries: its unproven bytes never exceed its limit.
//!
//! Script: each step is an opcode byte, a path (16 bits), a length (8 bits)
//! and that many bytes.
#![no_main]

use std::net::{SocketAddr, UdpSocket};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use libfuzzer_sys::fuzz_target;
use radial_net::crypto::{ClientHandshake, Keys, HEADER_LEN};
use radial_net::guard::ReceiptGuard;
use radial_net::{Limits, Server, ServerOptions};

struct Harness {
    server: Server,
    client: UdpSocket,
}

fn harness() -> &'static Mutex<Harness> {
    static H: OnceLock<Mutex<Harness>> = OnceLock::new();
    H.get_or_init(|| {
        let root = std::env::temp_dir().join(format!("radial-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join("data.bin"), vec![7u8; 100_000]).unwrap();
        let server = Server::with_options(
            &root,
            &["127.0.0.1:0".parse().unwrap()],
            ServerOptions {
                limits: Limits {
                    half_open: 64,
                    unvalidated_paths: 64,
                    pipes: 64,
                    ..Limits::default()
                },
                ..ServerOptions::default()
            },
        )
        .unwrap();
        let client = UdpSocket::bind("127.0.0.1:0").unwrap();
        client.set_nonblocking(true).unwrap();
        Mutex::new(Harness { server, client })
    })
}

/// Runs a handshake from the harness's socket: the connection's keys.
fn connect(h: &mut Harness) -> Option<Keys> {
    let me = h.client.local_addr().unwrap();
    let (hs, mut hello) = ClientHandshake::start(false);
    h.server.handle_datagram(me, &mut hello.clone());
    let mut buf = [0u8; 65536];
    while let Ok(n) = h.client.recv(&mut buf) {
        if hs.is_reply(&buf[..n]) {
            return hs.finish(&buf[..n]).ok().map(|e| e.keys);
        }
        // A server under load asks for the retry token first.
        if let Some(again) = hs.with_token(&hello, &buf[..n]) {
            hello = again;
            h.server.handle_datagram(me, &mut hello.clone());
        }
    }
    None
}

fn drain(h: &Harness) {
    let mut buf = [0u8; 65536];
    while h.client.recv(&mut buf).is_ok() {}
}

fn guard_steps(data: &[u8]) {
    let t0 = Instant::now();
    let mut g = ReceiptGuard::default();
    let mut now = t0;
    for w in data.chunks(3) {
        let [op, a, b] = [w[0], *w.get(1).unwrap_or(&0), *w.get(2).unwrap_or(&0)];
        let nonce = u32::from(a);
        let len = usize::from(b) * 16 + 1;
        match op % 4 {
            0 => {
                if g.allows(len, now) {
                    g.sent(nonce, len, now);
                }
            }
            1 => {
                g.echoed(nonce, now);
            }
            2 => now += Duration::from_millis(u64::from(a) * 8),
            _ => {
                let _ = g.next_expiry();
            }
        }
        assert!(g.limit() <= ReceiptGuard::MAX);
        assert!(g.limit() >= ReceiptGuard::INITIAL);
    }
}

fuzz_target!(|data: &[u8]| {
    guard_steps(data);
    let mut h = harness().lock().unwrap();
    let Some(keys) = connect(&mut h) else {
        return;
    };
    let me = h.client.local_addr().unwrap();
    let other: SocketAddr = "127.0.0.2:9".parse().unwrap();
    let mut pns = [0u64; 4];
    let mut last: Vec<u8> = Vec::new();
    let mut rest = data;
    while rest.len() >= 4 {
        let op = rest[0];
        let path = u16::from_be_bytes([rest[1], rest[2]]);
        let n = usize::from(rest[3]).min(rest.len() - 4);
        let body = &rest[4..4 + n];
        rest = &rest[4 + n..];
        match op % 5 {
            // Sealed, on the path's next packet number.
            0 | 1 => {
                let pn = &mut pns[usize::from(path % 4)];
                let mut d = vec![0u8; HEADER_LEN];
                d.extend_from_slice(body);
                keys.seal(path, *pn, &mut d);
                *pn += 1;
                last = d.clone();
                h.server.handle_datagram(me, &mut d);
            }
            // The last sealed datagram again (a replay), from us or elsewhere.
            2 => {
                let mut d = last.clone();
                let from = if path % 2 == 0 { me } else { other };
                h.server.handle_datagram(from, &mut d);
            }
            // The last sealed datagram with one byte changed.
            3 => {
                let mut d = last.clone();
                if !d.is_empty() {
                    let i = usize::from(path) % d.len();
                    d[i] ^= body.first().copied().unwrap_or(1).max(1);
                }
                h.server.handle_datagram(me, &mut d);
            }
            // Raw bytes from anywhere.
            _ => {
                let mut d = body.to_vec();
                let from = if path % 2 == 0 { me } else { other };
                h.server.handle_datagram(from, &mut d);
            }
        }
        drain(&h);
    }
    let limits = Limits {
        half_open: 64,
        unvalidated_paths: 64,
        pipes: 64,
        ..Limits::default()
    };
    let s = h.server.stats();
    assert!(s.half_open as usize <= limits.half_open);
    assert!(s.live_pipes as usize <= limits.pipes);
});
