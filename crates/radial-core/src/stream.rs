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
/// out-of-order bytes waiting for the holes before them.
///
/// Both sit in one buffer: the in-order bytes, then a span from the next
/// in-order byte to the furthest byte received, holes included (zeros
/// until they are filled), beside the list of blocks received. A segment
/// costs one copy and an interval update, not an allocation and a map node
/// of its own, and a block the stream reaches becomes in-order where it
/// lies. What a receiver holds out of order is bounded by its window, so
/// the span is as well.
#[derive(Clone, Debug, Default)]
pub struct ReassemblyBuffer {
    /// Offset one past the last in-order byte received.
    next: u64,
    /// The first `ready` bytes are in order, for the application; the rest
    /// run from `next` to the end of the last block: what arrived out of
    /// order, and zeros in the holes.
    bytes: VecDeque<u8>,
    ready: usize,
    /// Out-of-order blocks, start to end: disjoint, not adjacent, all
    /// starting past `next`.
    blocks: BTreeMap<u64, u64>,
    pending_bytes: u64,
}

/// Copies `src` into `dq` from position `at` on (inside its length).
fn write_at(dq: &mut VecDeque<u8>, at: usize, src: &[u8]) {
    let (a, b) = dq.as_mut_slices();
    let end = at + src.len();
    if end <= a.len() {
        a[at..end].copy_from_slice(src);
    } else if at >= a.len() {
        b[at - a.len()..end - a.len()].copy_from_slice(src);
    } else {
        let k = a.len() - at;
        a[at..].copy_from_slice(&src[..k]);
        b[..src.len() - k].copy_from_slice(&src[k..]);
    }
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
        self.ready
    }
    /// Stores bytes at `offset`. Returns the number of new bytes (not held
    /// before); duplicates and overlaps are trimmed, so every byte is kept once.
    pub fn insert(&mut self, offset: u64, bytes: &[u8]) -> u64 {
        let end = offset + bytes.len() as u64;
        if end <= self.next {
            return 0;
        }
        let held_before = self.next + self.pending_bytes;
        let mut start = offset.max(self.next);
        let mut data = &bytes[(start - offset) as usize..];
        if start == self.next {
            // In order: what comes before the first block goes straight to
            // the application's side.
            let first = self.blocks.keys().next().copied().unwrap_or(u64::MAX);
            let stop = end.min(first);
            let n = (stop - start) as usize;
            self.put(self.ready, &data[..n]);
            self.ready += n;
            self.next = stop;
            start = stop;
            data = &data[n..];
        }
        if start < end {
            self.store(start, data);
        }
        self.drain_blocks();
        self.next + self.pending_bytes - held_before
    }
    /// Stores `data` at `start` (past `next`) in the holes between the
    /// blocks held, and records the block.
    fn store(&mut self, start: u64, data: &[u8]) {
        let end = start + data.len() as u64;
        // The block that reaches `start` from below, if any, grows in place
        // (the usual case: the next segment of a run); the blocks that
        // start inside [start, end] merge into it; the holes between them
        // take the new bytes.
        let below = self
            .blocks
            .range(..=start)
            .next_back()
            .filter(|&(_, &e)| e >= start)
            .map(|(&s, &e)| (s, e));
        let (lo, mut hi) = below.unwrap_or((start, start));
        let mut cursor = hi.max(start);
        while let Some((s, e)) = (cursor <= end)
            .then(|| self.blocks.range(cursor.max(start + 1)..=end).next())
            .flatten()
            .map(|(&s, &e)| (s, e))
        {
            self.blocks.remove(&s);
            if s > cursor {
                self.fill(
                    cursor,
                    &data[(cursor - start) as usize..(s - start) as usize],
                );
            }
            cursor = cursor.max(e);
            hi = hi.max(e);
        }
        if cursor < end {
            self.fill(cursor, &data[(cursor - start) as usize..]);
        }
        hi = hi.max(end);
        match self.blocks.get_mut(&lo) {
            Some(e) => *e = hi,
            None => {
                self.blocks.insert(lo, hi);
            }
        }
    }
    /// Writes a hole's bytes at `at`.
    fn fill(&mut self, at: u64, bytes: &[u8]) {
        let pos = usize::try_from(at - self.next).expect("within a window");
        self.put(self.ready + pos, bytes);
        self.pending_bytes += bytes.len() as u64;
    }
    /// Writes `src` at position `pos` of the buffer, growing it (with zeros
    /// up to `pos`, then with `src`'s bytes past its end: they are appended
    /// as written, not cleared first).
    fn put(&mut self, pos: usize, src: &[u8]) {
        if self.bytes.len() < pos {
            self.bytes.resize(pos, 0);
        }
        let inside = (self.bytes.len() - pos).min(src.len());
        write_at(&mut self.bytes, pos, &src[..inside]);
        self.bytes.extend(&src[inside..]);
    }
    /// Moves the block that starts at `next`, if any, to the ready bytes.
    fn drain_blocks(&mut self) {
        let Some(entry) = self.blocks.first_entry() else {
            self.bytes.truncate(self.ready);
            return;
        };
        if *entry.key() > self.next {
            return;
        }
        let (s, e) = entry.remove_entry();
        self.ready += usize::try_from(e - s).expect("within a window");
        self.pending_bytes -= e - s;
        self.next = e;
        if self.blocks.is_empty() {
            self.bytes.truncate(self.ready);
        }
    }
    /// Out-of-order blocks `[start, end)` in offset order, adjacent segments
    /// merged.
    pub fn blocks(&self) -> Vec<(u64, u64)> {
        self.blocks.iter().map(|(&s, &e)| (s, e)).collect()
    }
    /// True when the byte at `offset` arrived (in order or not).
    pub fn holds(&self, offset: u64) -> bool {
        offset < self.next || self.block_containing(offset).is_some()
    }
    /// The block containing `offset`, if held out of order.
    pub fn block_containing(&self, offset: u64) -> Option<(u64, u64)> {
        self.blocks
            .range(..=offset)
            .next_back()
            .filter(|&(_, &e)| offset < e)
            .map(|(&s, &e)| (s, e))
    }
    /// The in-order bytes ready for the application, in place (two
    /// slices, in order); [`ReassemblyBuffer::consume`] takes them.
    pub fn ready(&self) -> (&[u8], &[u8]) {
        let (a, b) = self.bytes.as_slices();
        let from_a = self.ready.min(a.len());
        (&a[..from_a], &b[..self.ready - from_a])
    }
    /// Takes the first `n` ready bytes (at most [`ReassemblyBuffer::ready_bytes`]).
    pub fn consume(&mut self, n: usize) {
        let n = n.min(self.ready);
        self.bytes.drain(..n);
        self.ready -= n;
    }
    /// Moves up to `buf.len()` in-order bytes to `buf`.
    pub fn read(&mut self, buf: &mut [u8]) -> usize {
        let n = buf.len().min(self.ready);
        let (a, b) = self.bytes.as_slices();
        let from_a = n.min(a.len());
        buf[..from_a].copy_from_slice(&a[..from_a]);
        buf[from_a..n].copy_from_slice(&b[..n - from_a]);
        self.consume(n);
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

    #[test]
    fn ready_bytes_are_read_in_place() {
        let mut r = ReassemblyBuffer::new();
        r.insert(3, b"def");
        r.insert(0, b"abc");
        let (a, b) = r.ready();
        assert_eq!([a, b].concat(), b"abcdef");
        r.consume(4);
        let (a, b) = r.ready();
        assert_eq!([a, b].concat(), b"ef");
        r.consume(10);
        assert_eq!(r.ready_bytes(), 0);
        assert_eq!(r.next(), 6, "what was consumed stays delivered");
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

        /// After every insert (reads between some), the buffer agrees with
        /// a model that records each byte received: the in-order point,
        /// the blocks, which bytes it holds, the count it returned, and the
        /// bytes read.
        #[test]
        fn agrees_with_a_byte_model(
            pieces in proptest::collection::vec((0u64..300, 1u64..40, any::<bool>()), 0..40),
        ) {
            let stream: Vec<u8> = (0..400u32).map(|i| (i * 13 % 251) as u8).collect();
            let mut r = ReassemblyBuffer::starting_at(5);
            let mut got = [false; 400];
            got[..5].iter_mut().for_each(|g| *g = true);
            let mut read = Vec::new();
            for (s, len, read_now) in pieces {
                let e = (s + len).min(400);
                let new = (s..e).filter(|&i| !got[i as usize]).count() as u64;
                prop_assert_eq!(r.insert(s, &stream[s as usize..e as usize]), new);
                (s..e).for_each(|i| got[i as usize] = true);
                let next = got.iter().position(|g| !g).unwrap_or(400) as u64;
                prop_assert_eq!(r.next(), next);
                let mut blocks: Vec<(u64, u64)> = Vec::new();
                for i in next..400 {
                    if got[i as usize] {
                        match blocks.last_mut() {
                            Some(b) if b.1 == i => b.1 = i + 1,
                            _ => blocks.push((i, i + 1)),
                        }
                    }
                }
                prop_assert_eq!(r.blocks(), blocks.clone());
                prop_assert_eq!(r.pending_bytes(), blocks.iter().map(|b| b.1 - b.0).sum::<u64>());
                for i in 0..400u64 {
                    prop_assert_eq!(r.holds(i), got[i as usize], "byte {}", i);
                }
                if read_now {
                    let mut buf = [0u8; 64];
                    let n = r.read(&mut buf);
                    read.extend_from_slice(&buf[..n]);
                }
            }
            let mut buf = vec![0u8; 400];
            let n = r.read(&mut buf);
            read.extend_from_slice(&buf[..n]);
            prop_assert_eq!(&read[..], &stream[5..r.next() as usize]);
        }
    }
}
