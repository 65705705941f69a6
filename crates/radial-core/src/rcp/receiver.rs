//! The RCP receiver: congestion control, loss detection and recovery, flow
//! control and the requests that drive the sender (RCP §3.3).

use std::collections::VecDeque;

use super::requests::RequestBoard;
use super::sender::State;
use super::{Opener, RcpConfig, Recovery};
use crate::cc::{Controller, LossCause};
use crate::endpoint::{AppEvent, Endpoint, EndpointStats, HostEvent, PathId};
use crate::rtt::RttEstimator;
use crate::stream::ReassemblyBuffer;
use crate::time::Instant;
use crate::wire::rcp::{PullBlock, RcpFlags, RcpHeader, RECENT_PULLS};

#[derive(Clone, Copy, Debug)]
enum Out {
    Syn,
    SynAck,
    Ack,
    /// A request, built when it was decided.
    Req(RcpHeader),
    /// Everything arrived: close.
    Fin,
}

impl Out {
    /// The bit of a handshake datagram in [`RcpReceiver`]'s `controls`; 0
    /// for requests.
    fn control_bit(self) -> u8 {
        match self {
            Out::Syn => 1,
            Out::SynAck => 2,
            Out::Ack => 4,
            Out::Req(_) | Out::Fin => 0,
        }
    }
}

/// The data receiver of an RCP connection, where RCP's control runs.
#[derive(Debug)]
pub struct RcpReceiver {
    config: RcpConfig,
    path: PathId,
    state: State,
    buffer: ReassemblyBuffer,
    board: RequestBoard,
    cc: Controller,
    rtt: RttEstimator,
    /// Bytes below this have been requested in cumulative mode (SEG.REQ).
    req_edge: u64,
    /// One past the last byte the sender has, once it said so (§5.2.2).
    avail: Option<u64>,
    /// End of the stream, once the sender marked it.
    fin_at: Option<u64>,
    /// Loss recovery lasts until in-order delivery reaches the request edge
    /// it began at; no second window cut for losses detected before then.
    recovery: Recovery,
    /// Pull the first lost segment of a new recovery at once, whatever the
    /// window (TCP's fast retransmit).
    fast_retransmit: bool,
    /// Karn: the timed segment's start and request time.
    timed: Option<(u64, Instant)>,
    rto_deadline: Option<Instant>,
    persist_deadline: Option<Instant>,
    handshake_deadline: Option<Instant>,
    fin_deadline: Option<Instant>,
    /// The most recent pull requests, newest first (§3.3.1).
    recent_pulls: VecDeque<PullBlock>,
    next_pull_id: u32,
    out: VecDeque<Out>,
    /// The kinds of handshake datagram waiting in `out`: a sender that
    /// repeats its SYN+ACK faster than it is answered gets one ACK.
    controls: u8,
    events: VecDeque<AppEvent>,
    delivered_all: bool,
    /// The application read data, which may open room for requests.
    read_since_poll: bool,
    /// Asleep (§3.4.4): the remaining time of each frozen timer (RTO,
    /// persist, handshake, FIN), restored at wake-up.
    asleep: Option<[Option<crate::time::Duration>; 4]>,
    stats: EndpointStats,
}

impl RcpReceiver {
    /// A receiver on `path`; it sends the SYN itself if it is the opener.
    pub fn new(config: RcpConfig, path: PathId) -> Self {
        RcpReceiver {
            state: if config.opener == Opener::Receiver {
                State::Opening
            } else {
                State::Listening
            },
            buffer: ReassemblyBuffer::new(),
            board: RequestBoard::new(),
            cc: Controller::new(config.cc),
            rtt: RttEstimator::new(config.rtt),
            req_edge: 0,
            avail: None,
            fin_at: None,
            recovery: Recovery::default(),
            fast_retransmit: false,
            timed: None,
            rto_deadline: None,
            persist_deadline: None,
            handshake_deadline: None,
            fin_deadline: None,
            recent_pulls: VecDeque::new(),
            next_pull_id: 0,
            out: VecDeque::new(),
            controls: 0,
            events: VecDeque::new(),
            delivered_all: false,
            read_since_poll: false,
            asleep: None,
            stats: EndpointStats::default(),
            config,
            path,
        }
    }

