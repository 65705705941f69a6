//! TCP-Probing (Tsaoussidis & Badr, ICNP 2000; the survey's §4 and §5).
//!
//! A loss detected by three duplicate ACKs or by a timeout does not
//! retransmit or cut the window at once: the sender suspends data and runs a
//! probe cycle, two exchanges of header-only probes (PROBE flag) each
//! answered by the receiver. A probe or answer not back within the timeout
//! (not backed off: "timeout values during probing are also not adjusted")
//! starts the cycle again, so the cycle lasts as long as the error does.
//! With both round trips measured, the sender decides:
//! - the path is clear → Immediate Recovery: neither cwnd nor ssthresh is
//!   lowered (nor the timer backed off); the lost segment is resent and
//!   NewReno's recovery resends the further holes one per partial ACK, at
//!   the window held before the cycle;
//! - congestion → the standard response: fast retransmit and recovery for a
//!   duplicate-ACK loss, slow start for a timeout.
//!
//! Deviation: after a timeout, Immediate Recovery does not go back N at the
//! full window, as a Tahoe or Reno sender's next segment would: the
//! receiver holds most of that window already (the cycle lasted two round
//! trips), and without SACK the burst would resend it all. It recovers as
//! after duplicate ACKs instead.
//!
//! Deviation: each probe's answer is a round-trip sample for the
//! retransmission timer (a probe has an id of its own, so Karn's ambiguity
//! does not arise), whichever probe of the cycle it answers. The timer is
//! not backed off, as the original says; but without the samples a path
//! whose round trip grew past the timeout during the error would have
//! every probe declared lost before its answer came back, for ever.
//!
//! Deviation (`tcp-probing`; `tcp-probing-paper` runs without it): a
//! cycle whose first probe found a standing queue while the congestion
//! window (not the receiver's) held the sender counts as congestion, even
//! when the second probe comes back as quick as the best round trip. The
//! second probe leaves after data suspension drained the connection's own
//! queue, so a loss its own window caused at a drop-tail queue reads as a
//! clear path; Immediate Recovery then restores the window that overflowed
//! the queue, which overflows it again a round trip later, and the
//! connection lives in probe cycles (the simulator's
//! `tcp_probing_backs_off_when_its_own_window_overflows_the_queue`
//! measures both variants there). Our own queue is congestion as
//! much as anyone's: the survey's rule is to "comply with the congestion
//! control principles of standard TCP" when congestion is indicated. A
//! window the receiver limits was not growing into the queue, so a cycle
//! with a standing queue under it is still judged by the second probe.
//!
//! The survey does not give the comparison. We follow the original's "best
//! RTT" rule: the path is clear when the faster probe took no longer than
//! the best round trip seen so far (data and probes), plus one eighth as the
//! jitter allowance of RFC 6298's smoothing gain. The first probe leaves as
//! the loss is detected and waits behind the connection's own queue; the
//! second leaves a round trip later, once that queue drained with data
//! suspended, and sees only the queue other traffic keeps: congestion.

use super::{Kind, Planned, TcpSender};
use crate::cc::LossCause;
use crate::tcp::TcpVariant;
use crate::time::{Duration, Instant};

/// What started the cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Trigger {
    /// Three duplicate ACKs.
    DupAcks,
    /// The retransmission timer.
    Timeout,
}

/// TCP-Probing's sender state.
#[derive(Debug, Default)]
pub(super) struct Probing {
    pub(super) cycle: Option<Cycle>,
    next_id: u32,
    /// The best probe round trip so far.
    best: Option<Duration>,
    cycles: u64,
    immediate: u64,
    /// The latest probes' ids and send times.
    sent: std::collections::VecDeque<(u32, Instant)>,
    /// Whether the latest cycle found the path clear (the recovery that
    /// follows is Immediate Recovery's).
    last_clear: bool,
    /// Since when the receiver's window, not the congestion window, has
    /// held the sender (none while the congestion window does).
    receiver_held_since: Option<Instant>,
}

/// Probes whose send times are kept for their answers' round trips.
const PROBES_KEPT: usize = 16;

