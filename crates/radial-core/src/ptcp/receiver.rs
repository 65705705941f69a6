//! The pTCP engine at the receiving (mobile) host (pTCP §4.1, §5.3): the
//! resequencing buffer shared by all pipes, one TCP-v receiver per pipe,
//! and the pipes' life: opened when an interface comes up, retired or
//! dropped when it goes.

use std::collections::VecDeque;

use super::{expand, variant_index, PtcpConfig, MAX_PIPES};
use crate::endpoint::{AppEvent, Endpoint, EndpointStats, HostEvent, PathId, PathStats};
use crate::seq::SeqNum;
use crate::stream::ReassemblyBuffer;
use crate::tcp::TcpReceiver;
use crate::time::{Duration, Instant};
use crate::wire::ptcp::{PtcpFlags, PtcpHeader};

/// Where a pipe is in its life (Figure 5, per pipe).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// SYN sent; resent at `deadline`.
    Opening,
    /// Established.
    Open,
    /// CLOSE sent; waiting for the sender to confirm.
    Closing,
}

#[derive(Debug)]
struct Pipe {
    state: State,
    tcp: TcpReceiver,
    /// When the SYN or CLOSE is sent again, and how long the next wait is.
    deadline: Option<Instant>,
    wait: Duration,
    opened_at: Instant,
    handshake: Option<Duration>,
    /// New bytes this pipe brought into the buffer.
    delivered: u64,
    /// The data (aggregate offset, length) of each segment the TCP-v owes
    /// an acknowledgment for, echoed in that acknowledgment.
    echoes: VecDeque<(u64, u16)>,
}

/// The receiving side of a pTCP connection.
#[derive(Debug)]
pub struct PtcpReceiver {
    config: PtcpConfig,
    buffer: ReassemblyBuffer,
    pipes: Vec<Option<Pipe>>,
    /// Pipes closed or dropped, with their figures (for reports).
    gone: Vec<PathStats>,
    /// Control messages waiting: (path, flags, aux).
    control: VecDeque<(usize, PtcpFlags, u16)>,
    /// Pipes whose interface went, still to tell the sender about.
    drops: Vec<u16>,
    /// Make-before-break handoffs waiting for their new pipe: (from, to).
    handoffs: Vec<(usize, usize)>,
    /// Round-robin start among pipes with acknowledgments to send.
    turn: usize,
    /// The window the last acknowledgment advertised.
    advertised: u32,
    fin_at: Option<u64>,
    established: bool,
    closed: bool,
    events: VecDeque<AppEvent>,
    stats: EndpointStats,
    scratch: Vec<u8>,
}

impl PtcpReceiver {
    /// A receiver with no pipes yet; each `PathUp` opens one.
    pub fn new(config: PtcpConfig) -> Self {
        PtcpReceiver {
            buffer: ReassemblyBuffer::new(),
            pipes: (0..MAX_PIPES).map(|_| None).collect(),
            gone: Vec::new(),
            control: VecDeque::new(),
            drops: Vec::new(),
            handoffs: Vec::new(),
            turn: 0,
            advertised: u32::MAX,
            fin_at: None,
            established: false,
            closed: false,
            events: VecDeque::new(),
            stats: EndpointStats::default(),
            scratch: vec![0; 64 * 1024],
            config,
        }
    }

    /// Pipes established now (pTCP's ESTABLISHED(n), Figure 5).
    pub fn established_pipes(&self) -> usize {
        self.pipes
            .iter()
            .flatten()
            .filter(|p| p.state == State::Open)
            .count()
    }

    /// The window advertised in every acknowledgment (§5.4): the shared
    /// buffer less what the application has not read yet, from pACK on.
    /// Data held out of order sits inside that window, as in TCP: counted
    /// against it as well, it would pull the window's right edge back over
    /// data already sent whenever the pipes deliver out of order. Without
    /// that rule ([`crate::ptcp::PtcpRules::window_over_unread`]), the
    /// paper's free space: out-of-order data counted too.
    fn window(&self) -> u32 {
        let mut unread = self.buffer.ready_bytes() as u64;
        if !self.config.rules.window_over_unread {
            unread += self.buffer.pending_bytes();
        }
        self.config
            .buffer_bytes()
            .saturating_sub(unread)
            .min(u64::from(u32::MAX)) as u32
    }

    /// `if-up()`: a TCP-v receiver for the path, and its SYN.
    fn open(&mut self, now: Instant, path: usize) {
        if path >= MAX_PIPES || self.pipes[path].is_some() {
            return;
        }
        let variant = self.config.variant(path);
        let tcp = TcpReceiver::new(self.config.pipe_config(path, variant), PathId(0));
        let wait = self.config.tcp.rtt.initial_rto;
        self.pipes[path] = Some(Pipe {
            state: State::Opening,
            tcp,
            deadline: Some(now + wait),
            wait,
            opened_at: now,
            handshake: None,
            delivered: 0,
            echoes: VecDeque::new(),
        });
        self.control
            .push_back((path, PtcpFlags::SYN, variant_index(variant)));
    }

