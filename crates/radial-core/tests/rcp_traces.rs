//! Trace-like tests of RCP: an `RcpSender` or `RcpReceiver` is driven directly
//! through the `Endpoint` trait, its datagrams are decoded with
//! `RcpHeader::parse`, and the peer's packets are built by hand (or come from
//! the real peer endpoint, shuttled by the test).
//!
//! Segments are named by their stream offset (mss 1000: segment `k` is
//! `[k·1000, (k+1)·1000)`); wire sequence numbers are `isn + 1 + offset`.

use std::collections::VecDeque;

use radial_core::rcp::{Opener, RcpConfig, RcpReceiver, RcpSender, RcpVariant, RequestBoard};
use radial_core::seq::SeqNum;
use radial_core::wire::rcp::{PullBlock, RcpFlags, RcpHeader};
use radial_core::{AppEvent, Duration, Endpoint, HostEvent, Instant, PathId};

const MSS: u64 = 1000;
const ISN: SeqNum = SeqNum(1_000_000);

fn ms(v: u64) -> Instant {
    Instant::from_nanos(v * 1_000_000)
}

/// The application's byte at stream offset `i` (not periodic in any small
/// length, so a shifted or reordered copy is detected).
fn byte_at(i: u64) -> u8 {
    (i.wrapping_mul(2_654_435_761) >> 11) as u8 ^ (i >> 8) as u8
}

fn pattern(off: u64, len: usize) -> Vec<u8> {
    (0..len as u64).map(|i| byte_at(off + i)).collect()
}

fn wire(isn: SeqNum, off: u64) -> SeqNum {
    isn + 1u32 + off
}

fn offset(isn: SeqNum, s: SeqNum) -> u64 {
    u64::from(s.0.wrapping_sub(isn.0).wrapping_sub(1))
}

fn config(variant: RcpVariant) -> RcpConfig {
    let mut cfg = RcpConfig::ns2(variant);
    cfg.isn = ISN;
    cfg.conn_id = 0x5eed;
    cfg
}

/// A decoded datagram.
#[derive(Clone, Debug)]
struct Pkt {
    h: RcpHeader,
    payload: Vec<u8>,
    raw: Vec<u8>,
}

impl Pkt {
    fn is_req(&self) -> bool {
        self.h.flags.contains(RcpFlags::REQ)
    }
    fn is_pull(&self) -> bool {
        self.is_req() && self.h.flags.contains(RcpFlags::PUL)
    }
    fn is_data(&self) -> bool {
        !self.is_req() && !self.payload.is_empty()
    }
    /// Stream offset of `seq` (REQ: the request edge; DATA: first byte).
    fn seq_off(&self, isn: SeqNum) -> u64 {
        offset(isn, self.h.seq)
    }
    fn deq_off(&self, isn: SeqNum) -> u64 {
        offset(isn, self.h.deq)
    }
    /// Pull blocks as `(start, end, id)` stream offsets, newest first.
    fn blocks(&self, isn: SeqNum) -> Vec<(u64, u64, u32)> {
        self.h
            .blocks()
            .iter()
            .map(|b| (offset(isn, b.start), offset(isn, b.end), b.id))
            .collect()
    }
}

fn decode(raw: Vec<u8>) -> Pkt {
    let (h, payload) = RcpHeader::parse(&raw).expect("endpoint emitted a valid datagram");
    let payload = payload.to_vec();
    Pkt { h, payload, raw }
}

/// Drains `poll_transmit`.
fn drain(ep: &mut dyn Endpoint, now: Instant) -> Vec<Pkt> {
    let mut out = Vec::new();
    loop {
        let mut buf = Vec::new();
        match ep.poll_transmit(now, &mut buf) {
            Some(path) => {
                assert_eq!(path, PathId(0));
                out.push(decode(buf));
            }
            None => return out,
        }
        assert!(out.len() < 10_000, "endpoint never stops sending");
    }
}

fn events(ep: &mut dyn Endpoint) -> Vec<AppEvent> {
    std::iter::from_fn(|| ep.poll_app_event()).collect()
}

fn read_all(ep: &mut dyn Endpoint) -> Vec<u8> {
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let n = ep.read(&mut buf);
        if n == 0 {
            return got;
        }
        got.extend_from_slice(&buf[..n]);
    }
}

/// Data offsets of the DATA packets in `pkts`.
fn data_offsets(isn: SeqNum, pkts: &[Pkt]) -> Vec<u64> {
    pkts.iter()
        .filter(|p| p.is_data())
        .map(|p| p.seq_off(isn))
        .collect()
}

/// A packet as the sender builds it: DATA (or a payload-less update).
fn data_datagram(
    cfg: &RcpConfig,
    off: u64,
    len: u64,
    avail: u64,
    id: u32,
    flags: RcpFlags,
) -> Vec<u8> {
    let mut buf = Vec::new();
    RcpHeader::new(
        flags,
        cfg.conn_id,
        wire(cfg.isn, off),
        wire(cfg.isn, avail),
        id,
    )
    .emit(&mut buf);
    buf.extend(pattern(off, len as usize));
    buf
}

/// A packet as the receiver builds it: a REQ with pull blocks `(start, end,
/// id)` given newest first.
fn req_datagram(
    cfg: &RcpConfig,
    edge: u64,
    deq: u64,
    id: u32,
    flags: RcpFlags,
    blocks: &[(u64, u64, u32)],
) -> Vec<u8> {
    let mut h = RcpHeader::new(
        RcpFlags::REQ | flags,
        cfg.conn_id,
        wire(cfg.isn, edge),
        wire(cfg.isn, deq),
        id,
    );
    for &(s, e, i) in blocks {
        h.push_block(PullBlock {
            start: wire(cfg.isn, s),
            end: wire(cfg.isn, e),
            id: i,
        });
    }
    let mut buf = Vec::new();
    h.emit(&mut buf);
    buf
}

fn control_datagram(cfg: &RcpConfig, flags: RcpFlags, deq: u64) -> Vec<u8> {
    let mut buf = Vec::new();
    RcpHeader::new(flags, cfg.conn_id, cfg.isn, wire(cfg.isn, deq), 0).emit(&mut buf);
    buf
}

// ---------------------------------------------------------------------------
// The receiver under test, fed by a hand-written sender.
// ---------------------------------------------------------------------------

struct Rx {
    cfg: RcpConfig,
    ep: RcpReceiver,
    now: Instant,
    /// Bytes the (imaginary) sender has; advertised in every DATA.
    avail: u64,
    /// Every request, in the order issued: `(start, end, pull id)` (pull id 0
    /// for cumulative requests), reconstructed from the REQs.
    order: Vec<(u64, u64, u32)>,
    edge: u64,
    /// Every REQ emitted.
    reqs: Vec<Pkt>,
}

impl Rx {
    /// A receiver (the opener) that completed the handshake with a sender
    /// holding `avail` bytes, and sent its first REQ.
    fn established(cfg: RcpConfig, avail: u64) -> (Rx, Pkt) {
        let mut rx = Rx {
            ep: RcpReceiver::new(cfg, PathId(0)),
            cfg,
            now: Instant::ZERO,
            avail,
            order: Vec::new(),
            edge: 0,
            reqs: Vec::new(),
        };
        let syn = rx.poll();
        assert_eq!(syn.len(), 1, "only the SYN before the handshake: {syn:?}");
        assert_eq!(syn[0].h.flags, RcpFlags::SYN);
        rx.now = ms(100);
        let synack = control_datagram(&cfg, RcpFlags::SYN | RcpFlags::ACK, avail);
        rx.ep.handle_datagram(rx.now, PathId(0), &synack);
        assert_eq!(events(&mut rx.ep), vec![AppEvent::Established]);
        let out = rx.poll();
        assert_eq!(out.len(), 2, "ACK and the first REQ: {out:?}");
        assert_eq!(out[0].h.flags, RcpFlags::ACK);
        assert!(out[1].is_req());
        (rx, out[1].clone())
    }

    /// Drains the receiver, recording its requests.
    fn poll(&mut self) -> Vec<Pkt> {
        let out = drain(&mut self.ep, self.now);
        for p in out.iter().filter(|p| p.is_req()) {
            let e = p.seq_off(self.cfg.isn);
            while self.edge < e {
                let end = (self.edge + MSS).min(e);
                self.order.push((self.edge, end, 0));
                self.edge = end;
            }
            if p.is_pull() {
                let b = p.blocks(self.cfg.isn);
                assert!(!b.is_empty(), "a PUL REQ carries its pull: {p:?}");
                self.order.push(b[0]);
            }
            self.reqs.push(p.clone());
        }
        out
    }

