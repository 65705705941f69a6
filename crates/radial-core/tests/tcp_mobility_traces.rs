//! Trace tests of the sender-centric mobility schemes on the TCP baseline:
//! TCP-HO's handoff notice (capability, bandwidth option, ssthresh from the
//! new link, HO-ADJUST), Freeze-TCP's zero window (frozen without a timeout
//! or a back-off, resumed at the old window) and TCP-Probing's probe cycle
//! (Immediate Recovery on a clear path, the standard response on a
//! congested one, a lost probe restarting the cycle).
//!
//! Segments are named by their stream offset (mss 1000). Times in ms.

mod tcp_harness;

use radial_core::tcp::{TcpConfig, TcpReceiver, TcpVariant};
use radial_core::wire::tcp::{Flags, SackList, TcpHeader, CAPABILITY_HANDOFF};
use radial_core::{BitRate, Duration, Endpoint, HostEvent, Instant, PathId};
use tcp_harness::*;

/// An acknowledgment with the fields the mobility schemes use.
fn ack_full(cfg: &TcpConfig, ack: u64, window: u32, flags: Flags, bw: Option<u32>) -> Vec<u8> {
    let header = TcpHeader {
        flags: Flags::ACK | flags,
        conn_id: cfg.conn_id,
        seq: cfg.isn,
        ack: cfg.isn + 1u32 + ack,
        window,
        sack: SackList::default(),
        capability: None,
        bandwidth_kbps: bw,
        loss: None,
    };
    let mut buf = Vec::new();
    header.emit(&mut buf);
    buf
}

/// The answer to probe `id`, acknowledging up to `ack`.
fn probe_answer(cfg: &TcpConfig, id: u32, ack: u64) -> Vec<u8> {
    let mut header = TcpHeader::parse(&ack_full(cfg, ack, 256_000, Flags::PROBE, None))
        .unwrap()
        .0;
    header.seq = radial_core::seq::SeqNum(id);
    let mut buf = Vec::new();
    header.emit(&mut buf);
    buf
}

/// Feeds `datagram` at `t` ms and returns what the sender sends.
fn feed(tx: &mut Tx, t: u64, datagram: &[u8]) -> Vec<Seg> {
    tx.at(ms(t));
    tx.ep.handle_datagram(tx.now, PathId(0), datagram);
    tx.poll()
}

/// Runs the sender's timer if it is due by `t` ms; returns what it sent.
fn tick(tx: &mut Tx, t: u64) -> Vec<Seg> {
    tx.at(ms(t));
    if tx.ep.poll_timeout().is_some_and(|d| d <= tx.now) {
        tx.ep.handle_timeout(tx.now);
    }
    tx.poll()
}

fn ssthresh(tx: &Tx) -> u64 {
    tx.ep.controller().window().ssthresh
}

/// A TCP-HO sender whose SYN+ACK (at 100 ms, so SRTT = 100 ms) did or did
/// not carry the capability; segments 0 and 1 are outstanding.
fn ho_sender(variant: TcpVariant, capable: bool) -> Tx {
    let cfg = TcpConfig::ns2(variant);
    let mut tx = Tx::new(cfg, 400_000);
    let syn = tx.poll();
    assert_eq!(syn[0].header.capability, Some(CAPABILITY_HANDOFF));
    let mut synack = TcpHeader::parse(&ack_full(&cfg, 0, 256_000, Flags::SYN, None))
        .unwrap()
        .0;
    synack.capability = capable.then_some(CAPABILITY_HANDOFF);
    let mut buf = Vec::new();
    synack.emit(&mut buf);
    let first = feed(&mut tx, 100, &buf);
    assert_eq!(offsets(&first), vec![0, MSS]);
    tx
}

/// The link dies after the first window: timeouts at 400 ms and 1000 ms
/// (RTO 300 ms after one 100 ms sample, then backed off), each resending
/// segment 0 with cwnd at one segment.
fn outage(tx: &mut Tx) {
    assert!(tick(tx, 399).is_empty());
    assert_eq!(offsets(&tick(tx, 400)), vec![0]);
    assert!(tick(tx, 999).is_empty());
    assert_eq!(offsets(&tick(tx, 1000)), vec![0]);
    assert_eq!(tx.cwnd(), MSS);
    // The next timer, backed off 4×, would wait until 2200 ms.
    assert_eq!(tx.ep.poll_timeout(), Some(ms(2200)));
}

