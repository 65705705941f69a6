use super::*;
use proptest::prelude::*;

fn pair(config: MuxConfig) -> (Mux, Mux) {
    (Mux::new(Side::Host, config), Mux::new(Side::Server, config))
}

/// Moves up to `budget` bytes of `from`'s frames into `to`; returns how
/// many.
fn shuttle(from: &mut Mux, to: &mut Mux, budget: usize) -> usize {
    let mut wire = Vec::new();
    let n = from.poll_transmit(budget, &mut wire);
    assert_eq!(n, wire.len());
    assert!(n <= budget);
    to.on_bytes(&wire).expect("frames from a mux parse");
    n
}

/// Reads everything `id` holds.
fn drain(m: &mut Mux, id: StreamId) -> (Vec<u8>, bool) {
    let mut got = Vec::new();
    let mut buf = [0u8; 3000];
    loop {
        match m.read(id, &mut buf).expect("stream open") {
            None => return (got, false),
            Some(0) => return (got, true),
            Some(n) => got.extend_from_slice(&buf[..n]),
        }
    }
}

/// A stream's bytes: a pattern that tells a misplaced byte.
fn bytes_of(stream: u32, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u32).wrapping_mul(31).wrapping_add(stream * 7) as u8)
        .collect()
}

#[test]
fn a_side_that_stops_reading_still_sends_whole_and_lets_the_peer_finish() {
    let config = MuxConfig::default();
    let (mut host, mut server) = pair(config);
    let id = host.open().unwrap();
    // The host writes its request and the server answers far more than a
    // window, which the host will not read.
    host.write(id, b"request").unwrap();
    shuttle(&mut host, &mut server, usize::MAX);
    let sid = server.accept().unwrap();
    let big = bytes_of(sid.0, 3 * config.window as usize);
    host.stop_reading(id);
    let reply = bytes_of(id.0, 100_000);
    let mut written = 0;
    let mut sent = 0;
    let mut got = Vec::new();
    let mut ended = false;
    for _ in 0..10_000 {
        if sent < big.len() {
            sent += server.write(sid, &big[sent..]).unwrap();
        } else {
            let _ = server.finish(sid);
        }
        if written < reply.len() {
            written += host.write(id, &reply[written..]).unwrap();
        } else {
            let _ = host.finish(id);
        }
        shuttle(&mut server, &mut host, 4_000);
        shuttle(&mut host, &mut server, 4_000);
        if !ended {
            let (more, end) = drain(&mut server, sid);
            got.extend(more);
            ended = end;
        }
        if host.open_streams() == 0 && ended {
            break;
        }
    }
    assert_eq!(sent, big.len(), "the peer was let finish");
    assert!(ended, "the host's end arrived");
    assert!(
        got.len() >= 7 && got[7..] == reply[..],
        "what the host sent arrived whole"
    );
    assert_eq!(
        host.open_streams(),
        0,
        "the stream is gone on the host once both ends ended"
    );
}

#[test]
fn padding_between_frames_carries_nothing_however_the_sequence_is_cut() {
    let (mut host, _) = pair(MuxConfig::default());
    let id = host.open().unwrap();
    let data = bytes_of(id.0, 5_000);
    // Two frames, padding before, between and after them.
    let mut padded = vec![0; 700];
    host.write(id, &data[..3_000]).unwrap();
    host.poll_transmit(usize::MAX, &mut padded);
    padded.extend(std::iter::repeat_n(0, 1_199));
    host.write(id, &data[3_000..]).unwrap();
    host.finish(id).unwrap();
    host.poll_transmit(usize::MAX, &mut padded);
    padded.extend(std::iter::repeat_n(0, 500));
    for chunk in [1, 7, 1_200, usize::MAX] {
        let (_, mut server) = pair(MuxConfig::default());
        for piece in padded.chunks(chunk.min(padded.len())) {
            server.on_bytes(piece).unwrap();
        }
        let got = server.accept().expect("the stream");
        assert_eq!(drain(&mut server, got), (data.clone(), true));
    }
}

