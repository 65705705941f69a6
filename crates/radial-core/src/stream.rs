//! Byte-stream buffers: the sender's retransmission buffer and the
//! receiver's reassembly buffer. Offsets are 64-bit stream positions; the wire
//! carries them as wrapping [`SeqNum`](crate::seq::SeqNum)s.

use std::collections::{BTreeMap, VecDeque};

/// Bytes written by the application and not yet acknowledged.
#[derive(Clone, Debug)]
pub struct SendBuffer {
    /// Stream offset of `data[0]`.
    base: u64,
    data: VecDeque<u8>,
    capacity: usize,
    closed: bool,
}

impl SendBuffer {
    /// An empty buffer holding at most `capacity` bytes.
    pub fn new(capacity: usize) -> Self {
        SendBuffer {
            base: 0,
            data: VecDeque::new(),
            capacity,
            closed: false,
        }
    }
    /// Appends what fits of `bytes`; returns how many were taken.
    pub fn write(&mut self, bytes: &[u8]) -> usize {
        if self.closed {
            return 0;
        }
        let n = bytes.len().min(self.free());
        self.data.extend(&bytes[..n]);
        n
    }
    /// Bytes the buffer holds at most.
    pub fn capacity(&self) -> usize {
        self.capacity
    }
    /// Lets the buffer hold `capacity` bytes, if that is more than it does.
    pub fn grow_to(&mut self, capacity: usize) {
        self.capacity = self.capacity.max(capacity);
    }
    /// Room left.
    pub fn free(&self) -> usize {
        if self.closed {
            0
        } else {
            self.capacity - self.data.len()
        }
    }
    /// Marks the end of the stream.
    pub fn close(&mut self) {
        self.closed = true;
    }
    /// True once the application closed the stream.
    pub fn is_closed(&self) -> bool {
        self.closed
    }
    /// Offset one past the last byte written.
    pub fn end(&self) -> u64 {
        self.base + self.data.len() as u64
    }
    /// Offset of the oldest unacknowledged byte.
    pub fn base(&self) -> u64 {
        self.base
    }
    /// Forgets bytes below `offset` (they were acknowledged, or the peer
    /// does not need them). An offset past the end skips the stream forward:
    /// the next byte written is the one at `offset` (a replica joining a
    /// transfer midway, R²CP §4.4.2).
    pub fn ack_to(&mut self, offset: u64) {
        let offset = if self.closed {
            offset.min(self.end())
        } else {
            offset
        };
        if offset > self.end() {
            self.data.clear();
            self.base = offset;
        } else if offset > self.base {
            let n = (offset - self.base) as usize;
            self.data.drain(..n);
            self.base += n as u64;
        }
    }
    /// Appends bytes `[offset, offset + len)` to `out`; returns how many were
    /// available.
    pub fn copy_range(&self, offset: u64, len: usize, out: &mut Vec<u8>) -> usize {
        if offset < self.base || offset >= self.end() {
            return 0;
        }
        let start = (offset - self.base) as usize;
        let end = (start + len).min(self.data.len());
        let (a, b) = self.data.as_slices();
        if end <= a.len() {
            out.extend_from_slice(&a[start..end]);
        } else if start >= a.len() {
            out.extend_from_slice(&b[start - a.len()..end - a.len()]);
        } else {
            out.extend_from_slice(&a[start..]);
            out.extend_from_slice(&b[..end - a.len()]);
        }
        end - start
    }
}

/// Received bytes: in-order bytes waiting for the application, and
/// out-of-order segments waiting for the holes before them.
#[derive(Clone, Debug, Default)]
pub struct ReassemblyBuffer {
    /// Offset one past the last in-order byte received.
    next: u64,
    ready: VecDeque<u8>,
    /// Out-of-order segments by start offset; never overlapping.
    pending: BTreeMap<u64, Vec<u8>>,
    pending_bytes: u64,
}

