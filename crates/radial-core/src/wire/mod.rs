//! Packet formats: parse and emit, versioned, never panicking on any input.
//!
//! Every Radial datagram starts with one byte holding the format version (high
//! nibble) and the packet type (low nibble). `docs/wire.md` gives the layouts.

pub mod ptcp;
pub mod rcp;
pub mod tcp;

use std::fmt;

/// The wire-format version this build speaks.
pub const VERSION: u8 = 1;

/// The packet type in the low nibble of the first byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketType {
    /// A TCP-baseline segment ([`tcp::TcpHeader`]).
    Tcp = 0,
    /// An RCP packet ([`rcp::RcpHeader`]).
    Rcp = 1,
    /// A pTCP packet ([`ptcp::PtcpHeader`]); types 2 to 6 are the UDP
    /// runtime's (docs/wire.md).
    Ptcp = 7,
}

impl PacketType {
    fn from_nibble(n: u8) -> Option<Self> {
        match n {
            0 => Some(PacketType::Tcp),
            1 => Some(PacketType::Rcp),
            7 => Some(PacketType::Ptcp),
            _ => None,
        }
    }
}

/// Why a datagram could not be decoded. Names the offending field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WireError {
    /// Fewer bytes than the header (or the declared options) need.
    Truncated {
        /// Bytes the header needs.
        needed: usize,
        /// Bytes present.
        got: usize,
    },
    /// The version nibble is not [`VERSION`].
    BadVersion(u8),
    /// The type nibble names no known packet type.
    UnknownType(u8),
    /// A field holds a value the format forbids.
    BadField {
        /// The field's name as in `docs/wire.md`.
        field: &'static str,
        /// The value found.
        value: u64,
    },
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WireError::Truncated { needed, got } => {
                write!(f, "truncated datagram: need {needed} bytes, got {got}")
            }
            WireError::BadVersion(v) => write!(f, "field `version`: unsupported version {v}"),
            WireError::UnknownType(t) => write!(f, "field `type`: unknown packet type {t}"),
            WireError::BadField { field, value } => {
                write!(f, "field `{field}`: invalid value {value}")
            }
        }
    }
}

impl std::error::Error for WireError {}

/// Reads the version/type byte of a datagram.
pub fn packet_type(datagram: &[u8]) -> Result<PacketType, WireError> {
    let b = *datagram
        .first()
        .ok_or(WireError::Truncated { needed: 1, got: 0 })?;
    let (version, ty) = (b >> 4, b & 0x0f);
    if version != VERSION {
        return Err(WireError::BadVersion(version));
    }
    PacketType::from_nibble(ty).ok_or(WireError::UnknownType(ty))
}

/// Defines a flags byte: a newtype over `u8` with named constants, `contains`
/// and `|`.
macro_rules! flags_byte {
    ($(#[$doc:meta])* $name:ident { $($(#[$cdoc:meta])* $c:ident = $v:expr,)* }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct $name(pub u8);

        impl $name {
            $($(#[$cdoc])* pub const $c: $name = $name($v);)*
            const ALL: u8 = 0 $(| $v)*;

            /// True when every flag of `other` is set.
            pub fn contains(self, other: $name) -> bool {
                self.0 & other.0 == other.0
            }
        }

        impl std::ops::BitOr for $name {
            type Output = $name;
            fn bitor(self, rhs: $name) -> $name {
                $name(self.0 | rhs.0)
            }
        }
    };
}
pub(crate) use flags_byte;

/// What [`check_prefix`] checks a format's first four bytes against.
pub(crate) struct Prefix {
    pub ty: PacketType,
    pub header_len: usize,
    pub known_flags: u8,
    pub max_blocks: usize,
    pub block_len: usize,
    /// Bits the fourth byte may hold (0: a reserved byte that must be 0).
    pub known_options: u8,
    /// The field name of the fourth byte in errors.
    pub options_field: &'static str,
}

/// The checks both formats share (their first four bytes are laid out alike:
/// version/type, flags, block count, then a reserved or options byte): the
/// type, the fixed length, unknown flag bits, the block count and the fourth
/// byte. Returns the flags byte, the block count, the fourth byte and the
/// header length including the blocks.
pub(crate) fn check_prefix(
    datagram: &[u8],
    prefix: &Prefix,
) -> Result<(u8, usize, u8, usize), WireError> {
    let Prefix {
        ty,
        header_len,
        known_flags,
        max_blocks,
        block_len,
        known_options,
        options_field,
    } = *prefix;
    if packet_type(datagram)? != ty {
        return Err(WireError::UnknownType(datagram[0] & 0x0f));
    }
    if datagram.len() < header_len {
        return Err(WireError::Truncated {
            needed: header_len,
            got: datagram.len(),
        });
    }
    let flags = datagram[1];
    if flags & !known_flags != 0 {
        return Err(WireError::BadField {
            field: "flags",
            value: u64::from(flags),
        });
    }
    let nblocks = usize::from(datagram[2]);
    if nblocks > max_blocks {
        return Err(WireError::BadField {
            field: "nblocks",
            value: nblocks as u64,
        });
    }
    let options = datagram[3];
    if options & !known_options != 0 {
        return Err(WireError::BadField {
            field: options_field,
            value: u64::from(options),
        });
    }
    let needed = header_len + block_len * nblocks;
    if datagram.len() < needed {
        return Err(WireError::Truncated {
            needed,
            got: datagram.len(),
        });
    }
    Ok((flags, nblocks, options, needed))
}

pub(crate) fn first_byte(ty: PacketType) -> u8 {
    (VERSION << 4) | ty as u8
}

pub(crate) fn read_u32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}
