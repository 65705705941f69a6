//! Tests of the RCP sender: handshakes, pulls, shared streams, queue caps.

use super::*;
use crate::rcp::RcpVariant;
use crate::seq::SeqNum;
use crate::wire::rcp::PullBlock;

fn config() -> RcpConfig {
    let mut c = RcpConfig::ns2(RcpVariant::Rcp);
    c.conn_id = 5;
    c
}

fn datagram(h: &RcpHeader) -> Vec<u8> {
    let mut d = Vec::new();
    h.emit(&mut d);
    d
}

/// A stored-stream sender past its handshake.
fn established(len: u64) -> RcpSender<StoredStream> {
    let c = config();
    let mut s = RcpSender::stored(c, PathId(0), len);
    let now = Instant::ZERO;
    s.on_datagram(
        now,
        &datagram(&RcpHeader::new(RcpFlags::SYN, 5, SeqNum(0), SeqNum(0), 0)),
    );
    s.on_datagram(
        now,
        &datagram(&RcpHeader::new(RcpFlags::ACK, 5, SeqNum(0), SeqNum(0), 0)),
    );
    let mut buf = Vec::new();
    while s.poll_segment(now, &mut buf).is_some() {}
    s
}

/// Two senders of one shared stream, both past the handshake.
fn shared_pair(stream: &SharedStream) -> [RcpSender<SharedStream>; 2] {
    [0, 1].map(|p| {
        let mut s = RcpSender::shared(config(), PathId(p), stream.clone());
        let now = Instant::ZERO;
        for flags in [RcpFlags::SYN, RcpFlags::ACK] {
            s.on_datagram(
                now,
                &datagram(&RcpHeader::new(flags, 5, SeqNum(0), SeqNum(0), 0)),
            );
        }
        let mut buf = Vec::new();
        while s.poll_segment(now, &mut buf).is_some() {}
        s
    })
}

fn sent(s: &mut RcpSender<SharedStream>) -> Vec<(u64, usize)> {
    let mut buf = Vec::new();
    std::iter::from_fn(|| s.poll_segment(Instant::ZERO, &mut buf))
        .filter(|seg| seg.len > 0)
        .map(|seg| (seg.offset, seg.len))
        .collect()
}

#[test]
fn pulls_ahead_of_a_shared_stream_wait_until_it_grows_and_its_deq_purges_for_every_pipe() {
    let stream = SharedStream::new();
    stream.extend_to(1500);
    let [mut a, mut b] = shared_pair(&stream);
    // Within what is written: served at once, by either pipe.
    a.on_datagram(Instant::ZERO, &pull(1, 0, 1000, 0));
    assert_eq!(sent(&mut a), vec![(0, 1000)]);
    // Past it: each waits, whole.
    a.on_datagram(Instant::ZERO, &pull(2, 1000, 2000, 0));
    b.on_datagram(Instant::ZERO, &pull(1, 2000, 3000, 0));
    assert!(sent(&mut a).is_empty() && sent(&mut b).is_empty());
    // The application writes up to 2,500: the first is served once told.
    stream.extend_to(2500);
    assert!(sent(&mut a).is_empty(), "not before it is told");
    a.stream_grew();
    b.stream_grew();
    assert_eq!(sent(&mut a), vec![(1000, 1000)]);
    assert!(sent(&mut b).is_empty());
    // Closed at 2,500: what is left of the last is sent.
    stream.close();
    b.stream_grew();
    assert_eq!(sent(&mut b), vec![(2000, 500)]);
    // SEG.DEQ on one pipe purges for both, never past what was written.
    b.on_datagram(Instant::ZERO, &pull(2, 0, 1, 9_000));
    assert_eq!(Source::base(&stream), 2500);
    assert!(sent(&mut a).is_empty(), "nothing below the purge point");
    // Writes after the close change nothing.
    stream.extend_to(4000);
    assert_eq!(stream.end(), 2500);
}

/// The headers `s` sends now.
fn headers(s: &mut RcpSender<SharedStream>) -> Vec<RcpHeader> {
    let mut buf = Vec::new();
    let mut out = Vec::new();
    while s.poll_segment(Instant::ZERO, &mut buf).is_some() {
        out.push(RcpHeader::parse(&buf).unwrap().0);
    }
    out
}