    /// Feeds DATA `[off, off + len)` answering pull `id` (0: cumulative), one
    /// millisecond after the previous input, and returns what the receiver sent.
    fn deliver_with(&mut self, off: u64, len: u64, id: u32) -> Vec<Pkt> {
        self.now += Duration::from_millis(1);
        let d = data_datagram(&self.cfg, off, len, self.avail, id, RcpFlags::default());
        self.ep.handle_datagram(self.now, PathId(0), &d);
        self.poll()
    }

    /// Feeds segment `k` (cumulative data).
    fn seg(&mut self, k: u64) -> Vec<Pkt> {
        self.deliver_with(k * MSS, MSS, 0)
    }

    fn cwnd(&self) -> u64 {
        self.ep.stats().cwnd
    }

    fn ssthresh(&self) -> u64 {
        self.ep.controller().window().ssthresh
    }

    /// Pull requests `(start, id)` in `pkts`.
    fn pulls(&self, pkts: &[Pkt]) -> Vec<(u64, u32)> {
        pkts.iter()
            .filter(|p| p.is_pull())
            .map(|p| {
                let b = p.blocks(self.cfg.isn)[0];
                (b.0, b.2)
            })
            .collect()
    }
}

/// Exactly one packet, a REQ.
fn one_req(pkts: &[Pkt]) -> &Pkt {
    assert_eq!(pkts.len(), 1, "one REQ expected: {pkts:?}");
    assert!(pkts[0].is_req(), "{pkts:?}");
    &pkts[0]
}

/// Delivers segments 0..k in order from a fresh connection (slow start).
fn slow_start_to(rx: &mut Rx, k: u64) {
    for j in 0..k {
        let out = rx.seg(j);
        let r = one_req(&out);
        assert_eq!(r.seq_off(ISN), (2 + 2 * (j + 1)) * MSS, "after segment {j}");
    }
}

// ---------------------------------------------------------------------------
// The sender under test, fed by a hand-written receiver.
// ---------------------------------------------------------------------------

struct Tx {
    cfg: RcpConfig,
    ep: RcpSender,
    now: Instant,
}

impl Tx {
    /// A passive sender holding `data` bytes that completed the handshake.
    fn established(cfg: RcpConfig, data: usize) -> Tx {
        let mut ep = RcpSender::new(cfg, PathId(0));
        assert_eq!(ep.write(&pattern(0, data)), data);
        let mut tx = Tx {
            cfg,
            ep,
            now: Instant::ZERO,
        };
        assert!(tx.poll().is_empty(), "a listening sender sends nothing");
        tx.feed(&control_datagram(&cfg, RcpFlags::SYN, 0));
        let synack = tx.poll();
        assert_eq!(synack.len(), 1);
        assert_eq!(synack[0].h.flags, RcpFlags::SYN | RcpFlags::ACK);
        assert_eq!(synack[0].h.seq, cfg.isn);
        tx.feed(&control_datagram(&cfg, RcpFlags::ACK, 0));
        assert_eq!(events(&mut tx.ep), vec![AppEvent::Established]);
        assert!(tx.poll().is_empty());
        tx
    }

    fn feed(&mut self, d: &[u8]) {
        self.now += Duration::from_millis(1);
        self.ep.handle_datagram(self.now, PathId(0), d);
    }

    fn poll(&mut self) -> Vec<Pkt> {
        drain(&mut self.ep, self.now)
    }

    /// Feeds a REQ and returns the answer.
    fn req(
        &mut self,
        edge: u64,
        deq: u64,
        id: u32,
        flags: RcpFlags,
        blocks: &[(u64, u64, u32)],
    ) -> Vec<Pkt> {
        let d = req_datagram(&self.cfg, edge, deq, id, flags, blocks);
        self.feed(&d);
        self.poll()
    }
}

/// Checks a DATA packet from a sender: header fields and payload.
fn check_data(p: &Pkt, isn: SeqNum, off: u64, len: u64, avail: u64, id: u32) {
    assert!(p.is_data(), "{p:?}");
    assert_eq!(p.seq_off(isn), off);
    assert_eq!(p.payload.len() as u64, len, "segment at {off}");
    assert_eq!(
        p.payload,
        pattern(off, len as usize),
        "payload of segment at {off}"
    );
    assert_eq!(p.deq_off(isn), avail, "bytes available, segment at {off}");
    assert_eq!(p.h.id, id, "pull id, segment at {off}");
    assert!(p.h.blocks().is_empty());
}

/// Delivers every packet of `pkts` to `to` at `now`.
fn deliver(to: &mut dyn Endpoint, now: Instant, pkts: &[Pkt]) {
    for p in pkts {
        to.handle_datagram(now, PathId(0), &p.raw);
    }
}

// ---------------------------------------------------------------------------
// Connection management.
// ---------------------------------------------------------------------------

#[test]
fn handshake_receiver_opens_then_two_segments_are_requested_and_sent() {
    let tx_cfg = config(RcpVariant::Rcp);
    // The receiver's own ISN differs: data is numbered from the sender's.
    let mut rx_cfg = tx_cfg;
    rx_cfg.isn = SeqNum(77);
    let mut rx = RcpReceiver::new(rx_cfg, PathId(0));
    let mut tx = RcpSender::new(tx_cfg, PathId(0));
    let data = pattern(0, 50_000);
    assert_eq!(tx.write(&data), data.len());

    assert!(drain(&mut tx, ms(0)).is_empty(), "the sender listens");
    let syn = drain(&mut rx, ms(0));
    assert_eq!(syn.len(), 1);
    assert_eq!(syn[0].h.flags, RcpFlags::SYN);
    assert_eq!(syn[0].h.conn_id, tx_cfg.conn_id);
    assert!(drain(&mut rx, ms(0)).is_empty(), "one SYN");
    assert_eq!(events(&mut rx), vec![]);

    deliver(&mut tx, ms(50), &syn);
    let synack = drain(&mut tx, ms(50));
    assert_eq!(synack.len(), 1);
    assert_eq!(synack[0].h.flags, RcpFlags::SYN | RcpFlags::ACK);
    assert_eq!(synack[0].h.seq, ISN);
    assert_eq!(events(&mut tx), vec![], "not open before the ACK");

    deliver(&mut rx, ms(100), &synack);
    assert_eq!(events(&mut rx), vec![AppEvent::Established]);
    let out = drain(&mut rx, ms(100));
    assert_eq!(out.len(), 2, "ACK then the first REQ: {out:?}");
    assert_eq!(out[0].h.flags, RcpFlags::ACK);
    let req = &out[1];
    assert_eq!(req.h.flags, RcpFlags::REQ, "cumulative, no pull");
    assert_eq!(req.seq_off(ISN), 2 * MSS, "the initial window: 2 segments");
    assert_eq!(req.deq_off(ISN), 0);
    assert_eq!(req.h.id, 0);
    assert!(req.h.blocks().is_empty());
    assert_eq!(rx.requested(), 2 * MSS);
    assert_eq!(rx.in_flight(), 2 * MSS);
    assert_eq!(rx.stats().cwnd, 2 * MSS);

    deliver(&mut tx, ms(150), &out[..1]);
    assert_eq!(events(&mut tx), vec![AppEvent::Established]);
    assert!(drain(&mut tx, ms(150)).is_empty(), "no data before a REQ");
    deliver(&mut tx, ms(150), &out[1..]);
    let d = drain(&mut tx, ms(150));
    assert_eq!(d.len(), 2, "{d:?}");
    check_data(&d[0], ISN, 0, MSS, 50_000, 0);
    check_data(&d[1], ISN, MSS, MSS, 50_000, 0);
    assert!(d.iter().all(|p| p.h.flags == RcpFlags::default()));
    assert_eq!(tx.snd_nxt(), 2 * MSS);
    assert_eq!(tx.stats().retransmits, 0);

    // The receiver takes both and asks for more.
    deliver(&mut rx, ms(200), &d);
    assert_eq!(read_all(&mut rx), data[..2000]);
}

