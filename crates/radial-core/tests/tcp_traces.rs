//! Trace-like tests of the TCP baselines: a `TcpSender` or `TcpReceiver` is
//! driven directly through the `Endpoint` trait, its datagrams are decoded with
//! `TcpHeader::parse`, and the acknowledgments it receives are built by hand.
//!
//! Segments are named by their stream offset (mss 1000: segment `k` is
//! `[k·1000, (k+1)·1000)`). The expected traces follow ns-2.35's
//! `Agent/TCP/Newreno` and `Agent/TCP/Sack1` (in segments).

use std::collections::BTreeSet;

use radial_core::seq::SeqNum;
use radial_core::tcp::{TcpConfig, TcpReceiver, TcpSender, TcpVariant};
use radial_core::wire::tcp::Flags;
use radial_core::{AppEvent, Duration, Endpoint, HostEvent, Instant, PathId};

mod tcp_harness;

use tcp_harness::*;

#[test]
fn handshake_then_initial_window_of_two_segments() {
    let mut tx = Tx::new(TcpConfig::ns2(TcpVariant::Sack), 50_000);
    let syn = tx.poll();
    assert_eq!(syn.len(), 1);
    assert_eq!(syn[0].header.flags, Flags::SYN);
    assert!(
        tx.poll().is_empty(),
        "nothing but the SYN until the SYN|ACK"
    );
    assert_eq!(
        tx.cwnd(),
        MSS,
        "cwnd is one segment until the handshake completes"
    );
    // A plain ACK before the SYN|ACK does not open the connection.
    tx.at(ms(50));
    let plain = ack_datagram(&tx.cfg, 0, &[], Flags::default());
    tx.ep.handle_datagram(tx.now, PathId(0), &plain);
    assert!(tx.poll().is_empty());
    assert_eq!(tx.ep.poll_app_event(), None);

    tx.at(ms(100));
    let synack = ack_datagram(&tx.cfg, 0, &[], Flags::SYN);
    tx.ep.handle_datagram(tx.now, PathId(0), &synack);
    assert_eq!(tx.ep.poll_app_event(), Some(AppEvent::Established));
    let first = tx.poll();
    assert_eq!(offsets(&first), vec![0, MSS]);
    assert!(first.iter().all(|s| s.payload.len() == MSS as usize));
    assert!(first.iter().all(|s| s.header.flags.contains(Flags::ACK)));
    assert!(first.iter().all(|s| !s.header.flags.contains(Flags::SYN)));
    // The payload is the application's bytes.
    assert_eq!(first[1].payload[0], (1000 % 251) as u8);
    assert_eq!(tx.cwnd(), 2 * MSS);
    assert!(tx.poll().is_empty());
}

#[test]
fn slow_start_adds_one_segment_per_ack() {
    for variant in [TcpVariant::NewReno, TcpVariant::Sack, TcpVariant::Eln] {
        let (mut tx, first) = established(variant, 100_000);
        assert_eq!(offsets(&first), vec![0, MSS]);
        // ACK of segment 0: cwnd 3, segments 2 and 3 go out.
        let s = tx.ack(MSS, &[]);
        assert_eq!(offsets(&s), vec![2 * MSS, 3 * MSS], "{variant:?}");
        assert_eq!(tx.cwnd(), 3 * MSS);
        // ACK of segment 1: cwnd 4, 4 segments in flight (2..6).
        let s = tx.ack(2 * MSS, &[]);
        assert_eq!(offsets(&s), vec![4 * MSS, 5 * MSS], "{variant:?}");
        assert_eq!(tx.cwnd(), 4 * MSS);
        let max_sent = tx.log.iter().map(|s| s.off + MSS).max().unwrap();
        assert_eq!(max_sent - 2 * MSS, 4 * MSS, "4 segments in flight");
        // A cumulative ACK of two segments at once still grows cwnd by one
        // segment (ns-2 `cwnd_ += 1` per ACK) and fills the window.
        let s = tx.ack(4 * MSS, &[]);
        assert_eq!(tx.cwnd(), 5 * MSS);
        assert_eq!(offsets(&s), vec![6 * MSS, 7 * MSS, 8 * MSS]);
        assert_eq!(tx.ep.stats().retransmits, 0);
    }
}

#[test]
fn sequence_numbers_wrap_around() {
    let mut cfg = TcpConfig::ns2(TcpVariant::Sack);
    cfg.isn = SeqNum(u32::MAX - 2500);
    let (mut tx, first) = established_with(cfg, 20_000);
    assert_eq!(offsets(&first), vec![0, MSS]);
    assert_eq!(first[0].header.seq, SeqNum(u32::MAX - 2499));
    let s = tx.ack(MSS, &[]);
    assert_eq!(offsets(&s), vec![2 * MSS, 3 * MSS]);
    assert!(s[1].header.seq.0 < 1000, "wrapped: {}", s[1].header.seq);
    let s = tx.ack(2 * MSS, &[]);
    assert_eq!(offsets(&s), vec![4 * MSS, 5 * MSS]);
    assert_eq!(tx.cwnd(), 4 * MSS);
}

