//! The driver contract shared by every endpoint (docs/architecture.md, "the
//! driver contract").
//!
//! An endpoint is one side of one connection. It owns no socket and reads no
//! clock. A driver (the simulator or the UDP runtime) calls it in this order:
//!
//! 1. feed inputs: [`Endpoint::handle_datagram`] for each arriving datagram,
//!    [`Endpoint::handle_event`] for host events, and
//!    [`Endpoint::handle_timeout`] once `now` reaches [`Endpoint::poll_timeout`];
//! 2. move application data with [`Endpoint::write`] / [`Endpoint::read`];
//! 3. drain outputs: call [`Endpoint::poll_transmit`] until it returns `None`,
//!    and [`Endpoint::poll_app_event`] likewise;
//! 4. re-arm the driver's timer at [`Endpoint::poll_timeout`].
//!
//! Every input may create output, so step 3 follows every step 1 or 2.

use crate::cc::Algorithm;
use crate::time::{Duration, Instant};
use crate::units::BitRate;

/// Which of the endpoint's paths (local interface, remote address) a datagram
/// uses. The driver maps ids to addresses; a single-path endpoint uses
/// `PathId(0)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PathId(pub u16);

/// What a path runs over beyond its addresses: a local interface and the
/// sender it reaches. Successive paths of one route (the interface back
/// with a new address, a pipe opened again) cross the same network, so a
/// multi-path receiver may start a new path from what the route's last
/// path knew of it. The driver chooses the numbers; `None` where it cannot
/// tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RouteId(pub u64);

/// Events from the host, not carried in datagrams.
#[derive(Clone, Debug, PartialEq)]
pub enum HostEvent {
    /// The host's own wireless link lost this datagram, addressed to us, on
    /// `path` (the oracle that ELN assumes: the link layer knows which frames
    /// it failed to receive and hands their headers up).
    WirelessLoss {
        /// The path the datagram was lost on.
        path: PathId,
        /// The lost datagram, as sent.
        datagram: Vec<u8>,
    },
    /// The host put the interface of `path` to sleep (it saw the channel go
    /// bad; RCP paper §3.4.4): nothing is sent or received until
    /// [`HostEvent::InterfaceAwake`].
    InterfaceAsleep {
        /// The sleeping path.
        path: PathId,
    },
    /// The interface of `path` is awake again (a beacon found the channel
    /// good).
    InterfaceAwake {
        /// The woken path.
        path: PathId,
    },
    /// A path (a local interface and a remote sender) became usable: a
    /// multi-path receiver opens a pipe on it (R²CP §4.2).
    PathUp {
        /// The new path.
        path: PathId,
        /// The congestion controller for this interface (R²CP §4.3.3: "an
        /// external decision ... provided to R²CP through a system
        /// configuration or a socket option"); `None` for the connection's
        /// default.
        controller: Option<Algorithm>,
        /// The route the path runs over, if the driver knows it.
        route: Option<RouteId>,
    },
    /// The policy retires a path that still works (the end of a
    /// make-before-break overlap, or a migration away from a server): a
    /// multi-path receiver stops requesting on it, lets what it had asked for
    /// arrive, then closes the pipe.
    PathClose {
        /// The path to retire.
        path: PathId,
    },
    /// Hand the connection over from one path to another (make-before-break,
    /// R²CP §4.4.1): the pipe on `to` has first claim on the receive buffer,
    /// and `from` is retired, as by [`HostEvent::PathClose`], once `to`'s
    /// pipe has left slow start or its window alone holds what both have in
    /// flight.
    PathHandoff {
        /// The path to retire.
        from: PathId,
        /// The path taking over.
        to: PathId,
    },
    /// A path is gone (its interface went down): a multi-path receiver
    /// deletes its pipe at once and re-assigns what it had outstanding
    /// (R²CP §4.3.5).
    PathDown {
        /// The path that went away.
        path: PathId,
    },
    /// The interface of `path` lost its link (carrier or association gone,
    /// as the host sees it) but the path may come back: a multi-path
    /// receiver keeps the pipe, re-assigns what it had outstanding and
    /// stops its timers until [`HostEvent::LinkUp`].
    LinkDown {
        /// The path whose interface lost its link.
        path: PathId,
    },
    /// The interface of `path` has its link again: its pipe restarts at
    /// once, without waiting out a timer.
    LinkUp {
        /// The path whose interface is back.
        path: PathId,
    },
    /// The interface of `path` is about to lose its link: the host predicts
    /// it (signal strength falling) shortly before it happens. A Freeze-TCP
    /// receiver advertises a zero window.
    LinkWarning {
        /// The path whose link is about to go.
        path: PathId,
    },
    /// The host completed a handoff to a link of this bandwidth (TCP-HO
    /// §IV-B assumes the host knows the moment and a coarse bandwidth): a
    /// TCP-HO receiver notifies its sender.
    HandoffHint {
        /// The path that changed.
        path: PathId,
        /// The new link's bandwidth.
        bandwidth: BitRate,
    },
}