#[test]
fn tcp_ho_notice_transmits_at_once_with_ssthresh_from_the_new_bandwidth() {
    let mut tx = ho_sender(TcpVariant::Ho, true);
    outage(&mut tx);
    // 1500 ms: the host completed a handoff to an 8 Mbit/s link.
    let cfg = tx.cfg;
    let notice = ack_full(&cfg, 0, 256_000, Flags::default(), Some(8_000));
    let sent = feed(&mut tx, 1500, &notice);
    assert_eq!(offsets(&sent), vec![0], "go-back-N from the cumulative ack");
    assert_eq!(tx.ep.handoff_notices(), 1);
    // ssthresh = BW × SRTT_old = 1 MB/s × 100 ms; slow start from 1 segment.
    assert_eq!(ssthresh(&tx), 100_000);
    assert_eq!(tx.cwnd(), MSS);
    assert!(tx.ep.in_handoff_adjust());
    // The timer is no longer backed off.
    assert_eq!(tx.ep.poll_timeout(), Some(ms(1800)));
    // The second copy of the notice is the same handoff.
    assert!(feed(&mut tx, 1501, &notice).is_empty());
    assert_eq!(tx.ep.handoff_notices(), 1);

    // HO-ADJUST: the new path's round trip is 50 ms; after four samples
    // ssthresh is 1 MB/s × 50 ms and the sender is back to normal.
    let mut t = 1550;
    let mut samples = 0;
    while tx.ep.in_handoff_adjust() {
        let acked = tx.log.iter().map(|s| s.off + 1000).max().unwrap();
        feed(
            &mut tx,
            t,
            &ack_full(&cfg, acked, 256_000, Flags::default(), None),
        );
        t += 50;
        samples += 1;
        assert!(samples < 20, "HO-ADJUST never ended");
    }
    assert_eq!(ssthresh(&tx), 50_000);
    // Samples arrive one per round trip (Karn); the first round trip
    // acknowledges only the retransmission, which is not timed.
    assert_eq!(samples, 5);
}

#[test]
fn without_the_capability_a_notice_is_a_plain_duplicate_ack() {
    let mut tx = ho_sender(TcpVariant::Ho, false);
    outage(&mut tx);
    let cfg = tx.cfg;
    let notice = ack_full(&cfg, 0, 256_000, Flags::default(), Some(8_000));
    // A plain duplicate ACK: at most limited transmit of new data, segment
    // 0 still waits for the backed-off timer ("silly waiting").
    let sent = feed(&mut tx, 1500, &notice);
    assert!(!offsets(&sent).contains(&0), "{sent:?}");
    assert_eq!(tx.ep.handoff_notices(), 0);
    assert_eq!(tx.ep.poll_timeout(), Some(ms(2200)));
}

#[test]
fn tcp_ho_aggressive_sets_the_window_to_the_new_product_at_once() {
    let mut tx = ho_sender(TcpVariant::HoAggressive, true);
    outage(&mut tx);
    let cfg = tx.cfg;
    let sent = feed(
        &mut tx,
        1500,
        &ack_full(&cfg, 0, 256_000, Flags::default(), Some(8_000)),
    );
    assert_eq!(tx.cwnd(), 100_000);
    assert_eq!(ssthresh(&tx), 100_000);
    // The whole window goes out at once, starting with the lost segments.
    assert_eq!(
        offsets(&sent),
        (0..100).map(|k| k * MSS).collect::<Vec<_>>()
    );
}

#[test]
fn tcp_ho_immediate_ignores_the_bandwidth_and_takes_the_window_as_lost() {
    // The notice comes before any timeout: the window in flight is lost as
    // the timeout would have found it.
    let mut tx = ho_sender(TcpVariant::HoImmediate, true);
    slow_start_to(&mut tx, 4);
    assert_eq!(tx.cwnd(), 6 * MSS);
    let cfg = tx.cfg;
    let t = tx.now.as_nanos() / 1_000_000 + 50;
    let sent = feed(
        &mut tx,
        t,
        &ack_full(&cfg, 4 * MSS, 256_000, Flags::default(), Some(8_000)),
    );
    assert_eq!(offsets(&sent), vec![4 * MSS]);
    assert_eq!(tx.cwnd(), MSS);
    assert_eq!(ssthresh(&tx), 3 * MSS);
    assert!(!tx.ep.in_handoff_adjust());
}

