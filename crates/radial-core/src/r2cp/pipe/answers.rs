//! The answer-time model of a pipe: everything it knows of when its path
//! answers. It owns the round-trip estimator (RFC 6298 in ns-2's form) and
//! the stream of answers: when the last one came and for which request, the
//! smoothed gap between answers (the pace at which the path drains what it
//! is asked), and the longest pause the stream made lately.
//!
//! It answers two questions for the engine, for a request sent at a given
//! time:
//!
//! - **when it should come back**: after the requests sent before it, one
//!   per answer gap behind the last answer while it is in the stream (it
//!   left at least the path's shortest round trip before that answer);
//!   otherwise a smoothed round trip after it left;
//! - **when its path counts as silent under it**: that time plus the
//!   path's **slack**, one formula: the larger of four answer gaps, a
//!   quarter of the path's shortest round trip (its propagation: a queue
//!   delays the stream, it does not pause it), and twice the longest pause
//!   the stream made lately (a radio link that stalls at times is not taken
//!   for dead).
//!
//! The round trip the pipe shows the engine for a request sent now
//! ([`AnswerClock::shown`]) and the patience the engine has with a request
//! before it is asked elsewhere ([`AnswerClock::patience`]) come from the
//! same estimates.

use super::requests::Requests;
use crate::rtt::{RttConfig, RttEstimator};
use crate::time::{Duration, Instant};

/// The pipe's timing: round-trip estimates and the stream of answers.
#[derive(Debug)]
pub(super) struct AnswerClock {
    rtt: RttEstimator,
    initial_rto: Duration,
    /// The last answer: when it arrived, and when the latest request
    /// answered so far had been sent.
    last: Option<(Instant, Instant)>,
    /// Smoothed time between answers (gain 1/8).
    gap: Option<Duration>,
    /// The longest pause of the stream lately.
    longest_gap: LongestGap,
    /// The round trip of the latest answer to a request given up on, until
    /// a request is answered in time (rule `late_samples`).
    late: Option<Duration>,
}

impl AnswerClock {
    pub(super) fn new(config: RttConfig) -> Self {
        AnswerClock {
            rtt: RttEstimator::new(config),
            initial_rto: config.initial_rto,
            last: None,
            gap: None,
            longest_gap: LongestGap::default(),
            late: None,
        }
    }

    // --- the round-trip estimator ---

    /// A round-trip sample: a request sent at `sent` answered at `now`.
    pub(super) fn sample(&mut self, sent: Instant, now: Instant) {
        self.rtt.on_sample(sent, now);
    }

    /// The retransmission timeout, backed off.
    pub(super) fn rto(&self) -> Duration {
        self.rtt.rto()
    }

    /// The retransmission timeout without backoff.
    pub(super) fn base_rto(&self) -> Duration {
        self.rtt.base_rto()
    }

    pub(super) fn back_off(&mut self) {
        self.rtt.back_off();
    }

    pub(super) fn reset_backoff(&mut self) {
        self.rtt.reset_backoff();
    }

    /// The round-trip estimator as a new pipe on the same route may take
    /// it (rule `route_memory`): its backoff cleared.
    pub(super) fn estimator(&self) -> RttEstimator {
        let mut rtt = self.rtt.clone();
        rtt.reset_backoff();
        rtt
    }

    /// Starts from the estimator an earlier pipe on the route left, if it
    /// had sampled its path.
    pub(super) fn recall(&mut self, rtt: RttEstimator) {
        if rtt.srtt().is_some() {
            self.rtt = rtt;
        }
    }

    /// When the last answer arrived.
    pub(super) fn last_heard(&self) -> Option<Instant> {
        self.last.map(|(at, _)| at)
    }

    /// The smoothed round trip, once sampled.
    pub(super) fn srtt(&self) -> Option<Duration> {
        self.rtt.srtt()
    }

