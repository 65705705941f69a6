//! A pipe's handshake (R²CP §4.3.2: pipes open as RCP connections do), and
//! when a pipe still opening sends its SYN again (beyond the paper).
//!
//! A lone connection backs its SYN off exponentially (RFC 6298 §5.5): its
//! only path may be congested. A pipe opening beside others that work is
//! not the connection's only way through, and its SYN is one small packet
//! that finds out whether its path is there. Backed off, a SYN lost while
//! the link was down waits 2, then 4 s: in a handoff storm whose links take
//! turns of a second or two, the new path's link came up and went again
//! before the pipe asked. So while another pipe works, the SYN goes every
//! initial RTO (RFC 6298's 1 s), without backoff; and when the working
//! pipe's path falls silent (`Pipe::fell_silent`'s measure), a pipe whose
//! last SYN left before that path's last answer sends one at once: the
//! link the host lost may be the one it handed over from.

use super::{Pipe, PipeReport, PipeState, SYN_TIMES};
use crate::time::Instant;
use crate::wire::rcp::{RcpFlags, RcpHeader};

impl Pipe {
    /// Starts the handshake (§4.3.2 `open()`).
    pub fn open(&mut self, now: Instant) {
        self.syns += 1;
        self.syn_times.push_back((self.syns, now));
        if self.syn_times.len() > SYN_TIMES {
            self.syn_times.pop_front();
        }
        self.out.push_back(RcpHeader::new(
            RcpFlags::SYN,
            self.config.conn_id,
            self.config.isn,
            self.config.isn,
            self.syns,
        ));
        self.syn_sent_at = Some(now);
        self.opened_at.get_or_insert(now);
        self.handshake_deadline = Some(now + self.rtt.rto());
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
        if self.state == PipeState::Established {
            return report;
        }
        self.isn = Some(h.seq);
        self.avail = self.offset_of(h.deq, 0);
        self.advertised = self.avail;
        if h.flags.contains(RcpFlags::FIN) {
            self.fin = Some(self.advertised);
        }
        self.handshake = self.opened_at.map(|t| now - t);
        self.syn_sent_at = None;
        let answered = match h.id {
            0 if self.syns == 1 => self.syn_times.front().map(|&(_, t)| t),
            0 => None,
            id => self
                .syn_times
                .iter()
                .find(|&&(n, _)| n == id)
                .map(|&(_, t)| t),
        };
        if let Some(t) = answered {
            self.rtt.on_sample(t, now);
            self.cc.on_rtt_sample(now, now - t);
        }
        // The path answers: the first requests are timed from the initial
        // RTO (Karn keeps a retried SYN's answer from being a sample), not
        // from the handshake's backed-off timer, which would hold whatever
        // they ask for that much longer if the path fails again.
        self.rtt.reset_backoff();
        self.state = PipeState::Established;
        self.handshake_deadline = None;
        self.cc
            .set_cwnd(self.config.cc.initial_window * self.config.mss);
        report.established = true;
        report
    }

    /// Sends the SYN again now, its timer no longer backed off.
    pub fn open_again(&mut self, now: Instant) {
        self.rtt.reset_backoff();
        self.open(now);
    }

    /// Whether the pipe is opening and its SYN timer has expired.
    pub fn handshake_due(&self, now: Instant) -> bool {
        self.opening() && self.handshake_deadline.is_some_and(|d| d <= now)
    }

    /// Whether the pipe is opening: its SYN is out, its interface up.
    pub fn opening(&self) -> bool {
        self.state == PipeState::Opening && !self.suspended && self.handshake_deadline.is_some()
    }

    /// When the SYN now out left (`None` unless opening).
    pub fn syn_sent_at(&self) -> Option<Instant> {
        self.syn_sent_at.filter(|_| self.opening())
    }

    /// When the pipe's path will count as fallen silent if nothing arrives
    /// meanwhile, with when it last answered: four of its usual intervals
    /// between answers or a quarter of its round trip (as `fell_silent`
    /// measures) after its last answer, and after its oldest outstanding
    /// request was due back (so a window in slow start, answered in
    /// flights a round trip apart, is not silent between them). `None`
    /// unless it works and has requests outstanding.
    pub fn silent_at(&self) -> Option<(Instant, Instant)> {
        if !self.live() {
            return None;
        }
        let oldest = self.outstanding.values().next()?.sent_at;
        let (last, _) = self.last_answer?;
        let srtt = self.rtt.srtt()?;
        let slack = self.silence_slack();
        Some(((last + slack).max(oldest + srtt + slack), last))
    }
}

