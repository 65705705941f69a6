//! Tests of the scheduling structures.
use super::*;
use std::collections::BTreeSet;

const MSS: u64 = 1000;

fn open() -> Limits {
    Limits {
        buffer_end: u64::MAX,
        avail: u64::MAX,
        fin: None,
        room: u64::MAX,
        head: 0,
        head_room: u64::MAX,
    }
}

fn ms(v: u64) -> Instant {
    Instant::ZERO + Duration::from_millis(v)
}

#[test]
fn fcfs_hands_out_segments_in_order() {
    let mut s = Scheduler::new(MSS, Scheduling::Fcfs);
    let rtt = |_| Some(Duration::from_millis(10));
    for i in 0..3 {
        let p = PathId(i as u16 % 2);
        assert_eq!(
            s.send(ms(0), p, i, rtt(p).unwrap(), rtt, open()),
            Pick::Segment(i * MSS, (i + 1) * MSS)
        );
    }
}

#[test]
fn a_slow_pipe_is_given_a_later_segment_and_the_gap_stays_pending() {
    // Pipe 0 (RTT 10 ms) has four requests out; at t = 30 ms pipe 1 (RTT
    // 100 ms) asks. Its data would arrive at 130 ms; every one of pipe 0's
    // requests triggers another arriving by 20 + 20 = 40 ms < 130 ms, so
    // four segments go to pipe 0 first and pipe 1 gets the fifth (the
    // paper's rank: one generation).
    let mut s = Scheduler::new(MSS, Scheduling::Ranked);
    let rtt = |p: PathId| Some(Duration::from_millis(if p.0 == 0 { 10 } else { 100 }));
    for i in 0..4 {
        assert_eq!(
            s.send(ms(20), PathId(0), i, rtt(PathId(0)).unwrap(), rtt, open()),
            Pick::Segment(i * MSS, (i + 1) * MSS),
            "pipe 0's own requests rank after its own arrivals"
        );
    }
    assert_eq!(
        s.send(ms(30), PathId(1), 0, rtt(PathId(1)).unwrap(), rtt, open()),
        Pick::Segment(8 * MSS, 9 * MSS)
    );
    assert_eq!(s.pending_len(), 4, "segments 4..8 wait for pipe 0");
    // Pipe 0's next request takes the lowest pending one.
    assert_eq!(
        s.send(ms(30), PathId(0), 4, rtt(PathId(0)).unwrap(), rtt, open()),
        Pick::Segment(4 * MSS, 5 * MSS)
    );
}

/// Pipe 0 (10 ms) has asked for segments 0..4 at 20 ms; pipe 1 (100 ms,
/// ten generations of pipe 0) asks at 30 ms, counting pipe 0 as at least
/// `could` requests, within `limits`.
fn slow_pipe_after_four_quick_requests(could: u64, limits: Limits) -> (Scheduler, Pick) {
    let mut s = Scheduler::new(MSS, Scheduling::Ranked);
    let rtt = |p: PathId| Some(Duration::from_millis(if p.0 == 0 { 10 } else { 100 }));
    for i in 0..4 {
        s.send(ms(20), PathId(0), i, rtt(PathId(0)).unwrap(), rtt, open());
    }
    let ahead = |_| Ahead {
        generations: 10,
        given_up_before: None,
        could,
    };
    let d = Duration::from_millis(100);
    let pick = s.send_looking_ahead(ms(30), PathId(1), 0, d, rtt, ahead, limits);
    (s, pick)
}

#[test]
fn a_much_slower_pipe_counts_every_round_trip_of_the_quick_one() {
    // As above, but pipe 1's path is ten times pipe 0's: each of pipe
    // 0's requests triggers another every 10 ms, those of the m-th
    // generation arriving by 20 + 10·(m+1) ms, before 130 ms for m =
    // 1..9. So 9 × 4 = 36 segments go to pipe 0 first.
    let (s, pick) = slow_pipe_after_four_quick_requests(0, open());
    assert_eq!(pick, Pick::Segment(40 * MSS, 41 * MSS));
    assert_eq!(s.pending_len(), 36, "segments 4..40 wait for pipe 0");
}

