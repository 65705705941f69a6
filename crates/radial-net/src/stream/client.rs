//! The host's side of a stream connection: the handshake and OPEN on the
//! first path, a socket per path joined as a download's are, and a
//! driver thread that runs the [`Duplex`] over them.

use std::io;
use std::sync::Arc;
use std::time::Duration;

use mio::{Events, Poll, Token, Waker};
use radial_core::PathId;

use super::{Connection, ConnectionError, PathChange, Shared};
use crate::client::ask;
use crate::client::paths::{
    close_path, open_path, route_of, sleep_for, validate, Incoming, PathSock,
};
use crate::client::{random_conn, GetError, PathConfig, Trust};
use crate::clock::Clock;
use crate::crypto::ClientKey;
use crate::duplex::{Duplex, DuplexConfig};
use crate::mux::Side;

/// Silence on every path after which the connection ends.
const SILENCE: Duration = Duration::from_secs(30);
/// Datagrams at most this long (requests: a header and its pull blocks)
/// travel bundled.
const SMALL: usize = 128;
/// How long a connection every handle dropped may take to deliver what
/// its streams hold before the driver gives up.
const LINGER: Duration = Duration::from_secs(10);
/// The poll token of the application's waker (path sockets use their
/// index).
const WAKE: Token = Token(usize::MAX);

/// Where and how to connect.
#[derive(Clone, Debug)]
pub struct ConnectConfig {
    /// One path per entry, all to the same server (through any of its
    /// addresses: the connection's keys, agreed through the first path,
    /// are what the others join with).
    pub paths: Vec<PathConfig>,
    /// The server keys accepted.
    pub trust: Trust,
    /// Ask for no encryption (the server must allow it).
    pub insecure: bool,
    /// The client's key, for servers that admit listed clients only.
    pub key: Option<Arc<ClientKey>>,
    /// Payload bytes per segment, both ways ([`crate::config::MSS`] by
    /// default; see [`crate::GetConfig::segment`]). Every path, including
    /// one added later, must carry datagrams of this size.
    pub segment: u64,
}

impl ConnectConfig {
    /// Encrypted, over `paths`, trusting the server as `trust` says.
    pub fn new(paths: &[PathConfig], trust: Trust) -> Self {
        ConnectConfig {
            paths: paths.to_vec(),
            trust,
            insecure: false,
            key: None,
            segment: crate::config::MSS,
        }
    }
}

/// Opens a stream connection to the server of `cfg.paths` (the handshake
/// and OPEN go through the first path), joins every path, and returns
/// once the server accepted the connection; a thread drives it from then
/// on.
pub fn connect(cfg: &ConnectConfig) -> Result<Connection, GetError> {
    let first = *cfg
        .paths
        .first()
        .ok_or_else(|| GetError::Refused("no path to connect over".into()))?;
    let wire_segment = crate::client::wire_segment(cfg.segment)?;
    let mut poll = Poll::new()?;
    let conn = random_conn();
    let opened = ask::open(
        first.via,
        first.to,
        &mut poll,
        (conn, wire_segment),
        (&cfg.trust, cfg.insecure),
        cfg.key.as_deref(),
    )?;
    let mut paths = Vec::new();
    for p in &cfg.paths {
        open_path(&mut paths, *p, opened.keys.clone(), conn, &poll)?;
    }
    let waker = Arc::new(Waker::new(poll.registry(), WAKE)?);
    let clock = Clock::new();
    let mut duplex = Duplex::new(Side::Host, DuplexConfig::with_segment(conn, cfg.segment));
    // Each path's pipes are ready from its JOIN on: the server opens its
    // side as the JOIN arrives, and its SYN must find this one listening.
    for i in 0..paths.len() {
        let route = Some(route_of(&paths, i));
        let _ = duplex.add_path(clock.now(), PathId(i as u16), route);
    }
    let shared = Shared::new(duplex, move || {
        let _ = waker.wake();
    });
    shared.lock().next_path = paths.len() as u16;
    let driver = Driver {
        shared: shared.clone(),
        poll,
        paths,
        keys: opened.keys.clone(),
        conn,
        clock,
    };
    std::thread::Builder::new()
        .name(format!("radial-conn-{conn}"))
        .spawn(move || driver.run())?;
    Ok(Connection::new(shared, opened.first_contact, None))
}

