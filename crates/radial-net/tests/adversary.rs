//! What a real network may send a server: forged and replayed joins,
//! requests from an address that never proved it receives, and garbage.
//! None of it creates state, pumps data at an unproven address, or slows a
//! real transfer.

use std::net::UdpSocket;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use radial_core::wire::rcp::{PullBlock, RcpFlags, RcpHeader};
use radial_net::guard::{open, ReceiptGuard};
use radial_net::session::{tag, Message};
use radial_net::{get, hash_file, GetConfig};

mod common;
use common::raw::{join, open_and_pull, open_pipe, pull, syn, Raw};
use common::serve;

#[test]
fn a_short_get_gets_no_answer() {
    let f = serve("short", 10);
    let mut a = Raw::new(f.server);
    let mut d = Vec::new();
    Message::Get {
        conn: 3,
        path: "data.bin".into(),
    }
    .emit(&mut d);
    d.truncate(20);
    a.send(&d);
    assert!(a.collect(Duration::from_millis(200)).is_empty());
    assert_eq!(f.stats().sessions, 0);
}

#[test]
fn a_forged_or_replayed_join_creates_no_pipe() {
    let f = serve("forged", 100_000);
    let mut a = Raw::new(f.server);
    let key = a.key(7);
    // A token made with the wrong key: no answer, and its SYN opens nothing.
    a.send_msg(&join(7, &[0; 16], [1; 8]));
    assert_eq!(a.joined(), None);
    a.send(&syn(7));
    assert!(
        a.collect(Duration::from_millis(200)).is_empty(),
        "no SYN+ACK"
    );
    // The right token is accepted ...
    a.send_msg(&join(7, &key, [2; 8]));
    assert!(a.joined().is_some());
    // ... once: the same join from another address is a replay.
    let mut b = Raw::new(f.server);
    b.send_msg(&join(7, &key, [2; 8]));
    assert_eq!(b.joined(), None);
    b.send(&syn(7));
    assert!(
        b.collect(Duration::from_millis(200)).is_empty(),
        "no SYN+ACK"
    );
    let stats = f.stats();
    assert_eq!(stats.pipes, 0);
    assert!(stats.rejected >= 4, "{stats:?}");
}

#[test]
fn an_unproven_address_gets_at_most_three_times_what_it_sent() {
    let f = serve("amplify", 2_000_000);
    let mut a = Raw::new(f.server);
    let key = a.key(9);
    a.send_msg(&join(9, &key, [3; 8]));
    let challenge = a.joined().expect("joined");
    let isn = open_pipe(&mut a, 9);
    // One small REQ pulling 50 kB (within the receipt guard's allowance).
    let mut req = RcpHeader::new(RcpFlags::REQ | RcpFlags::PUL, 9, isn + 1u32, isn + 1u32, 1);
    req.push_block(PullBlock {
        start: isn + 1u32,
        end: isn + 1u32 + 50_000u32,
        id: 1,
    });
    let mut d = Vec::new();
    req.emit(&mut d);
    a.send(&d);
    a.collect(Duration::from_millis(500));
    assert!(
        a.received <= 3 * a.sent,
        "received {} for {} sent",
        a.received,
        a.sent
    );
    // Echoing the challenge proves the address: the rest flows.
    a.send_msg(&Message::Validate {
        conn: 9,
        path: 0,
        echo: challenge,
        mac: tag(&key, b"valid", 9, 0, &challenge),
    });
    a.collect(Duration::from_millis(500));
    assert!(
        a.received > 50_000,
        "received {} after validation",
        a.received
    );
    let stats = f.stats();
    assert!(stats.amplification_waits > 0, "{stats:?}");
}

#[test]
fn garbage_neither_breaks_nor_slows_a_transfer() {
    let f = serve("garbage", 10_000_000);
    let target = f.server;
    let stop = Arc::new(AtomicBool::new(false));
    let s = stop.clone();
    let noise = thread::spawn(move || {
        let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
        let mut x: u64 = 88172645463325252;
        let mut n = 0u64;
        while !s.load(Ordering::Relaxed) {
            let len = (x % 200) as usize + 1;
            let mut d = Vec::with_capacity(len);
            for _ in 0..len {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                d.push(x as u8);
            }
            // Some look like session messages or RCP headers.
            d[0] = [0x10, 0x11, 0x12, 0x00][(x % 4) as usize];
            let _ = sock.send_to(&d, target);
            n += 1;
            if n % 50 == 0 {
                thread::sleep(Duration::from_millis(1));
            }
        }
        n
    });
    let cfg = GetConfig::new(
        f.server,
        "data.bin",
        &["127.0.0.1:0".parse().unwrap()],
        f.dir.join("out.bin"),
    );
    let s = get(&cfg, None, |_| {}).unwrap();
    stop.store(true, Ordering::Relaxed);
    let sent = noise.join().unwrap();
    assert_eq!(hash_file(&cfg.out).unwrap(), hash_file(&f.file()).unwrap());
    assert!(sent > 100, "{sent} garbage datagrams");
    assert_eq!(s.bytes, 10_000_000);
    let stats = f.stats();
    assert!(
        stats.malformed + stats.dropped + stats.rejected > 0,
        "{stats:?}"
    );
    assert_eq!(stats.pipes, 1, "{stats:?}");
}

