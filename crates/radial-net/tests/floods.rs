//! Floods past every table's cap: the server's memory stays bounded, its
//! tables evict oldest-first by class instead of wiping, and a legitimate
//! client still completes its download. Every flood here is bounded in
//! count and sent to loopback only.

use std::time::Duration;

use radial_net::session::{tag, Message};
use radial_net::{get, hash_file, GetConfig, Limits};

mod common;
use common::raw::{join, open_pipe, peak_rss, pull, syn, Raw};
use common::{serve, Fixture};

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
fn a_get_flood_past_every_cap_locks_no_client_out() {
    // 100 source addresses, 80 GETs each: past the per-address cap (64)
    // and, together, past the global cap of half-open sessions (4,096).
    let f = serve("getflood", 2_000_000);
    let limits = Limits::default();
    let mut offers = 0;
    for a in 0..100u16 {
        let mut raw = Raw::from(&format!("127.0.{}.{}", 1 + a / 200, 1 + a % 200), f.server);
        for i in 0..80u16 {
            let conn = 1000 + a * 80 + i;
            raw.send_msg(&Message::Get {
                conn,
                path: "data.bin".into(),
            });
        }
        offers += raw
            .collect(Duration::from_millis(30))
            .iter()
            .filter(|d| matches!(Message::parse(d), Ok(Message::Offer { .. })))
            .count();
    }
    legitimate_download(&f);
    let stats = f.stats();
    assert!(offers > limits.half_open, "{offers} offers");
    assert!(stats.half_open as usize <= limits.half_open, "{stats:?}");
    assert!(stats.evicted > 0, "{stats:?}");
    assert!(stats.refused_full > 0, "per-address cap: {stats:?}");
    assert_eq!(stats.completed, 1, "{stats:?}");
}

#[test]
fn joined_pipes_and_request_floods_cost_the_server_little_memory() {
    // 300 pipes from one address, each opened with a JOIN and a SYN and
    // then sent 100 pulls of 40 MB each: before pipes stopped holding file
    // data this took gigabytes. The per-address pipe cap refuses the last
    // ones.
    let f = serve("pipeflood", 64_000_000);
    let limits = Limits::default();
    let before = peak_rss();
    let mut raw = Raw::from("127.0.2.1", f.server);
    let mut opened = Vec::new();
    for conn in 1..=300u16 {
        let key = raw.key(conn);
        raw.send_msg(&join(conn, &key, [7; 8]));
        let challenge = raw.joined().expect("joined");
        raw.send_msg(&Message::Validate {
            conn,
            path: 0,
            echo: challenge,
            mac: tag(&key, b"valid", conn, 0, &challenge),
        });
        raw.send(&syn(conn));
        opened.push(conn);
    }
    let isn = open_pipe(&mut raw, 1);
    for id in 1..=100u32 {
        for &conn in &opened {
            // Each pipe's sequence space starts at its own SYN+ACK's
            // number; a guess is as good as a request for the flood.
            let start = (id * 40_000_000) % 60_000_000;
            raw.send(&pull(conn, isn, id, start, start + 4_000_000));
        }
        raw.collect(Duration::from_millis(1));
    }
    raw.collect(Duration::from_millis(300));
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
fn joins_past_the_per_session_cap_are_refused() {
    // Valid joins with fresh nonces, one per path number: the session
    // remembers at most its cap of them, so its replay table is bounded.
    let f = serve("joinflood", 1000);
    let mut raw = Raw::new(f.server);
    let key = raw.key(5);
    for path in 0..40u16 {
        let nonce = [path as u8; 8];
        raw.send_msg(&Message::Join {
            conn: 5,
            path,
            nonce,
            mac: tag(&key, b"join", 5, path, &nonce),
        });
    }
    let joined = raw
        .collect(Duration::from_millis(300))
        .iter()
        .filter(|d| matches!(Message::parse(d), Ok(Message::Joined { .. })))
        .count();
    assert_eq!(joined, Limits::default().paths_per_session);
    let stats = f.stats();
    assert_eq!(stats.rejected, 40 - joined as u64, "{stats:?}");
}
