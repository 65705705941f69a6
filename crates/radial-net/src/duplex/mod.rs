//! One connection's two directions over its paths, sans-IO: what a host
//! and a server each run to carry many byte streams both ways.
//!
//! Both directions are receiver-driven. Each side runs an R²CP receiver
//! for what comes in (the host's pulls the downlink, the server's the
//! uplink) and one unchanged RCP sender per path for what goes out, so on
//! every path two pipes run, one each way, over the same addresses: the
//! host's paths are the ones its pipes came from, and the server opens
//! nothing toward an address that did not reach it first. A pipe's
//! connection id says which direction it belongs to: the connection's
//! number in the low 16 bits, the path's in the next 15, and the top bit
//! set on the uplink's pipes ([`UPLINK`]).
//!
//! On top, a [`Mux`] cuts the streams into frames on each direction's
//! ordered byte sequence; [`Duplex::streams`] is the application's handle
//! on it. What each side holds is bounded: the outgoing bytes by
//! [`DuplexConfig::send_limit`] and the receiver's buffer, the incoming by
//! the R²CP receive buffer and the streams' windows.
//!
//! A driver calls it as it calls an endpoint (`docs/architecture.md`, the
//! driver contract): feed datagrams and timeouts, then drain
//! [`Duplex::poll_transmit`] and re-arm the timer at
//! [`Duplex::poll_timeout`]; after any stream operation, drain again.

mod outbound;
#[cfg(test)]
mod tests;

use std::fmt;

use radial_core::r2cp::{R2cpConfig, R2cpReceiver};
use radial_core::rcp::RcpConfig;
use radial_core::wire::rcp::RcpHeader;
use radial_core::{AppEvent, Endpoint, HostEvent, Instant, PathId, RouteId};

use crate::config::{r2cp_config_for, rcp_config_for, MSS};
use crate::mux::{Mux, MuxConfig, MuxError, Side};
use outbound::Outbound;
pub use outbound::PAD_DELAY;

/// The bit of a pipe's path number (the high 16 bits of its connection id)
/// that marks the uplink: pipes the server's receiver runs.
pub const UPLINK: u16 = 0x8000;

/// A connection's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DuplexConfig {
    /// The connection's number: the low 16 bits of every pipe's id.
    pub conn: u16,
    /// This side's receiver (its `pipe.window` is the receive buffer).
    pub inbound: R2cpConfig,
    /// This side's senders, one per path.
    pub outbound: RcpConfig,
    /// The streams' limits.
    pub mux: MuxConfig,
    /// Most bytes of the outgoing sequence held at once: written by the
    /// streams and not yet in order at the peer.
    pub send_limit: usize,
    /// Most bytes the streams hold received and not yet read, together:
    /// past it the connection takes nothing more from its receiver, whose
    /// buffer then fills and holds the peer's senders back (flow control
    /// for the connection as a whole; each stream's window bounds one
    /// stream).
    pub recv_limit: usize,
    /// How long a segment a streaming writer left partial waits for its
    /// next bytes before it is padded ([`PAD_DELAY`]; zero pads at once,
    /// as a quiet writer's always is).
    pub pad_delay: radial_core::Duration,
}

impl DuplexConfig {
    /// The runtime's parameters for connection `conn` (as `radial get`
    /// uses for a download), each direction's buffer as large as the
    /// receive buffer.
    pub fn new(conn: u16) -> Self {
        DuplexConfig::with_segment(conn, MSS)
    }

    /// [`DuplexConfig::new`] with `segment` payload bytes per segment both
    /// ways (what the host's OPEN said), the buffers as large in bytes.
    pub fn with_segment(conn: u16, segment: u64) -> Self {
        let inbound = r2cp_config_for(conn, segment);
        let buffer = inbound.rwnd_bytes();
        DuplexConfig {
            conn,
            inbound,
            outbound: rcp_config_for(u32::from(conn), segment),
            // A stream's window grows to half the connection's buffer at
            // most: one whose reader stops leaves the other half to the
            // others.
            mux: MuxConfig {
                max_window: buffer / 2,
                ..MuxConfig::default()
            },
            send_limit: usize::try_from(buffer).unwrap_or(usize::MAX),
            recv_limit: usize::try_from(buffer).unwrap_or(usize::MAX),
            pad_delay: PAD_DELAY,
        }
    }
}