#[cfg(test)]
mod tests {
    use crate::endpoint::PathId;
    use crate::r2cp::pipe::Pipe;
    use crate::rcp::{RcpConfig, RcpVariant};
    use crate::seq::SeqNum;
    use crate::time::{Duration, Instant};
    use crate::wire::rcp::{RcpFlags, RcpHeader};

    fn ms(v: u64) -> Instant {
        Instant::from_millis(v)
    }

    fn opening() -> Pipe {
        let mut config = RcpConfig::ns2(RcpVariant::Rcp);
        config.rtt.initial_rto = Duration::from_secs(1);
        let mut p = Pipe::new(config, PathId(1), crate::r2cp::Rules::ALL);
        p.open(ms(0));
        p
    }

    /// A SYN+ACK answering SYN number `id` (0: not said).
    fn synack(id: u32) -> RcpHeader {
        RcpHeader::new(
            RcpFlags::SYN | RcpFlags::ACK,
            0,
            SeqNum(0),
            SeqNum(1000),
            id,
        )
    }

    #[test]
    fn a_syn_sent_again_without_backoff_keeps_the_initial_interval() {
        let mut p = opening();
        assert!(!p.handshake_due(ms(999)));
        assert!(p.handshake_due(ms(1_000)));
        // Backed off, the next SYN would wait 2 s; sent again, 1 s.
        p.open_again(ms(1_000));
        assert_eq!(p.syn_sent_at(), Some(ms(1_000)));
        assert_eq!(p.poll_timeout(), Some(ms(2_000)));
        p.handle_timeout(ms(2_000));
        assert_eq!(p.poll_timeout(), Some(ms(4_000)), "a lone pipe backs off");
    }

    #[test]
    fn the_answer_to_a_syn_sent_twice_is_timed_from_the_syn_it_names() {
        // Answers the first SYN, 1.2 s on: 200 ms after the second.
        let mut p = opening();
        p.open_again(ms(1_000));
        p.on_synack(ms(1_200), &synack(1));
        assert_eq!(p.srtt(), Some(Duration::from_millis(1_200)));
        // Naming the second.
        let mut p = opening();
        p.open_again(ms(1_000));
        p.on_synack(ms(1_200), &synack(2));
        assert_eq!(p.srtt(), Some(Duration::from_millis(200)));
        // Naming none: ambiguous after two SYNs (Karn), a sample after one.
        let mut p = opening();
        p.open_again(ms(1_000));
        p.on_synack(ms(1_200), &synack(0));
        assert_eq!(p.srtt(), None);
        let mut q = opening();
        q.on_synack(ms(300), &synack(0));
        assert_eq!(q.srtt(), Some(Duration::from_millis(300)));
    }

    #[test]
    fn a_working_pipe_counts_as_silent_once_its_oldest_request_is_overdue() {
        let mut p = Pipe::established(100_000);
        assert_eq!(p.silent_at(), None, "nothing outstanding");
        for k in 0..6 {
            p.request(ms(20), k * 1000, (k + 1) * 1000, 0);
        }
        // Answers 100 ms after asking, 5 ms apart.
        for k in 1..=4 {
            p.on_data(ms(115 + 5 * u64::from(k)), k);
        }
        let srtt = p.srtt().unwrap();
        let slack = Duration::from_millis(20).max(srtt.div(4));
        let (at, last) = p.silent_at().unwrap();
        assert_eq!(last, ms(135));
        assert_eq!(at, (ms(135) + slack).max(ms(20) + srtt + slack));
        // A new flight, asked at the last answer, moves the time on by a
        // round trip only once the older requests are answered.
        p.request(ms(135), 6000, 7000, 0);
        assert_eq!(p.silent_at().unwrap().0, at);
        p.on_data(ms(140), 5);
        p.on_data(ms(145), 6);
        let (later, _) = p.silent_at().unwrap();
        assert!(later > at && later >= ms(135) + p.srtt().unwrap());
    }
}
