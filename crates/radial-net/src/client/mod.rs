//! `radial get`: downloads a file with one R²CP pipe per local address
//! (R²CP §4.2), checks it against the SHA-256 the server announced, and
//! reports per pipe. Paths can be dropped and added while the transfer runs
//! ([`Control`]), which drives handoffs. Every datagram is sealed under the
//! keys of a handshake that authenticated the server ([`Trust`]).

mod ask;
mod paths;
mod writer;

pub use ask::Trust;

use std::io;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, TryRecvError};

use mio::net::UdpSocket;
use mio::{Events, Interest, Poll, Token};
use radial_core::r2cp::{R2cpReceiver, TargetRate};
use radial_core::{AppEvent, Endpoint, PathId};

use crate::clock::Clock;
use crate::config::r2cp_config;
use crate::session::{is_session, Message};
use ask::{ask, Offered};
use paths::{drop_path, flush, on_joined, open_path, PathSock, ECHO_DELAY};
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
    /// The server keys accepted.
    pub trust: Trust,
    /// Ask for no encryption (the server must allow it): for measuring
    /// what encryption costs.
    pub insecure: bool,
    /// Resume from `out`'s `.part` file: its bytes are kept (and checked
    /// with the rest against the SHA-256), only the rest is asked for.
    pub resume: bool,
    /// The receive buffer in bytes, shared by every pipe (default: the
    /// runtime's, [`crate::config::rcp_config`]).
    pub buffer: Option<u64>,
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
            trust: Trust::Any,
            insecure: false,
            resume: false,
            buffer: None,
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
    /// Servers met for the first time, whose keys are now trusted.
    pub first_contacts: Vec<(SocketAddr, [u8; 32])>,
    /// Bytes a resumed download already held.
    pub resumed_from: u64,
    /// The longest time, in seconds, between two advances of the bytes
    /// delivered in order, after the first (the stall a handoff causes).
    pub longest_stall_s: f64,
}

