//! `radial serve`: serves the files below a root directory. Each pipe of a
//! client's connection is an unchanged RCP sender (R²CP §4.1.2: "no change
//! is necessary at the RCP sender") reading the file; servers with the same
//! files are replicas, so a client can migrate to one or aggregate several
//! (R²CP §4.4.2–4.4.3).
//!
//! One thread, one mio poll over the listening sockets; files are hashed on
//! a worker thread. A session starts with a GET (wire type 2) naming a path
//! and a connection number; the server answers with the file's size and
//! SHA-256 and the connection's key, and then accepts RCP pipes whose
//! connection id carries that number in its low 16 bits, each after a JOIN
//! authenticated with the key.
//!
//! What the server keeps is bounded ([`Limits`]): files are opened beneath
//! the root only ([`files`]), a pipe holds no copy of the file, and every
//! table evicts its oldest, cheapest entries first.

mod files;
mod hashing;
mod pipes;
mod tables;

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Write};
use std::net::{IpAddr, SocketAddr};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};

use mio::net::UdpSocket;
use mio::{Events, Interest, Poll, Token, Waker};
use radial_core::r2cp::R2cpConfig;
use radial_core::rcp::RcpSender;
use radial_core::wire::rcp::{RcpFlags, RcpHeader};
use radial_core::{Duration, Instant, PathId};

pub use files::{FileId, OpenError, Root};
pub use tables::Limits;

use crate::clock::Clock;
use crate::config::rcp_config;
use crate::guard::Nonces;
use crate::session::{is_session, tag_ok, ErrorCode, Message, MIN_GET};
use hashing::{Hashes, Lookup};
use pipes::{PathAuth, Pipe, Wait};
use tables::{Fifo, PerAddress};

/// How long a pipe may stay silent before the server forgets it.
const PIPE_IDLE: Duration = Duration::from_secs(60);
/// How long a session may go without a live pipe, and a joined path
/// without one, before they are forgotten.
const SESSION_IDLE: Duration = Duration::from_secs(30);
/// Longest a poll waits, so idle state is noticed.
const MAX_WAIT: std::time::Duration = std::time::Duration::from_millis(500);
/// How often idle state is swept.
const SWEEP: Duration = Duration::from_millis(250);
/// The poll token of the hashing worker's waker.
const WAKER: Token = Token(usize::MAX);

/// What the server counts: totals since it started, and what it holds now.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ServerStats {
    /// Sessions opened (GETs answered with an offer).
    pub sessions: u64,
    /// Pipes opened.
    pub pipes: u64,
    /// Transfers completed (the client asked to close after the last byte).
    pub completed: u64,
    /// Datagrams dropped as malformed.
    pub malformed: u64,
    /// Datagrams dropped for no session, path or pipe.
    pub dropped: u64,
    /// Joins refused (a wrong token, a replayed nonce, too many paths) and
    /// pipes refused for want of a join; none of them created any state.
    pub rejected: u64,
    /// GETs and pipes refused because a table was at its cap.
    pub refused_full: u64,
    /// Entries evicted to make room (oldest of their class).
    pub evicted: u64,
    /// Times a pipe's sending waited for its address to be validated (the
    /// three-times limit).
    pub amplification_waits: u64,
    /// Times a pipe's sending waited for its receiver to prove receipt (the
    /// receipt guard).
    pub receipt_waits: u64,
    /// Bytes receivers proved they received (echoed nonces) on live pipes.
    pub proven_bytes: u64,
    /// Payload bytes sent.
    pub bytes_sent: u64,
    /// Payload bytes sent for the first time on their pipe: above the
    /// highest byte it sent before.
    pub first_bytes_sent: u64,
    /// Pipes broken because their file could not be read.
    pub file_errors: u64,
    /// Sessions held now.
    pub live_sessions: u64,
    /// Of those, sessions with no pipe yet.
    pub half_open: u64,
    /// Joined paths held now.
    pub live_paths: u64,
    /// Pipes held now.
    pub live_pipes: u64,
    /// Data bytes the live pipes have queued for sending.
    pub queued_bytes: u64,
}

/// How the server runs.
#[derive(Default)]
pub struct ServerOptions {
    /// Follow symbolic links that lead out of the root.
    pub follow_symlinks: bool,
    /// Caps on the server's state.
    pub limits: Limits,
    /// One line per transfer and per file hashed.
    pub log: Option<Box<dyn Write + Send>>,
}

