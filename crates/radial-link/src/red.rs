//! Random Early Detection (Floyd and Jacobson, "Random Early Detection
//! Gateways for Congestion Avoidance", IEEE/ACM ToN 1993), in packet mode
//! with the "gentle" ramp above the maximum threshold (Floyd 2000; ns-2's
//! default since 2.1b8).
//!
//! A drop-tail queue in a deterministic simulator has *phase effects*
//! (Floyd and Jacobson, "On Traffic Phase Effects in Packet-Switched
//! Gateways", 1992): which flow loses when the queue overflows depends on
//! exactly when its packets arrive, so two otherwise equal flows can split
//! a bottleneck 1:2.5 because one's packets are a few bytes longer. RED
//! drops early and at random in proportion to each flow's share of the
//! arrivals, which is what measuring the share of a shared bottleneck
//! needs.

use crate::rng::Rng;
use radial_core::time::{Duration, Instant};

/// RED's parameters, in packets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RedParams {
    /// Below this average queue nothing is dropped early (ns-2 `thresh_`).
    pub min_thresh: f64,
    /// At this average the drop probability reaches `max_p`
    /// (`maxthresh_`); above it the gentle ramp takes it to 1 at twice
    /// this.
    pub max_thresh: f64,
    /// Drop probability at `max_thresh` (ns-2 `1 / linterm_`).
    pub max_p: f64,
    /// Weight of the newest queue sample in the average (`q_weight_`).
    pub weight: f64,
}

impl Default for RedParams {
    /// ns-2's defaults: thresholds 5 and 15 packets, max_p 0.1, weight
    /// 0.002.
    fn default() -> Self {
        RedParams {
            min_thresh: 5.0,
            max_thresh: 15.0,
            max_p: 0.1,
            weight: 0.002,
        }
    }
}

impl RedParams {
    /// What is wrong with these parameters, if anything.
    pub fn check(&self) -> Result<(), String> {
        if !(self.min_thresh >= 0.0 && self.max_thresh > self.min_thresh) {
            return Err("`max_thresh` must be above `min_thresh`, both 0 or more".into());
        }
        if !(self.max_p > 0.0 && self.max_p <= 1.0) {
            return Err("`max_p` must be in (0, 1]".into());
        }
        if !(self.weight > 0.0 && self.weight <= 1.0) {
            return Err("`weight` must be in (0, 1]".into());
        }
        Ok(())
    }
}

/// The RED state of one queue.
#[derive(Debug)]
pub struct Red {
    params: RedParams,
    /// Average queue length in packets.
    avg: f64,
    /// Packets accepted since the last early drop while the average was
    /// between the thresholds (`None` below them).
    count: Option<u32>,
    rng: Rng,
}

impl Red {
    /// An empty queue's RED state.
    pub fn new(params: RedParams, rng: Rng) -> Self {
        Red {
            params,
            avg: 0.0,
            count: None,
            rng,
        }
    }

    /// The average queue length in packets.
    pub fn average(&self) -> f64 {
        self.avg
    }

