//! `radial serve`: serves the files below a root directory. Each pipe of a
//! client's connection is an unchanged RCP sender (R²CP §4.1.2: "no change
//! is necessary at the RCP sender") reading the file; servers with the same
//! files are replicas, so a client can migrate to one or aggregate several
//! (R²CP §4.4.2–4.4.3).
//!
//! One thread, one mio poll over the listening sockets; files are hashed on
//! a worker thread. A client first runs a handshake that authenticates the
//! server and keys the connection ([`crate::crypto`]); every later
//! datagram is sealed. In the sealed channel it asks for a file by path
//! (GET, answered with the file's size and SHA-256), joins each path it
//! will use and proves the path's address receives, and opens one RCP pipe
//! per path.
//!
//! What the server keeps is bounded ([`Limits`]): files are opened beneath
//! the root only (`files`), a pipe holds no copy of the file, and every
//! table evicts its oldest, cheapest entries first.

mod admit;
mod conn;
mod files;
mod hashing;
mod pipes;
mod requests;
mod streams;
mod tables;

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Write};
use std::net::SocketAddr;
use std::path::Path as FsPath;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};

use mio::net::UdpSocket;
use mio::{Events, Interest, Poll, Token, Waker};
use radial_core::r2cp::R2cpConfig;
use radial_core::{Duration, Instant, PathId};

pub use admit::PIPE_IDLE_WHEN_FULL;
pub use files::{FileId, OpenError, Root};
pub use tables::{Limits, Prefix, PREFIX_V4, PREFIX_V6};

use crate::clock::Clock;
use crate::crypto::{self, Identity, HEADER_LEN};
use crate::guard::Nonces;
use crate::session;
use conn::Conn;
use hashing::Hashes;
use pipes::Wait;
use tables::{PerAddress, Shares};

/// How long a pipe may stay silent before the server forgets it.
const PIPE_IDLE: Duration = Duration::from_secs(60);
/// How long a connection may go without a live pipe, and a path without
/// one, before they are forgotten.
const SESSION_IDLE: Duration = Duration::from_secs(30);
/// The outcome logged for a connection forgotten for silence.
const IDLE: &str = "idle";
/// How often idle state is swept and the counters' snapshot taken.
const SWEEP: Duration = Duration::from_millis(250);
/// Longest a poll waits: a sweep interval, so idle state is noticed and the
/// snapshot stays fresh on an idle server.
const MAX_WAIT: std::time::Duration = std::time::Duration::from_millis(250);
/// Past this share (1/16) of the half-open cap, HELLOs must bring a retry
/// token.
const RETRY_AT: usize = 16;
/// The poll token of the loop's waker: the hashing worker's, and stream
/// connections' applications' (a poll has one waker).
const WAKER: Token = Token(usize::MAX);