/// What an endpoint tells its application.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AppEvent {
    /// The connection is open.
    Established,
    /// Every byte written has been delivered and acknowledged, or the peer
    /// finished sending: the connection is closed.
    Closed,
}

/// Counters an endpoint keeps for measurement.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EndpointStats {
    /// Datagrams sent.
    pub datagrams_sent: u64,
    /// Payload bytes sent, retransmissions included.
    pub bytes_sent: u64,
    /// Data segments sent again.
    pub retransmits: u64,
    /// Retransmission timer expiries.
    pub timeouts: u64,
    /// Fast retransmits / loss-recovery episodes.
    pub fast_recoveries: u64,
    /// Datagrams that failed to decode.
    pub malformed: u64,
    /// Current congestion window in bytes (0 where there is none).
    pub cwnd: u64,
    /// Data segments that arrived (receivers that keep the count).
    pub data_arrivals: u64,
    /// Of those, the ones that found the receive buffer at least 75 % full
    /// (R²CP §4.4.3, Figure 9(c)).
    pub arrivals_buffer_75: u64,
    /// Payload bytes that arrived although already held (fetched twice).
    pub duplicate_bytes: u64,
    /// Data segments dropped on arrival because they answer no request: past
    /// what was ever asked for or past the receive buffer (a receiver
    /// stores only what it asked for, whatever a sender sends).
    pub unsolicited: u64,
    /// A PRISM proxy's re-sequencing buffer: bytes from the receiver's
    /// cumulative point to the highest byte it holds, as the last
    /// acknowledgment left them (PRISM Figure 14).
    pub resequencing_span: u64,
}

/// Per-path figures of a multi-path endpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PathStats {
    /// The path.
    pub path: PathId,
    /// New bytes the path brought into the receive buffer so far.
    pub delivered: u64,
    /// Its congestion window in bytes (0 once closed).
    pub cwnd: u64,
    /// How long the path's own handshake took, first SYN to SYN+ACK (paths
    /// that open one: R²CP pipes), once it is done.
    pub handshake: Option<Duration>,
}

/// One side of one connection, driven by the simulator or the UDP runtime.
pub trait Endpoint {
    /// A datagram arrived on `path`.
    fn handle_datagram(&mut self, now: Instant, path: PathId, datagram: &[u8]);

    /// A host event.
    fn handle_event(&mut self, now: Instant, event: HostEvent);

    /// Writes the next datagram to send into `buf` (cleared first) and returns
    /// its path, or `None` when there is nothing to send now.
    #[must_use]
    fn poll_transmit(&mut self, now: Instant, buf: &mut Vec<u8>) -> Option<PathId>;

    /// When [`Endpoint::handle_timeout`] must next be called.
    #[must_use]
    fn poll_timeout(&self) -> Option<Instant>;

    /// `now` reached (or passed) the time [`Endpoint::poll_timeout`] gave.
    fn handle_timeout(&mut self, now: Instant);

    /// Next event for the application.
    #[must_use]
    fn poll_app_event(&mut self) -> Option<AppEvent>;

    /// Queues application bytes for sending; returns how many were taken
    /// (fewer than offered when the send buffer is full). An endpoint that
    /// does not send (the receiving side) takes none, the default.
    fn write(&mut self, data: &[u8]) -> usize {
        let _ = data;
        0
    }

    /// Bytes [`Endpoint::write`] would take now (none by default).
    fn send_capacity(&self) -> usize {
        0
    }

    /// No more bytes will be written (nothing to do by default).
    fn close(&mut self) {}

    /// Reads in-order received bytes into `buf`; returns how many. An
    /// endpoint that does not receive (the sending side) has none, the
    /// default.
    fn read(&mut self, buf: &mut [u8]) -> usize {
        let _ = buf;
        0
    }

    /// Counters for measurement.
    fn stats(&self) -> EndpointStats;

    /// True when the endpoint copes with its interface sleeping (it freezes
    /// its timers and stops sending), so the host may sleep in bad channel
    /// states. False by default: a TCP endpoint keeps its interface awake.
    fn tolerates_sleep(&self) -> bool {
        false
    }

    /// The stream offset of the next byte [`Endpoint::write`] takes, when it
    /// can move ahead of what was written: an RCP sender whose receiver
    /// already holds the start of the stream skips it (R²CP §4.4.2, a replica
    /// joining a transfer), and a file-serving application seeks there.
    /// `None` for endpoints that take every byte in order.
    fn write_offset(&self) -> Option<u64> {
        None
    }

    /// Figures per path, for endpoints with several (an R²CP receiver's
    /// pipes, open or closed); empty otherwise.
    fn path_stats(&self) -> Vec<PathStats> {
        Vec::new()
    }
}