/// Why a connection cannot go on, or a path cannot join it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DuplexError {
    /// The peer broke the stream framing; the connection ends.
    Mux(MuxError),
    /// A path number at or above [`UPLINK`].
    PathOutOfRange {
        /// The path.
        path: u16,
    },
}

impl fmt::Display for DuplexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DuplexError::Mux(e) => write!(f, "{e}"),
            DuplexError::PathOutOfRange { path } => {
                write!(f, "path {path}: path numbers end below {UPLINK}")
            }
        }
    }
}

impl std::error::Error for DuplexError {}

/// What a connection counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DuplexStats {
    /// Bytes of the incoming sequence delivered in order.
    pub received: u64,
    /// Datagrams that named another connection or did not parse.
    pub malformed: u64,
    /// Bytes of padding in the outgoing sequence: a segment's rest, each
    /// time the streams ran dry mid-segment.
    pub padded: u64,
}

/// One side of a connection: an R²CP receiver in, RCP senders out, streams
/// on top.
#[derive(Debug)]
pub struct Duplex {
    side: Side,
    config: DuplexConfig,
    mux: Mux,
    inbound: R2cpReceiver,
    outbound: Outbound,
    /// The paths, as the driver numbers them.
    paths: Vec<PathId>,
    /// Whether the next transmit tries the outbound senders first.
    outbound_first: bool,
    established: bool,
    peer_closed: bool,
    failed: Option<DuplexError>,
    /// The receiver's next datagram (a request), before it is placed.
    requests: Vec<u8>,
    stats: DuplexStats,
    /// The receiver had delivered this much when the last bytes left in it
    /// were the start of a frame whose end had not come: nothing for a
    /// turn to take until more comes.
    frame_wait: Option<u64>,
}

impl Duplex {
    /// The `side` end of a connection with no path yet.
    pub fn new(side: Side, config: DuplexConfig) -> Self {
        Duplex {
            side,
            mux: Mux::new(side, config.mux),
            inbound: R2cpReceiver::new(config.inbound),
            outbound: Outbound::new(config.send_limit, config.inbound.pipe.mss, config.pad_delay),
            config,
            paths: Vec::new(),
            outbound_first: false,
            established: false,
            peer_closed: false,
            failed: None,
            requests: Vec::new(),
            stats: DuplexStats::default(),
            frame_wait: None,
        }
    }

    /// Payload bytes per segment, both ways.
    pub fn segment(&self) -> u64 {
        self.config.inbound.pipe.mss
    }

    /// The streams: open, accept, read and write them here.
    pub fn streams(&mut self) -> &mut Mux {
        &mut self.mux
    }

    /// The receiver of the incoming direction, for its figures.
    pub fn inbound(&self) -> &R2cpReceiver {
        &self.inbound
    }

    /// The id the receiver of this side gives `path`'s pipe.
    fn inbound_id(&self, path: PathId) -> PathId {
        match self.side {
            Side::Host => path,
            Side::Server => PathId(path.0 | UPLINK),
        }
    }

    /// The id the peer's receiver gives `path`'s pipe, whose sender is
    /// ours.
    fn outbound_id(&self, path: PathId) -> PathId {
        match self.side {
            Side::Host => PathId(path.0 | UPLINK),
            Side::Server => path,
        }
    }

    /// `path` is usable: this side's receiver opens its pipe on it (over
    /// `route`, if this side can tell it: see [`HostEvent::PathUp`]), and a
    /// sender waits for the peer's.
    pub fn add_path(
        &mut self,
        now: Instant,
        path: PathId,
        route: Option<RouteId>,
    ) -> Result<(), DuplexError> {
        if path.0 >= UPLINK {
            return Err(DuplexError::PathOutOfRange { path: path.0 });
        }
        if self.paths.contains(&path) {
            return Ok(());
        }
        self.paths.push(path);
        let id = self.outbound_id(path);
        let mut c = self.config.outbound;
        c.conn_id = R2cpConfig::pipe_conn_id(u32::from(self.config.conn), id);
        self.outbound.add(path, c);
        let path = self.inbound_id(path);
        self.inbound.handle_event(
            now,
            HostEvent::PathUp {
                path,
                controller: None,
                route,
            },
        );
        self.drain_inbound();
        Ok(())
    }