/// The thread that runs a host's connection.
struct Driver {
    shared: Arc<Shared>,
    poll: Poll,
    paths: Vec<PathSock>,
    /// The connection's keys, for the paths added later.
    keys: Arc<crate::crypto::Keys>,
    conn: u16,
    clock: Clock,
}

impl Driver {
    fn run(mut self) {
        let end = match self.turns() {
            Ok(e) => e,
            Err(e) => ConnectionError::Io(e.kind()),
        };
        let mut g = self.shared.lock();
        if g.ended.is_none() {
            g.ended = Some(end);
        }
        drop(g);
        for i in 0..self.paths.len() {
            close_path(&mut self.paths, i, &self.poll);
        }
        self.shared.notify();
    }

    /// Runs until the connection ends; says why.
    ///
    /// The connection's lock is held only while the connection itself is
    /// worked on: datagrams are received and opened before it is taken,
    /// and sealed and sent after it is let go, so that an application
    /// thread reading or writing a stream meanwhile does not wait out the
    /// driver's system calls.
    fn turns(&mut self) -> io::Result<ConnectionError> {
        let mut events = Events::with_capacity(256);
        let mut receiver = crate::batch::Receiver::default();
        let mut orphaned: Option<std::time::Instant> = None;
        let mut out = Outgoing::default();
        loop {
            let wait = self.wait();
            match self.poll.poll(&mut events, Some(wait)) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
            let received = self.receive(&events, &mut receiver);
            let shared = self.shared.clone();
            let mut g = shared.lock();
            if received.held {
                g.duplex.release_requests(self.clock.now());
            }
            if let Some(e) = received.ended {
                return Ok(e);
            }
            let now = self.clock.now();
            for change in std::mem::take(&mut g.changes) {
                match change {
                    PathChange::Add(p) => {
                        let i = self.paths.len();
                        open_path(&mut self.paths, p, self.keys.clone(), self.conn, &self.poll)?;
                        let route = Some(route_of(&self.paths, i));
                        let _ = g.duplex.add_path(now, PathId(i as u16), route);
                    }
                    PathChange::Drop(i) => {
                        let i = usize::from(i);
                        if i < self.paths.len() && close_path(&mut self.paths, i, &self.poll) {
                            g.duplex.remove_path(now, PathId(i as u16));
                        }
                    }
                }
            }
            if g.duplex.poll_timeout().is_some_and(|t| t <= now) {
                g.duplex.handle_timeout(now);
            }
            self.gather(&mut g.duplex, now, &mut out);
            if let Some(e) = g.duplex.error() {
                return Ok(ConnectionError::Protocol(e));
            }
            if g.duplex.is_closed() {
                return Ok(ConnectionError::Closed);
            }
            // Every handle dropped (this loop holds two: the driver's and
            // the turn's): deliver what the streams hold, then end.
            let orphan = Arc::strong_count(&self.shared) <= 2;
            if orphan {
                g.duplex.close();
            }
            drop(g);
            self.send(&mut out);
            for (i, p) in self.paths.iter_mut().enumerate() {
                p.join(self.conn, i, ask::RETRY);
                p.echo(self.conn, i);
            }
            if self.paths.iter().all(|p| p.heard.elapsed() > SILENCE) {
                return Ok(ConnectionError::TimedOut(SILENCE.as_secs()));
            }
            if orphan {
                let since = *orphaned.get_or_insert_with(std::time::Instant::now);
                if since.elapsed() > LINGER {
                    return Ok(ConnectionError::Closed);
                }
            }
            self.shared.notify();
        }
    }

