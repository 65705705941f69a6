//! What a real network may send a server: forged, corrupted and replayed
//! datagrams, requests from an address that never proved it receives,
//! receivers that ask for what they never got, and garbage. None of it
//! creates state, pumps data at an unproven address, or slows or breaks a
//! real transfer.

use std::net::UdpSocket;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use radial_core::wire::rcp::{PullBlock, RcpFlags, RcpHeader};
use radial_net::crypto::ClientHandshake;
use radial_net::guard::ReceiptGuard;
use radial_net::session::Message;
use radial_net::{get, hash_file, GetConfig};

mod common;
use common::raw::{open_and_pull, pipe_id, pull, syn, Raw, CONTROL};
use common::serve;
use radial_net::guard::open;

#[test]
fn a_short_hello_or_get_gets_no_answer() {
    // A HELLO under 1,200 bytes, or a GET under 64, would let a forged
    // source address turn the server into an amplifier: neither is answered.
    let f = serve("short", 10);
    let mut a = Raw::new(f.server);
    let (_, hello) = ClientHandshake::start(false);
    a.send(&hello[..600]);
    let mut buf = [0u8; 2048];
    assert!(
        a.sock.recv_from(&mut buf).is_err(),
        "no reply to a short HELLO"
    );
    a.handshake();
    let mut d = Vec::new();
    Message::Get {
        conn: 3,
        segment: 1200,
        path: "data.bin".into(),
    }
    .emit(&mut d);
    d.truncate(20);
    a.send_sealed(CONTROL, &d);
    assert!(a.collect(Duration::from_millis(200)).is_empty());
    assert_eq!(f.stats().sessions, 0);
}

#[test]
fn forged_and_replayed_datagrams_are_dropped_on_arrival() {
    let f = serve("forged", 100_000);
    let mut a = Raw::new(f.server);
    a.connect(7);
    let cid = a.keys.as_ref().unwrap().cid;
    // Another party knows the connection id (it is in the clear) but not
    // the keys: whatever it seals under keys of its own does not open, even
    // sent from the client's own address (as an on-path attacker could).
    let mut b = Raw::new(f.server);
    b.handshake();
    let mut join = Vec::new();
    Message::Join { conn: 7, path: 0 }.emit(&mut join);
    let mut forged = b.seal(0, &join);
    forged[1..9].copy_from_slice(&cid.to_be_bytes());
    a.send(&forged);
    b.send(&forged);
    // A JOIN of the real client, replayed from its address and another.
    let join = a.send_msg(0, &Message::Join { conn: 7, path: 0 });
    let challenge = a.joined().expect("joined");
    a.send(&join);
    let mut c = Raw::new(f.server);
    c.send(&join);
    // The real client's datagram with one bit flipped in transit.
    let mut corrupt = a.seal(0, &{
        let mut v = Vec::new();
        Message::Validate {
            conn: 7,
            path: 0,
            echo: challenge,
        }
        .emit(&mut v);
        v
    });
    let at = corrupt.len() - 20;
    corrupt[at] ^= 4;
    a.send(&corrupt);
    thread::sleep(Duration::from_millis(200));
    let mut buf = [0u8; 2048];
    assert!(
        c.sock.recv_from(&mut buf).is_err(),
        "nothing answers a replay"
    );
    let stats = f.stats();
    assert_eq!(stats.forged, 3, "{stats:?}");
    // The replay from the client's address is a replay; the one from
    // another address fails the address check first.
    assert_eq!(stats.replayed, 1, "{stats:?}");
    assert_eq!(stats.rejected, 1, "{stats:?}");
    assert_eq!(stats.pipes, 0);
    assert_eq!(
        stats.live_paths, 2,
        "the control path and path 0: {stats:?}"
    );
}

#[test]
fn a_forged_request_cannot_stall_a_transfer() {
    // A REQ whose SEG.DEQ runs 60 MB ahead, made by a party that knows the
    // connection id but not its keys, is dropped; the transfer goes on.
    let f = serve("forgedreq", 4_000_000);
    let mut a = Raw::new(f.server);
    let isn = open_and_pull(&mut a, 8, 100_000);
    let cid = a.keys.as_ref().unwrap().cid;
    let mut m = Raw::new(f.server);
    m.handshake();
    let mut forged = RcpHeader::new(
        RcpFlags::REQ,
        pipe_id(8, 0),
        isn + 60_000_000u32,
        isn + 60_000_000u32,
        0,
    );
    forged.push_block(PullBlock::default());
    let mut inner = Vec::new();
    forged.emit(&mut inner);
    let mut d = m.seal(0, &inner);
    d[1..9].copy_from_slice(&cid.to_be_bytes());
    a.collect_and_echo(8, Duration::from_millis(300));
    // Sent from the client's own address, as an on-path attacker could.
    a.send(&d);
    a.send_sealed(0, &pull(8, isn, 2, 100_000, 200_000));
    let mut got = 0;
    for _ in 0..10 {
        got += a.collect_and_echo(8, Duration::from_millis(100));
    }
    assert!(got >= 100_000, "got {got}");
    assert!(f.stats().forged >= 1);
}