#[test]
fn handshake_sender_opens_then_two_segments_are_requested_and_sent() {
    let mut cfg = config(RcpVariant::Rcp);
    cfg.opener = Opener::Sender;
    let mut rx = RcpReceiver::new(cfg, PathId(0));
    let mut tx = RcpSender::new(cfg, PathId(0));
    let data = pattern(0, 50_000);
    assert_eq!(tx.write(&data), data.len());

    assert!(drain(&mut rx, ms(0)).is_empty(), "the receiver listens");
    let syn = drain(&mut tx, ms(0));
    assert_eq!(syn.len(), 1);
    assert_eq!(syn[0].h.flags, RcpFlags::SYN);
    assert_eq!(syn[0].h.seq, ISN);

    deliver(&mut rx, ms(50), &syn);
    let synack = drain(&mut rx, ms(50));
    assert_eq!(synack.len(), 1, "{synack:?}");
    assert_eq!(synack[0].h.flags, RcpFlags::SYN | RcpFlags::ACK);
    assert_eq!(events(&mut rx), vec![], "not open before the ACK");

    deliver(&mut tx, ms(100), &synack);
    assert_eq!(events(&mut tx), vec![AppEvent::Established]);
    let ack = drain(&mut tx, ms(100));
    assert_eq!(ack.len(), 1);
    assert_eq!(ack[0].h.flags, RcpFlags::ACK);

    deliver(&mut rx, ms(150), &ack);
    assert_eq!(events(&mut rx), vec![AppEvent::Established]);
    let out = drain(&mut rx, ms(150));
    let req = one_req(&out);
    assert_eq!(req.h.flags, RcpFlags::REQ);
    assert_eq!(req.seq_off(ISN), 2 * MSS);
    assert_eq!(req.deq_off(ISN), 0);
    assert!(req.h.blocks().is_empty());

    deliver(&mut tx, ms(200), &out);
    let d = drain(&mut tx, ms(200));
    assert_eq!(d.len(), 2, "{d:?}");
    check_data(&d[0], ISN, 0, MSS, 50_000, 0);
    check_data(&d[1], ISN, MSS, MSS, 50_000, 0);
    assert_eq!(tx.poll_timeout(), None, "handshake timer stopped");
}

// ---------------------------------------------------------------------------
// Congestion control and loss detection at the receiver.
// ---------------------------------------------------------------------------

#[test]
fn slow_start_each_arrival_requests_two_more_segments() {
    let (mut rx, first) = Rx::established(config(RcpVariant::Rcp), 100_000);
    assert_eq!(first.seq_off(ISN), 2 * MSS);
    for k in 0..10 {
        let out = rx.seg(k);
        let r = one_req(&out);
        assert_eq!(r.h.flags, RcpFlags::REQ, "no pull in slow start");
        assert!(r.h.blocks().is_empty());
        assert_eq!(
            r.seq_off(ISN),
            (2 + 2 * (k + 1)) * MSS,
            "edge after segment {k}"
        );
        assert_eq!(r.deq_off(ISN), (k + 1) * MSS, "next in-order byte");
        assert_eq!(rx.cwnd(), (3 + k) * MSS);
        assert_eq!(rx.ep.in_flight(), (3 + k) * MSS);
        assert_eq!(rx.ep.requested(), (2 + 2 * (k + 1)) * MSS);
    }
    assert_eq!(read_all(&mut rx.ep), pattern(0, 10_000));
    assert_eq!(rx.ep.stats().fast_recoveries, 0);
}

#[test]
fn sequence_numbers_wrap_around() {
    let mut cfg = config(RcpVariant::Rcp);
    cfg.isn = SeqNum(u32::MAX - 2500);
    let (mut rx, first) = Rx::established(cfg, 100_000);
    assert_eq!(first.h.seq, SeqNum(u32::MAX - 2500) + 1u32 + 2000u32);
    for k in 0..4 {
        let out = rx.seg(k);
        let r = one_req(&out);
        assert_eq!(offset(cfg.isn, r.h.seq), (2 + 2 * (k + 1)) * MSS);
    }
    assert!(rx.reqs.last().unwrap().h.seq.0 < 10_000, "wrapped");
    assert_eq!(read_all(&mut rx.ep), pattern(0, 4000));
}

/// Segment 0 is lost; 1, 2 and 3 (requested after it) arrive. The third
/// later arrival shows the hole lost: the window halves and, like TCP's fast
/// retransmit (ns-2 `Sack1TcpAgent::dupack_action` sends `last_ack_ + 1` at
/// once), the hole is pulled right away.
#[test]
fn hole_is_pulled_on_the_third_later_arrival_and_the_window_halves() {
    let (mut rx, _) = Rx::established(config(RcpVariant::Rcp), 100_000);
    // Segments 0 and 1 in order: cwnd 4, segments 2..6 requested.
    slow_start_to(&mut rx, 2);
    assert_eq!(rx.cwnd(), 4 * MSS);
    // Segment 2 is lost. Out-of-order arrivals do not grow the window (as
    // duplicate ACKs do not in TCP); each frees one request.
    assert_eq!(one_req(&rx.seg(3)).seq_off(ISN), 7 * MSS);
    assert_eq!(one_req(&rx.seg(4)).seq_off(ISN), 8 * MSS);
    assert_eq!(rx.cwnd(), 4 * MSS);
    assert!(
        rx.pulls(&rx.reqs.clone()).is_empty(),
        "two later arrivals are not enough"
    );
    assert_eq!(rx.ep.stats().fast_recoveries, 0);
    let out = rx.seg(5);
    // Detection: one reduction, cwnd = (window at detection) / 2.
    assert_eq!(rx.ep.stats().fast_recoveries, 1);
    assert_eq!(rx.cwnd(), 2 * MSS);
    assert_eq!(rx.ssthresh(), 2 * MSS);
    // The hole is pulled at once although 6 and 7 already fill the halved
    // window (TCP's fast retransmit: ns-2 `Sack1TcpAgent::dupack_action`
    // sends `last_ack_ + 1` at once).
    let pulls = rx.pulls(&out);
    assert_eq!(pulls, vec![(2 * MSS, 1)], "{out:?}");
    assert_eq!(rx.ep.in_flight(), 3 * MSS);
    let p = out.iter().find(|p| p.is_pull()).unwrap();
    assert_eq!(p.h.flags, RcpFlags::REQ | RcpFlags::PUL);
    assert_eq!(p.blocks(ISN), vec![(2 * MSS, 3 * MSS, 1)]);
    assert_eq!(p.h.id, 1);
    assert_eq!(p.deq_off(ISN), 2 * MSS);
}

/// The same detection where nothing else is outstanding (the sender has only
/// 4 segments), so the pull fits the halved window under any rule.
#[test]
fn hole_detection_pulls_the_lost_segment_with_a_numbered_block() {
    let (mut rx, _) = Rx::established(config(RcpVariant::Rcp), 4000);
    // Out-of-order arrivals each free one request; the window stays at 2.
    assert_eq!(one_req(&rx.seg(1)).seq_off(ISN), 3 * MSS);
    assert_eq!(
        one_req(&rx.seg(2)).seq_off(ISN),
        4 * MSS,
        "all 4 segments requested"
    );
    let before = rx.cwnd();
    let out = rx.seg(3);
    let after = rx.cwnd();
    assert!(
        2 * after == before || 2 * after == before + MSS,
        "{before} -> {after}"
    );
    assert_eq!(rx.ep.stats().fast_recoveries, 1);
    let p = one_req(&out);
    assert_eq!(p.h.flags, RcpFlags::REQ | RcpFlags::PUL);
    assert_eq!(
        p.blocks(ISN),
        vec![(0, MSS, 1)],
        "newest block: the hole, pull id 1"
    );
    assert_eq!(p.h.id, 1);
    assert_eq!(p.seq_off(ISN), 4 * MSS, "the cumulative edge is unchanged");
    assert_eq!(p.deq_off(ISN), 0);
    assert_eq!(rx.ep.in_flight(), MSS);

    // A real sender serves it with the pull id.
    let mut tx = Tx::established(config(RcpVariant::Rcp), 4000);
    let d = tx.req(4 * MSS, 0, 0, RcpFlags::default(), &[]);
    assert_eq!(data_offsets(ISN, &d), vec![0, MSS, 2 * MSS, 3 * MSS]);
    tx.feed(&p.raw);
    let d = tx.poll();
    assert_eq!(d.len(), 1, "{d:?}");
    check_data(&d[0], ISN, 0, MSS, 4000, 1);
    assert_eq!(tx.ep.stats().retransmits, 1);

    // The retransmission fills the hole; everything reads in order.
    rx.now += Duration::from_millis(1);
    rx.ep.handle_datagram(rx.now, PathId(0), &d[0].raw);
    assert!(rx.poll().iter().all(|p| !p.is_pull()));
    assert_eq!(rx.ep.in_flight(), 0);
    assert_eq!(read_all(&mut rx.ep), pattern(0, 4000));
}

