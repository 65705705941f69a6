//! A connection's sending direction: the bytes the mux wrote, held until
//! the peer's receiver has them in order, and one RCP sender per path
//! serving them as the peer's R²CP receiver asks.

use std::collections::VecDeque;

use radial_core::rcp::{RcpConfig, RcpSender, SharedStream, Source};
use radial_core::wire::rcp::RcpHeader;
use radial_core::{Instant, PathId};

use crate::mux::Mux;

/// The sending direction of one connection.
#[derive(Debug)]
pub(super) struct Outbound {
    stream: SharedStream,
    /// The stream's bytes from `base` to its end.
    bytes: VecDeque<u8>,
    /// Stream offset of `bytes[0]`.
    base: u64,
    /// Most bytes held (written and not yet in order at the peer).
    limit: usize,
    /// The segment size the peer's receiver asks in.
    mss: u64,
    /// One sender per path, in the order the paths came.
    senders: Vec<RcpSender<SharedStream>>,
    /// Where the next [`Outbound::poll`] starts looking.
    turn: usize,
    /// No byte past what the mux has written will come.
    closing: bool,
    /// The RCP header of the datagram being made.
    header: Vec<u8>,
    /// Bytes of padding put in the sequence.
    padded: u64,
    /// When a segment the streams ran dry in, while a writer was
    /// backlogged, is padded if no byte has come to fill it.
    pad_at: Option<Instant>,
    /// How long such a segment waits (zero: not at all).
    pad_delay: radial_core::Duration,
}

/// How long a segment the streams ran dry in waits for a backlogged
/// writer's next bytes before it is padded, by default
/// ([`super::DuplexConfig::pad_delay`]): a writer woken for room writes
/// again within a thread's wake-up, far less than this, and a quiet
/// stream (whose writer is not backlogged) is padded at once.
pub const PAD_DELAY: radial_core::Duration = radial_core::Duration::from_millis(1);

impl Outbound {
    pub(super) fn new(limit: usize, mss: u64, pad_delay: radial_core::Duration) -> Self {
        Outbound {
            mss,
            stream: SharedStream::new(),
            bytes: VecDeque::new(),
            base: 0,
            limit,
            senders: Vec::new(),
            turn: 0,
            closing: false,
            header: Vec::new(),
            padded: 0,
            pad_at: None,
            pad_delay,
        }
    }

    /// A sender for `path`, answering the peer's pipe with `config` (its
    /// connection id among it).
    pub(super) fn add(&mut self, path: PathId, config: RcpConfig) {
        if self.index(path).is_none() {
            let s = RcpSender::shared(config, path, self.stream.clone());
            self.senders.push(s);
        }
    }

    /// The sender of `path` is gone; what it held unanswered the peer's
    /// receiver asks again of the others.
    pub(super) fn remove(&mut self, path: PathId) {
        if let Some(i) = self.index(path) {
            self.senders.remove(i);
        }
    }

    fn index(&self, path: PathId) -> Option<usize> {
        self.senders.iter().position(|s| s.path() == path)
    }

