//! `radial get`: downloads a file with one R²CP pipe per local address
//! (R²CP §4.2), checks it against the SHA-256 the server announced, and
//! reports per pipe. Paths can be dropped and added while the transfer runs
//! ([`Control`]), which drives handoffs. Every datagram is sealed under the
//! keys of a handshake that authenticated the server ([`Trust`]).

pub(crate) mod ask;
mod part;
pub mod paths;
mod transfer;
mod writer;

pub use transfer::get;

pub use ask::Trust;

use std::io;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use mio::net::UdpSocket;
use mio::{Interest, Poll, Token};

use ask::{ask, Offered};

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
    /// The largest file accepted: a larger offer is refused before
    /// anything is written ([`DEFAULT_MAX_SIZE`] by default).
    pub max_size: u64,
    /// Let datagrams gather for a short pause after a wake that brought
    /// few, so that one wake handles several (on by default; see
    /// `docs/performance.md`, "Wake moderation").
    pub moderate_wakes: bool,
    /// Payload bytes per segment ([`crate::config::MSS`] by default, which
    /// any path carries; [`crate::config::LOOPBACK_SEGMENT`] suits paths
    /// over the loopback device). Every path of the connection must carry
    /// datagrams of this size: the runtime does not discover path MTUs.
    pub segment: u64,
}

/// The largest file a download accepts unless told otherwise: 64 GiB.
pub const DEFAULT_MAX_SIZE: u64 = 64 << 30;

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
            max_size: DEFAULT_MAX_SIZE,
            moderate_wakes: true,
            segment: crate::config::MSS,
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
    /// Servers met for the first time since the last report, whose keys
    /// are now trusted.
    pub first_contacts: Vec<(SocketAddr, [u8; 32])>,
}

/// One pipe's share.
#[derive(Clone, Debug, PartialEq)]
pub struct PipeSummary {
    /// The local address it used.
    pub via: SocketAddr,
    /// The server address it sent to.
    pub to: SocketAddr,
    /// New bytes it brought.
    pub bytes: u64,
    /// Its working life in seconds: from the progress sample before its
    /// first bytes to the one after its last (to within 100 ms).
    pub seconds: f64,
}

impl PipeSummary {
    /// Its goodput over its working life, in Mbit/s.
    pub fn mbps(&self) -> f64 {
        self.bytes as f64 * 8.0 / self.seconds.max(1e-3) / 1e6
    }
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
    /// No progress for `STALL` (30 s).
    Stalled {
        /// Bytes delivered by then.
        delivered: u64,
    },
    /// The file's SHA-256 differs from the server's.
    Corrupt,
    /// The server's file changed while it was sent: what arrived cannot
    /// make the file it offered.
    Changed,
    /// The server offered a file larger than allowed
    /// ([`GetConfig::max_size`]).
    TooLarge {
        /// The size offered.
        size: u64,
        /// The largest allowed.
        max: u64,
    },
    /// The output file's file system has no room for what is to come.
    NoSpace {
        /// Bytes still to be written.
        need: u64,
        /// Bytes free there.
        free: u64,
        /// The directory written to.
        dir: PathBuf,
    },
    /// The `.part` file is not one the download may write: a symbolic
    /// link, another user's, or linked elsewhere too.
    UnsafePart {
        /// The `.part` file.
        path: PathBuf,
        /// Why.
        why: String,
    },
    /// Two servers offered different files for the same path.
    NotReplicas(SocketAddr),
    /// A segment size no connection may use.
    Segment(u64),
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
            GetError::Changed => write!(
                f,
                "the file changed on the server while it was sent (download it again)"
            ),
            GetError::TooLarge { size, max } => write!(
                f,
                "the server offers {size} bytes, more than the {max} allowed (--max-size)"
            ),
            GetError::NoSpace { need, free, dir } => write!(
                f,
                "{} has {free} bytes free, {need} are needed",
                dir.display()
            ),
            GetError::UnsafePart { path, why } => {
                write!(f, "{}: {why}; refusing to write through it", path.display())
            }
            GetError::NotReplicas(a) => write!(f, "{a} offers a different file under that path"),
            GetError::Segment(s) => write!(
                f,
                "a segment of {s} bytes: a connection's segments are {} to {} bytes",
                crate::config::MSS,
                crate::config::MAX_SEGMENT
            ),
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
pub(crate) fn random_conn() -> u16 {
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

/// `segment` as a GET or OPEN carries it, if a connection may use it.
pub(crate) fn wire_segment(segment: u64) -> Result<u16, GetError> {
    match u16::try_from(segment) {
        Ok(w) if crate::config::segment_allowed(segment) => Ok(w),
        _ => Err(GetError::Segment(segment)),
    }
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
                (conn, wire_segment(cfg.segment)?, &cfg.path),
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
