//! Round-trip-time estimation and the retransmission timeout.
//!
//! The estimator follows RFC 6298 (Jacobson/Karels: `srtt += (m - srtt)/8`,
//! `rttvar += (|m - srtt| - rttvar)/4`, `rto = srtt + 4·rttvar`) in the
//! fixed-point, clock-tick form of BSD and ns-2 (`TcpAgent::rtt_update`):
//! samples are counted in whole ticks of [`RttConfig::tick`], the smoothed
//! values keep 3 and 2 fractional bits, and the timeout is a whole number of
//! ticks. With ns-2's 10 ms tick this reproduces ns-2's timer exactly.

use crate::time::{Duration, Instant};

const SRTT_BITS: u32 = 3;
const RTTVAR_BITS: u32 = 2;
/// ns-2 `rttvar_exp_`: rto = srtt + 2^2 · rttvar.
const RTTVAR_EXP: u32 = 2;
/// ns-2 caps the exponential backoff multiplier at 64.
const MAX_BACKOFF: u64 = 64;

/// Timer parameters (defaults are ns-2's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RttConfig {
    /// Clock granularity (ns-2 `tcpTick_` = 10 ms).
    pub tick: Duration,
    /// Smallest timeout (ns-2 `minrto_` = 200 ms).
    pub min_rto: Duration,
    /// Largest timeout (ns-2 `maxrto_` = 60 s).
    pub max_rto: Duration,
    /// Timeout before the first sample (ns-2 `rtxcur_init_` = 3 s).
    pub initial_rto: Duration,
    /// Phase of the coarse clock against the driver's epoch (ns-2 draws
    /// `boot_time_` uniformly in one tick per agent).
    pub tick_offset: Duration,
}

impl Default for RttConfig {
    fn default() -> Self {
        RttConfig {
            tick: Duration::from_millis(10),
            min_rto: Duration::from_millis(200),
            max_rto: Duration::from_secs(60),
            initial_rto: Duration::from_secs(3),
            tick_offset: Duration::ZERO,
        }
    }
}

/// Smoothed RTT, variance and the retransmission timeout.
#[derive(Clone, Debug)]
pub struct RttEstimator {
    config: RttConfig,
    /// Smoothed RTT in ticks, scaled by 2^SRTT_BITS; 0 before the first sample.
    srtt: i64,
    /// RTT variance in ticks, scaled by 2^RTTVAR_BITS.
    rttvar: i64,
    /// Unbacked-off timeout.
    rtxcur: Duration,
    backoff: u64,
    latest: Option<Duration>,
    min_rtt: Option<Duration>,
}

impl RttEstimator {
    /// An estimator with no samples.
    pub fn new(config: RttConfig) -> Self {
        RttEstimator {
            rtxcur: config.initial_rto,
            config,
            srtt: 0,
            rttvar: 0,
            backoff: 1,
            latest: None,
            min_rtt: None,
        }
    }

    /// A sample: a segment sent at `sent` was acknowledged at `now`.
    pub fn on_sample(&mut self, sent: Instant, now: Instant) {
        let tick = self.config.tick.as_nanos().max(1);
        // Ticks crossed between send and acknowledgment, as a BSD-style
        // coarse clock counts them (ns-2's `tickoff`).
        let off = self.config.tick_offset.as_nanos();
        let ticks = ((now.as_nanos() + off) / tick).saturating_sub((sent.as_nanos() + off) / tick);
        let m = (ticks as i64).max(1);
        if self.srtt != 0 {
            let mut delta = m - (self.srtt >> SRTT_BITS);
            self.srtt += delta;
            if self.srtt <= 0 {
                self.srtt = 1;
            }
            delta = delta.abs() - (self.rttvar >> RTTVAR_BITS);
            self.rttvar += delta;
            if self.rttvar <= 0 {
                self.rttvar = 1;
            }
        } else {
            self.srtt = m << SRTT_BITS;
            self.rttvar = m << (RTTVAR_BITS - 1);
        }
        let rto_ticks =
            ((self.rttvar << (RTTVAR_EXP + SRTT_BITS - RTTVAR_BITS)) + self.srtt) >> SRTT_BITS;
        self.rtxcur = Duration::from_nanos(rto_ticks as u64 * tick);
        let sample = now - sent;
        self.latest = Some(sample);
        self.min_rtt = Some(self.min_rtt.map_or(sample, |m| m.min(sample)));
    }