/// What the server counts: totals since it started, and what it holds now.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ServerStats {
    /// Handshakes answered.
    pub handshakes: u64,
    /// HELLOs answered with a RETRY (the server under load asked the
    /// address to prove itself before any key agreement).
    pub retries: u64,
    /// Sessions opened (GETs answered with an offer).
    pub sessions: u64,
    /// Pipes opened.
    pub pipes: u64,
    /// Transfers completed (the client asked to close after the last byte).
    pub completed: u64,
    /// Datagrams dropped as malformed.
    pub malformed: u64,
    /// Sealed datagrams that did not open: forged or corrupted.
    pub forged: u64,
    /// Authentic datagrams seen before (replays).
    pub replayed: u64,
    /// Datagrams dropped for no connection, path or pipe.
    pub dropped: u64,
    /// Requests refused (a path from an address other than its own, too
    /// many paths, a pipe without its join, an insecure handshake the
    /// server does not allow); none of them created any state.
    pub rejected: u64,
    /// Handshakes, GETs and pipes refused because a table was at its cap.
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
    /// Datagrams sent with payload (their sizes follow the segments the
    /// receivers ask in).
    pub data_datagrams: u64,
    /// Payload bytes sent for the first time on their pipe: above the
    /// highest byte it sent before.
    pub first_bytes_sent: u64,
    /// Pipes broken because their file could not be read.
    pub file_errors: u64,
    /// Connections held now.
    pub live_connections: u64,
    /// Of those, connections whose client has not yet shown it holds the
    /// keys.
    pub half_open: u64,
    /// Paths held now.
    pub live_paths: u64,
    /// Pipes held now.
    pub live_pipes: u64,
    /// Data bytes the live pipes have queued for sending.
    pub queued_bytes: u64,
    /// Datagrams the live pipes have queued for sending: data ranges and
    /// control datagrams.
    pub queued_datagrams: u64,
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
    /// The server's key pair (a fresh one when `None`).
    pub identity: Option<Identity>,
    /// Let clients that ask for it run without encryption (`--insecure`).
    pub allow_insecure: bool,
    /// Take stream connections ([`crate::stream`]): each one a client
    /// opens is sent here. `None`: refuse them.
    pub streams: Option<std::sync::mpsc::Sender<crate::stream::Connection>>,
    /// The client keys that may open stream connections; `None`: any
    /// client may.
    pub stream_clients: Option<Vec<[u8; 32]>>,
}

/// The file server.
pub struct Server {
    root: Root,
    opts: ServerOptions,
    identity: Identity,
    poll: Poll,
    sockets: Vec<UdpSocket>,
    /// What the kernel offers on each socket (GSO, GRO).
    states: Vec<quinn_udp::UdpSocketState>,
    batch: crate::batch::Batch,
    ahead: pipes::ReadAhead,
    /// Receive buffers (taken out while their datagrams are handled).
    receiver: Option<crate::batch::Receiver>,
    clock: Clock,
    conns: HashMap<u64, Conn>,
    /// Handshakes by (HELLO source, tag), so a repeated HELLO gets the same
    /// reply.
    hellos: HashMap<(SocketAddr, [u8; 8]), u64>,
    /// Every connection, by the network of its HELLO.
    conns_by: Shares<u64>,
    /// Connections whose client has not yet shown it holds the keys.
    half_open: Shares<u64>,
    /// Of those, by HELLO address: the ones whose HELLO carried no retry
    /// token, and the ones whose HELLO did.
    unproven_by_ip: PerAddress,
    proven_by_ip: PerAddress,
    /// Joined paths whose address is not yet validated.
    unvalidated: Shares<(u64, u16)>,
    /// Live pipes, by the network of their receiver, and by its address.
    pipes: Shares<(u64, u16)>,
    pipes_by_ip: PerAddress,
    /// When idle and unanswered pipes were last reclaimed.
    last_reclaim: Instant,
    /// Open files by identity, shared by the sessions serving them.
    files: HashMap<FileId, Weak<File>>,
    hashes: Hashes,
    retry_key: crypto::RetryKey,
    stats: ServerStats,
    shared: Arc<Mutex<ServerStats>>,
    nonces: Nonces,
    /// Wakes the loop when an application used a stream connection.
    stream_waker: Arc<Waker>,
    last_sweep: Instant,
    dgram: Vec<u8>,
    hdr: Vec<u8>,
}

impl Server {
    /// Binds every `listen` address and serves files below `root`.
    pub fn bind(root: &FsPath, listen: &[SocketAddr]) -> io::Result<Server> {
        Server::with_options(root, listen, ServerOptions::default())
    }

