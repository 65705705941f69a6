//! What a client asks in its sealed datagrams: the paths it joins and
//! validates, the file it wants (GET), the receipts it echoes, and the RCP
//! requests of its pipes.

use std::net::SocketAddr;
use std::sync::{Arc, Weak};

use radial_core::rcp::RcpSender;
use radial_core::wire::rcp::{RcpFlags, RcpHeader};
use radial_core::{Instant, PathId};

use super::conn::{Offer, Path, Session};
use super::files::OpenError;
use super::hashing::Lookup;
use super::pipes::{PathAuth, Pipe, Wait};
use super::tables::Prefix;
use super::{pipe_id, random, Server};
use crate::config::rcp_config_for;
use crate::crypto::ReplayWindow;
use crate::session::{is_session, ErrorCode, Message, MIN_GET};

impl Server {
    /// An authentic datagram of connection `cid` on path `id`, packet `pn`;
    /// `len` is its size on the wire.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn on_sealed(
        &mut self,
        s: usize,
        peer: SocketAddr,
        cid: u64,
        (id, pn): (u16, u64),
        plain: &[u8],
        len: usize,
        now: Instant,
    ) {
        // Parsed before anything else: only a datagram the server can act
        // on moves its path's replay window.
        let inner = match parse_inner(plain) {
            Some(x) => x,
            None => {
                self.stats.malformed += 1;
                return;
            }
        };
        if !self.path_for(s, peer, cid, (id, pn), len, now) {
            return;
        }
        let streams = self.conns.get(&cid).is_some_and(|c| c.streams.is_some());
        let m = match inner {
            Inner::Rcp(_) if streams => {
                return self.on_stream_datagrams(cid, id, plain, now);
            }
            Inner::Rcp(h) => return self.on_rcp(cid, id, &h, now),
            Inner::Bundle { echoes, requests } => {
                // The receipts first: what they prove lets the requests
                // beside them be answered at once.
                for (path, nonces) in &echoes {
                    self.on_echo(cid, id, *path, nonces, streams);
                }
                if streams {
                    return self.on_stream_datagrams(cid, id, plain, now);
                }
                for h in &requests {
                    self.on_rcp(cid, id, h, now);
                }
                return;
            }
            Inner::Session(m) => m,
        };
        match m {
            Message::Get {
                conn,
                segment,
                path,
            } if plain.len() >= MIN_GET => {
                let reply = if streams {
                    Message::Error {
                        conn,
                        code: ErrorCode::Busy,
                        message: "this connection carries streams".into(),
                    }
                } else {
                    self.answer_get(cid, (conn, segment), &path, now)
                };
                self.send_message(cid, id, &reply);
            }
            Message::Open {
                conn,
                segment,
                client,
            } if plain.len() >= MIN_GET => {
                let reply = self.answer_open(cid, (conn, segment), client, now);
                self.send_message(cid, id, &reply);
            }
            Message::Join { path, conn } if path == id => {
                let Some(p) = self.conns.get(&cid).and_then(|c| c.paths.get(&id)) else {
                    return;
                };
                let reply = Message::Joined {
                    conn,
                    path,
                    challenge: p.auth.challenge,
                };
                self.send_message(cid, id, &reply);
                if streams {
                    self.stream_path_joined(cid, id, now);
                }
            }
            Message::Validate { path, echo, .. } if path == id => {
                let Some(p) = self.conns.get_mut(&cid).and_then(|c| c.paths.get_mut(&id)) else {
                    return;
                };
                if echo == p.auth.challenge {
                    self.validated(cid, id);
                } else {
                    self.stats.rejected += 1;
                }
            }
            Message::Echo { path, nonces, .. } => {
                self.on_echo(cid, id, path, &nonces, streams);
            }
            _ => self.stats.rejected += 1,
        }
    }

    /// The receipts path `id` of `cid` echoed (an ECHO, alone or in a
    /// bundle; `path` is the one it names): each nonce proves a datagram
    /// arrived (the receipt guard), and one outstanding there proves the
    /// address receives.
    fn on_echo(&mut self, cid: u64, id: u16, path: u16, nonces: &[u32], streams: bool) {
        if path != id {
            self.stats.rejected += 1;
            return;
        }
        if streams {
            match self.stream_echo(cid, id, nonces) {
                None => self.stats.dropped += 1,
                Some(true) => self.validated(cid, id),
                Some(false) => {}
            }
            return;
        }
        let pipe = self
            .conns
            .get_mut(&cid)
            .and_then(|c| c.paths.get_mut(&id))
            .and_then(|p| p.pipe.as_mut());
        let Some(pipe) = pipe else {
            self.stats.dropped += 1;
            return;
        };
        let wall = std::time::Instant::now();
        let mut proven = false;
        for &n in nonces {
            proven |= pipe.guard.echoed(n, wall);
        }
        pipe.wait = Wait::No;
        if proven {
            self.validated(cid, id);
        }
    }

    /// Path `id` of `cid` proved its address receives: it echoed the
    /// path's challenge (VALIDATE), or a nonce only a datagram sent there
    /// carried (ECHO), so a lost VALIDATE never leaves a working path
    /// under the three-times limit. Its limit is lifted.
    fn validated(&mut self, cid: u64, id: u16) {
        let Some(p) = self.conns.get_mut(&cid).and_then(|c| c.paths.get_mut(&id)) else {
            return;
        };
        if !p.auth.validated {
            p.auth.validated = true;
            self.unvalidated.remove(Prefix::of(p.peer.ip()));
            if let Some(pipe) = p.pipe.as_mut() {
                pipe.wait = Wait::No;
            }
        }
    }

    /// Finds path `id` of `cid` for a datagram from (`s`, `peer`), or
    /// makes it (within the connection's cap); false when the datagram must
    /// be dropped (a replay, or another address than the path's own).
    #[allow(clippy::too_many_arguments)]
    fn path_for(
        &mut self,
        s: usize,
        peer: SocketAddr,
        cid: u64,
        (id, pn): (u16, u64),
        len: usize,
        now: Instant,
    ) -> bool {
        let limits = self.opts.limits;
        let c = self.conns.get_mut(&cid).expect("opened under its keys");
        let insecure = c.keys.insecure();
        if let Some(p) = c.paths.get_mut(&id) {
            // The address first: the replay window moves only for a
            // datagram that passed every other check.
            if (p.socket, p.peer) != (s, peer) {
                self.stats.rejected += 1;
                return false;
            }
            if !p.replay.is_new(pn, insecure) {
                self.stats.replayed += 1;
                return false;
            }
            p.replay.record(pn);
            p.auth.rx += len as u64;
            return true;
        }
        if c.paths.len() >= limits.paths_per_session {
            self.stats.rejected += 1;
            return false;
        }
        self.room_for_unvalidated(Prefix::of(peer.ip()));
        let mut replay = ReplayWindow::default();
        if !replay.is_new(pn, insecure) {
            self.stats.replayed += 1;
            return false;
        }
        replay.record(pn);
        let c = self.conns.get_mut(&cid).expect("still there");
        c.paths.insert(
            id,
            Path {
                socket: s,
                peer,
                replay,
                pn: c.pn_floor,
                auth: PathAuth {
                    challenge: random(),
                    validated: false,
                    rx: len as u64,
                    tx: 0,
                    joined: now,
                },
                pipe: None,
            },
        );
        self.unvalidated.add(Prefix::of(peer.ip()), (cid, id));
        true
    }

    fn send_message(&mut self, cid: u64, id: u16, m: &Message) {
        let mut b = Vec::with_capacity(128);
        m.emit(&mut b);
        self.send_sealed(cid, id, &b);
    }

    /// An RCP datagram (its header) of the pipe on path `id`; a SYN opens
    /// the pipe.
    fn on_rcp(&mut self, cid: u64, id: u16, h: &RcpHeader, now: Instant) {
        let Some(c) = self.conns.get(&cid) else {
            return;
        };
        let Some(session) = c.session.as_ref() else {
            self.stats.dropped += 1;
            return;
        };
        if h.conn_id != pipe_id(session.conn, id) {
            self.stats.rejected += 1;
            return;
        }
        let p = c.paths.get(&id).expect("found by path_for");
        if p.pipe.is_none() {
            let opening = h.flags.contains(RcpFlags::SYN) && !h.flags.contains(RcpFlags::ACK);
            if !opening {
                self.stats.dropped += 1;
                return;
            }
            let peer = p.peer;
            if !self.room_for_pipe(peer, now) {
                self.stats.refused_full += 1;
                return;
            }
            let c = self.conns.get_mut(&cid).expect("still there");
            let session = c.session.as_mut().expect("asked for a file");
            let p = c.paths.get_mut(&id).expect("still there");
            self.pipes.add(Prefix::of(peer.ip()), (cid, id));
            self.pipes_by_ip.add(peer.ip());
            self.stats.pipes += 1;
            session.opened += 1;
            let config = rcp_config_for(h.conn_id, session.segment);
            let sender = RcpSender::stored(config, PathId(0), session.offer.size);
            p.pipe = Some(Pipe::new(p.peer, sender, session.offer.file.clone(), now));
        }
        let p = self
            .conns
            .get_mut(&cid)
            .and_then(|c| c.paths.get_mut(&id))
            .expect("found by path_for");
        let pipe = p.pipe.as_mut().expect("present or opened");
        pipe.last_heard = now;
        pipe.wait = Wait::No;
        pipe.sender.on_header(now, h);
    }

    /// A GET: open the path below the root, look up its hash (computed
    /// aside the first time), answer. One file per connection, served in
    /// the segments its receiver asks in (`segment` bytes, checked when
    /// the GET was parsed).
    fn answer_get(&mut self, cid: u64, ask: (u16, u16), path: &str, now: Instant) -> Message {
        let (conn, segment) = ask;
        let error = |code, message: String| Message::Error {
            conn,
            code,
            message,
        };
        if let Some(s) = self.conns.get(&cid).and_then(|c| c.session.as_ref()) {
            // A GET sent again (its OFFER was lost).
            if s.offer.name == path && s.conn == conn {
                return Message::Offer {
                    conn,
                    size: s.offer.size,
                    sha256: s.offer.sha256,
                };
            }
            return error(ErrorCode::Busy, "one file per connection".into());
        }
        let (file, id) = match self.root.open_file(path) {
            Ok(x) => x,
            Err(e) => {
                let code = match e {
                    OpenError::Unreadable(_) => ErrorCode::Unreadable,
                    _ => ErrorCode::NotFound,
                };
                return error(code, format!("{path}: {e}"));
            }
        };
        let file = match self.files.get(&id).and_then(Weak::upgrade) {
            Some(f) => f,
            None => {
                let f = Arc::new(file);
                self.files.insert(id, Arc::downgrade(&f));
                f
            }
        };
        let client = Prefix::of(self.conns.get(&cid).expect("asked on it").hello.0.ip());
        let sha256 = match self.hashes.lookup(id, &file, client) {
            Lookup::Ready(h) => h,
            Lookup::Pending => {
                return error(ErrorCode::Preparing, format!("{path}: preparing (hashing)"))
            }
            Lookup::Busy => {
                return error(
                    ErrorCode::Full,
                    "busy hashing files (this network's share is taken): ask again later".into(),
                )
            }
        };
        self.stats.sessions += 1;
        let c = self.conns.get_mut(&cid).expect("asked on it");
        c.session = Some(Session {
            offer: Arc::new(Offer {
                name: path.to_string(),
                file,
                size: id.size,
                sha256,
                id,
            }),
            conn,
            segment: u64::from(segment),
            started: now,
            opened: 0,
            completed: false,
        });
        Message::Offer {
            conn,
            size: id.size,
            sha256,
        }
    }
}