/// Delivers segment `off` to `rx`, the application reading it at once.
fn data_to(rx: &mut TcpReceiver, cfg: &TcpConfig, off: u64) -> Vec<Seg> {
    rx.handle_datagram(
        Instant::ZERO,
        PathId(0),
        &data_datagram(cfg, off, 1000, Flags::default()),
    );
    let mut buf = [0u8; 2000];
    while rx.read(&mut buf) > 0 {}
    drain(rx, cfg.isn, Instant::ZERO)
}

fn syn_with(cfg: &TcpConfig, capability: Option<u16>) -> Vec<u8> {
    let mut h = TcpHeader::parse(&syn_datagram(cfg)).unwrap().0;
    h.capability = capability;
    let mut buf = Vec::new();
    h.emit(&mut buf);
    buf
}

#[test]
fn tcp_ho_receiver_echoes_the_capability_and_sends_two_notices() {
    for (variant, offered, notices) in [
        (TcpVariant::Ho, true, 2),
        (TcpVariant::Ho, false, 0),
        (TcpVariant::NewReno, true, 0),
    ] {
        let cfg = TcpConfig::ns2(variant);
        let mut rx = TcpReceiver::new(cfg, PathId(0));
        rx.handle_datagram(
            Instant::ZERO,
            PathId(0),
            &syn_with(&cfg, offered.then_some(CAPABILITY_HANDOFF)),
        );
        let synack = drain(&mut rx, cfg.isn, Instant::ZERO);
        let echoed = variant == TcpVariant::Ho && offered;
        assert_eq!(
            synack[0].header.capability,
            echoed.then_some(CAPABILITY_HANDOFF)
        );
        data_to(&mut rx, &cfg, 0);
        rx.handle_event(
            Instant::ZERO,
            HostEvent::HandoffHint {
                path: PathId(0),
                bandwidth: BitRate::from_kbps(7_000),
            },
        );
        let sent = drain(&mut rx, cfg.isn, Instant::ZERO);
        assert_eq!(sent.len(), notices, "{variant:?} offered {offered}");
        for s in &sent {
            assert_eq!(s.header.bandwidth_kbps, Some(7_000));
            assert_eq!(s.header.ack, cfg.isn + 1u32 + 1000u64);
        }
    }
}

#[test]
fn freeze_receiver_advertises_zero_until_the_link_is_back() {
    let cfg = TcpConfig::ns2(TcpVariant::Freeze);
    let mut rx = TcpReceiver::new(cfg, PathId(0));
    rx.handle_datagram(Instant::ZERO, PathId(0), &syn_datagram(&cfg));
    drain(&mut rx, cfg.isn, Instant::ZERO);
    assert_eq!(data_to(&mut rx, &cfg, 0)[0].header.window, 256_000);
    rx.handle_event(Instant::ZERO, HostEvent::LinkWarning { path: PathId(0) });
    let zwa = drain(&mut rx, cfg.isn, Instant::ZERO);
    assert_eq!(zwa.len(), 1);
    assert_eq!(zwa[0].header.window, 0);
    // Data still in flight is taken and acknowledged with the zero window.
    let ack = data_to(&mut rx, &cfg, 1000);
    assert_eq!(
        (ack[0].header.window, ack[0].header.ack),
        (0, cfg.isn + 1u32 + 2000u64)
    );
    rx.handle_event(Instant::ZERO, HostEvent::LinkDown { path: PathId(0) });
    rx.handle_event(Instant::ZERO, HostEvent::LinkUp { path: PathId(0) });
    let thaw = drain(&mut rx, cfg.isn, Instant::ZERO);
    assert_eq!(thaw.len(), 3, "three window-reopening ACKs");
    for s in &thaw {
        assert_eq!(s.header.window, 256_000);
        assert_eq!(s.header.ack, cfg.isn + 1u32 + 2000u64);
    }
    // A NewReno receiver ignores the warning.
    let cfg = TcpConfig::ns2(TcpVariant::NewReno);
    let mut rx = TcpReceiver::new(cfg, PathId(0));
    rx.handle_datagram(Instant::ZERO, PathId(0), &syn_datagram(&cfg));
    drain(&mut rx, cfg.isn, Instant::ZERO);
    rx.handle_event(Instant::ZERO, HostEvent::LinkWarning { path: PathId(0) });
    assert!(drain(&mut rx, cfg.isn, Instant::ZERO).is_empty());
}

