//! The host's monotonic clock mapped onto the core's [`Instant`]: nanoseconds
//! since the driver started.

use radial_core::{Duration, Instant};

/// A monotonic clock with its epoch at creation.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    epoch: std::time::Instant,
}

impl Default for Clock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock {
    /// A clock reading zero now.
    pub fn new() -> Self {
        Clock {
            epoch: std::time::Instant::now(),
        }
    }

    /// Now, in the core's time.
    pub fn now(&self) -> Instant {
        let ns = self.epoch.elapsed().as_nanos();
        Instant::from_nanos(u64::try_from(ns).unwrap_or(u64::MAX))
    }

    /// How long from now until `t` (zero if it has passed), for a poll
    /// timeout.
    pub fn until(&self, t: Instant) -> std::time::Duration {
        let now = self.now();
        if t <= now {
            return std::time::Duration::ZERO;
        }
        let d: Duration = t - now;
        std::time::Duration::from_nanos(d.as_nanos())
    }
}
