//! The RCP packet (RCP paper §3.3): one 20-byte header for requests from the
//! receiver (REQ) and data from the sender (DATA), then request blocks, then
//! payload.
//!
//! ```text
//!  0        8        16       24       32
//! +--------+--------+--------+--------+
//! |ver|type| flags  | nblocks|reserved|
//! +--------+--------+--------+--------+
//! |           connection id           |
//! |  seq: REQ = SEG.REQ, DATA = first byte  |
//! |  deq: REQ = SEG.DEQ, DATA = bytes available |
//! |  id:  REQ = newest pull id, DATA = pull id served (0 = cumulative) |
//! +-----------------------------------+
//! | nblocks x (start, end, pull id)   |   PUL: its pull, then the 3 before;
//! |                                   |   otherwise the 3 most recent pulls
//! +-----------------------------------+
//! |              payload              |   DATA only
//! ```

use super::{check_prefix, first_byte, flags_byte, read_u32, PacketType, Prefix, WireError};
use crate::seq::SeqNum;

/// Length of the fixed header.
pub const HEADER_LEN: usize = 20;
/// Earlier pull requests repeated in every REQ (RCP §3.3.1: "three blocks as
/// proposed in the SACK option").
pub const RECENT_PULLS: usize = 3;
/// Blocks a REQ carries at most: a PUL REQ's own pull, then the
/// [`RECENT_PULLS`] before it.
pub const MAX_BLOCKS: usize = RECENT_PULLS + 1;

flags_byte! {
    /// Header flags.
    RcpFlags {
        /// Connection setup.
        SYN = 0x01,
        /// Acknowledges the peer's SYN or FIN.
        ACK = 0x02,
        /// End of the stream (DATA: the payload ends it; REQ: everything
        /// arrived, close).
        FIN = 0x04,
        /// Pull mode: send only the block with the header's pull id (§3.3.1).
        PUL = 0x08,
        /// A request from the receiver (absent: data from the sender).
        REQ = 0x10,
        /// A persist probe: the receiver asks how much data the sender has
        /// (§5.2.2).
        PROBE = 0x20,
    }
}

/// A pull request: bytes `[start, end)`, numbered by the receiver.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PullBlock {
    /// First byte.
    pub start: SeqNum,
    /// One past the last byte.
    pub end: SeqNum,
    /// Request number, increasing with every pull the receiver issues.
    pub id: u32,
}

/// A decoded RCP header.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RcpHeader {
    /// Flags.
    pub flags: RcpFlags,
    /// Connection identifier chosen by the opener.
    pub conn_id: u32,
    /// REQ: send new data up to here (SEG.REQ). DATA: first payload byte.
    /// SYN: the initial sequence number.
    pub seq: SeqNum,
    /// REQ: next in-order byte the receiver expects (SEG.DEQ; the sender may
    /// purge below it). DATA: one past the last byte the sender has.
    pub deq: SeqNum,
    /// REQ: the newest pull id. DATA: the pull id this segment answers, 0 for
    /// data sent in cumulative mode.
    pub id: u32,
    blocks: [PullBlock; MAX_BLOCKS],
    nblocks: u8,
}

impl RcpHeader {
    /// A header with no blocks.
    pub fn new(flags: RcpFlags, conn_id: u32, seq: SeqNum, deq: SeqNum, id: u32) -> Self {
        RcpHeader {
            flags,
            conn_id,
            seq,
            deq,
            id,
            ..Default::default()
        }
    }

    /// Appends a pull block; ignored when full.
    pub fn push_block(&mut self, b: PullBlock) {
        if usize::from(self.nblocks) < MAX_BLOCKS {
            self.blocks[usize::from(self.nblocks)] = b;
            self.nblocks += 1;
        }
    }

    /// The pull blocks, newest first.
    pub fn blocks(&self) -> &[PullBlock] {
        &self.blocks[..usize::from(self.nblocks)]
    }

    /// Encoded length.
    pub fn len(&self) -> usize {
        HEADER_LEN + 12 * usize::from(self.nblocks)
    }

