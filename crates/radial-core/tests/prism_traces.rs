//! Trace tests of PRISM on the wire: the proxy's inverse multiplexer (ADAS
//! assigning segments to member links, RPC holding striping's duplicate
//! acknowledgments and releasing them in order, a hole on one link reported
//! to the sender as a loss notice) and TCP-PRISM's answer to the notice
//! (the segment resent at once, the window cut by the notice's share),
//! against TCP-SACK, which ignores it.
//!
//! Segments are named by their stream offset (mss 1000). Times in ms.

mod tcp_harness;

use radial_core::prism::{Imux, ImuxConfig};
use radial_core::tcp::{TcpConfig, TcpVariant};
use radial_core::wire::tcp::{Flags, LossNotice, TcpHeader, SHARE_SCALE};
use radial_core::{Endpoint, HostEvent, Instant, PathId};
use tcp_harness::*;

/// Member link paths 0 and 1; the sender is path 2.
const SENDER: PathId = PathId(2);

/// A proxy over two members (1800 and 600 kbit/s, weights 3 and 1), both
/// up, that forwarded the connection's SYN.
fn proxy(cfg: &TcpConfig) -> Imux {
    let mut imux = Imux::new(ImuxConfig::new(&[1.8e6, 0.6e6]));
    for p in 0..2 {
        imux.handle_event(
            Instant::ZERO,
            HostEvent::PathUp {
                path: PathId(p),
                controller: None,
                route: None,
            },
        );
    }
    imux.handle_datagram(Instant::ZERO, SENDER, &syn_datagram(cfg));
    let out = drain_paths(&mut imux, Instant::ZERO);
    assert_eq!(out.len(), 1, "the SYN is forwarded on one link");
    imux
}

/// Everything the proxy sends now: (path, decoded datagram).
fn drain_paths(imux: &mut Imux, now: Instant) -> Vec<(PathId, TcpHeader)> {
    let mut out = Vec::new();
    let mut buf = Vec::new();
    while let Some(p) = imux.poll_transmit(now, &mut buf) {
        out.push((p, TcpHeader::parse(&buf).unwrap().0));
    }
    out
}

/// The sender's segments `0..n` through the proxy at time 0: the link each
/// took.
fn forward(imux: &mut Imux, cfg: &TcpConfig, n: u64) -> Vec<u16> {
    (0..n)
        .map(|k| {
            imux.handle_datagram(
                Instant::ZERO,
                SENDER,
                &data_datagram(cfg, k * MSS, MSS as usize, Flags::default()),
            );
            let out = drain_paths(imux, Instant::ZERO);
            assert_eq!(out.len(), 1);
            out[0].0 .0
        })
        .collect()
}

/// An acknowledgment from the receiver, arriving on the first link at
/// `t` ms; returns what the proxy sends to the sender.
fn from_receiver(
    imux: &mut Imux,
    cfg: &TcpConfig,
    t: u64,
    ack: u64,
    sack: &[(u64, u64)],
) -> Vec<TcpHeader> {
    imux.handle_datagram(
        ms(t),
        PathId(0),
        &ack_datagram(cfg, ack, sack, Flags::default()),
    );
    drain_paths(imux, ms(t))
        .into_iter()
        .map(|(p, h)| {
            assert_eq!(p, SENDER, "acknowledgments go to the sender");
            h
        })
        .collect()
}

fn acked(cfg: &TcpConfig, h: &TcpHeader) -> u64 {
    u64::from(h.ack.0.wrapping_sub(cfg.isn.0).wrapping_sub(1))
}

fn seg(k: u64) -> (u64, u64) {
    (k * MSS, (k + 1) * MSS)
}

#[test]
fn adas_stripes_by_weight_and_rpc_resequences_the_acknowledgments() {
    let cfg = TcpConfig::ns2(TcpVariant::Prism);
    let mut imux = proxy(&cfg);
    // Rule 2 with weights 3 : 1: three on the fast link, one on the slow.
    let links = forward(&mut imux, &cfg, 8);
    assert_eq!(links, [0, 0, 0, 1, 0, 0, 0, 1]);
    // Segments 0-2 arrive (fast link), in order: one acknowledgment each.
    for k in 1..=3 {
        let out = from_receiver(&mut imux, &cfg, 100 + k, k * MSS, &[]);
        assert_eq!(out.len(), 1);
        assert_eq!(acked(&cfg, &out[0]), k * MSS);
    }
    // Segments 4-6 overtake 3 on the slow link: the receiver's duplicate
    // acknowledgments are held.
    for k in 4..=6 {
        let out = from_receiver(
            &mut imux,
            &cfg,
            110 + k,
            3 * MSS,
            &[(4 * MSS, (k + 1) * MSS)],
        );
        assert!(out.is_empty(), "striping's duplicate passed: {out:?}");
    }
    // Segment 3 arrives: four in-order acknowledgments, no SACK blocks
    // before the last.
    let out = from_receiver(&mut imux, &cfg, 130, 7 * MSS, &[]);
    let acks: Vec<u64> = out.iter().map(|h| acked(&cfg, h)).collect();
    assert_eq!(acks, [4 * MSS, 5 * MSS, 6 * MSS, 7 * MSS]);
    assert!(out.iter().all(|h| h.sack.is_empty() && h.loss.is_none()));
    assert_eq!(imux.imux_stats().corrected, 3);
    // Nothing is in flight on either link but segment 7.
    assert_eq!(imux.links().in_flight(0), 0);
    assert_eq!(imux.links().in_flight(1), 1);
}

