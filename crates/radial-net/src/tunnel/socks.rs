//! The SOCKS5 front of the tunnel (RFC 1928), sans-IO: the bytes a local
//! program sends on its TCP connection go in, the bytes to send back come
//! out, and the handshake ends with the destination the program asked to
//! CONNECT to.
//!
//! Only what the tunnel offers is accepted: no authentication (method 0x00,
//! the proxy listens on the host's loopback), and the CONNECT command with
//! an IPv4 address, an IPv6 address or a domain name (which the tunnel's
//! server resolves, as `curl --socks5-hostname` expects). Anything else is
//! answered with the reply RFC 1928 §6 names for it and ends the
//! handshake. Input arrives in pieces of any size; the decoder never
//! panics, never holds more than one message (at most [`MAX_REQUEST`]
//! bytes), and names the field it rejects.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// The protocol version byte (RFC 1928 §3).
pub const VERSION: u8 = 5;
/// "NO AUTHENTICATION REQUIRED" (RFC 1928 §3).
pub const NO_AUTH: u8 = 0x00;
/// "NO ACCEPTABLE METHODS" (RFC 1928 §3).
pub const NO_ACCEPTABLE: u8 = 0xff;
/// Longest request: VER, CMD, RSV, ATYP, a 255-byte domain with its length
/// byte, and the port.
pub const MAX_REQUEST: usize = 4 + 1 + 255 + 2;

const CMD_CONNECT: u8 = 0x01;
const ATYP_V4: u8 = 0x01;
const ATYP_DOMAIN: u8 = 0x03;
const ATYP_V6: u8 = 0x04;

/// Why the bytes are not a SOCKS5 message the tunnel accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SocksError {
    /// The first byte is not 5: not a SOCKS5 client (a SOCKS4 client or
    /// something else entirely).
    Version(u8),
    /// The client offers no method the tunnel accepts (only "no
    /// authentication").
    NoAcceptableMethod,
    /// A command other than CONNECT (BIND, UDP ASSOCIATE, or unknown).
    Command(u8),
    /// An address type other than IPv4, domain name and IPv6.
    AddressType(u8),
    /// This field holds a value the format forbids.
    Invalid {
        /// The field's name as in RFC 1928.
        field: &'static str,
    },
}

impl SocksError {
    /// The reply RFC 1928 §6 gives for this refusal, if the handshake got
    /// as far as a request (a bad greeting has no reply but the method
    /// selection).
    pub fn reply(self) -> Option<Reply> {
        match self {
            SocksError::Command(_) => Some(Reply::CommandNotSupported),
            SocksError::AddressType(_) => Some(Reply::AddressTypeNotSupported),
            SocksError::Invalid { .. } => Some(Reply::GeneralFailure),
            SocksError::Version(_) | SocksError::NoAcceptableMethod => None,
        }
    }
}

impl fmt::Display for SocksError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SocksError::Version(v) => write!(f, "SOCKS: version {v}, not 5"),
            SocksError::NoAcceptableMethod => {
                write!(
                    f,
                    "SOCKS: the client offers no method but authentication (the tunnel takes none)"
                )
            }
            SocksError::Command(c) => {
                write!(f, "SOCKS: command {c:#04x} (only CONNECT is supported)")
            }
            SocksError::AddressType(a) => write!(f, "SOCKS: address type {a:#04x}"),
            SocksError::Invalid { field } => write!(f, "SOCKS: bad `{field}`"),
        }
    }
}

impl std::error::Error for SocksError {}

/// Where a program asked to be connected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Destination {
    /// An address and port.
    Addr(SocketAddr),
    /// A domain name (ASCII, as DNS carries it; the server resolves it) and
    /// a port.
    Domain {
        /// The name, 1 to 255 bytes of printable ASCII.
        host: String,
        /// The port.
        port: u16,
    },
}

impl Destination {
    /// The destination's port.
    pub fn port(&self) -> u16 {
        match self {
            Destination::Addr(a) => a.port(),
            Destination::Domain { port, .. } => *port,
        }
    }

