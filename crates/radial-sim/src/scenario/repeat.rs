//! Timed entries that repeat: `every` and `until` on a schedule entry or a
//! handoff expand into one entry per period.

use radial_core::Duration;

/// The most entries one repeating entry may expand into.
pub const MAX_REPEATS: usize = 100_000;

/// The shortest period of a repeating entry.
pub const MIN_PERIOD: Duration = Duration::from_millis(1);

/// The times `at`, `at + every`, … before `until` (inclusive of `at`).
/// Without `every`, just `at`.
pub fn times(
    at: Duration,
    every: Option<Duration>,
    until: Duration,
) -> Result<Vec<Duration>, String> {
    let Some(every) = every else {
        return Ok(vec![at]);
    };
    if every < MIN_PERIOD {
        return Err(format!(
            "`every` must be at least {} ms",
            MIN_PERIOD.as_millis()
        ));
    }
    if until <= at {
        return Err("`until` must come after `at`".into());
    }
    let n = (until - at).as_nanos().div_ceil(every.as_nanos());
    if n > MAX_REPEATS as u64 {
        return Err(format!(
            "repeats {n} times; at most {MAX_REPEATS} (a longer `every` or an earlier `until`)"
        ));
    }
    Ok((0..n).map(|k| at + every.saturating_mul(k)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: u64) -> Duration {
        Duration::from_secs(v)
    }

    #[test]
    fn expands_before_until() {
        assert_eq!(times(s(2), Some(s(4)), s(11)).unwrap(), [s(2), s(6), s(10)]);
        assert_eq!(times(s(2), Some(s(4)), s(10)).unwrap(), [s(2), s(6)]);
        assert_eq!(times(s(2), None, s(1)).unwrap(), [s(2)]);
    }

    #[test]
    fn rejects_nonsense() {
        assert!(times(s(2), Some(Duration::ZERO), s(10)).is_err());
        assert!(times(s(2), Some(s(1)), s(2)).is_err());
        assert!(times(s(0), Some(Duration::from_millis(1)), s(1000)).is_err());
    }
}
