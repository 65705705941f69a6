//! The TCP receiver: cumulative acknowledgment of every segment (no delayed
//! ACK, like ns-2's `TCPSink`), SACK blocks in RFC 2018 order, and ELN marks.
//!
//! The mobility variants' receiver halves:
//! - TCP-HO (§IV-B): on the host's handoff hint, two duplicate ACKs with the
//!   bandwidth option, if the sender's SYN offered the capability (echoed in
//!   the SYN+ACK);
//! - Freeze-TCP: on the host's warning that its link is about to go, an ACK
//!   advertising a zero window (and zero in every ACK after it); when the
//!   link is back, three ACKs of the last byte received with the window
//!   reopened;
//! - TCP-Probing: each probe answered at once with the probe's number.

use std::collections::VecDeque;

use super::{TcpConfig, TcpVariant};
use crate::endpoint::{AppEvent, Endpoint, EndpointStats, HostEvent, PathId};
use crate::stream::ReassemblyBuffer;
use crate::time::Instant;
use crate::wire::tcp::{Flags, SackBlock, SackList, TcpHeader, CAPABILITY_HANDOFF};

/// An acknowledgment owed to the sender.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reply {
    /// For the SYN.
    Syn,
    /// For a segment with these offsets (the first SACK block's trigger).
    Segment(u64, u64),
    /// A TCP-HO handoff notice carrying the new link's bandwidth.
    Handoff(u32),
    /// A window announcement (Freeze-TCP's zero window, or its reopening).
    Window,
    /// The answer to a TCP-Probing probe with this number.
    Probe(u32),
}

/// Duplicate ACKs that carry a TCP-HO notice (§IV-B: two, "more robust in
/// lossy network"; a third would trigger fast retransmit).
const HANDOFF_NOTICES: usize = 2;
/// Window-reopening ACKs a Freeze-TCP receiver sends on reconnection.
const THAW_ACKS: usize = 3;

/// The receiving side of a one-way TCP connection.
#[derive(Debug)]
pub struct TcpReceiver {
    config: TcpConfig,
    path: PathId,
    buffer: ReassemblyBuffer,
    /// The peer's SYN has arrived.
    synced: bool,
    /// Acknowledgments owed (one per arriving segment, plus the mobility
    /// schemes' own).
    owed: VecDeque<Reply>,
    /// The sender offered TCP-HO and this receiver takes part.
    handoff_notices: bool,
    /// Freeze-TCP: a zero window is advertised until the link is back.
    frozen: bool,
    /// Block starts in the order last reported (RFC 2018 §4: most recent first).
    reported: VecDeque<u64>,
    /// Ranges the host's wireless link is known to have lost (ELN oracle).
    wireless_lost: Vec<(u64, u64)>,
    fin_at: Option<u64>,
    events: VecDeque<AppEvent>,
    closed: bool,
    stats: EndpointStats,
}

impl TcpReceiver {
    /// A receiver waiting for the peer's SYN on `path`.
    pub fn new(config: TcpConfig, path: PathId) -> Self {
        TcpReceiver {
            config,
            path,
            buffer: ReassemblyBuffer::new(),
            synced: !config.handshake,
            owed: VecDeque::new(),
            handoff_notices: config.variant.handoff_mode().is_some() && !config.handshake,
            frozen: false,
            reported: VecDeque::new(),
            wireless_lost: Vec::new(),
            fin_at: None,
            events: VecDeque::new(),
            closed: false,
            stats: EndpointStats::default(),
        }
    }

    /// Owes the sender an acknowledgment that only announces the window
    /// (a window update, RFC 9293 §3.8.6.2.2): the engine of a multipath
    /// connection whose window overrides this receiver's (pTCP §5.2) sends
    /// it when reading opens a window it had closed.
    pub fn announce_window(&mut self) {
        if self.synced {
            self.owed.push_back(Reply::Window);
        }
    }

    /// Offset of the next in-order byte expected.
    pub fn next_expected(&self) -> u64 {
        self.buffer.next()
    }

    fn on_segment(&mut self, header: &TcpHeader, payload: &[u8]) {
        if header.flags.contains(Flags::SYN) {
            if !self.synced {
                self.synced = true;
                self.events.push_back(AppEvent::Established);
            }
            self.handoff_notices = self.config.variant.handoff_mode().is_some()
                && header
                    .capability
                    .is_some_and(|m| m & CAPABILITY_HANDOFF != 0);
            self.owed.push_back(Reply::Syn);
            return;
        }
        if header.flags.contains(Flags::PROBE) {
            self.owed.push_back(Reply::Probe(header.seq.0));
            return;
        }
        if !self.synced {
            // Our sender waits for the SYN's acknowledgment before data, so
            // this is a peer that opens without a handshake: accept it.
            self.synced = true;
            self.events.push_back(AppEvent::Established);
        }
        let offset = self.config.offset_of(header.seq, self.buffer.next());
        let range = (offset, offset + payload.len() as u64);
        if !payload.is_empty() {
            self.buffer.insert(offset, payload);
        }
        if header.flags.contains(Flags::FIN) {
            self.fin_at = Some(range.1);
        }
        if let Some(fin) = self.fin_at {
            if self.buffer.next() >= fin && !self.closed {
                self.closed = true;
                self.events.push_back(AppEvent::Closed);
            }
        }
        self.owed.push_back(Reply::Segment(range.0, range.1));
    }

