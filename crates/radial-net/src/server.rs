//! `radial serve`: serves the files below a root directory. Each pipe of a
//! client's connection is an unchanged RCP sender (R²CP §4.1.2: "no change
//! is necessary at the RCP sender") fed from the file; servers with the same
//! files are replicas, so a client can migrate to one or aggregate several
//! (R²CP §4.4.2–4.4.3).
//!
//! One thread, one mio poll over the listening sockets. A session starts
//! with a GET (wire type 2) naming a path and a connection number; the
//! server answers with the file's size and SHA-256, and then accepts RCP
//! pipes whose connection id carries that number in its low 16 bits.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::net::SocketAddr;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use mio::net::UdpSocket;
use mio::{Events, Interest, Poll, Token};
use radial_core::r2cp::R2cpConfig;
use radial_core::rcp::RcpSender;
use radial_core::wire::rcp::{RcpFlags, RcpHeader};
use radial_core::{Endpoint, Instant, PathId};
use sha2::{Digest, Sha256};

use crate::clock::Clock;
use crate::config::rcp_config;
use crate::guard::{seal, Nonces, ReceiptGuard};
use crate::session::{is_session, tag_ok, ErrorCode, Message, MIN_GET};

/// How long a pipe may stay silent before the server forgets it.
const IDLE: radial_core::Duration = radial_core::Duration::from_secs(60);
/// Sessions kept before those without pipes are forgotten.
const MAX_SESSIONS: usize = 4096;
/// Longest a poll waits, so idle pipes are noticed.
const MAX_WAIT: std::time::Duration = std::time::Duration::from_millis(500);

/// What the server counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ServerStats {
    /// Sessions opened (GETs answered with an offer).
    pub sessions: u64,
    /// Pipes opened.
    pub pipes: u64,
    /// Datagrams dropped: malformed, or for no session or pipe.
    pub dropped: u64,
    /// Joins refused (a wrong token, a replayed nonce) and pipes refused
    /// for want of a join; none of them created any state.
    pub rejected: u64,
    /// Times a pipe's sending waited for its address to be validated (the
    /// three-times limit).
    pub amplification_waits: u64,
    /// Times a pipe's sending waited for its receiver to prove receipt (the
    /// receipt guard).
    pub receipt_waits: u64,
    /// Bytes receivers proved they received (echoed nonces).
    pub proven_bytes: u64,
    /// Payload bytes sent.
    pub bytes_sent: u64,
}

/// A file a session serves.
#[derive(Clone, Debug)]
struct Offer {
    path: PathBuf,
    size: u64,
    sha256: [u8; 32],
}

/// A client's connection: the file and the secret its pipes join with.
struct Session {
    offer: Offer,
    key: [u8; 16],
    /// Join nonces seen, and where from: the same nonce from anywhere else
    /// is a replay.
    nonces: HashMap<[u8; 8], (usize, SocketAddr, u16)>,
}

/// What a join established for one (socket, peer, pipe connection id).
#[derive(Clone, Copy, Debug)]
struct PathAuth {
    challenge: [u8; 8],
    /// The peer echoed the challenge: it receives at this address.
    validated: bool,
    /// Bytes received from the peer for this pipe, and sent to it.
    rx: u64,
    tx: u64,
}

/// Before its address is validated the server sends a path at most this
/// many times what it received there (as QUIC, RFC 9000 §8).
const AMPLIFICATION: u64 = 3;

/// One pipe: an RCP sender and the file it reads from.
struct PipeState {
    socket: usize,
    peer: SocketAddr,
    sender: RcpSender,
    file: File,
    size: u64,
    /// How far the application has written into the sender.
    written: u64,
    closed: bool,
    last_heard: Instant,
    /// A datagram the socket would not take yet.
    stash: Option<Vec<u8>>,
    /// What the receiver has proven it receives.
    guard: ReceiptGuard,
}

/// The file server.
pub struct Server {
    root: PathBuf,
    poll: Poll,
    sockets: Vec<UdpSocket>,
    clock: Clock,
    /// Sessions by connection number.
    sessions: HashMap<u16, Session>,
    /// Joined paths by (socket, peer, pipe connection id).
    auth: HashMap<(usize, SocketAddr, u32), PathAuth>,
    /// Hashes of the files served, by path.
    hashes: HashMap<PathBuf, (u64, [u8; 32])>,
    /// Pipes by (socket, peer, connection id).
    pipes: HashMap<(usize, SocketAddr, u32), PipeState>,
    stats: ServerStats,
    nonces: Nonces,
    buf: Vec<u8>,
    read_buf: Vec<u8>,
}

