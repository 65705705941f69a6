//! Many byte streams over one connection, sans-IO.
//!
//! A connection carries one ordered, reliable byte sequence each way (the
//! downlink an R²CP receiver at the host pulls, the uplink one at the
//! server pulls). The mux cuts the streams' bytes into frames on that
//! sequence ([`frame`]) and takes them apart at the other end:
//!
//! - **Either side opens streams**: the host's are numbered 0, 2, 4, …, the
//!   server's 1, 3, 5, … (as QUIC does); a stream opens with its first
//!   frame, and the receiving side accepts it ([`Mux::accept`]), or refuses
//!   it with a RESET when it already holds [`MuxConfig::max_streams`] the
//!   peer opened.
//! - **Flow control per stream**: a stream's receiver lets its sender send
//!   [`MuxConfig::window`] bytes past what the application has read, and
//!   raises the limit (CREDIT) as the application reads. A stream whose
//!   reader does not read stops only itself; what the mux holds is bounded
//!   by the streams' windows and send buffers.
//! - **Fair shares**: [`Mux::poll_transmit`] serves the streams that have
//!   bytes and credit in turn, one frame each (at most
//!   [`frame::MAX_PAYLOAD`] bytes), so backlogged streams share the
//!   connection equally.
//! - **Ends**: [`Mux::finish`] ends a stream's sending half after its
//!   buffered bytes (the peer's reads then return 0); [`Mux::reset`]
//!   abandons a stream both ways at once, and the peer's next read or write
//!   on it says so with the reset's code.
//!
//! Protocol violations (a frame that does not parse, bytes past the credit
//! given, a stream number the peer may not use) end the connection with a
//! [`MuxError`] naming the stream and what was wrong.

pub mod frame;

use std::collections::{BTreeMap, VecDeque};
use std::fmt;
use std::ops::Bound;

/// Where [`Mux::poll_transmit`] appends the outgoing sequence: a `Vec`, or
/// a connection's own queue of it, written without a copy in between.
pub trait Sink {
    /// Bytes held.
    fn len(&self) -> usize;
    /// Nothing held.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Appends `bytes`.
    fn put(&mut self, bytes: &[u8]);
}

impl Sink for Vec<u8> {
    fn len(&self) -> usize {
        Vec::len(self)
    }
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

impl Sink for VecDeque<u8> {
    fn len(&self) -> usize {
        VecDeque::len(self)
    }
    fn put(&mut self, bytes: &[u8]) {
        self.extend(bytes);
    }
}

pub use frame::{Frame, FrameError, FrameRef, MAX_FRAME, MAX_PAYLOAD};

/// Which end of the connection a mux is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The mobile host: opens even-numbered streams.
    Host,
    /// The server: opens odd-numbered streams.
    Server,
}

impl Side {
    fn first_id(self) -> u32 {
        match self {
            Side::Host => 0,
            Side::Server => 1,
        }
    }
}

/// A stream's number on its connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct StreamId(pub u32);

impl fmt::Display for StreamId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "stream {}", self.0)
    }
}

/// Credit every stream starts with both ways, before any CREDIT: the
/// peer's configured window is not known until its first CREDIT.
pub const INITIAL_CREDIT: u64 = 64 * 1024;

/// Most RESET frames waiting to be sent: each refusal of a stream past
/// [`MuxConfig::max_streams`] queues one, and a peer may not make the
/// queue grow past this.
pub const MAX_RESETS: usize = 1024;

/// Reset codes the mux itself uses; applications may use others.
pub mod reset_code {
    /// The receiver already holds as many streams as it accepts.
    pub const REFUSED: u32 = 1;
    /// The application abandoned the stream.
    pub const CANCELLED: u32 = 2;
}

/// A mux's limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MuxConfig {
    /// Bytes a stream's sender may send past what the receiving application
    /// has read, at first (at least [`INITIAL_CREDIT`]; a smaller value
    /// counts as it).
    pub window: u64,
    /// The most a stream's window grows to: it doubles whenever the peer
    /// had sent all the credit allowed by the time the next was due (the
    /// window, not the path or the reader, held the stream back). At most
    /// `window` keeps every window fixed.
    pub max_window: u64,
    /// Bytes a stream holds written and not yet sent.
    pub send_buffer: usize,
    /// Streams the peer may hold open at once; further ones are refused.
    pub max_streams: usize,
}