    /// Queues handshake datagram `o` unless one of its kind already waits
    /// (it says the same when it is sent).
    fn queue_control(&mut self, o: Out) {
        let bit = o.control_bit();
        if self.controls & bit == 0 {
            self.controls |= bit;
            self.out.push_back(o);
        }
    }

    /// The congestion controller (for inspection and traces).
    pub fn controller(&self) -> &Controller {
        &self.cc
    }

    /// Bytes requested and neither arrived nor deemed lost.
    pub fn in_flight(&self) -> u64 {
        self.board.in_flight()
    }

    /// The cumulative request edge (SEG.REQ).
    pub fn requested(&self) -> u64 {
        self.req_edge
    }

    /// True while the receiver waits in persist mode for the sender to have
    /// more data (§5.2.2).
    pub fn in_persist(&self) -> bool {
        self.persist_deadline.is_some()
    }

    fn mss(&self) -> u64 {
        self.config.mss
    }

    fn establish(&mut self, now: Instant) {
        if self.state == State::Established {
            return;
        }
        self.state = State::Established;
        self.handshake_deadline = None;
        self.events.push_back(AppEvent::Established);
        // §3.3.2: the receiver sends the first REQ once the connection is up.
        self.cc.set_cwnd(self.config.cc.initial_window * self.mss());
        self.send_requests(now);
    }

    /// A REQ header as of now: SEG.REQ, SEG.DEQ, the newest pull id.
    fn request_header(&self, flags: RcpFlags) -> RcpHeader {
        let c = &self.config;
        RcpHeader::new(
            flags,
            c.conn_id,
            c.wire_seq(self.req_edge),
            c.wire_seq(self.buffer.next()),
            self.next_pull_id,
        )
    }

    /// A cumulative REQ, repeating the three most recent pulls.
    fn cumulative_request(&self, flags: RcpFlags) -> RcpHeader {
        let mut h = self.request_header(flags);
        for b in &self.recent_pulls {
            h.push_block(*b);
        }
        h
    }

    /// Flow control (§3.3.4): requested bytes must fit the receive buffer,
    /// counting what the application has not read yet.
    fn flow_limit(&self) -> u64 {
        let consumed = self.buffer.next() - self.buffer.ready_bytes() as u64;
        consumed + self.config.rwnd_bytes()
    }

    /// Issues what the window allows: pulls for lost segments first, then new
    /// data in cumulative mode.
    fn send_requests(&mut self, now: Instant) {
        if self.state != State::Established || self.asleep.is_some() {
            return;
        }
        let cwnd = self.cc.window().cwnd;
        while let Some(r) = self.board.next_lost().copied() {
            let fits = self.board.in_flight() + (r.end - r.start) <= cwnd.max(self.mss());
            if !fits && !self.fast_retransmit {
                break;
            }
            self.fast_retransmit = false;
            self.next_pull_id += 1;
            self.board.pull(r.start, now);
            if self.timed.is_some_and(|(s, _)| s == r.start) {
                self.timed = None;
            }
            let block = PullBlock {
                start: self.config.wire_seq(r.start),
                end: self.config.wire_seq(r.end),
                id: self.next_pull_id,
            };
            // §3.3.1: the pull first, then the three before it, so every pull
            // travels in its own REQ and the next three.
            let mut h = self.request_header(RcpFlags::REQ | RcpFlags::PUL);
            h.push_block(block);
            for b in &self.recent_pulls {
                h.push_block(*b);
            }
            self.out.push_back(Out::Req(h));
            self.recent_pulls.push_front(block);
            self.recent_pulls.truncate(RECENT_PULLS);
        }
        let limit = self
            .avail
            .unwrap_or(u64::MAX)
            .min(self.fin_at.unwrap_or(u64::MAX))
            .min(self.flow_limit());
        let mut advanced = false;
        while self.req_edge < limit && self.board.in_flight() + self.mss() <= cwnd {
            let len = self.mss().min(limit - self.req_edge);
            if len < self.mss() && self.req_edge + len == self.flow_limit() {
                break; // wait for buffer room for a whole segment
            }
            self.board.request(self.req_edge, self.req_edge + len, now);
            if self.timed.is_none() {
                self.timed = Some((self.req_edge, now));
            }
            self.req_edge += len;
            advanced = true;
        }
        if advanced {
            let h = self.cumulative_request(RcpFlags::REQ);
            self.out.push_back(Out::Req(h));
        }
        if self.board.is_empty() {
            self.rto_deadline = None;
        } else if self.rto_deadline.is_none() {
            self.rto_deadline = Some(now + self.rtt.rto());
        }
        // §5.2.2: nothing outstanding and the sender has nothing more: persist.
        let starved = self.board.is_empty()
            && self.fin_at.is_none()
            && self.avail.is_some_and(|a| self.req_edge >= a);
        if !starved {
            self.persist_deadline = None;
        } else if self.persist_deadline.is_none() {
            self.persist_deadline = Some(now + self.rtt.rto());
        }
    }

