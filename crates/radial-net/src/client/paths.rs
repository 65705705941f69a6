//! One path of a download: a socket bound to a local address, sealing what
//! it sends under the keys of the server it leads to, opening what it
//! receives, joining the connection and echoing receipts.

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;

use mio::net::UdpSocket;
use mio::Poll;
use radial_core::r2cp::R2cpReceiver;
use radial_core::{Endpoint, HostEvent, PathId, RouteId};

use super::{bind, PathConfig};
use crate::clock::Clock;
use crate::crypto::{Keys, ReplayWindow, HEADER_LEN};
use crate::session::{is_session, ErrorCode, Message};

/// Nonces gathered before an ECHO goes out.
const ECHO_BATCH: usize = 32;
/// Longest a received nonce waits to be echoed.
pub const ECHO_DELAY: std::time::Duration = std::time::Duration::from_millis(5);

/// A path's socket, and its `quinn-udp` state (GRO, GSO).
pub struct Sock {
    /// The socket.
    pub sock: UdpSocket,
    /// What the kernel offers on it.
    pub state: quinn_udp::UdpSocketState,
}

/// One path's socket.
pub struct PathSock {
    /// Where it goes.
    pub cfg: PathConfig,
    /// The socket and what the kernel offers on it, until the path is
    /// dropped.
    pub sock: Option<Sock>,
    /// When its server was last heard on it.
    pub heard: std::time::Instant,
    /// The keys of the connection to the server it leads to.
    pub keys: Arc<Keys>,
    /// The next packet number it sends.
    pn: u64,
    /// The packet numbers it received.
    pub replay: ReplayWindow,
    /// The server accepted its join.
    pub joined: bool,
    join_sent: std::time::Instant,
    /// Envelope nonces received and not echoed yet, and since when.
    pub echo: Vec<u32>,
    echo_since: std::time::Instant,
    /// Scratch space for sealing.
    buf: Vec<u8>,
    /// The bundle of requests being put together for the path.
    bundle: Vec<u8>,
    /// Scratch space for a message to bundle.
    scratch: Vec<u8>,
}

/// What a datagram that arrived on a path is to the download.
#[derive(Debug, PartialEq, Eq)]
pub enum Incoming<'a> {
    /// The server accepted the path's join, with this challenge to echo.
    Joined([u8; 8]),
    /// A datagram of the path's pipe, for the R²CP engine (its receipt
    /// nonce noted, to be echoed).
    Pipe(&'a [u8]),
    /// The server ended the transfer: its error code and message.
    Error(ErrorCode, String),
    /// Anything else: from elsewhere, forged, corrupted, replayed, for
    /// another connection or path, or not understood. Dropped.
    Ignored,
}

impl PathSock {
    /// A path to `cfg.to` over `sock` (none: a path that sends nothing,
    /// for tests), secured by `keys`, its join not sent yet.
    pub fn new(cfg: PathConfig, sock: Option<Sock>, keys: Arc<Keys>) -> PathSock {
        let long_ago = std::time::Instant::now()
            .checked_sub(std::time::Duration::from_secs(3600))
            .unwrap_or_else(std::time::Instant::now);
        PathSock {
            cfg,
            sock,
            heard: std::time::Instant::now(),
            keys,
            pn: 0,
            replay: ReplayWindow::default(),
            joined: false,
            join_sent: long_ago,
            echo: Vec::new(),
            echo_since: std::time::Instant::now(),
            buf: Vec::with_capacity(2048),
            bundle: Vec::with_capacity(crate::bundle::MAX_BUNDLE),
            scratch: Vec::with_capacity(64),
        }
    }

    /// This path's number (its index; the high 16 bits of its pipe's
    /// connection id).
    pub(super) fn id(i: usize) -> u16 {
        i as u16
    }