/// Fast retransmit on the third duplicate ACK, with limited transmit on the
/// first two. Segment 3 is lost out of the window `[3, 8)` (cwnd 5).
#[test]
fn newreno_fast_retransmit_on_third_dupack_with_limited_transmit() {
    let (mut tx, _) = established(TcpVariant::NewReno, 100_000);
    slow_start_to(&mut tx, 3);
    assert_eq!(tx.cwnd(), 5 * MSS);

    // Dupack 1 (segment 4 arrived): limited transmit sends new segment 8.
    let s = tx.ack(3 * MSS, &[]);
    assert_eq!(offsets(&s), vec![8 * MSS]);
    assert_eq!(tx.cwnd(), 5 * MSS, "limited transmit does not change cwnd");
    // Dupack 2: new segment 9.
    let s = tx.ack(3 * MSS, &[]);
    assert_eq!(offsets(&s), vec![9 * MSS]);
    assert_eq!(tx.ep.stats().retransmits, 0);
    assert_eq!(tx.ep.stats().fast_recoveries, 0);
    // Dupack 3: retransmit segment 3 (the cumulative ack) and halve cwnd.
    let s = tx.ack(3 * MSS, &[]);
    assert_eq!(offsets(&s), vec![3 * MSS]);
    assert_eq!(tx.times_sent(3 * MSS), 2);
    assert_eq!(tx.cwnd(), 5 * MSS / 2, "cwnd = 5/2 segments, unrounded");
    assert_eq!(
        tx.ep.controller().window().ssthresh,
        2 * MSS,
        "floor(5/2) segments"
    );
    let st = tx.ep.stats();
    assert_eq!((st.retransmits, st.fast_recoveries), (1, 1));
    // Further dupacks inflate the window by one segment each; the window
    // is cwnd (2) + dupwnd; new data at 10 needs 3 + 2 + dupwnd > 10.
    assert!(
        tx.ack(3 * MSS, &[]).is_empty(),
        "dupwnd 4: window ends at 9"
    );
    assert!(
        tx.ack(3 * MSS, &[]).is_empty(),
        "dupwnd 5: window ends at 10"
    );
    let s = tx.ack(3 * MSS, &[]);
    assert_eq!(offsets(&s), vec![10 * MSS], "dupwnd 6: one new segment");
    assert_eq!(tx.ep.stats().fast_recoveries, 1, "one recovery episode");
    assert_eq!(tx.cwnd(), 5 * MSS / 2);
    // The full ACK (everything up to 10) ends recovery without a second cut.
    let s = tx.ack(10 * MSS, &[]);
    assert!(
        tx.cwnd() >= 5 * MSS / 2 && tx.cwnd() < 4 * MSS,
        "{}",
        tx.cwnd()
    );
    assert!(
        s.iter().all(|x| x.off >= 11 * MSS),
        "only new data after recovery"
    );
}

#[test]
fn reduction_halves_the_smaller_of_cwnd_and_the_receiver_window() {
    for variant in [TcpVariant::NewReno, TcpVariant::Sack] {
        let mut cfg = TcpConfig::ns2(variant);
        cfg.window = 4; // the receiver window; ssthresh stays at ns-2's initial value
        let (mut tx, _) = established_with(cfg, 100_000);
        assert_eq!(offsets(&tx.ack(MSS, &[])), vec![2 * MSS, 3 * MSS]);
        assert_eq!(offsets(&tx.ack(2 * MSS, &[])), vec![4 * MSS, 5 * MSS]);
        // cwnd grows past the receiver window, which caps the flight at 4.
        assert_eq!(offsets(&tx.ack(3 * MSS, &[])), vec![6 * MSS]);
        assert_eq!(offsets(&tx.ack(4 * MSS, &[])), vec![7 * MSS]);
        assert_eq!(tx.cwnd(), 6 * MSS);
        // Segment 4 lost: no limited transmit beyond the receiver window.
        let sack = |top: u64| vec![(5 * MSS, top * MSS)];
        assert!(tx.ack(4 * MSS, &sack(6)).is_empty(), "{variant:?}");
        assert!(tx.ack(4 * MSS, &sack(7)).is_empty(), "{variant:?}");
        assert_eq!(offsets(&tx.ack(4 * MSS, &sack(8))), vec![4 * MSS]);
        // min(6, 4) / 2 = 2 segments, not 6 / 2.
        assert_eq!(tx.cwnd(), 2 * MSS, "{variant:?}");
        assert_eq!(tx.ep.controller().window().ssthresh, 2 * MSS, "{variant:?}");
    }
}

#[test]
fn reduction_keeps_half_segments_and_a_two_segment_ssthresh_floor() {
    for variant in [TcpVariant::NewReno, TcpVariant::Sack] {
        let (mut tx, _) = established(variant, 100_000);
        slow_start_to(&mut tx, 1);
        // cwnd 3, [1, 4) outstanding; segment 1 lost.
        assert_eq!(offsets(&tx.ack(MSS, &[(2 * MSS, 3 * MSS)])), vec![4 * MSS]);
        assert_eq!(offsets(&tx.ack(MSS, &[(2 * MSS, 4 * MSS)])), vec![5 * MSS]);
        assert_eq!(offsets(&tx.ack(MSS, &[(2 * MSS, 5 * MSS)])), vec![MSS]);
        assert_eq!(tx.cwnd(), 1500, "{variant:?}: cwnd 3/2 segments, unrounded");
        assert_eq!(
            tx.ep.controller().window().ssthresh,
            2 * MSS,
            "{variant:?}: at least 2"
        );
    }
}