/// What an opened datagram carries: an RCP datagram, a bundle (RCP
/// datagrams, whose headers are all the server needs since requests carry
/// no payload, and the receipts echoed beside them), or a session message.
enum Inner {
    Rcp(RcpHeader),
    Bundle {
        /// Each ECHO in the bundle: the path it names and its nonces.
        echoes: Vec<(u16, Vec<u32>)>,
        requests: Vec<RcpHeader>,
    },
    Session(Message),
}

/// Parses an opened datagram; `None` unless it is a session message, an
/// RCP datagram or a bundle of RCP datagrams and ECHOs (no other session
/// message), each parsed once here.
fn parse_inner(plain: &[u8]) -> Option<Inner> {
    if is_session(plain) {
        return Message::parse(plain).ok().map(Inner::Session);
    }
    if crate::bundle::is_bundle(plain) {
        let (mut echoes, mut requests) = (Vec::new(), Vec::new());
        for d in crate::bundle::split(plain)? {
            if is_session(d) {
                match Message::parse(d).ok()? {
                    Message::Echo { path, nonces, .. } => echoes.push((path, nonces)),
                    _ => return None,
                }
            } else {
                requests.push(RcpHeader::parse(d).ok()?.0);
            }
        }
        return Some(Inner::Bundle { echoes, requests });
    }
    RcpHeader::parse(plain).ok().map(|(h, _)| Inner::Rcp(h))
}