#[test]
fn a_quick_pipe_held_back_counts_what_its_window_could_ask() {
    // As above, but pipe 0's window could ask for 100 segments before
    // pipe 1's answer arrives (it has only 4 out: the buffer holds it
    // back). Those 100 go to pipe 0 first.
    let (_, pick) = slow_pipe_after_four_quick_requests(100, open());
    assert_eq!(pick, Pick::Segment(104 * MSS, 105 * MSS));
    // With a buffer of 50 segments, pipe 1 freezes.
    let short = Limits {
        buffer_end: 50 * MSS,
        ..open()
    };
    let (_, pick) = slow_pipe_after_four_quick_requests(100, short);
    assert_eq!(pick, Pick::Freeze);
}

#[test]
fn a_pipe_never_skips_ahead_of_its_own_requests() {
    // Pipe 0's requests sent at 0 ms are overdue at 50 ms (its RTT
    // estimate says 10 ms, the queue says otherwise). What they trigger
    // would go out after this request on the same path, so they do not
    // rank before it: pipe 0 takes the next segment, leaving no hole.
    let mut s = Scheduler::new(MSS, Scheduling::Ranked);
    let rtt = |_| Some(Duration::from_millis(10));
    for i in 0..4 {
        s.send(ms(0), PathId(0), i, rtt(PathId(0)).unwrap(), rtt, open());
    }
    assert_eq!(
        s.send(ms(50), PathId(0), 4, rtt(PathId(0)).unwrap(), rtt, open()),
        Pick::Segment(4 * MSS, 5 * MSS)
    );
    assert_eq!(s.pending_len(), 0);
}

#[test]
fn a_retiring_pipes_requests_do_not_rank() {
    // Pipe 0 (RTT 10 ms) has four requests out and is being retired: it
    // makes no further request, so pipe 1 (RTT 100 ms) is not given a
    // later segment to leave room for requests that never come.
    let mut s = Scheduler::new(MSS, Scheduling::Ranked);
    let both = |p: PathId| Some(Duration::from_millis(if p.0 == 0 { 10 } else { 100 }));
    for i in 0..4 {
        s.send(ms(20), PathId(0), i, both(PathId(0)).unwrap(), both, open());
    }
    let retiring = |p: PathId| (p.0 != 0).then_some(Duration::from_millis(100));
    assert_eq!(
        s.send(
            ms(30),
            PathId(1),
            0,
            Duration::from_millis(100),
            retiring,
            open()
        ),
        Pick::Segment(4 * MSS, 5 * MSS)
    );
    assert_eq!(s.pending_len(), 0);
}

#[test]
fn re_ranking_follows_an_rtt_change() {
    // The same state ranks differently once pipe 0's RTT is known to be
    // long: its requests no longer precede pipe 1's arrival.
    let mut s = Scheduler::new(MSS, Scheduling::Ranked);
    let short = |_: PathId| Some(Duration::from_millis(10));
    s.send(
        ms(0),
        PathId(0),
        0,
        short(PathId(0)).unwrap(),
        short,
        open(),
    );
    let long0 = |p: PathId| Some(Duration::from_millis(if p.0 == 0 { 500 } else { 10 }));
    assert_eq!(
        s.send(
            ms(0),
            PathId(1),
            0,
            long0(PathId(1)).unwrap(),
            long0,
            open()
        ),
        Pick::Segment(MSS, 2 * MSS),
        "k = 0: the next segment"
    );
}

#[test]
fn loss_returns_the_segment_to_pending_and_it_goes_first() {
    let mut s = Scheduler::new(MSS, Scheduling::Fcfs);
    let rtt = |_| Some(Duration::from_millis(10));
    for i in 0..3 {
        s.send(ms(0), PathId(0), i, rtt(PathId(0)).unwrap(), rtt, open());
    }
    assert!(s.recv(0).is_some());
    s.loss(MSS, PathId(0), false);
    assert!(s.binding(MSS).is_none(), "unbound");
    assert_eq!(
        s.send(ms(1), PathId(1), 0, rtt(PathId(1)).unwrap(), rtt, open()),
        Pick::Segment(MSS, 2 * MSS),
        "the hole goes to the next pipe that asks"
    );
    assert_eq!(s.binding(MSS).unwrap().path, PathId(1));
    assert_eq!(s.re_requests(), 1);
    // A loss reported by the old pipe now does not unbind the new one.
    s.loss(MSS, PathId(0), false);
    assert_eq!(s.binding(MSS).unwrap().path, PathId(1));
}