#[test]
fn frames_parse_back_and_name_what_is_wrong() {
    let frames = [
        Frame::Data {
            stream: 7,
            payload: vec![1, 2, 3],
            fin: false,
        },
        Frame::Data {
            stream: 0,
            payload: vec![],
            fin: true,
        },
        Frame::Data {
            stream: u32::MAX,
            payload: vec![9; MAX_PAYLOAD],
            fin: true,
        },
        Frame::Credit {
            stream: 3,
            limit: u64::MAX,
        },
        Frame::Reset { stream: 4, code: 2 },
        Frame::Padding,
    ];
    for f in frames {
        let mut b = Vec::new();
        f.emit(&mut b);
        assert_eq!(Frame::parse(&b), Ok(Some((f.clone(), b.len()))));
        assert_eq!(Frame::parse(&b[..b.len() - 1]), Ok(None), "{f:?}");
    }
    assert_eq!(Frame::parse(&[0x09]), Err(FrameError::Kind(9)));
    // An empty DATA frame without FIN, and one past the largest payload.
    assert_eq!(
        Frame::parse(&[0x01, 0, 0, 0, 1, 0, 0]),
        Err(FrameError::Length(0))
    );
    let too_long = (MAX_PAYLOAD as u16 + 1).to_be_bytes();
    assert_eq!(
        Frame::parse(&[0x02, 0, 0, 0, 1, too_long[0], too_long[1]]),
        Err(FrameError::Length(MAX_PAYLOAD as u16 + 1))
    );
}

#[test]
fn streams_both_ways_arrive_whole_in_order_and_end() {
    let (mut host, mut server) = pair(MuxConfig::default());
    let mut sent = Vec::new();
    for k in 0..8u32 {
        let (m, len) = if k % 2 == 0 {
            (&mut host, 100_000 + 1_000 * k as usize)
        } else {
            (&mut server, 50_000 + 3_000 * k as usize)
        };
        let id = m.open().unwrap();
        sent.push((id, k % 2 == 0, bytes_of(id.0, len)));
    }
    let mut written = vec![0usize; sent.len()];
    let mut got: Vec<Vec<u8>> = vec![Vec::new(); sent.len()];
    let mut ended = vec![false; sent.len()];
    // The opener's view of the end of the other half, which the receiver
    // finishes once it has read the whole stream.
    let mut closed = vec![false; sent.len()];
    let mut accepted = Vec::new();
    for _round in 0..10_000 {
        for (i, (id, by_host, data)) in sent.iter().enumerate() {
            let m = if *by_host { &mut host } else { &mut server };
            if written[i] < data.len() {
                let end = (written[i] + 7_001).min(data.len());
                written[i] += m.write(*id, &data[written[i]..end]).unwrap();
                if written[i] == data.len() {
                    m.finish(*id).unwrap();
                }
            }
        }
        shuttle(&mut host, &mut server, 5_000);
        shuttle(&mut server, &mut host, 5_000);
        accepted.extend(host.accept().into_iter().chain(server.accept()));
        for (i, (id, by_host, _)) in sent.iter().enumerate() {
            let (opener, receiver) = if *by_host {
                (&mut host, &mut server)
            } else {
                (&mut server, &mut host)
            };
            if !ended[i] && accepted.contains(id) {
                let (b, end) = drain(receiver, *id);
                got[i].extend(b);
                ended[i] = end;
                if end {
                    receiver.finish(*id).unwrap();
                }
            }
            if ended[i] && !closed[i] {
                let (b, end) = drain(opener, *id);
                assert!(b.is_empty());
                closed[i] = end;
            }
        }
        if closed.iter().all(|&e| e) {
            break;
        }
    }
    for (i, (id, _, data)) in sent.iter().enumerate() {
        assert!(ended[i] && closed[i], "{id} did not end");
        assert_eq!(&got[i], data, "{id}");
    }
    // Every stream ended both ways is forgotten.
    assert_eq!(host.open_streams() + server.open_streams(), 0);
}