#[test]
fn an_unproven_address_gets_at_most_three_times_what_it_sent() {
    let f = serve("amplify", 2_000_000);
    let mut a = Raw::new(f.server);
    a.connect(9);
    let keys = a.keys.take().unwrap();
    // Path 0 from another socket: joined, its address not proven yet.
    let mut p = a.another_path("127.0.0.1", keys);
    let challenge = p.join(9, 0).expect("joined");
    let isn = p.open_pipe(9, 0);
    // One small REQ pulling 50 kB (within the receipt guard's allowance).
    p.send_sealed(0, &pull(9, isn, 1, 0, 50_000));
    p.collect(Duration::from_millis(500));
    assert!(
        p.received <= 3 * p.sent,
        "received {} for {} sent",
        p.received,
        p.sent
    );
    // Echoing the challenge proves the address: the rest flows.
    p.validate(9, 0, challenge);
    p.collect(Duration::from_millis(500));
    assert!(
        p.received > 50_000,
        "received {} after validation",
        p.received
    );
    let stats = f.stats();
    assert!(stats.amplification_waits > 0, "{stats:?}");
}

#[test]
fn an_echo_of_what_reached_an_address_proves_it_as_a_validate_would() {
    let f = serve("echo-proves", 2_000_000);
    let mut a = Raw::new(f.server);
    a.connect(9);
    let keys = a.keys.take().unwrap();
    // Joined, and its VALIDATE lost: the address is not proven.
    let mut p = a.another_path("127.0.0.1", keys);
    p.join(9, 0).expect("joined");
    p.send_sealed(0, &syn(9, 0));
    let (isn, nonce) = p
        .wait_for(Duration::from_millis(200), |_, d| {
            let (nonce, inner) = open(d)?;
            RcpHeader::parse(inner).ok().map(|(h, _)| (h.seq, nonce))
        })
        .expect("SYN+ACK");
    p.send_sealed(0, &pull(9, isn, 1, 0, 50_000));
    p.collect(Duration::from_millis(300));
    assert!(
        p.received <= 3 * p.sent,
        "received {} for {} sent",
        p.received,
        p.sent
    );
    // An honest receiver echoes the nonce of what reached it (here the
    // SYN+ACK's): only a receiver at the address can, so the address is
    // proven and the rest flows.
    let echo = Message::Echo {
        conn: 9,
        path: 0,
        nonces: vec![nonce],
    };
    p.send_msg(0, &echo);
    p.collect_and_echo(9, Duration::from_millis(500));
    assert!(
        p.received > 50_000,
        "received {} after the echo",
        p.received
    );
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
            // Some look like handshakes, sealed datagrams, session
            // messages or RCP headers.
            d[0] = [0x10, 0x11, 0x12, 0x14, 0x15, 0x00][(x % 6) as usize];
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
    let mut pending = Vec::new();
    while Instant::now() < end && honest.received - before < 2_000_000 {
        if let Some((_, Some(nonce))) = honest.recv_one() {
            pending.push(nonce);
        }
        if pending.len() >= 8 {
            let m = Message::Echo {
                conn: 12,
                path: 0,
                nonces: std::mem::take(&mut pending),
            };
            honest.send_msg(0, &m);
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
            a.send_sealed(0, &pull(13, isn, id, asked, asked + 500_000));
            asked += 500_000;
            last_pull = Instant::now();
        }
        let Some((n, nonce)) = a.recv_one() else {
            continue;
        };
        let now = Instant::now();
        if now < stop {
            honest += n as u64;
            pending.extend(nonce);
            if pending.len() >= 16 {
                let nonces = std::mem::take(&mut pending);
                a.send_msg(
                    0,
                    &Message::Echo {
                        conn: 13,
                        path: 0,
                        nonces,
                    },
                );
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

#[test]
fn without_encryption_a_forged_packet_number_far_ahead_cannot_kill_a_transfer() {
    // Without encryption anyone on the path can forge a datagram of the
    // connection from the client's address. One numbered 2^40, garbage or
    // a well-formed request: neither moves the path's replay window, so
    // the client's next requests are still served.
    let f = common::serve_opts(
        "insecureleap",
        1_000_000,
        radial_net::ServerOptions {
            allow_insecure: true,
            ..radial_net::ServerOptions::default()
        },
    );
    let mut a = Raw::new(f.server);
    a.insecure = true;
    a.connect(23);
    let challenge = a.join(23, 0).expect("joined");
    a.validate(23, 0, challenge);
    let isn = a.open_pipe(23, 0);
    let keys = a.keys.as_ref().unwrap();
    for inner in [vec![0x5a; 40], pull(23, isn, 9, 0, 1000)] {
        let mut d = vec![0u8; radial_net::crypto::HEADER_LEN];
        d.extend_from_slice(&inner);
        keys.seal(0, 1 << 40, &mut d);
        a.sock.send_to(&d, f.server).unwrap();
    }
    let echoing = a.collect(Duration::from_millis(100)).len();
    a.send_sealed(0, &pull(23, isn, 1, 0, 200_000));
    // Nothing is echoed until the end: the receipt guard's first 64 kB.
    let got = a.collect_and_echo(23, Duration::from_millis(500));
    assert!(
        got >= 32_000,
        "{got} bytes after the forgery ({echoing} before)"
    );
    let stats = f.stats();
    assert!(stats.replayed >= 1, "{stats:?}");
}