#[test]
fn freeze_when_nothing_fits_the_buffer() {
    let mut s = Scheduler::new(MSS, Scheduling::Ranked);
    let rtt = |_| Some(Duration::from_millis(10));
    let lim = Limits {
        buffer_end: 2 * MSS,
        avail: u64::MAX,
        fin: None,
        room: u64::MAX,
        head: 0,
        head_room: u64::MAX,
    };
    assert!(matches!(
        s.send(ms(0), PathId(0), 0, rtt(PathId(0)).unwrap(), rtt, lim),
        Pick::Segment(0, _)
    ));
    assert!(matches!(
        s.send(ms(0), PathId(0), 1, rtt(PathId(0)).unwrap(), rtt, lim),
        Pick::Segment(1000, _)
    ));
    assert_eq!(
        s.send(ms(0), PathId(0), 2, rtt(PathId(0)).unwrap(), rtt, lim),
        Pick::Freeze
    );
}

#[test]
fn a_frozen_pipe_gets_the_hole_once_the_requests_ranked_before_it_are_answered() {
    // A buffer of 8 segments. Pipe 0 holds 1..4 and pipe 1 holds 4..7,
    // all overdue; segment 0 is lost. Pipe 0's rank counts pipe 1's
    // three requests, so its segment would lie past the buffer: FREEZE.
    // Each answer leaves `bound`, and the engine resumes frozen pipes on
    // every answer: with nothing of pipe 1's outstanding the rank is 0
    // and the hole, which always fits, is pipe 0's.
    let mut s = Scheduler::new(MSS, Scheduling::Ranked);
    let rtt = |_| Some(Duration::from_millis(10));
    let lim = Limits {
        buffer_end: 8 * MSS,
        avail: u64::MAX,
        fin: None,
        room: u64::MAX,
        head: 0,
        head_room: u64::MAX,
    };
    let d = Duration::from_millis(10);
    for i in 0..7 {
        let p = PathId(if (1..4).contains(&i) { 0 } else { 1 });
        s.send(ms(0), p, i, d, rtt, lim);
    }
    s.loss(0, PathId(1), false);
    assert_eq!(s.send(ms(15), PathId(0), 7, d, rtt, lim), Pick::Freeze);
    for i in 4..7 {
        assert!(s.recv(i * MSS).is_some());
    }
    assert_eq!(
        s.send(ms(16), PathId(0), 7, d, rtt, lim),
        Pick::Segment(0, MSS)
    );
}

#[test]
fn the_last_segment_is_cut_at_the_end_of_the_stream() {
    let mut s = Scheduler::new(MSS, Scheduling::Fcfs);
    let rtt = |_| Some(Duration::from_millis(10));
    let lim = Limits {
        buffer_end: u64::MAX,
        avail: 1500,
        fin: Some(1500),
        room: u64::MAX,
        head: 0,
        head_room: u64::MAX,
    };
    s.send(ms(0), PathId(0), 0, rtt(PathId(0)).unwrap(), rtt, lim);
    assert_eq!(
        s.send(ms(0), PathId(0), 1, rtt(PathId(0)).unwrap(), rtt, lim),
        Pick::Segment(1000, 1500)
    );
    assert_eq!(
        s.send(ms(0), PathId(0), 2, rtt(PathId(0)).unwrap(), rtt, lim),
        Pick::Freeze
    );
}

#[test]
fn closing_a_pipe_returns_what_it_had_not_received() {
    let mut s = Scheduler::new(MSS, Scheduling::Fcfs);
    let rtt = |_| Some(Duration::from_millis(10));
    for i in 0..4 {
        s.send(ms(0), PathId(0), i, rtt(PathId(0)).unwrap(), rtt, open());
    }
    s.unbind_path(PathId(0), |start| start == 2 * MSS);
    assert_eq!(s.outstanding(), 0);
    assert_eq!(s.pending_len(), 3, "segment 2 had arrived");
}

