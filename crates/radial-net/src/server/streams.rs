//! Stream connections on the server: a client that OPENs one gets a
//! [`Duplex`] instead of a file, and the application gets its
//! [`Connection`]. The connection's datagrams go out under the same limits
//! as a file's pipes: three times what a path received until its address
//! is validated, and the receipt guard's unproven bytes on every path.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use radial_core::{Instant, PathId};

use super::pipes::Wait;
use super::pipes::AMPLIFICATION;
use super::Server;
use crate::batch::Batch;
use crate::crypto::HEADER_LEN;
use crate::crypto::{hex, ClientProof};
use crate::duplex::{Duplex, DuplexConfig};
use crate::guard::{ReceiptGuard, ENVELOPE_LEN};
use crate::mux::Side;
use crate::session::{ErrorCode, Message};
use crate::stream::{Connection, ConnectionError, Shared};

/// Datagrams a path holds back while its limits hold; more are dropped
/// (the connection's receivers ask again).
const HELD: usize = 256;
/// Payload bytes a path holds back at most: fewer datagrams than [`HELD`]
/// when its connection's segments are large, so that a peer asking for
/// the largest ones holds no more of the server's memory than a few
/// times what one of the default size can.
const HELD_BYTES: usize = 1 << 20;

/// Datagrams a path of a connection in segments of `segment` bytes holds
/// back at most.
fn held_max(segment: u64) -> usize {
    (HELD_BYTES / usize::try_from(segment).unwrap_or(usize::MAX).max(1)).clamp(16, HELD)
}

/// A stream connection a client opened.
pub struct StreamConn {
    /// The client's connection number.
    pub conn: u16,
    /// The connection, shared with the application.
    pub shared: Arc<Shared>,
    /// When it opened.
    pub started: Instant,
    /// Each path's receipt guard and the datagrams its limits held back.
    outs: HashMap<u16, PathOut>,
    /// Buffers of datagrams sent, to make the next ones in: a segment's
    /// worth of memory is not allocated and freed per datagram (which
    /// costs page faults each time the allocator gives memory back). As
    /// many as a path may hold back at most.
    spare: Vec<Vec<u8>>,
}

#[derive(Default)]
struct PathOut {
    guard: ReceiptGuard,
    /// Datagrams (room for the seal's header and the envelope, then the
    /// inner datagram) not sent yet.
    held: VecDeque<Vec<u8>>,
    /// Sealed datagrams the socket would not take yet.
    stash: Option<Batch>,
}

impl StreamConn {
    /// Why the server holds nothing back for the connection now, or when
    /// it is worth trying again.
    pub fn wait(&self) -> Wait {
        let mut wait = Wait::No;
        for o in self.outs.values() {
            if o.stash.is_some() {
                return Wait::Socket;
            }
            if !o.held.is_empty() {
                wait = match o.guard.next_expiry() {
                    Some(t) => Wait::Until(t),
                    None => Wait::Peer,
                };
            }
        }
        wait
    }

    /// Ends the connection for the application with `why`.
    pub fn end(&self, why: ConnectionError) {
        let mut g = self.shared.lock();
        if g.ended.is_none() {
            g.ended = Some(why);
        }
        drop(g);
        self.shared.notify();
    }
}

