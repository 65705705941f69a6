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
//! The survey does not give the comparison. We follow the original's "best
//! RTT" rule: the path is clear when the faster probe took no longer than
//! the best round trip seen so far (data and probes), plus one eighth as the
//! jitter allowance of RFC 6298's smoothing gain. The first probe leaves as
//! the loss is detected and waits behind the connection's own queue; the
//! second leaves a round trip later, once that queue drained with data
//! suspended, and sees only the queue other traffic keeps: congestion.

use super::{Kind, Planned, TcpSender};
use crate::cc::LossCause;
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
}

/// Probes whose send times are kept for their answers' round trips.
const PROBES_KEPT: usize = 16;

/// A probe cycle in progress.
#[derive(Debug)]
pub(super) struct Cycle {
    trigger: Trigger,
    /// When the probe in flight counts as lost.
    pub(super) deadline: Instant,
    id: u32,
    sent: Instant,
    /// The first exchange's round trip, once measured.
    first: Option<Duration>,
}

impl TcpSender {
    /// Probe cycles completed, and how many ended in Immediate Recovery.
    pub fn probe_cycles(&self) -> (u64, u64) {
        (self.probing.cycles, self.probing.immediate)
    }

    /// True while a probe cycle suspends data.
    pub fn probing(&self) -> bool {
        self.probing.cycle.is_some()
    }

    pub(super) fn start_probe_cycle(&mut self, now: Instant, trigger: Trigger) {
        self.rto_deadline = None;
        self.probing.cycle = Some(Cycle {
            trigger,
            deadline: now,
            id: 0,
            sent: now,
            first: None,
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
        if let Some(&(_, sent)) = self.probing.sent.iter().find(|&&(i, _)| i == id) {
            self.rtt.on_sample(sent, now);
        }
        let Some(c) = self.probing.cycle.as_mut() else {
            return;
        };
        if c.id != id {
            return;
        }
        let rtt = now - c.sent;
        match c.first {
            None => {
                c.first = Some(rtt);
                self.send_probe(now);
            }
            Some(first) => self.finish_probe_cycle(now, first.min(rtt)),
        }
    }

    /// A probe or its answer was lost: the cycle starts again.
    pub(super) fn on_probe_timeout(&mut self, now: Instant) {
        if let Some(c) = self.probing.cycle.as_mut() {
            c.first = None;
            self.send_probe(now);
        }
    }

    fn finish_probe_cycle(&mut self, now: Instant, fastest: Duration) {
        let Some(cycle) = self.probing.cycle.take() else {
            return;
        };
        let best = match (self.probing.best, self.rtt.min_rtt()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let clear = best.is_none_or(|b| fastest <= b + b.div(8));
        self.probing.best = Some(best.map_or(fastest, |b| b.min(fastest)));
        self.probing.cycles += 1;
        if clear {
            self.probing.immediate += 1;
        }
        match (cycle.trigger, clear) {
            (Trigger::Timeout, false) => self.timeout_response(now),
            (trigger, clear) => {
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
                if trigger == Trigger::Timeout {
                    self.rtt.reset_backoff();
                }
                self.fast_retransmit(now, cause);
                self.dupwnd += absorbed;
                self.dupacks = self.config.dupthresh;
                self.send_much(now, 2);
            }
        }
    }
}
