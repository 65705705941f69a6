//! Bit rates and byte counts.

use crate::time::Duration;
use std::fmt;

/// A data rate in bits per second.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BitRate(u64);

impl BitRate {
    /// A rate of `bps` bits per second.
    pub const fn from_bps(bps: u64) -> Self {
        BitRate(bps)
    }
    /// A rate of `kbps` kilobits (10³) per second.
    pub const fn from_kbps(kbps: u64) -> Self {
        BitRate(kbps * 1_000)
    }
    /// A rate of `mbps` megabits (10⁶) per second.
    pub const fn from_mbps(mbps: u64) -> Self {
        BitRate(mbps * 1_000_000)
    }
    /// Bits per second.
    pub const fn bps(self) -> u64 {
        self.0
    }
    /// Megabits per second, as a float.
    pub fn mbps_f64(self) -> f64 {
        self.0 as f64 / 1e6
    }
    /// Time to serialise `bytes` bytes at this rate, rounded up to the next
    /// nanosecond. A zero rate never finishes ([`Duration::MAX`]).
    pub fn transmission_time(self, bytes: u64) -> Duration {
        if self.0 == 0 {
            return Duration::MAX;
        }
        // Packet-sized inputs fit u64 arithmetic (a cheaper division).
        if let Some(bits_ns) = bytes.checked_mul(8_000_000_000) {
            return Duration::from_nanos(bits_ns.div_ceil(self.0));
        }
        let bits = u128::from(bytes) * 8 * 1_000_000_000;
        let ns = bits.div_ceil(u128::from(self.0));
        Duration::from_nanos(u64::try_from(ns).unwrap_or(u64::MAX))
    }
    /// Bytes carried in `d` at this rate (truncated).
    pub fn bytes_in(self, d: Duration) -> u64 {
        let b = u128::from(self.0) * u128::from(d.as_nanos()) / 8 / 1_000_000_000;
        u64::try_from(b).unwrap_or(u64::MAX)
    }
}

impl fmt::Display for BitRate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.3}Mbit/s", self.mbps_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transmission_time_of_a_packet() {
        // 1040 bytes at 2 Mbit/s = 4.16 ms.
        let r = BitRate::from_mbps(2);
        assert_eq!(r.transmission_time(1040), Duration::from_micros(4160));
        assert_eq!(r.bytes_in(Duration::from_secs(1)), 250_000);
        assert_eq!(BitRate::from_bps(0).transmission_time(1), Duration::MAX);
        // Beyond u64 intermediate range: the wide path agrees.
        let big = 1u64 << 40;
        assert_eq!(
            BitRate::from_bps(8_000_000_000).transmission_time(big),
            Duration::from_nanos(big)
        );
    }
}