impl Server {
    /// An OPEN: a stream connection, if the server takes them and the
    /// connection asked for nothing else. When the server lists the
    /// clients it admits, the OPEN must carry a proof of a listed key for
    /// this connection.
    pub(super) fn answer_open(
        &mut self,
        cid: u64,
        ask: (u16, u16),
        client: Option<ClientProof>,
        now: Instant,
    ) -> Message {
        let (conn, segment) = ask;
        let error = |code, message: &str| Message::Error {
            conn,
            code,
            message: message.into(),
        };
        let Some(c) = self.conns.get(&cid) else {
            return error(ErrorCode::Busy, "no such connection");
        };
        if let Some(s) = &c.streams {
            return if s.conn == conn {
                Message::Opened { conn }
            } else {
                error(ErrorCode::Busy, "one stream connection per handshake")
            };
        }
        if c.session.is_some() {
            return error(ErrorCode::Busy, "this connection serves a file");
        }
        let Some(accept) = self.opts.streams.as_ref() else {
            return error(
                ErrorCode::NoStreams,
                "this server takes no stream connections",
            );
        };
        let proven = client
            .filter(|p| p.verify(&c.keys.binding, conn))
            .map(|p| p.key);
        if let Some(listed) = &self.opts.stream_clients {
            if !proven.is_some_and(|k| listed.contains(&k)) {
                self.stats.rejected += 1;
                let message = match (client, proven) {
                    (None, _) => "this server admits listed clients only: give a client key".into(),
                    (Some(_), None) => "the client key's proof does not hold".into(),
                    (Some(p), Some(_)) => format!("client key {} is not listed", hex(&p.key)),
                };
                return Message::Error {
                    conn,
                    code: ErrorCode::Unauthorized,
                    message,
                };
            }
        }
        let waker = self.stream_waker.clone();
        let duplex = Duplex::new(
            Side::Server,
            DuplexConfig::with_segment(conn, u64::from(segment)),
        );
        let shared = Shared::new(duplex, move || {
            let _ = waker.wake();
        });
        if accept
            .send(Connection::new(shared.clone(), None, proven))
            .is_err()
        {
            return error(
                ErrorCode::NoStreams,
                "this server takes no more stream connections",
            );
        }
        self.stats.sessions += 1;
        let c = self.conns.get_mut(&cid).expect("looked up above");
        c.streams = Some(StreamConn {
            conn,
            shared,
            started: now,
            outs: HashMap::new(),
            spare: Vec::new(),
        });
        Message::Opened { conn }
    }

    /// Path `id` of stream connection `cid` joined: both directions open
    /// pipes on it (what the server sends there stays within three times
    /// what it received until the path proves its address).
    pub(super) fn stream_path_joined(&mut self, cid: u64, id: u16, now: Instant) {
        let Some(s) = self.conns.get_mut(&cid).and_then(|c| c.streams.as_mut()) else {
            return;
        };
        s.outs.entry(id).or_default();
        // No route: a client's address does not tell the server which of
        // its interfaces a path leaves from (NATs map one interface to
        // changing addresses, and several to one).
        if s.shared
            .lock()
            .duplex
            .add_path(now, PathId(id), None)
            .is_err()
        {
            self.stats.rejected += 1;
        }
    }

    /// An echo of path `id` of stream connection `cid`: its nonces prove
    /// receipt. `None` for a path with nothing sent; else whether a nonce
    /// was one outstanding there (which proves the address receives).
    pub(super) fn stream_echo(&mut self, cid: u64, id: u16, nonces: &[u32]) -> Option<bool> {
        let s = self.conns.get_mut(&cid).and_then(|c| c.streams.as_mut())?;
        let o = s.outs.get_mut(&id)?;
        let wall = std::time::Instant::now();
        let mut proven = false;
        for &n in nonces {
            proven |= o.guard.echoed(n, wall);
        }
        Some(proven)
    }

    /// RCP datagrams (`inner`: one, or a bundle) on path `id` of stream
    /// connection `cid`.
    pub(super) fn on_stream_datagrams(&mut self, cid: u64, id: u16, inner: &[u8], now: Instant) {
        let Some(s) = self.conns.get(&cid).and_then(|c| c.streams.as_ref()) else {
            return;
        };
        let mut g = s.shared.lock();
        if crate::bundle::is_bundle(inner) {
            // The ECHOs a bundle carries were taken already.
            for d in crate::bundle::split(inner).unwrap_or_default() {
                if !crate::session::is_session(d) {
                    g.duplex.handle_datagram(now, PathId(id), d);
                }
            }
        } else {
            g.duplex.handle_datagram(now, PathId(id), inner);
        }
    }

