//! Byte streams both ways between a host and a server, over every path
//! the host has: the application's side of a [`Duplex`] that a driver
//! thread (the host's) or the server's event loop runs.
//!
//! A [`Connection`] opens and accepts [`Stream`]s; a stream is a
//! `std::io::Read` + `std::io::Write` that blocks until it can move a
//! byte. Either side opens streams; each has its own flow control, and
//! the streams of a connection share its paths in turns. The host
//! connects with [`connect`] under the same trust model as a download
//! (every datagram sealed, the server's key pinned or trusted on first
//! use); a server hands the connections its clients open to the
//! application ([`crate::server::ServerOptions::streams`]).
//!
//! ```no_run
//! use std::io::{Read, Write};
//! use radial_net::stream::{connect, ConnectConfig};
//! use radial_net::{PathConfig, Trust};
//!
//! let server = "192.0.2.1:7000".parse().unwrap();
//! let paths = [PathConfig { via: "0.0.0.0:0".parse().unwrap(), to: server }];
//! let conn = connect(&ConnectConfig::new(&paths, Trust::Any)).unwrap();
//! let mut s = conn.open_stream().unwrap();
//! s.write_all(b"hello").unwrap();
//! s.finish().unwrap();
//! let mut back = Vec::new();
//! s.read_to_end(&mut back).unwrap();
//! ```

#[cfg(feature = "tokio")]
mod async_io;
mod client;

use std::fmt;
use std::io;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use crate::duplex::{Duplex, DuplexError};
use crate::mux::{StreamError, StreamId};

pub use client::{connect, ConnectConfig};

/// Why a connection ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConnectionError {
    /// This side closed it.
    Closed,
    /// The peer broke the stream framing.
    Protocol(DuplexError),
    /// The server ended it, saying why.
    Refused(String),
    /// Nothing came on any path for this long, in seconds.
    TimedOut(u64),
    /// The sockets failed.
    Io(io::ErrorKind),
}

impl fmt::Display for ConnectionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConnectionError::Closed => write!(f, "the connection was closed"),
            ConnectionError::Protocol(e) => write!(f, "the peer broke the protocol: {e}"),
            ConnectionError::Refused(m) => write!(f, "the server ended the connection: {m}"),
            ConnectionError::TimedOut(s) => write!(f, "nothing heard on any path for {s} s"),
            ConnectionError::Io(k) => write!(f, "socket error: {k}"),
        }
    }
}

impl std::error::Error for ConnectionError {}

impl From<ConnectionError> for io::Error {
    fn from(e: ConnectionError) -> io::Error {
        let kind = match &e {
            ConnectionError::Closed => io::ErrorKind::NotConnected,
            ConnectionError::TimedOut(_) => io::ErrorKind::TimedOut,
            ConnectionError::Io(k) => *k,
            _ => io::ErrorKind::ConnectionAborted,
        };
        io::Error::new(kind, e)
    }
}

/// What the application and the driver share: the connection's state
/// under one lock, a condition for each kind of blocked call, and a way
/// to wake the driver after the application changed something.
///
/// After every turn the driver signals a condition only when a thread
/// waits on it and what it waits for came (bytes or the end for a reader,
/// room for a writer, a stream for an acceptor, or the connection's end):
/// a turn that changes nothing a thread waits for costs no system call
/// and no hand-off between threads.
pub(crate) struct Shared {
    state: Mutex<State>,
    readable: Condvar,
    writable: Condvar,
    acceptable: Condvar,
    wake: Box<dyn Fn() + Send + Sync>,
}

/// The threads blocked on a connection, and what for.
#[derive(Default)]
struct Waiting {
    /// The streams blocked readers read (one entry per reader).
    readers: Vec<StreamId>,
    /// The streams blocked writers write.
    writers: Vec<StreamId>,
    /// Threads blocked accepting a stream.
    acceptors: usize,
}

/// Which condition a blocked call waits on.
#[derive(Clone, Copy)]
enum Blocked {
    Read(StreamId),
    Write(StreamId),
    Accept,
}

