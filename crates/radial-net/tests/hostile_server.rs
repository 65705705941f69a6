//! A hostile server: it holds its own key (trusted on first use, so the
//! client cannot tell it from an honest one), and sends data the client
//! never asked for, at random offsets, or offers a file of absurd size. The
//! client keeps only what it asked for, its memory stays bounded, and an
//! absurd offer is refused before anything is written. One test binary of
//! its own, so the peak resident memory measured is this client's.
//! Loopback only; the flood is bounded in count.

use std::net::{SocketAddr, UdpSocket};
use std::thread;
use std::time::{Duration, Instant};

use radial_core::seq::SeqNum;
use radial_core::wire::rcp::{RcpFlags, RcpHeader};
use radial_net::crypto::{self, Identity, Keys, HEADER_LEN};
use radial_net::session::{is_session, ErrorCode, Message};
use radial_net::{get, GetConfig, GetError};

mod common;
use common::raw::peak_rss;

/// Datagrams of unasked-for data the hostile server sends.
const FLOOD: usize = 300_000;

/// What the hostile server does once a pipe is open.
#[derive(Clone, Copy)]
enum Hostility {
    /// Offers a file of `size` bytes.
    Offer(u64),
    /// Offers 4 MB, then floods data at random offsets and ends with an
    /// error.
    Flood,
}

/// Seals `inner` as the next packet of `path`.
fn seal(keys: &Keys, path: u16, pn: &mut u64, inner: &[u8]) -> Vec<u8> {
    let mut d = vec![0u8; HEADER_LEN];
    d.extend_from_slice(inner);
    keys.seal(path, *pn, &mut d);
    *pn += 1;
    d
}

fn message(m: &Message) -> Vec<u8> {
    let mut d = Vec::new();
    m.emit(&mut d);
    d
}

/// Runs the hostile server on `sock` until it has done its worst, or for
/// at most 20 s.
fn hostile(sock: UdpSocket, how: Hostility) {
    let id = Identity::generate();
    sock.set_read_timeout(Some(Duration::from_millis(20)))
        .unwrap();
    let mut keys: Option<Keys> = None;
    let mut pn = 0u64;
    let mut buf = vec![0u8; 65536];
    let mut conn = 0u16;
    let end = Instant::now() + Duration::from_secs(20);
    while Instant::now() < end {
        let Ok((n, from)) = sock.recv_from(&mut buf) else {
            continue;
        };
        let d = &mut buf[..n];
        if crypto::hello_tag(d).is_some() {
            let (k, reply) = crypto::respond(&id, d, 42, false).unwrap();
            keys = Some(k);
            sock.send_to(&reply, from).unwrap();
            continue;
        }
        let Some(k) = keys.as_ref() else { continue };
        let Ok((path, _, plain)) = k.open(d) else {
            continue;
        };
        let plain = plain.to_vec();
        let mut inner: Vec<Vec<u8>> = Vec::new();
        if radial_net::bundle::is_bundle(&plain) {
            inner.extend(
                radial_net::bundle::split(&plain)
                    .unwrap_or_default()
                    .iter()
                    .map(|d| d.to_vec()),
            );
        } else {
            inner.push(plain);
        }
        for d in inner {
            if is_session(&d) {
                let reply = match Message::parse(&d) {
                    Ok(Message::Get { conn: c, .. }) => {
                        conn = c;
                        let size = match how {
                            Hostility::Offer(size) => size,
                            Hostility::Flood => 4_000_000,
                        };
                        Some(Message::Offer {
                            conn,
                            size,
                            sha256: [7; 32],
                        })
                    }
                    Ok(Message::Join { conn, path }) => Some(Message::Joined {
                        conn,
                        path,
                        challenge: [1; 8],
                    }),
                    _ => None,
                };
                if let Some(m) = reply {
                    sock.send_to(&seal(k, path, &mut pn, &message(&m)), from)
                        .unwrap();
                }
                continue;
            }
            let Ok((h, _)) = RcpHeader::parse(&d) else {
                continue;
            };
            if !h.flags.contains(RcpFlags::SYN) {
                continue;
            }
            let isn = SeqNum(1000);
            let mut synack = Vec::new();
            let rcp = RcpHeader::new(
                RcpFlags::SYN | RcpFlags::ACK,
                h.conn_id,
                isn,
                isn + 4_000_001u32,
                h.id,
            );
            let mut hd = Vec::new();
            rcp.emit(&mut hd);
            radial_net::guard::seal(1, &hd, &mut synack);
            sock.send_to(&seal(k, path, &mut pn, &synack), from)
                .unwrap();
            // The worst: data nobody asked for, anywhere in the stream.
            let mut x: u64 = 0x2545_f491_4f6c_dd1d;
            let payload = vec![0xa5u8; 1200];
            for i in 0..FLOOD {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let mut data = Vec::with_capacity(1300);
                let mut hd = Vec::new();
                RcpHeader::new(
                    RcpFlags::default(),
                    h.conn_id,
                    isn + 1u32 + (x as u32),
                    isn + 4_000_001u32,
                    (x >> 32) as u32,
                )
                .emit(&mut hd);
                hd.extend_from_slice(&payload);
                radial_net::guard::seal(i as u32, &hd, &mut data);
                let _ = sock.send_to(&seal(k, path, &mut pn, &data), from);
                if i % 64 == 0 {
                    thread::sleep(Duration::from_micros(200));
                }
            }
            let e = Message::Error {
                conn,
                code: ErrorCode::Changed,
                message: "gone".into(),
            };
            for _ in 0..3 {
                sock.send_to(&seal(k, path, &mut pn, &message(&e)), from)
                    .unwrap();
            }
            return;
        }
    }
}