/// Segments 4 and 6 are lost out of `[4, 10)`; each is deemed lost after
/// exactly three segments requested after it arrived, only the first costs a
/// window reduction, and both are pulled (oldest first, numbered).
#[test]
fn every_hole_uses_the_same_threshold() {
    let (mut rx, _) = Rx::established(config(RcpVariant::Rcp), 200_000);
    slow_start_to(&mut rx, 4);
    assert_eq!(rx.cwnd(), 6 * MSS);
    assert_eq!(rx.ep.requested(), 10 * MSS);
    let holes = [4 * MSS, 6 * MSS];
    let mut arrived = 4 * MSS;
    // Expected in flight before any pull: requested − arrived − deemed lost.
    fn check(rx: &Rx, arrived: u64, lost: u64, what: &str) {
        assert_eq!(
            rx.ep.in_flight(),
            rx.ep.requested() - arrived - lost,
            "{what}"
        );
    }
    rx.seg(5);
    arrived += MSS;
    check(&rx, arrived, 0, "after 5: 4 has one later arrival");
    rx.seg(7);
    arrived += MSS;
    check(&rx, arrived, 0, "after 7: 4 has two, 6 has one");
    let before = rx.cwnd();
    rx.seg(8);
    arrived += MSS;
    // 4 is lost and, as TCP's fast retransmit, pulled at once: back in flight.
    check(
        &rx,
        arrived,
        0,
        "after 8: 4 is lost and pulled, 6 is not yet lost",
    );
    assert_eq!(rx.pulls(&rx.reqs.clone()), vec![(4 * MSS, 1)]);
    let cut = rx.cwnd();
    assert!(
        2 * cut == before || 2 * cut == before + MSS,
        "{before} -> {cut}"
    );
    assert_eq!(rx.ep.stats().fast_recoveries, 1);
    rx.seg(9);
    arrived += MSS;
    // 6 is lost too; the halved window is full (4's pull, 10 and 11 are in
    // flight), so its pull waits.
    check(&rx, arrived, MSS, "after 9: 6 is lost too");
    assert_eq!(rx.cwnd(), cut, "one reduction per recovery episode");
    assert_eq!(rx.ep.stats().fast_recoveries, 1);
    assert_eq!(rx.pulls(&rx.reqs.clone()), vec![(4 * MSS, 1)]);

    // Keep delivering what is requested, in request order (never the first
    // copy of a hole), until 6 is pulled.
    let mut i = rx
        .order
        .iter()
        .position(|&o| o == (10 * MSS, 11 * MSS, 0))
        .unwrap();
    let mut pulled = Vec::new();
    while pulled.is_empty() {
        assert!(
            i < rx.order.len() && i < 60,
            "nothing left to deliver; pulled {pulled:?}"
        );
        let (s, e, id) = rx.order[i];
        i += 1;
        if id == 0 && holes.contains(&s) {
            continue;
        }
        let out = rx.deliver_with(s, e - s, id);
        pulled.extend(rx.pulls(&out));
    }
    assert_eq!(pulled, vec![(6 * MSS, 2)]);
    let last_pull = rx.reqs.iter().rev().find(|p| p.is_pull()).unwrap();
    assert_eq!(
        last_pull.blocks(ISN),
        vec![(6 * MSS, 7 * MSS, 2), (4 * MSS, 5 * MSS, 1)],
        "the most recent pulls, newest first"
    );
    assert_eq!(rx.ep.stats().fast_recoveries, 1);
    assert_eq!(rx.ep.stats().timeouts, 0);
}

/// A pulled segment whose retransmission is lost is pulled again, with a new
/// id, once three segments requested after the pull arrived; segments
/// requested before the pull do not count. No timeout is involved.
#[test]
fn a_lost_retransmission_is_detected_without_a_timeout() {
    let (mut rx, _) = Rx::established(config(RcpVariant::Rcp), 200_000);
    slow_start_to(&mut rx, 4);
    let hole = 4 * MSS;
    // Delivers the oldest undelivered request (among the first `upto`),
    // skipping every copy of the hole; returns its start and the pulls seen.
    fn deliver_next(
        rx: &mut Rx,
        delivered: &mut Vec<bool>,
        upto: Option<usize>,
    ) -> Option<(u64, Vec<(u64, u32)>)> {
        const HOLE: u64 = 4 * MSS;
        delivered.resize(rx.order.len(), false);
        let limit = upto.unwrap_or(rx.order.len());
        let i = (0..limit)
            .find(|&i| !delivered[i] && rx.order[i].0 != HOLE && rx.order[i].0 >= 4 * MSS)?;
        delivered[i] = true;
        let (s, e, id) = rx.order[i];
        let out = rx.deliver_with(s, e - s, id);
        Some((s, rx.pulls(&out)))
    }
    let mut delivered = Vec::new();
    // Hole at 4: deliver until it is pulled.
    let mut first_pull = None;
    for _ in 0..20 {
        let (_, pulls) = deliver_next(&mut rx, &mut delivered, None).expect("more to deliver");
        if let Some(&p) = pulls.first() {
            first_pull = Some(p);
            break;
        }
    }
    assert_eq!(first_pull, Some((hole, 1)), "the hole is pulled once, id 1");
    let pull_at = rx
        .order
        .iter()
        .position(|&(s, _, id)| s == hole && id == 1)
        .unwrap();
    // Everything requested before the pull arrives: the pulled copy is
    // requested after those, so they do not count against it.
    while let Some((_, pulls)) = deliver_next(&mut rx, &mut delivered, Some(pull_at)) {
        assert!(
            pulls.is_empty(),
            "no second pull from earlier requests: {pulls:?}"
        );
    }
    assert_eq!(rx.ep.stats().fast_recoveries, 1);
    // The retransmission is lost; segments requested after the pull arrive.
    let mut later = 0;
    let mut repull = None;
    for _ in 0..20 {
        let (s, pulls) = deliver_next(&mut rx, &mut delivered, None).expect("more to deliver");
        assert!(s != hole);
        later += 1;
        if let Some(&p) = pulls.first() {
            repull = Some(p);
            break;
        }
    }
    assert_eq!(repull, Some((hole, 2)), "pulled again with a new id");
    assert_eq!(later, 3, "after exactly three later-requested arrivals");
    let p = rx.reqs.iter().rev().find(|p| p.is_pull()).unwrap();
    assert_eq!(
        p.blocks(ISN)[..2],
        [(hole, hole + MSS, 2), (hole, hole + MSS, 1)]
    );
    assert_eq!(p.h.id, 2);
    assert_eq!(rx.ep.stats().timeouts, 0);
    // The second pull arrives: the stream is whole up to it.
    rx.deliver_with(hole, MSS, 2);
    let got = read_all(&mut rx.ep);
    assert!(got.len() as u64 > hole + MSS);
    assert_eq!(got, pattern(0, got.len()));
}

// ---------------------------------------------------------------------------
// The sender: consistency check, purging.
// ---------------------------------------------------------------------------

#[test]
fn sender_recovers_a_lost_pull_from_the_blocks_of_a_later_req() {
    let mut tx = Tx::established(config(RcpVariant::Rcp), 100_000);
    let d = tx.req(4 * MSS, 0, 0, RcpFlags::default(), &[]);
    assert_eq!(data_offsets(ISN, &d), vec![0, MSS, 2 * MSS, 3 * MSS]);
    assert!(d.iter().all(|p| p.h.id == 0 && p.deq_off(ISN) == 100_000));
    // Pull 4 (segment 0) is served.
    let d = tx.req(4 * MSS, 0, 4, RcpFlags::PUL, &[(0, MSS, 4)]);
    assert_eq!(d.len(), 1);
    check_data(&d[0], ISN, 0, MSS, 100_000, 4);
    // The PUL REQ of pull 5 (segment 1) was lost; the next REQ lists 5 and
    // 4: only 5 is served.
    let d = tx.req(
        5 * MSS,
        0,
        5,
        RcpFlags::default(),
        &[(MSS, 2 * MSS, 5), (0, MSS, 4)],
    );
    assert_eq!(d.len(), 2, "pull 5 and the new cumulative segment 4: {d:?}");
    check_data(&d[0], ISN, MSS, MSS, 100_000, 5);
    check_data(&d[1], ISN, 4 * MSS, MSS, 100_000, 0);
    // A REQ listing only served pulls resends nothing.
    assert!(tx
        .req(
            5 * MSS,
            0,
            5,
            RcpFlags::default(),
            &[(MSS, 2 * MSS, 5), (0, MSS, 4)]
        )
        .is_empty());
    assert!(tx
        .req(5 * MSS, 0, 5, RcpFlags::PUL, &[(MSS, 2 * MSS, 5)])
        .is_empty());
    // Pulls 6 and 7 both lost: a REQ listing 8, 7, 6 serves all three,
    // oldest first.
    let d = tx.req(
        5 * MSS,
        0,
        8,
        RcpFlags::PUL,
        &[(3 * MSS, 4 * MSS, 8), (2 * MSS, 3 * MSS, 7), (500, 1500, 6)],
    );
    assert_eq!(d.len(), 3, "{d:?}");
    check_data(&d[0], ISN, 500, MSS, 100_000, 6);
    check_data(&d[1], ISN, 2 * MSS, MSS, 100_000, 7);
    check_data(&d[2], ISN, 3 * MSS, MSS, 100_000, 8);
    assert_eq!(tx.ep.stats().retransmits, 5);
    assert!(tx
        .req(
            5 * MSS,
            0,
            8,
            RcpFlags::default(),
            &[(3 * MSS, 4 * MSS, 8), (2 * MSS, 3 * MSS, 7), (500, 1500, 6)]
        )
        .is_empty());
}

