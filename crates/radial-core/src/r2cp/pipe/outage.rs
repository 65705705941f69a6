//! A pipe's path failing and coming back: probes of a silent path, the
//! host's link-down and link-up signals, the restart after an outage, and
//! the engine's penalisation of a pipe that holds up the head of line.

use super::{Outage, Pipe, PipeReport, PipeState};
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
    /// keeps TCP's response) the window it had before resumes, paced: the
    /// outage was not congestion. (It once resumed at half, slow start
    /// taking it back the rest of the way.)
    pub fn heard(&mut self, now: Instant) {
        if !self.blackout {
            return;
        }
        self.blackout = false;
        self.probe_deadline = None;
        self.rtt.reset_backoff();
        // A request still out was timed for a probe: it gets the RTO of a
        // path that answers.
        if let Some(d) = self.rto_deadline.as_mut() {
            *d = (*d).max(now + self.rtt.rto());
        }
        let before = self.outage.take();
        if self.expiries >= 2 && self.rules.resume_window {
            if let Some(o) = before {
                self.resume(o);
            }
        }
        self.expiries = 0;
    }

    /// Taken as heard without an answer (the engine's last working path fell
    /// silent): what was asked of the silent path is given up, as lost to
    /// the outage, not to congestion, and the pipe restarts as on an answer.
    pub fn assume_heard(&mut self, now: Instant) -> PipeReport {
        let report = PipeReport {
            lost: self.outstanding.values().map(|r| r.start).collect(),
            ..PipeReport::default()
        };
        for (l, r) in std::mem::take(&mut self.outstanding) {
            self.give_up(l, r.sent_at);
        }
        self.in_flight = 0;
        self.rto_deadline = None;
        self.heard(now);
        report
    }

    /// What the pipe has as its path fails: its window and slow start's
    /// threshold.
    pub(super) fn outage_starts(&self) -> Outage {
        Outage {
            window: self.window(),
            ssthresh: self.cc.window().ssthresh,
        }
    }

    /// Resumes the window the pipe had before an outage, as Freeze-TCP does
    /// (Goff et al., INFOCOM 2000: the window is not cut for an outage that
    /// was no congestion), with its requests paced until that window has
    /// left: at the pace of a window per round trip, not in one burst that
    /// a drop-tail queue on the way back would cut short. Slow start's
    /// threshold is restored too: a pipe that was still in slow start
    /// (a link up for a turn of a second or two, on a long round trip)
    /// goes on in it, rather than creeping up one segment per round trip
    /// from the small window it had reached (a 2 Mbit/s path of 530 ms
    /// round trip once stayed near 8 segments, a twentieth of its
    /// bandwidth-delay product, turn after turn of a handoff storm).
    fn resume(&mut self, o: Outage) {
        let w = o.window;
        self.cc.restart(self.cwnd().max(w), o.ssthresh.max(w));
        self.resume_paced_until = Some(self.next_local + w / self.config.mss);
    }

    /// Sends the next probe of a silent path now rather than at its timer
    /// (no pipe of the connection works any more); a pipe still opening
    /// sends its SYN again now, rather than at its backed-off timer.
    pub fn probe_now(&mut self, now: Instant) {
        if self.blackout && self.probe_deadline.take().is_some() {
            self.expiries += 1;
        }
        if self.opening() {
            self.open_again(now);
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
            self.outage = Some(self.outage_starts());
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
    /// at once; an established one resumes the window it had, paced
    /// (Freeze-TCP resumes where it stopped). It once restarted from the
    /// initial window, with slow start allowed back (the path behind the
    /// link may have changed), and spent most of a 1 s turn of a handoff
    /// storm regaining it: slower than hard-handoff RCP, which keeps its
    /// window, on links of 2 Mbit/s each (0.89 against 1.14 Mbit/s).
    pub fn link_up(&mut self, now: Instant) {
        if !self.suspended {
            return;
        }
        self.suspended = false;
        self.rtt.reset_backoff();
        self.blackout = false;
        self.expiries = 0;
        match self.state {
            PipeState::Opening => self.open_again(now),
            PipeState::Established => {
                let before = self.outage.take().unwrap_or_else(|| self.outage_starts());
                if self.rules.resume_window {
                    self.resume(before);
                } else {
                    // A fresh start: the path behind the link may have
                    // changed.
                    let iw = self.config.cc.initial_window * self.config.mss;
                    self.cc.restart(iw, self.cc.window().ssthresh);
                }
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

#[cfg(test)]
mod tests {
    use crate::r2cp::pipe::Pipe;
    use crate::time::Instant;

    const MSS: u64 = 1000;

    fn ms(v: u64) -> Instant {
        Instant::from_nanos(v * 1_000_000)
    }

    /// An established pipe, alone (no cap, so unpaced), whose window grew
    /// to 40 segments over answers 100 ms after their requests.
    fn grown() -> (Pipe, u64, u64) {
        let mut p = Pipe::established(10_000_000);
        let (mut next, mut t) = (0, 10);
        while p.cwnd() < 40 * MSS {
            while p.can_request(ms(t)) {
                p.request(ms(t), next * MSS, (next + 1) * MSS, 0);
                next += 1;
            }
            t += 100;
            let out: Vec<u64> = p.outstanding.keys().copied().collect();
            for l in out {
                p.on_data(ms(t), (l + 1) as u32);
            }
        }
        (p, next, t)
    }

    /// How many requests the pipe may send at `t` without time passing.
    fn burst(p: &mut Pipe, mut next: u64, t: u64) -> u64 {
        let mut n = 0;
        while p.can_request(ms(t)) && n < 1000 {
            p.request(ms(t), next * MSS, (next + 1) * MSS, 0);
            next += 1;
            n += 1;
        }
        n
    }

    #[test]
    fn a_link_that_returns_resumes_the_window_paced() {
        let (mut p, next, t) = grown();
        let w = p.cwnd();
        p.suspend();
        p.link_up(ms(t + 1000));
        assert_eq!(p.cwnd(), w, "the window it had, not the initial one");
        // Paced: the first requests leave from the pacer's bucket, not the
        // whole window at once.
        let sent = burst(&mut p, next, t + 1000);
        assert!(
            sent < w / MSS / 2,
            "{sent} requests at once of a {w}-byte window"
        );
        // Once the window has left at its pace, the pipe is unpaced again.
        let mut now = t + 1000;
        let mut next = next + sent;
        while p.is_paced() {
            now += 1;
            next += burst(&mut p, next, now);
            assert!(now < t + 3000, "still paced after 2 s");
        }
    }

    /// Times the pipe out `n` times in a row, as a dead path does.
    fn time_out(p: &mut Pipe, n: usize, mut t: u64) -> u64 {
        p.request(ms(t), 0, MSS, 0);
        for _ in 0..n {
            let d = p.poll_timeout().expect("a timer runs");
            t = t.max(d.as_nanos() / 1_000_000 + 1);
            p.handle_timeout(ms(t));
            p.request(ms(t), 0, MSS, 0);
        }
        t
    }

    #[test]
    fn a_silent_path_is_probed_once_per_round_trip_and_resumes_in_slow_start() {
        let (mut p, _, t) = grown();
        let before = p.cc.window();
        assert!(before.cwnd < before.ssthresh, "still in slow start");
        let t = time_out(&mut p, 3, t);
        // Probed at the shortest interval, not at its RTO (200 ms or more):
        // its shortest round trip, the handshake's 10 ms, is below it.
        let next = p.poll_timeout().unwrap().as_nanos() / 1_000_000;
        assert_eq!(next - t, 50);
        p.heard(ms(t + 50));
        let w = p.cc.window();
        assert_eq!(w.cwnd, before.cwnd, "the window it had");
        assert!(w.ssthresh >= before.ssthresh, "still in slow start");
        // The request still out is timed by the RTO of a path that answers
        // now, not by the probe's round trip.
        let rearmed = p.poll_timeout().unwrap().as_nanos() / 1_000_000;
        assert!(
            rearmed >= t + 50 + 200,
            "timer at {rearmed} ms, heard at {} ms",
            t + 50
        );
    }

    #[test]
    fn a_pipe_taken_as_heard_gives_up_its_probe_and_resumes_its_window() {
        let (mut p, next, t) = grown();
        let before = p.cwnd();
        let t = time_out(&mut p, 3, t);
        assert!(p.probing());
        // One probe is out, sent into the silence.
        assert_eq!(p.in_flight(), MSS);
        let probe = *p.outstanding.keys().next().unwrap();
        let r = p.assume_heard(ms(t + 10));
        assert_eq!(r.lost, vec![0], "the probe's segment goes back");
        assert!(p.live() && !p.probing());
        assert_eq!(p.cwnd(), before, "the window it had");
        assert_eq!(p.in_flight(), 0);
        assert_eq!(p.poll_timeout(), None, "no timer for the probe");
        // Its requests now leave, paced, and are timed by the path's RTO,
        // not by the probe interval.
        let sent = burst(&mut p, next, t + 10);
        assert!(sent >= 1 && sent < before / MSS / 2, "{sent} requests");
        let timer = p.poll_timeout().unwrap().as_nanos() / 1_000_000;
        assert!(timer >= t + 10 + 200, "timer at {timer} ms");
        // The probe's answer, should it come, is a late one: no loss, no cut.
        let late = p.on_data(ms(t + 20), probe as u32 + 1);
        assert!(late.lost.is_empty());
        assert_eq!(p.cwnd(), before);
    }

    #[test]
    fn a_pipe_let_ask_again_with_room_for_many_requests_sends_them_paced() {
        let (mut p, next, t) = grown();
        assert!(!p.is_paced(), "alone, unpaced");
        // Its window has room for a few requests (an answer, and slow
        // start's growth): they leave at once.
        let w = p.cwnd() / MSS;
        let mut next = next;
        next += burst(&mut p, next, t);
        let out: Vec<u64> = p.outstanding.keys().copied().take(1).collect();
        for l in out {
            p.on_data(ms(t + 100), (l + 1) as u32);
        }
        p.pace_opening();
        assert!(!p.is_paced());
        assert_eq!(burst(&mut p, next, t + 100), 2);
        // Room for the whole window, as when the head of line it waited
        // for came at last: paced, not all at once.
        let out: Vec<u64> = p.outstanding.keys().copied().collect();
        for l in out {
            p.on_data(ms(t + 200), (l + 1) as u32);
        }
        p.pace_opening();
        assert!(p.is_paced());
        let sent = burst(&mut p, next + 2, t + 200);
        assert!(sent < w / 2, "{sent} requests at once of {w}");
    }
}