#[test]
fn sack_fast_retransmit_counts_only_dupacks_that_change_the_scoreboard() {
    let (mut tx, _) = established(TcpVariant::Sack, 100_000);
    slow_start_to(&mut tx, 3);
    // Segment 3 lost; 4, 5, 6, 7 arrive.
    let s = tx.ack(3 * MSS, &[(4 * MSS, 5 * MSS)]);
    assert_eq!(offsets(&s), vec![8 * MSS], "limited transmit on dupack 1");
    let s = tx.ack(3 * MSS, &[(4 * MSS, 6 * MSS)]);
    assert_eq!(offsets(&s), vec![9 * MSS], "limited transmit on dupack 2");
    // Duplicates that add nothing to the scoreboard (repeated blocks, a
    // block below the cumulative ack, no block) do not count.
    assert!(tx.ack(3 * MSS, &[(4 * MSS, 6 * MSS)]).is_empty());
    assert!(tx
        .ack(3 * MSS, &[(5 * MSS, 6 * MSS), (4 * MSS, 5 * MSS)])
        .is_empty());
    assert!(tx.ack(3 * MSS, &[(MSS, 2 * MSS)]).is_empty());
    assert!(tx.ack(3 * MSS, &[]).is_empty());
    assert_eq!(tx.ep.stats().fast_recoveries, 0, "no fast retransmit yet");
    assert_eq!(tx.ep.stats().retransmits, 0);
    assert_eq!(tx.cwnd(), 5 * MSS);
    // The third dupack that changes the scoreboard: retransmit segment 3.
    let s = tx.ack(3 * MSS, &[(4 * MSS, 7 * MSS)]);
    assert_eq!(offsets(&s), vec![3 * MSS]);
    assert_eq!(tx.cwnd(), 5 * MSS / 2);
    assert_eq!(tx.ep.controller().window().ssthresh, 2 * MSS);
    let st = tx.ep.stats();
    assert_eq!((st.retransmits, st.fast_recoveries), (1, 1));
}

#[test]
fn newreno_counts_plain_duplicate_acks() {
    // The same trace as above for NewReno: every duplicate counts, so the
    // third plain dupack already triggers fast retransmit.
    let (mut tx, _) = established(TcpVariant::NewReno, 100_000);
    slow_start_to(&mut tx, 3);
    assert_eq!(
        offsets(&tx.ack(3 * MSS, &[(4 * MSS, 5 * MSS)])),
        vec![8 * MSS]
    );
    assert_eq!(
        offsets(&tx.ack(3 * MSS, &[(4 * MSS, 6 * MSS)])),
        vec![9 * MSS]
    );
    let s = tx.ack(3 * MSS, &[(4 * MSS, 6 * MSS)]);
    assert_eq!(offsets(&s), vec![3 * MSS]);
    assert_eq!(tx.ep.stats().fast_recoveries, 1);
}

/// A model receiver for hand-built SACK acknowledgments: cumulative ack and
/// the blocks above it, the one holding the arriving segment first.
#[derive(Default)]
struct ModelRx {
    got: BTreeSet<u64>,
}

impl ModelRx {
    fn arrive(&mut self, off: u64) -> (u64, Vec<(u64, u64)>) {
        self.got.insert(off);
        let mut cum = 0;
        while self.got.contains(&cum) {
            cum += MSS;
        }
        let mut blocks: Vec<(u64, u64)> = Vec::new();
        for &o in self.got.range(cum..) {
            match blocks.last_mut() {
                Some(b) if b.1 == o => b.1 = o + MSS,
                _ => blocks.push((o, o + MSS)),
            }
        }
        blocks.sort_by_key(|b| std::cmp::Reverse(b.0));
        if let Some(i) = blocks.iter().position(|b| b.0 <= off && off < b.1) {
            let b = blocks.remove(i);
            blocks.insert(0, b);
        }
        blocks.truncate(3);
        (cum, blocks)
    }
}

#[test]
fn sack_recovery_retransmits_each_hole_once() {
    let (mut tx, _) = established(TcpVariant::Sack, 200_000);
    slow_start_to(&mut tx, 8);
    // cwnd 10, [8, 18) outstanding; segments 8, 10 and 12 are lost.
    let mut rx = ModelRx::default();
    for o in 0..8 {
        rx.arrive(o * MSS);
    }
    let lost: BTreeSet<u64> = [8 * MSS, 10 * MSS, 12 * MSS].into();
    let mut pending: Vec<u64> = (8..18).map(|o| o * MSS).collect();
    let mut retransmitted = Vec::new();
    let mut steps = 0;
    while !pending.is_empty() {
        steps += 1;
        assert!(steps < 200);
        let o = pending.remove(0);
        if lost.contains(&o) && tx.times_sent(o) == 1 {
            continue; // the first transmission is lost
        }
        let (cum, blocks) = rx.arrive(o);
        let before = tx.log.len();
        let sent = tx.ack(cum, &blocks);
        for s in sent.iter().filter(|s| s.is_data()) {
            if tx.log[..before].iter().any(|x| x.off == s.off) {
                retransmitted.push(s.off);
                // A retransmission is never of a segment the receiver holds.
                assert!(!rx.got.contains(&s.off), "resent SACKed segment {}", s.off);
            }
            if s.off < 30 * MSS {
                pending.push(s.off);
            }
        }
        if cum >= 30 * MSS {
            break;
        }
    }
    assert_eq!(
        retransmitted,
        vec![8 * MSS, 10 * MSS, 12 * MSS],
        "each hole once, in order"
    );
    let st = tx.ep.stats();
    assert_eq!(st.retransmits, 3);
    assert_eq!(st.fast_recoveries, 1);
    assert_eq!(st.timeouts, 0);
    // One halving for the episode: ssthresh = floor(10 / 2) segments.
    assert_eq!(tx.ep.controller().window().ssthresh, 5 * MSS);
}