    /// The CONNECT request a client sends for this destination (for tests
    /// and for clients of the tunnel); `None` for a domain name of more
    /// than 255 bytes, which SOCKS5 cannot carry.
    pub fn connect_request(&self) -> Option<Vec<u8>> {
        let mut b = vec![VERSION, CMD_CONNECT, 0];
        match self {
            Destination::Addr(a) => {
                put_addr(&mut b, *a);
                return Some(b);
            }
            Destination::Domain { host, port } => {
                let len = u8::try_from(host.len()).ok()?;
                b.push(ATYP_DOMAIN);
                b.push(len);
                b.extend_from_slice(host.as_bytes());
                b.extend_from_slice(&port.to_be_bytes());
            }
        }
        Some(b)
    }
}

impl fmt::Display for Destination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Destination::Addr(a) => write!(f, "{a}"),
            Destination::Domain { host, port } => write!(f, "{host}:{port}"),
        }
    }
}

/// The reply codes of RFC 1928 §6.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Reply {
    /// Succeeded.
    Succeeded = 0,
    /// General SOCKS server failure.
    GeneralFailure = 1,
    /// Connection not allowed by ruleset.
    NotAllowed = 2,
    /// Network unreachable.
    NetworkUnreachable = 3,
    /// Host unreachable (also: a name that does not resolve).
    HostUnreachable = 4,
    /// Connection refused.
    ConnectionRefused = 5,
    /// TTL expired (the tunnel uses it for a connection attempt that timed
    /// out).
    TtlExpired = 6,
    /// Command not supported.
    CommandNotSupported = 7,
    /// Address type not supported.
    AddressTypeNotSupported = 8,
}

impl Reply {
    /// The reply with this code, if RFC 1928 defines one.
    pub fn from_code(code: u8) -> Option<Reply> {
        Some(match code {
            0 => Reply::Succeeded,
            1 => Reply::GeneralFailure,
            2 => Reply::NotAllowed,
            3 => Reply::NetworkUnreachable,
            4 => Reply::HostUnreachable,
            5 => Reply::ConnectionRefused,
            6 => Reply::TtlExpired,
            7 => Reply::CommandNotSupported,
            8 => Reply::AddressTypeNotSupported,
            _ => return None,
        })
    }

    /// The reply message: VER, REP, RSV and the bound address (RFC 1928
    /// §6). A refusal carries the unspecified address.
    pub fn encode(self, bound: SocketAddr) -> Vec<u8> {
        let mut b = vec![VERSION, self as u8, 0];
        put_addr(&mut b, bound);
        b
    }
}

fn put_addr(b: &mut Vec<u8>, a: SocketAddr) {
    match a.ip() {
        IpAddr::V4(ip) => {
            b.push(ATYP_V4);
            b.extend_from_slice(&ip.octets());
        }
        IpAddr::V6(ip) => {
            b.push(ATYP_V6);
            b.extend_from_slice(&ip.octets());
        }
    }
    b.extend_from_slice(&a.port().to_be_bytes());
}

/// Where the handshake stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Greeting,
    Request,
    Done,
}

/// What [`Handshake::input`] came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Progress {
    /// More bytes are needed.
    More,
    /// The client asks to CONNECT here: the tunnel answers with
    /// [`Reply::encode`] once the connection is made or refused. Bytes the
    /// client sends after its request belong to the connection and are not
    /// read by the handshake.
    Connect(Destination),
}

/// The server side of one SOCKS5 handshake.
#[derive(Debug)]
pub struct Handshake {
    phase: Phase,
    /// The bytes of the message being read (at most [`MAX_REQUEST`]).
    buf: Vec<u8>,
    /// What to send the client.
    out: Vec<u8>,
}

impl Default for Handshake {
    fn default() -> Self {
        Handshake::new()
    }
}

impl Handshake {
    /// A handshake waiting for the client's greeting.
    pub fn new() -> Self {
        Handshake {
            phase: Phase::Greeting,
            buf: Vec::new(),
            out: Vec::new(),
        }
    }