    /// Datagram `d` arrived from `from` on path `i` of connection `conn`:
    /// only what comes from the path's server, opens under its keys on the
    /// path's own number and was not seen before counts (the server's
    /// JOINED, or a pipe datagram in the receipt guard's envelope). `d` is
    /// opened in place.
    pub fn accept<'a>(
        &mut self,
        i: usize,
        conn: u16,
        from: SocketAddr,
        d: &'a mut [u8],
    ) -> Incoming<'a> {
        if from != self.cfg.to {
            return Incoming::Ignored;
        }
        let insecure = self.keys.insecure();
        let Ok((id, pn, plain)) = self.keys.open(d) else {
            return Incoming::Ignored;
        };
        if usize::from(id) != i || !self.replay.is_new(pn, insecure) {
            return Incoming::Ignored;
        }
        let plain: &'a [u8] = plain;
        // The replay window moves only for what passes every check.
        let incoming = self.classify(conn, i, plain);
        if !matches!(incoming, Incoming::Ignored) {
            self.replay.record(pn);
        }
        if let (Incoming::Pipe(_), Some((nonce, _))) = (&incoming, crate::guard::open(plain)) {
            self.received(nonce);
        }
        incoming
    }

    /// What an opened datagram of path `i` of connection `conn` is.
    fn classify<'a>(&self, conn: u16, i: usize, plain: &'a [u8]) -> Incoming<'a> {
        if is_session(plain) {
            return match Message::parse(plain) {
                Ok(Message::Joined {
                    conn: c,
                    path: p,
                    challenge,
                }) if c == conn && usize::from(p) == i => Incoming::Joined(challenge),
                Ok(Message::Error {
                    conn: c,
                    code,
                    message,
                }) if c == conn => Incoming::Error(code, message),
                _ => Incoming::Ignored,
            };
        }
        match crate::guard::open(plain) {
            Some((_, inner)) => Incoming::Pipe(inner),
            None => Incoming::Ignored,
        }
    }

    /// Seals `inner` and sends it to the path's server.
    pub fn send(&mut self, i: usize, inner: &[u8]) {
        let Some(s) = &self.sock else {
            return;
        };
        self.buf.clear();
        self.buf.resize(HEADER_LEN, 0);
        self.buf.extend_from_slice(inner);
        self.keys.seal(Self::id(i), self.pn, &mut self.buf);
        self.pn += 1;
        // A full socket buffer loses the datagram, as a network would.
        let _ = s.sock.send(&self.buf);
    }

    fn send_message(&mut self, i: usize, m: &Message) {
        let mut d = Vec::with_capacity(64);
        m.emit(&mut d);
        self.send(i, &d);
    }

    /// Notes a received envelope nonce, to be echoed.
    pub fn received(&mut self, nonce: u32) {
        if self.echo.is_empty() {
            self.echo_since = std::time::Instant::now();
        }
        self.echo.push(nonce);
        self.heard = std::time::Instant::now();
    }

    /// Puts the nonces waiting to be echoed into `bundle`, a bundle about
    /// to start with this path's requests, as far as they fit: the
    /// receipts ride with the requests instead of in a datagram of their
    /// own. Those that do not fit wait for [`PathSock::echo`].
    fn echo_into(&mut self, conn: u16, i: usize, bundle: &mut Vec<u8>) {
        while !self.echo.is_empty() {
            let n = self.echo.len().min(crate::session::MAX_ECHO);
            self.scratch.clear();
            crate::session::emit_echo(conn, Self::id(i), &self.echo[..n], &mut self.scratch);
            if !crate::bundle::push(bundle, &self.scratch) {
                return;
            }
            self.echo.drain(..n);
        }
    }

    /// Adds datagram `d` of the path's pipe to the bundle being put
    /// together (started with the receipts waiting to be echoed), sending
    /// the bundle first if `d` does not fit.
    pub fn bundle(&mut self, conn: u16, i: usize, d: &[u8]) {
        let mut b = std::mem::take(&mut self.bundle);
        if b.is_empty() {
            self.echo_into(conn, i, &mut b);
        }
        if !crate::bundle::push(&mut b, d) {
            self.send(i, &b);
            b.clear();
            crate::bundle::push(&mut b, d);
        }
        self.bundle = b;
    }

    /// Sends the bundle put together, if any.
    pub fn send_bundle(&mut self, i: usize) {
        if !self.bundle.is_empty() {
            let b = std::mem::take(&mut self.bundle);
            self.send(i, &b);
            self.bundle = b;
            self.bundle.clear();
        }
    }

    /// Echoes the nonces received (the receipt guard) in a datagram of
    /// their own, when a batch is full or the oldest has waited
    /// [`ECHO_DELAY`] with no request to ride with.
    pub fn echo(&mut self, conn: u16, i: usize) {
        if self.echo.is_empty()
            || (self.echo.len() < ECHO_BATCH && self.echo_since.elapsed() < ECHO_DELAY)
        {
            return;
        }
        let echo = std::mem::take(&mut self.echo);
        for chunk in echo.chunks(crate::session::MAX_ECHO) {
            let m = Message::Echo {
                conn,
                path: Self::id(i),
                nonces: chunk.to_vec(),
            };
            self.send_message(i, &m);
        }
    }

    /// Sends (again) the JOIN that lets this path open its pipe, if the
    /// last one went unanswered for `retry`.
    pub fn join(&mut self, conn: u16, i: usize, retry: std::time::Duration) {
        if self.joined || self.sock.is_none() || self.join_sent.elapsed() < retry {
            return;
        }
        self.send_message(
            i,
            &Message::Join {
                conn,
                path: Self::id(i),
            },
        );
        self.join_sent = std::time::Instant::now();
    }
}

