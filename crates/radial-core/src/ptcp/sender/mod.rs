//! The pTCP engine at the sender (pTCP §4.1, §5): the send buffer, one
//! TCP-v pipe per path the receiving host opened, and the bindings between
//! the pipes' virtual segments and the data they carry.

mod head_of_line;

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use super::{expand, PtcpConfig, MAX_PIPES};
use crate::cc::coupled::{increase_scale, Coupling, LossIntervals, SubflowView};
use crate::endpoint::{AppEvent, Endpoint, EndpointStats, HostEvent, PathId};
use crate::mptcp::{ecf_waits, min_rtt_order, EcfView, Scheduler};
use crate::policy::Tokens;
use crate::seq::SeqNum;
use crate::stream::SendBuffer;
use crate::tcp::{TcpSender, TcpVariant};
use crate::time::Instant;
use crate::wire::ptcp::{PtcpFlags, PtcpHeader, HEADER_LEN};

/// The offset an empty virtual segment is bound to under fixed mappings.
const NO_DATA: u64 = u64::MAX;

/// One TCP-v pipe at the sender.
#[derive(Debug)]
struct Pipe {
    tcp: TcpSender,
    /// Virtual offset → the data bound to it (aggregate offset, length).
    bound: BTreeMap<u64, (u64, u64)>,
    /// Virtual segments sent again with other data than before: their
    /// acknowledgment does not tell which transmission arrived.
    rebound: BTreeSet<u64>,
    /// The receiver asked to retire it: it takes no new data.
    closing: bool,
    /// Loss episodes seen so far (timeouts, fast recoveries).
    losses: (u64, u64),
    /// Timed out with no acknowledgment since: the pipe probes a blackout.
    silent: bool,
    /// When its window was last halved for holding up the buffer.
    penalised_at: Option<Instant>,
    /// Bytes delivered between and since its losses (OLIA's ℓ).
    intervals: LossIntervals,
}

/// The sending side of a pTCP connection.
#[derive(Debug)]
pub struct PtcpSender {
    config: PtcpConfig,
    buffer: SendBuffer,
    pipes: Vec<Option<Pipe>>,
    /// Data no pipe holds any more that is not known delivered: re-assigned
    /// (dynamic reassignment, §3.4 (2)), sent before new data.
    pending: BTreeSet<u64>,
    /// Which pipe's virtual segment holds each piece of data in flight.
    holder: BTreeMap<u64, (usize, u64)>,
    /// When the data in flight was last bound, by offset.
    bound_at: BTreeMap<u64, Instant>,
    /// Data the receiver echoed, above pACK.
    delivered: BTreeSet<u64>,
    /// Heads of line copied onto a second pipe while the receive buffer
    /// was full (above pACK).
    reinjected: BTreeSet<u64>,
    /// The first byte never bound.
    next_new: u64,
    /// The receiver's cumulative acknowledgment and window (§5.4).
    pack: u64,
    window: u64,
    tokens: Option<Tokens>,
    /// Built datagrams and their paths.
    out: VecDeque<(PathId, Vec<u8>)>,
    /// The application wrote or closed: pipes may have data to bind.
    want_pump: bool,
    /// ECF left a slow subflow idle last time (its hysteresis).
    ecf_waiting: bool,
    events: VecDeque<AppEvent>,
    closed_reported: bool,
    stats: EndpointStats,
    scratch: Vec<u8>,
}

impl PtcpSender {
    /// A sender waiting for the receiving host to open pipes.
    pub fn new(config: PtcpConfig) -> Self {
        PtcpSender {
            buffer: SendBuffer::new(config.tcp.send_buffer),
            pipes: (0..MAX_PIPES).map(|_| None).collect(),
            pending: BTreeSet::new(),
            holder: BTreeMap::new(),
            bound_at: BTreeMap::new(),
            delivered: BTreeSet::new(),
            reinjected: BTreeSet::new(),
            next_new: 0,
            pack: 0,
            window: config.buffer_bytes(),
            tokens: config.target.map(Tokens::new),
            out: VecDeque::new(),
            want_pump: false,
            ecf_waiting: false,
            events: VecDeque::new(),
            closed_reported: false,
            stats: EndpointStats::default(),
            scratch: Vec::new(),
            config,
        }
    }