#[test]
fn a_receiver_that_requests_what_it_never_received_gets_no_more() {
    // The cheater pulls 2 MB at once and echoes nothing: it gets the
    // guard's initial 64 kB a second. An honest receiver echoing the nonces
    // of what arrives keeps getting data (this one re-requests nothing, so
    // what its socket buffer dropped stays missing).
    let f = serve("cheat", 4_000_000);
    let mut cheat = Raw::new(f.server);
    open_and_pull(&mut cheat, 11, 2_000_000);
    let before = cheat.received;
    cheat.collect(Duration::from_millis(800));
    let got = cheat.received - before;
    assert!(
        got <= ReceiptGuard::INITIAL + 4096,
        "the cheater got {got} bytes unproven"
    );
    let mut honest = Raw::new(f.server);
    open_and_pull(&mut honest, 12, 2_000_000);
    let before = honest.received;
    honest
        .sock
        .set_read_timeout(Some(Duration::from_millis(2)))
        .unwrap();
    let end = Instant::now() + Duration::from_secs(2);
    let mut buf = [0u8; 65536];
    let mut pending = Vec::new();
    while Instant::now() < end && honest.received - before < 2_000_000 {
        if let Ok((n, _)) = honest.sock.recv_from(&mut buf) {
            honest.received += n as u64;
            if let Some((nonce, _)) = open(&buf[..n]) {
                pending.push(nonce);
            }
        }
        if pending.len() >= 8 {
            let m = Message::Echo {
                conn: 12,
                path: 0,
                nonces: std::mem::take(&mut pending),
            };
            honest.send_msg(&m);
        }
    }
    let honest_got = honest.received - before;
    assert!(
        honest_got >= 500_000 && honest_got >= 8 * got,
        "the honest receiver got {honest_got} bytes, the cheater {got}"
    );
    let stats = f.stats();
    assert!(stats.receipt_waits > 0, "{stats:?}");
}

#[test]
fn a_receiver_that_echoes_then_stops_is_held_to_the_guards_window() {
    // It echoes honestly for a second and a half, then stops echoing but
    // keeps requesting. Once its proofs have aged out of the window, what it
    // gets in any second is bounded by the initial allowance (plus what its
    // socket buffer held from before).
    let f = serve("echostop", 64_000_000);
    let mut a = Raw::new(f.server);
    a.sock
        .set_read_timeout(Some(Duration::from_millis(2)))
        .unwrap();
    let isn = open_and_pull(&mut a, 13, 1_000_000);
    let mut id = 1u32;
    let mut asked = 1_000_000u32;
    let mut buf = [0u8; 65536];
    let mut pending = Vec::new();
    let start = Instant::now();
    let stop = start + Duration::from_millis(1500);
    let window = (
        stop + Duration::from_millis(1500),
        stop + Duration::from_millis(2500),
    );
    let (mut honest, mut late) = (0u64, 0u64);
    let mut last_pull = Instant::now();
    while Instant::now() < window.1 {
        if last_pull.elapsed() > Duration::from_millis(20) && asked < 60_000_000 {
            id += 1;
            a.send(&pull(13, isn, id, asked, asked + 500_000));
            asked += 500_000;
            last_pull = Instant::now();
        }
        let Ok((n, _)) = a.sock.recv_from(&mut buf) else {
            continue;
        };
        let now = Instant::now();
        if now < stop {
            honest += n as u64;
            if let Some((nonce, _)) = open(&buf[..n]) {
                pending.push(nonce);
            }
            if pending.len() >= 16 {
                let nonces = std::mem::take(&mut pending);
                a.send_msg(&Message::Echo {
                    conn: 13,
                    path: 0,
                    nonces,
                });
            }
        } else if now >= window.0 {
            late += n as u64;
        }
    }
    let socket_buffer = 256 * 1024;
    assert!(honest > 1_000_000, "the honest phase got {honest} bytes");
    assert!(
        late <= ReceiptGuard::INITIAL + socket_buffer,
        "after it stopped echoing it still got {late} bytes in a second"
    );
}