    /// The timeout to arm now: the current estimate times the backoff,
    /// clamped (RFC 6298 §2.4–2.5, ns-2 `rtt_timeout` with `rfc2988_`).
    pub fn rto(&self) -> Duration {
        let base = if self.rtxcur < self.config.min_rto {
            self.config.min_rto
        } else {
            self.rtxcur
        };
        base.saturating_mul(self.backoff)
            .min(self.config.max_rto)
            .max(self.config.tick.saturating_mul(2))
    }

    /// The timeout without backoff: the current estimate, clamped.
    pub fn base_rto(&self) -> Duration {
        self.rtxcur
            .max(self.config.min_rto)
            .min(self.config.max_rto)
            .max(self.config.tick.saturating_mul(2))
    }

    /// Doubles the timeout after an expiry (RFC 6298 §5.5).
    pub fn back_off(&mut self) {
        self.backoff = (self.backoff * 2).min(MAX_BACKOFF);
    }

    /// Clears the backoff once new data is acknowledged.
    pub fn reset_backoff(&mut self) {
        self.backoff = 1;
    }

    /// The current backoff multiplier.
    pub fn backoff(&self) -> u64 {
        self.backoff
    }

    /// Smoothed RTT, if any sample arrived.
    pub fn srtt(&self) -> Option<Duration> {
        (self.srtt != 0).then(|| {
            Duration::from_nanos((self.srtt as u64 * self.config.tick.as_nanos()) >> SRTT_BITS)
        })
    }

    /// The smoothed mean deviation, if any sample arrived.
    pub fn rttvar(&self) -> Option<Duration> {
        (self.srtt != 0).then(|| {
            Duration::from_nanos((self.rttvar as u64 * self.config.tick.as_nanos()) >> RTTVAR_BITS)
        })
    }

    /// The most recent raw sample.
    pub fn latest(&self) -> Option<Duration> {
        self.latest
    }

    /// The smallest raw sample seen.
    pub fn min_rtt(&self) -> Option<Duration> {
        self.min_rtt
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at_ms(ms: u64) -> Instant {
        Instant::from_nanos(ms * 1_000_000)
    }

    #[test]
    fn first_sample_sets_rto_to_three_rtts_in_ticks() {
        let mut e = RttEstimator::new(RttConfig::default());
        assert_eq!(e.rto(), Duration::from_secs(3));
        // 74 ms crosses 7 or 8 ticks depending on phase: sent at 3 ms, acked at 77 ms.
        e.on_sample(at_ms(3), at_ms(77));
        // m = 7 ticks; srtt = 7, rttvar = 3.5; rto = 7 + 4·3.5 = 21 ticks.
        assert_eq!(e.rto(), Duration::from_millis(210));
        assert_eq!(e.srtt(), Some(Duration::from_millis(70)));
    }

    #[test]
    fn min_rto_and_backoff_clamp() {
        let mut e = RttEstimator::new(RttConfig::default());
        for i in 0..50 {
            e.on_sample(at_ms(i * 100), at_ms(i * 100 + 10));
        }
        assert_eq!(e.rto(), Duration::from_millis(200));
        for _ in 0..10 {
            e.back_off();
        }
        assert_eq!(e.backoff(), 64);
        assert_eq!(
            e.rto(),
            Duration::from_millis(200 * 64).min(Duration::from_secs(60))
        );
        e.reset_backoff();
        assert_eq!(e.rto(), Duration::from_millis(200));
    }
}