    fn mss(&self) -> u64 {
        self.config.tcp.mss
    }

    fn header(&self, flags: PtcpFlags) -> PtcpHeader {
        PtcpHeader {
            flags,
            psrc: self.config.tcp.conn_id,
            pdst: self.config.tcp.conn_id,
            ..PtcpHeader::default()
        }
    }

    fn control(&mut self, path: usize, flags: PtcpFlags) {
        let mut buf = Vec::with_capacity(HEADER_LEN);
        self.header(flags).emit(&mut buf);
        self.out.push_back((PathId(path as u16), buf));
    }

    /// The receiver opened the pipe of `path` (§5.3): a TCP-v sender with
    /// the controller it names, established at once.
    fn open(&mut self, now: Instant, path: usize, variant: u16) {
        if self.pipes[path].is_none() {
            let variant = TcpVariant::ALL
                .get(usize::from(variant))
                .copied()
                .unwrap_or(self.config.tcp.variant);
            let tcp = TcpSender::virtual_pipe(self.config.pipe_config(path, variant), PathId(0));
            self.pipes[path] = Some(Pipe {
                tcp,
                bound: BTreeMap::new(),
                rebound: BTreeSet::new(),
                closing: false,
                losses: (0, 0),
                silent: false,
                penalised_at: None,
                intervals: LossIntervals::default(),
            });
            if let Some(t) = self.tokens.as_mut() {
                t.start(now);
            }
        }
        self.control(path, PtcpFlags::SYN | PtcpFlags::ACK);
        self.pump(now);
    }

    /// Data whose pipe no longer holds it goes back to pending.
    fn unbind(&mut self, path: usize, vseq: u64) {
        let Some(&(poff, _)) = self.pipes[path].as_ref().and_then(|p| p.bound.get(&vseq)) else {
            return;
        };
        if self.holder.get(&poff) == Some(&(path, vseq)) {
            self.holder.remove(&poff);
            if poff >= self.pack && !self.delivered.contains(&poff) {
                self.pending.insert(poff);
            }
        }
    }

    /// `shrunk()` (§3.4 (2), §5.1): after a timeout every segment the pipe
    /// has out is presumed lost and its data re-assigned; after a fast
    /// retransmit, the lost head of line is.
    fn after_loss(&mut self, path: usize) {
        let Some(p) = self.pipes[path].as_mut() else {
            return;
        };
        let now = p.tcp.losses();
        let (timeouts, recoveries) = (now.0 > p.losses.0, now.1 > p.losses.1);
        p.losses = now;
        p.silent |= timeouts;
        if timeouts || recoveries {
            p.intervals.on_loss();
        }
        if self.config.mptcp.is_some() {
            if timeouts {
                self.reinject(path);
            }
            return;
        }
        let head = p.tcp.acked();
        let lost: Vec<u64> = if timeouts {
            p.bound.keys().copied().collect()
        } else if recoveries {
            p.bound.keys().copied().filter(|&v| v == head).collect()
        } else {
            Vec::new()
        };
        for v in lost {
            self.unbind(path, v);
        }
    }

    /// MPTCP's reinjection on a retransmission timeout: what the pipe holds
    /// and the receiver lacks may go out on the other pipes too, while the
    /// pipe keeps its mappings and retransmits them itself.
    fn reinject(&mut self, path: usize) {
        let Some(p) = self.pipes[path].as_ref() else {
            return;
        };
        for (&vseq, &(poff, _)) in &p.bound {
            let wanted = poff >= self.pack && !self.delivered.contains(&poff);
            if wanted && self.holder.get(&poff) == Some(&(path, vseq)) {
                self.pending.insert(poff);
            }
        }
    }

