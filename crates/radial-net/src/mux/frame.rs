//! The frames streams travel in on a connection's ordered byte sequence
//! (`docs/wire.md`, "Stream frames"). The sequence is reliable and in order
//! (R²CP delivers it so), so a frame needs no offset: only which stream,
//! and what.

use std::fmt;

/// Most payload bytes one DATA frame carries.
pub const MAX_PAYLOAD: usize = 16 * 1024;
/// Bytes before a frame's payload: kind, stream, and for DATA the length.
pub const DATA_HEADER: usize = 1 + 4 + 2;
/// Longest frame on the wire.
pub const MAX_FRAME: usize = DATA_HEADER + MAX_PAYLOAD;

const PADDING: u8 = 0x00;
const DATA: u8 = 0x01;
const DATA_FIN: u8 = 0x02;
const CREDIT: u8 = 0x03;
const RESET: u8 = 0x04;

/// One frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Frame {
    /// Stream bytes, the next after those sent before on the stream; `fin`
    /// when they are its last.
    Data {
        /// The stream.
        stream: u32,
        /// The bytes (at most [`MAX_PAYLOAD`]).
        payload: Vec<u8>,
        /// No byte follows on this stream.
        fin: bool,
    },
    /// The receiver of a stream lets its sender send up to this stream
    /// offset (an absolute limit: a later CREDIT only raises it).
    Credit {
        /// The stream.
        stream: u32,
        /// Stream offset the sender may send up to.
        limit: u64,
    },
    /// The stream is abandoned both ways; `code` says why.
    Reset {
        /// The stream.
        stream: u32,
        /// The reason ([`crate::mux::reset_code`]).
        code: u32,
    },
    /// One byte that carries nothing (as QUIC's PADDING frame): a
    /// sequence that runs dry mid-segment is filled to the segment's end,
    /// since its receiver asks for whole segments.
    Padding,
}

/// Why bytes are not a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameError {
    /// An unknown frame kind.
    Kind(u8),
    /// A DATA frame longer than [`MAX_PAYLOAD`], or an empty one without
    /// FIN.
    Length(u16),
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameError::Kind(k) => write!(f, "stream frame: unknown kind {k:#04x}"),
            FrameError::Length(n) => write!(f, "stream frame: bad `length` {n}"),
        }
    }
}

impl std::error::Error for FrameError {}

/// Appends the header of a DATA frame of `len` payload bytes (the payload
/// follows).
pub fn emit_data_header(stream: u32, len: usize, fin: bool, out: &mut Vec<u8>) {
    out.extend_from_slice(&data_header(stream, len, fin));
}

/// The header of a DATA frame of `len` payload bytes on `stream`.
pub fn data_header(stream: u32, len: usize, fin: bool) -> [u8; DATA_HEADER] {
    debug_assert!(len <= MAX_PAYLOAD);
    let mut h = [0u8; DATA_HEADER];
    h[0] = if fin { DATA_FIN } else { DATA };
    h[1..5].copy_from_slice(&stream.to_be_bytes());
    h[5..].copy_from_slice(&(len as u16).to_be_bytes());
    h
}

impl Frame {
    /// Appends the frame's bytes.
    pub fn emit(&self, out: &mut Vec<u8>) {
        match self {
            Frame::Data {
                stream,
                payload,
                fin,
            } => {
                emit_data_header(*stream, payload.len(), *fin, out);
                out.extend_from_slice(payload);
            }
            Frame::Credit { stream, limit } => {
                out.push(CREDIT);
                out.extend_from_slice(&stream.to_be_bytes());
                out.extend_from_slice(&limit.to_be_bytes());
            }
            Frame::Reset { stream, code } => {
                out.push(RESET);
                out.extend_from_slice(&stream.to_be_bytes());
                out.extend_from_slice(&code.to_be_bytes());
            }
            Frame::Padding => out.push(PADDING),
        }
    }

    /// The length of the frame `b` begins with, once `b` holds enough of
    /// its header to tell (`Ok(None)` before).
    pub fn len_of(b: &[u8]) -> Result<Option<usize>, FrameError> {
        let Some(&kind) = b.first() else {
            return Ok(None);
        };
        Ok(Some(match kind {
            DATA | DATA_FIN => {
                let Some(n) = b.get(5..7) else {
                    return Ok(None);
                };
                let n = u16::from_be_bytes([n[0], n[1]]);
                if usize::from(n) > MAX_PAYLOAD || (n == 0 && kind == DATA) {
                    return Err(FrameError::Length(n));
                }
                DATA_HEADER + usize::from(n)
            }
            PADDING => 1,
            CREDIT => 1 + 4 + 8,
            RESET => 1 + 4 + 4,
            k => return Err(FrameError::Kind(k)),
        }))
    }

    /// Decodes the frame at the start of `b`: `Ok(None)` if `b` ends
    /// inside it, else the frame and its length.
    pub fn parse(b: &[u8]) -> Result<Option<(Frame, usize)>, FrameError> {
        Ok(Frame::parse_borrowed(b)?.map(|(f, n)| {
            let f = match f {
                FrameRef::Data {
                    stream,
                    payload,
                    fin,
                } => Frame::Data {
                    stream,
                    payload: payload.to_vec(),
                    fin,
                },
                FrameRef::Other(f) => f,
            };
            (f, n)
        }))
    }

    /// [`Frame::parse`], a DATA frame's payload left where it is.
    pub fn parse_borrowed(b: &[u8]) -> Result<Option<(FrameRef<'_>, usize)>, FrameError> {
        let Some(len) = Frame::len_of(b)? else {
            return Ok(None);
        };
        let kind = b[0];
        let Some(b) = b.get(..len) else {
            return Ok(None);
        };
        if kind == PADDING {
            return Ok(Some((FrameRef::Other(Frame::Padding), 1)));
        }
        let stream = u32::from_be_bytes([b[1], b[2], b[3], b[4]]);
        let frame = match kind {
            DATA | DATA_FIN => {
                return Ok(Some((
                    FrameRef::Data {
                        stream,
                        payload: &b[DATA_HEADER..],
                        fin: kind == DATA_FIN,
                    },
                    len,
                )))
            }
            CREDIT => Frame::Credit {
                stream,
                limit: u64::from_be_bytes(b[5..13].try_into().expect("8 bytes")),
            },
            _ => Frame::Reset {
                stream,
                code: u32::from_be_bytes(b[5..9].try_into().expect("4 bytes")),
            },
        };
        Ok(Some((FrameRef::Other(frame), len)))
    }
}

/// A frame as [`Frame::parse_borrowed`] decodes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FrameRef<'a> {
    /// A DATA frame, its payload in the bytes parsed.
    Data {
        /// The stream.
        stream: u32,
        /// Its bytes.
        payload: &'a [u8],
        /// The stream ends after them.
        fin: bool,
    },
    /// Any other frame.
    Other(Frame),
}