#[test]
fn backlogged_streams_share_the_connection_equally() {
    let (mut host, mut server) = pair(MuxConfig::default());
    let a = server.open().unwrap();
    let b = server.open().unwrap();
    server.write(a, &vec![1; 200_000]).unwrap();
    server.write(b, &vec![2; 200_000]).unwrap();
    // Frames of at most 1,200 bytes, as a datagram's worth at a time.
    for _ in 0..50 {
        shuttle(&mut server, &mut host, 1_200);
    }
    let (ra, rb) = (host.readable(a), host.readable(b));
    assert!(ra > 0 && rb > 0);
    assert!(
        ra.abs_diff(rb) <= 1_200,
        "unequal shares: {ra} and {rb} bytes"
    );
}

#[test]
fn a_reader_that_does_not_read_stops_only_its_own_stream() {
    let config = MuxConfig {
        window: 100_000,
        max_window: 100_000,
        send_buffer: 1_000_000,
        max_streams: 16,
    };
    let (mut host, mut server) = pair(config);
    let idle = server.open().unwrap();
    let busy = server.open().unwrap();
    server.write(idle, &vec![1; 1_000_000]).unwrap();
    let mut read = 0;
    let mut buf = vec![0u8; 64 * 1024];
    for _ in 0..400 {
        if server.send_space(busy) > 0 {
            server.write(busy, &vec![2; 10_000]).unwrap();
        }
        shuttle(&mut server, &mut host, 16_000);
        shuttle(&mut host, &mut server, 16_000);
        // The host reads `busy` and never `idle`.
        if let Ok(Some(n)) = host.read(busy, &mut buf) {
            read += n;
        }
    }
    assert_eq!(host.readable(idle), 100_000, "held to its window");
    assert!(read > 1_000_000, "the other stream went on: {read} bytes");
    // Reading `idle` lets its sender go on.
    let (first, _) = drain(&mut host, idle);
    assert_eq!(first.len(), 100_000);
    for _ in 0..4 {
        shuttle(&mut host, &mut server, 16_000);
        shuttle(&mut server, &mut host, 100_000);
    }
    assert!(host.readable(idle) > 0);
}

#[test]
fn a_reset_reaches_the_peer_with_its_code_and_later_bytes_are_dropped() {
    let (mut host, mut server) = pair(MuxConfig::default());
    let id = host.open().unwrap();
    host.write(id, b"hello").unwrap();
    shuttle(&mut host, &mut server, 10_000);
    assert_eq!(server.accept(), Some(id));
    // The server writes; the host resets before reading it.
    server.write(id, b"world").unwrap();
    host.reset(id, reset_code::CANCELLED);
    shuttle(&mut host, &mut server, 10_000);
    shuttle(&mut server, &mut host, 10_000);
    assert_eq!(host.read(id, &mut [0; 8]), Err(StreamError::Unknown));
    assert_eq!(
        server.write(id, b"more"),
        Err(StreamError::Reset(reset_code::CANCELLED))
    );
    assert_eq!(server.read(id, &mut [0; 8]), Err(StreamError::Unknown));
    assert_eq!(host.open_streams() + server.open_streams(), 0);
}

#[test]
fn streams_past_the_limit_are_refused() {
    let config = MuxConfig {
        max_streams: 2,
        ..MuxConfig::default()
    };
    let (mut host, mut server) = pair(config);
    let ids: Vec<StreamId> = (0..3).map(|_| host.open().unwrap()).collect();
    for &id in &ids {
        host.write(id, b"x").unwrap();
    }
    shuttle(&mut host, &mut server, 10_000);
    shuttle(&mut server, &mut host, 10_000);
    assert_eq!(server.accept(), Some(ids[0]));
    assert_eq!(server.accept(), Some(ids[1]));
    assert_eq!(server.accept(), None);
    assert_eq!(
        host.write(ids[2], b"y"),
        Err(StreamError::Reset(reset_code::REFUSED))
    );
    assert_eq!(host.write(ids[0], b"y"), Ok(1));
}