/// The connection, as the driver and the application see it.
pub(crate) struct State {
    /// Both directions and the streams.
    pub duplex: Duplex,
    /// Why it ended, once it did.
    pub ended: Option<ConnectionError>,
    /// Tasks waiting for the next turn (asynchronous reads and writes).
    wakers: Vec<std::task::Waker>,
    /// Threads blocked in reads, writes and accepts.
    waiting: Waiting,
    /// Paths the application asked to add or drop, for the driver.
    pub changes: Vec<PathChange>,
    /// The number the next path added gets (a host's paths are numbered
    /// in the order they came).
    pub next_path: u16,
}

/// A change to a host's paths the application asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PathChange {
    /// Open a path.
    Add(crate::client::PathConfig),
    /// Close the path with this number.
    Drop(u16),
}

impl State {
    /// Wakes `w` after the driver's next turn.
    #[cfg_attr(not(feature = "tokio"), allow(dead_code))]
    fn wake_later(&mut self, w: &std::task::Waker) {
        if !self.wakers.iter().any(|x| x.will_wake(w)) {
            self.wakers.push(w.clone());
        }
    }
}

impl Shared {
    /// A connection over `duplex`, whose driver `wake` wakes.
    pub(crate) fn new(duplex: Duplex, wake: impl Fn() + Send + Sync + 'static) -> Arc<Shared> {
        Arc::new(Shared {
            state: Mutex::new(State {
                duplex,
                ended: None,
                wakers: Vec::new(),
                waiting: Waiting::default(),
                changes: Vec::new(),
                next_path: 0,
            }),
            readable: Condvar::new(),
            writable: Condvar::new(),
            acceptable: Condvar::new(),
            wake: Box::new(wake),
        })
    }

    /// The state, locked.
    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The driver's turn is over: blocked readers, writers and acceptors
    /// whose wait is over look again, and every waiting task is woken.
    pub(crate) fn notify(&self) {
        let mut g = self.lock();
        let wakers = std::mem::take(&mut g.wakers);
        let State {
            duplex,
            ended,
            waiting,
            ..
        } = &mut *g;
        let over = ended.is_some();
        let mux = duplex.streams();
        let readers = !waiting.readers.is_empty()
            && (over || waiting.readers.iter().any(|&id| mux.read_ready(id)));
        let writers = !waiting.writers.is_empty()
            && (over || waiting.writers.iter().any(|&id| mux.write_ready(id)));
        let acceptors = waiting.acceptors > 0 && (over || mux.acceptable() || duplex.peer_closed());
        drop(g);
        if readers {
            self.readable.notify_all();
        }
        if writers {
            self.writable.notify_all();
        }
        if acceptors {
            self.acceptable.notify_all();
        }
        for w in wakers {
            w.wake();
        }
    }

    /// Blocks on `why` until a turn of the driver may have ended the wait
    /// (the caller looks again).
    fn wait<'a>(&self, mut g: MutexGuard<'a, State>, why: Blocked) -> MutexGuard<'a, State> {
        let cond = match why {
            Blocked::Read(id) => {
                g.waiting.readers.push(id);
                &self.readable
            }
            Blocked::Write(id) => {
                g.waiting.writers.push(id);
                &self.writable
            }
            Blocked::Accept => {
                g.waiting.acceptors += 1;
                &self.acceptable
            }
        };
        let mut g = cond.wait(g).unwrap_or_else(|e| e.into_inner());
        let w = &mut g.waiting;
        match why {
            Blocked::Read(id) => forget_one(&mut w.readers, id),
            Blocked::Write(id) => forget_one(&mut w.writers, id),
            Blocked::Accept => w.acceptors -= 1,
        }
        g
    }
}

/// Removes one `id` from `list`.
fn forget_one(list: &mut Vec<StreamId>, id: StreamId) {
    if let Some(i) = list.iter().position(|&x| x == id) {
        list.swap_remove(i);
    }
}

/// A connection between a host and a server: open and accept streams
/// here. Clones share the connection; it closes when [`Connection::close`]
/// is called or when every clone and stream is dropped.
#[derive(Clone)]
pub struct Connection {
    shared: Arc<Shared>,
    first_contact: Option<[u8; 32]>,
    client: Option<[u8; 32]>,
}

impl fmt::Debug for Connection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Connection").finish_non_exhaustive()
    }
}

impl Connection {
    pub(crate) fn new(
        shared: Arc<Shared>,
        first_contact: Option<[u8; 32]>,
        client: Option<[u8; 32]>,
    ) -> Connection {
        Connection {
            shared,
            first_contact,
            client,
        }
    }

