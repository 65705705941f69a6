//! Sequence numbers with wrapping arithmetic (RFC 793 §3.3, RFC 1982).

use std::cmp::Ordering;
use std::fmt;
use std::ops::{Add, Sub};

/// A 32-bit byte sequence number that wraps.
///
/// Ordering is serial-number arithmetic: `a < b` when `b - a`, taken modulo
/// 2³², is below 2³¹. Compare only numbers less than 2³¹ apart.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SeqNum(pub u32);

impl SeqNum {
    /// Distance from `earlier` to `self` in bytes (wrapping). Negative when
    /// `self` is before `earlier`.
    pub fn since(self, earlier: SeqNum) -> i64 {
        i64::from(self.0.wrapping_sub(earlier.0) as i32)
    }
    /// The larger of two sequence numbers in serial order.
    pub fn max(self, other: SeqNum) -> SeqNum {
        if self >= other {
            self
        } else {
            other
        }
    }
    /// The smaller of two sequence numbers in serial order.
    pub fn min(self, other: SeqNum) -> SeqNum {
        if self <= other {
            self
        } else {
            other
        }
    }
}

impl PartialOrd for SeqNum {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for SeqNum {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.0.wrapping_sub(other.0) as i32).cmp(&0)
    }
}

impl Add<u32> for SeqNum {
    type Output = SeqNum;
    fn add(self, rhs: u32) -> SeqNum {
        SeqNum(self.0.wrapping_add(rhs))
    }
}

impl Add<u64> for SeqNum {
    type Output = SeqNum;
    fn add(self, rhs: u64) -> SeqNum {
        SeqNum(self.0.wrapping_add(rhs as u32))
    }
}

impl Sub for SeqNum {
    type Output = u64;
    /// Bytes from `rhs` up to `self`; zero when `rhs` is after `self`.
    fn sub(self, rhs: SeqNum) -> u64 {
        self.since(rhs).max(0) as u64
    }
}

impl fmt::Display for SeqNum {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn ordering_across_wrap() {
        let a = SeqNum(u32::MAX - 10);
        let b = a + 20u32;
        assert!(a < b);
        assert_eq!(b - a, 20);
        assert_eq!(a - b, 0);
        assert_eq!(b.since(a), 20);
        assert_eq!(a.since(b), -20);
    }

    proptest! {
        #[test]
        fn add_then_since_is_identity(base: u32, d in 0u32..(1 << 31)) {
            let a = SeqNum(base);
            prop_assert_eq!((a + d).since(a), i64::from(d));
            prop_assert!(d == 0 || a < a + d);
        }
    }
}