#[test]
fn a_peer_opening_refused_streams_faster_than_refusals_leave_ends_the_connection() {
    let config = MuxConfig {
        max_streams: 1,
        ..MuxConfig::default()
    };
    let (_, mut server) = pair(config);
    // Empty DATA+FIN frames on ever new host streams, nothing sent back.
    let mut wire = Vec::new();
    for k in 0..=MAX_RESETS as u32 + 1 {
        Frame::Data {
            stream: 2 * k,
            payload: Vec::new(),
            fin: true,
        }
        .emit(&mut wire);
    }
    let last = 2 * (MAX_RESETS as u32 + 1);
    assert_eq!(
        server.on_bytes(&wire),
        Err(MuxError::TooManyStreams { stream: last })
    );
    // Its refusals were held to the cap.
    let mut out = Vec::new();
    server.poll_transmit(usize::MAX, &mut out);
    let mut refusals = 0;
    let mut rest = &out[..];
    while let Ok(Some((f, n))) = Frame::parse(rest) {
        refusals += usize::from(matches!(f, Frame::Reset { .. }));
        rest = &rest[n..];
    }
    assert_eq!(refusals, MAX_RESETS);
}

#[test]
fn a_finished_stream_takes_no_more_and_its_reader_sees_the_end() {
    let (mut host, mut server) = pair(MuxConfig::default());
    let id = server.open().unwrap();
    server.write(id, b"abc").unwrap();
    server.finish(id).unwrap();
    assert_eq!(server.write(id, b"d"), Err(StreamError::Finished));
    shuttle(&mut server, &mut host, 10_000);
    assert_eq!(host.accept(), Some(id));
    assert_eq!(drain(&mut host, id), (b"abc".to_vec(), true));
    // A stream that was never opened.
    assert_eq!(
        host.read(StreamId(99), &mut [0; 1]),
        Err(StreamError::Unknown)
    );
}

#[test]
fn violations_end_the_connection_naming_the_stream() {
    let feed = |frames: &[Frame]| {
        let mut m = Mux::new(Side::Server, MuxConfig::default());
        let mut b = Vec::new();
        for f in frames {
            f.emit(&mut b);
        }
        let r = m.on_bytes(&b);
        // The same error on every later call.
        assert_eq!(m.on_bytes(&[]), r);
        r
    };
    let data = |stream, n, fin| Frame::Data {
        stream,
        payload: vec![0; n],
        fin,
    };
    // Past the window (the credit a receiver holds itself to).
    let frames = MuxConfig::default().window as usize / MAX_PAYLOAD + 1;
    let too_much: Vec<Frame> = (0..frames).map(|_| data(0, MAX_PAYLOAD, false)).collect();
    assert_eq!(feed(&too_much), Err(MuxError::FlowControl { stream: 0 }));
    // A server-numbered stream the server never opened.
    assert_eq!(
        feed(&[data(1, 1, false)]),
        Err(MuxError::UnopenedStream { stream: 1 })
    );
    assert_eq!(
        feed(&[data(2, 1, true), data(2, 1, false)]),
        Err(MuxError::DataAfterFin { stream: 2 })
    );
    let mut m = Mux::new(Side::Host, MuxConfig::default());
    assert_eq!(
        m.on_bytes(&[0x07]),
        Err(MuxError::Frame(FrameError::Kind(7)))
    );
}

/// Found by the fuzz target: the highest stream numbers overflowed the
/// count of numbers the peer has used.
#[test]
fn the_highest_stream_numbers_are_streams_like_any_other() {
    let mut server = Mux::new(Side::Server, MuxConfig::default());
    let mut b = Vec::new();
    for stream in [u32::MAX - 1, u32::MAX - 1] {
        Frame::Data {
            stream,
            payload: vec![1],
            fin: false,
        }
        .emit(&mut b);
    }
    server.on_bytes(&b).unwrap();
    assert_eq!(server.accept(), Some(StreamId(u32::MAX - 1)));
    assert_eq!(server.accept(), None);
    assert_eq!(server.readable(StreamId(u32::MAX - 1)), 2);
    // Ours: the last number a server opens, then none.
    server.next_local = u64::from(u32::MAX);
    assert_eq!(server.open(), Some(StreamId(u32::MAX)));
    assert_eq!(server.open(), None);
    let mut host = Mux::new(Side::Host, MuxConfig::default());
    let mut b = Vec::new();
    Frame::Reset {
        stream: u32::MAX,
        code: 1,
    }
    .emit(&mut b);
    host.on_bytes(&b).unwrap();
    host.on_bytes(&b).unwrap();
    assert_eq!(host.open_streams(), 0);
}

