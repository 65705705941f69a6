//! Admission: what a datagram may make the server remember, under the caps
//! of [`Limits`](super::Limits), shared fairly between source networks
//! ([`super::tables::Shares`]).
//!
//! - A HELLO from an address that has not shown it receives (no retry
//!   token) creates no state once that address holds its share of
//!   half-open connections, or once the server holds a sixteenth of its
//!   cap: it gets a RETRY, stateless. So half-open state sent under a
//!   spoofed source address never counts against the address's real
//!   owner, who comes back with its token and is admitted.
//! - At a table's cap (half-open connections, connections, unproven paths,
//!   pipes) a newcomer from a network holding fewer entries than the
//!   largest holder takes the place of that holder's oldest entry; a
//!   newcomer from the largest holder may replace only its own network's
//!   cheaper entries (connections without a pipe, paths not yet proven).
//! - Before a pipe is refused, pipes that are idle (silent for
//!   [`PIPE_IDLE_WHEN_FULL`]) or unanswered (held back by the receipt guard
//!   with nothing proven for a guard window) give way.

use std::collections::HashMap;
use std::net::SocketAddr;

use radial_core::{Duration, Instant};

use super::conn::Conn;
use super::pipes::Wait;
use super::tables::Prefix;
use super::{random, Server, RETRY_AT, SWEEP};
use crate::crypto;
use crate::guard::ReceiptGuard;

/// Silence after which a pipe gives way to a new one when the pipe table
/// is full (otherwise a pipe is forgotten after `PIPE_IDLE`).
pub const PIPE_IDLE_WHEN_FULL: Duration = Duration::from_secs(5);

impl Server {
    /// A HELLO: the same reply to a repeated one, a RETRY to an address
    /// that must first show it receives, or a new connection within the
    /// caps.
    pub(super) fn on_hello(
        &mut self,
        s: usize,
        peer: SocketAddr,
        tag: [u8; 8],
        d: &[u8],
        now: Instant,
    ) {
        if let Some(c) = self
            .hellos
            .get(&(peer, tag))
            .and_then(|cid| self.conns.get(cid))
        {
            if let Some(reply) = &c.reply {
                let _ = self.sockets[s].send_to(reply, peer);
            }
            return;
        }
        let limits = self.opts.limits;
        let now_s = now.as_nanos() / 1_000_000_000;
        let proven =
            crypto::hello_token(d).is_some_and(|t| self.retry_key.check(&t, peer, &tag, now_s));
        let ip = peer.ip();
        if !proven
            && (self.half_open.len() >= limits.half_open / RETRY_AT
                || self.unproven_by_ip.get(ip) >= limits.half_open_per_address)
        {
            // Under load, or from an address holding its share, the
            // address shows it receives before the server spends a key
            // agreement or any state on it.
            let token = self.retry_key.token(peer, &tag, now_s);
            let _ = self.sockets[s].send_to(&crypto::retry(tag, &token), peer);
            self.stats.retries += 1;
            return;
        }
        if proven && self.proven_by_ip.get(ip) >= limits.half_open_per_address {
            self.stats.refused_full += 1;
            return;
        }
        let prefix = Prefix::of(ip);
        if !self.room_for_half_open(prefix) || !self.room_for_conn(prefix) {
            self.stats.refused_full += 1;
            return;
        }
        let mut cid = u64::from_be_bytes(random());
        while cid == 0 || self.conns.contains_key(&cid) {
            cid = u64::from_be_bytes(random());
        }
        let (keys, reply) = match crypto::respond(&self.identity, d, cid, self.opts.allow_insecure)
        {
            Ok(x) => x,
            Err(crypto::HandshakeError::InsecureRefused) => {
                self.stats.rejected += 1;
                return;
            }
            Err(_) => {
                self.stats.malformed += 1;
                return;
            }
        };
        let _ = self.sockets[s].send_to(&reply, peer);
        self.stats.handshakes += 1;
        self.conns.insert(
            cid,
            Conn {
                keys,
                hello: (peer, tag),
                proven,
                reply: Some(reply),
                session: None,
                streams: None,
                paths: HashMap::new(),
                last_active: now,
                pn_floor: 0,
            },
        );
        self.hellos.insert((peer, tag), cid);
        self.conns_by.add(prefix, cid);
        self.half_open.add(prefix, cid);
        if proven {
            self.proven_by_ip.add(ip);
        } else {
            self.unproven_by_ip.add(ip);
        }
    }

    /// Connection `c` is no longer half-open (its client proved it holds
    /// the keys, or it is forgotten): its half-open counts go.
    pub(super) fn half_open_done(&mut self, hello: SocketAddr, proven: bool) {
        self.half_open.remove(Prefix::of(hello.ip()));
        if proven {
            self.proven_by_ip.remove(hello.ip());
        } else {
            self.unproven_by_ip.remove(hello.ip());
        }
    }

