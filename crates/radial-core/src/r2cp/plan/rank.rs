//! How the rank counts another pipe's requests (R²CP §4.3.1, and rule
//! `look_ahead` beyond it).
//!
//! The paper's rank counts one generation of every outstanding request:
//! each triggers one more per round trip of its pipe. While a slow pipe's
//! request travels, a pipe `m` times quicker asks `m` generations on, so
//! with rule `look_ahead` the rank counts that many, the ratio of the round
//! trips the two pipes count with (queues included: the queue cap keeps a
//! pipe's queue to about one bandwidth-delay product while others share
//! the buffer). A quicker pipe held back by the receive buffer has few
//! requests out, not few to make, so it counts at least what its window
//! lets it ask for whose answers arrive before the slower pipe's: a window
//! per round trip of its own for the time the slower request takes beyond
//! one of its, and, unless its requests are paced, what of its window is
//! unused now (BLEST's estimate of what the fast subflow sends meanwhile:
//! Ferlin et al., IFIP Networking 2016). Requests a pipe asked for longer
//! ago than its patience are not counted.

use super::view::PipeView;
use crate::r2cp::scheduler::Ahead;
use crate::time::{Duration, Instant};

/// How the rank counts pipe `q`'s requests when a pipe counting round trip
/// `ours` asks at `now`, with a receive buffer of `rwnd` bytes and
/// segments of `mss` bytes (rule `look_ahead`).
pub fn ahead(ours: Duration, q: &PipeView, now: Instant, rwnd: u64, mss: u64) -> Ahead {
    let (tp, tq) = (ours.as_nanos().max(1), q.rtt.as_nanos().max(1));
    let generations = tp / tq;
    let could = if tp > tq {
        let window = q.window.min(rwnd);
        let unused = if q.paced {
            0
        } else {
            window.saturating_sub(q.in_flight)
        };
        let meanwhile = u128::from(window) * u128::from(tp - tq) / u128::from(tq);
        unused.saturating_add(u64::try_from(meanwhile).unwrap_or(u64::MAX)) / mss
    } else {
        0
    };
    Ahead {
        generations,
        given_up_before: now.checked_sub(q.patience),
        could,
    }
}