    /// `path` is gone: its pipes end, and what they held outstanding is
    /// asked for again on the others.
    pub fn remove_path(&mut self, now: Instant, path: PathId) {
        let Some(i) = self.paths.iter().position(|&p| p == path) else {
            return;
        };
        self.paths.remove(i);
        self.outbound.remove(path);
        let path = self.inbound_id(path);
        self.inbound.handle_event(now, HostEvent::PathDown { path });
        self.drain_inbound();
    }

    /// The paths, in the order they came.
    pub fn paths(&self) -> &[PathId] {
        &self.paths
    }

    /// A datagram arrived on `path`: to this side's receiver if it belongs
    /// to the incoming direction's pipe, to the path's sender otherwise.
    pub fn handle_datagram(&mut self, now: Instant, path: PathId, datagram: &[u8]) {
        let Ok((h, _)) = RcpHeader::parse(datagram) else {
            self.stats.malformed += 1;
            return;
        };
        if h.conn_id & 0xffff != u32::from(self.config.conn) || !self.paths.contains(&path) {
            self.stats.malformed += 1;
            return;
        }
        let uplink = (h.conn_id >> 16) as u16 & UPLINK != 0;
        if uplink == (self.side == Side::Server) {
            let path = self.inbound_id(path);
            self.inbound.handle_datagram(now, path, datagram);
            self.drain_inbound();
        } else {
            self.outbound.on_header(now, path, &h);
        }
    }

    /// Holds the incoming direction's requests until
    /// [`Duplex::release_requests`]: the datagrams handled meanwhile
    /// arrived together (see [`R2cpReceiver::hold_requests`]).
    pub fn hold_requests(&mut self) {
        self.inbound.hold_requests();
    }

    /// Ends [`Duplex::hold_requests`]: the incoming direction's pipes ask
    /// at `now` for what the datagrams handled meanwhile let them.
    pub fn release_requests(&mut self, now: Instant) {
        self.inbound.release_requests(now);
    }

    /// Moves what the receiver holds in order into the streams, while they
    /// hold less than [`DuplexConfig::recv_limit`] unread.
    fn drain_inbound(&mut self) {
        while let Some(e) = self.inbound.poll_app_event() {
            match e {
                AppEvent::Established => self.established = true,
                AppEvent::Closed => self.peer_closed = true,
            }
        }
        if self.failed.is_some() {
            return;
        }
        self.frame_wait = None;
        loop {
            // The receiver's ready bytes go to the mux where they lie, whole
            // frames at a time: a frame whose end has not come stays in the
            // receiver until it does (only one that spans the receiver's
            // wrap is put together in the mux), so each byte is copied
            // once, into its stream. At the end of the sequence the rest
            // goes as it is.
            let room = self.config.recv_limit.saturating_sub(self.mux.buffered());
            let (a, b) = self.inbound.ready();
            let all = a.len() + b.len();
            let a = &a[..a.len().min(room)];
            let b = &b[..b.len().min(room - a.len())];
            let n = a.len() + b.len();
            if n == 0 {
                break;
            }
            let whole = n == all;
            let last = whole && self.peer_closed;
            let mux = &mut self.mux;
            let fed = (|| {
                let mut used = mux.take_frames(a)?;
                if used == a.len() || (whole && !b.is_empty()) || last {
                    if used < a.len() {
                        mux.on_bytes(&a[used..])?;
                        used = a.len();
                    }
                    used += mux.take_frames(b)?;
                }
                if last && used < n {
                    mux.on_bytes(&b[used - a.len()..])?;
                    used = n;
                }
                Ok(used)
            })();
            let used = match fed {
                Ok(used) => used,
                Err(e) => {
                    self.failed = Some(DuplexError::Mux(e));
                    return;
                }
            };
            self.inbound.consume(used);
            self.stats.received += used as u64;
            if used < n {
                // The start of a frame: it waits for the rest (or, when
                // the streams' room cut it, for the application to read).
                if whole {
                    self.frame_wait = Some(self.inbound.delivered());
                }
                break;
            }
        }
    }

