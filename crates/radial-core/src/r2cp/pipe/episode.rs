//! A pipe's loss-recovery episode (RCP §3.3.5 on each pipe): one window
//! cut per window of losses, and no growth until the episode ends.
//!
//! The episode lasts as long as it would for RCP alone on the pipe's path:
//!
//! - until none of the pipe's requests from before the cut is outstanding
//!   (NewReno's recovery point, RFC 6582 §3.2, in local numbers);
//! - and until every segment the pipe lost before that point has arrived,
//!   by whichever pipe: RCP's episode lasts until in-order delivery passes
//!   its point, so until its holes are filled;
//! - and, for each of those losses, until one round trip of this pipe after
//!   it was detected: the time RCP's re-request through this path would
//!   have taken.
//!
//! Beyond the paper, R²CP re-requests a pipe's lost segment on whichever
//! pipe the rank gives it, usually a quicker one. Ended as soon as that
//! arrived, a slow pipe's episode was a round trip shorter than RCP's, and
//! the rest of a burst of losses (a bursty channel's bad state lasts a
//! second, two round trips of a satellite path) cut its window a second and
//! a third time, so the pipe carried less than RCP alone on its path
//! would. With the episode as long as RCP's, the pipe answers a burst as
//! RCP does: one cut.

use std::collections::BTreeSet;

use crate::rcp::Recovery;
use crate::time::{Duration, Instant};

/// The episode, if one runs.
#[derive(Debug, Default)]
pub(super) struct Episode {
    recovery: Recovery,
    /// Global starts of the segments lost before the point that no pipe
    /// has brought yet.
    unrepaired: BTreeSet<u64>,
    /// No end before this (a round trip after the latest such loss).
    not_before: Option<Instant>,
}

impl Episode {
    /// True while an episode runs.
    pub(super) fn active(&self) -> bool {
        self.recovery.active()
    }

    /// True when arrivals may grow the window.
    pub(super) fn window_grows(&self) -> bool {
        self.recovery.window_grows()
    }

    /// Losses were detected: an episode begins, ending once the requests
    /// numbered below `point` are all answered or lost.
    pub(super) fn on_holes(&mut self, point: u64) {
        self.recovery.on_holes(point);
        self.unrepaired.clear();
        self.not_before = None;
    }

    /// The retransmission timer expired: slow start to `point`.
    pub(super) fn on_timeout(&mut self, point: u64) {
        self.recovery.on_timeout(point);
        self.unrepaired.clear();
        self.not_before = None;
    }

    /// Forgets the episode (the path was lost).
    pub(super) fn clear(&mut self) {
        self.recovery.clear();
        self.unrepaired.clear();
        self.not_before = None;
    }

    /// Request `local` for the segment at `start` was deemed lost at `now`;
    /// `rtt` is the pipe's round trip.
    pub(super) fn lost(&mut self, local: u64, start: u64, now: Instant, rtt: Duration) {
        if self.recovery.point().is_some_and(|point| local < point) {
            self.unrepaired.insert(start);
            let t = now + rtt;
            self.not_before = Some(self.not_before.map_or(t, |u| u.max(t)));
        }
    }

    /// The segment at `start` arrived.
    pub(super) fn repaired(&mut self, start: u64) {
        self.unrepaired.remove(&start);
    }

    /// Ends the episode at `now` if it is over, given the local number of
    /// the pipe's `oldest` outstanding request.
    pub(super) fn end_if_over(&mut self, now: Instant, oldest: Option<u64>) {
        if self.not_before.is_some_and(|t| now < t) || !self.unrepaired.is_empty() {
            return;
        }
        self.recovery
            .end_when(|point| oldest.is_none_or(|o| o >= point));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_episode_lasts_until_its_holes_are_filled_and_a_round_trip_passed() {
        let rtt = Duration::from_millis(600);
        let mut e = Episode::default();
        let outstanding = Some(12);
        // Requests 0..10 went out; 3 and 5 are lost at 1 s and 1.2 s.
        e.on_holes(10);
        e.lost(3, 3000, Instant::from_millis(1_000), rtt);
        e.lost(5, 5000, Instant::from_millis(1_200), rtt);
        // A loss of a request from after the point does not hold it open.
        e.lost(11, 11_000, Instant::from_millis(1_300), rtt);
        e.end_if_over(Instant::from_millis(1_400), outstanding);
        assert!(e.active());
        // Both holes filled by another pipe at 1.5 s: still within a round
        // trip of the second loss.
        e.repaired(3000);
        e.repaired(5000);
        e.end_if_over(Instant::from_millis(1_500), outstanding);
        assert!(e.active() && !e.window_grows());
        e.end_if_over(Instant::from_millis(1_800), outstanding);
        assert!(!e.active() && e.window_grows());
    }

    #[test]
    fn an_unfilled_hole_or_an_outstanding_request_holds_the_episode() {
        let rtt = Duration::from_millis(100);
        let mut e = Episode::default();
        let mut outstanding = None;
        e.on_holes(10);
        e.lost(2, 2000, Instant::from_millis(0), rtt);
        e.end_if_over(Instant::from_millis(500), outstanding);
        assert!(e.active(), "segment 2000 not repaired");
        e.repaired(2000);
        outstanding = Some(7);
        e.end_if_over(Instant::from_millis(500), outstanding);
        assert!(e.active(), "request 7 from before the cut still out");
        outstanding = None;
        e.end_if_over(Instant::from_millis(500), outstanding);
        assert!(!e.active());
    }
}
