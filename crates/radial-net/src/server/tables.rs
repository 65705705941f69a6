//! The server's bounded tables. Everything a datagram can make the server
//! remember has a cap; when a table is full the oldest entry of the
//! cheapest class gives way (a session nobody has opened a pipe on yet, a
//! path that never proved its address), never every entry at once, and no
//! single source address may hold more than its share.

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;
use std::net::IpAddr;

/// Caps on the server's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Connections (handshakes answered).
    pub connections: usize,
    /// Connections whose client has not yet shown it holds the keys.
    pub half_open: usize,
    /// Of those, from one source address.
    pub half_open_per_address: usize,
    /// Paths one connection may join (each join's nonce is remembered for
    /// the session's life, so this also bounds the replay table).
    pub paths_per_session: usize,
    /// Joined paths whose address is not yet validated.
    pub unvalidated_paths: usize,
    /// Live pipes.
    pub pipes: usize,
    /// Live pipes from one source address.
    pub pipes_per_address: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            connections: 16_384,
            half_open: 4096,
            half_open_per_address: 64,
            paths_per_session: 16,
            unvalidated_paths: 4096,
            pipes: 16_384,
            pipes_per_address: 256,
        }
    }
}

/// Counts per source address.
#[derive(Debug, Default)]
pub struct PerAddress(HashMap<IpAddr, usize>);

impl PerAddress {
    /// How many `ip` holds.
    pub fn get(&self, ip: IpAddr) -> usize {
        self.0.get(&ip).copied().unwrap_or(0)
    }

    /// One more for `ip`.
    pub fn add(&mut self, ip: IpAddr) {
        *self.0.entry(ip).or_insert(0) += 1;
    }

    /// One fewer for `ip`.
    pub fn remove(&mut self, ip: IpAddr) {
        if let Some(n) = self.0.get_mut(&ip) {
            *n -= 1;
            if *n == 0 {
                self.0.remove(&ip);
            }
        }
    }
}

/// Keys in the order they entered a class, for oldest-first eviction. A
/// key may have left the class since (it is checked when popped), so the
/// queue is trimmed whenever it grows past twice the class's size.
#[derive(Debug)]
pub struct Fifo<K> {
    order: VecDeque<K>,
}

impl<K> Default for Fifo<K> {
    fn default() -> Self {
        Fifo {
            order: VecDeque::new(),
        }
    }
}

impl<K: Copy + Eq + Hash> Fifo<K> {
    /// `k` entered the class.
    pub fn push(&mut self, k: K) {
        self.order.push_back(k);
    }

    /// The oldest key still in the class (`still` says whether it is).
    pub fn pop_oldest(&mut self, mut still: impl FnMut(&K) -> bool) -> Option<K> {
        while let Some(k) = self.order.pop_front() {
            if still(&k) {
                return Some(k);
            }
        }
        None
    }

    /// Drops keys no longer in the class once the queue outgrew `live`.
    pub fn trim(&mut self, live: usize, mut still: impl FnMut(&K) -> bool) {
        if self.order.len() > 2 * live + 64 {
            self.order.retain(|k| still(k));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_still_in_the_class_goes_first() {
        let mut f = Fifo::default();
        for k in 0..5 {
            f.push(k);
        }
        let live = [false, true, true, false, true];
        assert_eq!(f.pop_oldest(|k| live[*k]), Some(1));
        assert_eq!(f.pop_oldest(|k| live[*k]), Some(2));
        assert_eq!(f.pop_oldest(|k| live[*k]), Some(4));
        assert_eq!(f.pop_oldest(|k| live[*k]), None);
    }

    #[test]
    fn stale_keys_are_trimmed() {
        let mut f = Fifo::default();
        for k in 0..1000 {
            f.push(k);
        }
        f.trim(10, |k| *k < 10);
        assert_eq!(f.order.len(), 10);
    }

    #[test]
    fn per_address_counts_forget_addresses_at_zero() {
        let mut p = PerAddress::default();
        let a: IpAddr = [127, 0, 0, 1].into();
        p.add(a);
        p.add(a);
        p.remove(a);
        assert_eq!(p.get(a), 1);
        p.remove(a);
        assert!(p.0.is_empty());
    }
}
