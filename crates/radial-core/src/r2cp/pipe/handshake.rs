//! A pipe's handshake (R²CP §4.3.2: pipes open as RCP connections do): its
//! SYNs, numbered so that the SYN+ACK that names one is timed from it, and
//! the timer that sends the SYN again.
//!
//! A lone connection backs its SYN off exponentially (RFC 6298 §5.5). With
//! rule `eager_syn` the engine sends a SYN again without backoff while
//! another pipe works, and at once when a working path falls silent: a SYN
//! is one small packet that finds out whether the new path is there, and a
//! pipe opening beside a working one is not the connection's only way
//! through.

use std::collections::VecDeque;

use crate::time::{Duration, Instant};

/// SYNs whose sending times a pipe keeps, to time the one a SYN+ACK names.
const SYN_TIMES: usize = 8;

/// The handshake's state.
#[derive(Debug, Default)]
pub(super) struct Handshake {
    /// SYNs sent; each carries its number.
    syns: u32,
    /// When the latest [`SYN_TIMES`] SYNs left, by number.
    times: VecDeque<(u32, Instant)>,
    /// When the SYN now out left (none once answered).
    sent_at: Option<Instant>,
    /// When the first SYN left.
    opened_at: Option<Instant>,
    /// First SYN to SYN+ACK, once answered.
    took: Option<Duration>,
    /// The SYN goes again then.
    deadline: Option<Instant>,
}

impl Handshake {
    /// A SYN leaves at `now`, its timer set `rto` later: its number.
    pub(super) fn send(&mut self, now: Instant, rto: Duration) -> u32 {
        self.syns += 1;
        self.times.push_back((self.syns, now));
        if self.times.len() > SYN_TIMES {
            self.times.pop_front();
        }
        self.sent_at = Some(now);
        self.opened_at.get_or_insert(now);
        self.deadline = Some(now + rto);
        self.syns
    }

    /// The SYN+ACK naming SYN `id` (0: none named) arrived at `now`: when
    /// the SYN it answers left, if that is known without ambiguity (a
    /// SYN+ACK that names none is timed only if a single SYN left: Karn).
    pub(super) fn answered(&mut self, now: Instant, id: u32) -> Option<Instant> {
        self.took = self.opened_at.map(|t| now - t);
        self.sent_at = None;
        self.deadline = None;
        match id {
            0 if self.syns == 1 => self.times.front().map(|&(_, t)| t),
            0 => None,
            id => self.times.iter().find(|&&(n, _)| n == id).map(|&(_, t)| t),
        }
    }

    /// First SYN to SYN+ACK, once answered.
    pub(super) fn took(&self) -> Option<Duration> {
        self.took
    }

    /// When the SYN now out left.
    pub(super) fn sent_at(&self) -> Option<Instant> {
        self.sent_at
    }

    /// When the SYN goes again.
    pub(super) fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// Whether the SYN's timer expired by `now`.
    pub(super) fn due(&self, now: Instant) -> bool {
        self.deadline.is_some_and(|d| d <= now)
    }

    /// Stops the timer (the link went, or the pipe closes).
    pub(super) fn stop(&mut self) {
        self.deadline = None;
    }
}