#[test]
fn sack_recovery_sends_while_pipe_is_below_cwnd() {
    // The trace of the test above, step by step, checking the pipe.
    let (mut tx, _) = established(TcpVariant::Sack, 200_000);
    slow_start_to(&mut tx, 8);
    let b = |s: u64, e: u64| (s * MSS, e * MSS);
    // 9, 11, 13 arrive: limited transmit 18, 19, then fast retransmit of 8.
    assert_eq!(offsets(&tx.ack(8 * MSS, &[b(9, 10)])), vec![18 * MSS]);
    assert_eq!(
        offsets(&tx.ack(8 * MSS, &[b(11, 12), b(9, 10)])),
        vec![19 * MSS]
    );
    let s = tx.ack(8 * MSS, &[b(13, 14), b(11, 12), b(9, 10)]);
    assert_eq!(offsets(&s), vec![8 * MSS]);
    assert_eq!(tx.cwnd(), 5 * MSS);
    // pipe = 12 outstanding - 3 = 9; each dupack takes one off; nothing is
    // sent until pipe < 5.
    for (k, top) in [(14, 15), (15, 16), (16, 17)] {
        let s = tx.ack(8 * MSS, &[b(13, top), b(11, 12), b(9, 10)]);
        assert!(
            s.is_empty(),
            "pipe still >= cwnd after segment {k}: {:?}",
            offsets(&s)
        );
    }
    // Segment 17 arrives: pipe 5 -> still nothing; 18: pipe 4 -> hole 10.
    assert!(tx
        .ack(8 * MSS, &[b(13, 18), b(11, 12), b(9, 10)])
        .is_empty());
    let s = tx.ack(8 * MSS, &[b(13, 19), b(11, 12), b(9, 10)]);
    assert_eq!(offsets(&s), vec![10 * MSS]);
    // 19 arrives: pipe back to 4 -> hole 12.
    let s = tx.ack(8 * MSS, &[b(13, 20), b(11, 12), b(9, 10)]);
    assert_eq!(offsets(&s), vec![12 * MSS]);
    // Retransmitted 8 arrives: partial ack to 10 takes two off the pipe;
    // no hole is left below the highest SACK, so new data 20 and 21 go.
    let s = tx.ack(10 * MSS, &[b(13, 20), b(11, 12)]);
    assert_eq!(offsets(&s), vec![20 * MSS, 21 * MSS]);
    let s = tx.ack(12 * MSS, &[b(13, 20)]);
    assert_eq!(offsets(&s), vec![22 * MSS, 23 * MSS]);
    // The full ACK ends recovery: window of 5 segments from 20.
    let s = tx.ack(20 * MSS, &[]);
    assert_eq!(offsets(&s), vec![24 * MSS]);
    assert_eq!(tx.ep.stats().retransmits, 3);
    assert_eq!(tx.cwnd(), 5 * MSS);
}

/// Segments 3 and 5 are lost out of `[3, 8)`: the partial ACK that the
/// retransmission of 3 produces makes NewReno retransmit 5 at once.
/// Segments 3..8 in flight with 3 and 5 lost: the third duplicate ACK
/// (segment 7 arrived) resends 3.
fn fast_retransmit_of_3_with_5_lost_too(variant: TcpVariant) -> Tx {
    let (mut tx, _) = established(variant, 100_000);
    slow_start_to(&mut tx, 3);
    assert_eq!(offsets(&tx.ack(3 * MSS, &[])), vec![8 * MSS]); // 4 arrived
    assert_eq!(offsets(&tx.ack(3 * MSS, &[])), vec![9 * MSS]); // 6 arrived
    assert_eq!(offsets(&tx.ack(3 * MSS, &[])), vec![3 * MSS]); // 7 arrived
    tx
}

