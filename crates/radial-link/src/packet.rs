//! Packets as the simulator carries them: a datagram from an endpoint plus
//! the addressing the network needs.

/// An interface address: the index of the interface in the network.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Addr(pub u32);

/// A packet in flight.
#[derive(Debug)]
pub struct Packet {
    /// Sending interface.
    pub src: Addr,
    /// Destination interface.
    pub dst: Addr,
    /// The agent (socket) that sent it.
    pub src_agent: u32,
    /// The agent (socket) at the destination that receives it.
    pub dst_agent: u32,
    /// Bytes the packet occupies on a link (datagram plus lower-layer
    /// headers).
    pub wire_len: u32,
    /// The endpoint's datagram; empty for synthetic traffic.
    pub data: Vec<u8>,
}
