//! The receiver's record of what it requested and has not received: RCP's
//! counterpart of the TCP sender's retransmission queue and SACK scoreboard,
//! except that the receiver sees its buffer directly (§3.3.5).
//!
//! Every request (a segment asked for in cumulative mode, or pulled again)
//! gets a request number. A missing segment is deemed lost once `dupthresh`
//! segments requested after it have arrived — the same rule for every hole,
//! and for a pulled segment whose retransmission was lost, so neither needs a
//! timeout.

use std::collections::{BTreeMap, BTreeSet};

use crate::time::Instant;

/// One outstanding request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    /// First byte.
    pub start: u64,
    /// One past the last byte.
    pub end: u64,
    /// Number of the latest request for these bytes.
    pub req_no: u64,
    /// When it was (last) requested.
    pub sent_at: Instant,
    /// Later-requested segments that arrived since.
    pub dups: u32,
    /// Deemed lost and waiting to be pulled again.
    pub lost: bool,
    /// Times pulled again.
    pub pulls: u32,
    /// The host's wireless link is known to have lost it.
    pub wireless: bool,
}

/// One request still outstanding, for RCP's loss detection (§3.3.5): a
/// hole counts the arrivals of data requested after it, and is deemed lost
/// once it has seen `dupthresh` of them. The RCP receiver and R²CP's pipes
/// keep their requests in maps ordered by when they were sent, and count
/// with [`count_later_arrival`].
pub(crate) trait Hole {
    /// The hole's count of later arrivals, or `None` if it no longer counts
    /// (deemed lost already).
    fn later_arrivals(&mut self) -> Option<&mut u32>;
}