    /// The receiver echoes the data that triggered each acknowledgment: it
    /// has arrived, whichever pipe or transmission carried it.
    fn on_echo(&mut self, poff: u64) {
        if poff >= self.pack {
            self.delivered.insert(poff);
            self.pending.remove(&poff);
        }
    }

    /// A pipe's cumulative acknowledgment: its segments below it are done.
    /// A virtual segment may have carried different data on different
    /// transmissions, so its acknowledgment proves nothing about the data:
    /// what no echo showed delivered goes back to pending.
    fn after_ack(&mut self, path: usize) {
        let Some(p) = self.pipes[path].as_mut() else {
            return;
        };
        let acked = p.tcp.acked();
        let keep = p.bound.split_off(&acked);
        let done = std::mem::replace(&mut p.bound, keep);
        let rebound_keep = p.rebound.split_off(&acked);
        let rebound = std::mem::replace(&mut p.rebound, rebound_keep);
        for (vseq, (poff, len)) in done {
            if len > 0 && !rebound.contains(&vseq) {
                // Every transmission of the segment carried this data (under
                // MPTCP a mapping never changes): the acknowledgment proves
                // it arrived, whether or not its echo came yet (one
                // acknowledgment may cover several arrivals, and echo one).
                self.on_echo(poff);
            }
            if self.holder.get(&poff) == Some(&(path, vseq)) {
                self.holder.remove(&poff);
                if poff >= self.pack && !self.delivered.contains(&poff) {
                    self.pending.insert(poff);
                }
            }
        }
    }

    /// pACK moved: the buffer and the tables forget what it covers.
    fn on_pack(&mut self, pack: u64) {
        if pack <= self.pack {
            return;
        }
        self.pack = pack;
        self.buffer.ack_to(pack.min(self.buffer.end()));
        self.pending = self.pending.split_off(&pack);
        self.delivered = self.delivered.split_off(&pack);
        self.reinjected = self.reinjected.split_off(&pack);
        self.holder = self.holder.split_off(&pack);
        self.bound_at = self.bound_at.split_off(&pack);
    }

    /// Data a pipe may take now: re-assigned segments, then new data within
    /// the receiver's window, within the policy's tokens.
    fn bindable(&self, now: Instant, path: usize) -> u64 {
        let room = (self.pack + self.window).saturating_sub(self.next_new);
        let fresh = self.buffer.end().saturating_sub(self.next_new).min(room);
        let mut bytes = self.pending.len() as u64 * self.mss() + fresh;
        if bytes == 0 && self.blocking_head(now, path).is_some() {
            bytes = self.mss();
        }
        if let Some(t) = &self.tokens {
            if !t.allows(PathId(path as u16)) {
                bytes = 0;
            } else {
                bytes = bytes.min(self.mss());
            }
        }
        bytes.div_ceil(self.mss()) * self.mss()
    }

