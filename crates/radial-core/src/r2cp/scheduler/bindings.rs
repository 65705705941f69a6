//! The outstanding requests by segment (§4.3.1's `binding`), in a ring over
//! the segment grid: every request asks for a whole segment, and the
//! outstanding ones lie between the in-order point and the frontier, a
//! span the receive buffer bounds.

use super::Binding;
use crate::r2cp::ring::Ring;

/// Bindings keyed by segment start, on the grid of `mss` bytes from
/// `origin`.
#[derive(Clone, Debug)]
pub(super) struct Bindings {
    mss: u64,
    origin: u64,
    /// By grid index.
    ring: Ring<Binding>,
}

impl Bindings {
    /// No bindings, for segments of `mss` bytes starting at `origin`.
    pub fn new(mss: u64, origin: u64) -> Self {
        Bindings {
            mss,
            origin,
            ring: Ring::default(),
        }
    }

    /// The grid index of `start`, if it is on the grid.
    fn index(&self, start: u64) -> Option<u64> {
        let off = start.checked_sub(self.origin)?;
        off.is_multiple_of(self.mss).then_some(off / self.mss)
    }

    fn start(&self, index: u64) -> u64 {
        self.origin + index * self.mss
    }

    /// How many.
    pub fn len(&self) -> usize {
        self.ring.len()
    }

    /// The binding of the segment at `start`.
    pub fn get(&self, start: u64) -> Option<&Binding> {
        self.ring.get(self.index(start)?)
    }

    /// Whether the segment at `start` is bound.
    pub fn contains(&self, start: u64) -> bool {
        self.get(start).is_some()
    }

    /// Binds the segment at `start` (on the grid), returning the binding it
    /// replaces.
    pub fn insert(&mut self, start: u64, b: Binding) -> Option<Binding> {
        let i = self
            .index(start)
            .expect("requests ask for segments on the grid");
        self.ring.insert(i, b)
    }

    /// Unbinds the segment at `start`.
    pub fn remove(&mut self, start: u64) -> Option<Binding> {
        self.ring.remove(self.index(start)?)
    }

    /// The lowest bound segment.
    pub fn first(&self) -> Option<u64> {
        self.ring.first().map(|(i, _)| self.start(i))
    }

    /// Every binding, by segment start.
    pub fn iter(&self) -> impl Iterator<Item = (u64, &Binding)> {
        self.ring.iter().map(|(i, b)| (self.start(i), b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::endpoint::PathId;
    use crate::time::Instant;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    const MSS: u64 = 1_000;
    const ORIGIN: u64 = 7_000;

    fn binding(local: u64) -> Binding {
        Binding {
            path: PathId((local % 3) as u16),
            local,
            sent_at: Instant::from_nanos(local),
        }
    }

    proptest! {
        /// Any sequence of binds and unbinds on the grid leaves the ring
        /// answering as an ordered map would, off-grid and out-of-range
        /// lookups included.
        #[test]
        fn behaves_as_an_ordered_map(ops in proptest::collection::vec((any::<bool>(), 0u64..48, any::<u64>()), 0..200)) {
            let (mut ring, mut model) = (Bindings::new(MSS, ORIGIN), BTreeMap::new());
            for (add, k, local) in ops {
                let start = ORIGIN + k * MSS;
                if add {
                    prop_assert_eq!(ring.insert(start, binding(local)), model.insert(start, binding(local)));
                } else {
                    prop_assert_eq!(ring.remove(start), model.remove(&start));
                }
                prop_assert_eq!(ring.len(), model.len());
                prop_assert_eq!(ring.first(), model.keys().next().copied());
                let listed: Vec<(u64, Binding)> = ring.iter().map(|(s, b)| (s, *b)).collect();
                let expected: Vec<(u64, Binding)> = model.iter().map(|(s, b)| (*s, *b)).collect();
                prop_assert_eq!(listed, expected);
                for probe in [0, ORIGIN - MSS, start + 1, ORIGIN + 60 * MSS] {
                    prop_assert_eq!(ring.get(probe), model.get(&probe));
                }
                for j in 0..48 {
                    let s = ORIGIN + j * MSS;
                    prop_assert_eq!(ring.contains(s), model.contains_key(&s));
                }
            }
        }
    }
}
