//! The tunnel: unmodified programs reach the network through a stream
//! connection. Its sans-IO parts are the SOCKS5 handshake a local program
//! opens a connection with ([`socks`]) and the destinations the tunnel's
//! server may connect to on its clients' behalf ([`policy`]); [`relay`]
//! runs them over real sockets, one stream per SOCKS connection.

pub mod policy;
pub mod relay;
pub mod socks;

pub use policy::{Cidr, DestinationPolicy, Refusal};
pub use socks::{Destination, Handshake, Progress, Reply, SocksError};
