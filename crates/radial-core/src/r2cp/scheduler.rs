//! The R²CP engine's scheduling structures (R²CP §4.3.1): `pending` (what is
//! still to be requested), `binding` (which pipe each outstanding request
//! went out on) and `rank` (when the request that an outstanding one will
//! trigger is expected to arrive). The fourth structure, `active` (pipes
//! frozen for lack of receive buffer), lives with the pipes.
//!
//! Global offsets are stream bytes; segments sit on a fixed grid of `mss`
//! bytes, so every replica cuts the stream the same way.

use std::collections::{BTreeMap, BTreeSet};

use crate::endpoint::PathId;
use crate::time::{Duration, Instant};

/// The most round trips of a quicker pipe the rank looks ahead over one of
/// a slower pipe.
const MAX_GENERATIONS: u64 = 64;

/// How the rank counts another pipe's outstanding requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ahead {
    /// Round trips of that pipe while the asking pipe's request travels.
    pub generations: u64,
    /// Requests sent before this are not expected to trigger any more.
    pub given_up_before: Option<Instant>,
    /// Requests that pipe's window lets it make whose answers arrive before
    /// the asking pipe's: at least this many are counted.
    pub could: u64,
}

impl Ahead {
    /// The paper's rank: one generation of every outstanding request.
    pub const PAPER: Ahead = Ahead {
        generations: 1,
        given_up_before: None,
        could: 0,
    };
}

/// How a pipe that asks to request is given a segment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Scheduling {
    /// §4.3.1: the k-th pending segment, where k counts the requests other
    /// pipes are expected to make before this one's data arrives (`r2cp`).
    #[default]
    Ranked,
    /// First come, first served: always the lowest pending segment (the
    /// paper's `R²CP-s`, §4.4.3).
    Fcfs,
}

/// One outstanding request of the aggregate connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Binding {
    /// The pipe it went out on.
    pub path: PathId,
    /// The pipe's local sequence number for it.
    pub local: u64,
    /// When it was sent (the rank timestamp is this plus twice the pipe's
    /// RTT, taken when ranking so an RTT update re-ranks it).
    pub sent_at: Instant,
}

/// What a pipe's `send()` gets back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pick {
    /// Request the segment `[start, end)`.
    Segment(u64, u64),
    /// The segment the rank gives the pipe does not fit the receive buffer
    /// (or the senders' data): the pipe freezes until `resume()`.
    Freeze,
}

/// Limits on what may be requested now.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// One past the last byte the receive buffer may hold (flow control).
    pub buffer_end: u64,
    /// One past the last byte the pipe may ask for (what its sender, or any
    /// sender of the same stream, has said it holds).
    pub avail: u64,
    /// End of the stream, once known.
    pub fin: Option<u64>,
}

/// `pending`, `binding` and `rank`.
#[derive(Debug)]
pub struct Scheduler {
    mss: u64,
    scheduling: Scheduling,
    /// Segments below `frontier` that must be requested (again): holes whose
    /// request was lost, unbound by a closing pipe, or skipped by ranking.
    pending: BTreeSet<u64>,
    /// The pending segments that were requested before (the others were
    /// skipped by ranking).
    requested_before: BTreeSet<u64>,
    /// Every segment at or above `frontier` has never been requested.
    frontier: u64,
    /// Outstanding requests by segment start.
    bound: BTreeMap<u64, Binding>,
    /// The same requests by path, in the order they were sent: the rank
    /// counts another path's overdue requests without walking the others.
    sent_by_path: BTreeMap<PathId, BTreeSet<(Instant, u64)>>,
    /// Segments requested more than once.
    re_requests: u64,
    /// Redundant requests made by pipes probing a blackout.
    redundant: u64,
    /// Opportunistic re-requests of the head of line.
    reinjected: u64,
}

impl Scheduler {
    /// An empty schedule for segments of `mss` bytes.
    pub fn new(mss: u64, scheduling: Scheduling) -> Self {
        Scheduler {
            mss,
            scheduling,
            pending: BTreeSet::new(),
            requested_before: BTreeSet::new(),
            frontier: 0,
            bound: BTreeMap::new(),
            sent_by_path: BTreeMap::new(),
            re_requests: 0,
            redundant: 0,
            reinjected: 0,
        }
    }

    /// An empty schedule whose first segment starts at `offset`: nothing
    /// below it is ever requested.
    pub fn starting_at(mss: u64, scheduling: Scheduling, offset: u64) -> Self {
        Scheduler {
            frontier: offset,
            ..Scheduler::new(mss, scheduling)
        }
    }

    /// Segments requested again after a loss or a pipe's closing.
    pub fn re_requests(&self) -> u64 {
        self.re_requests
    }