    /// A packet arrives at a queue holding `queued` packets (waiting plus
    /// the one on the wire). If the queue has been idle, `idle` is for how
    /// long and `packet_time` the transmission time of a typical packet:
    /// the average decays as if that many empty samples had been taken
    /// (the paper's idle-time rule). Returns true to drop the packet early.
    pub fn on_arrival(&mut self, queued: usize, idle: Duration, packet_time: Duration) -> bool {
        let p = self.params;
        let empty_samples = if idle > Duration::ZERO && packet_time > Duration::ZERO {
            (idle.as_nanos() / packet_time.as_nanos()) as i32
        } else {
            0
        };
        self.avg *= (1.0 - p.weight).powi(empty_samples.saturating_add(1));
        self.avg += p.weight * queued as f64;
        if self.avg < p.min_thresh || queued <= 1 {
            self.count = None;
            return false;
        }
        if self.avg >= 2.0 * p.max_thresh {
            self.count = Some(0);
            return true;
        }
        let pb = if self.avg >= p.max_thresh {
            p.max_p + (1.0 - p.max_p) * (self.avg - p.max_thresh) / p.max_thresh
        } else {
            p.max_p * (self.avg - p.min_thresh) / (p.max_thresh - p.min_thresh)
        };
        // Spread drops evenly: the probability grows with the packets
        // accepted since the last drop (the paper's p_a = p_b / (1 - count p_b)).
        let count = self.count.map_or(0, |c| c + 1);
        let pa = if f64::from(count) * pb < 1.0 {
            pb / (1.0 - f64::from(count) * pb)
        } else {
            1.0
        };
        if self.rng.chance(pa) {
            self.count = Some(0);
            true
        } else {
            self.count = Some(count);
            false
        }
    }
}

/// When the queue went idle, if it is idle at `now`.
pub fn idle_time(now: Instant, busy_until: Instant, queued: usize) -> Duration {
    if queued == 0 && now > busy_until {
        now - busy_until
    } else {
        Duration::ZERO
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn red() -> Red {
        Red::new(RedParams::default(), Rng::stream(1, "red-test"))
    }

    #[test]
    fn short_queues_are_never_dropped_early() {
        let mut r = red();
        for _ in 0..100_000 {
            assert!(!r.on_arrival(4, Duration::ZERO, Duration::ZERO));
        }
        assert!(r.average() < 5.0);
    }

    #[test]
    fn average_follows_the_queue_slowly() {
        let mut r = red();
        r.on_arrival(100, Duration::ZERO, Duration::ZERO);
        assert!((r.average() - 0.2).abs() < 1e-9);
    }

    #[test]
    fn idle_time_decays_the_average() {
        let mut r = red();
        for _ in 0..5_000 {
            r.on_arrival(10, Duration::ZERO, Duration::ZERO);
        }
        let before = r.average();
        // 1,000 packet times idle: (1 - 0.002)^1001 ≈ 0.135.
        r.on_arrival(0, Duration::from_millis(1_000), Duration::from_millis(1));
        let ratio = r.average() / before;
        assert!((ratio - 0.998f64.powi(1001)).abs() < 1e-9, "{ratio}");
    }

    #[test]
    fn drop_rate_between_the_thresholds_is_about_p_b() {
        // A steady queue of 10 packets: the average settles at 10, where
        // p_b = 0.1 × (10 − 5) / 10 = 0.05; the paper's p_a makes the gap
        // between drops uniform on 1..=1/p_b, a mean of 10.5 packets.
        let mut r = red();
        for _ in 0..10_000 {
            r.on_arrival(10, Duration::ZERO, Duration::ZERO);
        }
        let n = 200_000;
        let drops = (0..n)
            .filter(|_| r.on_arrival(10, Duration::ZERO, Duration::ZERO))
            .count();
        let gap = n as f64 / drops as f64;
        assert!((gap - 10.5).abs() < 0.5, "mean gap {gap}");
    }

    #[test]
    fn gentle_ramp_reaches_certain_drop_at_twice_max() {
        let mut r = red();
        for _ in 0..20_000 {
            r.on_arrival(40, Duration::ZERO, Duration::ZERO);
        }
        assert!(r.average() >= 30.0);
        assert!(r.on_arrival(40, Duration::ZERO, Duration::ZERO));
    }

    #[test]
    fn bad_parameters_are_named() {
        let bad = RedParams {
            max_thresh: 5.0,
            ..RedParams::default()
        };
        assert!(bad.check().unwrap_err().contains("max_thresh"));
        let bad = RedParams {
            max_p: 0.0,
            ..RedParams::default()
        };
        assert!(bad.check().unwrap_err().contains("max_p"));
        assert!(RedParams::default().check().is_ok());
    }
}