    /// Takes the sender's advertisement of how much data it has (§5.2.2). If
    /// it is less than was already requested, the requests beyond it are
    /// withdrawn: the sender cannot answer them.
    fn learn_avail(&mut self, h: &RcpHeader) {
        let avail = self.config.offset_of(h.deq, self.buffer.next());
        let avail = self.avail.map_or(avail, |a| a.max(avail));
        self.avail = Some(avail);
        if avail < self.req_edge {
            self.board.withdraw_from(avail);
            self.req_edge = avail;
            if self.timed.is_some_and(|(s, _)| s >= avail) {
                self.timed = None;
            }
        }
    }

    fn on_losses(&mut self, now: Instant, starts: &[u64]) {
        for &s in starts {
            let wireless = self.config.variant.knows_wireless_losses()
                && self.board.get(s).is_some_and(|r| r.wireless);
            if wireless {
                // The cause is known: re-request without cutting the window.
                self.cc.on_loss(now, LossCause::Wireless, 0);
            } else if !self.recovery.active() {
                let in_use = self.cc.window().cwnd.min(self.config.rwnd_bytes());
                self.cc.on_loss(now, LossCause::Congestion, in_use);
                self.recovery.on_holes(self.req_edge);
                self.fast_retransmit = true;
                self.timed = None;
                self.stats.fast_recoveries += 1;
            }
        }
    }

    fn on_data(&mut self, now: Instant, h: &RcpHeader, payload: &[u8]) {
        let next = self.buffer.next();
        self.learn_avail(h);
        let start = self.config.offset_of(h.seq, next);
        let end = start + payload.len() as u64;
        if h.flags.contains(RcpFlags::FIN) {
            // The stream ends at what the sender advertises.
            self.fin_at = Some(self.avail.unwrap_or(end));
        }
        if !payload.is_empty() && end > self.req_edge {
            // Past anything requested: stored nowhere, whatever a sender
            // sends.
            self.stats.unsolicited += 1;
            return;
        }
        if !payload.is_empty() {
            self.buffer.insert(start, payload);
            let (req, lost) = self.board.arrive(start, end, self.config.dupthresh);
            if let Some(r) = req {
                if r.pulls == 0 && self.timed.is_some_and(|(s, _)| s == start) {
                    let (_, sent) = self.timed.take().expect("checked");
                    self.rtt.reset_backoff();
                    self.rtt.on_sample(sent, now);
                    self.cc.on_rtt_sample(now, now - sent);
                }
                self.rto_deadline = Some(now + self.rtt.rto());
            }
            // §3.3.3: arriving data clocks the window, as acknowledgments
            // do in TCP: once per arrival that advances in-order delivery,
            // not during the recovery of detected holes.
            let advanced = self.buffer.next() - next;
            if advanced > 0 && self.recovery.window_grows() {
                self.cc.on_ack(now, advanced);
            }
            self.on_losses(now, &lost);
            let next = self.buffer.next();
            self.recovery.end_when(|r| next >= r);
        }
        if let Some(fin) = self.fin_at {
            if self.buffer.next() >= fin && !self.delivered_all {
                self.delivered_all = true;
                self.rto_deadline = None;
                self.persist_deadline = None;
                self.events.push_back(AppEvent::Closed);
                self.out.push_back(Out::Fin);
                self.fin_deadline = Some(now + self.rtt.rto());
                return;
            }
        }
        self.send_requests(now);
    }