/// A request was answered: every request sent before it that still counts
/// (`earlier`, in the order sent) sees one more later arrival. Returns
/// those that reached `dupthresh`, in the order they were sent (the caller
/// deems them lost).
pub(crate) fn count_later_arrival<'a, K, V: Hole + 'a>(
    earlier: impl Iterator<Item = (K, &'a mut V)>,
    dupthresh: u32,
) -> Vec<K> {
    let mut lost = Vec::new();
    for (k, hole) in earlier {
        if let Some(n) = hole.later_arrivals() {
            *n += 1;
            if *n >= dupthresh {
                lost.push(k);
            }
        }
    }
    lost
}

impl Hole for Request {
    fn later_arrivals(&mut self) -> Option<&mut u32> {
        (!self.lost).then_some(&mut self.dups)
    }
}

/// Outstanding requests, by request number (the order they were sent), with
/// an index by start offset.
#[derive(Clone, Debug, Default)]
pub struct RequestBoard {
    by_req: BTreeMap<u64, Request>,
    by_start: BTreeMap<u64, u64>,
    lost: BTreeSet<u64>,
    next_req_no: u64,
    in_flight: u64,
}

impl RequestBoard {
    /// An empty board.
    pub fn new() -> Self {
        Self::default()
    }

    /// Bytes requested, not arrived and not deemed lost (the pipe).
    pub fn in_flight(&self) -> u64 {
        self.in_flight
    }

    /// True when nothing is outstanding.
    pub fn is_empty(&self) -> bool {
        self.by_req.is_empty()
    }

    /// The outstanding request starting at `start`.
    pub fn get(&self, start: u64) -> Option<&Request> {
        self.by_start.get(&start).and_then(|n| self.by_req.get(n))
    }

    fn get_mut(&mut self, start: u64) -> Option<&mut Request> {
        let n = self.by_start.get(&start)?;
        self.by_req.get_mut(n)
    }

    /// Number of the most recent request issued.
    pub fn last_req_no(&self) -> u64 {
        self.next_req_no
    }

    /// Records a new request for `[start, end)`; returns its number.
    pub fn request(&mut self, start: u64, end: u64, now: Instant) -> u64 {
        self.next_req_no += 1;
        let n = self.next_req_no;
        self.by_req.insert(
            n,
            Request {
                start,
                end,
                req_no: n,
                sent_at: now,
                dups: 0,
                lost: false,
                pulls: 0,
                wireless: false,
            },
        );
        self.by_start.insert(start, n);
        self.in_flight += end - start;
        n
    }

    /// The lowest lost segment waiting to be pulled.
    pub fn next_lost(&self) -> Option<&Request> {
        self.lost.first().and_then(|&s| self.get(s))
    }

    /// Requests the lost segment at `start` again; returns its new number.
    pub fn pull(&mut self, start: u64, now: Instant) -> Option<u64> {
        if !self.get(start)?.lost {
            return None;
        }
        let old = self.by_start[&start];
        let mut r = self.by_req.remove(&old).expect("indexed");
        self.lost.remove(&start);
        self.next_req_no += 1;
        r.req_no = self.next_req_no;
        r.sent_at = now;
        r.dups = 0;
        r.lost = false;
        r.wireless = false;
        r.pulls += 1;
        self.in_flight += r.end - r.start;
        self.by_start.insert(start, r.req_no);
        self.by_req.insert(r.req_no, r);
        Some(self.next_req_no)
    }

    /// Marks the segment at `start` lost (if outstanding and not already).
    /// Returns true if it changed.
    pub fn mark_lost(&mut self, start: u64) -> bool {
        match self.get_mut(start) {
            Some(r) if !r.lost => {
                r.lost = true;
                let len = r.end - r.start;
                self.in_flight -= len;
                self.lost.insert(start);
                true
            }
            _ => false,
        }
    }

    /// Notes that the host's wireless link lost the data at `start`.
    pub fn mark_wireless(&mut self, start: u64) -> bool {
        match self.get_mut(start) {
            Some(r) => {
                r.wireless = true;
                true
            }
            None => false,
        }
    }

    /// Withdraws the requests for bytes at or beyond `limit` (the sender has
    /// less data than was asked for); a request straddling it is shortened.
    pub fn withdraw_from(&mut self, limit: u64) {
        let cut: Vec<u64> = self
            .by_start
            .values()
            .filter(|n| self.by_req[n].end > limit)
            .copied()
            .collect();
        for n in cut {
            let r = self.by_req.remove(&n).expect("listed");
            if !r.lost {
                self.in_flight -= r.end - r.start;
            }
            self.lost.remove(&r.start);
            self.by_start.remove(&r.start);
            if r.start < limit {
                let kept = Request { end: limit, ..r };
                if !kept.lost {
                    self.in_flight += kept.end - kept.start;
                } else {
                    self.lost.insert(kept.start);
                }
                self.by_start.insert(kept.start, n);
                self.by_req.insert(n, kept);
            }
        }
    }

    /// Marks everything outstanding lost (after a timeout).
    pub fn mark_all_lost(&mut self) {
        let starts: Vec<u64> = self.by_start.keys().copied().collect();
        for s in starts {
            self.mark_lost(s);
        }
    }

    /// Data `[start, end)` arrived. Returns the request it answered (if it
    /// was outstanding) and the segments this arrival shows lost: those
    /// requested before it that have now seen `dupthresh` later arrivals.
    pub fn arrive(&mut self, start: u64, end: u64, dupthresh: u32) -> (Option<Request>, Vec<u64>) {
        let Some(r) = self.get(start).copied() else {
            return (None, Vec::new());
        };
        if r.end != end {
            return (None, Vec::new());
        }
        self.by_start.remove(&start);
        self.by_req.remove(&r.req_no);
        if r.lost {
            self.lost.remove(&start);
        } else {
            self.in_flight -= r.end - r.start;
        }
        let newly_lost: Vec<u64> = count_later_arrival(
            self.by_req.range_mut(..r.req_no).map(|(&k, v)| (k, v)),
            dupthresh,
        )
        .into_iter()
        .map(|n| self.by_req[&n].start)
        .collect();
        for &s in &newly_lost {
            self.mark_lost(s);
        }
        (Some(r), newly_lost)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_hole_uses_the_same_threshold() {
        let t = Instant::ZERO;
        let mut b = RequestBoard::new();
        for k in 0..8u64 {
            b.request(k * 10, k * 10 + 10, t);
        }
        assert_eq!(b.in_flight(), 80);
        // 0 and 20 are lost; 10, 30, 40, 50 arrive.
        assert_eq!(b.arrive(10, 20, 3).1, Vec::<u64>::new());
        assert_eq!(b.arrive(30, 40, 3).1, Vec::<u64>::new());
        assert_eq!(b.arrive(40, 50, 3).1, vec![0]);
        assert_eq!(b.arrive(50, 60, 3).1, vec![20], "the second hole too");
        assert_eq!(b.next_lost().map(|r| r.start), Some(0));
        assert_eq!(b.in_flight(), 20);
    }

    #[test]
    fn a_lost_retransmission_is_detected_without_a_timeout() {
        let t = Instant::ZERO;
        let mut b = RequestBoard::new();
        for k in 0..10u64 {
            b.request(k * 10, k * 10 + 10, t);
        }
        for k in 1..4u64 {
            b.arrive(k * 10, k * 10 + 10, 3);
        }
        assert!(b.get(0).unwrap().lost);
        b.pull(0, t);
        assert!(!b.get(0).unwrap().lost);
        // Segments requested before the pull do not count against it.
        b.arrive(40, 50, 3);
        assert!(!b.get(0).unwrap().lost);
        // Three requested after it do.
        for k in 10..13u64 {
            b.request(k * 10, k * 10 + 10, t);
        }
        for k in 10..13u64 {
            b.arrive(k * 10, k * 10 + 10, 3);
        }
        assert!(b.get(0).unwrap().lost);
        assert_eq!(b.get(0).unwrap().pulls, 1);
    }
}
