//! A pipe's path failing and coming back: the retransmission timeout that
//! makes it `Silent`, the probes of a silent path (rule `probe_silent`),
//! the answer that makes it `Working` again and the window it then resumes
//! (rule `resume_window`).

use super::{Pipe, PipeReport};
use crate::cc::LossCause;
use crate::r2cp::pipe::state::PathState;
use crate::time::Instant;

/// What a pipe keeps across its path's failure.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Outage {
    /// The window and slow-start threshold it had when its path failed.
    saved: Option<(u64, u64)>,
    /// Timer expiries (retransmission or probe) since its path fell silent.
    expiries: u32,
    /// A probe of the silent path is out until then.
    probe_deadline: Option<Instant>,
}

impl Outage {
    /// The path failed with `window` in use and slow start's threshold at
    /// `ssthresh`.
    pub(super) fn save(&mut self, window: u64, ssthresh: u64) {
        self.saved = Some((window, ssthresh));
    }

    /// What was saved, kept.
    pub(super) fn saved(&self) -> Option<(u64, u64)> {
        self.saved
    }

    /// What was saved, forgotten.
    pub(super) fn take_saved(&mut self) -> Option<(u64, u64)> {
        self.saved.take()
    }

    /// When the probe now out is due back.
    pub(super) fn probe_deadline(&self) -> Option<Instant> {
        self.probe_deadline
    }

    /// Whether the probe now out is overdue at `now`.
    pub(super) fn probe_due(&self, now: Instant) -> bool {
        self.probe_deadline.is_some_and(|d| d <= now)
    }

    /// The probe went unanswered: one more expiry.
    pub(super) fn probe_unanswered(&mut self) {
        self.probe_deadline = None;
        self.expiries += 1;
    }

    /// No probe is out any more.
    pub(super) fn stop_probe(&mut self) {
        self.probe_deadline = None;
    }

    pub(super) fn clear_expiries(&mut self) {
        self.expiries = 0;
    }
}

impl Pipe {
    /// The retransmission timeout (its timer expired, or the engine found
    /// the path silent): every outstanding request is deemed lost, the
    /// window restarts, and the path counts as silent until it answers.
    pub fn time_out(&mut self, now: Instant) -> PipeReport {
        let mut report = PipeReport::default();
        self.rto_deadline = None;
        self.timeouts += 1;
        self.intervals.on_loss();
        if self.state != PathState::Silent {
            self.outage.save(self.window(), self.cc.window().ssthresh);
            self.outage.expiries = 0;
        }
        self.outage.expiries += 1;
        let in_use = self.window().min(self.config.rwnd_bytes());
        self.cc.on_loss(now, LossCause::Timeout, in_use);
        self.answers.back_off();
        for (_, r) in self.requests.take_all(self.given_up_kept()) {
            report.lost.push(r.start);
        }
        self.recovery.on_timeout(self.next_local());
        self.state = self.state.on_timeout();
        self.fast_retransmit = true;
        // Re-armed by the next request, backed off.
        report
    }

    /// Probes a silent path with a request that carries no pull (a PROBE,
    /// §5.2.2, which its sender answers at once): another pipe carries the
    /// data, and nothing is taken from it. The pipe waits for the answer, or
    /// for the probe timer, before it asks again.
    pub fn probe_path(&mut self, now: Instant, deq: u64) {
        self.probe(deq);
        self.outage.probe_deadline = Some(now + self.timer());
    }

    /// Something arrived on the pipe's path: it works. A silent pipe works
    /// again at once, its timer no longer backed off. After an outage (two
    /// timer expiries or more, not a single loss, which keeps TCP's
    /// response) the window it had before resumes, paced (rule
    /// `resume_window`): the outage was not congestion.
    pub fn heard(&mut self, now: Instant) {
        if self.state != PathState::Silent {
            return;
        }
        self.state = self.state.on_heard();
        self.outage.probe_deadline = None;
        self.answers.reset_backoff();
        // A request still out was timed for a probe: it gets the RTO of a
        // path that answers.
        if let Some(d) = self.rto_deadline.as_mut() {
            *d = (*d).max(now + self.answers.rto());
        }
        let before = self.outage.take_saved();
        if self.outage.expiries >= 2 && self.rules.resume_window {
            if let Some(o) = before {
                self.resume(o);
            }
        }
        self.outage.expiries = 0;
    }

    /// Taken as heard without an answer (rule `take_back`: the engine's last
    /// working path fell silent): what was asked of the silent path is given
    /// up, as lost to the outage, not to congestion, and the pipe restarts as
    /// on an answer.
    pub fn assume_heard(&mut self, now: Instant) -> PipeReport {
        let mut report = PipeReport::default();
        for (_, r) in self.requests.take_all(self.given_up_kept()) {
            report.lost.push(r.start);
        }
        self.rto_deadline = None;
        self.heard(now);
        report
    }

    /// Resumes the window and slow-start threshold the pipe had before an
    /// outage, as Freeze-TCP does (Goff et al., INFOCOM 2000: the window is
    /// not cut for an outage that was no congestion), with its requests
    /// paced until that window has left: at the pace of a window per round
    /// trip, not in one burst that a drop-tail queue would cut short. A
    /// pipe that was still in slow start goes on in it.
    pub(super) fn resume(&mut self, (window, ssthresh): (u64, u64)) {
        self.cc
            .restart(self.cwnd().max(window), ssthresh.max(window));
        let next = self.next_local();
        self.pacing.pace_next(next, window / self.config.mss);
    }

    /// Sends the next probe of a silent path now rather than at its timer
    /// (no pipe of the connection works any more); a pipe still opening
    /// sends its SYN again now, rather than at its backed-off timer.
    pub fn probe_now(&mut self, now: Instant) {
        if self.state == PathState::Silent && self.outage.probe_deadline.take().is_some() {
            self.outage.expiries += 1;
        }
        if self.opening() {
            self.open_again(now);
        }
    }
}