    /// Chooses the data for a virtual segment (delayed binding): a
    /// retransmission carries its old data if its pipe still holds it;
    /// otherwise re-assigned data first, then new data. A pipe probing a
    /// blackout (timed out, nothing heard since) while another pipe works takes
    /// nothing from the others: with redundant striping it carries a copy of
    /// the head of line and leaves it pending for another pipe (§3.4 (3)),
    /// without it nothing. With nothing left, a retransmission repeats its
    /// old data and a new segment carries none.
    fn bind(&mut self, now: Instant, path: usize, vseq: u64, vlen: u64) -> Option<(u64, u64)> {
        let pipe = self.pipes[path].as_ref()?;
        let fixed = self.config.mptcp.is_some();
        if fixed {
            if let Some(&bound) = pipe.bound.get(&vseq) {
                return (bound.0 != NO_DATA).then_some(bound);
            }
        }
        let probing = pipe.silent && self.others_live(path);
        if let Some(&(poff, plen)) = pipe.bound.get(&vseq) {
            let wanted = poff >= self.pack && !self.delivered.contains(&poff);
            if wanted && self.holder.get(&poff) == Some(&(path, vseq)) {
                return Some((poff, plen));
            }
        }
        if probing && !self.config.redundant_striping {
            return None;
        }
        // A probing pipe copies the lowest pending data it holds no copy of;
        // MPTCP reinjects data only on another subflow.
        let held: BTreeSet<u64> = if (probing || fixed) && !self.pending.is_empty() {
            pipe.bound.values().map(|&(poff, _)| poff).collect()
        } else {
            BTreeSet::new()
        };
        let first_pending = self.pending.iter().find(|p| !held.contains(p)).copied();
        let take = if let Some(poff) = first_pending {
            if !probing {
                self.pending.remove(&poff);
            }
            let len = self.mss().min(self.buffer.end() - poff);
            Some((poff, len))
        } else if self.next_new < self.buffer.end()
            && self.next_new < self.pack + self.window
            && !probing
        {
            let len = self.mss().min(vlen).min(self.buffer.end() - self.next_new);
            let poff = self.next_new;
            self.next_new += len;
            Some((poff, len))
        } else if let Some(head) = self.blocking_head(now, path).filter(|_| !probing) {
            // Beyond the paper: the buffer is full behind a head of line
            // another pipe holds; this pipe, with nothing else to send,
            // carries a copy (MPTCP's opportunistic retransmission), and the
            // holder's window is halved (MPTCP's penalisation).
            self.reinjected.insert(head);
            self.penalise_holder(now, head);
            let len = self.mss().min(self.buffer.end() - head);
            return self.pipes[path].as_mut().map(|p| {
                p.bound.insert(vseq, (head, len));
                (head, len)
            });
        } else {
            None
        };
        let pipe = self.pipes[path].as_mut()?;
        if fixed && take.is_none() {
            // A segment sent with nothing to carry stays empty when it is
            // sent again: its acknowledgment must never stand for data.
            pipe.bound.insert(vseq, (NO_DATA, 0));
            return None;
        }
        match take {
            Some((poff, len)) => {
                if !probing {
                    self.holder.insert(poff, (path, vseq));
                    self.bound_at.insert(poff, now);
                }
                pipe.bound.insert(vseq, (poff, len));
                if let Some(t) = self.tokens.as_mut() {
                    t.spend(PathId(path as u16), len);
                }
                Some((poff, len))
            }
            None => pipe.bound.get(&vseq).copied(),
        }
    }

    /// True when a pipe other than `path` is open, not retiring and not
    /// probing a blackout.
    fn others_live(&self, path: usize) -> bool {
        self.pipes
            .iter()
            .enumerate()
            .any(|(k, p)| k != path && p.as_ref().is_some_and(|p| !p.closing && !p.silent))
    }

    /// Sends what each pipe may: its retransmissions, then, as far as there
    /// is data to bind and room in its window, new segments (`resume()`);
    /// a pipe with nothing to bind stays frozen at its sent end.
    fn pump(&mut self, now: Instant) {
        self.want_pump = false;
        if self.config.mptcp.is_none() && self.config.rules.fewest_first {
            self.pump_fewest_first(now);
        } else if self.config.mptcp.is_none() {
            for path in 0..self.pipes.len() {
                while self.offer(now, path, u64::MAX) {}
                self.drain(now, path);
            }
        } else {
            let (order, count) = self.min_rtt_order();
            for &path in &order[..count] {
                if self.ecf_holds_back(path, order[0]) {
                    self.drain(now, path);
                    continue;
                }
                while self.offer(now, path, u64::MAX) {}
                self.drain(now, path);
            }
        }
        self.retire_closed();
        self.report_closed();
    }

    /// pTCP's pipes are offered data one segment at a time, the pipe with
    /// the fewest bytes outstanding first (beyond the paper, as R²CP's
    /// pipes ask at the receiver): where the receive buffer is short, each
    /// pipe holds an equal part of it, so a pipe whose window covers the
    /// whole buffer (the old pipe of a soft handoff) does not keep a new
    /// one out, nor hold the buffer in a standing queue on its path.
    fn pump_fewest_first(&mut self, now: Instant) {
        let mut done = [false; MAX_PIPES];
        loop {
            let next = (0..self.pipes.len())
                .filter(|&k| !done[k])
                .filter_map(|k| Some((self.pipes[k].as_ref()?.tcp.outstanding(), k)))
                .min();
            let Some((_, path)) = next else {
                break;
            };
            if !self.offer(now, path, self.mss()) {
                self.drain(now, path);
                done[path] = true;
            }
        }
    }