    /// As [`Server::bind`], with options.
    pub fn with_options(
        root: &FsPath,
        listen: &[SocketAddr],
        mut opts: ServerOptions,
    ) -> io::Result<Server> {
        let root = Root::open(root, opts.follow_symlinks)?;
        let poll = Poll::new()?;
        let mut sockets = Vec::new();
        let mut states = Vec::new();
        for (i, a) in listen.iter().enumerate() {
            let mut s = UdpSocket::bind(*a)?;
            poll.registry()
                .register(&mut s, Token(i), Interest::READABLE)?;
            states.push(crate::batch::state(&s)?);
            sockets.push(s);
        }
        let waker = Arc::new(Waker::new(poll.registry(), WAKER)?);
        let stream_waker = waker.clone();
        let hashes = Hashes::start(move || {
            let _ = waker.wake();
        })?;
        let identity = opts.identity.take().unwrap_or_else(Identity::generate);
        Ok(Server {
            root,
            opts,
            identity,
            poll,
            sockets,
            states,
            batch: crate::batch::Batch::default(),
            ahead: pipes::ReadAhead::default(),
            receiver: Some(crate::batch::Receiver::default()),
            clock: Clock::new(),
            conns: HashMap::new(),
            hellos: HashMap::new(),
            conns_by: Shares::default(),
            half_open: Shares::default(),
            unproven_by_ip: PerAddress::default(),
            proven_by_ip: PerAddress::default(),
            unvalidated: Shares::default(),
            pipes: Shares::default(),
            pipes_by_ip: PerAddress::default(),
            last_reclaim: Instant::ZERO,
            files: HashMap::new(),
            hashes,
            retry_key: crypto::RetryKey::default(),
            stats: ServerStats::default(),
            shared: Arc::new(Mutex::new(ServerStats::default())),
            nonces: Nonces::default(),
            stream_waker,
            last_sweep: Instant::ZERO,
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
    pub fn root(&self) -> &FsPath {
        self.root.path()
    }

    /// The public key clients check.
    pub fn public_key(&self) -> [u8; 32] {
        self.identity.public()
    }

    fn live_pipes(&self) -> impl Iterator<Item = &pipes::Pipe> {
        self.conns
            .values()
            .flat_map(|c| c.paths.values())
            .filter_map(|p| p.pipe.as_ref())
    }

    /// Counters so far.
    pub fn stats(&self) -> ServerStats {
        let mut s = self.stats;
        s.proven_bytes = self.live_pipes().map(|p| p.guard.proven).sum();
        s.queued_bytes = self.live_pipes().map(|p| p.sender.queued_bytes()).sum();
        s.queued_datagrams = self
            .live_pipes()
            .map(|p| p.sender.queued_entries() as u64)
            .sum();
        s.live_connections = self.conns.len() as u64;
        s.half_open = self.half_open.len() as u64;
        s.live_paths = self.conns.values().map(|c| c.paths.len() as u64).sum();
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
            let wait = self.next_wait();
            match self.poll.poll(&mut events, Some(wait)) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
            for ev in &events {
                if ev.token() == WAKER {
                    // Files hashed; what stream applications changed is
                    // sent below.
                    self.on_hashed();
                } else {
                    self.drain_socket(ev.token().0);
                }
            }
            self.after_input();
        }
        if let Ok(mut s) = self.shared.lock() {
            *s = self.stats();
        }
        Ok(())
    }

    /// Handles `d` as if it had arrived on the first listening socket from
    /// `peer`, then fires due timers and sends what is due, as one turn of
    /// [`Server::run`] would: for fuzzing and for tests that drive the
    /// server without its event loop.
    #[doc(hidden)]
    pub fn handle_datagram(&mut self, peer: SocketAddr, d: &mut [u8]) {
        self.on_datagram(0, peer, d);
        self.on_hashed();
        self.after_input();
    }

    /// What follows the datagrams of one turn: due timers, sending, and
    /// (four times a second) the sweep of idle state and the counters'
    /// snapshot.
    fn after_input(&mut self) {
        self.on_timers();
        self.service_all();
        self.service_streams();
        let now = self.clock.now();
        if now - self.last_sweep >= SWEEP {
            self.last_sweep = now;
            self.check_files();
            self.forget_idle(now);
            if let Ok(mut s) = self.shared.lock() {
                *s = self.stats();
            }
        }
    }

    /// How long the poll may sleep: until the next sender timer, a pipe
    /// whose wait ends, or shortly when a socket was full.
    fn next_wait(&self) -> std::time::Duration {
        let mut wait = MAX_WAIT;
        let wall = std::time::Instant::now();
        for p in self.live_pipes() {
            if let Some(t) = p.sender.next_timeout() {
                wait = wait.min(self.clock.until(t));
            }
            match p.wait {
                Wait::Socket => wait = wait.min(std::time::Duration::from_millis(1)),
                Wait::Until(t) => wait = wait.min(t.saturating_duration_since(wall)),
                Wait::No | Wait::Peer => {}
            }
        }
        if let Some(t) = self.streams_deadline() {
            wait = wait.min(self.clock.until(t));
        }
        for s in self.conns.values().filter_map(|c| c.streams.as_ref()) {
            match s.wait() {
                Wait::Socket => wait = wait.min(std::time::Duration::from_millis(1)),
                Wait::Until(t) => wait = wait.min(t.saturating_duration_since(wall)),
                Wait::No | Wait::Peer => {}
            }
        }
        wait
    }

    fn log(&mut self, line: std::fmt::Arguments<'_>) {
        if let Some(w) = self.opts.log.as_mut() {
            let _ = writeln!(w, "{line}");
            let _ = w.flush();
        }
    }

    fn on_hashed(&mut self) {
        let files = &self.files;
        let serving = |id: &FileId| files.get(id).is_some_and(|f| f.strong_count() > 0);
        for (id, r) in self.hashes.collect(serving) {
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
        let mut receiver = self.receiver.take().unwrap_or_default();
        while let Ok(n @ 1..) = receiver.receive(&self.sockets[s], &self.states[s]) {
            receiver.each(n, |from, d| self.on_datagram(s, from, d));
        }
        self.receiver = Some(receiver);
    }

    fn on_datagram(&mut self, s: usize, peer: SocketAddr, d: &mut [u8]) {
        let now = self.clock.now();
        if let Some(tag) = crypto::hello_tag(d) {
            self.on_hello(s, peer, tag, d, now);
            return;
        }
        let Some(cid) = crypto::sealed_cid(d) else {
            self.stats.malformed += 1;
            return;
        };
        let Some(c) = self.conns.get_mut(&cid) else {
            self.stats.dropped += 1;
            return;
        };
        let (path, pn, plain) = match c.keys.open(d) {
            Ok(x) => x,
            Err(_) => {
                self.stats.forged += 1;
                return;
            }
        };
        // Authentic: the client holds the keys.
        c.last_active = now;
        let len = HEADER_LEN + plain.len() + c.keys.tag_len();
        if c.reply.take().is_some() {
            let (hello, proven) = (c.hello.0, c.proven);
            self.half_open_done(hello, proven);
        }
        self.on_sealed(s, peer, cid, (path, pn), plain, len, now);
    }

    fn on_timers(&mut self) {
        let now = self.clock.now();
        for c in self.conns.values_mut() {
            for p in c.paths.values_mut() {
                if let Some(pipe) = p.pipe.as_mut() {
                    if pipe.sender.next_timeout().is_some_and(|t| t <= now) {
                        pipe.sender.on_timeout(now);
                    }
                }
            }
        }
    }

    /// Sends what every pipe has to send.
    fn service_all(&mut self) {
        let now = self.clock.now();
        let wall = std::time::Instant::now();
        let mut broken = Vec::new();
        let mut finished = Vec::new();
        for (cid, c) in &mut self.conns {
            for (id, p) in &mut c.paths {
                let Some(pipe) = p.pipe.as_mut() else {
                    continue;
                };
                if !pipe.wait.over(wall) {
                    continue;
                }
                let mut out = pipes::Out {
                    sock: &self.sockets[p.socket],
                    state: &self.states[p.socket],
                    batch: &mut self.batch,
                    keys: &c.keys,
                    path: *id,
                    pn: &mut p.pn,
                    auth: &mut p.auth,
                    nonces: &mut self.nonces,
                    stats: &mut self.stats,
                    wall,
                    ahead: &mut self.ahead,
                };
                if pipe
                    .service(now, &mut out, &mut self.dgram, &mut self.hdr)
                    .is_err()
                {
                    broken.push((*cid, *id));
                }
                if pipe.finished {
                    finished.push((*cid, *id));
                }
            }
        }
        for (cid, _) in broken {
            self.stats.file_errors += 1;
            self.file_changed(cid);
        }
        for (cid, id) in finished {
            if let Some(s) = self.conns.get_mut(&cid).and_then(|c| c.session.as_mut()) {
                if !s.completed {
                    s.completed = true;
                    self.stats.completed += 1;
                }
            }
            self.forget_pipe((cid, id));
            if self.conns.get(&cid).is_some_and(|c| c.pipes() == 0) {
                self.forget_conn(cid, "complete");
            }
        }
    }

    /// Seals `inner` (a session message) and sends it on path `id` of
    /// connection `cid`.
    fn send_sealed(&mut self, cid: u64, id: u16, inner: &[u8]) {
        let Some(c) = self.conns.get_mut(&cid) else {
            return;
        };
        let Some(p) = c.paths.get_mut(&id) else {
            return;
        };
        let mut d = Vec::with_capacity(HEADER_LEN + inner.len() + crypto::TAG_LEN);
        d.resize(HEADER_LEN, 0);
        d.extend_from_slice(inner);
        c.keys.seal(id, p.pn, &mut d);
        p.pn += 1;
        p.auth.tx += d.len() as u64;
        let _ = self.sockets[p.socket].send_to(&d, p.peer);
    }

    /// The file connection `cid` is served could not be read as offered (it
    /// was cut short or rewritten): its client is told on every path the
    /// three-times limit lets the server send on, and the connection is
    /// forgotten.
    fn file_changed(&mut self, cid: u64) {
        let Some(c) = self.conns.get(&cid) else {
            return;
        };
        let Some(conn) = c.session.as_ref().map(|s| s.conn) else {
            return;
        };
        let mut msg = Vec::with_capacity(64);
        session::Message::Error {
            conn,
            code: session::ErrorCode::Changed,
            message: "the file changed on the server while it was sent".into(),
        }
        .emit(&mut msg);
        let len = (HEADER_LEN + msg.len() + c.keys.tag_len()) as u64;
        let ids: Vec<u16> = c
            .paths
            .iter()
            .filter(|(_, p)| {
                p.auth.validated || p.auth.tx + len <= pipes::AMPLIFICATION * p.auth.rx
            })
            .map(|(id, _)| *id)
            .collect();
        for id in ids {
            self.send_sealed(cid, id, &msg);
        }
        self.forget_conn(cid, "file changed");
    }

    /// Files whose identity is no longer the one they were offered with
    /// (rewritten, cut short): every connection serving one is told and
    /// forgotten. One `fstat` per open file.
    fn check_files(&mut self) {
        let changed: Vec<FileId> = self
            .files
            .iter()
            .filter_map(|(id, f)| {
                let f = f.upgrade()?;
                (FileId::of(&f).ok() != Some(*id)).then_some(*id)
            })
            .collect();
        if changed.is_empty() {
            return;
        }
        let cids: Vec<u64> = self
            .conns
            .iter()
            .filter(|(_, c)| {
                c.session
                    .as_ref()
                    .is_some_and(|s| changed.contains(&s.offer.id))
            })
            .map(|(cid, _)| *cid)
            .collect();
        for cid in cids {
            self.stats.file_errors += 1;
            self.file_changed(cid);
        }
        for id in changed {
            self.files.remove(&id);
        }
    }

    fn forget_pipe(&mut self, (cid, id): (u64, u16)) {
        let Some(p) = self.conns.get_mut(&cid).and_then(|c| c.paths.get_mut(&id)) else {
            return;
        };
        if p.pipe.take().is_some() {
            self.pipes.remove(Prefix::of(p.peer.ip()));
            self.pipes_by_ip.remove(p.peer.ip());
        }
    }

    fn forget_path(&mut self, (cid, id): (u64, u16)) {
        self.forget_pipe((cid, id));
        let Some(c) = self.conns.get_mut(&cid) else {
            return;
        };
        if let Some(p) = c.paths.remove(&id) {
            c.pn_floor = c.pn_floor.max(p.pn);
            if !p.auth.validated {
                self.unvalidated.remove(Prefix::of(p.peer.ip()));
            }
        }
    }

    /// Forgets connection `cid` with its paths and pipes, and logs its
    /// transfer.
    fn forget_conn(&mut self, cid: u64, outcome: &str) {
        let ids: Vec<u16> = self
            .conns
            .get(&cid)
            .map_or_else(Vec::new, |c| c.paths.keys().copied().collect());
        for id in ids {
            self.forget_path((cid, id));
        }
        let Some(c) = self.conns.remove(&cid) else {
            return;
        };
        if let Some(s) = &c.streams {
            let why = if outcome == IDLE {
                crate::stream::ConnectionError::TimedOut(SESSION_IDLE.as_millis() / 1000)
            } else {
                crate::stream::ConnectionError::Closed
            };
            s.end(why);
            let secs = (self.clock.now() - s.started).as_secs_f64();
            self.log(format_args!(
                "streams client={} conn={} seconds={:.3} outcome={}",
                c.hello.0, s.conn, secs, outcome
            ));
        }
        self.hellos.remove(&c.hello);
        self.conns_by.remove(Prefix::of(c.hello.0.ip()));
        if c.half_open() {
            self.half_open_done(c.hello.0, c.proven);
        }
        let Some(s) = c.session.filter(|s| s.opened > 0) else {
            return;
        };
        let secs = (self.clock.now() - s.started).as_secs_f64();
        self.log(format_args!(
            "transfer client={} conn={} file={:?} size={} pipes={} seconds={:.3} outcome={}",
            c.hello.0, s.conn, s.offer.name, s.offer.size, s.opened, secs, outcome
        ));
    }

    /// Forgets silent pipes, connections without a live pipe, paths
    /// without one, and files no session serves.
    fn forget_idle(&mut self, now: Instant) {
        let mut idle_pipes = Vec::new();
        let mut idle_paths = Vec::new();
        let mut idle_conns = Vec::new();
        for (cid, c) in &self.conns {
            for (id, p) in &c.paths {
                match &p.pipe {
                    Some(pipe) if now - pipe.last_heard >= PIPE_IDLE => {
                        idle_pipes.push((*cid, *id));
                    }
                    // A stream connection's paths live as long as it does.
                    None if c.streams.is_none() && now - p.auth.joined >= SESSION_IDLE => {
                        idle_paths.push((*cid, *id));
                    }
                    _ => {}
                }
            }
            if c.pipes() == 0 && now - c.last_active >= SESSION_IDLE {
                idle_conns.push(*cid);
            }
        }
        for k in idle_pipes {
            self.forget_pipe(k);
        }
        for k in idle_paths {
            self.forget_path(k);
        }
        for c in idle_conns {
            self.forget_conn(c, IDLE);
        }
        let conns = &self.conns;
        self.conns_by.trim(|c| conns.contains_key(c));
        self.half_open
            .trim(|c| conns.get(c).is_some_and(Conn::half_open));
        self.unvalidated.trim(|(c, p)| {
            conns
                .get(c)
                .and_then(|c| c.paths.get(p))
                .is_some_and(|p| !p.auth.validated)
        });
        self.pipes.trim(|(c, p)| {
            conns
                .get(c)
                .and_then(|c| c.paths.get(p))
                .is_some_and(|p| p.pipe.is_some())
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
pub fn hash_file(path: &FsPath) -> io::Result<(u64, [u8; 32])> {
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
