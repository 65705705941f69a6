//! The RCP sender: holds the data and answers requests (RCP §3.2: "The
//! sender simply maintains the send buffer with one pointer (SND.NXT)").
//!
//! Where the data lives is the sender's [`Source`]: a [`SendBuffer`] the
//! application writes into (the [`Endpoint`] contract), or a
//! [`StoredStream`] whose every byte the driver already holds at rest (a file
//! server): that sender keeps no copy of the data, and the driver appends
//! each segment's payload itself ([`RcpSender::poll_segment`]).

use std::collections::VecDeque;

use super::source::{SharedStream, Source, StoredStream};
use super::{Opener, RcpConfig};
use crate::endpoint::{AppEvent, Endpoint, EndpointStats, HostEvent, PathId};
use crate::rtt::RttEstimator;
use crate::stream::SendBuffer;
use crate::time::Instant;
use crate::wire::rcp::{RcpFlags, RcpHeader, MAX_BLOCKS};

/// Most pulls that wait for the application at once (the oldest give way):
/// a receiver asking far ahead cannot make the sender hold unbounded state.
const MAX_WAITING: usize = 256;

/// One datagram [`RcpSender::poll_segment`] produced: its path, and the
/// stream bytes `[offset, offset + len)` its payload must carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use]
pub struct Segment {
    /// The path to send it on.
    pub path: PathId,
    /// First stream byte of the payload.
    pub offset: u64,
    /// Payload length (0 for control datagrams).
    pub len: usize,
}

/// Connection state of either RCP side (§3.3.2, as TCP's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum State {
    /// Will send a SYN at the first poll.
    Opening,
    /// SYN sent, waiting for SYN+ACK.
    SynSent,
    /// Waiting for a SYN (passive side).
    Listening,
    /// SYN received and SYN+ACK sent, waiting for the ACK (or a REQ).
    SynReceived,
    /// Data may flow.
    Established,
    /// Finished.
    Closed,
}

