//! The classic controller: a slow-start rule and a window-adjustment rule
//! composed (after neqo's `ClassicCongestionControl`).

use super::{CcConfig, LossCause, Window};
use crate::time::{Duration, Instant};

/// How the window grows below the slow-start threshold.
pub trait SlowStart {
    /// New window after `acked` bytes were acknowledged in slow start.
    fn on_ack(&mut self, cwnd: u64, acked: u64, mss: u64) -> u64;
    /// A round-trip-time sample (for rules that scale with RTT).
    fn on_rtt_sample(&mut self, _rtt: Duration) {}
    /// True when slow start must not take cwnd past ssthresh.
    fn clamps_to_ssthresh(&self) -> bool {
        false
    }
}

/// How the window grows in congestion avoidance and shrinks on loss.
pub trait WindowAdjustment {
    /// New window after `acked` bytes were acknowledged in congestion
    /// avoidance.
    fn on_ack(&mut self, cwnd: u64, acked: u64, mss: u64) -> u64;
    /// The window after a congestion signal, taken from `window_in_use`
    /// (unrounded; the slow-start threshold is this in whole segments).
    fn reduced_window(&mut self, window_in_use: u64, mss: u64) -> u64;
    /// A round-trip-time sample (for controllers that scale with RTT).
    fn on_rtt_sample(&mut self, _rtt: Duration) {}
}

/// Slow start plus window adjustment, with ns-2's reactions to each loss
/// cause.
#[derive(Clone, Debug)]
pub struct Classic<S, A> {
    config: CcConfig,
    cwnd: u64,
    ssthresh: u64,
    slow_start: S,
    adjustment: A,
    /// Scale on the congestion-avoidance increase set by a coupled
    /// multipath controller ([`super::coupled`]); 1 leaves the rule exact.
    increase_scale: f64,
    /// The fraction of a byte a scaled increase left over.
    carry: f64,
}

impl<S: SlowStart, A: WindowAdjustment> Classic<S, A> {
    /// A controller at its initial window.
    pub fn new(config: CcConfig, slow_start: S, adjustment: A) -> Self {
        Classic {
            cwnd: config.initial_window * config.mss,
            ssthresh: config.initial_ssthresh,
            config,
            slow_start,
            adjustment,
            increase_scale: 1.0,
            carry: 0.0,
        }
    }

    /// Scales the congestion-avoidance increase (coupled multipath
    /// control); a negative scale shrinks the window, never below one
    /// segment.
    pub fn set_increase_scale(&mut self, scale: f64) {
        self.increase_scale = scale;
    }

    /// The current decision.
    pub fn window(&self) -> Window {
        Window {
            cwnd: self.cwnd,
            ssthresh: self.ssthresh,
        }
    }

    /// One acknowledgment (or arrival) of `bytes` new bytes.
    pub fn on_ack(&mut self, _now: Instant, bytes: u64) -> Window {
        if bytes > 0 {
            self.cwnd = if self.cwnd < self.ssthresh {
                let grown = self.slow_start.on_ack(self.cwnd, bytes, self.config.mss);
                if self.slow_start.clamps_to_ssthresh() {
                    grown.min(self.ssthresh)
                } else {
                    grown
                }
            } else {
                let grown = self.adjustment.on_ack(self.cwnd, bytes, self.config.mss);
                if self.increase_scale == 1.0 {
                    grown
                } else {
                    self.scaled(grown)
                }
            };
        }
        self.window()
    }

    /// The window after the rule grew it to `grown`, with the increase
    /// scaled and the fractions carried to the next acknowledgment.
    fn scaled(&mut self, grown: u64) -> u64 {
        let delta = grown.saturating_sub(self.cwnd) as f64 * self.increase_scale + self.carry;
        let whole = delta.trunc();
        self.carry = delta - whole;
        let cwnd = (self.cwnd as f64 + whole).max(self.config.mss as f64);
        cwnd as u64
    }

    /// An RTT sample.
    pub fn on_rtt_sample(&mut self, _now: Instant, rtt: Duration) {
        self.slow_start.on_rtt_sample(rtt);
        self.adjustment.on_rtt_sample(rtt);
    }

    /// A loss. Congestion reduces the window (ns-2 `slowdown`: cwnd to the
    /// reduced window unrounded, ssthresh to it in whole segments, at least
    /// [`CcConfig::min_ssthresh`]); a timeout sets the same threshold and
    /// collapses cwnd to the loss window; a wireless loss costs nothing (ELN:
    /// retransmit without cutting the window).
    pub fn on_loss(&mut self, _now: Instant, cause: LossCause, window_in_use: u64) -> Window {
        let mss = self.config.mss;
        if cause == LossCause::Wireless {
            return self.window();
        }
        let reduced = self.adjustment.reduced_window(window_in_use, mss);
        self.ssthresh = (reduced / mss * mss).max(self.config.min_ssthresh * mss);
        self.cwnd = match cause {
            LossCause::Timeout => self.config.loss_window * mss,
            _ => reduced.max(mss),
        };
        self.window()
    }

    /// Sets ssthresh outright (at least [`CcConfig::min_ssthresh`]).
    pub fn set_ssthresh(&mut self, ssthresh: u64) {
        self.ssthresh = ssthresh.max(self.config.min_ssthresh * self.config.mss);
    }

    /// Sets cwnd outright.
    pub fn set_cwnd(&mut self, cwnd: u64) {
        self.cwnd = cwnd.max(self.config.mss);
    }

    /// Sets cwnd and raises ssthresh to at least `ssthresh`.
    pub fn restart(&mut self, cwnd: u64, ssthresh: u64) {
        self.cwnd = cwnd.max(self.config.mss);
        self.ssthresh = self.ssthresh.max(ssthresh);
    }
}
