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
fn losing_an_address_mid_transfer_hands_off_to_the_other() {
    let f = serve("handoff", 20_000_000);
    let cfg = config(&f, &["127.0.0.1:0", "127.0.0.3:0"]);
    let (tx, rx) = mpsc::channel();
    let mut sent = false;
    let s = get(&cfg, Some(&rx), |p| {
        if !sent && p.delivered > 5_000_000 {
            tx.send(Control::Drop(0)).unwrap();
            sent = true;
        }
    })
    .unwrap();
    assert!(sent);
    assert_eq!(hash_file(&cfg.out).unwrap(), hash_file(&f.file()).unwrap());
    assert!(s.pipes[1].bytes > 10_000_000, "{:?}", s.pipes);
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
    // the second in reserve. The first stops at 8 MB: after a second of
    // silence the pipe to the replica opens, asks only for what the host
    // does not hold (its PROBE carries SEG.DEQ), and nothing arrives twice.
    let size = 20_000_000;
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
        if killed_at.is_none() && p.delivered > 8_000_000 {
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
    assert_eq!(summary.duplicate_bytes, 0, "{summary:?}");
    // The replica sent the rest, not what the host held (headers aside).
    let rest = (size as u64 - killed_at) as f64;
    assert!(
        (b_stats.bytes_sent as f64) < rest * 1.1,
        "replica sent {} bytes for the {} the host lacked",
        b_stats.bytes_sent,
        rest
    );
    assert_eq!(summary.pipes.len(), 2, "{:?}", summary.pipes);
    assert_eq!(summary.pipes[1].to, b_addr);
}
