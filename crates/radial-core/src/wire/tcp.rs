//! The TCP-baseline segment: a 20-byte header like TCP's, SACK blocks as
//! 8-byte options, the 4-byte options the `options` byte announces, then the
//! payload.
//!
//! ```text
//!  0        8        16       24       32
//! +--------+--------+--------+--------+
//! |ver|type| flags  | nblocks|options |
//! +--------+--------+--------+--------+
//! |           connection id           |
//! |           sequence number         |
//! |        acknowledgment number      |
//! |       receive window (bytes)      |
//! +-----------------------------------+
//! | nblocks x (block start, block end)|   SACK blocks, RFC 2018
//! +-----------------------------------+
//! | capability mask (if options & 1)  |   TCP-HO capability option
//! | bandwidth, kbit/s (if options & 2)|   TCP-HO bandwidth option
//! | lost sequence     (if options & 4)|   PRISM loss notice:
//! | share x 10^4   |  link            |     8 bytes
//! +-----------------------------------+
//! |              payload              |
//! ```

use super::{check_prefix, first_byte, flags_byte, read_u32, PacketType, Prefix, WireError};
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
        /// A TCP-Probing probe (from the sender, header only, `seq` holding
        /// the probe's number) or its acknowledgment (from the receiver,
        /// `seq` echoing that number).
        PROBE = 0x10,
    }
}

/// The `options` byte's bit for the capability option.
const OPT_CAPABILITY: u8 = 0x01;
/// The `options` byte's bit for the bandwidth option.
const OPT_BANDWIDTH: u8 = 0x02;
/// The `options` byte's bit for PRISM's loss notice.
const OPT_LOSS: u8 = 0x04;
/// The scale of [`LossNotice::share`]: shares are carried in 1/10,000.
pub const SHARE_SCALE: u16 = 10_000;

/// The capability mask bit that negotiates TCP-HO (TCP-HO §IV-B, Figure 2:
/// "TCP-HO is negotiated through the last bit").
pub const CAPABILITY_HANDOFF: u16 = 0x0001;

/// A SACK block: bytes `[start, end)` held by the receiver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SackBlock {
    /// First byte held.
    pub start: SeqNum,
    /// One past the last byte held.
    pub end: SeqNum,
}