    /// Makes room for one more half-open connection from network `p`:
    /// at the cap, the oldest half-open connection of the network that
    /// gives way ([`super::tables::Shares::donor`]) is forgotten.
    fn room_for_half_open(&mut self, p: Prefix) -> bool {
        if self.half_open.len() < self.opts.limits.half_open {
            return true;
        }
        let donor = self.half_open.donor(p);
        let conns = &self.conns;
        let live = |c: &u64| conns.get(c).is_some_and(Conn::half_open);
        match self.half_open.take_oldest(donor, live, |_| true) {
            Some(old) => {
                self.forget_conn(old, "evicted");
                self.stats.evicted += 1;
                true
            }
            None => false,
        }
    }

    /// Makes room for one more connection from network `p`: at the cap,
    /// the oldest connection without a pipe of the network that gives way,
    /// or, if that is another network than `p`'s, its oldest connection.
    fn room_for_conn(&mut self, p: Prefix) -> bool {
        if self.conns.len() < self.opts.limits.connections {
            return true;
        }
        let donor = self.conns_by.donor(p);
        let conns = &self.conns;
        let live = |c: &u64| conns.contains_key(c);
        let idle = |c: &u64| conns.get(c).is_some_and(|c| c.pipes() == 0);
        let mut old = self.conns_by.take_oldest(donor, live, idle);
        if old.is_none() && donor != p {
            old = self.conns_by.take_oldest(donor, live, |_| true);
        }
        match old {
            Some(old) => {
                self.forget_conn(old, "evicted");
                self.stats.evicted += 1;
                true
            }
            None => false,
        }
    }

    /// Makes room for one more path not yet proven from network `p`: at
    /// the cap, the oldest unproven path of the network that gives way.
    pub(super) fn room_for_unvalidated(&mut self, p: Prefix) {
        if self.unvalidated.len() < self.opts.limits.unvalidated_paths {
            return;
        }
        let donor = self.unvalidated.donor(p);
        let conns = &self.conns;
        let live = |(c, id): &(u64, u16)| {
            conns
                .get(c)
                .and_then(|c| c.paths.get(id))
                .is_some_and(|p| !p.auth.validated)
        };
        if let Some(old) = self.unvalidated.take_oldest(donor, live, |_| true) {
            self.forget_path(old);
            self.stats.evicted += 1;
        }
    }

    /// Makes room for one more pipe from `peer`: refused when its address
    /// holds its share; at the global cap, idle and unanswered pipes go
    /// first, then the oldest pipe of a network holding more than `peer`'s.
    pub(super) fn room_for_pipe(&mut self, peer: SocketAddr, now: Instant) -> bool {
        let limits = self.opts.limits;
        if self.pipes_by_ip.get(peer.ip()) >= limits.pipes_per_address {
            return false;
        }
        if self.pipes.len() < limits.pipes {
            return true;
        }
        self.reclaim_pipes(now);
        if self.pipes.len() < limits.pipes {
            return true;
        }
        let p = Prefix::of(peer.ip());
        let donor = self.pipes.donor(p);
        if donor == p {
            return false;
        }
        let conns = &self.conns;
        let live = |(c, id): &(u64, u16)| {
            conns
                .get(c)
                .and_then(|c| c.paths.get(id))
                .is_some_and(|p| p.pipe.is_some())
        };
        match self.pipes.take_oldest(donor, live, |_| true) {
            Some(old) => {
                self.forget_pipe(old);
                self.stats.evicted += 1;
                true
            }
            None => false,
        }
    }

    /// Forgets the pipes that are idle ([`PIPE_IDLE_WHEN_FULL`]) or
    /// unanswered (the receipt guard holds them back and nothing was proven
    /// for a guard window): at most once per sweep interval, as it looks at
    /// every pipe.
    fn reclaim_pipes(&mut self, now: Instant) {
        if now - self.last_reclaim < SWEEP {
            return;
        }
        self.last_reclaim = now;
        let window = Duration::from_nanos(ReceiptGuard::WINDOW.as_nanos() as u64);
        let mut gone = Vec::new();
        for (cid, c) in &self.conns {
            for (id, p) in &c.paths {
                let Some(pipe) = &p.pipe else { continue };
                let idle = now - pipe.last_heard >= PIPE_IDLE_WHEN_FULL;
                let unanswered = matches!(pipe.wait, Wait::Peer | Wait::Until(_))
                    && now - pipe.opened >= window
                    && !pipe.guard.proving();
                if idle || unanswered {
                    gone.push((*cid, *id));
                }
            }
        }
        for k in gone {
            self.forget_pipe(k);
            self.stats.evicted += 1;
        }
    }
}