    /// The host's events for the mobility variants.
    fn on_mobility(&mut self, event: &HostEvent) {
        match *event {
            HostEvent::HandoffHint { bandwidth, .. } if self.handoff_notices && self.synced => {
                let kbps = (bandwidth.bps() / 1000).min(u64::from(u32::MAX)) as u32;
                for _ in 0..HANDOFF_NOTICES {
                    self.owed.push_back(Reply::Handoff(kbps));
                }
            }
            HostEvent::LinkWarning { .. }
                if self.config.variant == TcpVariant::Freeze && !self.frozen && self.synced =>
            {
                self.frozen = true;
                self.owed.push_back(Reply::Window);
            }
            HostEvent::LinkUp { .. } if self.frozen => {
                self.frozen = false;
                for _ in 0..THAW_ACKS {
                    self.owed.push_back(Reply::Window);
                }
            }
            _ => {}
        }
    }

    /// The window to advertise.
    fn window(&self) -> u32 {
        if self.frozen {
            return 0;
        }
        (self.config.rwnd_bytes() - self.buffer.ready_bytes() as u64).min(u64::from(u32::MAX))
            as u32
    }

    fn sack_blocks(&mut self, trigger: Option<(u64, u64)>) -> SackList {
        let mut list = SackList::default();
        if !self.config.variant.uses_sack() {
            return list;
        }
        if self.buffer.pending_bytes() == 0 {
            self.reported.clear();
            return list;
        }
        let blocks = self.buffer.blocks();
        // RFC 2018 §4: the first block holds the segment that triggered this
        // ACK; the rest repeat the most recently reported blocks.
        let mut chosen: Vec<(u64, u64)> = Vec::new();
        if let Some((s, _)) = trigger {
            if let Some(b) = blocks.iter().find(|b| b.0 <= s && s < b.1) {
                chosen.push(*b);
            }
        }
        for &start in &self.reported {
            if chosen.len() >= self.config.max_sack_blocks {
                break;
            }
            if let Some(b) = blocks.iter().find(|b| b.0 <= start && start < b.1) {
                if !chosen.contains(b) {
                    chosen.push(*b);
                }
            }
        }
        for b in blocks.iter().rev() {
            if chosen.len() >= self.config.max_sack_blocks {
                break;
            }
            if !chosen.contains(b) {
                chosen.push(*b);
            }
        }
        self.reported = chosen.iter().map(|b| b.0).collect();
        for (s, e) in chosen {
            list.push(SackBlock {
                start: self.config.wire_seq(s),
                end: self.config.wire_seq(e),
            });
        }
        list
    }

    fn hole_is_wireless(&mut self) -> bool {
        let next = self.buffer.next();
        self.wireless_lost.retain(|&(_, e)| e > next);
        self.wireless_lost
            .iter()
            .any(|&(s, e)| s <= next && next < e)
    }
}

impl Endpoint for TcpReceiver {
    fn handle_datagram(&mut self, _now: Instant, _path: PathId, datagram: &[u8]) {
        match TcpHeader::parse(datagram) {
            Ok((header, payload)) if header.conn_id == self.config.conn_id => {
                self.on_segment(&header, payload);
            }
            _ => self.stats.malformed += 1,
        }
    }

    fn handle_event(&mut self, _now: Instant, event: HostEvent) {
        self.on_mobility(&event);
        if let HostEvent::WirelessLoss { datagram, .. } = event {
            if self.config.variant != TcpVariant::Eln {
                return;
            }
            if let Ok((h, payload)) = TcpHeader::parse(&datagram) {
                if h.conn_id == self.config.conn_id && !payload.is_empty() {
                    let s = self.config.offset_of(h.seq, self.buffer.next());
                    self.wireless_lost.push((s, s + payload.len() as u64));
                }
            }
        }
    }

    fn poll_transmit(&mut self, _now: Instant, buf: &mut Vec<u8>) -> Option<PathId> {
        let reply = self.owed.pop_front()?;
        let mut flags = Flags::ACK;
        let syn = reply == Reply::Syn && self.buffer.next() == 0 && self.config.handshake;
        if syn {
            flags = flags | Flags::SYN;
        }
        let has_hole = self.buffer.pending_bytes() > 0;
        if self.config.variant == TcpVariant::Eln && has_hole && self.hole_is_wireless() {
            flags = flags | Flags::ELN;
        }
        let mut seq = self.config.isn;
        if let Reply::Probe(id) = reply {
            flags = flags | Flags::PROBE;
            seq = crate::seq::SeqNum(id);
        }
        let trigger = match reply {
            Reply::Segment(s, e) => Some((s, e)),
            _ => None,
        };
        let ack_offset = self.buffer.next();
        let header = TcpHeader {
            flags,
            conn_id: self.config.conn_id,
            seq,
            ack: self.config.wire_seq(ack_offset),
            window: self.window(),
            sack: self.sack_blocks(trigger),
            capability: (syn && self.handoff_notices).then_some(CAPABILITY_HANDOFF),
            bandwidth_kbps: match reply {
                Reply::Handoff(kbps) => Some(kbps),
                _ => None,
            },
            loss: None,
        };
        buf.clear();
        header.emit(buf);
        self.stats.datagrams_sent += 1;
        Some(self.path)
    }

    fn poll_timeout(&self) -> Option<Instant> {
        None
    }

    fn handle_timeout(&mut self, _now: Instant) {}

    fn poll_app_event(&mut self) -> Option<AppEvent> {
        self.events.pop_front()
    }

    fn read(&mut self, buf: &mut [u8]) -> usize {
        self.buffer.read(buf)
    }

    fn stats(&self) -> EndpointStats {
        self.stats
    }
}
