//! The receiver's loss-recovery episode, shared by the RCP receiver and
//! R²CP's pipes: NewReno's recovery point (RFC 6582 §3.2) at the receiver.
//! The first loss of a window cuts it once and starts an episode that lasts
//! until the point the receiver had requested to when it began is reached;
//! losses found before then belong to the same window and cut nothing
//! more. During an episode entered on detected holes the window does not
//! grow (as in TCP's fast recovery); after a timeout it slow-starts.

/// Where a recovery episode ends, if one is running, and how it began.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Recovery {
    /// The episode lasts until this point is reached.
    point: Option<u64>,
    /// It began with a retransmission timeout.
    after_timeout: bool,
}

impl Recovery {
    /// True while an episode runs.
    pub fn active(&self) -> bool {
        self.point.is_some()
    }

    /// An episode begins on detected holes, ending at `point`.
    pub fn on_holes(&mut self, point: u64) {
        self.point = Some(point);
        self.after_timeout = false;
    }

    /// An episode begins on a timeout, ending at `point`.
    pub fn on_timeout(&mut self, point: u64) {
        self.point = Some(point);
        self.after_timeout = true;
    }

    /// Where the running episode ends, if one runs.
    pub fn point(&self) -> Option<u64> {
        self.point
    }

    /// True when arrivals may grow the window: no episode, or one begun on
    /// a timeout (slow start).
    pub fn window_grows(&self) -> bool {
        self.point.is_none() || self.after_timeout
    }

    /// Ends the episode once `reached` holds of its end point.
    pub fn end_when(&mut self, reached: impl FnOnce(u64) -> bool) {
        if self.point.is_some_and(reached) {
            self.point = None;
        }
    }

    /// Forgets any episode (the path was lost and starts afresh).
    pub fn clear(&mut self) {
        self.point = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_episode_on_holes_freezes_growth_until_its_point_and_a_timeout_does_not() {
        let mut r = Recovery::default();
        assert!(!r.active() && r.window_grows());
        r.on_holes(100);
        assert!(r.active() && !r.window_grows());
        r.end_when(|p| 99 >= p);
        assert!(r.active(), "not reached yet");
        r.end_when(|p| 100 >= p);
        assert!(!r.active() && r.window_grows());
        r.on_timeout(200);
        assert!(r.active() && r.window_grows(), "slow start after a timeout");
        r.clear();
        assert!(!r.active());
    }
}
