//! The receipt guard: a server sends a pipe no more unproven data than the
//! receiver has proven it receives. Every datagram a pipe sends carries a
//! nonce (the envelope, wire type 3) that only its receiver sees; the
//! receiver echoes the nonces it got (ECHO). Bytes sent and not yet echoed
//! are unproven; they may not exceed a limit of [`ReceiptGuard::INITIAL`]
//! plus the bytes proven over the last [`ReceiptGuard::WINDOW`]. A receiver
//! that requests data it never received, hoping to make the server send
//! faster (the optimistic-ACK attack of Savage et al., transposed to RCP's
//! requests), cannot echo what it never got and is held to the initial
//! limit per [`ReceiptGuard::EXPIRY`]; one that proved receipt for a while
//! and then stops echoing falls back to the same limit a window later, as
//! its proofs age out.

use std::collections::hash_map::RandomState;
use std::collections::{HashMap, VecDeque};
use std::hash::BuildHasher;
use std::time::{Duration, Instant};

/// Wire type of the envelope (the low nibble of the first byte).
pub const ENVELOPE_TYPE: u8 = 3;
/// Bytes the envelope adds in front of a datagram: type and nonce.
pub const ENVELOPE_LEN: usize = 5;

/// Puts `d` in an envelope carrying `nonce`, into `out`.
pub fn seal(nonce: u32, d: &[u8], out: &mut Vec<u8>) {
    out.clear();
    out.push(crate::session::VERSION << 4 | ENVELOPE_TYPE);
    out.extend_from_slice(&nonce.to_be_bytes());
    out.extend_from_slice(d);
}

/// Writes the envelope of `nonce` into the first [`ENVELOPE_LEN`] bytes of
/// `d`, which the datagram follows.
pub fn stamp(nonce: u32, d: &mut [u8]) {
    d[0] = crate::session::VERSION << 4 | ENVELOPE_TYPE;
    d[1..ENVELOPE_LEN].copy_from_slice(&nonce.to_be_bytes());
}

/// The nonce and the datagram inside an envelope, if `d` is one.
pub fn open(d: &[u8]) -> Option<(u32, &[u8])> {
    if d.len() < ENVELOPE_LEN || d[0] != crate::session::VERSION << 4 | ENVELOPE_TYPE {
        return None;
    }
    let nonce = u32::from_be_bytes(d[1..5].try_into().expect("4 bytes"));
    Some((nonce, &d[ENVELOPE_LEN..]))
}

/// Unpredictable nonces: a keyed SipHash of a counter (the receiver sees
/// some nonces and must not guess the others).
#[derive(Debug)]
pub struct Nonces {
    key: RandomState,
    count: u64,
}

impl Default for Nonces {
    fn default() -> Self {
        Nonces {
            key: RandomState::new(),
            count: 0,
        }
    }
}

impl Nonces {
    /// The next nonce.
    pub fn draw(&mut self) -> u32 {
        self.count += 1;
        self.key.hash_one(self.count) as u32
    }
}

/// One pipe's guard.
#[derive(Debug, Default)]
pub struct ReceiptGuard {
    unproven: HashMap<u32, u64>,
    /// Nonces in the order sent, for expiry.
    order: VecDeque<(Instant, u32)>,
    unproven_bytes: u64,
    /// Bytes proven per slot of the last window: (slot start, bytes).
    recent: VecDeque<(Instant, u64)>,
    recent_bytes: u64,
    /// Bytes proven so far.
    pub proven: u64,
    /// Times a datagram had to wait for proof.
    pub waits: u64,
}

impl ReceiptGuard {
    /// Unproven bytes allowed before anything is proven: 64 KB, several
    /// times the receiver's initial window.
    pub const INITIAL: u64 = 64 * 1024;
    /// After this long an unechoed datagram no longer counts as in flight
    /// (it was lost, or the receiver cheats); it proves nothing.
    pub const EXPIRY: Duration = Duration::from_secs(1);
    /// Proofs older than this no longer raise the limit.
    pub const WINDOW: Duration = Duration::from_secs(1);
    /// The window is kept in slots of this length.
    const SLOT: Duration = Duration::from_millis(100);
    /// The limit never exceeds this (it bounds the guard's own memory).
    pub const MAX: u64 = 64 << 20;

    /// True when the receiver proved receipt of something within the last
    /// [`ReceiptGuard::WINDOW`] (as of the last check).
    pub fn proving(&self) -> bool {
        self.recent_bytes > 0
    }

    /// Unproven bytes allowed now.
    pub fn limit(&self) -> u64 {
        (Self::INITIAL + self.recent_bytes).min(Self::MAX)
    }

    /// May `len` more bytes go out unproven now? Counts a wait if not.
    pub fn allows(&mut self, len: usize, now: Instant) -> bool {
        self.expire(now);
        let ok = self.unproven_bytes + len as u64 <= self.limit();
        if !ok {
            self.waits += 1;
        }
        ok
    }

    /// When the oldest unproven datagram stops counting (it expires), if
    /// any is outstanding: the earliest a refused datagram may pass without
    /// an echo.
    pub fn next_expiry(&self) -> Option<Instant> {
        self.order.front().map(|&(at, _)| at + Self::EXPIRY)
    }

