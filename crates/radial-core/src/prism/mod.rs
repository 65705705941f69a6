//! PRISM (Kim & Shin, "PRISM: Improving the Performance of
//! Inverse-Multiplexed TCP in Wireless Networks"): a proxy that stripes one
//! TCP connection over the WWAN links of a mobile community.
//!
//! The community's members each have a WWAN link of their own and share a
//! WLAN. A proxy in the wired network (the receiver's ISP's gateway) takes
//! the sender's segments and forwards each one, encapsulated, to one member
//! ([`Imux`] and its link table, [`adas`]); the member decapsulates it and
//! passes it over the WLAN to the receiver ([`Relay`], GRE in the paper).
//! The receiver's acknowledgments come back through the proxy, which reads
//! them, holds the duplicates that striping alone caused, detects losses per
//! link and tells the sender of them ([`rpc`]). The sender is TCP-SACK, or
//! TCP-PRISM, which retransmits a reported segment at once and cuts its
//! window only by the congested link's share (`TcpVariant::Prism`).
//!
//! Both ends stay unchanged TCP peers: the receiver is a plain TCP-SACK
//! receiver, and the proxy never originates data.

use std::collections::VecDeque;

use crate::endpoint::PathId;

pub mod adas;
mod imux;
mod relay;
pub mod rpc;

pub use adas::{LinkTable, Scheduler};
pub use imux::{Imux, ImuxStats};
pub use relay::Relay;
pub use rpc::RpcMode;

/// Most member links one proxy stripes over.
pub const MAX_LINKS: usize = 16;

/// The proxy's configuration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImuxConfig {
    /// How links are picked.
    pub scheduler: Scheduler,
    /// How much of the Reverse Path Controller runs.
    pub rpc: RpcMode,
    /// Number of member links (paths `0..links` of the proxy).
    pub links: usize,
    /// Each member link's nominal bandwidth in bit/s (the first `links`
    /// entries), given when the member joins: the base of its weight.
    pub bandwidth: [f64; MAX_LINKS],
    /// Seed of the random scheduler.
    pub seed: u64,
}

impl ImuxConfig {
    /// ADAS with full RPC over links of these bandwidths (bit/s).
    pub fn new(bandwidths: &[f64]) -> Self {
        let mut bandwidth = [0.0; MAX_LINKS];
        let links = bandwidths.len().min(MAX_LINKS);
        bandwidth[..links].copy_from_slice(&bandwidths[..links]);
        ImuxConfig {
            scheduler: Scheduler::Adas,
            rpc: RpcMode::Full,
            links,
            bandwidth,
            seed: 1,
        }
    }
}

/// Datagrams a network element (the proxy, a relay) passes on, in order,
/// and how many it passed.
#[derive(Debug, Default)]
struct Outbox {
    queue: VecDeque<(PathId, Vec<u8>)>,
    sent: u64,
}

impl Outbox {
    fn push(&mut self, path: PathId, datagram: Vec<u8>) {
        self.queue.push_back((path, datagram));
    }

    /// The next datagram into `buf` (cleared first), and its path.
    fn pop(&mut self, buf: &mut Vec<u8>) -> Option<PathId> {
        let (path, datagram) = self.queue.pop_front()?;
        buf.clear();
        buf.extend_from_slice(&datagram);
        self.sent += 1;
        Some(path)
    }
}

/// The [`Endpoint`](crate::endpoint::Endpoint) methods of a network element:
/// it sends what its `outbox` holds, has no timer and no application.
macro_rules! network_element {
    () => {
        fn poll_transmit(&mut self, _now: Instant, buf: &mut Vec<u8>) -> Option<PathId> {
            self.outbox.pop(buf)
        }

        fn poll_timeout(&self) -> Option<Instant> {
            None
        }

        fn handle_timeout(&mut self, _now: Instant) {}

        fn poll_app_event(&mut self) -> Option<AppEvent> {
            None
        }

        fn write(&mut self, _data: &[u8]) -> usize {
            0
        }

        fn send_capacity(&self) -> usize {
            0
        }

        fn close(&mut self) {}

        fn read(&mut self, _buf: &mut [u8]) -> usize {
            0
        }
    };
}
use network_element;
