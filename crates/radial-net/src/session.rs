//! The file service's session messages (wire type 2, `docs/wire.md`),
//! carried inside sealed datagrams ([`crate::crypto`]): a client asks for a
//! file by path, the server answers with what the file is (size and
//! SHA-256) or with an error; each further path joins the connection and
//! proves its address receives. Parsing never panics and names the field
//! it rejects.

use std::fmt;

/// Why a datagram is not a valid session message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WireError {
    /// The datagram ends inside this field.
    Truncated {
        /// The field's name as in `docs/wire.md`.
        field: &'static str,
    },
    /// This field holds a value the format forbids.
    Invalid {
        /// The field's name as in `docs/wire.md`.
        field: &'static str,
    },
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WireError::Truncated { field } => write!(f, "session message truncated in `{field}`"),
            WireError::Invalid { field } => write!(f, "session message: bad `{field}`"),
        }
    }
}

impl std::error::Error for WireError {}

/// Wire type of session messages (the low nibble of the first byte).
pub const SESSION_TYPE: u8 = 2;
/// Wire format version (the high nibble of the first byte).
pub const VERSION: u8 = 1;
/// Longest path a client may ask for, in bytes.
pub const MAX_PATH: usize = 1024;
/// Longest error text.
pub const MAX_MESSAGE: usize = 512;
/// Most nonces one ECHO carries.
pub const MAX_ECHO: usize = 64;
/// A GET is padded with zero bytes to at least this size, so that the
/// answer, an OFFER (45 bytes) or an ERROR (the path and a few words), is
/// within three times what the path received.
pub const MIN_GET: usize = 64;

/// Why a server refuses a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorCode {
    /// No such file under the server's root (or outside it).
    NotFound = 1,
    /// The connection id is in use by another client: pick another.
    Busy = 2,
    /// The file could not be read.
    Unreadable = 3,
    /// The server is still preparing the file (hashing it): ask again.
    Preparing = 4,
    /// The server holds as many pending sessions as it keeps, from this
    /// address or in all: ask again later.
    Full = 5,
    /// The file changed on the server (it was rewritten or cut short) while
    /// it was served: what was sent cannot make the offered file.
    Changed = 6,
    /// The server does not accept stream connections.
    NoStreams = 7,
    /// The server admits listed clients only, and this one proved no
    /// listed key.
    Unauthorized = 8,
}

impl ErrorCode {
    fn from_u8(v: u8) -> Option<Self> {
        match v {
            1 => Some(ErrorCode::NotFound),
            2 => Some(ErrorCode::Busy),
            3 => Some(ErrorCode::Unreadable),
            4 => Some(ErrorCode::Preparing),
            5 => Some(ErrorCode::Full),
            6 => Some(ErrorCode::Changed),
            7 => Some(ErrorCode::NoStreams),
            8 => Some(ErrorCode::Unauthorized),
            _ => None,
        }
    }
}

