//! The R²CP engine's scheduling structures (R²CP §4.3.1): `pending` (what is
//! still to be requested), `binding` (which pipe each outstanding request
//! went out on) and `rank` (when the request that an outstanding one will
//! trigger is expected to arrive). The fourth structure, `active` (pipes
//! frozen for lack of receive buffer), lives with the pipes.
//!
//! Global offsets are stream bytes; segments sit on a fixed grid of `mss`
//! bytes, so every replica cuts the stream the same way.

use std::collections::BTreeMap;

use crate::endpoint::PathId;

mod bindings;
mod set;
use crate::time::{Duration, Instant};
use bindings::Bindings;
use set::{SegmentSet, SortedSet};

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
    /// Bytes the receive buffer may still reserve for a segment not
    /// reserved yet ([`crate::r2cp::FlowControl::Reserve`]; `u64::MAX` when
    /// `buffer_end` alone bounds requests).
    pub room: u64,
    /// The head of line (the next in-order byte).
    pub head: u64,
    /// What the head of line's segment may reserve: `room` and the segment
    /// kept for it.
    pub head_room: u64,
}

/// The requests of one other pipe that count ahead of a request arriving
/// at `ours` (§4.3.1's rank, over `generations` round trips `r` of that
/// pipe): a request sent at `t`, at or after `from`, triggers one request
/// per round trip, so it counts once for every `m` in `1..=generations`
/// with `t < ours - (m + 1)·r`. One count of the requests sent in
/// `[from, ours - (m + 1)·r)` per generation, each a binary search of the
/// requests in the order sent, from the widest window down until one is
/// empty (the windows shrink as `m` grows).
fn clocked(
    sent: &SortedSet<(Instant, u64)>,
    from: Instant,
    ours: Instant,
    r: Duration,
    generations: u64,
) -> usize {
    let older = sent.count_below(&(from, 0));
    // Each window lies inside the one before: its search needs only look
    // below where that one ended.
    let mut end = sent.len();
    (1..=generations)
        .map_while(|m| {
            let before = ours
                .as_nanos()
                .checked_sub(r.saturating_mul(m + 1).as_nanos())?;
            end = sent.count_below_within(&(Instant::from_nanos(before), 0), end);
            let n = end.saturating_sub(older);
            (n > 0).then_some(n)
        })
        .sum()
}

/// `pending`, `binding` and `rank`.
#[derive(Debug)]
pub struct Scheduler {
    mss: u64,
    scheduling: Scheduling,
    /// Segments below `frontier` that must be requested (again): holes whose
    /// request was lost, unbound by a closing pipe, or skipped by ranking.
    pending: SegmentSet,
    /// The pending segments that were requested before (the others were
    /// skipped by ranking).
    requested_before: SegmentSet,
    /// Every segment at or above `frontier` has never been requested.
    frontier: u64,
    /// Where the segments start from: every segment begins a whole number
    /// of segments past it.
    origin: u64,
    /// Outstanding requests by segment start.
    bound: Bindings,
    /// The same requests by path, in the order they were sent: the rank
    /// counts another path's overdue requests without walking the others.
    sent_by_path: BTreeMap<PathId, SortedSet<(Instant, u64)>>,
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
            pending: SegmentSet::default(),
            requested_before: SegmentSet::default(),
            frontier: 0,
            origin: 0,
            bound: Bindings::new(mss, 0),
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
            origin: offset,
            bound: Bindings::new(mss, offset),
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

    /// Whether `[start, end)` is a whole segment as this scheduler cuts
    /// the stream (ending at `fin` if it is the last), below the frontier:
    /// what a request asked for. A payload that is not (part of a
    /// segment, or one astride two) answers no request.
    pub fn is_segment(&self, start: u64, end: u64, fin: Option<u64>) -> bool {
        start >= self.origin
            && (start - self.origin).is_multiple_of(self.mss)
            && end == self.segment_end(start, fin)
            && end <= self.frontier
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
        self.bound.get(start)
    }

    /// Every outstanding request, by segment start.
    pub fn bindings(&self) -> impl Iterator<Item = (u64, &Binding)> {
        self.bound.iter()
    }

    /// True when the segment at `start` waits for a pipe: below the
    /// frontier and pending, or at or above the frontier.
    pub fn is_pending(&self, start: u64) -> bool {
        start >= self.frontier || self.pending.contains(&start)
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
        let b = self.bound.remove(start)?;
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
    /// it, and the receive buffer has room for it: reserved already (it was
    /// requested and is outstanding, or its request was lost), or room is
    /// left (for the head of line, with the segment kept for it).
    fn fits(&self, start: u64, limits: Limits) -> bool {
        let e = self.segment_end(start, limits.fin);
        let room = if start == limits.head {
            limits.head_room
        } else {
            limits.room
        };
        start < limits.fin.unwrap_or(u64::MAX)
            && e <= limits.buffer_end
            && e <= limits.avail
            && (self.is_reserved(start) || e - start <= room)
    }

    /// Whether the segment at `start` holds room in the receive buffer: its
    /// request is outstanding, or was lost and waits to be made again
    /// (flow control by reservation, §3.3.4).
    pub fn is_reserved(&self, start: u64) -> bool {
        self.bound.contains(start) || self.requested_before.contains(&start)
    }

    /// Segments holding room in the receive buffer without being in it:
    /// outstanding, or lost and waiting to be requested again.
    pub fn reserved_segments(&self) -> usize {
        self.bound.len() + self.requested_before.len()
    }

    /// The pending segments in order: the explicit ones, then the frontier
    /// onwards.
    fn nth_pending(&self, k: usize) -> u64 {
        let explicit = self.pending.len();
        if k >= explicit {
            // Past the explicit ones: no walk through them.
            return self.frontier + (k - explicit) as u64 * self.mss;
        }
        self.pending.nth(k).expect("k < len")
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
                        let from = a.given_up_before.unwrap_or(Instant::ZERO);
                        clocked(sent, from, ours, r, generations).max(a.could as usize)
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
            self.bound.first(),
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
        if !self.bound.contains(start) || !self.fits(start, limits) {
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

    /// An overdue head of line was asked of a second pipe as well, its
    /// binding left where it is (see the engine's `reinject`).
    pub fn backed_up(&mut self) {
        self.re_requests += 1;
        self.reinjected += 1;
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
        if self.bound.get(start).is_some_and(|b| b.path == path) {
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
            .map(|(s, _)| s)
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
mod tests;
