//! A pipe's window under the engine's queue cap (rule `queue_cap`): what it
//! may have outstanding, and how its congestion window grows and is cut
//! while the cap, not the window, holds it back.
//!
//! The cap bounds a pipe's flight to about twice its path's bandwidth-delay
//! product, or its share of the receive buffer, while other pipes share
//! that buffer (the engine's `queue_cap`). Held there, the pipe is not
//! limited by its congestion window, and the window follows Linux's rules
//! for a sender its window does not limit (`tcp_is_cwnd_limited`,
//! include/net/tcp.h): in slow start it grows up to twice what the pipe may
//! have outstanding, in congestion avoidance not at all. A loss halves the
//! congestion window itself, as Linux's Reno does (`tcp_reno_ssthresh`,
//! net/ipv4/tcp_cong.c), so the first loss after a slow start that the cap
//! ended leaves the pipe at its cap, and the window regrows from there and
//! not from less, as RCP's alone on the path would.

use crate::cc::Window;

/// The engine's cap on what a pipe may have outstanding, in bytes (`None`:
/// no cap).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cap(pub Option<u64>);

impl Cap {
    /// What a pipe with congestion window `cwnd` may have outstanding.
    pub(super) fn window(self, cwnd: u64) -> u64 {
        self.0.map_or(cwnd, |c| cwnd.min(c))
    }

    /// Whether an arrival may grow window `w`: always while the window
    /// bounds the pipe; while the cap does, only in slow start and up to
    /// twice the cap.
    pub(super) fn may_grow(self, w: Window) -> bool {
        match self.0 {
            Some(cap) if w.cwnd >= cap => w.cwnd < w.ssthresh && w.cwnd < 2 * cap,
            _ => true,
        }
    }
}
