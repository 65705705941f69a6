//! PRISM-IMUX, the proxy's inverse multiplexer (PRISM §III-A): the sender's
//! data out over the members' links, the receiver's acknowledgments back
//! through the Reverse Path Controller.

use super::adas::LinkTable;
use super::rpc::{Emit, Rpc, Tracking};
use super::{ImuxConfig, Outbox, RpcMode};
use crate::endpoint::{AppEvent, Endpoint, EndpointStats, HostEvent, PathId};
use crate::seq::SeqNum;
use crate::time::Instant;
use crate::wire::tcp::{Flags, LossNotice, SackList, TcpHeader, SHARE_SCALE};

/// What the proxy did, for measurement.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ImuxStats {
    /// Acknowledgments held and released re-written as in order.
    pub corrected: u64,
    /// Loss notices sent to the sender.
    pub notices: u64,
    /// Largest re-sequencing span seen, in bytes (Figure 14's buffer).
    pub max_span: u64,
    /// Data segments dropped because no member link was up.
    pub no_link: u64,
}

/// The proxy's inverse multiplexer for one TCP connection.
///
/// Paths: `PathId(k)` for `k < links` is member link `k` (its host events
/// are the member joining, `PathUp`, and leaving: `PathClose` when it leaves
/// with what it carries still delivered, `PathDown` when that is lost); `PathId(links)` leads to the sender. A datagram arriving on
/// the sender's path is data; on any other, an acknowledgment from the
/// receiver.
#[derive(Debug)]
pub struct Imux {
    config: ImuxConfig,
    table: LinkTable,
    rpc: Rpc,
    /// Wire number of stream offset 0 (one past the SYN's), once seen.
    base: Option<SeqNum>,
    /// One past the highest byte forwarded.
    highest: u64,
    /// The last acknowledgment from the receiver (loss notices for a lost
    /// link ride on copies of it).
    last_ack: Option<TcpHeader>,
    outbox: Outbox,
    stats: EndpointStats,
    imux: ImuxStats,
}

impl Imux {
    /// A proxy with no member link up yet.
    pub fn new(config: ImuxConfig) -> Self {
        let links = config.links.min(super::MAX_LINKS);
        Imux {
            table: LinkTable::new(config.scheduler, &config.bandwidth[..links], config.seed),
            rpc: Rpc::new(config.rpc, links),
            config,
            base: None,
            highest: 0,
            last_ack: None,
            outbox: Outbox::default(),
            stats: EndpointStats::default(),
            imux: ImuxStats::default(),
        }
    }

    /// The link-state table.
    pub fn links(&self) -> &LinkTable {
        &self.table
    }

    /// What the proxy did so far.
    pub fn imux_stats(&self) -> ImuxStats {
        ImuxStats {
            corrected: self.rpc.corrected,
            max_span: self.rpc.max_span,
            ..self.imux
        }
    }

    fn sender_path(&self) -> PathId {
        PathId(self.table.len() as u16)
    }

    /// The stream offset of wire number `seq`, the one closest to `near`.
    fn offset(&self, base: SeqNum, seq: SeqNum, near: u64) -> u64 {
        let delta = seq.since(base + near);
        (near as i64 + delta).max(0) as u64
    }

    fn on_data(&mut self, now: Instant, h: &TcpHeader, len: usize, datagram: &[u8]) {
        if h.flags.contains(Flags::SYN) {
            self.base = Some(h.seq + 1u32);
        }
        let link = match self.base {
            Some(base) if len > 0 => {
                let offset = self.offset(base, h.seq, self.highest);
                let end = offset + len as u64;
                let link = if offset < self.highest {
                    self.table.pick_retransmission()
                } else {
                    self.table.pick()
                };
                if let Some(l) = link {
                    self.highest = self.highest.max(end);
                    let tracked = self.rpc.on_forward(now, offset, len as u64, l as u16);
                    if let Tracking::Tracked { replaced } = tracked {
                        if let Some(r) = replaced {
                            self.table.on_gone(usize::from(r));
                        }
                        self.table.on_send(l);
                    }
                }
                link
            }
            // Control segments take the fastest link.
            _ => self.table.fastest(),
        };
        match link {
            Some(l) => self.outbox.push(PathId(l as u16), datagram.to_vec()),
            None => self.imux.no_link += 1,
        }
    }