#[test]
fn newreno_partial_ack_retransmits_the_next_hole() {
    let mut tx = fast_retransmit_of_3_with_5_lost_too(TcpVariant::NewReno);
    assert!(tx.ack(3 * MSS, &[]).is_empty()); // 8 arrived
    assert!(tx.ack(3 * MSS, &[]).is_empty()); // 9 arrived
    let cwnd = tx.cwnd();
    // The retransmitted 3 arrives: ACK 5 is partial (recover = 10).
    let s = tx.ack(5 * MSS, &[]);
    let o = offsets(&s);
    assert_eq!(
        o.first(),
        Some(&(5 * MSS)),
        "the next hole goes first: {o:?}"
    );
    assert_eq!(tx.times_sent(5 * MSS), 2);
    assert!(o.len() <= 3, "{o:?}");
    assert!(
        o[1..].iter().all(|&x| x >= 10 * MSS),
        "no other retransmission: {o:?}"
    );
    let st = tx.ep.stats();
    assert_eq!((st.retransmits, st.fast_recoveries, st.timeouts), (2, 1, 0));
    assert!(tx.cwnd() <= cwnd, "a partial ACK never grows cwnd");
    // The retransmitted 5 arrives: the full ACK ends recovery; nothing below
    // 10 is sent again.
    let s = tx.ack(10 * MSS, &[]);
    assert!(offsets(&s).iter().all(|&x| x >= 10 * MSS));
    assert_eq!(tx.ep.stats().retransmits, 2);
    assert_eq!(tx.ep.stats().fast_recoveries, 1);
}

/// ns-2 `Agent/TCP/Reno`: the same two losses in one window as above, but
/// the first acknowledgment of new data ends fast recovery; the duplicate
/// ACKs for the second hole start no second fast retransmit in the same
/// window (ns-2's `bugFix_`), so the retransmission timer resends it.
#[test]
fn reno_leaves_recovery_at_a_partial_ack_and_times_out_for_the_second_hole() {
    let mut tx = fast_retransmit_of_3_with_5_lost_too(TcpVariant::Reno);
    let ssthresh = tx.ep.controller().window().ssthresh;
    assert!(tx.ack(3 * MSS, &[]).is_empty()); // 8 arrived
    assert!(tx.ack(3 * MSS, &[]).is_empty()); // 9 arrived
                                              // The retransmitted 3 arrives: ACK 5 ends recovery, the window deflated
                                              // to ssthresh, and 5 is not resent.
    let s = tx.ack(5 * MSS, &[]);
    assert!(
        offsets(&s).iter().all(|&x| x >= 10 * MSS),
        "no retransmission at a new ACK: {:?}",
        offsets(&s)
    );
    assert_eq!(tx.times_sent(5 * MSS), 1);
    assert!(tx.cwnd() <= ssthresh + MSS, "recovery ended: {}", tx.cwnd());
    // Duplicate ACKs for 5 (the segments sent since arrive): no second fast
    // retransmit below the recovery point.
    for _ in 0..4 {
        tx.ack(5 * MSS, &[]);
    }
    assert_eq!(tx.times_sent(5 * MSS), 1);
    assert_eq!(tx.ep.stats().fast_recoveries, 1);
    // The timer resends it, from one segment.
    let due = tx.ep.poll_timeout().expect("timer armed");
    tx.at(due);
    tx.ep.handle_timeout(tx.now);
    assert_eq!(offsets(&tx.poll()), vec![5 * MSS]);
    assert_eq!(tx.ep.stats().timeouts, 1);
    assert_eq!(tx.cwnd(), MSS);
    // NewReno on the same trace resends 5 at the partial ACK instead
    // (`newreno_partial_ack_retransmits_the_next_hole`).
}

#[test]
fn rto_goes_back_n_with_one_segment_and_backs_off() {
    for variant in [TcpVariant::NewReno, TcpVariant::Sack] {
        let (mut tx, first) = established(variant, 100_000);
        assert_eq!(offsets(&first), vec![0, MSS]);
        // ACK of segment 0 at 200 ms: 1, 2, 3 outstanding, all lost.
        tx.at(ms(199));
        let s = tx.ack(MSS, &[]);
        assert_eq!(offsets(&s), vec![2 * MSS, 3 * MSS]);
        let armed = tx.now;
        let d1 = tx
            .ep
            .poll_timeout()
            .expect("timer armed with data outstanding");
        let rto = d1 - armed;
        assert!(rto >= Duration::from_millis(200), "min RTO: {rto}");
        assert!(rto <= Duration::from_secs(1), "{rto}");
        // Not yet.
        tx.at(d1 - Duration::from_nanos(1));
        tx.ep.handle_timeout(tx.now);
        assert!(tx.poll().is_empty());
        assert_eq!(tx.ep.stats().timeouts, 0);
        // The deadline: resend segment 1 (the cumulative ack), only it.
        tx.at(d1);
        tx.ep.handle_timeout(tx.now);
        let s = tx.poll();
        assert_eq!(offsets(&s), vec![MSS], "go-back-N from the cumulative ack");
        assert_eq!(tx.cwnd(), MSS, "cwnd = 1 segment after a timeout");
        assert_eq!(tx.ep.controller().window().ssthresh, 2 * MSS);
        assert_eq!(tx.ep.stats().timeouts, 1);
        // Backoff: the next timeout is twice as far.
        let d2 = tx.ep.poll_timeout().unwrap();
        assert_eq!(d2 - d1, rto.saturating_mul(2));
        tx.at(d2);
        tx.ep.handle_timeout(tx.now);
        assert_eq!(offsets(&tx.poll()), vec![MSS]);
        let d3 = tx.ep.poll_timeout().unwrap();
        assert_eq!(d3 - d2, rto.saturating_mul(4));
        assert_eq!(tx.ep.stats().timeouts, 2);
        assert_eq!(tx.cwnd(), MSS);
        // The retransmission is acknowledged: slow start from one segment
        // resends 2 and 3 (go-back-N), although they were sent before.
        let retx_before = tx.ep.stats().retransmits;
        let s = tx.ack(2 * MSS, &[]);
        assert_eq!(offsets(&s), vec![2 * MSS, 3 * MSS]);
        assert_eq!(tx.cwnd(), 2 * MSS);
        assert_eq!(tx.ep.stats().retransmits, retx_before + 2);
        // Later duplicate ACKs of the old window do not trigger a fast
        // retransmit inside the window of the timeout.
        for _ in 0..3 {
            let _ = tx.ack(2 * MSS, &[]);
        }
        assert_eq!(tx.ep.stats().fast_recoveries, 0);
    }
}