#[test]
fn a_pull_ahead_of_the_application_waits_for_its_data_whole() {
    // The sender holds 2000 bytes. A pull for segment 2 (not written yet) is
    // served once the application writes it, in one piece; a pull past the
    // end of a closed stream gets what there is.
    let mut tx = Tx::established(config(RcpVariant::Rcp), 2 * MSS as usize);
    let d = tx.req(0, 0, 1, RcpFlags::PUL, &[(2 * MSS, 3 * MSS, 1)]);
    assert!(d.is_empty(), "nothing to send yet: {d:?}");
    // Half of it: still nothing (a segment is never cut in two).
    assert_eq!(tx.ep.write(&pattern(2 * MSS, 500)), 500);
    assert!(tx.poll().is_empty());
    assert_eq!(tx.ep.write(&pattern(2500, 1000)), 1000);
    let d = tx.poll();
    assert_eq!(d.len(), 1, "{d:?}");
    check_data(&d[0], ISN, 2 * MSS, MSS, 3500, 1);
    assert_eq!(d[0].payload, pattern(2 * MSS, MSS as usize));
    // A pull for [3000, 4000) while 3500 are written, then the stream ends.
    let d = tx.req(0, 0, 2, RcpFlags::PUL, &[(3 * MSS, 4 * MSS, 2)]);
    assert!(d.is_empty(), "{d:?}");
    tx.ep.close();
    let d = tx.poll();
    assert_eq!(data_offsets(ISN, &d), vec![3 * MSS]);
    assert_eq!(d[0].payload.len(), 500);
    assert!(d[0].h.flags.contains(RcpFlags::FIN));
}

#[test]
fn seg_deq_purges_the_send_buffer() {
    let mut tx = Tx::established(config(RcpVariant::Rcp), 100_000);
    let d = tx.req(4 * MSS, 0, 0, RcpFlags::default(), &[]);
    assert_eq!(data_offsets(ISN, &d), vec![0, MSS, 2 * MSS, 3 * MSS]);
    // Everything below 3000 arrived in order.
    assert!(tx
        .req(4 * MSS, 3 * MSS, 0, RcpFlags::default(), &[])
        .is_empty());
    // A pull for purged bytes gets no data.
    let d = tx.req(4 * MSS, 3 * MSS, 1, RcpFlags::PUL, &[(0, MSS, 1)]);
    assert!(
        data_offsets(ISN, &d).is_empty(),
        "resent purged bytes: {d:?}"
    );
    // Straddling the purge point: only the bytes above it.
    let d = tx.req(
        4 * MSS,
        3 * MSS,
        2,
        RcpFlags::PUL,
        &[(2500, 3500, 2), (0, MSS, 1)],
    );
    assert_eq!(d.len(), 1, "{d:?}");
    check_data(&d[0], ISN, 3 * MSS, 500, 100_000, 2);
    // Bytes above SEG.DEQ are still held.
    let d = tx.req(
        4 * MSS,
        3 * MSS,
        3,
        RcpFlags::PUL,
        &[(3 * MSS, 4 * MSS, 3), (2500, 3500, 2)],
    );
    assert_eq!(d.len(), 1, "{d:?}");
    check_data(&d[0], ISN, 3 * MSS, MSS, 100_000, 3);
    // Purging frees send-buffer room.
    let cap = tx.ep.send_capacity();
    assert!(tx
        .req(4 * MSS, 4 * MSS, 3, RcpFlags::default(), &[])
        .is_empty());
    assert!(tx.ep.send_capacity() >= cap);
}

// ---------------------------------------------------------------------------
// Flow control.
// ---------------------------------------------------------------------------

#[test]
fn flow_control_limits_requests_to_the_receive_buffer() {
    let mut cfg = config(RcpVariant::Rcp);
    cfg.window = 4;
    let (mut rx, first) = Rx::established(cfg, 200_000);
    assert_eq!(first.seq_off(ISN), 2 * MSS);
    // The application never reads: never more than 4 segments requested.
    let mut k = 0;
    for _ in 0..10 {
        let out = rx.seg(k);
        k += 1;
        assert!(
            rx.ep.requested() <= 4 * MSS,
            "requested {} unread",
            rx.ep.requested()
        );
        assert!(out.iter().all(|p| p.seq_off(ISN) <= 4 * MSS));
        if rx.ep.in_flight() == 0 {
            break;
        }
    }
    assert_eq!(
        k, 4,
        "the four requested segments arrive, then nothing is outstanding"
    );
    assert_eq!(rx.ep.requested(), 4 * MSS);
    assert!(rx.poll().is_empty(), "no request while the buffer is full");
    assert!(rx.cwnd() > 4 * MSS, "the window is not the limit");
    // The application reads 1500 bytes: one whole segment fits.
    let mut buf = [0u8; 1500];
    assert_eq!(rx.ep.read(&mut buf), 1500);
    assert_eq!(buf[..], pattern(0, 1500)[..]);
    let out = rx.poll();
    assert_eq!(one_req(&out).seq_off(ISN), 5 * MSS);
    // Random reads from now on: requested − read stays ≤ 4 segments.
    let mut read = 1500u64;
    let mut got = pattern(0, 1500);
    for step in 0..60u64 {
        if let Some(&(s, e, id)) = rx.order.iter().find(|&&(s, _, _)| s == k * MSS) {
            k += 1;
            rx.deliver_with(s, e - s, id);
        }
        if step % 3 == 0 {
            let mut buf = vec![0u8; (700 + step * 37 % 900) as usize];
            let n = rx.ep.read(&mut buf);
            got.extend_from_slice(&buf[..n]);
            read += n as u64;
            rx.poll();
        }
        assert!(
            rx.ep.requested() <= read + 4 * MSS,
            "step {step}: requested {} with {} read",
            rx.ep.requested(),
            read
        );
    }
    assert!(k > 20, "the transfer progressed: {k} segments");
    assert_eq!(got, pattern(0, got.len()));
}

// ---------------------------------------------------------------------------
// Persist mode (§5.2.2).
// ---------------------------------------------------------------------------

/// Connects a fresh receiver (opener) and sender; returns them after the
/// handshake, with the first REQ delivered and the sender's answer.
fn connect(cfg: RcpConfig, tx_data: usize, now: Instant) -> (RcpReceiver, RcpSender, Vec<Pkt>) {
    let mut rx = RcpReceiver::new(cfg, PathId(0));
    let mut tx = RcpSender::new(cfg, PathId(0));
    assert_eq!(tx.write(&pattern(0, tx_data)), tx_data);
    let syn = drain(&mut rx, now);
    deliver(&mut tx, now, &syn);
    let synack = drain(&mut tx, now);
    deliver(&mut rx, now, &synack);
    let out = drain(&mut rx, now);
    assert_eq!(out.len(), 2, "{out:?}");
    deliver(&mut tx, now, &out);
    let data = drain(&mut tx, now);
    assert_eq!(events(&mut rx), vec![AppEvent::Established]);
    assert_eq!(events(&mut tx), vec![AppEvent::Established]);
    (rx, tx, data)
}