impl Default for MuxConfig {
    fn default() -> Self {
        MuxConfig {
            window: 1024 * 1024,
            max_window: 1024 * 1024,
            send_buffer: 256 * 1024,
            max_streams: 256,
        }
    }
}

/// Why the connection's streams cannot go on (the connection ends).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MuxError {
    /// Bytes that are not a frame.
    Frame(FrameError),
    /// The peer sent past the credit it was given on this stream.
    FlowControl {
        /// The stream.
        stream: u32,
    },
    /// The peer used a stream number of ours that we never opened.
    UnopenedStream {
        /// The stream.
        stream: u32,
    },
    /// The peer sent bytes on a stream after ending it.
    DataAfterFin {
        /// The stream.
        stream: u32,
    },
    /// The peer opened this stream with [`MAX_RESETS`] refusals of its
    /// earlier ones still waiting to be sent.
    TooManyStreams {
        /// The stream.
        stream: u32,
    },
}

impl fmt::Display for MuxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MuxError::Frame(e) => write!(f, "{e}"),
            MuxError::FlowControl { stream } => {
                write!(f, "stream {stream}: the peer sent past its credit")
            }
            MuxError::UnopenedStream { stream } => {
                write!(
                    f,
                    "stream {stream}: the peer used a stream number we never opened"
                )
            }
            MuxError::DataAfterFin { stream } => {
                write!(f, "stream {stream}: the peer sent bytes after ending it")
            }
            MuxError::TooManyStreams { stream } => write!(
                f,
                "stream {stream}: the peer keeps opening streams past its limit"
            ),
        }
    }
}

impl std::error::Error for MuxError {}

/// Why an operation on one stream failed (the connection goes on).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamError {
    /// No such stream: never opened, or closed and forgotten.
    Unknown,
    /// The peer reset the stream, with this code.
    Reset(u32),
    /// The stream's sending half was finished: nothing more can be written.
    Finished,
}

impl fmt::Display for StreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StreamError::Unknown => f.write_str("no such stream"),
            StreamError::Reset(code) => write!(f, "the peer reset the stream (code {code})"),
            StreamError::Finished => f.write_str("the stream's sending half is finished"),
        }
    }
}

impl std::error::Error for StreamError {}

/// One stream's two halves.
#[derive(Debug, Default)]
struct Stream {
    /// Written, not yet sent.
    queue: VecDeque<u8>,
    /// Bytes sent.
    sent: u64,
    /// The offset the peer lets us send up to.
    peer_limit: u64,
    /// The application finished the sending half.
    fin_wanted: bool,
    fin_sent: bool,
    /// Received, not yet read.
    recv: VecDeque<u8>,
    /// Bytes received.
    received: u64,
    /// Bytes the application read.
    read: u64,
    /// The offset we let the peer send up to.
    granted: u64,
    /// How far past what was read the next credit lets the peer send.
    window: u64,
    /// A CREDIT with `granted` is to be sent.
    credit_due: bool,
    fin_received: bool,
    /// The application read the end.
    eof_seen: bool,
    /// The application reads no more: what arrives is dropped as if read.
    discarding: bool,
    /// The peer reset the stream with this code.
    reset: Option<u32>,
    /// A write did not fit whole since the connection last padded its
    /// sequence: the application writes as fast as the connection takes,
    /// and writes again as soon as there is room.
    pressed: bool,
    /// Opened by the peer.
    remote: bool,
}

impl Stream {
    /// A stream whose receiving half grants `window`: beyond the initial
    /// credit, with a CREDIT at once.
    fn new(window: u64, remote: bool) -> Stream {
        Stream {
            peer_limit: INITIAL_CREDIT,
            granted: window.max(INITIAL_CREDIT),
            window: window.max(INITIAL_CREDIT),
            credit_due: window > INITIAL_CREDIT,
            remote,
            ..Stream::default()
        }
    }

    /// Bytes it could put in a frame now.
    fn sendable(&self) -> u64 {
        (self.queue.len() as u64).min(self.peer_limit.saturating_sub(self.sent))
    }

    /// Has a frame to send: bytes within credit, or its end.
    fn wants_frame(&self) -> bool {
        self.reset.is_none()
            && (self.sendable() > 0 || (self.fin_wanted && !self.fin_sent && self.queue.is_empty()))
    }

    fn done(&self) -> bool {
        self.fin_sent && self.eof_seen
    }

