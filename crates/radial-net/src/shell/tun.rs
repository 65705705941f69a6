//! TUN devices as an emulator's ends: path `i` is a device `pathI` in the
//! host's namespace and one of the same name in the servers'; what the host
//! routes into its device is read here, crosses the path's up link and is
//! written into the servers' device, which the kernel there receives as if
//! it came off a wire (and the other way round).
//!
//! As off a real interface's wire, with one difference a real interface
//! makes too: network cards check the TCP and UDP checksums of what they
//! receive and tell the kernel so, which then copies the payload to the
//! application without summing it again. A TUN device offers the same
//! through the virtio-net header in front of each packet
//! (`IFF_VNET_HDR`): a packet written with `NEEDS_CSUM` and the offsets
//! of its transport checksum counts as checked. Every packet crosses the
//! emulator unaltered, and was checksummed by the stack that sent it, so
//! this holds for each.

use std::io;
use std::os::fd::AsRawFd;

use mio::unix::SourceFd;
use mio::{Interest, Registry, Token};

use super::netns::Namespace;
use crate::emulator::{Ports, Way};

/// The name of path `i`'s device in both namespaces.
pub fn device_name(i: usize) -> String {
    format!("path{i}")
}

/// Bytes of the virtio-net header in front of each packet (`struct
/// virtio_net_hdr`, the TUN device's default size).
const VNET_HDR: usize = 10;

/// `VIRTIO_NET_HDR_F_NEEDS_CSUM`.
const NEEDS_CSUM: u8 = 1;

/// The virtio-net header for IP packet `p`: the offsets of its TCP or UDP
/// checksum (the packet counts as checked on arrival), or none for any
/// other packet (the kernel checks it as it would).
fn vnet_header(p: &[u8]) -> [u8; VNET_HDR] {
    let mut h = [0u8; VNET_HDR];
    let (start, protocol) = match p.first().map(|b| b >> 4) {
        Some(4) if p.len() >= 20 => (usize::from(p[0] & 0x0f) * 4, p[9]),
        Some(6) if p.len() >= 40 => (40, p[6]),
        _ => return h,
    };
    let offset: u16 = match protocol {
        6 => 16,
        17 => 6,
        _ => return h,
    };
    if start < 20 || start + usize::from(offset) + 2 > p.len() {
        return h;
    }
    h[0] = NEEDS_CSUM;
    // Little-endian, as the kernel reads a legacy header on this host.
    h[6..8].copy_from_slice(&(start as u16).to_le_bytes());
    h[8..10].copy_from_slice(&offset.to_le_bytes());
    h
}

/// Makes `count` TUN devices named by [`device_name`] inside `ns`, without
/// packet-information headers, with virtio-net headers, non-blocking.
pub(super) fn create(ns: &Namespace, count: usize) -> io::Result<Vec<tun::Device>> {
    ns.inside(move || {
        (0..count)
            .map(|i| {
                let mut c = tun::Configuration::default();
                c.tun_name(device_name(i));
                c.platform_config(|p| {
                    p.vnet_hdr(true);
                });
                let d = tun::create(&c).map_err(|e| {
                    io::Error::other(format!(
                        "cannot make TUN device {} (is /dev/net/tun there?): {e}",
                        device_name(i)
                    ))
                })?;
                d.set_nonblock()?;
                Ok(d)
            })
            .collect()
    })
}

/// Each path's pair of devices: the host's end and the servers' end.
pub(super) struct TunPorts {
    pub(super) pairs: Vec<(tun::Device, tun::Device)>,
    /// A packet with its virtio-net header, being written.
    pub(super) scratch: Vec<u8>,
}

impl TunPorts {
    fn end(&self, path: usize, way: Way) -> &tun::Device {
        let (host, server) = &self.pairs[path];
        match way {
            Way::Up => host,
            Way::Down => server,
        }
    }
}

impl Ports for TunPorts {
    fn register(&mut self, registry: &Registry) -> io::Result<()> {
        for (i, (host, server)) in self.pairs.iter().enumerate() {
            registry.register(
                &mut SourceFd(&host.as_raw_fd()),
                Token(2 * i),
                Interest::READABLE,
            )?;
            registry.register(
                &mut SourceFd(&server.as_raw_fd()),
                Token(2 * i + 1),
                Interest::READABLE,
            )?;
        }
        Ok(())
    }

    fn receive(&mut self, path: usize, way: Way, buf: &mut [u8]) -> Option<(usize, u32)> {
        // A virtio-net header, then an IP packet: its length is what it
        // takes on the link.
        let n = self.end(path, way).recv(buf).ok()?.checked_sub(VNET_HDR)?;
        buf.copy_within(VNET_HDR..VNET_HDR + n, 0);
        Some((n, n as u32))
    }

    fn send(&mut self, path: usize, way: Way, data: &[u8]) -> bool {
        let far = match way {
            Way::Up => Way::Down,
            Way::Down => Way::Up,
        };
        let mut packet = std::mem::take(&mut self.scratch);
        packet.clear();
        packet.extend_from_slice(&vnet_header(data));
        packet.extend_from_slice(data);
        let sent = self.end(path, far).send(&packet).is_ok();
        self.scratch = packet;
        sent
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An IPv4 header of `ihl` words carrying `protocol`, then `payload`
    /// bytes.
    fn v4(ihl: u8, protocol: u8, payload: usize) -> Vec<u8> {
        let mut p = vec![0u8; usize::from(ihl) * 4 + payload];
        p[0] = 0x40 | ihl;
        p[9] = protocol;
        p
    }

    #[test]
    fn tcp_and_udp_packets_carry_their_checksum_offsets() {
        let h = vnet_header(&v4(5, 17, 8));
        assert_eq!(h, [NEEDS_CSUM, 0, 0, 0, 0, 0, 20, 0, 6, 0]);
        let h = vnet_header(&v4(6, 6, 20));
        assert_eq!(h, [NEEDS_CSUM, 0, 0, 0, 0, 0, 24, 0, 16, 0]);
        let mut p6 = vec![0u8; 48];
        p6[0] = 0x60;
        p6[6] = 17;
        assert_eq!(vnet_header(&p6), [NEEDS_CSUM, 0, 0, 0, 0, 0, 40, 0, 6, 0]);
    }

    #[test]
    fn other_and_malformed_packets_are_left_to_the_kernel() {
        let none = [0u8; VNET_HDR];
        assert_eq!(vnet_header(&v4(5, 1, 8)), none, "ICMP");
        assert_eq!(vnet_header(&v4(5, 6, 10)), none, "TCP header cut short");
        assert_eq!(vnet_header(&v4(4, 17, 8)), none, "IHL below 5");
        assert_eq!(vnet_header(&[0x45; 12]), none, "shorter than a header");
        assert_eq!(vnet_header(&[]), none);
        assert_eq!(vnet_header(&[0x20; 40]), none, "not IP");
    }
}
