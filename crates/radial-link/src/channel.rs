//! Channel loss models: independent (Bernoulli) loss and the two-state
//! Gilbert-Elliott channel with exponential sojourns.

use crate::rng::Rng;
use radial_core::{Duration, Instant};

/// How a link loses packets that crossed it.
#[derive(Clone, Debug, PartialEq)]
pub enum LossModel {
    /// No channel loss.
    None,
    /// Each packet is lost independently with this probability.
    Bernoulli(f64),
    /// Loss follows the state of the Gilbert-Elliott channel with this index.
    GilbertElliott(u32),
}

/// Parameters of a two-state channel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GilbertElliottParams {
    /// Packet error rate in the good state.
    pub good_loss: f64,
    /// Packet error rate in the bad state.
    pub bad_loss: f64,
    /// Mean sojourn in the good state.
    pub good_mean: Duration,
    /// Mean sojourn in the bad state.
    pub bad_mean: Duration,
}

impl GilbertElliottParams {
    /// The long-run loss rate: per-state rates weighted by the stationary
    /// share of time in each state.
    pub fn stationary_loss(&self) -> f64 {
        let g = self.good_mean.as_secs_f64();
        let b = self.bad_mean.as_secs_f64();
        (g * self.good_loss + b * self.bad_loss) / (g + b)
    }
}

/// A Gilbert-Elliott channel's state, shared by the links that use it.
#[derive(Clone, Debug)]
pub struct GilbertElliott {
    /// Parameters.
    pub params: GilbertElliottParams,
    /// True while in the bad state.
    pub bad: bool,
    rng: Rng,
    /// Time spent in the bad state so far (for reports).
    pub bad_time: Duration,
    entered: Instant,
}

impl GilbertElliott {
    /// A channel starting in the good state, with its own random stream.
    pub fn new(params: GilbertElliottParams, rng: Rng) -> Self {
        GilbertElliott {
            params,
            bad: false,
            rng,
            bad_time: Duration::ZERO,
            entered: Instant::ZERO,
        }
    }

    /// Draws how long the current state lasts.
    pub fn sojourn(&mut self) -> Duration {
        let mean = if self.bad {
            self.params.bad_mean
        } else {
            self.params.good_mean
        };
        Duration::from_secs_f64(self.rng.exponential(mean.as_secs_f64()))
            .max(Duration::from_nanos(1))
    }

    /// Switches state at `now`.
    pub fn toggle(&mut self, now: Instant) {
        if self.bad {
            self.bad_time += now - self.entered;
        }
        self.bad = !self.bad;
        self.entered = now;
    }

    /// The current packet error rate.
    pub fn loss_rate(&self) -> f64 {
        if self.bad {
            self.params.bad_loss
        } else {
            self.params.good_loss
        }
    }
}

/// A Gilbert-Elliott channel moved on by the clock instead of by scheduled
/// events (the emulator's paths): asked for its loss rate at `now`, it first
/// passes through every change of state due by then, with the same draws
/// as a simulated channel.
#[derive(Clone, Debug)]
pub struct ClockedChannel {
    /// The channel.
    pub channel: GilbertElliott,
    next: Option<Instant>,
}

impl ClockedChannel {
    /// A channel starting good at the first call.
    pub fn new(params: GilbertElliottParams, rng: Rng) -> Self {
        ClockedChannel {
            channel: GilbertElliott::new(params, rng),
            next: None,
        }
    }

    /// The packet error rate at `now` (`now` never decreases).
    pub fn loss_rate_at(&mut self, now: Instant) -> f64 {
        let mut at = match self.next {
            Some(at) => at,
            None => now + self.channel.sojourn(),
        };
        while at <= now {
            self.channel.toggle(at);
            at += self.channel.sojourn();
        }
        self.next = Some(at);
        self.channel.loss_rate()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stationary_loss_weights_states_by_time() {
        let p = GilbertElliottParams {
            good_loss: 0.0001,
            bad_loss: 0.1,
            good_mean: Duration::from_secs(10),
            bad_mean: Duration::from_secs(5),
        };
        let want = (10.0 * 0.0001 + 5.0 * 0.1) / 15.0;
        assert!((p.stationary_loss() - want).abs() < 1e-12);
    }

    #[test]
    fn a_clocked_channel_spends_its_share_of_time_bad() {
        let p = GilbertElliottParams {
            good_loss: 0.0,
            bad_loss: 1.0,
            good_mean: Duration::from_millis(300),
            bad_mean: Duration::from_millis(100),
        };
        let mut c = ClockedChannel::new(p, Rng::stream(7, "test"));
        let bad = (0..100_000u64)
            .filter(|&k| c.loss_rate_at(Instant::ZERO + Duration::from_millis(k)) == 1.0)
            .count();
        // A quarter of the time in the bad state, within sampling noise.
        assert!((20_000..30_000).contains(&bad), "{bad} ms of 100000 bad");
    }
}
