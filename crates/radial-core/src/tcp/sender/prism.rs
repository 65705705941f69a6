//! TCP-PRISM (PRISM §VI): TCP-SACK that takes a striping proxy's loss
//! notices.
//!
//! The proxy knows which of its links lost a segment and tells the sender
//! on an acknowledgment. TCP-PRISM then (§VI-B.2):
//! - retransmits that segment at once, without waiting for three
//!   duplicates, and in a recovery that a notice began resends only the
//!   segments notices name, not every SACK hole (the holes are mostly
//!   segments still on slower links);
//! - keeps the share `p = 1 − B_i / (2 Σ B_j)` of its window that the
//!   notice carries, instead of halving it (Additive Increase, Proportional
//!   Decrease), once per congested link per recovery.
//!
//! Everything else is TCP-SACK as ns-2's `Sack1`.

use super::{LastAction, TcpSender};
use crate::time::Instant;
use crate::wire::tcp::{LossNotice, SHARE_SCALE};

/// TCP-PRISM's recovery state.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Prism {
    /// The current recovery began with a loss notice.
    pub(super) notice_recovery: bool,
    /// Links whose congestion already cut the window in this recovery.
    cut_links: u32,
}

impl TcpSender {
    /// True when the SACK recovery resends every hole below the highest
    /// SACKed byte (ns-2 `Sack1`); false in a recovery a loss notice began.
    pub(super) fn walks_holes(&self) -> bool {
        !(self.prism.notice_recovery && self.fast_recovery)
    }

    /// A loss notice for the segment at `notice.seq`, lost on the proxy's
    /// link `notice.link`.
    pub(super) fn on_loss_notice(&mut self, now: Instant, notice: LossNotice) {
        let x = self.config.offset_of(notice.seq, self.highest_ack);
        if !self.established || x < self.highest_ack || x >= self.max_seq {
            return;
        }
        let mss = self.mss();
        if !self.fast_recovery && (self.after_timeout || !self.may_fast_retransmit()) {
            // A loss from the window a timeout or the last recovery already
            // answered (ns-2's `bugFix_` for duplicate ACKs): resend the
            // segment if it was sent again and lost again, no new cut.
            if x < self.next_seq {
                self.output(now, x);
            }
            return;
        }
        if !self.fast_recovery {
            self.recover = Some(self.max_seq);
            self.fast_recovery = true;
            self.prism = Prism {
                notice_recovery: true,
                cut_links: 0,
            };
            // Everything outstanding but the lost segment is in the
            // network; the duplicates that follow take out the rest.
            self.pipe = ((self.max_seq - self.highest_ack) / mss) as i64 - 1;
            self.last_action = LastAction::DupAck;
            self.stats.fast_recoveries += 1;
            self.restart_timer(now, false);
        }
        let bit = 1u32.checked_shl(u32::from(notice.link)).unwrap_or(0);
        if self.prism.cut_links & bit == 0 {
            self.prism.cut_links |= bit;
            let cwnd = self.cc.window().cwnd;
            let kept = (cwnd as f64 * f64::from(notice.share) / f64::from(SHARE_SCALE)) as u64;
            let kept = kept.max(2 * mss);
            self.cc.set_ssthresh(kept);
            self.cc.set_cwnd(kept);
        }
        self.output(now, x);
        self.pipe += 1;
    }
}