    /// Retires a pipe gracefully: no new data; closed once the sender
    /// confirms.
    fn retire(&mut self, now: Instant, path: usize) {
        let wait = self.config.tcp.rtt.initial_rto;
        if let Some(p) = self.pipes.get_mut(path).and_then(Option::as_mut) {
            if p.state == State::Closing {
                return;
            }
            p.state = State::Closing;
            p.deadline = Some(now + wait);
            p.wait = wait;
            self.control.push_back((path, PtcpFlags::CLOSE, 0));
        }
    }

    /// The pipe is gone: its figures are kept for the report.
    fn remove(&mut self, path: usize) {
        if let Some(p) = self.pipes.get_mut(path).and_then(Option::take) {
            self.gone.push(PathStats {
                path: PathId(path as u16),
                delivered: p.delivered,
                cwnd: 0,
                handshake: p.handshake,
            });
        }
    }

    fn on_data(&mut self, now: Instant, path: usize, h: &PtcpHeader, inner: &[u8]) {
        let Some(p) = self.pipes[path].as_mut() else {
            return;
        };
        if p.state == State::Opening {
            // Data before the SYN+ACK: the sender has the pipe open.
            self.on_open(now, path);
        }
        let Some(p) = self.pipes[path].as_mut() else {
            return;
        };
        p.tcp.handle_datagram(now, PathId(0), inner);
        // The TCP-v keeps no data: it only tracks the virtual sequence.
        while p.tcp.read(&mut self.scratch) > 0 {}
        let Ok((_, payload)) = crate::wire::tcp::TcpHeader::parse(inner) else {
            return;
        };
        let data = &payload[..usize::from(h.aux).min(payload.len())];
        self.stats.data_arrivals += 1;
        let held = self.buffer.pending_bytes() + self.buffer.ready_bytes() as u64;
        if 4 * held >= 3 * self.config.buffer_bytes() {
            self.stats.arrivals_buffer_75 += 1;
        }
        let start = expand(h.pseq, self.buffer.next());
        p.echoes.push_back((start, data.len() as u16));
        if data.is_empty() {
            return;
        }
        let fresh = self.buffer.insert(start, data);
        p.delivered += fresh;
        self.stats.duplicate_bytes += data.len() as u64 - fresh;
        if h.flags.contains(PtcpFlags::FIN) {
            self.fin_at = Some(start + data.len() as u64);
        }
        if self.fin_at.is_some_and(|f| self.buffer.next() >= f) && !self.closed {
            self.closed = true;
            self.events.push_back(AppEvent::Closed);
        }
    }

    fn on_open(&mut self, now: Instant, path: usize) {
        let Some(p) = self.pipes[path].as_mut() else {
            return;
        };
        if p.state != State::Opening {
            return;
        }
        p.state = State::Open;
        p.deadline = None;
        p.handshake = Some(now - p.opened_at);
        if !self.established {
            self.established = true;
            self.events.push_back(AppEvent::Established);
        }
        // A make-before-break handoff to this pipe retires the old one.
        let ready: Vec<usize> = self
            .handoffs
            .iter()
            .filter(|&&(_, to)| to == path)
            .map(|&(from, _)| from)
            .collect();
        self.handoffs.retain(|&(_, to)| to != path);
        for from in ready {
            self.retire(now, from);
        }
        // Tell the sender of pipes lost while none was open.
        for gone in std::mem::take(&mut self.drops) {
            self.control.push_back((path, PtcpFlags::DROP, gone));
        }
    }

    /// A window update (RFC 9293 §3.8.6.2.2, RFC 1122 §4.2.3.3): when the
    /// last acknowledgment advertised less than a segment, so the sender may
    /// be blocked with nothing in flight to bring another, and reading has
    /// opened the window by a segment or half the buffer, whichever is
    /// less, one working pipe announces it.
    fn update_window(&mut self) {
        let mss = self.config.tcp.mss;
        let opened = mss.min(self.config.buffer_bytes() / 2);
        if u64::from(self.advertised) >= mss || u64::from(self.window()) < opened {
            return;
        }
        if let Some(p) = self
            .pipes
            .iter_mut()
            .flatten()
            .find(|p| p.state == State::Open)
        {
            p.tcp.announce_window();
            self.advertised = u32::MAX;
        }
    }

    fn emit_control(&self, flags: PtcpFlags, aux: u16, buf: &mut Vec<u8>) {
        self.emit(flags, aux, 0, buf);
    }

    /// A header with pACK; `pseq` echoes data on acknowledgments.
    fn emit(&self, flags: PtcpFlags, aux: u16, pseq: u64, buf: &mut Vec<u8>) {
        buf.clear();
        PtcpHeader {
            flags,
            aux,
            psrc: self.config.tcp.conn_id,
            pdst: self.config.tcp.conn_id,
            pseq: SeqNum(pseq as u32),
            pack: SeqNum(self.buffer.next() as u32),
        }
        .emit(buf);
    }
}

