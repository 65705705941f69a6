//! The tunnel's building blocks, sans-IO: the SOCKS5 handshake a local
//! program opens a connection with ([`socks`]), and the destinations the
//! tunnel's server may connect to on its clients' behalf ([`policy`]).

pub mod policy;
pub mod socks;

pub use policy::{Cidr, DestinationPolicy, Refusal};
pub use socks::{Destination, Handshake, Progress, Reply, SocksError};