/// A probe cycle in progress.
#[derive(Debug)]
pub(super) struct Cycle {
    trigger: Trigger,
    /// When the loss was detected and the cycle began.
    began: Instant,
    /// When the probe in flight counts as lost.
    pub(super) deadline: Instant,
    id: u32,
    sent: Instant,
    /// The first exchange's round trip, once measured.
    first: Option<Duration>,
    /// The id of the cycle's first probe (sent as the loss was detected).
    first_id: u32,
    /// The longest round trip any probe of this cycle took, late answers
    /// included: the queue the loss left, even when the probe that met it
    /// timed out and the cycle began again.
    longest: Duration,
    /// The smoothed round trip when the loss was detected: the queue the
    /// data met before it, which a timeout's wait has drained by the time
    /// the first probe leaves.
    srtt_before: Duration,
}

/// Whether the loss a cycle answers came from the connection's own
/// standing queue: its first probe, sent as the loss was detected, waited
/// past the best round trip `best` (by more than RFC 6298's 1/8), and the
/// sender's flight was growing (the receiver's window had not held it for
/// that probe's round trip before the loss: `receiver_held`).
pub(super) fn own_queue(receiver_held: bool, best: Duration, first: Duration) -> bool {
    !receiver_held && first > best + best.div(8)
}

impl TcpSender {
    /// Probe cycles completed, and how many ended in Immediate Recovery.
    pub fn probe_cycles(&self) -> (u64, u64) {
        (self.probing.cycles, self.probing.immediate)
    }

    /// Notes, as an acknowledgment arrives, which window holds the sender.
    pub(super) fn note_window_holder(&mut self, now: Instant) {
        let held = self.cc.window().cwnd >= self.config.rwnd_bytes();
        self.probing.receiver_held_since = match self.probing.receiver_held_since {
            Some(t) if held => Some(t),
            None if held => Some(now),
            _ => None,
        };
    }

    /// Whether a partial acknowledgment restarts the retransmission timer
    /// each time (RFC 6582 §4's "Slow-but-Steady") rather than on the first
    /// only: in Immediate Recovery, whose cycles already cost two round
    /// trips per loss; in a recovery from congestion `tcp-probing` complies
    /// with standard TCP (NewReno's "Impatient" timer), where
    /// `tcp-probing-paper` stays steady.
    pub(super) fn steady_recovery(&self) -> bool {
        match self.config.variant {
            TcpVariant::ProbingPaper => true,
            TcpVariant::Probing => self.probing.last_clear,
            _ => false,
        }
    }

    /// True while a probe cycle suspends data.
    pub fn probing(&self) -> bool {
        self.probing.cycle.is_some()
    }

    pub(super) fn start_probe_cycle(&mut self, now: Instant, trigger: Trigger) {
        self.rto_deadline = None;
        self.probing.cycle = Some(Cycle {
            trigger,
            began: now,
            deadline: now,
            id: 0,
            sent: now,
            first: None,
            first_id: self.probing.next_id,
            longest: Duration::ZERO,
            srtt_before: self.rtt.srtt().unwrap_or(Duration::ZERO),
        });
        self.send_probe(now);
    }

    fn send_probe(&mut self, now: Instant) {
        let id = self.probing.next_id;
        self.probing.next_id = id.wrapping_add(1);
        let wait = self.rtt.base_rto();
        let Some(c) = self.probing.cycle.as_mut() else {
            return;
        };
        c.id = id;
        c.sent = now;
        c.deadline = now + wait;
        if self.probing.sent.len() == PROBES_KEPT {
            self.probing.sent.pop_front();
        }
        self.probing.sent.push_back((id, now));
        self.planned.push_back(Planned {
            offset: self.highest_ack,
            len: 0,
            kind: Kind::Probe(id),
            again: false,
        });
    }

    /// A probe's answer (or a stale one) arrived, with the receiver's
    /// cumulative acknowledgment.
    pub(super) fn on_probe_ack(&mut self, now: Instant, id: u32, ack: u64) {
        if ack > self.last_ack {
            self.absorb_ack(now, ack);
        }
        let sent = self
            .probing
            .sent
            .iter()
            .find(|&&(i, _)| i == id)
            .map(|p| p.1);
        if let Some(sent) = sent {
            self.rtt.on_sample(sent, now);
        }
        let Some(c) = self.probing.cycle.as_mut() else {
            return;
        };
        if let Some(sent) = sent {
            if id.wrapping_sub(c.first_id) < 1 << 31 {
                c.longest = c.longest.max(now - sent);
            }
        }
        if c.id != id {
            return;
        }
        let rtt = now - c.sent;
        match c.first {
            None => {
                c.first = Some(rtt);
                self.send_probe(now);
            }
            Some(first) => {
                let longest = c.longest;
                self.finish_probe_cycle(now, first.min(rtt), longest);
            }
        }
    }

