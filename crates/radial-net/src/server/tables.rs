//! The server's bounded tables. Everything a datagram can make the server
//! remember has a cap; when a table is full the oldest entry of the
//! cheapest class gives way (a session nobody has opened a pipe on yet, a
//! path that never proved its address), never every entry at once, and no
//! single source address may hold more than its share.
//!
//! A full table is shared fairly between source networks ([`Prefix`]): a
//! newcomer from a network that holds fewer entries than the largest
//! holder takes the place of that holder's oldest entry ([`Shares`]), so
//! many addresses of one network flooding the server cannot lock out an
//! address elsewhere; a newcomer from the largest holder can only take the
//! place of its own network's cheapest entries.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;

/// Caps on the server's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Connections (handshakes answered).
    pub connections: usize,
    /// Connections whose client has not yet shown it holds the keys.
    pub half_open: usize,
    /// Of those, from one source address: past it, a HELLO without a retry
    /// token gets a RETRY (no state), and one with a token (the address
    /// showed it receives) is refused.
    pub half_open_per_address: usize,
    /// Paths one connection may join (each join's nonce is remembered for
    /// the session's life, so this also bounds the replay table).
    pub paths_per_session: usize,
    /// Joined paths whose address is not yet validated.
    pub unvalidated_paths: usize,
    /// Live pipes (at the cap, idle and unanswered pipes give way, then the
    /// largest network's oldest to a newcomer from a smaller one).
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

/// Bits of an IPv4 source address that name its network.
pub const PREFIX_V4: u8 = 24;
/// Bits of an IPv6 source address that name its network (a site).
pub const PREFIX_V6: u8 = 48;

/// The network a source address belongs to: its IPv4 /[`PREFIX_V4`] or its
/// IPv6 /[`PREFIX_V6`] (an IPv4-mapped IPv6 address counts as IPv4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Prefix(IpAddr);

impl Prefix {
    /// The network of `ip`.
    pub fn of(ip: IpAddr) -> Prefix {
        match ip.to_canonical() {
            IpAddr::V4(a) => {
                let bits = u32::from(a) & (u32::MAX << (32 - PREFIX_V4));
                Prefix(IpAddr::V4(bits.into()))
            }
            IpAddr::V6(a) => {
                let bits = u128::from(a) & (u128::MAX << (128 - PREFIX_V6));
                Prefix(IpAddr::V6(bits.into()))
            }
        }
    }
}

/// One network's entries in a [`Shares`] table.
#[derive(Debug)]
struct Share<K> {
    count: usize,
    /// Keys in the order they entered; some may have left since (checked
    /// when taken, trimmed when the queue outgrows the count).
    order: VecDeque<K>,
}

/// The entries of one class (connections, unproven paths, pipes) counted
/// per source network, each network's in the order they entered: who holds
/// the largest share, and its oldest entries, when a newcomer needs room.
#[derive(Debug)]
pub struct Shares<K> {
    total: usize,
    by: HashMap<Prefix, Share<K>>,
}

impl<K> Default for Shares<K> {
    fn default() -> Self {
        Shares {
            total: 0,
            by: HashMap::new(),
        }
    }
}

impl<K: Copy> Shares<K> {
    /// Entries held.
    pub fn len(&self) -> usize {
        self.total
    }

    /// Entries network `p` holds.
    pub fn count(&self, p: Prefix) -> usize {
        self.by.get(&p).map_or(0, |s| s.count)
    }

    /// `k`, from network `p`, entered.
    pub fn add(&mut self, p: Prefix, k: K) {
        let s = self.by.entry(p).or_insert_with(|| Share {
            count: 0,
            order: VecDeque::new(),
        });
        s.count += 1;
        s.order.push_back(k);
        self.total += 1;
    }

    /// An entry of network `p` left (its key is dropped from the order
    /// lazily).
    pub fn remove(&mut self, p: Prefix) {
        if let Some(s) = self.by.get_mut(&p) {
            s.count -= 1;
            self.total -= 1;
            if s.count == 0 {
                self.by.remove(&p);
            }
        }
    }

