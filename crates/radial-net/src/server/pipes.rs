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
use crate::batch::Batch;
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
    /// When the pipe opened.
    pub opened: Instant,
    /// When the receiver was last heard.
    pub last_heard: Instant,
    /// Sealed datagrams the socket would not take yet.
    pub stash: Option<Batch>,
    /// A datagram, not sealed yet, that the amplification limit, the
    /// receipt guard or the socket held back.
    held: Option<Vec<u8>>,
    /// What the receiver has proven it receives.
    pub guard: ReceiptGuard,
    /// The receiver asked to close (everything arrived).
    pub finished: bool,
    /// Why the pipe is not sending now.
    pub wait: Wait,
    /// One past the highest stream byte sent.
    high: u64,
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

/// What sending a pipe's datagrams needs from the server.
pub struct Out<'a> {
    /// The pipe's socket, and what the kernel offers on it.
    pub sock: &'a UdpSocket,
    /// The socket's GSO state.
    pub state: &'a quinn_udp::UdpSocketState,
    /// Sealed datagrams waiting to go in one system call.
    pub batch: &'a mut Batch,
    /// The connection's keys.
    pub keys: &'a Keys,
    /// The path's number.
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
    /// Bytes read ahead from the file.
    pub ahead: &'a mut ReadAhead,
}

/// Bytes read from a file ahead of the segments that carry them: one read
/// serves many consecutive segments. One buffer for the whole server (pipes
/// are serviced one at a time), so its memory does not grow with the pipes.
#[derive(Debug, Default)]
pub struct ReadAhead {
    /// The file the bytes are from (compared by identity).
    file: Option<std::sync::Weak<File>>,
    start: u64,
    buf: Vec<u8>,
}

impl ReadAhead {
    /// Bytes read at once.
    const CHUNK: usize = 64 * 1024;

    /// Fills `out` with the file's bytes at `offset`, reading ahead.
    pub fn read(&mut self, file: &Arc<File>, offset: u64, out: &mut [u8]) -> io::Result<()> {
        let same = self
            .file
            .as_ref()
            .is_some_and(|f| std::ptr::eq(f.as_ptr(), Arc::as_ptr(file)));
        let end = offset + out.len() as u64;
        if !(same && offset >= self.start && end <= self.start + self.buf.len() as u64) {
            self.buf.resize(Self::CHUNK.max(out.len()), 0);
            let mut got = 0;
            while got < out.len() {
                let n = file.read_at(&mut self.buf[got..], offset + got as u64)?;
                if n == 0 {
                    self.file = None;
                    return Err(io::ErrorKind::UnexpectedEof.into());
                }
                got += n;
            }
            self.buf.truncate(got);
            self.start = offset;
            self.file = Some(Arc::downgrade(file));
        }
        let at = (offset - self.start) as usize;
        out.copy_from_slice(&self.buf[at..at + out.len()]);
        Ok(())
    }
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
            opened: now,
            last_heard: now,
            stash: None,
            held: None,
            guard: ReceiptGuard::default(),
            finished: false,
            wait: Wait::No,
            high: 0,
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
        // A batch the socket would not take goes first, as it is.
        if let Some(batch) = self.stash.take() {
            *out.batch = batch;
            if self.flush(out).is_err() {
                return Ok(());
            }
        }
        if let Some(d) = self.held.take() {
            dgram.clear();
            dgram.extend_from_slice(&d);
            if self.send(dgram, out).is_err() {
                self.held = Some(d);
                return self.finish(out);
            }
        }
        while let Some(seg) = self.sender.poll_segment(now, hdr) {
            dgram.clear();
            dgram.resize(HEADER_LEN + ENVELOPE_LEN, 0);
            dgram.extend_from_slice(hdr);
            if seg.len > 0 {
                let at = dgram.len();
                dgram.resize(at + seg.len, 0);
                out.ahead.read(&self.file, seg.offset, &mut dgram[at..])?;
                let end = seg.offset + seg.len as u64;
                out.stats.bytes_sent += seg.len as u64;
                out.stats.data_datagrams += 1;
                out.stats.first_bytes_sent += end.saturating_sub(seg.offset.max(self.high));
                self.high = self.high.max(end);
            }
            if self.send(dgram, out).is_err() {
                self.held = Some(dgram.clone());
                break;
            }
        }
        self.finish(out)
    }

    /// Sends what the batch holds, and notes whether the receiver closed.
    fn finish(&mut self, out: &mut Out<'_>) -> io::Result<()> {
        let _ = self.flush(out);
        while let Some(ev) = self.sender.next_app_event() {
            if ev == AppEvent::Closed {
                self.finished = true;
            }
        }
        Ok(())
    }

    /// Hands the batch to the socket; if it is full the batch waits in the
    /// pipe (`Wait::Socket`).
    fn flush(&mut self, out: &mut Out<'_>) -> Result<(), Wait> {
        if out.batch.flush(out.sock, out.state).is_err() {
            self.stash = Some(std::mem::take(out.batch));
            self.wait = Wait::Socket;
            return Err(Wait::Socket);
        }
        Ok(())
    }

    /// Seals `d` (room for the header and the envelope, then the RCP
    /// datagram) into the batch, unless the address is unproven and it
    /// would take the path past three times what it received, the receiver
    /// has not proven receipt of enough of what it was sent, or the socket
    /// will not take the batch before it. `d` is left unsealed when refused.
    fn send(&mut self, d: &mut Vec<u8>, out: &mut Out<'_>) -> Result<(), Wait> {
        let len = d.len() + out.keys.tag_len();
        let auth = &mut *out.auth;
        if !auth.validated && auth.tx + len as u64 > AMPLIFICATION * auth.rx {
            out.stats.amplification_waits += 1;
            self.wait = Wait::Peer;
            return Err(Wait::Peer);
        }
        if !self.guard.allows(len, out.wall) {
            out.stats.receipt_waits += 1;
            self.wait = self.guard.next_expiry().map_or(Wait::Peer, Wait::Until);
            return Err(self.wait);
        }
        if !out.batch.fits(self.peer, len, out.state.max_gso_segments()) {
            self.flush(out)?;
        }
        let nonce = out.nonces.draw();
        crate::guard::stamp(nonce, &mut d[HEADER_LEN..]);
        out.keys.seal(out.path, *out.pn, d);
        *out.pn += 1;
        out.batch.push(self.peer, d);
        self.guard.sent(nonce, len, out.wall);
        out.auth.tx += len as u64;
        Ok(())
    }
}