    /// Raises the credit once half the window is read: to what was read
    /// plus the window, doubled first (up to `max`) when the peer had
    /// sent every byte the last credit let it. A sender that used all its
    /// credit before the next was due waited for it, so the window, and
    /// not the path or this reader, set the stream's rate; the window
    /// grows until credit stays ahead of the sender (receive-window
    /// auto-tuning, as Linux grows a TCP socket's receive buffer to what
    /// its reader drains in a round trip and QUIC stacks grow their
    /// flow-control windows). A reader that stops reading raises no
    /// credit, so its window stays what it was.
    fn raise_credit(&mut self, max: u64) {
        if self.granted - self.read >= self.window / 2 {
            return;
        }
        if self.received >= self.granted {
            self.window = (self.window * 2).min(max).max(self.window);
        }
        self.granted = self.read + self.window;
        self.credit_due = true;
    }
}

/// One end of a connection's streams.
#[derive(Debug)]
pub struct Mux {
    side: Side,
    config: MuxConfig,
    streams: BTreeMap<u32, Stream>,
    /// The next stream number we open (past `u32::MAX`: none left).
    next_local: u64,
    /// The lowest stream number the peer has not used yet.
    next_peer: u64,
    accept_queue: VecDeque<u32>,
    resets: VecDeque<Frame>,
    /// The stream served last, where the next turn starts after.
    cursor: Option<u32>,
    /// The start of a frame not wholly received.
    partial: Vec<u8>,
    failed: Option<MuxError>,
}

impl Mux {
    /// The mux of `side`.
    pub fn new(side: Side, config: MuxConfig) -> Mux {
        let peer = match side {
            Side::Host => Side::Server,
            Side::Server => Side::Host,
        };
        Mux {
            side,
            config,
            streams: BTreeMap::new(),
            next_local: u64::from(side.first_id()),
            next_peer: u64::from(peer.first_id()),
            accept_queue: VecDeque::new(),
            resets: VecDeque::new(),
            cursor: None,
            partial: Vec::new(),
            failed: None,
        }
    }

    fn is_local(&self, id: u32) -> bool {
        id % 2 == self.side.first_id()
    }

    /// Opens a stream; the peer learns of it with its first frame. `None`
    /// once the connection's stream numbers are used up (2^31 each way).
    pub fn open(&mut self) -> Option<StreamId> {
        let id = u32::try_from(self.next_local).ok()?;
        self.next_local += 2;
        self.streams
            .insert(id, Stream::new(self.config.window, false));
        Some(StreamId(id))
    }

    /// The next stream the peer opened, not yet accepted.
    pub fn accept(&mut self) -> Option<StreamId> {
        self.accept_queue.pop_front().map(StreamId)
    }

    /// Streams open (not yet finished both ways or reset).
    pub fn open_streams(&self) -> usize {
        self.streams.len()
    }

    /// The stream `id`; a stream the peer reset is forgotten as the
    /// application learns of it.
    fn stream(&mut self, id: StreamId) -> Result<&mut Stream, StreamError> {
        let reset = self.streams.get(&id.0).ok_or(StreamError::Unknown)?.reset;
        if let Some(code) = reset {
            self.streams.remove(&id.0);
            return Err(StreamError::Reset(code));
        }
        Ok(self.streams.get_mut(&id.0).expect("present"))
    }

    /// Buffers what fits of `bytes` for `id`; returns how many (0 when its
    /// send buffer is full: [`Mux::poll_transmit`] makes room).
    pub fn write(&mut self, id: StreamId, bytes: &[u8]) -> Result<usize, StreamError> {
        let limit = self.config.send_buffer;
        let s = self.stream(id)?;
        if s.fin_wanted {
            return Err(StreamError::Finished);
        }
        let n = bytes.len().min(limit.saturating_sub(s.queue.len()));
        s.queue.extend(&bytes[..n]);
        s.pressed |= n < bytes.len();
        Ok(n)
    }

    /// Room in `id`'s send buffer.
    pub fn send_space(&self, id: StreamId) -> usize {
        self.streams
            .get(&id.0)
            .map_or(0, |s| self.config.send_buffer.saturating_sub(s.queue.len()))
    }

    /// Ends `id`'s sending half once its buffered bytes are sent.
    pub fn finish(&mut self, id: StreamId) -> Result<(), StreamError> {
        self.stream(id)?.fin_wanted = true;
        Ok(())
    }

