//! How fast a pipe's path delivers what it is asked, and how much of the
//! receive buffer it needs for that: delivery-rate samples as BBR takes them
//! (Cheng et al., "Delivery Rate Estimation", draft-cheng-iccrg-delivery-
//! rate-estimation), their maximum over the last ten round trips, and the
//! bandwidth-delay product that maximum and the path's shortest round trip
//! make. Beyond the R²CP paper, whose pipes take as much of the buffer as
//! their windows allow (see [`super::Pipe::window`]).

use std::collections::VecDeque;

use crate::time::{Duration, Instant};

/// Round trips over which the highest delivery rate is kept (BBR's
/// `BtlBwFilterLen`).
const ROUNDS: u64 = 10;

/// The pipe's delivery state when a request left, kept with the request.
#[derive(Clone, Copy, Debug)]
pub(super) struct Snapshot {
    delivered: u64,
    delivered_at: Instant,
    first_sent_at: Instant,
    app_limited: bool,
}

/// Delivery-rate samples and their windowed maximum.
#[derive(Debug)]
pub(super) struct DeliveryRate {
    /// Bytes answered so far.
    delivered: u64,
    /// When the latest answer arrived.
    delivered_at: Instant,
    /// When the request answered latest was sent.
    first_sent_at: Instant,
    /// Requests sent before `delivered` passes this were sent while the pipe
    /// had room in its window but nothing to ask for (the receive buffer or
    /// the senders held it back): their rates say little of the path.
    app_limited_until: Option<u64>,
    /// Round trips counted as BBR counts them: one ends when a request sent
    /// after the previous one ended is answered.
    round: u64,
    next_round_delivered: u64,
    /// Decreasing rates (bytes per second) with the round each was sampled
    /// in: the front is the maximum of the last [`ROUNDS`].
    max: VecDeque<(u64, u64)>,
}

impl DeliveryRate {
    pub(super) fn new() -> Self {
        DeliveryRate {
            delivered: 0,
            delivered_at: Instant::ZERO,
            first_sent_at: Instant::ZERO,
            app_limited_until: None,
            round: 0,
            next_round_delivered: 0,
            max: VecDeque::new(),
        }
    }

    /// A request leaves at `now` with `in_flight` bytes already out: the
    /// state its answer's sample is measured from. With nothing out the
    /// interval starts afresh (the draft's "start of a flight").
    pub(super) fn on_send(&mut self, now: Instant, in_flight: u64) -> Snapshot {
        if in_flight == 0 {
            self.first_sent_at = now;
            self.delivered_at = now;
        }
        Snapshot {
            delivered: self.delivered,
            delivered_at: self.delivered_at,
            first_sent_at: self.first_sent_at,
            app_limited: self.app_limited_until.is_some(),
        }
    }

    /// The pipe had room to ask for more but was given nothing, with
    /// `in_flight` bytes out: samples until those are answered are
    /// app-limited, and only count where they raise the maximum.
    pub(super) fn on_app_limited(&mut self, in_flight: u64) {
        self.app_limited_until = Some(self.delivered + in_flight.max(1));
    }

    /// `len` bytes of the request sent at `sent_at` with `snap` arrived at
    /// `now`. A sample over an interval shorter than `min_rtt` is not taken
    /// (the draft: it would see a burst, not the path).
    pub(super) fn on_answer(
        &mut self,
        now: Instant,
        len: u64,
        sent_at: Instant,
        snap: Snapshot,
        min_rtt: Duration,
    ) {
        self.delivered += len;
        self.delivered_at = now;
        if self.app_limited_until.is_some_and(|m| self.delivered > m) {
            self.app_limited_until = None;
        }
        if snap.delivered >= self.next_round_delivered {
            self.next_round_delivered = self.delivered;
            self.round += 1;
        }
        let send_elapsed = sent_at.saturating_since(snap.first_sent_at);
        let ack_elapsed = now.saturating_since(snap.delivered_at);
        self.first_sent_at = sent_at;
        let interval = send_elapsed.max(ack_elapsed);
        if !interval.is_zero() && interval >= min_rtt {
            let bytes = u128::from(self.delivered - snap.delivered);
            let rate = (bytes * 1_000_000_000 / u128::from(interval.as_nanos())) as u64;
            // As BBR's filter, the window moves only with samples it
            // takes: a pipe held back for long keeps the rate it had.
            if !snap.app_limited || rate >= self.max_rate() {
                self.expire();
                while self.max.back().is_some_and(|&(_, r)| r <= rate) {
                    self.max.pop_back();
                }
                self.max.push_back((self.round, rate));
            }
        }
    }