/// A file a session serves.
struct Offer {
    /// The path asked for, for the log.
    name: String,
    file: Arc<File>,
    size: u64,
    sha256: [u8; 32],
}

/// A client's connection: the file and the secret its pipes join with.
struct Session {
    offer: Arc<Offer>,
    key: [u8; 16],
    /// Who asked.
    client: SocketAddr,
    /// Join nonces accepted, and from where: the same nonce from anywhere
    /// else is a replay. At most [`Limits::paths_per_session`].
    joins: Vec<([u8; 8], (usize, SocketAddr, u16))>,
    /// Live pipes; none yet (`opened == 0`) makes the session half-open.
    pipes: u32,
    opened: u32,
    started: Instant,
    last_active: Instant,
    completed: bool,
}

/// A (socket, peer, pipe connection id): one path of one connection.
type PathKey = (usize, SocketAddr, u32);

/// The file server.
pub struct Server {
    root: Root,
    opts: ServerOptions,
    poll: Poll,
    sockets: Vec<UdpSocket>,
    clock: Clock,
    sessions: HashMap<u16, Session>,
    half_open: Fifo<u16>,
    half_open_count: usize,
    half_open_by_ip: PerAddress,
    auth: HashMap<PathKey, PathAuth>,
    unvalidated: Fifo<PathKey>,
    unvalidated_count: usize,
    pipes: HashMap<PathKey, Pipe>,
    pipes_by_ip: PerAddress,
    /// Open files by identity, shared by the sessions serving them.
    files: HashMap<FileId, Weak<File>>,
    hashes: Hashes,
    stats: ServerStats,
    shared: Arc<Mutex<ServerStats>>,
    nonces: Nonces,
    last_sweep: Instant,
    buf: Vec<u8>,
    dgram: Vec<u8>,
    hdr: Vec<u8>,
}

impl Server {
    /// Binds every `listen` address and serves files below `root`.
    pub fn bind(root: &Path, listen: &[SocketAddr]) -> io::Result<Server> {
        Server::with_options(root, listen, ServerOptions::default())
    }

    /// As [`Server::bind`], with options.
    pub fn with_options(
        root: &Path,
        listen: &[SocketAddr],
        opts: ServerOptions,
    ) -> io::Result<Server> {
        let root = Root::open(root, opts.follow_symlinks)?;
        let poll = Poll::new()?;
        let mut sockets = Vec::new();
        for (i, a) in listen.iter().enumerate() {
            let mut s = UdpSocket::bind(*a)?;
            poll.registry()
                .register(&mut s, Token(i), Interest::READABLE)?;
            sockets.push(s);
        }
        let waker = Arc::new(Waker::new(poll.registry(), WAKER)?);
        let hashes = Hashes::start(move || {
            let _ = waker.wake();
        })?;
        Ok(Server {
            root,
            opts,
            poll,
            sockets,
            clock: Clock::new(),
            sessions: HashMap::new(),
            half_open: Fifo::default(),
            half_open_count: 0,
            half_open_by_ip: PerAddress::default(),
            auth: HashMap::new(),
            unvalidated: Fifo::default(),
            unvalidated_count: 0,
            pipes: HashMap::new(),
            pipes_by_ip: PerAddress::default(),
            files: HashMap::new(),
            hashes,
            stats: ServerStats::default(),
            shared: Arc::new(Mutex::new(ServerStats::default())),
            nonces: Nonces::default(),
            last_sweep: Instant::ZERO,
            buf: Vec::with_capacity(2048),
            dgram: Vec::with_capacity(2048),
            hdr: Vec::with_capacity(128),
        })
    }

    /// The bound addresses (with the ports the system chose for port 0).
    pub fn local_addrs(&self) -> Vec<SocketAddr> {
        self.sockets
            .iter()
            .filter_map(|s| s.local_addr().ok())
            .collect()
    }

    /// The served directory.
    pub fn root(&self) -> &Path {
        self.root.path()
    }

    /// Counters so far.
    pub fn stats(&self) -> ServerStats {
        let mut s = self.stats;
        s.proven_bytes = self.pipes.values().map(|p| p.guard.proven).sum();
        s.queued_bytes = self.pipes.values().map(|p| p.sender.queued_bytes()).sum();
        s.live_sessions = self.sessions.len() as u64;
        s.half_open = self.half_open_count as u64;
        s.live_paths = self.auth.len() as u64;
        s.live_pipes = self.pipes.len() as u64;
        s
    }

