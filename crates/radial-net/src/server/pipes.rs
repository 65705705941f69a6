//! One pipe of a client's connection on the server: an unchanged RCP sender
//! over the file (R²CP §4.1.2), sending through the path's limits.
//!
//! The sender keeps no copy of the file ([`StoredStream`]): each datagram's
//! payload is read from the file straight into the datagram, when it is
//! sent. A pipe costs the server a few hundred bytes however much its
//! receiver asks for, and the requests it queues are capped by the sender.

use std::fs::File;
use std::io;
use std::net::SocketAddr;
use std::os::unix::fs::FileExt;
use std::sync::Arc;

use mio::net::UdpSocket;
use radial_core::rcp::{RcpSender, StoredStream};
use radial_core::{AppEvent, Instant};

use super::ServerStats;
use crate::crypto::{Keys, HEADER_LEN};
use crate::guard::{Nonces, ReceiptGuard, ENVELOPE_LEN};

/// Before its address is validated the server sends a path at most this
/// many times what it received there (as QUIC, RFC 9000 §8).
pub const AMPLIFICATION: u64 = 3;

/// What a join established for one (socket, peer, pipe connection id).
#[derive(Clone, Copy, Debug)]
pub struct PathAuth {
    /// Random; the peer proves it receives here by echoing it.
    pub challenge: [u8; 8],
    /// The peer echoed the challenge.
    pub validated: bool,
    /// Bytes received from the peer for this path, and sent to it.
    pub rx: u64,
    /// Bytes sent to the peer on this path.
    pub tx: u64,
    /// When the join arrived.
    pub joined: Instant,
}

/// One pipe.
pub struct Pipe {
    /// The receiver's address.
    pub peer: SocketAddr,
    /// The RCP sender.
    pub sender: RcpSender<StoredStream>,
    /// The file, shared by every pipe of every session that serves it.
    pub file: Arc<File>,
    /// When the receiver was last heard.
    pub last_heard: Instant,
    /// A datagram the socket, the amplification limit or the receipt guard
    /// would not take yet.
    pub stash: Option<Stash>,
    /// What the receiver has proven it receives.
    pub guard: ReceiptGuard,
    /// The receiver asked to close (everything arrived).
    pub finished: bool,
    /// Why the pipe is not sending now.
    pub wait: Wait,
    /// One past the highest stream byte sent.
    high: u64,
    /// The envelope nonce of the datagram last sealed.
    last_nonce: u32,
}

/// Why a pipe waits, and so when it is worth servicing again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wait {
    /// It is not waiting.
    No,
    /// The socket's buffer was full: try again shortly.
    Socket,
    /// A limit holds until the peer sends something (the amplification
    /// limit, or the receipt guard with nothing left to expire).
    Peer,
    /// The receipt guard holds until an echo arrives or this moment, when
    /// its oldest unproven datagram expires.
    Until(std::time::Instant),
}

impl Wait {
    /// True when servicing the pipe now may send something.
    pub fn over(self, wall: std::time::Instant) -> bool {
        match self {
            Wait::No | Wait::Socket => true,
            Wait::Peer => false,
            Wait::Until(t) => wall >= t,
        }
    }
}

/// A datagram waiting to go.
pub enum Stash {
    /// Not sealed yet: room for the header, the envelope, the RCP datagram.
    Plain(Vec<u8>),
    /// Sealed, with its envelope nonce: the socket was full.
    Sealed(Vec<u8>, u32),
}

/// What sending a pipe's datagrams needs from the server.
pub struct Out<'a> {
    /// The pipe's socket.
    pub sock: &'a UdpSocket,
    /// The connection's keys.
    pub keys: &'a Keys,
    /// The path's number and its next packet number.
    pub path: u16,
    /// The path's next packet number.
    pub pn: &'a mut u64,
    /// The path's join.
    pub auth: &'a mut PathAuth,
    /// Envelope nonces.
    pub nonces: &'a mut Nonces,
    /// Counters.
    pub stats: &'a mut ServerStats,
    /// The wall clock now, for the receipt guard.
    pub wall: std::time::Instant,
}