/// One session message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Message {
    /// Client → server: serve `path` on connection `conn` (the low 16 bits
    /// of every pipe's RCP connection id; the client picks it at random).
    Get {
        /// Connection number.
        conn: u16,
        /// Payload bytes per segment the client's receiver asks in (from
        /// [`crate::config::MSS`] to [`crate::config::MAX_SEGMENT`]).
        segment: u16,
        /// Path below the server's root, `/`-separated.
        path: String,
    },
    /// Server → client: the file is there; open pipes on `conn`, each
    /// after a [`Message::Join`].
    Offer {
        /// Connection number, as asked.
        conn: u16,
        /// File size in bytes.
        size: u64,
        /// SHA-256 of the file's contents.
        sha256: [u8; 32],
    },
    /// Client → server: open a stream connection on `conn` (streams both
    /// ways over the connection's paths, each direction pulled by its
    /// receiver); padded like a GET.
    Open {
        /// Connection number.
        conn: u16,
        /// Payload bytes per segment, both ways (as in [`Message::Get`]).
        segment: u16,
        /// The client's proof of its key, for servers that admit listed
        /// clients only.
        client: Option<crate::crypto::ClientProof>,
    },
    /// Server → client: the stream connection is open; join paths as for
    /// a file.
    Opened {
        /// Connection number, as asked.
        conn: u16,
    },
    /// Client → server, on the path it is about: pipe `path` of `conn`
    /// may open from this address.
    Join {
        /// Connection number.
        conn: u16,
        /// Path number (the high 16 bits of the pipe's connection id).
        path: u16,
    },
    /// Server → client: the join is accepted; prove the address receives by
    /// echoing `challenge`.
    Joined {
        /// Connection number.
        conn: u16,
        /// Path number.
        path: u16,
        /// Random, per path.
        challenge: [u8; 8],
    },
    /// Client → server: the envelope nonces of datagrams that arrived on
    /// `path` (the receipt guard, [`crate::guard`]).
    Echo {
        /// Connection number.
        conn: u16,
        /// Path number.
        path: u16,
        /// The nonces, at most [`MAX_ECHO`].
        nonces: Vec<u32>,
    },
    /// Client → server: the challenge of `path`, echoed; until it arrives
    /// the server sends at most three times what it received there.
    Validate {
        /// Connection number.
        conn: u16,
        /// Path number.
        path: u16,
        /// The challenge.
        echo: [u8; 8],
    },
    /// Server → client: refused.
    Error {
        /// Connection number, as asked.
        conn: u16,
        /// Why.
        code: ErrorCode,
        /// Human-readable detail.
        message: String,
    },
}

const GET: u8 = 1;
const OFFER: u8 = 2;
const ERROR: u8 = 3;
const JOIN: u8 = 4;
const JOINED: u8 = 5;
const VALIDATE: u8 = 6;
const ECHO: u8 = 7;
const OPEN: u8 = 8;
const OPENED: u8 = 9;

fn array<const N: usize>(b: &mut &[u8], field: &'static str) -> Result<[u8; N], WireError> {
    Ok(take(b, N, field)?.try_into().expect("N bytes"))
}

/// True when `datagram` claims to be a session message (its first byte);
/// it may still fail to parse.
pub fn is_session(datagram: &[u8]) -> bool {
    datagram.first() == Some(&(VERSION << 4 | SESSION_TYPE))
}

/// A GET's or OPEN's segment size, refused outside what a connection may
/// use ([`crate::config::segment_allowed`]).
fn segment_of(b: &mut &[u8]) -> Result<u16, WireError> {
    let segment = u16_of(b, "segment")?;
    if !crate::config::segment_allowed(u64::from(segment)) {
        return Err(WireError::Invalid { field: "segment" });
    }
    Ok(segment)
}

fn take<'a>(b: &mut &'a [u8], n: usize, field: &'static str) -> Result<&'a [u8], WireError> {
    if b.len() < n {
        return Err(WireError::Truncated { field });
    }
    let (head, rest) = b.split_at(n);
    *b = rest;
    Ok(head)
}

fn u16_of(b: &mut &[u8], field: &'static str) -> Result<u16, WireError> {
    let s = take(b, 2, field)?;
    Ok(u16::from_be_bytes([s[0], s[1]]))
}

fn text(b: &mut &[u8], max: usize, field: &'static str) -> Result<String, WireError> {
    let n = usize::from(u16_of(b, field)?);
    if n > max {
        return Err(WireError::Invalid { field });
    }
    let s = take(b, n, field)?;
    String::from_utf8(s.to_vec()).map_err(|_| WireError::Invalid { field })
}

impl Message {
    /// The connection number the message is about.
    pub fn conn(&self) -> u16 {
        match self {
            Message::Get { conn, .. }
            | Message::Offer { conn, .. }
            | Message::Error { conn, .. }
            | Message::Join { conn, .. }
            | Message::Joined { conn, .. }
            | Message::Validate { conn, .. }
            | Message::Echo { conn, .. }
            | Message::Open { conn, .. }
            | Message::Opened { conn } => *conn,
        }
    }

