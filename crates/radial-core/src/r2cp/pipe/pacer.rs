//! Pacing of a pipe's requests (rule `pacing`): a token bucket that lets
//! the pipe ask at a multiple of its window per round trip, with bursts of a
//! few segments, and at once for what its answers clock.
//!
//! A pipe's requests are clocked by its arrivals, one or two per answer,
//! except when the receive buffer opens all at once: a pipe whose window
//! has room then sends every request the opening allows in one turn, and a
//! drop-tail queue on the way up drops most of a long run of them. RCP on
//! one path asks for the same opening with one cumulative request, and its
//! sender sends the burst. Paced, the opening is asked for over part of a
//! round trip.
//!
//! The rate is Linux's (`tcp_update_pacing_rate`): the window over the
//! smoothed round trip, times 2 in slow start (`tcp_pacing_ss_ratio`) and
//! 1.2 after (`tcp_pacing_ca_ratio`). The bucket holds [`BURST`] segments,
//! or more if the pace fills them faster than [`BURST_TIME`]: a driver that
//! wakes once a millisecond still keeps a fast path busy.
//!
//! A pipe is paced while it shares the buffer (the engine caps it), while
//! the window it resumed after an outage leaves, and while the room it had
//! when the engine let it ask again leaves ([`Pacing::opening`]). Unlike
//! Linux's pacing, while a pipe's congestion window is below its path's
//! bandwidth-delay product each answer also puts a segment's worth into the
//! bucket ([`Pacing::credit`]): the request that takes the answered one's
//! place leaves with the answer, as RCP's does on one path. Such a window
//! keeps no standing queue at the bottleneck, and answers come at the
//! path's rate, so the requests they clock leave at that rate too.

use crate::time::{Duration, Instant};

/// Segments a pipe may always send back to back (the initial window).
pub(super) const BURST: u64 = 10;

/// The bucket holds at least this long of requests at the pacing rate.
const BURST_TIME: Duration = Duration::from_millis(2);

/// A token bucket of request bytes.
#[derive(Clone, Copy, Debug)]
pub(super) struct Pacer {
    /// Bytes that may be asked for now, as of `at` (`None`: a full bucket).
    tokens: Option<(u64, Instant)>,
}

/// A pace: bytes per second and the bucket's depth in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Pace {
    pub rate: u64,
    pub depth: u64,
}

/// The multiple of window over round trip a pipe in slow start asks at
/// (Linux's `tcp_pacing_ss_ratio`, 200 %).
const SLOW_START_RATIO: (u128, u128) = (2, 1);

/// The same after slow start (`tcp_pacing_ca_ratio`, 120 %).
const AVOIDANCE_RATIO: (u128, u128) = (6, 5);

impl Pace {
    /// The pace of a pipe whose window is `window` bytes over a smoothed
    /// round trip `srtt`, in slow start or not, asking `mss`-byte segments.
    pub(super) fn of_window(window: u64, srtt: Duration, slow_start: bool, mss: u64) -> Self {
        let (num, den) = if slow_start {
            SLOW_START_RATIO
        } else {
            AVOIDANCE_RATIO
        };
        let rate =
            u128::from(window) * num * 1_000_000_000 / (den * u128::from(srtt.as_nanos().max(1)));
        Pace::new(rate.min(u128::from(u64::MAX)) as u64, mss)
    }

    /// `rate` bytes per second, with a bucket of at least `BURST` segments
    /// of `mss` bytes.
    pub(super) fn new(rate: u64, mss: u64) -> Self {
        let timed = u128::from(rate) * u128::from(BURST_TIME.as_nanos()) / 1_000_000_000;
        Pace {
            rate: rate.max(1),
            depth: (BURST * mss).max(timed as u64),
        }
    }
}

impl Pacer {
    pub(super) fn new() -> Self {
        Pacer { tokens: None }
    }

