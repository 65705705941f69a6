//! The engine's parameters.

use super::{Rules, Scheduling, TargetRate};
use crate::cc::coupled::Coupling;
use crate::endpoint::PathId;
use crate::rcp::RcpConfig;
use crate::time::Duration;

/// How long past its request the head of line may wait on a pipe slower
/// than another that could fetch it, once its answer is overdue: the bound
/// on a stall while a working path is up is this plus that path's round
/// trip.
pub const HOL_PATIENCE: Duration = Duration::from_secs(1);

/// How the engine keeps what it asks for within the receive buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FlowControl {
    /// Each request reserves room for its segment until the application
    /// reads it (RCP §3.3.4: a "dummy" buffer for each segment requested;
    /// R²CP §4.3.4: a pipe freezes when "the number of outstanding data is
    /// equal to the available buffer space"): what the application has not
    /// read, what arrived out of order and what is requested never exceed
    /// the buffer, however far ahead in the stream a segment lies. A
    /// segment whose request was lost keeps its room; while no request was
    /// ever made for the head of line, a segment of room is kept for it;
    /// and a pipe takes room only once every quicker working pipe could
    /// fill the window it grows to meanwhile (room held for a round trip
    /// brings one segment per round trip, so a short buffer goes to the
    /// quickest pipes first). The default: a buffer shorter than the
    /// connection's rate times its slowest round trip still carries every
    /// path (docs/protocols.md says what it costs a handoff).
    #[default]
    Reserve,
    /// No request ends past the application's read point plus the buffer,
    /// as a TCP sender's window: the receiver names a segment a round trip
    /// before it lands, so a slow path's segments hold the stream back for
    /// that long, and a buffer shorter than the connection's rate times
    /// its slowest round trip leaves a slow path idle.
    Span,
}

impl FlowControl {
    /// The scenario name: `"reserve"` or `"span"`.
    pub fn name(self) -> &'static str {
        match self {
            FlowControl::Reserve => "reserve",
            FlowControl::Span => "span",
        }
    }

    /// The flow control named `name`, if any.
    pub fn from_name(name: &str) -> Option<FlowControl> {
        [FlowControl::Reserve, FlowControl::Span]
            .into_iter()
            .find(|f| f.name() == name)
    }
}

/// R²CP receiver parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct R2cpConfig {
    /// The template of every pipe (segment size, controller, timers, duplicate
    /// threshold); `window` is the aggregate receive buffer in segments.
    pub pipe: RcpConfig,
    /// How segments are assigned to pipes.
    pub scheduling: Scheduling,
    /// The rules beyond the paper the engine applies ([`Rules::ALL`] for
    /// `r2cp`, [`Rules::PAPER`] for `r2cp-paper`).
    pub rules: Rules,
    /// Policy-based aggregation (pTCP §6.2.2, Figure 10): a target rate
    /// served first by a preferred path; `None` aggregates best effort.
    pub target: Option<TargetRate>,
    /// Coupled increase across the pipes, computed at the receiver from
    /// its own per-pipe windows and round trips (beyond the papers: each
    /// pipe otherwise grows as its own RCP).
    pub coupling: Coupling,
    /// How requests are kept within the receive buffer.
    pub flow: FlowControl,
    /// Pipes that act on their host's wireless-loss reports, as RCP-ELN
    /// (RCP §3.4.2) chosen per interface (§4.3.3): bit `p` for the pipe on
    /// path `p` (paths 0 to 63).
    pub eln_paths: u64,
    /// How much a paced pipe's requests wait to leave together, as time at
    /// its pace (rule `pacing`): zero paces each request on its own; the
    /// runtime uses [`PACING_QUANTUM`], where each pacing timer costs its
    /// host a wake.
    pub pacing_quantum: Duration,
}

/// The runtime's pacing quantum: Linux sends a paced flow in bursts of
/// about a millisecond at its pacing rate, and at least two segments
/// (`tcp_tso_autosize`, `sk_pacing_shift` = 10 and `tcp_min_tso_segs`, in
/// net/ipv4/tcp_output.c), so its pacing timer fires once per burst, not
/// once per segment.
pub const PACING_QUANTUM: Duration = Duration::from_millis(1);

impl R2cpConfig {
    /// The connection id the pipe on `path` uses at its sender: the
    /// connection's id in the low 16 bits, the path in the high ones.
    pub fn pipe_conn_id(conn_id: u32, path: PathId) -> u32 {
        (conn_id & 0xffff) | (u32::from(path.0) << 16)
    }

    /// Receive buffer in bytes.
    pub fn rwnd_bytes(&self) -> u64 {
        self.pipe.rwnd_bytes()
    }
}