/// Takes what the paths that `events` names received: `each` gets every
/// datagram's meaning and its path's index. Returns how many datagrams
/// came.
pub fn receive_each(
    paths: &mut [PathSock],
    events: &mio::Events,
    receiver: &mut crate::batch::Receiver,
    conn: u16,
    mut each: impl FnMut(usize, Incoming<'_>),
) -> usize {
    let mut datagrams = 0;
    for ev in events {
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
                datagrams += 1;
                each(i, path.accept(i, conn, from, d));
            });
            // Fewer than a full batch: the queue was empty when the call
            // returned, and the socket is registered edge-triggered, so a
            // datagram arriving later raises a new event. Asking again only
            // to hear "would block" cost a system call per path per wake.
            if n < receiver.capacity() {
                break;
            }
        }
        path.sock = Some(sock);
    }
    datagrams
}

/// How long a host's loop may sleep: until `deadline` (the engine's next
/// timer), or an echo is due on a path, and at most 100 ms.
pub fn sleep_for(
    clock: &Clock,
    deadline: Option<radial_core::Instant>,
    paths: &[PathSock],
) -> std::time::Duration {
    let most = std::time::Duration::from_millis(100);
    let wait = deadline.map_or(most, |t| clock.until(t).min(most));
    if paths.iter().any(|p| !p.echo.is_empty()) {
        wait.min(ECHO_DELAY)
    } else {
        wait
    }
}

/// Binds a socket for `p` as path `paths.len()` and joins it to the
/// connection `keys` secure; its pipe opens when the server accepts the
/// join.
pub fn open_path(
    paths: &mut Vec<PathSock>,
    p: PathConfig,
    keys: Arc<Keys>,
    conn: u16,
    poll: &Poll,
) -> io::Result<()> {
    let id = paths.len();
    let sock = bind(p.via, poll, id)?;
    // Connected to its server: the kernel keeps the route, so a send skips
    // the route lookup (a path's socket talks to no one else).
    sock.connect(p.to)?;
    let state = crate::batch::state(&sock)?;
    let mut ps = PathSock::new(p, Some(Sock { sock, state }), keys);
    ps.join(conn, id, std::time::Duration::ZERO);
    paths.push(ps);
    Ok(())
}

/// The route path `i` runs over: a path from the same local address to the
/// same server as an earlier one (the address back after it went) crosses
/// the same network, so both are named by the first such path.
pub fn route_of(paths: &[PathSock], i: usize) -> RouteId {
    let cfg = paths[i].cfg;
    let first = paths
        .iter()
        .position(|q| q.cfg.via.ip() == cfg.via.ip() && q.cfg.to == cfg.to)
        .unwrap_or(i);
    RouteId(first as u64)
}

/// The server accepted path `i`'s join: echo its challenge and open the
/// pipe.
pub fn on_joined(
    paths: &mut [PathSock],
    i: usize,
    conn: u16,
    challenge: [u8; 8],
    rx: &mut R2cpReceiver,
    clock: &Clock,
) {
    if validate(paths, i, conn, challenge) {
        rx.handle_event(
            clock.now(),
            HostEvent::PathUp {
                path: PathId(PathSock::id(i)),
                controller: None,
                route: Some(route_of(paths, i)),
            },
        );
    }
}

/// The server accepted path `i`'s join: echo its challenge. True the
/// first time, when the caller opens the path's pipes.
pub fn validate(paths: &mut [PathSock], i: usize, conn: u16, challenge: [u8; 8]) -> bool {
    let p = &mut paths[i];
    if p.joined {
        return false;
    }
    p.send_message(
        i,
        &Message::Validate {
            conn,
            path: PathSock::id(i),
            echo: challenge,
        },
    );
    p.joined = true;
    p.heard = std::time::Instant::now();
    true
}

/// Closes path `i`'s socket and tells the receiver its interface is gone.
pub fn drop_path(
    paths: &mut [PathSock],
    i: usize,
    poll: &Poll,
    rx: &mut R2cpReceiver,
    clock: &Clock,
) {
    if close_path(paths, i, poll) {
        rx.handle_event(
            clock.now(),
            HostEvent::PathDown {
                path: PathId(PathSock::id(i)),
            },
        );
    }
}

/// Closes path `i`'s socket; true if it was open, when the caller ends the
/// path's pipes.
pub fn close_path(paths: &mut [PathSock], i: usize, poll: &Poll) -> bool {
    match paths[i].sock.take() {
        Some(mut s) => {
            let _ = poll.registry().deregister(&mut s.sock);
            true
        }
        None => false,
    }
}

/// Sends what the receiver has to send: each path's requests bundled with
/// the receipts it has to echo, sealed, and sent in as few datagrams as
/// fit; a path with receipts and no requests echoes them alone when they
/// are due.
pub fn flush(rx: &mut R2cpReceiver, paths: &mut [PathSock], clock: &Clock, conn: u16) {
    let mut d = Vec::with_capacity(128);
    let now = clock.now();
    while let Some(p) = rx.poll_transmit(now, &mut d) {
        let i = usize::from(p.0);
        if let Some(path) = paths.get_mut(i) {
            path.bundle(conn, i, &d);
        }
    }
    for (i, p) in paths.iter_mut().enumerate() {
        p.send_bundle(i);
        p.echo(conn, i);
    }
}