    /// Abandons `id` both ways; the peer's next operation on it fails with
    /// `code`.
    pub fn reset(&mut self, id: StreamId, code: u32) {
        if self.streams.remove(&id.0).is_some() {
            self.resets.push_back(Frame::Reset { stream: id.0, code });
        }
    }

    /// The application reads nothing more of `id`: what it holds and what
    /// comes later is dropped as if read (the peer's credit keeps growing,
    /// so it can finish), while the sending half goes on. Unlike a reset,
    /// the bytes this side still has to send are not lost.
    pub fn stop_reading(&mut self, id: StreamId) {
        let Some(s) = self.streams.get_mut(&id.0) else {
            return;
        };
        s.discarding = true;
        s.read += s.recv.len() as u64;
        s.recv = VecDeque::new();
        s.granted = s.granted.max(s.read + s.window);
        s.credit_due = !s.fin_received;
        s.eof_seen |= s.fin_received;
        if s.done() {
            self.streams.remove(&id.0);
        }
    }

    /// Reads `id`'s bytes into `buf`: how many, 0 at the stream's end.
    /// `Ok(None)` when nothing is there yet.
    pub fn read(&mut self, id: StreamId, buf: &mut [u8]) -> Result<Option<usize>, StreamError> {
        let max = self.config.max_window;
        let s = self.stream(id)?;
        if s.recv.is_empty() {
            if !s.fin_received {
                return Ok(None);
            }
            s.eof_seen = true;
            if s.done() {
                self.streams.remove(&id.0);
            }
            return Ok(Some(0));
        }
        let n = buf.len().min(s.recv.len());
        let (a, b) = s.recv.as_slices();
        let from_a = n.min(a.len());
        buf[..from_a].copy_from_slice(&a[..from_a]);
        buf[from_a..n].copy_from_slice(&b[..n - from_a]);
        s.recv.drain(..n);
        s.read += n as u64;
        if !s.fin_received {
            s.raise_credit(max);
        }
        Ok(Some(n))
    }

    /// How far past what was read `id`'s next credit lets the peer send
    /// (its receive window, as auto-tuning left it).
    pub fn window(&self, id: StreamId) -> Option<u64> {
        self.streams.get(&id.0).map(|s| s.window)
    }

    /// A reader blocked on `id` should look again: it holds bytes, its
    /// end, or a reset, or it is gone (the read says which).
    pub fn read_ready(&self, id: StreamId) -> bool {
        self.streams
            .get(&id.0)
            .is_none_or(|s| !s.recv.is_empty() || s.fin_received || s.reset.is_some())
    }

    /// A writer blocked on `id` should look again: a third of its send
    /// buffer is free, or it takes no more bytes (finished, reset or
    /// gone; the write says which). Waking a writer for every frame sent
    /// would cost a thread hand-off per segment; as a TCP socket's writer
    /// wakes once the queue has drained well below its limit (Linux's
    /// `sk_stream_write_space`), it wakes to write in large pieces.
    pub fn write_ready(&self, id: StreamId) -> bool {
        let free = (self.config.send_buffer / 3).max(1);
        self.streams.get(&id.0).is_none_or(|s| {
            s.fin_wanted
                || s.reset.is_some()
                || self.config.send_buffer.saturating_sub(s.queue.len()) >= free
        })
    }

    /// A stream's writer is backlogged: a write of it did not fit whole
    /// since [`Mux::quiet`], and it has not finished, so more bytes are on
    /// their way as soon as there is room.
    pub fn backlogged(&self) -> bool {
        self.streams
            .values()
            .any(|s| s.pressed && !s.fin_wanted && s.reset.is_none())
    }

    /// The connection padded its sequence: every writer counts as quiet
    /// until a write does not fit whole again.
    pub fn quiet(&mut self) {
        for s in self.streams.values_mut() {
            s.pressed = false;
        }
    }

    /// A stream the peer opened waits to be accepted.
    pub fn acceptable(&self) -> bool {
        !self.accept_queue.is_empty()
    }

    /// Bytes held received and not yet read: every stream's, and the
    /// start of a frame not wholly received.
    pub fn buffered(&self) -> usize {
        self.partial.len() + self.streams.values().map(|s| s.recv.len()).sum::<usize>()
    }

