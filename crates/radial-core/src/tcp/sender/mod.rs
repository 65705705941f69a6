//! The TCP sender: ns-2's one-way `Agent/TCP/Newreno` and `Agent/TCP/Sack1`
//! in bytes instead of packets, plus ELN.
//!
//! Loss recovery follows ns-2.35 line by line where the papers' results
//! depend on it (see docs/validation.md): fast retransmit on the third
//! duplicate ACK (for SACK, the third that changes the scoreboard), limited
//! transmit on the first two, RFC 6582 window inflation and partial-ACK
//! deflation for NewReno, ns-2's pipe estimate for SACK, go-back-N after a
//! timeout, Karn's algorithm with one timed segment per round trip. SACK
//! recovery is in [`sack`]; Linux's reordering tolerance, an option that
//! raises the duplicate-ACK threshold, in [`reordering`].
//!
//! The mobility schemes live beside it, each in its own module: TCP-HO's
//! handoff notification ([`handoff`]), Freeze-TCP's persist mode
//! ([`persist`]) and TCP-Probing's probe cycle ([`probing`]); TCP-PRISM's
//! response to a proxy's loss notices ([`prism`]); and pTCP's TCP-v pipe,
//! the same sender over virtual bytes ([`virtual_pipe`]).

mod handoff;
mod persist;
mod prism;
mod probing;
mod reordering;
mod sack;
mod suspend;
mod virtual_pipe;

use virtual_pipe::Stream;
pub use virtual_pipe::VirtualSegment;

use std::collections::VecDeque;

use super::{Scoreboard, TcpConfig, TcpVariant};
use crate::cc::{Controller, LossCause};
use crate::endpoint::{AppEvent, Endpoint, EndpointStats, HostEvent, PathId};
use crate::rtt::RttEstimator;
use crate::time::Instant;
use crate::wire::tcp::{Flags, SackList, TcpHeader, CAPABILITY_HANDOFF, MAX_SACK_BLOCKS};

/// What a planned segment is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Payload (or a zero-length window probe).
    Data,
    /// The connection's SYN.
    Syn,
    /// A TCP-Probing probe with this number.
    Probe(u32),
}

/// A segment decided on and waiting for `poll_transmit`.
#[derive(Clone, Copy, Debug)]
struct Planned {
    offset: u64,
    len: u64,
    kind: Kind,
    /// The range was sent before.
    again: bool,
}

/// Which loss-recovery episode is running.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LastAction {
    None,
    DupAck,
    Timeout,
    Exited,
}

/// The sending side of a one-way TCP connection.
#[derive(Debug)]
pub struct TcpSender {
    config: TcpConfig,
    path: PathId,
    buffer: Stream,
    cc: Controller,
    rtt: RttEstimator,
    /// Handshake done (the SYN was acknowledged).
    established: bool,
    syn_sent: bool,
    /// Cumulative acknowledgment (next byte the receiver expects); ns-2
    /// `last_ack_`.
    last_ack: u64,
    /// Highest cumulative acknowledgment seen (differs from `last_ack` inside
    /// SACK recovery); ns-2 `highest_ack_`.
    highest_ack: u64,
    /// Next byte to send; ns-2 `t_seqno_`.
    next_seq: u64,
    /// One past the highest byte sent; ns-2 `maxseq_`.
    max_seq: u64,
    dupacks: u32,
    /// ns-2 `recover_` (None = 0).
    recover: Option<u64>,
    last_action: LastAction,
    /// NewReno window inflation in segments (ns-2 `dupwnd_`).
    dupwnd: u64,
    first_partial: bool,
    /// SACK recovery in progress (ns-2 `fastrecov_`) and its pipe estimate in
    /// segments.
    fast_recovery: bool,
    pipe: i64,
    /// Duplicate ACKs are ignored after a timeout until new data is
    /// acknowledged (ns-2 `timeout_`).
    after_timeout: bool,
    scoreboard: Scoreboard,
    /// Karn: the timed segment's end offset and send time.
    timed: Option<(u64, Instant)>,
    rto_deadline: Option<Instant>,
    /// Initial window after the handshake (1 if the SYN had to be resent).
    initial_window: u64,
    planned: VecDeque<Planned>,
    want_send: bool,
    events: VecDeque<AppEvent>,
    closed_reported: bool,
    stats: EndpointStats,
    /// TCP-HO's state (negotiation, HO-ADJUST).
    handoff: handoff::Handoff,
    /// Freeze-TCP: the receiver's window is zero and the sender waits.
    persist: Option<persist::Persist>,
    /// The window the receiver advertised last (Freeze-TCP tells a window
    /// update from a duplicate acknowledgment by it, RFC 5681 §2).
    peer_window: Option<u32>,
    /// TCP-Probing's state.
    probing: probing::Probing,
    /// TCP-PRISM's state.
    prism: prism::Prism,
    /// The reordering measured (with reordering tolerance).
    reordering: reordering::Reordering,
}