    /// The tokens at `now`.
    fn available(&self, now: Instant, pace: Pace) -> u64 {
        match self.tokens {
            None => pace.depth,
            Some((tokens, at)) => {
                let gained = u128::from(now.saturating_since(at).as_nanos())
                    * u128::from(pace.rate)
                    / 1_000_000_000;
                (u128::from(tokens) + gained).min(u128::from(pace.depth)) as u64
            }
        }
    }

    /// May `bytes` be asked for at `now`?
    pub(super) fn ready(&self, now: Instant, pace: Pace, bytes: u64) -> bool {
        self.available(now, pace) >= bytes
    }

    /// `bytes` were asked for at `now` (the bucket may go below zero by what
    /// was asked for without pacing: it is then empty).
    pub(super) fn spend(&mut self, now: Instant, pace: Pace, bytes: u64) {
        let left = self.available(now, pace).saturating_sub(bytes);
        self.tokens = Some((left, now));
    }

    /// An answer clocking `bytes` of requests arrived at `now`: they may
    /// leave at once, up to a full bucket.
    pub(super) fn credit(&mut self, now: Instant, pace: Pace, bytes: u64) {
        let tokens = self.available(now, pace).saturating_add(bytes);
        self.tokens = Some((tokens.min(pace.depth), now));
    }

    /// When `bytes` may be asked for, at the earliest.
    pub(super) fn ready_at(&self, now: Instant, pace: Pace, bytes: u64) -> Instant {
        let have = self.available(now, pace);
        let short = bytes.saturating_sub(have);
        let ns = (u128::from(short) * 1_000_000_000).div_ceil(u128::from(pace.rate));
        now + Duration::from_nanos(ns.min(u128::from(u64::MAX)) as u64)
    }

    /// Forgets the bucket's state: the next request finds it full (the pipe
    /// stops being paced, or starts afresh).
    pub(super) fn reset(&mut self) {
        self.tokens = None;
    }
}

/// The most requests a pipe the engine lets ask again sends at once; more
/// leave paced ([`Pacing::opening`]).
pub const MAX_BURST: u64 = 4;

/// What the pace of a pipe depends on.
#[derive(Clone, Copy, Debug)]
pub(super) struct Shape {
    /// The window it may fill (its congestion window under its cap).
    pub window: u64,
    /// Its congestion window.
    pub cwnd: u64,
    /// Its smoothed round trip, once sampled.
    pub srtt: Option<Duration>,
    /// Whether it is in slow start.
    pub slow_start: bool,
    /// Whether the engine caps what it may have outstanding (it shares the
    /// buffer).
    pub capped: bool,
    /// The local number its next request gets.
    pub next_local: u64,
    /// Its segment size.
    pub mss: u64,
}

/// A pipe's pacing: the bucket, when the pace next lets it ask, and until
/// which request a resumed window or an opening is paced.
#[derive(Clone, Copy, Debug)]
pub(super) struct Pacing {
    /// Whether pacing is on at all (rule `pacing`).
    on: bool,
    bucket: Pacer,
    /// The pace lets the pipe ask again then.
    deadline: Option<Instant>,
    /// Requests are paced until this local number has left.
    until: Option<u64>,
    /// A pipe held back by its pace asks again once this long of requests
    /// at its pace may go (at least two segments), or one segment when
    /// zero.
    quantum: Duration,
}

impl Pacing {
    /// Pacing, on or off.
    pub(super) fn new(on: bool) -> Self {
        Pacing {
            on,
            bucket: Pacer::new(),
            deadline: None,
            until: None,
            quantum: Duration::ZERO,
        }
    }

    /// Sets the quantum a held-back pipe waits for
    /// ([`crate::r2cp::R2cpConfig::pacing_quantum`]).
    pub(super) fn set_quantum(&mut self, quantum: Duration) {
        self.quantum = quantum;
    }