    /// §3.4.4: the host sleeps; RCP freezes its timers and stops
    /// requesting. What it had queued cannot be sent.
    fn sleep(&mut self, now: Instant) {
        if self.asleep.is_some() {
            return;
        }
        let left = |d: Option<Instant>| d.map(|d| d.saturating_since(now));
        self.asleep = Some([
            left(self.rto_deadline.take()),
            left(self.persist_deadline.take()),
            left(self.handshake_deadline.take()),
            left(self.fin_deadline.take()),
        ]);
        self.out.clear();
    }

    /// §3.4.4: awake again, RCP "resumes data request based on the state
    /// (holes) of the receive buffer": what was outstanding was lost with the
    /// sleeping interface and is requested again, without a window cut (the
    /// loss was not congestion). Timers resume with the time they had left.
    fn wake(&mut self, now: Instant) {
        let Some([rto, persist, handshake, fin]) = self.asleep.take() else {
            return;
        };
        let at = |d: Option<crate::time::Duration>| d.map(|d| now + d);
        self.rto_deadline = at(rto);
        self.persist_deadline = at(persist);
        self.handshake_deadline = at(handshake);
        self.fin_deadline = at(fin);
        self.timed = None;
        self.board.mark_all_lost();
        match self.state {
            State::SynSent => self.queue_control(Out::Syn),
            State::SynReceived => self.queue_control(Out::SynAck),
            _ => {}
        }
        if self.delivered_all && self.state == State::Established {
            self.out.push_back(Out::Fin);
        }
        self.send_requests(now);
    }

    fn on_timeout(&mut self, now: Instant) {
        // No data for a whole RTO while requests are outstanding: the same
        // response as TCP's, but the buffer is kept and only what is missing
        // is asked for again (§3.3.5).
        self.stats.timeouts += 1;
        let in_use = self.cc.window().cwnd.min(self.config.rwnd_bytes());
        self.cc.on_loss(now, LossCause::Timeout, in_use);
        self.rtt.back_off();
        self.timed = None;
        self.board.mark_all_lost();
        self.recovery.on_timeout(self.req_edge);
        self.rto_deadline = None;
        self.send_requests(now);
        if self.rto_deadline.is_none() && !self.board.is_empty() {
            self.rto_deadline = Some(now + self.rtt.rto());
        }
    }
}

impl Endpoint for RcpReceiver {
    fn handle_datagram(&mut self, now: Instant, _path: PathId, datagram: &[u8]) {
        let Ok((h, payload)) = RcpHeader::parse(datagram) else {
            self.stats.malformed += 1;
            return;
        };
        if h.conn_id != self.config.conn_id || h.flags.contains(RcpFlags::REQ) {
            self.stats.malformed += 1;
            return;
        }
        let syn = h.flags.contains(RcpFlags::SYN);
        let ack = h.flags.contains(RcpFlags::ACK);
        match self.state {
            State::SynSent if syn && ack => {
                self.config.isn = h.seq;
                self.learn_avail(&h);
                if h.flags.contains(RcpFlags::FIN) {
                    self.fin_at = self.avail;
                }
                self.queue_control(Out::Ack);
                self.establish(now);
            }
            State::Listening | State::SynReceived if syn && !ack => {
                self.config.isn = h.seq;
                self.learn_avail(&h);
                self.state = State::SynReceived;
                self.queue_control(Out::SynAck);
                self.handshake_deadline = Some(now + self.rtt.rto());
            }
            State::SynReceived if ack && !syn => self.establish(now),
            State::Established if syn && ack => self.queue_control(Out::Ack),
            State::Established
                if h.flags.contains(RcpFlags::FIN)
                    && ack
                    && payload.is_empty()
                    && self.delivered_all =>
            {
                self.state = State::Closed;
                self.fin_deadline = None;
            }
            State::SynReceived | State::Established if !syn => {
                self.establish(now);
                self.on_data(now, &h, payload);
            }
            _ => {}
        }
    }