impl TcpSender {
    /// A sender that opens the connection on `path` at the first poll.
    pub fn new(config: TcpConfig, path: PathId) -> Self {
        let mut cc = Controller::new(config.cc);
        if config.handshake {
            // ns-2 `delay_growth_`: cwnd is 1 until the SYN is acknowledged.
            cc.set_cwnd(config.mss);
        }
        TcpSender {
            buffer: Stream::real(config.send_buffer),
            rtt: RttEstimator::new(config.rtt),
            cc,
            path,
            established: !config.handshake,
            syn_sent: false,
            last_ack: 0,
            highest_ack: 0,
            next_seq: 0,
            max_seq: 0,
            dupacks: 0,
            recover: None,
            last_action: LastAction::None,
            dupwnd: 0,
            first_partial: false,
            fast_recovery: false,
            pipe: 0,
            after_timeout: false,
            scoreboard: Scoreboard::new(),
            timed: None,
            rto_deadline: None,
            initial_window: config.cc.initial_window,
            planned: VecDeque::new(),
            want_send: true,
            events: VecDeque::new(),
            closed_reported: false,
            stats: EndpointStats::default(),
            handoff: handoff::Handoff::new(config.variant, config.handshake),
            persist: None,
            peer_window: None,
            probing: probing::Probing::default(),
            prism: prism::Prism::default(),
            reordering: reordering::Reordering::default(),
            config,
        }
    }

    /// The congestion controller (for inspection and traces).
    pub fn controller(&self) -> &Controller {
        &self.cc
    }

    /// Bytes acknowledged cumulatively.
    pub fn acked(&self) -> u64 {
        self.last_ack.max(self.highest_ack)
    }

    /// The current RTO.
    pub fn rto(&self) -> crate::time::Duration {
        self.rtt.rto()
    }

    fn mss(&self) -> u64 {
        self.config.mss
    }

    /// Segments the congestion window allows (ns-2 `int(cwnd_)`).
    fn cwnd_segments(&self) -> u64 {
        self.cc.window().cwnd / self.mss()
    }

    /// ns-2 `window()`: min(int(cwnd) + dupwnd, wnd) in segments.
    fn window(&self) -> u64 {
        (self.cwnd_segments() + self.dupwnd).min(self.config.window)
    }

    /// ns-2 `windowd()` in bytes: min(cwnd + dupwnd, wnd), unrounded.
    fn window_bytes(&self) -> u64 {
        (self.cc.window().cwnd + self.dupwnd * self.mss()).min(self.config.rwnd_bytes())
    }

    /// End of the data the application has written (ns-2 `curseq_`).
    fn data_end(&self) -> u64 {
        self.buffer.end()
    }

    fn segment_len(&self, offset: u64) -> u64 {
        self.mss().min(self.data_end().saturating_sub(offset))
    }

    /// Decides to send the segment at `offset` (ns-2 `output()`).
    fn output(&mut self, now: Instant, offset: u64) {
        let len = self.segment_len(offset);
        if len == 0 {
            return;
        }
        let end = offset + len;
        let idle = self.highest_ack >= self.max_seq;
        let again = end <= self.max_seq;
        if again {
            self.stats.retransmits += 1;
            self.note_retransmission(offset);
        } else {
            if self.timed.is_none() {
                self.timed = Some((end, now));
            }
            self.max_seq = end;
        }
        // ns-2 arms the timer if none is pending or nothing was outstanding.
        if self.rto_deadline.is_none() || idle {
            self.rto_deadline = Some(now + self.rtt.rto());
        }
        self.planned.push_back(Planned {
            offset,
            len,
            kind: Kind::Data,
            again,
        });
    }