impl ReassemblyBuffer {
    /// An empty buffer expecting offset 0.
    pub fn new() -> Self {
        Self::default()
    }
    /// An empty buffer expecting `offset`: the bytes before it are held
    /// elsewhere (a download resumed from a partial file).
    pub fn starting_at(offset: u64) -> Self {
        ReassemblyBuffer {
            next: offset,
            ..Self::default()
        }
    }
    /// Offset of the next in-order byte expected.
    pub fn next(&self) -> u64 {
        self.next
    }
    /// Bytes held out of order.
    pub fn pending_bytes(&self) -> u64 {
        self.pending_bytes
    }
    /// Bytes ready for the application.
    pub fn ready_bytes(&self) -> usize {
        self.ready.len()
    }
    /// Stores bytes at `offset`. Returns the number of new bytes (not held
    /// before); duplicates and overlaps are trimmed, so every byte is kept once.
    pub fn insert(&mut self, offset: u64, bytes: &[u8]) -> u64 {
        let end = offset + bytes.len() as u64;
        if end <= self.next {
            return 0;
        }
        let held_before = self.next + self.pending_bytes;
        let start = offset.max(self.next);
        let data = &bytes[(start - offset) as usize..];
        if start == self.next {
            // In order: deliver, then pull pending segments that became in
            // order (drain_pending skips what we just delivered twice).
            self.ready.extend(data);
            self.next = end;
            self.drain_pending();
            return self.next + self.pending_bytes - held_before;
        }
        // Out of order: store only the gaps between segments already held.
        let mut cursor = start;
        if let Some((&s, v)) = self.pending.range(..=start).next_back() {
            cursor = cursor.max(s + v.len() as u64);
        }
        if self.pending.range(start + 1..end).next().is_none() {
            // Nothing held inside it (the usual case): one piece, stored
            // without listing gaps.
            if cursor < end {
                let slice = &data[(cursor - start) as usize..];
                self.pending.insert(cursor, slice.to_vec());
                self.pending_bytes += end - cursor;
            }
            return self.next + self.pending_bytes - held_before;
        }
        let mut gaps = Vec::new();
        for (&s, v) in self.pending.range(start + 1..end) {
            if s > cursor {
                gaps.push((cursor, s));
            }
            cursor = cursor.max(s + v.len() as u64);
        }
        if cursor < end {
            gaps.push((cursor, end));
        }
        for (s, e) in gaps {
            let slice = &data[(s - start) as usize..(e - start) as usize];
            self.pending.insert(s, slice.to_vec());
            self.pending_bytes += e - s;
        }
        self.next + self.pending_bytes - held_before
    }
    fn drain_pending(&mut self) {
        while let Some(entry) = self.pending.first_entry() {
            let s = *entry.key();
            if s > self.next {
                break;
            }
            let seg = entry.remove();
            self.pending_bytes -= seg.len() as u64;
            let e = s + seg.len() as u64;
            if e > self.next {
                self.ready.extend(&seg[(self.next - s) as usize..]);
                self.next = e;
            }
        }
    }
    /// Out-of-order blocks `[start, end)` in offset order, adjacent segments
    /// merged.
    pub fn blocks(&self) -> Vec<(u64, u64)> {
        let mut out: Vec<(u64, u64)> = Vec::new();
        for (&s, v) in &self.pending {
            let e = s + v.len() as u64;
            match out.last_mut() {
                Some(last) if last.1 == s => last.1 = e,
                _ => out.push((s, e)),
            }
        }
        out
    }
    /// True when the byte at `offset` arrived (in order or not).
    pub fn holds(&self, offset: u64) -> bool {
        offset < self.next
            || self
                .pending
                .range(..=offset)
                .next_back()
                .is_some_and(|(&s, v)| offset < s + v.len() as u64)
    }
    /// The block containing `offset`, if held out of order.
    pub fn block_containing(&self, offset: u64) -> Option<(u64, u64)> {
        self.blocks()
            .into_iter()
            .find(|&(s, e)| s <= offset && offset < e)
    }
    /// Moves up to `buf.len()` in-order bytes to `buf`.
    pub fn read(&mut self, buf: &mut [u8]) -> usize {
        let n = buf.len().min(self.ready.len());
        let (a, b) = self.ready.as_slices();
        let from_a = n.min(a.len());
        buf[..from_a].copy_from_slice(&a[..from_a]);
        buf[from_a..n].copy_from_slice(&b[..n - from_a]);
        self.ready.drain(..n);
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn send_buffer_wraps_and_copies() {
        let mut s = SendBuffer::new(8);
        assert_eq!(s.write(b"abcdefghij"), 8);
        s.ack_to(5);
        assert_eq!(s.write(b"XYZ"), 3);
        let mut out = Vec::new();
        assert_eq!(s.copy_range(6, 10, &mut out), 5);
        assert_eq!(out, b"ghXYZ");
        assert_eq!(s.copy_range(2, 3, &mut out), 0);
    }

    #[test]
    fn reassembly_fills_holes() {
        let mut r = ReassemblyBuffer::new();
        assert_eq!(r.insert(4, b"efg"), 3);
        assert_eq!(r.blocks(), vec![(4, 7)]);
        assert_eq!(r.insert(0, b"ab"), 2);
        assert_eq!(r.next(), 2);
        assert_eq!(r.insert(1, b"bcd"), 2);
        assert_eq!(r.next(), 7);
        let mut buf = [0; 16];
        assert_eq!(r.read(&mut buf), 7);
        assert_eq!(&buf[..7], b"abcdefg");
    }

    proptest! {
        /// Any arrival order of (possibly duplicated, overlapping) pieces gives
        /// the stream exactly once, in order.
        #[test]
        fn every_byte_once_in_order(
            cuts in proptest::collection::vec(0u64..200, 0..20),
            order in proptest::collection::vec(any::<prop::sample::Index>(), 0..60),
        ) {
            let stream: Vec<u8> = (0..200u32).map(|i| (i * 7 % 251) as u8).collect();
            let mut points: Vec<u64> = cuts.clone();
            points.push(0);
            points.push(200);
            points.sort_unstable();
            points.dedup();
            let pieces: Vec<(u64, u64)> = points.windows(2).map(|w| (w[0], w[1])).collect();
            let mut r = ReassemblyBuffer::new();
            let mut total = 0;
            for idx in &order {
                let (s, e) = pieces[idx.index(pieces.len())];
                // Extend some pieces backwards to create overlaps.
                let s2 = s.saturating_sub(idx.index(5) as u64);
                total += r.insert(s2, &stream[s2 as usize..e as usize]);
            }
            for &(s, e) in &pieces {
                total += r.insert(s, &stream[s as usize..e as usize]);
            }
            prop_assert_eq!(total, 200);
            let mut out = vec![0; 256];
            let n = r.read(&mut out);
            prop_assert_eq!(&out[..n], &stream[..]);
            prop_assert_eq!(r.pending_bytes(), 0);
        }
    }
}