    /// Decodes a session message.
    pub fn parse(mut b: &[u8]) -> Result<Message, WireError> {
        let first = take(&mut b, 1, "version")?[0];
        if first >> 4 != VERSION {
            return Err(WireError::Invalid { field: "version" });
        }
        if first & 0x0f != SESSION_TYPE {
            return Err(WireError::Invalid { field: "type" });
        }
        let kind = take(&mut b, 1, "kind")?[0];
        let conn = u16_of(&mut b, "conn")?;
        let m = match kind {
            GET => {
                let segment = segment_of(&mut b)?;
                let path = text(&mut b, MAX_PATH, "path")?;
                // Padding: zero bytes only.
                if b.iter().any(|&x| x != 0) {
                    return Err(WireError::Invalid { field: "padding" });
                }
                b = &[];
                Message::Get {
                    conn,
                    segment,
                    path,
                }
            }
            OPEN => {
                let segment = segment_of(&mut b)?;
                let client = match b.first() {
                    Some(1) => {
                        b = &b[1..];
                        Some(crate::crypto::ClientProof {
                            key: array(&mut b, "client key")?,
                            signature: array(&mut b, "signature")?,
                        })
                    }
                    _ => None,
                };
                if b.iter().any(|&x| x != 0) {
                    return Err(WireError::Invalid { field: "padding" });
                }
                b = &[];
                Message::Open {
                    conn,
                    segment,
                    client,
                }
            }
            OPENED => Message::Opened { conn },
            OFFER => {
                let size = u64::from_be_bytes(array(&mut b, "size")?);
                Message::Offer {
                    conn,
                    size,
                    sha256: array(&mut b, "sha256")?,
                }
            }
            JOIN => Message::Join {
                conn,
                path: u16_of(&mut b, "path")?,
            },
            JOINED => Message::Joined {
                conn,
                path: u16_of(&mut b, "path")?,
                challenge: array(&mut b, "challenge")?,
            },
            ECHO => {
                let path = u16_of(&mut b, "path")?;
                let n = usize::from(take(&mut b, 1, "count")?[0]);
                if n > MAX_ECHO {
                    return Err(WireError::Invalid { field: "count" });
                }
                let mut nonces = Vec::with_capacity(n);
                for _ in 0..n {
                    nonces.push(u32::from_be_bytes(array(&mut b, "nonce")?));
                }
                Message::Echo { conn, path, nonces }
            }
            VALIDATE => Message::Validate {
                conn,
                path: u16_of(&mut b, "path")?,
                echo: array(&mut b, "echo")?,
            },
            ERROR => {
                let c = take(&mut b, 1, "code")?[0];
                let code = ErrorCode::from_u8(c).ok_or(WireError::Invalid { field: "code" })?;
                Message::Error {
                    conn,
                    code,
                    message: text(&mut b, MAX_MESSAGE, "message")?,
                }
            }
            _ => return Err(WireError::Invalid { field: "kind" }),
        };
        if !b.is_empty() {
            return Err(WireError::Invalid { field: "length" });
        }
        Ok(m)
    }

