//! The RCP sender: holds the data and answers requests (RCP §3.2: "The
//! sender simply maintains the send buffer with one pointer (SND.NXT)").

use std::collections::VecDeque;

use super::{Opener, RcpConfig};
use crate::endpoint::{AppEvent, Endpoint, EndpointStats, HostEvent, PathId};
use crate::rtt::RttEstimator;
use crate::stream::SendBuffer;
use crate::time::Instant;
use crate::wire::rcp::{RcpFlags, RcpHeader, MAX_BLOCKS};

/// Most pulls that wait for the application at once (the oldest give way):
/// a receiver asking far ahead cannot make the sender hold unbounded state.
const MAX_WAITING: usize = 256;

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

#[derive(Clone, Copy, Debug)]
enum Out {
    Syn,
    SynAck,
    Ack,
    /// A data segment: offset, length, pull id answered (0 = cumulative).
    Data(u64, u64, u32),
    /// A segment without payload telling how much data there is.
    Update,
    /// Acknowledges the receiver's FIN request.
    FinAck,
}

/// The data sender of an RCP connection.
#[derive(Debug)]
pub struct RcpSender {
    config: RcpConfig,
    path: PathId,
    state: State,
    buffer: SendBuffer,
    /// Highest byte sent in cumulative mode (SND.NXT).
    snd_nxt: u64,
    /// Ids of the most recent pulls answered (the cyclic buffer of §3.3.1).
    served: [u32; MAX_BLOCKS],
    /// Highest pull id answered.
    max_served: u32,
    /// Pulled ranges the application has not written yet, served as it
    /// writes them (offset, end, pull id), oldest first.
    waiting: VecDeque<(u64, u64, u32)>,
    /// Retransmission of the SYN or SYN+ACK.
    handshake_deadline: Option<Instant>,
    rtt: RttEstimator,
    out: VecDeque<Out>,
    events: VecDeque<AppEvent>,
    stats: EndpointStats,
}