    fn expire(&mut self) {
        while self
            .max
            .front()
            .is_some_and(|&(round, _)| round + ROUNDS <= self.round)
        {
            self.max.pop_front();
        }
    }

    /// The highest delivery rate of the last ten round trips, in bytes per
    /// second (0 before any sample).
    pub(super) fn max_rate(&self) -> u64 {
        self.max.front().map_or(0, |&(_, r)| r)
    }

    /// The bandwidth-delay product of the path: the highest recent delivery
    /// rate over its shortest round trip, in bytes (`None` before a sample).
    pub(super) fn bdp(&self, min_rtt: Duration) -> Option<u64> {
        let rate = self.max.front()?.1;
        Some((u128::from(rate) * u128::from(min_rtt.as_nanos()) / 1_000_000_000) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RTT: Duration = Duration::from_millis(100);

    /// A path that answers one 1000-byte request every `gap` ms after a
    /// `RTT` round trip, asked `window` requests at a time, for `n`
    /// requests; returns the estimator.
    fn clocked(window: u64, gap: u64, n: u64) -> DeliveryRate {
        let mut d = DeliveryRate::new();
        let mut out: VecDeque<(Instant, Snapshot)> = VecDeque::new();
        let mut t = Instant::from_millis(0);
        for _ in 0..window {
            out.push_back((t, d.on_send(t, out.len() as u64 * 1000)));
        }
        let mut answered_at = Instant::from_millis(100);
        for _ in 0..n {
            let (sent, snap) = out.pop_front().unwrap();
            answered_at = answered_at.max(sent + RTT) + Duration::from_millis(gap);
            t = answered_at;
            d.on_answer(t, 1000, sent, snap, RTT);
            out.push_back((t, d.on_send(t, out.len() as u64 * 1000)));
        }
        d
    }

    #[test]
    fn a_saturated_path_shows_its_rate_and_its_bdp() {
        // One answer per 4 ms: 250 kB/s, whatever the window beyond the
        // path's 25 segments of bandwidth-delay product.
        for window in [30, 60, 200] {
            let d = clocked(window, 4, 2000);
            let rate = d.max_rate();
            assert!((245_000..=255_000).contains(&rate), "{window}: {rate}");
            let bdp = d.bdp(RTT).unwrap();
            assert!((24_500..=25_500).contains(&bdp), "{window}: {bdp}");
        }
    }

    #[test]
    fn a_window_below_the_bdp_shows_what_the_window_carries() {
        // Ten requests a round trip of ~100 ms: ~100 kB/s, not the 250 the
        // path could carry.
        let d = clocked(10, 4, 500);
        let rate = d.max_rate();
        assert!((90_000..=105_000).contains(&rate), "{rate}");
    }

    #[test]
    fn app_limited_samples_do_not_lower_the_maximum() {
        let mut d = clocked(60, 4, 500);
        let before = d.max_rate();
        // Held back to one request at a time for many round trips.
        d.on_app_limited(1000);
        let mut t = Instant::from_millis(10_000);
        for _ in 0..100 {
            let snap = d.on_send(t, 0);
            d.on_answer(t + RTT, 1000, t, snap, RTT);
            d.on_app_limited(0);
            t += RTT;
        }
        assert_eq!(d.max_rate(), before);
    }

    #[test]
    fn the_maximum_forgets_a_rate_after_ten_round_trips() {
        let mut d = clocked(60, 4, 500);
        // The path slows to one answer per 40 ms: after ten round trips the
        // old rate is gone.
        let mut t = Instant::from_millis(10_000);
        let mut snap = d.on_send(t, 0);
        for _ in 0..200 {
            let sent = t;
            t += Duration::from_millis(40) + RTT;
            d.on_answer(t, 1000, sent, snap, RTT);
            snap = d.on_send(t, 0);
        }
        let rate = d.max_rate();
        assert!(rate < 10_000, "{rate}");
    }
}
