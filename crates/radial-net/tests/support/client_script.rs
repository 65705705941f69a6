//! Drives a download's client side through an arbitrary sequence of
//! datagrams, with no socket: one path of a connection whose keys come from
//! a real handshake, the path's acceptance (`PathSock::accept`) and the
//! R²CP engine behind it. The script seals what the server would (session
//! messages, pipe datagrams in the receipt guard's envelope, anything at
//! all), on any path number, from the server's address or another, replays
//! and corrupts them, and lets time pass. Shared by the property test in
//! `client_datagrams.rs` and the fuzz target `fuzz/fuzz_targets/client.rs`.
//!
//! What must hold, whatever the script: nothing panics; a datagram is
//! accepted only if it is one the server sealed, on the path's number,
//! from the server's address, the first time it arrives; and everything
//! the engine hands the application lies within what the sender said it
//! holds.

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};

use radial_core::{Duration, Endpoint, HostEvent, Instant, PathId};
use radial_net::client::paths::{Incoming, PathSock};
use radial_net::config::r2cp_config;
use radial_net::crypto::{respond, ClientHandshake, Identity, Keys, HEADER_LEN};
use radial_net::session::Message;
use radial_net::PathConfig;

/// The two ends' keys of one connection, made once.
fn keys() -> &'static (Arc<Keys>, Keys) {
    static K: OnceLock<(Arc<Keys>, Keys)> = OnceLock::new();
    K.get_or_init(|| {
        let id = Identity::generate();
        let (hs, hello) = ClientHandshake::start(false);
        let (server, reply) = respond(&id, &hello, 7, false).expect("a valid HELLO");
        let client = hs.finish(&reply).expect("a valid REPLY").keys;
        (Arc::new(client), server)
    })
}

const CONN: u16 = 3;

/// What a script's datagrams came to.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Datagrams the path took (JOINED or pipe).
    pub accepted: usize,
    /// Datagrams it dropped.
    pub ignored: usize,
}

/// Runs `script`: steps of an opcode byte, a path (8 bits), a length
/// (8 bits) and that many bytes.
pub fn run(script: &[u8]) -> Outcome {
    let mut outcome = Outcome::default();
    let (client, server) = keys();
    let to: SocketAddr = "127.0.0.1:7400".parse().unwrap();
    let elsewhere: SocketAddr = "127.0.0.2:7400".parse().unwrap();
    let cfg = PathConfig {
        via: "127.0.0.1:0".parse().unwrap(),
        to,
    };
    let mut path = PathSock::new(cfg, None, client.clone());
    let mut rx = radial_core::r2cp::R2cpReceiver::new(r2cp_config(CONN));
    let mut now = Instant::ZERO;
    let mut pns = [0u64; 4];
    // Every datagram the server sealed on path 0, and those accepted.
    let mut sealed_on_0: BTreeSet<Vec<u8>> = BTreeSet::new();
    let mut accepted: BTreeSet<Vec<u8>> = BTreeSet::new();
    let mut last: Vec<u8> = Vec::new();
    let mut rest = script;
    let mut read = vec![0u8; 1 << 16];
    while rest.len() >= 3 {
        let (op, p) = (rest[0], u16::from(rest[1] % 4));
        let n = usize::from(rest[2]).min(rest.len() - 3);
        let body = &rest[3..3 + n];
        rest = &rest[3 + n..];
        let mut from = to;
        let d = match op % 8 {
            // What the server would send on path `p`: a JOINED, a pipe
            // datagram in its envelope, or any plaintext.
            0..=2 => {
                let mut plain = Vec::new();
                match op % 8 {
                    0 => Message::Joined {
                        conn: CONN,
                        path: p,
                        challenge: [body.first().copied().unwrap_or(0); 8],
                    }
                    .emit(&mut plain),
                    1 => radial_net::guard::seal(
                        u32::from(body.first().copied().unwrap_or(0)),
                        body,
                        &mut plain,
                    ),
                    _ => plain.extend_from_slice(body),
                }
                let pn = &mut pns[usize::from(p)];
                let mut d = vec![0u8; HEADER_LEN];
                d.extend_from_slice(&plain);
                server.seal(p, *pn, &mut d);
                *pn += 1;
                if p == 0 {
                    sealed_on_0.insert(d.clone());
                }
                last = d.clone();
                d
            }
            // The last one again (a replay), from the server or elsewhere.
            3 => {
                if op & 8 != 0 {
                    from = elsewhere;
                }
                last.clone()
            }
            // The last one with a byte changed.
            4 => {
                let mut d = last.clone();
                if !d.is_empty() {
                    let i = usize::from(rest.len() as u16) % d.len();
                    d[i] ^= body.first().copied().unwrap_or(1).max(1);
                }
                d
            }
            // Raw bytes, from the server's address or elsewhere.
            5 | 6 => {
                if op % 8 == 6 {
                    from = elsewhere;
                }
                body.to_vec()
            }
            // Time passes; the engine's timers run.
            _ => {
                now += Duration::from_millis(u64::from(rest.len() as u8) * 10 + 1);
                if rx.poll_timeout().is_some_and(|t| t <= now) {
                    rx.handle_timeout(now);
                }
                continue;
            }
        };
        let mut buf = d.clone();
        let incoming = path.accept(0, CONN, from, &mut buf);
        if incoming == Incoming::Ignored {
            outcome.ignored += 1;
        } else {
            outcome.accepted += 1;
            assert!(from == to, "accepted from elsewhere");
            assert!(
                sealed_on_0.contains(&d),
                "accepted what the server did not seal on path 0"
            );
            assert!(accepted.insert(d.clone()), "accepted twice");
        }
        match incoming {
            Incoming::Joined(_) if !path.joined => {
                path.joined = true;
                rx.handle_event(
                    now,
                    HostEvent::PathUp {
                        path: PathId(0),
                        controller: None,
                        route: None,
                    },
                );
            }
            Incoming::Pipe(inner) => rx.handle_datagram(now, PathId(0), inner),
            _ => {}
        }
        let mut out = Vec::new();
        while rx.poll_transmit(now, &mut out).is_some() {}
        while rx.read(&mut read) > 0 {}
    }
    outcome
}