/// PRISM's negative acknowledgment (PRISM §VI-B.1), added by the proxy to an
/// acknowledgment on its way to the sender: which segment was lost, on which
/// of the proxy's links, and the share the window keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LossNotice {
    /// First byte of the lost segment.
    pub seq: SeqNum,
    /// `p = 1 − B_i / (2 Σ B_j)` in units of 1/[`SHARE_SCALE`]: the fraction
    /// of its window a TCP-PRISM sender keeps.
    pub share: u16,
    /// The congested link (the proxy's index).
    pub link: u16,
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
    /// TCP-HO's capability option, on SYN segments: a 16-bit mask of
    /// capabilities the sender of the segment offers.
    pub capability: Option<u16>,
    /// TCP-HO's bandwidth option, on the mobile host's acknowledgments after
    /// a handoff: the new wireless link's bandwidth in kbit/s.
    pub bandwidth_kbps: Option<u32>,
    /// PRISM's loss notice, on acknowledgments the proxy passes on.
    pub loss: Option<LossNotice>,
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
        HEADER_LEN
            + 8 * self.sack.len()
            + 4 * (usize::from(self.capability.is_some())
                + usize::from(self.bandwidth_kbps.is_some())
                + 2 * usize::from(self.loss.is_some()))
    }

    fn options_byte(&self) -> u8 {
        let mut o = 0;
        if self.capability.is_some() {
            o |= OPT_CAPABILITY;
        }
        if self.bandwidth_kbps.is_some() {
            o |= OPT_BANDWIDTH;
        }
        if self.loss.is_some() {
            o |= OPT_LOSS;
        }
        o
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
        out.push(self.options_byte());
        out.extend_from_slice(&self.conn_id.to_be_bytes());
        out.extend_from_slice(&self.seq.0.to_be_bytes());
        out.extend_from_slice(&self.ack.0.to_be_bytes());
        out.extend_from_slice(&self.window.to_be_bytes());
        for b in self.sack.iter() {
            out.extend_from_slice(&b.start.0.to_be_bytes());
            out.extend_from_slice(&b.end.0.to_be_bytes());
        }
        if let Some(mask) = self.capability {
            out.extend_from_slice(&u32::from(mask).to_be_bytes());
        }
        if let Some(kbps) = self.bandwidth_kbps {
            out.extend_from_slice(&kbps.to_be_bytes());
        }
        if let Some(n) = self.loss {
            out.extend_from_slice(&n.seq.0.to_be_bytes());
            out.extend_from_slice(&n.share.to_be_bytes());
            out.extend_from_slice(&n.link.to_be_bytes());
        }
    }

    /// Decodes a header, returning it and the payload that follows.
    pub fn parse(datagram: &[u8]) -> Result<(TcpHeader, &[u8]), WireError> {
        let (flags, nblocks, options, mut needed) = check_prefix(
            datagram,
            &Prefix {
                ty: PacketType::Tcp,
                header_len: HEADER_LEN,
                known_flags: Flags::ALL,
                max_blocks: MAX_SACK_BLOCKS,
                block_len: 8,
                known_options: OPT_CAPABILITY | OPT_BANDWIDTH | OPT_LOSS,
                options_field: "options",
            },
        )?;
        let mut sack = SackList::default();
        for i in 0..nblocks {
            let at = HEADER_LEN + 8 * i;
            sack.push(SackBlock {
                start: SeqNum(read_u32(datagram, at)),
                end: SeqNum(read_u32(datagram, at + 4)),
            });
        }
        let mut option = |bit: u8| -> Result<Option<u32>, WireError> {
            if options & bit == 0 {
                return Ok(None);
            }
            let at = needed;
            needed += 4;
            if datagram.len() < needed {
                return Err(WireError::Truncated {
                    needed,
                    got: datagram.len(),
                });
            }
            Ok(Some(read_u32(datagram, at)))
        };
        let capability = match option(OPT_CAPABILITY)? {
            Some(mask) => Some(u16::try_from(mask).map_err(|_| WireError::BadField {
                field: "capability",
                value: u64::from(mask),
            })?),
            None => None,
        };
        let bandwidth_kbps = option(OPT_BANDWIDTH)?;
        // The loss notice takes two words.
        let loss = match (option(OPT_LOSS)?, option(OPT_LOSS)?) {
            (Some(seq), Some(rest)) => {
                let share = (rest >> 16) as u16;
                if share > SHARE_SCALE {
                    return Err(WireError::BadField {
                        field: "loss share",
                        value: u64::from(share),
                    });
                }
                Some(LossNotice {
                    seq: SeqNum(seq),
                    share,
                    link: rest as u16,
                })
            }
            _ => None,
        };
        let header = TcpHeader {
            flags: Flags(flags),
            conn_id: read_u32(datagram, 4),
            seq: SeqNum(read_u32(datagram, 8)),
            ack: SeqNum(read_u32(datagram, 12)),
            window: read_u32(datagram, 16),
            sack,
            capability,
            bandwidth_kbps,
            loss,
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
            0u8..32,
            any::<u32>(),
            any::<u32>(),
            any::<u32>(),
            any::<u32>(),
            proptest::collection::vec((any::<u32>(), any::<u32>()), 0..=MAX_SACK_BLOCKS),
            proptest::option::of(any::<u16>()),
            proptest::option::of(any::<u32>()),
            proptest::option::of((any::<u32>(), 0..=SHARE_SCALE, any::<u16>())),
        )
            .prop_map(
                |(flags, conn_id, seq, ack, window, blocks, capability, bandwidth_kbps, loss)| {
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
                        capability,
                        bandwidth_kbps,
                        loss: loss.map(|(seq, share, link)| LossNotice {
                            seq: SeqNum(seq),
                            share,
                            link,
                        }),
                    }
                },
            )
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

    #[test]
    fn options_are_checked() {
        let mut buf = Vec::new();
        TcpHeader {
            capability: Some(CAPABILITY_HANDOFF),
            ..TcpHeader::default()
        }
        .emit(&mut buf);
        // Announced but missing.
        assert_eq!(
            TcpHeader::parse(&buf[..HEADER_LEN]),
            Err(WireError::Truncated {
                needed: HEADER_LEN + 4,
                got: HEADER_LEN
            })
        );
        // A mask wider than 16 bits.
        buf[HEADER_LEN] = 1;
        assert_eq!(
            TcpHeader::parse(&buf),
            Err(WireError::BadField {
                field: "capability",
                value: 0x0100_0001
            })
        );
        // An option bit nobody defined.
        buf[3] = 0x08;
        assert_eq!(
            TcpHeader::parse(&buf),
            Err(WireError::BadField {
                field: "options",
                value: 8
            })
        );
        // A loss notice whose share is above one.
        let mut buf = Vec::new();
        TcpHeader {
            loss: Some(LossNotice::default()),
            ..TcpHeader::default()
        }
        .emit(&mut buf);
        buf[HEADER_LEN + 4..HEADER_LEN + 6].copy_from_slice(&10_001u16.to_be_bytes());
        assert_eq!(
            TcpHeader::parse(&buf),
            Err(WireError::BadField {
                field: "loss share",
                value: 10_001
            })
        );
    }
}