    /// The counters as of the last turn of the event loop, readable from
    /// another thread while [`Server::run`] runs.
    pub fn stats_handle(&self) -> Arc<Mutex<ServerStats>> {
        self.shared.clone()
    }

    /// Serves until `stop` is set.
    pub fn run(&mut self, stop: &Arc<AtomicBool>) -> io::Result<()> {
        let mut events = Events::with_capacity(256);
        while !stop.load(Ordering::Relaxed) {
            let next = self
                .pipes
                .values()
                .filter_map(|p| p.sender.next_timeout())
                .min();
            let mut wait = next.map_or(MAX_WAIT, |t| self.clock.until(t).min(MAX_WAIT));
            let wall = std::time::Instant::now();
            for p in self.pipes.values() {
                match p.wait {
                    Wait::Socket => wait = wait.min(std::time::Duration::from_millis(1)),
                    Wait::Until(t) => wait = wait.min(t.saturating_duration_since(wall)),
                    Wait::No | Wait::Peer => {}
                }
            }
            match self.poll.poll(&mut events, Some(wait)) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
            for ev in &events {
                if ev.token() == WAKER {
                    self.on_hashed();
                } else {
                    self.drain_socket(ev.token().0);
                }
            }
            self.on_timers();
            self.service_all();
            let now = self.clock.now();
            if now - self.last_sweep >= SWEEP {
                self.last_sweep = now;
                self.forget_idle(now);
                if let Ok(mut s) = self.shared.lock() {
                    *s = self.stats();
                }
            }
        }
        if let Ok(mut s) = self.shared.lock() {
            *s = self.stats();
        }
        Ok(())
    }

    fn log(&mut self, line: std::fmt::Arguments<'_>) {
        if let Some(w) = self.opts.log.as_mut() {
            let _ = writeln!(w, "{line}");
            let _ = w.flush();
        }
    }

    fn on_hashed(&mut self) {
        for (id, r) in self.hashes.collect() {
            match r {
                Ok(_) => self.log(format_args!(
                    "hashed inode {} ({} bytes): ready to serve",
                    id.ino, id.size
                )),
                Err(e) => self.log(format_args!("hashing inode {} failed: {e}", id.ino)),
            }
        }
    }

    fn drain_socket(&mut self, s: usize) {
        let mut data = [0u8; 65536];
        loop {
            let (n, peer) = match self.sockets[s].recv_from(&mut data) {
                Ok(x) => x,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(_) => return,
            };
            self.on_datagram(s, peer, &data[..n]);
        }
    }

    fn on_datagram(&mut self, s: usize, peer: SocketAddr, d: &[u8]) {
        let now = self.clock.now();
        if is_session(d) {
            match Message::parse(d) {
                Ok(Message::Get { conn, path }) if d.len() >= MIN_GET => {
                    self.on_get(s, peer, conn, &path, now);
                }
                Ok(Message::Get { .. }) => self.stats.rejected += 1,
                Ok(Message::Join {
                    conn,
                    path,
                    nonce,
                    mac,
                }) => self.on_join(s, peer, (conn, path), nonce, &mac, d.len(), now),
                Ok(Message::Validate {
                    conn,
                    path,
                    echo,
                    mac,
                }) => self.on_validate(s, peer, (conn, path), echo, &mac, d.len()),
                Ok(Message::Echo { conn, path, nonces }) => {
                    let key = (s, peer, pipe_id(conn, path));
                    match (self.auth.get_mut(&key), self.pipes.get_mut(&key)) {
                        (Some(auth), Some(p)) => {
                            auth.rx += d.len() as u64;
                            let wall = std::time::Instant::now();
                            for n in nonces {
                                p.guard.echoed(n, wall);
                            }
                            p.wait = Wait::No;
                        }
                        _ => self.stats.rejected += 1,
                    }
                }
                Ok(_) => self.stats.dropped += 1,
                Err(_) => self.stats.malformed += 1,
            }
            return;
        }
        let Ok((h, _)) = RcpHeader::parse(d) else {
            self.stats.malformed += 1;
            return;
        };
        let key = (s, peer, h.conn_id);
        // Only a joined path may speak for a pipe; nothing else creates state.
        let Some(auth) = self.auth.get_mut(&key) else {
            self.stats.rejected += 1;
            return;
        };
        auth.rx += d.len() as u64;
        if !self.pipes.contains_key(&key) && !self.open_pipe(key, &h, now) {
            return;
        }
        let p = self.pipes.get_mut(&key).expect("present or opened");
        p.last_heard = now;
        p.wait = Wait::No;
        p.sender.on_datagram(now, d);
        if let Some(session) = self.sessions.get_mut(&(h.conn_id as u16)) {
            session.last_active = now;
        }
    }

