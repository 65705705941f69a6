//! A hand-driven client for the adversarial tests: it speaks the session
//! messages and RCP headers itself, as an attacker would.

#![allow(dead_code)]

use std::net::{SocketAddr, UdpSocket};
use std::time::{Duration, Instant};

use radial_core::seq::SeqNum;
use radial_core::wire::rcp::{PullBlock, RcpFlags, RcpHeader};
use radial_net::guard::open;
use radial_net::session::{tag, Message};

/// A hand-driven client socket.
pub struct Raw {
    pub sock: UdpSocket,
    pub server: SocketAddr,
    pub sent: u64,
    pub received: u64,
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
        }
    }

    pub fn send(&mut self, d: &[u8]) {
        self.sent += d.len() as u64;
        self.sock.send_to(d, self.server).unwrap();
    }

    pub fn send_msg(&mut self, m: &Message) {
        let mut d = Vec::new();
        m.emit(&mut d);
        self.send(&d);
    }

    /// Everything that arrives within `for_`.
    pub fn collect(&mut self, for_: Duration) -> Vec<Vec<u8>> {
        let end = Instant::now() + for_;
        let mut out = Vec::new();
        let mut buf = [0u8; 65536];
        while Instant::now() < end {
            if let Ok((n, _)) = self.sock.recv_from(&mut buf) {
                self.received += n as u64;
                out.push(buf[..n].to_vec());
            }
        }
        out
    }

    /// The first datagram within `for_` that `want` accepts.
    pub fn wait_for<T>(
        &mut self,
        for_: Duration,
        mut want: impl FnMut(&[u8]) -> Option<T>,
    ) -> Option<T> {
        let end = Instant::now() + for_;
        let mut buf = [0u8; 65536];
        while Instant::now() < end {
            if let Ok((n, _)) = self.sock.recv_from(&mut buf) {
                self.received += n as u64;
                if let Some(t) = want(&buf[..n]) {
                    return Some(t);
                }
            }
        }
        None
    }

    /// GET: the offer's key (asked again while the server prepares the
    /// file).
    pub fn key(&mut self, conn: u16) -> [u8; 16] {
        for _ in 0..100 {
            self.send_msg(&Message::Get {
                conn,
                path: "data.bin".into(),
            });
            let offer = self.wait_for(Duration::from_millis(100), |d| match Message::parse(d) {
                Ok(Message::Offer { key, conn: c, .. }) if c == conn => Some(key),
                _ => None,
            });
            if let Some(key) = offer {
                return key;
            }
        }
        panic!("no offer");
    }

    pub fn joined(&mut self) -> Option<[u8; 8]> {
        self.wait_for(Duration::from_millis(200), |d| match Message::parse(d) {
            Ok(Message::Joined { challenge, .. }) => Some(challenge),
            _ => None,
        })
    }
}

pub fn join(conn: u16, key: &[u8; 16], nonce: [u8; 8]) -> Message {
    Message::Join {
        conn,
        path: 0,
        nonce,
        mac: tag(key, b"join", conn, 0, &nonce),
    }
}

/// Opens pipe 0 of `conn` from `a` (already joined): the sender's initial
/// sequence number, from its SYN+ACK.
pub fn open_pipe(a: &mut Raw, conn: u16) -> SeqNum {
    a.send(&syn(conn));
    a.collect(Duration::from_millis(100))
        .iter()
        .find_map(|d| {
            let (_, inner) = open(d)?;
            RcpHeader::parse(inner).ok().map(|(h, _)| h.seq)
        })
        .expect("SYN+ACK")
}

pub fn syn(conn: u16) -> Vec<u8> {
    let mut d = Vec::new();
    RcpHeader::new(RcpFlags::SYN, u32::from(conn), SeqNum(0), SeqNum(0), 0).emit(&mut d);
    d
}

/// Joins path 0 of connection `conn` from `a`, proves the address, opens
/// the pipe and pulls `bytes` from offset 0 in one request.
pub fn open_and_pull(a: &mut Raw, conn: u16, bytes: u32) -> SeqNum {
    let key = a.key(conn);
    a.send_msg(&join(conn, &key, [conn as u8; 8]));
    let challenge = a.joined().expect("joined");
    a.send_msg(&Message::Validate {
        conn,
        path: 0,
        echo: challenge,
        mac: tag(&key, b"valid", conn, 0, &challenge),
    });
    let isn = open_pipe(a, conn);
    a.send(&pull(conn, isn, 1, 0, bytes));
    isn
}

/// A pull REQ of pipe 0 of `conn` for stream bytes `[start, end)`.
pub fn pull(conn: u16, isn: SeqNum, id: u32, start: u32, end: u32) -> Vec<u8> {
    let mut req = RcpHeader::new(
        RcpFlags::REQ | RcpFlags::PUL,
        u32::from(conn),
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