    /// Grants pipe `path` up to `most` bytes of what there is to bind (a
    /// segment at a time under the policy, whose tokens each segment
    /// spends), and sends what its window takes: true if it sent anything
    /// new.
    fn offer(&mut self, now: Instant, path: usize, most: u64) -> bool {
        let Some(p) = self.pipes[path].as_ref() else {
            return false;
        };
        let grant = if p.closing {
            0
        } else {
            self.bindable(now, path).min(most)
        };
        let before = p.tcp.max_seq();
        if grant == 0 {
            return false;
        }
        if let Some(p) = self.pipes[path].as_mut() {
            p.tcp.set_virtual_end(now, before + grant);
        }
        self.drain(now, path);
        let Some(p) = self.pipes[path].as_mut() else {
            return false;
        };
        let sent = p.tcp.max_seq();
        p.tcp.set_virtual_end(now, sent);
        sent > before
    }

    /// MPTCP's order: lowest smoothed RTT first, among the subflows that
    /// are neither retiring nor silent.
    fn min_rtt_order(&self) -> ([usize; MAX_PIPES], usize) {
        let mut order = [0; MAX_PIPES];
        let mut rtts = [(0, None); MAX_PIPES];
        let mut count = 0;
        for (path, p) in self.pipes.iter().enumerate() {
            if let Some(p) = p.as_ref().filter(|p| !p.closing && !p.silent) {
                rtts[count] = (path, p.tcp.srtt());
                count += 1;
            }
        }
        min_rtt_order(&mut rtts[..count]);
        for (slot, &(path, _)) in order.iter_mut().zip(&rtts[..count]) {
            *slot = path;
        }
        (order, count)
    }

    /// ECF: true when `path` should stay idle so that the data waits for
    /// the faster `fast`, which the pump offered data first.
    fn ecf_holds_back(&mut self, path: usize, fast: usize) -> bool {
        let ecf = self
            .config
            .mptcp
            .is_some_and(|m| m.scheduler == Scheduler::Ecf);
        if !ecf || path == fast {
            return false;
        }
        let view = |k: usize| {
            let t = &self.pipes[k].as_ref()?.tcp;
            Some(EcfView {
                cwnd: t.cwnd(),
                srtt: t.srtt()?,
                rttvar: t.rttvar()?,
            })
        };
        let (Some(f), Some(s)) = (view(fast), view(path)) else {
            return false;
        };
        let unsent = self.buffer.end().saturating_sub(self.next_new)
            + self.pending.len() as u64 * self.mss();
        let waits = unsent > 0 && ecf_waits(unsent, f, s, self.ecf_waiting, self.mss());
        if unsent > 0 {
            self.ecf_waiting = waits;
        }
        waits
    }

    /// MPTCP's coupled increase (LIA or OLIA): the scale on pipe `k`'s
    /// Reno increase given every pipe's window and round trip, set before
    /// `k` takes an acknowledgment.
    fn couple(&mut self, k: usize) {
        let Some(coupling) = self.config.mptcp.map(|m| m.coupling) else {
            return;
        };
        if coupling == Coupling::Uncoupled {
            return;
        }
        let blank = SubflowView {
            cwnd: 0,
            rtt: None,
            interval: 0,
        };
        let mut views = [blank; MAX_PIPES];
        let (mut n, mut r) = (0, 0);
        for (path, p) in self.pipes.iter().enumerate() {
            let Some(p) = p.as_ref().filter(|p| !p.closing) else {
                continue;
            };
            if path == k {
                r = n;
            }
            views[n] = SubflowView {
                cwnd: p.tcp.cwnd(),
                rtt: p.tcp.srtt(),
                interval: p.intervals.value(),
            };
            n += 1;
        }
        let scale = increase_scale(coupling, &views[..n], r);
        if let Some(p) = self.pipes[k].as_mut() {
            p.tcp.set_increase_scale(scale);
        }
    }

