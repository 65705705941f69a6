//! `radial get`: downloads a file with one R²CP pipe per local address
//! (R²CP §4.2), checks it against the SHA-256 the server announced, and
//! reports per pipe. Paths can be dropped and added while the transfer runs
//! ([`Control`]), which drives handoffs.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, TryRecvError};

use mio::net::UdpSocket;
use mio::{Events, Interest, Poll, Token};
use radial_core::r2cp::{R2cpReceiver, TargetRate};
use radial_core::{AppEvent, Endpoint, HostEvent, PathId};
use sha2::{Digest, Sha256};

use crate::clock::Clock;
use crate::config::r2cp_config;
use crate::session::{is_session, tag, ErrorCode, Message};

/// How long the client waits for an answer to its GET, per try.
const GET_RETRY: std::time::Duration = std::time::Duration::from_millis(300);
/// Tries of the GET.
const GET_TRIES: u32 = 10;
/// How long the client keeps asking a server that says it is preparing
/// the file (hashing it the first time).
const PREPARE_WAIT: std::time::Duration = std::time::Duration::from_secs(600);
/// Silence on every open path after which the standby paths take over:
/// five minimum RTOs, longer than any round trip the pipes can have
/// before their first timeout.
pub const FAILOVER: std::time::Duration = std::time::Duration::from_secs(1);
/// How long the transfer may make no progress before it is given up.
const STALL: std::time::Duration = std::time::Duration::from_secs(30);

/// One path: a local address and the server address it sends to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PathConfig {
    /// Local address (port 0 picks a free port).
    pub via: SocketAddr,
    /// The server (or a replica, or an emulated path's front) reached
    /// through it.
    pub to: SocketAddr,
}

/// What to fetch and through which paths.
#[derive(Clone, Debug)]
pub struct GetConfig {
    /// The file's path on the server.
    pub path: String,
    /// One pipe per path. Every server named must offer the same file (size
    /// and SHA-256): replicas.
    pub paths: Vec<PathConfig>,
    /// Groups of paths held in reserve: when every open path is gone or has
    /// heard nothing for [`FAILOVER`], they are dropped and the next group
    /// opened (another interface in a hard handoff; a replica in a server
    /// migration, R²CP §4.4.2).
    pub standby: Vec<Vec<PathConfig>>,
    /// Policy-based aggregation (pTCP Figure 10): a target payload rate,
    /// served first by the path with this index in `paths`.
    pub target: Option<(radial_core::BitRate, usize)>,
    /// Where to write the file.
    pub out: PathBuf,
}

impl GetConfig {
    /// One pipe per local address in `vias`, all to `server`.
    pub fn new(server: SocketAddr, path: &str, vias: &[SocketAddr], out: PathBuf) -> Self {
        GetConfig {
            path: path.to_string(),
            paths: vias
                .iter()
                .map(|&via| PathConfig { via, to: server })
                .collect(),
            standby: Vec::new(),
            target: None,
            out,
        }
    }
}

/// A change to the paths while the transfer runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    /// The local address of path `i` is gone: its pipe is deleted and what
    /// it had outstanding is requested elsewhere.
    Drop(usize),
    /// Open path `i` again (its address is back), from a new socket.
    Add(usize),
    /// Every open path from this local address is gone.
    AddressGone(std::net::IpAddr),
    /// This local address is back: the paths configured from it that have
    /// no open pipe open again.
    AddressBack(std::net::IpAddr),
}

/// Progress, reported about ten times a second.
#[derive(Clone, Debug)]
pub struct Progress {
    /// Bytes delivered in order so far.
    pub delivered: u64,
    /// File size.
    pub size: u64,
    /// Seconds since the GET.
    pub elapsed_s: f64,
}

/// One pipe's share.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PipeSummary {
    /// The local address it used.
    pub via: SocketAddr,
    /// The server address it sent to.
    pub to: SocketAddr,
    /// New bytes it brought.
    pub bytes: u64,
}

