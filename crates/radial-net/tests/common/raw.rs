//! A hand-driven client for the adversarial tests: it runs the handshake
//! and speaks the session messages and RCP headers itself, as an attacker
//! holding its own connection's keys would.

#![allow(dead_code)]

use std::collections::HashMap;
use std::net::{SocketAddr, UdpSocket};
use std::time::{Duration, Instant};

use radial_core::seq::SeqNum;
use radial_core::wire::rcp::{PullBlock, RcpFlags, RcpHeader};
use radial_net::crypto::{ClientHandshake, Keys, HEADER_LEN};
use radial_net::guard::open;
use radial_net::session::{ErrorCode, Message};

/// The control path's number (the GET's).
pub const CONTROL: u16 = u16::MAX;

/// A hand-driven client socket.
pub struct Raw {
    pub sock: UdpSocket,
    pub server: SocketAddr,
    pub sent: u64,
    pub received: u64,
    pub keys: Option<Keys>,
    pns: HashMap<u16, u64>,
    /// The connection number it asked for, once connected.
    pub conn: u16,
    /// Its pipe's initial sequence number, once opened (for pulls).
    pub isn: Option<SeqNum>,
    /// Ask for a connection without encryption (`--insecure`).
    pub insecure: bool,
}

impl Raw {
    pub fn new(server: SocketAddr) -> Raw {
        Raw::from("127.0.0.1", server)
    }

    /// A socket on local address `ip` (any of 127.0.0.0/8 on loopback).
    pub fn from(ip: &str, server: SocketAddr) -> Raw {
        let sock = UdpSocket::bind((ip, 0)).unwrap();
        sock.set_read_timeout(Some(Duration::from_millis(50)))
            .unwrap();
        Raw {
            sock,
            server,
            sent: 0,
            received: 0,
            keys: None,
            pns: HashMap::new(),
            conn: 0,
            isn: None,
            insecure: false,
        }
    }

    /// A second socket on the same connection (another path, another
    /// address).
    pub fn another_path(&self, ip: &str, keys: Keys) -> Raw {
        let mut r = Raw::from(ip, self.server);
        r.keys = Some(keys);
        r
    }

    pub fn send(&mut self, d: &[u8]) {
        self.sent += d.len() as u64;
        self.sock.send_to(d, self.server).unwrap();
    }

    /// Seals `inner` as the next packet of `path`, without sending it.
    pub fn seal(&mut self, path: u16, inner: &[u8]) -> Vec<u8> {
        let pn = self.pns.entry(path).or_insert(0);
        let mut d = vec![0u8; HEADER_LEN];
        d.extend_from_slice(inner);
        self.keys
            .as_ref()
            .expect("connected")
            .seal(path, *pn, &mut d);
        *pn += 1;
        d
    }

    /// Seals `inner` as the next packet of `path` and sends it.
    pub fn send_sealed(&mut self, path: u16, inner: &[u8]) -> Vec<u8> {
        let d = self.seal(path, inner);
        self.send(&d);
        d
    }

    /// Receives for `for_`, echoing the envelope nonces of what arrives on
    /// path 0 of `conn` (an honest receiver): the bytes received.
    pub fn collect_and_echo(&mut self, conn: u16, for_: Duration) -> u64 {
        let before = self.received;
        let nonces: Vec<u32> = self
            .collect(for_)
            .iter()
            .filter_map(|(_, d)| open(d).map(|(n, _)| n))
            .collect();
        for chunk in nonces.chunks(64) {
            let m = Message::Echo {
                conn,
                path: 0,
                nonces: chunk.to_vec(),
            };
            self.send_msg(0, &m);
        }
        self.received - before
    }

    pub fn send_msg(&mut self, path: u16, m: &Message) -> Vec<u8> {
        let mut d = Vec::new();
        m.emit(&mut d);
        self.send_sealed(path, &d)
    }

    /// Everything that arrives within `for_`, opened (what does not open
    /// is counted but dropped).
    pub fn collect(&mut self, for_: Duration) -> Vec<(u16, Vec<u8>)> {
        let end = Instant::now() + for_;
        let mut out = Vec::new();
        let mut buf = [0u8; 65536];
        while Instant::now() < end {
            if let Ok((n, _)) = self.sock.recv_from(&mut buf) {
                self.received += n as u64;
                if let Some(k) = &self.keys {
                    if let Ok((path, _, plain)) = k.open(&mut buf[..n]) {
                        out.push((path, plain.to_vec()));
                    }
                }
            }
        }
        out
    }

    /// The first opened datagram within `for_` that `want` accepts.
    pub fn wait_for<T>(
        &mut self,
        for_: Duration,
        mut want: impl FnMut(u16, &[u8]) -> Option<T>,
    ) -> Option<T> {
        let end = Instant::now() + for_;
        let mut buf = [0u8; 65536];
        while Instant::now() < end {
            if let Ok((n, _)) = self.sock.recv_from(&mut buf) {
                self.received += n as u64;
                let Some(k) = &self.keys else { continue };
                if let Ok((path, _, plain)) = k.open(&mut buf[..n]) {
                    if let Some(t) = want(path, plain) {
                        return Some(t);
                    }
                }
            }
        }
        None
    }

