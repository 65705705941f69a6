//! The head of line that holds up the shared receive buffer (beyond the
//! pTCP paper, after MPTCP's remedies for a slow subflow, Raiciu et al.,
//! NSDI 2012, §4.2): a pipe with nothing else to send carries a copy of it
//! (opportunistic retransmission), and the pipe that holds it has its
//! window halved (penalisation), so that it holds less of the buffer in
//! its queue.
//!
//! MPTCP copies whenever the buffer is full, as Linux does. pTCP copies
//! only what the copy would bring first: most heads of line the sender
//! sees have arrived already, their acknowledgment on its way, and a copy
//! that arrives second only takes the place of new data (and, at a soft
//! handoff, the new pipe's copies of what the old pipe's queue was about
//! to deliver made in-order delivery wait twice as long as it does
//! without them). Both penalise the holder on each copy.

use super::PtcpSender;
use crate::time::{Duration, Instant};

impl PtcpSender {
    /// The head of line and its pipe, when the receive buffer is full
    /// behind it and a pipe other than `path` holds it.
    fn blocked_head(&self, path: usize) -> Option<(u64, usize)> {
        let blocked =
            self.next_new >= self.pack + self.window || self.next_new >= self.buffer.end();
        let head = self.pack;
        let holder = self.holder.get(&head).map(|&(k, _)| k)?;
        (blocked
            && holder != path
            && self.pending.is_empty()
            && !self.delivered.contains(&head)
            && head < self.buffer.end())
        .then_some((head, holder))
    }

    /// What `path` may carry a copy of: the blocked head of line, not
    /// copied yet, and under pTCP only if the copy would arrive first: the
    /// holder should bring it later than `path` could, or it is overdue
    /// (unacknowledged two of the holder's round trips after it was sent:
    /// lost, or behind a queue that grew). `None` with the rule
    /// ([`crate::ptcp::PtcpRules::opportunistic_retransmission`]) off.
    pub(super) fn blocking_head(&self, now: Instant, path: usize) -> Option<u64> {
        if !self.config.rules.opportunistic_retransmission {
            return None;
        }
        let (head, holder) = self.blocked_head(path)?;
        let srtt = self.pipes[holder].as_ref().and_then(|p| p.tcp.srtt());
        let sooner = || match (self.bound_at.get(&head), self.one_way(holder), srtt) {
            (Some(&at), Some(theirs), Some(srtt)) => {
                let overdue = now > at + srtt.saturating_mul(2);
                overdue
                    || self
                        .one_way(path)
                        .is_none_or(|ours| now + ours < at + theirs)
            }
            _ => true,
        };
        (!self.reinjected.contains(&head) && (self.config.mptcp.is_some() || sooner()))
            .then_some(head)
    }

    /// Halves the window of the pipe holding `head`, at most once per its
    /// round trip (its slow-start threshold kept: this is no congestion).
    pub(super) fn penalise_holder(&mut self, now: Instant, head: u64) {
        let Some(&(holder, _)) = self.holder.get(&head) else {
            return;
        };
        let Some(h) = self.pipes[holder].as_mut() else {
            return;
        };
        let srtt = h.tcp.srtt().unwrap_or(Duration::ZERO);
        if h.penalised_at
            .is_none_or(|t| now.saturating_since(t) >= srtt)
        {
            h.tcp.penalise();
            h.penalised_at = Some(now);
        }
    }

    /// How long data sent on `path` now takes to arrive: its smoothed round
    /// trip less the return half of its shortest one (the queue that makes
    /// a round trip longer than its propagation stands on the data's way,
    /// not on the acknowledgments').
    fn one_way(&self, path: usize) -> Option<Duration> {
        let tcp = &self.pipes[path].as_ref()?.tcp;
        let (srtt, min) = (tcp.srtt()?, tcp.min_rtt()?);
        Some(srtt.max(min).saturating_sub(min.div(2)))
    }
}
