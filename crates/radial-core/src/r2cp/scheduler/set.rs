//! A set of segment starts kept as a sorted deque: the scheduler asks for
//! its k-th element on every request (§4.3.1's rank), which an ordered tree
//! can only walk to, while new elements nearly always come in at the top
//! (the segments ranking skips past the frontier) and leave from anywhere
//! near the bottom. Membership is a binary search; the k-th element, an
//! index.

use std::collections::VecDeque;

/// Segment starts, ascending, each once.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct SegmentSet {
    items: VecDeque<u64>,
}

impl SegmentSet {
    /// How many.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether `s` is in the set.
    pub fn contains(&self, s: &u64) -> bool {
        self.items.binary_search(s).is_ok()
    }

    /// Adds `s`; false if it was there.
    pub fn insert(&mut self, s: u64) -> bool {
        if self.items.back().is_none_or(|&last| last < s) {
            self.items.push_back(s);
            return true;
        }
        match self.items.binary_search(&s) {
            Ok(_) => false,
            Err(i) => {
                self.items.insert(i, s);
                true
            }
        }
    }

    /// Removes `s`; false if it was not there.
    pub fn remove(&mut self, s: &u64) -> bool {
        match self.items.binary_search(s) {
            Ok(i) => {
                self.items.remove(i);
                true
            }
            Err(_) => false,
        }
    }

    /// The lowest.
    pub fn first(&self) -> Option<&u64> {
        self.items.front()
    }

    /// The `k`-th lowest, from 0.
    pub fn nth(&self, k: usize) -> Option<u64> {
        self.items.get(k).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    proptest! {
        /// Any sequence of inserts and removes leaves the set as an ordered
        /// tree would be: the same answers to every question asked of it.
        #[test]
        fn behaves_as_an_ordered_set(ops in proptest::collection::vec((any::<bool>(), 0u64..64), 0..200)) {
            let (mut s, mut model) = (SegmentSet::default(), BTreeSet::new());
            for (add, x) in ops {
                if add {
                    prop_assert_eq!(s.insert(x), model.insert(x));
                } else {
                    prop_assert_eq!(s.remove(&x), model.remove(&x));
                }
                prop_assert_eq!(s.len(), model.len());
                prop_assert_eq!(s.first(), model.first());
                for (k, m) in model.iter().enumerate() {
                    prop_assert_eq!(s.nth(k), Some(*m));
                }
                prop_assert_eq!(s.nth(model.len()), None);
                for y in 0..64 {
                    prop_assert_eq!(s.contains(&y), model.contains(&y));
                }
            }
        }
    }
}
