//! A pipe's life: its handshake (R²CP §4.3.2 `open()`, `established()`),
//! its interface's link going and coming back as the host says, and its
//! retirement (`close()`). Each moves the pipe's [`PathState`].

use super::{Pipe, PipeReport};
use crate::r2cp::memory::RouteMemory;
use crate::r2cp::pipe::state::PathState;
use crate::time::Instant;
use crate::wire::rcp::{RcpFlags, RcpHeader};

impl Pipe {
    /// Starts the handshake (§4.3.2 `open()`): a SYN, numbered, its timer
    /// armed.
    pub fn open(&mut self, now: Instant) {
        let id = self.handshake.send(now, self.answers.rto());
        self.out.push_back(RcpHeader::new(
            RcpFlags::SYN,
            self.config.conn_id,
            self.config.isn,
            self.config.isn,
            id,
        ));
    }

    /// Sends the SYN again now, its timer no longer backed off.
    pub fn open_again(&mut self, now: Instant) {
        self.answers.reset_backoff();
        self.open(now);
    }

    /// The sender's SYN+ACK: learn its sequence space and what it has.
    pub fn on_synack(&mut self, now: Instant, h: &RcpHeader) -> PipeReport {
        let mut report = PipeReport::default();
        // One ACK waiting answers any number of SYN+ACKs (a sender that
        // repeats them faster than they are sent grows no queue).
        if !self.out.iter().any(|o| o.flags == RcpFlags::ACK) {
            self.out.push_back(RcpHeader::new(
                RcpFlags::ACK,
                self.config.conn_id,
                self.config.isn,
                self.config.isn,
                0,
            ));
        }
        if self.state.established() {
            return report;
        }
        self.isn = Some(h.seq);
        self.avail = self.offset_of(h.deq, 0);
        self.advertised = self.avail;
        if h.flags.contains(RcpFlags::FIN) {
            self.fin = Some(self.advertised);
        }
        if let Some(t) = self.handshake.answered(now, h.id) {
            self.answers.sample(t, now);
            self.cc.on_rtt_sample(now, now - t);
        }
        // The path answers: the first requests are timed from the initial
        // RTO (Karn keeps a retried SYN's answer from being a sample), not
        // from the handshake's backed-off timer.
        self.answers.reset_backoff();
        self.state = self.state.on_established();
        self.cc
            .set_cwnd(self.config.cc.initial_window * self.config.mss);
        if let Some(w) = self.recalled.take() {
            self.resume(w);
        }
        report.established = true;
        report
    }

    /// What the pipe leaves of its path for the next pipe on its route
    /// (rule `route_memory`): its round-trip estimator and the window it
    /// had while its path worked (before an outage, if it is in one).
    /// `None` if its path never answered a request.
    pub fn memory(&self) -> Option<RouteMemory> {
        let heard = self.answers.last_heard()?;
        let window = self.outage.saved().or_else(|| {
            (self.state == PathState::Working).then(|| (self.window(), self.cc.window().ssthresh))
        });
        Some(RouteMemory {
            rtt: self.answers.estimator(),
            window,
            heard,
        })
    }

    /// Starts from what the route's last pipe left (rule `route_memory`):
    /// its round-trip estimator now (the SYN is timed by it), its window
    /// once the handshake completes, resumed paced.
    pub fn recall(&mut self, memory: RouteMemory) {
        self.answers.recall(memory.rtt);
        self.recalled = memory.window;
    }

    /// Whether the pipe is opening and its SYN timer has expired.
    pub fn handshake_due(&self, now: Instant) -> bool {
        self.opening() && self.handshake.due(now)
    }

    /// Whether the pipe is opening: its SYN is out, its interface up.
    pub fn opening(&self) -> bool {
        self.state == PathState::Opening && self.handshake.deadline().is_some()
    }

    /// When the SYN now out left (`None` unless opening).
    pub fn syn_sent_at(&self) -> Option<Instant> {
        self.handshake.sent_at().filter(|_| self.opening())
    }

    /// The interface lost its link (the host said so; R²CP §4.3.5 for what
    /// the pipe had asked for): what is outstanding is lost and returned to
    /// the engine, timers stop, the window is kept for the link's return.
    pub fn suspend(&mut self) -> PipeReport {
        let mut report = PipeReport::default();
        if self.suspended() {
            return report;
        }
        if self.state == PathState::Working {
            self.outage.save(self.window(), self.cc.window().ssthresh);
        }
        self.state = self.state.on_link_down();
        report.lost = self
            .requests
            .take_all(self.given_up_kept())
            .into_iter()
            .map(|(_, r)| r.start)
            .collect();
        self.recovery.clear();
        self.fast_retransmit = false;
        self.rto_deadline = None;
        self.handshake.stop();
        self.persist_deadline = None;
        self.outage.stop_probe();
        self.pacing.clear_deadline();
        self.out.clear();
        report
    }

    /// The interface has its link again: a pipe still opening sends its SYN
    /// at once; an established one resumes the window it had, paced (rule
    /// `resume_window`, as Freeze-TCP resumes where it stopped), or starts
    /// afresh from its initial window.
    pub fn link_up(&mut self, now: Instant) {
        if !self.suspended() {
            return;
        }
        self.state = self.state.on_link_up();
        self.answers.reset_backoff();
        self.outage.clear_expiries();
        match self.state {
            PathState::Opening => self.open_again(now),
            _ => {
                let before = self
                    .outage
                    .take_saved()
                    .unwrap_or_else(|| (self.window(), self.cc.window().ssthresh));
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

    /// True once the pipe can take over from a pipe with `old_in_flight`
    /// bytes outstanding (§4.4.1, "close the old pipe once the new one
    /// leaves slow start"): it is established and it left slow start, or
    /// its window alone holds what both pipes have in flight now.
    pub fn ready_to_take_over(&self, old_in_flight: u64) -> bool {
        let w = self.cc.window();
        self.state.established()
            && (w.cwnd >= w.ssthresh || w.cwnd >= old_in_flight + self.in_flight())
    }

    /// The pipe retires (§4.4.1: its handoff completed, or its path is
    /// closed): no new requests; the engine removes it once nothing is
    /// outstanding.
    pub fn retire(&mut self) {
        self.state = self.state.on_retire();
    }

    /// A final request telling the sender the pipe is done (§4.3.2
    /// `close()`).
    pub fn close(&mut self, deq: u64) {
        self.out.clear();
        let seq = self.wire(deq);
        self.out.push_back(RcpHeader::new(
            RcpFlags::REQ | RcpFlags::FIN,
            self.config.conn_id,
            seq,
            seq,
            self.next_local() as u32,
        ));
        self.rto_deadline = None;
        self.handshake.stop();
        self.persist_deadline = None;
        self.outage.stop_probe();
        self.pacing.clear_deadline();
    }
}