    /// The shortest round trip seen (the path's propagation).
    pub(super) fn min_rtt(&self) -> Option<Duration> {
        self.rtt.min_rtt()
    }

    /// The round-trip estimate (R²CP §4.3.1's `RTT_j`): the smoothed round
    /// trip, or the initial RTO before any sample.
    pub(super) fn estimate(&self) -> Duration {
        self.rtt.srtt().unwrap_or(self.initial_rto)
    }

    /// How long a request may be outstanding before the engine stops
    /// waiting for it: the RTO without backoff, at most `cap`, never less
    /// than the path's shortest round trip.
    pub(super) fn patience(&self, cap: Duration) -> Duration {
        let floor = self.min_rtt().unwrap_or_else(|| self.estimate());
        self.base_rto().min(cap).max(floor)
    }

    /// The interval between probes of a silent path: its shortest round
    /// trip within `[min, max]`, at most the RTO without backoff.
    pub(super) fn probe_interval(&self, min: Duration, max: Duration) -> Duration {
        let base = self.base_rto();
        match self.min_rtt() {
            Some(m) => base.min(m.clamp(min, max)),
            None => base,
        }
    }

    // --- the stream of answers ---

    /// A request sent at `asked` was answered at `now`.
    pub(super) fn answered(&mut self, now: Instant, asked: Instant) {
        self.late = None;
        if let Some((at, latest_asked)) = self.last {
            let gap = now.saturating_since(at);
            // Only a request that was in the stream at the previous answer
            // (sent a shortest round trip before it) shows a pause of the
            // path; one sent later shows the pipe's own pause in asking.
            if self.min_rtt().is_some_and(|m| asked + m <= at) {
                let horizon = self.srtt().unwrap_or(Duration::ZERO).saturating_mul(10);
                self.longest_gap.note(now, gap, horizon);
            }
            self.gap = Some(match self.gap {
                Some(g) => (g.saturating_mul(7) + gap).div(8),
                None => gap,
            });
            self.last = Some((now, latest_asked.max(asked)));
        } else {
            self.last = Some((now, asked));
        }
    }

    /// A request given up on, sent at `asked`, was answered at `now` after
    /// all: until a request is answered in time, the pipe shows at least
    /// that round trip.
    pub(super) fn answered_late(&mut self, now: Instant, asked: Instant) {
        self.late = Some(now.saturating_since(asked));
    }

    /// The path's slack: how long its stream may pause before it counts as
    /// silent — four answer gaps, a quarter of the shortest round trip, or
    /// twice the longest pause lately, whichever is longest (see the module
    /// text).
    pub(super) fn slack(&self) -> Duration {
        let gap = self.gap.unwrap_or(Duration::ZERO);
        let propagation = self.min_rtt().unwrap_or(Duration::ZERO);
        let jitter = self.longest_gap.get().saturating_mul(2);
        gap.saturating_mul(4).max(propagation.div(4)).max(jitter)
    }

    /// The round trip the pipe shows for a request sent now: `expected`
    /// (what its flight at its rate takes), or, when its oldest outstanding
    /// request has waited longer, that wait, or, until a request is
    /// answered in time, the round trip of the latest late answer.
    pub(super) fn shown(&self, now: Instant, requests: &Requests, expected: Duration) -> Duration {
        let oldest = requests
            .oldest_sent()
            .map_or(Duration::ZERO, |t| now.saturating_since(t));
        expected
            .max(oldest)
            .max(self.late.unwrap_or(Duration::ZERO))
    }

    /// Whether the path fell silent for a request sent at `asked`: it has
    /// answered nothing sent then or later, and nothing at all for its
    /// slack.
    pub(super) fn fell_silent(&self, now: Instant, asked: Instant) -> bool {
        let Some((at, latest_asked)) = self.last else {
            return true;
        };
        latest_asked < asked && now.saturating_since(at) >= self.slack()
    }

