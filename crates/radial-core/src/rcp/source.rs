//! Where an RCP sender's data lives ([`Source`]): a [`SendBuffer`] the
//! application writes into, a [`StoredStream`] the driver holds at rest (a
//! file), or a [`SharedStream`] several pipes' senders serve at once while
//! the application writes it.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::Arc;

use crate::stream::SendBuffer;

/// Where a sender's data lives.
pub trait Source {
    /// Offset of the oldest byte the sender can still send.
    fn base(&self) -> u64;
    /// Offset one past the last byte the sender has.
    fn end(&self) -> u64;
    /// True when no byte past [`Source::end`] will ever come.
    fn is_closed(&self) -> bool;
    /// The receiver holds every byte below `offset` in order (SEG.DEQ).
    fn ack_to(&mut self, offset: u64);
    /// The receiver asked for bytes up to `end`. A source that keeps what
    /// its application writes may grow to keep what it will be asked for;
    /// one that holds its whole stream has nothing to do.
    fn reach(&mut self, _end: u64) {}
}

/// The largest a send buffer grows to by [`Source::reach`]: Linux's
/// largest automatic send buffer (`tcp_wmem[2]`, 4 MiB), unless the buffer
/// was made larger than that to begin with.
pub const MAX_SEND_BUFFER: usize = 4 << 20;

impl Source for SendBuffer {
    fn base(&self) -> u64 {
        SendBuffer::base(self)
    }
    fn end(&self) -> u64 {
        SendBuffer::end(self)
    }
    fn is_closed(&self) -> bool {
        SendBuffer::is_closed(self)
    }
    fn ack_to(&mut self, offset: u64) {
        SendBuffer::ack_to(self, offset);
    }
    /// Send-buffer autotuning: the buffer keeps twice the span from its
    /// oldest byte to the furthest byte asked for, as Linux sizes a
    /// socket's send buffer to twice its window (`tcp_sndbuf_expand`,
    /// net/ipv4/tcp_input.c). A receiver whose flow control is by span
    /// never asks past its window from SEG.DEQ, so a buffer of twice the
    /// window never grows; one whose flow control is by reservation may
    /// name a segment as far ahead as its quicker paths fetch while a
    /// slower path's request travels, which the receive buffer does not
    /// bound, and a buffer fixed at twice the window would freeze that
    /// path for want of data the application has.
    fn reach(&mut self, end: u64) {
        let span = end.saturating_sub(SendBuffer::base(self));
        let want = usize::try_from(span.saturating_mul(2)).unwrap_or(usize::MAX);
        self.grow_to(want.min(MAX_SEND_BUFFER));
    }
}

/// A stream of known length whose bytes the driver holds at rest (a file):
/// every byte can be sent at any time, and the sender keeps none of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoredStream {
    /// The stream's length in bytes.
    pub len: u64,
}

impl Source for StoredStream {
    fn base(&self) -> u64 {
        0
    }
    fn end(&self) -> u64 {
        self.len
    }
    fn is_closed(&self) -> bool {
        true
    }
    fn ack_to(&mut self, _offset: u64) {}
}

/// A stream that several senders serve at once (the pipes of one R²CP
/// connection at a server) and whose bytes the driver holds as the
/// application writes them: the driver says how far the application has
/// written ([`SharedStream::extend_to`]) and appends each segment's payload
/// itself, as for a [`StoredStream`]; clones share one state. What any
/// pipe's receiver has in order (SEG.DEQ, the connection's in-order point)
/// is purged for every pipe ([`Source::base`]): the driver may drop those
/// bytes.
///
/// The state is atomic so that a connection holding it may move between
/// threads (a driver's and its application's, under the driver's lock);
/// relaxed ordering suffices, as every pipe of one stream is driven by one
/// thread at a time.
#[derive(Clone, Debug, Default)]
pub struct SharedStream(Arc<Shared>);

#[derive(Debug, Default)]
struct Shared {
    base: AtomicU64,
    end: AtomicU64,
    closed: AtomicBool,
}

impl SharedStream {
    /// An empty, open stream.
    pub fn new() -> Self {
        SharedStream::default()
    }

    /// The application has written the stream up to `end` (a smaller
    /// value than before changes nothing, as does anything after
    /// [`SharedStream::close`]). The senders serve the pulls that waited
    /// for those bytes once told ([`RcpSender::stream_grew`](crate::rcp::RcpSender::stream_grew)).
    pub fn extend_to(&self, end: u64) {
        if !self.0.closed.load(Relaxed) {
            self.0.end.fetch_max(end, Relaxed);
        }
    }

    /// No byte past [`SharedStream::end`] will come.
    pub fn close(&self) {
        self.0.closed.store(true, Relaxed);
    }

    /// Offset one past the last byte written.
    pub fn end(&self) -> u64 {
        self.0.end.load(Relaxed)
    }
}

impl Source for SharedStream {
    fn base(&self) -> u64 {
        self.0.base.load(Relaxed)
    }
    fn end(&self) -> u64 {
        SharedStream::end(self)
    }
    fn is_closed(&self) -> bool {
        self.0.closed.load(Relaxed)
    }
    fn ack_to(&mut self, offset: u64) {
        let to = offset.min(self.end());
        self.0.base.fetch_max(to, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_send_buffer_grows_to_twice_the_reach_of_what_is_asked() {
        let mut b = SendBuffer::new(1000);
        // Asked within half of it: a receiver by span, which never asks
        // past its window, leaves a buffer of twice the window as it is.
        Source::reach(&mut b, 500);
        assert_eq!(b.capacity(), 1000);
        // Asked 700 bytes past its oldest: it keeps twice that.
        b.ack_to(100);
        assert_eq!(Source::base(&b), 100);
        Source::reach(&mut b, 800);
        assert_eq!(b.capacity(), 1400);
        assert_eq!(b.free(), 1400);
        // It never shrinks, and grows no further than Linux's largest.
        Source::reach(&mut b, 300);
        assert_eq!(b.capacity(), 1400);
        Source::reach(&mut b, u64::MAX);
        assert_eq!(b.capacity(), MAX_SEND_BUFFER);
        // A buffer made larger than that to begin with keeps its size.
        let mut big = SendBuffer::new(2 * MAX_SEND_BUFFER);
        Source::reach(&mut big, u64::MAX);
        assert_eq!(big.capacity(), 2 * MAX_SEND_BUFFER);
    }

    #[test]
    fn a_stored_stream_has_nothing_to_grow() {
        let mut s = StoredStream { len: 10 };
        Source::reach(&mut s, 1 << 40);
        assert_eq!((s.base(), s.end()), (0, 10));
    }
}