    /// Takes what the connection has to send: each path's requests
    /// bundled into as few datagrams as fit, with the receipts the path has
    /// to echo, data as it is (sent by [`Driver::send`]).
    fn gather(&mut self, duplex: &mut Duplex, now: radial_core::Instant, out: &mut Outgoing) {
        let mut d = out.spare.pop().unwrap_or_else(|| Vec::with_capacity(2048));
        while let Some(p) = duplex.poll_transmit(now, &mut d) {
            let i = usize::from(p.0);
            let Some(path) = self.paths.get_mut(i) else {
                d.clear();
                continue;
            };
            if d.len() > SMALL {
                let next = out.spare.pop().unwrap_or_else(|| Vec::with_capacity(2048));
                out.data.push((i, std::mem::replace(&mut d, next)));
            } else {
                path.bundle(self.conn, i, &d);
                d.clear();
            }
        }
        out.spare.push(d);
    }

    /// Seals and sends what [`Driver::gather`] took.
    fn send(&mut self, out: &mut Outgoing) {
        for (i, mut d) in out.data.drain(..) {
            if let Some(path) = self.paths.get_mut(i) {
                path.send(i, &d);
            }
            d.clear();
            out.spare.push(d);
        }
        for (i, p) in self.paths.iter_mut().enumerate() {
            p.send_bundle(i);
        }
    }

    /// How long the poll may sleep: until the connection's next deadline,
    /// an echo or a join retry, at most 100 ms.
    fn wait(&self) -> Duration {
        let deadline = self.shared.lock().duplex.poll_timeout();
        sleep_for(&self.clock, deadline, &self.paths)
    }

    /// Hands the connection what the paths received, and opens the paths
    /// the server accepted; an error the server sent ends it. Each system
    /// call's worth of datagrams is received and opened first, then handed
    /// on under the connection's lock.
    fn receive(&mut self, events: &Events, receiver: &mut crate::batch::Receiver) -> Received {
        let (conn, now) = (self.conn, self.clock.now());
        let mut joined = Vec::new();
        let mut got = Received::default();
        for ev in events {
            let i = ev.token().0;
            let Some(path) = self.paths.get_mut(i) else {
                continue;
            };
            // Out of the path while its datagrams are handled.
            let Some(sock) = path.sock.take() else {
                continue;
            };
            while let Ok(n @ 1..) = receiver.receive(&sock.sock, &sock.state) {
                let opened: Vec<Incoming<'_>> = receiver
                    .datagrams(n)
                    .map(|(from, d)| path.accept(i, conn, from, d))
                    .collect();
                if opened.iter().any(|x| matches!(x, Incoming::Pipe(_))) {
                    let mut g = self.shared.lock();
                    // The datagrams of one wake arrived together: the
                    // pipes ask once, after the last.
                    if !got.held {
                        g.duplex.hold_requests();
                        got.held = true;
                    }
                    for x in &opened {
                        if let Incoming::Pipe(inner) = x {
                            g.duplex.handle_datagram(now, PathId(i as u16), inner);
                        }
                    }
                }
                for x in opened {
                    match x {
                        Incoming::Joined(challenge) => joined.push((i, challenge)),
                        Incoming::Error(_, message) => {
                            got.ended = Some(ConnectionError::Refused(message))
                        }
                        Incoming::Pipe(_) | Incoming::Ignored => {}
                    }
                }
                // Fewer than a full batch: the queue was empty (the socket
                // is registered edge-triggered; see `receive_each`).
                if n < receiver.capacity() {
                    break;
                }
            }
            path.sock = Some(sock);
        }
        for (i, challenge) in joined {
            validate(&mut self.paths, i, conn, challenge);
        }
        got
    }
}

/// What a turn received.
#[derive(Default)]
struct Received {
    /// The connection's requests are held until the turn's datagrams are
    /// all in ([`Duplex::hold_requests`]).
    held: bool,
    /// The server ended the connection.
    ended: Option<ConnectionError>,
}

/// Datagrams a turn takes from the connection, to send once its lock is
/// let go, and buffers to make the next ones in.
#[derive(Default)]
struct Outgoing {
    /// Data datagrams, with their path.
    data: Vec<(usize, Vec<u8>)>,
    spare: Vec<Vec<u8>>,
}