#[test]
fn freeze_sender_waits_without_timeouts_and_resumes_at_its_window() {
    let (mut tx, _) = established(TcpVariant::Freeze, 400_000);
    slow_start_to(&mut tx, 4);
    let cwnd = tx.cwnd();
    let cfg = tx.cfg;
    // The zero window acknowledges everything in flight (segments 4..10).
    let t0 = tx.now.as_nanos() / 1_000_000 + 1;
    assert!(feed(
        &mut tx,
        t0,
        &ack_full(&cfg, 10 * MSS, 0, Flags::default(), None)
    )
    .is_empty());
    assert!(tx.ep.frozen());
    // Ten seconds of outage: window probes only (no payload), further and
    // further apart, and no retransmission timeout.
    let mut probes = Vec::new();
    let mut t = t0;
    while t < t0 + 10_000 {
        t += 10;
        for s in tick(&mut tx, t) {
            assert!(s.payload.is_empty(), "data sent into a zero window");
            probes.push(t);
        }
    }
    assert!(probes.len() >= 3, "{probes:?}");
    let gaps: Vec<u64> = probes.windows(2).map(|w| w[1] - w[0]).collect();
    assert!(
        gaps.windows(2).all(|g| g[1] >= g[0]),
        "backed off: {gaps:?}"
    );
    assert_eq!(tx.ep.stats().timeouts, 0);
    assert_eq!(tx.cwnd(), cwnd);
    // The window reopens: the whole frozen window goes out at once.
    let sent = feed(
        &mut tx,
        t + 1,
        &ack_full(&cfg, 10 * MSS, 256_000, Flags::default(), None),
    );
    assert!(!tx.ep.frozen());
    assert_eq!(
        offsets(&sent),
        (10..10 + cwnd / MSS).map(|k| k * MSS).collect::<Vec<_>>()
    );
}

/// A TCP-Probing sender in slow start with segments 4..10 outstanding,
/// round trips of 1 ms so far, and segment 4 lost: three duplicate ACKs
/// start a probe cycle. Returns the first probe's number. The survey's
/// cycle (`tcp-probing-paper`): these traces check its decisions as it
/// describes them; the simulator's tests check the rule `tcp-probing` adds
/// (its own standing queue counts as congestion).
fn probing_after_loss() -> (Tx, u32) {
    let (mut tx, _) = established(TcpVariant::ProbingPaper, 400_000);
    slow_start_to(&mut tx, 4);
    assert_eq!(offsets(&tx.ack(4 * MSS, &[])), vec![10 * MSS]);
    assert_eq!(offsets(&tx.ack(4 * MSS, &[])), vec![11 * MSS]);
    let sent = tx.ack(4 * MSS, &[]);
    assert_eq!(sent.len(), 1, "one probe, no retransmission: {sent:?}");
    assert!(sent[0].header.flags.contains(Flags::PROBE));
    assert!(tx.ep.probing());
    (tx, sent[0].header.seq.0)
}

#[test]
fn probing_clear_path_recovers_immediately_at_the_full_window() {
    let (mut tx, id) = probing_after_loss();
    let cwnd = tx.cwnd();
    let cfg = tx.cfg;
    let t = tx.now.as_nanos() / 1_000_000;
    let second = feed(&mut tx, t + 1, &probe_answer(&cfg, id, 4 * MSS));
    assert_eq!(second.len(), 1);
    assert!(second[0].header.flags.contains(Flags::PROBE));
    let sent = feed(
        &mut tx,
        t + 2,
        &probe_answer(&cfg, second[0].header.seq.0, 4 * MSS),
    );
    assert_eq!(offsets(&sent)[0], 4 * MSS, "the hole resent first");
    assert_eq!(tx.cwnd(), cwnd, "Immediate Recovery keeps the window");
    assert_eq!(tx.ep.probe_cycles(), (1, 1));
    assert!(!tx.ep.probing());
}

#[test]
fn probing_congested_path_falls_back_to_fast_recovery() {
    let (mut tx, id) = probing_after_loss();
    let cwnd = tx.cwnd();
    let cfg = tx.cfg;
    let t = tx.now.as_nanos() / 1_000_000;
    // Probes take 50 ms against a best round trip of 1 ms: queues are full.
    let second = feed(&mut tx, t + 50, &probe_answer(&cfg, id, 4 * MSS));
    let sent = feed(
        &mut tx,
        t + 100,
        &probe_answer(&cfg, second[0].header.seq.0, 4 * MSS),
    );
    assert_eq!(offsets(&sent)[0], 4 * MSS);
    assert_eq!(tx.cwnd(), cwnd / 2);
    assert_eq!(tx.ep.probe_cycles(), (1, 0));
}