#[test]
fn rto_before_handshake_resends_the_syn_with_backoff() {
    let mut tx = Tx::new(TcpConfig::ns2(TcpVariant::NewReno), 10_000);
    assert_eq!(tx.poll().len(), 1);
    let d1 = tx.ep.poll_timeout().unwrap();
    assert_eq!(
        d1,
        Instant::ZERO + Duration::from_secs(3),
        "initial RTO 3 s"
    );
    tx.at(d1);
    tx.ep.handle_timeout(tx.now);
    let s = tx.poll();
    assert_eq!(s.len(), 1);
    assert!(s[0].header.flags.contains(Flags::SYN));
    let d2 = tx.ep.poll_timeout().unwrap();
    assert_eq!(d2 - d1, Duration::from_secs(6));
    // After a lost SYN, ns-2 starts with a window of one segment.
    tx.at(ms(3500));
    let synack = ack_datagram(&tx.cfg, 0, &[], Flags::SYN);
    tx.ep.handle_datagram(tx.now, PathId(0), &synack);
    assert_eq!(offsets(&tx.poll()), vec![0]);
}

#[test]
fn eln_receiver_marks_dupacks_for_a_wireless_loss() {
    let cfg = TcpConfig::ns2(TcpVariant::Eln);
    let mut rx = TcpReceiver::new(cfg, PathId(0));
    let now = ms(10);
    rx.handle_datagram(now, PathId(0), &syn_datagram(&cfg));
    let synack = drain(&mut rx, cfg.isn, now);
    assert_eq!(synack.len(), 1);
    assert!(synack[0].header.flags.contains(Flags::SYN));
    assert!(synack[0].header.flags.contains(Flags::ACK));
    assert_eq!(synack[0].header.ack, cfg.isn + 1u32);

    let seg = |o: u64| data_datagram(&cfg, o * MSS, MSS as usize, Flags::default());
    rx.handle_datagram(now, PathId(0), &seg(0));
    let a = drain(&mut rx, cfg.isn, now);
    assert_eq!(a.len(), 1);
    assert!(!a[0].header.flags.contains(Flags::ELN));
    // Segment 1 dies on the receiver's wireless link: the link layer says so.
    rx.handle_event(
        now,
        HostEvent::WirelessLoss {
            path: PathId(0),
            datagram: seg(1),
        },
    );
    assert!(
        drain(&mut rx, cfg.isn, now).is_empty(),
        "the event alone sends nothing"
    );
    for o in 2..5 {
        rx.handle_datagram(now, PathId(0), &seg(o));
        let a = drain(&mut rx, cfg.isn, now);
        assert_eq!(a.len(), 1);
        assert_eq!(a[0].header.ack, cfg.isn + 1u32 + MSS, "duplicate ACK of 1");
        assert!(
            a[0].header.flags.contains(Flags::ELN),
            "dupack {o} carries ELN"
        );
        assert!(a[0].header.sack.is_empty(), "ELN is NewReno: no SACK");
    }
    // The retransmission fills the hole: a new ACK without ELN.
    rx.handle_datagram(now, PathId(0), &seg(1));
    let a = drain(&mut rx, cfg.isn, now);
    assert_eq!(a[0].header.ack, cfg.isn + 1u32 + 5 * MSS);
    assert!(!a[0].header.flags.contains(Flags::ELN));
    // A congestion loss (no event) of 6: plain duplicate ACKs.
    rx.handle_datagram(now, PathId(0), &seg(5));
    let _ = drain(&mut rx, cfg.isn, now);
    for o in 7..10 {
        rx.handle_datagram(now, PathId(0), &seg(o));
        let a = drain(&mut rx, cfg.isn, now);
        assert_eq!(a[0].header.ack, cfg.isn + 1u32 + 6 * MSS);
        assert!(
            !a[0].header.flags.contains(Flags::ELN),
            "congestion loss: no ELN"
        );
    }
    let mut buf = vec![0; 20_000];
    assert_eq!(rx.read(&mut buf), 6 * MSS as usize);
}

#[test]
fn non_eln_receiver_ignores_wireless_loss_events() {
    for variant in [TcpVariant::NewReno, TcpVariant::Sack] {
        let cfg = TcpConfig::ns2(variant);
        let mut rx = TcpReceiver::new(cfg, PathId(0));
        let now = ms(10);
        rx.handle_datagram(now, PathId(0), &syn_datagram(&cfg));
        let _ = drain(&mut rx, cfg.isn, now);
        let seg = |o: u64| data_datagram(&cfg, o * MSS, MSS as usize, Flags::default());
        rx.handle_event(
            now,
            HostEvent::WirelessLoss {
                path: PathId(0),
                datagram: seg(0),
            },
        );
        for o in 1..4 {
            rx.handle_datagram(now, PathId(0), &seg(o));
            let a = drain(&mut rx, cfg.isn, now);
            assert!(!a[0].header.flags.contains(Flags::ELN), "{variant:?}");
        }
    }
}