#[test]
fn a_redundant_request_leaves_the_head_of_line_to_the_other_pipes() {
    let mut s = Scheduler::new(MSS, Scheduling::Ranked);
    let rtt = |_| Some(Duration::from_millis(10));
    for i in 0..3 {
        s.send(ms(0), PathId(0), i, rtt(PathId(0)).unwrap(), rtt, open());
    }
    // Pipe 0 blacked out: its requests are lost and back in pending.
    for i in 0..3 {
        s.loss(i * MSS, PathId(0), false);
    }
    assert_eq!(s.send_redundant(open()), Pick::Segment(0, MSS));
    assert_eq!(s.pending_len(), 3, "the head of line is still pending");
    assert!(s.binding(0).is_none());
    // Pipe 1 asks next and is given the same segment, bound to it.
    assert_eq!(
        s.send(ms(1), PathId(1), 0, rtt(PathId(1)).unwrap(), rtt, open()),
        Pick::Segment(0, MSS)
    );
    assert_eq!(s.binding(0).unwrap().path, PathId(1));
    // The probe's loss does not unbind pipe 1's request.
    s.loss(0, PathId(0), false);
    assert_eq!(s.binding(0).unwrap().path, PathId(1));
    // With nothing pending, the probe duplicates the lowest bound one.
    s.send(ms(1), PathId(1), 1, rtt(PathId(1)).unwrap(), rtt, open());
    s.send(ms(1), PathId(1), 2, rtt(PathId(1)).unwrap(), rtt, open());
    assert_eq!(s.send_redundant(open()), Pick::Segment(0, MSS));
    assert_eq!(s.outstanding(), 3);
    assert_eq!(s.redundant_requests(), 2);
}

#[test]
fn a_redundant_request_at_the_frontier_stays_pending_for_others() {
    let mut s = Scheduler::new(MSS, Scheduling::Fcfs);
    let rtt = |_| Some(Duration::from_millis(10));
    assert_eq!(s.send_redundant(open()), Pick::Segment(0, MSS));
    assert_eq!(s.frontier(), MSS);
    assert_eq!(
        s.send(ms(0), PathId(1), 0, rtt(PathId(1)).unwrap(), rtt, open()),
        Pick::Segment(0, MSS),
        "another pipe requests it as well"
    );
    assert_eq!(s.re_requests(), 1);
    let tight = Limits {
        buffer_end: MSS,
        avail: u64::MAX,
        fin: None,
        room: u64::MAX,
        head: 0,
        head_room: u64::MAX,
    };
    assert!(s.recv(0).is_some());
    assert_eq!(s.send_redundant(tight), Pick::Freeze);
}

proptest::proptest! {
    /// The rank counts, for every generation `m` of another pipe, its
    /// requests sent at or after `from` and before `ours - (m + 1)·r`.
    #[test]
    fn the_rank_counts_each_generation_of_another_pipes_requests(
        sent in proptest::collection::btree_set((0u64..2_000, 0u64..50), 0..200),
        from in 0u64..2_000,
        ours in 0u64..4_000,
        r in 1u64..400,
        generations in 1u64..=MAX_GENERATIONS,
    ) {
        let at = |ms: u64| Instant::from_nanos(ms * 1_000_000);
        let sent: BTreeSet<(Instant, u64)> = sent.into_iter().map(|(t, s)| (at(t), s)).collect();
        let (from, ours, r) = (at(from), at(ours), Duration::from_millis(r));
        let by_range: usize = (1..=generations)
            .map_while(|m| {
                let before = ours.as_nanos().checked_sub(r.saturating_mul(m + 1).as_nanos())?;
                let to = Instant::from_nanos(before);
                Some(sent.iter().filter(|(t, _)| *t >= from && *t < to).count())
            })
            .sum();
        let mut log = SortedSet::default();
        for &x in &sent {
            log.insert(x);
        }
        proptest::prop_assert_eq!(clocked(&log, from, ours, r, generations), by_range);
    }
}