    /// Bytes `id` holds received and not yet read.
    pub fn readable(&self, id: StreamId) -> usize {
        self.streams.get(&id.0).map_or(0, |s| s.recv.len())
    }

    /// True when [`Mux::poll_transmit`] has something to send.
    pub fn wants_transmit(&self) -> bool {
        !self.resets.is_empty()
            || self
                .streams
                .values()
                .any(|s| s.credit_due || s.wants_frame())
    }

    /// Appends frames to the outgoing sequence, at most `max` bytes: resets
    /// and credits first, then one DATA frame per stream in turn while any
    /// has bytes and credit. Returns the bytes appended.
    pub fn poll_transmit(&mut self, max: usize, out: &mut impl Sink) -> usize {
        let start = out.len();
        let room = |out: &dyn Sink| max - (out.len() - start);
        while let Some(f) = self.resets.front() {
            let mut b = Vec::new();
            f.emit(&mut b);
            if b.len() > room(out) {
                return out.len() - start;
            }
            out.put(&b);
            self.resets.pop_front();
        }
        for (&id, s) in &mut self.streams {
            if s.credit_due {
                let f = Frame::Credit {
                    stream: id,
                    limit: s.granted,
                };
                let mut b = Vec::new();
                f.emit(&mut b);
                if b.len() > room(out) {
                    return out.len() - start;
                }
                out.put(&b);
                s.credit_due = false;
            }
        }
        loop {
            // The first stream with a frame to send after the one served
            // last, round the table.
            let next = {
                let ready = |(&id, s): (&u32, &Stream)| s.wants_frame().then_some(id);
                let after = self.cursor.map_or(Bound::Unbounded, Bound::Excluded);
                self.streams
                    .range((after, Bound::Unbounded))
                    .find_map(ready)
                    .or_else(|| self.streams.iter().find_map(ready))
            };
            let Some(id) = next else { break };
            let left = room(out);
            if left < frame::DATA_HEADER {
                break;
            }
            let s = self.streams.get_mut(&id).expect("found above");
            let n = (s.sendable() as usize)
                .min(MAX_PAYLOAD)
                .min(left - frame::DATA_HEADER);
            let fin = s.fin_wanted && n == s.queue.len();
            if n == 0 && !fin {
                break;
            }
            out.put(&frame::data_header(id, n, fin));
            let (a, b) = s.queue.as_slices();
            let from_a = n.min(a.len());
            out.put(&a[..from_a]);
            out.put(&b[..n - from_a]);
            s.queue.drain(..n);
            s.sent += n as u64;
            s.fin_sent |= fin;
            self.cursor = Some(id);
            if s.done() {
                self.streams.remove(&id);
            }
        }
        out.len() - start
    }

    /// Takes the next bytes of the incoming sequence. After an error the
    /// connection must end; the same error comes back on every later call.
    pub fn on_bytes(&mut self, bytes: &[u8]) -> Result<(), MuxError> {
        let used = self.take_frames(bytes)?;
        // The rest is the start of one frame (shorter than [`MAX_FRAME`]):
        // keep it.
        self.partial.extend_from_slice(&bytes[used..]);
        Ok(())
    }

    /// Takes the frames `bytes` holds whole, where they lie, and returns
    /// how many bytes that was: what is left is the start of a frame,
    /// which the caller hands over again with the bytes that follow it
    /// (a connection's receiver keeps it until they come, so that a frame
    /// cut by a segment's end is not copied to be put together). A frame
    /// begun by an earlier [`Mux::on_bytes`] is completed first. After an
    /// error the connection must end; the same error comes back on every
    /// later call.
    pub fn take_frames(&mut self, mut bytes: &[u8]) -> Result<usize, MuxError> {
        if let Some(e) = self.failed {
            return Err(e);
        }
        let total = bytes.len();
        // Complete the frame begun in an earlier call: a byte at a time
        // until its header tells its length, then the rest.
        while !self.partial.is_empty() && !bytes.is_empty() {
            let want = match Frame::len_of(&self.partial) {
                Ok(Some(len)) => len,
                Ok(None) => self.partial.len() + 1,
                Err(e) => return Err(self.fail(MuxError::Frame(e))),
            };
            let n = (want - self.partial.len()).min(bytes.len());
            self.partial.extend_from_slice(&bytes[..n]);
            bytes = &bytes[n..];
            let mut partial = std::mem::take(&mut self.partial);
            let done = match Frame::parse_borrowed(&partial) {
                Ok(Some((f, _))) => {
                    self.on_frame(f).map_err(|e| self.fail(e))?;
                    true
                }
                Ok(None) => false,
                Err(e) => return Err(self.fail(MuxError::Frame(e))),
            };
            if done {
                partial.clear();
            }
            self.partial = partial;
        }
        if !self.partial.is_empty() {
            return Ok(total);
        }
        while !bytes.is_empty() {
            // A run of padding at once.
            bytes = &bytes[padding(bytes)..];
            if bytes.is_empty() {
                break;
            }
            match Frame::parse_borrowed(bytes) {
                Ok(Some((f, n))) => {
                    bytes = &bytes[n..];
                    self.on_frame(f).map_err(|e| self.fail(e))?;
                }
                Ok(None) => break,
                Err(e) => return Err(self.fail(MuxError::Frame(e))),
            }
        }
        Ok(total - bytes.len())
    }