#[test]
fn a_lost_probe_restarts_the_cycle_without_backing_off() {
    let (mut tx, id) = probing_after_loss();
    let rto = tx.ep.rto();
    let deadline = tx.ep.poll_timeout().unwrap();
    assert_eq!(deadline, tx.now + rto);
    let t = deadline.as_nanos() / 1_000_000;
    let again = tick(&mut tx, t);
    assert_eq!(again.len(), 1);
    assert!(again[0].header.flags.contains(Flags::PROBE));
    let id2 = again[0].header.seq.0;
    assert_ne!(id2, id);
    assert_eq!(tx.ep.rto(), rto, "no back-off while probing");
    assert_eq!(tx.ep.stats().timeouts, 0);
    // The lost probe's late answer does not count.
    let cfg = tx.cfg;
    assert!(feed(&mut tx, t + 1, &probe_answer(&cfg, id, 4 * MSS)).is_empty());
    assert!(tx.ep.probing());
}

const RWND: u64 = 5;

/// A timeout whose probe cycle finds the path clear: segments 4.. were
/// lost; returns the sender after the cycle, the window before it, the
/// timer's value before it, and what it sent at the cycle's end.
fn timeout_cycle_on_a_clear_path(variant: TcpVariant) -> (Tx, u64, Duration, Vec<u64>) {
    // A receiver window of five segments, which slow start reaches: with
    // the receiver's window holding the sender, a round trip longer than
    // the best is not the connection's own queue (`tcp-probing`'s rule).
    let cfg = TcpConfig {
        window: RWND,
        ..TcpConfig::ns2(variant)
    };
    let (mut tx, _) = established_with(cfg, 400_000);
    slow_start_to(&mut tx, 3);
    // cwnd reached the receiver's window; 4..9 outstanding, all lost.
    assert_eq!(offsets(&tx.ack(4 * MSS, &[])), vec![8 * MSS]);
    let cwnd = tx.cwnd();
    let rto = tx.ep.rto();
    let deadline = tx.ep.poll_timeout().unwrap();
    let t = deadline.as_nanos() / 1_000_000;
    let probe = tick(&mut tx, t);
    assert_eq!(probe.len(), 1);
    assert!(probe[0].header.flags.contains(Flags::PROBE));
    let cfg = tx.cfg;
    let second = feed(
        &mut tx,
        t + 1,
        &probe_answer(&cfg, probe[0].header.seq.0, 4 * MSS),
    );
    let sent = feed(
        &mut tx,
        t + 2,
        &probe_answer(&cfg, second[0].header.seq.0, 4 * MSS),
    );
    assert_eq!(tx.ep.stats().timeouts, 1);
    (tx, cwnd, rto, offsets(&sent))
}

#[test]
fn probing_after_a_timeout_on_a_clear_path_recovers_at_the_old_window() {
    let (tx, cwnd, rto, sent) = timeout_cycle_on_a_clear_path(TcpVariant::Probing);
    // The hole is resent; what the receiver may hold beyond it is not (no
    // go-back-N burst of the whole window).
    assert_eq!(sent[0], 4 * MSS);
    assert!(!sent.contains(&(5 * MSS)), "{sent:?}");
    assert_eq!(tx.cwnd(), cwnd);
    // Not backed off: the probes' answers are round-trip samples, which
    // may only bring the timer down here.
    assert!(
        tx.ep.rto() <= rto,
        "timer backed off: {:?} after {rto:?}",
        tx.ep.rto()
    );
}

/// The survey's "full-window recovery": after a timeout and a clear cycle
/// the paper's TCP-Probing goes back N from the cumulative acknowledgment
/// at the window it held before.
#[test]
fn the_papers_probing_goes_back_n_at_the_full_window_after_a_clear_timeout_cycle() {
    let (tx, cwnd, rto, sent) = timeout_cycle_on_a_clear_path(TcpVariant::ProbingPaper);
    let window = (cwnd / MSS).min(RWND);
    let expected: Vec<u64> = (4..4 + window).map(|k| k * MSS).collect();
    assert_eq!(sent, expected, "the whole window again from the hole");
    assert_eq!(tx.cwnd(), cwnd);
    assert!(tx.ep.rto() <= rto);
}

