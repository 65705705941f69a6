//! Helpers shared by the TCP trace tests: decode what an endpoint sends,
//! build the datagrams its peer would, and drive a sender through a trace.
//!
//! Segments are named by their stream offset (mss 1000: segment `k` is
//! `[k·1000, (k+1)·1000)`).

#![allow(dead_code)]

use radial_core::seq::SeqNum;
use radial_core::tcp::{TcpConfig, TcpSender, TcpVariant};
use radial_core::wire::tcp::{Flags, SackBlock, SackList, TcpHeader};
use radial_core::{AppEvent, Duration, Endpoint, Instant, PathId};

pub const MSS: u64 = 1000;

pub fn ms(v: u64) -> Instant {
    Instant::from_nanos(v * 1_000_000)
}

/// A decoded datagram.
#[derive(Clone, Debug)]
pub struct Seg {
    pub header: TcpHeader,
    /// Stream offset of the payload (data starts one after the ISN).
    pub off: u64,
    pub payload: Vec<u8>,
    pub raw: Vec<u8>,
}

impl Seg {
    pub fn is_data(&self) -> bool {
        !self.payload.is_empty()
    }
}

pub fn decode(isn: SeqNum, raw: Vec<u8>) -> Seg {
    let (header, payload) = TcpHeader::parse(&raw).expect("endpoint emitted a valid datagram");
    let off = header.seq.0.wrapping_sub(isn.0).wrapping_sub(1) as u64;
    let payload = payload.to_vec();
    Seg {
        header,
        off,
        payload,
        raw,
    }
}

/// Drains `poll_transmit`.
pub fn drain(ep: &mut dyn Endpoint, isn: SeqNum, now: Instant) -> Vec<Seg> {
    let mut out = Vec::new();
    loop {
        let mut buf = Vec::new();
        match ep.poll_transmit(now, &mut buf) {
            Some(path) => {
                assert_eq!(path, PathId(0));
                out.push(decode(isn, buf));
            }
            None => return out,
        }
        assert!(out.len() < 10_000, "endpoint never stops sending");
    }
}

pub fn offsets(segs: &[Seg]) -> Vec<u64> {
    segs.iter().filter(|s| s.is_data()).map(|s| s.off).collect()
}

/// An acknowledgment as a receiver would send it: `ack` is the next stream
/// offset expected, `sack` blocks are stream offsets `[start, end)`.
pub fn ack_datagram(cfg: &TcpConfig, ack: u64, sack: &[(u64, u64)], extra: Flags) -> Vec<u8> {
    let mut list = SackList::default();
    for &(s, e) in sack {
        list.push(SackBlock {
            start: cfg.isn + 1u32 + s,
            end: cfg.isn + 1u32 + e,
        });
    }
    let header = TcpHeader {
        flags: Flags::ACK | extra,
        conn_id: cfg.conn_id,
        seq: cfg.isn,
        ack: cfg.isn + 1u32 + ack,
        window: cfg.rwnd_bytes() as u32,
        sack: list,
        ..TcpHeader::default()
    };
    let mut buf = Vec::new();
    header.emit(&mut buf);
    buf
}

/// A data segment as a sender would send it.
pub fn data_datagram(cfg: &TcpConfig, off: u64, len: usize, extra: Flags) -> Vec<u8> {
    let header = TcpHeader {
        flags: Flags::ACK | extra,
        conn_id: cfg.conn_id,
        seq: cfg.isn + 1u32 + off,
        ack: cfg.isn,
        window: 0,
        sack: SackList::default(),
        ..TcpHeader::default()
    };
    let mut buf = Vec::new();
    header.emit(&mut buf);
    buf.extend((0..len).map(|i| ((off + i as u64) % 251) as u8));
    buf
}

pub fn syn_datagram(cfg: &TcpConfig) -> Vec<u8> {
    let header = TcpHeader {
        flags: Flags::SYN,
        conn_id: cfg.conn_id,
        seq: cfg.isn,
        ack: cfg.isn,
        window: 0,
        sack: SackList::default(),
        ..TcpHeader::default()
    };
    let mut buf = Vec::new();
    header.emit(&mut buf);
    buf
}