#[cfg(test)]
mod tests {
    use super::*;
    use radial_core::seq::SeqNum;

    fn req(seq: u32) -> Vec<u8> {
        let mut d = Vec::new();
        RcpHeader::new(RcpFlags::REQ, 9, SeqNum(seq), SeqNum(0), 1).emit(&mut d);
        d
    }

    fn echo(path: u16, nonces: &[u32]) -> Vec<u8> {
        let mut d = Vec::new();
        Message::Echo {
            conn: 3,
            path,
            nonces: nonces.to_vec(),
        }
        .emit(&mut d);
        d
    }

    #[test]
    fn a_bundle_carries_requests_and_the_receipts_echoed_beside_them() {
        let mut b = Vec::new();
        for d in [echo(2, &[7, 8]), req(1000), req(2000)] {
            assert!(crate::bundle::push(&mut b, &d));
        }
        let Some(Inner::Bundle { echoes, requests }) = parse_inner(&b) else {
            panic!("not a bundle");
        };
        assert_eq!(echoes, vec![(2, vec![7, 8])]);
        let seqs: Vec<u32> = requests.iter().map(|h| h.seq.0).collect();
        assert_eq!(seqs, vec![1000, 2000]);
    }

    #[test]
    fn a_bundle_with_another_session_message_or_a_bad_request_is_refused() {
        let mut join = Vec::new();
        Message::Join { conn: 3, path: 0 }.emit(&mut join);
        let mut b = Vec::new();
        assert!(crate::bundle::push(&mut b, &req(1000)));
        assert!(crate::bundle::push(&mut b, &join));
        assert!(parse_inner(&b).is_none(), "a JOIN has no place in a bundle");
        let mut b = Vec::new();
        assert!(crate::bundle::push(&mut b, &echo(0, &[1])));
        assert!(crate::bundle::push(&mut b, &[0xff, 1, 2]));
        assert!(parse_inner(&b).is_none(), "garbage beside an echo");
    }
}