/// Timeouts whose probe cycles each find congestion: each takes the
/// standard response, one doubling of the timer, but the doublings do not
/// pile up, since every completed cycle's answered probes are unambiguous
/// round-trip samples (Karn's rule, RFC 6298 §5: a valid sample ends the
/// backoff).
#[test]
fn congested_timeout_cycles_back_the_timer_off_once_each_not_ever_more() {
    for variant in [TcpVariant::ProbingPaper, TcpVariant::Probing] {
        let (mut tx, _) = established(variant, 400_000);
        slow_start_to(&mut tx, 4);
        let cfg = tx.cfg;
        let mut waits = Vec::new();
        for _ in 0..4 {
            let before = tx.now;
            let deadline = tx.ep.poll_timeout().expect("data outstanding");
            waits.push(deadline - before);
            let t = deadline.as_nanos() / 1_000_000;
            let probe = tick(&mut tx, t);
            assert!(probe[0].header.flags.contains(Flags::PROBE), "{probe:?}");
            // Probes take 60 ms against a best round trip of 1 ms: a queue
            // stands, so the cycle counts as congestion.
            let second = feed(
                &mut tx,
                t + 60,
                &probe_answer(&cfg, probe[0].header.seq.0, 4 * MSS),
            );
            feed(
                &mut tx,
                t + 120,
                &probe_answer(&cfg, second[0].header.seq.0, 4 * MSS),
            );
            assert!(!tx.ep.probing());
            assert_eq!(tx.cwnd(), MSS, "the timeout's standard response");
        }
        let timeouts = tx.ep.stats().timeouts;
        assert_eq!(timeouts, 4);
        assert!(
            waits[3] <= waits[1],
            "{variant:?}: the timer kept backing off: {waits:?}"
        );
    }
}

#[test]
fn probing_receiver_answers_each_probe_with_its_number() {
    let cfg = TcpConfig::ns2(TcpVariant::Probing);
    let mut rx = TcpReceiver::new(cfg, PathId(0));
    rx.handle_datagram(Instant::ZERO, PathId(0), &syn_datagram(&cfg));
    drain(&mut rx, cfg.isn, Instant::ZERO);
    data_to(&mut rx, &cfg, 0);
    let mut probe = TcpHeader::parse(&syn_datagram(&cfg)).unwrap().0;
    probe.flags = Flags::PROBE;
    probe.seq = radial_core::seq::SeqNum(77);
    let mut buf = Vec::new();
    probe.emit(&mut buf);
    rx.handle_datagram(Instant::ZERO + Duration::from_millis(1), PathId(0), &buf);
    let answer = drain(&mut rx, cfg.isn, Instant::ZERO);
    assert_eq!(answer.len(), 1);
    assert!(answer[0].header.flags.contains(Flags::PROBE | Flags::ACK));
    assert_eq!(answer[0].header.seq.0, 77);
    assert_eq!(answer[0].header.ack, cfg.isn + 1u32 + 1000u64);
}

#[test]
fn probing_ends_its_cycle_when_the_round_trip_grew_past_the_timer() {
    // After a timeout the path's round trip is 1.5 s, far beyond the timer
    // (200 ms, from round trips of a few ms): every probe times out before
    // its answer comes. The late answers are round-trip samples, so the
    // timer grows and a later probe's answer arrives in time: the cycle ends
    // and data flows again. Without the samples the cycle never ends.
    let (mut tx, _) = established(TcpVariant::Probing, 400_000);
    slow_start_to(&mut tx, 4);
    let start = tx.ep.poll_timeout().unwrap().as_nanos() / 1_000_000;
    let cfg = tx.cfg;
    let mut answers: Vec<(u64, u32)> = Vec::new();
    let before = tx.log.len();
    let mut resumed_at = None;
    for t in start..start + 30_000 {
        let mut out = tick(&mut tx, t);
        for &(_, id) in answers.iter().filter(|a| a.0 == t) {
            out.extend(feed(&mut tx, t, &probe_answer(&cfg, id, 4 * MSS)));
        }
        for s in out.iter().filter(|s| s.header.flags.contains(Flags::PROBE)) {
            answers.push((t + 1_500, s.header.seq.0));
        }
        if tx.log.len() > before {
            resumed_at = Some(t);
            break;
        }
    }
    let resumed_at = resumed_at.expect("the probe cycle never ended");
    assert!(
        resumed_at - start < 10_000,
        "resumed after {} ms",
        resumed_at - start
    );
}