    /// Binds and builds every segment pipe `path` has ready.
    fn drain(&mut self, now: Instant, path: usize) {
        loop {
            let mut head = std::mem::take(&mut self.scratch);
            let seg = match self.pipes[path].as_mut() {
                Some(p) => p.tcp.poll_virtual(now, &mut head),
                None => None,
            };
            let Some(seg) = seg else {
                self.scratch = head;
                return;
            };
            let before = self.pipes[path]
                .as_ref()
                .and_then(|p| p.bound.get(&seg.offset).copied());
            let (poff, plen) = self
                .bind(now, path, seg.offset, seg.len)
                .unwrap_or((self.pack, 0));
            if before.is_some_and(|(b, blen)| blen > 0 && (b != poff || plen == 0)) {
                // Sent again without the data it carried before: its
                // acknowledgment no longer says which arrived.
                if let Some(p) = self.pipes[path].as_mut() {
                    p.rebound.insert(seg.offset);
                }
            }
            let mut flags = PtcpFlags::DATA;
            if self.buffer.is_closed() && plen > 0 && poff + plen == self.buffer.end() {
                flags = flags | PtcpFlags::FIN;
            }
            let mut buf = Vec::with_capacity(HEADER_LEN + head.len() + seg.len as usize);
            PtcpHeader {
                aux: plen as u16,
                pseq: SeqNum(poff as u32),
                ..self.header(flags)
            }
            .emit(&mut buf);
            buf.extend_from_slice(&head);
            let copied = if plen > 0 {
                self.buffer.copy_range(poff, plen as usize, &mut buf)
            } else {
                0
            };
            buf.resize(buf.len() + (seg.len as usize - copied), 0);
            self.stats.datagrams_sent += 1;
            self.stats.bytes_sent += plen;
            if seg.retransmission {
                self.stats.retransmits += 1;
            }
            self.out.push_back((PathId(path as u16), buf));
            head.clear();
            self.scratch = head;
        }
    }

    /// Retiring pipes whose data has all arrived (or gone to other pipes)
    /// close and say so.
    fn retire_closed(&mut self) {
        for path in 0..self.pipes.len() {
            let done = self.pipes[path].as_ref().is_some_and(|p| {
                p.closing
                    && (p.tcp.outstanding() == 0
                        || p.bound
                            .iter()
                            .all(|(&v, &(poff, _))| self.holder.get(&poff) != Some(&(path, v))))
            });
            if done {
                self.drop_pipe(path);
                self.control(path, PtcpFlags::CLOSE | PtcpFlags::ACK);
            }
        }
    }

    /// The pipe of `path` is gone (or retired): what it held goes to the
    /// others.
    fn drop_pipe(&mut self, path: usize) {
        let keys: Vec<u64> = self.pipes[path]
            .as_ref()
            .map(|p| p.bound.keys().copied().collect())
            .unwrap_or_default();
        for v in keys {
            self.unbind(path, v);
        }
        self.forget(path);
    }

    /// Removes a pipe, keeping its counters.
    fn forget(&mut self, path: usize) {
        if let Some(p) = self.pipes[path].take() {
            let t = p.tcp.stats();
            self.stats.timeouts += t.timeouts;
            self.stats.fast_recoveries += t.fast_recoveries;
        }
    }

    fn report_closed(&mut self) {
        if self.buffer.is_closed() && self.pack >= self.buffer.end() && !self.closed_reported {
            self.closed_reported = true;
            self.events.push_back(AppEvent::Closed);
        }
    }
}