    /// Redundant requests made by pipes probing a blackout
    /// ([`Scheduler::send_redundant`]).
    pub fn redundant_requests(&self) -> u64 {
        self.redundant
    }

    /// The lowest byte never requested.
    pub fn frontier(&self) -> u64 {
        self.frontier
    }

    /// Outstanding requests.
    pub fn outstanding(&self) -> usize {
        self.bound.len()
    }

    /// Segments waiting for a pipe, below the frontier.
    pub fn pending_len(&self) -> usize {
        self.pending.len()
    }

    /// The binding of the request for the segment at `start`.
    pub fn binding(&self, start: u64) -> Option<&Binding> {
        self.bound.get(&start)
    }

    /// Records the request for `start`.
    fn bind(&mut self, start: u64, b: Binding) {
        if let Some(old) = self.bound.insert(start, b) {
            self.forget_sent(start, &old);
        }
        self.sent_by_path
            .entry(b.path)
            .or_default()
            .insert((b.sent_at, start));
    }

    /// Forgets the request for `start`.
    fn release(&mut self, start: u64) -> Option<Binding> {
        let b = self.bound.remove(&start)?;
        self.forget_sent(start, &b);
        Some(b)
    }

    fn forget_sent(&mut self, start: u64, b: &Binding) {
        if let Some(set) = self.sent_by_path.get_mut(&b.path) {
            set.remove(&(b.sent_at, start));
            if set.is_empty() {
                self.sent_by_path.remove(&b.path);
            }
        }
    }

    fn segment_end(&self, start: u64, fin: Option<u64>) -> u64 {
        let end = start + self.mss;
        fin.map_or(end, |f| end.min(f))
    }

    /// A segment fits when it is inside the stream, the sender has all of
    /// it, and the receive buffer has room for it.
    fn fits(&self, start: u64, limits: Limits) -> bool {
        let e = self.segment_end(start, limits.fin);
        start < limits.fin.unwrap_or(u64::MAX) && e <= limits.buffer_end && e <= limits.avail
    }

    /// The pending segments in order: the explicit ones, then the frontier
    /// onwards.
    fn nth_pending(&self, k: usize) -> u64 {
        match self.pending.iter().nth(k) {
            Some(&s) => s,
            None => self.frontier + (k - self.pending.len()) as u64 * self.mss,
        }
    }

    /// §4.3.1 `send()`: pipe `path` with round trip `rtt` asks at `now` for a
    /// segment to request. `rtts` gives the round trip of every pipe that
    /// will request again (for the rank timestamps); a pipe it gives `None`
    /// for (one being retired) triggers no further request, so its
    /// outstanding ones do not rank. Returns the segment, bound to
    /// `(path, local)`, or `Freeze`.
    pub fn send(
        &mut self,
        now: Instant,
        path: PathId,
        local: u64,
        rtt: Duration,
        rtts: impl Fn(PathId) -> Option<Duration>,
        limits: Limits,
    ) -> Pick {
        self.send_looking_ahead(now, path, local, rtt, rtts, |_| Ahead::PAPER, limits)
    }

    /// [`Scheduler::send`], counting the requests of each other pipe `q` as
    /// `ahead(q)` says (beyond the paper, which counts one generation of
    /// every outstanding request: see the rank below).
    #[allow(clippy::too_many_arguments)]
    pub fn send_looking_ahead(
        &mut self,
        now: Instant,
        path: PathId,
        local: u64,
        rtt: Duration,
        rtts: impl Fn(PathId) -> Option<Duration>,
        ahead: impl Fn(PathId) -> Ahead,
        limits: Limits,
    ) -> Pick {
        let k = match self.scheduling {
            Scheduling::Fcfs => 0,
            Scheduling::Ranked => {
                // Requests expected before ours arrives, T + RTT_j: each
                // outstanding request i triggers one at T_i + 2·RTT_pipe(i).
                // The pipe's own requests do not count: what they trigger
                // goes out after ours on the same path and arrives after it
                // (an overdue one, older than the RTT estimate, would
                // otherwise make a pipe skip ahead of itself).
                // (Those sent before ours - 2·RTT_i, counted per path.)
                //
                // Beyond the paper: a request triggers one per round trip of
                // its pipe, so while ours travels a pipe m times quicker
                // asks m generations on: the m-th counts the requests sent
                // before ours - (m+1)·RTT_i, for m up to `generations`, the
                // ratio of the two paths' shortest round trips (the engine's
                // choice: propagation, not the queues of the moment). With
                // paths within 2x of each other this is the paper's single
                // generation; with a satellite pipe beside a WLAN
                // one, counting one generation places the satellite's
                // segments a tenth as far ahead as they must be, and a
                // buffer that cannot hold the difference stalls behind them.
                // Nor does a request count that has waited so long its pipe
                // is given up on (`given_up_before`: its path died and the
                // timeout has not said so yet): the segments it would leave
                // to that pipe are not left to it. And a pipe counts at
                // least `could`, what its window would let it ask for in
                // that time (a pipe the buffer holds back has few requests
                // out, not few to make).
                let ours = now + rtt;
                self.sent_by_path
                    .iter()
                    .filter(|(p, _)| **p != path)
                    .map(|(p, sent)| {
                        let Some(r) = rtts(*p).filter(|r| !r.is_zero()) else {
                            return 0;
                        };
                        let a = ahead(*p);
                        let generations = a.generations.clamp(1, MAX_GENERATIONS);
                        let from = (a.given_up_before.unwrap_or(Instant::ZERO), 0);
                        let clocked = (1..=generations)
                            .map_while(|m| {
                                let before = ours
                                    .as_nanos()
                                    .checked_sub(r.saturating_mul(m + 1).as_nanos())?;
                                let to = (Instant::from_nanos(before), 0);
                                Some(if to > from {
                                    sent.range(from..to).count()
                                } else {
                                    0
                                })
                            })
                            .sum::<usize>();
                        clocked.max(a.could as usize)
                    })
                    .sum()
            }
        };
        // The k-th pending segment, or FREEZE if it does not fit: asked for
        // now, it would arrive after what the buffer can hold beyond the
        // segments the other pipes will fetch first (head-of-line blocking).
        self.take_nth(k, now, path, local, limits)
    }