impl Pipe {
    /// A pipe serving `file` (of `len` bytes) to `peer`.
    pub fn new(
        peer: SocketAddr,
        sender: RcpSender<StoredStream>,
        file: Arc<File>,
        now: Instant,
    ) -> Pipe {
        Pipe {
            peer,
            sender,
            file,
            last_heard: now,
            stash: None,
            guard: ReceiptGuard::default(),
            finished: false,
            wait: Wait::No,
            high: 0,
            last_nonce: 0,
        }
    }

    /// Sends what the sender has to send, until it has nothing or a limit
    /// holds. `dgram` and `hdr` are scratch buffers. An error means the file
    /// could not be read (it shrank under the server): the pipe is broken.
    pub fn service(
        &mut self,
        now: Instant,
        out: &mut Out<'_>,
        dgram: &mut Vec<u8>,
        hdr: &mut Vec<u8>,
    ) -> io::Result<()> {
        self.wait = Wait::No;
        if let Some(stash) = self.stash.take() {
            let r = match &stash {
                Stash::Plain(d) => {
                    let mut d = d.clone();
                    let r = self.send(&mut d, out);
                    r.map_err(|w| (w, d))
                }
                Stash::Sealed(d, nonce) => {
                    self.transmit(d, *nonce, out).map_err(|w| (w, d.clone()))
                }
            };
            if let Err((w, d)) = r {
                self.wait = w;
                self.stash = Some(match (w, stash) {
                    (Wait::Socket, Stash::Sealed(_, n)) => Stash::Sealed(d, n),
                    (Wait::Socket, Stash::Plain(_)) => Stash::Sealed(d, self.last_nonce),
                    (_, s) => s,
                });
                return Ok(());
            }
        }
        while let Some(seg) = self.sender.poll_segment(now, hdr) {
            dgram.clear();
            dgram.resize(HEADER_LEN + ENVELOPE_LEN, 0);
            dgram.extend_from_slice(hdr);
            if seg.len > 0 {
                let at = dgram.len();
                dgram.resize(at + seg.len, 0);
                self.file.read_exact_at(&mut dgram[at..], seg.offset)?;
                let end = seg.offset + seg.len as u64;
                out.stats.bytes_sent += seg.len as u64;
                out.stats.first_bytes_sent += end.saturating_sub(seg.offset.max(self.high));
                self.high = self.high.max(end);
            }
            if let Err(w) = self.send(dgram, out) {
                self.wait = w;
                self.stash = Some(match w {
                    Wait::Socket => Stash::Sealed(dgram.clone(), self.last_nonce),
                    _ => Stash::Plain(dgram.clone()),
                });
                break;
            }
        }
        while let Some(ev) = self.sender.next_app_event() {
            if ev == AppEvent::Closed {
                self.finished = true;
            }
        }
        Ok(())
    }

    /// Seals and sends `d` (room for the header and the envelope, then the
    /// RCP datagram) unless the address is unproven and it would take the
    /// path past three times what it received, or the receiver has not
    /// proven receipt of enough of what it was sent. A full socket leaves
    /// `d` sealed (`Wait::Socket`), to be sent as it is.
    fn send(&mut self, d: &mut Vec<u8>, out: &mut Out<'_>) -> Result<(), Wait> {
        let len = (d.len() + out.keys.tag_len()) as u64;
        let auth = &mut *out.auth;
        if !auth.validated && auth.tx + len > AMPLIFICATION * auth.rx {
            out.stats.amplification_waits += 1;
            return Err(Wait::Peer);
        }
        if !self.guard.allows(len as usize, out.wall) {
            out.stats.receipt_waits += 1;
            return Err(self.guard.next_expiry().map_or(Wait::Peer, Wait::Until));
        }
        let nonce = out.nonces.draw();
        crate::guard::stamp(nonce, &mut d[HEADER_LEN..]);
        out.keys.seal(out.path, *out.pn, d);
        *out.pn += 1;
        self.last_nonce = nonce;
        self.transmit(d, nonce, out)
    }

    /// Sends sealed datagram `d` whose envelope carries `nonce`.
    fn transmit(&mut self, d: &[u8], nonce: u32, out: &mut Out<'_>) -> Result<(), Wait> {
        match out.sock.send_to(d, self.peer) {
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Err(Wait::Socket),
            // Unreachable peers and the like: the datagram is lost, as on a
            // network; the protocol recovers.
            Err(_) => {}
        }
        self.guard.sent(nonce, d.len(), out.wall);
        out.auth.tx += d.len() as u64;
        Ok(())
    }
}
