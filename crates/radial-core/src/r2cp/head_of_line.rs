//! The head of line, which in-order delivery waits for, taken from a pipe
//! that holds it up (beyond the R²CP paper: MPTCP's opportunistic
//! retransmission and penalisation, and the engine's own forecasts of when
//! each pipe brings what it holds).

use super::{rtt_of, Ask, Limits, R2cpReceiver};
use crate::time::Duration;

impl R2cpReceiver {
    /// Opportunistic re-request of the head of line (MPTCP's opportunistic
    /// retransmission, Raiciu et al., NSDI 2012, §4.2; beyond the R²CP
    /// paper): pipe `i` is `blocked` by the receive buffer while the segment
    /// that blocks it, the first one missing, is outstanding on a pipe that
    /// will bring it later than `i` could; or, blocked or not, that segment
    /// has been outstanding longer than its holder's RTO. `i` asks for it too (the binding
    /// moves to `i`; the other request still counts if it arrives first),
    /// and the slower pipe's window is halved, at most once per its round
    /// trip, so that it holds less of the buffer. A slow pipe thus never
    /// holds the connection below what the quick one would do alone. A
    /// holder whose path fell silent (`Pipe::fell_silent`, or the request
    /// missed its turn in the holder's stream of answers:
    /// `Pipe::turn_missed_at`) is timed out there and then: all it holds is
    /// asked again, not one head of line per round trip until its own
    /// RTO.
    pub(super) fn reinject(&mut self, i: usize, ask: &Ask, limits: Limits, blocked: bool) -> bool {
        let hol = ask.deq;
        let rules = self.config.rules;
        if hol >= ask.buffer_end || self.buffer.holds(hol) {
            return false;
        }
        let Some(b) = self.sched.binding(hol).copied() else {
            return rules.take_head && self.take_head(i, ask, limits);
        };
        if !rules.reinject {
            return false;
        }
        let p = &self.pipes[i];
        if b.path == p.path {
            return false;
        }
        let Some(j) = self.index(b.path) else {
            return false;
        };
        let (ours, theirs) = (
            rtt_of(rules, p, ask.now),
            rtt_of(rules, &self.pipes[j], ask.now),
        );
        // Quicker, while the holder's request is not overdue, if `i` is
        // blocked and its answer would come before the holder's is due (at
        // the earliest: the holder's round trip as it shows now, however
        // long its oldest outstanding request has waited). Overdue once it
        // has waited past the holder's patience (its RTO, at most
        // HOL_PATIENCE: a path that slowed down, or died and has not timed
        // out yet, its timer restarted by late arrivals); then quicker if
        // `i`'s round trip is shorter than what the holder has shown: the
        // longest of its estimate, the time this request has waited, and
        // the time the pace of its answers says it will take. A request
        // only a little late is left alone, but the engine wakes up when it
        // would be asked for again.
        let due = b.sent_at + theirs;
        // Late at the holder's patience, or sooner once the request missed
        // its turn in the holder's stream of answers (`Pipe::turn_missed_at`:
        // a link that went away under a queue of requests).
        let patience = b.sent_at + self.pipes[j].patience(super::HOL_PATIENCE);
        // Or once its holder, having answered nothing since its oldest
        // request left, let that request have its round trip and the
        // path's silence slack (`Pipe::unanswered_at`: a pipe just opened,
        // or taken as back, whose link went before its first answers).
        let holder = &self.pipes[j];
        let missed = [holder.turn_missed_at(b.sent_at), holder.unanswered_at()]
            .into_iter()
            .flatten()
            .min()
            .filter(|_| rules.silent_holder);
        let late = missed.map_or(patience, |t| t.min(patience));
        // When the holder will bring it at the pace it answers now (see
        // `Pipe::answer_expected`): a path that slowed down shows it there
        // first, long before in its smoothed round trip.
        let expected = self.pipes[j].answer_expected(ask.now, b.sent_at);
        let shown = theirs
            .max(ask.now.saturating_since(b.sent_at))
            .max(expected.map_or(Duration::ZERO, |t| t.saturating_since(b.sent_at)));
        let overdue = ask.now >= late && ours < shown;
        // An overdue holder that still answers, in the order it was asked,
        // at a pace that brings this request before `i` could, is waited
        // for: a queue that grew since its estimate (two pipes through one
        // bottleneck) delays its answers, it does not lose them. It still
        // holds up the head of line: its window is halved all the same.
        let holder_brings_it = overdue && expected.is_some_and(|t| t < ask.now + ours);
        // An overdue head of line goes to the quickest pipe that may ask
        // now, not to any pipe quicker than the holder: that one may have
        // slowed down too, and the head of line would move from one slow
        // pipe to the next.
        let quicker_elsewhere = || {
            self.pipes.iter().enumerate().any(|(k, q)| {
                k != i && k != j && q.live() && !q.frozen && rtt_of(rules, q, ask.now) < ours
            })
        };
        let quicker = if overdue {
            !holder_brings_it && !quicker_elsewhere()
        } else {
            blocked && ask.now + ours < due
        };
        if !quicker {
            if rules.penalise && holder_brings_it && theirs > ours && blocked {
                self.pipes[j].penalise(ask.now);
            }
            // Wake up when the holder's patience runs out (later, arrivals
            // bring the engine back often enough), or, for a holder waited
            // for, one round trip of `i` on, should it fall silent.
            let wake = if late > ask.now { late } else { ask.now + ours };
            self.reinject_at = Some(self.reinject_at.map_or(wake, |t| t.min(wake)));
            return false;
        }
        let p = &self.pipes[i];
        let end = match self
            .sched
            .reinject(ask.now, hol, p.path, p.next_local(), limits)
        {
            Some(end) => end,
            None => return false,
        };
        if rules.penalise && theirs > ours && blocked {
            self.pipes[j].penalise(ask.now);
        }
        let silent = rules.silent_holder
            && (missed.is_some_and(|t| ask.now >= t)
                || self.pipes[j].fell_silent(ask.now, b.sent_at));
        if overdue && silent {
            // The holder's path fell silent while pipe `i`'s works: all it
            // holds goes back to be asked of working pipes now, not at its
            // own RTO, and it probes its path (R²CP §4.3.5 re-assigns what
            // a closed pipe held; this goes beyond it).
            let r = self.pipes[j].time_out(ask.now);
            self.report(ask.now, j, r);
        }
        self.pipes[i].request(ask.now, hol, end, ask.deq);
        if overdue && rules.back_up_head {
            self.back_up_head(i, j, ask, hol, end);
        }
        true
    }