/// The dupack trace of the fast-retransmit test, for an ELN sender, with or
/// without the ELN flag on the duplicate ACKs.
fn eln_trace(variant: TcpVariant, eln: bool) -> Tx {
    let (mut tx, _) = established(variant, 100_000);
    slow_start_to(&mut tx, 3);
    let flag = if eln { Flags::ELN } else { Flags::default() };
    assert_eq!(offsets(&tx.ack_with(3 * MSS, &[], flag)), vec![8 * MSS]);
    assert_eq!(offsets(&tx.ack_with(3 * MSS, &[], flag)), vec![9 * MSS]);
    let s = tx.ack_with(3 * MSS, &[], flag);
    assert_eq!(
        offsets(&s).first(),
        Some(&(3 * MSS)),
        "retransmit on dupack 3"
    );
    assert_eq!(tx.times_sent(3 * MSS), 2);
    tx
}

#[test]
fn eln_sender_retransmits_without_cutting_the_window() {
    let with = eln_trace(TcpVariant::Eln, true);
    assert_eq!(with.cwnd(), 5 * MSS, "ELN: the window is kept");
    assert_eq!(
        with.ep.controller().window().ssthresh,
        256 * MSS,
        "ssthresh kept"
    );
    assert_eq!(with.ep.stats().retransmits, 1);

    let without = eln_trace(TcpVariant::Eln, false);
    assert_eq!(without.cwnd(), 5 * MSS / 2, "no ELN: halved");
    assert_eq!(without.ep.controller().window().ssthresh, 2 * MSS);

    // Only the ELN variant honours the flag.
    let newreno = eln_trace(TcpVariant::NewReno, true);
    assert_eq!(newreno.cwnd(), 5 * MSS / 2, "NewReno ignores ELN");
}

fn sack_receiver(max_blocks: usize) -> (TcpConfig, TcpReceiver) {
    let mut cfg = TcpConfig::ns2(TcpVariant::Sack);
    cfg.max_sack_blocks = max_blocks;
    let mut rx = TcpReceiver::new(cfg, PathId(0));
    rx.handle_datagram(ms(1), PathId(0), &syn_datagram(&cfg));
    let _ = drain(&mut rx, cfg.isn, ms(1));
    (cfg, rx)
}

/// Feeds segment `o` and returns (ack offset, SACK blocks as offsets).
fn rx_segment(cfg: &TcpConfig, rx: &mut TcpReceiver, o: u64) -> (u64, Vec<(u64, u64)>) {
    rx.handle_datagram(
        ms(2),
        PathId(0),
        &data_datagram(cfg, o * MSS, MSS as usize, Flags::default()),
    );
    let a = drain(rx, cfg.isn, ms(2));
    assert_eq!(a.len(), 1, "one ACK per segment");
    let base = cfg.isn + 1u32;
    let h = &a[0].header;
    assert!(h.flags.contains(Flags::ACK));
    let blocks = h
        .sack
        .iter()
        .map(|b| (b.start - base, b.end - base))
        .collect();
    (h.ack - base, blocks)
}

#[test]
fn receiver_sack_blocks_first_block_holds_the_trigger() {
    let (cfg, mut rx) = sack_receiver(3);
    let k = |a: u64, b: u64| (a * MSS, b * MSS);
    assert_eq!(rx_segment(&cfg, &mut rx, 0), (MSS, vec![]));
    assert_eq!(rx_segment(&cfg, &mut rx, 2), (MSS, vec![k(2, 3)]));
    assert_eq!(rx_segment(&cfg, &mut rx, 4), (MSS, vec![k(4, 5), k(2, 3)]));
    assert_eq!(
        rx_segment(&cfg, &mut rx, 6),
        (MSS, vec![k(6, 7), k(4, 5), k(2, 3)])
    );
    // A fourth block: at most 3, the oldest report is dropped.
    assert_eq!(
        rx_segment(&cfg, &mut rx, 8),
        (MSS, vec![k(8, 9), k(6, 7), k(4, 5)])
    );
    // Segment 3 joins the blocks of 2 and 4: the merged block comes first.
    assert_eq!(
        rx_segment(&cfg, &mut rx, 3),
        (MSS, vec![k(2, 5), k(8, 9), k(6, 7)])
    );
    // Segment 7 extends 6 and joins 8.
    assert_eq!(rx_segment(&cfg, &mut rx, 7), (MSS, vec![k(6, 9), k(2, 5)]));
    // A duplicate of a held segment reports the block holding it first.
    assert_eq!(rx_segment(&cfg, &mut rx, 2), (MSS, vec![k(2, 5), k(6, 9)]));
    // Segment 1 fills the first hole: cumulative ack jumps to 5.
    assert_eq!(rx_segment(&cfg, &mut rx, 1), (5 * MSS, vec![k(6, 9)]));
    assert_eq!(rx_segment(&cfg, &mut rx, 5), (9 * MSS, vec![]));
    let mut buf = vec![0; 20_000];
    assert_eq!(rx.read(&mut buf), 9 * MSS as usize);
    assert_eq!(buf[1234], (1234 % 251) as u8);
}

