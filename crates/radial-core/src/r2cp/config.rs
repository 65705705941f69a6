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
    /// Pipes that act on their host's wireless-loss reports, as RCP-ELN
    /// (RCP §3.4.2) chosen per interface (§4.3.3): bit `p` for the pipe on
    /// path `p` (paths 0 to 63).
    pub eln_paths: u64,
}

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
