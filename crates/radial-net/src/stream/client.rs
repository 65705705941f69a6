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
    close_path, open_path, receive_each, route_of, sleep_for, validate, Incoming, PathSock,
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
    fn turns(&mut self) -> io::Result<ConnectionError> {
        let mut events = Events::with_capacity(256);
        let mut receiver = crate::batch::Receiver::default();
        let mut orphaned: Option<std::time::Instant> = None;
        loop {
            let wait = self.wait();
            match self.poll.poll(&mut events, Some(wait)) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
            let shared = self.shared.clone();
            let mut g = shared.lock();
            if let Some(e) = self.receive(&events, &mut receiver, &mut g.duplex) {
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
            self.transmit(&mut g.duplex, now);
            for (i, p) in self.paths.iter_mut().enumerate() {
                p.join(self.conn, i, ask::RETRY);
                p.echo(self.conn, i);
            }
            if let Some(e) = g.duplex.error() {
                return Ok(ConnectionError::Protocol(e));
            }
            if g.duplex.is_closed() {
                return Ok(ConnectionError::Closed);
            }
            if self.paths.iter().all(|p| p.heard.elapsed() > SILENCE) {
                return Ok(ConnectionError::TimedOut(SILENCE.as_secs()));
            }
            // Every handle dropped (this loop holds two: the driver's and
            // the turn's): deliver what the streams hold, then end.
            if Arc::strong_count(&self.shared) <= 2 {
                g.duplex.close();
                let since = *orphaned.get_or_insert_with(std::time::Instant::now);
                if since.elapsed() > LINGER {
                    return Ok(ConnectionError::Closed);
                }
            }
            drop(g);
            self.shared.notify();
        }
    }

    /// Sends what the connection has to send: each path's requests
    /// bundled into as few datagrams as fit, with the receipts the path has
    /// to echo, data as it is.
    fn transmit(&mut self, duplex: &mut Duplex, now: radial_core::Instant) {
        let mut d = Vec::with_capacity(2048);
        while let Some(p) = duplex.poll_transmit(now, &mut d) {
            let i = usize::from(p.0);
            let Some(path) = self.paths.get_mut(i) else {
                continue;
            };
            if d.len() > SMALL {
                path.send(i, &d);
            } else {
                path.bundle(self.conn, i, &d);
            }
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
    /// the server accepted; an error the server sent ends it.
    fn receive(
        &mut self,
        events: &Events,
        receiver: &mut crate::batch::Receiver,
        duplex: &mut Duplex,
    ) -> Option<ConnectionError> {
        let (conn, now) = (self.conn, self.clock.now());
        let mut joined = Vec::new();
        let mut ended = None;
        // The datagrams of one wake arrived together: the pipes ask once,
        // after the last.
        duplex.hold_requests();
        receive_each(
            &mut self.paths,
            events,
            receiver,
            conn,
            |i, incoming| match incoming {
                Incoming::Joined(challenge) => joined.push((i, challenge)),
                Incoming::Pipe(inner) => duplex.handle_datagram(now, PathId(i as u16), inner),
                Incoming::Error(_, message) => ended = Some(ConnectionError::Refused(message)),
                Incoming::Ignored => {}
            },
        );
        duplex.release_requests(self.clock.now());
        for (i, challenge) in joined {
            validate(&mut self.paths, i, conn, challenge);
        }
        ended
    }
}