    /// Takes what the mux has to send, up to the limit, and tells the
    /// senders the stream grew. Closes the stream once asked to and the mux
    /// has nothing more.
    ///
    /// The peer's receiver asks for whole segments of a stream that is not
    /// closed (R²CP §4.3.1 numbers segments of one size), so a sequence
    /// that runs dry mid-segment is padded to the segment's end: otherwise
    /// the last bytes of a quiet stream would wait for the next write.
    /// While a stream's writer is backlogged the padding waits up to the
    /// pad delay ([`PAD_DELAY`]) for the writer to fill the segment
    /// instead: a bulk
    /// writer that falls behind for a moment would otherwise send up to a
    /// segment of zeros each time, which a metered link carries for
    /// nothing.
    pub(super) fn fill(&mut self, now: Instant, mux: &mut Mux) {
        self.purge();
        let before = (self.stream.end(), self.stream.is_closed());
        let mut dry = false;
        while !self.stream.is_closed() {
            let room = self.limit.saturating_sub(self.bytes.len());
            if room == 0 {
                break;
            }
            // Straight into the held bytes: no copy between.
            if mux.poll_transmit(room, &mut self.bytes) == 0 {
                dry = true;
                break;
            }
        }
        let end = self.base + self.bytes.len() as u64;
        let cut = end % self.mss;
        if dry && cut != 0 && !self.stream.is_closed() {
            let wait = *self.pad_at.get_or_insert(now + self.pad_delay);
            if now >= wait || !mux.backlogged() {
                let pad = usize::try_from(self.mss - cut).expect("below a segment");
                self.bytes.extend(std::iter::repeat_n(0, pad));
                self.padded += pad as u64;
                self.pad_at = None;
                mux.quiet();
            }
        } else {
            self.pad_at = None;
        }
        self.stream.extend_to(self.base + self.bytes.len() as u64);
        // The sequence ends once every stream has ended both ways: until
        // then a stream may still send, or owe its peer a CREDIT.
        if self.closing && mux.open_streams() == 0 && !mux.wants_transmit() {
            self.stream.close();
        }
        if (self.stream.end(), self.stream.is_closed()) != before {
            for s in &mut self.senders {
                s.stream_grew();
            }
        }
    }

    /// Drops what the peer holds in order (SEG.DEQ on any pipe).
    fn purge(&mut self) {
        let base = Source::base(&self.stream);
        let n = usize::try_from(base - self.base).unwrap_or(usize::MAX);
        self.bytes.drain(..n.min(self.bytes.len()));
        self.base = base;
    }

    /// No more streams' bytes: the connection's sequence ends after what
    /// the mux still has.
    pub(super) fn close(&mut self) {
        self.closing = true;
    }

    /// The application asked to close.
    pub(super) fn is_closing(&self) -> bool {
        self.closing
    }

    /// The peer's receiver holds every byte of a closed sequence.
    pub(super) fn done(&self) -> bool {
        self.stream.is_closed() && Source::base(&self.stream) == self.stream.end()
    }

    /// Bytes of padding put in the sequence so far.
    pub(super) fn padded(&self) -> u64 {
        self.padded
    }

    /// Bytes written and not yet in order at the peer.
    pub(super) fn held(&self) -> usize {
        self.bytes.len()
    }

    /// A datagram from the peer's receiver arrived on `path`.
    pub(super) fn on_header(&mut self, now: Instant, path: PathId, h: &RcpHeader) {
        if let Some(i) = self.index(path) {
            self.senders[i].on_header(now, h);
        }
    }

    /// The next datagram, header and payload, appended to `buf`, taking
    /// the paths in turn.
    pub(super) fn poll(&mut self, now: Instant, buf: &mut Vec<u8>) -> Option<PathId> {
        self.purge();
        let n = self.senders.len();
        for k in 0..n {
            let i = (self.turn + k) % n;
            let Some(seg) = self.senders[i].poll_segment(now, &mut self.header) else {
                continue;
            };
            buf.extend_from_slice(&self.header);
            self.turn = (i + 1) % n;
            if seg.len == 0 {
                return Some(seg.path);
            }
            let from = usize::try_from(seg.offset - self.base).expect("held");
            let (a, b) = self.bytes.as_slices();
            let to = from + seg.len;
            if from < a.len() {
                buf.extend_from_slice(&a[from..to.min(a.len())]);
            }
            if to > a.len() {
                buf.extend_from_slice(&b[from.saturating_sub(a.len())..to - a.len()]);
            }
            return Some(seg.path);
        }
        None
    }

    pub(super) fn next_timeout(&self) -> Option<Instant> {
        self.senders
            .iter()
            .filter_map(RcpSender::next_timeout)
            .chain(self.pad_at)
            .min()
    }

    pub(super) fn on_timeout(&mut self, now: Instant) {
        for s in &mut self.senders {
            if s.next_timeout().is_some_and(|t| t <= now) {
                s.on_timeout(now);
            }
        }
    }
}