#[test]
fn receiver_sack_blocks_respect_max_sack_blocks() {
    for max in 1..=3 {
        let (cfg, mut rx) = sack_receiver(max);
        let _ = rx_segment(&cfg, &mut rx, 0);
        for o in [2, 4, 6, 8, 10, 12] {
            let (ack, blocks) = rx_segment(&cfg, &mut rx, o);
            assert_eq!(ack, MSS);
            assert!(blocks.len() <= max, "{max}: {blocks:?}");
            assert_eq!(blocks[0], (o * MSS, (o + 1) * MSS), "trigger first");
            // Blocks are disjoint, above the cumulative ack, and held.
            for (i, b) in blocks.iter().enumerate() {
                assert!(b.0 >= ack && b.1 > b.0);
                assert!(blocks[i + 1..].iter().all(|c| c.1 <= b.0 || c.0 >= b.1));
            }
        }
    }
    // NewReno receivers send no SACK blocks.
    let cfg = TcpConfig::ns2(TcpVariant::NewReno);
    let mut rx = TcpReceiver::new(cfg, PathId(0));
    rx.handle_datagram(ms(1), PathId(0), &syn_datagram(&cfg));
    let _ = drain(&mut rx, cfg.isn, ms(1));
    for o in [0, 2, 4] {
        assert_eq!(rx_segment(&cfg, &mut rx, o).1, vec![]);
    }
}

#[test]
fn sender_and_receiver_complete_a_transfer_with_fin() {
    // Loopback without loss: everything written arrives, in order, once, and
    // both ends report Closed.
    let cfg = TcpConfig::ns2(TcpVariant::Sack);
    let total = 25_500;
    let mut tx = TcpSender::new(cfg, PathId(0));
    let data: Vec<u8> = (0..total).map(|i| (i * 7 % 256) as u8).collect();
    assert_eq!(tx.write(&data), total);
    tx.close();
    let mut rx = TcpReceiver::new(cfg, PathId(0));
    let mut now = Instant::ZERO;
    let mut got = Vec::new();
    let mut closed = (false, false);
    for _ in 0..1000 {
        now += Duration::from_millis(5);
        let segs = drain(&mut tx, cfg.isn, now);
        for s in &segs {
            rx.handle_datagram(now, PathId(0), &s.raw);
        }
        let acks = drain(&mut rx, cfg.isn, now);
        assert_eq!(acks.len(), segs.len(), "one ACK per segment");
        for a in &acks {
            tx.handle_datagram(now, PathId(0), &a.raw);
        }
        let mut buf = [0u8; 4096];
        loop {
            let n = rx.read(&mut buf);
            if n == 0 {
                break;
            }
            got.extend_from_slice(&buf[..n]);
        }
        while let Some(e) = tx.poll_app_event() {
            closed.0 |= e == AppEvent::Closed;
        }
        while let Some(e) = rx.poll_app_event() {
            closed.1 |= e == AppEvent::Closed;
        }
        if closed == (true, true) {
            break;
        }
    }
    assert_eq!(closed, (true, true));
    assert_eq!(got, data);
    assert_eq!(tx.stats().retransmits, 0);
    assert_eq!(
        tx.poll_timeout(),
        None,
        "no timer once everything is acknowledged"
    );
}

/// Segment 3 arrives after one acknowledgment SACKing 4 to 7: reordering of
/// four segments, never retransmitted. Then segment 7 is missing while
/// 8, 9, 10, 11 arrive: the fast retransmits the sender makes (offsets).
fn reordered_then_lost(reordering: bool) -> (u32, Vec<usize>) {
    let mut cfg = TcpConfig::ns2(TcpVariant::Sack);
    cfg.reordering = reordering;
    let (mut tx, _) = established_with(cfg, 100_000);
    slow_start_to(&mut tx, 3);
    tx.ack(3 * MSS, &[(4 * MSS, 7 * MSS)]);
    tx.ack(7 * MSS, &[]);
    let measured = tx.ep.reordering();
    let mut recoveries_after = Vec::new();
    for k in 9..=12 {
        tx.ack(7 * MSS, &[(8 * MSS, k * MSS)]);
        recoveries_after.push(tx.ep.stats().fast_recoveries as usize);
    }
    (measured, recoveries_after)
}

#[test]
fn reordering_tolerance_raises_the_duplicate_ack_threshold_to_the_reordering_seen() {
    // With Linux's reordering tolerance the late segment 3, never
    // retransmitted, shows reordering of four segments: the threshold
    // becomes four, and the fourth duplicate, not the third, starts fast
    // retransmit. Without it (ns-2's TCP-SACK) the threshold stays three.
    let (measured, recoveries) = reordered_then_lost(true);
    assert_eq!(measured, 4);
    assert_eq!(recoveries, vec![0, 0, 0, 1]);
    let (measured, recoveries) = reordered_then_lost(false);
    assert_eq!(measured, 0);
    assert_eq!(recoveries, vec![0, 0, 1, 1]);
}