#[test]
fn persist_probe_finds_new_data() {
    let cfg = config(RcpVariant::Rcp);
    let (mut rx, mut tx, data) = connect(cfg, 2000, ms(0));
    assert_eq!(data.len(), 2);
    check_data(&data[1], ISN, MSS, MSS, 2000, 0);
    deliver(&mut rx, ms(100), &data);
    let t_last = ms(100);
    assert!(drain(&mut rx, t_last).is_empty(), "nothing more to request");
    assert_eq!(rx.in_flight(), 0);
    assert_eq!(rx.requested(), 2000);
    assert!(
        rx.in_persist(),
        "nothing outstanding and the sender has no more"
    );
    let d1 = rx.poll_timeout().expect("persist timer armed");
    assert!(d1 > t_last);
    rx.handle_timeout(d1);
    let probe = drain(&mut rx, d1);
    let p = one_req(&probe);
    assert_eq!(p.h.flags, RcpFlags::REQ | RcpFlags::PROBE);
    assert_eq!(p.seq_off(ISN), 2000);
    assert_eq!(p.deq_off(ISN), 2000);
    let d2 = rx.poll_timeout().expect("persist timer re-armed");
    assert_eq!(
        d2 - d1,
        (d1 - t_last).saturating_mul(2),
        "exponential backoff"
    );
    // Still nothing new: the sender says so.
    deliver(&mut tx, d1, &probe);
    let ans = drain(&mut tx, d1);
    assert_eq!(ans.len(), 1, "{ans:?}");
    assert!(!ans[0].is_req() && ans[0].payload.is_empty());
    assert_eq!(ans[0].deq_off(ISN), 2000);
    assert!(!ans[0].h.flags.contains(RcpFlags::FIN));
    deliver(&mut rx, d1, &ans);
    assert!(drain(&mut rx, d1).is_empty());
    assert!(rx.in_persist());
    assert_eq!(rx.poll_timeout(), Some(d2));
    // The application writes more; the next probe's answer advertises it.
    assert_eq!(tx.write(&pattern(2000, 3000)), 3000);
    rx.handle_timeout(d2);
    let probe = drain(&mut rx, d2);
    assert_eq!(one_req(&probe).h.flags, RcpFlags::REQ | RcpFlags::PROBE);
    deliver(&mut tx, d2, &probe);
    let ans = drain(&mut tx, d2);
    assert_eq!(ans.len(), 1, "{ans:?}");
    assert!(ans[0].payload.is_empty());
    assert_eq!(ans[0].deq_off(ISN), 5000);
    deliver(&mut rx, d2, &ans);
    let out = drain(&mut rx, d2);
    let r = one_req(&out);
    assert_eq!(r.h.flags, RcpFlags::REQ, "a plain cumulative request");
    assert_eq!(r.seq_off(ISN), 5000, "everything the sender has (cwnd 4)");
    assert!(!rx.in_persist());
    deliver(&mut tx, d2, &out);
    let d = drain(&mut tx, d2);
    assert_eq!(data_offsets(ISN, &d), vec![2000, 3000, 4000]);
    deliver(&mut rx, d2, &d);
    assert_eq!(read_all(&mut rx), pattern(0, 5000));
    assert!(rx.in_persist());
}

/// A sender with 1500 bytes (less than the initial window). The receiver's
/// first REQ goes out before it knows how much the sender has; once the
/// 1500 bytes arrived, nothing should be outstanding and the receiver should
/// persist (probe), not time out.
#[test]
fn persist_with_less_than_the_initial_window_available() {
    let cfg = config(RcpVariant::Rcp);
    let (mut rx, mut tx, data) = connect(cfg, 1500, ms(0));
    assert_eq!(data.len(), 2, "{data:?}");
    check_data(&data[0], ISN, 0, MSS, 1500, 0);
    check_data(&data[1], ISN, MSS, 500, 1500, 0);
    deliver(&mut rx, ms(100), &data);
    assert!(drain(&mut rx, ms(100)).is_empty());
    assert_eq!(read_all(&mut rx), pattern(0, 1500));
    assert_eq!(
        rx.in_flight(),
        0,
        "all 1500 bytes the sender has arrived, yet the request [1000, 2000) stays outstanding \
         (answered by the short segment [1000, 1500), which matches no request)"
    );
    assert!(rx.in_persist());
    let d = rx.poll_timeout().unwrap();
    rx.handle_timeout(d);
    let out = drain(&mut rx, d);
    let p = one_req(&out);
    assert_eq!(
        p.h.flags,
        RcpFlags::REQ | RcpFlags::PROBE,
        "a probe, not a pull"
    );
    assert_eq!(rx.stats().timeouts, 0);
    // More data: the probe finds it.
    assert_eq!(tx.write(&pattern(1500, 2500)), 2500);
    deliver(&mut tx, d, &out);
    let ans = drain(&mut tx, d);
    deliver(&mut rx, d, &ans);
    let out = drain(&mut rx, d);
    assert_eq!(one_req(&out).seq_off(ISN), 4000);
}

// ---------------------------------------------------------------------------
// Timeouts.
// ---------------------------------------------------------------------------

/// Segment 1 is lost and only two later segments arrive, then silence: the
/// RTO fires, cwnd drops to one segment, the lowest missing segment is
/// pulled, and the data already received is kept.
#[test]
fn rto_pulls_the_lowest_missing_segment_and_keeps_the_buffer() {
    let (mut rx, _) = Rx::established(config(RcpVariant::Rcp), 100_000);
    assert_eq!(one_req(&rx.seg(0)).seq_off(ISN), 4 * MSS);
    // Out-of-order arrivals free one request each and do not grow the window.
    assert_eq!(one_req(&rx.seg(2)).seq_off(ISN), 5 * MSS);
    assert_eq!(one_req(&rx.seg(3)).seq_off(ISN), 6 * MSS);
    assert!(rx.reqs.iter().all(|p| !p.is_pull()));
    assert_eq!(rx.cwnd(), 3 * MSS);
    let t_last = rx.now;
    let d = rx
        .ep
        .poll_timeout()
        .expect("RTO armed with requests outstanding");
    assert!(d > t_last);
    rx.now = d;
    rx.ep.handle_timeout(d);
    let out = rx.poll();
    let p = one_req(&out);
    assert_eq!(p.h.flags, RcpFlags::REQ | RcpFlags::PUL);
    assert_eq!(
        p.blocks(ISN),
        vec![(MSS, 2 * MSS, 1)],
        "the lowest missing segment"
    );
    assert_eq!(p.deq_off(ISN), MSS);
    assert_eq!(rx.cwnd(), MSS, "one segment after a timeout");
    assert_eq!(rx.ep.stats().timeouts, 1);
    let d2 = rx.ep.poll_timeout().expect("RTO re-armed");
    assert_eq!(d2 - d, (d - t_last).saturating_mul(2), "backed off");
    // The buffer was kept: segment 0 reads now, 2 and 3 once 1 arrives.
    assert_eq!(read_all(&mut rx.ep), pattern(0, 1000));
    let out = rx.deliver_with(MSS, MSS, 1);
    assert_eq!(read_all(&mut rx.ep), pattern(1000, 3000));
    let pulled: Vec<u64> = rx.pulls(&out).iter().map(|p| p.0).collect();
    assert_eq!(
        pulled.first(),
        Some(&(4 * MSS)),
        "2 and 3 are not asked for again"
    );
    assert!(
        rx.order
            .iter()
            .filter(|o| o.0 == 2 * MSS || o.0 == 3 * MSS)
            .count()
            == 2
    );
}

/// After a timeout the receiver restarts from one segment in slow start, as
/// the TCP baseline does after its RTO (ns-2 `opencwnd` on every new ACK
/// after `timeout`): each arriving retransmission grows the window.
#[test]
fn after_a_timeout_the_window_slow_starts() {
    let (mut rx, _) = Rx::established(config(RcpVariant::Rcp), 100_000);
    rx.seg(0);
    rx.seg(2);
    rx.seg(3);
    // Outstanding: 1, 4, 5; all lost.
    let d = rx.ep.poll_timeout().unwrap();
    rx.now = d;
    rx.ep.handle_timeout(d);
    let out = rx.poll();
    assert_eq!(rx.pulls(&out), vec![(MSS, 1)]);
    assert_eq!(rx.cwnd(), MSS);
    assert_eq!(rx.ssthresh(), 2 * MSS, "max(floor(3 / 2), 2) segments");
    let out = rx.deliver_with(MSS, MSS, 1);
    assert_eq!(
        rx.cwnd(),
        2 * MSS,
        "cwnd {} < ssthresh {}: slow start after the timeout",
        rx.cwnd(),
        rx.ssthresh()
    );
    assert_eq!(rx.pulls(&out), vec![(4 * MSS, 2), (5 * MSS, 3)]);
}

// ---------------------------------------------------------------------------
// rcp-eln.
// ---------------------------------------------------------------------------

fn wireless_loss(rx: &mut Rx, k: u64) -> Vec<Pkt> {
    rx.now += Duration::from_millis(1);
    let datagram = data_datagram(&rx.cfg, k * MSS, MSS, rx.avail, 0, RcpFlags::default());
    rx.ep.handle_event(
        rx.now,
        HostEvent::WirelessLoss {
            path: PathId(0),
            datagram,
        },
    );
    rx.poll()
}

