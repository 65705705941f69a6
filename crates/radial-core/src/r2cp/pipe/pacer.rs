//! Pacing of a pipe's requests (beyond the R²CP paper): a token bucket
//! that lets the pipe ask at a multiple of its window per round trip, with
//! bursts of a few segments, and at once for what its answers clock.
//!
//! A pipe's requests are clocked by its arrivals, one or two per answer,
//! except when the receive buffer opens all at once: the head of line
//! arrives after holding the buffer shut, and a pipe whose window has room
//! sends every request the opening allows in one turn. Runs of a hundred
//! requests and more then leave back to back; a 50-packet queue on the way
//! up drops most of them, each loss cuts the pipe's window, and the data
//! answering the rest arrives as one burst too. RCP on one path asks for
//! the same opening with one cumulative request, and its sender sends the
//! burst. Paced, the opening is asked for over part of a round trip.
//!
//! The rate is Linux's (`tcp_update_pacing_rate`): the window over the
//! smoothed round trip, times 2 in slow start (`tcp_pacing_ss_ratio`) and
//! 1.2 after (`tcp_pacing_ca_ratio`). The bucket holds [`BURST`] segments,
//! or more if the pace fills them faster than [`BURST_TIME`]: a driver that
//! wakes once a millisecond still keeps a fast path busy.
//!
//! Unlike Linux's pacing, while a pipe's congestion window is below its
//! path's bandwidth-delay product each answer also puts a segment's worth
//! into the bucket, up to its depth ([`Pacer::credit`]): the request that
//! takes the answered one's place leaves with the answer, as RCP's does on
//! one path. Such a window keeps no standing queue at the bottleneck to
//! overflow, and answers come at the path's rate, so the requests they
//! clock leave at that rate too. Paced at the rate alone, the window was
//! spread over the whole round trip where RCP's leaves in one run, and on a
//! bursty channel (a Gilbert-Elliott bad state shorter than the round trip)
//! the spread window met every bad spell, the run only some. Above the
//! product the excess queues at the bottleneck and every request is paced:
//! there the credit gave back what pacing gains on shallow queues. Over 200
//! seeds of four cases of three bursty paths with a satellite one, with a
//! buffer of twice their summed bandwidth times the longest round trip, in
//! % of what the paths carry alone (no credit / a credit whatever the
//! window / a credit below the product):
//!
//! - 10 Mbit/s satellite, two 1 Mbit/s cellular: 93.8 / 95.8 / 95.1;
//! - 2 Mbit/s cellular, 10 and 1 Mbit/s satellite: 95.1 / 94.3 / 95.5;
//! - 5 Mbit/s satellite with a 100-packet queue, two 1 Mbit/s satellite:
//!   99.3 / 94.6 / 99.8;
//! - 2 Mbit/s cellular, 10 Mbit/s satellite, 1 Mbit/s WLAN: 100.6 / 100.3 /
//!   101.6.

use super::Pipe;
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
/// leave paced ([`Pipe::pace_opening`]).
pub const MAX_BURST: u64 = 4;

/// When a pipe's requests are paced, and what its answers and the engine
/// do to the pace.
impl Pipe {
    /// The pace of the pipe's requests while it shares the receive buffer,
    /// or while the window it resumed after an outage leaves, or the room
    /// it had when the engine let it ask again ([`Pipe::pace_opening`]; see
    /// the module text above): none otherwise, or before a round trip is
    /// measured.
    pub(super) fn pace(&self) -> Option<Pace> {
        if !self.rules.pacing {
            return None;
        }
        let resuming = self.resume_paced_until.is_some_and(|l| self.next_local < l);
        let srtt = if resuming {
            self.rtt.srtt()?
        } else {
            self.queue_cap.and(self.rtt.srtt())?
        };
        let w = self.cc.window();
        Some(Pace::of_window(
            self.window(),
            srtt,
            w.cwnd < w.ssthresh,
            self.config.mss,
        ))
    }

    /// Whether the pipe's requests are paced now (see the module text above).
    pub fn is_paced(&self) -> bool {
        self.pace().is_some()
    }

    pub(super) fn paced(&self, now: Instant) -> bool {
        self.pace()
            .is_none_or(|pace| self.pacer.ready(now, pace, self.config.mss))
    }

    /// An answer of `len` bytes arrived: while the window is below its
    /// path's bandwidth-delay product, the request it clocks, the one that
    /// takes its place in the window, is not held by the pace (see the
    /// module text above).
    pub(super) fn clock_pace(&mut self, now: Instant, len: u64) {
        let Some(pace) = self.pace() else { return };
        if self.bdp().is_some_and(|bdp| self.cwnd() < bdp) {
            self.pacer.credit(now, pace, len);
        }
    }

    /// The pipe has room in its window but its pace holds it back: it asks
    /// again when the pace lets it ([`Pipe::poll_timeout`]).
    pub fn note_paced(&mut self, now: Instant) {
        if let Some(pace) = self.pace() {
            if self.window_has_room() && !self.pacer.ready(now, pace, self.config.mss) {
                self.pace_deadline = Some(self.pacer.ready_at(now, pace, self.config.mss));
            }
        }
    }

    /// The engine lets a pipe it froze ask again (the receive buffer, or the
    /// rank, held it back). Should its window have room for more than
    /// `MAX_BURST` requests, they leave at its window's pace over its
    /// round trip, as after an outage, not at once: a drop-tail queue on the
    /// way back cuts a window's worth of data short. A pipe that works
    /// beside others is paced anyway (its queue cap); one working
    /// alone was not, and a buffer that opened all at once, as when the
    /// head of line a pipe on a vanished link held came at last, let it
    /// send the room it had in one burst. In handoff storms told nothing, a
    /// 20 Mbit/s WLAN pipe halved its window at such bursts turn after turn.
    /// (ns-2's TCP `maxburst_` and SCTP's Max.Burst, RFC 4960 §6.1, bound
    /// such a burst to four packets; here the rest is paced instead.)
    pub fn pace_opening(&mut self) {
        let room = self.window().saturating_sub(self.in_flight) / self.config.mss;
        if room > MAX_BURST {
            self.resume_paced_until = Some(self.next_local + room);
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
}