impl RcpSender {
    /// A sender on `path`; it sends the SYN itself if it is the opener.
    pub fn new(config: RcpConfig, path: PathId) -> Self {
        RcpSender {
            state: if config.opener == Opener::Sender {
                State::Opening
            } else {
                State::Listening
            },
            buffer: SendBuffer::new(config.send_buffer),
            snd_nxt: 0,
            served: [0; MAX_BLOCKS],
            max_served: 0,
            waiting: VecDeque::new(),
            handshake_deadline: None,
            rtt: RttEstimator::new(config.rtt),
            out: VecDeque::new(),
            events: VecDeque::new(),
            stats: EndpointStats::default(),
            config,
            path,
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

    /// Queues the segments of `[start, end)` (clipped to the data held).
    fn send_range(&mut self, start: u64, end: u64, pull_id: u32) {
        let end = end.min(self.buffer.end());
        let mut at = start.max(self.buffer.base());
        while at < end {
            let len = self.config.mss.min(end - at);
            self.out.push_back(Out::Data(at, len, pull_id));
            at += len;
        }
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
        // §3.3.4: SEG.DEQ lets the sender purge what arrived in order.
        self.buffer.ack_to(deq);
        if h.flags.contains(RcpFlags::FIN) {
            self.out.push_back(Out::FinAck);
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
            self.serve_pull(s, e, b.id);
            self.served.rotate_right(1);
            self.served[0] = b.id;
            self.max_served = self.max_served.max(b.id);
        }
        // Cumulative mode: everything from SND.NXT up to SEG.REQ not sent yet.
        let req = self.config.offset_of(h.seq, self.snd_nxt);
        if req > self.snd_nxt {
            let upto = req.min(self.buffer.end());
            let from = self.snd_nxt;
            self.send_range(from, upto, 0);
            self.snd_nxt = self.snd_nxt.max(upto);
        }
        if h.flags.contains(RcpFlags::PROBE) {
            self.out.push_back(Out::Update);
        }
    }
}

impl Endpoint for RcpSender {
    fn handle_datagram(&mut self, now: Instant, _path: PathId, datagram: &[u8]) {
        let Ok((h, _)) = RcpHeader::parse(datagram) else {
            self.stats.malformed += 1;
            return;
        };
        if h.conn_id != self.config.conn_id {
            self.stats.malformed += 1;
            return;
        }
        let syn = h.flags.contains(RcpFlags::SYN);
        let ack = h.flags.contains(RcpFlags::ACK);
        match self.state {
            State::Listening | State::SynReceived if syn && !ack => {
                self.state = State::SynReceived;
                self.out.push_back(Out::SynAck);
                self.handshake_deadline = Some(now + self.rtt.rto());
            }
            State::SynSent if syn && ack => {
                self.out.push_back(Out::Ack);
                self.establish();
            }
            State::Established if syn && ack => {
                // Our ACK was lost; the peer resent its SYN+ACK.
                self.out.push_back(Out::Ack);
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

    fn handle_event(&mut self, _now: Instant, _event: HostEvent) {}

    fn poll_transmit(&mut self, now: Instant, buf: &mut Vec<u8>) -> Option<PathId> {
        if self.state == State::Opening {
            self.state = State::SynSent;
            self.out.push_back(Out::Syn);
            self.handshake_deadline = Some(now + self.rtt.rto());
        }
        let o = self.out.pop_front()?;
        let c = &self.config;
        let avail = c.wire_seq(self.buffer.end());
        let (flags, seq, id, payload) = match o {
            Out::Syn => (RcpFlags::SYN, c.isn, 0, None),
            Out::SynAck => (RcpFlags::SYN | RcpFlags::ACK, c.isn, 0, None),
            Out::Ack => (RcpFlags::ACK, c.isn, 0, None),
            Out::FinAck => (RcpFlags::FIN | RcpFlags::ACK, avail, 0, None),
            Out::Update => (RcpFlags::default(), avail, 0, None),
            Out::Data(off, len, id) => {
                let mut f = RcpFlags::default();
                if self.buffer.is_closed() && off + len == self.buffer.end() {
                    f = f | RcpFlags::FIN;
                }
                (f, c.wire_seq(off), id, Some((off, len)))
            }
        };
        let mut flags = flags;
        if payload.is_none()
            && self.buffer.is_closed()
            && !matches!(o, Out::Syn | Out::SynAck | Out::Ack)
        {
            flags = flags | RcpFlags::FIN;
        }
        buf.clear();
        RcpHeader::new(flags, c.conn_id, seq, avail, id).emit(buf);
        if let Some((off, len)) = payload {
            let copied = self.buffer.copy_range(off, len as usize, buf) as u64;
            self.stats.bytes_sent += copied;
            if id != 0 {
                self.stats.retransmits += 1;
            }
        }
        self.stats.datagrams_sent += 1;
        Some(self.path)
    }

    fn poll_timeout(&self) -> Option<Instant> {
        self.handshake_deadline
    }

    fn handle_timeout(&mut self, now: Instant) {
        if self.handshake_deadline.is_some_and(|d| d <= now) {
            self.stats.timeouts += 1;
            self.rtt.back_off();
            self.handshake_deadline = Some(now + self.rtt.rto());
            match self.state {
                State::SynSent => self.out.push_back(Out::Syn),
                State::SynReceived => self.out.push_back(Out::SynAck),
                _ => self.handshake_deadline = None,
            }
        }
    }

    fn poll_app_event(&mut self) -> Option<AppEvent> {
        self.events.pop_front()
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
        self.buffer
            .free()
            .min(self.config.unsent_limit.saturating_sub(unsent as usize))
    }

    fn close(&mut self) {
        self.buffer.close();
        // What waits is past the data: it goes out as far as there is any.
        self.serve_waiting();
    }

    fn read(&mut self, _buf: &mut [u8]) -> usize {
        0
    }

    fn stats(&self) -> EndpointStats {
        self.stats
    }

    fn write_offset(&self) -> Option<u64> {
        Some(self.buffer.end())
    }
}