    /// When the request sent at `asked` missed its turn in the stream of
    /// answers: the last answer, its turn slack, and one answer gap per
    /// request ahead of it. `None` unless it is in the stream (it left at
    /// least the shortest round trip before the last answer, and nothing
    /// sent after it was answered).
    pub(super) fn turn_missed_at(&self, asked: Instant, requests: &Requests) -> Option<Instant> {
        let (at, latest_asked) = self.last?;
        let gap = self.gap?;
        let min_rtt = self.min_rtt()?;
        if latest_asked >= asked || asked + min_rtt > at {
            return None;
        }
        let ahead = requests.sent_before(asked);
        Some(at + self.slack() + gap.saturating_mul(ahead))
    }

    /// When the path counts as silent since the oldest outstanding request
    /// left, if nothing has arrived since: a smoothed round trip and the
    /// slack after it.
    pub(super) fn unanswered_at(&self, requests: &Requests) -> Option<Instant> {
        let oldest = requests.oldest_sent()?;
        if self.last.is_some_and(|(at, _)| at > oldest) {
            return None;
        }
        Some(oldest + self.srtt()? + self.slack())
    }

    /// When the path counts as silent under what it holds: its oldest
    /// request missed its turn.
    pub(super) fn stream_stopped_at(&self, requests: &Requests) -> Option<Instant> {
        self.turn_missed_at(requests.oldest_sent()?, requests)
    }

    /// When the path will count as silent if nothing arrives meanwhile,
    /// with when it last answered: its slack after the last answer, and
    /// after its oldest request was due back.
    pub(super) fn silent_at(&self, requests: &Requests) -> Option<(Instant, Instant)> {
        let oldest = requests.oldest_sent()?;
        let (last, _) = self.last?;
        let srtt = self.srtt()?;
        let slack = self.slack();
        Some(((last + slack).max(oldest + srtt + slack), last))
    }

    /// When, at the pace the path answers now, the request sent at `asked`
    /// should come back: after every request sent no later than it, one gap
    /// (or the silence since the last answer, if longer) each. `None`
    /// without a pace, or once a request sent after it was answered.
    pub(super) fn expected(
        &self,
        now: Instant,
        asked: Instant,
        requests: &Requests,
    ) -> Option<Instant> {
        let (at, latest_asked) = self.last?;
        if latest_asked > asked {
            return None;
        }
        let outstanding = requests.sent_by(asked);
        if outstanding == 0 {
            return None;
        }
        let gap = self.gap?.max(now.saturating_since(at));
        Some(now + gap.saturating_mul(outstanding))
    }

    /// Whether answers keep coming at their pace: the last one at most two
    /// gaps ago.
    pub(super) fn answering(&self, now: Instant) -> bool {
        match (self.last, self.gap) {
            (Some((at, _)), Some(gap)) => now.saturating_since(at) <= gap.saturating_mul(2),
            _ => false,
        }
    }
}

/// The longest pause of a path's stream of answers lately: a windowed
/// maximum kept in two halves, the current one and the one before, each
/// at least a horizon long (ten round trips), so a pause is remembered for
/// one to two horizons.
#[derive(Debug, Default, Clone)]
struct LongestGap {
    /// When the current half began.
    since: Option<Instant>,
    current: Duration,
    previous: Duration,
}

impl LongestGap {
    /// A pause of `gap` seen at `now`.
    fn note(&mut self, now: Instant, gap: Duration, horizon: Duration) {
        let age = self.since.map(|t| now.saturating_since(t));
        if age.is_none_or(|a| a >= horizon) {
            // A half older than two horizons is forgotten as well.
            let stale = age.is_none_or(|a| a >= horizon.saturating_mul(2));
            self.previous = if stale { Duration::ZERO } else { self.current };
            self.current = Duration::ZERO;
            self.since = Some(now);
        }
        self.current = self.current.max(gap);
    }

    /// The longest pause remembered.
    fn get(&self) -> Duration {
        self.current.max(self.previous)
    }
}