    /// A probe or its answer was lost: the cycle starts again.
    pub(super) fn on_probe_timeout(&mut self, now: Instant) {
        if let Some(c) = self.probing.cycle.as_mut() {
            c.first = None;
            self.send_probe(now);
        }
    }

    /// Ends the cycle: `fastest` is its quicker exchange's round trip,
    /// `longest` the longest any of its probes took.
    fn finish_probe_cycle(&mut self, now: Instant, fastest: Duration, longest: Duration) {
        let Some(cycle) = self.probing.cycle.take() else {
            return;
        };
        // The cycle's answered probes are unambiguous round-trip samples
        // (each has its own number): as a valid sample does under Karn's
        // rule (RFC 6298 §5), they end any backoff of the timer. A timeout
        // whose cycle finds congestion then backs it off once, in the
        // standard response below, instead of once more per cycle.
        self.rtt.reset_backoff();
        let best = match (self.probing.best, self.rtt.min_rtt()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        // The queue the loss met: the longest probe of the cycle, or the
        // data's own round trip just before it.
        let queue = longest.max(cycle.srtt_before);
        // The receiver's window held the sender for that whole round trip
        // before the loss: its flight was not growing.
        let receiver_held = self
            .probing
            .receiver_held_since
            .is_some_and(|t| t + queue <= cycle.began);
        let own_queue = self.config.variant == TcpVariant::Probing
            && best.is_some_and(|b| own_queue(receiver_held, b, queue));
        let clear = !own_queue && best.is_none_or(|b| fastest <= b + b.div(8));
        self.probing.best = Some(best.map_or(fastest, |b| b.min(fastest)));
        self.probing.cycles += 1;
        self.probing.last_clear = clear;
        if clear {
            self.probing.immediate += 1;
        }
        match (cycle.trigger, clear) {
            (Trigger::Timeout, false) => self.timeout_response(now),
            // The survey's "full-window recovery" after a timeout: Reno's
            // go-back-N from the cumulative acknowledgment, at the window
            // held before the cycle (§4, §5). `tcp-probing` recovers as after
            // duplicate ACKs instead (docs/protocols.md, its deviations).
            (Trigger::Timeout, true) if self.config.variant == TcpVariant::ProbingPaper => {
                self.go_back_n();
                self.restart_timer(now, false);
                self.send_much(now, self.config.max_burst);
            }
            (_, clear) => {
                // Duplicates absorbed during the cycle left the network:
                // they inflate the window as in fast recovery.
                let absorbed = self.dupwnd;
                self.dupwnd = 0;
                if self.last_ack >= self.max_seq {
                    // Everything arrived meanwhile: nothing to resend.
                    if !clear {
                        self.loss_response(now, LossCause::Congestion);
                    }
                    self.dupacks = 0;
                    self.rto_deadline = None;
                    self.send_much(now, self.config.max_burst);
                    return;
                }
                let cause = if clear {
                    LossCause::Wireless
                } else {
                    LossCause::Congestion
                };
                self.fast_retransmit(now, cause);
                self.dupwnd += absorbed;
                self.dupacks = self.dupthresh();
                self.send_much(now, 2);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::own_queue;
    use crate::time::Duration;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    #[test]
    fn a_first_probe_behind_a_queue_a_growing_flight_kept_is_congestion() {
        assert!(own_queue(false, ms(50), ms(250)));
    }

    #[test]
    fn a_quick_first_probe_or_a_flight_the_receiver_held_is_not() {
        // Within 1/8 of the best round trip.
        assert!(!own_queue(false, ms(50), ms(56)));
        // The receiver's window held the sender: the queue was not growing.
        assert!(!own_queue(true, ms(50), ms(900)));
    }
}