    /// On a server: the client's key, when it proved one.
    pub fn client_key(&self) -> Option<[u8; 32]> {
        self.client
    }

    /// The server's key, when this connection recorded it as trusted (the
    /// first contact under [`crate::Trust::KnownServers`]).
    pub fn first_contact(&self) -> Option<[u8; 32]> {
        self.first_contact
    }

    /// Opens a stream; the peer learns of it with its first bytes.
    pub fn open_stream(&self) -> Result<Stream, ConnectionError> {
        let mut g = self.shared.lock();
        if let Some(e) = &g.ended {
            return Err(e.clone());
        }
        if g.duplex.is_closing() || g.duplex.peer_closed() {
            return Err(ConnectionError::Closed);
        }
        let id = g
            .duplex
            .streams()
            .open()
            .ok_or_else(|| ConnectionError::Refused("stream numbers used up".into()))?;
        Ok(Stream::new(id, self.shared.clone()))
    }

    /// Waits for the next stream the peer opens.
    pub fn accept_stream(&self) -> Result<Stream, ConnectionError> {
        let mut g = self.shared.lock();
        loop {
            if let Some(id) = g.duplex.streams().accept() {
                return Ok(Stream::new(id, self.shared.clone()));
            }
            if let Some(e) = &g.ended {
                return Err(e.clone());
            }
            // The peer closed: it opens no more.
            if g.duplex.peer_closed() {
                return Err(ConnectionError::Closed);
            }
            g = self.shared.wait(g, Blocked::Accept);
        }
    }

    /// On a host: opens another path (a local address that came up, or
    /// another of the server's addresses); it joins as the first ones did
    /// and takes its share once the server accepts it. Returns its number.
    pub fn add_path(&self, path: crate::client::PathConfig) -> u16 {
        let mut g = self.shared.lock();
        let n = g.next_path;
        g.next_path += 1;
        g.changes.push(PathChange::Add(path));
        drop(g);
        (self.shared.wake)();
        n
    }

    /// On a host: closes path number `path` (its interface went away):
    /// what its pipes had outstanding is asked for again on the others.
    pub fn drop_path(&self, path: u16) {
        self.shared.lock().changes.push(PathChange::Drop(path));
        (self.shared.wake)();
    }

    /// Ends the connection once every stream has sent what it holds.
    pub fn close(&self) {
        self.shared.lock().duplex.close();
        (self.shared.wake)();
    }

    /// Why the connection ended, if it did.
    pub fn ended(&self) -> Option<ConnectionError> {
        self.shared.lock().ended.clone()
    }

    /// Bytes of the incoming sequence delivered so far.
    pub fn received(&self) -> u64 {
        self.shared.lock().duplex.stats().received
    }

    /// Bytes of padding this side has sent so far: the rest of a segment
    /// each time its streams ran dry in one.
    pub fn padded(&self) -> u64 {
        self.shared.lock().duplex.stats().padded
    }
}

/// One stream of a connection: bytes in order both ways, blocking. Split
/// it ([`Stream::split`]) to read and write from two threads.
///
/// Dropping a stream finishes its sending half if it was not finished,
/// and drops the peer's bytes not read (see [`RecvStream`]); to abandon
/// it both ways at once, [`Stream::reset`] it.
#[derive(Debug)]
pub struct Stream {
    recv: RecvStream,
    send: SendStream,
}

/// The receiving half of a [`Stream`]. Dropped before the end, it reads
/// nothing more: the peer's further bytes are dropped as they come, and
/// the sending half goes on.
pub struct RecvStream {
    id: StreamId,
    shared: Arc<Shared>,
    read_to_end: bool,
}

/// The sending half of a [`Stream`]. Dropped, it finishes the stream's
/// sending half.
pub struct SendStream {
    id: StreamId,
    shared: Arc<Shared>,
    finished: bool,
}

impl fmt::Debug for RecvStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RecvStream({})", self.id.0)
    }
}

impl fmt::Debug for SendStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SendStream({})", self.id.0)
    }
}

fn stream_error(e: StreamError) -> io::Error {
    let kind = match e {
        StreamError::Reset(_) => io::ErrorKind::ConnectionReset,
        _ => io::ErrorKind::BrokenPipe,
    };
    io::Error::new(kind, e)
}