    /// The network that gives way when a newcomer from `p` finds the class
    /// at its cap: the largest holder if `p` holds fewer than it, else `p`
    /// itself (it may replace only its own entries).
    pub fn donor(&self, p: Prefix) -> Prefix {
        let mine = self.count(p);
        self.by
            .iter()
            .max_by_key(|(_, s)| s.count)
            .filter(|(_, s)| s.count > mine)
            .map_or(p, |(q, _)| *q)
    }

    /// The oldest entry of network `q` that `take` accepts; keys no longer
    /// in the class (`live` false) are dropped on the way. The caller
    /// removes the entry it takes ([`Shares::remove`]).
    pub fn take_oldest(
        &mut self,
        q: Prefix,
        mut live: impl FnMut(&K) -> bool,
        mut take: impl FnMut(&K) -> bool,
    ) -> Option<K> {
        let s = self.by.get_mut(&q)?;
        let mut i = 0;
        while i < s.order.len() {
            let k = s.order[i];
            if !live(&k) {
                s.order.remove(i);
            } else if take(&k) {
                s.order.remove(i);
                return Some(k);
            } else {
                i += 1;
            }
        }
        None
    }

    /// Drops the keys no longer in the class (`live` false) from every
    /// network whose queue outgrew twice its count.
    pub fn trim(&mut self, mut live: impl FnMut(&K) -> bool) {
        for s in self.by.values_mut() {
            if s.order.len() > 2 * s.count + 16 {
                s.order.retain(|k| live(k));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_group_networks() {
        let p = |s: &str| Prefix::of(s.parse().unwrap());
        assert_eq!(p("10.1.2.3"), p("10.1.2.200"));
        assert_ne!(p("10.1.2.3"), p("10.1.3.3"));
        assert_eq!(p("::ffff:10.1.2.3"), p("10.1.2.9"));
        assert_eq!(p("2001:db8:1:2::1"), p("2001:db8:1:ffff::9"));
        assert_ne!(p("2001:db8:1::1"), p("2001:db8:2::1"));
    }

    #[test]
    fn a_smaller_network_takes_the_place_of_the_largest_ones_oldest() {
        let p = |s: &str| Prefix::of(s.parse().unwrap());
        let (big, small, new) = (p("10.0.0.1"), p("10.0.1.1"), p("10.0.2.1"));
        let mut s = Shares::default();
        for k in 0..10 {
            s.add(big, k);
        }
        s.add(small, 100);
        assert_eq!(s.len(), 11);
        assert_eq!(s.donor(new), big);
        assert_eq!(s.donor(small), big);
        assert_eq!(s.donor(big), big, "the largest replaces its own");
        // Entry 0 left meanwhile: the oldest still there gives way.
        s.remove(big);
        let gone = |k: &i32| *k != 0;
        assert_eq!(s.take_oldest(big, gone, |_| true), Some(1));
        // Entries that are not to be taken are skipped, not dropped.
        assert_eq!(s.take_oldest(big, gone, |k| *k > 5), Some(6));
        assert_eq!(s.take_oldest(big, gone, |k| *k < 5), Some(2));
        // Equal shares: each replaces its own.
        let mut t = Shares::default();
        t.add(small, 1);
        t.add(new, 2);
        assert_eq!(t.donor(small), small);
    }

    #[test]
    fn stale_keys_of_a_share_are_trimmed() {
        let p = Prefix::of("10.0.0.1".parse().unwrap());
        let mut s = Shares::default();
        for k in 0..100 {
            s.add(p, k);
        }
        for _ in 0..95 {
            s.remove(p);
        }
        s.trim(|k| *k >= 95);
        assert_eq!(s.by[&p].order.len(), 5);
        for _ in 0..5 {
            s.remove(p);
        }
        assert!(s.by.is_empty() && s.len() == 0);
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