/// A host, and the server's streams of `lens` bytes each, finished, as
/// the sequence the server sends it.
fn streams_on_the_wire(lens: &[usize]) -> (Mux, Vec<StreamId>, Vec<u8>) {
    let (host, mut server) = pair(MuxConfig::default());
    let ids: Vec<StreamId> = lens.iter().map(|_| server.open().unwrap()).collect();
    for (id, &len) in ids.iter().zip(lens) {
        assert_eq!(server.write(*id, &bytes_of(id.0, len)).unwrap(), len);
        server.finish(*id).unwrap();
    }
    let mut wire = Vec::new();
    server.poll_transmit(usize::MAX, &mut wire);
    (host, ids, wire)
}

proptest! {
    /// However the incoming sequence is cut, the frames come out the same:
    /// the bytes arrive whole and in order.
    #[test]
    fn any_cut_of_the_sequence_delivers_the_same_bytes(
        lens in proptest::collection::vec(1usize..40_000, 1..4),
        cuts in proptest::collection::vec(1usize..3_000, 1..64),
    ) {
        let (mut host, ids, wire) = streams_on_the_wire(&lens);
        let mut at = 0;
        let mut i = 0;
        while at < wire.len() {
            let end = (at + cuts[i % cuts.len()]).min(wire.len());
            host.on_bytes(&wire[at..end]).unwrap();
            at = end;
            i += 1;
        }
        for (id, &len) in ids.iter().zip(&lens) {
            prop_assert_eq!(drain(&mut host, *id), (bytes_of(id.0, len), true));
        }
    }

    /// Frames taken where they lie with the start of one left over to come
    /// again with what follows (as a connection's receiver keeps it), or
    /// now and then put together in the mux: the same bytes come out, and
    /// padding after the last frame is taken too.
    #[test]
    fn frames_taken_in_place_deliver_the_same_bytes(
        lens in proptest::collection::vec(1usize..40_000, 1..4),
        cuts in proptest::collection::vec(1usize..3_000, 1..64),
        together in proptest::collection::vec(any::<bool>(), 1..16),
        pad in 0usize..20_000,
    ) {
        let (mut host, ids, mut wire) = streams_on_the_wire(&lens);
        wire.resize(wire.len() + pad, 0);
        let mut pending: Vec<u8> = Vec::new();
        let mut at = 0;
        let mut i = 0;
        while at < wire.len() {
            let end = (at + cuts[i % cuts.len()]).min(wire.len());
            pending.extend_from_slice(&wire[at..end]);
            if together[i % together.len()] {
                host.on_bytes(&pending).unwrap();
                pending.clear();
            } else {
                let used = host.take_frames(&pending).unwrap();
                prop_assert!(pending.len() - used < MAX_FRAME, "left over: a frame's start");
                pending.drain(..used);
            }
            at = end;
            i += 1;
        }
        prop_assert!(pending.is_empty(), "every frame whole at the end");
        prop_assert!(host.partial.is_empty());
        for (id, &len) in ids.iter().zip(&lens) {
            prop_assert_eq!(drain(&mut host, *id), (bytes_of(id.0, len), true));
        }
    }

    /// Arbitrary bytes: no panic, and what the mux holds stays bounded.
    #[test]
    fn garbage_is_refused_or_held_within_bounds(
        chunks in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..200), 0..20),
    ) {
        let mut m = Mux::new(Side::Host, MuxConfig::default());
        for c in &chunks {
            if m.on_bytes(c).is_err() {
                break;
            }
        }
        prop_assert!(m.partial.len() < MAX_FRAME);
        prop_assert!(m.open_streams() <= MuxConfig::default().max_streams);
    }
}