#[test]
fn an_idle_shared_stream_sender_announces_growth_and_close_once_each() {
    let stream = SharedStream::new();
    let [mut a, _] = shared_pair(&stream);
    let c = config();
    stream.extend_to(3000);
    a.stream_grew();
    let h = headers(&mut a);
    assert_eq!(h.len(), 1, "one UPDATE: {h:?}");
    assert_eq!(h[0].deq, c.wire_seq(3000));
    assert!(!h[0].flags.contains(RcpFlags::FIN));
    // Told already: no second announcement.
    a.stream_grew();
    assert!(headers(&mut a).is_empty());
    // A pull that data answers carries the news itself.
    a.on_datagram(Instant::ZERO, &pull(1, 0, 4000, 0));
    stream.extend_to(4000);
    a.stream_grew();
    let h = headers(&mut a);
    assert!(h.iter().all(|h| h.id == 1), "data only: {h:?}");
    // The close is news too.
    stream.close();
    a.stream_grew();
    let h = headers(&mut a);
    assert_eq!(h.len(), 1);
    assert!(h[0].flags.contains(RcpFlags::FIN));
}

fn pull(id: u32, start: u64, end: u64, deq: u64) -> Vec<u8> {
    let c = config();
    let mut h = RcpHeader::new(
        RcpFlags::REQ | RcpFlags::PUL,
        5,
        c.wire_seq(0),
        c.wire_seq(deq),
        id,
    );
    h.push_block(PullBlock {
        start: c.wire_seq(start),
        end: c.wire_seq(end),
        id,
    });
    datagram(&h)
}

#[test]
fn a_syn_ack_names_the_latest_syn_it_answers() {
    let mut s = RcpSender::stored(config(), PathId(0), 1000);
    let mut buf = Vec::new();
    for (id, at) in [(1, 0), (2, 1_000)] {
        let now = Instant::from_millis(at);
        let syn = RcpHeader::new(RcpFlags::SYN, 5, SeqNum(0), SeqNum(0), id);
        s.on_datagram(now, &datagram(&syn));
        assert!(s.poll_segment(now, &mut buf).is_some(), "a SYN+ACK");
        let (h, _) = RcpHeader::parse(&buf).unwrap();
        assert!(h.flags.contains(RcpFlags::SYN | RcpFlags::ACK));
        assert_eq!(h.id, id);
    }
}

#[test]
fn a_stored_stream_is_served_a_segment_at_a_time_with_payload_ranges() {
    let mut s = established(2500);
    s.on_datagram(Instant::ZERO, &pull(1, 0, 2500, 0));
    let mut buf = Vec::new();
    let mut segs = Vec::new();
    while let Some(seg) = s.poll_segment(Instant::ZERO, &mut buf) {
        let (h, rest) = RcpHeader::parse(&buf).unwrap();
        assert!(rest.is_empty(), "the driver appends the payload");
        segs.push((seg.offset, seg.len, h.flags.contains(RcpFlags::FIN)));
    }
    // A closed stream marks every datagram: its end is the advertised
    // SEG.DEQ.
    assert_eq!(
        segs,
        vec![(0, 1000, true), (1000, 1000, true), (2000, 500, true)]
    );
}

#[test]
fn a_pull_far_ahead_or_in_the_past_of_a_forged_deq_is_still_served_from_a_stored_stream() {
    // A SEG.DEQ far ahead purges nothing a stored stream could not send
    // again: a later pull for earlier bytes is served.
    let mut s = established(100_000_000);
    s.on_datagram(Instant::ZERO, &pull(1, 0, 10, 60_000_000));
    s.on_datagram(Instant::ZERO, &pull(2, 1000, 2000, 0));
    let mut buf = Vec::new();
    let mut offsets = Vec::new();
    while let Some(seg) = s.poll_segment(Instant::ZERO, &mut buf) {
        offsets.push(seg.offset);
    }
    assert_eq!(offsets, vec![0, 1000]);
}

