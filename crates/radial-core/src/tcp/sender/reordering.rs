//! Reordering tolerance, as Linux's TCP has it and ns-2's TCP-SACK does not
//! (Linux `tcp_input.c`: `tcp_update_reordering`, the `tp->reordering`
//! metric, in the 2.4 kernels the PRISM paper's "vanilla TCP" ran): the
//! sender measures how far the network reorders its segments and raises its
//! duplicate-ACK threshold to that distance, so that reordering is not taken
//! for loss.
//!
//! Evidence of reordering is a segment never retransmitted that is
//! acknowledged (cumulatively or by a SACK block) after data above it was
//! SACKed: it arrived late, not lost. Its distance below the highest SACKed
//! byte, in segments, is the reordering seen; the threshold is the largest
//! seen, at most [`MAX_REORDERING`]. (Linux also undoes a window cut that
//! D-SACKs or timestamps show was spurious; our receiver sends neither, so
//! a cut made before the threshold has grown stays.)

use std::collections::BTreeSet;

use super::TcpSender;

/// The largest threshold (Linux 2.4's `TCP_MAX_REORDERING`).
pub const MAX_REORDERING: u32 = 127;

/// The measured reordering and the retransmissions it must not count.
#[derive(Debug, Default)]
pub(super) struct Reordering {
    /// Largest distance seen, in segments.
    degree: u32,
    /// Offsets retransmitted and not yet cumulatively acknowledged.
    retransmitted: BTreeSet<u64>,
}

impl TcpSender {
    /// The reordering measured so far, in segments (0 without reordering
    /// tolerance).
    pub fn reordering(&self) -> u32 {
        self.reordering.degree
    }

    /// The duplicate acknowledgments that mean a loss: the configured
    /// threshold, or with reordering tolerance the reordering measured if
    /// larger.
    pub(super) fn dupthresh(&self) -> u32 {
        if self.config.reordering {
            self.config.dupthresh.max(self.reordering.degree)
        } else {
            self.config.dupthresh
        }
    }

    /// A retransmission of the segment at `offset` left.
    pub(super) fn note_retransmission(&mut self, offset: u64) {
        if self.config.reordering {
            self.reordering.retransmitted.insert(offset);
        }
    }

    /// An acknowledgment moved the cumulative point to `ack` and carried
    /// `sack`: measures the reordering it shows against the highest byte
    /// SACKed before it. Called before the scoreboard takes the blocks.
    pub(super) fn measure_reordering(&mut self, ack: u64, sack: &[(u64, u64)]) {
        if !self.config.reordering {
            return;
        }
        let Some(fack) = self.scoreboard.highest() else {
            self.reordering.retransmitted = self.reordering.retransmitted.split_off(&ack);
            return;
        };
        let mss = self.mss();
        let fresh = |at: u64, r: &Reordering| !r.retransmitted.contains(&at);
        // The lowest segment the cumulative point passed that was neither
        // SACKed nor retransmitted: it arrived late.
        let mut lowest = None;
        let mut at = self.last_ack;
        while at < ack.min(fack) {
            if fresh(at, &self.reordering) && !self.scoreboard.is_sacked(at, at + 1) {
                lowest = Some(at);
                break;
            }
            at += mss;
        }
        // Blocks newly SACKing data below the highest SACKed byte.
        for &(s, e) in sack {
            if s < fack
                && s >= ack
                && !self.scoreboard.is_sacked(s, e.min(fack))
                && fresh(s, &self.reordering)
            {
                lowest = Some(lowest.map_or(s, |l: u64| l.min(s)));
            }
        }
        if let Some(l) = lowest {
            let distance = (fack - l).div_ceil(mss).min(u64::from(MAX_REORDERING)) as u32;
            self.reordering.degree = self.reordering.degree.max(distance);
        }
        self.reordering.retransmitted = self.reordering.retransmitted.split_off(&ack);
    }
}
