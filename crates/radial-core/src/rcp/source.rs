//! Where an RCP sender's data lives ([`Source`]): a [`SendBuffer`] the
//! application writes into, a [`StoredStream`] the driver holds at rest (a
//! file), or a [`SharedStream`] several pipes' senders serve at once while
//! the application writes it.

use std::cell::Cell;
use std::rc::Rc;

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
}

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
#[derive(Clone, Debug, Default)]
pub struct SharedStream(Rc<Cell<Shared>>);

#[derive(Clone, Copy, Debug, Default)]
struct Shared {
    base: u64,
    end: u64,
    closed: bool,
}

impl SharedStream {
    /// An empty, open stream.
    pub fn new() -> Self {
        SharedStream::default()
    }

    fn update(&self, f: impl FnOnce(&mut Shared)) {
        let mut s = self.0.get();
        f(&mut s);
        self.0.set(s);
    }

    /// The application has written the stream up to `end` (a smaller
    /// value than before changes nothing, as does anything after
    /// [`SharedStream::close`]). The senders serve the pulls that waited
    /// for those bytes once told ([`RcpSender::stream_grew`](crate::rcp::RcpSender::stream_grew)).
    pub fn extend_to(&self, end: u64) {
        self.update(|s| {
            if !s.closed {
                s.end = s.end.max(end);
            }
        });
    }

    /// No byte past [`SharedStream::end`] will come.
    pub fn close(&self) {
        self.update(|s| s.closed = true);
    }

    /// Offset one past the last byte written.
    pub fn end(&self) -> u64 {
        self.0.get().end
    }
}

impl Source for SharedStream {
    fn base(&self) -> u64 {
        self.0.get().base
    }
    fn end(&self) -> u64 {
        SharedStream::end(self)
    }
    fn is_closed(&self) -> bool {
        self.0.get().closed
    }
    fn ack_to(&mut self, offset: u64) {
        self.update(|s| s.base = s.base.max(offset.min(s.end)));
    }
}