impl Summary {
    /// Goodput in Mbit/s (of the bytes this run fetched).
    pub fn mbps(&self) -> f64 {
        (self.bytes - self.resumed_from) as f64 * 8.0 / self.seconds.max(1e-9) / 1e6
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
    /// No progress for [`STALL`].
    Stalled {
        /// Bytes delivered by then.
        delivered: u64,
    },
    /// The file's SHA-256 differs from the server's.
    Corrupt,
    /// Two servers offered different files for the same path.
    NotReplicas(SocketAddr),
    /// The server proved a key other than the one trusted for it.
    ServerKey {
        /// The server.
        server: SocketAddr,
        /// The key trusted for it (hex).
        expected: String,
        /// The key it has (hex).
        got: String,
    },
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
            GetError::Stalled { delivered } => {
                write!(
                    f,
                    "no progress for {} s after {delivered} bytes",
                    STALL.as_secs()
                )
            }
            GetError::Corrupt => write!(f, "the file does not match the server's SHA-256"),
            GetError::NotReplicas(a) => write!(f, "{a} offers a different file under that path"),
            GetError::ServerKey {
                server,
                expected,
                got,
            } => write!(
                f,
                "{server} proved the key {got}, not the {expected} trusted for it: \
                 another server answers at that address (or its key was replaced)"
            ),
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

/// Connects to every server of `cfg.paths` and asks for the file on
/// connection `conn`: the offer of each server, by address.
fn ask_all(
    cfg: &GetConfig,
    poll: &mut Poll,
    conn: u16,
) -> Result<Vec<(SocketAddr, Offered)>, GetError> {
    let mut offers: Vec<(SocketAddr, Offered)> = Vec::new();
    for p in &cfg.paths {
        if !offers.iter().any(|(to, _)| *to == p.to) {
            let o = ask(
                p.via,
                p.to,
                poll,
                (conn, &cfg.path),
                &cfg.trust,
                cfg.insecure,
            )?;
            if let Some((_, first)) = offers.first() {
                if (first.size, first.sha256) != (o.size, o.sha256) {
                    return Err(GetError::NotReplicas(p.to));
                }
            }
            offers.push((p.to, o));
        }
    }
    Ok(offers)
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
    // Connect to every server named, each through the first path to it,
    // from a socket of that path's address; all must offer the same file.
    let conn = random_conn();
    let mut offers = ask_all(cfg, &mut poll, conn)?;
    let (size, sha256) = (offers[0].1.size, offers[0].1.sha256);
    let keys_of = |offers: &[(SocketAddr, Offered)], to: SocketAddr| {
        offers
            .iter()
            .find(|(t, _)| *t == to)
            .map(|(_, o)| o.keys.clone())
            .expect("asked")
    };
    let mut r2cp = r2cp_config(conn);
    if let Some(bytes) = cfg.buffer {
        // At least a few segments, so that a window can open.
        r2cp.pipe.window = (bytes / crate::config::MSS).max(4);
    }
    r2cp.target = cfg.target.map(|(rate, prefer)| TargetRate {
        rate,
        prefer: PathId(prefer as u16),
        period: TargetRate::DEFAULT_PERIOD,
    });
    // A resumed download keeps what its `.part` file holds (unless that is
    // more than the file: then it starts again).
    let part = part_path(&cfg.out);
    let held = if cfg.resume {
        std::fs::metadata(&part).map_or(0, |m| m.len())
    } else {
        0
    };
    let held = if held > size { 0 } else { held };
    let mut rx = R2cpReceiver::resuming_at(r2cp, held);
    let mut paths: Vec<PathSock> = Vec::new();
    for p in &cfg.paths {
        open_path(&mut paths, *p, keys_of(&offers, p.to), conn, &poll)?;
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
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&part)?;
    let mut out = writer::Writer::resume(file, held)?;
    let mut delivered = held;
    let mut read_buf = vec![0u8; 1 << 16];
    let mut receiver = crate::batch::Receiver::default();
    let mut events = Events::with_capacity(256);
    let mut last_progress = std::time::Instant::now();
    let mut longest_stall = std::time::Duration::ZERO;
    let mut last_report = std::time::Instant::now();
    let mut done = held == size;
    while !done {
        if let Some(c) = control {
            loop {
                match c.try_recv() {
                    Ok(Control::Drop(i)) if i < paths.len() => {
                        drop_path(&mut paths, i, &poll, &mut rx, &clock);
                    }
                    Ok(Control::Add(i)) if i < paths.len() && paths[i].sock.is_none() => {
                        // A new pipe, with a path id of its own.
                        let (p, keys) = (paths[i].cfg, paths[i].keys.clone());
                        open_path(&mut paths, p, keys, conn, &poll)?;
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
                                open_path(&mut paths, *p, keys_of(&offers, p.to), conn, &poll)?;
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
            // Out of the path while its datagrams are handled.
            let Some(sock) = path.sock.take() else {
                continue;
            };
            while let Ok(n @ 1..) = receiver.receive(&sock.sock, &sock.state) {
                receiver.each(n, |from, d| {
                    if from != path.cfg.to {
                        return;
                    }
                    // Only what opens under the path's keys, on its own path
                    // number, and was not seen before.
                    let Ok((id, pn, plain)) = path.keys.open(d) else {
                        return;
                    };
                    if usize::from(id) != i || !path.replay.accept(pn) {
                        return;
                    }
                    if is_session(plain) {
                        if let Ok(Message::Joined {
                            conn: c,
                            path: p,
                            challenge,
                        }) = Message::parse(plain)
                        {
                            if c == conn && usize::from(p) == i {
                                joined.push((i, challenge));
                            }
                        }
                        return;
                    }
                    // Pipe datagrams come in the receipt guard's envelope.
                    let Some((nonce, inner)) = crate::guard::open(plain) else {
                        return;
                    };
                    path.received(nonce);
                    rx.handle_datagram(clock.now(), PathId(i as u16), inner);
                });
            }
            path.sock = Some(sock);
        }
        for (i, challenge) in joined {
            on_joined(&mut paths, i, conn, challenge, &mut rx, &clock);
        }
        for (i, p) in paths.iter_mut().enumerate() {
            p.join(conn, i, ask::RETRY);
            p.echo(conn, i);
        }
        // Every open path silent: migrate to the replicas held in reserve.
        let open = paths.iter().filter(|p| p.sock.is_some());
        if !standby.is_empty() && open.clone().all(|p| p.heard.elapsed() > FAILOVER) {
            let group = standby.pop_front().expect("not empty");
            for p in &group {
                if !offers.iter().any(|(t, _)| *t == p.to) {
                    let o = ask(
                        p.via,
                        p.to,
                        &mut poll,
                        (conn, &cfg.path),
                        &cfg.trust,
                        cfg.insecure,
                    )?;
                    if (o.size, o.sha256) != (size, sha256) {
                        return Err(GetError::NotReplicas(p.to));
                    }
                    offers.push((p.to, o));
                }
            }
            for i in 0..paths.len() {
                drop_path(&mut paths, i, &poll, &mut rx, &clock);
            }
            for p in group {
                open_path(&mut paths, p, keys_of(&offers, p.to), conn, &poll)?;
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
            out.write(&read_buf[..n])?;
            if delivered > held {
                longest_stall = longest_stall.max(last_progress.elapsed());
            }
            delivered += n as u64;
            last_progress = std::time::Instant::now();
        }
        while let Some(ev) = rx.poll_app_event() {
            if ev == AppEvent::Closed {
                done = true;
            }
        }
        done |= delivered >= size;
        flush(&mut rx, &mut paths, &clock);
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
    // The FIN requests the engine queued for every pipe on completion.
    flush(&mut rx, &mut paths, &clock);
    let got = out.finish()?;
    if got != sha256 {
        let _ = std::fs::remove_file(&part);
        return Err(GetError::Corrupt);
    }
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
        first_contacts: offers
            .iter()
            .filter_map(|(to, o)| o.first_contact.map(|k| (*to, k)))
            .collect(),
        resumed_from: held,
        longest_stall_s: longest_stall.as_secs_f64(),
    })
}

pub use crate::crypto::hex;

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