    /// An overdue head of line, re-requested on pipe `i` after its holder
    /// `j` let it wait past its patience, is asked of the quickest other
    /// working pipe too, without moving its binding (redundant striping,
    /// pTCP §4.1 (3), for this one segment; beyond the R²CP paper). Its
    /// first request is lost or stuck, and in-order delivery has waited a
    /// holder's patience already: should the re-request be lost as well (to
    /// a random loss, a queue, or a link that goes down), its loss would be
    /// found only when `i`'s patience runs out, and delivery would wait
    /// twice as long. The cost is one segment that may arrive twice.
    fn back_up_head(&mut self, i: usize, j: usize, ask: &Ask, hol: u64, end: u64) {
        let backup = self
            .pipes
            .iter()
            .enumerate()
            .filter(|&(k, q)| k != i && k != j && q.live())
            .min_by_key(|(_, q)| rtt_of(self.config.rules, q, ask.now))
            .map(|(k, _)| k);
        if let Some(k) = backup {
            self.pipes[k].request(ask.now, hol, end, ask.deq);
            self.sched.backed_up();
        }
    }

    /// The head of line waits for a pipe (its request was lost, or its
    /// pipe timed out or went): the quickest live pipe asks for it at once,
    /// even with its window full (one segment past it, as a fast
    /// retransmit goes, unless its next answer opens a slot soon: see the
    /// engine's `ask`) or the buffer frozen for it, rather than at its next
    /// window slot, up to a round trip later, or rather than leave it to
    /// the rank, which may hand it to a slower pipe that asks first.
    fn take_head(&mut self, i: usize, ask: &Ask, limits: Limits) -> bool {
        let rules = self.config.rules;
        let ours = rtt_of(rules, &self.pipes[i], ask.now);
        let quicker_elsewhere = self
            .pipes
            .iter()
            .enumerate()
            .any(|(k, q)| k != i && q.live() && rtt_of(rules, q, ask.now) < ours);
        if quicker_elsewhere {
            return false;
        }
        let p = &self.pipes[i];
        let Some(end) = self
            .sched
            .take_head(ask.now, ask.deq, p.path, p.next_local(), limits)
        else {
            return false;
        };
        self.pipes[i].request(ask.now, ask.deq, end, ask.deq);
        true
    }
}