    fn send_syn(&mut self, now: Instant) {
        // Only the first SYN is timed (Karn).
        if !self.syn_sent {
            self.timed = Some((0, now));
        }
        self.syn_sent = true;
        self.rto_deadline = Some(now + self.rtt.rto());
        self.planned.push_back(Planned {
            offset: 0,
            len: 0,
            kind: Kind::Syn,
            again: false,
        });
    }

    /// ns-2 `send_much()`; the SACK variant uses the pipe in recovery and
    /// walks the scoreboard's holes first.
    fn send_much(&mut self, now: Instant, max_burst: u32) {
        if !self.established {
            if !self.syn_sent {
                self.send_syn(now);
            }
            return;
        }
        if self.suspended() {
            return;
        }
        let mss = self.mss();
        let mut sent = 0;
        loop {
            if max_burst != 0 && sent >= max_burst {
                break;
            }
            if self.config.variant.uses_sack() {
                let allowed = if self.fast_recovery {
                    self.pipe < self.cwnd_segments() as i64
                } else {
                    self.next_seq + mss <= self.last_ack + self.window() * mss
                };
                if !allowed || self.last_ack >= self.data_end() {
                    break;
                }
                let wnd_limit = self.highest_ack + self.config.window * mss;
                let retran = if self.walks_holes() {
                    self.scoreboard.next_retransmission(self.highest_ack)
                } else {
                    None
                };
                match retran {
                    Some((x, _)) if self.recover.is_some() => {
                        if x + mss > wnd_limit {
                            break;
                        }
                        let len = self.segment_len(x);
                        self.scoreboard.mark_retransmitted(x + len);
                        self.output(now, x);
                        self.next_seq = self.next_seq.max(x + len);
                    }
                    Some(_) => break,
                    None => {
                        let limit = if self.fast_recovery {
                            wnd_limit
                        } else {
                            self.highest_ack + self.window() * mss
                        };
                        if self.next_seq + mss > limit || self.next_seq >= self.data_end() {
                            break;
                        }
                        let x = self.next_seq;
                        self.next_seq += self.segment_len(x);
                        self.output(now, x);
                    }
                }
                self.pipe += 1;
            } else {
                if self.next_seq + mss > self.highest_ack + self.window() * mss
                    || self.next_seq >= self.data_end()
                {
                    break;
                }
                let x = self.next_seq;
                self.next_seq += self.segment_len(x);
                self.output(now, x);
            }
            sent += 1;
        }
    }

    /// ns-2 `send_one()`: limited transmit on the first duplicate ACKs.
    fn send_one(&mut self, now: Instant) {
        if self.suspended() {
            return;
        }
        let mss = self.mss();
        let end = self.next_seq + mss;
        if end <= self.highest_ack + self.config.rwnd_bytes()
            && self.next_seq < self.data_end()
            && end <= self.highest_ack + self.cc.window().cwnd + u64::from(self.dupacks) * mss
        {
            let x = self.next_seq;
            self.next_seq += self.segment_len(x);
            self.output(now, x);
        }
    }

    /// ns-2 `newack()`: cumulative point moves, RTT sample (Karn), timer.
    fn new_ack(&mut self, now: Instant, ack: u64) {
        self.dupacks = 0;
        self.last_ack = ack;
        self.highest_ack = ack;
        self.next_seq = self.next_seq.max(ack);
        self.buffer.ack_to(ack);
        if let Some((end, sent)) = self.timed {
            if ack >= end {
                self.rtt.reset_backoff();
                self.timed = None;
                self.rtt.on_sample(sent, now);
                self.cc.on_rtt_sample(now, now - sent);
                self.on_new_rtt_sample(now - sent);
            }
        }
        self.new_timer(now, ack);
        self.handoff.notice_ack = None;
    }

    /// ns-2 `newtimer()`.
    fn new_timer(&mut self, now: Instant, ack: u64) {
        self.rto_deadline = if self.next_seq > ack || ack < self.max_seq {
            Some(now + self.rtt.rto())
        } else {
            None
        };
    }