#[test]
fn a_hole_on_one_link_is_reported_with_the_links_share() {
    let cfg = TcpConfig::ns2(TcpVariant::Prism);
    let mut imux = proxy(&cfg);
    assert_eq!(forward(&mut imux, &cfg, 5), [0, 0, 0, 1, 0]);
    // Segment 0 is lost on the fast link; 1 arrives on the same link.
    let out = from_receiver(&mut imux, &cfg, 100, 0, &[seg(1)]);
    assert_eq!(out.len(), 1, "the duplicate carries the notice at once");
    let notice = out[0].loss.expect("a loss notice");
    assert_eq!(notice.seq, cfg.isn + 1u32);
    assert_eq!(notice.link, 0);
    // p = 1 − 1800 / (2 × 2400).
    assert_eq!(notice.share, 6250);
    assert_eq!(out[0].sack.len(), 1, "the duplicate is passed as it came");
    assert_eq!(imux.imux_stats().notices, 1);
    // In LOSS, further duplicates pass as they come.
    let out = from_receiver(&mut imux, &cfg, 101, 0, &[(MSS, 3 * MSS)]);
    assert_eq!(out.len(), 1);
    assert!(out[0].loss.is_none());
    // The retransmission goes by the link with the least expected arrival
    // (Rule 1) and is tracked; its arrival ends the loss state.
    imux.handle_datagram(
        ms(102),
        SENDER,
        &data_datagram(&cfg, 0, MSS as usize, Flags::default()),
    );
    assert_eq!(drain_paths(&mut imux, ms(102)).len(), 1);
    let out = from_receiver(&mut imux, &cfg, 300, 3 * MSS, &[seg(4)]);
    assert_eq!(acked(&cfg, out.last().unwrap()), 3 * MSS);
}

/// A sender in slow start with cwnd 10 segments, `[8, 18)` outstanding,
/// given a duplicate acknowledgment for segment 9 that carries a notice
/// for segment 8 with `share`; returns the sender and what it sent.
fn noticed(variant: TcpVariant, share: u16) -> (Tx, Vec<Seg>) {
    let (mut tx, _) = established(variant, 100_000);
    slow_start_to(&mut tx, 8);
    assert_eq!(tx.cwnd(), 10 * MSS);
    let cfg = tx.cfg;
    let mut dup = TcpHeader::parse(&ack_datagram(&cfg, 8 * MSS, &[seg(9)], Flags::default()))
        .unwrap()
        .0;
    dup.loss = Some(LossNotice {
        seq: cfg.isn + 1u32 + 8 * MSS,
        share,
        link: 1,
    });
    let mut buf = Vec::new();
    dup.emit(&mut buf);
    tx.now += radial_core::Duration::from_millis(1);
    tx.ep.handle_datagram(tx.now, PathId(0), &buf);
    let sent = tx.poll();
    (tx, sent)
}

#[test]
fn tcp_prism_resends_at_once_and_keeps_the_notices_share() {
    let share = SHARE_SCALE / 8 * 7;
    let (tx, sent) = noticed(TcpVariant::Prism, share);
    assert_eq!(offsets(&sent), [8 * MSS], "the reported segment, at once");
    assert_eq!(tx.cwnd(), 8_750, "7/8 of 10 segments, not half");
    assert_eq!(tx.ep.stats().fast_recoveries, 1);
}

#[test]
fn tcp_sack_ignores_the_notice() {
    let (tx, sent) = noticed(TcpVariant::Sack, SHARE_SCALE / 2);
    // Limited transmit sends new data; the lost segment waits for three
    // duplicates.
    assert_eq!(offsets(&sent), [18 * MSS]);
    assert_eq!(tx.cwnd(), 10 * MSS);
    assert_eq!(tx.ep.stats().fast_recoveries, 0);
}