    /// The bytes a pipe held back by `pace` waits for: a segment, or with
    /// a quantum, the larger of two segments and the quantum at the pace,
    /// within the bucket.
    fn wait_for(&self, pace: Pace, mss: u64) -> u64 {
        if self.quantum.is_zero() {
            return mss;
        }
        let timed = u128::from(pace.rate) * u128::from(self.quantum.as_nanos()) / 1_000_000_000;
        (timed as u64).max(2 * mss).min(pace.depth).max(mss)
    }

    /// The pace of a pipe of `shape`: none unless pacing is on and the pipe
    /// shares the buffer or resumes a window (see the module text), or
    /// before a round trip is measured.
    pub(super) fn pace(&self, shape: Shape) -> Option<Pace> {
        if !self.on {
            return None;
        }
        let resuming = self.until.is_some_and(|l| shape.next_local < l);
        let srtt = if resuming || shape.capped {
            shape.srtt?
        } else {
            return None;
        };
        Some(Pace::of_window(
            shape.window,
            srtt,
            shape.slow_start,
            shape.mss,
        ))
    }

    /// Whether the pace lets a segment go at `now`.
    pub(super) fn ready(&self, now: Instant, shape: Shape) -> bool {
        self.pace(shape)
            .is_none_or(|pace| self.bucket.ready(now, pace, shape.mss))
    }

    /// A request of `bytes` left at `now`.
    pub(super) fn spend(&mut self, now: Instant, shape: Shape, bytes: u64) {
        match self.pace(shape) {
            Some(pace) => self.bucket.spend(now, pace, bytes),
            None => self.bucket.reset(),
        }
    }

    /// An answer of `len` bytes arrived at `now`: while the window is below
    /// the path's bandwidth-delay product `bdp`, the request it clocks is
    /// not held by the pace.
    pub(super) fn credit(&mut self, now: Instant, shape: Shape, len: u64, bdp: Option<u64>) {
        let Some(pace) = self.pace(shape) else { return };
        if bdp.is_some_and(|bdp| shape.cwnd < bdp) {
            self.bucket.credit(now, pace, len);
        }
    }

    /// The pipe has room in its window but its pace holds it back: it may
    /// ask again when the pace lets it.
    pub(super) fn held(&mut self, now: Instant, shape: Shape, room: bool) {
        if let Some(pace) = self.pace(shape) {
            if room && !self.bucket.ready(now, pace, shape.mss) {
                let bytes = self.wait_for(pace, shape.mss);
                self.deadline = Some(self.bucket.ready_at(now, pace, bytes));
            }
        }
    }

    /// When the pace lets the pipe ask again, if it held it back.
    pub(super) fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// The pace's timer expired, or the pipe stops (its link went).
    pub(super) fn clear_deadline(&mut self) {
        self.deadline = None;
    }

    /// Paces the next `requests` requests from local number `next_local` on
    /// (a window resumed after an outage).
    pub(super) fn pace_next(&mut self, next_local: u64, requests: u64) {
        self.until = Some(next_local + requests);
    }