#[test]
fn a_blocked_reader_is_worth_waking_for_bytes_an_end_or_a_reset() {
    let (mut host, mut server) = pair(MuxConfig::default());
    let id = host.open().unwrap();
    host.write(id, b"hello").unwrap();
    shuttle(&mut host, &mut server, usize::MAX);
    let sid = server.accept().unwrap();
    assert!(!server.acceptable(), "the one stream was taken");
    assert!(server.read_ready(sid), "bytes arrived");
    drain(&mut server, sid);
    assert!(!server.read_ready(sid), "nothing left to read");
    host.finish(id).unwrap();
    shuttle(&mut host, &mut server, usize::MAX);
    assert!(server.read_ready(sid), "the end arrived");
    let other = host.open().unwrap();
    host.write(other, b"x").unwrap();
    shuttle(&mut host, &mut server, usize::MAX);
    assert!(server.acceptable(), "a second stream waits");
    let oid = server.accept().unwrap();
    drain(&mut server, oid);
    assert!(!server.read_ready(oid));
    host.reset(other, 9);
    shuttle(&mut host, &mut server, usize::MAX);
    assert!(server.read_ready(oid), "a reset is news to its reader");
    assert!(
        server.read_ready(StreamId(1001)),
        "an unknown stream: the read says so"
    );
}

#[test]
fn a_blocked_writer_is_woken_once_a_third_of_its_buffer_is_free() {
    let config = MuxConfig {
        send_buffer: 30_000,
        ..MuxConfig::default()
    };
    let (mut host, mut server) = pair(config);
    let id = host.open().unwrap();
    let big = bytes_of(id.0, 100_000);
    assert_eq!(host.write(id, &big).unwrap(), 30_000, "the buffer fills");
    assert!(!host.write_ready(id), "full");
    // Frames leave a few thousand bytes at a time: the writer sleeps on
    // until 10,000 bytes are free.
    let mut sent = 0;
    while sent + 3_000 < 10_000 {
        sent += shuttle(&mut host, &mut server, 3_000);
        assert!(!host.write_ready(id), "{sent} bytes of frames sent");
    }
    shuttle(&mut host, &mut server, 10_000);
    assert!(host.write_ready(id), "a third is free");
    host.finish(id).unwrap();
    assert!(
        host.write_ready(id),
        "a finished stream takes no more: the write says so"
    );
}

/// Moves frames both ways until neither side has any to send.
fn settle(a: &mut Mux, b: &mut Mux) {
    while shuttle(a, b, usize::MAX) + shuttle(b, a, usize::MAX) > 0 {}
}

#[test]
fn a_window_the_sender_fills_doubles_up_to_its_most_and_no_further() {
    let config = MuxConfig {
        window: 100_000,
        max_window: 350_000,
        send_buffer: 2_000_000,
        max_streams: 4,
    };
    let (mut host, mut server) = pair(config);
    let id = server.open().unwrap();
    server.write(id, &bytes_of(id.0, 2_000_000)).unwrap();
    settle(&mut server, &mut host);
    let mut buf = vec![0u8; 10_000];
    let mut windows = vec![host.window(id).unwrap()];
    for _ in 0..6 {
        // The sender always had every byte the credit allowed: each time
        // the credit is raised the window doubles, to 350,000 at most, and
        // the receiver never holds more than its window.
        assert!(host.readable(id) as u64 <= *windows.last().unwrap());
        while host.readable(id) > 0 {
            host.read(id, &mut buf).unwrap();
        }
        settle(&mut server, &mut host);
        windows.push(host.window(id).unwrap());
    }
    windows.dedup();
    assert_eq!(windows, [100_000, 200_000, 350_000]);
}

#[test]
fn a_window_the_sender_never_fills_stays_as_it_was() {
    let config = MuxConfig {
        window: 100_000,
        max_window: 1_000_000,
        send_buffer: 2_000_000,
        max_streams: 4,
    };
    let (mut host, mut server) = pair(config);
    let id = server.open().unwrap();
    let mut buf = vec![0u8; 100_000];
    for _ in 0..50 {
        // A sender with less than the window at a time: the credit raised
        // as the reader reads is never used up.
        server.write(id, &bytes_of(id.0, 30_000)).unwrap();
        settle(&mut server, &mut host);
        while host.readable(id) > 0 {
            host.read(id, &mut buf).unwrap();
        }
        settle(&mut server, &mut host);
    }
    assert_eq!(host.window(id), Some(100_000));
    // A burst is held to it.
    server.write(id, &bytes_of(id.0, 1_000_000)).unwrap();
    settle(&mut server, &mut host);
    assert!(host.readable(id) <= 100_000, "{} held", host.readable(id));
}