/// Starts a hostile server; its address.
fn start(how: Hostility) -> (SocketAddr, thread::JoinHandle<()>) {
    let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
    let addr = sock.local_addr().unwrap();
    (addr, thread::spawn(move || hostile(sock, how)))
}

fn config(server: SocketAddr, name: &str) -> GetConfig {
    let dir = std::env::temp_dir().join(format!("radial-hostile-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    GetConfig::new(
        server,
        "f.bin",
        &["127.0.0.1:0".parse().unwrap()],
        dir.join("f.bin"),
    )
}

#[test]
fn a_hostile_server_cannot_grow_the_clients_memory_or_offer_an_absurd_file() {
    // Unasked-for data at random offsets: none of it is kept.
    let (server, h) = start(Hostility::Flood);
    let cfg = config(server, "flood");
    let before = peak_rss();
    let r = get(&cfg, None, |_| {});
    h.join().unwrap();
    assert!(matches!(r, Err(GetError::Changed)), "{r:?}");
    let grew = peak_rss().saturating_sub(before);
    assert!(grew < 64 << 20, "peak RSS grew by {} MB", grew >> 20);
    let part = radial_net::client::part_path(&cfg.out);
    assert_eq!(std::fs::metadata(&part).map_or(0, |m| m.len()), 0);
    // A file of 2^64 − 1 bytes: refused at once, nothing created.
    let (server, h) = start(Hostility::Offer(u64::MAX));
    let cfg = config(server, "huge");
    let t = Instant::now();
    let r = get(&cfg, None, |_| {});
    assert!(
        matches!(r, Err(GetError::TooLarge { size: u64::MAX, .. })),
        "{r:?}"
    );
    assert!(t.elapsed() < Duration::from_secs(10));
    assert!(!radial_net::client::part_path(&cfg.out).exists());
    drop(h);
    // Allowed by --max-size but more than the disk holds: refused too.
    let (server, h) = start(Hostility::Offer(1 << 62));
    let mut cfg = config(server, "disk");
    cfg.max_size = u64::MAX;
    let r = get(&cfg, None, |_| {});
    assert!(matches!(r, Err(GetError::NoSpace { .. })), "{r:?}");
    drop(h);
}