    /// A SYN on a joined path opens its pipe, within the caps.
    fn open_pipe(&mut self, key: PathKey, h: &RcpHeader, now: Instant) -> bool {
        let opening = h.flags.contains(RcpFlags::SYN) && !h.flags.contains(RcpFlags::ACK);
        let conn = h.conn_id as u16;
        let Some(session) = self.sessions.get_mut(&conn) else {
            self.stats.dropped += 1;
            return false;
        };
        if !opening {
            self.stats.dropped += 1;
            return false;
        }
        let ip = key.1.ip();
        let limits = self.opts.limits;
        if self.pipes.len() >= limits.pipes || self.pipes_by_ip.get(ip) >= limits.pipes_per_address
        {
            self.stats.refused_full += 1;
            return false;
        }
        if session.opened == 0 {
            self.half_open_count -= 1;
            self.half_open_by_ip.remove(session.client.ip());
        }
        session.pipes += 1;
        session.opened += 1;
        session.last_active = now;
        let offer = session.offer.clone();
        self.stats.pipes += 1;
        self.pipes_by_ip.add(ip);
        let sender = RcpSender::stored(rcp_config(h.conn_id), PathId(0), offer.size);
        self.pipes.insert(
            key,
            Pipe::new(key.0, key.1, sender, offer.file.clone(), now),
        );
        true
    }

    /// A JOIN: the token must be the connection key's tag of the nonce, and
    /// the nonce new or seen from this very path before (a retransmitted
    /// join). Then the path may open its pipe, and must echo a challenge.
    #[allow(clippy::too_many_arguments)]
    fn on_join(
        &mut self,
        s: usize,
        peer: SocketAddr,
        (conn, path): (u16, u16),
        nonce: [u8; 8],
        mac: &[u8; 16],
        len: usize,
        now: Instant,
    ) {
        let limits = self.opts.limits;
        let Some(session) = self.sessions.get_mut(&conn) else {
            self.stats.rejected += 1;
            return;
        };
        if !tag_ok(&session.key, b"join", conn, path, &nonce, mac) {
            self.stats.rejected += 1;
            return;
        }
        let here = (s, peer, path);
        match session.joins.iter().find(|(n, _)| *n == nonce) {
            Some((_, seen)) if *seen != here => {
                self.stats.rejected += 1;
                return;
            }
            Some(_) => {}
            None if session.joins.len() >= limits.paths_per_session => {
                self.stats.rejected += 1;
                return;
            }
            None => session.joins.push((nonce, here)),
        }
        session.last_active = now;
        let key = (s, peer, pipe_id(conn, path));
        if !self.auth.contains_key(&key) {
            if self.unvalidated_count >= limits.unvalidated_paths {
                let auth = &self.auth;
                if let Some(old) = self
                    .unvalidated
                    .pop_oldest(|k| auth.get(k).is_some_and(|a| !a.validated))
                {
                    self.forget_path(old);
                    self.stats.evicted += 1;
                }
            }
            self.auth.insert(
                key,
                PathAuth {
                    challenge: random(),
                    validated: false,
                    rx: 0,
                    tx: 0,
                    joined: now,
                },
            );
            self.unvalidated.push(key);
            self.unvalidated_count += 1;
        }
        let auth = self.auth.get_mut(&key).expect("inserted");
        auth.rx += len as u64;
        let reply = Message::Joined {
            conn,
            path,
            challenge: auth.challenge,
        };
        self.buf.clear();
        reply.emit(&mut self.buf);
        auth.tx += self.buf.len() as u64;
        let _ = self.sockets[s].send_to(&self.buf, peer);
    }