    /// Appends the encoding to `buf`. Texts longer than the limits are cut
    /// (at a character boundary); a GET is padded to [`MIN_GET`].
    pub fn emit(&self, buf: &mut Vec<u8>) {
        let start = buf.len();
        buf.push(VERSION << 4 | SESSION_TYPE);
        let kind = match self {
            Message::Get { .. } => GET,
            Message::Offer { .. } => OFFER,
            Message::Error { .. } => ERROR,
            Message::Join { .. } => JOIN,
            Message::Joined { .. } => JOINED,
            Message::Validate { .. } => VALIDATE,
            Message::Echo { .. } => ECHO,
            Message::Open { .. } => OPEN,
            Message::Opened { .. } => OPENED,
        };
        buf.push(kind);
        buf.extend_from_slice(&self.conn().to_be_bytes());
        let put_text = |buf: &mut Vec<u8>, s: &str, max: usize| {
            let mut n = s.len().min(max);
            while !s.is_char_boundary(n) {
                n -= 1;
            }
            buf.extend_from_slice(&(n as u16).to_be_bytes());
            buf.extend_from_slice(&s.as_bytes()[..n]);
        };
        match self {
            Message::Get { path, segment, .. } => {
                buf.extend_from_slice(&segment.to_be_bytes());
                put_text(buf, path, MAX_PATH);
                if buf.len() - start < MIN_GET {
                    buf.resize(start + MIN_GET, 0);
                }
            }
            Message::Offer { size, sha256, .. } => {
                buf.extend_from_slice(&size.to_be_bytes());
                buf.extend_from_slice(sha256);
            }
            Message::Join { path, .. } => {
                buf.extend_from_slice(&path.to_be_bytes());
            }
            Message::Joined {
                path, challenge, ..
            } => {
                buf.extend_from_slice(&path.to_be_bytes());
                buf.extend_from_slice(challenge);
            }
            Message::Validate { path, echo, .. } => {
                buf.extend_from_slice(&path.to_be_bytes());
                buf.extend_from_slice(echo);
            }
            Message::Echo { path, nonces, .. } => echo_body(*path, nonces, buf),
            Message::Error { code, message, .. } => {
                buf.push(*code as u8);
                put_text(buf, message, MAX_MESSAGE);
            }
            Message::Open {
                segment, client, ..
            } => {
                buf.extend_from_slice(&segment.to_be_bytes());
                if let Some(p) = client {
                    buf.push(1);
                    buf.extend_from_slice(&p.key);
                    buf.extend_from_slice(&p.signature);
                }
                if buf.len() - start < MIN_GET {
                    buf.resize(start + MIN_GET, 0);
                }
            }
            Message::Opened { .. } => {}
        }
    }
}

/// Appends an ECHO of `nonces` (at most [`MAX_ECHO`] of them) on `path` of
/// connection `conn` to `buf`: what [`Message::Echo`] emits, without the
/// message's own copy of the nonces.
pub fn emit_echo(conn: u16, path: u16, nonces: &[u32], buf: &mut Vec<u8>) {
    buf.extend_from_slice(&[VERSION << 4 | SESSION_TYPE, ECHO]);
    buf.extend_from_slice(&conn.to_be_bytes());
    echo_body(path, nonces, buf);
}

