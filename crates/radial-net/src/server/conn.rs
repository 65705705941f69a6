//! What the server keeps per client connection: the keys of its handshake,
//! the file it asked for, and its paths, each with its own packet numbers,
//! replay window, address validation and (once it opens one) RCP pipe.

use std::collections::HashMap;
use std::fs::File;
use std::net::SocketAddr;
use std::sync::Arc;

use radial_core::Instant;

use super::pipes::{PathAuth, Pipe};
use crate::crypto::{Keys, ReplayWindow};

/// A file a session serves.
pub struct Offer {
    /// The path asked for, for the log.
    pub name: String,
    /// The file, shared by every session serving it.
    pub file: Arc<File>,
    /// Its size.
    pub size: u64,
    /// Its SHA-256.
    pub sha256: [u8; 32],
    /// Its identity when it was offered: a file that no longer has it
    /// changed under the transfer.
    pub id: super::FileId,
}

/// The transfer a connection asked for.
pub struct Session {
    /// The file.
    pub offer: Arc<Offer>,
    /// The client's connection number (the low 16 bits of its pipes' RCP
    /// connection ids).
    pub conn: u16,
    /// Payload bytes per segment the client's receiver asks in.
    pub segment: u64,
    /// When the GET was answered.
    pub started: Instant,
    /// Pipes opened so far.
    pub opened: u32,
    /// The client closed a pipe after the last byte.
    pub completed: bool,
}

/// One path of a connection: where its datagrams come from and go to.
pub struct Path {
    /// The listening socket it uses.
    pub socket: usize,
    /// The client's address on it.
    pub peer: SocketAddr,
    /// Packet numbers received on it.
    pub replay: ReplayWindow,
    /// The next packet number to send on it.
    pub pn: u64,
    /// Its address validation and byte counts.
    pub auth: PathAuth,
    /// Its pipe, once the client opened one.
    pub pipe: Option<Pipe>,
}

/// One client connection.
pub struct Conn {
    /// The handshake's keys.
    pub keys: Keys,
    /// Where the HELLO came from, and its tag (a repeated HELLO gets the
    /// same reply).
    pub hello: (SocketAddr, [u8; 8]),
    /// The HELLO carried a valid retry token: its address receives.
    pub proven: bool,
    /// The handshake's reply, kept until the client proves it has the keys.
    pub reply: Option<Vec<u8>>,
    /// The transfer, once asked for.
    pub session: Option<Session>,
    /// The stream connection, once asked for (instead of a transfer).
    pub streams: Option<super::streams::StreamConn>,
    /// Paths by number.
    pub paths: HashMap<u16, Path>,
    /// When anything authentic last arrived.
    pub last_active: Instant,
    /// Every packet number the server sent on a path it has since
    /// forgotten is below this: a path made again under the same number
    /// starts here, so no (path, packet number) nonce is ever used twice
    /// under the connection's key.
    pub pn_floor: u64,
}

impl Conn {
    /// True until an authentic sealed datagram shows the client holds the
    /// keys.
    pub fn half_open(&self) -> bool {
        self.reply.is_some()
    }

    /// Live pipes.
    pub fn pipes(&self) -> usize {
        self.paths.values().filter(|p| p.pipe.is_some()).count()
    }
}