    /// The engine lets a pipe it froze ask again with room for `room`
    /// requests: more than [`MAX_BURST`] leave at its window's pace over its
    /// round trip, not at once, as a drop-tail queue on the way back cuts a
    /// window's worth of data short. (ns-2's TCP `maxburst_` and SCTP's
    /// Max.Burst, RFC 4960 §6.1, bound such a burst to four packets; here
    /// the rest is paced instead.)
    pub(super) fn opening(&mut self, next_local: u64, room: u64) {
        if room > MAX_BURST {
            self.until = Some(next_local + room);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_bucket_lets_a_burst_go_then_paces_the_rest() {
        // 1 MB/s: one 1000-byte segment per millisecond, ten at once.
        let pace = Pace::new(1_000_000, 1000);
        assert_eq!(pace.depth, 10_000);
        let mut p = Pacer::new();
        let mut sent = 0;
        while p.ready(Instant::from_millis(0), pace, 1000) {
            p.spend(Instant::from_millis(0), pace, 1000);
            sent += 1;
        }
        assert_eq!(sent, 10);
        assert_eq!(
            p.ready_at(Instant::from_millis(0), pace, 1000),
            Instant::from_millis(1)
        );
        assert!(!p.ready(Instant::from_nanos(999_999), pace, 1000));
        assert!(p.ready(Instant::from_millis(1), pace, 1000));
        // Idle for a second: the bucket holds ten segments, not a thousand.
        p.spend(Instant::from_millis(1), pace, 1000);
        assert_eq!(p.available(Instant::from_millis(1_001), pace), 10_000);
    }

    #[test]
    fn an_answer_lets_the_requests_it_clocks_go_at_once_up_to_a_full_bucket() {
        // 1 segment per 100 ms: an empty bucket would hold the next request
        // for 100 ms.
        let pace = Pace::new(10_000, 1000);
        let mut p = Pacer::new();
        let t = Instant::from_millis(0);
        for _ in 0..10 {
            p.spend(t, pace, 1000);
        }
        assert!(!p.ready(t, pace, 1000));
        p.credit(t, pace, 2000);
        assert!(p.ready(t, pace, 2000) && !p.ready(t, pace, 3000));
        // Credit beyond the depth is not kept: a burst stays a burst of ten.
        p.credit(t, pace, 50_000);
        assert_eq!(p.available(t, pace), 10_000);
    }

    #[test]
    fn the_pace_is_linux_s_multiple_of_the_window_per_round_trip() {
        // 100 segments per 100 ms: 1 MB/s; twice that in slow start, 1.2
        // times after.
        let srtt = Duration::from_millis(100);
        assert_eq!(Pace::of_window(100_000, srtt, true, 1000).rate, 2_000_000);
        assert_eq!(Pace::of_window(100_000, srtt, false, 1000).rate, 1_200_000);
    }

    #[test]
    fn a_fast_pace_holds_two_milliseconds_of_requests() {
        // 100 MB/s: 200 kB in 2 ms.
        let pace = Pace::new(100_000_000, 1000);
        assert_eq!(pace.depth, 200_000);
    }

    #[test]
    fn a_quantum_holds_a_paced_pipe_until_a_millisecond_of_requests_may_go() {
        // 50 kB over 20 ms after slow start: 3 MB/s, ten segments of bucket.
        let shape = Shape {
            window: 50_000,
            cwnd: 50_000,
            srtt: Some(Duration::from_millis(20)),
            slow_start: false,
            capped: true,
            next_local: 0,
            mss: 1000,
        };
        let t = Instant::from_millis(0);
        let deadline = |quantum: Duration| {
            let mut p = Pacing::new(true);
            p.set_quantum(quantum);
            p.spend(t, shape, 10_000);
            assert!(!p.ready(t, shape));
            p.held(t, shape, true);
            p.deadline().unwrap()
        };
        // Alone, a request waits for its own segment's tokens: a third of
        // a millisecond.
        assert_eq!(deadline(Duration::ZERO), Instant::from_nanos(333_334));
        // With a 1 ms quantum, until 3 kB may go together.
        assert_eq!(deadline(Duration::from_millis(1)), Instant::from_millis(1));
        // At least two segments, however slow the pace.
        let slow = Shape {
            window: 2_000,
            srtt: Some(Duration::from_millis(600)),
            ..shape
        };
        let mut p = Pacing::new(true);
        p.set_quantum(Duration::from_millis(1));
        p.spend(t, slow, 10_000);
        p.held(t, slow, true);
        let pace = p.pace(slow).unwrap();
        assert_eq!(p.wait_for(pace, 1000), 2000);
        assert_eq!(
            p.deadline(),
            Some(t + Duration::from_nanos((2000u64 * 1_000_000_000).div_ceil(pace.rate)))
        );
    }
}
