//! How much each pipe may have outstanding while several share the
//! receive buffer (beyond the R²CP paper, whose pipes take as much of it
//! as their congestion windows allow).
//!
//! A request holds receive buffer for the whole round trip of its pipe,
//! and the rank places a pipe's segments as far ahead of the in-order
//! point as the other pipes fetch in that round trip (§4.3.1): a pipe
//! whose round trip is long needs the buffer to span the connection's
//! whole rate times that round trip. A pipe's own queue lengthens its
//! round trip: a TCP-like window fills a drop-tail queue, and a 1 Mbit/s
//! path with a 400-packet queue then answers after 3.2 s, holds hundreds
//! of segments of buffer for as long, and leaves the quick paths nothing
//! to ask for. RCP alone on that path loses nothing by it; R²CP loses
//! the other paths.
//!
//! So while two pipes or more work, each may have outstanding at most the
//! larger of:
//!
//! - twice its path's bandwidth-delay product, as BBR bounds its flight
//!   (`cwnd_gain` = 2: Cardwell et al., "BBR: Congestion-Based Congestion
//!   Control", ACM Queue 14(5), 2016). That keeps the path busy, even
//!   after a loss halves the window, with a queue of at most one product
//!   and a round trip of at most twice the propagation;
//! - its share of half the receive buffer, in proportion to its share of
//!   the connection's delivery rate (the proportional cap MPTCP's
//!   penalisation approximates: Raiciu et al., NSDI 2012, §4.2). Where
//!   the buffer is ample a pipe keeps a deep queue, which carries it
//!   through bursts of random loss as it carries RCP alone; every pipe's
//!   round trip is then at most half the buffer over the connection's
//!   rate, so the span the rank needs fits the buffer twice over.
//!
//! The product is the highest delivery rate of the pipe's last ten round
//! trips (BBR's estimate, samples taken while the buffer held the pipe back
//! counting only where they raise it) times the shortest round trip seen.

use super::{Cap, R2cpReceiver};

/// Bandwidth-delay products a pipe may always have outstanding.
const BDP_GAIN: u64 = 2;

/// The fraction of the receive buffer the pipes' proportional shares
/// divide (1 / this).
const BUFFER_SHARE: u64 = 2;

/// The fewest segments the cap leaves a pipe (BBR's minimum window).
const MIN_CAP: u64 = 4;

impl R2cpReceiver {
    /// Sets every pipe's cap on what it may have outstanding: none while
    /// fewer than two pipes work or before a pipe's rate is sampled.
    pub(super) fn set_queue_caps(&mut self) {
        if !self.config.rules.queue_cap {
            return;
        }
        let live = self.pipes.iter().filter(|p| p.live()).count();
        let total: u128 = self
            .pipes
            .iter()
            .filter(|p| p.live())
            .map(|p| u128::from(p.delivery_rate()))
            .sum();
        let share_of = u128::from(self.config.rwnd_bytes() / BUFFER_SHARE);
        let floor = MIN_CAP * self.config.pipe.mss;
        for p in &mut self.pipes {
            let cap = match p.bdp() {
                Some(bdp) if live > 1 && total > 0 => {
                    let share = share_of * u128::from(p.delivery_rate()) / total;
                    Some((bdp * BDP_GAIN).max(share as u64).max(floor))
                }
                _ => None,
            };
            p.set_cap(Cap(cap));
        }
    }
}