    /// ns-2 `reset_rtx_timer(mild, backoff)` without the go-back-N part.
    fn restart_timer(&mut self, now: Instant, back_off: bool) {
        if back_off {
            self.rtt.back_off();
        }
        self.timed = None;
        self.rto_deadline = Some(now + self.rtt.rto());
    }

    fn loss_response(&mut self, now: Instant, cause: LossCause) {
        if cause != LossCause::Wireless {
            // Congestion ends TCP-HO's adjustment (§IV-B, Figure 4).
            self.handoff.adjust = None;
        }
        let window_in_use = self.window_bytes();
        self.cc.on_loss(now, cause, window_in_use);
    }

    fn on_ack(&mut self, now: Instant, header: &TcpHeader) {
        if !self.established {
            if header.flags.contains(Flags::SYN) && header.flags.contains(Flags::ACK) {
                self.handoff.on_synack(header.capability);
                self.established = true;
                self.events.push_back(AppEvent::Established);
                if let Some((_, sent)) = self.timed.take() {
                    self.rtt.reset_backoff();
                    self.rtt.on_sample(sent, now);
                    self.cc.on_rtt_sample(now, now - sent);
                }
                // ns-2 `delay_growth_`: the initial window starts now.
                self.cc.set_cwnd(self.initial_window * self.mss());
                self.rto_deadline = None;
                self.send_much(now, self.config.max_burst);
            }
            return;
        }
        let ack = self
            .config
            .offset_of(header.ack, self.last_ack)
            .min(self.max_seq);
        if self.mobility_ack(now, header, ack) {
            self.report_closed();
            return;
        }
        let mut blocks = [(0u64, 0u64); MAX_SACK_BLOCKS];
        for (slot, b) in blocks.iter_mut().zip(header.sack.iter()) {
            *slot = (
                self.config.offset_of(b.start, self.last_ack),
                self.config.offset_of(b.end, self.last_ack),
            );
        }
        let sack = &blocks[..header.sack.len()];
        if let (Some(notice), TcpVariant::Prism) = (header.loss, self.config.variant) {
            self.on_loss_notice(now, notice);
        }
        match self.config.variant {
            v if v.uses_sack() => self.on_ack_sack(now, ack, sack),
            _ => self.on_ack_newreno(now, ack, header.flags.contains(Flags::ELN)),
        }
        self.report_closed();
    }

    /// Writes the header of the next planned segment into `buf` (cleared
    /// first) and returns the segment; its payload is the caller's to add.
    fn next_segment(&mut self, now: Instant, buf: &mut Vec<u8>) -> Option<Planned> {
        if self.want_send {
            self.want_send = false;
            if self.dupacks == 0 && !self.fast_recovery {
                self.send_much(now, self.config.max_burst);
            }
        }
        let p = self.planned.pop_front()?;
        let end = p.offset + p.len;
        let (flags, seq) = match p.kind {
            Kind::Syn => (Flags::SYN, self.config.isn),
            Kind::Probe(id) => (Flags::PROBE, crate::seq::SeqNum(id)),
            Kind::Data if self.buffer.is_closed() && end == self.data_end() && p.len > 0 => {
                (Flags::ACK | Flags::FIN, self.config.wire_seq(p.offset))
            }
            Kind::Data => (Flags::ACK, self.config.wire_seq(p.offset)),
        };
        let header = TcpHeader {
            flags,
            conn_id: self.config.conn_id,
            seq,
            ack: self.config.isn,
            window: 0,
            sack: SackList::default(),
            capability: (p.kind == Kind::Syn && self.config.variant.handoff_mode().is_some())
                .then_some(CAPABILITY_HANDOFF),
            bandwidth_kbps: None,
            loss: None,
        };
        buf.clear();
        header.emit(buf);
        self.stats.datagrams_sent += 1;
        self.stats.bytes_sent += p.len;
        Some(p)
    }

    /// Reports the close once every byte written is acknowledged.
    fn report_closed(&mut self) {
        if self.buffer.is_closed() && self.acked() >= self.data_end() && !self.closed_reported {
            self.closed_reported = true;
            self.rto_deadline = None;
            self.persist = None;
            self.probing.cycle = None;
            self.events.push_back(AppEvent::Closed);
        }
    }

