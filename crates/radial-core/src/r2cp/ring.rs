//! A map over a dense range of numbers kept as a ring of slots, for the
//! engine's tables of outstanding requests: a pipe's by local number (given
//! out one after another, so new requests join at the top, and answers,
//! nearly always the oldest first, leave from the bottom) and the
//! scheduler's by segment (between the in-order point and the frontier,
//! a span the receive buffer bounds). A slot per number from the lowest
//! present gives lookups, inserts and removals in constant time, where an
//! ordered tree would search.

use std::collections::VecDeque;

/// Values keyed by numbers that lie close together.
#[derive(Clone, Debug)]
pub(crate) struct Ring<T> {
    /// Key of `slots[0]`.
    base: u64,
    /// The first and last slots are occupied whenever any is.
    slots: VecDeque<Option<T>>,
    len: usize,
}

impl<T> Default for Ring<T> {
    fn default() -> Self {
        Ring {
            base: 0,
            slots: VecDeque::new(),
            len: 0,
        }
    }
}

impl<T> Ring<T> {
    fn slot(&self, key: u64) -> Option<usize> {
        let i = key.checked_sub(self.base)?;
        usize::try_from(i).ok().filter(|&i| i < self.slots.len())
    }

    /// How many.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The value at `key`.
    pub fn get(&self, key: u64) -> Option<&T> {
        self.slots.get(self.slot(key)?)?.as_ref()
    }

    /// Inserts `value` at `key`, returning the value it replaces.
    pub fn insert(&mut self, key: u64, value: T) -> Option<T> {
        if self.slots.is_empty() {
            self.base = key;
        }
        while key < self.base {
            self.slots.push_front(None);
            self.base -= 1;
        }
        let at = usize::try_from(key - self.base).expect("keys lie close together");
        while self.slots.len() <= at {
            self.slots.push_back(None);
        }
        let old = self.slots[at].replace(value);
        if old.is_none() {
            self.len += 1;
        }
        old
    }

    /// Removes the value at `key`.
    pub fn remove(&mut self, key: u64) -> Option<T> {
        let at = self.slot(key)?;
        let v = self.slots[at].take()?;
        self.len -= 1;
        while self.slots.front().is_some_and(Option::is_none) {
            self.slots.pop_front();
            self.base += 1;
        }
        while self.slots.back().is_some_and(Option::is_none) {
            self.slots.pop_back();
        }
        Some(v)
    }

    /// The lowest key and its value.
    pub fn first(&self) -> Option<(u64, &T)> {
        Some((self.base, self.slots.front()?.as_ref()?))
    }

    /// Every key and value, ascending.
    pub fn iter(&self) -> impl Iterator<Item = (u64, &T)> {
        let base = self.base;
        self.slots
            .iter()
            .enumerate()
            .filter_map(move |(k, v)| Some((base + k as u64, v.as_ref()?)))
    }

    /// Every value below `key`, ascending, mutably.
    pub fn below_mut(&mut self, key: u64) -> impl Iterator<Item = (u64, &mut T)> {
        let (base, n) = (self.base, self.slots.len());
        let end = usize::try_from(key.saturating_sub(base)).map_or(n, |e| e.min(n));
        self.slots
            .range_mut(..end)
            .enumerate()
            .filter_map(move |(k, v)| Some((base + k as u64, v.as_mut()?)))
    }

    /// Takes every value out, ascending.
    pub fn take_all(&mut self) -> Vec<(u64, T)> {
        let base = self.base;
        let all = std::mem::take(&mut self.slots)
            .into_iter()
            .enumerate()
            .filter_map(|(k, v)| Some((base + k as u64, v?)))
            .collect();
        self.len = 0;
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    proptest! {
        /// Inserts (mostly of rising keys), removals and increments below
        /// a key leave the ring answering as an ordered map would.
        #[test]
        fn behaves_as_an_ordered_map(ops in proptest::collection::vec((0u8..4, 0u64..6), 0..200)) {
            let (mut ring, mut model) = (Ring::default(), BTreeMap::new());
            let mut next = 0u64;
            for (op, x) in ops {
                match op {
                    0 => {
                        let key = next.saturating_sub(x * 3);
                        prop_assert_eq!(ring.insert(key, x), model.insert(key, x));
                    }
                    1 => {
                        next += x / 2;
                        prop_assert_eq!(ring.insert(next, next * 10), model.insert(next, next * 10));
                        next += 1;
                    }
                    2 => {
                        let key = next.saturating_sub(x * 2);
                        prop_assert_eq!(ring.remove(key), model.remove(&key));
                    }
                    _ => {
                        let key = next.saturating_sub(x);
                        for (_, v) in ring.below_mut(key) {
                            *v += 1;
                        }
                        for (_, v) in model.range_mut(..key) {
                            *v += 1;
                        }
                    }
                }
                prop_assert_eq!(ring.len(), model.len());
                prop_assert_eq!(ring.is_empty(), model.is_empty());
                prop_assert_eq!(ring.first(), model.iter().next().map(|(k, v)| (*k, v)));
                let listed: Vec<(u64, u64)> = ring.iter().map(|(k, v)| (k, *v)).collect();
                let expected: Vec<(u64, u64)> = model.iter().map(|(k, v)| (*k, *v)).collect();
                prop_assert_eq!(listed, expected);
                for k in 0..next + 2 {
                    prop_assert_eq!(ring.get(k), model.get(&k));
                }
            }
            let all = ring.take_all();
            prop_assert_eq!(all, model.into_iter().collect::<Vec<_>>());
            prop_assert!(ring.is_empty() && ring.first().is_none());
        }
    }
}
