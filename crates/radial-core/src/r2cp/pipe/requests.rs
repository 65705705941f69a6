//! A pipe's outstanding requests, by local number (R²CP §4.2: each pipe
//! keeps a local sequence space). Local numbers go out in time order, so
//! the oldest request is the first; each request carries one segment in
//! pull mode, and its pull id is its local number plus one.

use std::collections::VecDeque;

use super::rate::Snapshot;
use crate::r2cp::ring::Ring;
use crate::rcp::{count_later_arrival, Hole};
use crate::time::{Duration, Instant};
use crate::wire::rcp::{PullBlock, RECENT_PULLS};

/// An outstanding request of the pipe.
#[derive(Clone, Copy, Debug)]
pub(super) struct LocalRequest {
    /// The global segment `[start, end)` it asks for.
    pub(super) start: u64,
    pub(super) end: u64,
    /// When it left.
    pub(super) sent_at: Instant,
    /// Arrivals of later requests of this pipe since.
    later: u32,
    /// The pipe's delivery state when it left.
    pub(super) snap: Snapshot,
}

impl LocalRequest {
    /// Its length in bytes.
    pub(super) fn len(&self) -> u64 {
        self.end - self.start
    }
}

impl Hole for LocalRequest {
    fn later_arrivals(&mut self) -> Option<&mut u32> {
        Some(&mut self.later)
    }
}

/// The outstanding requests and the pulls recently sent.
#[derive(Debug, Default)]
pub(super) struct Requests {
    outstanding: Ring<LocalRequest>,
    in_flight: u64,
    next_local: u64,
    /// The latest pulls, newest first: each request repeats them (§3.3.1),
    /// so a lost request is recovered by the next.
    recent_pulls: VecDeque<PullBlock>,
    /// Requests given up on (timed out, deemed lost), oldest first, as
    /// `(local, start, sent_at)`: an answer that still comes names its
    /// request, so it times the path (rule `late_samples`).
    given_up: VecDeque<(u64, u64, Instant)>,
}

impl Requests {
    /// Bytes requested and neither arrived nor deemed lost.
    pub(super) fn in_flight(&self) -> u64 {
        self.in_flight
    }

    /// The local number the next request gets.
    pub(super) fn next_local(&self) -> u64 {
        self.next_local
    }

    /// True with nothing outstanding.
    pub(super) fn is_empty(&self) -> bool {
        self.outstanding.is_empty()
    }

    /// The oldest outstanding request.
    pub(super) fn oldest(&self) -> Option<&LocalRequest> {
        self.outstanding.first().map(|(_, r)| r)
    }

    /// When the oldest outstanding request left.
    pub(super) fn oldest_sent(&self) -> Option<Instant> {
        self.oldest().map(|r| r.sent_at)
    }

    /// Outstanding requests sent before `asked` (strictly).
    pub(super) fn sent_before(&self, asked: Instant) -> u64 {
        self.outstanding
            .iter()
            .take_while(|(_, r)| r.sent_at < asked)
            .count() as u64
    }

    /// Outstanding requests sent no later than `asked`.
    pub(super) fn sent_by(&self, asked: Instant) -> u64 {
        self.outstanding
            .iter()
            .take_while(|(_, r)| r.sent_at <= asked)
            .count() as u64
    }

    /// True when a request numbered below `local` is outstanding.
    pub(super) fn any_before(&self, local: u64) -> bool {
        self.outstanding.first().is_some_and(|(l, _)| l < local)
    }

    /// True when request `local` is outstanding and asks for the segment
    /// at `start`.
    pub(super) fn asks(&self, local: u64, start: u64) -> bool {
        self.outstanding
            .get(local)
            .is_some_and(|r| r.start == start)
    }

    /// True when request `local` is outstanding.
    pub(super) fn holds(&self, local: u64) -> bool {
        self.outstanding.get(local).is_some()
    }

    /// Whether what is in flight is the sum of what is outstanding.
    pub(super) fn consistent(&self) -> bool {
        self.outstanding.iter().map(|(_, r)| r.len()).sum::<u64>() == self.in_flight
    }