/// A sender under test plus the clock of the trace.
pub struct Tx {
    pub cfg: TcpConfig,
    pub ep: TcpSender,
    pub now: Instant,
    /// Every data segment sent so far, in order.
    pub log: Vec<Seg>,
}

impl Tx {
    pub fn new(cfg: TcpConfig, data: usize) -> Self {
        let mut ep = TcpSender::new(cfg, PathId(0));
        let bytes: Vec<u8> = (0..data).map(|i| (i % 251) as u8).collect();
        assert_eq!(ep.write(&bytes), data);
        Tx {
            cfg,
            ep,
            now: Instant::ZERO,
            log: Vec::new(),
        }
    }

    pub fn poll(&mut self) -> Vec<Seg> {
        let segs = drain(&mut self.ep, self.cfg.isn, self.now);
        self.log
            .extend(segs.iter().filter(|s| s.is_data()).cloned());
        segs
    }

    pub fn at(&mut self, t: Instant) -> &mut Self {
        assert!(t >= self.now);
        self.now = t;
        self
    }

    /// Feeds an ACK (advancing the clock by 1 ms) and returns what was sent.
    pub fn ack_with(&mut self, ack: u64, sack: &[(u64, u64)], extra: Flags) -> Vec<Seg> {
        self.now += Duration::from_millis(1);
        let d = ack_datagram(&self.cfg, ack, sack, extra);
        self.ep.handle_datagram(self.now, PathId(0), &d);
        self.poll()
    }

    pub fn ack(&mut self, ack: u64, sack: &[(u64, u64)]) -> Vec<Seg> {
        self.ack_with(ack, sack, Flags::default())
    }

    pub fn cwnd(&self) -> u64 {
        self.ep.stats().cwnd
    }

    /// Data segments of `offset` sent so far.
    pub fn times_sent(&self, offset: u64) -> usize {
        self.log.iter().filter(|s| s.off == offset).count()
    }
}

/// A sender that completed the handshake (SYN at 0 ms, SYN|ACK at 100 ms)
/// and sent its initial window.
pub fn established(variant: TcpVariant, data: usize) -> (Tx, Vec<Seg>) {
    established_with(TcpConfig::ns2(variant), data)
}

pub fn established_with(cfg: TcpConfig, data: usize) -> (Tx, Vec<Seg>) {
    let mut tx = Tx::new(cfg, data);
    let syn = tx.poll();
    assert_eq!(syn.len(), 1, "only the SYN before the handshake: {syn:?}");
    assert!(syn[0].header.flags.contains(Flags::SYN));
    assert_eq!(syn[0].header.seq, cfg.isn);
    assert!(syn[0].payload.is_empty());
    tx.at(ms(100));
    let synack = ack_datagram(&cfg, 0, &[], Flags::SYN);
    // The SYN|ACK acknowledges the SYN: ack = isn + 1, i.e. offset 0.
    let (h, _) = TcpHeader::parse(&synack).unwrap();
    assert_eq!(h.ack, cfg.isn + 1u32);
    tx.ep.handle_datagram(tx.now, PathId(0), &synack);
    assert_eq!(tx.ep.poll_app_event(), Some(AppEvent::Established));
    let first = tx.poll();
    (tx, first)
}

/// Acknowledges segments one at a time in slow start, without loss, until
/// segment `k` is the cumulative ack: cwnd is then `2 + k` segments and
/// `[k, 2 + 2k)` is outstanding.
pub fn slow_start_to(tx: &mut Tx, k: u64) {
    for j in 1..=k {
        let sent = tx.ack(j * MSS, &[]);
        assert_eq!(
            offsets(&sent),
            vec![2 * j * MSS, (2 * j + 1) * MSS],
            "ack {j}"
        );
    }
    assert_eq!(tx.cwnd(), (2 + k) * MSS);
}
