//! Floods past every table's cap: the server's memory stays bounded, its
//! tables evict oldest-first by class instead of wiping, and a legitimate
//! client still completes its download. Every flood here is bounded in
//! count and sent to loopback only.

use std::time::{Duration, Instant};

use radial_net::crypto::ClientHandshake;
use radial_net::session::Message;
use radial_net::{get, hash_file, GetConfig, Limits};

mod common;
use common::raw::{peak_rss, pull, syn, Raw};
use common::{serve, serve_with, Fixture};

/// A legitimate download of the fixture's file, checked end to end.
fn legitimate_download(f: &Fixture) {
    let cfg = GetConfig::new(
        f.server,
        "data.bin",
        &["127.0.0.1:0".parse().unwrap()],
        f.dir.join("out.bin"),
    );
    let s = get(&cfg, None, |_| {}).unwrap();
    assert_eq!(hash_file(&cfg.out).unwrap(), hash_file(&f.file()).unwrap());
    assert_eq!(s.bytes, f.file().metadata().unwrap().len());
}

#[test]
fn a_handshake_flood_past_every_cap_locks_no_client_out() {
    // 100 source addresses, 80 HELLOs each: past the per-address cap (64)
    // and, together, past the global cap of half-open connections (4,096).
    let f = serve("helloflood", 2_000_000);
    let limits = Limits::default();
    let mut replies = 0;
    for a in 0..100u16 {
        let mut raw = Raw::from(&format!("127.0.{}.{}", 1 + a / 200, 1 + a % 200), f.server);
        for _ in 0..80 {
            let (_, hello) = ClientHandshake::start(false);
            raw.send(&hello);
        }
        let mut buf = [0u8; 2048];
        let end = Instant::now() + Duration::from_millis(200);
        while Instant::now() < end {
            if raw.sock.recv_from(&mut buf).is_ok() {
                replies += 1;
            }
        }
    }
    legitimate_download(&f);
    let stats = f.stats();
    assert!(replies > limits.half_open, "{replies} replies");
    // Past a sixteenth of the half-open cap the server asks each address
    // to prove itself (RETRY) before any key agreement: the flood, which
    // never comes back with its token, gets no more handshakes; the
    // legitimate client comes back and gets one.
    assert!(stats.retries > 7000, "{stats:?}");
    assert!(
        stats.handshakes as usize <= limits.half_open / 16 + 1,
        "{stats:?}"
    );
    assert!(stats.half_open as usize <= limits.half_open, "{stats:?}");
    assert_eq!(stats.completed, 1, "{stats:?}");
}

#[test]
fn half_open_connections_past_their_cap_evict_the_oldest() {
    // Clients that do come back with their retry token but never send a
    // sealed datagram: the half-open table evicts its oldest, and an
    // address past its share is refused.
    let limits = Limits {
        half_open: 64,
        half_open_per_address: 8,
        ..Limits::default()
    };
    let f = serve_with("halfopen", 1_000_000, limits);
    let mut raw = Vec::new();
    for a in 0..20u16 {
        let r = Raw::from(&format!("127.0.4.{}", 1 + a), f.server);
        for _ in 0..10 {
            let (hs, hello) = ClientHandshake::start(false);
            r.sock.send_to(&hello, f.server).unwrap();
            let mut buf = [0u8; 2048];
            if let Ok((n, _)) = r.sock.recv_from(&mut buf) {
                if let Some(again) = hs.with_token(&hello, &buf[..n]) {
                    r.sock.send_to(&again, f.server).unwrap();
                    let _ = r.sock.recv_from(&mut buf);
                }
            }
        }
        raw.push(r);
    }
    legitimate_download(&f);
    let stats = f.stats();
    assert!(stats.half_open as usize <= 64, "{stats:?}");
    assert!(stats.evicted > 0, "{stats:?}");
    assert!(stats.refused_full > 0, "per-address share: {stats:?}");
    assert_eq!(stats.completed, 1, "{stats:?}");
}

#[test]
fn joined_pipes_and_request_floods_cost_the_server_little_memory() {
    // 300 connections from one address, each with a pipe opened after a
    // JOIN and a SYN and then sent 100 pulls of 4 MB each: before pipes
    // stopped holding file data this took gigabytes. The per-address pipe
    // cap refuses the last ones.
    let f = serve("pipeflood", 64_000_000);
    let limits = Limits::default();
    let before = peak_rss();
    let mut conns = Vec::new();
    for conn in 1..=300u16 {
        let mut raw = Raw::from("127.0.2.1", f.server);
        raw.connect(conn);
        let challenge = raw.join(conn, 0).expect("joined");
        raw.validate(conn, 0, challenge);
        raw.send_sealed(0, &syn(conn, 0));
        conns.push((conn, raw));
    }
    // Every pipe's sender numbers its stream from the same initial
    // sequence number.
    let isn = conns[0].1.open_pipe(1, 0);
    for id in 1..=100u32 {
        for (conn, raw) in &mut conns {
            let start = (id * 40_000_000) % 60_000_000;
            raw.send_sealed(0, &pull(*conn, isn, id, start, start + 4_000_000));
        }
    }
    std::thread::sleep(Duration::from_millis(300));
    legitimate_download(&f);
    let grew = peak_rss().saturating_sub(before);
    let stats = f.stats();
    assert!(grew < 200 << 20, "peak RSS grew by {} MB", grew >> 20);
    assert_eq!(
        stats.pipes as usize,
        limits.pipes_per_address + 1,
        "{stats:?}"
    );
    assert!(stats.refused_full > 0, "{stats:?}");
}

#[test]
fn paths_past_the_per_connection_cap_are_refused() {
    // JOINs on 40 path numbers: the connection keeps at most its cap of
    // paths (the control path of its GET among them).
    let f = serve("joinflood", 1000);
    let mut raw = Raw::new(f.server);
    raw.connect(5);
    for path in 0..40u16 {
        raw.send_msg(path, &Message::Join { conn: 5, path });
    }
    let joined = raw
        .collect(Duration::from_millis(300))
        .iter()
        .filter(|(_, d)| matches!(Message::parse(d), Ok(Message::Joined { .. })))
        .count();
    let cap = Limits::default().paths_per_session;
    assert_eq!(joined, cap - 1);
    let stats = f.stats();
    assert_eq!(stats.rejected as usize, 40 - joined, "{stats:?}");
    assert_eq!(stats.live_paths as usize, cap);
}

#[test]
fn connections_past_their_cap_evict_the_oldest_without_a_pipe() {
    // Clients that finish the handshake and ask for the file but open no
    // pipe: the server keeps at most its cap of connections.
    let limits = Limits {
        connections: 100,
        ..Limits::default()
    };
    let f = serve_with("connflood", 1_000_000, limits);
    for conn in 0..300u16 {
        let mut raw = Raw::from(&format!("127.0.3.{}", 1 + conn % 200), f.server);
        raw.connect(conn);
    }
    legitimate_download(&f);
    let stats = f.stats();
    assert!(stats.live_connections <= 100, "{stats:?}");
    assert!(stats.evicted >= 200, "{stats:?}");
    assert_eq!(stats.completed, 1, "{stats:?}");
}
