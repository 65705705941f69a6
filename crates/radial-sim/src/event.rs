//! The event queue: integer time, ties broken by insertion order so runs are
//! deterministic.

use radial_core::Instant;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// What happens when an event fires.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum EventKind {
    /// The packet at the head of a link reaches the far end.
    Arrival {
        /// Link index.
        link: u32,
        /// The link's up/down generation when the packet left (stale
        /// arrivals of a link that went down are ignored).
        generation: u32,
    },
    /// An endpoint's timer may be due.
    Timer {
        /// Agent index.
        agent: u32,
    },
    /// A flow starts.
    FlowStart {
        /// Flow index.
        flow: u32,
    },
    /// A scheduled change to the network (link down/up, rate, delay).
    Schedule {
        /// Index into the scenario's schedule.
        index: u32,
    },
    /// An on/off source toggles or emits.
    Source {
        /// Source index.
        source: u32,
    },
    /// A Gilbert-Elliott channel changes state.
    Channel {
        /// Channel index.
        channel: u32,
    },
    /// Periodic sampling of time series.
    Sample,
    /// A sleeping host wakes for an access-point beacon.
    Beacon {
        /// Node index.
        node: u32,
    },
    /// The receiving end of a single-path flow moves to another of the
    /// host's interfaces (a hard handoff).
    Move {
        /// Flow index.
        flow: u32,
        /// The node of the new interface.
        node: u32,
        /// Its address.
        addr: u32,
    },
    /// A path of a multi-path agent comes up or goes away.
    Path {
        /// Agent index.
        agent: u32,
        /// The agent's path.
        path: u16,
        /// What happens to it.
        change: PathChange,
    },
}

/// What happens to a path of a multi-path agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum PathChange {
    /// It comes up.
    Up,
    /// The policy retires it (graceful).
    Close,
    /// Its interface is lost (abrupt).
    Drop,
}

/// A heap entry: time and insertion order packed into one `u128` key, so the
/// heap compares a single integer.
#[derive(Debug)]
struct Entry {
    key: u128,
    kind: EventKind,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}

impl Eq for Entry {}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key.cmp(&other.key)
    }
}

/// A priority queue of timed events.
#[derive(Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Reverse<Entry>>,
    next_seq: u64,
    processed: u64,
}

impl EventQueue {
    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }
    /// Schedules `kind` at `time`.
    pub fn push(&mut self, time: Instant, kind: EventKind) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Reverse(Entry {
            key: (u128::from(time.as_nanos()) << 64) | u128::from(seq),
            kind,
        }));
    }
    /// The earliest event, if any is due at or before `until`.
    pub fn pop_until(&mut self, until: Instant) -> Option<(Instant, EventKind)> {
        let time = Instant::from_nanos((self.heap.peek()?.0.key >> 64) as u64);
        if time > until {
            return None;
        }
        let Reverse(e) = self.heap.pop()?;
        self.processed += 1;
        Some((time, e.kind))
    }
    /// Events popped so far.
    pub fn processed(&self) -> u64 {
        self.processed
    }
    /// Events waiting.
    pub fn len(&self) -> usize {
        self.heap.len()
    }
    /// True when nothing is waiting.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fires_in_time_then_insertion_order() {
        let mut q = EventQueue::new();
        let t = |ms: u64| Instant::from_nanos(ms * 1_000_000);
        q.push(t(5), EventKind::Sample);
        q.push(t(1), EventKind::Timer { agent: 2 });
        q.push(t(1), EventKind::Timer { agent: 1 });
        q.push(t(9), EventKind::Sample);
        assert_eq!(
            q.pop_until(t(10)),
            Some((t(1), EventKind::Timer { agent: 2 }))
        );
        assert_eq!(
            q.pop_until(t(10)),
            Some((t(1), EventKind::Timer { agent: 1 }))
        );
        assert_eq!(q.pop_until(t(10)), Some((t(5), EventKind::Sample)));
        assert_eq!(q.pop_until(t(8)), None);
        assert_eq!(q.pop_until(t(10)), Some((t(9), EventKind::Sample)));
        assert!(q.is_empty());
    }
}