    /// A VALIDATE: the challenge of this path echoed, under the key.
    fn on_validate(
        &mut self,
        s: usize,
        peer: SocketAddr,
        (conn, path): (u16, u16),
        echo: [u8; 8],
        mac: &[u8; 16],
        len: usize,
    ) {
        let key = (s, peer, pipe_id(conn, path));
        let (Some(session), Some(auth)) = (self.sessions.get(&conn), self.auth.get_mut(&key))
        else {
            self.stats.rejected += 1;
            return;
        };
        auth.rx += len as u64;
        if echo == auth.challenge && tag_ok(&session.key, b"valid", conn, path, &echo, mac) {
            if !auth.validated {
                auth.validated = true;
                self.unvalidated_count -= 1;
            }
            if let Some(p) = self.pipes.get_mut(&key) {
                p.wait = Wait::No;
            }
        } else {
            self.stats.rejected += 1;
        }
    }

    /// A GET: open the path below the root, look up its hash (computed
    /// aside the first time), admit a session within the caps, answer.
    fn on_get(&mut self, s: usize, peer: SocketAddr, conn: u16, path: &str, now: Instant) {
        let reply = self.answer_get(peer, conn, path, now);
        self.buf.clear();
        reply.emit(&mut self.buf);
        let _ = self.sockets[s].send_to(&self.buf, peer);
    }

