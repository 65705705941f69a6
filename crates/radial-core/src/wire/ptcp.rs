//! The pTCP packet (pTCP §5.2, Figure 4): pTCP's own header — the
//! connection identifiers pSRC and pDST, the aggregate sequence number pSEQ
//! and acknowledgment pACK — then, for data and acknowledgments, the TCP-v
//! pipe's segment (a TCP-baseline segment, type 0) whose window field
//! pTCP overrides with its own flow-control window (§5.4).
//!
//! ```text
//!  0        8        16       24       32
//! +--------+--------+--------+--------+
//! |ver|type| flags  |       aux       |
//! +--------+--------+--------+--------+
//! |                pSRC               |
//! |                pDST               |
//! |                pSEQ               |
//! |                pACK               |
//! +-----------------------------------+
//! |  TCP-v segment (DATA or ACK only) |
//! ```

use super::{first_byte, flags_byte, read_u32, tcp::TcpHeader, PacketType, WireError};
use crate::seq::SeqNum;

/// Length of pTCP's own header.
pub const HEADER_LEN: usize = 20;

flags_byte! {
    /// pTCP's flags.
    PtcpFlags {
        /// A TCP-v data segment follows; `pseq` numbers its first byte.
        DATA = 0x01,
        /// With a TCP-v segment: a TCP-v acknowledgment, `pack` valid. With
        /// SYN or CLOSE: the sender's answer.
        ACK = 0x02,
        /// Open the pipe of the path this arrives on (from the receiving
        /// host; `aux` names the TCP-v variant, as an index of
        /// `TcpVariant::ALL`). With ACK: the pipe is open.
        SYN = 0x04,
        /// With DATA: the stream ends with this segment.
        FIN = 0x08,
        /// Retire the pipe of this path once its data arrived. With ACK:
        /// closed.
        CLOSE = 0x10,
        /// The pipe of path `aux` is gone (its interface went down).
        DROP = 0x20,
    }
}

/// A decoded pTCP header.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PtcpHeader {
    /// Flags.
    pub flags: PtcpFlags,
    /// DATA: how many payload bytes are data (the rest pads the TCP-v
    /// segment to its virtual length); an acknowledgment: the length of the
    /// data it echoes; SYN: the TCP-v variant; DROP: the path gone.
    pub aux: u16,
    /// The sender's connection identifier.
    pub psrc: u32,
    /// The receiver's connection identifier.
    pub pdst: u32,
    /// Aggregate sequence number of the payload's first byte (DATA); on an
    /// acknowledgment, that of the data segment that triggered it (an echo:
    /// a virtual segment may carry different data on each transmission, so
    /// its acknowledgment alone does not say which arrived).
    pub pseq: SeqNum,
    /// Aggregate cumulative acknowledgment (ACK).
    pub pack: SeqNum,
}

impl PtcpHeader {
    /// Appends the encoded header to `out`.
    pub fn emit(&self, out: &mut Vec<u8>) {
        out.push(first_byte(PacketType::Ptcp));
        out.push(self.flags.0);
        out.extend_from_slice(&self.aux.to_be_bytes());
        out.extend_from_slice(&self.psrc.to_be_bytes());
        out.extend_from_slice(&self.pdst.to_be_bytes());
        out.extend_from_slice(&self.pseq.0.to_be_bytes());
        out.extend_from_slice(&self.pack.0.to_be_bytes());
    }

    /// Decodes a pTCP packet into its header and the TCP-v segment that
    /// follows (checked to decode, and present exactly for DATA and for an
    /// ACK without SYN or CLOSE).
    pub fn parse(datagram: &[u8]) -> Result<(PtcpHeader, &[u8]), WireError> {
        if super::packet_type(datagram)? != PacketType::Ptcp {
            return Err(WireError::UnknownType(datagram[0] & 0x0f));
        }
        if datagram.len() < HEADER_LEN {
            return Err(WireError::Truncated {
                needed: HEADER_LEN,
                got: datagram.len(),
            });
        }
        let flags = PtcpFlags(datagram[1]);
        if flags.0 & !PtcpFlags::ALL != 0 {
            return Err(WireError::BadField {
                field: "flags",
                value: u64::from(flags.0),
            });
        }
        let header = PtcpHeader {
            flags,
            aux: u16::from_be_bytes([datagram[2], datagram[3]]),
            psrc: read_u32(datagram, 4),
            pdst: read_u32(datagram, 8),
            pseq: SeqNum(read_u32(datagram, 12)),
            pack: SeqNum(read_u32(datagram, 16)),
        };
        let inner = &datagram[HEADER_LEN..];
        let carries = flags.contains(PtcpFlags::DATA)
            || (flags.contains(PtcpFlags::ACK)
                && !flags.contains(PtcpFlags::SYN)
                && !flags.contains(PtcpFlags::CLOSE));
        if carries {
            let (_, payload) = TcpHeader::parse(inner)?;
            if flags.contains(PtcpFlags::DATA) && usize::from(header.aux) > payload.len() {
                return Err(WireError::BadField {
                    field: "aux",
                    value: u64::from(header.aux),
                });
            }
        } else if !inner.is_empty() {
            return Err(WireError::BadField {
                field: "payload",
                value: inner.len() as u64,
            });
        }
        Ok((header, inner))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn control_round_trip(flags in 0u8..64, aux: u16, psrc: u32, pdst: u32, pseq: u32, pack: u32) {
            let h = PtcpHeader { flags: PtcpFlags(flags & !(PtcpFlags::DATA.0)), aux, psrc, pdst, pseq: SeqNum(pseq), pack: SeqNum(pack) };
            prop_assume!(!(h.flags.contains(PtcpFlags::ACK) && !h.flags.contains(PtcpFlags::SYN) && !h.flags.contains(PtcpFlags::CLOSE)));
            let mut buf = Vec::new();
            h.emit(&mut buf);
            let (back, inner) = PtcpHeader::parse(&buf).unwrap();
            prop_assert_eq!(back, h);
            prop_assert!(inner.is_empty());
        }

        #[test]
        fn parse_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..80)) {
            let _ = PtcpHeader::parse(&bytes);
        }
    }

    #[test]
    fn data_carries_a_tcp_segment() {
        let mut buf = Vec::new();
        PtcpHeader {
            flags: PtcpFlags::DATA,
            ..PtcpHeader::default()
        }
        .emit(&mut buf);
        // No TCP-v segment: an error naming it.
        assert!(matches!(
            PtcpHeader::parse(&buf),
            Err(WireError::Truncated { .. })
        ));
        TcpHeader::default().emit(&mut buf);
        buf.extend_from_slice(b"abc");
        let (_, inner) = PtcpHeader::parse(&buf).unwrap();
        let (_, payload) = TcpHeader::parse(inner).unwrap();
        assert_eq!(payload, b"abc");
        // Control packets carry nothing.
        let mut syn = Vec::new();
        PtcpHeader {
            flags: PtcpFlags::SYN,
            ..PtcpHeader::default()
        }
        .emit(&mut syn);
        syn.push(0);
        assert_eq!(
            PtcpHeader::parse(&syn),
            Err(WireError::BadField {
                field: "payload",
                value: 1
            })
        );
    }
}