impl Endpoint for PtcpReceiver {
    fn handle_datagram(&mut self, now: Instant, path: PathId, datagram: &[u8]) {
        let Ok((h, inner)) = PtcpHeader::parse(datagram) else {
            self.stats.malformed += 1;
            return;
        };
        let k = usize::from(path.0);
        if k >= MAX_PIPES || h.psrc != self.config.tcp.conn_id {
            self.stats.malformed += 1;
            return;
        }
        if h.flags.contains(PtcpFlags::SYN) && h.flags.contains(PtcpFlags::ACK) {
            self.on_open(now, k);
        } else if h.flags.contains(PtcpFlags::CLOSE) && h.flags.contains(PtcpFlags::ACK) {
            self.remove(k);
        } else if h.flags.contains(PtcpFlags::DATA) {
            self.on_data(now, k, &h, inner);
        }
    }

    fn handle_event(&mut self, now: Instant, event: HostEvent) {
        match event {
            HostEvent::PathUp { path, .. } => self.open(now, usize::from(path.0)),
            HostEvent::PathClose { path } => self.retire(now, usize::from(path.0)),
            HostEvent::PathHandoff { from, to } => {
                let (from, to) = (usize::from(from.0), usize::from(to.0));
                if self.pipes.get(to).and_then(Option::as_ref).map(|p| p.state) == Some(State::Open)
                {
                    self.retire(now, from);
                } else {
                    self.handoffs.push((from, to));
                }
            }
            HostEvent::PathDown { path } => {
                let k = usize::from(path.0);
                if self.pipes.get(k).is_some_and(Option::is_some) {
                    self.remove(k);
                    match (0..MAX_PIPES).find(|&j| {
                        self.pipes[j]
                            .as_ref()
                            .is_some_and(|p| p.state == State::Open)
                    }) {
                        Some(j) => self.control.push_back((j, PtcpFlags::DROP, path.0)),
                        None => self.drops.push(path.0),
                    }
                }
            }
            HostEvent::WirelessLoss { path, datagram } => {
                // ELN on a TCP-ELN pipe: its receiver learns of the loss.
                let k = usize::from(path.0);
                if let (Ok((_, inner)), Some(p)) = (
                    PtcpHeader::parse(&datagram),
                    self.pipes.get_mut(k).and_then(Option::as_mut),
                ) {
                    p.tcp.handle_event(
                        now,
                        HostEvent::WirelessLoss {
                            path: PathId(0),
                            datagram: inner.to_vec(),
                        },
                    );
                }
            }
            _ => {}
        }
    }

    fn poll_transmit(&mut self, now: Instant, buf: &mut Vec<u8>) -> Option<PathId> {
        if let Some((path, flags, aux)) = self.control.pop_front() {
            self.emit_control(flags, aux, buf);
            self.stats.datagrams_sent += 1;
            return Some(PathId(path as u16));
        }
        let n = self.pipes.len();
        for k in 0..n {
            let path = (self.turn + k) % n;
            let Some(p) = self.pipes[path].as_mut() else {
                continue;
            };
            let mut ack = Vec::new();
            if p.tcp.poll_transmit(now, &mut ack).is_none() {
                continue;
            }
            // pTCP's window overrides the TCP-v's (§5.4); the data that
            // triggered the acknowledgment is echoed.
            let (echo, len) = p.echoes.pop_front().unwrap_or((0, 0));
            let window = self.window();
            self.advertised = window;
            if ack.len() >= 20 {
                ack[16..20].copy_from_slice(&window.to_be_bytes());
            }
            self.emit(PtcpFlags::ACK, len, echo, buf);
            buf.extend_from_slice(&ack);
            self.stats.datagrams_sent += 1;
            self.turn = (path + 1) % n;
            return Some(PathId(path as u16));
        }
        None
    }

    fn poll_timeout(&self) -> Option<Instant> {
        self.pipes.iter().flatten().filter_map(|p| p.deadline).min()
    }

    fn handle_timeout(&mut self, now: Instant) {
        for path in 0..self.pipes.len() {
            let Some(p) = self.pipes[path].as_mut() else {
                continue;
            };
            if p.deadline.is_none_or(|d| d > now) {
                continue;
            }
            p.wait = p.wait.saturating_mul(2).min(self.config.tcp.rtt.max_rto);
            p.deadline = Some(now + p.wait);
            self.stats.timeouts += 1;
            let message = match p.state {
                State::Opening => (PtcpFlags::SYN, variant_index(self.config.variant(path))),
                State::Closing => (PtcpFlags::CLOSE, 0),
                State::Open => continue,
            };
            self.control.push_back((path, message.0, message.1));
        }
    }

    fn poll_app_event(&mut self) -> Option<AppEvent> {
        self.events.pop_front()
    }

    fn read(&mut self, buf: &mut [u8]) -> usize {
        let n = self.buffer.read(buf);
        self.update_window();
        n
    }

    fn stats(&self) -> EndpointStats {
        self.stats
    }

    fn path_stats(&self) -> Vec<PathStats> {
        let mut v: Vec<PathStats> = self.gone.clone();
        for (k, p) in self.pipes.iter().enumerate() {
            if let Some(p) = p {
                v.push(PathStats {
                    path: PathId(k as u16),
                    delivered: p.delivered,
                    cwnd: 0,
                    handshake: p.handshake,
                });
            }
        }
        v.sort_by_key(|s| s.path);
        v
    }
}