    /// False while the acknowledgments are still inside the window of the last
    /// recovery or timeout (ns-2 `bugFix_`: no second fast retransmit for the
    /// same window), except before any data was acknowledged.
    fn may_fast_retransmit(&self) -> bool {
        self.recover.is_none_or(|r| self.highest_ack > r) || self.highest_ack == 0
    }

    /// ns-2 `NewRenoTcpAgent::recv` (with Reno's window inflation), plus ELN;
    /// ns-2 `RenoTcpAgent::recv` for Reno.
    fn on_ack_newreno(&mut self, now: Instant, ack: u64, eln: bool) {
        if self.config.variant.probes() {
            self.note_window_holder(now);
        }
        let mss = self.mss();
        if ack > self.last_ack {
            // Reno (ns-2 `RenoTcpAgent::recv`) has no partial
            // acknowledgments: any new data acknowledged ends fast recovery.
            let in_recovery = self.config.variant != TcpVariant::Reno
                && self.last_action == LastAction::DupAck
                && self.recover.is_some_and(|r| ack < r);
            if !in_recovery {
                if self.dupwnd > 0 {
                    self.dupwnd = 0;
                    self.last_action = LastAction::Exited;
                }
                let acked = ack - self.last_ack;
                self.new_ack(now, ack);
                self.cc.on_ack(now, acked);
                self.first_partial = false;
            } else {
                // RFC 6582 §3.2 step 5: partial acknowledgment. ns-2 resets
                // the timer on the first only ("Impatient"); TCP-Probing's
                // Immediate Recovery on each ("Slow-but-Steady", RFC 6582
                // §4), as its probe cycles already cost two round trips per
                // loss and a timeout would end every recovery of several
                // holes with another cycle (`Probing::steady_recovery`).
                if !self.first_partial || self.steady_recovery() {
                    self.first_partial = true;
                    self.new_timer(now, ack);
                }
                let deflate = (ack - self.last_ack).div_ceil(mss);
                if self.dupwnd > deflate {
                    self.dupwnd -= deflate - 1;
                } else {
                    let cwnd = self.cc.window().cwnd;
                    self.cc
                        .set_cwnd(cwnd.saturating_sub((deflate - self.dupwnd) * mss));
                    self.dupwnd = 1;
                }
                self.last_ack = ack;
                self.highest_ack = ack;
                self.buffer.ack_to(ack);
                self.next_seq = self.next_seq.max(ack);
                if self.timed.is_some_and(|(end, _)| ack >= end) {
                    self.timed = None;
                    self.rtt.reset_backoff();
                }
                self.output(now, ack);
            }
        } else if ack == self.last_ack {
            self.dupacks += 1;
            if self.dupacks == self.dupthresh() {
                self.newreno_dupack_action(now, eln);
            } else if self.dupacks > self.dupthresh() && self.last_action == LastAction::DupAck {
                self.dupwnd += 1;
            } else if self.dupacks < self.dupthresh() {
                self.send_one(now);
            }
        }
        if self.dupacks == 0 {
            self.send_much(now, self.config.max_burst);
        } else if self.dupacks >= self.dupthresh() {
            self.send_much(now, 2);
        }
    }

    /// ns-2 Reno/NewReno `dupack_action`. With ELN set on the triggering
    /// duplicate ACK the hole is resent without a window reduction.
    fn newreno_dupack_action(&mut self, now: Instant, eln: bool) {
        if !self.may_fast_retransmit() {
            return;
        }
        if self.config.variant.probes() {
            self.start_probe_cycle(now, probing::Trigger::DupAcks);
            return;
        }
        let cause = if eln && self.config.variant == TcpVariant::Eln {
            LossCause::Wireless
        } else {
            LossCause::Congestion
        };
        self.fast_retransmit(now, cause);
    }

    /// Fast retransmit of the segment at the cumulative acknowledgment and
    /// the start of NewReno recovery, the window reduced as `cause` says.
    fn fast_retransmit(&mut self, now: Instant, cause: LossCause) {
        self.recover = Some(self.max_seq);
        self.restart_timer(now, false);
        self.last_action = LastAction::DupAck;
        self.stats.fast_recoveries += 1;
        self.loss_response(now, cause);
        let x = self.last_ack;
        self.output(now, x);
        self.dupwnd = u64::from(self.dupthresh());
    }

