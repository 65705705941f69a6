//! An ordered set kept as a sorted deque, for the scheduler's sets whose
//! elements nearly always come in at the top and leave from near the
//! bottom: the pending segments (new ones are the segments ranking skips
//! past the frontier; §4.3.1's rank asks for the k-th on every request,
//! which an ordered tree can only walk to) and each pipe's requests in the
//! order sent (the rank counts those sent before a time). Membership and
//! counts below a bound are binary searches; the k-th element, an index.

use std::collections::VecDeque;

/// Elements, ascending, each once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct SortedSet<T> {
    items: VecDeque<T>,
}

impl<T> Default for SortedSet<T> {
    fn default() -> Self {
        SortedSet {
            items: VecDeque::new(),
        }
    }
}

/// Segment starts.
pub(super) type SegmentSet = SortedSet<u64>;

impl<T: Ord + Copy> SortedSet<T> {
    /// How many.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Whether `s` is in the set.
    pub fn contains(&self, s: &T) -> bool {
        self.items.binary_search(s).is_ok()
    }

    /// Adds `s`; false if it was there.
    pub fn insert(&mut self, s: T) -> bool {
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
    pub fn remove(&mut self, s: &T) -> bool {
        // The usual case: the oldest request answered, the lowest segment
        // taken.
        if self.items.front() == Some(s) {
            self.items.pop_front();
            return true;
        }
        match self.items.binary_search(s) {
            Ok(i) => {
                self.items.remove(i);
                true
            }
            Err(_) => false,
        }
    }

    /// The lowest.
    pub fn first(&self) -> Option<&T> {
        self.items.front()
    }

    /// The `k`-th lowest, from 0.
    pub fn nth(&self, k: usize) -> Option<T> {
        self.items.get(k).copied()
    }

    /// How many are below `bound`.
    pub fn count_below(&self, bound: &T) -> usize {
        self.items.partition_point(|x| x < bound)
    }

    /// How many are below `bound`, knowing that no more than `at_most` are:
    /// a search of the first `at_most` only.
    pub fn count_below_within(&self, bound: &T, at_most: usize) -> usize {
        let (a, b) = self.items.as_slices();
        let below = |x: &T| x < bound;
        if at_most <= a.len() {
            a[..at_most].partition_point(below)
        } else if a.last().is_some_and(below) {
            a.len() + b[..(at_most - a.len()).min(b.len())].partition_point(below)
        } else {
            a.partition_point(below)
        }
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
                    let n = model.range(..y).count();
                    prop_assert_eq!(s.count_below(&y), n);
                    for at_most in [n, n + 1, model.len(), model.len() + 3] {
                        prop_assert_eq!(s.count_below_within(&y, at_most), n);
                    }
                }
                prop_assert_eq!(s.is_empty(), model.is_empty());
            }
        }
    }
}