#[test]
fn queued_data_is_capped_however_much_is_requested() {
    let mut s = established(1 << 40);
    let limit = 2 * config().rwnd_bytes();
    for id in 1..=1000u32 {
        let at = u64::from(id) * 50_000_000;
        s.on_datagram(Instant::ZERO, &pull(id, at, at + 40_000_000, 0));
        assert!(s.queued_bytes() <= limit, "{} queued", s.queued_bytes());
    }
    // A cumulative request far ahead adds nothing past the cap either.
    let c = config();
    let h = RcpHeader::new(RcpFlags::REQ, 5, c.wire_seq(1 << 39), c.wire_seq(0), 0);
    s.on_datagram(Instant::ZERO, &datagram(&h));
    assert!(s.queued_bytes() <= limit);
    assert!(s.out.len() <= s.queue_entries());
    // Sending drains the count.
    let mut buf = Vec::new();
    let mut sent = 0;
    while let Some(seg) = s.poll_segment(Instant::ZERO, &mut buf) {
        sent += seg.len as u64;
    }
    assert_eq!(sent, limit);
    assert_eq!(s.queued_bytes(), 0);
}

#[test]
fn many_tiny_pulls_cannot_grow_the_queue_past_its_entries() {
    let mut s = established(1 << 30);
    for id in 1..=100_000u32 {
        let at = u64::from(id) * 10;
        s.on_datagram(Instant::ZERO, &pull(id, at, at + 1, 0));
    }
    assert!(s.out.len() <= s.queue_entries(), "{}", s.out.len());
}

#[test]
fn repeated_probes_and_syn_acks_queue_one_answer_each() {
    // A receiver that floods PROBEs and SYN+ACKs while the driver cannot
    // send (a limit holds the pipe back) gets one UPDATE and one ACK.
    let mut s = established(1 << 20);
    let c = config();
    let probe = RcpHeader::new(
        RcpFlags::REQ | RcpFlags::PROBE,
        5,
        c.wire_seq(0),
        c.wire_seq(0),
        0,
    );
    let synack = RcpHeader::new(RcpFlags::SYN | RcpFlags::ACK, 5, SeqNum(0), SeqNum(0), 0);
    for _ in 0..100_000 {
        s.on_datagram(Instant::ZERO, &datagram(&probe));
        s.on_datagram(Instant::ZERO, &datagram(&synack));
    }
    assert_eq!(s.queued_entries(), 2);
    let mut buf = Vec::new();
    let mut kinds = Vec::new();
    while s.poll_segment(Instant::ZERO, &mut buf).is_some() {
        let (h, _) = RcpHeader::parse(&buf).unwrap();
        kinds.push(h.flags.contains(RcpFlags::ACK));
    }
    assert_eq!(kinds, vec![false, true], "an UPDATE, then an ACK");
    // Once sent, the next PROBE is answered again.
    s.on_datagram(Instant::ZERO, &datagram(&probe));
    assert!(s.poll_segment(Instant::ZERO, &mut buf).is_some());
}

#[test]
fn a_pull_far_ahead_grows_the_send_buffer_so_the_application_writes_on() {
    use crate::endpoint::Endpoint;
    let c = config();
    let mut s = RcpSender::new(c, PathId(0));
    let now = Instant::ZERO;
    for flags in [RcpFlags::SYN, RcpFlags::ACK] {
        s.on_datagram(
            now,
            &datagram(&RcpHeader::new(flags, 5, SeqNum(0), SeqNum(0), 0)),
        );
    }
    let chunk = vec![7u8; 1000];
    let fill = |s: &mut RcpSender| {
        let mut n = 0;
        while s.send_capacity() > 0 {
            n += s.write(&chunk[..s.send_capacity().min(1000)]);
        }
        n
    };
    assert_eq!(fill(&mut s), c.send_buffer);
    // A receiver by reservation asks for the last segment the buffer holds:
    // the buffer grows to twice that reach, and the application writes on.
    let end = c.send_buffer as u64;
    s.on_datagram(now, &pull(1, end - 1000, end, 0));
    assert_eq!(fill(&mut s), c.send_buffer);
    assert_eq!(s.write_offset(), Some(2 * end));
    // Pulls within half of it change nothing.
    s.on_datagram(now, &pull(2, 0, 1000, 0));
    assert_eq!(fill(&mut s), 0);
}