impl Endpoint for PtcpSender {
    fn handle_datagram(&mut self, now: Instant, path: PathId, datagram: &[u8]) {
        let Ok((h, inner)) = PtcpHeader::parse(datagram) else {
            self.stats.malformed += 1;
            return;
        };
        let k = usize::from(path.0);
        if k >= MAX_PIPES || h.pdst != self.config.tcp.conn_id {
            self.stats.malformed += 1;
            return;
        }
        if h.flags.contains(PtcpFlags::SYN) {
            self.open(now, k, h.aux);
            return;
        }
        if h.flags.contains(PtcpFlags::DROP) {
            let gone = usize::from(h.aux);
            if gone < MAX_PIPES {
                self.drop_pipe(gone);
            }
        }
        if h.flags.contains(PtcpFlags::CLOSE) {
            match self.pipes[k].as_mut() {
                Some(p) => p.closing = true,
                None => self.control(k, PtcpFlags::CLOSE | PtcpFlags::ACK),
            }
        }
        if h.flags.contains(PtcpFlags::ACK) && !inner.is_empty() {
            self.on_pack(expand(h.pack, self.pack));
            if h.aux > 0 {
                self.on_echo(expand(h.pseq, self.pack));
            }
            if let Ok((tcp, _)) = crate::wire::tcp::TcpHeader::parse(inner) {
                self.window = u64::from(tcp.window);
            }
            self.couple(k);
            if let Some(p) = self.pipes[k].as_mut() {
                p.silent = false;
                let before = p.tcp.acked();
                p.tcp.handle_datagram(now, PathId(0), inner);
                p.intervals
                    .on_delivered(p.tcp.acked().saturating_sub(before));
                self.after_ack(k);
                self.after_loss(k);
                self.drain(now, k);
            }
        }
        self.pump(now);
    }

    fn handle_event(&mut self, _now: Instant, _event: HostEvent) {}

    fn poll_transmit(&mut self, now: Instant, buf: &mut Vec<u8>) -> Option<PathId> {
        if self.want_pump {
            self.pump(now);
        }
        let (path, data) = self.out.pop_front()?;
        buf.clear();
        buf.extend_from_slice(&data);
        Some(path)
    }

    fn poll_timeout(&self) -> Option<Instant> {
        self.pipes
            .iter()
            .flatten()
            .filter_map(|p| p.tcp.poll_timeout())
            .chain(self.tokens.as_ref().and_then(Tokens::deadline))
            .min()
    }

    fn handle_timeout(&mut self, now: Instant) {
        for path in 0..self.pipes.len() {
            let due = self.pipes[path]
                .as_ref()
                .and_then(|p| p.tcp.poll_timeout())
                .is_some_and(|t| t <= now);
            if due {
                if let Some(p) = self.pipes[path].as_mut() {
                    p.tcp.handle_timeout(now);
                }
                self.after_loss(path);
                self.drain(now, path);
            }
        }
        if let Some(t) = self.tokens.as_mut() {
            t.on_timer(now);
        }
        self.pump(now);
    }

    fn poll_app_event(&mut self) -> Option<AppEvent> {
        self.events.pop_front()
    }

    fn write(&mut self, data: &[u8]) -> usize {
        let unsent = self.buffer.end().saturating_sub(self.next_new);
        let room = self
            .config
            .tcp
            .unsent_limit
            .saturating_sub(unsent as usize)
            .min(self.buffer.free());
        let n = self.buffer.write(&data[..data.len().min(room)]);
        self.want_pump |= n > 0;
        n
    }

    fn send_capacity(&self) -> usize {
        let unsent = self.buffer.end().saturating_sub(self.next_new);
        self.buffer
            .free()
            .min(self.config.tcp.unsent_limit.saturating_sub(unsent as usize))
    }

    fn close(&mut self) {
        self.buffer.close();
        self.want_pump = true;
    }

    fn stats(&self) -> EndpointStats {
        let mut s = self.stats;
        for p in self.pipes.iter().flatten() {
            let t = p.tcp.stats();
            s.timeouts += t.timeouts;
            s.fast_recoveries += t.fast_recoveries;
            s.cwnd += t.cwnd;
        }
        s
    }
}