    /// The outstanding requests by local number, oldest first.
    pub(super) fn by_local(&self) -> impl Iterator<Item = (u64, &LocalRequest)> {
        self.outstanding.iter()
    }

    /// The outstanding request `local`.
    #[cfg(test)]
    pub(super) fn get(&self, local: u64) -> Option<&LocalRequest> {
        self.outstanding.get(local)
    }

    /// The local number of the oldest outstanding request.
    pub(super) fn oldest_local(&self) -> Option<u64> {
        self.outstanding.first().map(|(l, _)| l)
    }

    /// A request for `[start, end)` leaves at `now`: its local number, and
    /// the pull block it carries.
    pub(super) fn add(&mut self, now: Instant, start: u64, end: u64, snap: Snapshot) -> u64 {
        let local = self.next_local;
        self.next_local += 1;
        self.outstanding.insert(
            local,
            LocalRequest {
                start,
                end,
                sent_at: now,
                later: 0,
                snap,
            },
        );
        self.in_flight += end - start;
        local
    }

    /// The recent pulls a request repeats (§3.3.1), newest first.
    pub(super) fn recent_pulls(&self) -> impl Iterator<Item = PullBlock> + '_ {
        self.recent_pulls.iter().copied()
    }

    /// Remembers `block` as the newest pull sent.
    pub(super) fn pulled(&mut self, block: PullBlock) {
        self.recent_pulls.push_front(block);
        self.recent_pulls.truncate(RECENT_PULLS);
    }

    /// Request `local` is answered or lost: it leaves the table.
    pub(super) fn remove(&mut self, local: u64) -> Option<LocalRequest> {
        let r = self.outstanding.remove(local)?;
        self.in_flight -= r.len();
        Some(r)
    }

    /// Request `local` is deemed lost: it leaves the table, and is kept
    /// among those given up on while it is younger than `horizon`.
    pub(super) fn give_up(&mut self, local: u64, horizon: Duration) -> Option<LocalRequest> {
        let r = self.remove(local)?;
        self.note_given_up(local, &r, horizon);
        Some(r)
    }

    /// Every request leaves the table (a timeout, a link lost), each kept
    /// among those given up on while younger than `horizon`.
    pub(super) fn take_all(&mut self, horizon: Duration) -> Vec<(u64, LocalRequest)> {
        self.in_flight = 0;
        let all = self.outstanding.take_all();
        for (local, r) in &all {
            self.note_given_up(*local, r, horizon);
        }
        all
    }

    /// Keeps request `local`, given up on, with those given up on that
    /// left less than `horizon` before it.
    fn note_given_up(&mut self, local: u64, r: &LocalRequest, horizon: Duration) {
        while self
            .given_up
            .front()
            .is_some_and(|&(_, _, sent)| sent + horizon < r.sent_at)
        {
            self.given_up.pop_front();
        }
        self.given_up.push_back((local, r.start, r.sent_at));
    }

    /// Request `local` was answered in time: the path is a queue, so those
    /// given up on before it will not be answered any more.
    pub(super) fn forget_given_up_before(&mut self, local: u64) {
        while self.given_up.front().is_some_and(|&(l, _, _)| l < local) {
            self.given_up.pop_front();
        }
    }

    /// When request `local`, given up on, left, if it asked for the
    /// segment at `start` and is still kept: it and those given up on
    /// before it are forgotten, so an answer times it once.
    pub(super) fn answered_late(&mut self, local: u64, start: u64) -> Option<Instant> {
        let k = self
            .given_up
            .iter()
            .position(|&(l, s, _)| l == local && s == start)?;
        let sent = self.given_up[k].2;
        self.given_up.drain(..=k);
        Some(sent)
    }

    /// How many requests given up on are kept.
    #[cfg(test)]
    pub(super) fn given_up_len(&self) -> usize {
        self.given_up.len()
    }

    /// Request `local` was answered: each earlier one counts a later
    /// arrival; those at `dupthresh` are lost (RCP §3.3.5 per pipe).
    pub(super) fn later_arrival(&mut self, local: u64, dupthresh: u32) -> Vec<u64> {
        count_later_arrival(self.outstanding.below_mut(local), dupthresh)
    }
}