    /// One datagram (waiting at most the socket's read timeout): its size,
    /// and the envelope nonce inside if it opens and carries one.
    pub fn recv_one(&mut self) -> Option<(usize, Option<u32>)> {
        let mut buf = [0u8; 65536];
        let (n, _) = self.sock.recv_from(&mut buf).ok()?;
        self.received += n as u64;
        let nonce = self
            .keys
            .as_ref()
            .and_then(|k| k.open(&mut buf[..n]).ok())
            .and_then(|(_, _, plain)| open(plain).map(|(nonce, _)| nonce));
        Some((n, nonce))
    }

    /// Runs the handshake (the server's key is not checked).
    pub fn handshake(&mut self) {
        for _ in 0..50 {
            let (hs, hello) = ClientHandshake::start(self.insecure);
            self.send(&hello);
            let end = Instant::now() + Duration::from_millis(200);
            let mut buf = [0u8; 2048];
            while Instant::now() < end {
                if let Ok((n, _)) = self.sock.recv_from(&mut buf) {
                    if hs.is_reply(&buf[..n]) {
                        self.keys = Some(hs.finish(&buf[..n]).unwrap().keys);
                        return;
                    }
                    if let Some(again) = hs.with_token(&hello, &buf[..n]) {
                        self.send(&again);
                    }
                }
            }
        }
        panic!("no handshake reply");
    }

    /// GET on the control path: the answer's error code, or `None` for an
    /// offer.
    pub fn ask(&mut self, conn: u16, path: &str) -> Option<ErrorCode> {
        self.send_msg(
            CONTROL,
            &Message::Get {
                conn,
                segment: 1200,
                path: path.into(),
            },
        );
        self.wait_for(Duration::from_millis(500), |_, d| match Message::parse(d) {
            Ok(Message::Offer { .. }) => Some(None),
            Ok(Message::Error { code, .. }) => Some(Some(code)),
            _ => None,
        })
        .expect("an answer to the GET")
    }

    /// Handshake and GET `data.bin` on connection number `conn` (asked
    /// again while the server prepares the file).
    pub fn connect(&mut self, conn: u16) {
        self.conn = conn;
        self.handshake();
        for _ in 0..100 {
            match self.ask(conn, "data.bin") {
                None => return,
                Some(ErrorCode::Preparing) => std::thread::sleep(Duration::from_millis(50)),
                Some(e) => panic!("refused: {e:?}"),
            }
        }
        panic!("no offer");
    }

    /// JOIN path `path`: the challenge, if the server answered.
    pub fn join(&mut self, conn: u16, path: u16) -> Option<[u8; 8]> {
        self.send_msg(path, &Message::Join { conn, path });
        self.joined()
    }

    pub fn joined(&mut self) -> Option<[u8; 8]> {
        self.wait_for(Duration::from_millis(200), |_, d| match Message::parse(d) {
            Ok(Message::Joined { challenge, .. }) => Some(challenge),
            _ => None,
        })
    }

    pub fn validate(&mut self, conn: u16, path: u16, echo: [u8; 8]) {
        self.send_msg(path, &Message::Validate { conn, path, echo });
    }

    /// Sends the SYN of path `path`'s pipe and returns the sender's
    /// initial sequence number from its SYN+ACK.
    pub fn open_pipe(&mut self, conn: u16, path: u16) -> SeqNum {
        self.send_sealed(path, &syn(conn, path));
        self.wait_for(Duration::from_millis(200), |_, d| {
            let (_, inner) = open(d)?;
            RcpHeader::parse(inner).ok().map(|(h, _)| h.seq)
        })
        .expect("SYN+ACK")
    }
}

/// The RCP connection id of path `path` of connection `conn`.
pub fn pipe_id(conn: u16, path: u16) -> u32 {
    u32::from(conn) | (u32::from(path) << 16)
}

pub fn syn(conn: u16, path: u16) -> Vec<u8> {
    let mut d = Vec::new();
    RcpHeader::new(RcpFlags::SYN, pipe_id(conn, path), SeqNum(0), SeqNum(0), 0).emit(&mut d);
    d
}

/// Connects on `conn`, joins path 0, proves the address, opens the pipe
/// and pulls `bytes` from offset 0 in one request.
pub fn open_and_pull(a: &mut Raw, conn: u16, bytes: u32) -> SeqNum {
    a.connect(conn);
    let challenge = a.join(conn, 0).expect("joined");
    a.validate(conn, 0, challenge);
    let isn = a.open_pipe(conn, 0);
    a.send_sealed(0, &pull(conn, isn, 1, 0, bytes));
    isn
}

/// A pull REQ of pipe 0 of `conn` for stream bytes `[start, end)`.
pub fn pull(conn: u16, isn: SeqNum, id: u32, start: u32, end: u32) -> Vec<u8> {
    pull_on(conn, 0, isn, id, start, end)
}

/// A pull REQ of the pipe on path `path` of `conn` for stream bytes
/// `[start, end)`.
pub fn pull_on(conn: u16, path: u16, isn: SeqNum, id: u32, start: u32, end: u32) -> Vec<u8> {
    let mut req = RcpHeader::new(
        RcpFlags::REQ | RcpFlags::PUL,
        pipe_id(conn, path),
        isn + 1u32,
        isn + 1u32,
        id,
    );
    req.push_block(PullBlock {
        start: isn + 1u32 + start,
        end: isn + 1u32 + end,
        id,
    });
    let mut d = Vec::new();
    req.emit(&mut d);
    d
}

/// The peak resident memory of this process so far, in bytes.
pub fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}
