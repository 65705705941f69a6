//! TCP Hybla (Caini & Firrincieli, "TCP Hybla: a TCP enhancement for
//! heterogeneous networks", Int. J. Satellite Communications and Networking
//! 22(5), 2004): Reno's growth scaled by ρ = RTT / RTT0 so that a long-delay
//! connection opens its window as fast, in time, as one with the reference
//! round trip RTT0 = 25 ms.
//!
//! Slow start: cwnd += (2^ρ − 1) segments per acknowledgment, clamped to
//! ssthresh; congestion avoidance: cwnd += ρ²/cwnd segments per
//! acknowledgment; losses halve as Reno does. ρ = max(RTT/RTT0, 1) is taken
//! from the smallest RTT sample (the propagation delay, so queueing on a
//! loaded reverse path does not inflate it), and the slow-start exponent is
//! capped at 16 (as Linux `tcp_hybla.c` does).
//!
//! Radial uses Hybla as its long-delay controller (`tcp-sat` at the sender,
//! `rcp-sat` at the receiver) in place of STP, whose algorithm the RCP paper
//! does not describe (docs/protocols.md).

use super::classic::{SlowStart, WindowAdjustment};
use crate::time::Duration;

/// Hybla's reference round trip.
pub const RTT0: Duration = Duration::from_millis(25);

/// ρ in 1/1024 units, shared by both halves of the controller.
#[derive(Clone, Copy, Debug)]
struct Rho {
    min_rtt: Option<Duration>,
    milli: u64,
}

impl Default for Rho {
    fn default() -> Self {
        Rho {
            min_rtt: None,
            milli: 1024,
        }
    }
}

impl Rho {
    fn update(&mut self, rtt: Duration) {
        let m = self.min_rtt.map_or(rtt, |m| m.min(rtt));
        self.min_rtt = Some(m);
        self.milli = (m.as_nanos() * 1024 / RTT0.as_nanos()).max(1024);
    }
    fn value(self) -> f64 {
        self.milli as f64 / 1024.0
    }
}

/// Hybla's slow start.
#[derive(Clone, Copy, Debug, Default)]
pub struct HyblaSlowStart {
    rho: Rho,
    /// Fractional bytes carried between acknowledgments.
    carry: f64,
}

impl SlowStart for HyblaSlowStart {
    fn on_ack(&mut self, cwnd: u64, acked: u64, mss: u64) -> u64 {
        let rho = self.rho.value().min(16.0);
        let inc = (rho.exp2() - 1.0) * (acked.min(mss) as f64) + self.carry;
        self.carry = inc.fract();
        cwnd + inc as u64
    }

    fn on_rtt_sample(&mut self, rtt: Duration) {
        self.rho.update(rtt);
    }

    fn clamps_to_ssthresh(&self) -> bool {
        true
    }
}

/// Hybla's congestion avoidance.
#[derive(Clone, Copy, Debug, Default)]
pub struct HyblaAvoidance {
    rho: Rho,
    carry: f64,
}

impl WindowAdjustment for HyblaAvoidance {
    fn on_ack(&mut self, cwnd: u64, _acked: u64, mss: u64) -> u64 {
        let rho = self.rho.value();
        let inc = rho * rho * (mss * mss) as f64 / cwnd.max(1) as f64 + self.carry;
        self.carry = inc.fract();
        cwnd + inc as u64
    }

    fn reduced_window(&mut self, window_in_use: u64, _mss: u64) -> u64 {
        self.carry = 0.0;
        window_in_use / 2
    }

    fn on_rtt_sample(&mut self, rtt: Duration) {
        self.rho.update(rtt);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rho_one_is_reno() {
        let mut ss = HyblaSlowStart::default();
        ss.on_rtt_sample(Duration::from_millis(10));
        assert_eq!(ss.on_ack(2000, 1000, 1000), 3000);
        let mut ca = HyblaAvoidance::default();
        ca.on_rtt_sample(Duration::from_millis(20));
        assert_eq!(ca.on_ack(10_000, 1000, 1000), 10_100);
    }

    #[test]
    fn long_rtt_grows_faster_by_rho() {
        // 200 ms round trip: rho = 8.
        let mut ss = HyblaSlowStart::default();
        ss.on_rtt_sample(Duration::from_millis(200));
        assert_eq!(ss.on_ack(2000, 1000, 1000), 2000 + 255_000);
        let mut ca = HyblaAvoidance::default();
        ca.on_rtt_sample(Duration::from_millis(200));
        // rho^2 = 64 segments per window instead of one.
        assert_eq!(ca.on_ack(64_000, 1000, 1000), 65_000);
        // The smallest sample sets rho: queueing does not inflate it.
        ca.on_rtt_sample(Duration::from_millis(400));
        assert_eq!(ca.on_ack(64_000, 1000, 1000), 65_000);
    }
}