impl State {
    /// The handshake timer expired at `now` (either side): the timer backs
    /// off and is armed again, one more timeout is counted, and the answer
    /// is the handshake message to send again (`SynSent`: the SYN;
    /// `SynReceived`: the SYN+ACK), or `None`, the timer stopped, once
    /// there is none to repeat.
    pub(crate) fn retry_handshake(
        self,
        now: Instant,
        deadline: &mut Option<Instant>,
        rtt: &mut RttEstimator,
        timeouts: &mut u64,
    ) -> Option<State> {
        if !deadline.is_some_and(|d| d <= now) {
            return None;
        }
        *timeouts += 1;
        rtt.back_off();
        *deadline = Some(now + rtt.rto());
        match self {
            State::SynSent | State::SynReceived => Some(self),
            _ => {
                *deadline = None;
                None
            }
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum Out {
    // Every variant but `Data` is a control datagram: at most one of each
    // kind waits at a time (`RcpSender::queue_control`).
    Syn,
    SynAck,
    Ack,
    /// Data `[start, end)` answering pull id (0 = cumulative), sent a
    /// segment at a time.
    Data(u64, u64, u32),
    /// A segment without payload telling how much data there is.
    Update,
    /// Acknowledges the receiver's FIN request.
    FinAck,
}

impl Out {
    /// The bit of a control datagram in [`RcpSender`]'s `controls`; 0 for
    /// data.
    fn control_bit(self) -> u8 {
        match self {
            Out::Syn => 1,
            Out::SynAck => 2,
            Out::Ack => 4,
            Out::Update => 8,
            Out::FinAck => 16,
            Out::Data(..) => 0,
        }
    }
}

/// The data sender of an RCP connection, with its data in `S`.
#[derive(Debug)]
pub struct RcpSender<S = SendBuffer> {
    config: RcpConfig,
    path: PathId,
    state: State,
    buffer: S,
    /// Highest byte sent in cumulative mode (SND.NXT).
    snd_nxt: u64,
    /// Ids of the most recent pulls answered (the cyclic buffer of §3.3.1).
    served: [u32; MAX_BLOCKS],
    /// Highest pull id answered.
    max_served: u32,
    /// The stream's end and whether it was closed, as the latest datagram
    /// sent advertised them.
    told: (u64, bool),
    /// Pulled ranges the application has not written yet, served as it
    /// writes them (offset, end, pull id), oldest first.
    waiting: VecDeque<(u64, u64, u32)>,
    /// Retransmission of the SYN or SYN+ACK.
    handshake_deadline: Option<Instant>,
    /// The number of the latest SYN received, echoed in the SYN+ACK so a
    /// receiver that sent several knows which one was answered.
    syn_id: u32,
    rtt: RttEstimator,
    out: VecDeque<Out>,
    /// The kinds of control datagram waiting in `out` (one bit each): a
    /// peer that repeats a SYN+ACK or a PROBE faster than they can be
    /// answered gets one answer, not a queue of them.
    controls: u8,
    /// Data bytes in `out`.
    queued: u64,
    events: VecDeque<AppEvent>,
    stats: EndpointStats,
}

impl RcpSender {
    /// A sender on `path` whose application writes its data; it sends the
    /// SYN itself if it is the opener.
    pub fn new(config: RcpConfig, path: PathId) -> Self {
        RcpSender::with_source(config, path, SendBuffer::new(config.send_buffer))
    }
}

impl RcpSender<StoredStream> {
    /// A sender on `path` of a stream of `len` bytes that the driver holds
    /// at rest: the driver calls [`RcpSender::poll_segment`] and appends
    /// each payload itself.
    pub fn stored(config: RcpConfig, path: PathId, len: u64) -> Self {
        RcpSender::with_source(config, path, StoredStream { len })
    }
}

impl RcpSender<SharedStream> {
    /// A sender on `path` of `stream`, which other senders may serve too:
    /// the driver calls [`RcpSender::poll_segment`] and appends each
    /// payload itself, and calls [`RcpSender::stream_grew`] when the
    /// application wrote more or closed the stream.
    pub fn shared(config: RcpConfig, path: PathId, stream: SharedStream) -> Self {
        RcpSender::with_source(config, path, stream)
    }

    /// The stream grew or was closed: the pulls that waited for its bytes
    /// are served. A sender with nothing else to send announces the new
    /// end (or the close) in an UPDATE, the answer to the persist probe of
    /// RCP §5.2.2 sent before the receiver asks: a receiver that saw this
    /// application-limited sender run dry learns at once that it may ask
    /// again, rather than one persist interval later.
    pub fn stream_grew(&mut self) {
        self.serve_waiting();
        let told = self.told;
        let now = (self.buffer.end(), self.buffer.is_closed());
        if self.state == State::Established && self.out.is_empty() && now != told {
            self.queue_control(Out::Update);
        }
    }
}

impl<S: Source> RcpSender<S> {
    /// Most data bytes queued for sending at once: twice the receive window,
    /// more than an honest receiver ever has outstanding. Requests past it
    /// are not served (the receiver asks again).
    fn queue_limit(&self) -> u64 {
        2 * self.config.rwnd_bytes()
    }

    /// Most entries queued at once (ranges, control datagrams).
    fn queue_entries(&self) -> usize {
        2 * usize::try_from(self.config.window).unwrap_or(usize::MAX) + 16
    }

    fn with_source(config: RcpConfig, path: PathId, buffer: S) -> Self {
        RcpSender {
            state: if config.opener == Opener::Sender {
                State::Opening
            } else {
                State::Listening
            },
            buffer,
            snd_nxt: 0,
            served: [0; MAX_BLOCKS],
            max_served: 0,
            told: (0, false),
            waiting: VecDeque::new(),
            handshake_deadline: None,
            syn_id: 0,
            rtt: RttEstimator::new(config.rtt),
            out: VecDeque::new(),
            controls: 0,
            queued: 0,
            events: VecDeque::new(),
            stats: EndpointStats::default(),
            config,
            path,
        }
    }

    /// The path this sender serves.
    pub fn path(&self) -> PathId {
        self.path
    }

    /// Data bytes queued for sending.
    pub fn queued_bytes(&self) -> u64 {
        self.queued
    }

    /// Datagrams queued for sending, data ranges and control datagrams
    /// (each range counts once however many segments it makes).
    pub fn queued_entries(&self) -> usize {
        self.out.len()
    }

    /// Queues control datagram `o` unless one of its kind already waits:
    /// the one waiting says the same (the headers carry the sender's state
    /// when they are sent, not when they were queued).
    fn queue_control(&mut self, o: Out) {
        let bit = o.control_bit();
        debug_assert!(bit != 0, "a control datagram");
        if self.controls & bit == 0 {
            self.controls |= bit;
            self.out.push_back(o);
        }
    }

    /// Highest byte sent in cumulative mode.
    pub fn snd_nxt(&self) -> u64 {
        self.snd_nxt
    }

    fn establish(&mut self) {
        if self.state != State::Established {
            self.state = State::Established;
            self.handshake_deadline = None;
            self.events.push_back(AppEvent::Established);
        }
    }

    /// Queues `[start, end)` (clipped to the data held, and to what the
    /// queue may still take); returns the end of what was queued.
    fn send_range(&mut self, start: u64, end: u64, pull_id: u32) -> u64 {
        let start = start.max(self.buffer.base());
        let room = self.queue_limit().saturating_sub(self.queued);
        let end = end.min(self.buffer.end()).min(start.saturating_add(room));
        if start >= end {
            return start;
        }
        // New cumulative data extends the range queued before it.
        if let Some(Out::Data(_, e, 0)) = self.out.back_mut() {
            if pull_id == 0 && *e == start {
                *e = end;
                self.queued += end - start;
                return end;
            }
        }
        if self.out.len() >= self.queue_entries() {
            return start;
        }
        self.out.push_back(Out::Data(start, end, pull_id));
        self.queued += end - start;
        end
    }

    /// Serves a pull whole once the application has written all of it. A
    /// pull may run ahead of the application: a pipe joining a transfer
    /// midway asks at once, in the round trip in which its PROBE makes this
    /// sender skip to SEG.DEQ and the application seek there (R²CP §4.4.2),
    /// and a receiver may ask an application-limited sender for data about
    /// to be written (RCP §5.2.2). It is never cut in two (the receiver
    /// counts a segment as arrived with its first datagram); at the end of a
    /// closed stream what is left is sent.
    fn serve_pull(&mut self, start: u64, end: u64, pull_id: u32) {
        if end <= self.buffer.end() || self.buffer.is_closed() {
            self.send_range(start, end, pull_id);
        } else {
            if self.waiting.len() == MAX_WAITING {
                self.waiting.pop_front();
            }
            self.waiting.push_back((start, end, pull_id));
        }
    }

    /// Serves the waiting pulls the application's writes completed.
    fn serve_waiting(&mut self) {
        let waiting = std::mem::take(&mut self.waiting);
        for (start, end, id) in waiting {
            self.serve_pull(start, end, id);
        }
    }

    fn on_request(&mut self, h: &RcpHeader) {
        let deq = self.config.offset_of(h.deq, self.buffer.base());
        // §3.3.4: SEG.DEQ lets the sender purge what arrived in order; none
        // of it is ever sent again in cumulative mode.
        self.buffer.ack_to(deq);
        self.snd_nxt = self.snd_nxt.max(deq.min(self.buffer.end()));
        if h.flags.contains(RcpFlags::FIN) {
            self.queue_control(Out::FinAck);
            if self.state != State::Closed {
                self.state = State::Closed;
                self.events.push_back(AppEvent::Closed);
            }
            return;
        }
        // §3.3.1 consistency check: serve every listed pull not answered yet,
        // oldest first (a lost pull REQ is recovered by the next REQs).
        let window_start = self.max_served.saturating_sub(MAX_BLOCKS as u32);
        let mut pulls: Vec<_> = h
            .blocks()
            .iter()
            .filter(|b| b.id > window_start && !self.served.contains(&b.id))
            .copied()
            .collect();
        pulls.sort_by_key(|b| b.id);
        for b in pulls {
            let s = self.config.offset_of(b.start, deq);
            let e = self.config.offset_of(b.end, deq);
            self.buffer.reach(e);
            self.serve_pull(s, e, b.id);
            self.served.rotate_right(1);
            self.served[0] = b.id;
            self.max_served = self.max_served.max(b.id);
        }
        // Cumulative mode: everything from SND.NXT up to SEG.REQ not sent yet.
        let req = self.config.offset_of(h.seq, self.snd_nxt);
        if req > self.snd_nxt {
            self.buffer.reach(req);
            let from = self.snd_nxt;
            let upto = self.send_range(from, req, 0);
            self.snd_nxt = self.snd_nxt.max(upto);
        }
        if h.flags.contains(RcpFlags::PROBE) {
            self.queue_control(Out::Update);
        }
    }
}

impl<S: Source> RcpSender<S> {
    /// A datagram arrived (see [`Endpoint::handle_datagram`]).
    pub fn on_datagram(&mut self, now: Instant, datagram: &[u8]) {
        let Ok((h, _)) = RcpHeader::parse(datagram) else {
            self.stats.malformed += 1;
            return;
        };
        self.on_header(now, &h);
    }

    /// A datagram whose header the driver already parsed arrived (a
    /// request carries no payload).
    pub fn on_header(&mut self, now: Instant, h: &RcpHeader) {
        let h = *h;
        if h.conn_id != self.config.conn_id {
            self.stats.malformed += 1;
            return;
        }
        let syn = h.flags.contains(RcpFlags::SYN);
        let ack = h.flags.contains(RcpFlags::ACK);
        match self.state {
            State::Listening | State::SynReceived if syn && !ack => {
                self.state = State::SynReceived;
                self.syn_id = h.id;
                self.queue_control(Out::SynAck);
                self.handshake_deadline = Some(now + self.rtt.rto());
            }
            State::SynSent if syn && ack => {
                self.queue_control(Out::Ack);
                self.establish();
            }
            State::Established if syn && ack => {
                // Our ACK was lost; the peer resent its SYN+ACK.
                self.queue_control(Out::Ack);
            }
            State::SynReceived if h.flags.contains(RcpFlags::REQ) || ack => {
                // The ACK, or a first REQ that implies it.
                self.establish();
                if h.flags.contains(RcpFlags::REQ) {
                    self.on_request(&h);
                }
            }
            State::Established | State::Closed if h.flags.contains(RcpFlags::REQ) => {
                self.on_request(&h);
            }
            _ => {}
        }
    }

    /// Writes the header of the next datagram into `buf` (cleared first)
    /// and says which stream bytes its payload carries; the caller appends
    /// them. `None` when there is nothing to send now.
    pub fn poll_segment(&mut self, now: Instant, buf: &mut Vec<u8>) -> Option<Segment> {
        if self.state == State::Opening {
            self.state = State::SynSent;
            self.queue_control(Out::Syn);
            self.handshake_deadline = Some(now + self.rtt.rto());
        }
        let o = self.next_out()?;
        let c = &self.config;
        let avail = c.wire_seq(self.buffer.end());
        let (mut flags, seq, id, payload) = match o {
            Out::Syn => (RcpFlags::SYN, c.isn, 0, None),
            Out::SynAck => (RcpFlags::SYN | RcpFlags::ACK, c.isn, self.syn_id, None),
            Out::Ack => (RcpFlags::ACK, c.isn, 0, None),
            Out::FinAck => (RcpFlags::FIN | RcpFlags::ACK, avail, 0, None),
            Out::Update => (RcpFlags::default(), avail, 0, None),
            Out::Data(off, end, id) => (
                RcpFlags::default(),
                c.wire_seq(off),
                id,
                Some((off, end - off)),
            ),
        };
        // FIN: the stream ends at what this datagram advertises (SEG.DEQ).
        // Said from the SYN+ACK on once the application has closed, so a
        // receiver never waits to learn where a short stream or its partial
        // last segment ends.
        if self.buffer.is_closed() && !matches!(o, Out::Syn | Out::Ack) {
            flags = flags | RcpFlags::FIN;
        }
        buf.clear();
        RcpHeader::new(flags, c.conn_id, seq, avail, id).emit(buf);
        self.told = (self.buffer.end(), self.buffer.is_closed());
        self.stats.datagrams_sent += 1;
        let (offset, len) = payload.unwrap_or((0, 0));
        if len > 0 {
            self.stats.bytes_sent += len;
            if id != 0 {
                self.stats.retransmits += 1;
            }
        }
        Some(Segment {
            path: self.path,
            offset,
            len: len as usize,
        })
    }

    /// The next datagram to send: control datagrams whole, data one
    /// segment (MSS) of its range at a time, skipping what the source no
    /// longer holds.
    fn next_out(&mut self) -> Option<Out> {
        loop {
            let o = self.out.pop_front()?;
            let Out::Data(start, end, id) = o else {
                self.controls &= !o.control_bit();
                return Some(o);
            };
            let seg_end = end.min(start + self.config.mss);
            if seg_end < end {
                self.out.push_front(Out::Data(seg_end, end, id));
            }
            self.queued -= seg_end - start;
            // What the receiver acknowledged meanwhile is gone from a buffer.
            let from = start.max(self.buffer.base());
            let to = seg_end.min(self.buffer.end());
            if from < to {
                return Some(Out::Data(from, to, id));
            }
        }
    }

    /// When [`RcpSender::on_timeout`] must next be called.
    pub fn next_timeout(&self) -> Option<Instant> {
        self.handshake_deadline
    }

    /// `now` reached [`RcpSender::next_timeout`].
    pub fn on_timeout(&mut self, now: Instant) {
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
    }

    /// Next event for the application.
    pub fn next_app_event(&mut self) -> Option<AppEvent> {
        self.events.pop_front()
    }

    /// Counters.
    pub fn counters(&self) -> EndpointStats {
        self.stats
    }
}

impl Endpoint for RcpSender {
    fn handle_datagram(&mut self, now: Instant, _path: PathId, datagram: &[u8]) {
        self.on_datagram(now, datagram);
    }

    fn handle_event(&mut self, _now: Instant, _event: HostEvent) {}

    fn poll_transmit(&mut self, now: Instant, buf: &mut Vec<u8>) -> Option<PathId> {
        let seg = self.poll_segment(now, buf)?;
        if seg.len > 0 {
            self.buffer.copy_range(seg.offset, seg.len, buf);
        }
        Some(seg.path)
    }

    fn poll_timeout(&self) -> Option<Instant> {
        self.next_timeout()
    }

    fn handle_timeout(&mut self, now: Instant) {
        self.on_timeout(now);
    }

    fn poll_app_event(&mut self) -> Option<AppEvent> {
        self.next_app_event()
    }

    fn write(&mut self, data: &[u8]) -> usize {
        let n = self.buffer.write(data);
        if n > 0 && !self.waiting.is_empty() {
            self.serve_waiting();
        }
        n
    }

    fn send_capacity(&self) -> usize {
        let unsent = self.buffer.end().saturating_sub(self.snd_nxt);
        // A limit of the whole send buffer follows the buffer as it grows.
        let limit = if self.config.unsent_limit >= self.config.send_buffer {
            self.buffer.capacity()
        } else {
            self.config.unsent_limit
        };
        self.buffer
            .free()
            .min(limit.saturating_sub(unsent as usize))
    }

    fn close(&mut self) {
        self.buffer.close();
        // What waits is past the data: it goes out as far as there is any.
        self.serve_waiting();
    }

    fn stats(&self) -> EndpointStats {
        self.counters()
    }

    fn write_offset(&self) -> Option<u64> {
        Some(self.buffer.end())
    }
}

#[cfg(test)]
#[path = "sender_tests.rs"]
mod tests;
