//! pTCP's TCP-v pipe (pTCP §3.2, §5.1): the TCP sender over *virtual*
//! bytes. The pipe runs its congestion control, RTT estimation and loss
//! recovery on a sequence space of its own, and hands its segments out as
//! headers with an offset and a length (`send()`); the pTCP engine binds
//! each to application data and adds the payload. The engine controls how
//! far the virtual space may grow (`set_virtual_end`): a pipe that reaches
//! that end is frozen (Figure 10's FREEZE) until the engine gives it more
//! (`resume()`).

use super::{Kind, TcpSender};
use crate::endpoint::PathId;
use crate::stream::SendBuffer;
use crate::tcp::TcpConfig;
use crate::time::Instant;

/// What the sender sends: real bytes, or a TCP-v pipe's virtual ones.
#[derive(Debug)]
pub(super) enum Stream {
    Real(SendBuffer),
    /// Virtual bytes up to `end`, which the pTCP engine sets.
    Virtual {
        end: u64,
    },
}

impl Stream {
    pub(super) fn real(capacity: usize) -> Self {
        Stream::Real(SendBuffer::new(capacity))
    }

    pub(super) fn end(&self) -> u64 {
        match self {
            Stream::Real(b) => b.end(),
            Stream::Virtual { end } => *end,
        }
    }

    pub(super) fn ack_to(&mut self, offset: u64) {
        if let Stream::Real(b) = self {
            b.ack_to(offset);
        }
    }

    pub(super) fn is_closed(&self) -> bool {
        matches!(self, Stream::Real(b) if b.is_closed())
    }

    pub(super) fn copy_range(&self, offset: u64, len: usize, out: &mut Vec<u8>) -> usize {
        match self {
            Stream::Real(b) => b.copy_range(offset, len, out),
            Stream::Virtual { .. } => 0,
        }
    }

    pub(super) fn write(&mut self, bytes: &[u8]) -> usize {
        match self {
            Stream::Real(b) => b.write(bytes),
            Stream::Virtual { .. } => 0,
        }
    }

    pub(super) fn free(&self) -> usize {
        match self {
            Stream::Real(b) => b.free(),
            Stream::Virtual { .. } => 0,
        }
    }

    pub(super) fn close(&mut self) {
        if let Stream::Real(b) = self {
            b.close();
        }
    }
}

/// A virtual segment a TCP-v pipe sends: its header is in the buffer
/// [`TcpSender::poll_virtual`] filled; the payload is the engine's to bind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VirtualSegment {
    /// Offset in the pipe's virtual space.
    pub offset: u64,
    /// Payload bytes the segment must carry.
    pub len: u64,
    /// The pipe sent this range before (a retransmission).
    pub retransmission: bool,
}

impl TcpSender {
    /// A TCP-v pipe on `path`: established at once (the pTCP engine runs the
    /// pipe's handshake), with no bytes to send until the engine grants
    /// some.
    pub fn virtual_pipe(config: TcpConfig, path: PathId) -> Self {
        let mut s = TcpSender::new(
            TcpConfig {
                handshake: false,
                ..config
            },
            path,
        );
        s.buffer = Stream::Virtual { end: 0 };
        s
    }

    /// Lets the virtual space grow to `end` (never shrinks it below what was
    /// sent) and sends what the window allows now (`resume()`; as ns-2's
    /// `sendmsg`, in loss recovery too, where the recovery's own rules —
    /// Sack1's pipe, NewReno's inflated window — gate it).
    pub fn set_virtual_end(&mut self, now: Instant, end: u64) {
        if let Stream::Virtual { end: e } = &mut self.buffer {
            let grown = end > *e;
            *e = end.max(self.max_seq);
            if grown {
                self.send_much(now, self.config.max_burst);
            }
        }
    }

    /// The next virtual segment: its header (window 0, ACK set) written into
    /// `buf`, its payload left to the caller.
    pub fn poll_virtual(&mut self, now: Instant, buf: &mut Vec<u8>) -> Option<VirtualSegment> {
        let p = self.next_segment(now, buf)?;
        debug_assert_eq!(p.kind, Kind::Data);
        Some(VirtualSegment {
            offset: p.offset,
            len: p.len,
            retransmission: p.again,
        })
    }

    /// One past the highest virtual byte sent (ns-2 `maxseq_`).
    pub fn max_seq(&self) -> u64 {
        self.max_seq
    }

    /// Bytes sent and not yet acknowledged cumulatively.
    pub fn outstanding(&self) -> u64 {
        self.max_seq.saturating_sub(self.acked())
    }

    /// The pipe's congestion window in bytes.
    pub fn cwnd(&self) -> u64 {
        self.cc.window().cwnd
    }

    /// Loss episodes so far (timeouts, fast recoveries): a change tells the
    /// engine the pipe shrank (`shrunk()`).
    pub fn losses(&self) -> (u64, u64) {
        (self.stats.timeouts, self.stats.fast_recoveries)
    }

    /// Halves the window (ssthresh kept): the pipe held up the receiver's
    /// buffer (MPTCP's penalisation of the slow subflow, Raiciu et al.,
    /// NSDI 2012).
    pub fn penalise(&mut self) {
        let cwnd = self.cc.window().cwnd;
        self.cc.set_cwnd((cwnd / 2).max(2 * self.config.mss));
    }

    /// The smoothed round-trip time, once sampled.
    pub fn srtt(&self) -> Option<crate::time::Duration> {
        self.rtt.srtt()
    }

    /// The shortest round trip sampled (the path's propagation), once
    /// sampled.
    pub fn min_rtt(&self) -> Option<crate::time::Duration> {
        self.rtt.min_rtt()
    }

    /// The smoothed mean deviation of the round-trip time, once sampled.
    pub fn rttvar(&self) -> Option<crate::time::Duration> {
        self.rtt.rttvar()
    }

    /// Scales the congestion-avoidance increase (a coupled multipath
    /// controller; see [`crate::cc::coupled`]).
    pub fn set_increase_scale(&mut self, scale: f64) {
        self.cc.set_increase_scale(scale);
    }

    /// True when the retransmission timer has backed off (the pipe has been
    /// silent for more than one timeout: a blackout).
    pub fn backed_off(&self) -> bool {
        self.rtt.backoff() > 1
    }
}