    /// Binds the `k`-th pending segment to `(path, local)`, or `Freeze` if
    /// it does not fit `limits`.
    fn take_nth(
        &mut self,
        k: usize,
        now: Instant,
        path: PathId,
        local: u64,
        limits: Limits,
    ) -> Pick {
        let start = self.nth_pending(k);
        if !self.fits(start, limits) {
            return Pick::Freeze;
        }
        let end = self.segment_end(start, limits.fin);
        if start >= self.frontier {
            // Ranking skipped the segments in between: they stay pending.
            let mut s = self.frontier;
            while s < start {
                self.pending.insert(s);
                s += self.mss;
            }
            self.frontier = end;
        } else {
            self.pending.remove(&start);
            if self.requested_before.remove(&start) {
                self.re_requests += 1;
            }
        }
        self.bind(
            start,
            Binding {
                path,
                local,
                sent_at: now,
            },
        );
        Pick::Segment(start, end)
    }

    /// Binds the segment at `start` to `(path, local)` if it is the first
    /// one waiting for a pipe (the head of line, when no pipe holds it):
    /// returns its end, or `None` if it is not waiting or does not fit.
    pub fn take_head(
        &mut self,
        now: Instant,
        start: u64,
        path: PathId,
        local: u64,
        limits: Limits,
    ) -> Option<u64> {
        if self.nth_pending(0) != start {
            return None;
        }
        match self.take_nth(0, now, path, local, limits) {
            Pick::Segment(_, end) => Some(end),
            Pick::Freeze => None,
        }
    }

    /// Redundant striping (pTCP §4.1 (3); R²CP §4.4.1 names it for
    /// handoffs): a pipe probing a blackout asks for the head of line, the
    /// lowest segment not yet held, *without* taking it over. A pending
    /// segment stays pending and a bound one stays bound to its pipe, so
    /// another pipe requests it too and the application keeps receiving
    /// while the probe waits out the blackout. Returns `Freeze` when the head
    /// of line does not fit `limits`.
    pub fn send_redundant(&mut self, limits: Limits) -> Pick {
        let candidates = [
            self.pending.first().copied(),
            self.bound.keys().next().copied(),
            Some(self.frontier),
        ];
        let start = candidates.into_iter().flatten().min().expect("frontier");
        if !self.fits(start, limits) {
            return Pick::Freeze;
        }
        let end = self.segment_end(start, limits.fin);
        if start == self.frontier {
            // Never requested before: it joins the pending segments so that
            // another pipe asks for it as well.
            self.frontier = end;
            self.pending.insert(start);
            self.requested_before.insert(start);
        }
        self.redundant += 1;
        Pick::Segment(start, end)
    }

    /// Binds the outstanding segment at `start` to `path` as well (an
    /// opportunistic re-request of the head of line, see the engine):
    /// returns its end, or `None` if it is not outstanding or does not fit.
    pub fn reinject(
        &mut self,
        now: Instant,
        start: u64,
        path: PathId,
        local: u64,
        limits: Limits,
    ) -> Option<u64> {
        if !self.bound.contains_key(&start) || !self.fits(start, limits) {
            return None;
        }
        self.bind(
            start,
            Binding {
                path,
                local,
                sent_at: now,
            },
        );
        self.re_requests += 1;
        self.reinjected += 1;
        Some(self.segment_end(start, limits.fin))
    }

