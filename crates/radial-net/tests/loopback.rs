//! Real files over real UDP sockets on loopback: a server thread, a client
//! with one pipe per local address, SHA-256 checked end to end.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::thread;

use radial_net::{get, hash_file, Control, GetConfig, Server};

mod common;
use common::{serve, Fixture};

fn config(f: &Fixture, vias: &[&str]) -> GetConfig {
    let vias: Vec<SocketAddr> = vias.iter().map(|v| v.parse().unwrap()).collect();
    GetConfig::new(f.server, "data.bin", &vias, f.dir.join("out.bin"))
}

#[test]
fn a_file_arrives_intact_over_two_local_addresses() {
    let f = serve("two", 20_000_000);
    let cfg = config(&f, &["127.0.0.1:0", "127.0.0.2:0"]);
    let s = get(&cfg, None, |_| {}).unwrap();
    assert_eq!(s.bytes, 20_000_000);
    assert_eq!(hash_file(&cfg.out).unwrap(), hash_file(&f.file()).unwrap());
    assert_eq!(s.pipes.len(), 2);
    assert!(
        s.pipes.iter().all(|p| p.bytes > 0),
        "both pipes carried data: {:?}",
        s.pipes
    );
    assert_eq!(s.pipes.iter().map(|p| p.bytes).sum::<u64>(), 20_000_000);
}

#[test]
fn a_file_arrives_intact_in_large_segments() {
    // Not a whole number of segments: the last one is short.
    let size = 20_000_001;
    let f = serve("large-segments", size);
    let mut cfg = config(&f, &["127.0.0.1:0", "127.0.0.2:0"]);
    cfg.segment = radial_net::config::LOOPBACK_SEGMENT;
    let s = get(&cfg, None, |_| {}).unwrap();
    assert_eq!(s.bytes, size as u64);
    assert_eq!(hash_file(&cfg.out).unwrap(), hash_file(&f.file()).unwrap());
    let stats = f.stats();
    let per = stats.bytes_sent / stats.data_datagrams.max(1);
    assert!(
        per > radial_net::config::LOOPBACK_SEGMENT * 9 / 10,
        "{per} bytes per datagram"
    );
}

#[test]
fn a_segment_size_no_connection_may_use_is_refused_before_asking() {
    let f = serve("bad-segment", 1000);
    for segment in [1199, 60_001] {
        let mut cfg = config(&f, &["127.0.0.1:0"]);
        cfg.segment = segment;
        let e = get(&cfg, None, |_| {}).unwrap_err();
        assert!(
            matches!(e, radial_net::GetError::Segment(s) if s == segment),
            "{e}"
        );
        assert!(e.to_string().contains("1200 to 60000"), "{e}");
    }
    assert_eq!(f.stats().handshakes, 0, "nothing was asked");
}

#[test]
fn losing_an_address_mid_transfer_hands_off_to_the_other() {
    // Pipe 0's address goes away at the first progress report. From then
    // on nothing arrives through it, so what it brought is at most what was
    // delivered in order by then plus one receive buffer (segments it had
    // brought past a hole); the other pipe brings the rest.
    let size = 60_000_000;
    let f = serve("handoff", size);
    let cfg = config(&f, &["127.0.0.1:0", "127.0.0.3:0"]);
    let (tx, rx) = mpsc::channel();
    let mut dropped_at = None;
    let s = get(&cfg, Some(&rx), |p| {
        if dropped_at.is_none() && p.delivered > 0 && p.delivered < p.size {
            tx.send(Control::Drop(0)).unwrap();
            dropped_at = Some(p.delivered);
        }
    })
    .unwrap();
    let dropped_at = dropped_at.expect("a progress report before the end");
    assert_eq!(hash_file(&cfg.out).unwrap(), hash_file(&f.file()).unwrap());
    let window = radial_net::config::r2cp_config(0).rwnd_bytes();
    assert!(
        s.pipes[0].bytes <= dropped_at + window,
        "pipe 0 brought {} after the drop at {dropped_at}: {:?}",
        s.pipes[0].bytes,
        s.pipes
    );
    assert_eq!(s.pipes.iter().map(|p| p.bytes).sum::<u64>(), size as u64);
}

#[test]
fn a_missing_file_is_refused_with_its_name() {
    let f = serve("missing", 10);
    let mut cfg = config(&f, &["127.0.0.1:0"]);
    cfg.path = "nope.bin".into();
    let e = get(&cfg, None, |_| {}).unwrap_err().to_string();
    assert!(e.contains("nope.bin"), "{e}");
    cfg.path = "../etc/passwd".into();
    let e = get(&cfg, None, |_| {}).unwrap_err().to_string();
    assert!(e.contains("not below the root"), "{e}");
}

#[test]
fn a_server_that_dies_mid_transfer_is_replaced_by_its_replica() {
    // Two servers with the same file; the client uses the first and keeps
    // the second in reserve. The first stops at the first progress report:
    // after a second of silence the pipe to the replica opens and asks only
    // for what the host does not hold (its PROBE carries SEG.DEQ).
    let size = 60_000_000;
    let a = serve("primary", size);
    let b_dir = std::env::temp_dir().join(format!("radial-net-replica-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&b_dir);
    std::fs::create_dir_all(&b_dir).unwrap();
    std::fs::copy(a.file(), b_dir.join("data.bin")).unwrap();
    let mut replica = Server::bind(&b_dir, &["127.0.0.1:0".parse().unwrap()]).unwrap();
    let b_addr = replica.local_addrs()[0];
    let b_stop = Arc::new(AtomicBool::new(false));
    let s = b_stop.clone();
    let b = thread::spawn(move || {
        replica.run(&s).unwrap();
        replica.stats()
    });
    let mut cfg = config(&a, &["127.0.0.1:0"]);
    cfg.standby = vec![vec![radial_net::PathConfig {
        via: "127.0.0.1:0".parse().unwrap(),
        to: b_addr,
    }]];
    let mut killed_at = None;
    let summary = get(&cfg, None, |p| {
        if killed_at.is_none() && p.delivered > 0 && p.delivered < p.size {
            a.stop.store(true, Ordering::Relaxed);
            killed_at = Some(p.delivered);
        }
    })
    .unwrap();
    b_stop.store(true, Ordering::Relaxed);
    let b_stats = b.join().unwrap();
    let _ = std::fs::remove_dir_all(&b_dir);
    let killed_at = killed_at.unwrap();
    assert_eq!(hash_file(&cfg.out).unwrap(), hash_file(&a.file()).unwrap());
    // A segment may arrive twice when a loaded machine delays it past its
    // re-request; the migration itself fetches nothing twice.
    assert!(summary.duplicate_bytes < size as u64 / 20, "{summary:?}");
    // The replica sent only what the host lacked: none of the bytes it
    // held in order when the first server stopped (re-requests of what the
    // replica itself sent and was lost aside).
    let rest = size as u64 - killed_at;
    assert!(
        b_stats.first_bytes_sent <= rest,
        "replica sent {} new bytes for the {rest} the host lacked",
        b_stats.first_bytes_sent,
    );
    assert_eq!(summary.pipes.len(), 2, "{:?}", summary.pipes);
    assert_eq!(summary.pipes[1].to, b_addr);
}