impl Server {
    /// Binds every `listen` address and serves files below `root`.
    pub fn bind(root: &Path, listen: &[SocketAddr]) -> io::Result<Server> {
        let root = root.canonicalize()?;
        if !root.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} is not a directory", root.display()),
            ));
        }
        let poll = Poll::new()?;
        let mut sockets = Vec::new();
        for (i, a) in listen.iter().enumerate() {
            let mut s = UdpSocket::bind(*a)?;
            poll.registry()
                .register(&mut s, Token(i), Interest::READABLE)?;
            sockets.push(s);
        }
        Ok(Server {
            root,
            poll,
            sockets,
            clock: Clock::new(),
            sessions: HashMap::new(),
            auth: HashMap::new(),
            hashes: HashMap::new(),
            pipes: HashMap::new(),
            stats: ServerStats::default(),
            nonces: Nonces::default(),
            buf: Vec::with_capacity(2048),
            read_buf: vec![0; 64 * 1024],
        })
    }

    /// The bound addresses (with the ports the system chose for port 0).
    pub fn local_addrs(&self) -> Vec<SocketAddr> {
        self.sockets
            .iter()
            .filter_map(|s| s.local_addr().ok())
            .collect()
    }

    /// Counters so far.
    pub fn stats(&self) -> ServerStats {
        let mut s = self.stats;
        s.proven_bytes = self.pipes.values().map(|p| p.guard.proven).sum();
        s
    }

    /// Serves until `stop` is set.
    pub fn run(&mut self, stop: &Arc<AtomicBool>) -> io::Result<()> {
        let mut events = Events::with_capacity(256);
        while !stop.load(Ordering::Relaxed) {
            let next = self
                .pipes
                .values()
                .filter_map(|p| p.sender.poll_timeout())
                .min();
            let wait = next.map_or(MAX_WAIT, |t| self.clock.until(t).min(MAX_WAIT));
            let stashed = self.pipes.values().any(|p| p.stash.is_some());
            let wait = if stashed {
                wait.min(std::time::Duration::from_millis(1))
            } else {
                wait
            };
            match self.poll.poll(&mut events, Some(wait)) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
            for ev in &events {
                self.drain_socket(ev.token().0);
            }
            self.on_timers();
            self.service_all();
            self.forget_idle();
        }
        Ok(())
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
                    self.on_get(s, peer, conn, &path);
                }
                Ok(Message::Get { .. }) => self.stats.rejected += 1,
                Ok(Message::Join {
                    conn,
                    path,
                    nonce,
                    mac,
                }) => self.on_join(s, peer, conn, path, nonce, &mac, d.len()),
                Ok(Message::Validate {
                    conn,
                    path,
                    echo,
                    mac,
                }) => self.on_validate(s, peer, conn, path, echo, &mac, d.len()),
                Ok(Message::Echo { conn, path, nonces }) => {
                    let key = (s, peer, pipe_id(conn, path));
                    match (self.auth.get_mut(&key), self.pipes.get_mut(&key)) {
                        (Some(auth), Some(p)) => {
                            auth.rx += d.len() as u64;
                            for n in nonces {
                                p.guard.echoed(n);
                            }
                        }
                        _ => self.stats.rejected += 1,
                    }
                }
                _ => self.stats.dropped += 1,
            }
            return;
        }
        let Ok((h, _)) = RcpHeader::parse(d) else {
            self.stats.dropped += 1;
            return;
        };
        let key = (s, peer, h.conn_id);
        // Only a joined path may speak for a pipe; nothing else creates state.
        let Some(auth) = self.auth.get_mut(&key) else {
            self.stats.rejected += 1;
            return;
        };
        auth.rx += d.len() as u64;
        if !self.pipes.contains_key(&key) {
            let opening = h.flags.contains(RcpFlags::SYN) && !h.flags.contains(RcpFlags::ACK);
            let Some(session) = self.sessions.get(&(h.conn_id as u16)) else {
                self.stats.dropped += 1;
                return;
            };
            if !opening {
                self.stats.dropped += 1;
                return;
            }
            let Ok(file) = File::open(&session.offer.path) else {
                self.stats.dropped += 1;
                return;
            };
            self.stats.pipes += 1;
            self.pipes.insert(
                key,
                PipeState {
                    socket: s,
                    peer,
                    sender: RcpSender::new(rcp_config(h.conn_id), PathId(0)),
                    file,
                    size: session.offer.size,
                    written: 0,
                    closed: false,
                    last_heard: now,
                    stash: None,
                    guard: ReceiptGuard::default(),
                },
            );
        }
        let p = self.pipes.get_mut(&key).expect("inserted above");
        p.last_heard = now;
        p.sender.handle_datagram(now, PathId(0), d);
    }

    /// A JOIN: the token must be the connection key's tag of the nonce, and
    /// the nonce new or seen from this very path before (a retransmitted
    /// join). Then the path may open its pipe, and must echo a challenge.
    #[allow(clippy::too_many_arguments)]
    fn on_join(
        &mut self,
        s: usize,
        peer: SocketAddr,
        conn: u16,
        path: u16,
        nonce: [u8; 8],
        mac: &[u8; 16],
        len: usize,
    ) {
        let Some(session) = self.sessions.get_mut(&conn) else {
            self.stats.rejected += 1;
            return;
        };
        if !tag_ok(&session.key, b"join", conn, path, &nonce, mac) {
            self.stats.rejected += 1;
            return;
        }
        match session.nonces.get(&nonce) {
            Some(&seen) if seen != (s, peer, path) => {
                self.stats.rejected += 1;
                return;
            }
            Some(_) => {}
            None => {
                session.nonces.insert(nonce, (s, peer, path));
            }
        }
        let pipe = pipe_id(conn, path);
        let auth = self
            .auth
            .entry((s, peer, pipe))
            .or_insert_with(|| PathAuth {
                challenge: random(),
                validated: false,
                rx: 0,
                tx: 0,
            });
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
    #[allow(clippy::too_many_arguments)]
    fn on_validate(
        &mut self,
        s: usize,
        peer: SocketAddr,
        conn: u16,
        path: u16,
        echo: [u8; 8],
        mac: &[u8; 16],
        len: usize,
    ) {
        let pipe = pipe_id(conn, path);
        let (Some(session), Some(auth)) = (
            self.sessions.get(&conn),
            self.auth.get_mut(&(s, peer, pipe)),
        ) else {
            self.stats.rejected += 1;
            return;
        };
        auth.rx += len as u64;
        if echo == auth.challenge && tag_ok(&session.key, b"valid", conn, path, &echo, mac) {
            auth.validated = true;
        } else {
            self.stats.rejected += 1;
        }
    }

    /// A GET: resolve the path below the root, hash the file (once per
    /// path), remember the offer under the connection number, answer.
    fn on_get(&mut self, s: usize, peer: SocketAddr, conn: u16, path: &str) {
        let reply = match self.offer(path) {
            Ok(offer) => match self.sessions.get(&conn) {
                Some(o) if o.offer.path != offer.path => Message::Error {
                    conn,
                    code: ErrorCode::Busy,
                    message: "connection number in use".into(),
                },
                Some(o) => Message::Offer {
                    conn,
                    size: o.offer.size,
                    sha256: o.offer.sha256,
                    key: o.key,
                },
                None => {
                    self.stats.sessions += 1;
                    let key = random();
                    let m = Message::Offer {
                        conn,
                        size: offer.size,
                        sha256: offer.sha256,
                        key,
                    };
                    self.sessions.insert(
                        conn,
                        Session {
                            offer,
                            key,
                            nonces: HashMap::new(),
                        },
                    );
                    m
                }
            },
            Err((code, message)) => Message::Error {
                conn,
                code,
                message,
            },
        };
        self.buf.clear();
        reply.emit(&mut self.buf);
        let _ = self.sockets[s].send_to(&self.buf, peer);
    }

    fn offer(&mut self, path: &str) -> Result<Offer, (ErrorCode, String)> {
        let rel = Path::new(path.trim_start_matches('/'));
        if rel.components().any(|c| !matches!(c, Component::Normal(_))) {
            return Err((ErrorCode::NotFound, format!("{path}: not below the root")));
        }
        let full = self.root.join(rel);
        let meta = std::fs::metadata(&full)
            .map_err(|_| (ErrorCode::NotFound, format!("{path}: no such file")))?;
        if !meta.is_file() {
            return Err((ErrorCode::NotFound, format!("{path}: not a file")));
        }
        if let Some(&(size, sha256)) = self.hashes.get(&full) {
            if size == meta.len() {
                return Ok(Offer {
                    path: full,
                    size,
                    sha256,
                });
            }
        }
        let (size, sha256) =
            hash_file(&full).map_err(|e| (ErrorCode::Unreadable, format!("{path}: {e}")))?;
        self.hashes.insert(full.clone(), (size, sha256));
        Ok(Offer {
            path: full,
            size,
            sha256,
        })
    }

    fn on_timers(&mut self) {
        let now = self.clock.now();
        for p in self.pipes.values_mut() {
            if p.sender.poll_timeout().is_some_and(|t| t <= now) {
                p.sender.handle_timeout(now);
            }
        }
    }

    /// Feeds every sender from its file and sends what it has to send.
    fn service_all(&mut self) {
        let now = self.clock.now();
        let keys: Vec<_> = self.pipes.keys().copied().collect();
        for k in keys {
            let p = self.pipes.get_mut(&k).expect("listed");
            feed(p, &mut self.read_buf);
            let sock = &self.sockets[p.socket];
            let auth = self.auth.get_mut(&k).expect("a pipe has its join");
            let nonces = &mut self.nonces;
            let stats = &mut self.stats;
            let mut sealed = Vec::with_capacity(1300);
            let wall = std::time::Instant::now();
            // Sends `d` in an envelope unless the address is unproven and it
            // would take the path past three times what it received, the
            // receiver has not proven receipt of enough of what it was sent,
            // or the socket is full.
            let mut send = |d: &[u8], p: &mut PipeState| {
                let len = d.len() + crate::guard::ENVELOPE_LEN;
                if !auth.validated && auth.tx + len as u64 > AMPLIFICATION * auth.rx {
                    stats.amplification_waits += 1;
                    return false;
                }
                if !p.guard.allows(len, wall) {
                    stats.receipt_waits += 1;
                    return false;
                }
                let nonce = nonces.draw();
                seal(nonce, d, &mut sealed);
                if !try_send(sock, &sealed, p.peer) {
                    return false;
                }
                p.guard.sent(nonce, len, wall);
                auth.tx += len as u64;
                true
            };
            if let Some(d) = p.stash.take() {
                if !send(&d, p) {
                    p.stash = Some(d);
                    continue;
                }
            }
            loop {
                let mut d = Vec::with_capacity(1300);
                if p.sender.poll_transmit(now, &mut d).is_none() {
                    break;
                }
                stats.bytes_sent += d.len() as u64;
                if !send(&d, p) {
                    p.stash = Some(d);
                    break;
                }
            }
            while p.sender.poll_app_event().is_some() {}
        }
    }

    /// Forgets pipes silent for [`IDLE`], and, past [`MAX_SESSIONS`],
    /// the sessions that have no pipe left.
    fn forget_idle(&mut self) {
        let now = self.clock.now();
        self.pipes.retain(|_, p| now - p.last_heard < IDLE);
        if self.auth.len() > MAX_SESSIONS {
            let pipes = &self.pipes;
            self.auth.retain(|k, _| pipes.contains_key(k));
        }
        if self.sessions.len() > MAX_SESSIONS {
            let live: Vec<u16> = self.pipes.keys().map(|k| k.2 as u16).collect();
            self.sessions.retain(|c, _| live.contains(c));
        }
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

/// Writes file data into the sender: first seeking to where the sender
/// skipped (a replica joining midway), then as much as it takes.
fn feed(p: &mut PipeState, read_buf: &mut [u8]) {
    if let Some(o) = p.sender.write_offset() {
        if o > p.written {
            p.written = o.min(p.size);
        }
    }
    while p.written < p.size {
        let room = p.sender.send_capacity().min(read_buf.len());
        if room == 0 {
            break;
        }
        let want = room.min((p.size - p.written) as usize);
        if p.file.seek(SeekFrom::Start(p.written)).is_err() {
            break;
        }
        let n = match p.file.read(&mut read_buf[..want]) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let taken = p.sender.write(&read_buf[..n]);
        p.written += taken as u64;
        if taken < n {
            break;
        }
    }
    if p.written >= p.size && !p.closed {
        p.closed = true;
        p.sender.close();
    }
}

/// Sends `d`; false when the socket's buffer is full (try again later).
fn try_send(sock: &UdpSocket, d: &[u8], peer: SocketAddr) -> bool {
    match sock.send_to(d, peer) {
        Ok(_) => true,
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => false,
        // Unreachable peers and the like: the datagram is lost, as on a
        // network; the protocol recovers.
        Err(_) => true,
    }
}

/// Size and SHA-256 of a file.
pub fn hash_file(path: &Path) -> io::Result<(u64, [u8; 32])> {
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