    fn on_ack(&mut self, now: Instant, h: TcpHeader, datagram: &[u8]) {
        let Some(base) = self.base else {
            self.send_to_sender(datagram.to_vec());
            return;
        };
        if !h.flags.contains(Flags::ACK) || h.flags.contains(Flags::SYN) {
            self.send_to_sender(datagram.to_vec());
            return;
        }
        let cum = self.offset(base, h.ack, self.rpc.cum());
        let mut blocks = [(0u64, 0u64); crate::wire::tcp::MAX_SACK_BLOCKS];
        for (slot, b) in blocks.iter_mut().zip(h.sack.iter()) {
            *slot = (
                self.offset(base, b.start, cum),
                self.offset(base, b.end, cum),
            );
        }
        let (found, emits) = self.rpc.on_ack(now, cum, &blocks[..h.sack.len()]);
        for (link, rtt) in found.arrivals {
            self.table.on_arrival(usize::from(link), rtt);
        }
        let mut congested = 0u32;
        for &(_, link) in &found.losses {
            self.table.on_gone(usize::from(link));
            congested |= 1 << link;
        }
        self.cut_weights(congested);
        for e in emits {
            self.emit_ack(base, &h, e);
        }
        self.last_ack = Some(h);
    }

    /// ADAS's multiplicative decrease (§IV-B.3), once per link per
    /// acknowledgment that showed losses on it; only RPC's loss detection
    /// tells ADAS of losses.
    fn cut_weights(&mut self, congested: u32) {
        if self.config.rpc != RpcMode::Full {
            return;
        }
        for link in 0..self.table.len() {
            if congested & (1 << link) != 0 {
                self.table.on_loss(link);
            }
        }
    }

    fn emit_ack(&mut self, base: SeqNum, h: &TcpHeader, e: Emit) {
        let mut a = h.clone();
        match e {
            Emit::Original { notice } => {
                a.loss = notice.map(|(offset, link)| {
                    self.imux.notices += 1;
                    let share = self.table.keep_share(usize::from(link));
                    LossNotice {
                        seq: base + offset,
                        share: (share * f64::from(SHARE_SCALE)).round() as u16,
                        link,
                    }
                });
            }
            Emit::Corrected { cum } => {
                a.ack = base + cum;
                a.sack = SackList::default();
                a.loss = None;
            }
        }
        let mut buf = Vec::with_capacity(a.len());
        a.emit(&mut buf);
        self.send_to_sender(buf);
    }

    fn send_to_sender(&mut self, datagram: Vec<u8>) {
        let path = self.sender_path();
        self.outbox.push(path, datagram);
    }

    /// Member link `link` is gone with what it carried: each lost segment
    /// is reported on a copy of the last acknowledgment.
    fn link_lost(&mut self, link: usize) {
        self.table.deactivate(link);
        let lost = self.rpc.on_link_down(link as u16);
        for _ in &lost {
            self.table.on_gone(link);
        }
        let (Some(base), Some(h)) = (self.base, self.last_ack.clone()) else {
            return;
        };
        if self.config.rpc != RpcMode::Full {
            return;
        }
        for offset in lost {
            self.emit_ack(
                base,
                &h,
                Emit::Original {
                    notice: Some((offset, link as u16)),
                },
            );
        }
    }
}

impl Endpoint for Imux {
    fn handle_datagram(&mut self, now: Instant, path: PathId, datagram: &[u8]) {
        let Ok((h, payload)) = TcpHeader::parse(datagram) else {
            self.stats.malformed += 1;
            return;
        };
        if path == self.sender_path() {
            self.on_data(now, &h, payload.len(), datagram);
        } else {
            self.on_ack(now, h, datagram);
        }
    }

    fn handle_event(&mut self, _now: Instant, event: HostEvent) {
        match event {
            // Membership only: every link leaves the proxy's one interface,
            // so the proxy hears of a member's link through RPC's loss
            // detection, not through link signals.
            HostEvent::PathUp { path, .. } => self.table.activate(usize::from(path.0)),
            HostEvent::PathClose { path } => self.table.deactivate(usize::from(path.0)),
            HostEvent::PathDown { path } if usize::from(path.0) < self.table.len() => {
                self.link_lost(usize::from(path.0));
            }
            _ => {}
        }
    }

    super::network_element!();

    fn stats(&self) -> EndpointStats {
        EndpointStats {
            datagrams_sent: self.outbox.sent,
            resequencing_span: self.rpc.span,
            ..self.stats
        }
    }
}