    /// A datagram of `len` bytes went out with `nonce`. A nonce still
    /// outstanding from an earlier datagram (two draws of 32 bits can
    /// collide) counts both: one echo proves them together.
    pub fn sent(&mut self, nonce: u32, len: usize, now: Instant) {
        let len = len as u64;
        self.unproven_bytes += len;
        match self.unproven.entry(nonce) {
            std::collections::hash_map::Entry::Occupied(mut e) => *e.get_mut() += len,
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(len);
                self.order.push_back((now, nonce));
            }
        }
    }

    /// The receiver echoed `nonce` at `now`: its bytes are proven and the
    /// limit grows by as much for a window. False for a nonce not
    /// outstanding.
    pub fn echoed(&mut self, nonce: u32, now: Instant) -> bool {
        let Some(len) = self.unproven.remove(&nonce) else {
            return false;
        };
        self.unproven_bytes -= len;
        self.proven += len;
        self.recent_bytes += len;
        match self.recent.back_mut() {
            Some((start, bytes)) if now.saturating_duration_since(*start) < Self::SLOT => {
                *bytes += len;
            }
            _ => self.recent.push_back((now, len)),
        }
        true
    }

    fn expire(&mut self, now: Instant) {
        while let Some(&(start, bytes)) = self.recent.front() {
            if now.saturating_duration_since(start) < Self::WINDOW {
                break;
            }
            self.recent.pop_front();
            self.recent_bytes -= bytes;
        }
        while let Some(&(at, nonce)) = self.order.front() {
            if now.duration_since(at) < Self::EXPIRY {
                break;
            }
            self.order.pop_front();
            if let Some(len) = self.unproven.remove(&nonce) {
                self.unproven_bytes -= len;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelopes_round_trip_and_others_are_not_envelopes() {
        let mut out = Vec::new();
        seal(0xdead_beef, b"rcp", &mut out);
        assert_eq!(open(&out), Some((0xdead_beef, &b"rcp"[..])));
        assert_eq!(open(&out[..4]), None);
        assert_eq!(open(b"\x11abcdefgh"), None);
    }

    #[test]
    fn unproven_bytes_are_capped_and_echoes_raise_the_cap() {
        let t0 = Instant::now();
        let mut g = ReceiptGuard::default();
        let mut n = 0;
        while g.allows(1000, t0) {
            g.sent(n, 1000, t0);
            n += 1;
        }
        assert_eq!(u64::from(n), ReceiptGuard::INITIAL / 1000);
        // Echoing ten of them lets twenty more go.
        for k in 0..10 {
            assert!(g.echoed(k, t0));
        }
        assert!(!g.echoed(0, t0), "once");
        assert!(!g.echoed(99_999, t0), "never sent");
        let mut more = 0;
        while g.allows(1000, t0) {
            g.sent(10_000 + more, 1000, t0);
            more += 1;
        }
        assert_eq!(more, 20);
        // A second later the unechoed ones no longer count.
        assert!(g.allows(1000, t0 + ReceiptGuard::EXPIRY));
        assert_eq!(g.proven, 10_000);
    }

    #[test]
    fn a_receiver_that_stops_echoing_falls_back_to_the_initial_limit() {
        // An honest receiver proves 8 MB over two seconds, then stops
        // echoing: a window later its allowance is the initial one again.
        let t0 = Instant::now();
        let mut g = ReceiptGuard::default();
        let mut n = 0u32;
        for ms in 0..2000u64 {
            let now = t0 + Duration::from_millis(ms);
            for _ in 0..4 {
                assert!(g.allows(1000, now));
                g.sent(n, 1000, now);
                assert!(g.echoed(n, now));
                n += 1;
            }
        }
        let stop = t0 + Duration::from_millis(2000);
        assert!(g.limit() > 3_000_000, "{}", g.limit());
        // From now on nothing is echoed: what it may still get is bounded
        // by the limit it had, and after the window and the expiry it is
        // held to the initial allowance.
        let mut after = 0u64;
        for ms in 0..3000u64 {
            let now = stop + Duration::from_millis(ms);
            while g.allows(1000, now) {
                g.sent(n, 1000, now);
                n += 1;
                after += 1000;
            }
        }
        assert!(after < 4_000_000 + 3 * ReceiptGuard::INITIAL, "{after}");
        assert_eq!(g.limit(), ReceiptGuard::INITIAL);
        let late = stop + Duration::from_millis(3000);
        let mut last_second = 0;
        for ms in 0..1000u64 {
            let now = late + Duration::from_millis(ms);
            while g.allows(1000, now) {
                g.sent(n, 1000, now);
                n += 1;
                last_second += 1000;
            }
        }
        assert!(last_second <= 2 * ReceiptGuard::INITIAL, "{last_second}");
    }

    #[test]
    fn a_nonce_drawn_twice_keeps_the_count_right() {
        let t0 = Instant::now();
        let mut g = ReceiptGuard::default();
        g.sent(7, 100, t0);
        g.sent(7, 1000, t0);
        assert!(!g.allows(ReceiptGuard::INITIAL as usize - 1000, t0));
        assert!(g.echoed(7, t0));
        assert_eq!(g.proven, 1100);
        assert!(g.allows(ReceiptGuard::INITIAL as usize, t0));
        g.sent(8, 10, t0);
        g.sent(8, 20, t0);
        assert!(g.allows(ReceiptGuard::INITIAL as usize, t0 + ReceiptGuard::EXPIRY));
    }

    #[test]
    fn nonces_differ() {
        let mut n = Nonces::default();
        let v: std::collections::HashSet<u32> = (0..1000).map(|_| n.draw()).collect();
        assert!(v.len() > 990);
    }
}