#[test]
fn eln_pulls_a_wireless_loss_at_once_without_cutting_the_window() {
    let (mut rx, _) = Rx::established(config(RcpVariant::RcpEln), 100_000);
    assert_eq!(one_req(&rx.seg(0)).seq_off(ISN), 4 * MSS);
    // 1, 2, 3 outstanding; the link lost 2.
    let cwnd = rx.cwnd();
    let ssthresh = rx.ssthresh();
    let out = wireless_loss(&mut rx, 2);
    let p = one_req(&out);
    assert_eq!(p.h.flags, RcpFlags::REQ | RcpFlags::PUL);
    assert_eq!(p.blocks(ISN), vec![(2 * MSS, 3 * MSS, 1)]);
    assert_eq!(p.seq_off(ISN), 4 * MSS);
    assert_eq!(rx.cwnd(), cwnd, "no reduction for a wireless loss");
    assert_eq!(rx.ssthresh(), ssthresh);
    assert_eq!(rx.ep.stats().fast_recoveries, 0);
    assert_eq!(rx.ep.in_flight(), 3 * MSS);
    // A report for a segment already received, or never requested, is ignored.
    assert!(wireless_loss(&mut rx, 0).is_empty());
    assert!(wireless_loss(&mut rx, 50).is_empty());
    // The retransmission arrives out of order (1 is still missing): the
    // window does not grow; once 1 arrives, delivery advances and slow start
    // goes on.
    rx.deliver_with(2 * MSS, MSS, 1);
    assert_eq!(rx.cwnd(), cwnd);
    rx.seg(1);
    assert_eq!(rx.cwnd(), cwnd + MSS);
}

#[test]
fn plain_rcp_ignores_wireless_loss_events() {
    let (mut rx, _) = Rx::established(config(RcpVariant::Rcp), 100_000);
    rx.seg(0);
    let cwnd = rx.cwnd();
    assert!(wireless_loss(&mut rx, 2).is_empty());
    assert_eq!(rx.cwnd(), cwnd);
    assert_eq!(rx.ep.in_flight(), 3 * MSS);
    // It still finds the hole the ordinary way.
    rx.seg(1);
    rx.seg(3);
    rx.seg(4);
    rx.seg(5);
    assert_eq!(rx.ep.stats().fast_recoveries, 1);
    assert!(rx.cwnd() <= 4 * MSS, "{}", rx.cwnd());
}

/// rcp-eln: the wireless loss of segment 2 is pulled without a cut; the
/// retransmission is then lost with no wireless report (so its cause is not
/// known to be wireless) and detected by three later arrivals: that loss is
/// congestion and must reduce the window.
#[test]
fn eln_a_lost_retransmission_without_a_wireless_report_is_congestion() {
    let (mut rx, _) = Rx::established(config(RcpVariant::RcpEln), 100_000);
    rx.seg(0);
    let out = wireless_loss(&mut rx, 2);
    assert_eq!(rx.pulls(&out), vec![(2 * MSS, 1)]);
    // Deliver everything except segment 2, in request order, until the
    // retransmission is found lost (pulled again) or the window is cut.
    let mut i = 0;
    let mut cut = None;
    while i < rx.order.len() && i < 40 {
        let (s, e, id) = rx.order[i];
        i += 1;
        if s == 2 * MSS || s == 0 {
            continue;
        }
        let before = rx.cwnd();
        rx.deliver_with(s, e - s, id);
        if rx.reqs.iter().any(|p| p.is_pull() && p.h.id == 2) || rx.ep.stats().fast_recoveries > 0 {
            cut = Some((before, rx.cwnd()));
            break;
        }
    }
    let repulled = rx
        .reqs
        .iter()
        .any(|p| p.is_pull() && p.blocks(ISN)[0] == (2 * MSS, 3 * MSS, 2));
    let (before, after) = cut.expect("the lost retransmission is detected");
    assert_eq!(
        rx.ep.stats().fast_recoveries,
        1,
        "congestion loss of the retransmission not counted (repulled: {repulled}, cwnd {before} -> {after})"
    );
    assert!(
        2 * after == before || 2 * after == before + MSS,
        "cwnd halved: {before} -> {after}"
    );
}

#[test]
fn request_board_accounts_pulls_and_late_arrivals() {
    let t = Instant::ZERO;
    let mut b = RequestBoard::new();
    for k in 0..6u64 {
        b.request(k * MSS, (k + 1) * MSS, t);
    }
    assert_eq!(b.in_flight(), 6 * MSS);
    for k in 1..4u64 {
        b.arrive(k * MSS, (k + 1) * MSS, 3);
    }
    assert!(b.get(0).unwrap().lost);
    assert_eq!(b.in_flight(), 2 * MSS);
    assert_eq!(b.pull(0, t), Some(7));
    assert_eq!(b.in_flight(), 3 * MSS);
    assert_eq!(b.pull(0, t), None, "not lost any more");
    // The original copy arrives late: it answers the (pulled) request.
    let (r, lost) = b.arrive(0, MSS, 3);
    assert_eq!(r.map(|r| r.pulls), Some(1));
    assert!(lost.is_empty());
    assert_eq!(b.in_flight(), 2 * MSS);
    // A duplicate answers nothing.
    assert_eq!(b.arrive(0, MSS, 3), (None, vec![]));
    b.mark_all_lost();
    assert_eq!(b.in_flight(), 0);
    assert_eq!(b.next_lost().map(|r| r.start), Some(4 * MSS));
}

// ---------------------------------------------------------------------------
// Teardown.
// ---------------------------------------------------------------------------

#[test]
fn fin_closes_both_ends() {
    let cfg = config(RcpVariant::Rcp);
    let mut rx = RcpReceiver::new(cfg, PathId(0));
    let mut tx = RcpSender::new(cfg, PathId(0));
    let total = 2500;
    assert_eq!(tx.write(&pattern(0, total)), total);
    tx.close();
    assert_eq!(tx.write(b"late"), 0, "closed");
    let mut now = ms(0);
    let syn = drain(&mut rx, now);
    deliver(&mut tx, now, &syn);
    let synack = drain(&mut tx, now);
    // The stream is closed: the SYN+ACK says where it ends (SEG.DEQ).
    assert!(synack[0].h.flags.contains(RcpFlags::FIN), "{synack:?}");
    assert_eq!(synack[0].h.deq.since(ISN + 1u32), 2500);
    deliver(&mut rx, now, &synack);
    let reqs = drain(&mut rx, now);
    deliver(&mut tx, now, &reqs);
    let d = drain(&mut tx, now);
    assert_eq!(data_offsets(ISN, &d), vec![0, MSS]);
    assert!(d.iter().all(|p| p.h.flags.contains(RcpFlags::FIN)));
    now = ms(100);
    deliver(&mut rx, now, &d[..1]);
    let r = drain(&mut rx, now);
    assert_eq!(
        one_req(&r).seq_off(ISN),
        2500,
        "up to the end the sender has"
    );
    deliver(&mut rx, now, &d[1..]);
    assert!(drain(&mut rx, now).is_empty());
    deliver(&mut tx, now, &r);
    let d = drain(&mut tx, now);
    assert_eq!(d.len(), 1);
    check_data(&d[0], ISN, 2 * MSS, 500, 2500, 0);
    assert_eq!(d[0].h.flags, RcpFlags::FIN, "every segment carries FIN");
    assert_eq!(events(&mut rx), vec![AppEvent::Established]);
    now = ms(200);
    deliver(&mut rx, now, &d);
    assert_eq!(events(&mut rx), vec![AppEvent::Closed]);
    let fin = drain(&mut rx, now);
    let f = one_req(&fin);
    assert_eq!(f.h.flags, RcpFlags::REQ | RcpFlags::FIN);
    assert_eq!(f.deq_off(ISN), 2500);
    assert_eq!(read_all(&mut rx), pattern(0, total));
    assert_eq!(events(&mut tx), vec![AppEvent::Established]);
    deliver(&mut tx, now, &fin);
    assert_eq!(events(&mut tx), vec![AppEvent::Closed]);
    let finack = drain(&mut tx, now);
    assert_eq!(finack.len(), 1, "{finack:?}");
    assert_eq!(finack[0].h.flags, RcpFlags::FIN | RcpFlags::ACK);
    assert!(finack[0].payload.is_empty());
    assert!(
        rx.poll_timeout().is_some(),
        "the FIN REQ is retransmitted until acknowledged"
    );
    deliver(&mut rx, now, &finack);
    assert_eq!(rx.poll_timeout(), None);
    assert_eq!(tx.poll_timeout(), None);
    assert!(drain(&mut rx, now).is_empty());
    assert_eq!(events(&mut rx), vec![]);
    assert_eq!(tx.stats().retransmits, 0);
}