fn echo_body(path: u16, nonces: &[u32], buf: &mut Vec<u8>) {
    buf.extend_from_slice(&path.to_be_bytes());
    let n = nonces.len().min(MAX_ECHO);
    buf.push(n as u8);
    for x in &nonces[..n] {
        buf.extend_from_slice(&x.to_be_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_echo_emitted_from_a_slice_is_the_message() {
        let nonces: Vec<u32> = (0..300).map(|i| i * 7919).collect();
        for n in [0, 1, 5, MAX_ECHO, 300] {
            let mut a = Vec::new();
            Message::Echo {
                conn: 9,
                path: 2,
                nonces: nonces[..n].to_vec(),
            }
            .emit(&mut a);
            let mut b = vec![0xAA];
            emit_echo(9, 2, &nonces[..n], &mut b);
            assert_eq!(&b[1..], &a[..], "{n} nonces");
        }
    }

    fn round_trip(m: Message) {
        let mut b = Vec::new();
        m.emit(&mut b);
        assert!(is_session(&b));
        assert_eq!(Message::parse(&b), Ok(m));
    }

    #[test]
    fn messages_round_trip() {
        round_trip(Message::Get {
            conn: 7,
            segment: 1200,
            path: "dir/ü.bin".into(),
        });
        round_trip(Message::Offer {
            conn: 65535,
            size: 1 << 40,
            sha256: [9; 32],
        });
        round_trip(Message::Join { conn: 2, path: 1 });
        round_trip(Message::Joined {
            conn: 2,
            path: 1,
            challenge: [6; 8],
        });
        round_trip(Message::Echo {
            conn: 2,
            path: 1,
            nonces: vec![1, 2, 0xffff_ffff],
        });
        round_trip(Message::Validate {
            conn: 2,
            path: 1,
            echo: [6; 8],
        });
        round_trip(Message::Error {
            conn: 1,
            code: ErrorCode::NotFound,
            message: "no such file".into(),
        });
        round_trip(Message::Open {
            conn: 9,
            segment: 16_000,
            client: None,
        });
        round_trip(Message::Open {
            conn: 9,
            segment: 16_000,
            client: Some(crate::crypto::ClientProof {
                key: [3; 32],
                signature: [4; 64],
            }),
        });
        round_trip(Message::Opened { conn: 9 });
        round_trip(Message::Error {
            conn: 9,
            code: ErrorCode::NoStreams,
            message: "no streams here".into(),
        });
        let mut open = Vec::new();
        Message::Open {
            conn: 9,
            segment: 16_000,
            client: None,
        }
        .emit(&mut open);
        assert_eq!(open.len(), MIN_GET, "an OPEN is padded");
    }

    #[test]
    fn errors_name_the_field() {
        let mut b = Vec::new();
        Message::Get {
            conn: 1,
            segment: 1200,
            path: "abc".into(),
        }
        .emit(&mut b);
        assert_eq!(
            Message::parse(&b[..10]),
            Err(WireError::Truncated { field: "path" })
        );
        let mut padded = b.clone();
        padded.push(1);
        assert_eq!(
            Message::parse(&padded),
            Err(WireError::Invalid { field: "padding" })
        );
        assert_eq!(b.len(), MIN_GET, "a GET is padded");
        let mut offer = Vec::new();
        Message::Offer {
            conn: 1,
            size: 2,
            sha256: [0; 32],
        }
        .emit(&mut offer);
        offer.push(0);
        assert_eq!(
            Message::parse(&offer),
            Err(WireError::Invalid { field: "length" })
        );
        let mut kind = b.clone();
        kind[1] = 10;
        assert_eq!(
            Message::parse(&kind),
            Err(WireError::Invalid { field: "kind" })
        );
        let mut ty = b;
        ty[0] = VERSION << 4 | 1;
        assert_eq!(
            Message::parse(&ty),
            Err(WireError::Invalid { field: "type" })
        );
    }

    #[test]
    fn a_segment_size_outside_the_allowed_range_is_refused() {
        for (segment, ok) in [(1199, false), (1200, true), (60_000, true), (60_001, false)] {
            let mut b = Vec::new();
            Message::Get {
                conn: 1,
                segment,
                path: "f".into(),
            }
            .emit(&mut b);
            let mut o = Vec::new();
            Message::Open {
                conn: 1,
                segment,
                client: None,
            }
            .emit(&mut o);
            for m in [b, o] {
                let got = Message::parse(&m);
                if ok {
                    assert!(got.is_ok(), "{segment}: {got:?}");
                } else {
                    assert_eq!(got, Err(WireError::Invalid { field: "segment" }));
                }
            }
        }
    }

    #[test]
    fn a_long_path_is_cut_on_a_character_boundary() {
        let path = "é".repeat(MAX_PATH);
        let mut b = Vec::new();
        Message::Get {
            conn: 1,
            segment: 1200,
            path,
        }
        .emit(&mut b);
        let Ok(Message::Get { path, .. }) = Message::parse(&b) else {
            panic!("parses");
        };
        assert!(path.len() <= MAX_PATH && path.chars().all(|c| c == 'é'));
    }

    #[test]
    fn parse_never_panics() {
        // Every prefix and single-byte change of valid messages.
        let mut samples = Vec::new();
        for m in [
            Message::Get {
                conn: 3,
                segment: 1200,
                path: "a/b".into(),
            },
            Message::Offer {
                conn: 3,
                size: 5,
                sha256: [1; 32],
            },
            Message::Join { conn: 3, path: 1 },
            Message::Error {
                conn: 3,
                code: ErrorCode::Busy,
                message: "x".into(),
            },
        ] {
            let mut b = Vec::new();
            m.emit(&mut b);
            samples.push(b);
        }
        for s in samples {
            for n in 0..=s.len() {
                let _ = Message::parse(&s[..n]);
            }
            for i in 0..s.len() {
                for v in [0u8, 1, 0x7f, 0xff] {
                    let mut t = s.clone();
                    t[i] = v;
                    let _ = Message::parse(&t);
                }
            }
        }
    }
}