    fn answer_get(&mut self, peer: SocketAddr, conn: u16, path: &str, now: Instant) -> Message {
        let error = |code, message: String| Message::Error {
            conn,
            code,
            message,
        };
        if let Some(o) = self.sessions.get(&conn) {
            // A GET sent again, or through another path to this server.
            if o.offer.name == path {
                return Message::Offer {
                    conn,
                    size: o.offer.size,
                    sha256: o.offer.sha256,
                    key: o.key,
                };
            }
            return error(ErrorCode::Busy, "connection number in use".into());
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
        let sha256 = match self.hashes.lookup(id, &file) {
            Lookup::Ready(h) => h,
            Lookup::Pending => {
                return error(ErrorCode::Preparing, format!("{path}: preparing (hashing)"))
            }
            Lookup::Busy => {
                return error(
                    ErrorCode::Full,
                    "busy hashing other files: ask again later".into(),
                )
            }
        };
        if !self.admit_half_open(peer.ip()) {
            self.stats.refused_full += 1;
            return error(
                ErrorCode::Full,
                "too many pending sessions from this address: ask again later".into(),
            );
        }
        self.stats.sessions += 1;
        let key = random();
        self.sessions.insert(
            conn,
            Session {
                offer: Arc::new(Offer {
                    name: path.to_string(),
                    file,
                    size: id.size,
                    sha256,
                }),
                key,
                client: peer,
                joins: Vec::new(),
                pipes: 0,
                opened: 0,
                started: now,
                last_active: now,
                completed: false,
            },
        );
        self.half_open.push(conn);
        self.half_open_count += 1;
        self.half_open_by_ip.add(peer.ip());
        Message::Offer {
            conn,
            size: id.size,
            sha256,
            key,
        }
    }

    /// Makes room for one more half-open session from `ip`: refused when
    /// that address holds its share; otherwise, at the global cap, the
    /// oldest half-open session gives way.
    fn admit_half_open(&mut self, ip: IpAddr) -> bool {
        let limits = self.opts.limits;
        if self.half_open_by_ip.get(ip) >= limits.half_open_per_address {
            return false;
        }
        if self.half_open_count >= limits.half_open {
            let sessions = &self.sessions;
            match self
                .half_open
                .pop_oldest(|c| sessions.get(c).is_some_and(|s| s.opened == 0))
            {
                Some(old) => {
                    self.forget_session(old, "evicted");
                    self.stats.evicted += 1;
                }
                None => return false,
            }
        }
        true
    }

    fn on_timers(&mut self) {
        let now = self.clock.now();
        for p in self.pipes.values_mut() {
            if p.sender.next_timeout().is_some_and(|t| t <= now) {
                p.sender.on_timeout(now);
            }
        }
    }

    /// Sends what every pipe has to send.
    fn service_all(&mut self) {
        let now = self.clock.now();
        let wall = std::time::Instant::now();
        let mut broken = Vec::new();
        let mut finished = Vec::new();
        for (k, p) in &mut self.pipes {
            if !p.wait.over(wall) {
                continue;
            }
            let Some(auth) = self.auth.get_mut(k) else {
                continue;
            };
            let mut out = pipes::Out {
                sock: &self.sockets[p.socket],
                auth,
                nonces: &mut self.nonces,
                stats: &mut self.stats,
                wall,
            };
            if p.service(now, &mut out, &mut self.dgram, &mut self.hdr)
                .is_err()
            {
                broken.push(*k);
            }
            if p.finished {
                finished.push(*k);
            }
        }
        for k in broken {
            self.stats.file_errors += 1;
            self.forget_pipe(k);
        }
        for k in finished {
            let conn = k.2 as u16;
            if let Some(s) = self.sessions.get_mut(&conn) {
                if !s.completed {
                    s.completed = true;
                    self.stats.completed += 1;
                }
            }
            self.forget_pipe(k);
            if self.sessions.get(&conn).is_some_and(|s| s.pipes == 0) {
                self.forget_session(conn, "complete");
            }
        }
    }

    fn forget_pipe(&mut self, k: PathKey) {
        if self.pipes.remove(&k).is_some() {
            self.pipes_by_ip.remove(k.1.ip());
            if let Some(s) = self.sessions.get_mut(&(k.2 as u16)) {
                s.pipes -= 1;
            }
        }
        self.forget_path(k);
    }

    fn forget_path(&mut self, k: PathKey) {
        if let Some(a) = self.auth.remove(&k) {
            if !a.validated {
                self.unvalidated_count -= 1;
            }
        }
    }

    /// Forgets session `conn`, its paths and pipes, and logs the transfer.
    fn forget_session(&mut self, conn: u16, outcome: &str) {
        let keys: Vec<PathKey> = self.sessions.get(&conn).map_or_else(Vec::new, |s| {
            s.joins
                .iter()
                .map(|(_, (sock, peer, path))| (*sock, *peer, pipe_id(conn, *path)))
                .collect()
        });
        for k in keys {
            self.forget_pipe(k);
        }
        let Some(s) = self.sessions.remove(&conn) else {
            return;
        };
        if s.opened == 0 {
            self.half_open_count -= 1;
            self.half_open_by_ip.remove(s.client.ip());
            return;
        }
        let secs = (self.clock.now() - s.started).as_secs_f64();
        self.log(format_args!(
            "transfer client={} conn={} file={:?} size={} pipes={} seconds={:.3} outcome={}",
            s.client, conn, s.offer.name, s.offer.size, s.opened, secs, outcome
        ));
    }

    /// Forgets silent pipes, sessions without a live pipe, paths without
    /// a session, and files no session serves.
    fn forget_idle(&mut self, now: Instant) {
        let idle: Vec<PathKey> = self
            .pipes
            .iter()
            .filter(|(_, p)| now - p.last_heard >= PIPE_IDLE)
            .map(|(k, _)| *k)
            .collect();
        for k in idle {
            self.forget_pipe(k);
        }
        let stale: Vec<u16> = self
            .sessions
            .iter()
            .filter(|(_, s)| s.pipes == 0 && now - s.last_active >= SESSION_IDLE)
            .map(|(c, _)| *c)
            .collect();
        for c in stale {
            self.forget_session(c, "idle");
        }
        let pipes = &self.pipes;
        let orphans: Vec<PathKey> = self
            .auth
            .iter()
            .filter(|(k, a)| !pipes.contains_key(k) && now - a.joined >= SESSION_IDLE)
            .map(|(k, _)| *k)
            .collect();
        for k in orphans {
            self.forget_path(k);
        }
        let (sessions, auth) = (&self.sessions, &self.auth);
        self.half_open.trim(self.half_open_count, |c| {
            sessions.get(c).is_some_and(|s| s.opened == 0)
        });
        self.unvalidated.trim(self.unvalidated_count, |k| {
            auth.get(k).is_some_and(|a| !a.validated)
        });
        self.files.retain(|_, f| f.strong_count() > 0);
    }
}

/// The RCP connection id of path `path` of connection `conn`, as the
/// client's R²CP engine numbers its pipes.
fn pipe_id(conn: u16, path: u16) -> u32 {
    R2cpConfig::pipe_conn_id(u32::from(conn), PathId(path))
}

/// Random bytes from the system's generator.
fn random<const N: usize>() -> [u8; N] {
    let mut b = [0u8; N];
    getrandom::fill(&mut b).expect("the system's random generator");
    b
}

/// Size and SHA-256 of a file.
pub fn hash_file(path: &Path) -> io::Result<(u64, [u8; 32])> {
    use sha2::{Digest, Sha256};
    use std::io::Read;
    let mut f = File::open(path)?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    let mut size = 0u64;
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
        size += n as u64;
    }
    Ok((size, h.finalize().into()))
}