impl Stream {
    fn new(id: StreamId, shared: Arc<Shared>) -> Stream {
        Stream {
            recv: RecvStream {
                id,
                shared: shared.clone(),
                read_to_end: false,
            },
            send: SendStream {
                id,
                shared,
                finished: false,
            },
        }
    }

    /// The stream's number on its connection.
    pub fn id(&self) -> u32 {
        self.send.id.0
    }

    /// Ends the sending half after what was written; the peer reads to
    /// its end.
    pub fn finish(&mut self) -> io::Result<()> {
        self.send.finish()
    }

    /// Abandons the stream both ways with `code`.
    pub fn reset(&mut self, code: u32) {
        self.send.finished = true;
        self.recv.reset(code);
    }

    /// The two halves, to read and write from different threads.
    pub fn split(self) -> (RecvStream, SendStream) {
        (self.recv, self.send)
    }
}

impl SendStream {
    /// The stream's number on its connection.
    pub fn id(&self) -> u32 {
        self.id.0
    }

    /// Abandons the stream both ways with `code`: the peer's reads and
    /// writes on it fail, and what this half had not sent is dropped.
    pub fn reset(&mut self, code: u32) {
        self.finished = true;
        self.shared.lock().duplex.streams().reset(self.id, code);
        (self.shared.wake)();
    }

    /// Ends the sending half after what was written; the peer reads to
    /// its end.
    pub fn finish(&mut self) -> io::Result<()> {
        if !self.finished {
            self.finished = true;
            self.shared
                .lock()
                .duplex
                .streams()
                .finish(self.id)
                .map_err(stream_error)?;
            (self.shared.wake)();
        }
        Ok(())
    }
}

impl RecvStream {
    /// The stream's number on its connection.
    pub fn id(&self) -> u32 {
        self.id.0
    }

    /// Abandons the stream both ways with `code`.
    pub fn reset(&mut self, code: u32) {
        self.read_to_end = true;
        self.shared.lock().duplex.streams().reset(self.id, code);
        (self.shared.wake)();
    }
}

impl RecvStream {
    /// Reads what is there into `buf` under the lock `g`; `None` when
    /// nothing is there yet (the caller waits for the driver's turn).
    fn try_read(&mut self, g: &mut State, buf: &mut [u8]) -> Option<io::Result<usize>> {
        if buf.is_empty() || self.read_to_end {
            return Some(Ok(0));
        }
        match g.duplex.streams().read(self.id, buf) {
            Ok(Some(n)) => {
                self.read_to_end = n == 0;
                if g.duplex.wants_turn() {
                    (self.shared.wake)();
                }
                Some(Ok(n))
            }
            Ok(None) => g.ended.as_ref().map(|e| Err(e.clone().into())),
            Err(e) => Some(Err(stream_error(e))),
        }
    }
}

impl SendStream {
    /// Writes what fits of `buf` under the lock `g`; `None` when nothing
    /// fits yet (the caller waits for the driver's turn).
    fn try_write(&mut self, g: &mut State, buf: &[u8]) -> Option<io::Result<usize>> {
        if buf.is_empty() {
            return Some(Ok(0));
        }
        if let Some(e) = &g.ended {
            return Some(Err(e.clone().into()));
        }
        match g.duplex.streams().write(self.id, buf) {
            Ok(0) => None,
            Ok(n) => {
                (self.shared.wake)();
                Some(Ok(n))
            }
            Err(e) => Some(Err(stream_error(e))),
        }
    }
}

impl io::Read for RecvStream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let shared = self.shared.clone();
        let mut g = shared.lock();
        loop {
            if let Some(r) = self.try_read(&mut g, buf) {
                return r;
            }
            g = shared.wait(g, Blocked::Read(self.id));
        }
    }
}

impl io::Write for SendStream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let shared = self.shared.clone();
        let mut g = shared.lock();
        loop {
            if let Some(r) = self.try_write(&mut g, buf) {
                return r;
            }
            g = shared.wait(g, Blocked::Write(self.id));
        }
    }

    /// The bytes written are the connection's to deliver already: nothing
    /// to do.
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl io::Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.recv.read(buf)
    }
}

impl io::Write for Stream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.send.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Drop for RecvStream {
    fn drop(&mut self) {
        if !self.read_to_end {
            self.shared.lock().duplex.streams().stop_reading(self.id);
            (self.shared.wake)();
        }
    }
}

impl Drop for SendStream {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}