    /// Fires the stream connections' timers, sends what they have, and
    /// forgets the ones that ended.
    pub(super) fn service_streams(&mut self) {
        let now = self.clock.now();
        let wall = std::time::Instant::now();
        let mut ended = Vec::new();
        let room = HEADER_LEN + ENVELOPE_LEN;
        for (cid, c) in &mut self.conns {
            let Some(s) = c.streams.as_mut() else {
                continue;
            };
            let mut g = s.shared.lock();
            if g.duplex.poll_timeout().is_some_and(|t| t <= now) {
                g.duplex.handle_timeout(now);
            }
            // Each datagram is made after room for its envelope, with
            // room after it for the AEAD tag and an RCP header, and held
            // as it is.
            let size = room + usize::try_from(g.duplex.segment()).unwrap_or(0) + 128;
            let most = held_max(g.duplex.segment());
            let spare = &mut s.spare;
            let mut fresh = || spare.pop().unwrap_or_else(|| Vec::with_capacity(size));
            let mut d = fresh();
            while let Some(p) = g.duplex.poll_transmit_after(now, &mut d, room) {
                if let Some(o) = s.outs.get_mut(&p.0) {
                    if o.held.len() < most {
                        let next = fresh();
                        o.held.push_back(std::mem::replace(&mut d, next));
                    }
                }
            }
            if s.spare.len() < most {
                s.spare.push(d);
            }
            let closed = g.duplex.is_closed();
            let error = g.duplex.error();
            drop(g);
            for (id, o) in &mut s.outs {
                let Some(path) = c.paths.get_mut(id) else {
                    o.held.clear();
                    o.stash = None;
                    continue;
                };
                let (sock, state) = (&self.sockets[path.socket], &self.states[path.socket]);
                if let Some(b) = o.stash.take() {
                    self.batch = b;
                    if self.batch.flush(sock, state).is_err() {
                        o.stash = Some(std::mem::take(&mut self.batch));
                        continue;
                    }
                }
                while let Some(mut d) = o.held.pop_front() {
                    let len = d.len() + c.keys.tag_len();
                    let auth = &mut path.auth;
                    if !auth.validated && auth.tx + len as u64 > AMPLIFICATION * auth.rx {
                        self.stats.amplification_waits += 1;
                        o.held.push_front(d);
                        break;
                    }
                    if !o.guard.allows(len, wall) {
                        self.stats.receipt_waits += 1;
                        o.held.push_front(d);
                        break;
                    }
                    if !self.batch.fits(path.peer, len, state.max_gso_segments())
                        && self.batch.flush(sock, state).is_err()
                    {
                        o.stash = Some(std::mem::take(&mut self.batch));
                        o.held.push_front(d);
                        break;
                    }
                    let payload = d.len() - HEADER_LEN - ENVELOPE_LEN;
                    let nonce = self.nonces.draw();
                    crate::guard::stamp(nonce, &mut d[HEADER_LEN..]);
                    c.keys.seal(*id, path.pn, &mut d);
                    path.pn += 1;
                    o.guard.sent(nonce, len, wall);
                    auth.tx += len as u64;
                    self.stats.bytes_sent += payload as u64;
                    self.stats.data_datagrams += u64::from(payload > 0);
                    self.batch.push(path.peer, &d);
                    if s.spare.len() < most && d.capacity() >= size {
                        d.clear();
                        s.spare.push(d);
                    }
                }
                if o.stash.is_none() && self.batch.flush(sock, state).is_err() {
                    o.stash = Some(std::mem::take(&mut self.batch));
                }
            }
            s.shared.notify();
            if let Some(e) = error {
                ended.push((*cid, ConnectionError::Protocol(e)));
            } else if closed {
                ended.push((*cid, ConnectionError::Closed));
            }
        }
        for (cid, why) in ended {
            if let Some(s) = self.conns.get(&cid).and_then(|c| c.streams.as_ref()) {
                s.end(why);
            }
            self.forget_conn(cid, "streams ended");
        }
    }

    /// When the stream connections next need the loop: their earliest
    /// timer.
    pub(super) fn streams_deadline(&self) -> Option<Instant> {
        self.conns
            .values()
            .filter_map(|c| c.streams.as_ref())
            .filter_map(|s| s.shared.lock().duplex.poll_timeout())
            .min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_holds_back_about_a_mebibyte_of_large_segments() {
        assert_eq!(held_max(crate::config::MSS), HELD);
        assert_eq!(held_max(16_000), 65);
        assert_eq!(held_max(crate::config::MAX_SEGMENT), 17);
        assert!(held_max(crate::config::MAX_SEGMENT) * 60_000 <= HELD_BYTES);
    }
}