    /// A handshake past its greeting, reading a CONNECT request alone: the
    /// tunnel's server reads the request its host's SOCKS front passed on
    /// at the start of a stream.
    pub fn at_request() -> Self {
        Handshake {
            phase: Phase::Request,
            buf: Vec::new(),
            out: Vec::new(),
        }
    }

    /// Bytes to send the client now (the method selection, or the reply to
    /// a refused greeting or request); the caller sends them all.
    pub fn take_output(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.out)
    }

    /// Reads the client's bytes; returns what they came to and how many
    /// of them the handshake read. Bytes after the request are not read:
    /// they are the connection's first payload, for the caller to keep.
    /// After an error the caller sends [`Handshake::take_output`] (the
    /// refusal, if the protocol has one) and closes the connection; after
    /// [`Progress::Connect`] the handshake reads nothing more.
    pub fn input(&mut self, bytes: &[u8]) -> Result<(Progress, usize), SocksError> {
        let mut read = 0;
        loop {
            let rest = &bytes[read..];
            match self.phase {
                Phase::Done => return Ok((Progress::More, read)),
                Phase::Greeting => {
                    read += self.fill(rest, greeting_len);
                    let len = match greeting_len(&self.buf) {
                        Ok(Some(len)) if self.buf.len() >= len => len,
                        Ok(_) => return Ok((Progress::More, read)),
                        Err(e) => return Err(self.refuse(e)),
                    };
                    if !self.buf[2..len].contains(&NO_AUTH) {
                        self.out.extend_from_slice(&[VERSION, NO_ACCEPTABLE]);
                        return Err(self.refuse(SocksError::NoAcceptableMethod));
                    }
                    self.out.extend_from_slice(&[VERSION, NO_AUTH]);
                    self.buf.clear();
                    self.phase = Phase::Request;
                }
                Phase::Request => {
                    read += self.fill(rest, request_len);
                    let parsed = request_len(&self.buf).and_then(|len| match len {
                        Some(len) if self.buf.len() >= len => parse_request(&self.buf).map(Some),
                        _ => Ok(None),
                    });
                    return match parsed {
                        Ok(None) => Ok((Progress::More, read)),
                        Ok(Some(destination)) => {
                            self.phase = Phase::Done;
                            self.buf = Vec::new();
                            Ok((Progress::Connect(destination), read))
                        }
                        Err(e) => {
                            if let Some(r) = e.reply() {
                                self.out.extend(r.encode(unspecified()));
                            }
                            Err(self.refuse(e))
                        }
                    };
                }
            }
        }
    }

    /// Ends the handshake on `e`.
    fn refuse(&mut self, e: SocksError) -> SocksError {
        self.phase = Phase::Done;
        self.buf = Vec::new();
        e
    }

    /// Moves bytes into the message buffer, no more than the message being
    /// read needs as far as its length is known; returns how many.
    fn fill(
        &mut self,
        bytes: &[u8],
        len_of: fn(&[u8]) -> Result<Option<usize>, SocksError>,
    ) -> usize {
        let mut taken = 0;
        while taken < bytes.len() {
            let want = match len_of(&self.buf) {
                Ok(Some(len)) => len,
                // The length is not known yet: one byte at a time until it
                // is (a message's length is known within its first bytes).
                Ok(None) => self.buf.len() + 1,
                Err(_) => return taken,
            };
            if self.buf.len() >= want {
                break;
            }
            let n = (want - self.buf.len()).min(bytes.len() - taken);
            self.buf.extend_from_slice(&bytes[taken..taken + n]);
            taken += n;
        }
        taken
    }
}

