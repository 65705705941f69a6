//! The TCP-baseline segment: a 20-byte header like TCP's, SACK blocks as
//! 8-byte options, then the payload.
//!
//! ```text
//!  0        8        16       24       32
//! +--------+--------+--------+--------+
//! |ver|type| flags  | nblocks|reserved|
//! +--------+--------+--------+--------+
//! |           connection id           |
//! |           sequence number         |
//! |        acknowledgment number      |
//! |       receive window (bytes)      |
//! +-----------------------------------+
//! | nblocks x (block start, block end)|   SACK blocks, RFC 2018
//! +-----------------------------------+
//! |              payload              |
//! ```

use super::{check_prefix, first_byte, flags_byte, read_u32, PacketType, WireError};
use crate::seq::SeqNum;

/// Length of the fixed header.
pub const HEADER_LEN: usize = 20;
/// Most SACK blocks a segment carries (RFC 2018 §3 allows 4 without
/// timestamps; ns-2's `TCPSink/Sack1` sends at most 3 by default).
pub const MAX_SACK_BLOCKS: usize = 4;

flags_byte! {
    /// Header flags.
    Flags {
        /// Synchronise: the first segment of a connection.
        SYN = 0x01,
        /// The acknowledgment field is valid.
        ACK = 0x02,
        /// The sender has no more data.
        FIN = 0x04,
        /// Explicit loss notification: the hole at `ack` was lost on the
        /// receiver's wireless link, not to congestion (Balakrishnan & Katz).
        ELN = 0x08,
    }
}

/// A SACK block: bytes `[start, end)` held by the receiver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SackBlock {
    /// First byte held.
    pub start: SeqNum,
    /// One past the last byte held.
    pub end: SeqNum,
}

/// A decoded TCP-baseline header.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TcpHeader {
    /// Flags.
    pub flags: Flags,
    /// Connection identifier chosen by the opener.
    pub conn_id: u32,
    /// Sequence number of the first payload byte.
    pub seq: SeqNum,
    /// Next byte expected by the sender of this segment (valid with ACK).
    pub ack: SeqNum,
    /// Receive window in bytes.
    pub window: u32,
    /// SACK blocks, most recent first.
    pub sack: SackList,
}

/// A small fixed-capacity list of SACK blocks (no allocation per segment).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackList {
    len: u8,
    blocks: [(u32, u32); MAX_SACK_BLOCKS],
}

impl SackList {
    /// Appends a block; ignored when full.
    pub fn push(&mut self, b: SackBlock) {
        if usize::from(self.len) < MAX_SACK_BLOCKS {
            self.blocks[usize::from(self.len)] = (b.start.0, b.end.0);
            self.len += 1;
        }
    }
    /// Number of blocks.
    pub fn len(&self) -> usize {
        usize::from(self.len)
    }
    /// True when there are no blocks.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The blocks in order.
    pub fn iter(&self) -> impl Iterator<Item = SackBlock> + '_ {
        self.blocks[..self.len()].iter().map(|&(s, e)| SackBlock {
            start: SeqNum(s),
            end: SeqNum(e),
        })
    }
}

impl TcpHeader {
    /// Encoded length of this header with its options.
    pub fn len(&self) -> usize {
        HEADER_LEN + 8 * self.sack.len()
    }

    /// Always false: a header has at least [`HEADER_LEN`] bytes.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Appends the encoded header to `out`.
    pub fn emit(&self, out: &mut Vec<u8>) {
        out.reserve(self.len());
        out.push(first_byte(PacketType::Tcp));
        out.push(self.flags.0);
        out.push(self.sack.len() as u8);
        out.push(0);
        out.extend_from_slice(&self.conn_id.to_be_bytes());
        out.extend_from_slice(&self.seq.0.to_be_bytes());
        out.extend_from_slice(&self.ack.0.to_be_bytes());
        out.extend_from_slice(&self.window.to_be_bytes());
        for b in self.sack.iter() {
            out.extend_from_slice(&b.start.0.to_be_bytes());
            out.extend_from_slice(&b.end.0.to_be_bytes());
        }
    }

    /// Decodes a header, returning it and the payload that follows.
    pub fn parse(datagram: &[u8]) -> Result<(TcpHeader, &[u8]), WireError> {
        let (flags, nblocks, needed) = check_prefix(
            datagram,
            PacketType::Tcp,
            HEADER_LEN,
            Flags::ALL,
            MAX_SACK_BLOCKS,
            8,
        )?;
        let mut sack = SackList::default();
        for i in 0..nblocks {
            let at = HEADER_LEN + 8 * i;
            sack.push(SackBlock {
                start: SeqNum(read_u32(datagram, at)),
                end: SeqNum(read_u32(datagram, at + 4)),
            });
        }
        let header = TcpHeader {
            flags: Flags(flags),
            conn_id: read_u32(datagram, 4),
            seq: SeqNum(read_u32(datagram, 8)),
            ack: SeqNum(read_u32(datagram, 12)),
            window: read_u32(datagram, 16),
            sack,
        };
        Ok((header, &datagram[needed..]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn header_strategy() -> impl Strategy<Value = TcpHeader> {
        (
            0u8..16,
            any::<u32>(),
            any::<u32>(),
            any::<u32>(),
            any::<u32>(),
            proptest::collection::vec((any::<u32>(), any::<u32>()), 0..=MAX_SACK_BLOCKS),
        )
            .prop_map(|(flags, conn_id, seq, ack, window, blocks)| {
                let mut sack = SackList::default();
                for (s, e) in blocks {
                    sack.push(SackBlock {
                        start: SeqNum(s),
                        end: SeqNum(e),
                    });
                }
                TcpHeader {
                    flags: Flags(flags),
                    conn_id,
                    seq: SeqNum(seq),
                    ack: SeqNum(ack),
                    window,
                    sack,
                }
            })
    }

    proptest! {
        #[test]
        fn emit_parse_round_trip(h in header_strategy(), payload in proptest::collection::vec(any::<u8>(), 0..64)) {
            let mut buf = Vec::new();
            h.emit(&mut buf);
            prop_assert_eq!(buf.len(), h.len());
            buf.extend_from_slice(&payload);
            let (back, rest) = TcpHeader::parse(&buf).unwrap();
            prop_assert_eq!(back, h);
            prop_assert_eq!(rest, &payload[..]);
        }

        #[test]
        fn parse_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..80)) {
            let _ = TcpHeader::parse(&bytes);
        }
    }

    #[test]
    fn errors_name_the_field() {
        let mut buf = Vec::new();
        TcpHeader::default().emit(&mut buf);
        buf[2] = 9;
        assert_eq!(
            TcpHeader::parse(&buf),
            Err(WireError::BadField {
                field: "nblocks",
                value: 9
            })
        );
        assert!(matches!(
            TcpHeader::parse(&buf[..7]),
            Err(WireError::Truncated { .. })
        ));
        buf[0] = 0x20;
        assert_eq!(TcpHeader::parse(&buf), Err(WireError::BadVersion(2)));
    }
}
