//! What a route's last pipe knew of its path (rule `route_memory`).
//!
//! A host whose interface comes back with a new address opens a new pipe
//! on it: to its sender nothing ties the two, but the receiver knows they
//! cross the same network (the driver names their [`RouteId`]). The new
//! pipe starts from what the last one left instead of from nothing: its
//! round-trip estimator (smoothed RTT, variance and shortest round trip, so
//! its SYN is timed and its requests ranked by the path's own figures) and
//! the window and slow-start threshold it had while its path worked,
//! resumed paced over a round trip once the handshake completes. This is
//! TCP's temporal sharing of a control block (RFC 9040 §5: a new connection
//! initialised from the state a closed one to the same place left), with
//! the window's reuse paced as RFC 9040 §8 and Freeze-TCP's resumption ask.
//! A memory is kept for as long as RFC 7661 lets a sender keep a window it
//! has not used: five minutes from the last answer.

use std::collections::BTreeMap;

use crate::endpoint::RouteId;
use crate::rtt::RttEstimator;
use crate::time::{Duration, Instant};

/// How long a route's memory lasts after its pipe last heard its path (RFC
/// 7661 §4.3's non-validated period).
pub const MEMORY_LIFETIME: Duration = Duration::from_secs(300);

/// What a pipe leaves of its path.
#[derive(Clone, Debug)]
pub struct RouteMemory {
    /// The round-trip estimator, its backoff cleared.
    pub rtt: RttEstimator,
    /// The window and slow-start threshold the pipe had while its path
    /// worked, if it got that far.
    pub window: Option<(u64, u64)>,
    /// When the pipe last heard its path.
    pub heard: Instant,
}

/// The memories of the routes the connection's pipes ran over.
#[derive(Clone, Debug, Default)]
pub struct Routes {
    memories: BTreeMap<RouteId, RouteMemory>,
}

impl Routes {
    /// A pipe on `route` closed, leaving `memory`; it replaces any older.
    pub fn remember(&mut self, route: RouteId, memory: RouteMemory) {
        self.memories.insert(route, memory);
    }

    /// What the last pipe on `route` left, if it heard its path less than
    /// [`MEMORY_LIFETIME`] before `now`; an expired memory is forgotten.
    pub fn recall(&mut self, route: RouteId, now: Instant) -> Option<RouteMemory> {
        let m = self.memories.get(&route)?;
        if now.saturating_since(m.heard) >= MEMORY_LIFETIME {
            self.memories.remove(&route);
            return None;
        }
        Some(m.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rtt::RttConfig;

    fn memory(heard: Instant) -> RouteMemory {
        RouteMemory {
            rtt: RttEstimator::new(RttConfig::default()),
            window: Some((30_000, 60_000)),
            heard,
        }
    }

    #[test]
    fn a_memory_lasts_five_minutes_from_the_last_answer() {
        let mut routes = Routes::default();
        let t0 = Instant::ZERO + Duration::from_secs(10);
        routes.remember(RouteId(7), memory(t0));
        assert!(routes.recall(RouteId(8), t0).is_none(), "another route");
        let just_before = t0 + MEMORY_LIFETIME - Duration::from_millis(1);
        assert_eq!(
            routes.recall(RouteId(7), just_before).unwrap().window,
            Some((30_000, 60_000))
        );
        assert!(routes.recall(RouteId(7), t0 + MEMORY_LIFETIME).is_none());
        // Forgotten, not just withheld.
        assert!(routes.recall(RouteId(7), t0).is_none());
    }

    #[test]
    fn the_latest_pipe_s_memory_replaces_an_older_one() {
        let mut routes = Routes::default();
        let t0 = Instant::ZERO;
        routes.remember(RouteId(1), memory(t0));
        let mut newer = memory(t0 + Duration::from_secs(1));
        newer.window = None;
        routes.remember(RouteId(1), newer);
        assert_eq!(routes.recall(RouteId(1), t0).unwrap().window, None);
    }
}
