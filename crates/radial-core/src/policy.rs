//! Policy-based bandwidth aggregation (pTCP §6.2.2, Figure 10): the host
//! wants a target rate and prefers one interface (the cheaper WLAN); the
//! other pipes only make up what the preferred one fails to carry.
//!
//! R²CP's engine (at the receiver) spends tokens on requests, pTCP's (at the
//! sender) on the data it binds to a pipe.
//!
//! Tokens are bytes the connection may request or send. Every period the engine
//! makes `quota` = target × period new tokens, which only the preferred
//! pipe may spend; what it left unspent in the last period becomes
//! `underflow`, which any pipe may spend (the preferred one once its quota is
//! gone). A pipe with no token to spend is frozen until the next period
//! (Figure 10's `throttle()` returning 1).

use crate::endpoint::PathId;
use crate::time::{Duration, Instant};
use crate::units::BitRate;

/// A target rate with a preferred path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TargetRate {
    /// Payload rate the connection aims for.
    pub rate: BitRate,
    /// The path whose pipe spends the new tokens (pTCP's "primary pipe").
    pub prefer: PathId,
    /// How often tokens are made (Figure 10's token timer). The paper does
    /// not give it; [`TargetRate::DEFAULT_PERIOD`] by default.
    pub period: Duration,
}

impl TargetRate {
    /// 100 ms: a few round trips of a WLAN path, so that a period's leftover
    /// reaches the other pipes while it still reflects the preferred pipe's
    /// current rate.
    pub const DEFAULT_PERIOD: Duration = Duration::from_millis(100);
}

/// The token state of Figure 10.
#[derive(Clone, Debug)]
pub struct Tokens {
    target: TargetRate,
    /// New tokens of this period, for the preferred pipe only.
    quota: u64,
    /// Tokens left over from the last period, for any pipe.
    underflow: u64,
    /// When the token timer next fires.
    next: Option<Instant>,
}

impl Tokens {
    /// No tokens until [`Tokens::start`].
    pub fn new(target: TargetRate) -> Self {
        Tokens {
            target,
            quota: 0,
            underflow: 0,
            next: None,
        }
    }

    /// The policy in force.
    pub fn target(&self) -> TargetRate {
        self.target
    }

    /// Starts the token timer at `now` with a first period's quota.
    pub fn start(&mut self, now: Instant) {
        if self.next.is_none() {
            self.quota = self.per_period();
            self.next = Some(now + self.target.period);
        }
    }

    fn per_period(&self) -> u64 {
        self.target.rate.bytes_in(self.target.period)
    }

    /// When the token timer fires next.
    pub fn deadline(&self) -> Option<Instant> {
        self.next
    }

    /// Figure 10 lines 16–17 (`token-timer-expires()`): the unspent quota
    /// becomes the underflow and a new quota is made. Returns true when it
    /// fired (the engine then resumes every frozen pipe, line 18–19).
    pub fn on_timer(&mut self, now: Instant) -> bool {
        let Some(at) = self.next.filter(|&at| at <= now) else {
            return false;
        };
        self.underflow = self.quota;
        self.quota = self.per_period();
        // Periods missed while nothing polled the timer make no tokens.
        let mut next = at + self.target.period;
        while next <= now {
            next += self.target.period;
        }
        self.next = Some(next);
        true
    }

    /// Figure 10 lines 4–15 (`throttle()` returning 0): may pipe `path`
    /// request now?
    pub fn allows(&self, path: PathId) -> bool {
        (path == self.target.prefer && self.quota > 0) || self.underflow > 0
    }

    /// Spends the tokens of a request of `bytes` that pipe `path` made (the
    /// decrements of `throttle()`, taken once the request is bound, so a
    /// pipe the receive buffer freezes spends nothing).
    pub fn spend(&mut self, path: PathId, bytes: u64) {
        if path == self.target.prefer && self.quota > 0 {
            self.quota = self.quota.saturating_sub(bytes);
        } else {
            self.underflow = self.underflow.saturating_sub(bytes);
        }
    }

    /// [`Tokens::allows`], then [`Tokens::spend`].
    pub fn take(&mut self, path: PathId, bytes: u64) -> bool {
        let ok = self.allows(path);
        if ok {
            self.spend(path, bytes);
        }
        ok
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn tokens() -> Tokens {
        // 10 segments per 100 ms.
        Tokens::new(TargetRate {
            rate: BitRate::from_bps(800_000),
            prefer: PathId(1),
            period: Duration::from_millis(100),
        })
    }

    #[test]
    fn only_the_preferred_pipe_spends_new_tokens() {
        let mut t = tokens();
        t.start(Instant::ZERO);
        assert!(!t.take(PathId(0), MSS), "no underflow in the first period");
        for _ in 0..10 {
            assert!(t.take(PathId(1), MSS));
        }
        assert!(!t.take(PathId(1), MSS), "quota spent");
    }

    #[test]
    fn what_the_preferred_pipe_leaves_goes_to_any_pipe_next_period() {
        let mut t = tokens();
        t.start(Instant::ZERO);
        for _ in 0..7 {
            assert!(t.take(PathId(1), MSS));
        }
        assert!(!t.on_timer(Instant::from_nanos(99_999_999)));
        assert!(t.on_timer(Instant::ZERO + Duration::from_millis(100)));
        // Three left over: the other pipe may take them ...
        for _ in 0..3 {
            assert!(t.take(PathId(0), MSS));
        }
        assert!(!t.take(PathId(0), MSS));
        // ... while the preferred pipe has a fresh quota of ten.
        for _ in 0..10 {
            assert!(t.take(PathId(1), MSS));
        }
        assert!(!t.take(PathId(1), MSS));
        // A leftover not spent within its period is gone.
        assert!(t.on_timer(Instant::ZERO + Duration::from_millis(200)));
        assert!(!t.take(PathId(0), MSS));
        assert_eq!(
            t.deadline(),
            Some(Instant::ZERO + Duration::from_millis(300))
        );
    }
}
