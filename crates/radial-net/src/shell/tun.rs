//! TUN devices as an emulator's ends: path `i` is a device `pathI` in the
//! host's namespace and one of the same name in the servers'; what the host
//! routes into its device is read here, crosses the path's up link and is
//! written into the servers' device, which the kernel there receives as if
//! it came off a wire (and the other way round).

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

/// Makes `count` TUN devices named by [`device_name`] inside `ns`, without
/// packet-information headers, non-blocking.
pub(super) fn create(ns: &Namespace, count: usize) -> io::Result<Vec<tun::Device>> {
    ns.inside(move || {
        (0..count)
            .map(|i| {
                let mut c = tun::Configuration::default();
                c.tun_name(device_name(i));
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
        // An IP packet: its length is what it takes on the link.
        let n = self.end(path, way).recv(buf).ok()?;
        Some((n, n as u32))
    }

    fn send(&mut self, path: usize, way: Way, data: &[u8]) -> bool {
        let far = match way {
            Way::Up => Way::Down,
            Way::Down => Way::Up,
        };
        self.end(path, far).send(data).is_ok()
    }
}