/// The result of a download.
#[derive(Clone, Debug)]
pub struct Summary {
    /// File size.
    pub bytes: u64,
    /// Seconds from the GET to the last byte.
    pub seconds: f64,
    /// The SHA-256 the server announced, which the file matched.
    pub sha256: [u8; 32],
    /// Per pipe, in the order opened.
    pub pipes: Vec<PipeSummary>,
    /// Segments requested again.
    pub re_requests: u64,
    /// Bytes that arrived twice.
    pub duplicate_bytes: u64,
    /// Times a standby group took over.
    pub migrations: u32,
}

impl Summary {
    /// Goodput in Mbit/s.
    pub fn mbps(&self) -> f64 {
        self.bytes as f64 * 8.0 / self.seconds.max(1e-9) / 1e6
    }
}

/// Why a download failed.
#[derive(Debug)]
pub enum GetError {
    /// A socket or the output file failed.
    Io(io::Error),
    /// The server refused (its message).
    Refused(String),
    /// No answer to the GET.
    NoAnswer {
        /// The server asked.
        server: SocketAddr,
        /// The local address asked from.
        via: SocketAddr,
        /// GETs sent.
        tries: u32,
        /// Over how long.
        seconds: f64,
    },
    /// The server is at its capacity (its message).
    Full(String),
    /// The connection number is in use at the server (another is drawn).
    InUse,
    /// No progress for [`STALL`].
    Stalled {
        /// Bytes delivered by then.
        delivered: u64,
    },
    /// The file's SHA-256 differs from the server's.
    Corrupt,
    /// Two servers offered different files for the same path.
    NotReplicas(SocketAddr),
}

impl std::fmt::Display for GetError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GetError::Io(e) => write!(f, "{e}"),
            GetError::Refused(m) => write!(f, "the server refused: {m}"),
            GetError::NoAnswer {
                server,
                via,
                tries,
                seconds,
            } => write!(
                f,
                "no answer from {server} to {tries} requests over {seconds:.1} s from {via} \
                 (is a radial server listening there, and is UDP let through?)"
            ),
            GetError::Full(m) => write!(f, "the server is busy: {m}"),
            GetError::InUse => f.write_str("connection number in use"),
            GetError::Stalled { delivered } => {
                write!(
                    f,
                    "no progress for {} s after {delivered} bytes",
                    STALL.as_secs()
                )
            }
            GetError::Corrupt => write!(f, "the file does not match the server's SHA-256"),
            GetError::NotReplicas(a) => write!(f, "{a} offers a different file under that path"),
        }
    }
}

impl std::error::Error for GetError {}

impl From<io::Error> for GetError {
    fn from(e: io::Error) -> Self {
        GetError::Io(e)
    }
}

/// A fresh random connection number (never 0).
fn random_conn() -> u16 {
    let mut b = [0u8; 2];
    let _ = getrandom::fill(&mut b);
    u16::from_be_bytes(b).max(1)
}

fn bind(via: SocketAddr, poll: &Poll, token: usize) -> io::Result<UdpSocket> {
    let mut s = UdpSocket::bind(via)?;
    poll.registry()
        .register(&mut s, Token(token), Interest::READABLE)?;
    Ok(s)
}

/// What a server offers: the file, and the key pipes join with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Offered {
    size: u64,
    sha256: [u8; 32],
    key: [u8; 16],
}

