//! A pipe's path failing and coming back: probes of a silent path, the
//! host's link-down and link-up signals, the restart after an outage, and
//! the engine's penalisation of a pipe that holds up the head of line.

use super::{Pipe, PipeReport, PipeState};
use crate::time::Instant;

impl Pipe {
    /// Probes a silent path with a request that carries no pull (a PROBE,
    /// §5.2.2, which its sender answers at once): the pipe's path failed to
    /// answer, another pipe carries the data, and nothing is taken from it.
    /// The pipe waits for the answer, or for the probe timer, before it asks
    /// again.
    pub fn probe_path(&mut self, now: Instant, deq: u64) {
        self.probe(deq);
        self.probe_deadline = Some(now + self.timer());
    }

    /// Something arrived on the pipe's path: it works. A pipe that was
    /// probing a blackout restarts at once, its timer no longer backed off.
    /// After an outage (two timer expiries or more, not a single loss, which
    /// keeps TCP's response) the window resumes at half what it was before
    /// and slow start may take it back the rest of the way: the outage was
    /// not congestion (Freeze-TCP resumes with its whole window; half keeps
    /// the first round trip's burst within what a changed path may take).
    pub fn heard(&mut self) {
        if !self.blackout {
            return;
        }
        self.blackout = false;
        self.probe_deadline = None;
        self.rtt.reset_backoff();
        let before = self.outage_cwnd.take();
        if self.expiries >= 2 {
            if let Some(w) = before {
                self.cc.restart(self.cwnd().max(w / 2), w);
            }
        }
        self.expiries = 0;
    }

    /// Sends the next probe of a silent path now rather than at its timer
    /// (no pipe of the connection works any more); a pipe still opening
    /// sends its SYN again now, rather than at its backed-off timer.
    pub fn probe_now(&mut self, now: Instant) {
        if self.blackout && self.probe_deadline.take().is_some() {
            self.expiries += 1;
        }
        if self.state == PipeState::Opening && !self.suspended && self.handshake_deadline.is_some()
        {
            self.rtt.reset_backoff();
            self.open(now);
        }
    }

    /// The interface lost its link (the host said so, R²CP §4.3.5 for what
    /// the pipe had asked for): what is outstanding is lost and returned to
    /// the engine, timers stop, the window is kept for the link's return.
    pub fn suspend(&mut self) -> PipeReport {
        let mut report = PipeReport::default();
        if self.suspended {
            return report;
        }
        self.suspended = true;
        if self.state == PipeState::Established && !self.blackout {
            self.outage_cwnd = Some(self.window());
        }
        report.lost = self.outstanding.values().map(|r| r.start).collect();
        self.outstanding.clear();
        self.in_flight = 0;
        self.recovery.clear();
        self.fast_retransmit = false;
        self.rto_deadline = None;
        self.handshake_deadline = None;
        self.persist_deadline = None;
        self.probe_deadline = None;
        self.pace_deadline = None;
        self.out.clear();
        report
    }

    /// The interface has its link again: a pipe still opening sends its SYN
    /// at once; an established one restarts from the initial window, with
    /// slow start allowed back to the window it had (Freeze-TCP resumes
    /// where it stopped; the path behind the link may have changed, so the
    /// window is regained in a few round trips rather than assumed).
    pub fn link_up(&mut self, now: Instant) {
        if !self.suspended {
            return;
        }
        self.suspended = false;
        self.rtt.reset_backoff();
        self.blackout = false;
        self.expiries = 0;
        match self.state {
            PipeState::Opening => self.open(now),
            PipeState::Established => {
                let iw = self.config.cc.initial_window * self.config.mss;
                let before = self.outage_cwnd.take().unwrap_or(iw);
                self.cc.restart(iw, before);
            }
        }
    }

    /// MPTCP's penalisation of a slow subflow (Raiciu et al., NSDI 2012,
    /// §4.2): the pipe held the head of line while a quicker pipe was
    /// blocked by the receive buffer, so its window is halved, at most once
    /// per round trip of its own. Unlike a congestion response the slow
    /// start threshold stays where the window was: this is no sign of
    /// congestion, and when the quicker path goes the pipe must regain its
    /// rate in a few round trips, not one segment per round trip.
    pub fn penalise(&mut self, now: Instant) -> bool {
        if self
            .penalised_at
            .is_some_and(|t| now.saturating_since(t) < self.rtt_estimate())
        {
            return false;
        }
        self.penalised_at = Some(now);
        let cwnd = self.window();
        self.cc.restart(cwnd / 2, cwnd);
        true
    }
}