    /// Writes the next datagram into `buf` and returns its path, or `None`
    /// when there is nothing to send now. The two directions' pipes take
    /// turns.
    pub fn poll_transmit(&mut self, now: Instant, buf: &mut Vec<u8>) -> Option<PathId> {
        self.poll_transmit_after(now, buf, 0)
    }

    /// [`Duplex::poll_transmit`], writing the datagram after the first
    /// `keep` bytes of `buf` (room for what encloses it), so that a data
    /// segment's payload is copied once on its way from the streams to the
    /// socket.
    pub fn poll_transmit_after(
        &mut self,
        now: Instant,
        buf: &mut Vec<u8>,
        keep: usize,
    ) -> Option<PathId> {
        buf.truncate(keep);
        buf.resize(keep, 0);
        if self.failed.is_some() {
            return None;
        }
        // The application may have read: take what waited in the receiver.
        self.drain_inbound();
        // The peer closed and no stream is left: this side closes too.
        if self.peer_closed && self.mux.open_streams() == 0 {
            self.outbound.close();
        }
        self.outbound.fill(now, &mut self.mux);
        self.outbound_first = !self.outbound_first;
        for first in [self.outbound_first, !self.outbound_first] {
            let sent = if first {
                self.outbound.poll(now, buf)
            } else {
                let p = self.inbound.poll_transmit(now, &mut self.requests);
                if p.is_some() {
                    buf.extend_from_slice(&self.requests);
                }
                p.map(|p| PathId(p.0 & !UPLINK))
            };
            if sent.is_some() {
                return sent;
            }
        }
        None
    }

    /// When [`Duplex::handle_timeout`] must next be called.
    pub fn poll_timeout(&self) -> Option<Instant> {
        [self.inbound.poll_timeout(), self.outbound.next_timeout()]
            .into_iter()
            .flatten()
            .min()
    }

    /// `now` reached [`Duplex::poll_timeout`].
    pub fn handle_timeout(&mut self, now: Instant) {
        if self.inbound.poll_timeout().is_some_and(|t| t <= now) {
            self.inbound.handle_timeout(now);
            self.drain_inbound();
        }
        self.outbound.on_timeout(now);
    }

    /// Ends the outgoing sequence once every stream has ended both ways
    /// and sent what it holds; the peer's receiver then closes its pipes.
    /// No stream opens after it.
    pub fn close(&mut self) {
        self.outbound.close();
    }

    /// [`Duplex::close`] was called, or the peer closed and no stream was
    /// left: no stream opens any more.
    pub fn is_closing(&self) -> bool {
        self.outbound.is_closing()
    }

    /// The peer ended its sequence: it opens no more streams.
    pub fn peer_closed(&self) -> bool {
        self.peer_closed
    }

    /// The application has something to let go: a CREDIT to send, or
    /// bytes waiting in the receiver that the streams' limit held back
    /// (the driver should take a turn).
    pub fn wants_turn(&self) -> bool {
        let delivered = self.inbound.delivered();
        self.mux.wants_transmit()
            || (delivered > self.stats.received && self.frame_wait != Some(delivered))
    }

    /// The first pipe of the incoming direction is open.
    pub fn is_established(&self) -> bool {
        self.established
    }

    /// Both sequences ended and were received whole, and every byte that
    /// came has been handed to the streams.
    pub fn is_closed(&self) -> bool {
        self.peer_closed && self.outbound.done() && self.stats.received == self.inbound.delivered()
    }

    /// Why the connection ended, if it failed.
    pub fn error(&self) -> Option<DuplexError> {
        self.failed
    }

    /// Bytes of the outgoing sequence held (written by the streams, not
    /// yet in order at the peer).
    pub fn held(&self) -> usize {
        self.outbound.held()
    }

    /// The counters.
    pub fn stats(&self) -> DuplexStats {
        DuplexStats {
            padded: self.outbound.padded(),
            ..self.stats
        }
    }
}