    /// ns-2 `TcpAgent::timeout` (with the Sack1 and Reno preludes).
    fn on_timeout(&mut self, now: Instant) {
        self.stats.timeouts += 1;
        if !self.established {
            // The SYN was lost: resend it, and start with one segment
            // (ns-2 `bugfix_ss_`).
            self.initial_window = 1;
            self.rtt.back_off();
            self.timed = None;
            self.send_syn(now);
            return;
        }
        if self.config.variant.probes() {
            self.start_probe_cycle(now, probing::Trigger::Timeout);
            return;
        }
        self.timeout_response(now);
    }

    /// The standard response to a retransmission timeout: slow start from
    /// one segment, the timer backed off, go-back-N.
    fn timeout_response(&mut self, now: Instant) {
        self.go_back_n();
        self.last_action = LastAction::Timeout;
        self.loss_response(now, LossCause::Timeout);
        self.restart_timer(now, true);
        self.send_much(now, self.config.max_burst);
    }

    /// Forgets what is in flight and resends from the cumulative
    /// acknowledgment (go-back-N), ignoring duplicate ACKs until new data is
    /// acknowledged (ns-2 `timeout_`).
    fn go_back_n(&mut self) {
        self.dupacks = 0;
        self.dupwnd = 0;
        self.fast_recovery = false;
        self.after_timeout = true;
        if self.highest_ack > self.last_ack {
            self.last_ack = self.highest_ack;
        }
        self.recover = Some(self.max_seq);
        self.scoreboard.clear();
        self.last_action = LastAction::Timeout;
        self.next_seq = self.highest_ack;
    }
}

impl Endpoint for TcpSender {
    fn handle_datagram(&mut self, now: Instant, _path: PathId, datagram: &[u8]) {
        match TcpHeader::parse(datagram) {
            Ok((h, _)) if h.conn_id == self.config.conn_id && h.flags.contains(Flags::ACK) => {
                self.on_ack(now, &h);
            }
            _ => self.stats.malformed += 1,
        }
    }

    fn handle_event(&mut self, _now: Instant, _event: HostEvent) {}

    fn poll_transmit(&mut self, now: Instant, buf: &mut Vec<u8>) -> Option<PathId> {
        let p = self.next_segment(now, buf)?;
        if p.len > 0 {
            let copied = self.buffer.copy_range(p.offset, p.len as usize, buf);
            debug_assert_eq!(copied as u64, p.len);
        }
        Some(self.path)
    }

    fn poll_timeout(&self) -> Option<Instant> {
        [
            self.rto_deadline,
            self.persist.as_ref().map(|p| p.deadline),
            self.probing.cycle.as_ref().map(|c| c.deadline),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    fn handle_timeout(&mut self, now: Instant) {
        if self.rto_deadline.is_some_and(|d| d <= now) {
            self.rto_deadline = None;
            self.on_timeout(now);
        }
        if self.persist.as_ref().is_some_and(|p| p.deadline <= now) {
            self.on_persist_timeout(now);
        }
        if self
            .probing
            .cycle
            .as_ref()
            .is_some_and(|c| c.deadline <= now)
        {
            self.on_probe_timeout(now);
        }
    }

    fn poll_app_event(&mut self) -> Option<AppEvent> {
        self.events.pop_front()
    }

    fn write(&mut self, data: &[u8]) -> usize {
        let n = self.buffer.write(data);
        if n > 0 {
            self.want_send = true;
        }
        n
    }

    fn send_capacity(&self) -> usize {
        let unsent = self
            .buffer
            .end()
            .saturating_sub(self.next_seq.max(self.max_seq));
        self.buffer
            .free()
            .min(self.config.unsent_limit.saturating_sub(unsent as usize))
    }

    fn close(&mut self) {
        self.buffer.close();
        self.want_send = true;
    }

    fn stats(&self) -> EndpointStats {
        EndpointStats {
            cwnd: self.cc.window().cwnd,
            ..self.stats
        }
    }
}
