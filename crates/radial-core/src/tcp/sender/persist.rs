//! Freeze-TCP's sender side (Goff, Moronski, Phatak & Gupta, INFOCOM 2000;
//! the survey's §5): the receiver, warned of a disconnection, advertises a
//! zero window; the sender enters persist mode with its congestion window,
//! ssthresh and retransmission timer frozen as they were, sends window
//! probes on the persist timer (backed off as RFC 1122 §4.2.2.17 allows),
//! and resumes at the frozen window when the window reopens — at once when
//! the receiver's three window-reopening ACKs arrive on reconnection.
//!
//! Only `freeze-tcp` honours the advertised window: the other baselines keep
//! ns-2's sender, whose window is fixed (`window_`).

use super::{Kind, Planned, TcpSender};
use crate::time::Instant;

/// Persist mode: when the next window probe goes out, and how many went.
#[derive(Debug)]
pub(super) struct Persist {
    pub(super) deadline: Instant,
    probes: u32,
}

impl TcpSender {
    /// True while the receiver's window is zero and the sender waits.
    pub fn frozen(&self) -> bool {
        self.persist.is_some()
    }

    /// Freeze-TCP's reading of an acknowledgment's window. Returns true when
    /// the acknowledgment was about the window alone: a zero window (its
    /// cumulative part is still taken), the window reopening, or a window
    /// update that RFC 5681 §2 does not count as a duplicate.
    pub(super) fn on_window(&mut self, now: Instant, window: u32, ack: u64) -> bool {
        let previous = self.peer_window.replace(window);
        if window == 0 {
            if self.persist.is_none() {
                self.persist = Some(Persist {
                    deadline: now + self.rtt.base_rto(),
                    probes: 0,
                });
            }
            self.absorb_ack(now, ack);
            return true;
        }
        if self.persist.take().is_some() {
            if ack > self.last_ack {
                self.new_ack(now, ack);
            }
            self.rto_deadline = (self.max_seq > self.highest_ack).then(|| now + self.rtt.rto());
            self.send_much(now, self.config.max_burst);
            return true;
        }
        previous.is_some_and(|p| p != window) && ack <= self.last_ack
    }

    /// The persist timer expired: a window probe (a segment without
    /// payload at the cumulative acknowledgment, which the receiver
    /// answers with its window), and the next one later.
    pub(super) fn on_persist_timeout(&mut self, now: Instant) {
        let base = self.rtt.base_rto();
        let max = self.config.rtt.max_rto;
        let offset = self.highest_ack;
        let Some(p) = self.persist.as_mut() else {
            return;
        };
        p.probes += 1;
        p.deadline = now + base.saturating_mul(1 << p.probes.min(16)).min(max);
        self.planned.push_back(Planned {
            offset,
            len: 0,
            kind: Kind::Data,
            again: false,
        });
    }
}