    fn fail(&mut self, e: MuxError) -> MuxError {
        self.failed = Some(e);
        self.partial = Vec::new();
        e
    }

    fn on_frame(&mut self, f: FrameRef<'_>) -> Result<(), MuxError> {
        let id = match &f {
            FrameRef::Data { stream, .. }
            | FrameRef::Other(Frame::Credit { stream, .. })
            | FrameRef::Other(Frame::Reset { stream, .. }) => *stream,
            FrameRef::Other(Frame::Data { .. }) | FrameRef::Other(Frame::Padding) => return Ok(()),
        };
        if !self.streams.contains_key(&id) {
            if self.is_local(id) {
                if u64::from(id) >= self.next_local {
                    return Err(MuxError::UnopenedStream { stream: id });
                }
                // Ours, closed: what was in flight is moot.
                return Ok(());
            }
            if u64::from(id) < self.next_peer {
                // The peer's, closed or refused.
                return Ok(());
            }
            self.next_peer = u64::from(id) + 2;
            if matches!(f, FrameRef::Other(Frame::Reset { .. })) {
                return Ok(());
            }
            let held = self.streams.values().filter(|s| s.remote).count();
            if held >= self.config.max_streams {
                // A peer that keeps opening streams it was refused, faster
                // than the refusals leave, ends the connection rather than
                // growing their queue.
                if self.resets.len() >= MAX_RESETS {
                    return Err(MuxError::TooManyStreams { stream: id });
                }
                self.resets.push_back(Frame::Reset {
                    stream: id,
                    code: reset_code::REFUSED,
                });
                return Ok(());
            }
            self.streams
                .insert(id, Stream::new(self.config.window, true));
            self.accept_queue.push_back(id);
        }
        let s = self.streams.get_mut(&id).expect("present");
        match f {
            FrameRef::Data { payload, fin, .. } => {
                if s.fin_received {
                    return Err(MuxError::DataAfterFin { stream: id });
                }
                if s.received + payload.len() as u64 > s.granted {
                    return Err(MuxError::FlowControl { stream: id });
                }
                if s.discarding {
                    s.received += payload.len() as u64;
                    s.read = s.received;
                    s.raise_credit(self.config.max_window);
                    s.fin_received = fin;
                    s.eof_seen = fin;
                    if s.done() {
                        self.streams.remove(&id);
                    }
                } else if s.reset.is_none() {
                    s.received += payload.len() as u64;
                    s.recv.extend(payload);
                    s.fin_received = fin;
                }
            }
            FrameRef::Other(Frame::Credit { limit, .. }) => s.peer_limit = s.peer_limit.max(limit),
            FrameRef::Other(Frame::Reset { code, .. }) => {
                s.reset = Some(code);
                s.queue = VecDeque::new();
                s.recv = VecDeque::new();
            }
            FrameRef::Other(Frame::Data { .. }) | FrameRef::Other(Frame::Padding) => {}
        }
        Ok(())
    }
}

/// How many bytes of padding (zeros) `bytes` starts with, sixteen at a
/// time: a quiet stream's segments end in up to a segment of them.
fn padding(bytes: &[u8]) -> usize {
    let mut n = 0;
    for c in bytes.chunks_exact(16) {
        if u128::from_ne_bytes(c.try_into().expect("16 bytes")) != 0 {
            break;
        }
        n += 16;
    }
    n + bytes[n..].iter().take_while(|&&b| b == 0).count()
}

#[cfg(test)]
mod tests;