/// The FIN|ACK is lost: the receiver's FIN REQ is retransmitted and a closed
/// sender answers it again (Closed is reported once).
#[test]
fn lost_fin_ack_is_recovered_by_the_fin_req_timer() {
    let cfg = config(RcpVariant::Rcp);
    let (mut rx, mut tx, d) = connect(cfg, 2000, ms(0));
    tx.close();
    deliver(&mut rx, ms(100), &d);
    // The receiver knows 2000 bytes but not yet the end: it persists and
    // probes; the answer carries FIN.
    assert!(drain(&mut rx, ms(100)).is_empty());
    let t = rx.poll_timeout().unwrap();
    rx.handle_timeout(t);
    let probe = drain(&mut rx, t);
    deliver(&mut tx, t, &probe);
    let ans = drain(&mut tx, t);
    assert_eq!(ans.len(), 1);
    assert!(ans[0].h.flags.contains(RcpFlags::FIN) && ans[0].payload.is_empty());
    deliver(&mut rx, t, &ans);
    assert_eq!(events(&mut rx), vec![AppEvent::Closed]);
    let fin = drain(&mut rx, t);
    assert_eq!(one_req(&fin).h.flags, RcpFlags::REQ | RcpFlags::FIN);
    deliver(&mut tx, t, &fin);
    assert_eq!(events(&mut tx), vec![AppEvent::Closed]);
    let _lost = drain(&mut tx, t);
    let t2 = rx.poll_timeout().expect("FIN REQ timer");
    rx.handle_timeout(t2);
    let fin = drain(&mut rx, t2);
    assert_eq!(one_req(&fin).h.flags, RcpFlags::REQ | RcpFlags::FIN);
    deliver(&mut tx, t2, &fin);
    assert_eq!(events(&mut tx), vec![], "Closed once");
    let finack = drain(&mut tx, t2);
    assert_eq!(finack[0].h.flags, RcpFlags::FIN | RcpFlags::ACK);
    deliver(&mut rx, t2, &finack);
    assert_eq!(rx.poll_timeout(), None);
    assert_eq!(read_all(&mut rx), pattern(0, 2000));
}

// ---------------------------------------------------------------------------
// Loopback through a lossy pipe.
// ---------------------------------------------------------------------------

/// One direction: constant delay, drops every `period`-th datagram.
struct Pipe {
    q: VecDeque<(Instant, Vec<u8>)>,
    sent: u64,
    dropped: u64,
    period: u64,
    delay: Duration,
}

impl Pipe {
    fn new(period: u64, delay: Duration) -> Self {
        Pipe {
            q: VecDeque::new(),
            sent: 0,
            dropped: 0,
            period,
            delay,
        }
    }
    fn send(&mut self, now: Instant, d: Vec<u8>) {
        self.sent += 1;
        if self.sent.is_multiple_of(self.period) {
            self.dropped += 1;
        } else {
            self.q.push_back((now + self.delay, d));
        }
    }
    fn due(&mut self, now: Instant) -> Option<Vec<u8>> {
        if self.q.front().is_some_and(|(t, _)| *t <= now) {
            self.q.pop_front().map(|(_, d)| d)
        } else {
            None
        }
    }
    fn next(&self) -> Option<Instant> {
        self.q.front().map(|(t, _)| *t)
    }
}

#[test]
fn loopback_through_a_lossy_pipe_delivers_everything_in_order() {
    let cfg = config(RcpVariant::Rcp);
    let total = 300_000usize;
    let data = pattern(0, total);
    let mut tx = RcpSender::new(cfg, PathId(0));
    let mut rx = RcpReceiver::new(cfg, PathId(0));
    let mut down = Pipe::new(7, Duration::from_millis(20));
    let mut up = Pipe::new(7, Duration::from_millis(20));
    let mut now = Instant::ZERO;
    let mut written = 0usize;
    let mut got = Vec::new();
    let (mut tx_closed, mut rx_closed) = (false, false);
    let mut buf = Vec::new();
    let mut steps = 0u64;
    loop {
        steps += 1;
        assert!(steps < 2_000_000, "too many steps");
        assert!(
            now < Instant::from_nanos(600 * 1_000_000_000),
            "stalled: {} of {total} bytes read at {now}; rx {:?}, tx {:?}",
            got.len(),
            rx.stats(),
            tx.stats()
        );
        // 1. inputs
        while let Some(d) = down.due(now) {
            rx.handle_datagram(now, PathId(0), &d);
        }
        while let Some(d) = up.due(now) {
            tx.handle_datagram(now, PathId(0), &d);
        }
        if tx.poll_timeout().is_some_and(|t| t <= now) {
            tx.handle_timeout(now);
        }
        if rx.poll_timeout().is_some_and(|t| t <= now) {
            rx.handle_timeout(now);
        }
        // 2. the applications
        if written < total {
            let n = tx.send_capacity().min(total - written).min(7_777);
            written += tx.write(&data[written..written + n]);
            if written == total {
                tx.close();
            }
        }
        got.extend(read_all(&mut rx));
        // 3. outputs
        while tx.poll_transmit(now, &mut buf).is_some() {
            down.send(now, buf.clone());
        }
        while rx.poll_transmit(now, &mut buf).is_some() {
            up.send(now, buf.clone());
        }
        tx_closed |= events(&mut tx).contains(&AppEvent::Closed);
        rx_closed |= events(&mut rx).contains(&AppEvent::Closed);
        if tx_closed
            && rx_closed
            && down.q.is_empty()
            && up.q.is_empty()
            && rx.poll_timeout().is_none()
        {
            break;
        }
        // 4. time: the next arrival or timer
        let next = [down.next(), up.next(), tx.poll_timeout(), rx.poll_timeout()]
            .into_iter()
            .flatten()
            .min();
        match next {
            Some(t) => now = now.max(t),
            None => panic!(
                "deadlock: nothing scheduled with {} of {total} bytes read; rx {:?}",
                got.len(),
                rx.stats()
            ),
        }
    }
    assert_eq!(got.len(), total);
    assert!(got == data, "bytes differ from what was written");
    assert!(down.dropped > 10 && up.dropped > 10, "the pipe did drop");
    assert!(tx.stats().retransmits > 0);
}

// ---------------------------------------------------------------------------
// Power management (§3.4.4).
// ---------------------------------------------------------------------------

/// Asleep, the receiver sends nothing and its timers stand still; awake, the
/// RTO has the time it had left, what was outstanding is requested again, and
/// the window is not cut.
#[test]
fn sleep_freezes_the_timers_and_waking_re_requests_the_outstanding_data() {
    let mut cfg = config(RcpVariant::Rcp);
    cfg.power_save = true;
    let (mut rx, _) = Rx::established(cfg, 100_000);
    slow_start_to(&mut rx, 2);
    // Outstanding: segments 2..6; the window is four segments.
    let cwnd = rx.cwnd();
    assert_eq!(cwnd, 4 * MSS);
    let rto = rx.ep.poll_timeout().expect("RTO armed");
    let slept = rx.now;
    let left = rto - slept;
    rx.ep
        .handle_event(slept, HostEvent::InterfaceAsleep { path: PathId(0) });
    assert_eq!(rx.ep.poll_timeout(), None, "no timer runs while asleep");
    // Data arriving now is lost with the sleeping radio; nothing goes out,
    // even well past the old deadline.
    rx.now = rto + Duration::from_secs(5);
    assert!(rx.poll().is_empty(), "a sleeping receiver sends nothing");
    rx.ep
        .handle_event(rx.now, HostEvent::InterfaceAwake { path: PathId(0) });
    assert_eq!(
        rx.ep.poll_timeout(),
        Some(rx.now + left),
        "the RTO resumes with the time it had left"
    );
    let out = rx.poll();
    let pulled: Vec<u64> = rx.pulls(&out).iter().map(|p| p.0).collect();
    assert_eq!(
        pulled,
        vec![2 * MSS, 3 * MSS, 4 * MSS, 5 * MSS],
        "every outstanding segment is requested again, in order"
    );
    assert_eq!(rx.cwnd(), cwnd, "no window cut for a sleep");
    assert_eq!(rx.ep.stats().timeouts, 0);
    assert_eq!(rx.ep.stats().fast_recoveries, 0);
}

/// Without power management a receiver ignores the host's sleep events: its
/// host keeps the interface awake.
#[test]
fn without_power_save_sleep_events_change_nothing() {
    let (mut rx, _) = Rx::established(config(RcpVariant::Rcp), 100_000);
    slow_start_to(&mut rx, 2);
    let rto = rx.ep.poll_timeout();
    rx.ep
        .handle_event(rx.now, HostEvent::InterfaceAsleep { path: PathId(0) });
    assert_eq!(rx.ep.poll_timeout(), rto);
    assert!(!rx.ep.tolerates_sleep());
}