    /// Head-of-line segments re-requested on a quicker pipe.
    pub fn reinjections(&self) -> u64 {
        self.reinjected
    }

    /// §4.3.1 `recv()`: the segment at `start` arrived; returns its binding
    /// if it was outstanding (the pipe and local number to tell), and forgets
    /// it in every structure.
    pub fn recv(&mut self, start: u64) -> Option<Binding> {
        self.pending.remove(&start);
        self.requested_before.remove(&start);
        self.release(start)
    }

    fn unbind(&mut self, start: u64, held: bool) {
        self.release(start);
        if !held {
            self.pending.insert(start);
            self.requested_before.insert(start);
        }
    }

    /// §4.3.1 `loss()`: the request for `start` on `path` was lost; the
    /// segment is unbound and pending again, unless it is bound elsewhere by
    /// now or already arrived (`held`).
    pub fn loss(&mut self, start: u64, path: PathId, held: bool) {
        if self.bound.get(&start).is_some_and(|b| b.path == path) {
            self.unbind(start, held);
        }
    }

    /// Everything bound to `path` goes back to pending (the pipe closed or
    /// its interface went down); `held` tells which segments arrived anyway.
    pub fn unbind_path(&mut self, path: PathId, held: impl Fn(u64) -> bool) {
        let gone: Vec<u64> = self
            .bound
            .iter()
            .filter(|(_, b)| b.path == path)
            .map(|(&s, _)| s)
            .collect();
        for s in gone {
            self.unbind(s, held(s));
        }
    }

    /// Drops pending entries below `next` (they arrived in order).
    pub fn delivered_to(&mut self, next: u64) {
        while let Some(&s) = self.pending.first() {
            if s + self.mss > next {
                break;
            }
            self.pending.remove(&s);
            self.requested_before.remove(&s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn open() -> Limits {
        Limits {
            buffer_end: u64::MAX,
            avail: u64::MAX,
            fin: None,
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

    #[test]
    fn a_much_slower_pipe_counts_every_round_trip_of_the_quick_one() {
        // As above, but pipe 1's path is ten times pipe 0's: each of pipe
        // 0's requests triggers another every 10 ms, those of the m-th
        // generation arriving by 20 + 10·(m+1) ms, before 130 ms for m =
        // 1..9. So 9 × 4 = 36 segments go to pipe 0 first.
        let mut s = Scheduler::new(MSS, Scheduling::Ranked);
        let rtt = |p: PathId| Some(Duration::from_millis(if p.0 == 0 { 10 } else { 100 }));
        for i in 0..4 {
            s.send(ms(20), PathId(0), i, rtt(PathId(0)).unwrap(), rtt, open());
        }
        let d = Duration::from_millis(100);
        let ten = |_| Ahead {
            generations: 10,
            given_up_before: None,
            could: 0,
        };
        assert_eq!(
            s.send_looking_ahead(ms(30), PathId(1), 0, d, rtt, ten, open()),
            Pick::Segment(40 * MSS, 41 * MSS)
        );
        assert_eq!(s.pending_len(), 36, "segments 4..40 wait for pipe 0");
    }

    #[test]
    fn a_quick_pipe_held_back_counts_what_its_window_could_ask() {
        // As above, but pipe 0's window could ask for 100 segments before
        // pipe 1's answer arrives (it has only 4 out: the buffer holds it
        // back). Those 100 go to pipe 0 first.
        let mut s = Scheduler::new(MSS, Scheduling::Ranked);
        let rtt = |p: PathId| Some(Duration::from_millis(if p.0 == 0 { 10 } else { 100 }));
        for i in 0..4 {
            s.send(ms(20), PathId(0), i, rtt(PathId(0)).unwrap(), rtt, open());
        }
        let d = Duration::from_millis(100);
        let ahead = |_| Ahead {
            generations: 10,
            given_up_before: None,
            could: 100,
        };
        assert_eq!(
            s.send_looking_ahead(ms(30), PathId(1), 0, d, rtt, ahead, open()),
            Pick::Segment(104 * MSS, 105 * MSS)
        );
        // With a buffer of 50 segments, pipe 1 freezes.
        let short = Limits {
            buffer_end: 50 * MSS,
            ..open()
        };
        assert_eq!(
            s.send_looking_ahead(ms(30), PathId(1), 1, d, rtt, ahead, short),
            Pick::Freeze
        );
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
        };
        assert!(s.recv(0).is_some());
        assert_eq!(s.send_redundant(tight), Pick::Freeze);
    }
}
