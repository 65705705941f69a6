//! Reno's rules: one segment per acknowledgment in slow start, one segment per
//! window in congestion avoidance, halve on congestion (RFC 5681 §3.1), in the
//! per-acknowledgment form ns-2 uses (`opencwnd`, `wnd_option_` 1).

use super::classic::{SlowStart, WindowAdjustment};

/// Slow start: cwnd grows by min(acked, 1 MSS) per acknowledgment (RFC 3465
/// with L = 1, which is ns-2's `cwnd_ += 1` per ACK).
#[derive(Clone, Copy, Debug, Default)]
pub struct RenoSlowStart;

impl SlowStart for RenoSlowStart {
    fn on_ack(&mut self, cwnd: u64, acked: u64, mss: u64) -> u64 {
        cwnd + acked.min(mss)
    }
}

/// Congestion avoidance: cwnd grows by MSS²/cwnd per acknowledgment (ns-2's
/// `cwnd_ += 1/cwnd_`), with the fractional remainder carried exactly.
#[derive(Clone, Copy, Debug, Default)]
pub struct RenoAvoidance {
    remainder: u64,
}

impl WindowAdjustment for RenoAvoidance {
    fn on_ack(&mut self, cwnd: u64, _acked: u64, mss: u64) -> u64 {
        let num = mss * mss + self.remainder;
        let cwnd_now = cwnd.max(1);
        self.remainder = num % cwnd_now;
        cwnd + num / cwnd_now
    }

    fn reduced_window(&mut self, window_in_use: u64, _mss: u64) -> u64 {
        self.remainder = 0;
        // RFC 5681 §3.1 halving; ns-2 `slowdown()` halves `windowd()`.
        window_in_use / 2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn avoidance_adds_one_segment_per_window() {
        let mss = 1000;
        let mut a = RenoAvoidance::default();
        let mut cwnd = 10 * mss;
        for _ in 0..10 {
            cwnd = a.on_ack(cwnd, mss, mss);
        }
        // 10 ACKs at ~10 segments: a bit less than one segment (ns-2's form is
        // sub-linear), never more.
        assert!(cwnd > 10 * mss + 900 && cwnd <= 11 * mss, "{cwnd}");
    }

    #[test]
    fn halving_keeps_half_segments() {
        let mut a = RenoAvoidance::default();
        assert_eq!(a.reduced_window(9_000, 1000), 4_500);
    }
}