    fn handle_event(&mut self, now: Instant, event: HostEvent) {
        match event {
            HostEvent::InterfaceAsleep { .. } if self.config.power_save => {
                self.sleep(now);
                return;
            }
            HostEvent::InterfaceAwake { .. } if self.config.power_save => {
                self.wake(now);
                return;
            }
            // The host's interface lost its link: as when it sleeps, timers
            // stop and nothing is asked for; when the link is back (a
            // handoff completed), what was outstanding is asked for again
            // at once, without waiting out a timer or cutting the window.
            HostEvent::LinkDown { .. } => {
                self.sleep(now);
                return;
            }
            HostEvent::LinkUp { .. } => {
                self.wake(now);
                return;
            }
            _ => {}
        }
        if let HostEvent::WirelessLoss { datagram, .. } = event {
            if !self.config.variant.knows_wireless_losses() {
                return;
            }
            let Ok((h, payload)) = RcpHeader::parse(&datagram) else {
                return;
            };
            if h.conn_id != self.config.conn_id || payload.is_empty() {
                return;
            }
            let start = self.config.offset_of(h.seq, self.buffer.next());
            // The receiver learns the cause of this hole at once (§3.4.2).
            if self.board.mark_wireless(start) && self.board.mark_lost(start) {
                self.on_losses(now, &[start]);
                self.send_requests(now);
            }
        }
    }

    fn poll_transmit(&mut self, now: Instant, buf: &mut Vec<u8>) -> Option<PathId> {
        if self.asleep.is_some() {
            return None;
        }
        if self.state == State::Opening {
            self.state = State::SynSent;
            self.queue_control(Out::Syn);
            self.handshake_deadline = Some(now + self.rtt.rto());
        }
        if self.read_since_poll {
            self.read_since_poll = false;
            self.send_requests(now);
        }
        let o = self.out.pop_front()?;
        self.controls &= !o.control_bit();
        let c = &self.config;
        let deq = c.wire_seq(self.buffer.next());
        let h = match o {
            Out::Syn => RcpHeader::new(RcpFlags::SYN, c.conn_id, c.isn, deq, 0),
            Out::SynAck => RcpHeader::new(RcpFlags::SYN | RcpFlags::ACK, c.conn_id, c.isn, deq, 0),
            Out::Ack => RcpHeader::new(RcpFlags::ACK, c.conn_id, c.isn, deq, 0),
            Out::Fin => RcpHeader::new(
                RcpFlags::REQ | RcpFlags::FIN,
                c.conn_id,
                c.wire_seq(self.req_edge),
                deq,
                self.next_pull_id,
            ),
            Out::Req(h) => h,
        };
        buf.clear();
        h.emit(buf);
        self.stats.datagrams_sent += 1;
        Some(self.path)
    }

    fn poll_timeout(&self) -> Option<Instant> {
        [
            self.rto_deadline,
            self.persist_deadline,
            self.handshake_deadline,
            self.fin_deadline,
        ]
        .into_iter()
        .flatten()
        .min()
    }

    fn handle_timeout(&mut self, now: Instant) {
        let retry = self.state.retry_handshake(
            now,
            &mut self.handshake_deadline,
            &mut self.rtt,
            &mut self.stats.timeouts,
        );
        match retry {
            Some(State::SynSent) => self.queue_control(Out::Syn),
            Some(_) => self.queue_control(Out::SynAck),
            None => {}
        }
        if self.rto_deadline.is_some_and(|d| d <= now) {
            self.rto_deadline = None;
            self.on_timeout(now);
        }
        if self.persist_deadline.is_some_and(|d| d <= now) {
            // §5.2.2: probe the application-limited sender, backing off.
            self.rtt.back_off();
            self.persist_deadline = Some(now + self.rtt.rto());
            let h = self.cumulative_request(RcpFlags::REQ | RcpFlags::PROBE);
            self.out.push_back(Out::Req(h));
        }
        if self.fin_deadline.is_some_and(|d| d <= now) {
            if self.rtt.backoff() >= 64 {
                // The sender is gone; the data is all here anyway.
                self.fin_deadline = None;
                self.state = State::Closed;
            } else {
                self.rtt.back_off();
                self.fin_deadline = Some(now + self.rtt.rto());
                self.out.push_back(Out::Fin);
            }
        }
    }

    fn poll_app_event(&mut self) -> Option<AppEvent> {
        self.events.pop_front()
    }

    fn tolerates_sleep(&self) -> bool {
        self.config.power_save
    }

    fn read(&mut self, buf: &mut [u8]) -> usize {
        let n = self.buffer.read(buf);
        self.read_since_poll |= n > 0;
        n
    }

    fn stats(&self) -> EndpointStats {
        EndpointStats {
            cwnd: self.cc.window().cwnd,
            ..self.stats
        }
    }
}