    /// Always false: a header has at least [`HEADER_LEN`] bytes.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Appends the encoded header to `out`.
    pub fn emit(&self, out: &mut Vec<u8>) {
        let mut b = [0u8; HEADER_LEN + 12 * MAX_BLOCKS];
        b[0] = first_byte(PacketType::Rcp);
        b[1] = self.flags.0;
        b[2] = self.nblocks;
        b[4..8].copy_from_slice(&self.conn_id.to_be_bytes());
        b[8..12].copy_from_slice(&self.seq.0.to_be_bytes());
        b[12..16].copy_from_slice(&self.deq.0.to_be_bytes());
        b[16..20].copy_from_slice(&self.id.to_be_bytes());
        for (i, blk) in self.blocks().iter().enumerate() {
            let at = HEADER_LEN + 12 * i;
            b[at..at + 4].copy_from_slice(&blk.start.0.to_be_bytes());
            b[at + 4..at + 8].copy_from_slice(&blk.end.0.to_be_bytes());
            b[at + 8..at + 12].copy_from_slice(&blk.id.to_be_bytes());
        }
        out.extend_from_slice(&b[..self.len()]);
    }

    /// Decodes a header, returning it and the payload that follows.
    pub fn parse(datagram: &[u8]) -> Result<(RcpHeader, &[u8]), WireError> {
        let (flags, nblocks, _, needed) = check_prefix(
            datagram,
            &Prefix {
                ty: PacketType::Rcp,
                header_len: HEADER_LEN,
                known_flags: RcpFlags::ALL,
                max_blocks: MAX_BLOCKS,
                block_len: 12,
                known_options: 0,
                options_field: "reserved",
            },
        )?;
        let flags = RcpFlags(flags);
        let mut h = RcpHeader::new(
            flags,
            read_u32(datagram, 4),
            SeqNum(read_u32(datagram, 8)),
            SeqNum(read_u32(datagram, 12)),
            read_u32(datagram, 16),
        );
        for i in 0..nblocks {
            let at = HEADER_LEN + 12 * i;
            h.push_block(PullBlock {
                start: SeqNum(read_u32(datagram, at)),
                end: SeqNum(read_u32(datagram, at + 4)),
                id: read_u32(datagram, at + 8),
            });
        }
        let payload = &datagram[needed..];
        if flags.contains(RcpFlags::REQ) && !payload.is_empty() {
            return Err(WireError::BadField {
                field: "payload",
                value: payload.len() as u64,
            });
        }
        Ok((h, payload))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn emit_parse_round_trip(
            flags in 0u8..0x40,
            conn_id: u32, seq: u32, deq: u32, id: u32,
            blocks in proptest::collection::vec((any::<u32>(), any::<u32>(), any::<u32>()), 0..=MAX_BLOCKS),
            payload in proptest::collection::vec(any::<u8>(), 0..64),
        ) {
            let mut h = RcpHeader::new(RcpFlags(flags), conn_id, SeqNum(seq), SeqNum(deq), id);
            for (s, e, i) in blocks {
                h.push_block(PullBlock { start: SeqNum(s), end: SeqNum(e), id: i });
            }
            let mut buf = Vec::new();
            h.emit(&mut buf);
            prop_assert_eq!(buf.len(), h.len());
            let is_req = RcpFlags(flags).contains(RcpFlags::REQ);
            if !is_req {
                buf.extend_from_slice(&payload);
            }
            let (back, rest) = RcpHeader::parse(&buf).unwrap();
            prop_assert_eq!(back, h);
            prop_assert_eq!(rest, if is_req { &[][..] } else { &payload[..] });
        }

        #[test]
        fn parse_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..80)) {
            let _ = RcpHeader::parse(&bytes);
        }
    }

    #[test]
    fn errors_name_the_field() {
        let mut buf = Vec::new();
        RcpHeader::new(RcpFlags::REQ, 1, SeqNum(0), SeqNum(0), 0).emit(&mut buf);
        let mut bad = buf.clone();
        bad[2] = 5;
        assert_eq!(
            RcpHeader::parse(&bad),
            Err(WireError::BadField {
                field: "nblocks",
                value: 5
            })
        );
        let mut bad = buf.clone();
        bad.push(7);
        assert_eq!(
            RcpHeader::parse(&bad),
            Err(WireError::BadField {
                field: "payload",
                value: 1
            })
        );
        let mut bad = buf;
        bad[1] = 0x80;
        assert_eq!(
            RcpHeader::parse(&bad),
            Err(WireError::BadField {
                field: "flags",
                value: 0x80
            })
        );
    }
}