/// The reply at the start of `b` (RFC 1928 §6) and its length, once `b`
/// holds all of it (`Ok(None)` before): what the tunnel's host reads back
/// from its server before it passes the reply to the local program.
pub fn parse_reply(b: &[u8]) -> Result<Option<(Reply, usize)>, SocksError> {
    if let Some(&v) = b.first() {
        if v != VERSION {
            return Err(SocksError::Version(v));
        }
    }
    let reply = match b.get(1) {
        None => return Ok(None),
        Some(&r) => Reply::from_code(r).ok_or(SocksError::Invalid { field: "REP" })?,
    };
    if b.get(2).is_some_and(|&r| r != 0) {
        return Err(SocksError::Invalid { field: "RSV" });
    }
    let len = match b.get(3) {
        None => return Ok(None),
        Some(&ATYP_V4) => 4 + 4 + 2,
        Some(&ATYP_V6) => 4 + 16 + 2,
        Some(&a) => return Err(SocksError::AddressType(a)),
    };
    Ok((b.len() >= len).then_some((reply, len)))
}

fn unspecified() -> SocketAddr {
    SocketAddr::new(IpAddr::V4(Ipv4Addr::UNSPECIFIED), 0)
}

/// The greeting's length once its first two bytes are known: VER, NMETHODS
/// and the methods.
fn greeting_len(b: &[u8]) -> Result<Option<usize>, SocksError> {
    match b {
        [] => Ok(None),
        [v, ..] if *v != VERSION => Err(SocksError::Version(*v)),
        [_] => Ok(None),
        [_, 0, ..] => Err(SocksError::Invalid { field: "NMETHODS" }),
        [_, n, ..] => Ok(Some(2 + usize::from(*n))),
    }
}

/// The request's length once its first bytes are known.
fn request_len(b: &[u8]) -> Result<Option<usize>, SocksError> {
    if let Some(&v) = b.first() {
        if v != VERSION {
            return Err(SocksError::Version(v));
        }
    }
    if let Some(&c) = b.get(1) {
        if c != CMD_CONNECT {
            return Err(SocksError::Command(c));
        }
    }
    if let Some(&r) = b.get(2) {
        if r != 0 {
            return Err(SocksError::Invalid { field: "RSV" });
        }
    }
    Ok(match b.get(3) {
        None => None,
        Some(&ATYP_V4) => Some(4 + 4 + 2),
        Some(&ATYP_V6) => Some(4 + 16 + 2),
        Some(&ATYP_DOMAIN) => match b.get(4) {
            None => None,
            Some(0) => return Err(SocksError::Invalid { field: "DST.ADDR" }),
            Some(&n) => Some(5 + usize::from(n) + 2),
        },
        Some(&a) => return Err(SocksError::AddressType(a)),
    })
}

/// Decodes a whole request (its length as [`request_len`] gave it).
fn parse_request(b: &[u8]) -> Result<Destination, SocksError> {
    let port_of = |p: &[u8]| u16::from_be_bytes([p[0], p[1]]);
    let dest = match b[3] {
        ATYP_V4 => {
            let ip = Ipv4Addr::new(b[4], b[5], b[6], b[7]);
            Destination::Addr(SocketAddr::new(IpAddr::V4(ip), port_of(&b[8..10])))
        }
        ATYP_V6 => {
            let mut o = [0u8; 16];
            o.copy_from_slice(&b[4..20]);
            Destination::Addr(SocketAddr::new(
                IpAddr::V6(Ipv6Addr::from(o)),
                port_of(&b[20..22]),
            ))
        }
        _ => {
            let n = usize::from(b[4]);
            let name = &b[5..5 + n];
            // A name as DNS carries it: printable ASCII, no spaces (an
            // internationalised name arrives in its ASCII form).
            if !name.iter().all(|c| c.is_ascii_graphic()) {
                return Err(SocksError::Invalid { field: "DST.ADDR" });
            }
            let host = String::from_utf8(name.to_vec())
                .map_err(|_| SocksError::Invalid { field: "DST.ADDR" })?;
            Destination::Domain {
                host,
                port: port_of(&b[5 + n..7 + n]),
            }
        }
    };
    if dest.port() == 0 {
        return Err(SocksError::Invalid { field: "DST.PORT" });
    }
    Ok(dest)
}

#[cfg(test)]
mod tests;