/// Asks `server` for `path` over `sock` until it answers.
fn get_offer(
    sock: &UdpSocket,
    poll: &mut Poll,
    server: SocketAddr,
    conn: u16,
    path: &str,
) -> Result<Offered, GetError> {
    let mut req = Vec::new();
    Message::Get {
        conn,
        path: path.to_string(),
    }
    .emit(&mut req);
    let mut events = Events::with_capacity(8);
    let mut buf = [0u8; 2048];
    let started = std::time::Instant::now();
    let mut tries = 0;
    let mut unanswered = 0;
    let mut preparing = false;
    let mut full = None;
    while unanswered < GET_TRIES || (preparing && started.elapsed() < PREPARE_WAIT) {
        sock.send_to(&req, server)?;
        tries += 1;
        unanswered += 1;
        let deadline = std::time::Instant::now() + GET_RETRY;
        while let Some(wait) = deadline.checked_duration_since(std::time::Instant::now()) {
            poll.poll(&mut events, Some(wait))?;
            loop {
                let (n, from) = match sock.recv_from(&mut buf) {
                    Ok(x) => x,
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                    Err(e) => return Err(e.into()),
                };
                if from != server || !is_session(&buf[..n]) {
                    continue;
                }
                match Message::parse(&buf[..n]) {
                    Ok(Message::Offer {
                        conn: c,
                        size,
                        sha256,
                        key,
                    }) if c == conn => return Ok(Offered { size, sha256, key }),
                    Ok(Message::Error {
                        conn: c,
                        code: ErrorCode::Preparing,
                        ..
                    }) if c == conn => {
                        preparing = true;
                        unanswered = 0;
                    }
                    Ok(Message::Error {
                        conn: c,
                        code: ErrorCode::Full,
                        message,
                    }) if c == conn => full = Some(message),
                    Ok(Message::Error {
                        conn: c,
                        code: ErrorCode::Busy,
                        ..
                    }) if c == conn => return Err(GetError::InUse),
                    Ok(Message::Error {
                        conn: c, message, ..
                    }) if c == conn => return Err(GetError::Refused(message)),
                    _ => {}
                }
            }
        }
    }
    if let Some(m) = full {
        return Err(GetError::Full(m));
    }
    Err(GetError::NoAnswer {
        server,
        via: sock.local_addr().unwrap_or(server),
        tries,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// Connection numbers drawn before giving up on finding a free one.
const CONN_TRIES: u32 = 8;

/// Asks every server of `cfg.paths` for the file on connection `conn`:
/// the offer, and each server's key.
#[allow(clippy::type_complexity)]
fn ask_all(
    cfg: &GetConfig,
    poll: &mut Poll,
    conn: u16,
) -> Result<(Offered, Vec<(SocketAddr, [u8; 16])>), GetError> {
    let mut offer: Option<Offered> = None;
    let mut keys: Vec<(SocketAddr, [u8; 16])> = Vec::new();
    for p in &cfg.paths {
        if !keys.iter().any(|(to, _)| *to == p.to) {
            let o = ask(p, poll, conn, &cfg.path)?;
            if offer.is_some_and(|first| (first.size, first.sha256) != (o.size, o.sha256)) {
                return Err(GetError::NotReplicas(p.to));
            }
            keys.push((p.to, o.key));
            offer = Some(o);
        }
    }
    Ok((offer.expect("one path at least"), keys))
}

/// The poll token of the short-lived socket a GET is asked from (path
/// sockets use their index).
const ASK_TOKEN: usize = usize::MAX / 2;

/// Asks `p.to` for `path` from a socket of its own on `p.via`.
fn ask(p: &PathConfig, poll: &mut Poll, conn: u16, path: &str) -> Result<Offered, GetError> {
    let mut s = bind(p.via, poll, ASK_TOKEN)?;
    let r = get_offer(&s, poll, p.to, conn, path);
    let _ = poll.registry().deregister(&mut s);
    r
}

/// One path's socket, bound to its local address.
struct PathSock {
    cfg: PathConfig,
    sock: Option<UdpSocket>,
    /// When its server was last heard on it.
    heard: std::time::Instant,
    /// The key of the server it leads to, and this path's join.
    key: [u8; 16],
    nonce: [u8; 8],
    joined: bool,
    join_sent: std::time::Instant,
    /// Envelope nonces received and not echoed yet, and since when.
    echo: Vec<u32>,
    echo_since: std::time::Instant,
}

/// Nonces gathered before an ECHO goes out.
const ECHO_BATCH: usize = 32;
/// Longest a received nonce waits to be echoed.
const ECHO_DELAY: std::time::Duration = std::time::Duration::from_millis(5);

impl PathSock {
    /// Echoes the nonces received (the receipt guard), when a batch is
    /// full or the oldest has waited [`ECHO_DELAY`].
    fn echo(&mut self, conn: u16, id: usize) {
        if self.echo.is_empty()
            || (self.echo.len() < ECHO_BATCH && self.echo_since.elapsed() < ECHO_DELAY)
        {
            return;
        }
        let mut d = Vec::new();
        for chunk in self.echo.chunks(crate::session::MAX_ECHO) {
            d.clear();
            Message::Echo {
                conn,
                path: id as u16,
                nonces: chunk.to_vec(),
            }
            .emit(&mut d);
            if let Some(s) = &self.sock {
                let _ = s.send_to(&d, self.cfg.to);
            }
        }
        self.echo.clear();
    }

    /// Sends (again) the JOIN that lets this path open its pipe.
    fn send_join(&mut self, conn: u16, id: usize) {
        let path = id as u16;
        let mut d = Vec::new();
        Message::Join {
            conn,
            path,
            nonce: self.nonce,
            mac: tag(&self.key, b"join", conn, path, &self.nonce),
        }
        .emit(&mut d);
        if let Some(s) = &self.sock {
            let _ = s.send_to(&d, self.cfg.to);
        }
        self.join_sent = std::time::Instant::now();
    }
}

/// Binds a socket for `p` as path `paths.len()` and joins it to the
/// connection; its pipe opens when the server accepts the join.
fn open_path(
    paths: &mut Vec<PathSock>,
    p: PathConfig,
    key: [u8; 16],
    conn: u16,
    poll: &Poll,
) -> io::Result<()> {
    let id = paths.len();
    let mut nonce = [0u8; 8];
    let _ = getrandom::fill(&mut nonce);
    let mut ps = PathSock {
        cfg: p,
        sock: Some(bind(p.via, poll, id)?),
        heard: std::time::Instant::now(),
        key,
        nonce,
        joined: false,
        join_sent: std::time::Instant::now(),
        echo: Vec::new(),
        echo_since: std::time::Instant::now(),
    };
    ps.send_join(conn, id);
    paths.push(ps);
    Ok(())
}

/// The server accepted path `i`'s join: echo its challenge and open the
/// pipe.
fn on_joined(
    paths: &mut [PathSock],
    i: usize,
    conn: u16,
    challenge: [u8; 8],
    rx: &mut R2cpReceiver,
    clock: &Clock,
) {
    let p = &mut paths[i];
    if p.joined {
        return;
    }
    let path = i as u16;
    let mut d = Vec::new();
    Message::Validate {
        conn,
        path,
        echo: challenge,
        mac: tag(&p.key, b"valid", conn, path, &challenge),
    }
    .emit(&mut d);
    if let Some(s) = &p.sock {
        let _ = s.send_to(&d, p.cfg.to);
    }
    p.joined = true;
    p.heard = std::time::Instant::now();
    rx.handle_event(
        clock.now(),
        HostEvent::PathUp {
            path: PathId(path),
            controller: None,
        },
    );
}

/// Closes path `i`'s socket and tells the receiver its interface is gone.
fn drop_path(paths: &mut [PathSock], i: usize, poll: &Poll, rx: &mut R2cpReceiver, clock: &Clock) {
    if let Some(mut s) = paths[i].sock.take() {
        let _ = poll.registry().deregister(&mut s);
        rx.handle_event(
            clock.now(),
            HostEvent::PathDown {
                path: PathId(i as u16),
            },
        );
    }
}

/// Downloads `cfg.path` from `cfg.server`, calling `progress` as it goes
/// and applying `control` messages as they come.
pub fn get(
    cfg: &GetConfig,
    control: Option<&Receiver<Control>>,
    mut progress: impl FnMut(&Progress),
) -> Result<Summary, GetError> {
    assert!(!cfg.paths.is_empty(), "at least one path");
    let clock = Clock::new();
    let mut poll = Poll::new()?;
    // Ask every server named, each through the first path to it, from a
    // socket of that path's address; all must offer the same file. A
    // connection number some server already uses is drawn again.
    let mut attempt = 0;
    let (conn, offer, mut keys) = loop {
        attempt += 1;
        let conn = random_conn();
        match ask_all(cfg, &mut poll, conn) {
            Err(GetError::InUse) if attempt < CONN_TRIES => continue,
            Err(GetError::InUse) => {
                return Err(GetError::Refused("connection number in use".into()))
            }
            Err(e) => return Err(e),
            Ok((offer, keys)) => break (conn, offer, keys),
        }
    };
    let Offered { size, sha256, .. } = offer;
    let key_of = |keys: &[(SocketAddr, [u8; 16])], to: SocketAddr| {
        keys.iter()
            .find(|(t, _)| *t == to)
            .map(|k| k.1)
            .expect("asked")
    };
    let mut r2cp = r2cp_config(conn);
    r2cp.target = cfg.target.map(|(rate, prefer)| TargetRate {
        rate,
        prefer: PathId(prefer as u16),
        period: TargetRate::DEFAULT_PERIOD,
    });
    let mut rx = R2cpReceiver::new(r2cp);
    let mut paths: Vec<PathSock> = Vec::new();
    for p in &cfg.paths {
        open_path(&mut paths, *p, key_of(&keys, p.to), conn, &poll)?;
    }
    let mut standby: std::collections::VecDeque<Vec<PathConfig>> = cfg
        .standby
        .iter()
        .filter(|g| !g.is_empty())
        .cloned()
        .collect();
    let mut migrations = 0;
    // The download goes to FILE.part, renamed to FILE once its SHA-256
    // matches: an interrupted or failed download never stands under the
    // final name.
    let part = part_path(&cfg.out);
    let mut out = BufWriter::with_capacity(1 << 20, File::create(&part)?);
    let mut hasher = Sha256::new();
    let mut delivered = 0u64;
    let mut read_buf = vec![0u8; 1 << 16];
    let mut data = [0u8; 65536];
    let mut events = Events::with_capacity(256);
    let mut last_progress = std::time::Instant::now();
    let mut last_report = std::time::Instant::now();
    let mut done = size == 0;
    while !done {
        if let Some(c) = control {
            loop {
                match c.try_recv() {
                    Ok(Control::Drop(i)) if i < paths.len() => {
                        drop_path(&mut paths, i, &poll, &mut rx, &clock);
                    }
                    Ok(Control::Add(i)) if i < paths.len() && paths[i].sock.is_none() => {
                        // A new pipe, with a path id of its own.
                        let (p, key) = (paths[i].cfg, paths[i].key);
                        open_path(&mut paths, p, key, conn, &poll)?;
                    }
                    Ok(Control::AddressGone(ip)) => {
                        for i in 0..paths.len() {
                            if paths[i].cfg.via.ip() == ip {
                                drop_path(&mut paths, i, &poll, &mut rx, &clock);
                            }
                        }
                    }
                    Ok(Control::AddressBack(ip)) => {
                        for p in cfg.paths.iter().filter(|p| p.via.ip() == ip) {
                            let open = paths.iter().any(|q| q.cfg == *p && q.sock.is_some());
                            if !open {
                                open_path(&mut paths, *p, key_of(&keys, p.to), conn, &poll)?;
                            }
                        }
                    }
                    Ok(_) => {}
                    Err(TryRecvError::Empty | TryRecvError::Disconnected) => break,
                }
            }
        }
        let mut wait = rx
            .poll_timeout()
            .map_or(std::time::Duration::from_millis(100), |t| {
                clock.until(t).min(std::time::Duration::from_millis(100))
            });
        if paths.iter().any(|p| !p.echo.is_empty()) {
            wait = wait.min(ECHO_DELAY);
        }
        match poll.poll(&mut events, Some(wait)) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e.into()),
        }
        let mut joined = Vec::new();
        for ev in &events {
            let i = ev.token().0;
            let Some(path) = paths.get_mut(i) else {
                continue;
            };
            let to = path.cfg.to;
            let Some(sock) = path.sock.as_ref() else {
                continue;
            };
            loop {
                let (n, from) = match sock.recv_from(&mut data) {
                    Ok(x) => x,
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                    Err(_) => break,
                };
                if from != to {
                    continue;
                }
                if is_session(&data[..n]) {
                    if let Ok(Message::Joined {
                        conn: c,
                        path: p,
                        challenge,
                    }) = Message::parse(&data[..n])
                    {
                        if c == conn && usize::from(p) == i {
                            joined.push((i, challenge));
                        }
                    }
                    continue;
                }
                // Pipe datagrams come in the receipt guard's envelope.
                let Some((nonce, inner)) = crate::guard::open(&data[..n]) else {
                    continue;
                };
                if path.echo.is_empty() {
                    path.echo_since = std::time::Instant::now();
                }
                path.echo.push(nonce);
                path.heard = std::time::Instant::now();
                rx.handle_datagram(clock.now(), PathId(i as u16), inner);
            }
        }
        for (i, challenge) in joined {
            on_joined(&mut paths, i, conn, challenge, &mut rx, &clock);
        }
        for (i, p) in paths.iter_mut().enumerate() {
            if !p.joined && p.sock.is_some() && p.join_sent.elapsed() > GET_RETRY {
                p.send_join(conn, i);
            }
            p.echo(conn, i);
        }
        // Every open path silent: migrate to the replicas held in reserve.
        let open = paths.iter().filter(|p| p.sock.is_some());
        if !standby.is_empty() && open.clone().all(|p| p.heard.elapsed() > FAILOVER) {
            let group = standby.pop_front().expect("not empty");
            for p in &group {
                if !keys.iter().any(|(t, _)| *t == p.to) {
                    let o = ask(p, &mut poll, conn, &cfg.path)?;
                    if (o.size, o.sha256) != (size, sha256) {
                        return Err(GetError::NotReplicas(p.to));
                    }
                    keys.push((p.to, o.key));
                }
            }
            for i in 0..paths.len() {
                drop_path(&mut paths, i, &poll, &mut rx, &clock);
            }
            for p in group {
                open_path(&mut paths, p, key_of(&keys, p.to), conn, &poll)?;
            }
            migrations += 1;
        }
        let now = clock.now();
        if rx.poll_timeout().is_some_and(|t| t <= now) {
            rx.handle_timeout(now);
        }
        loop {
            let n = rx.read(&mut read_buf);
            if n == 0 {
                break;
            }
            out.write_all(&read_buf[..n])?;
            hasher.update(&read_buf[..n]);
            delivered += n as u64;
            last_progress = std::time::Instant::now();
        }
        while let Some(ev) = rx.poll_app_event() {
            if ev == AppEvent::Closed {
                done = true;
            }
        }
        done |= delivered >= size;
        flush(&mut rx, &paths, &clock);
        if last_report.elapsed() >= std::time::Duration::from_millis(100) || done {
            last_report = std::time::Instant::now();
            progress(&Progress {
                delivered,
                size,
                elapsed_s: clock.now().as_secs_f64(),
            });
        }
        if last_progress.elapsed() > STALL {
            return Err(GetError::Stalled { delivered });
        }
    }
    let seconds = clock.now().as_secs_f64();
    out.flush()?;
    // The FIN requests the engine queued for every pipe on completion.
    flush(&mut rx, &paths, &clock);
    let got: [u8; 32] = hasher.finalize().into();
    if got != sha256 {
        let _ = std::fs::remove_file(&part);
        return Err(GetError::Corrupt);
    }
    drop(out);
    std::fs::rename(&part, &cfg.out)?;
    let stats = rx.stats();
    let pipes = rx
        .path_stats()
        .iter()
        .map(|p| PipeSummary {
            via: paths[p.path.0 as usize].cfg.via,
            to: paths[p.path.0 as usize].cfg.to,
            bytes: p.delivered,
        })
        .collect();
    Ok(Summary {
        bytes: delivered,
        seconds,
        sha256,
        pipes,
        re_requests: stats.retransmits,
        duplicate_bytes: stats.duplicate_bytes,
        migrations,
    })
}

/// Sends what the receiver has to send, each datagram on its path's socket.
fn flush(rx: &mut R2cpReceiver, paths: &[PathSock], clock: &Clock) {
    let mut d = Vec::with_capacity(128);
    let now = clock.now();
    while let Some(p) = rx.poll_transmit(now, &mut d) {
        if let Some(p) = paths.get(p.0 as usize) {
            if let Some(s) = &p.sock {
                // A full socket buffer loses the request, as a network would.
                let _ = s.send_to(&d, p.cfg.to);
            }
        }
    }
}

/// Hex form of a digest.
pub fn hex(d: &[u8]) -> String {
    d.iter().map(|b| format!("{b:02x}")).collect()
}

/// Where a download to `out` is written until it is verified:
/// `out` with `.part` appended.
pub fn part_path(out: &Path) -> PathBuf {
    let mut name = out.as_os_str().to_owned();
    name.push(".part");
    PathBuf::from(name)
}

/// The file name a download of `path` gets by default.
pub fn default_out(path: &str) -> PathBuf {
    Path::new(path)
        .file_name()
        .map_or_else(|| PathBuf::from("download"), PathBuf::from)
}
